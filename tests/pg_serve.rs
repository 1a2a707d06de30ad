//! Serving PostgreSQL in production shapes, over a restore of Strapi's own dump:
//! * stateless scale-out: two servers on one database answer byte for byte alike, a row
//!   changed by another process shows on the next request of both, and revoked grants
//!   within the permission cache's 1 s;
//! * read-only serving (a hot standby): every golden on a database whose transactions
//!   are read-only;
//! * faults: connections terminated by the server (`pg_terminate_backend`) heal without a
//!   failed request; a database refusing connections gives 503 in Strapi's error shape,
//!   and service resumes by itself; an exhausted pool and a statement blocked past the
//!   timeout give 503, never a hang;
//! * kept answers: served again without their query while the snapshot stands, and read
//!   again once another process wrote.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::pg::TestDb;
use serde_json::Value;
use strata::store::seam::PoolOptions;
use strata::store::{OpenOptions, Store};

fn get(addr: SocketAddr, target: &str) -> (u16, Value, Vec<u8>) {
    let (status, _, body) = common::http_get(addr, target, &[]);
    (
        status,
        serde_json::from_slice(&body).unwrap_or(Value::Null),
        body,
    )
}

fn serve(db: &TestDb, postgres: PoolOptions) -> SocketAddr {
    serve_with(db, postgres, strata::http::ServerConfig::default())
}

fn serve_with(
    db: &TestDb,
    postgres: PoolOptions,
    config: strata::http::ServerConfig,
) -> SocketAddr {
    let model = Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    let options = OpenOptions {
        connections: postgres.pool_size,
        pool: postgres,
        ..OpenOptions::default()
    };
    let (store, _) = Store::open(&db.database_url(), model, &options).unwrap();
    common::serve_store_with(Arc::new(store), config)
}

const TARGETS: [&str; 5] = [
    "/api/articles",
    "/api/articles?populate=*&sort=title:desc",
    "/api/authors?populate[articles][fields][0]=title&locale=*",
    "/api/articles?filters[author][name][$containsi]=ada&fields[0]=title",
    "/api/users",
];

#[test]
fn two_processes_answer_alike_and_see_each_others_writes() {
    let Some(db) = common::pg::strapi_blog("scaleout") else {
        return;
    };
    let (a, b) = (
        serve(&db, PoolOptions::default()),
        serve(&db, PoolOptions::default()),
    );
    for t in TARGETS {
        let (sa, _, ba) = get(a, t);
        let (sb, _, bb) = get(b, t);
        assert_eq!(sa, 200, "{t}");
        assert_eq!((sa, &ba), (sb, &bb), "{t}");
    }
    // Another process (Strapi's admin, say) renames an article: both see it at once.
    db.execute("UPDATE articles SET title = 'Renamed elsewhere' WHERE id = 2");
    for addr in [a, b] {
        let (_, body, _) = get(addr, "/api/articles?fields[0]=title&filters[id][$eq]=2");
        assert_eq!(body["data"][0]["title"], "Renamed elsewhere");
    }
    // Totals are kept with the snapshot they were counted in: still exact after another
    // process unpublishes an entry.
    let total = |addr| {
        let (_, body, _) = get(addr, "/api/articles?fields[0]=title");
        body["meta"]["pagination"]["total"].as_u64().unwrap()
    };
    let before = total(a);
    assert_eq!((total(a), total(b)), (before, before));
    db.execute("UPDATE articles SET published_at = NULL WHERE id = 2");
    assert_eq!((total(a), total(b)), (before - 1, before - 1));
    // …and revokes the public `find` on tags: within the 1 s grant cache, both refuse.
    assert_eq!(get(a, "/api/tags").0, 200);
    db.execute(
        "DELETE FROM up_permissions_role_lnk WHERE permission_id IN \
         (SELECT id FROM up_permissions WHERE action = 'api::tag.tag.find')",
    );
    std::thread::sleep(Duration::from_millis(1300));
    assert_eq!(get(a, "/api/tags").0, 403);
    assert_eq!(get(b, "/api/tags").0, 403);
}

#[test]
fn a_read_only_database_serves_every_golden() {
    let Some(db) = common::pg::strapi_blog("readonly") else {
        return;
    };
    // What a hot standby allows: no writes at all.
    db.execute(&format!(
        "ALTER DATABASE {} SET default_transaction_read_only = on",
        db.name
    ));
    let addr = serve(&db, PoolOptions::default());
    let (passed, failures) = common::replay_goldens(addr, &common::blog().join("pg/goldens"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(passed, 236);
}

fn terminate_connections(db: &TestDb) {
    db.admin_execute(&format!(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = '{}' AND pid <> pg_backend_pid()",
        db.name
    ));
}

#[test]
fn faults_give_503_and_heal() {
    let Some(db) = common::pg::strapi_blog("faults") else {
        return;
    };
    let addr = serve(
        &db,
        PoolOptions {
            pool_size: 4,
            wait_timeout: Duration::from_millis(500),
            connect_timeout: Duration::from_secs(2),
            statement_timeout: Duration::from_secs(1),
        },
    );
    // Warm the pool: several connections in use at once.
    let threads: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(move || get(addr, "/api/articles").0))
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), 200);
    }

    // The server terminates every connection: the next request still succeeds.
    terminate_connections(&db);
    assert_eq!(get(addr, "/api/articles").0, 200);

    // The database refuses connections: 503 in Strapi's shape, quickly.
    db.admin_execute(&format!(
        "ALTER DATABASE {} WITH ALLOW_CONNECTIONS false",
        db.name
    ));
    terminate_connections(&db);
    let started = Instant::now();
    let (status, body, _) = get(addr, "/api/articles");
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["status"], 503);
    assert_eq!(body["error"]["name"], "ServiceUnavailableError");
    assert_eq!(body["data"], Value::Null);
    assert!(started.elapsed() < Duration::from_secs(10));

    // It comes back: service resumes by itself.
    db.admin_execute(&format!(
        "ALTER DATABASE {} WITH ALLOW_CONNECTIONS true",
        db.name
    ));
    let mut healed = false;
    for _ in 0..20 {
        if get(addr, "/api/articles").0 == 200 {
            healed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(healed, "service did not resume");
}

/// Locks `table` in another session for `held`; returns once the lock is taken, with the
/// thread that releases it.
fn lock_table(db: &TestDb, table: &'static str, held: Duration) -> std::thread::JoinHandle<()> {
    let locker = db.pool();
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let hold = std::thread::spawn(move || {
        locker
            .with_client(async |c| {
                let t = c.transaction().await.unwrap();
                t.batch_execute(&format!("LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE"))
                    .await
                    .unwrap();
                let _ = tx.send(());
                tokio::time::sleep(held).await;
                t.rollback().await.unwrap();
                Ok(())
            })
            .unwrap();
    });
    rx.recv().unwrap();
    hold
}

#[test]
fn an_exhausted_pool_and_a_blocked_statement_give_503() {
    let Some(db) = common::pg::strapi_blog("exhausted") else {
        return;
    };
    let addr = serve(
        &db,
        PoolOptions {
            pool_size: 1,
            wait_timeout: Duration::from_millis(300),
            connect_timeout: Duration::from_secs(2),
            statement_timeout: Duration::from_secs(2),
        },
    );
    assert_eq!(get(addr, "/api/articles").0, 200);
    // Another session locks the table, so strata's one connection blocks on it.
    let hold = lock_table(&db, "articles", Duration::from_secs(4));
    // A request not answered before: its query runs (one answered before would be the
    // kept answer, since a lock moves no snapshot).
    let blocked = std::thread::spawn(move || {
        let started = Instant::now();
        (get(addr, "/api/articles?sort=id").0, started.elapsed())
    });
    std::thread::sleep(Duration::from_millis(200));
    // The only connection is busy: this one waits 300 ms for it, then 503.
    let started = Instant::now();
    let (status, body, _) = get(addr, "/api/authors");
    assert_eq!(status, 503, "{body}");
    assert!(started.elapsed() < Duration::from_secs(2));
    // The blocked statement is cancelled at the statement timeout: 503, not a hang.
    let (status, took) = blocked.join().unwrap();
    assert_eq!(status, 503);
    assert!(took < Duration::from_secs(4), "{took:?}");
    hold.join().unwrap();
    assert_eq!(get(addr, "/api/articles").0, 200);
}

#[test]
fn an_unreachable_database_at_start_is_one_line_and_status_1() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "serve",
            "--schemas",
            "tests/fixtures/blog/schemas",
            "--database",
            "postgres://strata:secret@127.0.0.1:1/blog",
            "--port",
            "0",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("STRATA_LOG", "warn")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("127.0.0.1:1"), "{stderr}");
    assert!(!stderr.contains("secret"), "the password leaked: {stderr}");
}

/// A kept answer is served without its query while the data stands: with the table locked
/// by another session (a lock moves no snapshot), the answer read before comes back at
/// once, while a server that keeps no answers waits for the lock until the statement
/// timeout. Once another process writes, the next request reads again.
#[test]
fn a_kept_answer_needs_no_query_while_the_data_stands() {
    let Some(db) = common::pg::strapi_blog("kept") else {
        return;
    };
    let pool = PoolOptions {
        statement_timeout: Duration::from_secs(1),
        ..PoolOptions::default()
    };
    let kept = serve(&db, pool);
    let none = strata::http::ServerConfig {
        answer_cache_bytes: 0,
        ..Default::default()
    };
    let none = serve_with(&db, pool, none);
    let target = "/api/tags?fields[0]=name&sort=name";
    let (status, _, before) = get(kept, target);
    assert_eq!(status, 200);
    assert_eq!(get(none, target).2, before);

    let hold = lock_table(&db, "tags", Duration::from_secs(3));
    let started = Instant::now();
    let (status, _, again) = get(kept, target);
    assert_eq!((status, &again), (200, &before));
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    let started = Instant::now();
    assert_eq!(get(none, target).0, 503, "the query waited for the lock");
    assert!(started.elapsed() >= Duration::from_millis(900));
    hold.join().unwrap();

    db.execute("UPDATE tags SET name = 'Aardvark' WHERE id = (SELECT MIN(id) FROM tags)");
    let (status, body, after) = get(kept, target);
    assert_eq!(status, 200);
    assert_ne!(after, before);
    let names: Vec<&Value> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert!(names.contains(&&Value::from("Aardvark")), "{names:?}");
}
