//! Opening a database for a content model, the one way `serve`, `import` and embedders
//! do it: connect, then create (layout, public grants, optional seed dataset), migrate
//! additively, or only check, depending on what is there.
//!
//! Decisions:
//! * A database strata creates gets the caller's public grants
//!   ([`OpenOptions::public_actions`], from `[permissions.public]`), whichever command
//!   created it, so `strata import` followed by `strata serve` serves the public role.
//! * An existing database is migrated additively (new tables, columns and indexes);
//!   destructive changes are refused unless allowed. `sqlite://…?mode=ro` only checks.
//! * On PostgreSQL, "new" means the current schema has no tables. An existing
//!   PostgreSQL database gets the tables, columns and indexes the model adds (never a
//!   drop); one that matches the model is only read, so a hot standby works.

use std::path::PathBuf;
use std::sync::Arc;

use super::backend::Backend;
use super::backend::PoolOptions;
use super::mysql::MyPool;
use super::postgres::PgPool;
use super::{DatabaseUrl, Store, StoreError, ddl, import, migrate, sqlite};
use crate::schema::Model;

/// How to open a database.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// Connections in the pool (SQLite readers, PostgreSQL or MySQL pool size); 0 means
    /// the default: on SQLite one per core, at least 2 (its reads use the CPU); on a
    /// server four per core, at least 4 (a request mostly waits on the network: on 2
    /// cores, 8 PostgreSQL connections served the wide populate at 1,130 req/s against
    /// 756 with 2, and 16 at 1,036).
    pub connections: usize,
    /// Size and timeouts of a server database's pool (PostgreSQL, MySQL/MariaDB).
    pub pool: PoolOptions,
    /// The actions granted to the public role when strata creates the database.
    pub public_actions: Vec<String>,
    /// A dataset to import when strata creates the database.
    pub seed: Option<PathBuf>,
    /// Apply schema changes that lose data.
    pub allow_destructive: bool,
}

/// What [`Store::open`] found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// A new database was created (and seeded when a dataset was given).
    Created {
        /// The import report of the seed dataset, if any.
        seeded: Option<String>,
    },
    /// An existing database, with the additive changes applied to it.
    Existing {
        /// One line per change applied.
        migrated: Vec<String>,
    },
}

impl OpenOptions {
    fn pool_size(&self, url: &DatabaseUrl) -> usize {
        if self.connections > 0 {
            return self.connections;
        }
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        match url {
            DatabaseUrl::Sqlite { .. } => cores.max(2),
            DatabaseUrl::Postgres(_) | DatabaseUrl::Mysql(_) => (4 * cores).max(4),
        }
    }
}

/// Connects a pool of `connections` to an existing database.
pub fn connect(
    url: &DatabaseUrl,
    connections: usize,
    options: &OpenOptions,
) -> Result<Backend, StoreError> {
    match url {
        DatabaseUrl::Sqlite { path, .. } => {
            let n = if path.is_none() {
                1
            } else {
                connections.max(1)
            };
            let mut conns = Vec::with_capacity(n);
            for _ in 0..n {
                conns.push(sqlite::open_connection(url, false)?);
            }
            Ok(Backend::Sqlite(sqlite::Pool::new(conns)))
        }
        DatabaseUrl::Postgres(target) => {
            let mut pg = options.pool;
            pg.pool_size = connections.max(1);
            Ok(Backend::Postgres(Box::new(PgPool::connect(target, pg)?)))
        }
        DatabaseUrl::Mysql(target) => {
            let mut my = options.pool;
            my.pool_size = connections.max(1);
            Ok(Backend::Mysql(Box::new(MyPool::connect(target, my)?)))
        }
    }
}

impl Store {
    /// Opens the database at `url` for `model`: creates it when it is new (layout, public
    /// grants, seed), migrates it additively when it exists, and returns the store with
    /// what was done.
    pub fn open(
        url: &DatabaseUrl,
        model: Arc<Model>,
        options: &OpenOptions,
    ) -> Result<(Store, Opened), StoreError> {
        let opened = match url {
            DatabaseUrl::Sqlite { path, read_only } => {
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
                    let conn = sqlite::open_connection(url, false)?;
                    let problems = migrate::verify(&conn, &model);
                    if !problems.is_empty() {
                        return Err(StoreError::Layout(problems));
                    }
                    Opened::Existing {
                        migrated: Vec::new(),
                    }
                } else if path.is_none() {
                    return Err(StoreError::Other(
                        "sqlite::memory: cannot be shared: each connection would see its own empty database; use a file".into(),
                    ));
                } else {
                    let mut conn = sqlite::open_connection(url, true)?;
                    if is_new {
                        create_sqlite(&mut conn, &model, options)?
                    } else {
                        let plan = migrate::plan(&conn, &model)?;
                        let migrated = plan.additive.iter().map(ToString::to_string).collect();
                        migrate::apply(&conn, &plan, options.allow_destructive)?;
                        Opened::Existing { migrated }
                    }
                }
            }
            DatabaseUrl::Postgres(_) => {
                let backend = connect(url, options.pool_size(url), options)?;
                let Backend::Postgres(pool) = &backend else {
                    return Err(StoreError::Other("not a PostgreSQL pool".into()));
                };
                let opened = super::postgres_ddl::prepare(pool, &model, options)?;
                return Ok((Store::over(backend, url, model)?, opened));
            }
            DatabaseUrl::Mysql(_) => {
                let backend = connect(url, options.pool_size(url), options)?;
                let Backend::Mysql(pool) = &backend else {
                    return Err(StoreError::Other("not a MySQL pool".into()));
                };
                let opened = super::mysql_ddl::prepare(pool, &model, options)?;
                return Ok((Store::over(backend, url, model)?, opened));
            }
        };
        let backend = connect(url, options.pool_size(url), options)?;
        Ok((Store::over(backend, url, model)?, opened))
    }
}

/// Checks an existing database against the model without changing it (SQLite is opened
/// read-only): one line per missing table or column, empty when it matches.
pub fn verify(url: &DatabaseUrl, model: &Model) -> Result<Vec<String>, StoreError> {
    match url {
        DatabaseUrl::Sqlite { path, .. } => {
            if path.as_ref().is_none_or(|p| !p.exists()) {
                return Err(StoreError::Other(format!("{url}: no such database file")));
            }
            let read_only = DatabaseUrl::Sqlite {
                path: path.clone(),
                read_only: true,
            };
            let conn = sqlite::open_connection(&read_only, false)?;
            Ok(migrate::verify(&conn, model))
        }
        DatabaseUrl::Postgres(target) => {
            let options = PoolOptions {
                pool_size: 1,
                ..PoolOptions::default()
            };
            let pool = PgPool::connect(target, options)?;
            super::postgres_ddl::layout_problems(&pool, model)
        }
        DatabaseUrl::Mysql(target) => {
            let options = PoolOptions {
                pool_size: 1,
                ..PoolOptions::default()
            };
            let pool = MyPool::connect(target, options)?;
            super::mysql_ddl::layout_problems(&pool, model)
        }
    }
}

fn create_sqlite(
    conn: &mut rusqlite::Connection,
    model: &Model,
    options: &OpenOptions,
) -> Result<Opened, StoreError> {
    ddl::create_database(conn, model)?;
    ddl::seed_public_permissions(conn, model, &options.public_actions)?;
    let seeded = match &options.seed {
        Some(seed) => {
            let report = import::import_dataset(conn, model, seed, &|_, _| {})
                .map_err(|e| StoreError::Other(format!("cannot import {}: {e}", seed.display())))?;
            Some(format!("imported {}: {report}", seed.display()))
        }
        None => None,
    };
    Ok(Opened::Created { seeded })
}
