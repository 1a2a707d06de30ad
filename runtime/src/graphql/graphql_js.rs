//! graphql-js's words for what a document or its variables get wrong (Apollo answers
//! them and Strapi passes them on), where async-graphql's differ: its validation
//! messages rewritten with graphql-js's text, location and suggestions (`Did you mean
//! …`, `suggestionList`'s lexical distance), the variables' coercion
//! (`coerceVariableValues`: Apollo's 400 `BAD_USER_INPUT`), and graphql-depth-limit's
//! crash on a spread of a fragment the document does not define (Apollo's 500).

use std::cmp::Ordering;

use async_graphql::Name;
use async_graphql::parser::types::{BaseType, ExecutableDocument, Selection, SelectionSet, Type};
use serde_json::{Value, json};

use super::ir::{Kind, Registry, Ty};

/// A message and where it points (line, column; one-based).
pub type Located = (String, Vec<(usize, usize)>);

/// graphql-js's `suggestionList`: the options within the lexical distance of `input`
/// (a third of its length and one), nearest first, then in natural order.
pub fn suggestion_list<'a>(input: &str, options: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let threshold = input.chars().count() * 4 / 10 + 1;
    let mut found: Vec<(usize, &str)> = options
        .into_iter()
        .filter_map(|o| lexical_distance(input, o, threshold).map(|d| (d, o)))
        .collect();
    found.sort_by(|(da, a), (db, b)| da.cmp(db).then_with(|| natural_compare(a, b)));
    found.into_iter().map(|(_, o)| o.to_owned()).collect()
}

/// graphql-js's `LexicalDistance.measure`: the Damerau–Levenshtein distance of the
/// lower-cased texts (a change of case alone is 1), or `None` beyond `threshold`.
fn lexical_distance(input: &str, option: &str, threshold: usize) -> Option<usize> {
    if input == option {
        return Some(0);
    }
    let (input_lower, option_lower) = (input.to_lowercase(), option.to_lowercase());
    if input_lower == option_lower {
        return Some(1);
    }
    let mut a: Vec<char> = option_lower.chars().collect();
    let mut b: Vec<char> = input_lower.chars().collect();
    if a.len() < b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    if a.len() - b.len() > threshold {
        return None;
    }
    let mut rows = vec![vec![0usize; b.len() + 1]; 3];
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        let mut smallest = i;
        rows[i % 3][0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut cell = (rows[(i - 1) % 3][j] + 1)
                .min(rows[i % 3][j - 1] + 1)
                .min(rows[(i - 1) % 3][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cell = cell.min(rows[(i - 2) % 3][j - 2] + 1);
            }
            smallest = smallest.min(cell);
            rows[i % 3][j] = cell;
        }
        if smallest > threshold {
            return None;
        }
    }
    let distance = rows[a.len() % 3][b.len()];
    (distance <= threshold).then_some(distance)
}

/// graphql-js's `naturalCompare`: runs of digits compare as numbers.
pub(super) fn natural_compare(a: &str, b: &str) -> Ordering {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let number = |s: &[char], k: &mut usize| {
                let mut n: u64 = 0;
                loop {
                    n = n
                        .saturating_mul(10)
                        .saturating_add(u64::from(s[*k].to_digit(10).unwrap_or(0)));
                    *k += 1;
                    if *k >= s.len() || !s[*k].is_ascii_digit() || n == 0 {
                        return n;
                    }
                }
            };
            let (x, y) = (number(&a, &mut i), number(&b, &mut j));
            if x != y {
                return x.cmp(&y);
            }
        } else {
            if a[i] != b[j] {
                return a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
    }
    a.len().cmp(&b.len())
}

/// graphql-js's `didYouMean`: `""`, or ` Did you mean [sub ]"a", "b", or "c"?` (five at
/// most).
pub fn did_you_mean(sub: Option<&str>, suggestions: &[String]) -> String {
    let quoted: Vec<String> = suggestions
        .iter()
        .take(5)
        .map(|s| format!("\"{s}\""))
        .collect();
    let mut message = String::from(" Did you mean ");
    if let Some(sub) = sub {
        message.push_str(sub);
        message.push(' ');
    }
    match quoted.as_slice() {
        [] => String::new(),
        [one] => format!("{message}{one}?"),
        [a, b] => format!("{message}{a} or {b}?"),
        [rest @ .., last] => format!("{message}{}, or {last}?", rest.join(", ")),
    }
}

/// A type reference as graphql-js prints it (`[Tag]!`).
pub fn type_text(ty: &Ty) -> String {
    match ty {
        Ty::Named(name) => name.clone(),
        Ty::List(inner) => format!("[{}]", type_text(inner)),
        Ty::NonNull(inner) => format!("{}!", type_text(inner)),
    }
}

pub(super) fn parsed_type(ty: &Type) -> Ty {
    let base = match &ty.base {
        BaseType::Named(name) => Ty::Named(name.to_string()),
        BaseType::List(inner) => Ty::List(Box::new(parsed_type(inner))),
    };
    if ty.nullable {
        base
    } else {
        Ty::NonNull(Box::new(base))
    }
}

fn input_fields<'r>(reg: &'r Registry, name: &str) -> Option<&'r [super::ir::InputDef]> {
    match reg.types.get(name).map(|t| &t.kind) {
        Some(Kind::Input(fields)) => Some(fields),
        _ => None,
    }
}

fn enum_values<'r>(reg: &'r Registry, name: &str) -> Option<&'r [String]> {
    match reg.types.get(name).map(|t| &t.kind) {
        Some(Kind::Enum(values)) => Some(values),
        _ => None,
    }
}

pub(super) fn field_def<'r>(
    reg: &'r Registry,
    parent: &str,
    field: &str,
) -> Option<&'r super::ir::FieldDef> {
    match reg.types.get(parent).map(|t| &t.kind) {
        Some(Kind::Object(fields)) => fields.iter().find(|f| f.name == field),
        _ => None,
    }
}

/// The text between the first two `"` after `prefix`, and what follows it.
fn quoted<'m>(text: &'m str, prefix: &str) -> Option<(&'m str, &'m str)> {
    let rest = text.strip_prefix(prefix)?.strip_prefix('"')?;
    let end = rest.find('"')?;
    Some((&rest[..end], &rest[end + 1..]))
}

/// graphql-js's message and location for one of async-graphql's validation errors, or
/// `None` where it has no rewrite.
pub fn rewrite(
    reg: &Registry,
    source: &str,
    doc: &ExecutableDocument,
    message: &str,
    locations: &[(usize, usize)],
) -> Option<Located> {
    // `Unknown argument "a" on field "f" of type "T".` (async-graphql's suggestions after).
    if let Some((arg, rest)) = quoted(message, "Unknown argument ")
        && let Some((field, rest)) = quoted(rest, " on field ")
        && let Some((parent, _)) = quoted(rest, " of type ")
    {
        let names: Vec<&str> = field_def(reg, parent, field)
            .map(|f| f.args.iter().map(|a| a.name.as_str()).collect())
            .unwrap_or_default();
        let hint = did_you_mean(None, &suggestion_list(arg, names));
        return Some((
            format!("Unknown argument \"{arg}\" on field \"{parent}.{field}\".{hint}"),
            locations.to_vec(),
        ));
    }
    // `Field "f" argument "a" of type "Parent" is required but not provided`.
    if let Some((field, rest)) = quoted(message, "Field ")
        && let Some((arg, rest)) = quoted(rest, " argument ")
        && let Some((parent, rest)) = quoted(rest, " of type ")
        && rest == " is required but not provided"
    {
        let ty = field_def(reg, parent, field)?
            .args
            .iter()
            .find(|a| a.name == arg)?
            .ty
            .clone();
        return Some((
            format!(
                "Field \"{field}\" argument \"{arg}\" of type \"{}\" is required, but it was not provided.",
                type_text(&ty)
            ),
            locations.to_vec(),
        ));
    }
    // `Field "f" of type "T" must have a selection of subfields`: graphql-js names the
    // field's whole type and suggests a selection.
    if let Some((field, rest)) = quoted(message, "Field ")
        && let Some((named, rest)) = quoted(rest, " of type ")
        && rest == " must have a selection of subfields"
    {
        let mut texts = reg.types.values().filter_map(|t| match &t.kind {
            Kind::Object(fields) => fields
                .iter()
                .find(|f| f.name == field && f.ty.base() == named)
                .map(|f| type_text(&f.ty)),
            _ => None,
        });
        let ty = texts.next().unwrap_or_else(|| named.to_owned());
        return Some((
            format!(
                "Field \"{field}\" of type \"{ty}\" must have a selection of subfields. Did you mean \"{field} {{ ... }}\"?"
            ),
            locations.to_vec(),
        ));
    }
    // async-graphql names the differing argument where graphql-js names the field.
    if let Some((_, rest)) = quoted(message, "Fields ")
        && rest.starts_with(" conflict because they have differing arguments.")
    {
        let &(line, column) = locations.first()?;
        let key = response_key_at(doc, line, column)?;
        return Some((
            format!(
                "Fields \"{key}\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional."
            ),
            locations.to_vec(),
        ));
    }
    let (path, reason) = quoted(message, "Invalid value for argument ")?;
    let reason = reason.strip_prefix(", ")?;
    let &(line, column) = locations.first()?;
    let mut segments = path.split('.');
    let arg = segments.next()?;
    let start = argument_value_at(doc, line, column, arg)
        .and_then(|pos| offset_of(source, pos.line, pos.column))?;
    let segments: Vec<&str> = segments.collect();
    let at = descend(source, start, &segments)?;
    let raw = &source[at..value_end(source, at)?];
    if raw.starts_with('$') {
        return None;
    }
    let here = vec![position_of(source, at)];
    if let Some((name, rest)) = quoted(reason, "unknown field ")
        && let Some((object, _)) = quoted(rest, " of type ")
    {
        let key = object_key(source, at, name)?;
        let names: Vec<&str> = input_fields(reg, object)
            .map(|f| f.iter().map(|d| d.name.as_str()).collect())
            .unwrap_or_default();
        let hint = did_you_mean(None, &suggestion_list(name, names));
        return Some((
            format!("Field \"{name}\" is not defined by type \"{object}\".{hint}"),
            vec![position_of(source, key)],
        ));
    }
    if let Some((enumeration, rest)) = quoted(reason, "enumeration type ")
        && let Some((value, _)) = quoted(rest, " does not contain the value ")
    {
        let values = enum_values(reg, enumeration).unwrap_or_default();
        if raw.starts_with('"') {
            let hint = enum_hint(values, raw);
            return Some((
                format!("Enum \"{enumeration}\" cannot represent non-enum value: {raw}.{hint}"),
                here,
            ));
        }
        let hint = enum_hint(values, value);
        return Some((
            format!("Value \"{value}\" does not exist in \"{enumeration}\" enum.{hint}"),
            here,
        ));
    }
    let (expected, _) = quoted(reason, "expected type ")?;
    if raw == "null" {
        return Some((
            format!("Expected value of type \"{expected}!\", found null."),
            here,
        ));
    }
    let integer = raw.parse::<i64>().is_ok();
    let message = match expected {
        "Int" if integer => format!("Int cannot represent non 32-bit signed integer value: {raw}"),
        "Int" => format!("Int cannot represent non-integer value: {raw}"),
        "Float" => format!("Float cannot represent non numeric value: {raw}"),
        "String" => format!("String cannot represent a non string value: {raw}"),
        "Boolean" => format!("Boolean cannot represent a non boolean value: {raw}"),
        "ID" => format!("ID cannot represent a non-string and non-integer value: {raw}"),
        name => match enum_values(reg, name) {
            Some(values) => format!(
                "Enum \"{name}\" cannot represent non-enum value: {raw}.{}",
                enum_hint(values, raw)
            ),
            None => format!("Expected value of type \"{name}\", found {raw}."),
        },
    };
    Some((message, here))
}

pub(super) fn enum_hint(values: &[String], input: &str) -> String {
    did_you_mean(
        Some("the enum value"),
        &suggestion_list(input, values.iter().map(String::as_str)),
    )
}

/// Every selection set of the document (operations and fragments).
fn selection_sets(doc: &ExecutableDocument) -> Vec<&SelectionSet> {
    let mut out: Vec<&SelectionSet> = super::document::operations(doc)
        .into_iter()
        .map(|(_, op)| &op.node.selection_set.node)
        .collect();
    out.extend(doc.fragments.values().map(|f| &f.node.selection_set.node));
    out
}

/// The response key (alias or name) of the field at (line, column).
fn response_key_at(doc: &ExecutableDocument, line: usize, column: usize) -> Option<String> {
    fn find(set: &SelectionSet, line: usize, column: usize) -> Option<String> {
        set.items.iter().find_map(|item| match &item.node {
            Selection::Field(f) if item.pos.line == line && item.pos.column == column => {
                Some(f.node.response_key().node.to_string())
            }
            Selection::Field(f) => find(&f.node.selection_set.node, line, column),
            Selection::InlineFragment(f) => find(&f.node.selection_set.node, line, column),
            Selection::FragmentSpread(_) => None,
        })
    }
    selection_sets(doc)
        .into_iter()
        .find_map(|set| find(set, line, column))
}

/// The position of the value of the argument `name` whose name is at (line, column).
fn argument_value_at(
    doc: &ExecutableDocument,
    line: usize,
    column: usize,
    name: &str,
) -> Option<async_graphql::Pos> {
    fn find(
        set: &SelectionSet,
        line: usize,
        column: usize,
        name: &str,
    ) -> Option<async_graphql::Pos> {
        let set_none = SelectionSet::default();
        for item in &set.items {
            let (directives, below) = match &item.node {
                Selection::Field(f) => {
                    for (n, v) in &f.node.arguments {
                        if n.pos.line == line && n.pos.column == column && n.node.as_str() == name {
                            return Some(v.pos);
                        }
                    }
                    (&f.node.directives, &f.node.selection_set.node)
                }
                Selection::InlineFragment(f) => (&f.node.directives, &f.node.selection_set.node),
                Selection::FragmentSpread(f) => (&f.node.directives, &set_none),
            };
            for d in directives {
                for (n, v) in &d.node.arguments {
                    if n.pos.line == line && n.pos.column == column && n.node.as_str() == name {
                        return Some(v.pos);
                    }
                }
            }
            if let Some(pos) = find(below, line, column, name) {
                return Some(pos);
            }
        }
        None
    }
    selection_sets(doc)
        .into_iter()
        .find_map(|set| find(set, line, column, name))
}

/// The byte offset of a (line, column) position, columns counted in characters.
pub(super) fn offset_of(source: &str, line: usize, column: usize) -> Option<usize> {
    let mut current = 1;
    let mut start = 0;
    if line > 1 {
        for (i, c) in source.char_indices() {
            if c == '\n' {
                current += 1;
                if current == line {
                    start = i + 1;
                    break;
                }
            }
        }
        if current != line {
            return None;
        }
    }
    source[start..]
        .char_indices()
        .nth(column.checked_sub(1)?)
        .map(|(i, _)| start + i)
}

/// The (line, column) of a byte offset.
pub(super) fn position_of(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Past whitespace, commas and comments.
pub(super) fn skip_ignored(source: &str, mut at: usize) -> usize {
    let bytes = source.as_bytes();
    while at < bytes.len() {
        match bytes[at] {
            b' ' | b'\t' | b'\n' | b'\r' | b',' => at += 1,
            b'#' => {
                while at < bytes.len() && bytes[at] != b'\n' {
                    at += 1;
                }
            }
            0xEF if source[at..].starts_with('\u{feff}') => at += 3,
            _ => break,
        }
    }
    at
}

pub(super) fn name_end(source: &str, mut at: usize) -> usize {
    let bytes = source.as_bytes();
    while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
        at += 1;
    }
    at
}

/// The end of the value that starts at `at`.
pub(super) fn value_end(source: &str, at: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    match *bytes.get(at)? {
        b'"' if source[at..].starts_with("\"\"\"") => {
            let mut i = at + 3;
            loop {
                let rest = source.get(i..)?;
                if rest.starts_with("\\\"\"\"") {
                    i += 4;
                } else if rest.starts_with("\"\"\"") {
                    return Some(i + 3);
                } else {
                    i += rest.chars().next()?.len_utf8();
                }
            }
        }
        b'"' => {
            let mut i = at + 1;
            loop {
                match *bytes.get(i)? {
                    b'\\' => i += 2,
                    b'"' => return Some(i + 1),
                    b'\n' => return None,
                    _ => i += 1,
                }
            }
        }
        open @ (b'[' | b'{') => {
            let close = if open == b'[' { b']' } else { b'}' };
            let mut i = skip_ignored(source, at + 1);
            while *bytes.get(i)? != close {
                if open == b'{' {
                    i = skip_ignored(source, name_end(source, i));
                    if *bytes.get(i)? != b':' {
                        return None;
                    }
                    i = skip_ignored(source, i + 1);
                }
                i = skip_ignored(source, value_end(source, i)?);
            }
            Some(i + 1)
        }
        b'$' => Some(name_end(source, at + 1)),
        _ => {
            let mut i = at;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric()
                    || matches!(bytes[i], b'_' | b'.' | b'-' | b'+'))
            {
                i += 1;
            }
            (i > at).then_some(i)
        }
    }
}

/// The offset of the key `name` of the object value at `at`.
fn object_key(source: &str, at: usize, name: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    if *bytes.get(at)? != b'{' {
        return None;
    }
    let mut i = skip_ignored(source, at + 1);
    while *bytes.get(i)? != b'}' {
        let end = name_end(source, i);
        if &source[i..end] == name {
            return Some(i);
        }
        i = skip_ignored(source, end);
        if *bytes.get(i)? != b':' {
            return None;
        }
        i = skip_ignored(source, i + 1);
        i = skip_ignored(source, value_end(source, i)?);
    }
    None
}

/// The offset of the value at `segments` (keys, list indexes) below the value at `at`.
fn descend(source: &str, mut at: usize, segments: &[&str]) -> Option<usize> {
    let bytes = source.as_bytes();
    for segment in segments {
        match *bytes.get(at)? {
            b'{' => {
                let key = object_key(source, at, segment)?;
                let colon = skip_ignored(source, name_end(source, key));
                at = skip_ignored(source, colon + 1);
            }
            b'[' => {
                let index: usize = segment.parse().ok()?;
                let mut i = skip_ignored(source, at + 1);
                for _ in 0..index {
                    if *bytes.get(i)? == b']' {
                        return None;
                    }
                    i = skip_ignored(source, value_end(source, i)?);
                }
                at = i;
            }
            // A single value given for a list is its only item.
            _ if *segment == "0" => {}
            _ => return None,
        }
    }
    Some(at)
}

/// graphql-depth-limit follows a spread of a fragment the document does not define (at
/// a depth within the limit) into `undefined` and throws: Apollo answers 500. It follows
/// a cycle of spreads too, counting depth by fields only: a cycle that passes no field
/// never reaches the limit, and the recursion overflows the stack (500 as well).
pub fn depth_limit_throws(doc: &ExecutableDocument, max: usize) -> bool {
    fn walk(
        doc: &ExecutableDocument,
        set: &SelectionSet,
        depth: usize,
        max: usize,
        inside: &mut Vec<(Name, usize)>,
    ) -> bool {
        if depth > max {
            return false;
        }
        set.items.iter().any(|item| match &item.node {
            Selection::Field(f) => {
                !f.node.name.node.starts_with("__")
                    && walk(doc, &f.node.selection_set.node, depth + 1, max, inside)
            }
            Selection::InlineFragment(f) => {
                walk(doc, &f.node.selection_set.node, depth, max, inside)
            }
            Selection::FragmentSpread(s) => {
                let name = &s.node.fragment_name.node;
                let entered = inside.iter().find(|(n, _)| n == name).map(|(_, d)| *d);
                match (doc.fragments.get(name), entered) {
                    (None, _) => true,
                    // Back in a fragment at the depth it was entered: no end.
                    (Some(_), Some(d)) => d == depth,
                    // Deeper each time round: the limit ends it (a depth error).
                    (Some(fragment), None) => {
                        inside.push((name.clone(), depth));
                        let set = &fragment.node.selection_set.node;
                        let found = walk(doc, set, depth, max, inside);
                        inside.pop();
                        found
                    }
                }
            }
        })
    }
    super::document::operations(doc)
        .into_iter()
        .any(|(_, op)| walk(doc, &op.node.selection_set.node, 0, max, &mut Vec::new()))
}

/// graphql-js's `coerceVariableValues` for the operation the request runs: each error
/// as Apollo answers it (`BAD_USER_INPUT`, at the variable's definition). The
/// specification's scalars, the plugin's `Date`, `DateTime` and `Time`
/// ([`super::scalars`]), and the schema's enums and input objects are checked; its other
/// scalars (`JSON`, `Long`, a zone's input) accept what they are given here.
///
/// The variables are left as graphql-js's coercion leaves them where it changes one: a
/// whole number written as a float (`1000.0`, `1e3`) is an `Int` (JavaScript has one
/// number type, so `Number.isInteger` takes it).
pub fn variable_errors(
    reg: &Registry,
    view: &super::view::View,
    doc: &ExecutableDocument,
    operation_name: Option<&str>,
    variables: &mut Value,
) -> Coercion {
    let Some(op) = super::document::selected_operation(doc, operation_name) else {
        return Coercion::default();
    };
    let mut errors = Vec::new();
    let types = InputTypes {
        reg,
        view,
        changed: std::cell::Cell::new(false),
    };
    for definition in &op.variable_definitions {
        let name = definition.node.name.node.as_str();
        let ty = parsed_type(&definition.node.var_type.node);
        let location = json!([{"line": definition.pos.line, "column": definition.pos.column}]);
        let mut error = |message: String| {
            errors.push(json!({
                "message": message,
                "locations": location.clone(),
                "extensions": {"code": "BAD_USER_INPUT"},
            }));
        };
        let given = variables.get_mut(name);
        match (given, &ty) {
            (None, _) if definition.node.default_value.is_some() => {}
            (None, Ty::NonNull(_)) => error(format!(
                "Variable \"${name}\" of required type \"{}\" was not provided.",
                type_text(&ty)
            )),
            (Some(Value::Null), Ty::NonNull(_)) => error(format!(
                "Variable \"${name}\" of non-null type \"{}\" must not be null.",
                type_text(&ty)
            )),
            (None | Some(Value::Null), _) => {}
            (Some(value), _) => {
                let mut found = Vec::new();
                types.coerce(&ty, value, &mut Vec::new(), &mut found);
                for (path, invalid, message) in found {
                    let at = if path.is_empty() {
                        String::new()
                    } else {
                        format!(" at \"{name}{path}\"")
                    };
                    error(format!(
                        "Variable \"${name}\" got invalid value {}{at}; {message}",
                        inspect(&invalid, 0)
                    ));
                }
            }
        }
    }
    Coercion {
        errors,
        changed: types.changed.get(),
    }
}

/// What coercing the variables found ([`variable_errors`]).
#[derive(Debug, Default)]
pub struct Coercion {
    /// graphql-js's errors, as Apollo answers them.
    pub errors: Vec<Value>,
    /// Whether a value was changed to what graphql-js coerces it to.
    pub changed: bool,
}

/// What a variable's value is coerced against: the schema's types, and the content model
/// behind them (a dynamic zone's input scalar and its members).
struct InputTypes<'a> {
    reg: &'a Registry,
    view: &'a super::view::View,
    /// Set when a value is replaced by its coercion.
    changed: std::cell::Cell<bool>,
}

impl InputTypes<'_> {
    /// graphql-js's `coerceInputValue`, collecting (path, invalid value, message); a whole
    /// float given for an `Int` becomes the integer.
    fn coerce(
        &self,
        ty: &Ty,
        value: &mut Value,
        path: &mut Vec<String>,
        found: &mut Vec<(String, Value, String)>,
    ) {
        let reg = self.reg;
        match ty {
            Ty::NonNull(inner) => {
                if value.is_null() {
                    report(
                        found,
                        path,
                        value,
                        format!(
                            "Expected non-nullable type \"{}\" not to be null.",
                            type_text(ty)
                        ),
                    );
                } else {
                    self.coerce(inner, value, path, found);
                }
            }
            _ if value.is_null() => {}
            Ty::List(inner) => match value {
                Value::Array(items) => {
                    for (i, item) in items.iter_mut().enumerate() {
                        path.push(format!("[{i}]"));
                        self.coerce(inner, item, path, found);
                        path.pop();
                    }
                }
                single => self.coerce(inner, single, path, found),
            },
            Ty::Named(name) => {
                if let Some(fields) = input_fields(reg, name) {
                    let Value::Object(object) = value else {
                        report(
                            found,
                            path,
                            value,
                            format!("Expected type \"{name}\" to be an object."),
                        );
                        return;
                    };
                    // The object's own errors show it whole, as it is once its fields are
                    // coerced: filled in after the walk (`mine`), in graphql-js's order.
                    let mut mine = Vec::new();
                    for field in fields {
                        match object.get_mut(&field.name) {
                            None if field.default.is_none()
                                && matches!(field.ty, Ty::NonNull(_)) =>
                            {
                                mine.push(found.len());
                                report(
                                    found,
                                    path,
                                    &Value::Null,
                                    format!(
                                        "Field \"{}\" of required type \"{}\" was not provided.",
                                        field.name,
                                        type_text(&field.ty)
                                    ),
                                );
                            }
                            None => {}
                            Some(inner) => {
                                path.push(format!(".{}", field.name));
                                self.coerce(&field.ty, inner, path, found);
                                path.pop();
                            }
                        }
                    }
                    for key in object.keys() {
                        if !fields.iter().any(|f| &f.name == key) {
                            let names = fields.iter().map(|f| f.name.as_str());
                            let hint = did_you_mean(None, &suggestion_list(key, names));
                            mine.push(found.len());
                            found.push((
                                path.concat(),
                                Value::Null,
                                format!("Field \"{key}\" is not defined by type \"{name}\".{hint}"),
                            ));
                        }
                    }
                    for i in mine {
                        if let Some(error) = found.get_mut(i) {
                            error.1 = value.clone();
                        }
                    }
                    return;
                }
                if let Some(values) = enum_values(reg, name) {
                    let message = match &*value {
                        Value::String(s) if values.contains(s) => return,
                        Value::String(s) => format!(
                            "Value \"{s}\" does not exist in \"{name}\" enum.{}",
                            enum_hint(values, s)
                        ),
                        other => {
                            let text = inspect(other, 0);
                            format!(
                                "Enum \"{name}\" cannot represent non-string value: {text}.{}",
                                enum_hint(values, &text)
                            )
                        }
                    };
                    report(found, path, value, message);
                    return;
                }
                if let Some(members) = self.view.zone_input_members(name) {
                    // The plugin's `parseData`: an item names any component by `__typename`.
                    let typename = value.get("__typename").and_then(Value::as_str);
                    if !typename.is_some_and(|t| self.view.is_component_name(t)) {
                        let message = format!(
                            "Expected type \"{name}\". Component not found. expected one of: {}",
                            members.join(", ")
                        );
                        report(found, path, value, message);
                    }
                    return;
                }
                let text = inspect(value, 0);
                let message = match (name.as_str(), &*value) {
                    ("Int", Value::Number(n))
                        if n.as_i64().is_some() || n.as_f64().is_some_and(|f| f.fract() == 0.0) =>
                    {
                        match whole_i32(n) {
                            Some(i) => {
                                if value.as_i64().is_none() {
                                    *value = Value::from(i);
                                    self.changed.set(true);
                                }
                                return;
                            }
                            None => {
                                format!(
                                    "Int cannot represent non 32-bit signed integer value: {text}"
                                )
                            }
                        }
                    }
                    ("Int", _) => format!("Int cannot represent non-integer value: {text}"),
                    ("Float", Value::Number(_)) => return,
                    ("Float", _) => format!("Float cannot represent non numeric value: {text}"),
                    ("String", Value::String(_)) => return,
                    ("String", _) => format!("String cannot represent a non string value: {text}"),
                    ("Boolean", Value::Bool(_)) => return,
                    ("Boolean", _) => {
                        format!("Boolean cannot represent a non boolean value: {text}")
                    }
                    ("ID", Value::String(_)) => return,
                    ("ID", Value::Number(n)) if n.as_i64().is_some() => return,
                    ("ID", _) => format!("ID cannot represent value: {text}"),
                    (scalar, value) => match super::scalars::value_refusal(scalar, value) {
                        Some(
                            super::scalars::Refusal::AsIs(message)
                            | super::scalars::Refusal::Bare(message),
                        ) => message,
                        Some(super::scalars::Refusal::Wrapped(message)) => {
                            format!("Expected type \"{scalar}\". {message}")
                        }
                        None => return,
                    },
                };
                report(found, path, value, message);
            }
        }
    }
}

/// A number graphql-js's `Int` takes: a whole number within 32 bits, written as an
/// integer or as a float.
fn whole_i32(n: &serde_json::Number) -> Option<i32> {
    if let Some(i) = n.as_i64() {
        return i32::try_from(i).ok();
    }
    let f = n.as_f64()?;
    // `-0.0` is 0; the bounds are exact in an f64.
    (f.fract() == 0.0 && f >= f64::from(i32::MIN) && f <= f64::from(i32::MAX)).then_some(f as i32)
}

fn report(
    found: &mut Vec<(String, Value, String)>,
    path: &[String],
    invalid: &Value,
    message: String,
) {
    found.push((path.concat(), invalid.clone(), message));
}

/// graphql-js's `inspect`: strings as JSON, objects as `{ a: 1 }`, nested two levels.
fn inspect(value: &Value, depth: usize) -> String {
    match value {
        Value::String(_) => value.to_string(),
        Value::Number(n) => match n.as_f64() {
            Some(f)
                if n.as_i64().is_none()
                    && n.as_u64().is_none()
                    && f.fract() == 0.0
                    && f.abs() < 1e21 =>
            {
                format!("{f:.0}")
            }
            _ => n.to_string(),
        },
        Value::Null | Value::Bool(_) => value.to_string(),
        Value::Array(items) if items.is_empty() => "[]".into(),
        Value::Array(_) if depth >= 2 => "[Array]".into(),
        Value::Array(items) => {
            let mut parts: Vec<String> = items
                .iter()
                .take(10)
                .map(|v| inspect(v, depth + 1))
                .collect();
            if items.len() > 10 {
                let more = items.len() - 10;
                parts.push(if more == 1 {
                    "... 1 more item".into()
                } else {
                    format!("... {more} more items")
                });
            }
            format!("[{}]", parts.join(", "))
        }
        Value::Object(map) if map.is_empty() => "{}".into(),
        Value::Object(_) if depth >= 2 => "[Object]".into(),
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}: {}", inspect(v, depth + 1)))
                .collect();
            format!("{{ {} }}", parts.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_int_is_any_whole_number_within_32_bits() {
        let n = |v: Value| match v {
            Value::Number(n) => whole_i32(&n),
            _ => None,
        };
        assert_eq!(n(json!(7)), Some(7));
        assert_eq!(n(json!(7.0)), Some(7));
        assert_eq!(n(json!(-0.0)), Some(0));
        assert_eq!(n(json!(2147483647.0)), Some(i32::MAX));
        assert_eq!(n(json!(-2147483648.0)), Some(i32::MIN));
        assert_eq!(n(json!(2147483648.0)), None);
        assert_eq!(n(json!(2147483648_i64)), None);
        assert_eq!(n(json!(7.5)), None);
    }

    #[test]
    fn suggestions_are_graphql_js_ones() {
        let ops = crate::graphql::FILTER_OPERATORS;
        assert_eq!(suggestion_list("like", ops), vec!["lte".to_owned()]);
        assert_eq!(
            did_you_mean(None, &["lte".into()]),
            " Did you mean \"lte\"?"
        );
        assert_eq!(
            did_you_mean(
                Some("the enum value"),
                &["A".into(), "B".into(), "C".into()]
            ),
            " Did you mean the enum value \"A\", \"B\", or \"C\"?"
        );
        assert_eq!(natural_compare("a10", "a9"), Ordering::Greater);
    }

    #[test]
    fn values_are_found_in_the_source() {
        let source = "{ articles(pagination: {page: 1, pageSize: \"ten\"}) { title } }";
        let start = source.find("{page").unwrap();
        let at = descend(source, start, &["pageSize"]).unwrap();
        assert_eq!(&source[at..value_end(source, at).unwrap()], "\"ten\"");
        assert_eq!(position_of(source, at), (1, 44));
        assert_eq!(offset_of(source, 1, 3), Some(2));
    }

    #[test]
    fn inspect_is_graphql_js_inspect() {
        assert_eq!(inspect(&json!("x"), 0), "\"x\"");
        assert_eq!(
            inspect(&json!({"a": [1, {"b": {}}]}), 0),
            "{ a: [1, [Object]] }"
        );
        assert_eq!(inspect(&json!(2.0), 0), "2");
    }
}
