//! Methods no route takes, answered as Strapi's router answers them: the recorded
//! `val-methods-and-routes` sequence (`tests/fixtures/blog/writes/`), replayed against the
//! blog server, and the answers to a plain `OPTIONS` and to reads of a missing path; routes
//! matched regardless of case as koa-router matches them, a preflight without `Allow`, and
//! Node's 16 KiB limit on a request's head, all checked against the oracle.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use serde_json::Value;

fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[test]
fn other_methods_get_strapis_405() {
    let addr = common::start_blog_server("methods");
    let file = common::blog()
        .join("writes")
        .join("sqlite")
        .join("val-methods-and-routes.json");
    let recording: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let steps = recording["steps"].as_array().unwrap();
    assert!(steps.len() >= 6, "{}", steps.len());
    let mut failures = Vec::new();
    for step in steps {
        let method = step["request"]["method"].as_str().unwrap();
        let path = step["request"]["path"].as_str().unwrap();
        let expected = &step["response"];
        let (status, headers, body) = common::http_request(addr, method, path, &[]);
        let body = String::from_utf8_lossy(&body).to_string();
        let got = (
            u64::from(status),
            header(&headers, "content-type").map(str::to_string),
            body.clone(),
        );
        let want = (
            expected["status"].as_u64().unwrap(),
            expected["content_type"].as_str().map(str::to_string),
            expected["body"]["_raw"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
        // koa-router's `Allow`: the methods of the path's routes, checked against the
        // oracle (`curl -i -X PATCH …/api/articles/x`).
        let allow = if path.starts_with("/api/nothings") {
            "HEAD, GET"
        } else if path.trim_end_matches('/') == "/api/articles" {
            "HEAD, GET, POST"
        } else {
            "HEAD, GET, PUT, DELETE"
        };
        if got != want || header(&headers, "allow") != Some(allow) {
            failures.push(format!(
                "{method} {path}: got {got:?} {headers:?}, Strapi {want:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn options_and_reads_of_missing_paths_answer_as_strapi() {
    let addr = common::start_blog_server("methods-options");
    // A plain OPTIONS: 200, no body, `Allow`, on a route and elsewhere.
    for (path, allow) in [
        ("/api/articles", "HEAD, GET, POST"),
        (
            "/api/articles/article00000000000000001",
            "HEAD, GET, PUT, DELETE",
        ),
        ("/nothing", "HEAD, GET"),
    ] {
        let (status, headers, body) = common::http_request(addr, "OPTIONS", path, &[]);
        assert_eq!(status, 200, "{path}");
        assert!(body.is_empty(), "{path}");
        assert_eq!(header(&headers, "allow"), Some(allow), "{path}");
    }
    // A read of a missing path is Strapi's JSON 404, not the 405.
    let (status, headers, body) = common::http_request(addr, "GET", "/api/nothings", &[]);
    assert_eq!(status, 404);
    assert_eq!(
        header(&headers, "content-type"),
        Some("application/json; charset=utf-8")
    );
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"]["name"], "NotFoundError");
    // Any other method on a missing path is the 405 (Strapi's catch-all takes GET only).
    let (status, headers, body) = common::http_request(addr, "DELETE", "/nothing", &[]);
    assert_eq!(status, 405);
    assert_eq!(body, b"Method Not Allowed");
    assert_eq!(header(&headers, "allow"), Some("HEAD, GET"));
}

#[test]
fn routes_match_in_any_case_and_a_preflight_has_no_allow() {
    let addr = common::start_blog_server("route-case");
    // koa-router matches a route's text regardless of case (`sensitive: false`).
    let (status, _, lower) = common::http_get(addr, "/api/tags?fields[0]=name", &[]);
    assert_eq!(status, 200);
    let (status, _, upper) = common::http_get(addr, "/API/Tags?fields[0]=name", &[]);
    assert_eq!((status, upper), (200, lower));
    let one = "/Api/ARTICLES/article00000000000000001?fields[0]=title";
    assert_eq!(common::http_get(addr, one, &[]).0, 200);
    // A documentId keeps the case it was sent in.
    let other = "/api/articles/ARTICLE00000000000000001";
    assert_eq!(common::http_get(addr, other, &[]).0, 404);
    // A preflight is `@koa/cors`'s answer, before any router: no `Allow`.
    let asked = [
        ("Origin", "http://x.test"),
        ("Access-Control-Request-Method", "POST"),
    ];
    let (status, headers, _) = common::http_request(addr, "OPTIONS", "/api/articles", &asked);
    assert_eq!(status, 204);
    assert_eq!(header(&headers, "allow"), None, "{headers:?}");
}

#[test]
fn a_request_head_of_16_kib_is_431_counted_as_node_counts_it() {
    let addr = common::start_blog_server("head-size");
    // Node's parser counts the target and each header's name and value; Strapi answered
    // `GET /api/tags?x=…` 431 once they made 16,384 bytes (`send_with_headers` sends
    // `Host`, `Connection: close` and `Content-Length: 0`).
    let sent = "Host".len()
        + addr.to_string().len()
        + "Connection".len()
        + "close".len()
        + "Content-Length".len()
        + "0".len();
    let target = |len: usize| format!("/api/tags?x={}", "a".repeat(len - "/api/tags?x=".len()));
    let get = |len: usize| common::send_with_headers(addr, "GET", &target(len), &[], "").0;
    assert_eq!(get(16_384 - sent - 1), 200);
    assert_eq!(get(16_384 - sent), 431);
}

/// A documentId that does not decode to UTF-8 (`%ff`) names no document: Strapi's JSON
/// 404 (koa-router keeps the raw text), after the caller's grants, never axum's
/// plain-text rejection.
#[test]
fn an_undecodable_document_id_is_strapis_404() {
    let addr = common::start_blog_server("methods-undecodable");
    for path in ["/api/articles/%ff", "/api/tags/%ff%fe"] {
        let (status, headers, body) = common::http_request(addr, "GET", path, &[]);
        assert_eq!(status, 404, "{path}");
        assert_eq!(
            header(&headers, "content-type"),
            Some("application/json; charset=utf-8"),
            "{path}"
        );
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"]["name"], "NotFoundError", "{path}");
    }
    // An anonymous write is refused for its grants first, as any other.
    let (status, _, body) = common::http_request(addr, "DELETE", "/api/articles/%ff", &[]);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["name"], "ForbiddenError");
}
