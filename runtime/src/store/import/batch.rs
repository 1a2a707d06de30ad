//! Rows are written many to a call of the seam's [`Writer::insert_rows`] (a many-row
//! `INSERT` on SQLite and MySQL, a binary `COPY` on PostgreSQL), as many as the writer
//! asks for ([`Writer::rows_per_insert`]). One statement per row costs SQLite a statement
//! reset, its `AUTOINCREMENT` bookkeeping (a read and a write of `sqlite_sequence`) and the
//! driver a cache lookup, per row, and a server database a round trip; those are most of an
//! import's time once the indexes are built at the end (`sqlite/bulk_load.rs`).
//!
//! Invariants:
//! * a table is always given the same columns (the writer's rows of a table all have the
//!   same shape);
//! * the rows of one table are written in the order they were pushed, so the ids a database
//!   gives them are the ids one statement per row would have given;
//! * with [`Batches::immediate_foreign_keys`] (the database checks each foreign key at
//!   each statement), link rows (relation, `_cmps` and media links) are written after
//!   every pending row of a content-type or component table, so that the check finds the
//!   rows they point at once they were pushed, and each table's statistics are refreshed
//!   as it grows ([`Writer::refresh_statistics`]), so that the check stays an index
//!   lookup;
//! * a caller that reads a table it pushed rows into calls [`Batches::flush`] first: the
//!   writer does before it looks up links (`inverse_order`, `flush_deferred`) and at the
//!   end of its pass.

use super::FastMap;
use crate::store::StoreError;
use crate::store::seam::{StoredValue, Writer};

/// Whether a table holds entries (content-type, component, file and user rows) or links
/// between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TableKind {
    /// Rows that links point at.
    Rows,
    /// Link rows, written after the rows they point at.
    Links,
}

/// The pending rows of each table.
#[derive(Debug)]
pub(crate) struct Batches {
    /// Whether the database checks each foreign key at each statement: then links wait
    /// for the entry rows pending beside them (a full statement of links writes every
    /// pending entry row first) and tables' statistics are refreshed as they grow. SQLite,
    /// whose foreign keys an import checks at commit, and tables that get their foreign
    /// keys after the rows keep each table's statements full instead.
    pub(crate) immediate_foreign_keys: bool,
    /// Rows per [`Writer::insert_rows`] call ([`Writer::rows_per_insert`]).
    rows_per_insert: usize,
    pending: FastMap<String, Pending>,
    /// Tables in the order they were first seen, so that [`Batches::flush`] writes them in
    /// a stable order.
    order: Vec<String>,
}

/// Rows written to a table before the database first refreshes its statistics
/// ([`Writer::refresh_statistics`]); each later refresh comes after this factor more.
const FIRST_REFRESH: u64 = 1024;
const REFRESH_FACTOR: u64 = 32;

#[derive(Debug)]
struct Pending {
    kind: TableKind,
    columns: Vec<String>,
    values: Vec<StoredValue>,
    /// Rows written so far.
    written: u64,
    /// When `written` reaches it, the table's statistics are refreshed.
    next_refresh: u64,
}

impl Pending {
    /// Writes the pending rows; `refresh` lets the database refresh the table's
    /// statistics as it grows.
    fn write(&mut self, w: &dyn Writer, table: &str, refresh: bool) -> Result<(), StoreError> {
        if self.values.is_empty() {
            return Ok(());
        }
        let columns: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        let capacity = self.values.capacity();
        let values = std::mem::replace(&mut self.values, Vec::with_capacity(capacity));
        self.written += (values.len() / columns.len().max(1)) as u64;
        w.insert_owned_rows(table, &columns, values)?;
        if refresh && self.written >= self.next_refresh {
            w.refresh_statistics(table)?;
            self.next_refresh = self.written.saturating_mul(REFRESH_FACTOR);
        }
        Ok(())
    }
}

impl Batches {
    /// No pending rows, for a database that checks each foreign key at each statement
    /// (`immediate_foreign_keys`) or not, written `rows_per_insert` rows to a call of
    /// [`Writer::insert_rows`].
    pub(crate) fn new(immediate_foreign_keys: bool, rows_per_insert: usize) -> Self {
        Batches {
            immediate_foreign_keys,
            rows_per_insert: rows_per_insert.max(1),
            pending: FastMap::default(),
            order: Vec::new(),
        }
    }

    /// Queues one row of `table`, the values of `columns` in order (moved, not copied).
    /// Writes a full
    /// statement's worth of rows when there are enough (after every pending entry row,
    /// when they are links).
    pub(crate) fn push<R>(
        &mut self,
        w: &dyn Writer,
        kind: TableKind,
        table: &str,
        columns: &[&str],
        row: R,
    ) -> Result<(), StoreError>
    where
        R: IntoIterator<Item = StoredValue>,
        R::IntoIter: ExactSizeIterator,
    {
        let row = row.into_iter();
        let pending = match self.pending.get_mut(table) {
            Some(p) => p,
            None => {
                self.order.push(table.to_string());
                self.pending.entry(table.to_string()).or_insert(Pending {
                    kind,
                    columns: columns.iter().map(|c| c.to_string()).collect(),
                    values: Vec::with_capacity(columns.len() * self.rows_per_insert),
                    written: 0,
                    next_refresh: FIRST_REFRESH,
                })
            }
        };
        if row.len() != pending.columns.len() || columns.len() != pending.columns.len() {
            return Err(StoreError::Other(format!(
                "import: {} values for a row of the {} columns of {table}",
                row.len(),
                pending.columns.len(),
            )));
        }
        pending.values.extend(row);
        if pending.values.len() >= pending.columns.len().max(1) * self.rows_per_insert {
            if kind == TableKind::Links && self.immediate_foreign_keys {
                self.flush_kind(w, TableKind::Rows)?;
            }
            let refresh = self.immediate_foreign_keys;
            if let Some(p) = self.pending.get_mut(table) {
                p.write(w, table, refresh)?;
            }
        }
        Ok(())
    }

    /// Writes every pending row: entry rows first, then links.
    pub(crate) fn flush(&mut self, w: &dyn Writer) -> Result<(), StoreError> {
        self.flush_kind(w, TableKind::Rows)?;
        self.flush_kind(w, TableKind::Links)
    }

    fn flush_kind(&mut self, w: &dyn Writer, kind: TableKind) -> Result<(), StoreError> {
        for table in &self.order {
            if let Some(p) = self.pending.get_mut(table)
                && p.kind == kind
            {
                p.write(w, table, self.immediate_foreign_keys)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::SqliteExecutor;
    use rusqlite::Connection;

    #[test]
    fn rows_keep_their_order_across_statements() -> Result<(), StoreError> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(
            "create table t (id integer primary key autoincrement, a integer, b text)",
        )?;
        let w = SqliteExecutor::new(&conn);
        let mut batches = Batches::new(false, w.rows_per_insert());
        let columns = ["a", "b"];
        for i in 0..300i64 {
            batches.push(
                &w,
                TableKind::Rows,
                "t",
                &columns,
                [StoredValue::Integer(i), StoredValue::Text(format!("r{i}"))],
            )?;
        }
        // Two full statements are written; the rest waits for the flush.
        let written: i64 = conn.query_row("select count(*) from t", [], |r| r.get(0))?;
        assert_eq!(written, 256);
        batches.flush(&w)?;
        let rows: Vec<(i64, i64, String)> = conn
            .prepare("select id, a, b from t order by id")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        assert_eq!(rows.len(), 300);
        assert!(
            rows.iter()
                .all(|(id, a, b)| *id == a + 1 && *b == format!("r{a}"))
        );
        assert!(
            batches
                .push(
                    &w,
                    TableKind::Rows,
                    "t",
                    &columns,
                    [StoredValue::Integer(1)]
                )
                .is_err()
        );
        Ok(())
    }

    #[test]
    fn a_full_batch_of_links_writes_the_rows_it_points_at_first() -> Result<(), StoreError> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(
            "pragma foreign_keys = on;
             create table p (id integer primary key);
             create table l (id integer primary key autoincrement, p_id integer not null references p (id));",
        )?;
        let w = SqliteExecutor::new(&conn);
        let mut batches = Batches::new(true, 128);
        for i in 1..=200i64 {
            batches.push(&w, TableKind::Rows, "p", &["id"], [StoredValue::Integer(i)])?;
            // Two links per row: the links' statement fills while rows are pending.
            for _ in 0..2 {
                batches.push(
                    &w,
                    TableKind::Links,
                    "l",
                    &["p_id"],
                    [StoredValue::Integer(i)],
                )?;
            }
        }
        batches.flush(&w)?;
        let links: i64 = conn.query_row("select count(*) from l", [], |r| r.get(0))?;
        assert_eq!(links, 400);
        Ok(())
    }
}
