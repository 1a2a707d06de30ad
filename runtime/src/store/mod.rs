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

mod error;
pub mod url;

pub use error::StoreError;
pub use url::DatabaseUrl;
