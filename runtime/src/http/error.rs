//! Strapi's error responses: `{"data":null,"error":{"status","name","message","details"}}`
//! (a 500 has no `details`, as in Strapi).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::query::QueryError;
use crate::store::StoreError;

/// An error answer of the content API.
#[derive(Debug)]
pub enum ApiError {
    /// A rejected query (400 ValidationError or PaginationError).
    Query(QueryError),
    /// 401: no valid credentials and the public role grants nothing.
    Unauthorized,
    /// 403: the role may not perform this action.
    Forbidden,
    /// 404: no such route or document.
    NotFound,
    /// 500: a failure of strata itself (never bad input). Logged, not shown.
    Internal(String),
}

impl From<QueryError> for ApiError {
    fn from(e: QueryError) -> Self {
        ApiError::Query(e)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        ApiError::Internal(e.to_string())
    }
}

impl ApiError {
    /// The status code and body.
    pub fn parts(&self) -> (StatusCode, Value) {
        let simple = |status: u16, name: &str, message: &str| json!({"data": null, "error": {"status": status, "name": name, "message": message, "details": {}}});
        match self {
            ApiError::Query(e) => (StatusCode::BAD_REQUEST, e.to_body()),
            ApiError::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                simple(401, "UnauthorizedError", "Missing or invalid credentials"),
            ),
            ApiError::Forbidden => (
                StatusCode::FORBIDDEN,
                simple(403, "ForbiddenError", "Forbidden"),
            ),
            ApiError::NotFound => (
                StatusCode::NOT_FOUND,
                simple(404, "NotFoundError", "Not Found"),
            ),
            ApiError::Internal(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                json!({"data": null, "error": {"status": 500, "name": "InternalServerError", "message": "Internal Server Error"}}),
            ),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(msg) = &self {
            tracing::error!(error = %msg, "internal error");
        }
        let (status, body) = self.parts();
        super::json_response(status, &body)
    }
}
