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

fn typescript(rel: &str) -> String {
    strata_codegen::generate_typescript(Path::new(rel)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn blog_typescript() {
    insta::assert_snapshot!(
        "blog_typescript",
        typescript("../tests/fixtures/blog/schemas")
    );
}

#[test]
fn edge_typescript() {
    insta::assert_snapshot!(
        "edge_typescript",
        typescript("../tests/fixtures/edge/schemas")
    );
}

/// Content types named like the template's own types (`StrapiError`, `JsonValue`) get
/// other names in TypeScript, so the module still declares each name once.
#[test]
fn typescript_names_never_clash_with_the_envelope() {
    let ts = typescript("../tests/fixtures/typescript/clash");
    for name in ["StrapiError", "JsonValue", "StrapiError2", "JsonValue2"] {
        let declared = ts
            .lines()
            .filter(|l| {
                l.starts_with(&format!("export interface {name} "))
                    || l.starts_with(&format!("export type {name} "))
            })
            .count();
        assert_eq!(declared, 1, "{name} is declared {declared} times:\n{ts}");
    }
    assert!(ts.contains("  value?: JsonValue2 | null;\n"), "{ts}");
    assert!(ts.contains("  raw?: JsonValue;\n"), "{ts}");
    insta::assert_snapshot!("clash_typescript", ts);
}
