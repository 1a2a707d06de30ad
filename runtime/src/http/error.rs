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
    /// 401 with Strapi's message: "Missing or invalid credentials" (no valid credential
    /// and a public role that grants nothing), "Invalid credentials" (a JWT of a blocked or
    /// unknown user), "Token expired".
    Unauthorized(&'static str),
    /// 403: the role may not perform this action.
    Forbidden,
    /// 404: no such route or document.
    NotFound,
    /// 503: the database is unreachable or busy past the pool's wait (logged; heals by
    /// itself when the database is back).
    Unavailable(String),
    /// 400: a value the database's column type cannot hold (PostgreSQL's strict types).
    InvalidValue(String),
    /// 500: a failure of strata itself (never bad input). Logged, not shown.
    Internal(String),
    /// A refused write (400 `ValidationError`/`ApplicationError`, 404).
    Write(crate::write::WriteError),
    /// The request ran past its time budget on the event loop and is to be answered
    /// again on a blocking thread (`serve` does; never sent: were it, a 503).
    OverBudget,
    /// The request's time is up (`request_timeout`): its statements were stopped
    /// ([`crate::store::limit`]). A bare 408, the answer of the server's timeout layer, so
    /// that a client gets the same answer whichever of the two comes first.
    TimedOut,
}

impl From<QueryError> for ApiError {
    fn from(e: QueryError) -> Self {
        ApiError::Query(e)
    }
}

impl From<crate::write::WriteError> for ApiError {
    fn from(e: crate::write::WriteError) -> Self {
        match e {
            crate::write::WriteError::Store(s) => match s {
                // A value the column cannot hold, or a constraint the database enforces
                // (PostgreSQL's 32-bit integers, MySQL's JSON check): the caller's data.
                StoreError::InvalidValue(m) | StoreError::Constraint(m) => {
                    ApiError::Write(crate::write::WriteError::bare(m))
                }
                other => ApiError::from(other),
            },
            other => ApiError::Write(other),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        // The conversion runs on the thread whose statement stopped, so its limit says
        // whether the request's time is up or only a budget (or a lock's wait) ran out.
        if e.is_interrupted() {
            return match crate::store::limit::passed() {
                true => ApiError::TimedOut,
                false => ApiError::OverBudget,
            };
        }
        match e {
            StoreError::Unavailable(m) | StoreError::ConnectionLost(m) | StoreError::Busy(m) => {
                ApiError::Unavailable(m)
            }
            StoreError::InvalidValue(m) => ApiError::InvalidValue(m),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl ApiError {
    /// The status code and body.
    pub fn parts(&self) -> (StatusCode, Value) {
        let simple = |status: u16, name: &str, message: &str| json!({"data": null, "error": {"status": status, "name": name, "message": message, "details": {}}});
        match self {
            ApiError::Query(e) => (StatusCode::BAD_REQUEST, e.to_body()),
            ApiError::Unauthorized(message) => (
                StatusCode::UNAUTHORIZED,
                simple(401, "UnauthorizedError", message),
            ),
            ApiError::Forbidden => (
                StatusCode::FORBIDDEN,
                simple(403, "ForbiddenError", "Forbidden"),
            ),
            ApiError::NotFound => (
                StatusCode::NOT_FOUND,
                simple(404, "NotFoundError", "Not Found"),
            ),
            ApiError::TimedOut => (
                StatusCode::REQUEST_TIMEOUT,
                simple(408, "RequestTimeoutError", "Request Timeout"),
            ),
            ApiError::Unavailable(_) | ApiError::OverBudget => (
                StatusCode::SERVICE_UNAVAILABLE,
                simple(503, "ServiceUnavailableError", "Service Unavailable"),
            ),
            ApiError::InvalidValue(m) => (
                StatusCode::BAD_REQUEST,
                json!({"data": null, "error": {"status": 400, "name": "ValidationError", "message": m, "details": {"source": "query", "param": "filters"}}}),
            ),
            ApiError::Write(e) => write_parts(e),
            ApiError::Internal(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                json!({"data": null, "error": {"status": 500, "name": "InternalServerError", "message": "Internal Server Error"}}),
            ),
        }
    }
}

fn write_parts(e: &crate::write::WriteError) -> (StatusCode, Value) {
    use crate::write::WriteError as W;
    match e {
        W::Validation { message, details } => (
            StatusCode::BAD_REQUEST,
            json!({"data": null, "error": {"status": 400, "name": "ValidationError", "message": message, "details": details}}),
        ),
        W::Application(message) => (
            StatusCode::BAD_REQUEST,
            json!({"data": null, "error": {"status": 400, "name": "ApplicationError", "message": message, "details": {}}}),
        ),
        W::Plain(message) => (
            StatusCode::BAD_REQUEST,
            json!({"data": null, "error": {"status": 400, "name": "Error", "message": message}}),
        ),
        W::NotFound => ApiError::NotFound.parts(),
        W::Store(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({"data": null, "error": {"status": 500, "name": "InternalServerError", "message": "Internal Server Error"}}),
        ),
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match &self {
            ApiError::Internal(msg) => tracing::error!(error = %msg, "internal error"),
            ApiError::Unavailable(msg) => tracing::warn!(error = %msg, "database unavailable"),
            ApiError::TimedOut => return StatusCode::REQUEST_TIMEOUT.into_response(),
            _ => {}
        }
        let (status, body) = self.parts();
        super::json_response(status, &body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A statement stopped once the request's time is up answers the timeout layer's bare
    /// 408, and one stopped by a budget stays `OverBudget` (answered again elsewhere).
    #[test]
    fn an_interruption_past_the_request_limit_is_the_timeouts_408() {
        let timed_out =
            crate::store::limit::within(Duration::ZERO, || ApiError::from(StoreError::Interrupted));
        assert!(matches!(timed_out, ApiError::TimedOut), "{timed_out:?}");
        let response = timed_out.into_response();
        assert_eq!(response.status(), StatusCode::REQUEST_TIMEOUT);
        // No body, as the timeout layer's.
        assert_eq!(
            axum::body::HttpBody::size_hint(response.body()).exact(),
            Some(0)
        );
        let within_time = crate::store::limit::within(Duration::from_secs(60), || {
            ApiError::from(StoreError::Interrupted)
        });
        assert!(
            matches!(within_time, ApiError::OverBudget),
            "{within_time:?}"
        );
        assert!(matches!(
            ApiError::from(StoreError::Busy("locked".into())),
            ApiError::OverBudget
        ));
    }
}
