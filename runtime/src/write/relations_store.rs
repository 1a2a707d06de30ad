//! The ids a write names, by target type, as Strapi's entity validator collects and
//! compares them before it counts the rows they name (`buildRelationsStore` and
//! `checkRelationsExist` in `@strapi/core`'s `services/entity-validator`).
//!
//! The validator walks the data its transform hands on (documentIds already replaced by
//! the rows they name: [`super::document::DocumentWrite::shown_with_row_ids`]). For each
//! relation and media it takes the value's `connect`, else its `set`, else the value
//! itself, and each entry's `id` (an object's) or the entry; components and zone items
//! are walked in the same way. Per type it keeps the ids that JavaScript's `SameValueZero`
//! tells apart (lodash's `uniqBy`): `6` and `"6"` are two ids, so a row named once as a
//! number and once as text counts as one row for two ids, and the check says one relation
//! does not exist.

use serde_json::{Map, Value};

use super::yup::js_parse_int_reads;
use crate::schema::{AttributeKind, Model, Schema, SchemaId};

/// The ids given for one target type, each once as JavaScript tells them apart.
#[derive(Debug)]
pub struct TargetIds {
    /// The target type (`plugin::upload.file` for media).
    pub target: SchemaId,
    /// Its ids, in the order first given; `None` is an entry without an `id`
    /// (JavaScript's `undefined`).
    pub ids: Vec<Option<Value>>,
}

/// The ids `data` (an object of `schema`) names, by target type in the order the types
/// are first named.
pub fn relations_store(
    model: &Model,
    schema: &Schema,
    data: &Map<String, Value>,
) -> Vec<TargetIds> {
    let mut store = Vec::new();
    collect(model, schema, data, &mut store);
    store
}

/// [`relations_store`] on one object, adding to `store`.
fn collect(model: &Model, schema: &Schema, data: &Map<String, Value>, store: &mut Vec<TargetIds>) {
    // The attributes given, in the model's order (a data names a few of many).
    let mut given: Vec<(&crate::schema::Attribute, &Value)> = data
        .iter()
        .filter(|(_, v)| !v.is_null())
        .filter_map(|(k, v)| Some((schema.attribute(k)?, v)))
        .collect();
    given.sort_by_key(|(a, _)| a.id);
    for (a, value) in given {
        match &a.kind {
            AttributeKind::Media(_) => {
                if let Some(file) = model.upload_file() {
                    add(store, file.id, entries(value));
                }
            }
            AttributeKind::Relation(r) if !r.kind.is_morph() => {
                if let Some(target) = r.target {
                    add(store, target, entries(value));
                }
            }
            AttributeKind::Component(c) => {
                let cs = model.schema(c.component);
                for item in cast_array(value).into_iter().filter_map(Value::as_object) {
                    collect(model, cs, item, store);
                }
            }
            AttributeKind::DynamicZone(_) => {
                for item in cast_array(value).into_iter().filter_map(Value::as_object) {
                    let cs = item
                        .get("__component")
                        .and_then(Value::as_str)
                        .and_then(|uid| model.by_uid(uid));
                    if let Some(cs) = cs {
                        collect(model, cs, item, store);
                    }
                }
            }
            AttributeKind::Relation(_) | AttributeKind::Scalar(_) => {}
        }
    }
}

/// The ids of one relation or media value: its `connect`, else its `set` (when given and
/// not `null`), else nothing for another object; a list's items; any other value alone.
fn entries(value: &Value) -> Vec<Option<Value>> {
    let source = match value {
        Value::Object(o) => ["connect", "set"]
            .into_iter()
            .find_map(|k| o.get(k).filter(|v| !v.is_null()))
            .map(cast_array)
            .unwrap_or_default(),
        other => cast_array(other),
    };
    source
        .into_iter()
        .map(|v| match v {
            // An entry still naming its target by documentId (the data before the
            // transform) gives that documentId.
            Value::Object(o) => o.get("id").or_else(|| o.get("documentId")).cloned(),
            other => Some(other.clone()),
        })
        .collect()
}

/// Whether every id of `store` is a documentId (a text JavaScript's `parseInt` does not
/// read as a number), as the request gives them before the transform. The transform then
/// makes each the number of a row that exists, the same number for the same row, so the
/// check finds as many rows as ids: nothing to count.
pub fn names_documents_only(store: &[TargetIds]) -> bool {
    store
        .iter()
        .flat_map(|t| &t.ids)
        .all(|id| matches!(id, Some(Value::String(s)) if !s.is_empty() && !js_parse_int_reads(s)))
}

/// lodash's `castArray`: a list's items, or the value alone.
fn cast_array(v: &Value) -> Vec<&Value> {
    match v {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    }
}

/// Adds `ids` to `target`'s, each that is not there yet (JavaScript's `SameValueZero`).
fn add(store: &mut Vec<TargetIds>, target: SchemaId, ids: Vec<Option<Value>>) {
    let at = match store.iter().position(|t| t.target == target) {
        Some(at) => at,
        None => {
            store.push(TargetIds {
                target,
                ids: Vec::new(),
            });
            store.len() - 1
        }
    };
    let known = &mut store[at].ids;
    // A set of what is there, so that many ids cost one pass, not one pass each.
    let mut seen: std::collections::HashSet<SameValueZero> =
        known.iter().filter_map(same_value_zero).collect();
    for id in ids {
        let fresh = same_value_zero(&id).is_none_or(|key| seen.insert(key));
        if fresh {
            known.push(id);
        }
    }
}

/// A parsed JSON value under JavaScript's `SameValueZero` (`None` is `undefined`):
/// numbers by value (`6` is `6.0`, `-0` is `0`), strings by text, `null` and booleans by
/// value. Objects and lists have no key: no two are alike (each parsed value is its own
/// reference).
#[derive(Debug, PartialEq, Eq, Hash)]
enum SameValueZero {
    Undefined,
    Null,
    Bool(bool),
    /// The bits of the number as a double, `-0` as `0`.
    Number(u64),
    Text(String),
}

fn same_value_zero(v: &Option<Value>) -> Option<SameValueZero> {
    Some(match v {
        None => SameValueZero::Undefined,
        Some(Value::Null) => SameValueZero::Null,
        Some(Value::Bool(b)) => SameValueZero::Bool(*b),
        Some(Value::Number(n)) => {
            let x = n.as_f64()?;
            SameValueZero::Number(if x == 0.0 { 0.0f64 } else { x }.to_bits())
        }
        Some(Value::String(s)) => SameValueZero::Text(s.clone()),
        Some(Value::Array(_) | Value::Object(_)) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids(store: &[TargetIds]) -> Vec<Vec<Option<Value>>> {
        store.iter().map(|t| t.ids.clone()).collect()
    }

    #[test]
    fn a_number_and_its_text_are_two_ids_and_repeats_are_one() {
        let mut store = Vec::new();
        let target = SchemaId(0);
        add(
            &mut store,
            target,
            entries(&json!([6, "6", 6.0, "6", " 6"])),
        );
        assert_eq!(
            ids(&store),
            vec![vec![Some(json!(6)), Some(json!("6")), Some(json!(" 6"))]]
        );
    }

    #[test]
    fn connect_wins_over_set_and_objects_give_their_id() {
        let v = json!({"connect": [{"id": 3}, {"documentId": "x"}, {}], "set": [{"id": 9}]});
        assert_eq!(entries(&v), vec![Some(json!(3)), Some(json!("x")), None]);
        let v = json!({"connect": null, "set": [{"id": 9}]});
        assert_eq!(entries(&v), vec![Some(json!(9))]);
        assert_eq!(
            entries(&json!({"disconnect": [1]})),
            Vec::<Option<Value>>::new()
        );
        assert_eq!(entries(&json!("7")), vec![Some(json!("7"))]);
    }

    #[test]
    fn documentids_alone_need_no_count() {
        let mut store = Vec::new();
        let target = SchemaId(0);
        add(
            &mut store,
            target,
            entries(&json!(["abc", {"documentId": "def"}])),
        );
        assert!(names_documents_only(&store));
        add(&mut store, target, entries(&json!({"connect": ["6"]})));
        assert!(!names_documents_only(&store));
        let empty = vec![TargetIds {
            target,
            ids: vec![Some(json!(""))],
        }];
        assert!(!names_documents_only(&empty));
    }

    #[test]
    fn types_keep_the_order_they_are_first_named() {
        let mut store = Vec::new();
        let (a, b) = (SchemaId(3), SchemaId(1));
        add(&mut store, a, vec![Some(json!(1))]);
        add(&mut store, b, vec![Some(json!(2))]);
        add(&mut store, a, vec![Some(json!(1)), Some(json!("1"))]);
        assert_eq!(
            store.iter().map(|t| t.target).collect::<Vec<_>>(),
            vec![a, b]
        );
        assert_eq!(ids(&store)[0], vec![Some(json!(1)), Some(json!("1"))]);
    }
}
