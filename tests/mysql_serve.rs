//! MySQL/MariaDB as a served database: the guarantees of the other backends.
//! * faults: connections killed by the server (`KILL`) heal without a failed request; a
//!   table locked by another session past the statement time is a 503 in Strapi's shape,
//!   and the next request after the lock is released is a 200;
//! * an unreachable server at start is one line and exit status 1;
//! * schema changes and a new database's load are not bound by the requests' statement
//!   time (building a large table's indexes takes minutes);
//! * the goldens on a database served by two processes at once answer alike.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use strata::store::seam::PoolOptions;
use strata::store::{DatabaseUrl, OpenOptions, Store};

fn serve(url: &str, pool: PoolOptions) -> SocketAddr {
    let model = Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    let options = OpenOptions {
        connections: pool.pool_size,
        pool,
        ..OpenOptions::default()
    };
    let (store, _) = Store::open(&DatabaseUrl::parse(url).unwrap(), model, &options).unwrap();
    common::serve_store(Arc::new(store))
}

fn status(addr: SocketAddr, target: &str) -> (u16, serde_json::Value) {
    let (status, _, body) = common::http_get(addr, target, &[]);
    (status, serde_json::from_slice(&body).unwrap_or_default())
}

#[test]
fn faults_give_503_and_heal() {
    let Some(db) = common::my::strapi_blog("faults") else {
        return;
    };
    let addr = serve(
        &db.url,
        PoolOptions {
            pool_size: 3,
            wait_timeout: Duration::from_millis(500),
            connect_timeout: Duration::from_secs(2),
            statement_timeout: Duration::from_secs(1),
        },
    );
    let threads: Vec<_> = (0..3)
        .map(|_| std::thread::spawn(move || status(addr, "/api/articles").0))
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), 200);
    }

    // The server kills every connection of the database: the next requests still succeed.
    let admin = db.pool();
    admin
        .with_conn(|c| {
            let ids: Vec<u64> = c
                .exec(
                    "SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()",
                    (db.name.clone(),),
                )
                .unwrap();
            for id in ids {
                let _ = c.query_drop(format!("KILL {id}"));
            }
            Ok(())
        })
        .unwrap();
    for _ in 0..4 {
        assert_eq!(status(addr, "/api/articles").0, 200);
    }

    // Another session holds a write lock on the table: past the statement time, a 503.
    let mut locker = mysql::Conn::new(mysql::Opts::from_url(&db.url).unwrap()).unwrap();
    locker.query_drop("LOCK TABLES articles WRITE").unwrap();
    let started = Instant::now();
    let (code, body) = status(addr, "/api/articles");
    assert_eq!(code, 503, "{body}");
    assert_eq!(body["error"]["name"], "ServiceUnavailableError");
    assert!(started.elapsed() < Duration::from_secs(10));
    // More timed-out requests than the pool has connections: each closes its connection,
    // and the pool makes new ones once the lock is gone.
    for _ in 0..4 {
        assert_eq!(status(addr, "/api/articles").0, 503);
    }
    locker.query_drop("UNLOCK TABLES").unwrap();
    assert_eq!(status(addr, "/api/articles").0, 200);
}

/// A request's statement stops at the pool's `statement_timeout`; a schema change on the
/// same pool does not (an import of 1M articles into a new MariaDB database was
/// interrupted at 30 s, while adding the indexes of its largest table).
#[test]
fn schema_changes_are_not_bound_by_the_statement_time() {
    let Some(db) = common::my::TestDb::create("unbounded") else {
        return;
    };
    let pool = strata::store::mysql::MyPool::connect(
        &strata::store::mysql::MyTarget::parse(&db.url).unwrap(),
        PoolOptions {
            statement_timeout: Duration::from_secs(1),
            ..PoolOptions::default()
        },
    )
    .unwrap();
    let sleep = strata::store::sea_query::Query::select()
        .expr(strata::store::sea_query::Expr::cust("SLEEP(2)"))
        .to_owned();
    let request = pool.with(|exec| exec.query_each(&sleep, &mut |_| Ok(())));
    assert!(request.is_err(), "a request's statement ran past its time");
    let slept: Option<i64> = pool
        .with_conn(|c| {
            c.query_first("SELECT SLEEP(2)")
                .map_err(|e| strata::store::StoreError::Database(e.to_string()))
        })
        .unwrap();
    assert_eq!(
        slept,
        Some(0),
        "SLEEP answers 0 when it was not interrupted"
    );
}

#[test]
fn an_unreachable_server_at_start_is_one_line_and_status_1() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["serve", "--schemas"])
        .arg(common::blog().join("schemas"))
        .args([
            "--database",
            "mysql://root@127.0.0.1:1/strata",
            "--port",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: ") && last.contains("cannot connect to MySQL at 127.0.0.1:1"),
        "{stderr}"
    );
}

#[test]
fn two_processes_answer_alike() {
    let Some(db) = common::my::strapi_blog("two") else {
        return;
    };
    let a = serve(&db.url, PoolOptions::default());
    let b = serve(&db.url, PoolOptions::default());
    for target in [
        "/api/articles?populate=*",
        "/api/authors?sort=name&fields[0]=name",
        "/api/articles?filters[title][$containsi]=hello&fields[0]=title",
    ] {
        let target = common::encode(target);
        let (_, _, x) = common::http_get(a, &target, &[]);
        let (_, _, y) = common::http_get(b, &target, &[]);
        assert_eq!(x, y, "{target}");
    }
}

/// `ssl-mode=REQUIRED` (and the stricter modes) never fall back to plain text: against a
/// server without TLS (the local MariaDB has it disabled) the connection is refused with
/// one line that says why; `DISABLED` connects.
#[test]
fn a_url_that_asks_for_tls_never_downgrades() {
    let Some(db) = common::my::strapi_blog("tls") else {
        return;
    };
    let has_ssl: String = db
        .pool()
        .with_conn(|c| {
            let v: Option<(String, String)> = c
                .query_first("SHOW VARIABLES LIKE 'have_ssl'")
                .map_err(|e| strata::store::StoreError::Database(e.to_string()))?;
            Ok(v.map(|(_, v)| v).unwrap_or_default())
        })
        .unwrap();
    let model = Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    for mode in ["REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"] {
        let url = DatabaseUrl::parse(&format!("{}?ssl-mode={mode}", db.url)).unwrap();
        let opened = Store::open(&url, model.clone(), &OpenOptions::default());
        if has_ssl == "YES" {
            continue; // a server with TLS: covered by the connection itself
        }
        let Err(e) = opened else {
            panic!("{mode}: connected in plain text to a server without TLS");
        };
        assert!(e.to_string().contains("secure connection"), "{mode}: {e}");
    }
    let url = DatabaseUrl::parse(&format!("{}?ssl-mode=DISABLED", db.url)).unwrap();
    assert!(Store::open(&url, model, &OpenOptions::default()).is_ok());
}
