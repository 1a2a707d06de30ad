//! The storage engine: Strapi v5's exact database layout, on embedded SQLite, PostgreSQL
//! or MySQL/MariaDB, behind one seam.
//!
//! * `seam.rs`: the seam every database implements: [`seam::Pool`] (a pool that lends one
//!   connection per read or transaction), `Executor`/`Writer` (run sea-query statements
//!   on one connection), `RowRef`/`Cell` (database-neutral column values).
//! * `sqlite/`, `postgres/`, `mysql/`: one folder per database. Each owns everything
//!   about its driver (pool, executor, transactions, error mapping, TLS where it applies,
//!   its DDL and provisioning), and no other module names the driver.
//! * `url.rs`: database URLs; `options.rs`: [`OpenOptions`] and [`Opened`];
//!   `open.rs`: [`Store::open`], which picks the folder the URL names;
//!   `provision.rs`: what the server databases share when they create or migrate.
//! * `sql/`: the planner, `Query` → sea-query statements for a [`sql::Dialect`]: the one
//!   home of the read path's SQL.
//! * `rows.rs`: the row operations of the content API's writes (a document's versions,
//!   rows inserted, copied and deleted with their components, links and media);
//! * `read.rs`: runs a request through an executor; `decode.rs`: cells → Strapi's JSON;
//!   `entry.rs`: entries as JSON text; `canonical.rs`: stored JSON copied as it is.
//! * `settings.rs`: i18n settings and role grants read from Strapi's tables.
//! * `credentials.rs`: API tokens, users and role grants behind authentication, and
//!   `strata token`'s writes.
//! * `migration.rs`: the one schema planner (compare, plan, refuse what loses data, apply
//!   in one transaction, record); each database folder is a `migration::Provisioner`.
//! * `document_id.rs`: Strapi's documentIds.
//! * `error.rs`: [`StoreError`], which says what went wrong, never which driver.
//!
//! SQL text is produced only by sea-query (DML) or from identifiers the model computed
//! (DDL); user input is always bound as a parameter.

pub mod cascade;
pub mod credentials;
pub mod decode;
pub mod document_id;
pub mod entry;
pub mod import;
pub mod limit;
pub mod migration;
pub mod mysql;
pub mod open;
pub mod options;
pub mod postgres;
pub(crate) mod provision;
pub mod read;
pub mod rows;
pub mod seam;
pub mod settings;
pub mod sql;
pub mod sqlite;
pub mod url;

mod canonical;
mod error;

pub use entry::Entry;
pub use error::StoreError;
pub use options::{OpenOptions, Opened, SeedProgress};
pub use read::{Page, Reader, RowPlans};
/// The statement builder the planner writes with (for benchmarks and inspection).
pub use sea_query;
pub use seam::Pool;
pub use settings::Settings;
pub use url::{DatabaseUrl, SqliteSync};

use std::sync::Arc;

use cascade::Cascades;

use crate::query::{PageMode, Pagination, Query};
use crate::schema::Model;

/// An open database with the content model it serves: a pool of connections and the
/// i18n settings read at open time.
///
/// Every method blocks the calling thread on the database; from async code, call it
/// inside `tokio::task::spawn_blocking`.
pub struct Store {
    model: Arc<Model>,
    pool: Box<dyn Pool>,
    settings: Settings,
    url: DatabaseUrl,
    /// How each schema's rows become JSON, worked out once.
    row_plans: RowPlans,
    /// The link rows the database deletes by itself, read once.
    cascades: Cascades,
}

impl Store {
    /// Opens an existing database for reading (its layout is not changed), with `readers`
    /// SQLite connections or a PostgreSQL pool of that size (an in-memory SQLite database
    /// always has one). [`Store::open`] also creates and migrates.
    pub fn open_existing(
        url: &DatabaseUrl,
        model: Arc<Model>,
        readers: usize,
    ) -> Result<Store, StoreError> {
        let pool = open::connect(url, readers, &OpenOptions::default())?;
        Store::over(pool, url, model)
    }

    /// A store over an open backend: reads the settings.
    fn over(
        pool: Box<dyn Pool>,
        url: &DatabaseUrl,
        model: Arc<Model>,
    ) -> Result<Store, StoreError> {
        let settings = pool.with(settings::read_settings)?;
        let cascades = pool.with(|e| Cascades::read(e, &model))?;
        Ok(Store {
            row_plans: RowPlans::new(&model),
            cascades,
            model,
            pool,
            settings,
            url: url.clone(),
        })
    }

    /// The content model.
    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    /// The i18n settings (default locale, locales).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The link rows the database deletes by itself when a row is deleted.
    pub fn cascades(&self) -> &Cascades {
        &self.cascades
    }

    /// The database URL.
    pub fn url(&self) -> &DatabaseUrl {
        &self.url
    }

    /// The connection pool.
    pub fn pool(&self) -> &dyn Pool {
        self.pool.as_ref()
    }

    /// Runs `f` so that its reads on this thread are interrupted once `budget` has passed
    /// (they fail with an error for which [`StoreError::is_interrupted`] holds), when the
    /// database offers that ([`Pool::within_budget`]: SQLite does); `None`, without
    /// running `f`, when it does not. A write within it never waits, and is either
    /// committed or leaves nothing (see [`Pool::within_budget`]).
    pub fn within_budget<T>(
        &self,
        budget: std::time::Duration,
        f: impl FnOnce() -> T,
    ) -> Option<T> {
        let mut f = Some(f);
        let mut out = None;
        self.pool.within_budget(budget, &mut || {
            if let Some(f) = f.take() {
                out = Some(f());
            }
        });
        out
    }

    /// Runs `f` so that its statements on this thread stop once `limit` has passed (they
    /// fail [`StoreError::Interrupted`], and a write rolls back): for a request whose
    /// answer is no longer awaited, so that its statements give their connection back.
    /// Every backend honours it ([`limit`]).
    pub fn within_limit<T>(&self, limit: std::time::Duration, f: impl FnOnce() -> T) -> T {
        limit::within(limit, f)
    }

    /// Runs `f` with a reader on a pooled connection. A read that fails because its
    /// connection broke is retried on a fresh one (reads are idempotent).
    pub fn read<T>(
        &self,
        f: impl Fn(&Reader<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.read_with(|exec| f(&self.reader(exec)))
    }

    /// A reader of this store's model on `exec`: a pooled connection's, or a write's
    /// inside its transaction (a write reads its answer there, [`crate::write`]).
    pub fn reader<'a>(&'a self, exec: &'a dyn seam::Executor) -> Reader<'a> {
        Reader::new(
            exec,
            &self.model,
            &self.settings.default_locale,
            &self.row_plans,
        )
    }

    /// Runs `f`, which only reads, with an executor on a pooled connection; a read whose
    /// connection broke is run again on a fresh one: content reads, credentials and
    /// grants alike.
    pub fn read_with<T>(
        &self,
        f: impl Fn(&dyn seam::Executor) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        retried(|| self.pool.with(&f))
    }

    /// The pool's data generation ([`seam::Pool::data_generation`]), read again on a fresh
    /// connection when its connection broke, as a read is.
    pub fn data_generation(&self) -> Result<Option<u64>, StoreError> {
        retried(|| self.pool.data_generation())
    }

    /// The actions granted to a users-permissions role type (`public`).
    pub fn role_actions(&self, role_type: &str) -> Result<Vec<String>, StoreError> {
        self.read_with(|exec| settings::role_actions(exec, role_type))
    }

    /// `GET /api/<plural>`: the page of entries and the total.
    pub fn find_page(&self, query: &Query) -> Result<Page, StoreError> {
        self.read(|r| r.find(query))
    }

    /// `GET /api/<plural>/<documentId>` (with `document_id`) and single types: the entry,
    /// or `None` when nothing matches (a 404).
    pub fn find_entry(
        &self,
        query: &Query,
        document_id: Option<&str>,
    ) -> Result<Option<Entry>, StoreError> {
        let mut q = query.clone();
        if let Some(id) = document_id {
            q.restrict_to_document(id);
        }
        self.read(|r| r.find_first(&q))
    }

    /// `GET /api/users`: every matching user. users-permissions ignores `pagination` (and
    /// has no default limit); top-level `start`/`limit` still apply.
    pub fn find_users(
        &self,
        query: &Query,
        start: u64,
        limit: Option<u64>,
    ) -> Result<Vec<Entry>, StoreError> {
        let mut q = query.clone();
        q.pagination = Pagination {
            mode: PageMode::Offset,
            start,
            limit: limit.unwrap_or(i64::MAX as u64),
            with_count: false,
        };
        Ok(self.read(|r| r.find(&q))?.entries)
    }
}

/// Runs `read` again while it fails because its connection broke: other pooled
/// connections may have broken at the same moment (a server restart), and each failure
/// drops its connection, so a few tries reach a fresh one. Only for reads (idempotent).
fn retried<T>(read: impl Fn() -> Result<T, StoreError>) -> Result<T, StoreError> {
    let mut tries = 0;
    loop {
        match read() {
            Err(StoreError::ConnectionLost(_)) if tries < 3 => tries += 1,
            other => return other,
        }
    }
}
