//! Conditional fields (`conditions.visible`) outside the write path: what the typed
//! inputs, TypeScript and the OpenAPI document call required. A required attribute that
//! a condition may hide is required only where the condition shows it, so none of them
//! makes it required on a create. (Writes against Strapi's answers are the `cond-*`
//! sequences of `write_replay`; the rule evaluator is checked against json-logic-js's
//! answers in `write::condition`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

fn schemas() -> &'static Path {
    Path::new("tests/fixtures/blog/writes/conditions/schemas")
}

#[test]
fn a_conditional_required_attribute_is_not_required_on_create() {
    let model = strata::schema::load(schemas()).unwrap();
    let doc = strata::http::openapi::document(&model, "/api");
    let inputs = &doc["components"]["schemas"];
    // `title` has no condition; `weight`, `url`, `discount`, `badge` and the lists do.
    assert_eq!(
        inputs["OfferCreateInput"]["required"],
        serde_json::json!(["title"])
    );
    assert!(inputs["TicketCreateInput"].get("required").is_none());
    assert!(inputs["TicketCreateInput"]["properties"]["reason"].is_object());

    let ts = strata_codegen::generate_typescript(schemas()).unwrap();
    assert!(ts.contains("export interface OfferCreateInput {\n  title: string;\n"));
    assert!(ts.contains("  weight?: number | null;\n"), "{ts}");
    assert!(ts.contains("  reason?: string | null;\n"), "{ts}");

    let rust = strata_codegen::generate_source(schemas()).unwrap();
    assert!(rust.contains("pub fn new(title: ::std::string::String) -> Self"));
    assert!(rust.contains(
        "/// `weight`: decimal, required where its condition (`conditions.visible`) shows it."
    ));
}

#[test]
fn a_schema_keeps_its_conditions() {
    let model = strata::schema::load(schemas()).unwrap();
    let offer = model.by_uid("api::offer.offer").unwrap();
    let weight = offer.attribute("weight").unwrap();
    assert!(weight.required && !weight.always_required());
    assert!(offer.attribute("title").unwrap().always_required());
    let data = serde_json::json!({"kind": "physical"});
    let data = data.as_object().unwrap();
    assert!(!strata::write::condition::hidden(weight, data));
    assert!(strata::write::condition::hidden(
        offer.attribute("url").unwrap(),
        data
    ));
}
