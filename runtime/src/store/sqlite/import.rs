//! `strata import`: loading a dataset (the `strata-dataset/1` format of
//! `dataset-format.md`) into a database, written exactly as Strapi 5 lays it out.
//!
//! The file is read twice, streaming, so memory holds one document at a time plus a compact
//! index of keys:
//!
//! 1. **Index** (`index.rs`): every document's type, key and versions are checked and given
//!    their row ids in advance (per locale in the order locales are declared, a draft row
//!    then its published row, as Strapi numbers them), so that relations can point at
//!    documents further down the file. Files and users get their ids the same way.
//! 2. **Write** (`writer.rs`): every value is validated against the model and written in
//!    one transaction with prepared statements: rows, component rows and `_cmps` links,
//!    media links (`files_related_mph`), relation link rows with their order columns.
//!    Foreign keys are checked at commit. Into a database without content the load is a
//!    bulk load (`bulk.rs`): foreign keys checked once at the end, indexes built after
//!    the rows.
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
mod bulk;
mod index;
mod stream;
mod values;
mod writer;

use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::StoreError;
use crate::schema::Model;

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

impl From<rusqlite::Error> for ImportError {
    fn from(e: rusqlite::Error) -> Self {
        ImportError::Store(StoreError::from(e))
    }
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

/// Whether `table` holds any row (one index step).
pub(crate) fn has_rows(conn: &Connection, table: &str) -> Result<bool, rusqlite::Error> {
    conn.query_row(
        &format!(
            "select exists(select 1 from {})",
            super::render::quote(table)
        ),
        [],
        |r| r.get(0),
    )
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

/// Imports the dataset at `path` into `conn` (which must already have the model's tables:
/// see [`super::ddl::create_database`] and [`super::migrate`]) in one transaction.
/// `progress(done, total)` is called now and then, in bytes of the two passes over the file.
pub fn import_dataset(
    conn: &mut Connection,
    model: &Model,
    path: &Path,
    progress: &dyn Fn(u64, u64),
) -> Result<ImportReport, ImportError> {
    let size = std::fs::metadata(path)
        .map_err(|e| ImportError::Io {
            path: path.to_path_buf(),
            source: e,
        })?
        .len();
    let missing = super::migrate::verify(conn, model);
    if !missing.is_empty() {
        return Err(StoreError::Layout(missing).into());
    }
    // Into a database without content: foreign keys checked once at the end, indexes
    // built after the rows (see `bulk.rs`). `foreign_keys` cannot change inside a
    // transaction, so it is set here.
    let bulk = bulk::is_fresh(conn, model)?;
    let cache_size: i64 = conn.query_row("pragma cache_size", [], |r| r.get(0))?;
    // Every table, link table and check has its own statement: keep them all prepared.
    conn.set_prepared_statement_cache_capacity(512);
    // From here on the connection's settings are the import's; they are put back whatever
    // happens (an embedder keeps using the connection).
    let result = (|| {
        conn.pragma_update(None, "foreign_keys", if bulk { "OFF" } else { "ON" })?;
        // A large page cache for the import's duration: indexes grow (or sort) in it.
        conn.pragma_update(None, "cache_size", -256_000)?;
        let journal = if bulk {
            bulk::RollbackJournal::enter(conn)
        } else {
            None
        };
        let result = import_in_transaction(conn, model, path, progress, size, bulk);
        if let Some(journal) = journal {
            journal.leave(conn);
        }
        result
    })();
    let foreign_keys = conn.pragma_update(None, "foreign_keys", "ON");
    let cache = conn.pragma_update(None, "cache_size", cache_size);
    let report = result?;
    foreign_keys?;
    cache?;
    Ok(report)
}

fn import_in_transaction(
    conn: &mut Connection,
    model: &Model,
    path: &Path,
    progress: &dyn Fn(u64, u64),
    size: u64,
    bulk: bool,
) -> Result<ImportReport, ImportError> {
    let total = size.saturating_mul(2).max(1);
    let tx = conn.transaction()?;
    let mut problems = Problems::default();
    let idx = index::build(&tx, model, path, &mut problems, &|done| {
        progress(done.min(size), total)
    })?;
    let dropped = if bulk && problems.is_empty() {
        Some(bulk::DroppedIndexes::drop_on_empty_tables(&tx)?)
    } else {
        tx.pragma_update(None, "defer_foreign_keys", "ON")?;
        None
    };
    let report = writer::write(&tx, model, path, idx, dropped, &mut problems, &|done| {
        progress(size + done.min(size), total)
    })?;
    if !problems.is_empty() {
        // Dropping the transaction rolls everything back.
        return Err(problems.into_error());
    }
    if bulk && let Some(broken) = bulk::broken_foreign_key(&tx)? {
        return Err(StoreError::Other(format!(
            "the import would leave {broken}; nothing was imported"
        ))
        .into());
    }
    tx.commit()?;
    progress(total, total);
    Ok(report)
}
