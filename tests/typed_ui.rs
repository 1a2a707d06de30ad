//! Compile-time checks of the typed API (trybuild): each `tests/ui/*.rs` must fail to
//! compile with the message in its `.stderr` file, naming the field and the rule. The cases
//! use the generated blog model (`tests/generated/blog.rs`).
//!
//! Only failures are checked here: trybuild then runs `cargo check` on its own copy of the
//! dependency tree instead of `cargo build` (a full second debug build, five minutes of CI).
//! What must compile and run is tested where it compiles anyway (`tests/typed_builders.rs`).
//!
//! After changing a message, regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test --test typed_ui` and review the diff.

#[test]
fn typed_api_misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
