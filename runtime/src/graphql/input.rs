//! A mutation's `data` argument as the REST body's `data`: what Strapi's GraphQL plugin
//! hands its document service, so that one write path serves both faces.
//!
//! Four things differ from the JSON a REST client sends:
//! * an enumeration is given by its GraphQL name (`toRegressedEnumValue` of the value);
//!   graphql-js hands the resolver the value itself, so the name is mapped back;
//! * a dynamic zone's items are `<Zone>Input` scalars naming their component by
//!   `__typename` (its GraphQL name), which the plugin's `parseData` turns into
//!   `__component` (any component of the model; an unknown name is refused with the
//!   zone's members listed);
//! * the plugin calls `sanitize.input`, not `validate.input`: a relation to a type the
//!   caller may not `find` is dropped without an error (`removeRestrictedRelations`),
//!   in components and zone items too, where REST refuses it as `Invalid key`; and a
//!   zone item's keys that its component does not have are ignored, not refused
//!   (`WriteRequest::refuses_unknown_keys` is off for GraphQL);
//! * a `DateTime` is an instant already (its scalar parsed the text), so a lower-case
//!   `t` or `z` the scalar took is taken here too.
//!
//! Everything else (relations as document ids, media as file ids, components with their
//! `id`, scalars) is already the REST shape.

use serde_json::{Map, Value};

use super::view::{AttrShape, TypeView, View, ViewKind};

/// Why a mutation's `data` could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// A zone item's `__typename` names no component.
    #[error("Component not found. expected one of: {expected}")]
    UnknownComponent {
        /// The zone's members, by GraphQL name, joined by `, `.
        expected: String,
    },
}

/// Converts `data` of the type `uid` in place; `can_read(uid)` says whether the caller
/// may `find` a relation's target.
///
/// # Errors
///
/// [`InputError::UnknownComponent`] for a zone item naming no component.
pub fn rest_data(
    view: &View,
    uid: &str,
    data: &mut Map<String, Value>,
    can_read: &dyn Fn(&str) -> bool,
) -> Result<(), InputError> {
    let Some(ty) = view.get(uid) else {
        return Ok(());
    };
    Convert { view, can_read }.object(ty, data, true)
}

struct Convert<'a> {
    view: &'a View,
    can_read: &'a dyn Fn(&str) -> bool,
}

impl Convert<'_> {
    /// `typed`: the object came through GraphQL input types (enums are names); a zone
    /// item is a scalar, handed over as JSON, so its values are Strapi's own.
    fn object(
        &self,
        ty: &TypeView,
        data: &mut Map<String, Value>,
        typed: bool,
    ) -> Result<(), InputError> {
        for attr in &ty.attrs {
            let Some(value) = data.get_mut(&attr.name) else {
                continue;
            };
            match &attr.shape {
                AttrShape::Enum(values) if typed => {
                    if let Some(name) = value.as_str()
                        && let Some(v) = values
                            .iter()
                            .find(|v| super::names::enum_value(v.as_str()) == name)
                    {
                        *value = Value::String(v.clone());
                    }
                }
                AttrShape::Relation {
                    target: Some(target),
                    ..
                } if !(self.can_read)(target) => {
                    data.remove(&attr.name);
                }
                AttrShape::Component { uid, .. } => {
                    if let Some(component) = self.view.get(uid) {
                        self.each_object(value, |item| self.object(component, item, typed))?;
                    }
                }
                AttrShape::Zone(members) => self.zone(members, value)?,
                // graphql-scalars' `DateTime` hands on an instant (`new Date` of a text
                // its validation took, `t` and `z` in any case); the same text upper-cased
                // names it, as the write's parser reads instants.
                AttrShape::Scalar("DateTime") if typed => {
                    if let Value::String(text) = value {
                        text.make_ascii_uppercase();
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Applies `f` to the object, or to each object of the list.
    fn each_object(
        &self,
        value: &mut Value,
        mut f: impl FnMut(&mut Map<String, Value>) -> Result<(), InputError>,
    ) -> Result<(), InputError> {
        match value {
            Value::Object(item) => f(item),
            Value::Array(items) => items
                .iter_mut()
                .filter_map(Value::as_object_mut)
                .try_for_each(f),
            _ => Ok(()),
        }
    }

    fn zone(&self, members: &[String], value: &mut Value) -> Result<(), InputError> {
        let Value::Array(items) = value else {
            return Ok(());
        };
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            let name = item.get("__typename").and_then(Value::as_str);
            let component = self
                .view
                .types
                .iter()
                .find(|t| t.kind == ViewKind::Component && Some(t.name.as_str()) == name);
            let Some(component) = component else {
                return Err(InputError::UnknownComponent {
                    expected: members
                        .iter()
                        .filter_map(|uid| self.view.get(uid))
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            };
            // `{ __component, ...omit(['__typename'], value) }`: the component first, as
            // the plugin's `parseData` builds the item. Where `__component` stands among
            // the keys matters to the write path (Strapi's order of work and of checks).
            let rest = std::mem::take(item);
            item.insert("__component".into(), Value::String(component.uid.clone()));
            item.extend(rest.into_iter().filter(|(k, _)| k != "__typename"));
            self.object(component, item, false)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use serde_json::json;

    use super::*;

    fn blog_view() -> View {
        let schemas = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/blog/schemas"
        );
        View::of(&crate::schema::load(std::path::Path::new(schemas)).unwrap())
    }

    fn convert(data: Value, readable: &[&str]) -> Result<Value, InputError> {
        let Value::Object(mut data) = data else {
            panic!("an object")
        };
        let can_read = |uid: &str| readable.contains(&uid);
        rest_data(&blog_view(), "api::article.article", &mut data, &can_read)?;
        Ok(Value::Object(data))
    }

    #[test]
    fn enum_names_become_values_and_zone_items_name_their_component() {
        let data = json!({
            "kind": "tutorial",
            "blocks": [{"__typename": "ComponentSharedQuote", "body": "q"}],
            "seo": {"metaTitle": "m"},
        });
        assert_eq!(
            convert(data, &["api::author.author"]).unwrap(),
            json!({
                "kind": "tutorial",
                "blocks": [{"__component": "shared.quote", "body": "q"}],
                "seo": {"metaTitle": "m"},
            })
        );
    }

    #[test]
    fn relations_the_caller_may_not_find_are_dropped_at_every_level() {
        let data = json!({
            "title": "t",
            "author": "a1",
            "tags": ["t1"],
            "blocks": [{"__typename": "ComponentSharedQuote", "author": "a2"}],
        });
        assert_eq!(
            convert(data.clone(), &["api::tag.tag"]).unwrap(),
            json!({
                "title": "t",
                "tags": ["t1"],
                "blocks": [{"__component": "shared.quote"}],
            })
        );
        let all = ["api::tag.tag", "api::author.author"];
        assert_eq!(convert(data.clone(), &all).unwrap()["author"], "a1");
    }

    #[test]
    fn a_zone_item_naming_no_component_lists_the_zone_members() {
        let data = json!({"blocks": [{"__typename": "ComponentSharedNope"}]});
        assert_eq!(
            convert(data, &[]).unwrap_err().to_string(),
            "Component not found. expected one of: ComponentSharedRichText, \
             ComponentSharedQuote, ComponentSharedMedia, ComponentSharedSlider"
        );
    }
}
