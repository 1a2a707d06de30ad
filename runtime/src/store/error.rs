//! Errors of the storage engine.

/// A storage failure. Messages say what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database URL is not one strata understands.
    #[error("invalid database URL `{url}`: {reason}")]
    Url {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// SQLite reported an error.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The database does not have the tables and columns the model needs.
    #[error("the database does not match the content model:\n{}", .0.join("\n"))]
    Layout(Vec<String>),
    /// A schema change would lose data and was not explicitly allowed.
    #[error("refusing a destructive schema change (run with --allow-destructive to apply it); it would lose:\n{}", .0.join("\n"))]
    Destructive(Vec<String>),
    /// The database is read-only but a write was needed.
    #[error("the database is opened read-only (mode=ro) but {0}")]
    ReadOnly(String),
    /// Anything else, with context.
    #[error("{0}")]
    Other(String),
}
