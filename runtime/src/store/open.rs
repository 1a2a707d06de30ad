//! Opening a database for a content model, the one way `serve`, `import` and embedders
//! do it: pick the database folder the URL names, connect its pool, then create (layout,
//! public grants, optional seed dataset), migrate additively, or only check, depending
//! on what is there. Each folder's provisioning does the work; this file only chooses.
//!
//! Decisions:
//! * A database strata creates gets the caller's public grants
//!   ([`OpenOptions::public_actions`], from `[permissions.public]`), whichever command
//!   created it, so `strata import` followed by `strata serve` serves the public role.
//! * An existing database is migrated additively (new tables, columns and indexes);
//!   destructive changes are refused unless allowed. `sqlite://…?mode=ro` only checks.
//! * On PostgreSQL and MySQL, "new" means the current schema has no tables. An existing
//!   server database gets the tables, columns and indexes the model adds (never a
//!   drop); one that matches the model is only read, so a hot standby works.

use std::sync::Arc;

use super::mysql::MyPool;
use super::options::{OpenOptions, Opened};
use super::postgres::PgPool;
use super::seam::{Pool, PoolOptions};
use super::{DatabaseUrl, Store, StoreError, sqlite};
use crate::schema::Model;

/// Connects a pool of `connections` to an existing database, without checking or
/// changing its layout.
pub fn connect(
    url: &DatabaseUrl,
    connections: usize,
    options: &OpenOptions,
) -> Result<Box<dyn Pool>, StoreError> {
    let sized = PoolOptions {
        pool_size: connections.max(1),
        ..options.pool
    };
    Ok(match url {
        DatabaseUrl::Sqlite { .. } => Box::new(sqlite::provision::connect(url, connections)?),
        DatabaseUrl::Postgres(target) => Box::new(PgPool::connect(target, sized)?),
        DatabaseUrl::Mysql(target) => Box::new(MyPool::connect(target, sized)?),
    })
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
        let size = options.pool_size(url);
        let sized = PoolOptions {
            pool_size: size,
            ..options.pool
        };
        let (pool, opened): (Box<dyn Pool>, Opened) = match url {
            DatabaseUrl::Sqlite { .. } => {
                let opened = sqlite::provision::prepare(url, &model, options)?;
                (Box::new(sqlite::provision::connect(url, size)?), opened)
            }
            DatabaseUrl::Postgres(target) => {
                let pool = PgPool::connect(target, sized)?;
                let opened = super::postgres::ddl::prepare(&pool, &model, options)?;
                (Box::new(pool), opened)
            }
            DatabaseUrl::Mysql(target) => {
                let pool = MyPool::connect(target, sized)?;
                let opened = super::mysql::ddl::prepare(&pool, &model, options)?;
                (Box::new(pool), opened)
            }
        };
        Ok((Store::over(pool, url, model)?, opened))
    }
}

/// Checks an existing database against the model without changing it (SQLite is opened
/// read-only): one line per missing table or column, empty when it matches.
pub fn verify(url: &DatabaseUrl, model: &Model) -> Result<Vec<String>, StoreError> {
    let one = PoolOptions {
        pool_size: 1,
        ..PoolOptions::default()
    };
    match url {
        DatabaseUrl::Sqlite { .. } => sqlite::provision::verify(url, model),
        DatabaseUrl::Postgres(target) => {
            super::postgres::ddl::layout_problems(&PgPool::connect(target, one)?, model)
        }
        DatabaseUrl::Mysql(target) => {
            super::mysql::ddl::layout_problems(&MyPool::connect(target, one)?, model)
        }
    }
}
