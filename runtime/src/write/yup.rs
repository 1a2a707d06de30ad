//! yup's ways with values, as Strapi's validators meet them: the path text of an error
//! (`seo.social[0].network`), `printValue` (how a value appears in a message), and the
//! casts of `number()` (text, lists through `parseFloat`). `input.rs` and `blocks.rs`
//! both use them.

use serde_json::Value;

use super::error::FieldError;
use crate::query::values::{big_int_decimal, is_js_space, js_number_string};
use crate::schema::ScalarType;

/// What yup's cast made of a value before its type check failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cast {
    /// The value as given.
    Kept,
    /// Cast to null (a list's item that is not an object, a list that is not one).
    Null,
    /// Cast to `NaN` (a number that is not one).
    NaN,
}

/// yup's type error: ``<path> must be a `<ty>` type, but the final value was: `…`.``,
/// with ``(cast from the value `…`)`` when the cast changed the value. The error's value
/// is the final one (null for `NaN`, which JSON lacks).
pub fn type_error(path: &[String], ty: &str, original: &Value, cast: Cast) -> FieldError {
    let final_text = match cast {
        Cast::Kept => print_value(original, true),
        Cast::Null => "null".into(),
        Cast::NaN => "NaN".into(),
    };
    let mut message = format!(
        "{} must be a `{ty}` type, but the final value was: `{final_text}`",
        dotted(path)
    );
    match cast {
        Cast::Kept => message.push('.'),
        Cast::Null | Cast::NaN => message.push_str(&format!(
            " (cast from the value `{}`).",
            print_value(original, true)
        )),
    }
    FieldError {
        path: path.to_vec(),
        message,
        value: Some(match cast {
            Cast::Kept => original.clone(),
            Cast::Null | Cast::NaN => Value::Null,
        }),
    }
}

/// yup's path text: `seo.social[0].network`.
pub fn dotted(path: &[String]) -> String {
    let mut out = String::new();
    for p in path {
        if p.bytes().all(|b| b.is_ascii_digit()) && !out.is_empty() {
            out.push_str(&format!("[{p}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(p);
        }
    }
    out
}

/// yup's `printValue`: how a value appears in a message.
pub fn print_value(v: &Value, quote_strings: bool) -> String {
    match print_simple(v, quote_strings) {
        Some(s) => s,
        None => {
            let replaced = replace_leaves(v, quote_strings);
            let mut out = Vec::new();
            let fmt = serde_json::ser::PrettyFormatter::with_indent(b"  ");
            let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
            let _ = serde::Serialize::serialize(&replaced, &mut ser);
            String::from_utf8(out).unwrap_or_default()
        }
    }
}

fn print_simple(v: &Value, quote_strings: bool) -> Option<String> {
    match v {
        Value::Null => Some("null".into()),
        Value::Bool(b) => Some(b.to_string()),
        // printValue's `printNumber` keeps the sign of a negative zero.
        Value::Number(n) if n.as_f64().is_some_and(|x| x == 0.0 && x.is_sign_negative()) => {
            Some("-0".into())
        }
        Value::Number(n) => Some(js_number_string(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) if quote_strings => Some(format!("\"{s}\"")),
        Value::String(s) => Some(s.clone()),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// `JSON.stringify`'s replacer in `printValue`: every leaf becomes its printed text.
fn replace_leaves(v: &Value, quote_strings: bool) -> Value {
    match v {
        Value::Array(a) => {
            Value::Array(a.iter().map(|x| replace_leaves(x, quote_strings)).collect())
        }
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), replace_leaves(x, quote_strings)))
                .collect(),
        ),
        leaf => Value::String(print_simple(leaf, quote_strings).unwrap_or_default()),
    }
}

/// yup's `number()` cast: a number, the text of one (white space removed; `0x10`, `1e3`),
/// or a list's text through `parseFloat` (`[1]` is 1); `None` is NaN.
pub fn js_cast_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => {
            let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
            if t.is_empty() {
                return None;
            }
            crate::query::values::js_number(&t)
        }
        // yup's fallback, `parseFloat` of the value's text (`[1]` is 1).
        Value::Array(_) => js_parse_float(&js_text(v)),
        _ => None,
    }
}

/// What yup's cast makes of a scalar attribute's value before its checks, as the errors
/// that show the whole data show it (Strapi's `Validators`): `number()` casts integers,
/// floats and decimals (a NaN shows as `null`), `boolean()` takes `"true"`, `"1"`,
/// `"false"`, `"0"` (any case), `string()` writes an enumeration's number or boolean as
/// text, and a biginteger's integer becomes its digits (`toBigIntegerString`). Other
/// types keep the value given (Strapi's string validators `preventCast`).
/// `None` when the cast leaves the value as it is (nothing is cloned).
pub fn cast_changes(ty: &ScalarType, v: &Value) -> Option<Value> {
    match (ty, v) {
        (ScalarType::Integer | ScalarType::Float | ScalarType::Decimal, Value::Number(_)) => None,
        (ScalarType::Integer | ScalarType::Float | ScalarType::Decimal, _) => Some(
            js_cast_number(v)
                .and_then(serde_json::Number::from_f64)
                .map_or(Value::Null, Value::Number),
        ),
        (ScalarType::Boolean, Value::Bool(_) | Value::Null) => None,
        (ScalarType::Boolean, _) => match js_text(v).to_ascii_lowercase().as_str() {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        (ScalarType::Enumeration { .. }, _) => string_cast(v).map(Value::String),
        (ScalarType::BigInteger, _) => big_integer_text(v)
            .filter(|t| v.as_str() != Some(t.as_str()))
            .map(Value::String),
        _ => None,
    }
}

/// yup's `string()` cast: a number or a boolean becomes its text; `None` where the value
/// stays as it is.
pub fn string_cast(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(number_text(n)),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Strapi's `toBigIntegerString`: an integer number's text, or a text of an optional sign
/// and digits (trimmed) as `BigInt` writes it back; `None` for anything else.
fn big_integer_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => {
            let x = n.as_f64()?;
            (x.is_finite() && x.fract() == 0.0).then(|| number_text(n))
        }
        Value::String(s) => big_int_decimal(s.trim_matches(is_js_space)),
        _ => None,
    }
}

/// JavaScript's `String(v)` (`${v}`): `null` is `"null"`, a list its items' texts joined
/// by commas, an object `"[object Object]"`.
pub fn js_string(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        other => js_text(other),
    }
}

/// JavaScript's `String(v)` for the values an array's text is made of.
fn js_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n),
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(js_text).collect::<Vec<_>>().join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

/// JavaScript's `parseFloat`: the longest decimal number at the start of the text, after
/// leading white space (`None` for NaN and the infinities).
fn js_parse_float(text: &str) -> Option<f64> {
    let t = text.trim_start();
    let b = t.as_bytes();
    let mut end = 0;
    let mut best = None;
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    if matches!(b.first(), Some(b'+' | b'-')) {
        end = 1;
    }
    let int_end = digits(end);
    let mut mantissa_end = int_end;
    if b.get(int_end) == Some(&b'.') {
        mantissa_end = digits(int_end + 1);
    }
    let has_digits = int_end > end || mantissa_end > int_end + 1;
    if has_digits {
        best = Some(mantissa_end);
        if matches!(b.get(mantissa_end), Some(b'e' | b'E')) {
            let mut e = mantissa_end + 1;
            if matches!(b.get(e), Some(b'+' | b'-')) {
                e += 1;
            }
            let e_end = digits(e);
            if e_end > e {
                best = Some(e_end);
            }
        }
    }
    end = best?;
    t[..end].parse::<f64>().ok().filter(|x| x.is_finite())
}

/// A JSON number's text as JavaScript's `String(n)` writes it.
pub fn number_text(n: &serde_json::Number) -> String {
    js_number_string(n.as_f64().unwrap_or(f64::NAN))
}

/// Whether JavaScript's `parseInt(text, 10)` reads a number from `text` (Strapi's
/// `isNumeric`): after leading white space, an optional sign and at least one decimal
/// digit. `"12abc"` and `" 7"` read; `""`, `"abc"` and `"-"` do not.
pub fn js_parse_int_reads(text: &str) -> bool {
    let rest = text.trim_start_matches(is_js_space);
    let rest = rest.strip_prefix(['+', '-']).unwrap_or(rest);
    rest.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_are_cast_as_yup_casts_them() {
        // A list is `parseFloat` of its text: `[1, 2]` is "1,2", so 1.
        assert_eq!(js_cast_number(&json!([1, 2])), Some(1.0));
        assert_eq!(js_cast_number(&json!([" 3.5e2x"])), Some(350.0));
        assert_eq!(js_cast_number(&json!([".5"])), Some(0.5));
        assert_eq!(js_cast_number(&json!(["1e"])), Some(1.0));
        assert_eq!(js_cast_number(&json!(["-"])), None);
        assert_eq!(js_cast_number(&json!([])), None);
        assert_eq!(js_cast_number(&json!([{}])), None);
        assert_eq!(js_cast_number(&json!(true)), None);
        assert_eq!(js_cast_number(&json!(" 0x10 ")), Some(16.0));
    }

    #[test]
    fn values_print_as_yup_prints_them() {
        assert_eq!(print_value(&json!(-0.0), true), "-0");
        assert_eq!(print_value(&json!(1e21), true), "1e+21");
        assert_eq!(print_value(&json!(123), true), "123");
        assert_eq!(print_value(&json!("yes"), true), "\"yes\"");
        assert_eq!(
            print_value(&json!({"an": "object"}), true),
            "{\n  \"an\": \"\\\"object\\\"\"\n}"
        );
        assert_eq!(
            print_value(&json!({"question": "x"}), true),
            "{\n  \"question\": \"\\\"x\\\"\"\n}"
        );
    }

    fn cast_scalar(ty: &ScalarType, v: &Value) -> Value {
        cast_changes(ty, v).unwrap_or_else(|| v.clone())
    }

    #[test]
    fn scalars_are_cast_as_strapis_validators_cast_them() {
        assert_eq!(cast_scalar(&ScalarType::Integer, &json!("7")), json!(7.0));
        assert_eq!(
            cast_scalar(&ScalarType::Decimal, &json!(" 9.5 ")),
            json!(9.5)
        );
        assert_eq!(cast_scalar(&ScalarType::Float, &json!("x")), json!(null));
        assert_eq!(cast_scalar(&ScalarType::Integer, &json!(true)), json!(null));
        assert_eq!(
            cast_scalar(&ScalarType::Boolean, &json!("TRUE")),
            json!(true)
        );
        assert_eq!(cast_scalar(&ScalarType::Boolean, &json!(0)), json!(false));
        assert_eq!(
            cast_scalar(&ScalarType::Boolean, &json!("yes")),
            json!("yes")
        );
        let level = ScalarType::Enumeration {
            values: vec!["low".into()],
        };
        assert_eq!(cast_scalar(&level, &json!(5)), json!("5"));
        assert_eq!(cast_scalar(&level, &json!(false)), json!("false"));
        assert_eq!(
            cast_scalar(&ScalarType::BigInteger, &json!(" +007 ")),
            json!("7")
        );
        assert_eq!(
            cast_scalar(&ScalarType::BigInteger, &json!("-0")),
            json!("0")
        );
        assert_eq!(cast_scalar(&ScalarType::BigInteger, &json!(3)), json!("3"));
        assert_eq!(
            cast_scalar(&ScalarType::BigInteger, &json!(1.5)),
            json!(1.5)
        );
        assert_eq!(cast_scalar(&ScalarType::String, &json!(5)), json!(5));
    }

    #[test]
    fn parse_int_reads_a_leading_number() {
        for text in ["1", "12abc", " 7", "-3", "+4", "\u{a0}5", "0x10"] {
            assert!(js_parse_int_reads(text), "{text:?}");
        }
        for text in [
            "",
            "abc",
            "-",
            "+-1",
            "a1",
            "article00000000000000002",
            "\u{85}1",
        ] {
            assert!(!js_parse_int_reads(text), "{text:?}");
        }
    }
}
