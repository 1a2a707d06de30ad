//! The typed examples (`examples/embed.rs`, `examples/typed_client.rs`) use
//! `examples/generated/blog.rs`, the committed output of
//! `strata generate --schemas schemas --out examples/generated/blog.rs` for the bundled
//! schemas. Examples of the root package cannot have a build script of their own, so the
//! file is committed (as a user who commits generated code would) and checked here;
//! `examples/build-rs/` shows the `build.rs` setup instead.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

#[test]
fn the_examples_generated_code_is_fresh() {
    // Cargo runs tests from the package root; the header names the folder as given.
    let fresh = strata_codegen::generate_source(Path::new("schemas")).unwrap();
    let committed = std::fs::read_to_string("examples/generated/blog.rs").unwrap();
    assert!(
        fresh == committed,
        "examples/generated/blog.rs is stale: run \
         `cargo run -- generate --schemas schemas --out examples/generated/blog.rs`"
    );
}
