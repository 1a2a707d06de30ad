//! PostgreSQL: the real server on loopback, over a restore of Strapi's own PostgreSQL
//! dump of the blog fixture (`tests/fixtures/blog/pg/strapi-postgres.sql`, a database
//! created with ICU `en-US` as in the recording), answers every recorded `goldens-pg`
//! request as Strapi did: collation and NULL order, `time` as `HH:mm:ss`, exact
//! bigintegers, jsonb key order, Unicode-aware case-insensitive operators.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

#[test]
fn every_pg_golden_over_http() {
    let Some(db) = common::pg::strapi_blog("goldens") else {
        return;
    };
    let addr = common::start_server_on(&db.url);
    let (passed, failures) = common::replay_goldens(addr, &common::blog().join("pg/goldens"));
    println!("pg goldens: {passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(passed, 236);
}
