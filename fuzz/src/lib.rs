//! The properties the fuzz targets check, shared with the stable replay test
//! (`runtime/tests/fuzz_corpus_replay.rs` includes `check.rs` directly).

#[path = "check.rs"]
pub mod check;
