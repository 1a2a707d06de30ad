//! The cost of authentication per request: `Authenticator::grants` (the work the server
//! adds for a credential: parse the header, hash an API token or verify a JWT, look the
//! caller up in the 1-second cache) for each kind of caller, beside the store's time for
//! the plain page of 25 that it guards. Over a copy of the blog fixture with the test
//! credentials (`tests/fixtures/blog/auth/`).
//!
//! `cargo bench --bench auth`; the same page over HTTP: `bench/auth.sh`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

/// The server's allocator (src/main.rs), so the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use strata::auth::{AuthSecrets, Secret};
use strata::http::auth::Authenticator;
use strata::query::{self, QueryConfig};
use strata::store::{DatabaseUrl, Store};

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/blog");
    let dir = std::env::temp_dir().join(format!("strata-bench-auth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("strapi.db");
    std::fs::copy(root.join("strapi.db"), &db).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(&std::fs::read_to_string(root.join("auth/credentials.sqlite.sql")).unwrap())
        .unwrap();
    let model = Arc::new(strata::schema::load(&root.join("schemas")).unwrap());
    let url = DatabaseUrl::parse(&format!("sqlite://{}?mode=ro", db.display())).unwrap();
    let store = Arc::new(Store::open_existing(&url, model.clone(), 2).unwrap());
    let secrets = AuthSecrets {
        api_token_salt: Secret::new("lab-api-token-salt"),
        jwt_secret: Secret::new("lab-users-permissions-jwt-secret"),
    };
    let auth = Authenticator::new(store.clone(), secrets, Duration::from_secs(1));
    let creds: HashMap<String, Option<String>> =
        serde_json::from_str(&std::fs::read_to_string(root.join("auth/credentials.json")).unwrap())
            .unwrap();

    let mut group = c.benchmark_group("auth");
    for who in ["none", "read-only", "custom", "jwt-alice", "unknown-token"] {
        let header = creds[who].clone();
        group.bench_function(who, |b| {
            b.iter(|| {
                let _ = std::hint::black_box(auth.grants(header.as_deref().map(str::as_bytes)));
            })
        });
    }
    let article = model.by_uid("api::article.article").unwrap().id;
    let grants = auth.grants(None).unwrap();
    group.bench_function("plain_page_store", |b| {
        b.iter(|| {
            let q = query::parse_query(
                "pagination[pageSize]=25",
                &model,
                article,
                &grants.find,
                &QueryConfig::default(),
            )
            .unwrap();
            std::hint::black_box(store.find_page(&q).unwrap());
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
