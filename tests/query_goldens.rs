//! Every recorded Strapi request of the blog fixture, run through the query module alone:
//! a 400 golden must give the same error (status, name, message, details); a 500 golden
//! must give our 400 ValidationError; any other golden must parse to a `Query`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
mod common;

use strata::query::{self, QueryConfig};
use strata::schema::{self, Model, SchemaId};

/// Strapi crashes (500) on these; strata gives them the meaning documented in
/// ARCHITECTURE.md ("Deviations from Strapi") and answers 200.
/// #382: `filters[tags][$not][name][$eq]=javascript` reads as `filters[$not][tags][name]…`,
/// which Strapi defines row-wise: "has some tag not named javascript".
const MEANINGFUL_200: &[u64] = &[382];

/// The schema a request path addresses, if it is a content-API read.
fn route(model: &Model, path: &str) -> Option<SchemaId> {
    let rest = path.strip_prefix("/api/")?;
    let name = rest.split('/').next()?;
    model
        .by_plural(name)
        .or_else(|| model.by_singular(name))
        .map(|s| s.id)
}

#[test]
fn every_golden_request_gets_strapis_answer_from_the_query_module() {
    let model = schema::load(&common::blog().join("schemas")).unwrap();
    let perms = common::public_permissions(&model);
    let config = QueryConfig::default();
    let (mut ok, mut errors, mut crashes, mut skipped) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for golden in common::goldens() {
        let line = common::encode(golden["line"].as_str().unwrap());
        let (path, raw) = line.split_once('?').unwrap_or((&line, ""));
        let status = golden["status"].as_u64().unwrap();
        let Some(schema) = route(&model, path) else {
            skipped += 1;
            continue;
        };
        if status == 403 || status == 404 {
            // Route-level answers (permission, unknown document): not the query module's.
            skipped += 1;
            continue;
        }
        let result = query::parse_query(raw, &model, schema, &perms, &config);
        let n = golden["n"].as_u64().unwrap();
        match (status, result) {
            (200, Ok(_)) => ok += 1,
            (400, Err(e)) if e.to_body() == golden["body"] => errors += 1,
            (500, Err(e)) if e.name() == "ValidationError" => crashes += 1,
            (500, Ok(_)) if MEANINGFUL_200.contains(&n) => crashes += 1,
            (_, r) => failures.push(format!(
                "#{n} {line}\n   expected {status} {}\n   got {}",
                golden["body"].get("error").unwrap_or(&Value::Null),
                match r {
                    Ok(_) => "Ok(query)".to_string(),
                    Err(e) => e.to_body()["error"].to_string(),
                }
            )),
        }
    }
    println!(
        "query goldens: {ok} parsed, {errors} errors as Strapi, {crashes} Strapi crashes answered 400, {skipped} route-level skipped, {} failed",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
