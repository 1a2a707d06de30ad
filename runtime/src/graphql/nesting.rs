//! The nesting limit of a GraphQL request: how deep its document's brackets and its
//! variables' values may go before anything recursive (the parser, validation, the
//! conversion of arguments, error paths) walks them.
//!
//! graphql-js has no such limit; its recursion runs on Node's large stack. strata's runs
//! on a thread's, so a list literal nested a thousand deep, or an `and` of an `and`…
//! seven hundred deep, would overflow it and abort the whole server. A request that
//! nests deeper than [`MAX_NESTING`] is refused with a 400 before it is parsed. Real
//! queries stay far below it: the selection depth limit is 10 ([`crate::graphql`]'s
//! callers), and a filter rarely nests past a dozen levels.
//!
//! Both checks walk without recursion.

use serde_json::Value;

/// The deepest nesting of brackets (`{`, `[`, `(`) in a document, and of lists and
/// objects in a variable's value, that a request may have.
pub const MAX_NESTING: usize = 100;

/// Whether `document` nests brackets deeper than `max`. Strings (`"…"`, block strings
/// `"""…"""`) and comments (`#` to the end of the line) are skipped; a document that
/// does not parse is left to the parser.
pub fn document_exceeds(document: &str, max: usize) -> bool {
    let bytes = document.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' | b'[' | b'(' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b'}' | b']' | b')' => depth = depth.saturating_sub(1),
            b'#' => {
                while bytes.get(i).is_some_and(|&c| c != b'\n' && c != b'\r') {
                    i += 1;
                }
            }
            b'"' if bytes.get(i..i + 3) == Some(b"\"\"\"") => {
                i += 3;
                // A block string ends at the first `"""` not escaped as `\"""`.
                while i < bytes.len() && bytes.get(i..i + 3) != Some(b"\"\"\"") {
                    i += if bytes.get(i..i + 4) == Some(b"\\\"\"\"") {
                        4
                    } else {
                        1
                    };
                }
                i += 2;
            }
            b'"' => {
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    match c {
                        b'\\' => i += 2,
                        b'"' | b'\n' | b'\r' => break,
                        _ => i += 1,
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether the values of object `variables` nest arrays and objects deeper than `max`
/// (a scalar is depth 0, `[]` and `{}` depth 1), checked on the JSON before
/// async-graphql converts it (recursively).
pub fn variables_exceed(variables: &Value, max: usize) -> bool {
    let mut stack: Vec<(&Value, usize)> = match variables {
        Value::Object(fields) => fields.values().map(|v| (v, 0)).collect(),
        _ => return false,
    };
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(fields) => Box::new(fields.values()),
            _ => continue,
        };
        if depth + 1 > max {
            return true;
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_count_outside_strings_and_comments_only() {
        assert!(!document_exceeds("{ a { b { c } } }", 3));
        assert!(document_exceeds("{ a { b { c { d } } } }", 3));
        assert!(!document_exceeds(r#"{ a(s: "{{{{[[[[") }"#, 2));
        assert!(!document_exceeds(r#"{ a(s: "\"{{{{") }"#, 2));
        assert!(!document_exceeds(
            "{ a(s: \"\"\"{{{{ \\\"\"\" {{{{\"\"\") }",
            2
        ));
        assert!(!document_exceeds("{ a # {{{{{{\n }", 1));
        let deep = format!("{{ a(in: {}{}) }}", "[".repeat(500), "]".repeat(500));
        assert!(document_exceeds(&deep, MAX_NESTING));
    }

    #[test]
    fn variables_are_measured_without_recursion() {
        let mut v = Value::Null;
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        let deep = Value::Object(std::iter::once(("f".to_string(), v)).collect());
        assert!(variables_exceed(&deep, MAX_NESTING));
        let shallow = serde_json::json!({ "f": [[], null] });
        assert!(!variables_exceed(&shallow, 2));
        assert!(variables_exceed(&shallow, 1));
        // serde_json drops a value this deep by recursion: take it apart first.
        let mut v = deep;
        while let Some(inner) = match &mut v {
            Value::Object(o) => o.values_mut().next().map(Value::take),
            Value::Array(a) => a.pop(),
            _ => None,
        } {
            v = inner;
        }
    }
}
