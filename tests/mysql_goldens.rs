//! MySQL/MariaDB: the real server on loopback, over a restore of Strapi's own MariaDB dump
//! of the blog fixture (`tests/fixtures/blog/mysql/strapi-mysql.sql`, a database in
//! `utf8mb4_unicode_ci` as in the recording), answers every recorded `goldens-mysql`
//! request as Strapi did: case- and accent-insensitive comparisons and sort order of the
//! collation, exact bigintegers, MySQL's value types.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

#[test]
fn every_mysql_golden_over_http() {
    let Some(db) = common::my::strapi_blog("goldens") else {
        return;
    };
    let addr = common::start_server_on(&db.url);
    let (passed, failures) = common::replay_goldens(addr, &common::blog().join("mysql/goldens"));
    println!("mysql goldens: {passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(passed, 236);
}

/// Strapi on MariaDB, asked the sorts through relations, components and media of
/// `oracle/deep-sorts.txt` (`mysql/deep-sorts.json`): each root row sorts by the first of
/// its related values in the database's own NULL order, as Strapi's deep sort picks it.
#[test]
fn strapis_mysql_deep_sorts() {
    let Some(db) = common::my::strapi_blog("deep_sorts") else {
        return;
    };
    let addr = common::start_server_on(&db.url);
    let (failures, n) =
        common::replay_recording(addr, &common::blog().join("mysql/deep-sorts.json"));
    assert_eq!(n, 39);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
