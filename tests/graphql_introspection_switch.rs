//! Introspection over HTTP. `[api.graphql] introspection = false` refuses `__schema` and
//! `__type` as Strapi in production does (Apollo's `INTROSPECTION_DISABLED`), wherever
//! they are in the document, and still answers `__typename`. The answers are the
//! oracle's, recorded with `apolloServer: { introspection: false }`
//! (`tests/fixtures/blog/graphql/introspection_off/`). On (the default), `/graphql`
//! answers graphql-js's full introspection query with Strapi's recorded answer
//! (`introspection.json`), and introspection documents (alone, mixed with other fields,
//! with fragments, directives and variables, or invalid) as Strapi does
//! (`introspection_on/`, recorded with its `record.py`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use serde_json::Value;

fn graphql(introspection: bool) -> strata::http::ServerConfig {
    let mut config = common::graphql_on();
    config.graphql.introspection = introspection;
    config
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

/// graphql-js's full introspection query (`getIntrospectionQuery` with every option),
/// sent over HTTP, answers what Strapi answered, in Strapi's order.
#[test]
fn the_full_introspection_query_answers_strapis() {
    let addr = common::start_blog_server_with("graphql-introspection-full", graphql(true));
    let body = serde_json::json!({ "query": strata::graphql::INTROSPECTION_QUERY }).to_string();
    let (status, answer) = common::send_json(addr, "POST", "/graphql", &body);
    assert_eq!(status, 200, "{answer}");
    let path = common::blog().join("graphql/introspection.json");
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(
        answer == recorded,
        "the introspection differs from Strapi's"
    );
    // Keys in graphql-js's order too.
    assert_eq!(
        serde_json::to_string(&answer).unwrap(),
        serde_json::to_string(&recorded).unwrap()
    );
}

/// Introspection documents answered as Strapi answers them: `__schema` and `__type`
/// beside other root fields (merged in the selection's order), in fragments, under
/// `@skip`/`@include`, from variables, picked by `operationName`; what each kind of type
/// has; graphql-js's validation errors of introspection selections.
#[test]
fn introspection_documents_answer_as_strapi() {
    let addr = common::start_blog_server_with("graphql-introspection-documents", graphql(true));
    let path = common::blog().join("graphql/introspection_on/answers.json");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let mut failed = Vec::new();
    for case in &cases {
        let body = serde_json::to_string(&case["request"]).unwrap();
        let (status, answer) = common::send_json(addr, "POST", "/graphql", &body);
        if u64::from(status) != case["status"] || answer != case["response"] {
            failed.push(format!(
                "{}: {status} {answer}\n  Strapi: {} {}",
                case["name"], case["status"], case["response"]
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
