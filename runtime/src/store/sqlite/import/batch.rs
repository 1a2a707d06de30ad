//! Rows that nothing reads back during the import (relation links, `_cmps` links, media
//! links) are written many to a statement: `insert into T (…) values (…), (…), …`. One
//! statement per row costs SQLite a statement reset, its `AUTOINCREMENT` bookkeeping
//! (a read and a write of `sqlite_sequence`) and the driver a cache lookup, per row; those
//! are most of an import's time once the indexes are built at the end (`bulk.rs`).
//!
//! Invariants:
//! * a table is always given the same columns (the writer's rows of a table all have the
//!   same shape); the `insert into T (…)` text is built once, on its first row;
//! * the rows of one table are written in the order they were pushed, so the ids
//!   `AUTOINCREMENT` gives them are the ids one statement per row would have given;
//! * a caller that reads a table it pushed rows into calls [`Batches::flush`] first: the
//!   writer does before it looks up links (`inverse_order`, `flush_deferred`) and at the
//!   end of its pass.

use std::collections::HashMap;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};

use crate::store::StoreError;
use crate::store::sqlite::render::quote;

/// Rows per statement: 128 rows of at most a handful of columns stay far below SQLite's
/// limit on bound parameters (32,766).
const ROWS_PER_STATEMENT: usize = 128;

/// The pending rows of each table.
#[derive(Debug, Default)]
pub(crate) struct Batches {
    pending: HashMap<String, Pending>,
    /// Tables in the order they were first seen, so that [`Batches::flush`] writes them in
    /// a stable order.
    order: Vec<String>,
}

#[derive(Debug)]
struct Pending {
    /// `insert into T (c1, …, cN)`.
    head: String,
    width: usize,
    values: Vec<Sql>,
}

impl Batches {
    /// Queues one row of `table`, the values of `columns` in order. Writes a full
    /// statement's worth of rows when there are enough.
    pub(crate) fn push(
        &mut self,
        conn: &Connection,
        table: &str,
        columns: &[&str],
        row: &[Sql],
    ) -> Result<(), StoreError> {
        let pending = match self.pending.get_mut(table) {
            Some(p) => p,
            None => {
                let quoted: Vec<String> = columns.iter().map(|c| quote(c)).collect();
                self.order.push(table.to_string());
                self.pending.entry(table.to_string()).or_insert(Pending {
                    head: format!("insert into {} ({})", quote(table), quoted.join(", ")),
                    width: columns.len(),
                    values: Vec::with_capacity(columns.len() * ROWS_PER_STATEMENT),
                })
            }
        };
        if row.len() != pending.width || columns.len() != pending.width {
            return Err(StoreError::Other(format!(
                "import: {} values for a row of {} columns ({})",
                row.len(),
                pending.width,
                pending.head
            )));
        }
        pending.values.extend_from_slice(row);
        if pending.values.len() >= pending.width * ROWS_PER_STATEMENT {
            write(conn, pending)?;
        }
        Ok(())
    }

    /// Writes every pending row.
    pub(crate) fn flush(&mut self, conn: &Connection) -> Result<(), StoreError> {
        for table in &self.order {
            if let Some(p) = self.pending.get_mut(table) {
                write(conn, p)?;
            }
        }
        Ok(())
    }
}

/// Writes the pending rows of a table in one statement (prepared once per row count).
fn write(conn: &Connection, pending: &mut Pending) -> Result<(), StoreError> {
    if pending.values.is_empty() || pending.width == 0 {
        pending.values.clear();
        return Ok(());
    }
    let rows = pending.values.len() / pending.width;
    let one = format!("({})", vec!["?"; pending.width].join(", "));
    let sql = format!("{} values {}", pending.head, vec![one; rows].join(", "));
    conn.prepare_cached(&sql)?
        .execute(params_from_iter(pending.values.iter()))?;
    pending.values.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_their_order_across_statements() -> Result<(), StoreError> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(
            "create table t (id integer primary key autoincrement, a integer, b text)",
        )?;
        let mut batches = Batches::default();
        let columns = ["a", "b"];
        for i in 0..300i64 {
            batches.push(
                &conn,
                "t",
                &columns,
                &[Sql::Integer(i), Sql::Text(format!("r{i}"))],
            )?;
        }
        // Two full statements are written; the rest waits for the flush.
        let written: i64 = conn.query_row("select count(*) from t", [], |r| r.get(0))?;
        assert_eq!(written, 256);
        batches.flush(&conn)?;
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
                .push(&conn, "t", &columns, &[Sql::Integer(1)])
                .is_err()
        );
        Ok(())
    }
}
