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
    /// Told how far the seed's import is (`strata import`'s progress bar).
    pub seed_progress: SeedProgress,
    /// Apply schema changes that lose data.
    pub allow_destructive: bool,
}

/// A callback told `(done, total)` now and then while a seed is imported, in bytes of the
/// import's two passes over the file; by default nobody is told.
#[derive(Clone, Default)]
pub struct SeedProgress(Option<std::sync::Arc<dyn Fn(u64, u64) + Send + Sync>>);

impl SeedProgress {
    /// A progress that calls `f`.
    pub fn new(f: impl Fn(u64, u64) + Send + Sync + 'static) -> Self {
        SeedProgress(Some(std::sync::Arc::new(f)))
    }

    /// Tells the callback, if there is one.
    pub fn report(&self, done: u64, total: u64) {
        if let Some(f) = &self.0 {
            f(done, total);
        }
    }
}

impl std::fmt::Debug for SeedProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "SeedProgress(..)"
        } else {
            "SeedProgress(none)"
        })
    }
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
