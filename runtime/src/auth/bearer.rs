//! The token of an `Authorization` header, as both of Strapi's content-API strategies
//! extract it: the value is split on runs of whitespace (JavaScript's `/\s+/`); it is a
//! token only when there are exactly two parts and the first is `bearer` in any case.
//! Anything else (`Basic …`, a bare `Bearer`, three parts) is no credential at all, so
//! the request is served as the public role, as Strapi serves it. A token is the text
//! Node reads from the header's bytes (latin-1: each byte one character), so one that is
//! not ASCII is still a credential, which matches no key and no JWT: a 401, never the
//! public role (credentials fail closed).

use std::borrow::Cow;
use std::fmt;

/// A bearer token taken from a request. Prints as `<redacted>`.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken<'a>(Cow<'a, str>);

impl BearerToken<'_> {
    /// The token text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for BearerToken<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerToken(<redacted>)")
    }
}

/// JavaScript's `\s` over the bytes Node hands a header value as (latin-1): tab, line
/// feed, vertical tab, form feed, carriage return, space and no-break space (0xA0).
fn is_js_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' | 0xa0)
}

/// The bearer token of an `Authorization` header value, or `None` when the header is not
/// a two-part `Bearer <token>`.
pub fn token(header: &[u8]) -> Option<BearerToken<'_>> {
    // Node trims the value; `split(/\s+/)` then yields no empty part inside it.
    let mut parts = header
        .split(|b| is_js_space(*b))
        .filter(|part| !part.is_empty());
    let scheme = parts.next()?;
    let token = parts.next()?;
    if parts.next().is_some() || !scheme.eq_ignore_ascii_case(b"bearer") {
        return None;
    }
    let text = match std::str::from_utf8(token) {
        Ok(ascii) if ascii.is_ascii() => Cow::Borrowed(ascii),
        // Node's latin-1 reading of the bytes.
        _ => Cow::Owned(token.iter().map(|&b| char::from(b)).collect()),
    };
    Some(BearerToken(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(h: &str) -> Option<String> {
        token(h.as_bytes()).map(|t| t.as_str().to_owned())
    }

    #[test]
    fn splits_as_strapi_does() {
        let abc = Some("abc".to_owned());
        assert_eq!(tok("Bearer abc"), abc);
        assert_eq!(tok("bearer abc"), abc);
        assert_eq!(tok("BEARER  abc"), abc);
        assert_eq!(tok("Bearer\tabc"), abc);
        assert_eq!(tok(" Bearer abc "), abc);
        assert_eq!(tok("Bearer"), None);
        assert_eq!(tok("Bearer a b"), None);
        assert_eq!(tok("Basic abc"), None);
        assert_eq!(tok(""), None);
        // Not ASCII: still a token, read as Node reads it (latin-1).
        let t = token(b"Bearer \xe9\xff").map(|t| t.as_str().to_owned());
        assert_eq!(t.as_deref(), Some("\u{e9}\u{ff}"));
        assert_eq!(tok("Bearer \u{e9}"), Some("\u{c3}\u{a9}".to_owned()));
    }

    #[test]
    fn never_prints_the_token() {
        let t = token(b"Bearer s3cret").map(|t| format!("{t:?}"));
        assert_eq!(t.as_deref(), Some("BearerToken(<redacted>)"));
    }
}
