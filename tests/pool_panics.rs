//! A panic while a pooled connection is held never loses the connection, on each
//! database: the pool keeps its size (the next unit of work gets a connection instead of
//! waiting forever), and a transaction the panic interrupted leaves nothing behind.
//!
//! Each store has one connection, so a connection the pool lost would make the next
//! read wait for ever; every wait here is bounded and fails the test instead.
//!
//! The same holds for a request whose time is up (`Store::within_limit`): its next
//! statement fails on every database, and a write it was in leaves nothing behind.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use strata::store::sea_query::{Alias, Expr, ExprTrait, Func, Query};
use strata::store::seam::{Change, count_rows};
use strata::store::{DatabaseUrl, Store, StoreError};

/// Runs `f` on another thread and waits for it at most 20 s.
fn within_time<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("{what} did not finish: the pool lost its connection"))
}

fn tags(store: &Store) -> u64 {
    store
        .read_with(|exec| {
            let mut q = Query::select();
            q.expr(Func::count(Expr::col(Alias::new("id"))))
                .from(Alias::new("tags"))
                .and_where(Expr::col(Alias::new("name")).eq("panicked"));
            count_rows(exec, &q)
        })
        .unwrap()
}

/// Panics inside a read, then inside a write that had inserted a row; checks that the
/// pool still serves reads and writes, and that the row is not there.
fn panics_keep_the_pool(store: Arc<Store>) {
    let before = tags(&store);
    let s = Arc::clone(&store);
    let read = std::panic::catch_unwind(AssertUnwindSafe(move || {
        let _: Result<(), _> = s.read_with(|_| panic!("a bug while reading"));
    }));
    assert!(read.is_err(), "the read panicked");
    let s = Arc::clone(&store);
    assert_eq!(
        within_time("a read after a panicked read", move || tags(&s)),
        before
    );

    let s = Arc::clone(&store);
    let write = std::panic::catch_unwind(AssertUnwindSafe(move || {
        let _: Result<(), strata::store::StoreError> = s.pool().write(|w| {
            let mut insert = Query::insert();
            insert
                .into_table(Alias::new("tags"))
                .columns([Alias::new("document_id"), Alias::new("name")])
                .values_panic(["panicked0000000000000000".into(), "panicked".into()]);
            w.execute(Change::Insert(&insert))?;
            panic!("a bug inside a transaction");
        });
    }));
    assert!(write.is_err(), "the write panicked");
    let s = Arc::clone(&store);
    assert_eq!(
        within_time("a read after a panicked write", move || tags(&s)),
        before,
        "the interrupted transaction left nothing behind"
    );
    // The connection is not stuck in the interrupted transaction: a new one commits.
    let s = Arc::clone(&store);
    within_time("a write after a panicked write", move || {
        s.pool()
            .write(|w| {
                let mut insert = Query::insert();
                insert
                    .into_table(Alias::new("tags"))
                    .columns([Alias::new("document_id"), Alias::new("name")])
                    .values_panic(["committed000000000000000".into(), "panicked".into()]);
                w.execute(Change::Insert(&insert))
            })
            .unwrap()
    });
    assert_eq!(tags(&store), before + 1);
}

fn insert_tag(w: &dyn strata::store::seam::Writer, document_id: &str) -> Result<u64, StoreError> {
    let mut insert = Query::insert();
    insert
        .into_table(Alias::new("tags"))
        .columns([Alias::new("document_id"), Alias::new("name")])
        .values_panic([document_id.into(), "panicked".into()]);
    w.execute(Change::Insert(&insert))
}

/// A write whose request's time runs out between two of its statements: the second
/// fails interrupted, and the first is rolled back. A read in time runs, and after the
/// late write the pool's one connection still commits.
fn the_request_limit_stops_statements(store: Arc<Store>) {
    let before = tags(&store);
    let s = Arc::clone(&store);
    let in_time = s.within_limit(Duration::from_secs(30), || tags(&s));
    assert_eq!(in_time, before);
    let s = Arc::clone(&store);
    let late = within_time("a write past its time", move || {
        s.within_limit(Duration::from_millis(100), || {
            s.pool().write(|w| {
                insert_tag(w, "limited00000000000000000")?;
                std::thread::sleep(Duration::from_millis(250));
                insert_tag(w, "limited10000000000000000")
            })
        })
    });
    assert!(matches!(late, Err(StoreError::Interrupted)), "{late:?}");
    assert_eq!(tags(&store), before, "the late write left nothing behind");
    let s = Arc::clone(&store);
    within_time("a write after a late write", move || {
        s.pool()
            .write(|w| insert_tag(w, "intime000000000000000000"))
            .unwrap()
    });
    assert_eq!(tags(&store), before + 1);
}

#[test]
fn the_request_limit_stops_sqlite_statements() {
    let (_, db) = common::blog_db_copy("pool-limit");
    let url = DatabaseUrl::parse(&format!("sqlite://{}", db.display())).unwrap();
    the_request_limit_stops_statements(one_connection_store(&url));
}

#[test]
fn the_request_limit_stops_postgres_statements() {
    let Some(db) = common::pg::strapi_blog("pool_limit") else {
        return;
    };
    the_request_limit_stops_statements(one_connection_store(&db.database_url()));
}

#[test]
fn the_request_limit_stops_mysql_statements() {
    let Some(db) = common::my::strapi_blog("pool_limit") else {
        return;
    };
    the_request_limit_stops_statements(one_connection_store(&DatabaseUrl::parse(&db.url).unwrap()));
}

fn one_connection_store(url: &DatabaseUrl) -> Arc<Store> {
    let model = Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    Arc::new(Store::open_existing(url, model, 1).unwrap())
}

#[test]
fn a_panic_never_loses_an_sqlite_connection() {
    let (_, db) = common::blog_db_copy("pool-panics");
    let url = DatabaseUrl::parse(&format!("sqlite://{}", db.display())).unwrap();
    panics_keep_the_pool(one_connection_store(&url));
}

#[test]
fn a_panic_never_loses_a_postgres_connection() {
    let Some(db) = common::pg::strapi_blog("pool_panics") else {
        return;
    };
    panics_keep_the_pool(one_connection_store(&db.database_url()));
}

#[test]
fn a_panic_never_loses_a_mysql_connection() {
    let Some(db) = common::my::strapi_blog("pool_panics") else {
        return;
    };
    panics_keep_the_pool(one_connection_store(&DatabaseUrl::parse(&db.url).unwrap()));
}

/// A read whose SQL would run for minutes (a filter through eight relation hops) stops
/// when the request's time is up, so its connection goes back to the pool: after two of
/// them have taken both of the store's connections and timed out, the server answers a
/// plain read again (before, every read waited for a connection and answered 503).
#[test]
fn a_read_past_the_request_time_gives_its_connection_back() {
    let config = strata::http::ServerConfig {
        request_timeout: Duration::from_secs(1),
        ..Default::default()
    };
    let addr = common::start_blog_server_with("pool-slow-read", config);
    let slow = "/api/articles?filters[tags][articles][tags][articles][tags][articles][tags][articles][title][$contains]=zz";
    let slow_reads: Vec<_> = (0..2)
        .map(|_| std::thread::spawn(move || common::http_request(addr, "GET", slow, &[]).0))
        .collect();
    for read in slow_reads {
        assert_eq!(read.join().unwrap(), 408);
    }
    // The interrupted statements end within moments of the timeout.
    std::thread::sleep(Duration::from_millis(1500));
    let (status, _, body) = within_time("a plain read", move || {
        common::http_request(addr, "GET", "/api/tags", &[])
    });
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
}
