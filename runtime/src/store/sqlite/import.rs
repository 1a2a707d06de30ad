//! `strata import` into an SQLite database: the connection's settings for the load, one
//! transaction, and SQLite's [`LoadHooks`] around the one import path
//! ([`crate::store::import::load`]). Into a database without content the load is a bulk
//! load (`bulk_load.rs`): foreign keys checked once at the end, indexes of empty tables
//! built after the rows (but those whose keys arrive in ascending order), a rollback
//! journal instead of WAL. Either way the rows are inserted on a thread of their own
//! (`load_thread.rs`) while the import builds the next ones; the transaction is begun and
//! ended here, by hand, because its statements run on two threads.

use std::path::Path;

use rusqlite::Connection;

use super::bulk_load::{self, DroppedIndexes, RollbackJournal};
use super::load_thread::{LoadThread, Shared};
use super::map_error;
use crate::schema::Model;
use crate::store::StoreError;
use crate::store::import::{ImportError, ImportReport, LoadHooks, load};

/// Imports the dataset at `path` into `conn` (which must already have the model's tables:
/// see [`super::ddl::create_database`] and [`super::migrate`]) in one transaction.
/// `progress(done, total)` is called now and then, in bytes of the two passes over the file.
pub fn import_dataset(
    conn: &mut Connection,
    model: &Model,
    path: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<ImportReport, ImportError> {
    let missing = super::migrate::verify(conn, model);
    if !missing.is_empty() {
        return Err(StoreError::Layout(missing).into());
    }
    // Into a database without content: foreign keys checked once at the end, indexes
    // built after the rows (see `bulk_load.rs`). `foreign_keys` cannot change inside a
    // transaction, so it is set here.
    let bulk = bulk_load::is_fresh(conn, model)?;
    let cache_size: i64 = conn
        .query_row("pragma cache_size", [], |r| r.get(0))
        .map_err(map_error)?;
    // Every table, link table and check has its own statement: keep them all prepared.
    conn.set_prepared_statement_cache_capacity(512);
    // From here on the connection's settings are the import's; they are put back whatever
    // happens (an embedder keeps using the connection).
    let result = (|| {
        conn.pragma_update(None, "foreign_keys", if bulk { "OFF" } else { "ON" })
            .map_err(map_error)?;
        // A large page cache for the import's duration: indexes grow (or sort) in it.
        conn.pragma_update(None, "cache_size", -256_000)
            .map_err(map_error)?;
        let journal = if bulk {
            RollbackJournal::enter(conn)
        } else {
            None
        };
        let result = import_in_transaction(conn, model, path, progress, bulk);
        if let Some(journal) = journal {
            journal.leave(conn);
        }
        result
    })();
    let foreign_keys = conn.pragma_update(None, "foreign_keys", "ON");
    let cache = conn.pragma_update(None, "cache_size", cache_size);
    let report = result?;
    foreign_keys.map_err(map_error)?;
    cache.map_err(map_error)?;
    Ok(report)
}

fn import_in_transaction(
    conn: &mut Connection,
    model: &Model,
    path: &Path,
    progress: &dyn Fn(u64, u64),
    bulk: bool,
) -> Result<ImportReport, ImportError> {
    // The transaction is begun and ended by hand: the statements inside it run on two
    // threads (`load_thread.rs`), and a `rusqlite::Transaction` stays on one.
    conn.execute_batch("begin").map_err(map_error)?;
    let shared = Shared::new(conn);
    let report = std::thread::scope(|scope| {
        let (w, thread) = LoadThread::start(scope, &shared)?;
        let report = {
            let mut hooks = SqliteLoad {
                w: &w,
                model,
                bulk,
                dropped: None,
            };
            load(&w, model, path, &mut hooks, progress)
        };
        let finished = w.finish(thread);
        let report = report?;
        finished?;
        Ok::<_, ImportError>(report)
    });
    let conn = shared.into_connection();
    let ended = match report {
        Ok(_) => conn.execute_batch("commit"),
        Err(_) => conn.execute_batch("rollback"),
    };
    if ended.is_err() && !conn.is_autocommit() {
        // A failed commit leaves the transaction open: nothing of it is kept.
        let _ = conn.execute_batch("rollback");
    }
    let report = report?;
    ended.map_err(map_error)?;
    Ok(report)
}

/// SQLite's part of an import (see the module's doc).
struct SqliteLoad<'w, 's, 'c> {
    w: &'w LoadThread<'s, 'c>,
    model: &'w Model,
    bulk: bool,
    dropped: Option<DroppedIndexes>,
}

impl LoadHooks for SqliteLoad<'_, '_, '_> {
    fn immediate_foreign_keys(&self) -> bool {
        false
    }

    fn before_rows(&mut self) -> Result<(), StoreError> {
        if self.bulk {
            let in_order = bulk_load::ascending_columns(self.model);
            self.dropped = Some(
                self.w
                    .with_connection(|c| DroppedIndexes::drop_on_empty_tables(c, &in_order))?,
            );
        } else {
            self.w.with_connection(|c| {
                c.pragma_update(None, "defer_foreign_keys", "ON")
                    .map_err(map_error)
            })?;
        }
        Ok(())
    }

    fn after_rows(&mut self) -> Result<(), StoreError> {
        match self.dropped.take() {
            Some(dropped) => self.w.with_connection(|c| dropped.rebuild(c)),
            None => Ok(()),
        }
    }

    fn before_commit(&mut self) -> Result<(), ImportError> {
        if self.bulk
            && let Some(broken) = self.w.with_connection(bulk_load::broken_foreign_key)?
        {
            return Err(StoreError::Other(format!(
                "the import would leave {broken}; nothing was imported"
            ))
            .into());
        }
        Ok(())
    }
}
