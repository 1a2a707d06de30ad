//! SQLite's side of the schema planner ([`crate::store::migration`]): reading an existing
//! database's layout (`pragma table_info`, `index_list`, `index_info`), the layout strata
//! recorded in its `strata_schema` table, and rendering and running each step in
//! SQLite's DDL in one transaction (a table whose column types change is rebuilt, as
//! SQLite cannot alter a column's type).
//!
//! [`plan`], [`apply`] and [`migrate`] are the planner's, on an SQLite connection;
//! [`verify`] lists the tables and columns a database lacks, for read-only opening.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, params};
use sea_query::SelectStatement;

use super::SqliteExecutor;
use super::render::{create_index_sql, create_table_sql, create_table_sql_with, quote};
use crate::clock::now_ms;
use crate::schema::{ColumnType, Model};
use crate::store::StoreError;
use crate::store::migration::{
    self, ExistingLayout, ExistingTable, IndexShape, Provisioner, RecordedLayout,
};
use crate::store::seam::count_rows;

pub use crate::store::migration::{Change, MigrationPlan};

/// The table where strata records the layout it created or last migrated to.
pub const STRATA_SCHEMA_TABLE: &str = "strata_schema";

/// Records the model's layout in `strata_schema` (creating the table if needed).
pub(crate) fn record_layout(conn: &Connection, model: &Model) -> Result<(), StoreError> {
    record_json(conn, &RecordedLayout::of(model).to_json()?)
}

fn record_json(conn: &Connection, json: &str) -> Result<(), StoreError> {
    conn.execute(
        &format!(
            "create table if not exists {} (`id` integer not null primary key autoincrement, `layout` json null, `time` datetime null)",
            quote(STRATA_SCHEMA_TABLE)
        ),
        [],
    )?;
    conn.execute(&format!("delete from {}", quote(STRATA_SCHEMA_TABLE)), [])?;
    conn.execute(
        &format!(
            "insert into {} (`layout`, `time`) values (?1, ?2)",
            quote(STRATA_SCHEMA_TABLE)
        ),
        params![json, now_ms()],
    )?;
    Ok(())
}

/// Compares the database with the model's layout ([`migration::plan`]).
pub fn plan(conn: &Connection, model: &Model) -> Result<MigrationPlan, StoreError> {
    migration::plan(&SqliteProvisioner { conn }, model)
}

/// Applies `plan` in one transaction ([`migration::apply`]): the additive steps always,
/// the destructive ones only when `allow_destructive` is true. Records the new layout in
/// `strata_schema`. Must not be called inside an open transaction.
pub fn apply(
    conn: &Connection,
    plan: &MigrationPlan,
    allow_destructive: bool,
) -> Result<(), StoreError> {
    migration::apply(&SqliteProvisioner { conn }, plan, allow_destructive)
}

/// Plans and applies the additive steps; refuses destructive ones unless allowed.
pub fn migrate(
    conn: &Connection,
    model: &Model,
    allow_destructive: bool,
) -> Result<MigrationPlan, StoreError> {
    migration::migrate(&SqliteProvisioner { conn }, model, allow_destructive)
}

/// Brings the database up to the model ([`migration::bring_up_to_date`]).
pub fn bring_up_to_date(
    conn: &Connection,
    model: &Model,
    allow_destructive: bool,
) -> Result<Vec<String>, StoreError> {
    migration::bring_up_to_date(&SqliteProvisioner { conn }, model, allow_destructive)
}

/// Adds strata's lookup indexes the database lacks ([`migration::add_lookup_indexes`]).
pub fn add_lookup_indexes(conn: &Connection, model: &Model) -> Vec<String> {
    migration::add_lookup_indexes(&SqliteProvisioner { conn }, model)
}

/// The planner's view of one SQLite connection.
struct SqliteProvisioner<'c> {
    conn: &'c Connection,
}

impl Provisioner for SqliteProvisioner<'_> {
    fn existing(&self) -> Result<ExistingLayout, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'",
        )?;
        let names: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut tables = BTreeMap::new();
        for name in names {
            let columns = db_columns(self.conn, &name)?
                .into_iter()
                .map(|(n, t)| (n, Some(t)))
                .collect();
            let indexes = db_indexes(self.conn, &name)?
                .into_iter()
                .map(|(n, (columns, unique))| (n, Some(IndexShape { columns, unique })))
                .collect();
            tables.insert(name, ExistingTable { columns, indexes });
        }
        Ok(ExistingLayout { tables })
    }

    fn recorded(&self) -> Result<Option<RecordedLayout>, StoreError> {
        if !table_exists(self.conn, STRATA_SCHEMA_TABLE)? {
            return Ok(None);
        }
        let json: Option<String> = self
            .conn
            .query_row(
                &format!(
                    "select `layout` from {} order by id desc limit 1",
                    quote(STRATA_SCHEMA_TABLE)
                ),
                [],
                |r| r.get(0),
            )
            .optional()?;
        json.map(|j| RecordedLayout::from_json(&j, STRATA_SCHEMA_TABLE))
            .transpose()
    }

    fn declared_type(&self, ty: ColumnType) -> Option<&'static str> {
        Some(ty.sqlite_decl())
    }

    fn count(&self, stmt: &SelectStatement) -> Result<u64, StoreError> {
        count_rows(&SqliteExecutor::new(self.conn), stmt)
    }

    fn apply(
        &self,
        changes: &[&Change],
        layout: Option<&str>,
        destructive: bool,
    ) -> Result<(), StoreError> {
        if destructive {
            // Dropping or rebuilding a table must not cascade into the tables that point at it.
            self.conn.pragma_update(None, "foreign_keys", "OFF")?;
        }
        let result = self.apply_in_transaction(changes, layout, destructive);
        if destructive {
            self.conn.pragma_update(None, "foreign_keys", "ON")?;
        }
        result
    }
}

impl SqliteProvisioner<'_> {
    fn apply_in_transaction(
        &self,
        changes: &[&Change],
        layout: Option<&str>,
        check_fks: bool,
    ) -> Result<(), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        for change in changes {
            apply_change(&tx, change)?;
        }
        if check_fks {
            let broken: Option<String> = tx
                .query_row(
                    "select \"table\" from pragma_foreign_key_check limit 1",
                    [],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(t) = broken {
                return Err(StoreError::Other(format!(
                    "the migration would leave rows of `{t}` pointing at missing rows; nothing was changed"
                )));
            }
        }
        if let Some(json) = layout {
            record_json(&tx, json)?;
        }
        tx.commit()?;
        Ok(())
    }
}

fn table_exists(conn: &Connection, name: &str) -> Result<bool, StoreError> {
    Ok(conn
        .query_row(
            "select 1 from sqlite_master where type = 'table' and name = ?1",
            [name],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// A column as the database declares it.
fn db_columns(conn: &Connection, table: &str) -> Result<Vec<(String, String)>, StoreError> {
    let mut stmt =
        conn.prepare_cached("select name, type from pragma_table_info(?1) order by cid")?;
    let rows = stmt.query_map([table], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?.to_lowercase(),
        ))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The indexes created by `create index` on `table`: name → (columns, unique).
fn db_indexes(
    conn: &Connection,
    table: &str,
) -> Result<BTreeMap<String, (Vec<String>, bool)>, StoreError> {
    let mut stmt = conn
        .prepare_cached("select name, \"unique\" from pragma_index_list(?1) where origin = 'c'")?;
    let names: Vec<(String, bool)> = stmt
        .query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut out = BTreeMap::new();
    let mut info = conn.prepare_cached("select name from pragma_index_info(?1) order by seqno")?;
    for (name, unique) in names {
        let cols: Vec<String> = info
            .query_map([&name], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        out.insert(name, (cols, unique));
    }
    Ok(out)
}

fn apply_change(conn: &Connection, change: &Change) -> Result<(), StoreError> {
    match change {
        Change::CreateTable(t) => {
            conn.execute(&create_table_sql(t), [])?;
            for ix in &t.indexes {
                conn.execute(&create_index_sql(&t.name, ix), [])?;
            }
        }
        Change::AddColumn { table, column, ty } => {
            conn.execute(
                &format!(
                    "alter table {} add column {} {} null",
                    quote(table),
                    quote(column),
                    ty.sqlite_decl()
                ),
                [],
            )?;
        }
        Change::CreateIndex { table, index } => {
            conn.execute(&create_index_sql(table, index), [])?;
        }
        Change::RecreateIndex { table, index } => {
            conn.execute(&format!("drop index if exists {}", quote(&index.name)), [])?;
            conn.execute(&create_index_sql(table, index), [])?;
        }
        Change::DropIndex { index, .. } => {
            conn.execute(&format!("drop index if exists {}", quote(index)), [])?;
        }
        Change::ChangeColumnTypes { table, .. } => rebuild(conn, table)?,
        Change::DropColumn { table, column, .. } => {
            // Indexes on the column go first (SQLite refuses to drop an indexed column).
            let indexes = db_indexes(conn, table)?;
            for (name, (cols, _)) in indexes {
                if cols.iter().any(|c| c == column) {
                    conn.execute(&format!("drop index if exists {}", quote(&name)), [])?;
                }
            }
            conn.execute(
                &format!("alter table {} drop column {}", quote(table), quote(column)),
                [],
            )?;
        }
        Change::DropTable { table, .. } => {
            conn.execute(&format!("drop table if exists {}", quote(table)), [])?;
        }
        Change::DeleteComponentLinks {
            table,
            field,
            component_type,
            ..
        } => match (field, component_type) {
            (Some(f), _) => {
                conn.execute(
                    &format!("delete from {} where `field` = ?1", quote(table)),
                    [f],
                )?;
            }
            (None, Some(ct)) => {
                conn.execute(
                    &format!("delete from {} where `component_type` = ?1", quote(table)),
                    [ct],
                )?;
            }
            (None, None) => {}
        },
        Change::DeleteMediaLinks {
            table,
            type_column,
            related_type,
            field,
            ..
        } => {
            let type_col = quote(type_column);
            match field {
                Some(f) => conn.execute(
                    &format!(
                        "delete from {} where {type_col} = ?1 and `field` = ?2",
                        quote(table)
                    ),
                    params![related_type, f],
                )?,
                None => conn.execute(
                    &format!("delete from {} where {type_col} = ?1", quote(table)),
                    [related_type],
                )?,
            };
        }
    }
    Ok(())
}

/// Rebuilds `table` with the model's column types (SQLite cannot alter a column's type):
/// a new table with the model's columns and, after them, the columns strata does not own;
/// every row copied (SQLite's type affinity converts the values); the old table dropped
/// and the new one renamed; the model's indexes and the ones strata does not own created
/// again. Runs after the plan's other steps on the table (its dropped columns are gone).
fn rebuild(conn: &Connection, table: &crate::schema::TableDef) -> Result<(), StoreError> {
    let cols = db_columns(conn, &table.name)?;
    let extra: Vec<(String, String)> = cols
        .iter()
        .filter(|(n, _)| !table.columns.iter().any(|c| &c.name == n))
        .cloned()
        .collect();
    let mut copy_columns: Vec<String> = table
        .columns
        .iter()
        .filter(|c| cols.iter().any(|(n, _)| n == &c.name))
        .map(|c| c.name.clone())
        .collect();
    copy_columns.extend(extra.iter().map(|(n, _)| n.clone()));
    let mut index_sql: Vec<String> = table
        .indexes
        .iter()
        .map(|ix| create_index_sql(&table.name, ix))
        .collect();
    let mut stmt = conn.prepare_cached(
        "select name, sql from sqlite_master where type = 'index' and tbl_name = ?1 and sql is not null",
    )?;
    let foreign: Vec<(String, String)> = stmt
        .query_map([&table.name], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (name, sql) in foreign {
        if !table.indexes.iter().any(|ix| ix.name == name) {
            index_sql.push(sql);
        }
    }
    let tmp = format!("{}__strata_rebuild", table.name);
    let create =
        create_table_sql_with(table, &extra).replacen(&quote(&table.name), &quote(&tmp), 1);
    conn.execute(&create, [])?;
    let list = copy_columns
        .iter()
        .map(|c| quote(c))
        .collect::<Vec<_>>()
        .join(", ");
    conn.execute(
        &format!(
            "insert into {} ({list}) select {list} from {}",
            quote(&tmp),
            quote(&table.name)
        ),
        [],
    )?;
    conn.execute(&format!("drop table {}", quote(&table.name)), [])?;
    conn.execute(
        &format!(
            "alter table {} rename to {}",
            quote(&tmp),
            quote(&table.name)
        ),
        [],
    )?;
    for sql in &index_sql {
        conn.execute(sql, [])?;
    }
    Ok(())
}

/// The tables and columns the model needs that the database lacks, one readable line each
/// (empty when the database can serve the model). Used when a database is opened read-only.
pub fn verify(conn: &Connection, model: &Model) -> Vec<String> {
    let mut problems = Vec::new();
    let owners: BTreeMap<&str, &str> = model
        .schemas()
        .iter()
        .map(|s| (s.layout.table.as_str(), s.uid.as_str()))
        .collect();
    for table in &model.database_layout().tables {
        let needed_by = owners
            .get(table.name.as_str())
            .map(|uid| format!(" (the table of `{uid}`)"))
            .unwrap_or_default();
        match table_exists(conn, &table.name) {
            Err(e) => {
                problems.push(format!("cannot inspect table `{}`: {e}", table.name));
                continue;
            }
            Ok(false) => {
                problems.push(format!("missing table `{}`{needed_by}", table.name));
                continue;
            }
            Ok(true) => {}
        }
        match db_columns(conn, &table.name) {
            Err(e) => problems.push(format!("cannot inspect table `{}`: {e}", table.name)),
            Ok(cols) => {
                for c in &table.columns {
                    if !cols.iter().any(|(n, _)| n == &c.name) {
                        problems.push(format!(
                            "table `{}`{needed_by} has no column `{}` ({})",
                            table.name,
                            c.name,
                            c.ty.sqlite_decl()
                        ));
                    }
                }
            }
        }
    }
    problems
}
