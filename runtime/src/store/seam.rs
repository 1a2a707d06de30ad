//! The seam: the one place where the store meets a database. Each database is one folder
//! (`sqlite/`, `postgres/`, `mysql/`) that implements these traits; nothing outside its
//! folder names its driver.
//!
//! The planner (`sql.rs`) builds sea-query statements for a [`Dialect`]; the read path
//! (`read.rs`, `settings.rs`, `credentials.rs`) runs them through an [`Executor`] and reads
//! each result row through [`RowRef`] as database-neutral [`Cell`]s, which `decode.rs`
//! turns into Strapi's JSON.
//!
//! A database offers three things of the same shape: a [`Pool`] that lends one connection
//! per unit of work (a read, or a transaction with a [`Writer`]), an [`Executor`] over that
//! connection that renders a statement for its dialect, binds its values and prepares it
//! once per connection, and a [`RowRef`] that hands out column values as [`Cell`]s.
//!
//! Invariants:
//! * every value reaches the database as a bound parameter; the SQL text only ever holds
//!   identifiers from the model's layout;
//! * a database folder maps its driver's errors to what went wrong, never to which driver
//!   ([`StoreError`]): "no such table" is [`StoreError::MissingTable`], a lost or
//!   unreachable server [`StoreError::Unavailable`] or [`StoreError::ConnectionLost`]
//!   (503; reads are retried on a fresh connection by [`crate::store::Store::read`]), a
//!   broken constraint [`StoreError::Constraint`];
//! * a [`Cell`] says how the driver handed the value over, not what it means: the
//!   attribute's [`crate::store::decode::Decode`] decides the JSON.

use std::borrow::Cow;

use sea_query::{
    DeleteStatement, InsertStatement, MysqlQueryBuilder, PostgresQueryBuilder, SelectStatement,
    SqliteQueryBuilder, UpdateStatement,
};

use super::StoreError;
use super::sql::Dialect;
use std::time::Duration;

/// Settings of a server database's pool (PostgreSQL, MySQL/MariaDB).
#[derive(Debug, Clone, Copy)]
pub struct PoolOptions {
    /// Connections at most.
    pub pool_size: usize,
    /// How long a request waits for a free connection before a 503.
    pub wait_timeout: Duration,
    /// How long connecting may take.
    pub connect_timeout: Duration,
    /// How long one statement may run before a 503.
    pub statement_timeout: Duration,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            pool_size: 16,
            wait_timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(5),
            statement_timeout: Duration::from_secs(30),
        }
    }
}

/// One column value of a result row, as the driver handed it over.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<'a> {
    /// SQL NULL.
    Null,
    /// An integer that Strapi reads as a JavaScript number (SQLite's integers, PostgreSQL's
    /// `integer`/`smallint`): beyond 2^53 it loses precision as in Strapi.
    Int(i64),
    /// A 64-bit integer that Strapi receives as an exact string (PostgreSQL's `bigint`).
    BigInt(i64),
    /// A floating-point or decimal value.
    Float(f64),
    /// A boolean column.
    Bool(bool),
    /// Text (also dates and times the backend renders as text, and JSON documents).
    Text(Cow<'a, str>),
    /// Raw bytes.
    Bytes(&'a [u8]),
    /// A timestamp, as milliseconds since the Unix epoch (UTC).
    DateTime(i64),
}

impl Cell<'_> {
    /// The value to bind to find this cell again (`WHERE column = ?`); `None` for NULL
    /// and for a server backend's timestamp, which are not bound back.
    pub fn to_value(&self) -> Option<sea_query::Value> {
        Some(match self {
            Cell::Text(t) => sea_query::Value::String(Some(t.to_string())),
            Cell::Int(i) | Cell::BigInt(i) => sea_query::Value::BigInt(Some(*i)),
            Cell::Float(f) => sea_query::Value::Double(Some(*f)),
            Cell::Bool(b) => sea_query::Value::Bool(Some(*b)),
            Cell::Bytes(b) => sea_query::Value::Bytes(Some(b.to_vec())),
            Cell::Null | Cell::DateTime(_) => return None,
        })
    }

    /// The value as an integer, when it is one.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Cell::Int(i) | Cell::BigInt(i) => Some(*i),
            Cell::Float(f) if f.fract() == 0.0 => Some(*f as i64),
            Cell::Text(t) => t.trim().parse().ok(),
            _ => None,
        }
    }

    /// The value as owned text, when it is text.
    pub fn into_string(self) -> Option<String> {
        match self {
            Cell::Text(t) => Some(t.into_owned()),
            Cell::Int(i) | Cell::BigInt(i) => Some(i.to_string()),
            _ => None,
        }
    }
}

/// A result row: column values by position.
pub trait RowRef {
    /// The value of column `i`.
    fn cell(&self, i: usize) -> Result<Cell<'_>, StoreError>;

    /// Column `i` as an integer (ids, counts); NULL is an error.
    fn int(&self, i: usize) -> Result<i64, StoreError> {
        let c = self.cell(i)?;
        c.as_i64()
            .ok_or_else(|| StoreError::Other(format!("column {i}: expected an integer, got {c:?}")))
    }

    /// Column `i` as optional text.
    fn opt_text(&self, i: usize) -> Result<Option<String>, StoreError> {
        Ok(self.cell(i)?.into_string())
    }
}

/// Runs statements on one connection.
pub trait Executor {
    /// The dialect statements are rendered for.
    fn dialect(&self) -> Dialect;

    /// Renders `stmt`, binds its values, runs it (prepared once per connection) and calls
    /// `row` for each result row, in order.
    fn query_each(
        &self,
        stmt: &SelectStatement,
        row: &mut dyn FnMut(&dyn RowRef) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;

    /// Runs independent statements (none reads what another writes or returns) and calls
    /// `row` with each statement's index and its rows: all of the first statement's rows,
    /// then the second's, in order. A server backend sends them together, one round trip
    /// for all (PostgreSQL's pipelining); the default runs them one after another.
    fn query_batch(
        &self,
        stmts: &[&SelectStatement],
        row: &mut dyn FnMut(usize, &dyn RowRef) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        for (i, stmt) in stmts.iter().enumerate() {
            self.query_each(stmt, &mut |r| row(i, r))?;
        }
        Ok(())
    }

    /// Runs a `SELECT COUNT(…)` and returns the count. A backend may answer from a cache
    /// that it knows to be exact (SQLite: keyed to `PRAGMA data_version`).
    fn count(&self, stmt: &SelectStatement) -> Result<u64, StoreError> {
        count_rows(self, stmt)
    }

    /// Runs `f`, whose statements are stopped once they have done about `steps` units of
    /// work: `Ok(true)` when `f` finished, `Ok(false)` when it ran out (its reads are
    /// abandoned, nothing else changes: the caller tries another way). A backend that
    /// cannot bound work answers `Ok(false)` without running `f` (the default).
    ///
    /// On SQLite a unit is one virtual-machine instruction (`sqlite::PROGRESS_OPS` at a
    /// time), so the bound is deterministic: the same statement on the same data always
    /// finishes or always runs out.
    fn within_steps(
        &self,
        steps: u64,
        f: &mut dyn FnMut() -> Result<(), StoreError>,
    ) -> Result<bool, StoreError> {
        let _ = (steps, f);
        Ok(false)
    }

    /// The database's single-column foreign keys that delete their rows with the row they
    /// reference (`ON DELETE CASCADE`), enforced on this connection. A backend that
    /// cannot tell answers none (the default): deletes then remove those rows themselves
    /// (see `store::cascade`).
    fn cascading_foreign_keys(&self) -> Result<Vec<CascadingKey>, StoreError> {
        Ok(Vec::new())
    }
}

/// A foreign key whose rows the database deletes with the row they reference: `column`
/// of `table` references `references`, `ON DELETE CASCADE`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CascadingKey {
    /// The table holding the key.
    pub table: String,
    /// The key's one column.
    pub column: String,
    /// The table it references.
    pub references: String,
}

/// A value of a row to insert, neutral between databases: what the import writes, and
/// what a new server database is given from the scratch database (`sqlite::scratch`).
#[derive(Debug, Clone, PartialEq)]
pub enum StoredValue {
    /// NULL.
    Null,
    /// An integer (also booleans; in rows copied from the scratch database, instants as
    /// epoch milliseconds).
    Integer(i64),
    /// A floating-point number.
    Real(f64),
    /// Text (also dates, times, decimals given as text, and JSON documents).
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
    /// An instant, as epoch milliseconds: SQLite stores the integer (as Strapi does there),
    /// the server databases their timestamp type.
    Timestamp(i64),
    /// A JSON attribute's value that is a bare boolean. Strapi hands it to the driver as it
    /// is: SQLite's and MySQL's bind it as the number 1 or 0 (a JSON `1` read back), and
    /// PostgreSQL's as the JSON text `true` or `false`.
    JsonBoolean(bool),
}

/// A statement that changes rows.
#[derive(Debug, Clone, Copy)]
pub enum Change<'a> {
    /// `INSERT`.
    Insert(&'a InsertStatement),
    /// `UPDATE`.
    Update(&'a UpdateStatement),
    /// `DELETE`.
    Delete(&'a DeleteStatement),
}

impl Change<'_> {
    /// The SQL text in `dialect` and the values to bind.
    pub fn build(&self, dialect: Dialect) -> (String, sea_query::Values) {
        match (self, dialect) {
            (Change::Insert(s), Dialect::Sqlite) => s.build(SqliteQueryBuilder),
            (Change::Insert(s), Dialect::Postgres) => s.build(PostgresQueryBuilder),
            (Change::Update(s), Dialect::Sqlite) => s.build(SqliteQueryBuilder),
            (Change::Update(s), Dialect::Postgres) => s.build(PostgresQueryBuilder),
            (Change::Delete(s), Dialect::Sqlite) => s.build(SqliteQueryBuilder),
            (Change::Delete(s), Dialect::Postgres) => s.build(PostgresQueryBuilder),
            (Change::Insert(s), Dialect::Mysql) => s.build(MysqlQueryBuilder),
            (Change::Update(s), Dialect::Mysql) => s.build(MysqlQueryBuilder),
            (Change::Delete(s), Dialect::Mysql) => s.build(MysqlQueryBuilder),
        }
    }
}

/// An [`Executor`] inside a transaction that may also change rows
/// ([`Pool::transaction`]). The content API never writes yet; `strata import`
/// (`store::import`) and administration (`strata token`) do, through this and nothing
/// else.
pub trait Writer: Executor {
    /// Runs an `INSERT`, `UPDATE` or `DELETE`; returns the rows it affected.
    fn execute(&self, change: Change<'_>) -> Result<u64, StoreError>;

    /// Runs an `INSERT` of one row and returns the row's new `id`.
    fn insert_id(&self, stmt: &InsertStatement) -> Result<i64, StoreError>;

    /// Inserts rows into `table`: `values` holds the rows one after another, each the
    /// values of `columns` in order (so `values.len()` is a multiple of `columns.len()`).
    /// Rows may carry their `id`; then call [`Writer::ids_written`] before the transaction
    /// ends. A backend writes many rows to a statement (the import's bulk path). It may
    /// still be storing them when it returns (PostgreSQL copies them in while the caller
    /// goes on): the transaction's next statement, or its end, waits for them and fails
    /// with their failure.
    fn insert_rows(
        &self,
        table: &str,
        columns: &[&str],
        values: &[StoredValue],
    ) -> Result<(), StoreError>;

    /// [`Writer::insert_rows`] with rows the caller no longer needs: a backend that
    /// stores them after returning (SQLite's import, on a thread of its own) keeps them
    /// instead of copying them. The default lends them to `insert_rows`.
    fn insert_owned_rows(
        &self,
        table: &str,
        columns: &[&str],
        values: Vec<StoredValue>,
    ) -> Result<(), StoreError> {
        self.insert_rows(table, columns, &values)
    }

    /// How many rows one [`Writer::insert_rows`] call should carry at most: enough to make
    /// the cost per call small, few enough to stay below the database's limit on bound
    /// parameters (SQLite 32,766, PostgreSQL and MySQL 65,535) with a few dozen columns.
    fn rows_per_insert(&self) -> usize {
        128
    }

    /// The `id` the next row of `table` would be given: past every row it holds and every
    /// id it gave before (SQLite's `AUTOINCREMENT` record, PostgreSQL's sequence, MySQL's
    /// `AUTO_INCREMENT`), so that ids of deleted rows are not given again.
    fn next_id(&self, table: &str) -> Result<i64, StoreError>;

    /// Tells the database that `table` has grown inside this transaction, so that the
    /// lookups it plans into it (a foreign key's check) fit its size. PostgreSQL plans
    /// each foreign key's check once per session: planned while a table was nearly empty,
    /// the check scans the whole table for every row (an import of 100k articles took over
    /// 10 minutes instead of 70 s). It analyzes the table there; the default does nothing.
    fn refresh_statistics(&self, table: &str) -> Result<(), StoreError> {
        let _ = table;
        Ok(())
    }

    /// Waits until no other content write of this database is running, and holds the
    /// others back until this transaction ends, so that a write's checks (a unique value,
    /// the document's versions) still hold when it commits. SQLite needs nothing: its
    /// write transactions begin `IMMEDIATE`, one at a time. PostgreSQL takes a
    /// transaction-scoped advisory lock; MySQL a named lock released when the
    /// transaction ends. A wait past the statement timeout is [`StoreError::Busy`].
    fn serialize_writes(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// After rows were inserted into `table` with their `id`s: moves the table's id
    /// counter past them where the database does not do so itself (PostgreSQL's
    /// sequence).
    fn ids_written(&self, table: &str) -> Result<(), StoreError> {
        let _ = table;
        Ok(())
    }
}

/// The key of the lock that [`Writer::serialize_writes`] takes (PostgreSQL's advisory
/// lock number; MySQL's lock is named `strata_content_writes`).
pub const CONTENT_WRITE_LOCK: i64 = 0x5354_5241_5441; // "STRATA"

/// Checks the shape of an [`Writer::insert_rows`] call: the number of rows it holds.
pub fn row_count(
    table: &str,
    columns: &[&str],
    values: &[StoredValue],
) -> Result<usize, StoreError> {
    if columns.is_empty() || !values.len().is_multiple_of(columns.len()) {
        return Err(StoreError::Other(format!(
            "{} values do not make rows of the {} columns of {table}",
            values.len(),
            columns.len()
        )));
    }
    Ok(values.len() / columns.len())
}

/// Runs a `SELECT COUNT(…)` statement: the first column of its one row.
pub fn count_rows<E: Executor + ?Sized>(
    exec: &E,
    stmt: &SelectStatement,
) -> Result<u64, StoreError> {
    let mut n = 0u64;
    exec.query_each(stmt, &mut |r| {
        n = Ord::max(r.int(0)?, 0) as u64;
        Ok(())
    })?;
    Ok(n)
}

/// The key of a count in a backend's count cache: the rendered SQL and its bound values.
pub(crate) fn count_key(sql: &str, values: &sea_query::Values) -> String {
    format!("{sql}\u{0}{:?}", values.0)
}

/// Runs `stmt` and collects one value per row.
pub fn query_map<T>(
    exec: &dyn Executor,
    stmt: &SelectStatement,
    mut f: impl FnMut(&dyn RowRef) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let mut out = Vec::new();
    exec.query_each(stmt, &mut |r| {
        out.push(f(r)?);
        Ok(())
    })?;
    Ok(out)
}

/// A pool of connections to one database: what each database folder (`sqlite/`,
/// `postgres/`, `mysql/`) offers the store, and the only way the store reaches a
/// database. The store holds it as `Box<dyn Pool>`; callers use the typed wrappers
/// [`with`](trait.Pool.html#method.with) and [`write`](trait.Pool.html#method.write) on
/// `dyn Pool`.
///
/// Every method blocks the calling thread on the database; never call one from async code
/// (use `spawn_blocking`), except [`Pool::within_budget`], which exists for that.
pub trait Pool: Send + Sync {
    /// The dialect statements are rendered in.
    fn dialect(&self) -> Dialect;

    /// The number of connections in the pool.
    fn size(&self) -> usize;

    /// How long a request may wait for a free connection before it is answered 503.
    fn wait_timeout(&self) -> Duration;

    /// How many writes may be under way at once, waiting their turn included. By
    /// default one per connection, since a write holds one for its transaction; a
    /// database whose writers wait their turn without one (SQLite) lets more in, so
    /// that concurrent writes can be committed together.
    fn writes_at_once(&self) -> usize {
        self.size()
    }

    /// A number that has moved on whenever the data changed since an earlier call, for
    /// databases that offer one (SQLite's `PRAGMA data_version`, PostgreSQL's MVCC
    /// snapshot); `None` otherwise. It may move without a change, never the other way.
    /// Read it before the reads it stands for: what they read is at least as new.
    fn data_generation(&self) -> Result<Option<u64>, StoreError> {
        Ok(None)
    }

    /// Runs `f` so that the statements it runs on this thread are interrupted once
    /// `budget` has passed (they fail with an error for which
    /// [`StoreError::is_interrupted`] holds), and returns `true`; a database whose reads
    /// cannot be bounded so (they wait on a network) returns `false` without running `f`
    /// (the default). This is what lets a caller on an event loop run a read there: SQLite
    /// offers it.
    ///
    /// A database that offers it also takes writes within the budget (the HTTP server runs
    /// a lone write so), and must then keep two promises: such a write never waits (for
    /// another write, a connection or a lock: it fails interrupted instead, having done
    /// nothing), and one interrupted leaves nothing behind, while one that returns `Ok` is
    /// committed (ending the transaction is never interrupted). SQLite's pool does
    /// (`sqlite/group.rs`).
    fn within_budget(&self, budget: Duration, f: &mut dyn FnMut()) -> bool {
        let _ = (budget, f);
        false
    }

    /// Runs `f`, which only reads, with an executor on one pooled connection. Its
    /// statements see one snapshot where the database offers one (SQLite: one read
    /// transaction). Use [`with`](trait.Pool.html#method.with) for a typed result.
    fn read(
        &self,
        f: &mut dyn FnMut(&dyn Executor) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;

    /// Runs `f` with a [`Writer`] inside one transaction on one pooled connection:
    /// committed when `f` returns `Ok`, rolled back when it fails (and the connection
    /// dropped when the transaction could not be ended). Use
    /// [`write`](trait.Pool.html#method.write) for a typed result.
    fn transaction(
        &self,
        f: &mut dyn FnMut(&dyn Writer) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;
}

impl dyn Pool + '_ {
    /// Runs `f`, which only reads, with an executor on one pooled connection, and returns
    /// what it returns ([`Pool::read`]).
    pub fn with<T>(
        &self,
        f: impl FnOnce(&dyn Executor) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut f = Some(f);
        let mut out = None;
        self.read(&mut |exec| {
            let f = f.take().ok_or_else(ran_twice)?;
            out = Some(f(exec)?);
            Ok(())
        })?;
        out.ok_or_else(did_not_run)
    }

    /// Runs `f` with a [`Writer`] inside one transaction ([`Pool::transaction`]): committed
    /// when `f` returns `Ok`, rolled back when it fails with its own error type or a
    /// statement's.
    pub fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn Writer) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut f = Some(f);
        let mut failed = None;
        let mut out = None;
        let ended = self.transaction(&mut |w| {
            let f = f.take().ok_or_else(ran_twice)?;
            match f(w) {
                Ok(v) => {
                    out = Some(v);
                    Ok(())
                }
                Err(e) => {
                    failed = Some(e);
                    Err(StoreError::Other("rolled back".into()))
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        ended?;
        out.ok_or_else(|| did_not_run().into())
    }
}

fn ran_twice() -> StoreError {
    StoreError::Other("a pool ran one unit of work twice".into())
}

fn did_not_run() -> StoreError {
    StoreError::Other("a pool returned without running its unit of work".into())
}

thread_local! {
    static RECORDER: std::cell::RefCell<Option<Vec<RecordedStatement>>> =
        const { std::cell::RefCell::new(None) };
}

/// One statement as an executor sent it: the SQL text (in its dialect) and the bound
/// values, in order.
#[derive(Debug, Clone)]
pub struct RecordedStatement {
    /// The SQL.
    pub sql: String,
    /// The bound values.
    pub values: Vec<sea_query::Value>,
}

/// Runs `f` and returns the statements the executors ran on this thread: for benchmarks
/// that compare the store with the bare SQL, and for inspecting plans.
pub fn record_statements<T>(f: impl FnOnce() -> T) -> (T, Vec<RecordedStatement>) {
    RECORDER.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let out = f();
    let recorded = RECORDER.with(|r| r.borrow_mut().take()).unwrap_or_default();
    (out, recorded)
}

/// Called by each executor before it runs a statement: prints it when `STRATA_DEBUG_SQL`
/// is set (read once per process, not per statement) and records it when a benchmark asks.
pub(crate) fn record(sql: &str, values: &[sea_query::Value]) {
    static DEBUG_SQL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *DEBUG_SQL.get_or_init(|| std::env::var_os("STRATA_DEBUG_SQL").is_some()) {
        eprintln!("{sql} -- {values:?}");
    }
    RECORDER.with(|r| {
        if let Some(list) = r.borrow_mut().as_mut() {
            list.push(RecordedStatement {
                sql: sql.to_string(),
                values: values.to_vec(),
            });
        }
    });
}
