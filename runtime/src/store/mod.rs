//! The storage engine: Strapi v5's exact database layout, on embedded SQLite or on
//! PostgreSQL, behind one backend seam.
//!
//! * `url.rs`: database URLs (`sqlite://path`, `?mode=ro`, `sqlite::memory:`,
//!   `postgres://…`).
//! * `backend.rs`: the seam: [`Backend`] (a pool), `Executor` (runs a sea-query statement
//!   on one connection), `RowRef`/`Cell` (backend-neutral column values).
//! * `sqlite.rs`, `postgres.rs`, `mysql.rs`: the three backends; `tls.rs`: TLS to
//!   PostgreSQL (`sslmode`).
//! * `sql.rs`: the planner, `Query` → sea-query statements for a [`sql::Dialect`].
//! * `read.rs`: runs a request through an executor; `decode.rs`: cells → Strapi's JSON.
//! * `settings.rs`: i18n settings and role grants read from Strapi's tables.
//! * `credentials.rs`: API tokens, users and role grants behind authentication, and
//!   `strata token`'s writes (the one place the store writes outside import/DDL).
//! * `error.rs`: [`StoreError`].
//! * `ddl.rs`: the DDL of a fresh database (Strapi's own statements, from the model's layout).
//! * `migrate.rs`: checking an existing database against the model; additive migrations.
//! * `import.rs`: `strata import` (the dataset format of `dataset-format.md`).
//!
//! SQL text is produced only by sea-query (DML) or from identifiers the model computed
//! (DDL); user input is always bound as a parameter.

pub mod backend;
mod canonical;
pub mod credentials;
pub mod ddl;
pub mod decode;
pub mod entry;
mod error;
pub mod import;
pub mod migrate;
pub mod mysql;
pub mod mysql_ddl;
pub mod open;
pub mod postgres;
pub mod postgres_ddl;
pub mod read;
mod server_schema;
pub mod settings;
pub mod sql;
pub mod sqlite;
pub mod tls;
pub mod url;

pub use backend::Backend;
pub use ddl::create_database;
pub use entry::Entry;
pub use error::StoreError;
pub use import::{ImportError, ImportReport, import_dataset};
pub use migrate::{MigrationPlan, plan, verify};
pub use open::OpenOptions;
pub use read::{Page, Reader, RowPlans};
/// The statement builder the planner writes with (for benchmarks and inspection).
pub use sea_query;
pub use settings::Settings;
pub use url::DatabaseUrl;

use std::sync::Arc;

use crate::query::{PageMode, Pagination, Query};
use crate::schema::Model;

/// An open database with the content model it serves: a pool of connections and the
/// i18n settings read at open time.
///
/// Every method blocks the calling thread on the database; from async code, call it
/// inside `tokio::task::spawn_blocking`.
pub struct Store {
    model: Arc<Model>,
    backend: Backend,
    settings: Settings,
    url: DatabaseUrl,
    /// How each schema's rows become JSON, worked out once.
    row_plans: RowPlans,
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
        let backend = open::connect(url, readers, &OpenOptions::default())?;
        Store::over(backend, url, model)
    }

    /// A store over an open backend: reads the settings.
    fn over(backend: Backend, url: &DatabaseUrl, model: Arc<Model>) -> Result<Store, StoreError> {
        let settings = backend.with(settings::read_settings)?;
        Ok(Store {
            row_plans: RowPlans::new(&model),
            model,
            backend,
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

    /// The database URL.
    pub fn url(&self) -> &DatabaseUrl {
        &self.url
    }

    /// The connection pool.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// Runs `f` with a reader on a pooled connection. A read that fails because its
    /// connection broke is retried once on a fresh one (reads are idempotent).
    pub fn read<T>(
        &self,
        f: impl Fn(&Reader<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let run = || {
            self.backend.with(|exec| {
                f(&Reader::new(
                    exec,
                    &self.model,
                    &self.settings.default_locale,
                    &self.row_plans,
                ))
            })
        };
        // Other pooled connections may have broken at the same moment (a server
        // restart); each failure drops its connection, so a few tries reach a fresh one.
        let mut tries = 0;
        loop {
            match run() {
                Err(StoreError::ConnectionLost(_)) if tries < 3 => tries += 1,
                other => return other,
            }
        }
    }

    /// The actions granted to a users-permissions role type (`public`).
    pub fn role_actions(&self, role_type: &str) -> Result<Vec<String>, StoreError> {
        self.backend
            .with(|exec| settings::role_actions(exec, role_type))
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
