//! Value coercion as Strapi does it: JavaScript's `Number()`, lodash-style truthiness for
//! booleans, `YYYY-MM-DD` dates, ISO 8601 or epoch datetimes and `HH:mm:ss.SSS` times.
//! Pure functions over strings; no allocation beyond the result.

/// JavaScript `Number(s)` after trimming, restricted to finite results: decimal literals
/// with exponent, `0x`/`0o`/`0b` integers and a leading sign on decimals. `None` where JS
/// gives `NaN` or an infinity, and for the empty string (Strapi rejects it).
pub fn js_number(s: &str) -> Option<f64> {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if t.is_empty() {
        return None;
    }
    let radix = |p: &str, r: u32| -> Option<f64> {
        if p.is_empty() || !p.chars().all(|c| c.is_digit(r)) {
            return None;
        }
        u128::from_str_radix(p, r).ok().map(|v| v as f64)
    };
    let lower = t.get(..2).map(str::to_ascii_lowercase);
    match lower.as_deref() {
        Some("0x") => return radix(&t[2..], 16),
        Some("0o") => return radix(&t[2..], 8),
        Some("0b") => return radix(&t[2..], 2),
        _ => {}
    }
    // Rust's float grammar is JS's decimal grammar plus `inf`/`nan`/`infinity` words,
    // which we refuse (JS only knows `Infinity`, which is not finite anyway).
    if t.chars()
        .any(|c| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-')))
    {
        return None;
    }
    let v: f64 = t.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Formats a number the way JavaScript's `String(n)` does (ECMAScript's
/// Number::toString): the shortest digits that read back as `v`, padded with zeros up to
/// the decimal point below 1e21 (2^63 is `9223372036854776000`, not its exact value),
/// integers without `.0`, `0` for -0.
pub fn js_number_string(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    // Integers JavaScript holds exactly (and -0, written `0`) print as integers.
    if v == v.trunc() && v.abs() <= 9_007_199_254_740_992.0 {
        return (v as i64).to_string();
    }
    // Past 1e21 and below 1e-6, JavaScript writes an exponent (`1e+21`, `1.5e-7`).
    if v.is_finite() && (v.abs() >= 1e21 || v.abs() < 1e-6) {
        let e = format!("{v:e}");
        return match e.split_once('e') {
            Some((m, x)) if !x.starts_with('-') => format!("{m}e+{x}"),
            _ => e,
        };
    }
    format!("{v}")
}

/// A JSON value as JavaScript writes it back once it has read it:
/// `JSON.stringify(JSON.parse(text))`, what Strapi stores for a JSON or blocks attribute.
/// Numbers are doubles written as [`js_number_string`] writes them (`1.0` is `1`, `1e2`
/// is `100`, `-0.0` is `0`, digits past 2^53 rounded); an object's keys that are array
/// indexes come first in ascending order (JavaScript's property order), then the others
/// in the order given; strings are escaped as `JSON.stringify` escapes them (as
/// serde_json does: quotes, backslashes and control characters).
pub fn js_json_text(v: &serde_json::Value) -> String {
    let mut out = String::new();
    write_js_json(v, &mut out);
    out
}

fn write_js_json(v: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_f64() {
            Some(f) => out.push_str(&js_number_string(f)),
            None => out.push_str(&n.to_string()),
        },
        Value::String(s) => out.push_str(&serde_json::Value::String(s.clone()).to_string()),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_js_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by_key(|(k, _)| array_index(k).map_or((1, 0), |i| (0, i)));
            out.push('{');
            for (i, (k, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::String(k.clone()).to_string());
                out.push(':');
                write_js_json(item, out);
            }
            out.push('}');
        }
    }
}

/// `key` as an array index (JavaScript orders such property names first): the canonical
/// decimal text of an integer below 2^32 - 1.
fn array_index(key: &str) -> Option<u32> {
    if key.is_empty() || (key.len() > 1 && key.starts_with('0')) {
        return None;
    }
    if !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u32>().ok().filter(|i| *i != u32::MAX)
}

/// Strapi's boolean parse with JS truthiness: `true/t/1` → true, `false/f/0` → false,
/// the empty string → false, anything else → true.
pub fn truthy(s: &str) -> bool {
    match s {
        "true" | "t" | "1" => true,
        "false" | "f" | "0" | "" => false,
        _ => true,
    }
}

/// JavaScript's truthiness of a JSON value (`!!value`): `null`, `false`, `0`, `NaN` and
/// `""` are false; every other value, an empty list or object included, is true.
pub fn js_truthy(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// The strict boolean forms only (`true/t/1`, `false/f/0`).
pub fn strict_bool(s: &str) -> Option<bool> {
    match s {
        "true" | "t" | "1" => Some(true),
        "false" | "f" | "0" => Some(false),
        _ => None,
    }
}

/// JavaScript's white space and line terminators (what its `trim` removes).
pub fn is_js_space(c: char) -> bool {
    c == '\u{feff}' || (c.is_whitespace() && c != '\u{85}')
}

/// `BigInt` of an optional sign and decimal digits, written back: the integer's own
/// text (`"-007"` is `-7`, `"+5"` is `5`, `"-0"` is `0`); `None` for anything else.
pub fn big_int_decimal(text: &str) -> Option<String> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = digits.trim_start_matches('0');
    Some(match (negative, digits.is_empty()) {
        (_, true) => "0".to_string(),
        (true, false) => format!("-{digits}"),
        (false, false) => digits.to_string(),
    })
}

/// A biginteger: optional sign and digits.
pub fn big_int(s: &str) -> Option<String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())).then(|| s.to_string())
}

fn two(s: &str, at: usize) -> Option<u32> {
    let b = s.as_bytes();
    let (a, c) = (*b.get(at)?, *b.get(at + 1)?);
    (a.is_ascii_digit() && c.is_ascii_digit())
        .then(|| u32::from(a - b'0') * 10 + u32::from(c - b'0'))
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Parses `YYYY-MM-DD` at the start of `s`; returns (year, month, day).
fn ymd(s: &str) -> Option<(i64, u32, u32)> {
    let b = s.as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' || !b[..4].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let y: i64 = s.get(..4)?.parse().ok()?;
    let (m, d) = (two(s, 5)?, two(s, 8)?);
    ((1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)).then_some((y, m, d))
}

/// A date filter value: must start with a valid `YYYY-MM-DD`; a longer value is cut to the
/// date (as Strapi does, with a deprecation warning).
pub fn date(s: &str) -> Option<String> {
    ymd(s).and_then(|_| s.get(..10).map(str::to_string))
}

/// A time filter value: `HH:mm:ss` with an optional 1–3 digit fraction, normalised to
/// `HH:mm:ss.SSS`.
pub fn time(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let (h, m, sec) = (two(s, 0)?, two(s, 3)?, two(s, 6)?);
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    let frac = match &s[8..] {
        "" => String::from("000"),
        rest => {
            let f = rest.strip_prefix('.')?;
            if f.is_empty() || f.len() > 3 || !f.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            format!("{f:0<3}")
        }
    };
    Some(format!("{h:02}:{m:02}:{sec:02}.{frac}"))
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A datetime filter value as epoch milliseconds: an ISO 8601 date or date-time (with `T` or
/// a space, optional seconds and fraction, and `Z` or a `±HH[:mm]` offset; without an offset
/// it is read as UTC, the time zone strata runs in), else an integer of epoch milliseconds.
pub fn datetime(s: &str) -> Option<i64> {
    iso_datetime(s).or_else(|| {
        let t = s.trim();
        let digits = t.strip_prefix('-').unwrap_or(t);
        if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
            t.parse().ok()
        } else {
            None
        }
    })
}

fn iso_datetime(s: &str) -> Option<i64> {
    let (y, mo, d) = ymd(s)?;
    let days = days_from_civil(y, mo, d);
    let rest = &s[10..];
    if rest.is_empty() {
        return Some(days * 86_400_000);
    }
    let rest = rest.strip_prefix(['T', ' '])?;
    let (h, mi) = (two(rest, 0)?, two(rest, 3)?);
    if rest.as_bytes().get(2) != Some(&b':') {
        return None;
    }
    let mut i = 5;
    let mut sec = 0;
    let mut ms = 0u32;
    if rest.as_bytes().get(i) == Some(&b':') {
        sec = two(rest, i + 1)?;
        i += 3;
        if matches!(rest.as_bytes().get(i), Some(b'.') | Some(b',')) {
            let frac: String = rest[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if frac.is_empty() {
                return None;
            }
            i += 1 + frac.len();
            let padded = format!("{:0<3}", &frac[..frac.len().min(3)]);
            ms = padded.parse().ok()?;
        }
    }
    if h > 24 || mi > 59 || sec > 59 || (h == 24 && (mi, sec, ms) != (0, 0, 0)) {
        return None;
    }
    let offset_min: i64 = match &rest[i..] {
        "" | "Z" | "z" => 0,
        tz => {
            let sign = match tz.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let body = &tz[1..];
            let (oh, om) = match body.len() {
                2 => (two(body, 0)?, 0),
                4 => (two(body, 0)?, two(body, 2)?),
                5 if body.as_bytes()[2] == b':' => (two(body, 0)?, two(body, 3)?),
                _ => return None,
            };
            if oh > 23 || om > 59 {
                return None;
            }
            sign * (i64::from(oh) * 60 + i64::from(om))
        }
    };
    let secs =
        days * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(sec) - offset_min * 60;
    Some(secs * 1000 + i64::from(ms))
}

/// Formats epoch milliseconds as `YYYY-MM-DDTHH:mm:ss.SSSZ` (JavaScript `toISOString`).
pub fn iso_string(ms: i64) -> String {
    let mut out = Vec::with_capacity(24);
    write_iso(ms, &mut out);
    // Only ASCII digits and separators are written.
    String::from_utf8(out).unwrap_or_default()
}

/// Where the separators of the date-time text strata writes for a year of four digits
/// stand, `yyyy-MM-ddTHH:mm:ss.SSSZ` (24 bytes); GraphQL's `DateTime` check reads the same
/// form.
pub const ISO_SEPARATORS: [(usize, u8); 7] = [
    (4, b'-'),
    (7, b'-'),
    (10, b'T'),
    (13, b':'),
    (16, b':'),
    (19, b'.'),
    (23, b'Z'),
];

/// [`iso_string`], appended to `out` (the read path writes every row's timestamps so).
pub fn write_iso(ms: i64, buf: &mut Vec<u8>) {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    // civil_from_days
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let (h, mi, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    if (0..=9999).contains(&y) {
        // The hot path of every row's timestamps: digits written directly (no `format!`).
        let mut out = [0u8; 24];
        let mut put = |at: usize, value: i64, width: usize| {
            let mut v = value;
            for i in (0..width).rev() {
                out[at + i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
        };
        put(0, y, 4);
        put(5, m, 2);
        put(8, d, 2);
        put(11, h, 2);
        put(14, mi, 2);
        put(17, s, 2);
        put(20, milli, 3);
        for (at, c) in ISO_SEPARATORS {
            out[at] = c;
        }
        buf.extend_from_slice(&out);
    } else {
        let sign = if y < 0 { '-' } else { '+' };
        let text = format!(
            "{sign}{:06}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z",
            y.abs()
        );
        buf.extend_from_slice(text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_json_text_is_what_javascript_writes_back() {
        let parsed: serde_json::Value = serde_json::from_str(
            r#"{"b":1.0,"2":1e2,"1":-0.0,"01":1,"c":[1.50,1e21,1e-7,12345678901234567890,0.1],"s":"\u2028x\u0001\"","4294967295":true}"#,
        )
        .unwrap();
        assert_eq!(
            js_json_text(&parsed),
            "{\"1\":0,\"2\":100,\"b\":1,\"01\":1,\"c\":[1.5,1e+21,1e-7,12345678901234567000,0.1],\"s\":\"\u{2028}x\\u0001\\\"\",\"4294967295\":true}"
        );
    }

    #[test]
    fn iso_string_writes_javascripts_to_iso_string() {
        for ms in [
            0i64,
            1_705_314_600_000,
            -1,
            951_782_400_000,
            253_402_300_799_999,
            1_234_567_890_123,
            -62_135_596_800_000,
        ] {
            let days = ms.div_euclid(86_400_000);
            let rem = ms.rem_euclid(86_400_000);
            let (y, m, d) = civil(days);
            let expected = format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
                rem / 3_600_000,
                rem / 60_000 % 60,
                rem / 1000 % 60,
                rem % 1000
            );
            assert_eq!(iso_string(ms), expected, "{ms}");
        }
        assert_eq!(iso_string(1_705_314_600_000), "2024-01-15T10:30:00.000Z");
    }

    /// Days since 1970 → (year, month, day), by counting (the slow, obvious way).
    fn civil(mut days: i64) -> (i64, i64, i64) {
        let mut y = 1970;
        let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        loop {
            let len = if leap(y) { 366 } else { 365 };
            if days < 0 {
                y -= 1;
                days += if leap(y) { 366 } else { 365 };
            } else if days >= len {
                days -= len;
                y += 1;
            } else {
                break;
            }
        }
        let mut m = 1;
        loop {
            let len = match m {
                1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
                4 | 6 | 9 | 11 => 30,
                _ if leap(y) => 29,
                _ => 28,
            };
            if days < len {
                return (y, m, days + 1);
            }
            days -= len;
            m += 1;
        }
    }

    #[test]
    fn numbers_follow_javascript() {
        assert_eq!(js_number("1e3"), Some(1000.0));
        assert_eq!(js_number(" 5.0 "), Some(5.0));
        assert_eq!(js_number("0x10"), Some(16.0));
        assert_eq!(js_number("-5"), Some(-5.0));
        assert_eq!(js_number(".5"), Some(0.5));
        assert_eq!(js_number("abc"), None);
        assert_eq!(js_number(""), None);
        assert_eq!(js_number("inf"), None);
        assert_eq!(js_number("1e999"), None);
        assert_eq!(js_number_string(1.4), "1.4");
        assert_eq!(js_number_string((1.7 - 1.0) * 2.0), "1.4");
        assert_eq!(js_number_string(25.0), "25");
        // JavaScript writes an exponent past 1e21 and below 1e-6.
        assert_eq!(js_number_string(1e21), "1e+21");
        assert_eq!(js_number_string(-1.2345e25), "-1.2345e+25");
        assert_eq!(js_number_string(1.5e-7), "1.5e-7");
        assert_eq!(js_number_string(0.000001), "0.000001");
        // Past 2^53 the shortest digits, then zeros (Strapi's biginteger on SQLite).
        assert_eq!(js_number_string(i64::MAX as f64), "9223372036854776000");
        assert_eq!(js_number_string(-(2f64.powi(63))), "-9223372036854776000");
        assert_eq!(
            js_number_string(9_007_199_254_740_993i64 as f64),
            "9007199254740992"
        );
        assert_eq!(
            js_number_string(1.2345678901234568e20),
            "123456789012345680000"
        );
        assert_eq!(js_number_string(-0.0), "0");
        assert_eq!(js_number_string(f64::INFINITY), "Infinity");
        assert_eq!(js_number_string(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn dates_times_and_datetimes() {
        assert_eq!(date("2024-01-15"), Some("2024-01-15".into()));
        assert_eq!(date("2024-01-15T10:00:00Z"), Some("2024-01-15".into()));
        assert_eq!(date("2024-13-45"), None);
        assert_eq!(date("2023-02-29"), None);
        assert_eq!(time("10:30:00"), Some("10:30:00.000".into()));
        assert_eq!(time("10:30:00.5"), Some("10:30:00.500".into()));
        assert_eq!(time("10:30"), None);
        assert_eq!(time("25:99:00"), None);
        assert_eq!(datetime("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(
            datetime("2024-01-15T10:30:00.000Z"),
            Some(1_705_314_600_000)
        );
        assert_eq!(datetime("2024-01-15"), Some(1_705_276_800_000));
        assert_eq!(datetime("1705314600000"), Some(1_705_314_600_000));
        assert_eq!(datetime("notadate"), None);
        assert_eq!(iso_string(1_705_314_600_000), "2024-01-15T10:30:00.000Z");
        assert_eq!(iso_string(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn booleans() {
        assert!(truthy("yes"));
        assert!(!truthy(""));
        assert!(!truthy("f"));
        assert_eq!(strict_bool("t"), Some(true));
        assert_eq!(strict_bool("yes"), None);
    }
}
