//! Parse + validate time of golden requests (the longest one and a few typical ones) and
//! printing time of their `Query`, on the blog model.
//!
//! `cargo bench -p strata-runtime --bench parse -- --warm-up-time 1 --measurement-time 3`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use strata_runtime::query::print::print;
use strata_runtime::query::{Permissions, QueryConfig, parse_query};
use strata_runtime::schema::{self, Model, SchemaId};

/// Typical requests, by golden number: a filter, `populate=*`, a sort on a relation with a
/// populate, `$and` of `$or`, a dynamic-zone populate with fragments.
const TYPICAL: &[(u64, &str)] = &[
    (21, "filter_eq"),
    (12, "populate_star"),
    (311, "sort_relation"),
    (144, "and_or"),
    (247, "zone_fragments"),
];

struct Request {
    n: u64,
    schema: SchemaId,
    raw: String,
}

/// Percent-encodes everything outside `!`..`~`, as the recording's tooling does.
fn encode(line: &str) -> String {
    let mut out = String::new();
    for c in line.chars() {
        if ('!'..='~').contains(&c) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// Every golden request addressed to a content type, with its query string.
fn goldens(model: &Model) -> Vec<Request> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/blog/goldens");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let golden: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let line = encode(golden["line"].as_str().unwrap());
        let (route, raw) = line.split_once('?').unwrap_or((&line, ""));
        let Some(name) = route
            .strip_prefix("/api/")
            .and_then(|r| r.split('/').next())
        else {
            continue;
        };
        let Some(schema) = model.by_plural(name).or_else(|| model.by_singular(name)) else {
            continue;
        };
        out.push(Request {
            n: golden["n"].as_u64().unwrap(),
            schema: schema.id,
            raw: raw.to_string(),
        });
    }
    out.sort_by_key(|r| r.n);
    out
}

fn bench(c: &mut Criterion) {
    let model =
        schema::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/blog/schemas"))
            .unwrap();
    let perms = Permissions::all(&model);
    let config = QueryConfig::default();
    let requests = goldens(&model);
    let parses = |r: &Request| parse_query(&r.raw, &model, r.schema, &perms, &config).is_ok();
    let longest = requests
        .iter()
        .filter(|r| parses(r))
        .max_by_key(|r| (r.raw.len(), std::cmp::Reverse(r.n)))
        .unwrap();
    println!(
        "longest golden request that parses: #{} ({} bytes): {}",
        longest.n,
        longest.raw.len(),
        longest.raw
    );
    let mut cases = vec![(longest, "longest".to_string())];
    for (n, name) in TYPICAL {
        let r = requests.iter().find(|r| r.n == *n).unwrap();
        assert!(parses(r), "golden #{n} does not parse");
        cases.push((r, name.to_string()));
    }

    let mut group = c.benchmark_group("parse");
    for (r, name) in &cases {
        group.bench_function(format!("{name} (#{}, {} B)", r.n, r.raw.len()), |b| {
            b.iter(|| parse_query(black_box(&r.raw), &model, r.schema, &perms, &config))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("print");
    for (r, name) in &cases {
        let q = parse_query(&r.raw, &model, r.schema, &perms, &config).unwrap();
        group.bench_function(format!("{name} (#{})", r.n), |b| {
            b.iter(|| print(black_box(&q), &model))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
