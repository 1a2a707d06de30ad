//! HTTP validation for content answers: a strong `ETag` computed from the body's bytes,
//! and `304 Not Modified` when the request's `If-None-Match` names it.
//!
//! The tag is a function of the bytes sent, so it is exact by construction: a change
//! written by any process (Strapi's admin, another strata) changes the body and so the
//! tag on the next request, and two strata processes on one database give the same tag
//! for the same answer.
//!
//! Where the store offers a data generation, a conditional request also skips the query:
//! [`Validators`] remembers, per request (target, caller, response format), the tag last
//! sent and the store's data generation it was computed at
//! ([`crate::store::seam::Pool::data_generation`]: SQLite's `PRAGMA data_version` made
//! process-wide, PostgreSQL's MVCC snapshot). While the generation has not moved, the
//! data has not changed, so neither has the answer: a matching `If-None-Match` gets its
//! 304 without the query. The caller's credentials are still checked first, on every
//! request. MySQL has no generation: the answer is computed and compared.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::http::{HeaderMap, HeaderValue, header};
use sha2::{Digest, Sha256};

/// Requests whose last tag [`Validators`] keeps; past this it starts over.
const VALIDATOR_ENTRIES: usize = 10_000;

/// The tag last sent for each conditional request, with the data generation it was
/// computed at. Bounded: cleared when full.
#[derive(Debug, Default)]
pub struct Validators {
    tags: Mutex<HashMap<RequestKey, (u64, String)>>,
}

/// What decides an answer besides the data: the request target, the caller's
/// credentials (hashed: no token is kept) and the response format.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RequestKey {
    target: String,
    caller: [u8; 32],
    v4: bool,
}

impl RequestKey {
    /// The key of a request.
    pub fn new(target: &str, authorization: Option<&[u8]>, v4: bool) -> Self {
        let mut caller = [0u8; 32];
        if let Some(a) = authorization {
            caller.copy_from_slice(&Sha256::digest(a));
        }
        RequestKey {
            target: target.to_string(),
            caller,
            v4,
        }
    }
}

impl Validators {
    /// The tag sent for `key` at `generation`, if the data has not changed since.
    pub fn fresh(&self, key: &RequestKey, generation: u64) -> Option<String> {
        let tags = self.tags.lock().ok()?;
        tags.get(key)
            .filter(|(g, _)| *g == generation)
            .map(|(_, t)| t.clone())
    }

    /// Remembers the tag sent for `key`, computed from data at `generation`.
    pub fn remember(&self, key: RequestKey, generation: u64, tag: &str) {
        if let Ok(mut tags) = self.tags.lock() {
            if tags.len() >= VALIDATOR_ENTRIES {
                tags.clear();
            }
            tags.insert(key, (generation, tag.to_string()));
        }
    }
}

/// Whether the request carries `If-None-Match` at all.
pub fn is_conditional(headers: &HeaderMap) -> bool {
    headers.contains_key(header::IF_NONE_MATCH)
}

/// The strong tag of a body: XXH3-128 of its bytes, quoted. (It was FNV-1a, a byte at a
/// time: 4% of a plain page's server time for its 13 KB; XXH3 reads a word at a time.)
pub fn tag(body: &[u8]) -> String {
    format!("\"{:032x}\"", twox_hash::XxHash3_128::oneshot(body))
}

/// Whether `If-None-Match` (a list of tags, weak or strong, or `*`) names `tag`.
pub fn matches(headers: &HeaderMap, tag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag)
}

/// The header value of a tag (always ASCII).
pub fn header_value(tag: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(tag).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_matching() {
        let t = tag(br#"{"data":[]}"#);
        assert_eq!(t, tag(br#"{"data":[]}"#));
        assert_ne!(t, tag(br#"{"data":[1]}"#));
        let mut h = HeaderMap::new();
        assert!(!matches(&h, &t));
        if let Ok(v) = HeaderValue::from_str(&format!("\"x\", W/{t}")) {
            h.insert(header::IF_NONE_MATCH, v);
        }
        assert!(matches(&h, &t));
        h.insert(header::IF_NONE_MATCH, HeaderValue::from_static("*"));
        assert!(matches(&h, &t));
    }

    #[test]
    fn validators_hold_a_tag_for_its_generation_and_caller() {
        let v = Validators::default();
        let key = RequestKey::new("/api/tags", Some(b"Bearer a"), false);
        assert_eq!(v.fresh(&key, 1), None);
        v.remember(key.clone(), 1, "\"t\"");
        assert_eq!(v.fresh(&key, 1).as_deref(), Some("\"t\""));
        assert_eq!(v.fresh(&key, 2), None);
        for other in [
            RequestKey::new("/api/tags", Some(b"Bearer b"), false),
            RequestKey::new("/api/tags", None, false),
            RequestKey::new("/api/tags", Some(b"Bearer a"), true),
            RequestKey::new("/api/tags?x", Some(b"Bearer a"), false),
        ] {
            assert_eq!(v.fresh(&other, 1), None, "{other:?}");
        }
    }
}
