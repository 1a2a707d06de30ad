//! Opening an SQLite database for a model: connecting the pool, creating a new file
//! (Strapi's layout, the public grants, the seed dataset), migrating an existing one, or
//! only checking it (`mode=ro`).

use rusqlite::Connection;

use super::{SqlitePool, ddl, import, migrate, open_connection};
use crate::schema::Model;
use crate::store::options::{OpenOptions, Opened};
use crate::store::{DatabaseUrl, StoreError};

/// A pool of `connections` to the database at `url` (an in-memory database always has
/// one: each connection would see its own), whose WAL checkpoints run on a thread of
/// their own (`checkpoint.rs`) when it can write.
pub fn connect(url: &DatabaseUrl, connections: usize) -> Result<SqlitePool, StoreError> {
    let DatabaseUrl::Sqlite {
        path, read_only, ..
    } = url
    else {
        return Err(StoreError::Other(format!(
            "{url} is not an SQLite database"
        )));
    };
    let n = if path.is_none() {
        1
    } else {
        connections.max(1)
    };
    let conns = (0..n)
        .map(|_| open_connection(url, false))
        .collect::<Result<Vec<_>, _>>()?;
    if path.is_none() || *read_only {
        // Nothing to checkpoint: no log in memory, no writes on a read-only connection.
        return Ok(SqlitePool::new(conns));
    }
    SqlitePool::checkpointed(conns, open_connection(url, false)?)
}

/// Creates the database at `url` when it is new, migrates it additively when it exists,
/// or (with `mode=ro`) only checks it against the model.
pub fn prepare(
    url: &DatabaseUrl,
    model: &Model,
    options: &OpenOptions,
) -> Result<Opened, StoreError> {
    let DatabaseUrl::Sqlite {
        path, read_only, ..
    } = url
    else {
        return Err(StoreError::Other(format!(
            "{url} is not an SQLite database"
        )));
    };
    let is_new = match path {
        Some(p) => std::fs::metadata(p).map(|m| m.len() == 0).unwrap_or(true),
        None => true,
    };
    if *read_only {
        if is_new {
            return Err(StoreError::ReadOnly(
                "the database does not exist, and mode=ro cannot create it".into(),
            ));
        }
        let conn = open_connection(url, false)?;
        let problems = migrate::verify(&conn, model);
        if !problems.is_empty() {
            return Err(StoreError::Layout(problems));
        }
        return Ok(Opened::Existing {
            migrated: Vec::new(),
        });
    }
    if path.is_none() {
        return Err(StoreError::Other(
            "sqlite::memory: cannot be shared: each connection would see its own empty database; use a file".into(),
        ));
    }
    let mut conn = open_connection(url, true)?;
    if is_new {
        let seeded = create(&mut conn, model, options)?;
        migrate::add_lookup_indexes(&conn, model);
        return Ok(Opened::Created { seeded });
    }
    let migrated = migrate::bring_up_to_date(&conn, model, options.allow_destructive)?;
    Ok(Opened::Existing { migrated })
}

/// Creates a new database on `conn`: Strapi's layout, the public grants of `options` and,
/// when given, its seed dataset. Returns the import's report.
pub fn create(
    conn: &mut Connection,
    model: &Model,
    options: &OpenOptions,
) -> Result<Option<String>, StoreError> {
    ddl::create_database(conn, model)?;
    ddl::seed_public_permissions(conn, model, &options.public_actions)?;
    let Some(seed) = &options.seed else {
        return Ok(None);
    };
    let report = import::import_dataset(conn, model, seed, &|done, total| {
        options.seed_progress.report(done, total)
    })
    .map_err(|e| StoreError::Other(format!("cannot import {}: {e}", seed.display())))?;
    Ok(Some(format!("imported {}: {report}", seed.display())))
}

/// Checks the existing database at `url` against the model without changing it (the
/// file is opened read-only): one line per missing table or column.
pub fn verify(url: &DatabaseUrl, model: &Model) -> Result<Vec<String>, StoreError> {
    let DatabaseUrl::Sqlite { path, .. } = url else {
        return Err(StoreError::Other(format!(
            "{url} is not an SQLite database"
        )));
    };
    if path.as_ref().is_none_or(|p| !p.exists()) {
        return Err(StoreError::Other(format!("{url}: no such database file")));
    }
    let read_only = DatabaseUrl::sqlite(path.clone(), true);
    let conn = open_connection(&read_only, false)?;
    Ok(migrate::verify(&conn, model))
}
