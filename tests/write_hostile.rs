//! Hostile write bodies against the real server on a writable copy of the blog database:
//! every one gets a 4xx in Strapi's error shape, and the database is exactly as it was
//! (every table's rows compared), so a refused write never leaves anything behind.
//!
//! The set covers wrong types, deep nesting, huge arrays, unknown keys, relation cycles
//! (positions that point at each other), SQL-looking strings where a value must name
//! something, and invalid UTF-8; it also checks that the server is still answering after
//! all of them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{Read, Write};
use std::net::SocketAddr;

use serde_json::Value;

/// Sends one request with a body; returns (status, body).
fn send(
    addr: SocketAddr,
    method: &str,
    target: &str,
    content_type: &str,
    body: &[u8],
) -> (u16, Vec<u8>) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) before it has read everything.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an answer");
    let status = String::from_utf8_lossy(&raw[..split])
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, raw[split + 4..].to_vec())
}

/// Every row of every table, as text, in a fixed order.
fn snapshot(db: &std::path::Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let tables: Vec<String> = conn
        .prepare("select name from sqlite_master where type = 'table' order by name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = Vec::new();
    for t in tables {
        let mut stmt = conn
            .prepare(&format!("select * from \"{t}\" order by 1"))
            .unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                let cells: Vec<String> = (0..n)
                    .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                    .collect();
                Ok(cells.join("|"))
            })
            .unwrap();
        for row in rows {
            out.push(format!("{t}: {}", row.unwrap()));
        }
    }
    out
}

fn nested(depth: usize, leaf: &str) -> String {
    format!("{}{leaf}{}", "[".repeat(depth), "]".repeat(depth))
}

/// (what, method, target, content type, body).
fn hostile() -> Vec<(String, &'static str, String, &'static str, Vec<u8>)> {
    let a1 = "/api/articles/article00000000000000001";
    let mut cases: Vec<(String, &'static str, String, &'static str, Vec<u8>)> = Vec::new();
    let mut json = |what: &str, method: &'static str, target: &str, body: String| {
        cases.push((
            what.into(),
            method,
            target.into(),
            "application/json",
            body.into_bytes(),
        ));
    };
    // Wrong types.
    for (what, data) in [
        ("title as a number", r#"{"title":123}"#),
        ("title as an object", r#"{"title":{"a":1}}"#),
        ("title as a list", r#"{"title":["a"]}"#),
        ("views as text", r#"{"views":"many"}"#),
        ("views as a fraction", r#"{"views":1.5}"#),
        ("views as a boolean", r#"{"views":true}"#),
        ("rating as an object", r#"{"rating":{"x":1}}"#),
        ("featured as text", r#"{"featured":"yes"}"#),
        ("featured as 2", r#"{"featured":2}"#),
        ("wordCount with letters", r#"{"wordCount":"12abc"}"#),
        ("kind outside the enumeration", r#"{"kind":"gossip"}"#),
        ("email without an at", r#"{"contactEmail":"nobody"}"#),
        ("uid with spaces", r#"{"slug":"a b c"}"#),
        ("date that is not one", r#"{"publishDate":"2024-13-45"}"#),
        ("datetime that is not one", r#"{"eventAt":"yesterday"}"#),
        ("time without seconds", r#"{"startTime":"10:30"}"#),
        ("component as a list", r#"{"seo":[{"metaTitle":"x"}]}"#),
        ("repeatable as an object", r#"{"faq":{"question":"x"}}"#),
        (
            "zone item without a component",
            r#"{"blocks":[{"body":"x"}]}"#,
        ),
        (
            "zone item of an unknown component",
            r#"{"blocks":[{"__component":"x.y"}]}"#,
        ),
        ("data as a list", r#"[]"#),
    ] {
        let body = if data.starts_with('[') && data.len() == 2 {
            r#"{"data":[]}"#.to_string()
        } else {
            format!(r#"{{"data":{data}}}"#)
        };
        json(what, "POST", "/api/articles", body);
    }
    // Missing or malformed bodies.
    json(
        "no data key",
        "POST",
        "/api/articles",
        r#"{"title":"x"}"#.into(),
    );
    json(
        "data as a string",
        "POST",
        "/api/articles",
        r#"{"data":"x"}"#.into(),
    );
    json(
        "truncated JSON",
        "POST",
        "/api/articles",
        r#"{"data":{"title":"x""#.into(),
    );
    json("a JSON string", "POST", "/api/articles", r#""data""#.into());
    json(
        "trailing garbage",
        "POST",
        "/api/articles",
        r#"{"data":{}}garbage"#.into(),
    );
    // Unknown and system keys.
    for (what, data) in [
        ("an unknown key", r#"{"bogus":1}"#),
        ("a dotted key", r#"{"seo.metaTitle":"x"}"#),
        ("an id", r#"{"id":1}"#),
        ("a documentId", r#"{"documentId":"x"}"#),
        ("createdAt", r#"{"createdAt":"2020-01-01T00:00:00.000Z"}"#),
        (
            "an unknown key inside a component",
            r#"{"seo":{"bogus":1}}"#,
        ),
        (
            "an unknown key in a relation object",
            r#"{"tags":{"count":3}}"#,
        ),
        (
            "a SQL-looking key",
            r#"{"title; DROP TABLE articles; --":"x"}"#,
        ),
    ] {
        json(
            what,
            "POST",
            "/api/articles",
            format!(r#"{{"data":{data}}}"#),
        );
    }
    // SQL-looking strings where a value names something that must exist.
    for (what, data) in [
        ("a SQL-looking relation id", r#"{"tags":["x' OR '1'='1"]}"#),
        (
            "a SQL-looking author",
            r#"{"author":"1; DELETE FROM authors"}"#,
        ),
        ("a SQL-looking enumeration", r#"{"kind":"news' OR 1=1 --"}"#),
        ("a SQL-looking media id", r#"{"cover":"1 OR 1=1"}"#),
    ] {
        json(
            what,
            "POST",
            "/api/articles",
            format!(r#"{{"data":{data}}}"#),
        );
    }
    // Relation cycles: positions that point at each other, and an anchor not in the list.
    json(
        "two connects placed before each other",
        "PUT",
        a1,
        r#"{"data":{"tags":{"connect":[{"documentId":"tag000000000000000000002","position":{"before":"tag000000000000000000003"}},{"documentId":"tag000000000000000000003","position":{"before":"tag000000000000000000002"}}]}}}"#.into(),
    );
    json(
        "a connect placed before itself",
        "PUT",
        a1,
        r#"{"data":{"tags":{"connect":[{"documentId":"tag000000000000000000002","position":{"before":"tag000000000000000000002"}}]}}}"#.into(),
    );
    json(
        "a linked entry placed before itself",
        "PUT",
        a1,
        r#"{"data":{"tags":{"connect":[{"documentId":"tag000000000000000000001","position":{"before":"tag000000000000000000001"}}]}}}"#.into(),
    );
    json(
        "an anchor that is not linked",
        "PUT",
        a1,
        r#"{"data":{"tags":{"connect":[{"documentId":"tag000000000000000000002","position":{"after":"tag000000000000000000007"}}]}}}"#.into(),
    );
    // Deep nesting and huge arrays.
    json(
        "a JSON attribute 5000 levels deep",
        "POST",
        "/api/articles",
        format!(r#"{{"data":{{"metadata":{}}}}}"#, nested(5000, "1")),
    );
    json(
        "an unknown key under 800 levels",
        "POST",
        "/api/articles",
        format!(r#"{{"data":{{"zzz":{}}}}}"#, nested(800, "1")),
    );
    let many_missing: Vec<String> = (0..20_000).map(|i| format!("\"missing{i:018}\"")).collect();
    json(
        "20000 tags that do not exist",
        "POST",
        "/api/articles",
        format!(r#"{{"data":{{"tags":[{}]}}}}"#, many_missing.join(",")),
    );
    // Row ids, which Strapi counts with one `$in`: a list this long once took a minute of
    // the write lock (a duplicate check that scanned the list for every id).
    let many_ids: Vec<String> = (1_000_000..1_100_000).map(|i| i.to_string()).collect();
    json(
        "100000 tag row ids that do not exist",
        "POST",
        "/api/articles",
        format!(
            r#"{{"data":{{"tags":{{"connect":[{}]}}}}}}"#,
            many_ids.join(",")
        ),
    );
    // Numbers past what the column or a JavaScript date holds: refused, never clamped.
    json(
        "an integer past 64 bits",
        "POST",
        "/api/articles",
        r#"{"data":{"title":"n","views":1e308}}"#.into(),
    );
    json(
        "an integer of 30 digits",
        "POST",
        "/api/articles",
        r#"{"data":{"title":"n","views":123456789012345678901234567890}}"#.into(),
    );
    json(
        "a date-time past a JavaScript date",
        "POST",
        "/api/articles",
        r#"{"data":{"title":"n","eventAt":1e20}}"#.into(),
    );
    let big = "x".repeat(1024 * 1024);
    json(
        "a body over 1 MiB",
        "POST",
        "/api/articles",
        format!(r#"{{"data":{{"title":"{big}"}}}}"#),
    );
    let many_faq: Vec<String> = (0..5000).map(|_| r#"{"question":1}"#.to_string()).collect();
    json(
        "5000 components of a wrong type",
        "POST",
        "/api/articles",
        format!(r#"{{"data":{{"faq":[{}]}}}}"#, many_faq.join(",")),
    );
    // Invalid UTF-8 in a place that must name something.
    let mut bytes = br#"{"data":{"kind":""#.to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe, 0xfd]);
    bytes.extend_from_slice(br#""}}"#);
    cases.push((
        "invalid UTF-8 in an enumeration".into(),
        "POST",
        "/api/articles".into(),
        "application/json",
        bytes,
    ));
    let mut key = br#"{"data":{""#.to_vec();
    key.extend_from_slice(&[0xc3, 0x28]);
    key.extend_from_slice(br#"":1}}"#);
    cases.push((
        "invalid UTF-8 in a key".into(),
        "POST",
        "/api/articles".into(),
        "application/json",
        key,
    ));
    // Wrong places.
    cases.push((
        "a status=draft delete".into(),
        "DELETE",
        format!("{a1}?status=draft"),
        "application/json",
        Vec::new(),
    ));
    cases.push((
        "a form body with a bad number".into(),
        "POST",
        "/api/articles".into(),
        "application/x-www-form-urlencoded",
        b"data[views]=lots".to_vec(),
    ));
    cases
}

#[test]
fn hostile_bodies_get_4xx_and_write_nothing() {
    let (dir, db) = common::blog_db_copy("write-hostile");
    let addr = common::serve_with_every_grant(&format!("sqlite://{}", db.display()), 2);
    let before = snapshot(&db);
    let cases = hostile();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut failures = Vec::new();
    for (what, method, target, content_type, body) in &cases {
        let (status, answer) = send(addr, method, target, content_type, body);
        let parsed: Value = serde_json::from_slice(&answer).unwrap_or_default();
        eprintln!("{what}: {status} {}", parsed["error"]["message"]);
        let shaped = parsed["data"].is_null()
            && parsed["error"]["status"].as_u64() == Some(u64::from(status))
            && parsed["error"]["name"].is_string()
            && parsed["error"]["message"].is_string();
        if !(400..500).contains(&status) || !shaped {
            failures.push(format!(
                "{what}: {status} {}",
                String::from_utf8_lossy(&answer)
                    .chars()
                    .take(200)
                    .collect::<String>()
            ));
        }
        if snapshot(&db) != before {
            failures.push(format!("{what}: the database changed"));
            break;
        }
    }
    // The server still answers.
    let (status, _) = send(
        addr,
        "POST",
        "/api/tags",
        "application/json",
        br#"{"data":{"name":"after"}}"#,
    );
    assert_eq!(status, 201);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    std::fs::remove_dir_all(dir).ok();
}
