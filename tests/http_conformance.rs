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
