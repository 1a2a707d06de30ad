//! Whether stored JSON text is already in the form the read path would write: compact,
//! with serde_json's escapes and number forms, and no repeated keys. Then it is copied
//! as it is instead of being parsed into a value and written again (media `formats`,
//! `json` attributes and blocks are stored that way by Strapi and by strata, and parsing
//! them was the largest part of writing a populated page).
//!
//! Invariant: for every text, `is_canonical(text)` implies that parsing the text with
//! serde_json and writing the value again gives the same text. When in doubt the answer
//! is `false` and the caller takes the parse-and-write path, so this can only ever save
//! work, never change an answer (`tests` compares both paths on generated texts).

/// Objects nest no deeper than this on the fast path (serde_json refuses past 128).
const MAX_DEPTH: usize = 100;
/// Objects with more keys than this take the slow path (repeated keys are checked
/// pairwise).
const MAX_KEYS: usize = 64;

/// Whether `text` is an object or an array that serde_json would write back unchanged.
pub fn is_canonical(text: &str) -> bool {
    let bytes = text.as_bytes();
    if !matches!(bytes.first(), Some(b'{' | b'[')) {
        return false;
    }
    let mut s = Scanner { b: bytes, i: 0 };
    s.value(0) && s.i == bytes.len()
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> bool {
        match self.peek() {
            Some(b'{') => depth < MAX_DEPTH && self.object(depth + 1),
            Some(b'[') => depth < MAX_DEPTH && self.array(depth + 1),
            Some(b'"') => self.string().is_some(),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => false,
        }
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            true
        } else {
            false
        }
    }

    fn object(&mut self, depth: usize) -> bool {
        self.i += 1;
        if self.eat(b'}') {
            return true;
        }
        let mut keys: Vec<&'a [u8]> = Vec::new();
        loop {
            if self.peek() != Some(b'"') {
                return false;
            }
            let Some(key) = self.string() else {
                return false;
            };
            // Escapes are canonical here, so equal texts are equal keys and back.
            if keys.len() >= MAX_KEYS || keys.contains(&key) {
                return false;
            }
            keys.push(key);
            if !self.eat(b':') || !self.value(depth) {
                return false;
            }
            if self.eat(b'}') {
                return true;
            }
            if !self.eat(b',') {
                return false;
            }
        }
    }

    fn array(&mut self, depth: usize) -> bool {
        self.i += 1;
        if self.eat(b']') {
            return true;
        }
        loop {
            if !self.value(depth) {
                return false;
            }
            if self.eat(b']') {
                return true;
            }
            if !self.eat(b',') {
                return false;
            }
        }
    }

    /// A string whose escapes are the ones serde_json writes; its raw content.
    fn string(&mut self) -> Option<&'a [u8]> {
        self.i += 1;
        let start = self.i;
        loop {
            let c = self.peek()?;
            match c {
                b'"' => {
                    let content = &self.b[start..self.i];
                    self.i += 1;
                    return Some(content);
                }
                b'\\' => {
                    let escape = self.b.get(self.i + 1)?;
                    match escape {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                        b'u' => {
                            let hex = self.b.get(self.i + 2..self.i + 6)?;
                            if !control_escape(hex) {
                                return None;
                            }
                            self.i += 6;
                        }
                        _ => return None,
                    }
                }
                0x00..=0x1f => return None,
                _ => self.i += 1,
            }
        }
    }

    fn number(&mut self) -> bool {
        let start = self.i;
        self.eat(b'-');
        let digits = |s: &mut Self| {
            let from = s.i;
            while matches!(s.peek(), Some(b'0'..=b'9')) {
                s.i += 1;
            }
            s.i - from
        };
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return false,
        }
        let mut float = false;
        if self.eat(b'.') {
            float = true;
            if digits(self) == 0 {
                return false;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            return false; // written back without an exponent or differently: slow path
        }
        let Ok(text) = std::str::from_utf8(&self.b[start..self.i]) else {
            return false;
        };
        if !float {
            // serde_json reads integers as u64 or i64 when they fit (else as f64) and
            // writes them back digit for digit; `-0` becomes `0`.
            return text != "-0" && (text.parse::<u64>().is_ok() || text.parse::<i64>().is_ok());
        }
        // Parsed by serde_json itself, so that the answer is the slow path's whatever
        // serde_json's float features are.
        match serde_json::from_str::<f64>(text) {
            Ok(f) if f.is_finite() => {
                let mut written = Vec::with_capacity(24);
                let _ = serde_json::to_writer(&mut written, &f);
                written == text.as_bytes()
            }
            _ => false,
        }
    }
}

/// Whether `\uXXXX` (`hex` is the `XXXX`) is how serde_json writes a control character:
/// `00` then two lowercase hex digits, for the controls without a short escape.
fn control_escape(hex: &[u8]) -> bool {
    let [b'0', b'0', hi, lo] = hex else {
        return false;
    };
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    match (digit(*hi), digit(*lo)) {
        (Some(h), Some(l)) if h <= 1 => {
            let code = h * 16 + l;
            !matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// The slow path's answer: parse, then write.
    fn rewritten(text: &str) -> Option<String> {
        serde_json::from_str::<Value>(text)
            .ok()
            .map(|v| serde_json::to_string(&v).unwrap())
    }

    fn holds(text: &str) {
        if is_canonical(text) {
            assert_eq!(rewritten(text).as_deref(), Some(text), "{text:?}");
        }
    }

    #[test]
    fn canonical_texts_are_recognised() {
        for text in [
            r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
            r#"{"thumbnail":{"ext":".jpg","width":245,"size":8.46,"url":"/uploads/x.jpg"}}"#,
            r#"[{"type":"paragraph","children":[{"type":"text","text":"Hi \"you\"\n"}]}]"#,
            r#"{"neg":-12,"zero":0,"f":0.5,"big":18446744073709551615,"ctl":"\u001f"}"#,
            "{}",
            "[]",
            r#"{"é":"ü – ✓"}"#,
            // 17 significant digits: read exactly (as JavaScript reads it), it is already
            // the shortest form of its double.
            "[564.53,-3.6746010464451677,true,-5000396017435199643]",
        ] {
            assert!(is_canonical(text), "{text}");
            holds(text);
        }
    }

    #[test]
    fn other_forms_take_the_slow_path() {
        for text in [
            r#"{"a": 1}"#,
            r#" {"a":1}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a":1e3}"#,
            r#"{"a":1.50}"#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":"\/"}"#,
            r#"{"a":"\u0041"}"#,
            r#"{"a":"\u000a"}"#,
            r#"{"a":"\u001F"}"#,
            r#"{"a":99999999999999999999}"#,
            r#""a string""#,
            "12",
            r#"{"a":1}x"#,
            r#"{"a":"unterminated}"#,
            "{\"a\":\"raw\ncontrol\"}",
            r#"{"a":[1,]}"#,
        ] {
            assert!(!is_canonical(text), "{text}");
        }
        let deep = "[".repeat(150) + &"]".repeat(150);
        assert!(!is_canonical(&deep));
    }

    /// JSON texts in many spellings: compact and spaced, escaped in several ways, numbers
    /// in several forms, keys repeated.
    fn spelled() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>().prop_map(|f| f.to_string()),
            (-1000i32..1000, 0u32..100).prop_map(|(a, b)| format!("{a}.{b}")),
            (1u32..9, -5i32..5).prop_map(|(a, e)| format!("{a}e{e}")),
            Just("-0".to_string()),
            "[a-df-zé\"\\\\/\\n\\t\\u{1}]{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap()),
            prop_oneof![
                Just(r#""\/""#),
                Just(r#""\u0041""#),
                Just(r#""\u001f""#),
                Just(r#""\u001F""#),
                Just(r#""\n""#),
                Just(r#""\u000a""#),
            ]
            .prop_map(str::to_string),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            let key = prop_oneof![Just("a"), Just("b"), Just("c\\n"), Just("é")];
            let sep = prop_oneof![Just(""), Just(" ")];
            prop_oneof![
                (prop::collection::vec(inner.clone(), 0..5), sep.clone())
                    .prop_map(|(items, s)| format!("[{}]", items.join(&format!(",{s}")))),
                (prop::collection::vec((key, inner), 0..5), sep).prop_map(|(members, s)| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(k, v)| format!("\"{k}\":{s}{v}"))
                        .collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn canonical_means_unchanged_by_a_round_trip(text in spelled()) {
            holds(&text);
        }

        #[test]
        fn what_serde_writes_is_canonical(text in spelled()) {
            if let Some(written) = rewritten(&text) {
                let nested_ok = written.starts_with(['{', '[']);
                let has_exponent_or_repeat = !is_canonical(&written);
                // serde_json's own output is canonical, except where it writes an exponent
                // (very large or small floats), which the fast path leaves to the slow one.
                if nested_ok && has_exponent_or_repeat {
                    prop_assert!(written.contains('e') || written.contains('E'), "{written}");
                }
            }
        }
    }
}
