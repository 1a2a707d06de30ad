//! The static description of a typed content type or component: the schema facts that
//! `#[derive(ContentType)]` / `#[derive(Component)]` read from their `#[strata(...)]`
//! attributes, as plain data.
//!
//! [`Description::from_schema`] computes the same value from the runtime [`Model`], so a
//! test can check that generated code and the schema files agree:
//!
//! ```text
//! assert_eq!(Article::describe(), Description::from_schema(model, model.by_uid("api::article.article")?));
//! ```
//!
//! The description covers every fact that shapes the content API: the uid, kind, REST
//! names, table name, draft-and-publish and i18n flags, and each attribute in schema order
//! with its kind, target, privacy and options (`required`, `unique`, `default`, value
//! constraints, enumeration values, `targetField`, `localized`, custom field, media types,
//! item bounds). It leaves out what only Strapi's admin panel reads: display names,
//! descriptions, `configurable` and `searchable`, and the database layout (which
//! `strata-runtime` derives from these facts).

use serde_json::{Number, Value};

use crate::schema::{
    Attribute, AttributeKind, Constraints, Model, RelationKind, RelationSide, ScalarType, Schema,
    SchemaKind,
};

/// The schema facts of one content type or component.
#[derive(Debug, Clone, PartialEq)]
pub struct Description {
    /// `api::article.article`, `shared.seo`.
    pub uid: String,
    /// Collection type, single type or component.
    pub kind: SchemaKind,
    /// `info.singularName` (for components, the name after the category).
    pub singular_name: String,
    /// `info.pluralName` (for components, the same as the singular name).
    pub plural_name: String,
    /// `collectionName`.
    pub collection_name: String,
    /// `options.draftAndPublish`.
    pub draft_and_publish: bool,
    /// `pluginOptions.i18n.localized`.
    pub localized: bool,
    /// Every attribute, private ones included, in schema order.
    pub attributes: Vec<AttributeDescription>,
}

/// One attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeDescription {
    /// The attribute name (its JSON key).
    pub name: String,
    /// What it holds.
    pub kind: AttributeKindDescription,
    /// `private` (passwords are always private).
    pub private: bool,
    /// `required`.
    pub required: bool,
    /// `unique`.
    pub unique: bool,
    /// The attribute's `pluginOptions.i18n.localized`, when given.
    pub localized: Option<bool>,
    /// `default`, as JSON.
    pub default: Option<Value>,
    /// `min`, `max`, `minLength`, `maxLength`, `regex`.
    pub constraints: Constraints,
    /// `customField`.
    pub custom_field: Option<String>,
}

/// The kind of an attribute, with its targets by uid.
#[derive(Debug, Clone, PartialEq)]
pub enum AttributeKindDescription {
    /// A scalar (with enumeration values and `targetField` inside the type).
    Scalar(ScalarType),
    /// A media attribute.
    Media {
        /// `multiple`.
        multiple: bool,
        /// `allowedTypes`.
        allowed_types: Vec<String>,
    },
    /// A relation.
    Relation {
        /// The declared cardinality.
        kind: RelationKind,
        /// The target uid (absent for `morphTo*`).
        target: Option<String>,
        /// One-way, `inversedBy` or `mappedBy`.
        side: RelationSide,
    },
    /// A component.
    Component {
        /// The component uid.
        component: String,
        /// `repeatable`.
        repeatable: bool,
        /// `min` items.
        min: Option<u64>,
        /// `max` items.
        max: Option<u64>,
    },
    /// A dynamic zone.
    DynamicZone {
        /// The component uids, in schema order.
        components: Vec<String>,
        /// `min` items.
        min: Option<u64>,
        /// `max` items.
        max: Option<u64>,
    },
}

impl Description {
    /// The description of `schema` (a schema of `model`), computed from the runtime model.
    pub fn from_schema(model: &Model, schema: &Schema) -> Description {
        Description {
            uid: schema.uid.as_str().to_string(),
            kind: schema.kind,
            singular_name: schema.singular_name.clone(),
            plural_name: schema.plural_name.clone(),
            collection_name: schema.collection_name.clone(),
            draft_and_publish: schema.draft_and_publish,
            localized: schema.localized,
            attributes: schema
                .attributes
                .iter()
                .map(|a| AttributeDescription::from_attribute(model, a))
                .collect(),
        }
    }

    /// The attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&AttributeDescription> {
        self.attributes.iter().find(|a| a.name == name)
    }
}

impl AttributeDescription {
    /// The description of one attribute of `model`.
    pub fn from_attribute(model: &Model, attr: &Attribute) -> AttributeDescription {
        let uid = |id| model.schema(id).uid.as_str().to_string();
        let kind = match &attr.kind {
            AttributeKind::Scalar(s) => AttributeKindDescription::Scalar(s.clone()),
            AttributeKind::Media(m) => AttributeKindDescription::Media {
                multiple: m.multiple,
                allowed_types: m.allowed_types.clone(),
            },
            AttributeKind::Relation(r) => AttributeKindDescription::Relation {
                kind: r.kind,
                target: r.target_uid.as_ref().map(|u| u.as_str().to_string()),
                side: r.side.clone(),
            },
            AttributeKind::Component(c) => AttributeKindDescription::Component {
                component: uid(c.component),
                repeatable: c.repeatable,
                min: c.min,
                max: c.max,
            },
            AttributeKind::DynamicZone(z) => AttributeKindDescription::DynamicZone {
                components: z.components.iter().map(|c| uid(*c)).collect(),
                min: z.min,
                max: z.max,
            },
        };
        AttributeDescription {
            name: attr.name.clone(),
            kind,
            private: attr.private,
            required: attr.required,
            unique: attr.unique,
            localized: attr.localized,
            default: attr.default.clone(),
            constraints: attr.constraints.clone(),
            custom_field: attr.custom_field.clone(),
        }
    }
}

/// Builders used by derived `describe()` functions (not a stable API).
#[doc(hidden)]
pub mod build {
    use super::*;

    /// A JSON number written as text in an attribute (`min = "1.5"`).
    pub fn number(text: &str) -> Option<Number> {
        serde_json::from_str::<Number>(text.trim()).ok()
    }

    /// A JSON value written as text (`default = "false"`).
    pub fn json(text: &str) -> Option<Value> {
        serde_json::from_str::<Value>(text).ok()
    }

    /// Strings from a static list.
    pub fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_string()).collect()
    }

    /// A scalar type from its schema name and options.
    pub fn scalar(ty: &str, enum_values: &[&str], target_field: Option<&str>) -> ScalarType {
        // The derive only accepts scalar type names, so the fallback is never taken.
        ScalarType::from_name(ty, target_field.map(str::to_string), strings(enum_values))
            .unwrap_or(ScalarType::Json)
    }

    /// A relation side from `inversed_by` / `mapped_by`.
    pub fn side(inversed_by: Option<&str>, mapped_by: Option<&str>) -> RelationSide {
        match (inversed_by, mapped_by) {
            (Some(i), _) => RelationSide::Owner {
                inversed_by: i.to_string(),
            },
            (None, Some(m)) => RelationSide::Inverse {
                mapped_by: m.to_string(),
            },
            (None, None) => RelationSide::OneWay,
        }
    }

    /// A relation kind from its schema spelling.
    pub fn relation_kind(s: &str) -> RelationKind {
        RelationKind::parse(s).unwrap_or(RelationKind::ManyToOne)
    }

    /// Constraints from their textual form.
    pub fn constraints(
        min: Option<&str>,
        max: Option<&str>,
        min_length: Option<u64>,
        max_length: Option<u64>,
        regex: Option<&str>,
    ) -> Constraints {
        Constraints {
            min: min.and_then(number),
            max: max.and_then(number),
            min_length,
            max_length,
            regex: regex.map(str::to_string),
        }
    }

    /// Item bounds of components and zones: the runtime reads `min`/`max` as `u64`.
    pub fn items(bound: Option<&str>) -> Option<u64> {
        bound.and_then(number).and_then(|n| n.as_u64())
    }
}
