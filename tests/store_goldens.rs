//! The store alone (no HTTP) against a copy of Strapi's own database: every 200 golden of
//! the blog fixture must come out as the exact JSON body Strapi sent (compared as JSON
//! values, key order free).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use strata::query::{self, QueryConfig};
use strata::schema;
use strata::store::{DatabaseUrl, Store};

#[test]
fn store_answers_every_200_golden_like_strapi() {
    let model = Arc::new(schema::load(&common::blog().join("schemas")).unwrap());
    let url = DatabaseUrl::parse(&format!(
        "sqlite://{}?mode=ro",
        common::blog().join("strapi.db").display()
    ))
    .unwrap();
    let store = Store::open_existing(&url, model.clone(), 1).unwrap();
    let perms = common::public_permissions(&model);
    let config = QueryConfig::default();
    let (mut passed, mut failures) = (0, Vec::new());
    for golden in common::goldens() {
        if golden["status"] != 200 {
            continue;
        }
        let n = golden["n"].as_u64().unwrap();
        let line = common::encode(golden["line"].as_str().unwrap());
        let (path, raw) = line.split_once('?').unwrap_or((&line, ""));
        let segments: Vec<&str> = path.trim_start_matches("/api/").split('/').collect();
        let schema = model.by_plural(segments[0]).unwrap();
        let q = match query::parse_query(raw, &model, schema.id, &perms, &config) {
            Ok(q) => q,
            Err(e) => {
                failures.push(format!("#{n} {line}: query rejected: {e}"));
                continue;
            }
        };
        let body = if schema.uid.as_str() == "plugin::users-permissions.user" {
            store.users_body(&q, 0, None).unwrap()
        } else if let Some(doc) = segments.get(1) {
            store.one_body(&q, Some(doc)).unwrap().unwrap_or_default()
        } else {
            store.list_body(&q).unwrap()
        };
        match common::first_difference(&golden["body"], &body, "$") {
            None => passed += 1,
            Some(d) => failures.push(format!("#{n} {line}\n     {d}")),
        }
    }
    println!("store goldens: {passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
