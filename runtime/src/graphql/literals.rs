//! graphql-js's `ValuesOfCorrectTypeRule` on the literals of a document's field
//! arguments (root fields' and every selected field's below): every value that its type does not take, each reported where it is (a list
//! item, an object field, a missing required field), in the order the rule's visit finds
//! them. async-graphql's validation stops at the first invalid value of an argument, and
//! takes any object for a dynamic zone's input scalar, which the GraphQL plugin's
//! `parseLiteral` (`parseData`) refuses during validation when its `__typename` names no
//! component: `Expected value of type "ArticleBlocksDynamicZoneInput!", found {…};
//! Component not found. expected one of: …`.
//!
//! The literal is read from the document's text (async-graphql's parsed values carry no
//! positions below an argument); `found …` prints that text.

use async_graphql::parser::types::{ExecutableDocument, OperationType, Selection, SelectionSet};

use super::graphql_js::{self as js, Located};
use super::ir::{Kind, Registry, Ty};
use super::scalars::{Literal, Refusal, literal_refusal};
use super::view::View;

/// Past this depth of selection sets the walk stops (the handler's depth limit comes
/// first; this guards embedders).
const MAX_DEPTH: usize = 64;

/// The names of the fragments `set` spreads, and those they spread, each once.
fn spreads<'d>(
    doc: &'d ExecutableDocument,
    set: &'d SelectionSet,
    out: &mut Vec<&'d str>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    for item in &set.items {
        match &item.node {
            Selection::Field(field) => spreads(doc, &field.node.selection_set.node, out, depth + 1),
            Selection::InlineFragment(fragment) => {
                spreads(doc, &fragment.node.selection_set.node, out, depth + 1);
            }
            Selection::FragmentSpread(spread) => {
                let name = spread.node.fragment_name.node.as_str();
                if !out.contains(&name)
                    && let Some(fragment) = doc.fragments.get(name)
                {
                    out.push(name);
                    spreads(doc, &fragment.node.selection_set.node, out, depth + 1);
                }
            }
        }
    }
}

/// What a walk reads: the types, the zones' members, the document's text.
pub struct Literals<'a> {
    /// The schema's types.
    pub registry: &'a Registry,
    /// The content types and components (a zone's input scalar and its members).
    pub view: &'a View,
    /// The document's text.
    pub source: &'a str,
}

/// The errors of one walk.
#[derive(Debug, Default)]
pub struct Found {
    /// graphql-js's messages and locations, in its order.
    pub errors: Vec<Located>,
    /// Whether one of them is one that async-graphql's validation misses: a zone item's,
    /// a value the plugin's own scalars refuse ([`super::scalars`]), an `Int` past 32
    /// bits, an enumeration given a string. The walk's errors then answer alone.
    pub missed: bool,
    /// Where the names of the arguments the walk found errors in are (line, column), as
    /// async-graphql's errors of their values point: the walk's errors stand for
    /// async-graphql's there.
    pub arguments: Vec<(usize, usize)>,
}

impl Literals<'_> {
    /// Every field argument given as a literal in the operation `operation_name` selects
    /// (the only one when `None`): its root fields', every selected field's below them
    /// (through inline fragments), then the fragments it spreads, in the order they are
    /// defined, as graphql-js's visit meets them.
    pub fn arguments(&self, doc: &ExecutableDocument, operation_name: Option<&str>) -> Found {
        let mut found = Found::default();
        let Some(op) = super::document::selected_operation(doc, operation_name) else {
            return found;
        };
        let root = match op.ty {
            OperationType::Query => "Query",
            OperationType::Mutation => "Mutation",
            OperationType::Subscription => return found,
        };
        self.selection(root, &op.selection_set.node, &mut found, 0);
        let mut spread = Vec::new();
        spreads(doc, &op.selection_set.node, &mut spread, 0);
        let mut fragments: Vec<_> = spread
            .iter()
            .filter_map(|name| doc.fragments.get(*name))
            .collect();
        fragments.sort_by_key(|f| (f.pos.line, f.pos.column));
        for fragment in fragments {
            let on = fragment.node.type_condition.node.on.node.as_str();
            self.selection(on, &fragment.node.selection_set.node, &mut found, 0);
        }
        found
    }

    /// The arguments of the fields of `set`, selected on type `parent`, and below them.
    fn selection(&self, parent: &str, set: &SelectionSet, found: &mut Found, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => {
                    let below = &field.node.selection_set.node;
                    if field.node.arguments.is_empty() && below.items.is_empty() {
                        continue; // a leaf without arguments: nothing to walk
                    }
                    let name = field.node.name.node.as_str();
                    let Some(def) = js::field_def(self.registry, parent, name) else {
                        continue;
                    };
                    for (name, value) in &field.node.arguments {
                        let Some(arg) = def.args.iter().find(|a| a.name == name.node.as_str())
                        else {
                            continue;
                        };
                        if let Some(at) =
                            js::offset_of(self.source, value.pos.line, value.pos.column)
                        {
                            let before = found.errors.len();
                            self.value(at, &arg.ty, found);
                            if found.errors.len() > before {
                                found.arguments.push((name.pos.line, name.pos.column));
                            }
                        }
                    }
                    if !below.items.is_empty() {
                        self.selection(def.ty.base(), below, found, depth + 1);
                    }
                }
                Selection::InlineFragment(fragment) => {
                    let on = super::document::fragment_type(&fragment.node, parent);
                    self.selection(on, &fragment.node.selection_set.node, found, depth + 1);
                }
                Selection::FragmentSpread(_) => {}
            }
        }
    }

    /// The value at byte `at`, of type `ty` (its location type).
    fn value(&self, at: usize, ty: &Ty, found: &mut Found) {
        let Some(end) = js::value_end(self.source, at) else {
            return;
        };
        let raw = &self.source[at..end];
        if raw.starts_with('$') {
            return; // a variable: coerced with the variables
        }
        let here = vec![js::position_of(self.source, at)];
        if raw == "null" {
            if matches!(ty, Ty::NonNull(_)) {
                found.errors.push((
                    format!(
                        "Expected value of type \"{}\", found null.",
                        js::type_text(ty)
                    ),
                    here,
                ));
            }
            return;
        }
        let nullable = match ty {
            Ty::NonNull(inner) => inner.as_ref(),
            other => other,
        };
        match nullable {
            Ty::NonNull(_) => {}
            Ty::List(item) => match raw.starts_with('[') {
                true => {
                    for item_at in items(self.source, at) {
                        self.value(item_at, item, found);
                    }
                }
                // A single value given for a list is its only item.
                false => self.value(at, item, found),
            },
            Ty::Named(name) => self.named(at, raw, ty, name, found),
        }
    }

    fn named(&self, at: usize, raw: &str, ty: &Ty, name: &str, found: &mut Found) {
        let here = vec![js::position_of(self.source, at)];
        let expected = || {
            format!(
                "Expected value of type \"{}\", found {raw}.",
                js::type_text(ty)
            )
        };
        match self.registry.types.get(name).map(|t| &t.kind) {
            Some(Kind::Input(fields)) => {
                if !raw.starts_with('{') {
                    found.errors.push((expected(), here));
                    return;
                }
                let given = object_fields(self.source, at);
                for f in fields {
                    let required = matches!(f.ty, Ty::NonNull(_)) && f.default.is_none();
                    if required && !given.iter().any(|(n, ..)| *n == f.name) {
                        found.errors.push((
                            format!(
                                "Field \"{name}.{}\" of required type \"{}\" was not provided.",
                                f.name,
                                js::type_text(&f.ty)
                            ),
                            here.clone(),
                        ));
                    }
                }
                for (key, key_at, value_at) in given {
                    match fields.iter().find(|f| f.name == key) {
                        Some(f) => self.value(value_at, &f.ty, found),
                        None => {
                            let names = fields.iter().map(|f| f.name.as_str());
                            let hint = js::did_you_mean(None, &js::suggestion_list(key, names));
                            found.errors.push((
                                format!("Field \"{key}\" is not defined by type \"{name}\".{hint}"),
                                vec![js::position_of(self.source, key_at)],
                            ));
                        }
                    }
                }
            }
            Some(Kind::Enum(values)) => {
                let bare = raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    && !raw.starts_with(|c: char| c.is_ascii_digit())
                    && !matches!(raw, "true" | "false");
                if !bare {
                    found.missed = true;
                    found.errors.push((
                        format!(
                            "Enum \"{name}\" cannot represent non-enum value: {raw}.{}",
                            js::enum_hint(values, raw)
                        ),
                        here,
                    ));
                } else if !values.iter().any(|v| v == raw) {
                    found.errors.push((
                        format!(
                            "Value \"{raw}\" does not exist in \"{name}\" enum.{}",
                            js::enum_hint(values, raw)
                        ),
                        here,
                    ));
                }
            }
            Some(Kind::Object(_) | Kind::Union(_)) => found.errors.push((expected(), here)),
            Some(Kind::Scalar { .. }) => {
                if let Some(members) = self.view.zone_input_members(name) {
                    self.zone_item(at, raw, ty, &members, found);
                } else if let Some(refusal) = self.scalar_refusal(at, raw, name) {
                    let (message, here) = match refusal {
                        Refusal::AsIs(message) => (message, here),
                        Refusal::Bare(message) => (message, Vec::new()),
                        Refusal::Wrapped(message) => (
                            format!(
                                "Expected value of type \"{}\", found {raw}; {message}",
                                js::type_text(ty)
                            ),
                            here,
                        ),
                    };
                    found.errors.push((message, here));
                    found.missed = true;
                }
            }
            None => {
                if let Some((message, missed)) = builtin_scalar(name, raw) {
                    found.errors.push((message, here));
                    found.missed |= missed;
                }
            }
        }
    }

    /// What the plugin's scalar `name` says of the literal `raw` at `at`.
    fn scalar_refusal(&self, at: usize, raw: &str, name: &str) -> Option<Refusal> {
        if raw.starts_with('"') {
            let text = string_literal(self.source, at)?;
            return literal_refusal(name, &Literal::String(&text));
        }
        let literal = match raw.starts_with(['[', '{']) {
            true => Literal::Composite(raw),
            false => Literal::Other(raw),
        };
        literal_refusal(name, &literal)
    }

    /// A zone item: an object whose `__typename` names a component (`parseData`); not
    /// an object, `parseLiteral` gives nothing.
    fn zone_item(&self, at: usize, raw: &str, ty: &Ty, members: &[&str], found: &mut Found) {
        let here = vec![js::position_of(self.source, at)];
        let expected = format!(
            "Expected value of type \"{}\", found {raw}",
            js::type_text(ty)
        );
        if !raw.starts_with('{') {
            found.errors.push((format!("{expected}."), here));
            found.missed = true;
            return;
        }
        let typename = object_fields(self.source, at)
            .into_iter()
            .find(|(k, ..)| *k == "__typename")
            .and_then(|(_, _, v)| string_literal(self.source, v));
        if typename.is_some_and(|t| self.view.is_component_name(&t)) {
            return;
        }
        found.errors.push((
            format!(
                "{expected}; Component not found. expected one of: {}",
                members.join(", ")
            ),
            here,
        ));
        found.missed = true;
    }
}

/// The message of a built-in scalar's `parseLiteral` for a literal it does not take, and
/// whether async-graphql's validation misses it (an `Int` past 32 bits).
fn builtin_scalar(name: &str, raw: &str) -> Option<(String, bool)> {
    let string = raw.starts_with('"');
    let integer = !raw.contains(['.', 'e', 'E']) && raw.parse::<i128>().is_ok();
    let number = integer || (!string && raw.parse::<f64>().is_ok() && raw != "NaN");
    let message = match name {
        "String" if !string => format!("String cannot represent a non string value: {raw}"),
        "ID" if !string && !integer => {
            format!("ID cannot represent a non-string and non-integer value: {raw}")
        }
        "Boolean" if !matches!(raw, "true" | "false") => {
            format!("Boolean cannot represent a non boolean value: {raw}")
        }
        "Int" if !integer => format!("Int cannot represent non-integer value: {raw}"),
        "Int" if raw.parse::<i32>().is_err() => {
            let message = format!("Int cannot represent non 32-bit signed integer value: {raw}");
            return Some((message, true));
        }
        "Float" if !number => format!("Float cannot represent non numeric value: {raw}"),
        _ => return None,
    };
    Some((message, false))
}

/// The offsets of a list literal's items.
fn items(source: &str, at: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = js::skip_ignored(source, at + 1);
    while source.as_bytes().get(i).is_some_and(|b| *b != b']') {
        out.push(i);
        match js::value_end(source, i) {
            Some(end) => i = js::skip_ignored(source, end),
            None => break,
        }
    }
    out
}

/// An object literal's fields: (name, offset of the name, offset of the value).
fn object_fields(source: &str, at: usize) -> Vec<(&str, usize, usize)> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = js::skip_ignored(source, at + 1);
    while bytes.get(i).is_some_and(|b| *b != b'}') {
        let end = js::name_end(source, i);
        let colon = js::skip_ignored(source, end);
        if bytes.get(colon) != Some(&b':') || end == i {
            break;
        }
        let value = js::skip_ignored(source, colon + 1);
        out.push((&source[i..end], i, value));
        match js::value_end(source, value) {
            Some(next) => i = js::skip_ignored(source, next),
            None => break,
        }
    }
    out
}

/// The text of a simple string literal at `at` (escapes read as JSON reads them).
fn string_literal(source: &str, at: usize) -> Option<String> {
    let end = js::value_end(source, at)?;
    let raw = source.get(at..end)?;
    if raw.starts_with("\"\"\"") {
        return raw.get(3..raw.len().checked_sub(3)?).map(str::to_owned);
    }
    serde_json::from_str(raw).ok()
}
