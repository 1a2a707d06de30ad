//! The input rules of the GraphQL plugin's own scalars: `Date` and `DateTime` (graphql-scalars'
//! `GraphQLDate` and `GraphQLDateTime`) and `Time` (the plugin's `TimeScalar`, which parses
//! with `@strapi/utils`' `parseType`). What their `parseLiteral` refuses fails validation
//! (graphql-js's `ValuesOfCorrectTypeRule`), what their `parseValue` refuses fails a
//! variable's coercion; async-graphql takes any value for a custom scalar, so strata checks
//! both here ([`super::literals`], [`super::graphql_js::variable_errors`]).

use serde_json::Value;

/// Why a scalar refused a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A `GraphQLError` (graphql-scalars): graphql-js reports its message as it is.
    AsIs(String),
    /// A plain error (the plugin's `Time`): graphql-js puts its own words before it
    /// (`Expected value of type "Time", found 5; …`, `Expected type "Time". …`).
    Wrapped(String),
}

/// A literal as `parseLiteral` sees it.
pub enum Literal<'a> {
    /// A string literal's value.
    String(&'a str),
    /// Any other literal, by what `'value' in ast && ast.value` prints: an integer's, a
    /// float's, an enum value's or a boolean's text, `false` for a list or an object.
    Other(&'a str),
}

const TIME_FORMAT: &str = "Invalid time format, expected HH:mm:ss.SSS";

/// What scalar `name`'s `parseLiteral` says of `literal`; `None` when it takes it (or
/// when `name` is none of these scalars).
pub fn literal_refusal(name: &str, literal: &Literal<'_>) -> Option<Refusal> {
    match (name, literal) {
        ("Date", Literal::Other(v)) => Some(Refusal::AsIs(format!(
            "Date cannot represent non string type {v}"
        ))),
        ("DateTime", Literal::Other(v)) => Some(Refusal::AsIs(format!(
            "DateTime cannot represent non string or Date type {v}"
        ))),
        ("Time", Literal::Other(_)) => Some(Refusal::Wrapped(
            "Time cannot represent non string type".into(),
        )),
        (_, Literal::String(s)) => string_refusal(name, s),
        _ => None,
    }
}

/// What scalar `name`'s `parseValue` says of a variable's `value` (not null); `None`
/// when it takes it (or when `name` is none of these scalars).
pub fn value_refusal(name: &str, value: &Value) -> Option<Refusal> {
    match (name, value) {
        ("Date" | "DateTime" | "Time", Value::String(s)) => string_refusal(name, s),
        ("Date", other) => Some(Refusal::AsIs(format!(
            "Date cannot represent non string type {other}"
        ))),
        ("DateTime", other) => Some(Refusal::AsIs(format!(
            "DateTime cannot represent non string or Date type {other}"
        ))),
        ("Time", other) => Some(Refusal::Wrapped(format!(
            "Expected a string, got a {}",
            js_typeof(other)
        ))),
        _ => None,
    }
}

/// A string given to one of the scalars: refused unless it has the scalar's format.
fn string_refusal(name: &str, s: &str) -> Option<Refusal> {
    match name {
        "Date" if !is_rfc3339_date(s) => Some(Refusal::AsIs(format!(
            "Date cannot represent an invalid date-string {s}."
        ))),
        "DateTime" if !is_rfc3339_date_time(s) => Some(Refusal::AsIs(format!(
            "DateTime cannot represent an invalid date-time-string {s}."
        ))),
        "Time" if !is_strapi_time(s) => Some(Refusal::Wrapped(TIME_FORMAT.into())),
        _ => None,
    }
}

/// JavaScript's `typeof` of a JSON value that is not a string.
fn js_typeof(v: &Value) -> &'static str {
    match v {
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::String(_) => "string",
        Value::Null | Value::Array(_) | Value::Object(_) => "object",
    }
}

/// graphql-scalars' `validateDate`: `yyyy-MM-dd`, a month's real days (leap years too).
fn is_rfc3339_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(&s[..4]), digits(&s[5..7]), digits(&s[8..]))
    else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// graphql-scalars' `validateDateTime` (on the upper-cased text): a date, `T`, a time of
/// `HH:mm:ss`, optional decimals, and `Z` or an offset `±HH:mm` (hours up to 23).
fn is_rfc3339_date_time(s: &str) -> bool {
    let upper = s.to_ascii_uppercase();
    let Some((date, time)) = upper.split_once('T') else {
        return false;
    };
    if !is_rfc3339_date(date) || time.len() < 8 || !time.is_char_boundary(8) {
        return false;
    }
    let (clock, rest) = time.split_at(8);
    if !is_clock(clock) {
        return false;
    }
    let zone = match rest.strip_prefix('.') {
        Some(r) => {
            let decimals = r.bytes().take_while(u8::is_ascii_digit).count();
            if decimals == 0 {
                return false;
            }
            &r[decimals..]
        }
        None => rest,
    };
    match zone.as_bytes() {
        [b'Z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit())
                && (*h1, *h2) <= (b'2', b'3')
                && *m1 <= b'5'
        }
        _ => false,
    }
}

/// `HH:mm:ss` with hours up to 23, minutes and seconds up to 59.
fn is_clock(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 8
        && b[2] == b':'
        && b[5] == b':'
        && digits(&s[..2]).is_some_and(|h| h <= 23)
        && digits(&s[3..5]).is_some_and(|m| m <= 59)
        && digits(&s[6..]).is_some_and(|x| x <= 59)
}

/// `parseType`'s time: `HH:mm:ss` and at most three decimals.
fn is_strapi_time(s: &str) -> bool {
    if s.len() < 8 || !s.is_char_boundary(8) {
        return false;
    }
    let (clock, rest) = s.split_at(8);
    is_clock(clock)
        && match rest.strip_prefix('.') {
            None => rest.is_empty(),
            Some(d) => (1..=3).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit()),
        }
}

/// The number written by `s`, when `s` is ASCII digits only.
fn digits(s: &str) -> Option<u32> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_real_days() {
        assert!(is_rfc3339_date("2024-02-29"));
        assert!(!is_rfc3339_date("2023-02-29"));
        assert!(!is_rfc3339_date("2024-13-01"));
        assert!(!is_rfc3339_date("2024-1-02"));
        assert!(!is_rfc3339_date("2024-04-31"));
    }

    #[test]
    fn date_times_need_a_zone() {
        assert!(is_rfc3339_date_time("2024-01-02T03:04:05Z"));
        assert!(is_rfc3339_date_time("2024-01-02t03:04:05.123456z"));
        assert!(is_rfc3339_date_time("2024-01-02T03:04:05+23:30"));
        assert!(!is_rfc3339_date_time("2024-01-02"));
        assert!(!is_rfc3339_date_time("2024-01-02T03:04:05"));
        assert!(!is_rfc3339_date_time("2024-01-02T03:04:60Z"));
        assert!(!is_rfc3339_date_time("2024-01-02T03:04:05+24:00"));
        assert!(!is_rfc3339_date_time("2024-01-02T03:04:05.Z"));
    }

    #[test]
    fn times_take_three_decimals() {
        assert!(is_strapi_time("10:11:12"));
        assert!(is_strapi_time("10:11:12.5"));
        assert!(!is_strapi_time("10:11:12.5555"));
        assert!(!is_strapi_time("10:11"));
        assert!(!is_strapi_time("25:00:00"));
    }

    #[test]
    fn messages_are_the_scalars() {
        assert_eq!(
            literal_refusal("Date", &Literal::String("2024-13-01")),
            Some(Refusal::AsIs(
                "Date cannot represent an invalid date-string 2024-13-01.".into()
            ))
        );
        assert_eq!(
            value_refusal("Time", &serde_json::json!(5)),
            Some(Refusal::Wrapped("Expected a string, got a number".into()))
        );
        assert_eq!(literal_refusal("JSON", &Literal::Other("5")), None);
    }
}
