//! Strapi's GraphQL answers (recorded from the oracle, `tests/fixtures/blog/graphql/queries/`,
//! see its README) replayed against strata's `/graphql` on the blog database, on SQLite,
//! PostgreSQL and MariaDB: the status and the JSON must equal the answer Strapi gave on
//! that database (objects regardless of key order).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use serde_json::Value;

fn fixtures() -> Vec<(PathBuf, Value)> {
    let dir = common::blog().join("graphql/queries");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p, v)
        })
        .collect()
}

/// The oracle's salt and JWT secret, for the tokens of `tests/fixtures/blog/auth`.
fn with_lab_secrets(mut config: strata::http::ServerConfig) -> strata::http::ServerConfig {
    config.auth = strata::auth::AuthSecrets {
        api_token_salt: strata::auth::Secret::new("lab-api-token-salt"),
        jwt_secret: strata::auth::Secret::new("lab-users-permissions-jwt-secret"),
    };
    config
}

/// A copy of the blog database with the credentials of `tests/fixtures/blog/auth`.
fn credentialed_blog(tag: &str) -> std::net::SocketAddr {
    let (_, db) = common::blog_db_copy(tag);
    let sql = std::fs::read_to_string(common::blog().join("auth/credentials.sqlite.sql")).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    serve_url(
        &format!("sqlite://{}?mode=ro", db.display()),
        with_lab_secrets(common::graphql_on()),
    )
}

fn token(name: &str) -> String {
    if name == "invalid" {
        return "Bearer not-a-token".into();
    }
    let all: Value = serde_json::from_str(
        &std::fs::read_to_string(common::blog().join("auth/credentials.json")).unwrap(),
    )
    .unwrap();
    all[name].as_str().unwrap().to_owned()
}

/// Sends one recorded request; (status, body).
fn send(addr: std::net::SocketAddr, case: &Value) -> (u16, Value) {
    let request = &case["request"];
    let mut headers: Vec<(String, String)> = case["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default();
    if let Some(name) = case["auth"].as_str() {
        headers.push(("Authorization".into(), token(name)));
        headers.push(("Content-Type".into(), "application/json".into()));
        let body = request.to_string();
        return common::send_with_headers(addr, "POST", "/graphql", &headers_ref(&headers), &body);
    }
    let headers = headers_ref(&headers);
    if case["method"] == "GET" {
        let mut target = format!(
            "/graphql?query={}",
            percent(request["query"].as_str().unwrap())
        );
        if !request["variables"].is_null() {
            target.push_str(&format!(
                "&variables={}",
                percent(&request["variables"].to_string())
            ));
        }
        if let Some(name) = request["operationName"].as_str() {
            target.push_str(&format!("&operationName={}", percent(name)));
        }
        let (status, _, body) = common::http_get(addr, &target, &headers);
        return (status, serde_json::from_slice(&body).unwrap_or_default());
    }
    common::send_json(addr, "POST", "/graphql", &request.to_string())
}

fn headers_ref(headers: &[(String, String)]) -> Vec<(&str, &str)> {
    headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

fn percent(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[test]
fn recorded_graphql_queries_answer_as_strapi() {
    replay(credentialed_blog("graphql-queries"), "sqlite");
}

/// Replays every recorded query against `addr`, a server over `backend`'s database;
/// every answer must equal Strapi's on that database: the file's `backends.<backend>`
/// where the oracle answered there otherwise than on SQLite, else its `status` and
/// `response`.
fn replay(addr: std::net::SocketAddr, backend: &str) {
    let cases = fixtures();
    assert!(cases.len() >= 100, "only {} recorded queries", cases.len());
    println!(
        "replaying {} recorded GraphQL queries on {backend}",
        cases.len()
    );
    let mut failures = Vec::new();
    for (path, case) in &cases {
        let (status, body) = send(addr, case);
        let name = path.file_name().unwrap().to_string_lossy();
        let expected = match case["backends"].get(backend) {
            Some(own) => own,
            None => case,
        };
        if expected["status"].as_u64() != Some(u64::from(status)) {
            failures.push(format!(
                "{name}: status {status}, expected {}; {body}",
                expected["status"]
            ));
            continue;
        }
        if let Some(why) = common::first_difference(&expected["response"], &body, "$") {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn graphql_is_off_by_default() {
    let addr = common::start_blog_server("graphql-off");
    let (status, body) =
        common::send_json(addr, "POST", "/graphql", r#"{"query":"{ tags { name } }"}"#);
    assert_eq!(status, 405, "{body}");
    let (status, _, _) = common::http_get(addr, "/graphql?query=%7Btags%7Bname%7D%7D", &[]);
    assert_eq!(status, 404);
}

fn serve_url(url: &str, config: strata::http::ServerConfig) -> std::net::SocketAddr {
    let model = std::sync::Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    let url = strata::store::DatabaseUrl::parse(url).unwrap();
    let store = std::sync::Arc::new(strata::store::Store::open_existing(&url, model, 2).unwrap());
    common::serve_store_with(store, config)
}

/// The recordings on PostgreSQL (Strapi's own dump of the blog fixture, with the
/// credentials of `tests/fixtures/blog/auth`); skipped where PostgreSQL is not reachable
/// (failed under `CI=true`).
#[test]
fn recorded_graphql_queries_on_postgres() {
    let Some(db) = common::pg::strapi_blog("graphql") else {
        return;
    };
    db.execute(&auth_sql("credentials.postgres.sql"));
    replay(
        serve_url(&db.url, with_lab_secrets(common::graphql_on())),
        "postgres",
    );
}

/// The same on MariaDB (Strapi's own dump); skipped where it is not reachable.
#[test]
fn recorded_graphql_queries_on_mysql() {
    let Some(db) = common::my::strapi_blog("graphql") else {
        return;
    };
    db.execute(&auth_sql("credentials.mysql.sql"));
    replay(
        serve_url(&db.url, with_lab_secrets(common::graphql_on())),
        "mysql",
    );
}

fn auth_sql(file: &str) -> String {
    std::fs::read_to_string(common::blog().join("auth").join(file)).unwrap()
}

/// What is not served yet is a failed field with its path, never a refused query: a
/// plugin's mutation (upload's `deleteUploadFile`), review workflows' root queries
/// (strata does not store them).
#[test]
fn unserved_fields_fail_with_their_path() {
    let addr = common::start_blog_server_with("graphql-unserved", common::graphql_on());
    let (status, body) = common::send_json(
        addr,
        "POST",
        "/graphql",
        r#"{"query":"mutation { deleteUploadFile(id: \"1\") { name } }"}"#,
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"], serde_json::json!({"deleteUploadFile": null}));
    assert_eq!(
        body["errors"][0]["path"],
        serde_json::json!(["deleteUploadFile"])
    );
    assert_eq!(body["errors"][0]["extensions"]["code"], "NOT_IMPLEMENTED");
    let (status, body) = common::send_json(
        addr,
        "POST",
        "/graphql",
        r#"{"query":"{ tags { name } reviewWorkflowsWorkflows { name } }"}"#,
    );
    assert_eq!(status, 200, "{body}");
    // `reviewWorkflowsWorkflows: [ReviewWorkflowsWorkflow]!` failed, so `data` is null,
    // as graphql-js nulls it.
    assert_eq!(body["data"], Value::Null);
    assert_eq!(
        body["errors"][0]["path"],
        serde_json::json!(["reviewWorkflowsWorkflows"])
    );
    assert_eq!(body["errors"][0]["extensions"]["code"], "NOT_IMPLEMENTED");
}

/// A document or variables nested far deeper than any real query (a list literal, an
/// `and` of an `and`…, a relation filter of a relation filter…) are refused with a 400
/// before anything recursive walks them: on a thread's stack they would abort the
/// server. The server answers the next query as before.
#[test]
fn deep_nesting_is_refused_and_the_server_stays_up() {
    let addr = common::start_blog_server_with("graphql-nesting", common::graphql_on());
    let post = |body: &Value| common::send_json(addr, "POST", "/graphql", &body.to_string());
    let n = 2_000;
    let documents = [
        format!(
            "{{ articles(filters: {{ title: {{ in: {}{} }} }}) {{ title }} }}",
            "[".repeat(n),
            "]".repeat(n)
        ),
        format!(
            "{{ articles(filters: {}{{ title: {{ eq: \"x\" }} }}{}) {{ title }} }}",
            "{ and: [".repeat(n),
            "] }".repeat(n)
        ),
        format!(
            "{{ articles(filters: {}{{ eq: \"x\" }}{}) {{ title }} }}",
            "{ author: { articles: { title: ".repeat(n / 2),
            " } } }".repeat(n / 2)
        ),
    ];
    for document in &documents {
        let (status, body) = post(&serde_json::json!({ "query": document }));
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            body["errors"][0]["extensions"]["code"],
            "GRAPHQL_PARSE_FAILED"
        );
    }
    let mut deep = serde_json::json!({"title": {"eq": "x"}});
    for _ in 0..150 {
        deep = serde_json::json!({ "and": [deep] });
    }
    let (status, body) = post(&serde_json::json!({
        "query": "query($f: ArticleFiltersInput) { articles(filters: $f) { title } }",
        "variables": { "f": deep },
    }));
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["errors"][0]["extensions"]["code"], "BAD_USER_INPUT");
    // A filter nested as deep as real ones go still runs (Strapi's own filter limit is
    // 16 levels).
    let mut usual = serde_json::json!({"title": {"containsi": "a"}});
    for _ in 0..6 {
        usual = serde_json::json!({ "and": [usual] });
    }
    let (status, body) = post(&serde_json::json!({
        "query": "query($f: ArticleFiltersInput) { articles(filters: $f) { title } }",
        "variables": { "f": usual },
    }));
    assert_eq!(status, 200, "{body}");
    assert!(body["data"]["articles"].is_array(), "{body}");
}

/// A fragment that spreads the one before it twice, forty times over, is a document of
/// 2 KB that selects 2^40 fields once expanded: refused with a 400 at once, not walked.
#[test]
fn fragments_that_expand_past_the_limit_are_refused() {
    let addr = common::start_blog_server_with("graphql-fragments", common::graphql_on());
    let n = 40;
    let mut document = format!("query {{ articles {{ ...F{} }} }} ", n - 1);
    document.push_str("fragment F0 on Article { title } ");
    for i in 1..n {
        document.push_str(&format!(
            "fragment F{i} on Article {{ ...F{0} ...F{0} }} ",
            i - 1
        ));
    }
    let body = serde_json::json!({ "query": document }).to_string();
    let (status, answer) = common::send_json(addr, "POST", "/graphql", &body);
    assert_eq!(status, 400, "{answer}");
    assert_eq!(
        answer["errors"][0]["extensions"]["code"],
        "GRAPHQL_VALIDATION_FAILED"
    );
    // The usual use of fragments runs.
    let body = serde_json::json!({
        "query": "query { articles { ...A } } fragment A on Article { title ...B } fragment B on Article { documentId }"
    })
    .to_string();
    let (status, answer) = common::send_json(addr, "POST", "/graphql", &body);
    assert_eq!(status, 200, "{answer}");
    assert!(answer["data"]["articles"].is_array(), "{answer}");
}
