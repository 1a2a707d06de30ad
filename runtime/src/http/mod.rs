//! The HTTP server: Strapi v5's content API over axum.
//!
//! * [`router`] builds the routes from the model at start-up: `GET {prefix}/<plural>`,
//!   `GET {prefix}/<plural>/{documentId}`, `GET {prefix}/<singular>` for single types,
//!   `GET {prefix}/users` and `GET {prefix}/users/{id}`, plus `GET /_health`; anything else
//!   is Strapi's 404 body.
//! * A request: permissions of the caller's role ([`permissions`]) → the query module
//!   parses and validates the query string → the [`Store`] runs it on a blocking thread →
//!   the body is sent as is, or in the v4 shape ([`v4`]) when asked.
//! * `error.rs` renders every error in Strapi's shape.
//!
//! Permissions are a value computed per request from the role's grants, never a global,
//! so API tokens can later pass their own.

mod error;
pub mod permissions;
pub mod v4;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::Value;
use tower_http::compression::CompressionLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};

pub use error::ApiError;
pub use permissions::{PermissionSource, RolePermissions};

use crate::query::{self, LocaleSelector, QueryConfig, qs, values};
use crate::schema::{Origin, SchemaId, SchemaKind};
use crate::store::Store;

/// Server settings (Strapi's `config/api.js` plus strata's limits).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The route prefix (`/api`).
    pub prefix: String,
    /// Query parsing settings and limits.
    pub query: QueryConfig,
    /// Allowed CORS origins; empty allows any origin.
    pub cors_origins: Vec<String>,
    /// Time limit of one request.
    pub request_timeout: Duration,
    /// Largest accepted request body, in bytes (the content API reads none).
    pub max_body_bytes: usize,
    /// How long the role's grants are cached before the database is read again.
    pub permission_ttl: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            prefix: "/api".into(),
            query: QueryConfig::default(),
            cors_origins: Vec::new(),
            request_timeout: Duration::from_secs(30),
            max_body_bytes: 64 * 1024,
            permission_ttl: Duration::from_secs(1),
        }
    }
}

/// What the handlers share.
pub struct AppState {
    store: Arc<Store>,
    config: ServerConfig,
    /// The query settings of `/api/users`, derived once: users-permissions does not go
    /// through the REST service, so strict params never apply there.
    users_query: QueryConfig,
    permissions: PermissionSource,
}

fn users_query(config: &ServerConfig) -> QueryConfig {
    QueryConfig {
        strict_params: false,
        documents_strict_params: false,
        ..config.query.clone()
    }
}

impl AppState {
    /// State over a store; the public role's grants are read from the store's database.
    pub fn new(store: Arc<Store>, config: ServerConfig) -> Arc<Self> {
        let permissions = PermissionSource::database(store.clone(), config.permission_ttl);
        Self::with_permissions(store, config, permissions)
    }

    /// State with fixed grants (for embedding and tests).
    pub fn with_permissions(
        store: Arc<Store>,
        config: ServerConfig,
        permissions: PermissionSource,
    ) -> Arc<Self> {
        Arc::new(AppState {
            store,
            users_query: users_query(&config),
            config,
            permissions,
        })
    }
}

/// What a route serves.
#[derive(Debug, Clone, Copy)]
enum Endpoint {
    List(SchemaId),
    One(SchemaId),
    Single(SchemaId),
    Users,
    User,
}

/// The router of the content API, generated from the model.
pub fn router(state: Arc<AppState>) -> Router {
    let prefix = state.config.prefix.trim_end_matches('/').to_string();
    let model = state.store.model().clone();
    let mut app: Router<Arc<AppState>> = Router::new().route("/_health", get(health));
    for s in model.content_types() {
        match (s.kind, &s.origin) {
            (_, Origin::BuiltIn) if s.uid.as_str() == "plugin::users-permissions.user" => {
                app = app
                    .route(
                        &format!("{prefix}/{}", s.plural_name),
                        get(|st, uri, h| serve(st, Endpoint::Users, None, uri, h)),
                    )
                    .route(
                        &format!("{prefix}/{}/{{id}}", s.plural_name),
                        get(|st, Path(id): Path<String>, uri, h| {
                            serve(st, Endpoint::User, Some(id), uri, h)
                        }),
                    );
            }
            (_, Origin::BuiltIn) => {}
            (SchemaKind::CollectionType, _) => {
                let id = s.id;
                app = app
                    .route(
                        &format!("{prefix}/{}", s.plural_name),
                        get(move |st, uri, h| serve(st, Endpoint::List(id), None, uri, h)),
                    )
                    .route(
                        &format!("{prefix}/{}/{{document_id}}", s.plural_name),
                        get(move |st, Path(doc): Path<String>, uri, h| {
                            serve(st, Endpoint::One(id), Some(doc), uri, h)
                        }),
                    );
            }
            (SchemaKind::SingleType, _) => {
                let id = s.id;
                app = app.route(
                    &format!("{prefix}/{}", s.singular_name),
                    get(move |st, uri, h| serve(st, Endpoint::Single(id), None, uri, h)),
                );
            }
            (SchemaKind::Component, _) => {}
        }
    }
    let cors = if state.config.cors_origins.is_empty() {
        CorsLayer::new().allow_origin(AllowOrigin::any())
    } else {
        let origins: Vec<HeaderValue> = state
            .config
            .cors_origins
            .iter()
            .filter_map(|o| HeaderValue::from_str(o).ok())
            .collect();
        CorsLayer::new().allow_origin(origins)
    };
    let timeout = state.config.request_timeout;
    let body_limit = state.config.max_body_bytes;
    app.fallback(not_found)
        .with_state(state)
        .layer(RequestBodyLimitLayer::new(body_limit))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            timeout,
        ))
        .layer(CompressionLayer::new())
        .layer(cors)
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(tracing::Level::INFO))
                .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
        )
}

async fn health() -> Response {
    json_response(StatusCode::OK, &serde_json::json!({"status": "ok"}))
}

async fn not_found() -> Response {
    ApiError::NotFound.into_response()
}

/// A JSON response with Strapi's content type.
pub(crate) fn json_response(status: StatusCode, body: &Value) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    let mut res = Response::new(Body::from(bytes));
    *res.status_mut() = status;
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    res
}

async fn serve(
    State(state): State<Arc<AppState>>,
    endpoint: Endpoint,
    param: Option<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let raw = uri.query().unwrap_or("").to_string();
    let v4 = headers
        .get("strapi-response-format")
        .is_some_and(|v| v.as_bytes() == b"v4");
    let result =
        tokio::task::spawn_blocking(move || answer(&state, endpoint, param.as_deref(), &raw, v4))
            .await;
    match result {
        Ok(Ok(body)) => json_response(StatusCode::OK, &body),
        Ok(Err(e)) => e.into_response(),
        Err(e) => ApiError::Internal(e.to_string()).into_response(),
    }
}

/// Answers one request (on a blocking thread).
fn answer(
    state: &AppState,
    endpoint: Endpoint,
    param: Option<&str>,
    raw: &str,
    v4: bool,
) -> Result<Value, ApiError> {
    let store = &state.store;
    let model = store.model();
    let grants = state.permissions.current()?;
    let (schema, action_allowed) = match endpoint {
        Endpoint::List(id) | Endpoint::Single(id) => (id, grants.find.can_find(id)),
        Endpoint::One(id) => (id, grants.find_one.can_find(id)),
        Endpoint::Users | Endpoint::User => {
            let id = model
                .by_uid("plugin::users-permissions.user")
                .map(|s| s.id)
                .ok_or(ApiError::NotFound)?;
            let allowed = if matches!(endpoint, Endpoint::Users) {
                grants.find.can_find(id)
            } else {
                grants.find_one.can_find(id)
            };
            (id, allowed)
        }
    };
    if !action_allowed {
        return Err(if grants.is_empty() {
            ApiError::Unauthorized
        } else {
            ApiError::Forbidden
        });
    }
    let config = if matches!(endpoint, Endpoint::Users | Endpoint::User) {
        &state.users_query
    } else {
        &state.config.query
    };
    let q = query::parse_query(raw, model, schema, &grants.find, config)?;
    let body = match endpoint {
        Endpoint::List(_) => store.list_body(&q)?,
        Endpoint::One(_) => {
            if q.locale == LocaleSelector::All {
                return Err(ApiError::NotFound);
            }
            store.one_body(&q, param)?.ok_or(ApiError::NotFound)?
        }
        Endpoint::Single(_) => store.one_body(&q, None)?.ok_or(ApiError::NotFound)?,
        Endpoint::Users => {
            let (start, limit) = top_level_window(raw);
            return Ok(store.users_body(&q, start, limit)?);
        }
        Endpoint::User => {
            let id = param
                .and_then(values::js_number)
                .ok_or(ApiError::NotFound)?;
            let mut q = q;
            q.filters = Some(add_id_condition(q.filters.take(), id));
            let list = store.users_body(&q, 0, Some(1))?;
            return match list {
                Value::Array(mut items) if !items.is_empty() => Ok(items.swap_remove(0)),
                _ => Err(ApiError::NotFound),
            };
        }
    };
    Ok(if v4 {
        v4::body(model, schema, body)
    } else {
        body
    })
}

fn add_id_condition(filters: Option<query::Conjunction>, id: f64) -> query::Conjunction {
    let cond = query::Condition::Field {
        field: query::FieldRef::Id,
        op: query::Op::Eq,
        operand: query::Operand::One(query::Value::Number(id)),
    };
    match filters {
        Some(mut c) => {
            c.0.push(cond);
            c
        }
        None => query::Conjunction(vec![cond]),
    }
}

/// Top-level `start`/`limit`, which `/api/users` honours (it ignores `pagination`).
fn top_level_window(raw: &str) -> (u64, Option<u64>) {
    let Ok(map) = qs::parse(raw) else {
        return (0, None);
    };
    let num = |k: &str| {
        map.get(k)
            .and_then(qs::QsValue::as_str)
            .and_then(values::js_number)
            .filter(|n| *n >= 0.0)
            .map(|n| n as u64)
    };
    (num("start").unwrap_or(0), num("limit"))
}
