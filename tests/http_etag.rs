//! HTTP validation: every content answer carries a strong `ETag` of its body; a request
//! naming it in `If-None-Match` gets a bodiless 304; a row written by another connection
//! changes the answer and so the tag, and the old tag then gets the new 200.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn etag_304_and_a_write_elsewhere() {
    let (dir, db) = common::blog_db_copy("etag");
    let addr = common::start_server_on(&format!("sqlite://{}?mode=ro", db.display()));
    let target = "/api/tags?fields[0]=name";

    let (status, headers, body) = common::http_get(addr, target, &[]);
    assert_eq!(status, 200);
    let tag = header(&headers, "etag").unwrap().to_string();
    assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");

    let (status, again, body304) = common::http_get(addr, target, &[("If-None-Match", &tag)]);
    assert_eq!(status, 304);
    assert!(body304.is_empty());
    assert_eq!(header(&again, "etag"), Some(tag.as_str()));
    let weak = format!("W/{tag}");
    assert_eq!(
        common::http_get(addr, target, &[("If-None-Match", &weak)]).0,
        304
    );
    assert_eq!(
        common::http_get(addr, target, &[("If-None-Match", "\"other\"")]).0,
        200
    );

    // Another process renames a tag: the answer and its tag change at once.
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute(
            "UPDATE tags SET name = name || ' (renamed)' WHERE id = (SELECT MIN(id) FROM tags)",
            [],
        )
        .unwrap();
    let (status, headers, new_body) = common::http_get(addr, target, &[("If-None-Match", &tag)]);
    assert_eq!(status, 200);
    assert_ne!(new_body, body);
    assert_ne!(header(&headers, "etag"), Some(tag.as_str()));
    let _ = std::fs::remove_dir_all(&dir);
}
