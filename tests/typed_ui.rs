//! Compile-time checks of the typed API (trybuild): each `tests/ui/*.rs` must fail to
//! compile with the message in its `.stderr` file, naming the field and the rule; each
//! `tests/ui/pass/*.rs` must compile and run. The cases use the generated blog model
//! (`tests/generated/blog.rs`).
//!
//! After changing a message, regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test --test typed_ui` and review the diff.

#[test]
fn typed_api_misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
