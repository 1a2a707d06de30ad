//! Scalar values of a dataset → the values Strapi stores on SQLite: datetimes as epoch
//! milliseconds, booleans as 0/1, dates as `YYYY-MM-DD`, times as `HH:mm:ss.SSS`, JSON and
//! blocks as JSON text, bigintegers as integers, passwords as bcrypt hashes.

use serde_json::Value;

use crate::store::seam::StoredValue;

use crate::schema::{Attribute, ScalarType};

/// The JSON type name of a value, for messages.
pub(crate) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Appends an object key to a JSON path (`$.a.b`, or `$.a["x y"]` when needed).
pub(crate) fn path_key(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$');
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_string()))
    }
}

/// Appends an array index to a JSON path.
pub(crate) fn path_index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => 0,
    }
}

fn digits(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses `YYYY-MM-DD` into (year, month, day).
pub(crate) fn parse_date(s: &str) -> Option<(i64, i64, i64)> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (digits(&s[0..4])?, digits(&s[5..7])?, digits(&s[8..10])?);
    ((1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)).then_some((y, m, d))
}

/// Parses `HH:mm`, `HH:mm:ss` or `HH:mm:ss.SSS…` into milliseconds since midnight.
pub(crate) fn parse_time(s: &str) -> Option<i64> {
    let (hms, frac) = match s.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let parts: Vec<&str> = hms.split(':').collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.len() != 2) {
        return None;
    }
    let h = digits(parts[0])?;
    let m = digits(parts[1])?;
    let sec = match parts.get(2) {
        Some(p) => digits(p)?,
        None => 0,
    };
    if h > 23 || m > 59 || sec > 59 || (frac.is_some() && parts.len() < 3) {
        return None;
    }
    let ms = match frac {
        None => 0,
        Some(f) => {
            if f.is_empty() || f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let padded = format!("{f:0<3}");
            digits(&padded[..3])?
        }
    };
    Some(((h * 60 + m) * 60 + sec) * 1000 + ms)
}

/// Formats milliseconds since midnight as `HH:mm:ss.SSS`.
fn format_time(ms: i64) -> String {
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// Parses an ISO 8601 date-time (`2024-01-15T10:30:00.000Z`, an offset like `+02:00`, or no
/// zone, read as UTC; a bare date is midnight UTC) into epoch milliseconds.
pub(crate) fn parse_datetime(s: &str) -> Option<i64> {
    if s.len() < 10 {
        return None;
    }
    let (y, mo, d) = parse_date(s.get(..10)?)?;
    let days = days_from_civil(y, mo, d);
    let rest = &s[10..];
    if rest.is_empty() {
        return Some(days * 86_400_000);
    }
    let rest = rest.strip_prefix('T').or_else(|| rest.strip_prefix(' '))?;
    let (time, offset_ms) =
        if let Some(t) = rest.strip_suffix('Z').or_else(|| rest.strip_suffix('z')) {
            (t, 0)
        } else if let Some(pos) = rest.rfind(['+', '-']) {
            let (t, off) = rest.split_at(pos);
            let sign = if off.starts_with('-') { -1 } else { 1 };
            let off = &off[1..];
            let (oh, om) = match off.split_once(':') {
                Some((h, m)) => (h, m),
                None if off.len() == 4 => (&off[..2], &off[2..]),
                None if off.len() == 2 => (off, "00"),
                None => return None,
            };
            let (oh, om) = (digits(oh)?, digits(om)?);
            if oh > 23 || om > 59 {
                return None;
            }
            (t, sign * (oh * 60 + om) * 60_000)
        } else {
            (rest, 0)
        };
    let ms = parse_time(time)?;
    Some(days * 86_400_000 + ms - offset_ms)
}

/// What is wrong with a value (the caller adds the document and path).
pub(crate) type Invalid = String;

/// Converts a JSON value for a scalar attribute into the value Strapi stores.
/// `hash` turns a password into its stored form.
pub(crate) fn encode_scalar(
    attr: &Attribute,
    ty: &ScalarType,
    v: &Value,
    hash: &mut dyn FnMut(&str) -> Result<String, Invalid>,
) -> Result<StoredValue, Invalid> {
    if v.is_null() {
        return Ok(StoredValue::Null);
    }
    let want = |what: &str| format!("expected {what}, got {}", json_type(v));
    let c = &attr.constraints;
    let check_len = |s: &str| -> Result<(), Invalid> {
        let n = s.chars().count() as u64;
        if let Some(min) = c.min_length
            && n < min
        {
            return Err(format!(
                "is {n} characters long, shorter than minLength {min}"
            ));
        }
        if let Some(max) = c.max_length
            && n > max
        {
            return Err(format!(
                "is {n} characters long, longer than maxLength {max}"
            ));
        }
        Ok(())
    };
    let check_range = |x: f64| -> Result<(), Invalid> {
        if let Some(min) = c.min.as_ref().and_then(serde_json::Number::as_f64)
            && x < min
        {
            return Err(format!("{x} is below the minimum {min}"));
        }
        if let Some(max) = c.max.as_ref().and_then(serde_json::Number::as_f64)
            && x > max
        {
            return Err(format!("{x} is above the maximum {max}"));
        }
        Ok(())
    };
    match ty {
        ScalarType::String | ScalarType::Text | ScalarType::RichText => {
            let s = v.as_str().ok_or_else(|| want("a string"))?;
            check_len(s)?;
            Ok(StoredValue::Text(s.to_string()))
        }
        ScalarType::Email => {
            let s = v
                .as_str()
                .ok_or_else(|| want("an email address (a string)"))?;
            check_len(s)?;
            let ok = s
                .split_once('@')
                .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty() && !b.contains('@'));
            if !ok {
                return Err(format!("`{s}` is not an email address"));
            }
            Ok(StoredValue::Text(s.to_string()))
        }
        ScalarType::Password => {
            let s = v.as_str().ok_or_else(|| want("a string"))?;
            if is_bcrypt(s) {
                return Ok(StoredValue::Text(s.to_string()));
            }
            check_len(s)?;
            Ok(StoredValue::Text(hash(s)?))
        }
        ScalarType::Uid { .. } => {
            let s = v.as_str().ok_or_else(|| want("a string"))?;
            check_len(s)?;
            if !s
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.~".contains(c))
            {
                return Err(format!(
                    "`{s}` is not a valid uid (only letters, digits and - _ . ~)"
                ));
            }
            Ok(StoredValue::Text(s.to_string()))
        }
        ScalarType::Enumeration { values } => {
            let s = v.as_str().ok_or_else(|| want("a string"))?;
            if !values.iter().any(|x| x == s) {
                return Err(format!(
                    "`{s}` is not one of the allowed values ({})",
                    values.join(", ")
                ));
            }
            Ok(StoredValue::Text(s.to_string()))
        }
        ScalarType::Integer => {
            let n = v.as_i64().ok_or_else(|| want("an integer"))?;
            if i32::try_from(n).is_err() {
                return Err(format!("{n} does not fit a 32-bit integer"));
            }
            check_range(n as f64)?;
            Ok(StoredValue::Integer(n))
        }
        ScalarType::BigInteger => {
            let n = match v {
                Value::Number(n) => n.as_i64(),
                Value::String(s) => {
                    let t = s.strip_prefix('-').unwrap_or(s);
                    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                        None
                    } else {
                        s.parse::<i64>().ok()
                    }
                }
                _ => None,
            }
            .ok_or_else(|| {
                format!(
                    "expected a 64-bit integer (a string of digits or an integer), got {}",
                    match v {
                        Value::String(s) => format!("`{s}`"),
                        other => json_type(other).to_string(),
                    }
                )
            })?;
            check_range(n as f64)?;
            Ok(StoredValue::Integer(n))
        }
        ScalarType::Float | ScalarType::Decimal => {
            let x = v.as_f64().ok_or_else(|| want("a number"))?;
            check_range(x)?;
            Ok(StoredValue::Real(x))
        }
        ScalarType::Boolean => Ok(StoredValue::Integer(i64::from(
            v.as_bool().ok_or_else(|| want("true or false"))?,
        ))),
        ScalarType::Date => {
            let s = v.as_str().ok_or_else(|| want("a date (YYYY-MM-DD)"))?;
            parse_date(s).ok_or_else(|| format!("`{s}` is not a date (YYYY-MM-DD)"))?;
            Ok(StoredValue::Text(s.to_string()))
        }
        ScalarType::Time => {
            let s = v.as_str().ok_or_else(|| want("a time (HH:mm:ss.SSS)"))?;
            let ms = parse_time(s).ok_or_else(|| format!("`{s}` is not a time (HH:mm:ss.SSS)"))?;
            Ok(StoredValue::Text(format_time(ms)))
        }
        ScalarType::DateTime => {
            let s = v.as_str().ok_or_else(|| want("an ISO 8601 date-time"))?;
            Ok(StoredValue::Timestamp(parse_datetime(s).ok_or_else(
                || format!("`{s}` is not an ISO 8601 date-time (2024-01-15T10:30:00.000Z)"),
            )?))
        }
        ScalarType::Timestamp => match v {
            Value::Number(n) => {
                Ok(StoredValue::Timestamp(n.as_i64().ok_or_else(|| {
                    "expected epoch milliseconds (an integer)".to_string()
                })?))
            }
            Value::String(s) => Ok(StoredValue::Timestamp(
                s.parse::<i64>()
                    .ok()
                    .or_else(|| parse_datetime(s))
                    .ok_or_else(|| {
                        format!("`{s}` is neither an ISO 8601 date-time nor epoch milliseconds")
                    })?,
            )),
            _ => Err(want("a date-time")),
        },
        ScalarType::Json => Ok(StoredValue::Text(v.to_string())),
        ScalarType::Blocks => {
            if !v.is_array() {
                return Err(want("an array of blocks"));
            }
            Ok(StoredValue::Text(v.to_string()))
        }
    }
}

/// Whether a string is already a bcrypt hash (kept as is, e.g. from an export).
pub(crate) fn is_bcrypt(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 60
        && (s.starts_with("$2a$") || s.starts_with("$2b$") || s.starts_with("$2y$"))
        && b[6] == b'$'
}

/// A timestamp value (`createdAt`, …): ISO 8601 or epoch milliseconds.
pub(crate) fn parse_timestamp(v: &Value) -> Result<i64, Invalid> {
    match v {
        Value::String(s) => parse_datetime(s).ok_or_else(|| {
            format!("`{s}` is not an ISO 8601 date-time (2024-01-15T10:30:00.000Z)")
        }),
        Value::Number(n) => n
            .as_i64()
            .ok_or_else(|| "expected epoch milliseconds (an integer)".to_string()),
        other => Err(format!(
            "expected an ISO 8601 date-time, got {}",
            json_type(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn datetimes_match_strapi_epoch_ms() {
        assert_eq!(
            parse_datetime("2024-01-15T10:30:00.000Z"),
            Some(1_705_314_600_000)
        );
        assert_eq!(parse_datetime("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            parse_datetime("9999-12-31T23:59:59.999Z"),
            Some(253_402_300_799_999)
        );
        assert_eq!(
            parse_datetime("1899-12-31T23:59:59.000Z"),
            Some(-2_208_988_801_000)
        );
        assert_eq!(
            parse_datetime("2024-01-15T12:30:00+02:00"),
            Some(1_705_314_600_000)
        );
        assert_eq!(parse_datetime("2024-01-15"), Some(1_705_276_800_000));
        assert_eq!(parse_datetime("2024-02-30T00:00:00Z"), None);
        assert_eq!(parse_datetime("yesterday"), None);
    }

    #[test]
    fn times_are_padded() {
        assert_eq!(
            parse_time("10:30").map(format_time).as_deref(),
            Some("10:30:00.000")
        );
        assert_eq!(
            parse_time("23:59:59.9").map(format_time).as_deref(),
            Some("23:59:59.900")
        );
        assert_eq!(parse_time("24:00:00"), None);
    }

    #[test]
    fn paths_quote_odd_keys() {
        assert_eq!(path_key("$", "title"), "$.title");
        assert_eq!(path_key("$", "a b"), "$[\"a b\"]");
        assert_eq!(path_index("$.x", 2), "$.x[2]");
    }
}
