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
    /// PostgreSQL reported an error.
    #[error("database error: {0}")]
    Postgres(String),
    /// MySQL or MariaDB reported an error.
    #[error("database error: {0}")]
    Mysql(String),
    /// A table the statement needs does not exist.
    #[error("missing table: {0}")]
    MissingTable(String),
    /// The database cannot be reached, or the connection broke, or no connection became
    /// free in time. Served as a 503; the pool reconnects by itself.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// The connection broke mid-request (the server restarted, or an administrator
    /// terminated it). Reads are retried once on a fresh connection; then a 503.
    #[error("lost the database connection: {0}")]
    ConnectionLost(String),
    /// A bound value that the column's type cannot hold (a 400).
    #[error("invalid value: {0}")]
    InvalidValue(String),
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

impl StoreError {
    /// Whether a statement was interrupted because its time budget ran out
    /// ([`crate::store::sqlite::within_budget`]), or found the database locked by another
    /// connection (which a read on a budget does not wait for, and which was waited for
    /// as long as allowed otherwise); the read can be run again without a budget.
    pub fn is_interrupted(&self) -> bool {
        matches!(
            self,
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::OperationInterrupted | rusqlite::ErrorCode::DatabaseBusy
                )
        )
    }
}
