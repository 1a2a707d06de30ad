//! The deprecated v4 response shape, sent when a request carries
//! `Strapi-Response-Format: v4`: entries become `{id, documentId, attributes: {…}}`,
//! relations and media `{data: …}`; components and dynamic-zone items stay flat.

use serde_json::{Map, Value};

use crate::schema::{AttributeKind, Model, Schema, SchemaId};

/// Transforms a whole v5 body (`{data, meta}`) of `schema` into the v4 shape.
pub fn body(model: &Model, schema: SchemaId, mut body: Value) -> Value {
    if let Some(data) = body.get_mut("data") {
        let taken = std::mem::take(data);
        *data = match taken {
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|e| entry(model, schema, e)).collect())
            }
            Value::Object(_) => entry(model, schema, taken),
            other => other,
        };
    }
    body
}

/// One content-type entry: `{id, documentId, attributes}`.
fn entry(model: &Model, schema: SchemaId, value: Value) -> Value {
    let Value::Object(mut obj) = value else {
        return value;
    };
    let s = model.schema(schema);
    let mut out = Map::new();
    for key in ["id", "documentId"] {
        if let Some(v) = obj.shift_remove(key) {
            out.insert(key.to_string(), v);
        }
    }
    let attributes = fields(model, s, obj);
    out.insert("attributes".into(), Value::Object(attributes));
    Value::Object(out)
}

/// Transforms the keys of an entry or component object.
fn fields(model: &Model, s: &Schema, obj: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::with_capacity(obj.len());
    for (k, v) in obj {
        let nv = if k == "localizations" {
            wrap(model, s.id, v)
        } else {
            match s.attribute(&k).map(|a| &a.kind) {
                Some(AttributeKind::Relation(r)) => match r.target {
                    Some(t) => wrap(model, t, v),
                    None => v,
                },
                Some(AttributeKind::Media(_)) => match model.upload_file() {
                    Some(f) => wrap(model, f.id, v),
                    None => v,
                },
                Some(AttributeKind::Component(c)) => component(model, c.component, v),
                Some(AttributeKind::DynamicZone(_)) => match v {
                    Value::Array(items) => Value::Array(
                        items
                            .into_iter()
                            .map(|item| {
                                let uid = item
                                    .get("__component")
                                    .and_then(Value::as_str)
                                    .map(str::to_string);
                                match uid.and_then(|u| model.by_uid(&u)) {
                                    Some(cs) => component(model, cs.id, item),
                                    None => item,
                                }
                            })
                            .collect(),
                    ),
                    other => other,
                },
                _ => v,
            }
        };
        out.insert(k, nv);
    }
    out
}

/// A relation or media value: `{data: entry | [entries] | null}`.
fn wrap(model: &Model, target: SchemaId, v: Value) -> Value {
    let data = match v {
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|e| entry(model, target, e)).collect())
        }
        Value::Object(ref o) if o.len() == 1 && o.contains_key("count") => {
            let mut attrs = Map::new();
            attrs.insert("attributes".into(), v);
            Value::Object(attrs)
        }
        Value::Object(_) => entry(model, target, v),
        other => other,
    };
    let mut m = Map::new();
    m.insert("data".into(), data);
    Value::Object(m)
}

/// A component object (or list): flat, with its own relations and media wrapped.
fn component(model: &Model, id: SchemaId, v: Value) -> Value {
    let cs = model.schema(id);
    match v {
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|i| component(model, id, i)).collect())
        }
        Value::Object(obj) => Value::Object(fields(model, cs, obj)),
        other => other,
    }
}
