//! A folder of schemas with many mistakes gets one clear message per mistake: the file,
//! the JSON path and what is wrong. Every message is asserted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use strata::schema;

fn messages(dir: &Path) -> Vec<String> {
    let errors = match schema::load(dir) {
        Ok(_) => panic!("{} should not load", dir.display()),
        Err(e) => e,
    };
    errors
        .0
        .iter()
        .map(|e| {
            let file = e.file.strip_prefix(dir).unwrap_or(&e.file);
            format!("{}: {}: {}", file.display(), e.path, e.problem)
        })
        .collect()
}

#[test]
fn every_mistake_is_reported_once_with_file_path_and_problem() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/broken");
    let mut got = messages(&dir);
    got.sort();
    let post = "api/post/content-types/post/schema.json";
    let writer = "api/writer/content-types/writer/schema.json";
    let mut want = vec![
        format!(
            "{post}: $.attributes.title.type: unknown attribute type `strng`: expected one of string, text, richtext, blocks, email, password, uid, enumeration, integer, biginteger, float, decimal, boolean, date, time, datetime, timestamp, json, media, relation, component, dynamiczone or customField"
        ),
        format!(
            "{post}: $.attributes.createdAt: attribute name `createdAt` is reserved (id, documentId, locale, localizations, publishedAt, createdAt, updatedAt, createdBy and updatedBy are managed by strata)"
        ),
        format!(
            "{post}: $.attributes.ghost.target: relation target `api::ghost.ghost` does not exist"
        ),
        format!(
            "{post}: $.attributes.writer.inversedBy: `inversedBy: \"articles\"` names an attribute that `api::writer.writer` does not have"
        ),
        format!(
            "{writer}: $.attributes.posts.mappedBy: `mappedBy: \"writer\"` expects `api::post.post.writer` to declare `inversedBy: \"posts\"`"
        ),
        format!("{post}: $.attributes.seo.component: component `shared.nope` does not exist"),
        format!(
            "{post}: $.attributes.shown.conditions: unknown JSON Logic operation `matches` (json-logic-js, which Strapi evaluates conditions with, knows ==, ===, !=, !==, >, >=, <, <=, !!, !, %, log, in, cat, substr, +, *, -, /, min, max, merge, var, missing, missing_some, if, ?:, and, or, filter, map, reduce, all, none, some)"
        ),
        format!(
            "{post}: $.attributes.blocks.components[1]: dynamic-zone component `shared.missing` does not exist"
        ),
        format!(
            "{post}: $.info.singularName: duplicate singularName `post`: also used by api::page.page"
        ),
        format!(
            "{post}: $.info.pluralName: duplicate pluralName `posts`: also used by api::page.page"
        ),
        "components/loop/a.json: $.attributes: component cycle: loop.a → loop.b → loop.a"
            .to_string(),
    ];
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn a_folder_without_schemas_says_where_it_looked() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let got = messages(&dir.join("fixtures/blog/goldens"));
    assert_eq!(got.len(), 1);
    assert!(got[0].contains("no schemas found"), "{got:?}");
}

#[test]
fn invalid_json_names_the_file() {
    let dir = tempdir();
    let ct = dir.join("api/thing/content-types/thing");
    std::fs::create_dir_all(&ct).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(ct.join("schema.json"), "{ \"kind\": ").unwrap_or_else(|e| panic!("{e}"));
    let got = messages(&dir);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with(
            "api/thing/content-types/thing/schema.json: $: invalid JSON: EOF while parsing"
        ),
        "{got:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempdir() -> std::path::PathBuf {
    common::temp_dir("test")
}
