//! Totals are exact while cached: the SQLite store keeps each connection's counts keyed
//! to `PRAGMA data_version`, so a row another connection (or process) commits changes the
//! next total at once, and an unchanged database answers from the cache.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use strata::auth::api_token;
use strata::query::{QueryConfig, parse_query};
use strata::store::credentials::NewToken;
use strata::store::{DatabaseUrl, Store};

#[test]
fn a_write_by_another_connection_changes_the_next_total() {
    let (dir, db) = common::blog_db_copy("counts");
    let model = Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    let url = DatabaseUrl::parse(&format!("sqlite://{}", db.display())).unwrap();
    // One connection, so every request sees the same cache.
    let store = Store::open_existing(&url, model.clone(), 1).unwrap();
    let tag = model.by_plural("tags").unwrap().id;
    let perms = common::public_permissions(&model);
    let q = parse_query("", &model, tag, &perms, &QueryConfig::default()).unwrap();
    let total = |store: &Store| store.find_page(&q).unwrap().total.unwrap();
    let before = total(&store);
    assert_eq!(total(&store), before);

    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute(
            "INSERT INTO tags (document_id, name, created_at, updated_at, published_at) \
             SELECT 'counted0000000000000000', 'counted', created_at, updated_at, published_at \
             FROM tags WHERE published_at IS NOT NULL LIMIT 1",
            [],
        )
        .unwrap();
    assert_eq!(total(&store), before + 1);
    writer
        .execute(
            "DELETE FROM tags WHERE document_id = 'counted0000000000000000'",
            [],
        )
        .unwrap();
    assert_eq!(total(&store), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The data generation (what lets a conditional request skip its query): it stays put
/// while nothing is written, and moves on after a commit by another connection (whichever
/// pooled connection looks next) and after the store's own writes.
#[test]
fn the_data_generation_moves_with_every_commit() {
    let (dir, db) = common::blog_db_copy("generation");
    let model = Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    let url = DatabaseUrl::parse(&format!("sqlite://{}", db.display())).unwrap();
    let store = Store::open_existing(&url, model, 3).unwrap();
    let generation = || store.pool().data_generation().unwrap().unwrap();
    // Each connection has seen the database once: from then on, nothing moves.
    let settled = (0..6).fold(0, |_, _| generation());
    for _ in 0..6 {
        assert_eq!(generation(), settled);
    }
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute(
            "UPDATE tags SET name = name || '!' WHERE id = (SELECT MIN(id) FROM tags)",
            [],
        )
        .unwrap();
    let after_write = generation();
    assert!(after_write > settled);
    // The other connections see the same commit once each: the generation may move again,
    // never back, and settles.
    let settled = (0..6).fold(0, |_, _| generation());
    assert!(settled >= after_write);
    assert_eq!(generation(), settled);
    // The store's own write moves it too (its own connection's data_version does not).
    store
        .create_api_token(&NewToken {
            name: "generation",
            description: "",
            token_type: api_token::TokenType::ReadOnly,
            actions: &[],
            lifespan_ms: None,
            access_key: "0123",
            now_ms: 1_764_000_000_000,
        })
        .unwrap();
    assert!(generation() > settled);
    let _ = std::fs::remove_dir_all(&dir);
}
