//! The fast path of plain read queries: a validated query operation whose root fields
//! are the model's read queries and whose selections hold only leaves and the objects
//! of the reader's own JSON (`nodes`, `pageInfo`) is answered by walking the selection
//! over the entries' JSON text once, writing the answer's text as it goes, instead of
//! one resolver future per field and a tree of values.
//!
//! It answers exactly what the resolvers would, byte for byte: the same read with the
//! same arguments (the given ones, and the declared defaults), through
//! [`Reader::read_text`], each leaf as [`scalar_value`] converts it (a string without
//! escapes, `true`, `false` and a short integer are the same text either way, so they
//! are copied). Whenever the resolvers could answer anything else (an error, a relation
//! to load, a directive, a union, fragments on another type, a key answered twice, a
//! `null` where the type says non-null, a variable left out) it gives `None`, and the
//! executor answers instead.
//!
//! Two steps: [`Plain::plan`] decides whether the operation is plain and plans it once
//! (each root field's arguments, and per key its field definition, shape and non-null
//! flag), reading nothing; the caller validates the document, then
//! [`PlainQuery::answer`] reads and writes.

use std::cell::Cell;
use std::collections::HashMap;

use async_graphql::parser::types::{ExecutableDocument, OperationType, Selection, SelectionSet};
use serde_json::value::RawValue;

use super::dynamic::{Catalog, Reader, RootField, RootKind, Shape, scalar_value, shape_of};
use super::ir::{DefaultValue, FieldDef, Kind, Registry, Ty};
use super::scalars::is_rfc3339_date_time;

/// What the walk needs of the schema.
pub struct Plain<'a> {
    /// The schema's types.
    pub registry: &'a Registry,
    /// The root fields the reader answers.
    pub roots: &'a HashMap<String, RootField>,
    /// The fields that load something (never on the fast path).
    pub catalog: &'a Catalog,
    /// How the arguments are coerced, as the executor's resolvers coerce them.
    pub coercions: &'a super::Coercions,
}

/// A plain read query, planned once (see [`Plain::plan`]): each root field's response key
/// and what answers it.
pub struct PlainQuery<'a> {
    roots: Vec<(&'a str, PlainRoot<'a>)>,
}

enum PlainRoot<'a> {
    /// `__typename`.
    Typename,
    /// A root field the reader reads, with the resolver's arguments.
    Read {
        root: &'a RootField,
        args: serde_json::Map<String, serde_json::Value>,
        plan: Plan<'a>,
    },
}

impl<'a> Plain<'a> {
    /// The plan of the operation, when its selections are plain reads (nothing is read
    /// yet; `None`: not plain, the executor answers).
    pub fn plan(
        &self,
        doc: &'a ExecutableDocument,
        operation: Option<&str>,
        variables: &async_graphql::Variables,
    ) -> Option<PlainQuery<'a>> {
        let op = super::document::selected_operation(doc, operation)?;
        if op.ty != OperationType::Query || !op.directives.is_empty() {
            return None;
        }
        // A variable left out takes its definition's default; without one, not plain.
        let mut values = variables.clone();
        for def in &op.variable_definitions {
            let name = &def.node.name.node;
            if !values.contains_key(name) {
                let default = def.node.default_value.as_ref()?;
                values.insert(name.clone(), default.node.clone());
            }
        }
        let walk = Walk {
            plain: self,
            doc,
            variables: &values,
        };
        let mut roots: Vec<(&'a str, PlainRoot<'a>)> = Vec::new();
        for item in &op.selection_set.node.items {
            let Selection::Field(field) = &item.node else {
                return None;
            };
            let field = &field.node;
            let key = field.response_key().node.as_str();
            if !field.directives.is_empty() || roots.iter().any(|(k, _)| *k == key) {
                return None;
            }
            let answer = if field.name.node == "__typename" {
                PlainRoot::Typename
            } else {
                walk.root(field)?
            };
            roots.push((key, answer));
        }
        Some(PlainQuery { roots })
    }
}

impl PlainQuery<'_> {
    /// The response's JSON text (`{"data":{…}}`), read by `reader`; `None` where the
    /// resolvers would answer otherwise (see the module).
    pub fn answer(self, reader: &dyn Reader) -> Option<String> {
        let mut out = String::from("{\"data\":{");
        for (i, (key, root)) in self.roots.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_key(&mut out, key);
            match root {
                PlainRoot::Typename => out.push_str("\"Query\""),
                PlainRoot::Read { root, args, plan } => {
                    let text = reader.read_text(root, args).ok()?;
                    write(&plan, text.trim(), &mut out)?;
                }
            }
        }
        out.push_str("}}");
        Some(out)
    }
}

/// `"key":` (a response key is a GraphQL name: nothing in it is escaped).
fn push_key(out: &mut String, key: &str) {
    out.push('"');
    out.push_str(key);
    out.push_str("\":");
}

struct Walk<'p, 'a> {
    plain: &'p Plain<'a>,
    doc: &'a ExecutableDocument,
    variables: &'p async_graphql::Variables,
}

/// What is written of a value of one type for one selection, worked out once from the
/// schema and the document; writing it then only reads the JSON.
enum Plan<'a> {
    /// A leaf, converted as [`scalar_value`] converts it.
    Leaf { shape: Shape, non_null: bool },
    /// A list of items of the inner plan.
    List { non_null: bool, item: Box<Plan<'a>> },
    /// An object: its keys in the answer's order.
    Object {
        non_null: bool,
        steps: Vec<Step<'a>>,
    },
}

/// One key of an object's answer.
struct Step<'a> {
    /// The response key (a GraphQL name: nothing in it is escaped).
    key: &'a str,
    what: StepValue<'a>,
}

enum StepValue<'a> {
    /// `__typename`: the object's type name.
    Typename(&'a str),
    /// The JSON member `name`, written by the plan.
    Member { name: &'a str, plan: Plan<'a> },
}

impl<'a> Walk<'_, 'a> {
    /// A root field's read and plan (`None`: not plain).
    fn root(&self, field: &'a async_graphql::parser::types::Field) -> Option<PlainRoot<'a>> {
        let roots: &'a HashMap<String, RootField> = self.plain.roots;
        let root = roots.get(field.name.node.as_str())?;
        if !matches!(
            root.kind,
            RootKind::List | RootKind::Connection | RootKind::One | RootKind::Single
        ) {
            return None;
        }
        let def = self.field_def("Query", field.name.node.as_str())?;
        let args = self.arguments(def, field)?;
        let plan = self.plan(&def.ty, &field.selection_set.node)?;
        Some(PlainRoot::Read { root, args, plan })
    }

    /// The arguments as the resolver gets them: the given ones, with the variables'
    /// values, and the declared defaults of the others.
    fn arguments(
        &self,
        def: &FieldDef,
        field: &async_graphql::parser::types::Field,
    ) -> Option<serde_json::Map<String, serde_json::Value>> {
        let mut args = serde_json::Map::new();
        for (name, value) in &field.arguments {
            let value = value
                .node
                .clone()
                .into_const_with(|v| self.variables.get(&v).cloned().ok_or(()))
                .ok()?;
            args.insert(name.node.to_string(), value.into_json().ok()?);
        }
        for input in &def.args {
            if args.contains_key(&input.name) {
                continue;
            }
            match &input.default {
                Some(DefaultValue::Json(v)) => args.insert(input.name.clone(), v.clone()),
                Some(DefaultValue::Enum(v)) => {
                    args.insert(input.name.clone(), serde_json::Value::String(v.clone()))
                }
                None => None,
            };
        }
        let coercions = self.plain.coercions;
        // `def` is a field of `Query`, whose plans were made with the schema.
        if let Some(plans) = coercions.of_query_field(&def.name) {
            coercions.coerce_arguments(plans, &mut args);
        }
        Some(args)
    }

    fn field_def(&self, type_name: &str, field: &str) -> Option<&'a FieldDef> {
        let registry: &'a Registry = self.plain.registry;
        match &registry.types.get(type_name)?.kind {
            Kind::Object(fields) => fields.iter().find(|f| f.name == field),
            _ => None,
        }
    }

    /// The plan of a value of type `ty` for `selection` (`None`: not plain).
    fn plan(&self, ty: &'a Ty, selection: &'a SelectionSet) -> Option<Plan<'a>> {
        let non_null = matches!(ty, Ty::NonNull(_));
        let inner = match ty {
            Ty::NonNull(inner) => inner,
            other => other,
        };
        if let Ty::List(item) = inner {
            let item = Box::new(self.plan(item, selection)?);
            return Some(Plan::List { non_null, item });
        }
        match shape_of(self.plain.registry, inner) {
            Shape::Object => {
                let mut steps = Vec::new();
                self.object(inner.base(), selection, &mut steps, 0)?;
                Some(Plan::Object { non_null, steps })
            }
            Shape::Union | Shape::Unserved => None,
            shape if selection.items.is_empty() => Some(Plan::Leaf { shape, non_null }),
            _ => None,
        }
    }

    /// Adds the steps of a selection of an object of `type_name`, fragments on the
    /// type itself included; a key twice is not plain.
    fn object(
        &self,
        type_name: &'a str,
        selection: &'a SelectionSet,
        steps: &mut Vec<Step<'a>>,
        depth: usize,
    ) -> Option<()> {
        // Validation refuses fragment cycles; the bound guards embedders.
        if depth > 32 {
            return None;
        }
        let loads = self.plain.catalog.get(type_name);
        for item in &selection.items {
            let fragment = match &item.node {
                Selection::Field(field) => {
                    let field = &field.node;
                    let key = field.response_key().node.as_str();
                    let name = field.name.node.as_str();
                    if !field.directives.is_empty()
                        || !field.arguments.is_empty()
                        || steps.iter().any(|s| s.key == key)
                        || loads.is_some_and(|l| l.contains_key(name))
                    {
                        return None;
                    }
                    let what = if name == "__typename" {
                        StepValue::Typename(type_name)
                    } else {
                        let def = self.field_def(type_name, name)?;
                        let plan = self.plan(&def.ty, &field.selection_set.node)?;
                        StepValue::Member { name, plan }
                    };
                    steps.push(Step { key, what });
                    continue;
                }
                Selection::InlineFragment(fragment) => {
                    let fragment = &fragment.node;
                    let on_this = fragment
                        .type_condition
                        .as_ref()
                        .is_none_or(|c| c.node.on.node.as_str() == type_name);
                    if !fragment.directives.is_empty() || !on_this {
                        return None;
                    }
                    &fragment.selection_set.node
                }
                Selection::FragmentSpread(spread) => {
                    let fragment = &self
                        .doc
                        .fragments
                        .get(&spread.node.fragment_name.node)?
                        .node;
                    if !spread.node.directives.is_empty()
                        || !fragment.directives.is_empty()
                        || fragment.type_condition.node.on.node.as_str() != type_name
                    {
                        return None;
                    }
                    &fragment.selection_set.node
                }
            };
            self.object(type_name, fragment, steps, depth + 1)?;
        }
        Some(())
    }
}

/// Writes the JSON text `json` (the reader's: valid JSON) as `plan` answers it; `None`
/// where the resolvers would answer otherwise (see the module).
fn write(plan: &Plan<'_>, json: &str, out: &mut String) -> Option<()> {
    let non_null = match plan {
        Plan::Leaf { non_null, .. }
        | Plan::List { non_null, .. }
        | Plan::Object { non_null, .. } => *non_null,
    };
    if json == "null" {
        out.push_str("null");
        return (!non_null).then_some(());
    }
    match plan {
        Plan::Leaf { shape, non_null } => leaf(json, *shape, *non_null, out),
        Plan::List { item, .. } => {
            let items: Vec<&RawValue> = serde_json::from_str(json).ok()?;
            out.push('[');
            for (i, json) in items.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, json.get(), out)?;
            }
            out.push(']');
            Some(())
        }
        Plan::Object { steps, .. } => {
            let object = RawObject::parse(json)?;
            out.push('{');
            for (i, step) in steps.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_key(out, step.key);
                match &step.what {
                    StepValue::Typename(name) => {
                        out.push('"');
                        out.push_str(name);
                        out.push('"');
                    }
                    StepValue::Member { name, plan } => write(plan, object.get(name)?.get(), out)?,
                }
            }
            out.push('}');
            Some(())
        }
    }
}

/// Writes a leaf's JSON text as [`scalar_value`] converts it (`None`: not as the
/// resolver would answer it: a list of a non-scalar, or `null` for a non-null type).
fn leaf(text: &str, shape: Shape, non_null: bool, out: &mut String) -> Option<()> {
    if shape == Shape::Scalar && same_text(text) {
        out.push_str(text);
        return Some(());
    }
    // A date-time (no escapes in it) is written as it is; any other `DateTime` value is
    // the executor's to refuse (`dynamic::invalid_date_time`), so none goes further.
    if shape == Shape::DateTime {
        let quoted = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'));
        if !quoted.is_some_and(is_rfc3339_date_time) {
            return None;
        }
        out.push_str(text);
        return Some(());
    }
    let json: serde_json::Value = serde_json::from_str(text).ok()?;
    if json.is_array() && shape != Shape::Scalar {
        return None;
    }
    let value = scalar_value(json, shape);
    if non_null && value == async_graphql::Value::Null {
        return None;
    }
    out.push_str(&serde_json::to_string(&value).ok()?);
    Some(())
}

/// Whether JSON text is written back the same once parsed: a string without escapes,
/// `true`, `false`, or an integer of at most 18 digits (a longer one may be read as a
/// float, and `-0` as 0).
fn same_text(text: &str) -> bool {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(b'"') => !bytes.contains(&b'\\'),
        Some(b't' | b'f') => text == "true" || text == "false",
        Some(_) => {
            let digits = text.strip_prefix('-').unwrap_or(text);
            !digits.is_empty()
                && digits.len() <= 18
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits.len() == 1 || !digits.starts_with('0'))
                && text != "-0"
        }
        None => false,
    }
}

/// A JSON object's members as text, in order, without parsing their values.
struct RawObject<'a> {
    members: Vec<(&'a str, &'a RawValue)>,
    /// Where the next look-up starts: selections mostly follow the entry's key order.
    next: Cell<usize>,
}

impl<'a> RawObject<'a> {
    /// `None` when the text is not an object (or a key has escapes).
    fn parse(json: &'a str) -> Option<Self> {
        let members = serde_json::from_str::<Members<'a>>(json).ok()?.0;
        Some(RawObject {
            members,
            next: Cell::new(0),
        })
    }

    /// The member `name`. The readers' JSON has each key once (serde_json's writer and
    /// the store's never repeat one), so the first found is the one.
    fn get(&self, name: &str) -> Option<&'a RawValue> {
        let start = self.next.get().min(self.members.len());
        let (before, after) = self.members.split_at(start);
        let found = after
            .iter()
            .position(|(k, _)| *k == name)
            .map(|i| i + start)
            .or_else(|| before.iter().position(|(k, _)| *k == name))?;
        self.next.set(found + 1);
        Some(self.members[found].1)
    }
}

/// The members of a JSON object, borrowed from its text.
struct Members<'a>(Vec<(&'a str, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Members<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(32));
                while let Some(member) = map.next_entry::<&'de str, &'de RawValue>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}
