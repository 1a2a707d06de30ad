//! Replays the committed fuzz corpus (`fuzz/corpus/parse_query/`: every golden query string,
//! hand-written edge cases and any input a fuzzer once crashed on) through `parse_query` on
//! stable, with the fuzz targets' own checks (`fuzz/src/check.rs`): no panic, every error a
//! 400 in Strapi's body shape, and every accepted query printing back to itself.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

// `check_parse` (the `parse_query` target) is covered by `check_roundtrip`.
#[allow(dead_code)]
#[path = "../../fuzz/src/check.rs"]
mod check;

#[test]
fn fuzz_corpus_replays_without_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/parse_query");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in &files {
        let data = std::fs::read(file).unwrap();
        let outcome = std::panic::catch_unwind(|| check::check_roundtrip(&data));
        if let Err(e) = outcome {
            let message = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{}: {message}", file.display());
        }
    }
    println!("fuzz corpus: {} inputs replayed", files.len());
    assert!(
        files.len() >= 200,
        "the corpus has only {} files",
        files.len()
    );
}
