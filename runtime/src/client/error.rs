//! [`ClientError`]: what can go wrong with a request of the typed client.

use serde_json::Value;

use crate::typed::ValidationError;

/// A failed request of the typed [`Client`](super::Client).
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server answered with Strapi's error body
    /// (`{"data": null, "error": {status, name, message, details}}`): a 400
    /// `ValidationError`, a 401, a 403 `ForbiddenError`, a 404 `NotFoundError` from `find`,
    /// a 500.
    #[error("{status} {name}: {message}")]
    Api {
        /// The HTTP status.
        status: u16,
        /// Strapi's error class (`ValidationError`, `PaginationError`, `NotFoundError`, …).
        name: String,
        /// The message.
        message: String,
        /// `error.details` as sent (`{}` when empty, `null` when absent).
        details: Value,
    },
    /// Strapi's 400 `ValidationError` answering a write (`create`, `update`), typed: each
    /// failed rule with its path (`error.details.errors[]`). Reads keep it as
    /// [`Api`](ClientError::Api), as their details never list fields.
    #[error("400 ValidationError: {0}")]
    Validation(ValidationError),
    /// A non-success status without Strapi's error body (a proxy, a wrong base URL).
    #[error("HTTP {status} from {url}: {body}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The requested URL.
        url: String,
        /// The start of the body, as text.
        body: String,
    },
    /// The request could not be sent or its answer not read (connection refused, timeout…).
    #[error("request to {url} failed: {source}")]
    Transport {
        /// The requested URL.
        url: String,
        /// The cause.
        #[source]
        source: reqwest::Error,
    },
    /// A success whose body is not the expected JSON: usually types generated from other
    /// schemas than the server's.
    #[error("cannot read the answer of {url} as {target}: {source}")]
    Decode {
        /// The requested URL.
        url: String,
        /// The Rust type it was read into.
        target: &'static str,
        /// The JSON error (with line and column).
        #[source]
        source: serde_json::Error,
    },
    /// The base URL, prefix or document id do not make a valid URL.
    #[error("invalid URL `{url}`: {reason}")]
    Url {
        /// What was being built.
        url: String,
        /// Why it is invalid.
        reason: String,
    },
    /// A method used with the wrong kind of content type (`find` on a single type, say).
    #[error("{0}")]
    Usage(String),
}

impl ClientError {
    /// The HTTP status, for [`Api`](ClientError::Api) and [`Status`](ClientError::Status).
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Api { status, .. } | ClientError::Status { status, .. } => Some(*status),
            ClientError::Validation(_) => Some(400),
            _ => None,
        }
    }

    /// Strapi's error name (`ValidationError`, …), for [`Api`](ClientError::Api) errors.
    pub fn name(&self) -> Option<&str> {
        match self {
            ClientError::Api { name, .. } => Some(name),
            ClientError::Validation(_) => Some("ValidationError"),
            _ => None,
        }
    }
}
