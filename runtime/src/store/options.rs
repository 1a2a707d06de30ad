//! How to open a database ([`OpenOptions`]) and what opening it did ([`Opened`]): the
//! words `Store::open` and every database folder's provisioning share.

use std::path::PathBuf;

use super::DatabaseUrl;
use super::seam::PoolOptions;

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
    /// The pool size to use for `url`: [`OpenOptions::connections`], or its default.
    pub fn pool_size(&self, url: &DatabaseUrl) -> usize {
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
