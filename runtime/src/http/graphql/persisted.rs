//! Apollo Server's automatic persisted queries (APQ), which Strapi's Apollo leaves on: a
//! client sends `extensions.persistedQuery` (`{version: 1, sha256Hash}`) with or instead
//! of the query's text. With the text, the hash must be the text's SHA-256 (hex), and
//! the text is kept once the document passes validation; without it, the kept text is
//! run, or the client is told `PersistedQueryNotFound` (200, so that Apollo Client's
//! persisted-query link sends the text next). The texts are kept in memory, least
//! recently used first out past 30 MiB, as Apollo's default `InMemoryLRUCache` (which
//! counts the texts alone; here each entry's own size counts too).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use super::*;

/// Apollo's default cache size: 30 MiB of query text.
const CAPACITY: usize = 30 << 20;

/// The texts of the persisted queries, by hash.
#[derive(Default)]
pub(super) struct PersistedQueries {
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    /// Hash to (text, last use).
    texts: HashMap<String, (String, u64)>,
    /// Last use to hash, oldest first.
    by_use: BTreeMap<u64, String>,
    clock: u64,
    size: usize,
}

/// What a request's `persistedQuery` extension makes of it.
pub(super) enum Persisted {
    /// None given: the request as it is.
    No,
    /// The text was given with its hash: keep it once it validates.
    Register(String),
    /// Only the hash was given, and its text was kept: run it.
    Found(String),
}

impl PersistedQueries {
    /// `processGraphQLRequest`'s reading of `extensions.persistedQuery` (`extension`, as
    /// the request gave it) for a request whose text is `query` (empty: none given);
    /// `Err` is Apollo's refusal.
    pub(super) fn resolve(
        &self,
        extension: Option<&Value>,
        query: &str,
    ) -> Result<Persisted, Refusal> {
        let Some(extension) = extension.filter(|e| crate::query::values::js_truthy(e)) else {
            return Ok(Persisted::No);
        };
        if extension.get("version").and_then(Value::as_f64) != Some(1.0) {
            return Err(Refusal::UnsupportedVersion);
        }
        let hash = extension.get("sha256Hash").and_then(Value::as_str);
        if query.is_empty() {
            return match hash.and_then(|h| self.get(h)) {
                Some(text) => Ok(Persisted::Found(text)),
                None => Err(Refusal::NotFound),
            };
        }
        let computed = hex(&Sha256::digest(query.as_bytes()));
        match hash {
            Some(hash) if hash == computed => Ok(Persisted::Register(computed)),
            _ => Err(Refusal::HashMismatch),
        }
    }

    /// Keeps `text` under `hash`, the least recently used texts out past the capacity.
    pub(super) fn keep(&self, hash: String, text: &str) {
        let Ok(mut kept) = self.kept.lock() else {
            return;
        };
        if footprint(text) > CAPACITY {
            return;
        }
        kept.clock += 1;
        let now = kept.clock;
        if let Some((old, used)) = kept.texts.insert(hash.clone(), (text.to_owned(), now)) {
            kept.size -= footprint(&old);
            kept.by_use.remove(&used);
        }
        kept.by_use.insert(now, hash);
        kept.size += footprint(text);
        while kept.size > CAPACITY {
            let Some((_, oldest)) = kept.by_use.pop_first() else {
                break;
            };
            if let Some((text, _)) = kept.texts.remove(&oldest) {
                kept.size -= footprint(&text);
            }
        }
    }

    fn get(&self, hash: &str) -> Option<String> {
        let mut kept = self.kept.lock().ok()?;
        kept.clock += 1;
        let now = kept.clock;
        let (text, used) = kept.texts.get_mut(hash)?;
        let before = std::mem::replace(used, now);
        let text = text.clone();
        kept.by_use.remove(&before);
        kept.by_use.insert(now, hash.to_owned());
        Some(text)
    }
}

/// Why Apollo does not run a request's persisted query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// `version` is not 1.
    UnsupportedVersion,
    /// Only a hash, and no text kept for it.
    NotFound,
    /// The text's hash is not the one given.
    HashMismatch,
}

impl Refusal {
    /// Apollo's answer: its message and code (`INTERNAL_SERVER_ERROR` for a plain
    /// `GraphQLError`); a 200 for a text not found, never cached.
    pub(super) fn response(self) -> Response {
        let (status, message, code) = match self {
            Refusal::UnsupportedVersion => (
                StatusCode::BAD_REQUEST,
                "Unsupported persisted query version",
                "INTERNAL_SERVER_ERROR",
            ),
            Refusal::NotFound => (
                StatusCode::OK,
                "PersistedQueryNotFound",
                "PERSISTED_QUERY_NOT_FOUND",
            ),
            Refusal::HashMismatch => (
                StatusCode::BAD_REQUEST,
                "provided sha does not match query",
                "INTERNAL_SERVER_ERROR",
            ),
        };
        let mut response = refused_response(
            status,
            vec![json!({"message": message, "extensions": {"code": code}})],
        );
        if self == Refusal::NotFound {
            response.headers_mut().insert(
                header::CACHE_CONTROL,
                header::HeaderValue::from_static("private, no-cache, must-revalidate"),
            );
        }
        response
    }
}

/// What a kept text counts against the capacity: its bytes, and its entry's (the hash
/// twice, the maps' slots), so that many tiny texts cannot hold more memory than a few
/// large ones (Apollo counts the text alone).
fn footprint(text: &str) -> usize {
    text.len() + 2 * 64 + 64
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUERY: &str = "{ tags { name } }";
    const WRONG_HASH: &str = "abc";

    fn extension(hash: &str) -> Value {
        json!({"version": 1, "sha256Hash": hash})
    }

    #[test]
    fn a_hash_alone_runs_the_text_kept_for_it() {
        let kept = PersistedQueries::default();
        let computed = hex(&Sha256::digest(QUERY.as_bytes()));
        assert!(matches!(
            kept.resolve(Some(&extension(&computed)), ""),
            Err(Refusal::NotFound)
        ));
        let Ok(Persisted::Register(hash)) = kept.resolve(Some(&extension(&computed)), QUERY) else {
            panic!("not registered")
        };
        kept.keep(hash, QUERY);
        assert!(
            matches!(kept.resolve(Some(&extension(&computed)), ""), Ok(Persisted::Found(q)) if q == QUERY)
        );
    }

    #[test]
    fn a_wrong_hash_or_version_is_refused() {
        let kept = PersistedQueries::default();
        let wrong = kept.resolve(Some(&extension(WRONG_HASH)), QUERY);
        assert!(matches!(wrong, Err(Refusal::HashMismatch)));
        let v2 = json!({"version": 2, "sha256Hash": WRONG_HASH});
        assert!(matches!(
            kept.resolve(Some(&v2), QUERY),
            Err(Refusal::UnsupportedVersion)
        ));
        assert!(matches!(
            kept.resolve(Some(&json!(0)), QUERY),
            Ok(Persisted::No)
        ));
    }

    #[test]
    fn the_least_recently_used_text_goes_first() {
        let kept = PersistedQueries::default();
        let big = "x".repeat(CAPACITY / 2 - footprint(""));
        kept.keep("a".into(), &big);
        kept.keep("b".into(), &big);
        assert!(kept.get("a").is_some());
        kept.keep("c".into(), &big);
        assert!(kept.get("a").is_some());
        assert!(kept.get("b").is_none());
    }
}
