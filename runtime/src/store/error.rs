//! Errors of the storage engine.

/// A storage failure. Messages say what to do about it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The database URL is not one strata understands.
    #[error("invalid database URL `{url}`: {reason}")]
    Url {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The database refused or failed a statement for a reason none of the other variants
    /// names; the message is the database's own.
    #[error("database error: {0}")]
    Database(String),
    /// Another connection held a lock for longer than a statement may wait (or, under a
    /// time budget, at all). The statement can be run again.
    #[error("the database is busy: {0}")]
    Busy(String),
    /// A statement ran past the time budget its caller set
    /// ([`crate::store::seam::Pool::within_budget`]). Reads can be run again without one.
    #[error("a statement ran past its time budget")]
    Interrupted,
    /// A write broke a constraint of the database (unique, foreign key, not null, check):
    /// the message says which.
    #[error("a constraint of the database was broken: {0}")]
    Constraint(String),
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
    /// Bad data: a bound value that the column's type cannot hold (a 400).
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
    /// ([`crate::store::seam::Pool::within_budget`]), or found the database locked by
    /// another connection (which a read on a budget does not wait for, and which was
    /// waited for as long as allowed otherwise); the read can be run again without a
    /// budget.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, StoreError::Interrupted | StoreError::Busy(_))
    }
}
