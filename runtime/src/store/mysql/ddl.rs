//! MySQL/MariaDB databases at open time: creating Strapi's layout in a database that has
//! no tables, migrating an existing one additively, and checking one against the model.
//!
//! A new database gets Strapi's own tables verbatim (`mysql/strapi_system.sql`, from
//! a Strapi 5.54 boot on MariaDB), the model's tables with Strapi's column types
//! (`int(10) unsigned` keys and join columns, `double unsigned` orders, `datetime(6)`,
//! `time(3)`, `tinyint(1)`, `longtext … CHECK (json_valid(…))`…) and primary keys, then
//! the rows (unique and foreign-key checks off, so that InnoDB loads each empty table in
//! bulk), then the indexes and unique keys (each built in one sorted pass), then the
//! foreign keys. The rows every new database starts with (locales,
//! roles, public grants) come from a scratch in-memory SQLite database made by the same
//! code as on SQLite (as for PostgreSQL), converted per column type; a seed dataset is
//! loaded by the one import path (`store::import`) straight into the new tables, before
//! they have foreign keys.
//!
//! Decision: MySQL commits every DDL statement on its own, so "one transaction" holds for
//! the rows only; when any step fails, strata drops the tables it created, leaving the
//! database as empty as it found it. An existing database gets the tables, columns and
//! indexes the model adds (never a drop or a retype); one that matches is not written to.

use std::collections::{HashMap, HashSet};

use super::{Checks, MyPool};
use crate::schema::IndexDef;
use crate::schema::{ColumnType, Model, OnDelete, TableDef};
use crate::store::StoreError;
use crate::store::import::{self, BareTables};
use crate::store::migration::{self, Change, ExistingLayout, Provisioner};
use crate::store::options::{OpenOptions, Opened};
use crate::store::provision::{
    AdditiveDdl, ROWS_PER_INSERT, TableRows, additive_statements, describe_unquoted, missing,
};
use crate::store::seam::{StoredValue, Writer, count_rows};
use crate::store::sql::mysql_datetime;
use crate::store::sqlite::scratch::scratch_database;
use mysql::Value;
use mysql::prelude::Queryable;
use sea_query::SelectStatement;

/// Strapi's own tables on MariaDB, one `CREATE TABLE` per line.
const STRAPI_SYSTEM_DDL: &str = include_str!("strapi_system.sql");

/// Creates the layout when the database has no tables; otherwise brings it up to the
/// model with the schema planner.
pub fn prepare(pool: &MyPool, model: &Model, options: &OpenOptions) -> Result<Opened, StoreError> {
    let db = MyProvisioner { pool };
    if db.existing()?.tables.is_empty() {
        let created = create(pool, model, options)?;
        migration::add_lookup_indexes(&db, model);
        return Ok(created);
    }
    let migrated = migration::bring_up_to_date(&db, model, options.allow_destructive)?;
    Ok(Opened::Existing { migrated })
}

/// The missing tables and columns of the database, one line each.
pub fn layout_problems(pool: &MyPool, model: &Model) -> Result<Vec<String>, StoreError> {
    Ok(missing(&MyProvisioner { pool }.existing()?, model))
}

fn sql_error(e: mysql::Error) -> StoreError {
    match e {
        mysql::Error::MySqlError(m) => StoreError::Database(format!("{} ({})", m.message, m.code)),
        other => StoreError::Database(other.to_string()),
    }
}

/// `` `ident` ``, as Strapi quotes identifiers on MySQL.
pub(super) fn quote(ident: &str) -> String {
    format!("`{}`", ident.replace('`', "``"))
}

/// A join table (relation links, component links, morph links): its integer and order
/// columns are unsigned in Strapi's DDL.
fn is_join_table(table: &str) -> bool {
    table.ends_with("_lnk") || table.ends_with("_cmps") || table.ends_with("_mph")
}

/// A column's declaration as Strapi writes it on MySQL.
fn column_decl(table: &str, name: &str, ty: ColumnType) -> String {
    let unsigned = is_join_table(table) || matches!(name, "created_by_id" | "updated_by_id");
    let q = quote(name);
    match ty {
        ColumnType::Increments => format!("{q} int(10) unsigned NOT NULL AUTO_INCREMENT"),
        ColumnType::Integer if unsigned => format!("{q} int(10) unsigned DEFAULT NULL"),
        ColumnType::Integer => format!("{q} int(11) DEFAULT NULL"),
        ColumnType::String => format!("{q} varchar(255) DEFAULT NULL"),
        ColumnType::Text => format!("{q} longtext DEFAULT NULL"),
        ColumnType::Json => format!(
            "{q} longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL CHECK (json_valid({q}))"
        ),
        ColumnType::BigInteger => format!("{q} bigint(20) DEFAULT NULL"),
        ColumnType::Float if unsigned => format!("{q} double unsigned DEFAULT NULL"),
        ColumnType::Float => format!("{q} double DEFAULT NULL"),
        ColumnType::Decimal => format!("{q} decimal(10,2) DEFAULT NULL"),
        ColumnType::Boolean => format!("{q} tinyint(1) DEFAULT NULL"),
        ColumnType::Date => format!("{q} date DEFAULT NULL"),
        ColumnType::Time => format!("{q} time(3) DEFAULT NULL"),
        ColumnType::DateTime => format!("{q} datetime(6) DEFAULT NULL"),
    }
}

fn index_decl(ix: &crate::schema::IndexDef) -> String {
    let cols = ix
        .columns
        .iter()
        .map(|c| quote(c))
        .collect::<Vec<_>>()
        .join(",");
    let kind = if ix.unique { "UNIQUE KEY" } else { "KEY" };
    format!("{kind} {} ({cols})", quote(&ix.name))
}

/// The `CREATE TABLE` of a model table, with its keys (foreign keys come later).
pub fn table_statement(table: &TableDef) -> String {
    create_table_statement(table, Indexed::Now)
}

/// When a new table gets its secondary indexes and unique keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Indexed {
    /// In its `CREATE TABLE`.
    Now,
    /// After its rows ([`index_statement`]): each index is then built in one sorted pass,
    /// not row by row into pages that no longer fit InnoDB's buffer pool.
    AfterRows,
}

/// The `ALTER TABLE … ADD KEY …, ADD UNIQUE KEY …` of a table created
/// [`Indexed::AfterRows`], if it has any.
fn index_statement(table: &TableDef) -> Option<String> {
    if table.indexes.is_empty() {
        return None;
    }
    let adds: Vec<String> = table
        .indexes
        .iter()
        .map(|ix| format!("ADD {}", index_decl(ix)))
        .collect();
    Some(format!(
        "ALTER TABLE {} {}",
        quote(&table.name),
        adds.join(", ")
    ))
}

fn create_table_statement(table: &TableDef, indexed: Indexed) -> String {
    let mut parts: Vec<String> = table
        .columns
        .iter()
        .map(|c| column_decl(&table.name, &c.name, c.ty))
        .collect();
    if let Some(id) = table
        .columns
        .iter()
        .find(|c| c.ty == ColumnType::Increments)
    {
        parts.push(format!("PRIMARY KEY ({})", quote(&id.name)));
    }
    if indexed == Indexed::Now {
        parts.extend(table.indexes.iter().map(index_decl));
    }
    format!(
        "CREATE TABLE {} ({}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci",
        quote(&table.name),
        parts.join(", ")
    )
}

/// The foreign keys of a model table.
pub fn foreign_key_statements(table: &TableDef) -> Vec<String> {
    table
        .foreign_keys
        .iter()
        .map(|fk| {
            let action = match fk.on_delete {
                OnDelete::Cascade => "CASCADE",
                OnDelete::SetNull => "SET NULL",
            };
            format!(
                "ALTER TABLE {} ADD CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({}) ON DELETE {action}",
                quote(&table.name),
                quote(&fk.name),
                quote(&fk.column),
                quote(&fk.ref_table),
                quote(&fk.ref_column)
            )
        })
        .collect()
}

fn system_statements() -> impl Iterator<Item = &'static str> {
    STRAPI_SYSTEM_DDL
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("--"))
        .map(|l| l.trim_end_matches(';'))
}

/// Creates Strapi's layout and the rows of a new database (see the module's doc).
fn create(pool: &MyPool, model: &Model, options: &OpenOptions) -> Result<Opened, StoreError> {
    // The rows every new database starts with (locales, roles, the public grants), made
    // by the same code as on SQLite in a scratch SQLite database; the seed is loaded
    // below, straight into the new tables.
    let bare = OpenOptions {
        seed: None,
        ..options.clone()
    };
    let (copies, _) = scratch_database(model, &bare)?;
    let layout = model.database_layout();
    let mut tables: Vec<String> = Vec::new();
    let result = (|| {
        let datetimes = pool.with_conn(|conn| {
            conn.query_drop("SET foreign_key_checks = 0")
                .map_err(sql_error)?;
            for stmt in system_statements() {
                if let Some(name) = stmt.split('`').nth(1) {
                    tables.push(name.to_string());
                }
                conn.query_drop(stmt).map_err(sql_error)?;
            }
            for table in &layout.tables {
                tables.push(table.name.clone());
                conn.query_drop(create_table_statement(table, Indexed::AfterRows))
                    .map_err(sql_error)?;
            }
            datetime_columns(conn)
        })?;
        // The rows in one transaction, into tables without foreign keys yet.
        let seeded = pool.write_in(Checks::Deferred, |w| {
            for rows in &copies {
                copy_rows(w, rows, &datetimes)?;
            }
            match &options.seed {
                None => Ok::<_, StoreError>(None),
                Some(seed) => {
                    let report = import::load(w, model, seed, &mut BareTables, &|done, total| {
                        options.seed_progress.report(done, total)
                    })
                    .map_err(|e| {
                        StoreError::Other(format!("cannot import {}: {e}", seed.display()))
                    })?;
                    Ok(Some(format!("imported {}: {report}", seed.display())))
                }
            }
        })?;
        let indexes: Vec<String> = layout.tables.iter().filter_map(index_statement).collect();
        build_indexes(pool, &indexes)?;
        pool.with_conn(|conn| {
            // Not checked again: the rows came from the import, which resolved every
            // reference.
            conn.query_drop("SET foreign_key_checks = 0")
                .map_err(sql_error)?;
            for table in &layout.tables {
                for stmt in foreign_key_statements(table) {
                    conn.query_drop(stmt).map_err(sql_error)?;
                }
            }
            conn.query_drop("SET foreign_key_checks = 1")
                .map_err(sql_error)
        })?;
        Ok(seeded)
    })();
    match result {
        Ok(seeded) => Ok(Opened::Created { seeded }),
        Err(e) => {
            // DDL committed itself: take the tables away again.
            let _ = pool.with_conn(|conn| {
                let _ = conn.query_drop("SET foreign_key_checks = 0");
                for t in tables.iter().rev() {
                    let _ = conn.query_drop(format!("DROP TABLE IF EXISTS {}", quote(t)));
                }
                let _ = conn.query_drop("SET foreign_key_checks = 1");
                Ok(())
            });
            Err(e)
        }
    }
}

/// Runs the `ALTER TABLE`s that add each table's indexes on two connections at once,
/// each taking the next statement when it is done; after a failure neither takes another.
/// InnoDB builds one table's indexes on one thread, so on two cores the builds of the 1M
/// import took 70 s instead of 123 s (BENCHMARKS §0zp).
fn build_indexes(pool: &MyPool, statements: &[String]) -> Result<(), StoreError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let work = || {
        pool.with_conn(|conn| {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(stmt) = statements.get(i) else {
                    return Ok(());
                };
                if let Err(e) = conn.query_drop(stmt) {
                    next.store(statements.len(), Ordering::Relaxed);
                    return Err(sql_error(e));
                }
            }
        })
    };
    std::thread::scope(|scope| {
        let other = scope.spawn(work);
        let mine = work();
        let theirs = other
            .join()
            .unwrap_or_else(|_| Err(StoreError::Other("an index build panicked".into())));
        mine.and(theirs)
    })
}

/// The `datetime`/`timestamp` columns of every table (SQLite keeps them as epoch ms).
fn datetime_columns(
    conn: &mut mysql::PooledConn,
) -> Result<HashMap<String, HashSet<String>>, StoreError> {
    let rows: Vec<(String, String)> = conn
        .query(
            "SELECT table_name, column_name FROM information_schema.columns \
             WHERE table_schema = DATABASE() AND data_type IN ('datetime', 'timestamp')",
        )
        .map_err(sql_error)?;
    let mut out: HashMap<String, HashSet<String>> = HashMap::new();
    for (t, c) in rows {
        out.entry(t).or_default().insert(c);
    }
    Ok(out)
}

/// Inserts the rows of one table (ids included), a batch per statement; the epoch ms of
/// its `datetime` columns become instants.
fn copy_rows(
    w: &dyn Writer,
    (table, columns, rows): &TableRows,
    datetimes: &HashMap<String, HashSet<String>>,
) -> Result<(), StoreError> {
    let is_datetime: Vec<bool> = columns
        .iter()
        .map(|c| datetimes.get(table).is_some_and(|set| set.contains(c)))
        .collect();
    let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let mut values = Vec::with_capacity(chunk.len() * columns.len());
        for row in chunk {
            for (v, datetime) in row.iter().zip(&is_datetime) {
                values.push(match v {
                    StoredValue::Integer(ms) if *datetime => StoredValue::Timestamp(*ms),
                    v => v.clone(),
                });
            }
        }
        w.insert_rows(table, &cols, &values)?;
    }
    Ok(())
}

/// `INSERT INTO T (c1, …) VALUES (?, …), (…), …` for `rows` rows of `columns`.
pub(super) fn insert_rows_sql(table: &str, columns: &[&str], rows: usize) -> String {
    let cols: Vec<String> = columns.iter().map(|c| quote(c)).collect();
    let marks = format!("({})", vec!["?"; columns.len()].join(", "));
    format!(
        "INSERT INTO {} ({}) VALUES {}",
        quote(table),
        cols.join(", "),
        vec![marks.as_str(); rows].join(", ")
    )
}

/// The next id of a table (its name bound once): past its rows and its `AUTO_INCREMENT`.
pub(super) fn next_id_sql(table: &str) -> String {
    format!(
        "SELECT GREATEST(COALESCE((SELECT MAX(`id`) FROM {}), 0) + 1, COALESCE((SELECT `AUTO_INCREMENT` FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?), 1))",
        quote(table)
    )
}

/// A stored value as a MySQL parameter; instants become `DATETIME` text.
pub(super) fn value(v: &StoredValue) -> Value {
    match v {
        StoredValue::Null => Value::NULL,
        StoredValue::Timestamp(ms) => Value::Bytes(mysql_datetime(*ms).into_bytes()),
        StoredValue::Integer(i) => Value::Int(*i),
        StoredValue::Real(f) => Value::Double(*f),
        StoredValue::Text(t) => Value::Bytes(t.clone().into_bytes()),
        StoredValue::Blob(b) => Value::Bytes(b.clone()),
        StoredValue::JsonBoolean(b) => Value::Int(i64::from(*b)),
    }
}

/// The planner's view of a MySQL/MariaDB database.
///
/// It records no layout, and declared types are not compared, so the planner only ever
/// finds additive steps here: missing tables (with their foreign keys), columns and
/// indexes. MySQL commits DDL by itself, so they run one after another; a database that
/// already matches is not written to.
struct MyProvisioner<'p> {
    pool: &'p MyPool,
}

impl AdditiveDdl for MyProvisioner<'_> {
    const NAME: &'static str = "MySQL";

    fn create_table(table: &TableDef) -> Vec<String> {
        vec![table_statement(table)]
    }

    fn foreign_keys(table: &TableDef) -> Vec<String> {
        foreign_key_statements(table)
    }

    fn add_column(table: &str, column: &str, ty: ColumnType) -> String {
        format!(
            "ALTER TABLE {} ADD COLUMN {}",
            quote(table),
            column_decl(table, column, ty)
        )
    }

    fn add_index(table: &str, index: &IndexDef) -> String {
        format!("ALTER TABLE {} ADD {}", quote(table), index_decl(index))
    }
}

impl Provisioner for MyProvisioner<'_> {
    fn existing(&self) -> Result<ExistingLayout, StoreError> {
        self.pool.with_conn(|conn| {
            let columns: Vec<(String, String)> = conn
                .query(
                    "SELECT table_name, column_name FROM information_schema.columns \
                     WHERE table_schema = DATABASE()",
                )
                .map_err(sql_error)?;
            let indexes: Vec<(String, String)> = conn
                .query(
                    "SELECT DISTINCT table_name, index_name FROM information_schema.statistics \
                     WHERE table_schema = DATABASE()",
                )
                .map_err(sql_error)?;
            Ok(ExistingLayout::from_names(columns, indexes))
        })
    }

    fn count(&self, stmt: &SelectStatement) -> Result<u64, StoreError> {
        self.pool.with(|exec| count_rows(exec, stmt))
    }

    fn describe(&self, change: &Change) -> String {
        describe_unquoted(change)
    }

    fn apply(
        &self,
        changes: &[&Change],
        _layout: Option<&str>,
        _destructive: bool,
    ) -> Result<(), StoreError> {
        let statements = additive_statements::<MyProvisioner<'_>>(changes)?;
        if statements.is_empty() {
            return Ok(());
        }
        self.pool.with_conn(|conn| {
            for stmt in &statements {
                conn.query_drop(stmt).map_err(sql_error)?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_strapis() {
        assert_eq!(
            column_decl("articles_tags_lnk", "tag_ord", ColumnType::Float),
            "`tag_ord` double unsigned DEFAULT NULL"
        );
        assert_eq!(
            column_decl("articles", "views", ColumnType::Integer),
            "`views` int(11) DEFAULT NULL"
        );
        assert_eq!(
            column_decl("articles", "created_by_id", ColumnType::Integer),
            "`created_by_id` int(10) unsigned DEFAULT NULL"
        );
        assert_eq!(system_statements().count(), 30);
    }
}
