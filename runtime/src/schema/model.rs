//! The resolved content model: every schema (content types and components) with its
//! attributes, relations resolved to [`SchemaId`]s, and its database layout.
//!
//! A [`Model`] is built once by [`crate::schema::load`] and is immutable afterwards.
//! Lookups by uid, plural or singular name go through hash maps built at load time;
//! nothing in here scans strings per request.

use std::collections::HashMap;
use std::path::PathBuf;

pub use super::ids::{AttrId, SchemaId, Uid};
use super::tables::{ColumnType, LinkTable, RelationStorage, SchemaLayout};

/// What sort of schema this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaKind {
    /// A content type with many documents (`kind: collectionType`).
    CollectionType,
    /// A content type with at most one document per locale (`kind: singleType`).
    SingleType,
    /// A reusable group of fields (`components/<category>/<name>.json`).
    Component,
}

/// Where a schema came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A user content type under `api/<api>/content-types/<name>/schema.json`.
    Api,
    /// A component under `components/<category>/<name>.json`.
    Component,
    /// A built-in type that Strapi always has (upload, users-permissions, i18n).
    BuiltIn,
}

/// One content type or component, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    /// This schema's id in the model.
    pub id: SchemaId,
    /// Its uid (`api::article.article`, `shared.seo`).
    pub uid: Uid,
    /// Collection type, single type or component.
    pub kind: SchemaKind,
    /// Where it was defined.
    pub origin: Origin,
    /// The file it was loaded from (built-ins use a `<built-in>/…` pseudo path).
    pub source: PathBuf,
    /// `info.singularName`, or the component's file name.
    pub singular_name: String,
    /// `info.pluralName`; for components, the same as the singular name.
    pub plural_name: String,
    /// `info.displayName`.
    pub display_name: String,
    /// For components, the category folder (`shared`); `None` for content types.
    pub category: Option<String>,
    /// The raw `collectionName` (before identifier shortening).
    pub collection_name: String,
    /// `options.draftAndPublish` (always false for components).
    pub draft_and_publish: bool,
    /// `pluginOptions.i18n.localized` (always false for components).
    pub localized: bool,
    /// The attributes, in schema order.
    pub attributes: Vec<Attribute>,
    /// Attribute lookup by name.
    pub(crate) attribute_index: HashMap<String, AttrId>,
    /// Extra indexes declared by the schema (only built-ins use this).
    pub declared_indexes: Vec<DeclaredIndex>,
    /// The database layout of this schema (table, columns, link and join tables).
    pub layout: SchemaLayout,
}

impl Schema {
    /// The relations this schema owns through a link table, each with its target: the
    /// link rows a copy of one of its rows carries.
    pub fn owned_link_tables(&self) -> impl Iterator<Item = (&LinkTable, SchemaId)> {
        self.attributes.iter().filter_map(|a| match &a.kind {
            AttributeKind::Relation(Relation {
                storage: RelationStorage::LinkTable(lt),
                target: Some(target),
                ..
            }) => Some((lt, *target)),
            _ => None,
        })
    }

    /// Looks an attribute up by its name.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attribute_index
            .get(name)
            .and_then(|id| self.attributes.get(id.index()))
    }

    /// Looks an attribute id up by its name.
    pub fn attribute_id(&self, name: &str) -> Option<AttrId> {
        self.attribute_index.get(name).copied()
    }

    /// True for content types (collection or single), false for components.
    pub fn is_content_type(&self) -> bool {
        self.kind != SchemaKind::Component
    }
}

/// An index that a schema declares itself (Strapi's built-ins do, e.g. `upload_files_name_index`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredIndex {
    /// The index name, verbatim.
    pub name: String,
    /// The attribute columns it covers.
    pub columns: Vec<String>,
    /// Whether it is a unique index.
    pub unique: bool,
}

/// One attribute of a schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// Its id inside the schema.
    pub id: AttrId,
    /// The attribute name, which is also its JSON key.
    pub name: String,
    /// The type and type-specific options.
    pub kind: AttributeKind,
    /// Never returned, filtered, sorted or populated through the API.
    pub private: bool,
    /// `required: true`.
    pub required: bool,
    /// `unique: true` (enforced by the application, not the database).
    pub unique: bool,
    /// `pluginOptions.i18n.localized` of the field, if given.
    pub localized: Option<bool>,
    /// `configurable: false` marks fields that the admin may not edit.
    pub configurable: bool,
    /// `searchable: false` excludes the field from `_q` search.
    pub searchable: bool,
    /// `default`, as written.
    pub default: Option<serde_json::Value>,
    /// `min`/`max`/`minLength`/`maxLength`/`regex`.
    pub constraints: Constraints,
    /// `customField` uid when the attribute was declared as a custom field.
    pub custom_field: Option<String>,
    /// The database column for scalar attributes (`None` for relations, media, components, zones).
    pub column: Option<String>,
    /// `conditions.visible`: a write checks the attribute only where this rule holds on
    /// the data it validates (`write::condition`).
    pub condition: Option<super::Condition>,
}

impl Attribute {
    /// Whether every write looks its value up in the other documents' rows: Strapi checks
    /// `unique` attributes and every uid for uniqueness (its entity validator's
    /// `addUniqueValidator`). strata indexes these columns (`Model::lookup_indexes`).
    pub fn is_unique_checked(&self) -> bool {
        self.unique || matches!(self.kind, AttributeKind::Scalar(ScalarType::Uid { .. }))
    }

    /// Whether every write checks `required` on it: `required` with no condition that
    /// may hide it (`conditions.visible`), so that typed inputs, TypeScript and the
    /// OpenAPI document may call it required.
    pub fn always_required(&self) -> bool {
        self.required && self.condition.is_none()
    }
}

/// Value constraints of a scalar attribute.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Constraints {
    /// `min` (numbers) as written.
    pub min: Option<serde_json::Number>,
    /// `max` (numbers) as written.
    pub max: Option<serde_json::Number>,
    /// `minLength` (strings).
    pub min_length: Option<u64>,
    /// `maxLength` (strings).
    pub max_length: Option<u64>,
    /// `regex` (strings).
    pub regex: Option<String>,
}

/// The type of an attribute, with its type-specific options.
#[derive(Debug, Clone, PartialEq)]
pub enum AttributeKind {
    /// A value stored in a column of the schema's own table.
    Scalar(ScalarType),
    /// A media field (files through `files_related_mph`).
    Media(Media),
    /// A relation to another content type.
    Relation(Relation),
    /// A single or repeatable component.
    Component(ComponentField),
    /// A dynamic zone: an ordered list of components of several types.
    DynamicZone(DynamicZone),
}

impl AttributeKind {
    /// The scalar type, for scalar attributes.
    pub fn scalar(&self) -> Option<&ScalarType> {
        match self {
            AttributeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }
}

/// Scalar attribute types (each stored in one column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScalarType {
    /// `string`: short text (varchar(255)).
    String,
    /// `text`: long text.
    Text,
    /// `richtext`: Markdown text.
    RichText,
    /// `blocks`: the JSON block editor's content.
    Blocks,
    /// `email`.
    Email,
    /// `password`: always private.
    Password,
    /// `uid`, optionally derived from `targetField`.
    Uid {
        /// The attribute this uid is generated from.
        target_field: Option<String>,
    },
    /// `enumeration` with its allowed values.
    Enumeration {
        /// The allowed values, in schema order.
        values: Vec<String>,
    },
    /// `integer` (32-bit).
    Integer,
    /// `biginteger` (64-bit, returned as a JSON string).
    BigInteger,
    /// `float`.
    Float,
    /// `decimal`.
    Decimal,
    /// `boolean`.
    Boolean,
    /// `date` (`YYYY-MM-DD`).
    Date,
    /// `time` (`HH:mm:ss.SSS`).
    Time,
    /// `datetime` (ISO 8601 UTC with milliseconds).
    DateTime,
    /// `timestamp` (epoch milliseconds, returned as a string).
    Timestamp,
    /// `json`: any JSON value.
    Json,
}

impl ScalarType {
    /// The characters a `uid` value may hold, as Strapi's validator names them in its
    /// message (`must match the following: "/^[A-Za-z0-9-_.~]*$/"`).
    pub const UID_PATTERN: &'static str = "^[A-Za-z0-9-_.~]*$";

    /// [`Self::UID_PATTERN`] as a JSON Schema (ECMA-262, unicode mode) pattern: the `-`
    /// after a range is escaped there.
    pub const UID_JSON_SCHEMA_PATTERN: &'static str = "^[A-Za-z0-9\\-_.~]*$";

    /// Whether `s` holds only the characters of [`Self::UID_PATTERN`].
    pub fn is_uid_text(s: &str) -> bool {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.~".contains(c))
    }

    /// The scalar type of a schema.json type name, with its options (`targetField` of a
    /// uid, the values of an enumeration); `None` for names that are not scalar types.
    pub fn from_name(
        name: &str,
        target_field: Option<String>,
        enum_values: Vec<String>,
    ) -> Option<Self> {
        Some(match name {
            "string" => ScalarType::String,
            "text" => ScalarType::Text,
            "richtext" => ScalarType::RichText,
            "blocks" => ScalarType::Blocks,
            "email" => ScalarType::Email,
            "password" => ScalarType::Password,
            "uid" => ScalarType::Uid { target_field },
            "enumeration" => ScalarType::Enumeration {
                values: enum_values,
            },
            "integer" => ScalarType::Integer,
            "biginteger" => ScalarType::BigInteger,
            "float" => ScalarType::Float,
            "decimal" => ScalarType::Decimal,
            "boolean" => ScalarType::Boolean,
            "date" => ScalarType::Date,
            "time" => ScalarType::Time,
            "datetime" => ScalarType::DateTime,
            "timestamp" => ScalarType::Timestamp,
            "json" => ScalarType::Json,
            _ => return None,
        })
    }

    /// The type name as written in schema.json.
    pub fn type_name(&self) -> &'static str {
        match self {
            ScalarType::String => "string",
            ScalarType::Text => "text",
            ScalarType::RichText => "richtext",
            ScalarType::Blocks => "blocks",
            ScalarType::Email => "email",
            ScalarType::Password => "password",
            ScalarType::Uid { .. } => "uid",
            ScalarType::Enumeration { .. } => "enumeration",
            ScalarType::Integer => "integer",
            ScalarType::BigInteger => "biginteger",
            ScalarType::Float => "float",
            ScalarType::Decimal => "decimal",
            ScalarType::Boolean => "boolean",
            ScalarType::Date => "date",
            ScalarType::Time => "time",
            ScalarType::DateTime => "datetime",
            ScalarType::Timestamp => "timestamp",
            ScalarType::Json => "json",
        }
    }

    /// The column type this scalar is stored in.
    pub fn column_type(&self) -> ColumnType {
        match self {
            ScalarType::String
            | ScalarType::Email
            | ScalarType::Password
            | ScalarType::Uid { .. }
            | ScalarType::Enumeration { .. } => ColumnType::String,
            ScalarType::Text | ScalarType::RichText => ColumnType::Text,
            ScalarType::Blocks | ScalarType::Json => ColumnType::Json,
            ScalarType::Integer => ColumnType::Integer,
            ScalarType::BigInteger => ColumnType::BigInteger,
            ScalarType::Float => ColumnType::Float,
            ScalarType::Decimal => ColumnType::Decimal,
            ScalarType::Boolean => ColumnType::Boolean,
            ScalarType::Date => ColumnType::Date,
            ScalarType::Time => ColumnType::Time,
            ScalarType::DateTime | ScalarType::Timestamp => ColumnType::DateTime,
        }
    }
}

/// A media attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Media {
    /// `multiple: true` holds a list of files; otherwise one.
    pub multiple: bool,
    /// `allowedTypes` (`images`, `files`, `videos`, `audios`).
    pub allowed_types: Vec<String>,
}

/// The cardinality of a relation, as declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RelationKind {
    /// `oneToOne`.
    OneToOne,
    /// `oneToMany`.
    OneToMany,
    /// `manyToOne`.
    ManyToOne,
    /// `manyToMany`.
    ManyToMany,
    /// `morphToOne` (polymorphic, not filterable or populatable through the content API).
    MorphToOne,
    /// `morphToMany` (polymorphic, e.g. the upload file's `related`).
    MorphToMany,
    /// `morphOne`.
    MorphOne,
    /// `morphMany`.
    MorphMany,
}

impl RelationKind {
    /// Parses the schema.json spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "oneToOne" => RelationKind::OneToOne,
            "oneToMany" => RelationKind::OneToMany,
            "manyToOne" => RelationKind::ManyToOne,
            "manyToMany" => RelationKind::ManyToMany,
            "morphToOne" => RelationKind::MorphToOne,
            "morphToMany" => RelationKind::MorphToMany,
            "morphOne" => RelationKind::MorphOne,
            "morphMany" => RelationKind::MorphMany,
            _ => return None,
        })
    }

    /// The schema.json spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::OneToOne => "oneToOne",
            RelationKind::OneToMany => "oneToMany",
            RelationKind::ManyToOne => "manyToOne",
            RelationKind::ManyToMany => "manyToMany",
            RelationKind::MorphToOne => "morphToOne",
            RelationKind::MorphToMany => "morphToMany",
            RelationKind::MorphOne => "morphOne",
            RelationKind::MorphMany => "morphMany",
        }
    }

    /// True when one owner row relates to many target rows.
    pub fn is_to_many(self) -> bool {
        matches!(
            self,
            RelationKind::OneToMany
                | RelationKind::ManyToMany
                | RelationKind::MorphToMany
                | RelationKind::MorphMany
        )
    }

    /// True for the polymorphic kinds.
    pub fn is_morph(self) -> bool {
        matches!(
            self,
            RelationKind::MorphToOne
                | RelationKind::MorphToMany
                | RelationKind::MorphOne
                | RelationKind::MorphMany
        )
    }

    /// The kind the other side of a two-way relation must declare.
    pub fn inverse(self) -> Self {
        match self {
            RelationKind::OneToMany => RelationKind::ManyToOne,
            RelationKind::ManyToOne => RelationKind::OneToMany,
            other => other,
        }
    }
}

/// Which side of a relation this attribute is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelationSide {
    /// A one-way relation; this side stores the links.
    OneWay,
    /// The owning side of a two-way relation (`inversedBy`); it stores the links.
    Owner {
        /// The attribute on the target that mirrors this one.
        inversed_by: String,
    },
    /// The inverse side of a two-way relation (`mappedBy`); it reads the owner's links.
    Inverse {
        /// The owning attribute on the target.
        mapped_by: String,
    },
}

/// A relation attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct Relation {
    /// The declared cardinality.
    pub kind: RelationKind,
    /// The target schema (`None` only for `morphTo*`, which has no fixed target).
    pub target: Option<SchemaId>,
    /// The target uid as written.
    pub target_uid: Option<Uid>,
    /// One-way, owner or inverse.
    pub side: RelationSide,
    /// Where the links live.
    pub storage: RelationStorage,
}

/// A component attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentField {
    /// The component schema.
    pub component: SchemaId,
    /// `repeatable: true` holds a list.
    pub repeatable: bool,
    /// `min` items (repeatable only).
    pub min: Option<u64>,
    /// `max` items (repeatable only).
    pub max: Option<u64>,
}

/// A dynamic-zone attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicZone {
    /// The allowed components, in schema order.
    pub components: Vec<SchemaId>,
    /// `min` items.
    pub min: Option<u64>,
    /// `max` items.
    pub max: Option<u64>,
}

/// The whole resolved content model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub(crate) schemas: Vec<Schema>,
    pub(crate) by_uid: HashMap<Uid, SchemaId>,
    pub(crate) by_plural: HashMap<String, SchemaId>,
    pub(crate) by_singular: HashMap<String, SchemaId>,
}

impl Model {
    /// Every schema, content types first (user then built-in), then components.
    pub fn schemas(&self) -> &[Schema] {
        &self.schemas
    }

    /// The schema with this id.
    ///
    /// Ids come from this model, so the lookup cannot fail for them; a foreign id
    /// falls back to the first schema rather than panicking.
    pub fn schema(&self, id: SchemaId) -> &Schema {
        match self.schemas.get(id.index()) {
            Some(schema) => schema,
            None => &self.schemas[0],
        }
    }

    /// Looks a schema up by uid.
    pub fn by_uid(&self, uid: &str) -> Option<&Schema> {
        self.by_uid.get(uid).map(|id| self.schema(*id))
    }

    /// Looks a content type up by its plural name (the REST collection path).
    pub fn by_plural(&self, plural: &str) -> Option<&Schema> {
        self.by_plural.get(plural).map(|id| self.schema(*id))
    }

    /// Looks a content type up by its singular name (the REST path of single types).
    pub fn by_singular(&self, singular: &str) -> Option<&Schema> {
        self.by_singular.get(singular).map(|id| self.schema(*id))
    }

    /// The content types (collection and single types), user-defined and built-in.
    pub fn content_types(&self) -> impl Iterator<Item = &Schema> {
        self.schemas.iter().filter(|s| s.is_content_type())
    }

    /// The components.
    pub fn components(&self) -> impl Iterator<Item = &Schema> {
        self.schemas
            .iter()
            .filter(|s| s.kind == SchemaKind::Component)
    }
}
