//! MySQL/MariaDB: everything strata does with it, and the only place outside tests that
//! names the `mysql` driver. `ddl.rs` holds Strapi's layout on MySQL (create, check,
//! migrate additively); this file a pool of connections of the synchronous `mysql` driver,
//! an [`Executor`] that renders with sea-query's MySQL builder, binds every value and
//! prepares each statement once per connection (the driver's statement cache), and the
//! decoding of MySQL's binary-protocol values into [`Cell`]s as Strapi's `mysql2`
//! driver hands them to Strapi.
//!
//! Decisions:
//! * The driver is `mysql` (synchronous, its own pool), not `mysql_async`: the seam runs a
//!   request on one blocking thread, so an async driver would only add a runtime to block
//!   on (PostgreSQL has one because tokio-postgres has no blocking API).
//! * Values are decoded as Strapi's MySQL dialect configures `mysql2`: `DECIMAL` as a
//!   number, `TINYINT(1)` as a boolean, `DATE` as `YYYY-MM-DD`, `BIGINT` as an exact
//!   string (`bigNumberStrings`), `DATETIME` as UTC instants (the session runs in `+00:00`,
//!   as Strapi's does on a UTC host), `TIME` as `HH:MM:SS.fff`.
//! * Every session is `utf8mb4` with the database's collation, so comparisons and sort
//!   order are the database's own, as for Strapi.

use std::borrow::Cow;
use std::time::Duration;

use mysql::consts::{ColumnFlags, ColumnType};
use mysql::prelude::Queryable;
use mysql::{Opts, OptsBuilder, Params, PoolConstraints, PoolOpts, SslOpts, Value};
use sea_query::{InsertStatement, MysqlQueryBuilder, SelectStatement};

pub mod ddl;

use super::seam::{
    CascadingKey, Cell, Change, Executor, Pool as StorePool, PoolOptions, RowRef, StoredValue,
    Writer, record, row_count,
};
use super::sql::Dialect;
use super::{StoreError, limit};

/// Where a MySQL URL points, for messages (never the password).
#[derive(Debug, Clone)]
pub struct MyTarget {
    /// The URL as given (shown with the password masked).
    pub url: String,
    /// Host and port, as `host:port`.
    pub host_port: String,
    /// The database name.
    pub dbname: String,
    opts: Opts,
}

impl PartialEq for MyTarget {
    fn eq(&self, other: &Self) -> bool {
        self.url == other.url
    }
}

impl Eq for MyTarget {}

/// What the URL asks of TLS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tls {
    Off,
    /// Encrypted, the certificate not checked (`ssl-mode=REQUIRED`, `sslmode=require`).
    Required,
    /// Encrypted, the certificate chain checked, not the host name (`VERIFY_CA`).
    VerifyCa,
    /// Encrypted, the certificate and host name checked (`VERIFY_IDENTITY`,
    /// `sslmode=verify-full`).
    VerifyIdentity,
}

impl MyTarget {
    /// Parses `mysql://user:pass@host:port/db` and `mariadb://…`. TLS takes MySQL's
    /// `ssl-mode` (`DISABLED`, `REQUIRED`, `VERIFY_CA`, `VERIFY_IDENTITY`) or libpq's
    /// `sslmode` (`disable`, `require`, `verify-ca`, `verify-full`), and `ssl-ca=PATH`
    /// (or `sslrootcert=PATH`) for the CA; other parameters are the driver's.
    pub fn parse(url: &str) -> Result<MyTarget, String> {
        let rest = url
            .strip_prefix("mysql://")
            .or_else(|| url.strip_prefix("mariadb://"))
            .ok_or("expected mysql:// or mariadb://")?;
        let (base, query) = match rest.split_once('?') {
            Some((b, q)) => (b, Some(q)),
            None => (rest, None),
        };
        let mut tls = Tls::Off;
        let mut ca: Option<String> = None;
        let mut kept = Vec::new();
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            match k {
                "ssl-mode" | "sslmode" | "ssl_mode" => {
                    tls = match v.to_ascii_lowercase().replace('-', "_").as_str() {
                        "disabled" | "disable" => Tls::Off,
                        "required" | "require" | "preferred" | "prefer" => Tls::Required,
                        "verify_ca" => Tls::VerifyCa,
                        "verify_identity" | "verify_full" => Tls::VerifyIdentity,
                        other => return Err(format!("unknown ssl-mode {other:?}")),
                    }
                }
                "ssl-ca" | "sslrootcert" | "ssl_ca" => ca = Some(v.to_string()),
                _ => kept.push(pair),
            }
        }
        let driver_url = match kept.is_empty() {
            true => format!("mysql://{base}"),
            false => format!("mysql://{base}?{}", kept.join("&")),
        };
        let opts = Opts::from_url(&driver_url).map_err(|e| e.to_string())?;
        let dbname = opts
            .get_db_name()
            .filter(|d| !d.is_empty())
            .ok_or("the URL names no database (mysql://user@host:3306/DATABASE)")?
            .to_string();
        let host_port = format!("{}:{}", opts.get_ip_or_hostname(), opts.get_tcp_port());
        let mut builder = OptsBuilder::from_opts(opts);
        if tls != Tls::Off {
            let mut ssl = SslOpts::default();
            if let Some(ca) = ca {
                ssl = ssl.with_root_cert_path(Some(std::path::PathBuf::from(ca)));
            }
            ssl = match tls {
                Tls::Required => ssl
                    .with_danger_accept_invalid_certs(true)
                    .with_danger_skip_domain_validation(true),
                Tls::VerifyCa => ssl.with_danger_skip_domain_validation(true),
                _ => ssl,
            };
            builder = builder.ssl_opts(ssl);
        }
        Ok(MyTarget {
            url: url.to_string(),
            host_port,
            dbname,
            opts: builder.into(),
        })
    }

    /// The URL with its password masked.
    pub fn redacted(&self) -> String {
        Self::mask(&self.url)
    }

    /// Any MySQL URL with its password masked.
    pub fn mask(url: &str) -> String {
        let Some((scheme, rest)) = url.split_once("://") else {
            return url.to_string();
        };
        let Some(at) = rest.rfind('@') else {
            return url.to_string();
        };
        match rest[..at].split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***{}", &rest[at..]),
            None => url.to_string(),
        }
    }
}

/// A pool of MySQL connections.
///
/// Requests run on `pool`, whose statements stop at the pool's `statement_timeout` (the
/// server's `max_statement_time`, and the client's read and write timeouts a little
/// later). Schema changes and a new database's bulk load run on `unbounded`, whose
/// connections are made when first asked for, without those limits: building the indexes of
/// a large table, or committing its rows, takes minutes (an import of 1M articles was
/// interrupted at 30 s).
pub struct MyPool {
    pool: mysql::Pool,
    unbounded: mysql::Pool,
    target: MyTarget,
    options: PoolOptions,
}

/// Whether a connection's statements stop at the pool's `statement_timeout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeLimit {
    /// A request's statements.
    Bounded,
    /// Schema changes and a new database's bulk load.
    None,
}

/// The options of a pool of `target`'s connections, limited as `limit` says.
fn connection_opts(
    target: &MyTarget,
    options: &PoolOptions,
    constraints: PoolConstraints,
    limit: TimeLimit,
) -> OptsBuilder {
    let (io_timeout, statement_secs) = match limit {
        TimeLimit::Bounded => (
            Some(options.statement_timeout + Duration::from_secs(2)),
            options.statement_timeout.as_millis() as f64 / 1000.0,
        ),
        TimeLimit::None => (None, 0.0),
    };
    OptsBuilder::from_opts(target.opts.clone())
        .pool_opts(PoolOpts::default().with_constraints(constraints))
        .tcp_connect_timeout(Some(options.connect_timeout))
        .read_timeout(io_timeout)
        .write_timeout(io_timeout)
        .stmt_cache_size(Some(256))
        .init(vec![
            "SET NAMES utf8mb4".to_string(),
            "SET time_zone = '+00:00'".to_string(),
            // The wait for a table lock another session holds, and MariaDB's per-statement
            // limit (in a MariaDB-only comment, so that MySQL runs the rest): past either, a
            // request is a 503. 0 is no limit.
            format!(
                "SET SESSION lock_wait_timeout = {} /*M! , SESSION max_statement_time = {statement_secs} */",
                options.statement_timeout.as_secs().max(1),
            ),
        ])
}

impl MyPool {
    /// Connects (one connection is opened now, so an unreachable server fails here).
    pub fn connect(target: &MyTarget, options: PoolOptions) -> Result<MyPool, StoreError> {
        let size = options.pool_size.max(1);
        let constraints = PoolConstraints::new(0, size)
            .ok_or_else(|| StoreError::Other(format!("invalid pool size {size}")))?;
        let opts = connection_opts(target, &options, constraints, TimeLimit::Bounded);
        let pool = mysql::Pool::new(opts).map_err(|e| connect_error(&e, &target.host_port))?;
        // Opens no connection until asked for one; two at least, since a new database's
        // indexes are built on two connections at once.
        let unbounded_size = constraints.max().max(2);
        let constraints = PoolConstraints::new(0, unbounded_size).unwrap_or(constraints);
        let opts = connection_opts(target, &options, constraints, TimeLimit::None);
        let unbounded = mysql::Pool::new(opts).map_err(|e| connect_error(&e, &target.host_port))?;
        // Open one connection now: an unreachable server or bad credentials fail here.
        let probe = pool
            .try_get_conn(options.connect_timeout)
            .map_err(|e| connect_error(&e, &target.host_port))?;
        drop(probe);
        Ok(MyPool {
            pool,
            unbounded,
            target: target.clone(),
            options: PoolOptions {
                pool_size: size,
                ..options
            },
        })
    }

    /// The number of connections at most.
    pub fn size(&self) -> usize {
        self.options.pool_size
    }

    /// How long a request waits for a connection.
    pub fn wait_timeout(&self) -> Duration {
        self.options.wait_timeout
    }

    /// The server this pool talks to.
    pub fn target(&self) -> &MyTarget {
        &self.target
    }

    fn conn(&self) -> Result<mysql::PooledConn, StoreError> {
        self.conn_limited(TimeLimit::Bounded)
    }

    /// A connection of the pool `limit` names.
    fn conn_limited(&self, limit: TimeLimit) -> Result<mysql::PooledConn, StoreError> {
        let pool = match limit {
            TimeLimit::Bounded => &self.pool,
            TimeLimit::None => &self.unbounded,
        };
        pool.try_get_conn(self.options.wait_timeout)
            .map_err(|e| match e {
                mysql::Error::DriverError(mysql::DriverError::Timeout) => {
                    StoreError::Unavailable(format!(
                        "no MySQL connection free or reachable at {} within {:?}",
                        self.target.host_port, self.options.wait_timeout
                    ))
                }
                other => connect_error(&other, &self.target.host_port),
            })
    }

    /// Runs `f` with an executor on one pooled connection.
    pub fn with<T>(
        &self,
        f: impl FnOnce(&dyn Executor) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let conn = self.conn()?;
        let exec = MyExecutor::new(conn, &self.target.host_port);
        let out = f(&exec);
        exec.release();
        out
    }

    /// Runs `f` with a [`Writer`] inside one transaction (`START TRANSACTION` … `COMMIT`,
    /// or `ROLLBACK` when `f` fails). A connection whose transaction could not be ended is
    /// reset by the pool when it is returned (which rolls the transaction back), or closed
    /// when the reset fails ([`MyExecutor::release`]).
    pub fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn Writer) -> Result<T, E>,
    ) -> Result<T, E> {
        self.write_in(Checks::Each, f)
    }

    /// [`MyPool::write`], with the session's unique and foreign-key checks as `checks`
    /// says. [`Checks::Deferred`] is for filling tables created empty in this database's
    /// creation: InnoDB then loads each empty table in bulk (it sorts the rows of each
    /// index and builds the index pages once, and keeps one undo record per table, not
    /// one per row), and the unique keys and foreign keys added after the rows check them.
    pub(super) fn write_in<T, E: From<StoreError>>(
        &self,
        checks: Checks,
        f: impl FnOnce(&dyn Writer) -> Result<T, E>,
    ) -> Result<T, E> {
        let at = &self.target.host_port;
        let mut conn = match checks {
            Checks::Each => self.conn()?,
            Checks::Deferred => self.conn_limited(TimeLimit::None)?,
        };
        if checks == Checks::Deferred {
            conn.query_drop("SET SESSION unique_checks = 0, foreign_key_checks = 0")
                .map_err(|e| statement_error(e, at))?;
        }
        conn.query_drop("START TRANSACTION")
            .map_err(|e| statement_error(e, at))?;
        let exec = MyExecutor::new(conn, at);
        let out = f(&exec);
        let end = if out.is_ok() { "COMMIT" } else { "ROLLBACK" };
        let ended = end_transaction(&exec, end).map_err(|e| statement_error(e, at));
        if checks == Checks::Deferred && !exec.broken.get() {
            let restored = exec
                .conn
                .borrow_mut()
                .query_drop("SET SESSION unique_checks = 1, foreign_key_checks = 1");
            // Else the pool's reset on return restores them, or closes the connection.
            exec.broken.set(restored.is_err());
        }
        exec.release();
        let out = out?;
        ended?;
        Ok(out)
    }

    /// Runs `f` with a raw connection without the requests' time limit (DDL, restores,
    /// tests).
    pub fn with_conn<T>(
        &self,
        f: impl FnOnce(&mut mysql::PooledConn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn_limited(TimeLimit::None)?;
        f(&mut conn)
    }
}

/// Ends `exec`'s transaction with `end` (`COMMIT` or `ROLLBACK`). When the transaction
/// holds the content-write lock, the lock is released in the same round trip
/// (`COMMIT; DO RELEASE_LOCK(…)`, one text query of two statements): the server runs the
/// second only when the first succeeded. An `Err` means the transaction did not end as
/// asked. A connection that may still hold the lock or the transaction is marked broken;
/// the pool's reset when it is returned ends both, or closes it ([`MyExecutor::release`]).
fn end_transaction(exec: &MyExecutor<'_>, end: &str) -> Result<(), mysql::Error> {
    let mut conn = exec.conn.borrow_mut();
    if !exec.write_lock.get() {
        let ended = conn.query_drop(end);
        exec.broken.set(exec.broken.get() || ended.is_err());
        return ended;
    }
    let text = format!("{end}; DO RELEASE_LOCK('{WRITE_LOCK}')");
    let mut sets = match conn.query_iter(text) {
        Ok(sets) => sets,
        Err(e) => {
            // The first statement failed: the second never ran.
            exec.broken.set(true);
            return Err(e);
        }
    };
    // The transaction ended; an error now is the release's.
    let mut released = true;
    while let Some(set) = sets.iter() {
        for row in set {
            released &= row.is_ok();
        }
    }
    exec.broken.set(exec.broken.get() || !released);
    Ok(())
}

/// Whether a transaction of [`MyPool::write_in`] checks unique and foreign keys row by
/// row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Checks {
    /// At each row, as always outside a database's creation.
    Each,
    /// Not while rows arrive: the keys added after them check them. The transaction has
    /// no time limit (its commit stores every row of the new tables).
    Deferred,
}

impl StorePool for MyPool {
    fn dialect(&self) -> Dialect {
        Dialect::Mysql
    }

    fn size(&self) -> usize {
        MyPool::size(self)
    }

    fn wait_timeout(&self) -> Duration {
        MyPool::wait_timeout(self)
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

/// A connection error, as one line naming the server.
fn connect_error(e: &mysql::Error, at: &str) -> StoreError {
    let reason = match e {
        mysql::Error::MySqlError(m) => format!("{} ({})", m.message, m.code),
        mysql::Error::DriverError(d) => d.to_string(),
        mysql::Error::IoError(io) => io.to_string(),
        other => other.to_string(),
    };
    StoreError::Unavailable(format!("cannot connect to MySQL at {at}: {reason}"))
}

/// The single-column `ON DELETE CASCADE` foreign keys of the current database's tables
/// (see [`Executor::cascading_foreign_keys`]).
const CASCADING_KEYS: &str = "SELECT k.TABLE_NAME, MIN(k.COLUMN_NAME), k.REFERENCED_TABLE_NAME \
     FROM information_schema.REFERENTIAL_CONSTRAINTS r \
     JOIN information_schema.KEY_COLUMN_USAGE k \
       ON k.CONSTRAINT_SCHEMA = r.CONSTRAINT_SCHEMA AND k.CONSTRAINT_NAME = r.CONSTRAINT_NAME \
      AND k.TABLE_NAME = r.TABLE_NAME \
     WHERE r.CONSTRAINT_SCHEMA = DATABASE() AND r.DELETE_RULE = 'CASCADE' \
       AND k.REFERENCED_TABLE_NAME IS NOT NULL \
     GROUP BY r.CONSTRAINT_NAME, k.TABLE_NAME, k.REFERENCED_TABLE_NAME \
     HAVING COUNT(*) = 1";

/// Maps a driver error of a statement: missing tables, bad values, lost connections.
fn statement_error(e: mysql::Error, at: &str) -> StoreError {
    match e {
        mysql::Error::MySqlError(m) => match m.code {
            1146 => StoreError::MissingTable(m.message),
            // Truncated/incorrect values, out of range, bad datetime/number.
            1264 | 1265 | 1292 | 1366 | 1367 | 1406 | 1411 | 3140 => {
                StoreError::InvalidValue(m.message)
            }
            // Statement time limit (MariaDB 1969, MySQL 3024), killed queries, and the
            // wait for a lock another session holds (1205, `lock_wait_timeout`; it races
            // with MariaDB's statement limit, as both are the statement timeout) or a
            // deadlock (1213): the server is busy, not the request wrong.
            1969 | 3024 | 1317 | 1205 | 1213 => {
                StoreError::Unavailable(format!("MySQL at {at}: {}", m.message))
            }
            // Server shutdown, connection killed.
            1053 | 1927 | 2006 | 2013 => {
                StoreError::ConnectionLost(format!("MySQL at {at}: {}", m.message))
            }
            // Duplicate key, foreign key, not null and check violations.
            // MariaDB's failed CHECK names the database too (`CONSTRAINT `t.c` failed
            // for `db`.`t``): the answer keeps the constraint's name only.
            4025 => {
                let message = m.message.split(" for `").next().unwrap_or_default();
                StoreError::Constraint(format!("{message} ({})", m.code))
            }
            1062 | 1451 | 1452 | 1048 | 1364 | 3819 => {
                StoreError::Constraint(format!("{} ({})", m.message, m.code))
            }
            _ => StoreError::Database(format!("{} ({})", m.message, m.code)),
        },
        mysql::Error::IoError(_) | mysql::Error::CodecError(_) => {
            StoreError::ConnectionLost(format!("lost the connection to MySQL at {at}"))
        }
        mysql::Error::DriverError(d) => match d {
            mysql::DriverError::PacketOutOfSync | mysql::DriverError::UnexpectedPacket => {
                StoreError::ConnectionLost(format!("lost the connection to MySQL at {at}"))
            }
            other => StoreError::Database(other.to_string()),
        },
        other => StoreError::Database(other.to_string()),
    }
}

/// The [`Executor`] of one pooled MySQL connection.
/// How long a write waits for the content-write lock (`Writer::serialize_writes`).
const WRITE_LOCK_WAIT_SECS: i64 = 10;

/// The name of the content-write lock (`GET_LOCK`). MySQL's named locks are server-wide:
/// every strata writing to a database of the same server takes this one lock.
const WRITE_LOCK: &str = "strata_content_writes";

struct MyExecutor<'p> {
    conn: std::cell::RefCell<mysql::PooledConn>,
    at: &'p str,
    /// Set when the connection broke or its transaction did not end as asked: it goes back
    /// with the pool's reset, which ends its session, or is closed ([`MyExecutor::release`]).
    broken: std::cell::Cell<bool>,
    /// Set when the session holds the content-write lock, released when the transaction
    /// ends (`Writer::serialize_writes`).
    write_lock: std::cell::Cell<bool>,
}

impl<'p> MyExecutor<'p> {
    fn new(conn: mysql::PooledConn, at: &'p str) -> Self {
        MyExecutor {
            conn: std::cell::RefCell::new(conn),
            at,
            broken: std::cell::Cell::new(false),
            write_lock: std::cell::Cell::new(false),
        }
    }

    /// Returns the connection to the pool. The pool resets every connection it takes back
    /// (`COM_RESET_CONNECTION`, which ends a transaction and releases named locks, then the
    /// session's `init` statements again) and closes one that fails the reset, counting it
    /// gone, as it must be for a broken connection. Taking the connection out of the pool
    /// instead (`PooledConn::unwrap`) closed it but left its place counted: after as many
    /// broken connections as the pool holds (five requests past a lock's wait), every
    /// request was a 503 until the process restarted.
    ///
    /// A connection whose work ended cleanly goes back as it is, without the reset: its
    /// transaction ended, its named lock was released with it, and its session settings
    /// are the pool's, so the reset would only cost four round trips and the server's
    /// prepared statements (every statement prepared again on the next request). The
    /// reset stays on while the connection is lent, so one dropped by a panic is reset.
    fn release(self) {
        let mut conn = self.conn.into_inner();
        if !self.broken.get() {
            conn.reset_connection(false);
        }
        drop(conn);
    }

    /// The connection, for a statement: none once the request's time is up
    /// ([`limit::check`]).
    fn statement_conn(&self) -> Result<std::cell::RefMut<'_, mysql::PooledConn>, StoreError> {
        limit::check()?;
        Ok(self.conn.borrow_mut())
    }

    fn fail(&self, e: mysql::Error) -> StoreError {
        let e = statement_error(e, self.at);
        if matches!(
            e,
            StoreError::Unavailable(_) | StoreError::ConnectionLost(_)
        ) {
            self.broken.set(true);
        }
        e
    }
}

/// A sea-query value as a MySQL parameter.
fn param(v: sea_query::Value) -> Value {
    use sea_query::Value as V;
    let int = |i: Option<i64>| i.map_or(Value::NULL, Value::Int);
    match v {
        V::Bool(b) => int(b.map(i64::from)),
        V::TinyInt(i) => int(i.map(i64::from)),
        V::SmallInt(i) => int(i.map(i64::from)),
        V::Int(i) => int(i.map(i64::from)),
        V::BigInt(i) => int(i),
        V::TinyUnsigned(i) => int(i.map(i64::from)),
        V::SmallUnsigned(i) => int(i.map(i64::from)),
        V::Unsigned(i) => int(i.map(i64::from)),
        V::BigUnsigned(u) => u.map_or(Value::NULL, Value::UInt),
        V::Float(f) => f.map_or(Value::NULL, |f| Value::Double(f64::from(f))),
        V::Double(f) => f.map_or(Value::NULL, Value::Double),
        V::String(s) => s.map_or(Value::NULL, |s| Value::Bytes(s.into_bytes())),
        V::Char(c) => c.map_or(Value::NULL, |c| Value::Bytes(c.to_string().into_bytes())),
        V::Bytes(b) => b.map_or(Value::NULL, Value::Bytes),
        #[allow(unreachable_patterns)]
        _ => Value::NULL,
    }
}

fn params(values: sea_query::Values) -> Params {
    match values.0.is_empty() {
        true => Params::Empty,
        false => Params::Positional(values.0.into_iter().map(param).collect()),
    }
}

impl Executor for MyExecutor<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Mysql
    }

    /// None when this session does not check foreign keys (`foreign_key_checks` off:
    /// InnoDB then runs no cascade).
    fn cascading_foreign_keys(&self) -> Result<Vec<CascadingKey>, StoreError> {
        let mut conn = self.statement_conn()?;
        let checked: Option<i64> = conn
            .query_first("SELECT @@foreign_key_checks")
            .map_err(|e| self.fail(e))?;
        if checked != Some(1) {
            return Ok(Vec::new());
        }
        let keys: Vec<(String, String, String)> =
            conn.query(CASCADING_KEYS).map_err(|e| self.fail(e))?;
        Ok(keys
            .into_iter()
            .map(|(table, column, references)| CascadingKey {
                table,
                column,
                references,
            })
            .collect())
    }

    fn query_each(
        &self,
        stmt: &SelectStatement,
        row: &mut dyn FnMut(&dyn RowRef) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let (sql, values) = stmt.build(MysqlQueryBuilder);
        record(&sql, &values.0);
        let mut conn = self.statement_conn()?;
        let result = conn
            .exec_iter(sql.as_str(), params(values))
            .map_err(|e| self.fail(e))?;
        for r in result {
            let r = r.map_err(|e| self.fail(e))?;
            row(&MyRow(&r))?;
        }
        Ok(())
    }
}

impl Writer for MyExecutor<'_> {
    fn serialize_writes(&self) -> Result<(), StoreError> {
        let got: Option<i64> = self
            .statement_conn()?
            .exec_first("SELECT GET_LOCK(?, ?)", (WRITE_LOCK, WRITE_LOCK_WAIT_SECS))
            .map_err(|e| self.fail(e))?;
        if got != Some(1) {
            return Err(StoreError::Busy(
                "another write held the content-write lock too long".into(),
            ));
        }
        self.write_lock.set(true);
        Ok(())
    }

    fn execute(&self, change: Change<'_>) -> Result<u64, StoreError> {
        let (sql, values) = change.build(Dialect::Mysql);
        record(&sql, &values.0);
        let mut conn = self.statement_conn()?;
        conn.exec_drop(sql.as_str(), params(values))
            .map_err(|e| self.fail(e))?;
        Ok(conn.affected_rows())
    }

    fn insert_id(&self, stmt: &InsertStatement) -> Result<i64, StoreError> {
        self.execute(Change::Insert(stmt))?;
        let id = self.conn.borrow().last_insert_id();
        i64::try_from(id).map_err(|_| StoreError::Other(format!("insert id {id} out of range")))
    }

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
        let sql = ddl::insert_rows_sql(table, columns, rows);
        let values = values.iter().map(ddl::value).collect();
        self.statement_conn()?
            .exec_drop(sql.as_str(), Params::Positional(values))
            .map_err(|e| self.fail(e))
    }

    fn next_id(&self, table: &str) -> Result<i64, StoreError> {
        // `AUTO_INCREMENT` as the table records it, and past the rows in any case.
        let sql = ddl::next_id_sql(table);
        let mut conn = self.statement_conn()?;
        let next: Option<Option<i64>> = conn
            .exec_first(sql.as_str(), (table,))
            .map_err(|e| self.fail(e))?;
        Ok(next.flatten().unwrap_or(1).max(1))
    }
}

/// A result row of MySQL.
struct MyRow<'r>(&'r mysql::Row);

impl RowRef for MyRow<'_> {
    fn cell(&self, i: usize) -> Result<Cell<'_>, StoreError> {
        let column = self
            .0
            .columns_ref()
            .get(i)
            .ok_or_else(|| StoreError::Database(format!("no column {i}")))?;
        let value = self
            .0
            .as_ref(i)
            .ok_or_else(|| StoreError::Database(format!("no value in column {i}")))?;
        Ok(decode(column, value))
    }
}

/// One binary-protocol value as Strapi's `mysql2` (with Strapi's `typeCast`) gives it.
fn decode<'a>(column: &mysql::Column, value: &'a Value) -> Cell<'a> {
    let ty = column.column_type();
    match value {
        Value::NULL => Cell::Null,
        Value::Int(i) => match ty {
            ColumnType::MYSQL_TYPE_TINY if column.column_length() == 1 => Cell::Bool(*i != 0),
            ColumnType::MYSQL_TYPE_LONGLONG => Cell::BigInt(*i),
            _ => Cell::Int(*i),
        },
        Value::UInt(u) => match (i64::try_from(*u), ty) {
            (Ok(i), ColumnType::MYSQL_TYPE_LONGLONG) => Cell::BigInt(i),
            (Ok(i), _) => Cell::Int(i),
            (Err(_), _) => Cell::Text(Cow::Owned(u.to_string())),
        },
        Value::Float(f) => Cell::Float(f64::from(*f)),
        Value::Double(f) => Cell::Float(*f),
        Value::Bytes(b) => match ty {
            ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => {
                match std::str::from_utf8(b)
                    .ok()
                    .and_then(|t| t.trim().parse::<f64>().ok())
                {
                    Some(f) => Cell::Float(f),
                    None => Cell::Text(String::from_utf8_lossy(b)),
                }
            }
            _ if column.flags().contains(ColumnFlags::BINARY_FLAG)
                && !matches!(
                    ty,
                    ColumnType::MYSQL_TYPE_VAR_STRING
                        | ColumnType::MYSQL_TYPE_STRING
                        | ColumnType::MYSQL_TYPE_VARCHAR
                        | ColumnType::MYSQL_TYPE_BLOB
                        | ColumnType::MYSQL_TYPE_LONG_BLOB
                        | ColumnType::MYSQL_TYPE_MEDIUM_BLOB
                        | ColumnType::MYSQL_TYPE_TINY_BLOB
                        | ColumnType::MYSQL_TYPE_JSON
                ) =>
            {
                Cell::Bytes(b)
            }
            _ => Cell::Text(match std::str::from_utf8(b) {
                Ok(t) => Cow::Borrowed(t),
                Err(_) => String::from_utf8_lossy(b),
            }),
        },
        Value::Date(y, mo, d, h, mi, s, us) => match ty {
            ColumnType::MYSQL_TYPE_DATE | ColumnType::MYSQL_TYPE_NEWDATE => {
                Cell::Text(Cow::Owned(format!("{y:04}-{mo:02}-{d:02}")))
            }
            _ => Cell::DateTime(epoch_ms(*y, *mo, *d, *h, *mi, *s, *us)),
        },
        Value::Time(neg, days, h, mi, s, us) => {
            let hours = u32::from(*h) + days * 24;
            let sign = if *neg { "-" } else { "" };
            Cell::Text(Cow::Owned(format!(
                "{sign}{hours:02}:{mi:02}:{s:02}.{:03}",
                us / 1000
            )))
        }
    }
}

/// Milliseconds since the Unix epoch of a UTC civil date-time.
fn epoch_ms(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> i64 {
    // Days from civil (Howard Hinnant's algorithm).
    let (y, m) = (i64::from(y), i64::from(mo));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(s);
    secs * 1000 + i64::from(us) / 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = MyTarget::parse("mysql://root:pw@127.0.0.1:3306/blog?ssl-mode=REQUIRED");
        assert!(t.is_ok(), "{t:?}");
        if let Ok(t) = t {
            assert_eq!(t.dbname, "blog");
            assert_eq!(t.host_port, "127.0.0.1:3306");
            assert_eq!(
                t.redacted(),
                "mysql://root:***@127.0.0.1:3306/blog?ssl-mode=REQUIRED"
            );
        }
        assert!(MyTarget::parse("mariadb://root@localhost/blog").is_ok());
        assert!(MyTarget::parse("mysql://root@localhost").is_err());
        assert!(MyTarget::parse("mysql://root@localhost/x?ssl-mode=sometimes").is_err());
    }

    /// A server that is busy (a lock held past the wait, a statement over its time, a
    /// deadlock) is a 503 whichever limit fires first; a bad value is the caller's.
    #[test]
    fn busy_server_errors_are_unavailable() {
        let error = |code: u16| {
            statement_error(
                mysql::Error::MySqlError(mysql::MySqlError {
                    state: "HY000".into(),
                    message: format!("error {code}"),
                    code,
                }),
                "127.0.0.1:3306",
            )
        };
        for code in [1205, 1213, 1969, 3024, 1317] {
            assert!(matches!(error(code), StoreError::Unavailable(_)), "{code}");
        }
        assert!(matches!(error(2013), StoreError::ConnectionLost(_)));
        assert!(matches!(error(1292), StoreError::InvalidValue(_)));
        assert!(matches!(error(1064), StoreError::Database(_)));
    }

    #[test]
    fn civil_time() {
        assert_eq!(epoch_ms(1970, 1, 1, 0, 0, 0, 0), 0);
        assert_eq!(epoch_ms(2024, 3, 1, 1, 0, 0, 0), 1_709_254_800_000);
        assert_eq!(epoch_ms(2000, 2, 29, 23, 59, 59, 999_000), 951_868_799_999);
    }
}
