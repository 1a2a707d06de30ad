//! The storage engine: Strapi v5's exact database layout on embedded SQLite.
//!
//! * `url.rs`: database URLs (`sqlite://path`, `?mode=ro`, `sqlite::memory:`).
//! * `error.rs`: [`StoreError`].
//! * `ddl.rs`: the DDL of a fresh database (Strapi's own statements, from the model's layout).
//! * `migrate.rs`: checking an existing database against the model; additive migrations.
//! * `import.rs`: `strata import` (the dataset format of `dataset-format.md`).
//!
//! SQL text is produced only by sea-query (DML) or from identifiers the model computed
//! (DDL); user input is always bound as a parameter.

pub mod ddl;
pub mod decode;
mod error;
pub mod import;
pub mod migrate;
pub mod read;
pub mod settings;
pub mod sql;
pub mod sqlite;
pub mod url;

pub use ddl::create_database;
pub use error::StoreError;
pub use import::{ImportError, ImportReport, import_dataset};
pub use migrate::{MigrationPlan, plan, verify};
pub use read::{Page, Reader};
pub use settings::Settings;
pub use url::DatabaseUrl;

use std::sync::Arc;

use serde_json::{Map, Value as Json};

use crate::query::{PageMode, Pagination, Query};
use crate::schema::Model;

/// An open database with the content model it serves: a pool of read connections and
/// the i18n settings read at open time.
pub struct Store {
    model: Arc<Model>,
    readers: sqlite::Pool,
    settings: Settings,
    url: DatabaseUrl,
}

impl Store {
    /// Opens an existing database for reading (its layout is not changed). The number of
    /// read connections is `readers` (an in-memory database always has one).
    pub fn open_existing(
        url: &DatabaseUrl,
        model: Arc<Model>,
        readers: usize,
    ) -> Result<Store, StoreError> {
        let n = if matches!(url, DatabaseUrl::Sqlite { path: None, .. }) {
            1
        } else {
            readers.max(1)
        };
        let mut conns = Vec::with_capacity(n);
        for _ in 0..n {
            conns.push(sqlite::open_connection(url, false)?);
        }
        let settings = match conns.first() {
            Some(c) => settings::read_settings(c)?,
            None => return Err(StoreError::Other("no connection".into())),
        };
        Ok(Store {
            model,
            readers: sqlite::Pool::new(conns),
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

    /// Runs `f` with a reader on a pooled connection.
    pub fn read<T>(
        &self,
        f: impl FnOnce(&Reader<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.readers.with(|conn| {
            f(&Reader::new(
                conn,
                &self.model,
                &self.settings.default_locale,
            ))
        })?
    }

    /// The actions granted to a users-permissions role type (`public`).
    pub fn role_actions(&self, role_type: &str) -> Result<Vec<String>, StoreError> {
        self.readers
            .with(|conn| settings::role_actions(conn, role_type))?
    }

    /// `GET /api/<plural>`: `{data: [...], meta: {pagination}}`.
    pub fn list_body(&self, query: &Query) -> Result<Json, StoreError> {
        let page = self.read(|r| r.find(query))?;
        Ok(page.list_body(&query.pagination))
    }

    /// `GET /api/<plural>/<documentId>` and single types: `{data: {...}, meta: {}}`, or
    /// `None` when nothing matches (a 404).
    pub fn one_body(
        &self,
        query: &Query,
        document_id: Option<&str>,
    ) -> Result<Option<Json>, StoreError> {
        let mut q = query.clone();
        if let Some(id) = document_id {
            q.restrict_to_document(id);
        }
        let entry = self.read(|r| r.find_first(&q))?;
        Ok(entry.map(|e| {
            let mut body = Map::new();
            body.insert("data".into(), e);
            body.insert("meta".into(), Json::Object(Map::new()));
            Json::Object(body)
        }))
    }

    /// `GET /api/users`: a bare array of every matching user. users-permissions ignores
    /// `pagination` (and has no default limit); top-level `start`/`limit` still apply.
    pub fn users_body(
        &self,
        query: &Query,
        start: u64,
        limit: Option<u64>,
    ) -> Result<Json, StoreError> {
        let mut q = query.clone();
        q.pagination = Pagination {
            mode: PageMode::Offset,
            start,
            limit: limit.unwrap_or(i64::MAX as u64),
            with_count: false,
        };
        let page = self.read(|r| r.find(&q))?;
        Ok(Json::Array(page.entries))
    }
}
