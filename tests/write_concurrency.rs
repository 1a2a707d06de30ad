//! Writes against the real server under concurrency, on SQLite, PostgreSQL and MariaDB:
//! * sixteen creates with the same uid (`slug`, unique as Strapi checks it) at once: one
//!   is created, every other gets Strapi's 400 `This attribute must be unique`, never a
//!   5xx;
//! * sixteen updates of one document at once: every one succeeds, and the document ends
//!   whole: one draft and one published row in its locale, the published row equal to the
//!   draft, no link row pointing at a row that is gone;
//! * a write is seen at once by every read: counts, bodies and ETags, on every pooled
//!   connection;
//! * on SQLite, a write interrupted past the event loop's budget is made once, and its
//!   answer is whole;
//! * a `PUT ?locale=fr` (or GraphQL's `updateArticle`) racing `DELETE ?locale=fr` of the
//!   same document answers what it wrote, never a 404: its answer is read inside its
//!   transaction.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::SocketAddr;

use serde_json::Value;

const WRITERS: usize = 16;

fn get(addr: SocketAddr, target: &str) -> Value {
    let (status, _, body) = common::http_get(addr, target, &[]);
    assert_eq!(status, 200, "{target}");
    serde_json::from_slice(&body).unwrap()
}

/// Serves the blog model over `url` with every grant, GraphQL on.
fn serve(url: &str) -> SocketAddr {
    common::serve_with_every_grant_and(url, 8, common::graphql_on())
}

/// Runs `n` requests at once, one thread each; their answers.
fn at_once(n: usize, request: impl Fn(usize) -> (u16, Value) + Sync) -> Vec<(u16, Value)> {
    let barrier = std::sync::Barrier::new(n);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let barrier = &barrier;
                let request = &request;
                s.spawn(move || {
                    barrier.wait();
                    request(i)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn unique_values_hold(addr: SocketAddr) {
    let answers = at_once(WRITERS, |i| {
        let body = format!(r#"{{"data":{{"title":"race {i}","slug":"the-same-slug"}}}}"#);
        common::send_json(addr, "POST", "/api/articles", &body)
    });
    let created = answers.iter().filter(|(s, _)| *s == 201).count();
    let refused: Vec<_> = answers.iter().filter(|(s, _)| *s == 400).collect();
    assert_eq!(created, 1, "{answers:?}");
    assert_eq!(refused.len(), WRITERS - 1, "{answers:?}");
    for (_, body) in refused {
        assert_eq!(
            body["error"]["message"], "This attribute must be unique",
            "{body}"
        );
    }
    let found = get(
        addr,
        "/api/articles?filters[slug][$eq]=the-same-slug&status=draft&fields[0]=slug",
    );
    assert_eq!(found["data"].as_array().unwrap().len(), 1, "{found}");
}

fn one_document_stays_whole(addr: SocketAddr) {
    let doc = "/api/articles/article00000000000000001";
    let answers = at_once(WRITERS, |i| {
        let tags = if i % 2 == 0 {
            r#"["tag000000000000000000001","tag000000000000000000002"]"#
        } else {
            r#"["tag000000000000000000003"]"#
        };
        let body = format!(r#"{{"data":{{"views":{i},"tags":{tags}}}}}"#);
        common::send_json(addr, "PUT", doc, &body)
    });
    assert!(answers.iter().all(|(s, _)| *s == 200), "{answers:?}");
    let fields =
        "fields[0]=views&populate[tags][fields][0]=name&populate[seo]=true&populate[faq]=true";
    let published = get(addr, &format!("{doc}?{fields}"));
    let draft = get(addr, &format!("{doc}?status=draft&{fields}"));
    // One version of each: the list of the document's en rows has one draft, one published.
    let versions = get(
        addr,
        "/api/articles?filters[documentId][$eq]=article00000000000000001&status=draft&fields[0]=views",
    );
    assert_eq!(versions["data"].as_array().unwrap().len(), 1, "{versions}");
    let versions = get(
        addr,
        "/api/articles?filters[documentId][$eq]=article00000000000000001&fields[0]=views",
    );
    assert_eq!(versions["data"].as_array().unwrap().len(), 1, "{versions}");
    let strip = |v: &Value| {
        let mut v = v["data"].clone();
        let o = v.as_object_mut().unwrap();
        o.remove("id");
        for key in ["seo", "faq"] {
            strip_ids(o.get_mut(key).unwrap());
        }
        v
    };
    assert_eq!(
        strip(&published),
        strip(&draft),
        "the published row is the draft's copy"
    );
    let tags = published["data"]["tags"].as_array().unwrap().len();
    assert!(tags == 1 || tags == 2, "{published}");
}

fn strip_ids(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("id");
            o.values_mut().for_each(strip_ids);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_ids),
        _ => {}
    }
}

/// Rounds of each writer in [`a_locale_put_answers_what_it_wrote`].
const ROUNDS: usize = 15;

/// Writers that put the French version of one document (with `PUT`, or GraphQL's
/// `updateArticle`) while others delete it: every write answers the version it wrote (its
/// own title, in `fr`), never the 404 (GraphQL: `null`) of a version deleted between its
/// commit and the read of its answer; every `DELETE` is a 204; one more `PUT` then leaves
/// both of the French rows showing it.
fn a_locale_put_answers_what_it_wrote(addr: SocketAddr) {
    let doc = "/api/articles/article00000000000000001";
    let answers = at_once(12, |i| {
        let mut seen = Vec::new();
        for round in 0..ROUNDS {
            let answer = if i % 3 == 0 {
                common::send_json(addr, "DELETE", &format!("{doc}?locale=fr"), "")
            } else if i % 2 == 0 {
                let body = format!(r#"{{"data":{{"title":"fr {i} {round}"}}}}"#);
                let (status, answer) =
                    common::send_json(addr, "PUT", &format!("{doc}?locale=fr"), &body);
                assert_eq!(status, 200, "PUT {i}/{round}: {answer}");
                assert_eq!(answer["data"]["title"], format!("fr {i} {round}"));
                assert_eq!(answer["data"]["locale"], "fr", "{answer}");
                (status, answer)
            } else {
                let mutation = format!(
                    r#"mutation {{ updateArticle(documentId: "article00000000000000001", locale: "fr", data: {{title: "fr {i} {round}"}}) {{ title locale }} }}"#
                );
                let body = serde_json::json!({ "query": mutation }).to_string();
                let (status, answer) = common::send_json(addr, "POST", "/graphql", &body);
                assert_eq!(status, 200, "mutation {i}/{round}: {answer}");
                let updated = &answer["data"]["updateArticle"];
                assert_eq!(updated["title"], format!("fr {i} {round}"), "{answer}");
                assert_eq!(updated["locale"], "fr", "{answer}");
                (status, answer)
            };
            seen.push(answer.0);
        }
        (0, Value::from(seen))
    });
    for (_, statuses) in &answers {
        for status in statuses.as_array().unwrap() {
            assert!(
                [200, 204].contains(&status.as_u64().unwrap()),
                "{answers:?}"
            );
        }
    }
    // What the race left takes one more write, and both of its rows show it.
    let (status, last) = common::send_json(
        addr,
        "PUT",
        &format!("{doc}?locale=fr"),
        r#"{"data":{"title":"fr last"}}"#,
    );
    assert_eq!(status, 200, "{last}");
    for status in ["draft", "published"] {
        let version = get(
            addr,
            &format!("{doc}?locale=fr&status={status}&fields[0]=title"),
        );
        assert_eq!(version["data"]["title"], "fr last", "{status}: {version}");
    }
}

#[test]
fn concurrent_writes_on_sqlite() {
    let (dir, db) = common::blog_db_copy("write-concurrency");
    let addr = serve(&format!("sqlite://{}", db.display()));
    unique_values_hold(addr);
    one_document_stays_whole(addr);
    a_locale_put_answers_what_it_wrote(addr);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn concurrent_writes_on_postgres() {
    let Some(db) = common::pg::strapi_blog("write_concurrency") else {
        return;
    };
    let addr = serve(&db.url);
    unique_values_hold(addr);
    one_document_stays_whole(addr);
    a_locale_put_answers_what_it_wrote(addr);
}

#[test]
fn concurrent_writes_on_mysql() {
    let Some(db) = common::my::strapi_blog("write_concurrency") else {
        return;
    };
    let addr = serve(&db.url);
    unique_values_hold(addr);
    one_document_stays_whole(addr);
    a_locale_put_answers_what_it_wrote(addr);
}

/// A write is seen at once by the next read: its count, its body and its ETag (a
/// conditional read of the old tag is answered again, not 304), on every pooled
/// connection.
fn reads_see_a_write_at_once(addr: SocketAddr) {
    let target = "/api/tags?fields[0]=name&pagination[pageSize]=100";
    let (status, headers, body) = common::http_get(addr, target, &[]);
    assert_eq!(status, 200);
    let before: Value = serde_json::from_slice(&body).unwrap();
    let total = before["meta"]["pagination"]["total"].as_u64().unwrap();
    let etag = headers
        .iter()
        .find(|(k, _)| k == "etag")
        .map(|(_, v)| v.clone())
        .unwrap();
    // Warm every pooled connection's caches with the old answer.
    for _ in 0..8 {
        let (status, _, _) = common::http_get(addr, target, &[("If-None-Match", &etag)]);
        assert_eq!(status, 304);
    }
    let (status, _) = common::send_json(
        addr,
        "POST",
        "/api/tags",
        r#"{"data":{"name":"seen at once"}}"#,
    );
    assert_eq!(status, 201);
    for _ in 0..8 {
        let (status, _, body) = common::http_get(addr, target, &[("If-None-Match", &etag)]);
        assert_eq!(status, 200, "a write changes the tag");
        let after: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            after["meta"]["pagination"]["total"].as_u64(),
            Some(total + 1)
        );
    }
}

#[test]
fn reads_see_writes_at_once_on_sqlite() {
    let (dir, db) = common::blog_db_copy("write-caches");
    let addr = serve(&format!("sqlite://{}", db.display()));
    reads_see_a_write_at_once(addr);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn reads_see_writes_at_once_on_postgres() {
    let Some(db) = common::pg::strapi_blog("write_caches") else {
        return;
    };
    reads_see_a_write_at_once(serve(&db.url));
}

/// On SQLite a write that has the database to itself runs on the event loop within the
/// reads' budget. With a budget used up at once, a write whose statements (or the read of
/// its answer, inside its transaction) run long enough to be interrupted leaves nothing
/// and is run again on a blocking thread: the write is made once, and its answer is whole.
#[test]
fn a_write_past_the_event_loop_budget_is_made_once_on_sqlite() {
    let (dir, db) = common::blog_db_copy("write-budget");
    let url = format!("sqlite://{}", db.display());
    let config = strata::http::ServerConfig {
        inline_budget: Some(std::time::Duration::ZERO),
        ..strata::http::ServerConfig::default()
    };
    let addr = common::serve_with_every_grant_and(&url, 4, config);
    let every = get(
        addr,
        "/api/articles?fields[0]=title&pagination[pageSize]=100&status=draft",
    );
    let articles: Vec<Value> = every["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["documentId"].clone())
        .collect();
    assert!(articles.len() >= 30, "{every}");
    // Linking every article writes link rows (and their order) in statements long enough
    // to be interrupted; populating them reads enough rows to be.
    let answer = "populate[articles][fields][0]=title&populate[articles][sort][0]=title";
    let body = serde_json::json!({"data": {"name": "every article", "articles": articles}});
    let (status, created) = common::send_json(
        addr,
        "POST",
        &format!("/api/tags?{answer}"),
        &body.to_string(),
    );
    assert_eq!(status, 201, "{created}");
    let found = get(
        addr,
        &format!("/api/tags?filters[name][$eq]=every%20article&{answer}"),
    );
    assert_eq!(found["data"].as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found["data"][0], created["data"]);
    let linked = created["data"]["articles"].as_array().unwrap().len();
    assert!(linked >= 20, "{created}");
    // An update's answer, read again off the event loop, is whole too.
    let tag = created["data"]["documentId"].as_str().unwrap();
    let (status, updated) = common::send_json(
        addr,
        "PUT",
        &format!("/api/tags/{tag}?{answer}"),
        r#"{"data":{"name":"renamed"}}"#,
    );
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["data"]["name"], "renamed");
    assert_eq!(updated["data"]["articles"], created["data"]["articles"]);
    std::fs::remove_dir_all(dir).ok();
}
