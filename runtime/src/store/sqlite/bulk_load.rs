//! Bulk loading into a fresh database (no row in any table of the model's content types
//! and components, settings such as locales and roles aside): the import runs with `foreign_keys` off and checks every foreign key
//! once at the end (`pragma foreign_key_check`), and the secondary indexes of the tables it
//! starts empty are dropped before pass 2 writes and built again, each in one sorted pass,
//! before the transaction commits. A B-tree grown one random key at a time (the link
//! tables' `target_id` indexes, the component tables' `entity_id` indexes) costs a page
//! search and often a page split per row; `CREATE INDEX` over the finished table sorts once.
//! An import into a database that already holds content keeps SQLite's own deferred
//! foreign-key checks and every index, as before.
//!
//! Why both at once: with deferred foreign keys on, a row that points at a row further down
//! the file leaves a violation open, and while one is open SQLite searches the child tables
//! on every insert into the parent table; without the child's index each search would be a
//! scan.
//!
//! An index whose first column the load fills in ascending order (a link table's owner
//! column, a `_cmps` table's `entity_id`: pass 2 writes a row's links and components right
//! after the row) is kept: each key lands at the B-tree's right edge, and the index grows
//! on the thread that inserts the rows (`load_thread.rs`), beside pass 2's own work,
//! instead of being sorted after it.
//!
//! Invariants:
//! * only tables with no row when pass 2 begins lose their indexes, so every lookup the
//!   writer makes on rows that were already there still has them; the writer's lookups on
//!   rows it wrote itself come from its own memory (`LinkState::inverse_max`), and the
//!   lookups of `mappedBy`-side links run after [`DroppedIndexes::rebuild`];
//! * the same `CREATE INDEX` text that made each index makes it again (read from
//!   `sqlite_master`), so the layout after an import is byte for byte the layout before;
//! * everything happens inside the import's transaction: a failed import leaves the indexes
//!   as they were.

use rusqlite::{Connection, OptionalExtension};

use crate::schema::{AttributeKind, Model, RelationStorage};
use crate::store::StoreError;
use crate::store::sqlite::render::quote;

/// Whether `table` holds any row (one index step).
fn has_rows(conn: &Connection, table: &str) -> Result<bool, rusqlite::Error> {
    conn.query_row(
        &format!("select exists(select 1 from {})", quote(table)),
        [],
        |r| r.get(0),
    )
}

/// The built-in types whose rows every database starts with (the default locale, the
/// roles and their permissions, upload folders): settings, not content.
const SETTINGS: [&str; 4] = [
    "plugin::i18n.locale",
    "plugin::users-permissions.role",
    "plugin::users-permissions.permission",
    "plugin::upload.folder",
];

/// Whether no table of the model's content types and components, settings aside, holds a
/// row: the import then loads in bulk.
pub(crate) fn is_fresh(conn: &Connection, model: &Model) -> Result<bool, StoreError> {
    for schema in model.schemas() {
        if SETTINGS.contains(&schema.uid.as_str()) {
            continue;
        }
        if has_rows(conn, &schema.layout.table)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The first row (of the whole database) that points at a missing row, as a message; the
/// check that `foreign_keys = ON` would have made row by row.
pub(crate) fn broken_foreign_key(conn: &Connection) -> Result<Option<String>, StoreError> {
    let broken: Option<(String, Option<i64>, String)> = conn
        .query_row(
            "select \"table\", rowid, parent from pragma_foreign_key_check limit 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    Ok(broken.map(|(table, rowid, parent)| {
        format!(
            "row {} of `{table}` points at a missing row of `{parent}`",
            rowid.map_or_else(|| "?".to_string(), |r| r.to_string())
        )
    }))
}

/// The journal mode of a bulk load: a rollback journal in place of the write-ahead log.
/// In WAL mode every page of the load is written twice (into the log at commit, then into
/// the database by the checkpoint); a rollback journal keeps only the pages the load
/// changes that existed before it (a fresh database's few), and writes the rest once, in
/// place. A crash mid-load leaves a hot journal that restores the database at next open,
/// as WAL would.
pub(crate) struct RollbackJournal(());

impl RollbackJournal {
    /// Leaves WAL mode for the load, when the database is in WAL mode and no other
    /// connection has it open (SQLite refuses the change otherwise, and the load then runs
    /// in WAL mode, only slower).
    pub(crate) fn enter(conn: &Connection) -> Option<Self> {
        let previous: String = conn
            .query_row("pragma journal_mode", [], |r| r.get(0))
            .ok()?;
        if !previous.eq_ignore_ascii_case("wal") {
            return None;
        }
        let now: String = conn
            .query_row("pragma journal_mode = delete", [], |r| r.get(0))
            .ok()?;
        now.eq_ignore_ascii_case("delete")
            .then_some(RollbackJournal(()))
    }

    /// Goes back to WAL mode. Should that fail, the database stays in rollback
    /// mode, which is as safe; the next `Store::open` for writing sets WAL again.
    pub(crate) fn leave(self, conn: &Connection) {
        let _ = conn.query_row("pragma journal_mode = wal", [], |r| r.get::<_, String>(0));
    }
}

/// The (table, column) pairs whose values a load writes in ascending order: each link
/// table's owner column and each `_cmps` table's `entity_id` (pass 2 writes a row's
/// links and components right after the row, and rows in the order of their ids).
pub(crate) fn ascending_columns(model: &Model) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for schema in model.schemas() {
        if let Some(cmps) = &schema.layout.cmps_table {
            out.push((cmps.clone(), "entity_id".to_string()));
        }
        for a in &schema.attributes {
            if let AttributeKind::Relation(rel) = &a.kind
                && let RelationStorage::LinkTable(lt) = &rel.storage
            {
                out.push((lt.table.clone(), lt.owner_column.clone()));
            }
        }
    }
    out
}

/// Indexes dropped for the load, with the statements that make them again.
#[derive(Debug, Default)]
pub(crate) struct DroppedIndexes {
    create: Vec<String>,
}

impl DroppedIndexes {
    /// Drops every explicitly created index of every table that has no row.
    /// (Automatic indexes of `UNIQUE` and `PRIMARY KEY` constraints cannot be dropped and
    /// are kept.)
    /// Indexes whose first column is in `in_order` (table, column) are kept: the load
    /// appends their keys in ascending order, each at the B-tree's right edge, and they
    /// grow on the thread that inserts rows, beside the import's own work.
    pub(crate) fn drop_on_empty_tables(
        conn: &Connection,
        in_order: &[(String, String)],
    ) -> Result<Self, StoreError> {
        let indexes: Vec<(String, String, String)> = conn
            .prepare(
                "select name, tbl_name, sql from sqlite_master \
                 where type = 'index' and sql is not null order by name",
            )?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        let mut empty = std::collections::HashMap::<String, bool>::new();
        let mut dropped = DroppedIndexes::default();
        for (name, table, sql) in indexes {
            let is_empty = match empty.get(&table) {
                Some(e) => *e,
                None => {
                    let e = !has_rows(conn, &table)?;
                    empty.insert(table.clone(), e);
                    e
                }
            };
            if is_empty && !in_order.is_empty() {
                let first: Option<String> = conn
                    .query_row(
                        "select name from pragma_index_info(?1) where seqno = 0",
                        [&name],
                        |r| r.get(0),
                    )
                    .optional()?;
                if first.is_some_and(|c| in_order.contains(&(table.clone(), c))) {
                    continue;
                }
            }
            if is_empty {
                conn.execute_batch(&format!("drop index {}", quote(&name)))?;
                dropped.create.push(sql);
            }
        }
        Ok(dropped)
    }

    /// Builds every dropped index again.
    pub(crate) fn rebuild(self, conn: &Connection) -> Result<(), StoreError> {
        let built = self
            .create
            .iter()
            .try_for_each(|sql| conn.execute_batch(sql));
        Ok(built?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database() -> Result<Connection, StoreError> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(
            "create table parents (id integer primary key);
             create table children (id integer primary key,
                parent_id integer references parents (id));
             create index children_parent_idx on children (parent_id);
             create table kept (id integer primary key, v text);
             create index kept_v_idx on kept (v);
             insert into kept (v) values ('x');",
        )?;
        Ok(conn)
    }

    #[test]
    fn indexes_of_empty_tables_are_dropped_and_built_again() -> Result<(), StoreError> {
        let conn = database()?;
        let names = |conn: &Connection| -> Result<Vec<String>, StoreError> {
            Ok(conn
                .prepare("select name from sqlite_master where type = 'index' order by name")?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?)
        };
        let dropped = DroppedIndexes::drop_on_empty_tables(&conn, &[])?;
        assert_eq!(names(&conn)?, ["kept_v_idx"]);
        dropped.rebuild(&conn)?;
        assert_eq!(names(&conn)?, ["children_parent_idx", "kept_v_idx"]);
        Ok(())
    }

    #[test]
    fn an_index_filled_in_ascending_order_is_kept() -> Result<(), StoreError> {
        let conn = database()?;
        let in_order = [("children".to_string(), "parent_id".to_string())];
        let dropped = DroppedIndexes::drop_on_empty_tables(&conn, &in_order)?;
        let kept: Vec<String> = conn
            .prepare("select name from sqlite_master where type = 'index' order by name")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        assert_eq!(kept, ["children_parent_idx", "kept_v_idx"]);
        assert!(dropped.create.is_empty());
        Ok(())
    }

    #[test]
    fn a_row_pointing_nowhere_is_named() -> Result<(), StoreError> {
        let conn = database()?;
        conn.execute_batch("pragma foreign_keys = off; insert into parents (id) values (1);")?;
        conn.execute_batch("insert into children (id, parent_id) values (7, 1)")?;
        assert_eq!(broken_foreign_key(&conn)?, None);
        conn.execute_batch("insert into children (id, parent_id) values (8, 2)")?;
        assert_eq!(
            broken_foreign_key(&conn)?.as_deref(),
            Some("row 8 of `children` points at a missing row of `parents`")
        );
        Ok(())
    }
}
