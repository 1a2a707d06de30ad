//! The properties the fuzz targets check, shared with the stable replay tests
//! (`runtime/tests/fuzz_corpus_replay.rs` includes `check.rs` directly,
//! `tests/http_fuzz_replay.rs` includes `http_check.rs`).

#[path = "check.rs"]
pub mod check;

#[path = "http_check.rs"]
pub mod http_check;
