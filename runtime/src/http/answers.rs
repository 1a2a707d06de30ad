//! REST answers kept while the data they were read from stands.
//!
//! A content answer is a function of the request (target, caller, response format) and of
//! the database's data. Where the store offers a data generation
//! ([`crate::store::seam::Pool::data_generation`]: SQLite's `data_version` made
//! process-wide, PostgreSQL's MVCC snapshot), an answer is kept with the generation read
//! *before* its query, and served again to the same request while the generation has not
//! moved. So a kept answer is never older than the data at the request's start, whichever
//! process wrote (Strapi's admin, another strata, `psql`): a commit anywhere moves the
//! generation, and the next request reads again. The caller's credentials and grants are
//! checked before the cache, on every request.
//!
//! Invariants:
//! * only `GET` answers of the REST content API are kept (writes and GraphQL never);
//! * the generation is read before the query: an answer computed while a write commits
//!   may show the write, never the other way;
//! * bounded: [`MAX_ENTRIES`] answers and the configured bytes of bodies
//!   (`ServerConfig::answer_cache_bytes`, 0: nothing is kept); past either it starts
//!   over, and a body over a sixteenth of the bytes is not kept.

use std::collections::HashMap;
use std::sync::Mutex;

use bytes::Bytes;

use super::etag::RequestKey;

/// Answers kept at most.
const MAX_ENTRIES: usize = 10_000;

/// A kept answer: its body and its `ETag`.
#[derive(Debug, Clone)]
pub struct KeptAnswer {
    /// The JSON body.
    pub body: Bytes,
    /// Its strong tag ([`super::etag::tag`]).
    pub tag: String,
}

/// The kept answers, by request, each with the generation it was read at.
#[derive(Debug, Default)]
pub struct Answers {
    kept: Mutex<Kept>,
    /// Body bytes kept at most.
    max_bytes: usize,
}

#[derive(Debug, Default)]
struct Kept {
    answers: HashMap<RequestKey, (u64, KeptAnswer)>,
    bytes: usize,
}

impl Answers {
    /// Answers that keep at most `max_bytes` of bodies (0: none).
    pub fn new(max_bytes: usize) -> Self {
        Answers {
            kept: Mutex::default(),
            max_bytes,
        }
    }

    /// Whether answers are kept at all.
    pub fn enabled(&self) -> bool {
        self.max_bytes > 0
    }

    /// The answer kept for `key`, if it was read at `generation`.
    pub fn get(&self, key: &RequestKey, generation: u64) -> Option<KeptAnswer> {
        let kept = self.kept.lock().ok()?;
        kept.answers
            .get(key)
            .filter(|(g, _)| *g == generation)
            .map(|(_, a)| a.clone())
    }

    /// Keeps `answer` for `key`, read at `generation`.
    pub fn put(&self, key: RequestKey, generation: u64, answer: KeptAnswer) {
        let size = answer.body.len();
        if size > self.max_bytes / 16 {
            return;
        }
        let Ok(mut kept) = self.kept.lock() else {
            return;
        };
        if kept.answers.len() >= MAX_ENTRIES || kept.bytes + size > self.max_bytes {
            kept.answers.clear();
            kept.bytes = 0;
        }
        if let Some((_, old)) = kept.answers.insert(key, (generation, answer)) {
            kept.bytes -= old.body.len();
        }
        kept.bytes += size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(body: &'static str) -> KeptAnswer {
        KeptAnswer {
            body: Bytes::from_static(body.as_bytes()),
            tag: super::super::etag::tag(body.as_bytes()),
        }
    }

    #[test]
    fn an_answer_is_kept_for_its_request_and_generation_only() {
        let answers = Answers::new(1 << 20);
        let key = RequestKey::new("/api/articles", None, false);
        answers.put(key.clone(), 7, answer("{\"data\":[]}"));
        assert_eq!(
            answers.get(&key, 7).map(|a| a.body),
            Some(Bytes::from_static(b"{\"data\":[]}"))
        );
        assert!(answers.get(&key, 8).is_none(), "the data moved on");
        let other_caller = RequestKey::new("/api/articles", Some(b"Bearer x"), false);
        assert!(answers.get(&other_caller, 7).is_none());
        let v4 = RequestKey::new("/api/articles", None, true);
        assert!(answers.get(&v4, 7).is_none());
        // A newer answer replaces the older one, and the bytes are counted once.
        answers.put(key.clone(), 8, answer("{\"data\":[1]}"));
        assert!(answers.get(&key, 7).is_none());
        assert_eq!(answers.kept.lock().map(|k| k.bytes).ok(), Some(12));
    }

    #[test]
    fn answers_stay_within_their_bytes() {
        let none = Answers::new(0);
        assert!(!none.enabled());
        let key = RequestKey::new("/api/tags", None, false);
        none.put(key.clone(), 1, answer("{}"));
        assert!(none.get(&key, 1).is_none(), "0 bytes keeps nothing");
        // 64 bytes: a body over 4 is not kept; past 64 the answers start over.
        let small = Answers::new(64);
        small.put(key.clone(), 1, answer("{\"data\":[]}"));
        assert!(small.get(&key, 1).is_none(), "over a sixteenth");
        for i in 0..20 {
            small.put(
                RequestKey::new(&format!("/api/t{i}"), None, false),
                1,
                answer("{}"),
            );
        }
        let kept = small.kept.lock().map(|k| (k.answers.len(), k.bytes)).ok();
        assert!(kept.is_some_and(|(n, b)| n <= 32 && b <= 64), "{kept:?}");
    }
}
