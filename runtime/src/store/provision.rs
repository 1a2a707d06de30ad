//! What the server databases (PostgreSQL, MySQL/MariaDB) share when they create or
//! migrate a database: the layout check (`missing`), how they describe a step of the
//! schema planner, and the shape of the rows a new database is given ([`TableRows`],
//! made by `sqlite::scratch`).

use super::StoreError;
use super::migration::{Change, ExistingLayout};
use crate::schema::{ColumnType, IndexDef, Model, TableDef};

/// Rows per multi-row `INSERT` when a new server database gets its rows (PostgreSQL binds
/// at most 65,535 parameters per statement; MySQL's packet limit is far above 500 rows).
pub(crate) const ROWS_PER_INSERT: usize = 500;

/// What the model needs that `existing` lacks: one line per missing table or column.
pub(crate) fn missing(existing: &ExistingLayout, model: &Model) -> Vec<String> {
    let mut problems = Vec::new();
    for table in &model.database_layout().tables {
        match existing.tables.get(&table.name) {
            None => problems.push(format!("missing table {}", table.name)),
            Some(have) => {
                for c in &table.columns {
                    if !have.columns.iter().any(|(n, _)| n == &c.name) {
                        problems.push(format!("missing column {}.{}", table.name, c.name));
                    }
                }
            }
        }
    }
    problems
}

/// A step as the server databases describe it: names unquoted, no types.
pub(crate) fn describe_unquoted(change: &Change) -> String {
    match change {
        Change::CreateTable(t) => format!("create table {}", t.name),
        Change::AddColumn { table, column, .. } => format!("add column {table}.{column}"),
        Change::CreateIndex { table, index } => format!("create index {} on {table}", index.name),
        other => other.to_string(),
    }
}

/// How a server database writes the statements of the planner's additive steps (the
/// only steps it gets: it records no layout).
pub(crate) trait AdditiveDdl {
    /// The database's name, for messages.
    const NAME: &'static str;
    /// The statements that create a model table with its indexes (not its foreign keys).
    fn create_table(table: &TableDef) -> Vec<String>;
    /// The statements that add a model table's foreign keys.
    fn foreign_keys(table: &TableDef) -> Vec<String>;
    /// The statement that adds a column.
    fn add_column(table: &str, column: &str, ty: ColumnType) -> String;
    /// The statement that adds an index (or a unique constraint).
    fn add_index(table: &str, index: &IndexDef) -> String;
}

/// The statements of `changes`, in order, with the foreign keys of new tables last (every
/// table exists by then); an error for a step that is not additive.
pub(crate) fn additive_statements<D: AdditiveDdl>(
    changes: &[&Change],
) -> Result<Vec<String>, StoreError> {
    let mut statements = Vec::new();
    let mut foreign_keys = Vec::new();
    for change in changes {
        match change {
            Change::CreateTable(table) => {
                statements.extend(D::create_table(table));
                foreign_keys.extend(D::foreign_keys(table));
            }
            Change::AddColumn { table, column, ty } => {
                statements.push(D::add_column(table, column, *ty));
            }
            Change::CreateIndex { table, index } => statements.push(D::add_index(table, index)),
            other => {
                return Err(StoreError::Other(format!(
                    "cannot apply `{other}` on {0}: strata only adds to a {0} database",
                    D::NAME
                )));
            }
        }
    }
    statements.extend(foreign_keys);
    Ok(statements)
}

use super::seam::StoredValue;

/// One non-empty table of a new database: its name, its column names and its rows.
pub type TableRows = (String, Vec<String>, Vec<Vec<StoredValue>>);
