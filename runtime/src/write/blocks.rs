//! The rich-text blocks of a `blocks` attribute, checked as Strapi 5.54's
//! `entity-validator/blocks-validator` checks them (in a draft as in a published
//! version): a list of block nodes (paragraph, heading, quote, list, image, code), each
//! with its children (text and link nodes, list items, nested lists).
//!
//! The rules are yup's, with its messages: a node of no known type is `Block node is of
//! invalid type`, a node's required field absent is `<path> is a required field`, a list
//! of children below its minimum gives the node's own message, a link's URL must parse
//! with an allowed protocol. Values yup would cast (a number for a string, `"true"` for a
//! boolean, `"2"` for a heading level) pass, as they pass in Strapi; the blocks are
//! stored as given.
//!
//! Failures come per node in the node's field order, nested ones before the list's own.

use serde_json::{Map, Value};

use super::error::FieldError;
use super::yup::{Cast, dotted, js_cast_number, number_text, type_error};

/// What yup checks of one field of a node.
#[derive(Clone, Copy)]
enum Field {
    /// `string()`, required or not (an empty string is absent for `required`).
    Text { required: bool },
    /// `string()` with the link test: a URL whose protocol is allowed.
    Url,
    /// `string().test('is-valid-text')`: present and a string.
    LeafText,
    /// `boolean()` (not nullable).
    Flag,
    /// `number()`, required or not.
    Number { required: bool },
    /// `number().oneOf([1..6]).required()`.
    Level,
    /// `string().equals(['ordered', 'unordered']).required()`.
    Format,
    /// `object().nullable()` / `mixed().nullable()`: anything.
    Any,
    /// The image's `object().shape(...)`, not required.
    Image,
    /// `array().of(<items>).min(1, <message>).required()`.
    Children {
        items: Items,
        min_message: Option<&'static str>,
    },
}

/// What the items of a `children` list may be.
#[derive(Clone, Copy)]
enum Items {
    /// Text or link nodes (`inlineNodeValidator`).
    Inline,
    /// Text nodes only (`textNodeValidator`).
    Text,
    /// List items or nested lists (`listChildrenValidator`).
    ListChildren,
}

const TEXT_FIELDS: &[(&str, Field)] = &[
    ("text", Field::LeafText),
    ("bold", Field::Flag),
    ("italic", Field::Flag),
    ("underline", Field::Flag),
    ("strikethrough", Field::Flag),
    ("code", Field::Flag),
];

const LINK_FIELDS: &[(&str, Field)] = &[
    ("url", Field::Url),
    (
        "children",
        Field::Children {
            items: Items::Text,
            min_message: None,
        },
    ),
];

const fn inline_children(min_message: &'static str) -> Field {
    Field::Children {
        items: Items::Inline,
        min_message: Some(min_message),
    }
}

const IMAGE_FIELDS: &[(&str, Field)] = &[
    ("name", Field::Text { required: true }),
    ("alternativeText", Field::Text { required: false }),
    ("url", Field::Text { required: true }),
    ("caption", Field::Text { required: false }),
    ("width", Field::Number { required: true }),
    ("height", Field::Number { required: true }),
    ("formats", Field::Any),
    ("hash", Field::Text { required: true }),
    ("ext", Field::Text { required: true }),
    ("mime", Field::Text { required: true }),
    ("size", Field::Number { required: true }),
    ("previewUrl", Field::Text { required: false }),
    ("provider", Field::Text { required: true }),
    ("provider_metadata", Field::Any),
    ("createdAt", Field::Text { required: true }),
    ("updatedAt", Field::Text { required: true }),
];

/// The fields of a block node of type `ty`, or `None` for a type that is not one.
fn block_fields(ty: &str) -> Option<&'static [(&'static str, Field)]> {
    const PARAGRAPH: &[(&str, Field)] = &[(
        "children",
        inline_children("Paragraph node children must have at least one Text or Link node"),
    )];
    const HEADING: &[(&str, Field)] = &[
        ("level", Field::Level),
        (
            "children",
            inline_children("Heading node children must have at least one Text or Link node"),
        ),
    ];
    const QUOTE: &[(&str, Field)] = &[(
        "children",
        inline_children("Quote node children must have at least one Text or Link node"),
    )];
    const CODE: &[(&str, Field)] = &[
        ("language", Field::Text { required: false }),
        (
            "children",
            Field::Children {
                items: Items::Text,
                min_message: Some("Quote node children must have at least one Text or Link node"),
            },
        ),
    ];
    const IMAGE: &[(&str, Field)] = &[
        ("image", Field::Image),
        (
            "children",
            Field::Children {
                items: Items::Inline,
                min_message: None,
            },
        ),
    ];
    match ty {
        "paragraph" => Some(PARAGRAPH),
        "heading" => Some(HEADING),
        "quote" => Some(QUOTE),
        "list" => Some(LIST_FIELDS),
        "image" => Some(IMAGE),
        "code" => Some(CODE),
        _ => None,
    }
}

const LIST_FIELDS: &[(&str, Field)] = &[
    ("format", Field::Format),
    (
        "children",
        Field::Children {
            items: Items::ListChildren,
            min_message: Some("List node children must have at least one ListItem or ListNode"),
        },
    ),
];

const LIST_ITEM_FIELDS: &[(&str, Field)] = &[(
    "children",
    Field::Children {
        items: Items::Inline,
        min_message: None,
    },
)];

/// The failures of the block nodes `nodes`, the value of the attribute at `path`.
pub fn failures(nodes: &[Value], path: &[String]) -> Vec<FieldError> {
    let mut out = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let at = item(path, i);
        match node_type(node).and_then(block_fields) {
            Some(fields) => object(node, fields, &at, &mut out),
            None => out.push(failure(
                &at,
                "Block node is of invalid type".into(),
                Some(node),
            )),
        }
    }
    out
}

/// The `type` of a node, when it is an object with a string type.
fn node_type(node: &Value) -> Option<&str> {
    node.as_object()?.get("type")?.as_str()
}

fn item(path: &[String], i: usize) -> Vec<String> {
    let mut at = path.to_vec();
    at.push(i.to_string());
    at
}

fn failure(path: &[String], message: String, value: Option<&Value>) -> FieldError {
    FieldError {
        path: path.to_vec(),
        message,
        value: value.cloned(),
    }
}

/// A node's fields, in order (its `type` was what chose them).
fn object(node: &Value, fields: &[(&str, Field)], path: &[String], out: &mut Vec<FieldError>) {
    let empty = Map::new();
    let o = node.as_object().unwrap_or(&empty);
    for (name, field) in fields {
        let mut at = path.to_vec();
        at.push((*name).to_string());
        check_field(o.get(*name), *field, &at, out);
    }
}

fn required(path: &[String], value: Option<&Value>) -> FieldError {
    failure(
        path,
        format!("{} is a required field", dotted(path)),
        value.filter(|v| !v.is_null()),
    )
}

fn check_field(v: Option<&Value>, field: Field, path: &[String], out: &mut Vec<FieldError>) {
    match field {
        Field::Any => {}
        Field::Text { required: req } => match v {
            None => {
                if req {
                    out.push(required(path, None));
                }
            }
            Some(Value::Null) if !req => {}
            Some(Value::Array(_) | Value::Object(_) | Value::Null) => {
                out.push(type_error(
                    path,
                    "string",
                    v.unwrap_or(&Value::Null),
                    Cast::Kept,
                ));
            }
            Some(Value::String(s)) if s.is_empty() && req => out.push(required(path, v)),
            Some(_) => {}
        },
        Field::LeafText => match v {
            Some(Value::String(_) | Value::Number(_) | Value::Bool(_)) => {}
            Some(other @ (Value::Null | Value::Array(_) | Value::Object(_))) => {
                out.push(type_error(path, "string", other, Cast::Kept));
            }
            None => out.push(failure(
                path,
                "Text must be defined with at least an empty string".into(),
                None,
            )),
        },
        Field::Url => {
            let text = match v {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => number_text(n),
                Some(Value::Bool(b)) => b.to_string(),
                Some(other @ (Value::Null | Value::Array(_) | Value::Object(_))) => {
                    out.push(type_error(path, "string", other, Cast::Kept));
                    return;
                }
                None => String::new(),
            };
            if !is_allowed_link(&text) {
                let value = v.map(|_| Value::String(text));
                out.push(failure(
                    path,
                    "Please specify a valid link.".into(),
                    value.as_ref(),
                ));
            }
        }
        Field::Flag => {
            if let Some(v) = v
                && cast_bool(v).is_none()
            {
                out.push(type_error(path, "boolean", v, Cast::Kept));
            }
        }
        Field::Number { required: req } => match v {
            None if req => out.push(required(path, None)),
            None => {}
            Some(v) if cast_number(v).is_none() => out.push(number_type_error(path, v)),
            Some(_) => {}
        },
        Field::Level => match v {
            None => out.push(required(path, None)),
            Some(v) => {
                let level = cast_number(v);
                if level.is_none() {
                    out.push(number_type_error(path, v));
                }
                if !level.is_some_and(|l| (1.0..=6.0).contains(&l) && l.fract() == 0.0) {
                    let shown = level.map_or(Value::Null, |l| {
                        serde_json::Number::from_f64(l).map_or(Value::Null, Value::Number)
                    });
                    out.push(failure(
                        path,
                        format!(
                            "{} must be one of the following values: 1, 2, 3, 4, 5, 6",
                            dotted(path)
                        ),
                        Some(&shown),
                    ));
                }
            }
        },
        Field::Format => match v {
            None => out.push(required(path, None)),
            Some(v) => {
                let text = match v {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(number_text(n)),
                    Value::Bool(b) => Some(b.to_string()),
                    _ => None,
                };
                if text.is_none() {
                    out.push(type_error(path, "string", v, Cast::Kept));
                }
                if !matches!(text.as_deref(), Some("ordered" | "unordered")) {
                    out.push(failure(
                        path,
                        format!(
                            "{} must be one of the following values: ordered, unordered",
                            dotted(path)
                        ),
                        Some(&text.map_or(v.clone(), Value::String)),
                    ));
                }
            }
        },
        Field::Image => match v {
            None => {}
            Some(o @ Value::Object(_)) => object(o, IMAGE_FIELDS, path, out),
            Some(other) => out.push(type_error(path, "object", other, Cast::Kept)),
        },
        Field::Children { items, min_message } => {
            children(v, items, min_message, path, out);
        }
    }
}

/// `array().of(<items>).min(1, <message>).required()` at `path`.
fn children(
    v: Option<&Value>,
    items: Items,
    min_message: Option<&'static str>,
    path: &[String],
    out: &mut Vec<FieldError>,
) {
    let list = match v.map(cast_array) {
        None => return out.push(required(path, None)),
        Some(Some(list)) => list,
        Some(None) => {
            let given = v.unwrap_or(&Value::Null);
            let cast = if given.is_null() {
                Cast::Kept
            } else {
                Cast::Null
            };
            return out.push(type_error(path, "array", given, cast));
        }
    };
    for (i, child) in list.iter().enumerate() {
        let at = item(path, i);
        match items {
            Items::Text => text_node(child, &at, out),
            Items::Inline => match node_type(child) {
                Some("text") => object(child, TEXT_FIELDS, &at, out),
                Some("link") => object(child, LINK_FIELDS, &at, out),
                _ => out.push(failure(
                    &at,
                    "Inline node must be Text or Link".into(),
                    Some(child),
                )),
            },
            Items::ListChildren => match node_type(child) {
                Some("list") => object(child, LIST_FIELDS, &at, out),
                Some("list-item") => object(child, LIST_ITEM_FIELDS, &at, out),
                _ => out.push(failure(
                    &at,
                    "Inline node must be list-item or list".into(),
                    Some(child),
                )),
            },
        }
    }
    if let Some(message) = min_message.filter(|_| list.is_empty()) {
        out.push(failure(
            path,
            message.into(),
            Some(&Value::Array(Vec::new())),
        ));
    }
}

/// A child that must be a text node (`textNodeValidator`, not chosen by its type).
fn text_node(child: &Value, path: &[String], out: &mut Vec<FieldError>) {
    let Value::Object(o) = child else {
        return out.push(type_error(path, "object", child, Cast::Kept));
    };
    let mut at = path.to_vec();
    at.push("type".into());
    match o.get("type") {
        None => out.push(required(&at, None)),
        Some(Value::String(t)) if t == "text" => {}
        Some(other) => out.push(failure(
            &at,
            format!("{} must be one of the following values: text", dotted(&at)),
            Some(other),
        )),
    }
    object(child, TEXT_FIELDS, path, out);
}

/// yup's array cast: a list, or a string holding a JSON list.
pub fn cast_array(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Array(a) => Some(a.clone()),
        Value::String(s) => match serde_json::from_str(s) {
            Ok(Value::Array(a)) => Some(a),
            _ => None,
        },
        _ => None,
    }
}

/// yup's boolean cast: a boolean, or `true`/`1`/`false`/`0` in any case as text.
fn cast_bool(v: &Value) -> Option<bool> {
    let text = match v {
        Value::Bool(b) => return Some(*b),
        Value::Number(n) => number_text(n),
        Value::String(s) => s.to_ascii_lowercase(),
        _ => return None,
    };
    match text.as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// yup's number cast (`NaN` is `None`).
fn cast_number(v: &Value) -> Option<f64> {
    js_cast_number(v)
}

fn number_type_error(path: &[String], v: &Value) -> FieldError {
    type_error(path, "number", v, Cast::NaN)
}

/// Strapi's `checkValidLink`: a URL (a path is taken against `https://strapi.io`) whose
/// protocol is http, https, ftp, mailto or tel.
fn is_allowed_link(link: &str) -> bool {
    let absolute = match link.strip_prefix('/') {
        Some(_) => format!("https://strapi.io{link}"),
        None => link.to_string(),
    };
    url::Url::parse(&absolute)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https" | "ftp" | "mailto" | "tel"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(v: Value) -> Vec<(String, String)> {
        let Value::Array(nodes) = v else {
            panic!("not a list")
        };
        failures(&nodes, &["content".to_string()])
            .into_iter()
            .map(|f| (f.path.join("."), f.message))
            .collect()
    }

    #[test]
    fn a_valid_document_passes() {
        let doc = json!([
            {"type": "paragraph", "children": [{"type": "text", "text": "a", "bold": true},
                {"type": "link", "url": "/inside", "children": [{"type": "text", "text": "b"}]}]},
            {"type": "heading", "level": "2", "children": [{"type": "text", "text": ""}]},
            {"type": "list", "format": "ordered", "children": [
                {"type": "list-item", "children": [{"type": "text", "text": "i"}]},
                {"type": "list", "format": "unordered", "children": [
                    {"type": "list-item", "children": []}]}]},
            {"type": "code", "language": null, "children": [{"type": "text", "text": "x"}]}
        ]);
        assert_eq!(messages(doc), Vec::<(String, String)>::new());
    }

    #[test]
    fn each_rule_has_strapis_message() {
        let doc = json!([
            {"type": "bogus"},
            {"type": "paragraph", "children": []},
            {"type": "paragraph", "children": [{"type": "text"}]},
            {"type": "heading", "level": 7, "children": [{"type": "text", "text": "x"}]},
            {"type": "paragraph", "children": [{"type": "link", "url": "javascript:alert(1)",
                "children": [{"type": "text", "text": "x"}]}]},
            {"type": "quote"},
            {"type": "list", "format": "dotted", "children": [{"type": "para"}]},
            3
        ]);
        assert_eq!(
            messages(doc),
            [
                ("content.0", "Block node is of invalid type"),
                (
                    "content.1.children",
                    "Paragraph node children must have at least one Text or Link node"
                ),
                (
                    "content.2.children.0.text",
                    "Text must be defined with at least an empty string"
                ),
                (
                    "content.3.level",
                    "content[3].level must be one of the following values: 1, 2, 3, 4, 5, 6"
                ),
                ("content.4.children.0.url", "Please specify a valid link."),
                (
                    "content.5.children",
                    "content[5].children is a required field"
                ),
                (
                    "content.6.format",
                    "content[6].format must be one of the following values: ordered, unordered"
                ),
                (
                    "content.6.children.0",
                    "Inline node must be list-item or list"
                ),
                ("content.7", "Block node is of invalid type"),
            ]
            .map(|(p, m)| (p.to_string(), m.to_string()))
        );
    }
}
