//! PostgreSQL: the real server on loopback, over a restore of Strapi's own PostgreSQL
//! dump of the blog fixture (`tests/fixtures/blog/pg/strapi-postgres.sql`, a database
//! created with ICU `en-US` as in the recording), answers every recorded `goldens-pg`
//! request as Strapi did: collation and NULL order, `time` as `HH:mm:ss`, exact
//! bigintegers, jsonb key order, Unicode-aware case-insensitive operators; and the
//! oracle's PostgreSQL answers to `_q` and to operator objects (`pg/oracle-params.json`).

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

/// Strapi on PostgreSQL, asked what the goldens do not cover (`pg/oracle-params.txt`,
/// answered by the oracle on an ICU en-US database): `_q` with non-ASCII text (`ILIKE`:
/// `ß` and `SS`, accents in either case, `_` as a wildcard) and operators whose value is
/// an operator object (their JSON text, as `pg` binds it).
#[test]
fn strapis_postgres_answers_to_search_and_operator_objects() {
    let Some(db) = common::pg::strapi_blog("oracle_params") else {
        return;
    };
    let addr = common::start_server_on(&db.url);
    let (failures, n) =
        common::replay_recording(addr, &common::blog().join("pg/oracle-params.json"));
    assert_eq!(n, 22);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Strapi on PostgreSQL, asked the sorts through relations, components and media of
/// `oracle/deep-sorts.txt` (`pg/deep-sorts.json`): each root row sorts by the first of
/// its related values in the database's own NULL order, as Strapi's deep sort picks it.
#[test]
fn strapis_pg_deep_sorts() {
    let Some(db) = common::pg::strapi_blog("deep_sorts") else {
        return;
    };
    let addr = common::start_server_on(&db.url);
    let (failures, n) = common::replay_recording(addr, &common::blog().join("pg/deep-sorts.json"));
    assert_eq!(n, 39);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
