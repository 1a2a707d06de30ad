//! The store's overhead over the physical limit: for a few heavy requests, the time of the
//! whole read inside the store (query parsing, SQL building, execution, JSON) against the
//! same SQL statements run directly on rusqlite (prepared, every column read, no JSON).
//!
//! `cargo bench --bench store`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use rusqlite::{Connection, OpenFlags};
use strata::query::{self, Permissions, QueryConfig};
use strata::schema;
use strata::store::sqlite::record_statements;
use strata::store::{DatabaseUrl, Store};

const REQUESTS: &[(&str, &str, &str)] = &[
    // The golden with the largest populated body.
    ("authors_populate_star", "authors", "populate=*"),
    // The deepest populate of the golden set.
    (
        "articles_dz_fragments",
        "articles",
        "populate[blocks][on][shared.quote][populate][author][fields][0]=name&populate[blocks][on][shared.media][populate]=file&populate[blocks][on][shared.rich-text]=true&fields[0]=title&pagination[pageSize]=1",
    ),
    // Request (c) of the oracle's bench.sh: 25 articles with author, category, tags,
    // cover, seo (nested) and a dynamic zone with fragments.
    (
        "articles_bench_c",
        "articles",
        "populate[author]=true&populate[category]=true&populate[tags]=true&populate[cover]=true&populate[seo][populate]=*&populate[blocks][on][shared.rich-text]=true&populate[blocks][on][shared.quote][populate]=author&populate[blocks][on][shared.media][populate]=file&populate[blocks][on][shared.slider][populate]=files",
    ),
];

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/blog");
    let model = Arc::new(schema::load(&root.join("schemas")).unwrap());
    let db = root.join("strapi.db");
    let url = DatabaseUrl::parse(&format!("sqlite://{}?mode=ro", db.display())).unwrap();
    let store = Store::open_existing(&url, model.clone(), 1).unwrap();
    let raw = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let perms = Permissions::all(&model);
    let config = QueryConfig::default();
    for (name, plural, qs) in REQUESTS {
        let schema = model.by_plural(plural).unwrap().id;
        let q = query::parse_query(qs, &model, schema, &perms, &config).unwrap();
        let (_, statements) = record_statements(|| store.list_body(&q).unwrap());
        let mut group = c.benchmark_group(*name);
        group.bench_function("store (parse + SQL + JSON)", |b| {
            b.iter(|| {
                let q = query::parse_query(qs, &model, schema, &perms, &config).unwrap();
                store.list_body(&q).unwrap()
            })
        });
        group.bench_function(
            format!("rusqlite, same {} statements", statements.len()),
            |b| {
                b.iter(|| {
                    let mut cells = 0usize;
                    for s in &statements {
                        let mut stmt = raw.prepare_cached(&s.sql).unwrap();
                        let n = stmt.column_count();
                        let mut rows = stmt
                            .query(rusqlite::params_from_iter(s.params.iter()))
                            .unwrap();
                        while let Some(r) = rows.next().unwrap() {
                            for i in 0..n {
                                let _ = r.get_ref(i).unwrap();
                                cells += 1;
                            }
                        }
                    }
                    cells
                })
            },
        );
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
