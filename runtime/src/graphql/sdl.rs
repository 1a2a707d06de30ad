//! The schema as SDL, printed from the [`Registry`] the way graphql-js's `printSchema`
//! prints Strapi's (two-space indents, block-string descriptions, arguments on their own
//! lines once one has a description, `@specifiedBy` on scalars, no built-in directives
//! or scalars, no `schema` block for the standard root names). Types come in the
//! registry's order, which is Strapi's, so the text is Strapi's byte for byte.

use std::fmt::Write;

use super::ir::{DefaultValue, FieldDef, InputDef, Kind, Registry, Ty, TypeDef};

/// The SDL of a registry.
pub fn print(reg: &Registry) -> String {
    let blocks: Vec<String> = reg.types.values().map(print_type).collect();
    let mut out = blocks.join("\n\n");
    out.push('\n');
    out
}

fn print_type(def: &TypeDef) -> String {
    let mut out = description(def.description.as_deref(), "", true);
    let name = &def.name;
    match &def.kind {
        Kind::Scalar { specified_by } => {
            out.push_str(&format!("scalar {name}"));
            if let Some(url) = specified_by {
                out.push_str(&format!(" @specifiedBy(url: {})", string(url)));
            }
        }
        Kind::Object(fields) => {
            let lines: Vec<String> = fields
                .iter()
                .enumerate()
                .map(|(i, f)| field(f, i == 0))
                .collect();
            out.push_str(&format!("type {name} {{\n{}\n}}", lines.join("\n")));
        }
        Kind::Input(fields) => {
            let lines: Vec<String> = fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    format!(
                        "{}  {}",
                        description(f.description.as_deref(), "  ", i == 0),
                        input(f)
                    )
                })
                .collect();
            out.push_str(&format!("input {name} {{\n{}\n}}", lines.join("\n")));
        }
        Kind::Enum(values) => {
            let lines: Vec<String> = values.iter().map(|v| format!("  {v}")).collect();
            out.push_str(&format!("enum {name} {{\n{}\n}}", lines.join("\n")));
        }
        Kind::Union(members) => out.push_str(&format!("union {name} = {}", members.join(" | "))),
    }
    out
}

fn field(def: &FieldDef, first: bool) -> String {
    let mut out = description(def.description.as_deref(), "  ", first);
    let _ = write!(out, "  {}{}: {}", def.name, args(&def.args), ty(&def.ty));
    out
}

/// graphql-js's `printArgs`: inline unless one argument has a description.
fn args(args: &[InputDef]) -> String {
    if args.is_empty() {
        return String::new();
    }
    if args.iter().all(|a| a.description.is_none()) {
        let inline: Vec<String> = args.iter().map(input).collect();
        return format!("({})", inline.join(", "));
    }
    let lines: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            format!(
                "{}    {}",
                description(a.description.as_deref(), "    ", i == 0),
                input(a)
            )
        })
        .collect();
    format!("(\n{}\n  )", lines.join("\n"))
}

fn input(def: &InputDef) -> String {
    let mut out = format!("{}: {}", def.name, ty(&def.ty));
    match &def.default {
        Some(DefaultValue::Enum(name)) => {
            let _ = write!(out, " = {name}");
        }
        Some(DefaultValue::Json(value)) => {
            let _ = write!(out, " = {}", value_literal(value));
        }
        None => {}
    }
    out
}

fn ty(t: &Ty) -> String {
    match t {
        Ty::Named(name) => name.clone(),
        Ty::List(inner) => format!("[{}]", ty(inner)),
        Ty::NonNull(inner) => format!("{}!", ty(inner)),
    }
}

/// A JSON default as a GraphQL literal (`{}`, `[]`, `"local"`, `{a: 1}`).
pub(super) fn value_literal(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => string(s),
        serde_json::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(value_literal).collect();
            format!("[{}]", items.join(", "))
        }
        serde_json::Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}: {}", value_literal(v)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        other => other.to_string(),
    }
}

/// A GraphQL string literal (JSON's escapes are GraphQL's).
fn string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// graphql-js's `printDescription`: nothing, or a block string at `indent`, preceded by
/// a blank line when indented and not first in its block.
fn description(text: Option<&str>, indent: &str, first: bool) -> String {
    let Some(text) = text else {
        return String::new();
    };
    let prefix = if indent.is_empty() || first {
        indent.to_owned()
    } else {
        format!("\n{indent}")
    };
    let block = block_string(text).replace('\n', &format!("\n{indent}"));
    format!("{prefix}{block}\n")
}

/// graphql-js's `printBlockString`: one line when short and single-line, else the text
/// between lines of `"""`.
fn block_string(text: &str) -> String {
    let escaped = text.replace("\"\"\"", "\\\"\"\"");
    let lines: Vec<&str> = escaped.split('\n').collect();
    let single_line = lines.len() == 1;
    let blank_start = |l: &str| l.is_empty() || l.starts_with([' ', '\t']);
    let force_leading = lines.len() > 1 && lines[1..].iter().all(|l| blank_start(l));
    let trailing_triple = escaped.ends_with("\\\"\"\"");
    let force_trailing = (text.ends_with('"') && !trailing_triple) || text.ends_with('\\');
    let multiple = !single_line
        || text.encode_utf16().count() > 70
        || force_trailing
        || force_leading
        || trailing_triple;
    let skip_leading = single_line && text.starts_with([' ', '\t']);
    let mut out = String::from("\"\"\"");
    if (multiple && !skip_leading) || force_leading {
        out.push('\n');
    }
    out.push_str(&escaped);
    if multiple || force_trailing {
        out.push('\n');
    }
    out.push_str("\"\"\"");
    out
}
