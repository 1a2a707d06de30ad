//! PostgreSQL: everything strata does with it, and the only place outside tests that
//! names tokio-postgres or deadpool-postgres.
//!
//! * this file: an async pool (tokio-postgres + deadpool-postgres) behind the synchronous
//!   seam ([`Pool`], [`Executor`]), the binder from sea-query values to PostgreSQL's
//!   binary formats, the decoder of result columns into [`Cell`]s, and the mapping of
//!   the driver's errors to [`StoreError`];
//! * `tls.rs`: TLS on rustls with libpq's `sslmode` meanings;
//! * `ddl.rs`: Strapi's layout on PostgreSQL (create, check, migrate additively).
//!
//! The pool runs on the store's own small tokio runtime (one worker thread that drives
//! the connections), so the store is usable from any blocking thread: the HTTP server's
//! `spawn_blocking` workers, a CLI command, an embedder's thread. Each statement is
//! prepared once per connection (`prepare_cached`) and reused.
//!
//! Binding follows the server: PostgreSQL infers each parameter's type from where it
//! stands (`"views" > $1` is an `integer`), and [`Param`] encodes the value in that
//! type, so the planner binds one neutral value whatever the column's type. A value
//! that cannot be that type (a text in an `integer` comparison) is a
//! [`StoreError::InvalidValue`], a 400.
//!
//! Faults: a server that cannot be reached, a connection that breaks, a pool that stays
//! exhausted past its wait timeout and a statement past its timeout are all
//! [`StoreError::Unavailable`] (503). Broken connections are dropped by the pool's
//! recycling check, so service resumes by itself when the server is back.

use std::error::Error as StdError;
use std::panic::AssertUnwindSafe;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{BufMut, BytesMut};
use deadpool_postgres::{Manager, ManagerConfig, Pool, PoolError, RecyclingMethod, Runtime};
use sea_query::{Alias, InsertStatement, PostgresQueryBuilder, SelectStatement};
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{NoTls, Row};

pub mod ddl;
pub mod tls;

use super::seam::{
    CascadingKey, Cell, Change, Executor, Pool as StorePool, PoolOptions, RowRef, StoredValue,
    Writer, count_key, record, row_count,
};
use super::sql::Dialect;
use super::{StoreError, limit};
use crate::query::values;
use tls::SslChoice;

/// Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch.
const PG_EPOCH_DAYS: i64 = 10_957;
/// Microseconds from the Unix epoch to PostgreSQL's.
const PG_EPOCH_MICROS: i64 = PG_EPOCH_DAYS * 86_400_000_000;

/// Where a PostgreSQL URL points, for messages (never the password).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgTarget {
    /// The URL as given (shown with the password masked).
    pub url: String,
    /// Host (or socket directory) and port, as `host:port`.
    pub host_port: String,
    /// The database name.
    pub dbname: String,
    /// What the URL asks of TLS.
    pub tls: SslChoice,
    /// The URL as tokio-postgres reads it (`sslmode` normalised, `sslrootcert` removed).
    connect_url: String,
}

impl PgTarget {
    /// Parses `postgres://` / `postgresql://` URLs (tokio-postgres's syntax, including
    /// `sslmode`, `connect_timeout` and `application_name`).
    pub fn parse(url: &str) -> Result<PgTarget, String> {
        let (tls, connect_url) = SslChoice::from_url(url)?;
        let cfg = tokio_postgres::Config::from_str(&connect_url).map_err(|e| e.to_string())?;
        let host = match cfg.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
            #[cfg(unix)]
            Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
            None => "localhost".to_string(),
        };
        let port = cfg.get_ports().first().copied().unwrap_or(5432);
        let dbname = cfg
            .get_dbname()
            .or(cfg.get_user())
            .unwrap_or("postgres")
            .to_string();
        Ok(PgTarget {
            url: url.to_string(),
            host_port: format!("{host}:{port}"),
            dbname,
            tls,
            connect_url,
        })
    }

    /// The URL with its password masked.
    pub fn redacted(&self) -> String {
        mask_password(&self.url)
    }

    /// Any PostgreSQL URL with its password masked (for messages about bad URLs).
    pub fn mask(url: &str) -> String {
        mask_password(url)
    }
}

fn mask_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (auth, tail) = match rest.find('@') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => return url.to_string(),
    };
    match auth.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***{tail}"),
        None => url.to_string(),
    }
}

/// The store's tokio runtime; shut down in the background on drop, so a store may be
/// dropped inside async code.
struct OwnRuntime(Option<tokio::runtime::Runtime>);

impl Drop for OwnRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// A pool of PostgreSQL connections.
pub struct PgPool {
    pool: Pool,
    handle: tokio::runtime::Handle,
    _runtime: OwnRuntime,
    target: PgTarget,
    options: PoolOptions,
    /// Totals already counted, each with the snapshot it was counted in (see
    /// [`SnapshotCounts`]).
    counts: SnapshotCounts,
}

/// Exact totals kept across requests: each count is stored with the text of the MVCC
/// snapshot it ran in (`pg_current_snapshot()`, read in the same statement), and served
/// again only while a new statement's snapshot is the same text. Two equal snapshots see
/// the same committed transactions, so the same rows: a count is never stale, whichever
/// process or server wrote (a write anywhere in the cluster moves the snapshot, so some
/// counts are redone that need not be). It costs one round trip, as the count did, and
/// saves the count's scan (100k articles: 29 ms). Bounded: cleared when full.
#[derive(Default)]
struct SnapshotCounts(std::sync::Mutex<std::collections::HashMap<String, (String, u64)>>);

/// Entries the count cache holds before it starts over.
const COUNT_CACHE_ENTRIES: usize = 1024;

impl SnapshotCounts {
    fn get(&self, key: &str, snapshot: &str) -> Option<u64> {
        let map = self.0.lock().ok()?;
        map.get(key)
            .filter(|(seen, _)| seen == snapshot)
            .map(|(_, n)| *n)
    }

    fn put(&self, key: String, snapshot: String, n: u64) {
        if let Ok(mut map) = self.0.lock() {
            if map.len() >= COUNT_CACHE_ENTRIES {
                map.clear();
            }
            map.insert(key, (snapshot, n));
        }
    }
}

impl PgPool {
    /// Connects (one connection is opened now, so an unreachable server fails here).
    pub fn connect(target: &PgTarget, options: PoolOptions) -> Result<PgPool, StoreError> {
        let mut cfg =
            tokio_postgres::Config::from_str(&target.connect_url).map_err(|e| StoreError::Url {
                url: target.redacted(),
                reason: e.to_string(),
            })?;
        if cfg.get_connect_timeout().is_none() {
            cfg.connect_timeout(options.connect_timeout);
        }
        if cfg.get_application_name().is_none() {
            cfg.application_name("strata");
        }
        // The server cancels a statement past the timeout (57014, a 503), so the
        // connection stays usable; the client-side timeout below is only a safety net.
        let ms = options.statement_timeout.as_millis();
        let extra = format!("-c statement_timeout={ms}");
        let merged = match cfg.get_options() {
            Some(o) if !o.is_empty() => format!("{o} {extra}"),
            _ => extra,
        };
        cfg.options(&merged);
        let tls = target.tls.connector().map_err(|reason| StoreError::Url {
            url: target.redacted(),
            reason,
        })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("strata-pg")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Other(format!("cannot start the PostgreSQL runtime: {e}")))?;
        let handle = runtime.handle().clone();
        let manager_config = ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        };
        let manager = match tls {
            Some(tls) => Manager::from_config(cfg, tls, manager_config),
            None => Manager::from_config(cfg, NoTls, manager_config),
        };
        let pool = Pool::builder(manager)
            .max_size(options.pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(options.wait_timeout))
            .create_timeout(Some(options.connect_timeout))
            .recycle_timeout(Some(options.connect_timeout))
            .build()
            .map_err(|e| StoreError::Other(format!("cannot build the connection pool: {e}")))?;
        let out = PgPool {
            pool,
            handle,
            _runtime: OwnRuntime(Some(runtime)),
            target: target.clone(),
            options,
            counts: SnapshotCounts::default(),
        };
        // Fail now, with host and port, rather than on the first request.
        out.with(|_| Ok(()))?;
        Ok(out)
    }

    /// The most connections the pool opens.
    pub fn size(&self) -> usize {
        self.options.pool_size.max(1)
    }

    /// How long a request may wait for a connection.
    pub fn wait_timeout(&self) -> Duration {
        self.options.wait_timeout
    }

    /// The server this pool talks to.
    pub fn target(&self) -> &PgTarget {
        &self.target
    }

    /// Runs `f` with an executor on one pooled connection. A connection that `f` leaves
    /// in an unknown state (a statement abandoned mid-flight, or a panic) is dropped
    /// instead of going back to the pool; the pool opens a fresh one when needed.
    pub fn with<T>(
        &self,
        f: impl FnOnce(&dyn Executor) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.with_executor(|exec| f(exec))
    }

    /// [`PgPool::with`] with the executor itself, for what only this folder runs on it.
    fn with_executor<T>(
        &self,
        f: impl FnOnce(&PgExecutor<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let client = self
            .handle
            .block_on(self.pool.get())
            .map_err(|e| self.pool_error(e))?;
        let client = Arc::new(client);
        let (out, broken) = {
            let exec = PgExecutor::new(&client, self, Some(&self.counts));
            let out = std::panic::catch_unwind(AssertUnwindSafe(|| f(&exec)));
            let settled = exec.settle();
            (out.map(|out| settled.and(out)), exec.broken.get())
        };
        let Some(client) = sole(client) else {
            return out.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        };
        match out {
            Ok(out) => {
                if broken {
                    let _ = deadpool_postgres::Object::take(client);
                }
                out
            }
            Err(panic) => {
                let _ = deadpool_postgres::Object::take(client);
                std::panic::resume_unwind(panic)
            }
        }
    }

    /// Runs `f` with a [`Writer`] inside one transaction (`BEGIN` … `COMMIT`, or
    /// `ROLLBACK` when `f` fails). A connection whose transaction could not be ended, or
    /// that `f` panicked with, is dropped, never returned to the pool.
    pub fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn Writer) -> Result<T, E>,
    ) -> Result<T, E> {
        self.write_on(|exec| f(exec))
    }

    /// [`PgPool::write`] with the executor itself, for what only this folder does with
    /// it (a new database's DDL, [`PgExecutor::ddl`]).
    fn write_on<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&PgExecutor<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let at = &self.target.host_port;
        let client = self
            .handle
            .block_on(self.pool.get())
            .map_err(|e| self.pool_error(e))?;
        // Every statement of a write is planned for its values, as Strapi's driver (node-
        // postgres, unnamed statements) has them planned: a value its column refuses
        // (`value too long for type character varying(255)`) then fails while the insert
        // is planned, before its `nextval`, as Strapi's does. A statement prepared once and
        // run on a generic plan (PostgreSQL's choice after five runs) fails after taking
        // an id, and later rows would be numbered otherwise than Strapi numbers them.
        self.handle
            .block_on(client.batch_execute("BEGIN; SET LOCAL plan_cache_mode = force_custom_plan"))
            .map_err(|e| statement_error(e, at))?;
        let client = Arc::new(client);
        let (out, broken) = {
            // No shared counts in a transaction: what it counts includes its own writes,
            // which no other statement with the same snapshot text sees.
            let exec = PgExecutor::new(&client, self, None);
            let out = std::panic::catch_unwind(AssertUnwindSafe(|| f(&exec)));
            // The rows still being copied in belong to the transaction: their failure
            // is its failure, and the connection is only ended once they are stored.
            let settled = exec.settle();
            let out = out.map(|out| out.and_then(|t| settled.map(|()| t).map_err(E::from)));
            (out, exec.broken.get())
        };
        let Some(client) = sole(client) else {
            // Unreachable: `settle` waited for the copy that shared the connection.
            return out.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        };
        // A panic inside the transaction: the connection is still in it, so it never
        // goes back to the pool (dropping it ends the transaction on the server).
        let out = match out {
            Ok(out) => out,
            Err(panic) => {
                let _ = deadpool_postgres::Object::take(client);
                std::panic::resume_unwind(panic)
            }
        };
        let end = if out.is_ok() { "COMMIT" } else { "ROLLBACK" };
        let ended = match broken {
            true => Ok(()),
            false => self
                .handle
                .block_on(client.batch_execute(end))
                .map_err(|e| statement_error(e, at)),
        };
        if broken || ended.is_err() {
            let _ = deadpool_postgres::Object::take(client);
        }
        let out = out?;
        ended?;
        Ok(out)
    }

    /// Runs `f` with the raw client, on the pool's runtime (DDL, import, tests).
    pub fn with_client<T>(
        &self,
        f: impl AsyncFnOnce(&mut tokio_postgres::Client) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.handle.block_on(async {
            let mut client = self.pool.get().await.map_err(|e| self.pool_error(e))?;
            let raw: &mut tokio_postgres::Client = &mut client;
            f(raw).await
        })
    }

    fn pool_error(&self, e: PoolError) -> StoreError {
        let at = &self.target.host_port;
        match e {
            PoolError::Timeout(_) => StoreError::Unavailable(format!(
                "no PostgreSQL connection free or reachable at {at} within {:?}",
                self.options.wait_timeout
            )),
            PoolError::Backend(e) => StoreError::Unavailable(format!(
                "cannot connect to PostgreSQL at {at}: {}",
                reason(&e)
            )),
            other => StoreError::Unavailable(format!("PostgreSQL at {at}: {other}")),
        }
    }
}

impl StorePool for PgPool {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn size(&self) -> usize {
        PgPool::size(self)
    }

    fn wait_timeout(&self) -> Duration {
        PgPool::wait_timeout(self)
    }

    /// The hash of the server's current MVCC snapshot (`pg_current_snapshot()`): two equal
    /// snapshots see the same committed transactions, so the same data, whichever process
    /// or server wrote (see [`SnapshotCounts`]). A commit anywhere in the cluster moves it.
    fn data_generation(&self) -> Result<Option<u64>, StoreError> {
        self.with_executor(|exec| {
            Ok(exec.snapshot()?.map(|s| {
                use std::hash::{Hash, Hasher};
                let mut h = std::hash::DefaultHasher::new();
                s.hash(&mut h);
                h.finish()
            }))
        })
    }

    fn read(
        &self,
        f: &mut dyn FnMut(&dyn Executor) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.with(f)
    }

    fn transaction(
        &self,
        f: &mut dyn FnMut(&dyn Writer) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.write(f)
    }
}

/// The pooled connection of an executor once nothing else holds it: always, after
/// [`PgExecutor::settle`], since a task's future (and its share of the connection) is
/// dropped before its `JoinHandle` resolves.
fn sole(client: SharedClient) -> Option<deadpool_postgres::Client> {
    Arc::try_unwrap(client).ok()
}

/// The most specific reason of a driver error (its source, else itself).
fn reason(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{} ({})", db.message(), db.code().code());
    }
    match e.source() {
        Some(s) => s.to_string(),
        None => e.to_string(),
    }
}

/// Maps a driver error of a statement: missing tables, bad parameter values, lost
/// connections.
fn statement_error(e: tokio_postgres::Error, at: &str) -> StoreError {
    if let Some(db) = e.as_db_error() {
        let code = db.code().code();
        return match code {
            "42P01" => StoreError::MissingTable(db.message().to_string()),
            // data_exception (class 22): invalid_text_representation, numeric values out
            // of range, datetime errors, a NUL or an untranslatable character in text, a
            // string too long for its column: a value the column's type cannot hold.
            c if c.starts_with("22") => StoreError::InvalidValue(db.message().to_string()),
            // query_canceled: the statement_timeout fired.
            "57014" => StoreError::Unavailable(format!("PostgreSQL at {at}: {}", db.message())),
            // admin shutdown (pg_terminate_backend), crash shutdown, cannot connect now,
            // connection failures: this connection is gone.
            c if c.starts_with("57P") || c.starts_with("08") => {
                StoreError::ConnectionLost(format!("PostgreSQL at {at}: {}", db.message()))
            }
            // integrity_constraint_violation: unique, foreign key, not null, check.
            c if c.starts_with("23") => {
                StoreError::Constraint(format!("{} ({code})", db.message()))
            }
            // lock_not_available, deadlock_detected, serialization_failure: run it again.
            "55P03" | "40P01" | "40001" => {
                StoreError::Busy(format!("PostgreSQL at {at}: {}", db.message()))
            }
            _ => StoreError::Database(format!("{} ({code})", db.message())),
        };
    }
    if e.is_closed() || e.source().is_some_and(|s| s.is::<std::io::Error>()) {
        return StoreError::ConnectionLost(format!("lost the connection to PostgreSQL at {at}"));
    }
    // A parameter the server's type cannot take (see `Param`).
    if let Some(src) = e.source()
        && src.is::<BadValue>()
    {
        return StoreError::InvalidValue(src.to_string());
    }
    StoreError::Database(e.to_string())
}

/// The text of the statement's MVCC snapshot (`xmin:xmax:xip,…`).
const SNAPSHOT: &str = "SELECT pg_current_snapshot()::text";

/// A pooled connection, shared with the copy of rows still running on the pool's
/// runtime ([`PgExecutor::in_flight`]).
type SharedClient = Arc<deadpool_postgres::Client>;

struct PgExecutor<'p> {
    client: &'p SharedClient,
    pool: &'p PgPool,
    /// Set when a statement was abandoned (client-side timeout) or the connection broke.
    broken: std::cell::Cell<bool>,
    /// Rows affected by the last `Run::Execute`.
    last_affected: std::cell::Cell<u64>,
    /// The last [`Writer::insert_rows`], still copying its rows in on the pool's runtime:
    /// the caller goes on preparing the next rows while the server stores these. Every
    /// other use of the connection waits for it first ([`PgExecutor::settle`]), so the
    /// statements of one executor still run one after another, in the order they were
    /// asked for, and its failure is the failure of the next statement.
    in_flight: std::cell::RefCell<Option<tokio::task::JoinHandle<Result<(), StoreError>>>>,
    /// The pool's counts by snapshot, outside a transaction (`None`: count every time).
    counts: Option<&'p SnapshotCounts>,
}

impl<'p> PgExecutor<'p> {
    fn new(client: &'p SharedClient, pool: &'p PgPool, counts: Option<&'p SnapshotCounts>) -> Self {
        PgExecutor {
            client,
            pool,
            counts,
            broken: std::cell::Cell::new(false),
            last_affected: std::cell::Cell::new(0),
            in_flight: std::cell::RefCell::new(None),
        }
    }

    /// Waits for the rows still being copied in ([`PgExecutor::in_flight`]).
    fn settle(&self) -> Result<(), StoreError> {
        let Some(copy) = self.in_flight.borrow_mut().take() else {
            return Ok(());
        };
        let result = match self.pool.handle.block_on(copy) {
            Ok(result) => result,
            Err(e) => Err(StoreError::Other(format!("copying rows in: {e}"))),
        };
        result.inspect_err(|_| self.broken.set(true))
    }
}

impl Executor for PgExecutor<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn cascading_foreign_keys(&self) -> Result<Vec<CascadingKey>, StoreError> {
        let rows = self.run(CASCADING_KEYS, sea_query::Values(Vec::new()), Run::Query)?;
        rows.iter()
            .map(|r| {
                let text = |i| {
                    r.try_get::<_, String>(i)
                        .map_err(|e| StoreError::Other(format!("cannot read a foreign key: {e}")))
                };
                Ok(CascadingKey {
                    table: text(0)?,
                    column: text(1)?,
                    references: text(2)?,
                })
            })
            .collect()
    }

    /// The count, served from [`SnapshotCounts`] while the snapshot stands (outside a
    /// transaction).
    fn count(&self, stmt: &SelectStatement) -> Result<u64, StoreError> {
        let (sql, values) = stmt.build(PostgresQueryBuilder);
        let Some(counts) = self.counts else {
            let rows = self.run(&sql, values, Run::Query)?;
            return counted_rows(rows.first());
        };
        let key = count_key(&sql, &values);
        let snapshot = self.snapshot()?;
        if let Some(snapshot) = &snapshot
            && let Some(n) = counts.get(&key, snapshot)
        {
            return Ok(n);
        }
        // The count and the snapshot it ran in, from one statement.
        let counted = format!("SELECT ({sql}), ({SNAPSHOT})");
        let rows = self.run(&counted, values, Run::Query)?;
        let n = counted_rows(rows.first())?;
        if let Some(Ok(seen)) = rows.first().map(|r| r.try_get::<_, String>(1)) {
            counts.put(key, seen, n);
        }
        Ok(n)
    }

    fn query_each(
        &self,
        stmt: &SelectStatement,
        row: &mut dyn FnMut(&dyn RowRef) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let (sql, values) = stmt.build(PostgresQueryBuilder);
        let rows = self.run(&sql, values, Run::Query)?;
        for r in &rows {
            row(&PgRow(r))?;
        }
        Ok(())
    }

    /// The statements pipelined on the connection: all are sent before the first answer
    /// is read, so a populate level costs one round trip however many edges it has.
    fn query_batch(
        &self,
        stmts: &[&SelectStatement],
        row: &mut dyn FnMut(usize, &dyn RowRef) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        if let [stmt] = stmts {
            return self.query_each(stmt, &mut |r| row(0, r));
        }
        let built: Vec<(String, Vec<Param>)> = stmts
            .iter()
            .map(|stmt| {
                let (sql, values) = stmt.build(PostgresQueryBuilder);
                record(&sql, &values.0);
                (sql, values.0.into_iter().map(Param::from).collect())
            })
            .collect();
        let client = self.client;
        let results = self.block(async {
            let each = built.iter().map(|(sql, params)| async move {
                let refs: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
                let st = client.prepare_cached(sql).await?;
                client.query(&st, &refs).await
            });
            futures_util::future::try_join_all(each).await
        })?;
        for (i, rows) in results.iter().enumerate() {
            for r in rows {
                row(i, &PgRow(r))?;
            }
        }
        Ok(())
    }
}

/// The single-column `ON DELETE CASCADE` foreign keys of the tables in the current
/// schema (see [`Executor::cascading_foreign_keys`]).
const CASCADING_KEYS: &str = "SELECT cl.relname::text, a.attname::text, rf.relname::text \
     FROM pg_constraint c \
     JOIN pg_class cl ON cl.oid = c.conrelid \
     JOIN pg_class rf ON rf.oid = c.confrelid \
     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] \
     WHERE c.contype = 'f' AND c.confdeltype = 'c' AND cardinality(c.conkey) = 1 \
     AND cl.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())";

/// What [`PgExecutor::run`] does with a prepared statement.
#[derive(Clone, Copy)]
enum Run {
    /// Returns its rows.
    Query,
    /// Returns no rows; the affected count goes to `last_affected`.
    Execute,
}

impl PgExecutor<'_> {
    /// Prepares (once per connection), binds and runs one statement ([`Self::block`]).
    /// `Run::Execute` returns no rows and leaves the count of affected rows in
    /// `last_affected`.
    fn run(&self, sql: &str, values: sea_query::Values, how: Run) -> Result<Vec<Row>, StoreError> {
        record(sql, &values.0);
        self.run_params(sql, values.0.into_iter().map(Param::from).collect(), how)
    }

    /// The text of the MVCC snapshot a statement now sees ([`SNAPSHOT`]); `None` when the
    /// server answered something else, so nothing is kept by it.
    fn snapshot(&self) -> Result<Option<String>, StoreError> {
        let rows = self.run(SNAPSHOT, sea_query::Values(Vec::new()), Run::Query)?;
        Ok(rows.first().and_then(|r| r.try_get::<_, String>(0).ok()))
    }

    /// Runs DDL text (statements without parameters) in this connection's transaction,
    /// with no time limit on the client's side: building an index of a new database's
    /// largest table may take minutes. Run `set local statement_timeout = 0` first to
    /// lift the server's.
    fn ddl(&self, sql: &str) -> Result<(), StoreError> {
        self.settle()?;
        record(sql, &[]);
        let at = &self.pool.target.host_port;
        self.pool
            .handle
            .block_on(self.client.batch_execute(sql))
            .map_err(|e| {
                self.broken.set(e.is_closed());
                statement_error(e, at)
            })
    }

    /// [`PgExecutor::run`] with parameters already in PostgreSQL's form.
    fn run_params(&self, sql: &str, params: Vec<Param>, how: Run) -> Result<Vec<Row>, StoreError> {
        let refs: Vec<&(dyn ToSql + Sync)> =
            params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        let affected = std::cell::Cell::new(0u64);
        let result = self.block(async {
            let st = self.client.prepare_cached(sql).await?;
            match how {
                Run::Query => self.client.query(&st, &refs).await,
                Run::Execute => {
                    affected.set(self.client.execute(&st, &refs).await?);
                    Ok(Vec::new())
                }
            }
        });
        self.last_affected.set(affected.get());
        result
    }

    /// Runs `work` (statements on this connection) to its end on the pool's runtime,
    /// under the pool's time limit (none once the request's time is up:
    /// [`limit::check`]), and marks the connection for dropping when it was
    /// abandoned mid-flight or broke.
    fn block<T>(
        &self,
        work: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T, StoreError> {
        self.settle()?;
        limit::check()?;
        let at = &self.pool.target.host_port;
        let timeout = self.pool.options.statement_timeout;
        let result = self.pool.handle.block_on(async {
            // The server's own statement_timeout fires first; this one covers a server
            // that stopped answering altogether.
            match tokio::time::timeout(timeout + Duration::from_secs(2), work).await {
                Ok(r) => r.map_err(|e| statement_error(e, at)),
                Err(_) => Err(StoreError::Unavailable(format!(
                    "PostgreSQL at {at} did not answer within {timeout:?}"
                ))),
            }
        });
        result.inspect_err(|e| {
            if matches!(
                e,
                StoreError::Unavailable(_) | StoreError::ConnectionLost(_)
            ) {
                self.broken.set(true);
            }
        })
    }
}

impl Writer for PgExecutor<'_> {
    fn serialize_writes(&self) -> Result<(), StoreError> {
        let mut values = sea_query::Values(Vec::new());
        values.0.push(sea_query::Value::BigInt(Some(
            super::seam::CONTENT_WRITE_LOCK,
        )));
        self.run("select pg_advisory_xact_lock($1)", values, Run::Query)?;
        Ok(())
    }

    fn execute(&self, change: Change<'_>) -> Result<u64, StoreError> {
        let (sql, values) = change.build(Dialect::Postgres);
        self.run(&sql, values, Run::Execute)?;
        Ok(self.last_affected.get())
    }

    fn insert_id(&self, stmt: &InsertStatement) -> Result<i64, StoreError> {
        let mut stmt = stmt.clone();
        stmt.returning_col(Alias::new("id"));
        let (sql, values) = stmt.build(PostgresQueryBuilder);
        let rows = self.run(&sql, values, Run::Query)?;
        let id = rows.first().map(|r| PgRow(r).int(0)).transpose()?;
        id.ok_or_else(|| StoreError::Other("INSERT … RETURNING id returned no row".into()))
    }

    fn insert_rows(
        &self,
        table: &str,
        columns: &[&str],
        values: &[StoredValue],
    ) -> Result<(), StoreError> {
        if row_count(table, columns, values)? == 0 {
            return Ok(());
        }
        self.settle()?;
        limit::check()?;
        let copy = RowsCopy {
            types_sql: ddl::column_types_sql(table, columns),
            copy_sql: ddl::copy_in_sql(table, columns),
            width: columns.len(),
            params: values.iter().map(ddl::param).collect(),
        };
        record(&copy.copy_sql, &[]);
        let client = Arc::clone(self.client);
        let at = self.pool.target.host_port.clone();
        let timeout = self.pool.options.statement_timeout + Duration::from_secs(2);
        let task = self.pool.handle.spawn(async move {
            match tokio::time::timeout(timeout, copy.run(&client)).await {
                Ok(r) => r.map_err(|e| statement_error(e, &at)),
                Err(_) => Err(StoreError::Unavailable(format!(
                    "PostgreSQL at {at} did not take rows within {timeout:?}"
                ))),
            }
        });
        *self.in_flight.borrow_mut() = Some(task);
        Ok(())
    }

    /// `COPY` has no limit on parameters; a call carries enough rows that its two round
    /// trips are small beside the server's work on them.
    fn rows_per_insert(&self) -> usize {
        1024
    }

    fn next_id(&self, table: &str) -> Result<i64, StoreError> {
        // The sequence's last value is NULL until it gave an id.
        let sql = format!(
            "select greatest(coalesce(max(id), 0), coalesce(pg_sequence_last_value(pg_get_serial_sequence($1, 'id')::regclass), 0)) + 1 from {}",
            ddl::quote(table)
        );
        let rows = self.run_params(&sql, vec![Param::Text(ddl::quote(table))], Run::Query)?;
        rows.first()
            .map(|r| PgRow(r).int(0))
            .transpose()?
            .ok_or_else(|| StoreError::Other(format!("no next id for {table}")))
    }

    fn refresh_statistics(&self, table: &str) -> Result<(), StoreError> {
        self.run_params(
            &format!("analyze {}", ddl::quote(table)),
            Vec::new(),
            Run::Execute,
        )?;
        Ok(())
    }

    fn ids_written(&self, table: &str) -> Result<(), StoreError> {
        let sql = ddl::sequence_past_ids_sql(table);
        self.run_params(&sql, vec![Param::Text(ddl::quote(table))], Run::Query)?;
        Ok(())
    }
}

/// The count in the first column of a count statement's row.
fn counted_rows(row: Option<&Row>) -> Result<u64, StoreError> {
    let n = row
        .ok_or_else(|| StoreError::Database("a count returned no row".into()))?
        .try_get::<_, i64>(0)
        .map_err(|e| StoreError::Database(e.to_string()))?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Rows for one table, copied in as `COPY … FROM STDIN (FORMAT binary)`: each value is
/// encoded by [`Param`]'s `ToSql` in its column's type, as when bound to an `INSERT`.
struct RowsCopy {
    /// `select <columns> from <table> limit 0`, whose prepared form gives the columns'
    /// types.
    types_sql: String,
    copy_sql: String,
    width: usize,
    /// The rows' values, one row after another.
    params: Vec<Param>,
}

impl RowsCopy {
    async fn run(self, client: &deadpool_postgres::Client) -> Result<(), tokio_postgres::Error> {
        let columns = client.prepare_cached(&self.types_sql).await?;
        let types: Vec<Type> = columns
            .columns()
            .iter()
            .map(|c| c.type_().clone())
            .collect();
        let copy = client.prepare_cached(&self.copy_sql).await?;
        let sink = client.copy_in::<_, bytes::Bytes>(&copy).await?;
        let mut writer = std::pin::pin!(BinaryCopyInWriter::new(sink, &types));
        for row in self.params.chunks(self.width.max(1)) {
            let refs: Vec<&(dyn ToSql + Sync)> =
                row.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
            writer.as_mut().write(&refs).await?;
        }
        writer.finish().await?;
        Ok(())
    }
}

struct PgRow<'r>(&'r Row);

impl RowRef for PgRow<'_> {
    fn cell(&self, i: usize) -> Result<Cell<'_>, StoreError> {
        self.0
            .try_get::<_, Cell<'_>>(i)
            .map_err(|e| StoreError::Database(format!("column {i}: {e}")))
    }
}

// ------------------------------------------------------------------- decoding

impl<'a> FromSql<'a> for Cell<'a> {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn StdError + Sync + Send>> {
        Ok(match *ty {
            Type::BOOL => Cell::Bool(bool::from_sql(ty, raw)?),
            Type::INT2 => Cell::Int(i64::from(i16::from_sql(ty, raw)?)),
            Type::INT4 => Cell::Int(i64::from(i32::from_sql(ty, raw)?)),
            Type::INT8 => Cell::BigInt(i64::from_sql(ty, raw)?),
            Type::FLOAT4 => Cell::Float(f64::from(f32::from_sql(ty, raw)?)),
            Type::FLOAT8 => Cell::Float(f64::from_sql(ty, raw)?),
            Type::NUMERIC => {
                let text = numeric_text(raw)?;
                match values::js_number(&text) {
                    Some(f) => Cell::Float(f),
                    None => Cell::Text(text.into()),
                }
            }
            Type::TIMESTAMP | Type::TIMESTAMPTZ => {
                let us = i64::from_sql(&Type::INT8, raw)?;
                Cell::DateTime((us + PG_EPOCH_MICROS).div_euclid(1000))
            }
            Type::DATE => {
                let days = i32::from_sql(&Type::INT4, raw)?;
                let ms = (i64::from(days) + PG_EPOCH_DAYS) * 86_400_000;
                let iso = values::iso_string(ms);
                Cell::Text(
                    iso.get(..iso.len().saturating_sub(14))
                        .unwrap_or("")
                        .to_string()
                        .into(),
                )
            }
            Type::TIME => Cell::Text(time_text(i64::from_sql(&Type::INT8, raw)?).into()),
            Type::JSONB => match raw.split_first() {
                Some((1, body)) => Cell::Text(std::str::from_utf8(body)?.into()),
                _ => return Err("unsupported jsonb version".into()),
            },
            Type::BYTEA => Cell::Bytes(raw),
            // text, varchar, bpchar, name, json, uuid-as-text…: the raw bytes are UTF-8.
            _ => Cell::Text(std::str::from_utf8(raw)?.into()),
        })
    }

    fn from_sql_null(_: &Type) -> Result<Self, Box<dyn StdError + Sync + Send>> {
        Ok(Cell::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// PostgreSQL's text form of a `time` (`HH:MM:SS[.ffffff]`, trailing zeros dropped), as
/// node-postgres hands it to Strapi.
fn time_text(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if frac == 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        let f = format!("{frac:06}");
        format!("{h:02}:{m:02}:{s:02}.{}", f.trim_end_matches('0'))
    }
}

/// The text of a binary `numeric` (base-10000 digits, weight, sign, display scale).
fn numeric_text(raw: &[u8]) -> Result<String, Box<dyn StdError + Sync + Send>> {
    let word = |i: usize| -> Result<i16, Box<dyn StdError + Sync + Send>> {
        let b = raw.get(i..i + 2).ok_or("numeric: truncated")?;
        Ok(i16::from_be_bytes([b[0], b[1]]))
    };
    let ndigits = usize::try_from(word(0)?).map_err(|_| "numeric: bad length")?;
    let weight = i32::from(word(2)?);
    let sign = word(4)? as u16;
    let dscale = usize::try_from(word(6)?).map_err(|_| "numeric: bad scale")?;
    match sign {
        0xC000 => return Ok("NaN".into()),
        0xD000 => return Ok("Infinity".into()),
        0xF000 => return Ok("-Infinity".into()),
        _ => {}
    }
    let mut digits = Vec::with_capacity(ndigits);
    for k in 0..ndigits {
        digits.push(word(8 + 2 * k)?);
    }
    let mut int_part = String::new();
    for w in 0..=weight.max(-1) {
        let d = usize::try_from(w)
            .ok()
            .and_then(|i| digits.get(i))
            .copied()
            .unwrap_or(0);
        if int_part.is_empty() {
            int_part = d.to_string();
        } else {
            int_part.push_str(&format!("{d:04}"));
        }
    }
    if int_part.is_empty() {
        int_part.push('0');
    }
    let mut frac = String::new();
    let mut w = weight + 1;
    while frac.len() < dscale {
        let d = if w < 0 {
            0
        } else {
            usize::try_from(w)
                .ok()
                .and_then(|i| digits.get(i))
                .copied()
                .unwrap_or(0)
        };
        frac.push_str(&format!("{d:04}"));
        w += 1;
    }
    frac.truncate(dscale);
    let mut out = String::new();
    if sign == 0x4000 {
        out.push('-');
    }
    out.push_str(&int_part);
    if !frac.is_empty() {
        out.push('.');
        out.push_str(&frac);
    }
    Ok(out)
}

// -------------------------------------------------------------------- binding

/// A value that PostgreSQL's inferred parameter type cannot hold.
#[derive(Debug, thiserror::Error)]
#[error("invalid value {value} for a {ty} column")]
struct BadValue {
    value: String,
    ty: String,
}

/// A bound value, encoded in whatever type the server inferred for its parameter.
#[derive(Debug)]
pub enum Param {
    /// NULL.
    Null,
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// Text.
    Text(String),
    /// Bytes.
    Bytes(Vec<u8>),
}

/// The neutral forms a planner value takes.
enum Scalar<'a> {
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl From<sea_query::Value> for Param {
    fn from(v: sea_query::Value) -> Param {
        use sea_query::Value as V;
        let int = |i: Option<i64>| i.map_or(Param::Null, Param::Int);
        match v {
            V::Bool(b) => b.map_or(Param::Null, Param::Bool),
            V::TinyInt(i) => int(i.map(i64::from)),
            V::SmallInt(i) => int(i.map(i64::from)),
            V::Int(i) => int(i.map(i64::from)),
            V::BigInt(i) => int(i),
            V::TinyUnsigned(i) => int(i.map(i64::from)),
            V::SmallUnsigned(i) => int(i.map(i64::from)),
            V::Unsigned(i) => int(i.map(i64::from)),
            V::BigUnsigned(Some(u)) => i64::try_from(u).map_or(Param::Float(u as f64), Param::Int),
            V::BigUnsigned(None) => Param::Null,
            V::Float(f) => f.map_or(Param::Null, |f| Param::Float(f64::from(f))),
            V::Double(f) => f.map_or(Param::Null, Param::Float),
            V::String(s) => s.map_or(Param::Null, Param::Text),
            V::Char(c) => c.map_or(Param::Null, |c| Param::Text(c.to_string())),
            V::Bytes(b) => b.map_or(Param::Null, Param::Bytes),
            #[allow(unreachable_patterns)]
            _ => Param::Null,
        }
    }
}

impl Param {
    fn scalar(&self) -> Scalar<'_> {
        match self {
            Param::Null => Scalar::Null,
            Param::Int(i) => Scalar::Int(*i),
            Param::Float(f) => Scalar::Float(*f),
            Param::Bool(b) => Scalar::Bool(*b),
            Param::Text(t) => Scalar::Text(t),
            Param::Bytes(b) => Scalar::Bytes(b),
        }
    }

    fn text(&self) -> Option<String> {
        Some(match self.scalar() {
            Scalar::Int(i) => i.to_string(),
            Scalar::Float(f) => values::js_number_string(f),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Text(t) => t.to_string(),
            Scalar::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            Scalar::Null => return None,
        })
    }

    fn bad(&self, ty: &Type) -> Box<dyn StdError + Sync + Send> {
        Box::new(BadValue {
            value: self.text().unwrap_or_default(),
            ty: ty.name().to_string(),
        })
    }

    fn int(&self, ty: &Type) -> Result<i64, Box<dyn StdError + Sync + Send>> {
        match self.scalar() {
            Scalar::Int(i) => Ok(i),
            Scalar::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(f as i64),
            Scalar::Bool(b) => Ok(i64::from(b)),
            Scalar::Text(t) => t.trim().parse().map_err(|_| self.bad(ty)),
            _ => Err(self.bad(ty)),
        }
    }

    fn float(&self, ty: &Type) -> Result<f64, Box<dyn StdError + Sync + Send>> {
        match self.scalar() {
            Scalar::Int(i) => Ok(i as f64),
            Scalar::Float(f) => Ok(f),
            Scalar::Text(t) => values::js_number(t).ok_or_else(|| self.bad(ty)),
            _ => Err(self.bad(ty)),
        }
    }

    /// Epoch milliseconds of a datetime value (bound as epoch ms or ISO text).
    fn epoch_ms(&self, ty: &Type) -> Result<i64, Box<dyn StdError + Sync + Send>> {
        match self.scalar() {
            Scalar::Int(i) => Ok(i),
            Scalar::Float(f) => Ok(f as i64),
            Scalar::Text(t) => values::datetime(t).ok_or_else(|| self.bad(ty)),
            _ => Err(self.bad(ty)),
        }
    }
}

impl ToSql for Param {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        if matches!(self.scalar(), Scalar::Null) {
            return Ok(IsNull::Yes);
        }
        match *ty {
            Type::BOOL => {
                let b = match self.scalar() {
                    Scalar::Bool(b) => b,
                    Scalar::Int(i) => i != 0,
                    Scalar::Text(t) => values::strict_bool(t).ok_or_else(|| self.bad(ty))?,
                    _ => return Err(self.bad(ty)),
                };
                out.put_u8(u8::from(b));
            }
            Type::INT2 => out.put_i16(i16::try_from(self.int(ty)?).map_err(|_| self.bad(ty))?),
            Type::INT4 => out.put_i32(i32::try_from(self.int(ty)?).map_err(|_| self.bad(ty))?),
            Type::INT8 => out.put_i64(self.int(ty)?),
            Type::FLOAT4 => out.put_f32(self.float(ty)? as f32),
            Type::FLOAT8 => out.put_f64(self.float(ty)?),
            Type::NUMERIC => {
                let text = match self.scalar() {
                    Scalar::Text(t) => t.trim().to_string(),
                    _ => self.text().unwrap_or_default(),
                };
                encode_numeric(&text, out).map_err(|_| self.bad(ty))?;
            }
            Type::TIMESTAMP | Type::TIMESTAMPTZ => {
                let ms = self.epoch_ms(ty)?;
                out.put_i64(ms * 1000 - PG_EPOCH_MICROS);
            }
            Type::DATE => {
                let ms = self.epoch_ms(ty)?;
                let days = ms.div_euclid(86_400_000) - PG_EPOCH_DAYS;
                out.put_i32(i32::try_from(days).map_err(|_| self.bad(ty))?);
            }
            Type::TIME => {
                let text = self.text().unwrap_or_default();
                let micros = time_micros(&text).ok_or_else(|| self.bad(ty))?;
                out.put_i64(micros);
            }
            Type::JSONB => {
                out.put_u8(1);
                out.put_slice(self.text().unwrap_or_default().as_bytes());
            }
            Type::BYTEA => match self.scalar() {
                Scalar::Bytes(b) => out.put_slice(b),
                _ => out.put_slice(self.text().unwrap_or_default().as_bytes()),
            },
            _ => out.put_slice(self.text().unwrap_or_default().as_bytes()),
        }
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// `HH:mm:ss[.fff…]` → microseconds since midnight.
fn time_micros(s: &str) -> Option<i64> {
    let (hms, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut parts = hms.split(':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let sec: i64 = parts.next().unwrap_or("0").parse().ok()?;
    if parts.next().is_some()
        || !(0..=24).contains(&h)
        || !(0..60).contains(&m)
        || !(0..61).contains(&sec)
    {
        return None;
    }
    let mut us = 0i64;
    if !frac.is_empty() {
        if !frac.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let six: String = format!("{frac:0<6}").chars().take(6).collect();
        us = six.parse().ok()?;
    }
    Some(((h * 60 + m) * 60 + sec) * 1_000_000 + us)
}

/// Encodes a decimal text (`-12.340`, `1e3`) as a binary `numeric`.
fn encode_numeric(text: &str, out: &mut BytesMut) -> Result<(), ()> {
    // Normalise exponents and plain forms to digits and a scale.
    let f = values::js_number(text).ok_or(())?;
    if !f.is_finite() {
        return Err(());
    }
    let plain = if text.contains(['e', 'E']) || text.is_empty() {
        values::js_number_string(f)
    } else {
        text.trim_start_matches('+').to_string()
    };
    // JavaScript writes small and large numbers with an exponent (`1e-7`), which
    // PostgreSQL's own `numeric` input reads as the plain decimal (`0.0000001`).
    let plain = match plain.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => without_exponent(mantissa, exponent).ok_or(())?,
        None => plain,
    };
    let (neg, body) = match plain.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, plain.as_str()),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return Err(());
    }
    let int = int.trim_start_matches('0');
    let dscale = frac.len();
    // Pad the integer part on the left and the fraction on the right to groups of 4.
    let int_pad = (4 - int.len() % 4) % 4;
    let frac_pad = (4 - frac.len() % 4) % 4;
    let digits: String = "0".repeat(int_pad) + int + frac + &"0".repeat(frac_pad);
    let groups: Vec<i16> = digits
        .as_bytes()
        .chunks(4)
        .map(|c| c.iter().fold(0i16, |acc, d| acc * 10 + i16::from(d - b'0')))
        .collect();
    let int_groups = (int.len() + int_pad) / 4;
    // Strip leading and trailing zero groups, adjusting the weight.
    let first = groups.iter().position(|g| *g != 0);
    let (groups, weight) = match first {
        None => (Vec::new(), 0i16),
        Some(first) => {
            let last = groups.iter().rposition(|g| *g != 0).unwrap_or(first);
            let weight = int_groups as i64 - 1 - first as i64;
            (
                groups[first..=last].to_vec(),
                i16::try_from(weight).map_err(|_| ())?,
            )
        }
    };
    out.put_i16(i16::try_from(groups.len()).map_err(|_| ())?);
    out.put_i16(weight);
    out.put_u16(if neg && !groups.is_empty() { 0x4000 } else { 0 });
    out.put_i16(i16::try_from(dscale).map_err(|_| ())?);
    for g in groups {
        out.put_i16(g);
    }
    Ok(())
}

/// `mantissa` × 10^`exponent` as plain decimal text (`1.5`, `-3` → `0.0015`), with the
/// scale PostgreSQL's `numeric` input gives it: the mantissa's decimals less the exponent.
fn without_exponent(mantissa: &str, exponent: &str) -> Option<String> {
    let exponent: i64 = exponent.trim_start_matches('+').parse().ok()?;
    let (sign, body) = match mantissa.strip_prefix('-') {
        Some(b) => ("-", b),
        None => ("", mantissa.trim_start_matches('+')),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits = format!("{int}{frac}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || exponent.abs() > 1000 {
        return None;
    }
    // The position of the decimal point within `digits`.
    let point = i64::try_from(int.len()).ok()? + exponent;
    let len = i64::try_from(digits.len()).ok()?;
    let text = if point <= 0 {
        let zeros = usize::try_from(-point).ok()?;
        format!("0.{}{digits}", "0".repeat(zeros))
    } else if point >= len {
        let zeros = usize::try_from(point - len).ok()?;
        format!("{digits}{}", "0".repeat(zeros))
    } else {
        let at = usize::try_from(point).ok()?;
        format!("{}.{}", &digits[..at], &digits[at..])
    };
    Some(format!("{sign}{text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponents_become_plain_decimals() {
        assert_eq!(without_exponent("1", "-7").as_deref(), Some("0.0000001"));
        assert_eq!(without_exponent("-2.5", "-3").as_deref(), Some("-0.0025"));
        assert_eq!(
            without_exponent("1.5", "+21").as_deref(),
            Some("1500000000000000000000")
        );
        assert_eq!(without_exponent("12.345", "1").as_deref(), Some("123.45"));
        assert_eq!(round_trip("1e-7"), "0.0000001");
        assert_eq!(without_exponent("x", "1"), None);
    }

    fn round_trip(text: &str) -> String {
        let mut buf = BytesMut::new();
        assert!(encode_numeric(text, &mut buf).is_ok(), "{text}");
        numeric_text(&buf).unwrap_or_default()
    }

    #[test]
    fn numeric_codec_round_trips() {
        assert_eq!(round_trip("19.99"), "19.99");
        assert_eq!(round_trip("-12.340"), "-12.340");
        assert_eq!(round_trip("0"), "0");
        assert_eq!(round_trip("0.0001"), "0.0001");
        assert_eq!(round_trip("123456789.5"), "123456789.5");
        assert_eq!(round_trip("10000"), "10000");
        assert_eq!(round_trip("1e3"), "1000");
    }

    #[test]
    fn times_and_urls() {
        assert_eq!(time_text(37_800_000_000), "10:30:00");
        assert_eq!(time_text(37_800_500_000), "10:30:00.5");
        assert_eq!(time_micros("10:30:00.000"), Some(37_800_000_000));
        assert_eq!(time_micros("25:00:00"), None);
        assert_eq!(
            mask_password("postgres://u:secret@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        let t = PgTarget::parse("postgresql://postgres@127.0.0.1:5433/blog");
        assert_eq!(
            t.map(|t| (t.host_port, t.dbname)),
            Ok(("127.0.0.1:5433".to_string(), "blog".to_string()))
        );
    }
}
