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
//! * `reads-more.json`: the requests of `reads-more.txt`: operators on odd values
//!   (`$between` as a list, `$null` given `1` or `yes`, `$in` given one value), `$not`,
//!   nested `$and`/`$or`, filters and sorts through relations, sorts that name nothing,
//!   `fields` lists and `*`, pagination out of range, populate lists, dot paths, nested
//!   populate with `fields`, `sort`, `filters` and `on`, locales and statuses, single
//!   documents, counts; and a relation the caller may not read, whose keys are checked
//!   before its grant (`filters[secret][name]`: `Invalid key name at secret`).
//! * `deep-sorts.json`: the requests of `deep-sorts.txt`, sorts through to-many relations,
//!   components and media whose related rows hold NULLs or dead ends (an article without
//!   an author), ascending and descending, with a second key through the same relation,
//!   and sort objects whose keys share a relation's join (`sort[articles][title]=…`); the
//!   same requests are recorded on PostgreSQL and MariaDB (`pg/`, `mysql/deep-sorts.json`),
//!   where NULLs sort elsewhere.
//! * `found-by-fuzzing.json`: requests of `found-by-fuzzing.txt` that `tools/fuzz_reads.py`
//!   found strata answering otherwise: `count` on `localizations`, which Strapi ignores
//!   (it populates with the other options).
//! * `sorted-joins.json`: the requests of `sorted-joins.txt`, whose sort columns lead
//!   each entry's keys where Strapi's statement joins another table (a filter through a
//!   relation, component or media; a populated relation, component or media), even when
//!   `fields` leaves them out; and where it does not (no join, a deep sort through a
//!   path, `localizations`, zones). Replayed with the keys' order compared too.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::SocketAddr;

use serde_json::Value;

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
        ("reads-more.json", 100),
        ("deep-sorts.json", 39),
        ("found-by-fuzzing.json", 6),
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

/// The order of every object's keys in `a` and `b`, compared: the first object whose
/// keys differ in order, as `path: expected [..], got [..]`.
fn key_order_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let (kx, ky): (Vec<_>, Vec<_>) = (x.keys().collect(), y.keys().collect());
            if kx != ky {
                return Some(format!("{path}: keys expected {kx:?}, got {ky:?}"));
            }
            x.iter()
                .find_map(|(k, v)| key_order_difference(v, &y[k], &format!("{path}.{k}")))
        }
        (Value::Array(x), Value::Array(y)) => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| key_order_difference(v, w, &format!("{path}[{i}]"))),
        _ => None,
    }
}

#[test]
fn sort_columns_lead_the_entries_of_joined_statements() {
    let addr = common::start_blog_server("sorted-joins");
    let file = common::blog().join("oracle").join("sorted-joins.json");
    let (mut failures, n) = common::replay_recording(addr, &file);
    assert_eq!(n, 31);
    let recorded: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for golden in &recorded {
        let target = common::encode(golden["line"].as_str().unwrap());
        let (_, _, body) = common::http_get(addr, &target, &[]);
        let body: Value = serde_json::from_slice(&body).unwrap_or_default();
        if let Some(why) = key_order_difference(&golden["body"], &body, "$") {
            failures.push(format!("{target}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
