//! Strapi's layout on PostgreSQL: finding out whether a database is new, checking an
//! existing one against the model, and creating a fresh one.
//!
//! A fresh database is made in one transaction, in Strapi's own order: its admin and
//! internal tables (`postgres/strapi_system.sql`, verbatim from a Strapi boot), then
//! the model's tables with their indexes and unique constraints, then the rows, then the
//! foreign keys. The rows every new database starts with (locales, roles, the public
//! grants) are made by the code that creates an SQLite database, in a scratch in-memory
//! SQLite database, and copied over table by table, each value encoded in the PostgreSQL
//! column's type by the backend's binder; a seed dataset is loaded by the one import path
//! (`store::import`) into the bare tables. The model's indexes and unique constraints are
//! built after the rows, then the foreign keys checked, all in the creating transaction:
//! a failed import leaves the database as empty as it was.

use sea_query::SelectStatement;

use super::{Param, PgPool};
use crate::schema::ColumnType;
use crate::schema::{IndexDef, Model, TableDef};
use crate::store::StoreError;
use crate::store::import::{self, BareTables};
use crate::store::migration::{self, Change, ExistingLayout, Provisioner};
use crate::store::options::{OpenOptions, Opened};
use crate::store::provision::{
    AdditiveDdl, ROWS_PER_INSERT, additive_statements, describe_unquoted, missing,
};
use crate::store::seam::{StoredValue, Writer, count_rows};
use crate::store::sqlite::scratch::scratch_database;

/// Strapi's admin and internal tables on PostgreSQL, one statement per line.
const STRAPI_SYSTEM_DDL: &str = include_str!("strapi_system.sql");

/// Creates the layout when the current schema has no tables; otherwise brings it up to
/// the model with the schema planner.
pub fn prepare(pool: &PgPool, model: &Model, options: &OpenOptions) -> Result<Opened, StoreError> {
    let db = PgProvisioner { pool };
    if db.existing()?.tables.is_empty() {
        let created = create(pool, model, options)?;
        migration::add_lookup_indexes(&db, model);
        return Ok(created);
    }
    let migrated = migration::bring_up_to_date(&db, model, options.allow_destructive)?;
    Ok(Opened::Existing { migrated })
}

/// What the model needs and the database lacks: one line per missing table or column.
pub fn layout_problems(pool: &PgPool, model: &Model) -> Result<Vec<String>, StoreError> {
    Ok(missing(&PgProvisioner { pool }.existing()?, model))
}

/// The planner's view of a PostgreSQL database (its current schema).
///
/// It records no layout, and declared types are not compared, so the planner only ever
/// finds additive steps here: missing tables (with their indexes and foreign keys),
/// columns and indexes, applied in one transaction. Tables and columns the model no
/// longer has stay (say so, and drop them by hand). A database that already matches is
/// not written to, so a read replica serves as it is.
struct PgProvisioner<'p> {
    pool: &'p PgPool,
}

impl AdditiveDdl for PgProvisioner<'_> {
    const NAME: &'static str = "PostgreSQL";

    fn create_table(table: &TableDef) -> Vec<String> {
        table_statements(table)
    }

    fn foreign_keys(table: &TableDef) -> Vec<String> {
        foreign_key_statements(table)
    }

    fn add_column(table: &str, column: &str, ty: ColumnType) -> String {
        format!(
            "alter table {} add column {} {} null",
            quote(table),
            quote(column),
            ty.postgres_decl()
        )
    }

    fn add_index(table: &str, index: &IndexDef) -> String {
        index_statement(table, index)
    }
}

impl Provisioner for PgProvisioner<'_> {
    fn existing(&self) -> Result<ExistingLayout, StoreError> {
        self.pool.with_client(async |c| {
            let err = |e: tokio_postgres::Error| StoreError::Database(pg_message(&e));
            let columns = c
                .query(
                    "SELECT table_name::text, column_name::text FROM information_schema.columns \
                     WHERE table_schema = current_schema()",
                    &[],
                )
                .await
                .map_err(err)?;
            let indexes = c
                .query(
                    "SELECT tablename::text, indexname::text FROM pg_indexes \
                     WHERE schemaname = current_schema() \
                     UNION SELECT t.relname::text, k.conname::text FROM pg_constraint k \
                     JOIN pg_class t ON t.oid = k.conrelid \
                     WHERE k.connamespace = current_schema()::regnamespace",
                    &[],
                )
                .await
                .map_err(err)?;
            let pair = |r: &tokio_postgres::Row| -> (String, String) { (r.get(0), r.get(1)) };
            Ok(ExistingLayout::from_names(
                columns.iter().map(pair),
                indexes.iter().map(pair),
            ))
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
        let statements = additive_statements::<PgProvisioner<'_>>(changes)?;
        if statements.is_empty() {
            return Ok(());
        }
        self.pool.with_client(async |c| {
            let err = |e: tokio_postgres::Error| StoreError::Database(pg_message(&e));
            let tx = c.transaction().await.map_err(err)?;
            // Schema changes are not bound by the requests' statement time: an index on a
            // large table takes minutes (MySQL's `MyPool::with_conn` runs them unbounded too).
            tx.batch_execute("set local statement_timeout = 0")
                .await
                .map_err(err)?;
            for stmt in &statements {
                tx.batch_execute(stmt).await.map_err(err)?;
            }
            tx.commit().await.map_err(err)
        })
    }
}

/// `"ident"`, as Strapi quotes identifiers on PostgreSQL.
pub(super) fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

/// The statements that create a model table, its indexes and unique constraints (foreign
/// keys come later, once every table exists), as Strapi writes them.
pub fn table_statements(table: &TableDef) -> Vec<String> {
    let mut out = vec![create_table_statement(table, Keyed::Now)];
    out.extend(index_statements(table));
    out
}

/// When a table's primary key is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keyed {
    /// With the table.
    Now,
    /// After its rows ([`primary_key_statement`]): a new database's bulk load.
    AfterRows,
}

/// `create table` with the columns (and the primary key, when `keyed` says so), without
/// other indexes.
fn create_table_statement(table: &TableDef, keyed: Keyed) -> String {
    let key = match keyed {
        Keyed::Now => " primary key",
        Keyed::AfterRows => "",
    };
    let columns: Vec<String> = table
        .columns
        .iter()
        .map(|c| match c.ty {
            crate::schema::ColumnType::Increments => {
                format!("{} serial{key}", quote(&c.name))
            }
            ty => format!("{} {} null", quote(&c.name), ty.postgres_decl()),
        })
        .collect();
    format!(
        "create table {} ({})",
        quote(&table.name),
        columns.join(", ")
    )
}

/// The primary key of a table made with [`Keyed::AfterRows`] (the same constraint, named
/// `<table>_pkey`, as `serial primary key` makes).
fn primary_key_statement(table: &TableDef) -> Option<String> {
    let id = table
        .columns
        .iter()
        .find(|c| c.ty == crate::schema::ColumnType::Increments)?;
    Some(format!(
        "alter table {} add primary key ({})",
        quote(&table.name),
        quote(&id.name)
    ))
}

/// The indexes and unique constraints of a model table.
fn index_statements(table: &TableDef) -> impl Iterator<Item = String> + '_ {
    table
        .indexes
        .iter()
        .map(|ix| index_statement(&table.name, ix))
}

/// The statement of one index of `table`: a unique constraint, or an index.
fn index_statement(table: &str, ix: &IndexDef) -> String {
    let cols = ix
        .columns
        .iter()
        .map(|c| quote(c))
        .collect::<Vec<_>>()
        .join(", ");
    if ix.unique {
        format!(
            "alter table {} add constraint {} unique ({cols})",
            quote(table),
            quote(&ix.name)
        )
    } else {
        format!(
            "create index {} on {} ({cols})",
            quote(&ix.name),
            quote(table)
        )
    }
}

/// The foreign keys of a model table.
pub fn foreign_key_statements(table: &TableDef) -> Vec<String> {
    table
        .foreign_keys
        .iter()
        .map(|fk| {
            let action = match fk.on_delete {
                crate::schema::OnDelete::Cascade => "CASCADE",
                crate::schema::OnDelete::SetNull => "SET NULL",
            };
            format!(
                "alter table {} add constraint {} foreign key ({}) references {} ({}) on delete {action}",
                quote(&table.name),
                quote(&fk.name),
                quote(&fk.column),
                quote(&fk.ref_table),
                quote(&fk.ref_column)
            )
        })
        .collect()
}

/// Creates Strapi's layout and the rows of a new database (see the module's doc).
fn create(pool: &PgPool, model: &Model, options: &OpenOptions) -> Result<Opened, StoreError> {
    // The rows every new database starts with (locales, roles, the public grants), made
    // by the same code as on SQLite in a scratch SQLite database; the seed is loaded
    // below, straight into the new tables.
    let bare = OpenOptions {
        seed: None,
        ..options.clone()
    };
    let (copies, _) = scratch_database(model, &bare)?;
    let layout = model.database_layout();
    let mut statements: Vec<String> = STRAPI_SYSTEM_DDL
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("--"))
        .map(|l| l.trim_end_matches(';').to_string())
        .collect();
    // Foreign keys of the system tables come last in Strapi's file; keep them last.
    let split = statements
        .iter()
        .position(|l| l.contains(" foreign key "))
        .unwrap_or(statements.len());
    let system_fks = statements.split_off(split);
    // The model's tables are filled bare: their primary keys and indexes are built after
    // the rows, each in one sorted pass, then the foreign keys are checked once each.
    for table in &layout.tables {
        statements.push(create_table_statement(table, Keyed::AfterRows));
    }
    let indexes: Vec<String> = layout
        .tables
        .iter()
        .flat_map(|t| {
            primary_key_statement(t)
                .into_iter()
                .chain(index_statements(t))
        })
        .collect();
    let mut foreign_keys = system_fks;
    for table in &layout.tables {
        foreign_keys.extend(foreign_key_statements(table));
    }
    let seeded = pool.write_on(|exec| {
        exec.ddl("set local statement_timeout = 0")?;
        for stmt in &statements {
            exec.ddl(stmt)?;
        }
        for (table, columns, rows) in &copies {
            let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
            for chunk in rows.chunks(ROWS_PER_INSERT) {
                let values: Vec<StoredValue> = chunk.iter().flatten().cloned().collect();
                exec.insert_rows(table, &columns, &values)?;
            }
        }
        // The seed, through the one load path, into the bare tables.
        let seeded = match &options.seed {
            None => None,
            Some(seed) => {
                let report = import::load(exec, model, seed, &mut BareTables, &|done, total| {
                    options.seed_progress.report(done, total)
                })
                .map_err(|e| StoreError::Other(format!("cannot import {}: {e}", seed.display())))?;
                Some(format!("imported {}: {report}", seed.display()))
            }
        };
        for stmt in indexes.iter().chain(&foreign_keys) {
            exec.ddl(stmt)?;
        }
        // Every table with an id column: its sequence moves past the ids given.
        let numbered = layout
            .tables
            .iter()
            .filter(|t| t.columns.iter().any(|c| c.name == "id"))
            .map(|t| t.name.as_str())
            .chain(
                copies
                    .iter()
                    .filter(|(_, columns, _)| columns.iter().any(|c| c == "id"))
                    .map(|(table, _, _)| table.as_str()),
            );
        for table in numbered {
            exec.ids_written(table)?;
        }
        Ok::<_, StoreError>(seeded)
    })?;
    // Statistics for the planner, as after any bulk load (`pg_restore`'s advice):
    // without them PostgreSQL guesses 200 distinct values per column and reads a
    // populate's `entity_id IN (…)` of 25 ids as an eighth of the table, choosing a
    // scan of `field` instead (100k articles: 38 ms against 0.2 ms per statement).
    // This is strata's own new database; one it did not create is never written to.
    pool.with_client(async |c| {
        c.batch_execute("ANALYZE")
            .await
            .map_err(|e| StoreError::Database(pg_message(&e)))
    })?;
    Ok(Opened::Created { seeded })
}

/// A driver error with the server's own message.
fn pg_message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => e.to_string(),
    }
}

/// `"c1", "c2", …`.
fn column_list(columns: &[&str]) -> String {
    let cols: Vec<String> = columns.iter().map(|c| quote(c)).collect();
    cols.join(", ")
}

/// `select c1, … from T limit 0`: prepared, it tells the types of `columns`.
pub(super) fn column_types_sql(table: &str, columns: &[&str]) -> String {
    format!(
        "select {} from {} limit 0",
        column_list(columns),
        quote(table)
    )
}

/// `copy T (c1, …) from stdin (format binary)`.
pub(super) fn copy_in_sql(table: &str, columns: &[&str]) -> String {
    format!(
        "copy {} ({}) from stdin (format binary)",
        quote(table),
        column_list(columns)
    )
}

/// Moves the id sequence of a table (its quoted name bound as `$1`) past its rows.
pub(super) fn sequence_past_ids_sql(table: &str) -> String {
    format!(
        "select setval(pg_get_serial_sequence($1, 'id'), max(id)) from {} having max(id) is not null",
        quote(table)
    )
}

/// A stored value as a PostgreSQL parameter (encoded in the column's type when bound).
pub(super) fn param(v: &StoredValue) -> Param {
    match v {
        StoredValue::Timestamp(ms) => Param::Int(*ms),
        StoredValue::Null => Param::Null,
        StoredValue::Integer(i) => Param::Int(*i),
        StoredValue::Real(f) => Param::Float(*f),
        StoredValue::Text(t) => Param::Text(t.clone()),
        StoredValue::Blob(b) => Param::Bytes(b.clone()),
        StoredValue::JsonBoolean(b) => Param::Text(b.to_string()),
    }
}
