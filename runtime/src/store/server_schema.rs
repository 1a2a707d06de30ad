//! What the server backends (PostgreSQL, MySQL/MariaDB) share when they create or
//! migrate a database: the layout check (`missing`), the additive steps that bring an
//! existing database up to the model (each backend renders them in its own DDL), and the
//! rows of a new database, made by the one import path in a scratch SQLite database.

use std::collections::{HashMap, HashSet};

use rusqlite::types::Value as SqlValue;

use super::open::OpenOptions;
use super::{DatabaseUrl, StoreError, ddl, import, migrate, sqlite};
use crate::schema::{ColumnDef, DatabaseLayout, IndexDef, Model, TableDef};

/// Rows per multi-row `INSERT` when a new server database gets its rows (PostgreSQL binds
/// at most 65,535 parameters per statement; MySQL's packet limit is far above 500 rows).
pub(super) const ROWS_PER_INSERT: usize = 500;

/// The columns of each table of a database.
pub(super) type Columns = HashMap<String, HashSet<String>>;

/// What the model needs that `existing` lacks: one line per missing table or column.
pub(super) fn missing(existing: &Columns, model: &Model) -> Vec<String> {
    let mut problems = Vec::new();
    for table in &model.database_layout().tables {
        match existing.get(&table.name) {
            None => problems.push(format!("missing table {}", table.name)),
            Some(cols) => {
                for c in &table.columns {
                    if !cols.contains(&c.name) {
                        problems.push(format!("missing column {}.{}", table.name, c.name));
                    }
                }
            }
        }
    }
    problems
}

/// One additive change of an existing database.
#[derive(Debug, Clone, Copy)]
pub(super) enum AddStep<'a> {
    /// A table the model adds (with its indexes and foreign keys).
    Table(&'a TableDef),
    /// A column the model adds to a table.
    Column(&'a TableDef, &'a ColumnDef),
    /// An index the model adds to a table.
    Index(&'a TableDef, &'a IndexDef),
}

impl std::fmt::Display for AddStep<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddStep::Table(t) => write!(f, "create table {}", t.name),
            AddStep::Column(t, c) => write!(f, "add column {}.{}", t.name, c.name),
            AddStep::Index(t, ix) => write!(f, "create index {} on {}", ix.name, t.name),
        }
    }
}

/// What the model (its `layout`) adds to a database that has the tables and columns `existing` and the
/// indexes (and constraints) named `indexes`, in the model's order. Nothing is ever
/// dropped or retyped.
pub(super) fn additive_steps<'a>(
    layout: &'a DatabaseLayout,
    existing: &Columns,
    indexes: &HashSet<String>,
) -> Vec<AddStep<'a>> {
    let mut steps = Vec::new();
    for table in &layout.tables {
        let Some(cols) = existing.get(&table.name) else {
            steps.push(AddStep::Table(table));
            continue;
        };
        for c in &table.columns {
            if !cols.contains(&c.name) {
                steps.push(AddStep::Column(table, c));
            }
        }
        for ix in &table.indexes {
            if !indexes.contains(&ix.name) {
                steps.push(AddStep::Index(table, ix));
            }
        }
    }
    steps
}

/// Every non-empty table of the scratch database (strata's own layout record aside), with
/// its column names and rows.
pub(super) type TableRows = (String, Vec<String>, Vec<Vec<SqlValue>>);

/// The rows of a database strata would create: the one import path (layout, public
/// grants, seed) run into a scratch in-memory SQLite database, read back table by table,
/// with the import's report.
pub(super) fn scratch_database(
    model: &Model,
    options: &OpenOptions,
) -> Result<(Vec<TableRows>, Option<String>), StoreError> {
    let memory = DatabaseUrl::Sqlite {
        path: None,
        read_only: false,
    };
    let mut scratch = sqlite::open_connection(&memory, true)?;
    ddl::create_database(&scratch, model)?;
    ddl::seed_public_permissions(&scratch, model, &options.public_actions)?;
    let seeded = match &options.seed {
        Some(seed) => {
            let report = import::import_dataset(&mut scratch, model, seed, &|_, _| {})
                .map_err(|e| StoreError::Other(format!("cannot import {}: {e}", seed.display())))?;
            Some(format!("imported {}: {report}", seed.display()))
        }
        None => None,
    };
    Ok((scratch_rows(&scratch)?, seeded))
}

fn scratch_rows(conn: &rusqlite::Connection) -> Result<Vec<TableRows>, StoreError> {
    let mut tables = Vec::new();
    {
        let mut stmt = conn.prepare(
            "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
        )?;
        let names = stmt.query_map([], |r| r.get::<_, String>(0))?;
        for n in names {
            let n = n?;
            if n != migrate::STRATA_SCHEMA_TABLE {
                tables.push(n);
            }
        }
    }
    let mut out = Vec::new();
    for table in tables {
        let mut stmt = conn.prepare(&format!("select * from {}", ddl::quote(&table)))?;
        let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let n = columns.len();
        let mut rows = Vec::new();
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let mut row = Vec::with_capacity(n);
            for i in 0..n {
                row.push(r.get::<_, SqlValue>(i)?);
            }
            rows.push(row);
        }
        if !rows.is_empty() {
            out.push((table, columns, rows));
        }
    }
    Ok(out)
}
