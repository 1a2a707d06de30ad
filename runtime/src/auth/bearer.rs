//! The token of an `Authorization` header, as both of Strapi's content-API strategies
//! extract it: the value is split on runs of whitespace (JavaScript's `/\s+/`); it is a
//! token only when there are exactly two parts and the first is `bearer` in any case.
//! Anything else (`Basic …`, a bare `Bearer`, three parts) is no credential at all, so
//! the request is served as the public role, as Strapi serves it.

use std::fmt;

/// A bearer token taken from a request. Prints as `<redacted>`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BearerToken<'a>(&'a str);

impl<'a> BearerToken<'a> {
    /// The token text.
    pub fn as_str(&self) -> &'a str {
        self.0
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
    // A header value that is not UTF-8 cannot match a stored key or a JWT: no token.
    std::str::from_utf8(token).ok().map(BearerToken)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(h: &str) -> Option<&str> {
        token(h.as_bytes()).map(|t| t.as_str())
    }

    #[test]
    fn splits_as_strapi_does() {
        assert_eq!(tok("Bearer abc"), Some("abc"));
        assert_eq!(tok("bearer abc"), Some("abc"));
        assert_eq!(tok("BEARER  abc"), Some("abc"));
        assert_eq!(tok("Bearer\tabc"), Some("abc"));
        assert_eq!(tok(" Bearer abc "), Some("abc"));
        assert_eq!(tok("Bearer"), None);
        assert_eq!(tok("Bearer a b"), None);
        assert_eq!(tok("Basic abc"), None);
        assert_eq!(tok(""), None);
        assert_eq!(token(b"Bearer \xff\xfe"), None);
    }

    #[test]
    fn never_prints_the_token() {
        let t = token(b"Bearer s3cret").map(|t| format!("{t:?}"));
        assert_eq!(t.as_deref(), Some("BearerToken(<redacted>)"));
    }
}
