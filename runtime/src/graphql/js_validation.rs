//! graphql-js's validation of a document's directives, variables and fragments, where
//! async-graphql words a rule differently, points elsewhere, reports what graphql-js does
//! not, or refuses while parsing what graphql-js parses and then validates:
//! - a repeated directive (`The directive "@include" can only be used once at this
//!   location.`, at the first and the repeated one), an unknown or misplaced one;
//! - a variable the operation does not define (at its use and at the operation, in the
//!   order of use);
//! - a fragment on a type without fields, and what graphql-js leaves unchecked below it
//!   (fields of a scalar, a spread of such a fragment);
//! - a selection on a leaf (at the selection);
//! - two operations or fragments of one name, and an anonymous operation beside others,
//!   which async-graphql's parser refuses (`UniqueOperationNamesRule`,
//!   `UniqueFragmentNamesRule`, `LoneAnonymousOperationRule`).
//!
//! The handler asks [`rewrite`] before [`super::graphql_js::rewrite`], [`reported`]
//! whether graphql-js reports an error at all, and [`parse_error`] for a document that
//! did not parse.

use async_graphql::Positioned;
use async_graphql::parser::types::{
    Directive, ExecutableDocument, Field, InlineFragment, Selection, SelectionSet,
};
use async_graphql::parser::{Error as ParseError, Pos};

use super::graphql_js::{Located, name_end, offset_of, position_of, skip_ignored};
use super::ir::{Kind, Registry};

/// graphql-js's validation errors for a document async-graphql's parser refused where
/// graphql-js parses it; `None` for a real syntax error.
pub fn parse_error(source: &str, error: &ParseError) -> Option<Vec<Located>> {
    match error {
        ParseError::OperationDuplicated {
            operation,
            first,
            second,
        } => Some(vec![(
            format!("There can be only one operation named \"{operation}\"."),
            vec![
                name_after_keyword(source, *first)?,
                name_after_keyword(source, *second)?,
            ],
        )]),
        ParseError::FragmentDuplicated {
            fragment,
            first,
            second,
        } => Some(vec![(
            format!("There can be only one fragment named \"{fragment}\"."),
            vec![
                name_after_keyword(source, *first)?,
                name_after_keyword(source, *second)?,
            ],
        )]),
        ParseError::MultipleOperations {
            anonymous,
            operation,
        } => {
            let mut at = vec![*anonymous, *operation];
            at.sort_by_key(|p| (p.line, p.column));
            let errors: Vec<Located> = at
                .into_iter()
                .filter(|p| is_anonymous(source, *p))
                .map(|p| {
                    (
                        "This anonymous operation must be the only defined operation.".into(),
                        vec![(p.line, p.column)],
                    )
                })
                .collect();
            (!errors.is_empty()).then_some(errors)
        }
        _ => None,
    }
}

/// Whether graphql-js reports async-graphql's validation error `message`: not a field
/// of a type without fields, nor a spread of a fragment on one (graphql-js has no parent
/// type there, and reports only the fragment's or the field's own error).
pub fn reported(reg: &Registry, message: &str) -> bool {
    // A leaf type: the specification's scalars (not in the registry), the schema's own
    // scalars and enums.
    let leaf = |name: &str| {
        matches!(name, "String" | "Int" | "Float" | "Boolean" | "ID")
            || matches!(
                reg.types.get(name).map(|t| &t.kind),
                Some(Kind::Scalar { .. } | Kind::Enum(_))
            )
    };
    let composite = |name: &str| !leaf(name);
    // The type named in quotes after `marker`.
    let named_after = |marker: &str| {
        let (_, rest) = message.split_once(marker)?;
        rest.split_once('"').map(|(name, _)| name)
    };
    if message.starts_with("Unknown field ")
        && let Some(ty) = named_after("\" on type \"")
    {
        return composite(ty);
    }
    if message.contains("cannot be spread here as objects of type ")
        && let Some(ty) = named_after(" can never be of type \"")
    {
        return composite(ty);
    }
    true
}

/// graphql-js's message and locations for one of the errors this module knows.
pub fn rewrite(
    reg: &Registry,
    source: &str,
    doc: &ExecutableDocument,
    message: &str,
    locations: &[(usize, usize)],
) -> Option<Located> {
    let &(line, column) = locations.last()?;
    let at = Pos { line, column };
    if let Some(rest) = message.strip_prefix("Unknown field \"")
        && let Some((field, rest)) = rest.split_once('"')
        && let Some(ty) = between(rest, " on type \"", "\"")
    {
        return Some((
            format!(
                "Cannot query field \"{field}\" on type \"{ty}\".{}",
                field_hint(reg, ty, field)?
            ),
            locations.to_vec(),
        ));
    }
    if let Some(name) = between(message, "Duplicate directive \"", "\"") {
        let first = directive_lists(doc).into_iter().find_map(|list| {
            list.iter().any(|d| d.pos == at).then(|| {
                list.iter()
                    .find(|d| d.node.name.node.as_str() == name)
                    .map(|d| d.pos)
            })?
        })?;
        return Some((
            format!("The directive \"@{name}\" can only be used once at this location."),
            vec![(first.line, first.column), (line, column)],
        ));
    }
    if let Some(name) = between(message, "Unknown directive \"", "\"") {
        return Some((
            format!("Unknown directive \"@{name}\"."),
            vec![(line, column)],
        ));
    }
    if let Some(rest) = message.strip_prefix("Directive \"")
        && let Some((name, place)) = rest.split_once("\" may not be used on \"")
    {
        let place = place.trim_end_matches('"');
        return Some((
            format!("Directive \"@{name}\" may not be used on {place}."),
            vec![(line, column)],
        ));
    }
    if let Some(rest) = message.strip_prefix("Variable \"$")
        && let Some((variable, rest)) = rest.split_once('"')
        && rest.starts_with(" is not defined")
    {
        return undefined_variable(source, doc, variable, message, locations);
    }
    if message.contains("cannot be spread here as objects of type ") && !message.ends_with('.') {
        return Some((format!("{message}."), locations.to_vec()));
    }
    if let Some(ty) = message
        .strip_prefix("Fragment ")
        .and_then(|rest| rest.split_once("cannot condition non composite type "))
        .map(|(_, ty)| ty)
    {
        return non_composite_condition(doc, message, ty, at);
    }
    if message.starts_with("Field \"")
        && message.contains("\" must not have a selection since type ")
    {
        let set = selections(doc)
            .into_iter()
            .find_map(|item| match &item.node {
                Selection::Field(f) if item.pos == at => Some(f.node.selection_set.pos),
                _ => None,
            })?;
        return Some((format!("{message}."), vec![(set.line, set.column)]));
    }
    None
}

/// `FieldsOnCorrectTypeRule`'s suggestion for `field` on type `ty`: on a union, the
/// members that have the field (`to use an inline fragment on …`); on an object type,
/// its fields near the name. `None` for a type the registry does not hold (the
/// introspection types: async-graphql's words stay).
fn field_hint(reg: &Registry, ty: &str, field: &str) -> Option<String> {
    let fields_of = |name: &str| match reg.types.get(name).map(|t| &t.kind) {
        Some(Kind::Object(fields)) => Some(fields.iter().map(|f| f.name.as_str()).collect()),
        _ => None,
    };
    match &reg.types.get(ty)?.kind {
        Kind::Union(members) => {
            let mut having: Vec<String> = members
                .iter()
                .filter(|m| fields_of(m).is_some_and(|f: Vec<&str>| f.contains(&field)))
                .cloned()
                .collect();
            having.sort_by(|a, b| super::graphql_js::natural_compare(a, b));
            Some(super::graphql_js::did_you_mean(
                Some("to use an inline fragment on"),
                &having,
            ))
        }
        Kind::Object(_) => {
            let names: Vec<&str> = fields_of(ty)?;
            let near = super::graphql_js::suggestion_list(field, names);
            Some(super::graphql_js::did_you_mean(None, &near))
        }
        _ => None,
    }
}

/// `NoUndefinedVariablesRule`'s errors (graphql-js's JSON errors) in the order it reports
/// them: each operation's uses in document order. async-graphql reports them in another
/// order; they are picked out of `errors` by their message (with the place of the use),
/// and the others keep their places.
pub fn undefined_variables_in_use_order(errors: &mut [serde_json::Value]) {
    let slots: Vec<usize> = (0..errors.len())
        .filter(|&i| undefined_variable_use(&errors[i]).is_some())
        .collect();
    let mut taken: Vec<serde_json::Value> = slots
        .iter()
        .map(|&i| std::mem::take(&mut errors[i]))
        .collect();
    taken.sort_by_key(undefined_variable_use);
    for (slot, e) in slots.into_iter().zip(taken) {
        errors[slot] = e;
    }
}

/// Where an undefined variable's error points at its use (its first location).
fn undefined_variable_use(error: &serde_json::Value) -> Option<(usize, usize)> {
    let message = error["message"].as_str()?;
    if !(message.starts_with("Variable \"$") && message.contains("\" is not defined")) {
        return None;
    }
    let at = &error["locations"][0];
    Some((
        usize::try_from(at["line"].as_u64()?).ok()?,
        usize::try_from(at["column"].as_u64()?).ok()?,
    ))
}

/// `Variable "$t" is not defined.` (or `… by operation "Q".`) at the use and at the
/// operation. async-graphql points at the argument holding the use (and first at the
/// operation, when it is named).
fn undefined_variable(
    source: &str,
    doc: &ExecutableDocument,
    variable: &str,
    message: &str,
    locations: &[(usize, usize)],
) -> Option<Located> {
    let &(line, column) = locations.last()?;
    let value = arguments(doc)
        .into_iter()
        .find(|(name, _)| name.line == line && name.column == column)
        .map(|(_, value)| value)?;
    let start = offset_of(source, value.line, value.column)?;
    let used = variable_use(source, start, variable)?;
    let operation = match locations {
        [op, _] => *op,
        _ => {
            let op = super::document::operations(doc)
                .into_iter()
                .find(|(name, _)| name.is_none())?
                .1
                .pos;
            (op.line, op.column)
        }
    };
    Some((
        format!("{message}."),
        vec![position_of(source, used), operation],
    ))
}

/// The offset of the first `$variable` in the value at `start` (outside its strings).
fn variable_use(source: &str, start: usize, variable: &str) -> Option<usize> {
    let end = super::graphql_js::value_end(source, start)?;
    let text = &source[start..end];
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // A string (block strings hold no lone `"` run that matters here).
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'$' if text[i + 1..].starts_with(variable)
                && name_end(text, i + 1) == i + 1 + variable.len() =>
            {
                return Some(start + i);
            }
            _ => i += 1,
        }
    }
    None
}

/// `Fragment "F" cannot condition on non composite type "String".` (or `Fragment
/// cannot …` for an inline one), at the type condition's name.
fn non_composite_condition(
    doc: &ExecutableDocument,
    message: &str,
    ty: &str,
    at: Pos,
) -> Option<Located> {
    let subject = message.split_once(" cannot condition")?.0;
    let named = between(subject, "Fragment \"", "\"");
    let on = match named {
        Some(name) => doc.fragments.get(name)?.node.type_condition.node.on.pos,
        None => {
            inline_fragment_at(doc, at)?
                .type_condition
                .as_ref()?
                .node
                .on
                .pos
        }
    };
    let ty = ty.trim_end_matches('.');
    Some((
        format!("{subject} cannot condition on non composite type {ty}."),
        vec![(on.line, on.column)],
    ))
}

fn inline_fragment_at(doc: &ExecutableDocument, at: Pos) -> Option<&InlineFragment> {
    selections(doc)
        .into_iter()
        .find_map(|item| match &item.node {
            Selection::InlineFragment(f) if item.pos == at => Some(&f.node),
            _ => None,
        })
}

/// The text between `prefix` at the start of `text` and the next `end`.
fn between<'t>(text: &'t str, prefix: &str, end: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(prefix)?;
    rest.split_once(end).map(|(inside, _)| inside)
}

/// The position of the name after a definition's keyword (`query A`, `fragment F`).
fn name_after_keyword(source: &str, definition: Pos) -> Option<(usize, usize)> {
    let start = offset_of(source, definition.line, definition.column)?;
    let name = skip_ignored(source, name_end(source, start));
    (name_end(source, name) > name).then(|| position_of(source, name))
}

/// Whether the operation at `p` has no name (`{ … }`, `query { … }`, `query($a: …)`).
fn is_anonymous(source: &str, p: Pos) -> bool {
    let Some(start) = offset_of(source, p.line, p.column) else {
        return false;
    };
    if source[start..].starts_with('{') {
        return true;
    }
    let after = skip_ignored(source, name_end(source, start));
    name_end(source, after) == after
}

/// Every selection of the document, operations' and fragments', at every depth.
fn selections(doc: &ExecutableDocument) -> Vec<&Positioned<Selection>> {
    fn walk<'d>(set: &'d SelectionSet, out: &mut Vec<&'d Positioned<Selection>>) {
        for item in &set.items {
            out.push(item);
            match &item.node {
                Selection::Field(f) => walk(&f.node.selection_set.node, out),
                Selection::InlineFragment(f) => walk(&f.node.selection_set.node, out),
                Selection::FragmentSpread(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    for (_, op) in super::document::operations(doc) {
        walk(&op.node.selection_set.node, &mut out);
    }
    for fragment in doc.fragments.values() {
        walk(&fragment.node.selection_set.node, &mut out);
    }
    out
}

/// Every list of directives in the document (one per place that takes them).
fn directive_lists(doc: &ExecutableDocument) -> Vec<&[Positioned<Directive>]> {
    let mut out: Vec<&[Positioned<Directive>]> = Vec::new();
    for (_, op) in super::document::operations(doc) {
        out.push(&op.node.directives);
        out.extend(
            op.node
                .variable_definitions
                .iter()
                .map(|v| &v.node.directives[..]),
        );
    }
    out.extend(doc.fragments.values().map(|f| &f.node.directives[..]));
    for item in selections(doc) {
        out.push(match &item.node {
            Selection::Field(f) => &f.node.directives,
            Selection::InlineFragment(f) => &f.node.directives,
            Selection::FragmentSpread(s) => &s.node.directives,
        });
    }
    out
}

/// Every argument in the document, the fields' and the directives': where its name and
/// its value are.
fn arguments(doc: &ExecutableDocument) -> Vec<(Pos, Pos)> {
    let fields = selections(doc)
        .into_iter()
        .filter_map(|item| match &item.node {
            Selection::Field(f) => Some(&f.node),
            _ => None,
        });
    let mut out: Vec<(Pos, Pos)> = fields
        .flat_map(|f: &Field| f.arguments.iter().map(|(n, v)| (n.pos, v.pos)))
        .collect();
    for list in directive_lists(doc) {
        for d in list {
            out.extend(d.node.arguments.iter().map(|(n, v)| (n.pos, v.pos)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;

    fn rewritten(query: &str, message: &str, at: &[(usize, usize)]) -> Option<Located> {
        let doc = parse_query(query).ok()?;
        rewrite(&Registry::default(), query, &doc, message, at)
    }

    #[test]
    fn a_repeated_directive_points_at_the_first_too() {
        let q = "{ articles @include(if: true) @include(if: true) { title } }";
        assert_eq!(
            rewritten(q, "Duplicate directive \"include\"", &[(1, 31)]),
            Some((
                "The directive \"@include\" can only be used once at this location.".into(),
                vec![(1, 12), (1, 31)]
            ))
        );
    }

    #[test]
    fn an_undefined_variable_points_at_its_use_and_the_operation() {
        let q = "query Q { articles(filters: {title: {eq: $t}}) { title } }";
        let message = "Variable \"$t\" is not defined by operation \"Q\"";
        assert_eq!(
            rewritten(q, message, &[(1, 1), (1, 20)]),
            Some((format!("{message}."), vec![(1, 42), (1, 1)]))
        );
        let q = "{ articles(filters: {title: {eq: \"$t\"}, views: {eq: $t}}) { title } }";
        let message = "Variable \"$t\" is not defined";
        assert_eq!(
            rewritten(q, message, &[(1, 12)]),
            Some((format!("{message}."), vec![(1, 53), (1, 1)]))
        );
    }

    #[test]
    fn parse_refusals_are_validation_errors() {
        let q = "query A { a } query A { b }";
        let Err(e) = parse_query(q) else {
            panic!("parsed")
        };
        assert_eq!(
            parse_error(q, &e),
            Some(vec![(
                "There can be only one operation named \"A\".".into(),
                vec![(1, 7), (1, 21)]
            )])
        );
        let q = "{ a } query B { b }";
        let Err(e) = parse_query(q) else {
            panic!("parsed")
        };
        assert_eq!(
            parse_error(q, &e),
            Some(vec![(
                "This anonymous operation must be the only defined operation.".into(),
                vec![(1, 1)]
            )])
        );
    }

    #[test]
    fn fields_of_a_scalar_are_not_reported() {
        let mut reg = Registry::default();
        reg.add("Article", None, Kind::Object(Vec::new()));
        reg.add("JSON", None, Kind::Scalar { specified_by: None });
        let unknown =
            |ty: &str| format!("Unknown field \"x\" on type \"{ty}\". Did you mean \"y\"?");
        assert!(reported(&reg, &unknown("Article")));
        assert!(!reported(&reg, &unknown("String")));
        assert!(!reported(&reg, &unknown("JSON")));
        assert!(reported(&reg, &unknown("__Type")));
        let spread = |ty: &str| {
            format!(
                "Fragment \"F\" cannot be spread here as objects of type \"Article\" can never be of type \"{ty}\""
            )
        };
        assert!(reported(&reg, &spread("Article")));
        assert!(!reported(&reg, &spread("String")));
    }

    #[test]
    fn undefined_variables_keep_their_places_in_use_order() {
        let undefined = |name: &str, line: u64, column: u64| {
            serde_json::json!({
                "message": format!("Variable \"${name}\" is not defined."),
                "locations": [{"line": line, "column": column}, {"line": 1, "column": 1}],
            })
        };
        let other = |message: &str| serde_json::json!({"message": message, "locations": []});
        let mut errors = vec![
            other("a"),
            undefined("v", 1, 51),
            other("b"),
            undefined("t", 1, 34),
        ];
        undefined_variables_in_use_order(&mut errors);
        let messages: Vec<&str> = errors
            .iter()
            .filter_map(|e| e["message"].as_str())
            .collect();
        assert_eq!(
            messages,
            [
                "a",
                "Variable \"$t\" is not defined.",
                "b",
                "Variable \"$v\" is not defined."
            ]
        );
    }
}
