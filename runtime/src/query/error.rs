//! Errors of parsing and validating a query, in Strapi's error shape
//! (`{"data":null,"error":{"status":400,"name":…,"message":…,"details":{…}}}`).

use serde_json::{Value, json};

/// Which query parameter an error is about (`details.param`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    /// `filters`.
    Filters,
    /// `sort`.
    Sort,
    /// `fields`.
    Fields,
    /// `populate`.
    Populate,
    /// Any other top-level key (strict mode, `publicationFilter`, …).
    Other(String),
}

impl Param {
    /// The spelling used in `details.param`.
    pub fn as_str(&self) -> &str {
        match self {
            Param::Filters => "filters",
            Param::Sort => "sort",
            Param::Fields => "fields",
            Param::Populate => "populate",
            Param::Other(s) => s,
        }
    }
}

/// A rejected query. Every variant is a 400 in Strapi's error shape.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QueryError {
    /// An unknown, private or forbidden key: `Invalid key K [at P]`.
    #[error("{}", invalid_key_message(key, path.as_deref()))]
    InvalidKey {
        /// The offending key.
        key: String,
        /// The dotted attribute path, or none.
        path: Option<String>,
        /// The parameter it was found in.
        param: Param,
    },
    /// A value Strapi would crash on (a 500 there): names the key, says what was expected.
    /// `details: {key, path, source: "query", param}`.
    #[error("{}: {message}", invalid_key_message(key, path.as_deref()).replacen("Invalid key", "Invalid value for", 1))]
    InvalidValue {
        /// The key whose value is wrong (an operator or a field).
        key: String,
        /// The dotted attribute path, or none.
        path: Option<String>,
        /// What was expected.
        message: String,
        /// The parameter.
        param: Param,
    },
    /// A ValidationError with `details: {}`.
    #[error("{0}")]
    Invalid(String),
    /// A ValidationError about one parameter: `details: {source: "query", param}`.
    #[error("{message}")]
    InvalidParam {
        /// The message.
        message: String,
        /// The parameter.
        param: Param,
    },
    /// A ValidationError whose details carry the value received (`details: {received}`), as
    /// the document service's strict checks send it.
    #[error("{message}")]
    InvalidReceived {
        /// The message.
        message: String,
        /// The value as received (the qs value, as JSON).
        received: Value,
    },
    /// A PaginationError (`details: {}`).
    #[error("{0}")]
    Pagination(String),
    /// A configured limit was exceeded (`details: {source: "query", limit, max}`).
    #[error("{message}")]
    Limit {
        /// The message.
        message: String,
        /// Which limit (`maxQueryLength`, `maxDepth`, …).
        limit: &'static str,
        /// Its configured value.
        max: usize,
    },
}

fn invalid_key_message(key: &str, path: Option<&str>) -> String {
    match path {
        Some(p) if p != key => format!("Invalid key {key} at {p}"),
        _ => format!("Invalid key {key}"),
    }
}

impl QueryError {
    /// Shorthand for [`QueryError::InvalidKey`].
    pub fn invalid_key(key: impl Into<String>, path: Option<String>, param: Param) -> Self {
        QueryError::InvalidKey {
            key: key.into(),
            path,
            param,
        }
    }

    /// The same error found inside `populate` (in a target's `filters` or `fields`): Strapi
    /// names the parameter `populate` there.
    pub fn in_populate(self) -> Self {
        let inside = |param: Param| match param {
            Param::Filters | Param::Fields | Param::Sort => Param::Populate,
            other => other,
        };
        match self {
            QueryError::InvalidKey { key, path, param } => QueryError::InvalidKey {
                key,
                path,
                param: inside(param),
            },
            QueryError::InvalidValue {
                key,
                path,
                message,
                param,
            } => QueryError::InvalidValue {
                key,
                path,
                message,
                param: inside(param),
            },
            QueryError::InvalidParam { message, param } => QueryError::InvalidParam {
                message,
                param: inside(param),
            },
            other => other,
        }
    }

    /// The HTTP status (always 400).
    pub fn status(&self) -> u16 {
        400
    }

    /// Strapi's error name.
    pub fn name(&self) -> &'static str {
        match self {
            QueryError::Pagination(_) => "PaginationError",
            _ => "ValidationError",
        }
    }

    /// `error.details`.
    pub fn details(&self) -> Value {
        match self {
            QueryError::InvalidKey { key, path, param }
            | QueryError::InvalidValue {
                key, path, param, ..
            } => json!({
                "key": key,
                "path": path,
                "source": "query",
                "param": param.as_str(),
            }),
            QueryError::InvalidParam { param, .. } => {
                json!({"source": "query", "param": param.as_str()})
            }
            QueryError::Limit { limit, max, .. } => {
                json!({"source": "query", "limit": limit, "max": max})
            }
            QueryError::InvalidReceived { received, .. } => json!({ "received": received }),
            QueryError::Invalid(_) | QueryError::Pagination(_) => json!({}),
        }
    }

    /// The whole response body, as Strapi sends it.
    pub fn to_body(&self) -> Value {
        json!({
            "data": null,
            "error": {
                "status": self.status(),
                "name": self.name(),
                "message": self.to_string(),
                "details": self.details(),
            }
        })
    }
}
