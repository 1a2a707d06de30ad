//! The input rules of the GraphQL plugin's own scalars: `Date`, `DateTime` and `Long`
//! (graphql-scalars' `GraphQLDate`, `GraphQLDateTime` and `GraphQLLong`, its `BigInt`) and
//! `Time` (the plugin's `TimeScalar`, which parses with `@strapi/utils`' `parseType`), and
//! i18n's `I18NLocaleCode` (a literal must be `*` or one of the locale codes i18n knows,
//! `iso_locales.txt`; a variable is taken as it is). What their `parseLiteral` refuses
//! fails validation (graphql-js's `ValuesOfCorrectTypeRule`), what their `parseValue`
//! refuses fails a variable's coercion; async-graphql takes any value for a custom scalar,
//! so strata checks both here ([`super::literals`], [`super::graphql_js::variable_errors`]).

use serde_json::Value;

/// Why a scalar refused a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A `GraphQLError` (graphql-scalars): graphql-js reports its message as it is.
    AsIs(String),
    /// A `GraphQLError` made without the literal's node (`BigInt cannot represent value`):
    /// reported as it is, without a location.
    Bare(String),
    /// A plain error (the plugin's `Time`): graphql-js puts its own words before it
    /// (`Expected value of type "Time", found 5; …`, `Expected type "Time". …`).
    Wrapped(String),
}

/// A literal as `parseLiteral` sees it.
pub enum Literal<'a> {
    /// A string literal's value.
    String(&'a str),
    /// Any other literal but a list or an object: an integer's, a float's, an enum
    /// value's or a boolean's text.
    Other(&'a str),
    /// A list or an object, by its text (it has no `value`).
    Composite(&'a str),
}

const TIME_FORMAT: &str = "Invalid time format, expected HH:mm:ss.SSS";

/// What scalar `name`'s `parseLiteral` says of `literal`; `None` when it takes it (or
/// when `name` is none of these scalars).
pub fn literal_refusal(name: &str, literal: &Literal<'_>) -> Option<Refusal> {
    // `'value' in ast && ast.value`: a list or an object has no value.
    let literal = match literal {
        Literal::Composite(raw) if name == "Long" => {
            return Some(Refusal::AsIs(format!(
                "BigInt cannot represent non-integer value: {raw}"
            )));
        }
        Literal::Composite(_) => &Literal::Other("false"),
        other => other,
    };
    match (name, literal) {
        // A boolean literal is `BigInt(true)`, 1n, whose text is not `true`.
        ("Long", Literal::Other(b @ ("true" | "false"))) => {
            Some(Refusal::Bare(format!("BigInt cannot represent value: {b}")))
        }
        ("Long", Literal::String(v) | Literal::Other(v)) => long_refusal(v),
        ("I18NLocaleCode", Literal::String(code)) => (*code != "*" && !is_iso_locale(code))
            .then(|| Refusal::Wrapped("Unknown locale supplied".into())),
        ("I18NLocaleCode", _) => Some(Refusal::Wrapped(
            "Locale cannot represent non string type".into(),
        )),
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
        ("Long", other) => long_refusal(&js_to_string(other)),
        _ => None,
    }
}

/// Whether i18n knows the locale `code` (its `iso-locales` list).
fn is_iso_locale(code: &str) -> bool {
    static CODES: std::sync::LazyLock<std::collections::HashSet<&'static str>> =
        std::sync::LazyLock::new(|| {
            include_str!("iso_locales.txt")
                .lines()
                .filter(|line| !line.starts_with('#'))
                .collect()
        });
    CODES.contains(code)
}

/// What `GraphQLBigInt` says of a value whose `toString()` is `text`: JavaScript's
/// `BigInt(text)` throws a `SyntaxError` for what is no integer (a plain error, so
/// graphql-js wraps it), and a value whose text is not the integer's own (`"007"`,
/// `"0x1F"`, `true`, `-0`) is refused with the scalar's `GraphQLError`.
fn long_refusal(text: &str) -> Option<Refusal> {
    match js_big_int(text) {
        None => Some(Refusal::Wrapped(format!(
            "Cannot convert {text} to a BigInt"
        ))),
        Some(canonical) if canonical != text => Some(Refusal::Bare(format!(
            "BigInt cannot represent value: {text}"
        ))),
        Some(_) => None,
    }
}

/// The decimal text of the integer `GraphQLBigInt`'s `parseValue` makes of a variable's
/// `value` (`BigInt(String(value))`), or `None` where it refuses it.
pub fn big_int_text(value: &Value) -> Option<String> {
    let text = js_to_string(value);
    js_big_int(&text).filter(|canonical| *canonical == text)
}

/// JavaScript's `BigInt(string)` (`StringToBigInt`): surrounding white space ignored, an
/// empty string 0, a signed decimal integer, or an unsigned `0x`/`0o`/`0b` one. Gives the
/// integer's decimal text, or `None` where JavaScript throws. A non-decimal integer's text
/// is never its own, so its value is not worked out (`"0x…"` stands for it).
fn js_big_int(text: &str) -> Option<String> {
    let t = text.trim_matches(crate::query::values::is_js_space);
    if t.is_empty() {
        return Some("0".into());
    }
    let radix = match t.get(..2).map(str::to_ascii_lowercase).as_deref() {
        Some("0x") => Some(16),
        Some("0o") => Some(8),
        Some("0b") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        let digits = &t[2..];
        let valid = !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix));
        return valid.then(|| "0x…".into());
    }
    crate::query::values::big_int_decimal(t)
}

/// JavaScript's `String(value)` of a variable's JSON value (not null): a number as
/// JavaScript prints it (an integral one without a fraction, up to 1e21), a list its
/// items joined by commas, an object `[object Object]`.
fn js_to_string(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            _ if n.is_i64() || n.is_u64() => n.to_string(),
            Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
            _ => n.to_string(),
        },
        Value::Array(items) => items.iter().map(js_to_string).collect::<Vec<_>>().join(","),
        Value::Object(_) => "[object Object]".into(),
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
    is_day_of(year, month, day)
}

/// Whether `day` is a day of `month` (1 to 12) in `year`, leap years counted.
fn is_day_of(year: u32, month: u32, day: u32) -> bool {
    let leap = (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// Whether `b` is a date-time of the form every date-time strata writes,
/// `yyyy-MM-ddTHH:mm:ss.SSSZ` (24 bytes), read byte by byte: the fast path of plain reads
/// checks each `DateTime` it writes, and any other form takes the general check.
fn is_canonical_date_time(b: &[u8]) -> bool {
    let two = |i: usize| {
        let (high, low) = (b[i].wrapping_sub(b'0'), b[i + 1].wrapping_sub(b'0'));
        (high < 10 && low < 10).then(|| u32::from(high) * 10 + u32::from(low))
    };
    let separators = crate::query::values::ISO_SEPARATORS;
    if b.len() != 24 || separators.iter().any(|&(i, c)| b[i] != c) {
        return false;
    }
    let fraction = b[20..23].iter().all(u8::is_ascii_digit);
    match (two(0), two(2), two(5), two(8), two(11), two(14), two(17)) {
        (Some(century), Some(y), Some(month), Some(day), Some(h), Some(m), Some(sec)) => {
            fraction && h <= 23 && m <= 59 && sec <= 59 && is_day_of(century * 100 + y, month, day)
        }
        _ => false,
    }
}

/// graphql-scalars' `validateDateTime` (which reads the upper-cased text): a date, `T`, a
/// time of `HH:mm:ss`, optional decimals, and `Z` or an offset `±HH:mm` (hours up to 23).
pub(crate) fn is_rfc3339_date_time(s: &str) -> bool {
    if is_canonical_date_time(s.as_bytes()) {
        return true;
    }
    let Some(at) = s.bytes().position(|b| b == b'T' || b == b't') else {
        return false;
    };
    let (date, time) = (&s[..at], &s[at + 1..]);
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
        [b'Z' | b'z'] => true,
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
    if s.is_empty() {
        return None;
    }
    s.bytes().try_fold(0u32, |n, b| {
        let digit = b.is_ascii_digit().then(|| u32::from(b - b'0'))?;
        n.checked_mul(10)?.checked_add(digit)
    })
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
    fn the_canonical_form_is_checked_as_any_other() {
        for valid in ["2024-02-29T13:45:30.123Z", "1970-01-01T00:00:00.000Z"] {
            assert!(is_canonical_date_time(valid.as_bytes()));
            assert!(is_rfc3339_date_time(valid));
        }
        for invalid in [
            "2023-02-29T13:45:30.123Z",
            "2024-13-01T00:00:00.000Z",
            "2024-01-01T24:00:00.000Z",
            "2024-01-01T00:60:00.000Z",
            "2024-01-01T00:00:00.0x0Z",
            "2024-01-01 00:00:00.000Z",
            "1709251200000",
        ] {
            assert!(!is_canonical_date_time(invalid.as_bytes()), "{invalid}");
            assert!(!is_rfc3339_date_time(invalid), "{invalid}");
        }
        // Another form of 24 bytes takes the general check.
        assert!(!is_canonical_date_time(b"2024-01-01t00:00:00.000Z"));
        assert!(is_rfc3339_date_time("2024-01-01t00:00:00.000Z"));
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

    #[test]
    fn a_locale_literal_is_a_code_i18n_knows() {
        let refused = |literal| literal_refusal("I18NLocaleCode", &literal);
        assert_eq!(refused(Literal::String("fr")), None);
        assert_eq!(refused(Literal::String("pt-BR")), None);
        assert_eq!(refused(Literal::String("*")), None);
        assert_eq!(
            refused(Literal::String("all")),
            Some(Refusal::Wrapped("Unknown locale supplied".into()))
        );
        assert_eq!(
            refused(Literal::Other("fr")),
            Some(Refusal::Wrapped(
                "Locale cannot represent non string type".into()
            ))
        );
    }

    #[test]
    fn longs_are_big_int_texts() {
        let refused = |literal| literal_refusal("Long", &literal);
        assert_eq!(refused(Literal::Other("7")), None);
        assert_eq!(refused(Literal::String("-12")), None);
        assert_eq!(
            refused(Literal::String("x")),
            Some(Refusal::Wrapped("Cannot convert x to a BigInt".into()))
        );
        assert_eq!(
            refused(Literal::Other("1.5")),
            Some(Refusal::Wrapped("Cannot convert 1.5 to a BigInt".into()))
        );
        assert_eq!(
            refused(Literal::Other("true")),
            Some(Refusal::Bare("BigInt cannot represent value: true".into()))
        );
        assert_eq!(
            refused(Literal::String("true")),
            Some(Refusal::Wrapped("Cannot convert true to a BigInt".into()))
        );
        for own_text_differs in ["007", " 7", "+7", "0x1F", "", "-0"] {
            assert_eq!(
                refused(Literal::String(own_text_differs)),
                Some(Refusal::Bare(format!(
                    "BigInt cannot represent value: {own_text_differs}"
                ))),
                "{own_text_differs:?}"
            );
        }
        assert_eq!(
            refused(Literal::Composite("[1]")),
            Some(Refusal::AsIs(
                "BigInt cannot represent non-integer value: [1]".into()
            ))
        );
        assert_eq!(value_refusal("Long", &serde_json::json!(7.0)), None);
        assert_eq!(
            value_refusal("Long", &serde_json::json!({"a": 1})),
            Some(Refusal::Wrapped(
                "Cannot convert [object Object] to a BigInt".into()
            ))
        );
    }
}
