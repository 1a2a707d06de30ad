//! Methods no route takes, answered as Strapi's router answers them: the recorded
//! `val-methods-and-routes` sequence (`tests/fixtures/blog/writes/`), replayed against the
//! blog server, and the answers to a plain `OPTIONS` and to reads of a missing path.

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
