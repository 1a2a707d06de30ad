//! `strata import`: loading a dataset (the `strata-dataset/1` format of
//! `dataset-format.md`) into a database, written exactly as Strapi 5 lays it out.
//!
//! The file is read twice, streaming, so memory holds a few documents at a time plus a
//! compact index of keys. Each reading parses the JSON on a thread of its own, a few chunks
//! of items ahead of the pass that uses them (`stream.rs`), so that on two cores parsing
//! overlaps with the pass's work:
//!
//! 1. **Index** (`index.rs`): every document's type, key and versions are checked and given
//!    their row ids in advance (per locale in the order locales are declared, a draft row
//!    then its published row, as Strapi numbers them), so that relations can point at
//!    documents further down the file. Files and users get their ids the same way.
//! 2. **Write** (`writer.rs`): every value is validated against the model and written
//!    through the seam's [`Writer`], inside the caller's one transaction: rows, component
//!    rows and `_cmps` links, media links (`files_related_mph`), relation link rows with
//!    their order columns. Every row is numbered before it is written (component rows as
//!    the database would number them) and queued, many rows to a statement (`batch.rs`).
//!
//! The same code loads every database; what differs is in [`LoadHooks`] and in the
//! [`Writer`] it runs through: SQLite (`sqlite/import.rs`) checks foreign keys at commit,
//! or, into a database without content, once at the end with the indexes of empty tables
//! built after the rows (`sqlite/bulk_load.rs`), and executes the inserts on a thread of
//! their own while pass 2 builds the next rows (`sqlite/load_thread.rs`); PostgreSQL and MySQL ([`ServerLoad`], [`import_into`]) check
//! them at each statement, so links wait for the rows they point at, and their id
//! counters are moved past the ids the import gave; a server database being created
//! loads its seed into bare tables ([`BareTables`]), whose keys, indexes and foreign keys
//! come after the rows.
//!
//! An import assumes it is the only writer of the tables it writes while it runs: a
//! concurrent writer that takes an id the import numbered makes one of the two fail (a
//! unique violation), and then the import writes nothing.
//!
//! Every problem is collected with the document (type and key) and the JSON path of the
//! value; when there is any, the transaction is rolled back and the database is unchanged.
//!
//! Decisions where `dataset-format.md` leaves room:
//! * a version given as `published` and `draft` together: the draft is the published
//!   values with the draft's values on top (a draft is an edit of the published version);
//! * `createdAt`/`updatedAt`/`publishedAt` may sit at the document's top level, in `data`
//!   or in a version; the most specific wins, the default is the time of the import;
//! * a password that is already a bcrypt hash (from an export) is kept as is;
//! * files, users and locales may carry a `documentId` and timestamps as documents do;
//! * a relation to a localized type from a non-localized one targets the default locale;
//! * a user without `role` gets the `authenticated` role, as Strapi's registration does;
//! * when the database has no locale at all, the default locale (the dataset's, else the
//!   database's setting, else `en`) is created, as Strapi does at its first boot;
//! * Strapi's `unique` is not checked (it is per locale and status, and Strapi's own
//!   loaders skip it too), nor `regex`.

mod batch;
mod index;
pub mod locales;
mod statements;
mod stream;
pub(crate) mod values;
pub(crate) mod writer;

use std::fmt;
use std::path::{Path, PathBuf};

use super::StoreError;
use super::seam::{Pool, Writer};
use crate::schema::Model;

/// The import's hash maps, looked up several times per row (table names, row ids,
/// document keys): foldhash, seeded per process, in place of SipHash (a tenth of pass 2's
/// time went to SipHash).
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// The format tag of the files this module reads.
pub const DATASET_FORMAT: &str = "strata-dataset/1";

/// What an import wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Documents imported (from `documents`).
    pub documents: u64,
    /// Rows written to content-type tables for them (drafts, published rows, locales).
    pub rows: u64,
    /// Files (`files`).
    pub files: u64,
    /// Users (`users`).
    pub users: u64,
    /// Locales created in `i18n_locale`.
    pub locales: u64,
    /// Component rows written.
    pub components: u64,
    /// Relation link rows written.
    pub links: u64,
    /// Media link rows written (`files_related_mph`).
    pub media_links: u64,
    /// Documents per content type, in model order.
    pub per_type: Vec<(String, u64)>,
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} documents ({} rows), {} files, {} users, {} new locales, {} component rows, {} relation links, {} media links",
            self.documents,
            self.rows,
            self.files,
            self.users,
            self.locales,
            self.components,
            self.links,
            self.media_links
        )
    }
}

/// One problem found in a dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The document, file or user it belongs to: `api::article.article `hello-world``.
    pub item: Option<String>,
    /// The JSON path of the value (`$.documents[3].locales.en.published.title`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.item {
            Some(item) => write!(f, "{item}: {}: {}", self.path, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// Why an import failed. In every case nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid JSON, or its shape is not a dataset.
    #[error("{}:{line}:{column}: not a valid dataset: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's message.
        message: String,
    },
    /// The dataset does not fit the content model; nothing was imported.
    #[error("{}", invalid_message(.problems, *.omitted))]
    Invalid {
        /// The problems, in file order (at most [`MAX_PROBLEMS`]).
        problems: Vec<Problem>,
        /// How many more problems were found but not kept.
        omitted: u64,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn invalid_message(problems: &[Problem], omitted: u64) -> String {
    let total = problems.len() as u64 + omitted;
    let mut s = format!(
        "the dataset has {total} problem{} (nothing was imported):",
        if total == 1 { "" } else { "s" }
    );
    for p in problems {
        s.push_str("\n  ");
        s.push_str(&p.to_string());
    }
    if omitted > 0 {
        s.push_str(&format!("\n  … and {omitted} more"));
    }
    s
}

/// At most this many problems are kept (the rest are counted).
pub const MAX_PROBLEMS: usize = 1000;

/// The problems found so far.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    list: Vec<Problem>,
    omitted: u64,
}

impl Problems {
    pub(crate) fn push(&mut self, item: Option<&str>, path: &str, message: impl Into<String>) {
        if self.list.len() < MAX_PROBLEMS {
            self.list.push(Problem {
                item: item.map(str::to_string),
                path: path.to_string(),
                message: message.into(),
            });
        } else {
            self.omitted += 1;
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty() && self.omitted == 0
    }

    pub(crate) fn into_error(self) -> ImportError {
        ImportError::Invalid {
            problems: self.list,
            omitted: self.omitted,
        }
    }
}

/// What a database does around the rows of an import, beyond writing them through the
/// seam's [`Writer`]: each database folder's import entry implements it (SQLite drops and
/// rebuilds indexes of empty tables and checks foreign keys once at the end), and
/// [`ServerLoad`] serves the server databases.
pub trait LoadHooks {
    /// Whether the database checks each foreign key at each statement (PostgreSQL and
    /// MySQL as Strapi creates them): then a link waits until the rows it points at are
    /// written.
    fn immediate_foreign_keys(&self) -> bool;

    /// Called once the dataset checked out, before its first row.
    fn before_rows(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Called after the rows of every item, before the links that read rows back
    /// (`mappedBy`-side relations).
    fn after_rows(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Called after the last row, before the caller commits.
    fn before_commit(&mut self) -> Result<(), ImportError> {
        Ok(())
    }
}

/// Imports the dataset at `path` through `w`, inside the caller's transaction (which the
/// caller rolls back on any error: then nothing was written). The database must already
/// have the model's tables. `progress(done, total)` is called now and then, in bytes of
/// the two passes over the file.
pub fn load(
    w: &dyn Writer,
    model: &Model,
    path: &Path,
    hooks: &mut dyn LoadHooks,
    progress: &dyn Fn(u64, u64),
) -> Result<ImportReport, ImportError> {
    let size = std::fs::metadata(path)
        .map_err(|e| ImportError::Io {
            path: path.to_path_buf(),
            source: e,
        })?
        .len();
    let total = size.saturating_mul(2).max(1);
    let mut problems = Problems::default();
    let idx = index::build(w, model, path, &mut problems, &|done| {
        progress(done.min(size), total)
    })?;
    if problems.is_empty() {
        hooks.before_rows()?;
    }
    let report = writer::write(w, model, path, idx, hooks, &mut problems, &|done| {
        progress(size + done.min(size), total)
    })?;
    if !problems.is_empty() {
        return Err(problems.into_error());
    }
    hooks.before_commit()?;
    progress(total, total);
    Ok(report)
}

/// The [`LoadHooks`] of the server databases: foreign keys checked at each statement, and
/// each table's id counter moved past the ids the import gave.
pub struct ServerLoad<'w, 'm> {
    w: &'w dyn Writer,
    model: &'m Model,
}

impl LoadHooks for ServerLoad<'_, '_> {
    fn immediate_foreign_keys(&self) -> bool {
        true
    }

    fn before_commit(&mut self) -> Result<(), ImportError> {
        for schema in self.model.schemas() {
            self.w.ids_written(&schema.layout.table)?;
        }
        Ok(())
    }
}

/// The [`LoadHooks`] of a load into tables that have no foreign keys or indexes yet (a
/// database being created, which adds them after the rows): nothing to wait for.
pub struct BareTables;

impl LoadHooks for BareTables {
    fn immediate_foreign_keys(&self) -> bool {
        false
    }
}

/// Imports the dataset at `path` into a server database (PostgreSQL, MySQL) in one
/// transaction of `pool` ([`load`] with [`ServerLoad`]): all of it, or nothing.
pub fn import_into(
    pool: &dyn Pool,
    model: &Model,
    path: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<ImportReport, ImportError> {
    pool.write(|w| {
        let mut hooks = ServerLoad { w, model };
        load(w, model, path, &mut hooks, progress)
    })
}
