//! Errors of loading and validating a content model. Each one names the file, the JSON
//! path inside it and the problem, so that a person can fix the schema without guessing.

use std::fmt;
use std::path::PathBuf;

/// One problem in one schema file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The file the problem is in (or the folder, for layout problems).
    pub file: PathBuf,
    /// A JSON path inside the file, like `$.attributes.author.target`; `$` for the whole file.
    pub path: String,
    /// What is wrong.
    pub problem: Problem,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.file.display(),
            self.path,
            self.problem
        )
    }
}

impl std::error::Error for SchemaError {}

/// The kinds of problems a content model can have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The folder could not be read.
    #[error("cannot read: {0}")]
    Io(String),
    /// The folder holds no `api/` or `components/` tree.
    #[error(
        "no schemas found: expected `api/<name>/content-types/<name>/schema.json` or `components/<category>/<name>.json` under this folder, its `src/` or its `schemas/`"
    )]
    NoSchemas,
    /// The file is not valid JSON.
    #[error("invalid JSON: {0}")]
    Json(String),
    /// A value has the wrong JSON type.
    #[error("expected {expected}, found {found}")]
    WrongType {
        /// What was expected (`an object`, `a string`, …).
        expected: &'static str,
        /// What was found.
        found: &'static str,
    },
    /// A required key is missing.
    #[error("missing required key `{0}`")]
    Missing(&'static str),
    /// `kind` is not `collectionType` or `singleType`.
    #[error("unknown kind `{0}`: expected `collectionType` or `singleType`")]
    UnknownKind(String),
    /// `type` is not a Strapi v5 attribute type.
    #[error(
        "unknown attribute type `{0}`: expected one of string, text, richtext, blocks, email, password, uid, enumeration, integer, biginteger, float, decimal, boolean, date, time, datetime, timestamp, json, media, relation, component, dynamiczone or customField"
    )]
    UnknownAttributeType(String),
    /// A customField has no underlying `type` we know.
    #[error("custom field `{0}` needs an underlying `type` (for example `string`)")]
    CustomFieldWithoutType(String),
    /// `relation` is not a known cardinality.
    #[error(
        "unknown relation `{0}`: expected oneToOne, oneToMany, manyToOne, manyToMany, morphToOne, morphToMany, morphOne or morphMany"
    )]
    UnknownRelation(String),
    /// A relation target does not exist.
    #[error("relation target `{0}` does not exist")]
    UnknownTarget(String),
    /// A component does not exist.
    #[error("component `{0}` does not exist")]
    UnknownComponent(String),
    /// An attribute's `conditions` cannot be evaluated.
    #[error("{0}")]
    Condition(super::ConditionError),
    /// A dynamic-zone component does not exist.
    #[error("dynamic-zone component `{0}` does not exist")]
    UnknownZoneComponent(String),
    /// A component reference points at a content type.
    #[error("`{0}` is a content type, not a component")]
    NotAComponent(String),
    /// A relation target is a component.
    #[error("relation target `{0}` is a component; relations must target content types")]
    TargetIsComponent(String),
    /// An `enumeration` without values.
    #[error("enumeration needs a non-empty `enum` array of strings")]
    EmptyEnum,
    /// Both sides of a two-way relation do not agree.
    #[error("{0}")]
    RelationMismatch(String),
    /// Two schemas share a name.
    #[error("duplicate {what} `{name}`: also used by {other}")]
    Duplicate {
        /// `singularName`, `pluralName`, `uid` or `collectionName`.
        what: &'static str,
        /// The duplicated value.
        name: String,
        /// The other schema's uid.
        other: String,
    },
    /// An attribute uses a name that Strapi reserves.
    #[error(
        "attribute name `{0}` is reserved (id, documentId, locale, localizations, publishedAt, createdAt, updatedAt, createdBy and updatedBy are managed by strata)"
    )]
    ReservedName(String),
    /// Two attributes map to the same column.
    #[error("attributes `{0}` and `{1}` map to the same column `{2}`")]
    ColumnCollision(String, String, String),
    /// A component contains itself.
    #[error("component cycle: {0}")]
    ComponentCycle(String),
    /// Dynamic zones are allowed on content types only.
    #[error("dynamic zones are allowed on content types only, not in components")]
    ZoneInComponent,
    /// A name could not be turned into a database identifier.
    #[error("cannot build a database name: {0}")]
    Naming(String),
    /// A name is not a valid identifier.
    #[error("invalid name `{0}`: {1}")]
    InvalidName(String, &'static str),
}

/// Every problem found in a content model. Loading reports all of them, not only the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaErrors(pub Vec<SchemaError>);

impl fmt::Display for SchemaErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        writeln!(
            f,
            "{n} problem{} in the content model:",
            if n == 1 { "" } else { "s" }
        )?;
        for e in &self.0 {
            writeln!(f, "  {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SchemaErrors {}

/// The JSON type name of a value, for error messages.
pub(crate) fn json_type_name(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
