//! SQLite connections: opening with strata's pragmas, a small pool of read connections
//! (WAL lets readers run beside the writer), and running sea-query statements with their
//! bound values through rusqlite's prepared-statement cache.

use std::path::Path;
use std::sync::{Condvar, Mutex};

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OpenFlags};
use sea_query::{SelectStatement, SqliteQueryBuilder};

use super::{DatabaseUrl, StoreError};

/// Opens one connection to `url` with strata's pragmas. `create` allows creating the file.
pub fn open_connection(url: &DatabaseUrl, create: bool) -> Result<Connection, StoreError> {
    let DatabaseUrl::Sqlite { path, read_only } = url;
    let conn = match path {
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
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    if !read_only && path.is_some() {
        // WAL lets the readers of the pool run while the writer writes.
        let _: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    }
    conn.set_prepared_statement_cache_capacity(256);
    Ok(conn)
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

/// A fixed set of connections handed out one at a time.
pub struct Pool {
    idle: Mutex<Vec<Connection>>,
    available: Condvar,
}

impl Pool {
    /// A pool over these connections.
    pub fn new(conns: Vec<Connection>) -> Self {
        Pool {
            idle: Mutex::new(conns),
            available: Condvar::new(),
        }
    }

    /// Runs `f` with a connection, waiting for one to be free.
    pub fn with<T>(&self, f: impl FnOnce(&mut Connection) -> T) -> Result<T, StoreError> {
        let mut conn = {
            let mut idle = self
                .idle
                .lock()
                .map_err(|_| StoreError::Other("connection pool poisoned".into()))?;
            loop {
                if let Some(c) = idle.pop() {
                    break c;
                }
                idle = self
                    .available
                    .wait(idle)
                    .map_err(|_| StoreError::Other("connection pool poisoned".into()))?;
            }
        };
        let out = f(&mut conn);
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(conn);
        }
        self.available.notify_one();
        Ok(out)
    }
}

/// Converts a sea-query value to an SQLite value.
fn sql_value(v: &sea_query::Value) -> SqlValue {
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

thread_local! {
    static RECORDER: std::cell::RefCell<Option<Vec<RecordedStatement>>> = const { std::cell::RefCell::new(None) };
}

/// One statement as it was sent to SQLite: the SQL text and its bound values.
#[derive(Debug, Clone)]
pub struct RecordedStatement {
    /// The SQL.
    pub sql: String,
    /// The bound values, in order.
    pub params: Vec<SqlValue>,
}

/// Runs `f` and returns the statements it executed on this thread (for benchmarks that
/// compare the store with the bare SQL, and for inspecting plans).
pub fn record_statements<T>(f: impl FnOnce() -> T) -> (T, Vec<RecordedStatement>) {
    RECORDER.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let out = f();
    let recorded = RECORDER.with(|r| r.borrow_mut().take()).unwrap_or_default();
    (out, recorded)
}

/// Renders a select for SQLite and runs it, calling `row` for each result row.
pub fn query_each(
    conn: &Connection,
    stmt: &SelectStatement,
    mut row: impl FnMut(&rusqlite::Row<'_>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let (sql, values) = stmt.build(SqliteQueryBuilder);
    if std::env::var_os("STRATA_DEBUG_SQL").is_some() {
        eprintln!("{sql} -- {values:?}");
    }
    let params: Vec<SqlValue> = values.iter().map(sql_value).collect();
    RECORDER.with(|r| {
        if let Some(list) = r.borrow_mut().as_mut() {
            list.push(RecordedStatement {
                sql: sql.clone(),
                params: params.clone(),
            });
        }
    });
    let mut prepared = conn.prepare_cached(&sql)?;
    let mut rows = prepared.query(rusqlite::params_from_iter(params.iter()))?;
    while let Some(r) = rows.next()? {
        row(r)?;
    }
    Ok(())
}
