//! The store's overhead over the physical limit: for a few heavy requests, the time of the
//! whole read inside the store (query parsing, SQL building, execution, JSON) against the
//! same SQL statements run directly on the driver (prepared, every column read, no JSON):
//! rusqlite on Strapi's SQLite database, and tokio-postgres on a restore of Strapi's
//! PostgreSQL dump when PostgreSQL is reachable (the tests' server: `STRATA_TEST_PG`,
//! default the local one; the bench database is dropped at the end).
//!
//! The hot pieces are timed on their own too: planning the root statement, and writing
//! the response body.
//!
//! `cargo bench --bench store`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../tests/common/mod.rs"]
mod common;

/// The server's allocator (src/main.rs), so the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use strata::query::{self, Permissions, QueryConfig};
use strata::schema;
use strata::store::postgres::{Param, PgPool, PgTarget};
use strata::store::sea_query::SqliteQueryBuilder;
use strata::store::seam::PoolOptions;
use strata::store::seam::{Cell, record_statements};
use strata::store::sql::{Builder, Dialect, RelatedPlan};
use strata::store::{DatabaseUrl, Store, sqlite};
use tokio_postgres::types::ToSql;

const REQUESTS: &[(&str, &str, &str)] = &[
    // Request (a) of the oracle's bench.sh: a plain page of 25 articles.
    ("articles_plain_page", "articles", "pagination[pageSize]=25"),
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
    // The bare side runs on a connection with the store's settings, in one read
    // transaction per request, as the store does (`sqlite::run_bare`).
    let mut raw = sqlite::open_connection(&url, false).unwrap();
    let perms = Permissions::all(&model);
    let config = QueryConfig::default();
    let pg = postgres_blog();
    for (name, plural, qs) in REQUESTS {
        let schema = model.by_plural(plural).unwrap().id;
        let q = query::parse_query(qs, &model, schema, &perms, &config).unwrap();
        // Warm first, so the recording holds what a request runs in steady state (a
        // repeated total comes from the count cache).
        store.find_page(&q).unwrap();
        let (_, statements) = record_statements(|| store.find_page(&q).unwrap());
        let mut group = c.benchmark_group(*name);
        // The pieces: planning the root statement (rendered to SQL text) and writing the
        // response body.
        group.bench_function("plan: root select and count, rendered", |b| {
            b.iter(|| {
                let mut builder = Builder::new(&model, Dialect::Sqlite, "en");
                let page = builder.root_select(&q, RelatedPlan::SemiJoin);
                let count = builder.root_count(&q, RelatedPlan::SemiJoin);
                (
                    page.build(SqliteQueryBuilder),
                    count.build(SqliteQueryBuilder),
                )
            })
        });
        let page = store.find_page(&q).unwrap();
        group.bench_function("JSON: envelope and body bytes", |b| {
            b.iter(|| strata::http::envelope::list(&page, &q.pagination))
        });
        group.bench_function("store (parse + SQL + JSON)", |b| {
            b.iter(|| {
                let q = query::parse_query(qs, &model, schema, &perms, &config).unwrap();
                store.find_page(&q).unwrap()
            })
        });
        group.bench_function(
            format!("rusqlite, same {} statements", statements.len()),
            |b| b.iter(|| sqlite::run_bare(&mut raw, &statements).unwrap()),
        );
        if let Some((pg_store, pool, _db)) = &pg {
            let (_, statements) = record_statements(|| pg_store.find_page(&q).unwrap());
            group.bench_function("postgres store (parse + SQL + JSON)", |b| {
                b.iter(|| {
                    let q = query::parse_query(qs, &model, schema, &perms, &config).unwrap();
                    pg_store.find_page(&q).unwrap()
                })
            });
            // Prepared once, as the store's executor does per connection (a pool of one).
            let prepared = pool
                .with_client(async |client| {
                    let mut out = Vec::new();
                    for s in &statements {
                        out.push(client.prepare(&s.sql).await.unwrap());
                    }
                    Ok(out)
                })
                .unwrap();
            group.bench_function(
                format!("tokio-postgres, same {} statements", statements.len()),
                |b| {
                    b.iter(|| {
                        pool.with_client(async |client| {
                            let mut cells = 0usize;
                            for (s, st) in statements.iter().zip(&prepared) {
                                let params: Vec<Param> =
                                    s.values.iter().cloned().map(Param::from).collect();
                                let refs: Vec<&(dyn ToSql + Sync)> =
                                    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
                                for r in client.query(st, &refs).await.unwrap() {
                                    for i in 0..r.len() {
                                        let _ = r.try_get::<_, Cell<'_>>(i).unwrap();
                                        cells += 1;
                                    }
                                }
                            }
                            Ok(cells)
                        })
                        .unwrap()
                    })
                },
            );
        }
        group.finish();
    }
}

/// Strapi's PostgreSQL dump of the blog restored into a fresh database (dropped at the
/// end), when PostgreSQL is reachable (the tests' server, `STRATA_TEST_PG`).
fn postgres_blog() -> Option<(Store, PgPool, common::pg::TestDb)> {
    let db = common::pg::strapi_blog("bench")?;
    let model = Arc::new(schema::load(&common::blog().join("schemas")).unwrap());
    let store = Store::open_existing(&db.database_url(), model, 1).unwrap();
    let one = PoolOptions {
        pool_size: 1,
        ..PoolOptions::default()
    };
    let pool = PgPool::connect(&PgTarget::parse(&db.url).unwrap(), one).unwrap();
    Some((store, pool, db))
}

criterion_group!(benches, bench);
criterion_main!(benches);
