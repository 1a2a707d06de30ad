//! What the server databases (PostgreSQL, MySQL/MariaDB) share when they create or
//! migrate a database: the layout check (`missing`), the additive steps that bring an
//! existing database up to the model (each database folder renders them in its own DDL),
//! and the shape of the rows a new database is given ([`TableRows`], made by
//! `sqlite::scratch`).

use std::collections::{HashMap, HashSet};

use crate::schema::{ColumnDef, DatabaseLayout, IndexDef, Model, TableDef};

/// Rows per multi-row `INSERT` when a new server database gets its rows (PostgreSQL binds
/// at most 65,535 parameters per statement; MySQL's packet limit is far above 500 rows).
pub(crate) const ROWS_PER_INSERT: usize = 500;

/// The columns of each table of a database.
pub(crate) type Columns = HashMap<String, HashSet<String>>;

/// What the model needs that `existing` lacks: one line per missing table or column.
pub(crate) fn missing(existing: &Columns, model: &Model) -> Vec<String> {
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
pub(crate) enum AddStep<'a> {
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
pub(crate) fn additive_steps<'a>(
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

/// A value of a row that a new database is given, as the scratch database stored it.
#[derive(Debug, Clone, PartialEq)]
pub enum StoredValue {
    /// NULL.
    Null,
    /// An integer (also booleans, and instants as epoch milliseconds).
    Integer(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

/// One non-empty table of a new database: its name, its column names and its rows.
pub type TableRows = (String, Vec<String>, Vec<Vec<StoredValue>>);
