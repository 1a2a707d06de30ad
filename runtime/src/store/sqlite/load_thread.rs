//! An import's rows written on a thread of their own: [`LoadThread`] is the [`Writer`] an
//! SQLite import runs through. [`Writer::insert_rows`] hands the rows to a thread that
//! owns the connection's statements while the import goes on validating and numbering the
//! next rows on the caller's thread, as PostgreSQL's `COPY` runs beside the caller (the
//! seam allows it: a backend may still be storing rows when the call returns). On a
//! machine with two cores the two halves of pass 2, building rows and executing the
//! statements that store them, overlap instead of taking turns.
//!
//! Invariants:
//! * one connection, one transaction: the connection sits behind a mutex, and only one
//!   thread uses it at a time;
//! * statements run in the order they were asked for: every call other than
//!   `insert_rows` (a read, a single-row write, the hooks' index and foreign-key work
//!   through [`LoadThread::with_connection`]) first waits until the thread has run every
//!   insert handed to it before ([`LoadThread::sync`]), so it sees their rows;
//! * a failed insert is reported by the next call that waits, or by `insert_rows` itself,
//!   and by [`LoadThread::finish`]: the caller then rolls back, and nothing was written;
//! * at most [`AHEAD`] statements' worth of rows wait, so memory stays bounded.

use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread::{Scope, ScopedJoinHandle};

use rusqlite::Connection;
use sea_query::{InsertStatement, SelectStatement};

use super::SqliteExecutor;
use crate::store::StoreError;
use crate::store::seam::{CascadingKey, Change, Executor, RowRef, StoredValue, Writer};
use crate::store::sql::Dialect;

/// Statements' worth of rows that may wait for the thread.
const AHEAD: usize = 16;

/// What the thread is asked to do, in order.
enum Job {
    /// Insert these rows ([`Writer::insert_rows`]).
    Insert {
        table: String,
        columns: Vec<String>,
        values: Vec<StoredValue>,
    },
    /// Answer once every job before this one ran.
    Fence(SyncSender<()>),
}

/// The [`Writer`] of an SQLite import (see the module's doc).
pub(crate) struct LoadThread<'s, 'c> {
    conn: &'s Mutex<&'c mut Connection>,
    /// The first failure of the thread, until a caller reports it.
    failed: &'s Mutex<Option<StoreError>>,
    jobs: SyncSender<Job>,
}

/// Locks `m`; a panic of the other thread while it held the lock does not matter here
/// (the panic itself is carried to the caller by [`LoadThread::finish`]).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn stopped() -> StoreError {
    StoreError::Other("import: the thread writing rows stopped".into())
}

/// The state the caller and the thread share; lives on the caller's stack for the
/// duration of [`std::thread::scope`].
pub(crate) struct Shared<'c> {
    conn: Mutex<&'c mut Connection>,
    failed: Mutex<Option<StoreError>>,
}

impl<'c> Shared<'c> {
    pub(crate) fn new(conn: &'c mut Connection) -> Self {
        Shared {
            conn: Mutex::new(conn),
            failed: Mutex::new(None),
        }
    }

    /// The connection back, once the threads are done with it.
    pub(crate) fn into_connection(self) -> &'c mut Connection {
        self.conn
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<'s, 'c> LoadThread<'s, 'c> {
    /// Starts the thread inside `scope`; [`LoadThread::finish`] ends it.
    pub(crate) fn start<'e>(
        scope: &'s Scope<'s, 'e>,
        shared: &'s Shared<'c>,
    ) -> Result<(Self, ScopedJoinHandle<'s, ()>), StoreError>
    where
        'c: 's,
    {
        let (jobs, queue) = mpsc::sync_channel(AHEAD);
        let conn = &shared.conn;
        let failed = &shared.failed;
        let handle = std::thread::Builder::new()
            .name("strata-import-write".into())
            .spawn_scoped(scope, move || work(conn, failed, queue))
            .map_err(|e| StoreError::Other(format!("import: cannot start a thread: {e}")))?;
        Ok((LoadThread { conn, failed, jobs }, handle))
    }

    /// Waits until the thread ran every insert handed to it; their first failure, if any.
    pub(crate) fn sync(&self) -> Result<(), StoreError> {
        let (done, wait) = mpsc::sync_channel(1);
        self.jobs.send(Job::Fence(done)).map_err(|_| stopped())?;
        wait.recv().map_err(|_| stopped())?;
        match lock(self.failed).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs `f` on the connection once every insert before ran.
    pub(crate) fn with_connection<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.sync()?;
        let conn = lock(self.conn);
        f(&conn)
    }

    /// Ends the thread once it ran every insert handed to it; their first failure, if any.
    pub(crate) fn finish(self, handle: ScopedJoinHandle<'s, ()>) -> Result<(), StoreError> {
        drop(self.jobs);
        if let Err(panic) = handle.join() {
            std::panic::resume_unwind(panic);
        }
        match lock(self.failed).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn send_rows(
        &self,
        table: &str,
        columns: &[&str],
        values: Vec<StoredValue>,
    ) -> Result<(), StoreError> {
        if let Some(e) = lock(self.failed).take() {
            return Err(e);
        }
        crate::store::seam::row_count(table, columns, &values)?;
        self.jobs
            .send(Job::Insert {
                table: table.to_string(),
                columns: columns.iter().map(|c| c.to_string()).collect(),
                values,
            })
            .map_err(|_| stopped())
    }
}

/// The thread: runs the inserts in order; after a failure it only answers fences (the
/// import is failing, its rows are dropped).
fn work(conn: &Mutex<&mut Connection>, failed: &Mutex<Option<StoreError>>, queue: Receiver<Job>) {
    let mut broken = false;
    for job in queue {
        match job {
            Job::Insert {
                table,
                columns,
                values,
            } => {
                if broken {
                    continue;
                }
                let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
                let conn = lock(conn);
                if let Err(e) = SqliteExecutor::new(&conn).insert_rows(&table, &columns, &values) {
                    broken = true;
                    *lock(failed) = Some(e);
                }
            }
            Job::Fence(done) => {
                let _ = done.send(());
            }
        }
    }
}

impl Executor for LoadThread<'_, '_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn query_each(
        &self,
        stmt: &SelectStatement,
        row: &mut dyn FnMut(&dyn RowRef) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.with_connection(|c| SqliteExecutor::new(c).query_each(stmt, row))
    }

    fn count(&self, stmt: &SelectStatement) -> Result<u64, StoreError> {
        self.with_connection(|c| SqliteExecutor::new(c).count(stmt))
    }

    fn cascading_foreign_keys(&self) -> Result<Vec<CascadingKey>, StoreError> {
        self.with_connection(|c| SqliteExecutor::new(c).cascading_foreign_keys())
    }
}

impl Writer for LoadThread<'_, '_> {
    fn execute(&self, change: Change<'_>) -> Result<u64, StoreError> {
        self.with_connection(|c| SqliteExecutor::new(c).execute(change))
    }

    fn insert_id(&self, stmt: &InsertStatement) -> Result<i64, StoreError> {
        self.with_connection(|c| SqliteExecutor::new(c).insert_id(stmt))
    }

    fn insert_rows(
        &self,
        table: &str,
        columns: &[&str],
        values: &[StoredValue],
    ) -> Result<(), StoreError> {
        self.send_rows(table, columns, values.to_vec())
    }

    fn insert_owned_rows(
        &self,
        table: &str,
        columns: &[&str],
        values: Vec<StoredValue>,
    ) -> Result<(), StoreError> {
        self.send_rows(table, columns, values)
    }

    fn next_id(&self, table: &str) -> Result<i64, StoreError> {
        self.with_connection(|c| SqliteExecutor::new(c).next_id(table))
    }

    fn refresh_statistics(&self, table: &str) -> Result<(), StoreError> {
        self.with_connection(|c| SqliteExecutor::new(c).refresh_statistics(table))
    }

    fn serialize_writes(&self) -> Result<(), StoreError> {
        self.with_connection(|c| SqliteExecutor::new(c).serialize_writes())
    }

    fn ids_written(&self, table: &str) -> Result<(), StoreError> {
        self.with_connection(|c| SqliteExecutor::new(c).ids_written(table))
    }
}
