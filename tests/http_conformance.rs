//! The real server on loopback, over a copy of Strapi's own database, answers every
//! recorded request of the blog fixture as Strapi did (compare.py's rules: JSON values,
//! key order free; where Strapi crashed, a 400 ValidationError or a documented 200).
//! Also: Strapi's 404 body, the v4 response format, compression and the health check.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::SocketAddr;

use serde_json::Value;

/// Starts the server on a copy of strapi.db; returns its address.
fn start_server() -> SocketAddr {
    common::start_blog_server("http")
}

fn get_json(addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> (u16, Value) {
    let (status, _, body) = common::http_get(addr, target, headers);
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

#[test]
fn every_golden_over_http() {
    let addr = start_server();
    let (mut passed, mut failures) = (0, Vec::new());
    for golden in common::goldens() {
        let target = common::encode(golden["line"].as_str().unwrap());
        let (status, body) = get_json(addr, &target, &[]);
        match common::judge(&golden, status, &body) {
            None => passed += 1,
            Some(why) => failures.push(format!("FAIL {} {target}\n     {why}", golden["n"])),
        }
    }
    println!("http goldens: {passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// On SQLite a request runs on the event loop within a time budget, and one that runs
/// past it is answered again on a blocking thread. Every golden gets the same bytes from
/// a server whose budget is used up at once (every read long enough to be interrupted
/// falls back), from one that never answers on the event loop, and from the default.
#[test]
fn the_event_loop_budget_never_changes_an_answer() {
    use std::time::Duration;
    let with_budget = |budget| {
        common::start_blog_server_with(
            "budget",
            strata::http::ServerConfig {
                inline_budget: budget,
                ..strata::http::ServerConfig::default()
            },
        )
    };
    let servers = [
        start_server(),
        with_budget(Some(Duration::ZERO)),
        with_budget(None),
    ];
    for golden in common::goldens() {
        let target = common::encode(golden["line"].as_str().unwrap());
        let answers: Vec<_> = servers
            .iter()
            .map(|addr| {
                let (status, _, body) = common::http_get(*addr, &target, &[]);
                (status, body)
            })
            .collect();
        assert_eq!(answers[0], answers[1], "{target}");
        assert_eq!(answers[0], answers[2], "{target}");
    }
}

#[test]
fn unknown_routes_and_health() {
    let addr = start_server();
    let (status, body) = get_json(addr, "/api/nope", &[]);
    assert_eq!(status, 404);
    assert_eq!(
        body,
        serde_json::json!({"data": null, "error": {"status": 404, "name": "NotFoundError", "message": "Not Found", "details": {}}})
    );
    let (status, body) = get_json(addr, "/_health", &[]);
    assert_eq!((status, body), (200, serde_json::json!({"status": "ok"})));
    let (status, body) = get_json(addr, "/api/articles/nope00000000000000000000", &[]);
    assert_eq!(status, 404);
    assert_eq!(body["error"]["name"], "NotFoundError");
}

#[test]
fn v4_format_wraps_attributes_and_relations() {
    let addr = start_server();
    let (status, body) = get_json(
        addr,
        "/api/articles?fields[0]=title&populate[0]=author&populate[1]=seo&pagination[pageSize]=1",
        &[("Strapi-Response-Format", "v4")],
    );
    assert_eq!(status, 200);
    let entry = &body["data"][0];
    assert!(
        entry["id"].is_number() && entry["documentId"].is_string(),
        "{entry}"
    );
    assert_eq!(entry["attributes"]["title"], "Hello World");
    assert_eq!(
        entry["attributes"]["author"]["data"]["attributes"]["name"],
        "Ada Lovelace"
    );
    assert!(
        entry["attributes"]["seo"]["metaTitle"].is_string(),
        "components stay flat: {entry}"
    );
    assert_eq!(body["meta"]["pagination"]["pageSize"], 1);
}

#[test]
fn compression_is_negotiated() {
    let addr = start_server();
    let (status, headers, body) = common::http_get(
        addr,
        "/api/articles?populate=*",
        &[("Accept-Encoding", "gzip")],
    );
    assert_eq!(status, 200);
    assert!(
        headers
            .iter()
            .any(|(k, v)| k == "content-encoding" && v == "gzip"),
        "{headers:?}"
    );
    assert_eq!(&body[..2], &[0x1f, 0x8b], "gzip magic");
    let (_, headers, _) = common::http_get(
        addr,
        "/api/articles?populate=*",
        &[("Accept-Encoding", "br")],
    );
    assert!(
        headers
            .iter()
            .any(|(k, v)| k == "content-encoding" && v == "br"),
        "{headers:?}"
    );
    let (_, headers, body) = common::http_get(addr, "/api/articles", &[]);
    assert!(!headers.iter().any(|(k, _)| k == "content-encoding"));
    assert!(serde_json::from_slice::<Value>(&body).is_ok());
}

/// A trailing slash is the same route, as in Strapi 5.54 (asked of the oracle:
/// `/api/articles/?fields[0]=title&pagination[pageSize]=1` answers the list,
/// `/api/articles/article00000000000000001/?fields[0]=title` the entry).
#[test]
fn a_trailing_slash_is_the_same_route() {
    let addr = start_server();
    for (with, without) in [
        (
            "/api/articles/?fields[0]=title&pagination[pageSize]=1",
            "/api/articles?fields[0]=title&pagination[pageSize]=1",
        ),
        (
            "/api/articles/article00000000000000001/?fields[0]=title",
            "/api/articles/article00000000000000001?fields[0]=title",
        ),
        ("/api/users/", "/api/users"),
    ] {
        let (status, body) = get_json(addr, with, &[]);
        assert_eq!(status, 200, "{with}: {body}");
        assert_eq!((status, body), get_json(addr, without, &[]), "{with}");
    }
    let (_, body) = get_json(
        addr,
        "/api/articles/?fields[0]=title&pagination[pageSize]=1",
        &[],
    );
    assert_eq!(
        body,
        serde_json::json!({"data": [{"id": 2, "documentId": "article00000000000000001", "title": "Hello World"}], "meta": {"pagination": {"page": 1, "pageSize": 1, "pageCount": 27, "total": 27}}})
    );
}

/// Characters curl sends raw but browsers encode (`"`, `<`, `>`, `` ` ``) get the answer
/// of the encoded request, as from Strapi (Node reads them raw), not the HTTP parser's bare
/// 400; keep-alive requests after one with a body are escaped too.
#[test]
fn raw_quotes_and_angle_brackets_in_the_target_are_answered_as_encoded() {
    let addr = common::start_blog_server("raw-target");
    for (raw, encoded) in [
        (
            "/api/articles?fields[0]=title&filters[title][$eq]=\"Hello World\"",
            "/api/articles?fields[0]=title&filters[title][$eq]=%22Hello%20World%22",
        ),
        (
            "/api/articles?fields[0]=title&filters[title][$containsi]=<b>",
            "/api/articles?fields[0]=title&filters[title][$containsi]=%3Cb%3E",
        ),
        (
            "/api/articles?fields[0]=title&filters[bogus\"]=1",
            "/api/articles?fields[0]=title&filters[bogus%22]=1",
        ),
    ] {
        // The raw form goes out as is (spaces aside, which no client sends raw).
        let raw = raw.replace(' ', "%20");
        let (s1, _, b1) = common::http_get(addr, &raw, &[]);
        let (s2, _, b2) = common::http_get(addr, encoded, &[]);
        assert_eq!((s1, &b1), (s2, &b2), "{raw}");
        assert!(!b1.is_empty(), "a body in Strapi's shape: {raw}");
    }
    let (status, _, body) = common::http_get(
        addr,
        "/api/articles?fields[0]=title&filters[bogus\"]=1",
        &[],
    );
    assert_eq!(status, 400);
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"]["name"], "ValidationError");
    assert_eq!(body["error"]["message"], "Invalid key bogus\"");
}

/// Request smuggling through the target rewriter: a `Content-Length` padded past what an
/// earlier rewriter inspected made it read the body as a request line and escape its
/// quotes, so hyper read the rest of the body as a second, smuggled request. Now the
/// rewriter never reads past a request that may have a body: one request, one response.
#[test]
fn a_padded_content_length_smuggles_no_request() {
    use std::io::{Read, Write};
    let addr = common::start_blog_server("smuggle");
    // A body that reads as a request line: escaping its quotes would make it longer than
    // its Content-Length, and hyper would take what spills over for another request.
    let body = format!("X {} HTTP/1.1\r\n\r\n", "\"".repeat(10));
    let request = format!(
        "POST /api/articles HTTP/1.1\r\nHost: x\r\nContent-Length:{}{}\r\n\r\n{body}",
        " ".repeat(300),
        body.len()
    );
    let mut conn = std::net::TcpStream::connect(addr).unwrap();
    conn.set_read_timeout(Some(std::time::Duration::from_millis(1500)))
        .unwrap();
    conn.write_all(request.as_bytes()).unwrap();
    // Everything the server sends until it has been quiet for 1.5 s (a smuggled request
    // would get an answer of its own on the same connection).
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Ok(n) = conn.read(&mut chunk) {
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..n]);
    }
    let answer = String::from_utf8_lossy(&answer);
    let responses = answer.matches("HTTP/1.1 ").count();
    assert_eq!(responses, 1, "{answer}");
    assert!(!answer.contains("HTTP/1.1 400"), "{answer}");
}
