//! Value types of generated structs: [`Field`] (absent / null / value), relation shapes
//! ([`One`], [`Many`], [`Count`]) and newtypes for values whose JSON form must round-trip
//! exactly (bigintegers as strings, decimals with their digits, dates and times as text).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A key of an entry: absent (not selected or not populated), `null`, or a value.
/// Generated fields carry `#[serde(default, skip_serializing_if = "Field::is_absent")]`,
/// so reading and writing back a response gives the same JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Field<T> {
    /// The key was not in the response.
    #[default]
    Absent,
    /// The key was `null`.
    Null,
    /// The key had a value.
    Set(T),
}

impl<T> Field<T> {
    /// True when the key was not in the response.
    pub fn is_absent(&self) -> bool {
        matches!(self, Field::Absent)
    }

    /// The value, if any.
    pub fn as_ref(&self) -> Option<&T> {
        match self {
            Field::Set(v) => Some(v),
            _ => None,
        }
    }

    /// The value, if any.
    pub fn into_option(self) -> Option<T> {
        match self {
            Field::Set(v) => Some(v),
            _ => None,
        }
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Set(v) => v.serialize(s),
            Field::Absent | Field::Null => s.serialize_none(),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(d)? {
            Some(v) => Field::Set(v),
            None => Field::Null,
        })
    }
}

/// A key that may be absent or `null`: its JSON schema is that of `Option<T>` (the
/// generated field's `#[serde(default)]` makes it optional).
#[cfg(feature = "schemars")]
impl<T: schemars::JsonSchema> schemars::JsonSchema for Field<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Option<T> as schemars::JsonSchema>::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        <Option<T> as schemars::JsonSchema>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Option<T> as schemars::JsonSchema>::json_schema(generator)
    }
}

/// `populate[x][count]=true`: `{"count": N}` instead of the related entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Count {
    /// The number of related entries.
    pub count: u64,
}

/// A populated to-one relation or single media: the entry, or a count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum One<T> {
    /// `{"count": N}`.
    Count(Count),
    /// The related entry.
    Entry(Box<T>),
}

/// A populated to-many relation or multiple media: the entries, or a count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum Many<T> {
    /// `{"count": N}`.
    Count(Count),
    /// The related entries, in order.
    Entries(Vec<T>),
}

/// A biginteger: Strapi sends it as a JSON string of digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct BigInt(pub String);

/// A decimal, keeping the JSON number exactly as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Decimal(pub serde_json::Number);

/// A date, `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Date(pub String);

/// A time, `HH:mm:ss.SSS`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Time(pub String);

/// A datetime, ISO 8601 UTC with milliseconds (`2024-01-15T10:30:00.000Z`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct DateTime(pub String);

/// The content of a `blocks` field (the block editor's JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Blocks(pub serde_json::Value);

/// The content of a `json` field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Json(pub serde_json::Value);

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Entry {
        id: i64,
        #[serde(default, skip_serializing_if = "Field::is_absent")]
        title: Field<String>,
        #[serde(default, skip_serializing_if = "Field::is_absent")]
        tags: Field<Many<Entry>>,
    }

    #[test]
    fn fields_round_trip_absent_null_and_values() {
        for text in [
            r#"{"id":1}"#,
            r#"{"id":1,"title":null}"#,
            r#"{"id":1,"title":"a","tags":[{"id":2}]}"#,
            r#"{"id":1,"tags":{"count":3}}"#,
        ] {
            let e: Entry = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(serde_json::to_string(&e).ok().as_deref(), Some(text));
        }
    }
}
