//! `[api.graphql] introspection = false` refuses `__schema` and `__type` as Strapi in
//! production does (Apollo's `INTROSPECTION_DISABLED`), wherever they are in the
//! document, and still answers `__typename`. The answers are the oracle's, recorded with
//! `apolloServer: { introspection: false }` (`tests/fixtures/blog/graphql/introspection_off/`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use serde_json::Value;

fn graphql(introspection: bool) -> strata::http::ServerConfig {
    strata::http::ServerConfig {
        graphql: strata::http::GraphqlConfig {
            enabled: true,
            introspection,
            ..strata::http::GraphqlConfig::default()
        },
        ..strata::http::ServerConfig::default()
    }
}

fn recorded() -> Vec<Value> {
    let path = common::blog().join("graphql/introspection_off/answers.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn introspection_off_answers_as_strapi_in_production() {
    let addr = common::start_blog_server_with("graphql-introspection-off", graphql(false));
    let cases = recorded();
    assert_eq!(cases.len(), 3);
    for case in cases {
        let body = serde_json::to_string(&case["request"]).unwrap();
        let (status, answer) = common::send_json(addr, "POST", "/graphql", &body);
        assert_eq!(u64::from(status), case["status"], "{}", case["name"]);
        assert_eq!(answer, case["response"], "{}", case["name"]);
    }
}

#[test]
fn introspection_is_on_by_default() {
    assert!(strata::http::GraphqlConfig::default().introspection);
    let addr = common::start_blog_server_with("graphql-introspection-on", graphql(true));
    let (status, answer) = common::send_json(
        addr,
        "POST",
        "/graphql",
        r#"{"query":"{ __type(name: \"Tag\") { name } }"}"#,
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["data"]["__type"]["name"], "Tag");
}
