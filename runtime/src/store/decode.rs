//! Column values → JSON, exactly as Strapi 5 returns them (strapi-db-layout.md §2.2):
//! datetimes as ISO UTC with milliseconds, timestamps as epoch-ms strings, booleans from
//! 0/1, bigintegers as strings (with JavaScript's precision, as Strapi on SQLite), decimals
//! and floats as numbers, json and blocks parsed (twice when double-encoded).

use rusqlite::types::ValueRef;
use serde_json::{Number, Value as Json};

use crate::query::values;
use crate::schema::{ColumnType, ScalarType};

/// How a column is turned into JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decode {
    /// Plain text (strings, enumerations, dates, times, …).
    Text,
    /// A number (integer, float, decimal, id).
    Number,
    /// A biginteger: a JSON string of the integer.
    BigInt,
    /// A boolean from 0/1.
    Boolean,
    /// A datetime: ISO string.
    DateTime,
    /// A timestamp attribute: epoch milliseconds as a string.
    Timestamp,
    /// JSON text, parsed.
    Json,
}

impl Decode {
    /// The decoding of a scalar attribute.
    pub fn for_scalar(t: &ScalarType) -> Decode {
        match t {
            ScalarType::Timestamp => Decode::Timestamp,
            other => Decode::for_column(other.column_type()),
        }
    }

    /// The decoding of a column type.
    pub fn for_column(t: ColumnType) -> Decode {
        match t {
            ColumnType::Increments
            | ColumnType::Integer
            | ColumnType::Float
            | ColumnType::Decimal => Decode::Number,
            ColumnType::BigInteger => Decode::BigInt,
            ColumnType::Boolean => Decode::Boolean,
            ColumnType::DateTime => Decode::DateTime,
            ColumnType::Json => Decode::Json,
            ColumnType::String | ColumnType::Text | ColumnType::Date | ColumnType::Time => {
                Decode::Text
            }
        }
    }

    /// Converts one SQLite value.
    pub fn decode(self, v: ValueRef<'_>) -> Json {
        if let ValueRef::Null = v {
            return Json::Null;
        }
        match self {
            Decode::Text => match v {
                ValueRef::Text(t) | ValueRef::Blob(t) => {
                    Json::String(String::from_utf8_lossy(t).into_owned())
                }
                ValueRef::Integer(i) => Json::String(i.to_string()),
                ValueRef::Real(f) => Json::String(values::js_number_string(f)),
                ValueRef::Null => Json::Null,
            },
            Decode::Number => match v {
                ValueRef::Integer(i) => Json::Number(i.into()),
                ValueRef::Real(f) => number(f),
                ValueRef::Text(t) => {
                    values::js_number(&String::from_utf8_lossy(t)).map_or(Json::Null, number)
                }
                _ => Json::Null,
            },
            Decode::BigInt => match v {
                // better-sqlite3 hands Strapi a JS number: beyond 2^53 precision is lost.
                ValueRef::Integer(i) => Json::String(values::js_number_string(i as f64)),
                ValueRef::Real(f) => Json::String(values::js_number_string(f.trunc())),
                ValueRef::Text(t) => Json::String(String::from_utf8_lossy(t).into_owned()),
                _ => Json::Null,
            },
            Decode::Boolean => match v {
                ValueRef::Integer(1) => Json::Bool(true),
                ValueRef::Integer(0) => Json::Bool(false),
                ValueRef::Real(1.0) => Json::Bool(true),
                ValueRef::Real(0.0) => Json::Bool(false),
                ValueRef::Text(b"1") => Json::Bool(true),
                ValueRef::Text(b"0") => Json::Bool(false),
                _ => Json::Null,
            },
            Decode::DateTime => match epoch_ms(v) {
                Some(ms) => Json::String(values::iso_string(ms)),
                None => Json::Null,
            },
            Decode::Timestamp => match epoch_ms(v) {
                Some(ms) => Json::String(ms.to_string()),
                None => Json::Null,
            },
            Decode::Json => match v {
                ValueRef::Text(t) | ValueRef::Blob(t) => parse_json(&String::from_utf8_lossy(t)),
                ValueRef::Integer(i) => Json::Number(i.into()),
                ValueRef::Real(f) => number(f),
                ValueRef::Null => Json::Null,
            },
        }
    }
}

/// A JSON number; integral values print without a fraction, as in JavaScript.
fn number(f: f64) -> Json {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Json::Number((f as i64).into())
    } else {
        Number::from_f64(f).map_or(Json::Null, Json::Number)
    }
}

fn epoch_ms(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(f) => Some(f as i64),
        ValueRef::Text(t) => {
            let s = String::from_utf8_lossy(t);
            values::datetime(s.trim())
        }
        _ => None,
    }
}

/// Strapi's JSON read: parse; a parsed string is parsed again (double-encoded rows of
/// 5.0 release candidates); when that fails the raw text is returned.
fn parse_json(text: &str) -> Json {
    match serde_json::from_str::<Json>(text) {
        Ok(Json::String(inner)) => {
            serde_json::from_str(&inner).unwrap_or(Json::String(text.to_string()))
        }
        Ok(v) => v,
        Err(_) => Json::String(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_like_strapi() {
        assert_eq!(
            Decode::DateTime.decode(ValueRef::Integer(1_705_314_600_000)),
            Json::String("2024-01-15T10:30:00.000Z".into())
        );
        assert_eq!(
            Decode::BigInt.decode(ValueRef::Integer(9_007_199_254_740_993)),
            Json::String("9007199254740992".into())
        );
        assert_eq!(
            Decode::Number.decode(ValueRef::Real(5120.0)),
            serde_json::json!(5120)
        );
        assert_eq!(Decode::Boolean.decode(ValueRef::Text(b"true")), Json::Null);
        assert_eq!(
            Decode::Json.decode(ValueRef::Text(br#""hello""#)),
            Json::String(r#""hello""#.into())
        );
        assert_eq!(
            Decode::Json.decode(ValueRef::Text(br#""123""#)),
            serde_json::json!(123)
        );
        assert_eq!(
            Decode::Json.decode(ValueRef::Text(br#"{"a":1}"#)),
            serde_json::json!({"a": 1})
        );
        assert_eq!(
            Decode::Timestamp.decode(ValueRef::Integer(42)),
            Json::String("42".into())
        );
    }
}
