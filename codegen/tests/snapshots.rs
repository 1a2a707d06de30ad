//! Snapshots (insta) of the code generated for the blog schemas and for the edge-case
//! schemas (`tests/fixtures/edge/schemas`). Review changes with `cargo insta review`, or
//! accept them with `INSTA_UPDATE=always cargo test -p strata-codegen`.

#![allow(clippy::panic)]

use std::path::Path;

fn generate(rel: &str) -> String {
    // Relative to the crate root (the tests' working directory), so the header is stable.
    strata_codegen::generate_source(Path::new(rel)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn blog() {
    insta::assert_snapshot!("blog", generate("../tests/fixtures/blog/schemas"));
}

#[test]
fn edge() {
    insta::assert_snapshot!("edge", generate("../tests/fixtures/edge/schemas"));
}
