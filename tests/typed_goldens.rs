//! The generated structs of the blog schemas (`tests/generated/blog.rs`) read every answer
//! Strapi 5.54 gave with status 200 for articles, authors, categories and tags (lists as
//! `ListResponse<T>`, single entries as `SingleResponse<T>`) without loss: serializing the
//! typed value again gives the same JSON value (compare.py's rules: key order free, numbers
//! by value, so a float field sent as `5` may come back as `5.0`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod blog {
    include!("generated/blog.rs");
}
mod common;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use strata::typed::{ListResponse, SingleResponse};

/// Reads `body` as `R` and writes it back; the first difference, if any.
fn round_trip<R: Serialize + DeserializeOwned>(body: &Value) -> Option<String> {
    let typed: R = match serde_json::from_value(body.clone()) {
        Ok(t) => t,
        Err(e) => return Some(format!("does not deserialize: {e}")),
    };
    let again = serde_json::to_value(&typed).unwrap();
    common::first_difference(body, &again, "$")
}

fn check<T: Serialize + DeserializeOwned>(single: bool, body: &Value) -> Option<String> {
    if single {
        round_trip::<SingleResponse<T>>(body)
    } else {
        round_trip::<ListResponse<T>>(body)
    }
}

#[test]
fn every_200_golden_round_trips_through_the_typed_structs() {
    let (mut counts, mut failures) = ([0usize; 2], Vec::new());
    for golden in common::goldens() {
        if golden["status"] != 200 {
            continue;
        }
        let line = golden["line"].as_str().unwrap();
        let path = line.split('?').next().unwrap();
        let segments: Vec<&str> = path.trim_start_matches("/api/").split('/').collect();
        let single = match segments.len() {
            1 => false,
            2 => true,
            _ => continue,
        };
        let body = &golden["body"];
        let failure = match segments[0] {
            "articles" => check::<blog::Article>(single, body),
            "authors" => check::<blog::Author>(single, body),
            "categories" => check::<blog::Category>(single, body),
            "tags" => check::<blog::Tag>(single, body),
            _ => continue,
        };
        counts[usize::from(single)] += 1;
        if let Some(why) = failure {
            failures.push(format!("{} {line}\n     {why}", golden["n"]));
        }
    }
    println!(
        "typed goldens: {} lists and {} single entries, {} failed",
        counts[0],
        counts[1],
        failures.len()
    );
    // Every list golden of the four types (the fixture has 185) and the single entries.
    assert!(counts[0] >= 185 && counts[1] >= 6, "{counts:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_list_reads_into_typed_fields() {
    let golden = common::goldens()
        .into_iter()
        .find(|g| g["line"] == "/api/articles")
        .unwrap();
    let page: ListResponse<blog::Article> = serde_json::from_value(golden["body"].clone()).unwrap();
    let first = &page.data[0];
    assert_eq!(first.document_id, "article00000000000000001");
    assert_eq!(
        first.title.as_ref().map(String::as_str),
        Some("Hello World")
    );
    assert_eq!(first.kind.as_ref(), Some(&blog::ArticleKind::News));
    assert!(first.author.is_absent(), "not populated");
    assert_eq!(page.meta.pagination.total(), Some(27));
}

#[test]
fn response_envelopes_have_json_schemas() {
    let schema = schemars::schema_for!(ListResponse<blog::Article>);
    let text = serde_json::to_string(&schema).unwrap();
    assert!(
        text.contains("pagination") && text.contains("documentId"),
        "{text}"
    );
}
