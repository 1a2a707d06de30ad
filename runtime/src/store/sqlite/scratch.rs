//! The rows of a database strata would create, made by the code that creates an SQLite
//! database (layout, locales, roles, public grants, and a seed when one is given) in a
//! scratch in-memory SQLite database and read back table by table. The server databases
//! copy them (without a seed: they load it through `store::import` themselves), so a
//! database created on PostgreSQL or MySQL starts with exactly the rows the same command
//! gives an SQLite one.

use rusqlite::types::Value as SqlValue;

use super::{migrate, open_connection, provision, render};
use crate::schema::Model;
use crate::store::options::OpenOptions;
use crate::store::provision::TableRows;
use crate::store::seam::StoredValue;
use crate::store::{DatabaseUrl, StoreError};

/// The rows of a database strata would create: the one import path (layout, public
/// grants, seed) run into a scratch in-memory SQLite database, read back table by table,
/// with the import's report.
pub fn scratch_database(
    model: &Model,
    options: &OpenOptions,
) -> Result<(Vec<TableRows>, Option<String>), StoreError> {
    let memory = DatabaseUrl::sqlite(None, false);
    let mut scratch = open_connection(&memory, true)?;
    let seeded = provision::create(&mut scratch, model, options)?;
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
        let mut stmt = conn.prepare(&format!("select * from {}", render::quote(&table)))?;
        let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let n = columns.len();
        let mut rows = Vec::new();
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let mut row = Vec::with_capacity(n);
            for i in 0..n {
                row.push(stored(r.get::<_, SqlValue>(i)?));
            }
            rows.push(row);
        }
        if !rows.is_empty() {
            out.push((table, columns, rows));
        }
    }
    Ok(out)
}

fn stored(v: SqlValue) -> StoredValue {
    match v {
        SqlValue::Null => StoredValue::Null,
        SqlValue::Integer(i) => StoredValue::Integer(i),
        SqlValue::Real(f) => StoredValue::Real(f),
        SqlValue::Text(t) => StoredValue::Text(t),
        SqlValue::Blob(b) => StoredValue::Blob(b),
    }
}
