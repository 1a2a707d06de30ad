//! Column values → JSON, exactly as Strapi 5 returns them (strapi-db-layout.md §2.2):
//! datetimes as ISO UTC with milliseconds, timestamps as epoch-ms strings, booleans from
//! 0/1, bigintegers as strings (with JavaScript's precision on SQLite, exact on
//! PostgreSQL, as Strapi's drivers hand them over: see [`Cell`]), decimals
//! and floats as numbers, json and blocks parsed (twice when double-encoded).

use super::canonical;
use super::seam::Cell;
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

    /// Writes one column value as JSON text onto `out`.
    pub fn write(self, v: Cell<'_>, out: &mut Vec<u8>) {
        match (self, v) {
            (_, Cell::Null) => null(out),
            (Decode::Text, c) => match c {
                Cell::Text(t) => string(out, &t),
                Cell::Bytes(b) => string(out, &String::from_utf8_lossy(b)),
                Cell::Int(i) | Cell::BigInt(i) => quoted_integer(out, i),
                Cell::Float(f) => string(out, &values::js_number_string(f)),
                Cell::Bool(b) => string(out, if b { "true" } else { "false" }),
                Cell::DateTime(ms) => iso_datetime(out, ms),
                Cell::Null => null(out),
            },
            (Decode::Number, c) => match c {
                Cell::Int(i) | Cell::BigInt(i) => integer(out, i),
                Cell::Float(f) => number(out, f),
                Cell::Text(t) => match values::js_number(&t) {
                    Some(f) => number(out, f),
                    None => null(out),
                },
                _ => null(out),
            },
            (Decode::BigInt, c) => match c {
                // better-sqlite3 hands Strapi a JS number: beyond 2^53 precision is lost.
                Cell::Int(i) if i.unsigned_abs() <= 1 << 53 => quoted_integer(out, i),
                Cell::Int(i) => string(out, &values::js_number_string(i as f64)),
                // node-postgres hands over bigint as an exact string.
                Cell::BigInt(i) => quoted_integer(out, i),
                Cell::Float(f) => string(out, &values::js_number_string(f.trunc())),
                Cell::Text(t) => string(out, &t),
                _ => null(out),
            },
            (Decode::Boolean, c) => match c {
                Cell::Bool(b) => boolean(out, b),
                Cell::Int(1) => boolean(out, true),
                Cell::Int(0) => boolean(out, false),
                Cell::Float(1.0) => boolean(out, true),
                Cell::Float(0.0) => boolean(out, false),
                Cell::Text(t) if t == "1" => boolean(out, true),
                Cell::Text(t) if t == "0" => boolean(out, false),
                _ => null(out),
            },
            (Decode::DateTime, c) => match epoch_ms(c) {
                Some(ms) => iso_datetime(out, ms),
                None => null(out),
            },
            (Decode::Timestamp, c) => match epoch_ms(c) {
                Some(ms) => quoted_integer(out, ms),
                None => null(out),
            },
            (Decode::Json, c) => match c {
                Cell::Text(t) if canonical::is_canonical(&t) => out.extend_from_slice(t.as_bytes()),
                Cell::Text(t) => value(out, &parse_json(&t)),
                Cell::Bytes(b) => value(out, &parse_json(&String::from_utf8_lossy(b))),
                Cell::Int(i) | Cell::BigInt(i) => integer(out, i),
                Cell::Float(f) => number(out, f),
                Cell::Bool(b) => boolean(out, b),
                _ => null(out),
            },
        }
    }

    /// One column value as a JSON value (the text [`Decode::write`] writes, parsed).
    pub fn decode(self, v: Cell<'_>) -> Json {
        let mut out = Vec::new();
        self.write(v, &mut out);
        serde_json::from_slice(&out).unwrap_or(Json::Null)
    }
}

fn null(out: &mut Vec<u8>) {
    out.extend_from_slice(b"null");
}

fn boolean(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

fn integer(out: &mut Vec<u8>, i: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
}

fn quoted_integer(out: &mut Vec<u8>, i: i64) {
    out.push(b'"');
    integer(out, i);
    out.push(b'"');
}

/// A JSON string, escaped as serde_json (and JavaScript's `JSON.stringify`) escape it.
pub fn string(out: &mut Vec<u8>, s: &str) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// Any JSON value, as serde_json writes it.
pub fn value(out: &mut Vec<u8>, v: &Json) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, v);
}

/// A datetime as a JSON string, ISO UTC with milliseconds (`Date.prototype.toJSON`).
fn iso_datetime(out: &mut Vec<u8>, ms: i64) {
    out.push(b'"');
    values::write_iso(ms, out);
    out.push(b'"');
}

/// A JSON number; integral values print without a fraction, as in JavaScript, and a
/// value JSON cannot hold (NaN, an infinity) is `null`.
fn number(out: &mut Vec<u8>, f: f64) {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        integer(out, f as i64);
    } else {
        match Number::from_f64(f) {
            Some(n) => value(out, &Json::Number(n)),
            None => null(out),
        }
    }
}

/// A datetime cell as epoch ms: SQLite's integers or ISO text, the server backends'
/// timestamps.
pub(crate) fn epoch_ms(v: Cell<'_>) -> Option<i64> {
    match v {
        Cell::DateTime(ms) | Cell::Int(ms) | Cell::BigInt(ms) => Some(ms),
        Cell::Float(f) => Some(f as i64),
        Cell::Text(t) => values::datetime(t.trim()),
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
            Decode::DateTime.decode(Cell::Int(1_705_314_600_000)),
            Json::String("2024-01-15T10:30:00.000Z".into())
        );
        assert_eq!(
            Decode::BigInt.decode(Cell::Int(9_007_199_254_740_993)),
            Json::String("9007199254740992".into())
        );
        // Past 2^53 JavaScript writes the shortest digits, then zeros.
        assert_eq!(
            Decode::BigInt.decode(Cell::Int(i64::MAX)),
            Json::String("9223372036854776000".into())
        );
        // Within 2^53 a JavaScript number is exact.
        for i in [9_007_199_254_740_992i64, -9_007_199_254_740_991, 0, -42] {
            assert_eq!(
                Decode::BigInt.decode(Cell::Int(i)),
                Json::String(i.to_string())
            );
        }
        assert_eq!(
            Decode::Number.decode(Cell::Float(5120.0)),
            serde_json::json!(5120)
        );
        assert_eq!(
            Decode::Boolean.decode(Cell::Text(r#"true"#.into())),
            Json::Null
        );
        assert_eq!(
            Decode::Json.decode(Cell::Text(r#""hello""#.into())),
            Json::String(r#""hello""#.into())
        );
        assert_eq!(
            Decode::Json.decode(Cell::Text(r#""123""#.into())),
            serde_json::json!(123)
        );
        assert_eq!(
            Decode::Json.decode(Cell::Text(r#"{"a":1}"#.into())),
            serde_json::json!({"a": 1})
        );
        assert_eq!(
            Decode::Timestamp.decode(Cell::Int(42)),
            Json::String("42".into())
        );
    }
}
