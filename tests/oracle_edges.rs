//! Answers recorded from the real Strapi 5.54 (the oracle) for what the goldens do not
//! cover, replayed against strata over loopback on a copy of the same database:
//! * `edges.json`: `count` on components, sort by a field of a to-many relation, filters
//!   and sort on `createdBy`/`updatedBy` (`details.path` names the key), the parameter
//!   named in errors inside `populate`, trailing slashes;
//! * `publication-filters.json`: every `publicationFilter` value, published and draft
//!   rows, one locale and all, and the filter inherited by populated relations;
//! * `pagination.json`: page sizes and limits that are not numbers or are empty;
//! * `strict-params.json`: `config/api.js` with `rest.strictParams: true` (unknown
//!   top-level keys, `count` and `ordering`, top-level `page`/`pageSize`, `status` arrays,
//!   over-long and malformed locales, pagination values);
//! * `search.json`: `_q` with non-ASCII text, `_` and `*`, numbers (number columns are
//!   searched too), and empty;
//! * `params-*.json`: the requests of `params.txt` (pagination values that are not
//!   integers or out of range, `status` as a list or an object, empty, over-long and
//!   malformed locales and lists of them, unknown top-level keys, invalid dates and times
//!   on date fields, sorts through to-many and to-one relations) answered with the default
//!   configuration, with `rest.strictParams`, and with `documents.strictParams` (the
//!   document service's own checks: `Invalid parameter at 'locale[1]'…`,
//!   `details.received`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::SocketAddr;

/// Replays `oracle/<file>`; returns the failures and how many cases it held.
fn replay(addr: SocketAddr, file: &str) -> (Vec<String>, usize) {
    common::replay_recording(addr, &common::blog().join("oracle").join(file))
}

#[test]
fn every_recorded_answer_of_the_default_configuration() {
    let addr = common::start_blog_server("oracle");
    let mut failures = Vec::new();
    for (file, expected) in [
        ("edges.json", 30),
        ("publication-filters.json", 27),
        ("pagination.json", 11),
        ("params-default.json", 83),
        ("search.json", 17),
    ] {
        let (f, n) = replay(addr, file);
        assert_eq!(n, expected, "{file}");
        failures.extend(f);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_recorded_answer_in_strict_mode() {
    let mut config = strata::http::ServerConfig::default();
    config.query.strict_params = true;
    let addr = common::start_blog_server_with("strict", config);
    let mut failures = Vec::new();
    for (file, expected) in [("strict-params.json", 32), ("params-rest-strict.json", 57)] {
        let (f, n) = replay(addr, file);
        assert_eq!(n, expected, "{file}");
        failures.extend(f);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_recorded_answer_with_strict_documents() {
    let mut config = strata::http::ServerConfig::default();
    config.query.documents_strict_params = true;
    let addr = common::start_blog_server_with("strict-documents", config);
    let (failures, n) = replay(addr, "params-documents-strict.json");
    assert_eq!(n, 83);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
