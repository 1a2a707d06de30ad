//! Embedded SQLite (rusqlite, bundled): everything strata does with it, and the only
//! place outside tests that names rusqlite.
//!
//! * this file: connections with strata's pragmas, [`SqlitePool`] (a small pool of
//!   connections; WAL lets readers run beside the writer) implementing the seam's
//!   [`Pool`], the executor (sea-query statements with their bound values through
//!   rusqlite's prepared-statement cache), reads within a time budget
//!   ([`within_budget`]), and the mapping of rusqlite's errors to [`StoreError`];
//! * `group.rs`: the pool's writes, one at a time, committed in groups;
//! * `checkpoint.rs`: the pool's WAL checkpoints, on a thread of their own;
//! * `render.rs`: Strapi's SQLite DDL text; `ddl.rs`: a fresh database and the rows
//!   Strapi expects in one; `migrate.rs`: checking and migrating an existing database;
//! * `import.rs`, `bulk_load.rs`: SQLite's part of `strata import` (the load itself is
//!   `store::import`, the same on every database);
//! * `scratch.rs`: the rows of a database strata would create, made in memory, for the
//!   server databases to copy.

use std::cell::Cell as StdCell;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use sea_query::{InsertStatement, SelectStatement, SqliteQueryBuilder};

mod bulk_load;
mod checkpoint;
pub mod ddl;
mod group;
pub mod import;
mod load_thread;
pub mod migrate;
pub mod provision;
pub mod render;
pub mod scratch;

use super::seam::{
    CascadingKey, Cell, Change, Executor, Pool, RecordedStatement, RowRef, StoredValue, Writer,
    count_key, count_rows, record, row_count,
};
use super::sql::Dialect;
use super::{DatabaseUrl, StoreError, limit};

/// Opens one connection to `url` with strata's pragmas. `create` allows creating the file.
pub fn open_connection(url: &DatabaseUrl, create: bool) -> Result<Connection, StoreError> {
    let DatabaseUrl::Sqlite {
        path,
        read_only,
        synchronous,
    } = url
    else {
        return Err(StoreError::Other(format!(
            "{url} is not an SQLite database"
        )));
    };
    let mut conn = match path {
        None => Connection::open_in_memory()?,
        Some(p) => {
            let mut flags = OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
            if *read_only {
                flags |= OpenFlags::SQLITE_OPEN_READ_ONLY;
            } else {
                flags |= OpenFlags::SQLITE_OPEN_READ_WRITE;
                if create {
                    flags |= OpenFlags::SQLITE_OPEN_CREATE;
                    ensure_parent(p)?;
                }
            }
            Connection::open_with_flags(p, flags)
                .map_err(|e| StoreError::Other(format!("cannot open {}: {e}", p.display())))?
        }
    };
    // Another connection's lock is waited for up to 5 s, but never on a budget: a read on
    // the event loop gives up at once and is run again on a blocking thread.
    conn.busy_handler(Some(wait_for_lock))?;
    // The query planner stability guarantee: plans never depend on bound values. Without
    // it SQLite reads a bound LIMIT while planning, marks the statement to be planned
    // again on every new binding, and every cached statement was parsed and planned anew
    // on each request (15 % of a plain page's server time). The plans themselves do not
    // change for strata's statements: no `sqlite_stat4` (Strapi never runs `ANALYZE`),
    // no partial indexes, and case-insensitive LIKE never uses an index.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.progress_handler(PROGRESS_OPS, Some(past_deadline))?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    if !read_only && path.is_some() {
        // WAL lets the readers of the pool run while the writer writes.
        let _: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        conn.pragma_update(None, "synchronous", synchronous.pragma_value())?;
    }
    conn.set_prepared_statement_cache_capacity(256);
    Ok(conn)
}

/// The work the SQLite statements of this thread may still do: a deadline on the event
/// loop ([`within_budget`]) and a number of progress ticks ([`SqliteExecutor`]'s
/// `within_steps`), each unbounded when `None`; the request's time limit
/// ([`limit::within`]) holds besides.
#[derive(Clone, Copy, Default)]
struct Budget {
    deadline: Option<Instant>,
    ticks: Option<u64>,
}

impl Budget {
    /// This thread's budget.
    fn current() -> Budget {
        BUDGET.with(StdCell::get)
    }

    fn set(self) {
        BUDGET.with(|b| b.set(self));
    }

    fn deadline_passed(&self) -> bool {
        let passed = |t: Option<Instant>| t.is_some_and(|t| Instant::now() >= t);
        passed(self.deadline) || limit::passed()
    }

    /// Runs `f` with this budget as the thread's, and puts the one before back after
    /// (also when `f` panics).
    fn while_running<T>(self, f: impl FnOnce() -> T) -> T {
        struct Restore(Budget);
        impl Drop for Restore {
            fn drop(&mut self) {
                self.0.set();
            }
        }
        let _restore = Restore(Budget::current());
        self.set();
        f()
    }
}

thread_local! {
    static BUDGET: StdCell<Budget> = const {
        StdCell::new(Budget { deadline: None, ticks: None })
    };
}

/// Virtual-machine steps between two calls of the progress handler (a few microseconds):
/// a tick.
pub const PROGRESS_OPS: i32 = 1000;

/// The progress handler of every connection: interrupt once this thread's deadline has
/// passed or its ticks have run out.
fn past_deadline() -> bool {
    let mut budget = Budget::current();
    if let Some(ticks) = budget.ticks {
        if ticks == 0 {
            return true;
        }
        budget.ticks = Some(ticks - 1);
        budget.set();
    }
    budget.deadline_passed()
}

/// How long a statement waits for another connection's lock, in all.
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The busy handler of every connection (the `count`th call for one lock): SQLite's own
/// back-off (1, 2, 5, 10, … 100 ms) up to [`LOCK_WAIT`]; on a thread with a deadline, no
/// wait at all (the statement fails busy, which [`StoreError::is_interrupted`] counts as
/// an interruption, and the read is run again off the event loop).
fn wait_for_lock(count: i32) -> bool {
    Budget::current().deadline.is_none() && back_off(count, LOCK_WAIT)
}

/// A busy handler's wait before its `count`th retry: SQLite's own back-off (1, 2, 5, 10,
/// … 100 ms), as long as the waits so far are below `limit`; whether to retry.
fn back_off(count: i32, limit: Duration) -> bool {
    const DELAYS_MS: [u64; 12] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];
    let count = usize::try_from(count).unwrap_or(0);
    let waited: u64 = DELAYS_MS.iter().take(count).sum::<u64>()
        + 100 * count.saturating_sub(DELAYS_MS.len()) as u64;
    let delay = DELAYS_MS.get(count).copied().unwrap_or(100);
    if waited >= limit.as_millis() as u64 {
        return false;
    }
    std::thread::sleep(Duration::from_millis(delay));
    true
}

/// Runs `f`; the SQLite statements it runs on this thread are interrupted once `budget`
/// has passed, and fail with an error for which [`StoreError::is_interrupted`] holds.
/// Reads are idempotent, so the caller can run them again without a budget.
///
/// This is what lets the HTTP server answer on its event loop: a request that takes
/// longer than its budget gives the thread back and is run again on a blocking thread.
/// Rust code between two statements is not interrupted; the next statement is.
pub fn within_budget<T>(budget: Duration, f: impl FnOnce() -> T) -> T {
    Budget {
        deadline: Instant::now().checked_add(budget),
        ticks: None,
    }
    .while_running(f)
}

/// Whether this thread runs on a budget ([`within_budget`]): on the HTTP server's event
/// loop, where nothing may wait (for a lock, a connection or another write's commit).
fn on_event_loop() -> bool {
    Budget::current().deadline.is_some()
}

/// Runs `f` with this thread's budget lifted, and puts it back after: for the statements
/// that end a transaction (`COMMIT`, `ROLLBACK`), which must run to their end whatever
/// the time, since an interrupted end would leave a write in doubt.
fn without_budget<T>(f: impl FnOnce() -> T) -> T {
    limit::lifted(|| Budget::default().while_running(f))
}

fn ensure_parent(p: &Path) -> Result<(), StoreError> {
    if let Some(dir) = p.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Other(format!("cannot create {}: {e}", dir.display())))?;
    }
    Ok(())
}

/// A fixed set of connections handed out one at a time, each with its count cache.
pub struct SqlitePool {
    idle: Mutex<Vec<(Connection, CountCache)>>,
    available: Condvar,
    size: usize,
    /// The pool's data generation (see [`SqlitePool::generation`]), shared with every
    /// connection's [`CountCache`].
    generation: Arc<AtomicU64>,
    /// This process's writers wait their turn here, in line, without holding a pooled
    /// connection, rather than in SQLite's busy handler, which sleeps and retries (a tail
    /// of hundreds of milliseconds under 16 concurrent writers); and their writes are
    /// committed in groups (`group.rs`). Other processes' writers still meet the busy
    /// handler.
    writers: Arc<group::Writers>,
    /// Checkpoints the log for the pool's commits (`checkpoint.rs`); held, never read, so
    /// that dropping the pool stops its thread. `None` for a pool that checkpoints as
    /// SQLite does by default, inside the commit (tests' pools).
    checkpointer: Option<checkpoint::Checkpointer>,
}

/// Totals already counted on one connection, valid while SQLite's `PRAGMA data_version`
/// of that connection is unchanged (it changes whenever another connection or process
/// commits), so a cached total is always exact. Bounded: cleared when full.
///
/// It is also where the connection's `data_version` is watched: every change it sees
/// moves the pool's generation ([`CountCache::observe`], the one place that does).
#[derive(Default)]
pub struct CountCache {
    version: i64,
    totals: std::collections::HashMap<String, u64>,
    generation: Arc<AtomicU64>,
}

impl CountCache {
    /// Reads `conn`'s (this cache's connection's) `PRAGMA data_version`: when it moved,
    /// the cached totals go and the pool's generation moves on.
    fn observe(&mut self, conn: &Connection) -> Result<(), StoreError> {
        let version: i64 = conn
            .prepare_cached("PRAGMA data_version")?
            .query_row([], |r| r.get(0))?;
        if self.version != version {
            self.version = version;
            self.totals.clear();
            self.generation.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// The single-column `ON DELETE CASCADE` foreign keys of every table (see
/// [`Executor::cascading_foreign_keys`]).
const CASCADING_KEYS: &str = "SELECT m.name, f.\"from\", f.\"table\" \
     FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f \
     WHERE m.type = 'table' AND upper(f.on_delete) = 'CASCADE' AND f.seq = 0 \
     AND NOT EXISTS (SELECT 1 FROM pragma_foreign_key_list(m.name) AS g \
                     WHERE g.id = f.id AND g.seq > 0)";

/// Entries a count cache holds before it starts over.
const COUNT_CACHE_ENTRIES: usize = 1024;

impl SqlitePool {
    /// A pool over these connections.
    pub fn new(conns: Vec<Connection>) -> Self {
        let size = conns.len();
        let generation = Arc::new(AtomicU64::new(0));
        SqlitePool {
            size,
            writers: Arc::default(),
            idle: Mutex::new(
                conns
                    .into_iter()
                    .map(|c| {
                        let cache = CountCache {
                            generation: Arc::clone(&generation),
                            ..CountCache::default()
                        };
                        (c, cache)
                    })
                    .collect(),
            ),
            available: Condvar::new(),
            generation,
            checkpointer: None,
        }
    }

    /// A pool over `conns` whose commits leave WAL checkpoints to a thread of their own,
    /// which checkpoints on `checkpoints` (another connection to the same file).
    pub fn checkpointed(
        conns: Vec<Connection>,
        checkpoints: Connection,
    ) -> Result<Self, StoreError> {
        let mut pool = SqlitePool::new(conns);
        let checkpointer = checkpoint::Checkpointer::start(checkpoints, Arc::clone(&pool.writers))?;
        let idle = pool.idle.get_mut().unwrap_or_else(PoisonError::into_inner);
        for (conn, _) in idle.iter_mut() {
            // A log grown past this (a burst of writes, an older build) is cut back to it
            // when it starts over (`checkpoint.rs`).
            conn.pragma_update(None, "journal_size_limit", checkpoint::LOG_SIZE_LIMIT)?;
            checkpointer.watch(conn)?;
        }
        pool.checkpointer = Some(checkpointer);
        Ok(pool)
    }

    /// The data generation: a number that has moved on since any earlier call whenever
    /// the database changed in between, by any connection or process. Exact: a commit
    /// made elsewhere moves the `data_version` of every other connection, and whichever
    /// pooled connection looks first after it moves the generation (on this call, or an
    /// earlier one after the commit); the pool's own writes move it in [`SqlitePool::write`].
    /// It may move without a change (each connection sees a commit once), never the
    /// other way. It starts over with the process, so it only compares within one.
    pub fn generation(&self) -> Result<u64, StoreError> {
        self.with_cache(|conn, cache| {
            cache.observe(conn)?;
            Ok(self.generation.load(Ordering::SeqCst))
        })?
    }

    /// The number of connections.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Runs `f` with a connection, waiting for one to be free.
    pub fn with<T>(&self, f: impl FnOnce(&mut Connection) -> T) -> Result<T, StoreError> {
        self.with_cache(|conn, _| f(conn))
    }

    /// [`SqlitePool::with`], with the connection's count cache. The connection goes back
    /// to the pool however `f` ends, a panic included (an open transaction on it is
    /// rolled back first, when rusqlite's `Transaction` is dropped), so the pool never
    /// shrinks.
    pub fn with_cache<T>(
        &self,
        f: impl FnOnce(&mut Connection, &mut CountCache) -> T,
    ) -> Result<T, StoreError> {
        let mut lent = Lent {
            pool: self,
            conn: Some(self.take_idle()),
        };
        let (conn, cache) = lent
            .conn
            .as_mut()
            .ok_or_else(|| StoreError::Other("a lent connection went missing".into()))?;
        Ok(f(conn, cache))
    }
}

/// A connection lent out of a [`SqlitePool`], put back when dropped.
struct Lent<'p> {
    pool: &'p SqlitePool,
    conn: Option<(Connection, CountCache)>,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some((conn, counts)) = self.conn.take() {
            self.pool.put_back(conn, counts);
        }
    }
}

impl SqlitePool {
    /// Takes an idle connection out of the pool, waiting for one to be put back.
    fn take_idle(&self) -> (Connection, CountCache) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(c) = idle.pop() {
                return c;
            }
            idle = self
                .available
                .wait(idle)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Takes an idle connection out of the pool if one is there now.
    fn try_take_idle(&self) -> Option<(Connection, CountCache)> {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
    }

    /// Puts a connection taken with [`SqlitePool::take_idle`] back.
    fn put_back(&self, conn: Connection, counts: CountCache) {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((conn, counts));
        self.available.notify_one();
    }
}

impl SqlitePool {
    /// Runs `f` with an [`Executor`] (and the connection's count cache) inside one
    /// read transaction: every statement of a request reads the same snapshot, and the
    /// file lock is taken once rather than per statement (each statement on its own
    /// took and released SQLite's shared lock with `fcntl` calls, a `stat` of the file
    /// and an `access` for a hot journal: 15 % of the wide populate's server time).
    pub fn read<T>(
        &self,
        f: impl FnOnce(&dyn Executor) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.with_cache(|conn, counts| {
            let tx = conn.transaction().map_err(map_error)?;
            let out = f(&SqliteExecutor::cached(&tx, counts))?;
            // Ending a read transaction writes nothing; a failure here still means the
            // connection is in an unknown state, so it is reported.
            tx.commit().map_err(map_error)?;
            Ok(out)
        })?
    }

    /// Runs `f` with a [`Writer`] as one transaction on a pooled connection, as far as
    /// anyone can tell: it sees every write before it, it leaves nothing when it fails,
    /// and it returns once it is committed. Concurrent writes are committed in groups
    /// (`group.rs`). The connection's count cache starts over: its own commits do not
    /// move its `PRAGMA data_version`.
    pub fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn Writer) -> Result<T, E>,
    ) -> Result<T, E> {
        self.write_in_group(f)
    }
}

/// Converts a sea-query value to an SQLite value.
pub fn sql_value(v: &sea_query::Value) -> SqlValue {
    use sea_query::Value as V;
    match v {
        V::Bool(b) => b.map_or(SqlValue::Null, |b| SqlValue::Integer(i64::from(b))),
        V::TinyInt(i) => i.map_or(SqlValue::Null, |i| SqlValue::Integer(i64::from(i))),
        V::SmallInt(i) => i.map_or(SqlValue::Null, |i| SqlValue::Integer(i64::from(i))),
        V::Int(i) => i.map_or(SqlValue::Null, |i| SqlValue::Integer(i64::from(i))),
        V::BigInt(i) => i.map_or(SqlValue::Null, SqlValue::Integer),
        V::TinyUnsigned(i) => i.map_or(SqlValue::Null, |i| SqlValue::Integer(i64::from(i))),
        V::SmallUnsigned(i) => i.map_or(SqlValue::Null, |i| SqlValue::Integer(i64::from(i))),
        V::Unsigned(i) => i.map_or(SqlValue::Null, |i| SqlValue::Integer(i64::from(i))),
        V::BigUnsigned(i) => i.map_or(SqlValue::Null, |i| {
            i64::try_from(i).map_or(SqlValue::Real(i as f64), SqlValue::Integer)
        }),
        V::Float(f) => f.map_or(SqlValue::Null, |f| SqlValue::Real(f64::from(f))),
        V::Double(f) => f.map_or(SqlValue::Null, SqlValue::Real),
        V::String(s) => s
            .as_ref()
            .map_or(SqlValue::Null, |s| SqlValue::Text(s.clone())),
        V::Char(c) => c.map_or(SqlValue::Null, |c| SqlValue::Text(c.to_string())),
        V::Bytes(b) => b
            .as_ref()
            .map_or(SqlValue::Null, |b| SqlValue::Blob(b.clone())),
        #[allow(unreachable_patterns)]
        _ => SqlValue::Null,
    }
}

/// The [`Executor`] of one SQLite connection.
pub struct SqliteExecutor<'c> {
    conn: &'c Connection,
    counts: Option<std::cell::RefCell<&'c mut CountCache>>,
}

impl<'c> SqliteExecutor<'c> {
    /// An executor over `conn`, without a count cache.
    pub fn new(conn: &'c Connection) -> Self {
        SqliteExecutor { conn, counts: None }
    }

    /// An executor over a pooled connection and its count cache.
    pub fn cached(conn: &'c Connection, counts: &'c mut CountCache) -> Self {
        SqliteExecutor {
            conn,
            counts: Some(std::cell::RefCell::new(counts)),
        }
    }
}

impl Executor for SqliteExecutor<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    /// None when this connection does not enforce foreign keys (`PRAGMA foreign_keys`
    /// off: SQLite then runs no cascade).
    fn cascading_foreign_keys(&self) -> Result<Vec<CascadingKey>, StoreError> {
        let enforced: bool = self
            .conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .map_err(map_error)?;
        if !enforced {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare(CASCADING_KEYS).map_err(map_error)?;
        let keys = stmt
            .query_map([], |r| {
                Ok(CascadingKey {
                    table: r.get(0)?,
                    column: r.get(1)?,
                    references: r.get(2)?,
                })
            })
            .map_err(map_error)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(map_error)?;
        Ok(keys)
    }

    fn count(&self, stmt: &SelectStatement) -> Result<u64, StoreError> {
        let Some(cache) = &self.counts else {
            return count_rows(self, stmt);
        };
        let (sql, values) = stmt.build(SqliteQueryBuilder);
        let key = count_key(&sql, &values);
        {
            let mut c = cache.borrow_mut();
            c.observe(self.conn)?;
            if let Some(n) = c.totals.get(&key) {
                return Ok(*n);
            }
        }
        let n = count_rows(self, stmt)?;
        let mut c = cache.borrow_mut();
        if c.totals.len() >= COUNT_CACHE_ENTRIES {
            c.totals.clear();
        }
        c.totals.insert(key, n);
        Ok(n)
    }

    /// `f` with `steps / PROGRESS_OPS` ticks of the progress handler; the thread's
    /// deadline, if any, still holds (an interrupt past the deadline is an error, not a
    /// "ran out").
    fn within_steps(
        &self,
        steps: u64,
        f: &mut dyn FnMut() -> Result<(), StoreError>,
    ) -> Result<bool, StoreError> {
        let before = Budget::current();
        let (out, ran_out) = Budget {
            ticks: Some(steps / u64::from(PROGRESS_OPS.unsigned_abs())),
            ..before
        }
        .while_running(|| (f(), Budget::current().ticks == Some(0)));
        match out {
            Ok(()) => Ok(true),
            Err(e) if e.is_interrupted() && ran_out && !before.deadline_passed() => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn query_each(
        &self,
        stmt: &SelectStatement,
        row: &mut dyn FnMut(&dyn RowRef) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        limit::check()?;
        let (sql, values) = stmt.build(SqliteQueryBuilder);
        record(&sql, &values.0);
        each_row(self.conn, &sql, &values.0, &mut |r| row(&SqliteRow(r)))
    }
}

/// Prepares `sql` (once per connection), binds `values`, and calls `row` for each row:
/// the one place statements are stepped, for the store and for [`run_bare`].
fn each_row(
    conn: &Connection,
    sql: &str,
    values: &[sea_query::Value],
    row: &mut dyn FnMut(&rusqlite::Row<'_>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let params: Vec<SqlValue> = values.iter().map(sql_value).collect();
    let mut prepared = conn.prepare_cached(sql).map_err(map_error)?;
    let mut rows = prepared
        .query(rusqlite::params_from_iter(params.iter()))
        .map_err(map_error)?;
    while let Some(r) = rows.next().map_err(map_error)? {
        row(r)?;
    }
    Ok(())
}

impl Writer for SqliteExecutor<'_> {
    fn execute(&self, change: Change<'_>) -> Result<u64, StoreError> {
        limit::check()?;
        let (sql, values) = change.build(Dialect::Sqlite);
        record(&sql, &values.0);
        let params: Vec<SqlValue> = values.iter().map(sql_value).collect();
        let mut prepared = self.conn.prepare_cached(&sql).map_err(map_error)?;
        let n = prepared
            .execute(rusqlite::params_from_iter(params.iter()))
            .map_err(map_error)?;
        Ok(n as u64)
    }

    fn insert_id(&self, stmt: &InsertStatement) -> Result<i64, StoreError> {
        self.execute(Change::Insert(stmt))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// One statement for the rows, prepared once per connection and row count.
    fn insert_rows(
        &self,
        table: &str,
        columns: &[&str],
        values: &[StoredValue],
    ) -> Result<(), StoreError> {
        let rows = row_count(table, columns, values)?;
        if rows == 0 {
            return Ok(());
        }
        limit::check()?;
        let quoted: Vec<String> = columns.iter().map(|c| render::quote(c)).collect();
        let one = format!("({})", vec!["?"; columns.len()].join(", "));
        let sql = format!(
            "insert into {} ({}) values {}",
            render::quote(table),
            quoted.join(", "),
            vec![one; rows].join(", ")
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.execute(rusqlite::params_from_iter(values.iter().map(Bound))))
            .map_err(map_error)?;
        Ok(())
    }

    fn next_id(&self, table: &str) -> Result<i64, StoreError> {
        let seq: Option<i64> = self
            .conn
            .query_row(
                "select seq from sqlite_sequence where name = ?1",
                [table],
                |r| r.get(0),
            )
            .optional()
            .or_else(|e| match e {
                // No table has had a row yet.
                rusqlite::Error::SqliteFailure(_, Some(ref m)) if m.contains("no such table") => {
                    Ok(None)
                }
                e => Err(e),
            })
            .map_err(map_error)?;
        let max: Option<i64> = self
            .conn
            .query_row(
                &format!("select max(`id`) from {}", render::quote(table)),
                [],
                |r| r.get(0),
            )
            .map_err(map_error)?;
        Ok(seq.unwrap_or(0).max(max.unwrap_or(0)) + 1)
    }
}

/// A [`StoredValue`] bound as SQLite stores it (instants as epoch milliseconds).
struct Bound<'v>(&'v StoredValue);

impl rusqlite::ToSql for Bound<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self.0 {
            StoredValue::Null => ValueRef::Null,
            StoredValue::Integer(i) | StoredValue::Timestamp(i) => ValueRef::Integer(*i),
            StoredValue::Real(f) => ValueRef::Real(*f),
            StoredValue::Text(t) => ValueRef::Text(t.as_bytes()),
            StoredValue::Blob(b) => ValueRef::Blob(b),
            StoredValue::JsonBoolean(b) => ValueRef::Integer(i64::from(*b)),
        }))
    }
}

/// Runs recorded statements bare on `conn` (one read transaction, each statement
/// prepared once per connection, every cell read, no JSON) and returns the number of
/// cells: the raw-SQL side of the benchmarks' comparison. Open `conn` with
/// [`open_connection`] so that it runs with the store's settings.
pub fn run_bare(
    conn: &mut Connection,
    statements: &[RecordedStatement],
) -> Result<usize, StoreError> {
    let tx = conn.transaction().map_err(map_error)?;
    let mut cells = 0;
    for s in statements {
        each_row(&tx, &s.sql, &s.values, &mut |r| {
            for i in 0..r.as_ref().column_count() {
                std::hint::black_box(r.get_ref(i)?);
                cells += 1;
            }
            Ok(())
        })?;
    }
    tx.commit().map_err(map_error)?;
    Ok(cells)
}

/// A result row of SQLite.
struct SqliteRow<'r, 's>(&'r rusqlite::Row<'s>);

impl RowRef for SqliteRow<'_, '_> {
    fn cell(&self, i: usize) -> Result<Cell<'_>, StoreError> {
        Ok(match self.0.get_ref(i)? {
            ValueRef::Null => Cell::Null,
            ValueRef::Integer(v) => Cell::Int(v),
            ValueRef::Real(v) => Cell::Float(v),
            ValueRef::Text(t) => Cell::Text(match std::str::from_utf8(t) {
                Ok(text) => text.into(),
                Err(_) => String::from_utf8_lossy(t),
            }),
            ValueRef::Blob(b) => Cell::Bytes(b),
        })
    }
}

/// rusqlite's errors as what went wrong: "no such table" is
/// [`StoreError::MissingTable`], an interrupt (a time budget ran out)
/// [`StoreError::Interrupted`], a lock [`StoreError::Busy`], a broken constraint
/// [`StoreError::Constraint`]; anything else [`StoreError::Database`] with SQLite's message.
impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        let text = e.to_string();
        if let Some(table) = text.strip_prefix("no such table: ") {
            return StoreError::MissingTable(table.to_string());
        }
        match &e {
            rusqlite::Error::SqliteFailure(f, _) => match f.code {
                ErrorCode::OperationInterrupted => StoreError::Interrupted,
                ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreError::Busy(text),
                ErrorCode::ConstraintViolation => StoreError::Constraint(text),
                _ => StoreError::Database(text),
            },
            _ => StoreError::Database(text),
        }
    }
}

fn map_error(e: rusqlite::Error) -> StoreError {
    StoreError::from(e)
}

impl Pool for SqlitePool {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn size(&self) -> usize {
        self.size
    }

    /// A request waits up to 5 s for one of the pool's connections.
    fn wait_timeout(&self) -> Duration {
        Duration::from_secs(5)
    }

    /// Writers wait their turn without a connection, and are committed in groups.
    fn writes_at_once(&self) -> usize {
        group::WRITES_AT_ONCE
    }

    fn data_generation(&self) -> Result<Option<u64>, StoreError> {
        self.generation().map(Some)
    }

    fn within_budget(&self, budget: Duration, f: &mut dyn FnMut()) -> bool {
        within_budget(budget, f);
        true
    }

    fn read(
        &self,
        f: &mut dyn FnMut(&dyn Executor) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        SqlitePool::read(self, f)
    }

    fn transaction(
        &self,
        f: &mut dyn FnMut(&dyn Writer) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.write(f)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A statement of a few million virtual-machine steps.
    const LONG: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) SELECT count(*) FROM n";

    fn memory() -> Connection {
        open_connection(&DatabaseUrl::parse("sqlite::memory:").unwrap(), true).unwrap()
    }

    fn count(conn: &Connection) -> Result<i64, StoreError> {
        conn.query_row(LONG, [], |r| r.get(0))
            .map_err(StoreError::from)
    }

    #[test]
    fn a_read_past_its_budget_is_interrupted_and_the_next_one_is_not() {
        let conn = memory();
        let err = within_budget(Duration::ZERO, || count(&conn)).unwrap_err();
        assert!(err.is_interrupted(), "{err}");
        // The budget ends with `within_budget`: the same read then runs to its end.
        assert_eq!(count(&conn).unwrap(), 300_000);
        // A budget the read fits in does not interrupt it.
        let n = within_budget(Duration::from_secs(60), || count(&conn)).unwrap();
        assert_eq!(n, 300_000);
    }

    #[test]
    fn a_file_opens_in_wal_with_the_synchronous_mode_its_url_names() {
        let dir = std::env::temp_dir().join(format!("strata-sync-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sync.db");
        let _ = std::fs::remove_file(&path);
        let pragma = |url: &str, name: &str| -> String {
            let conn = open_connection(&DatabaseUrl::parse(url).unwrap(), true).unwrap();
            conn.query_row(&format!("PRAGMA {name}"), [], |r| {
                r.get::<_, rusqlite::types::Value>(0)
            })
            .map(|v| format!("{v:?}"))
            .unwrap()
        };
        let url = format!("sqlite://{}", path.display());
        assert_eq!(pragma(&url, "journal_mode"), r#"Text("wal")"#);
        // NORMAL (1), better-sqlite3's WAL default, unless the URL asks for FULL (2).
        assert_eq!(pragma(&url, "synchronous"), "Integer(1)");
        assert_eq!(
            pragma(&format!("{url}?synchronous=full"), "synchronous"),
            "Integer(2)"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_read_on_a_budget_never_waits_for_a_lock_and_one_without_does() {
        let dir = std::env::temp_dir().join(format!(
            "strata-busy-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("locked.db");
        let _ = std::fs::remove_file(&path);
        // A rollback-journal database (Strapi's default) whose writer holds the lock.
        let writer = Connection::open(&path).unwrap();
        writer
            .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1); BEGIN EXCLUSIVE")
            .unwrap();
        let url = DatabaseUrl::parse(&format!("sqlite://{}?mode=ro", path.display())).unwrap();
        let reader = open_connection(&url, false).unwrap();
        let read = || -> Result<i64, StoreError> {
            Ok(reader.query_row("SELECT count(*) FROM t", [], |r| r.get(0))?)
        };
        let started = Instant::now();
        let err = within_budget(Duration::from_secs(10), read).unwrap_err();
        assert!(err.is_interrupted(), "{err}");
        assert!(started.elapsed() < Duration::from_secs(1));
        // Off a budget the reader waits, and reads once the writer is done.
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            writer.execute_batch("COMMIT").unwrap();
        });
        assert_eq!(read().unwrap(), 1);
        release.join().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_bounded_read_runs_out_of_steps_and_a_deadline_still_wins() {
        let conn = memory();
        let exec = SqliteExecutor::new(&conn);
        let got = StdCell::new(None);
        let mut run = || {
            got.set(Some(count(&conn)?));
            Ok(())
        };
        assert!(!exec.within_steps(50_000, &mut run).unwrap());
        assert_eq!(got.get(), None);
        assert!(exec.within_steps(100_000_000, &mut run).unwrap());
        assert_eq!(got.get(), Some(300_000));
        // Past the thread's deadline the interrupt is an error, not a "ran out".
        let err =
            within_budget(Duration::ZERO, || exec.within_steps(100_000_000, &mut run)).unwrap_err();
        assert!(err.is_interrupted(), "{err}");
        // Nothing is left behind: an unbounded read runs to its end.
        assert_eq!(count(&conn).unwrap(), 300_000);
    }
}
