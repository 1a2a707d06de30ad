//! The HTTP server: Strapi v5's content API over axum.
//!
//! * [`router`] builds the routes from the model at start-up: `GET {prefix}/<plural>`,
//!   `GET {prefix}/<plural>/{documentId}`, `GET {prefix}/<singular>` for single types,
//!   their writes (`POST`, `PUT`, `DELETE`: `write.rs`),
//!   `GET {prefix}/users` and `GET {prefix}/users/{id}`, plus `GET /_health` and
//!   `GET /openapi.json` ([`openapi`]); anything else is Strapi's 404 body.
//! * A request: the caller's credentials ([`auth`]: API token, JWT, else the public role)
//!   give its grants ([`permissions`]) → the query module
//!   parses and validates the query string → the [`Store`] runs it on a blocking thread →
//!   the body is sent as is, or in the v4 shape ([`v4`]) when asked.
//! * `error.rs` renders every error in Strapi's shape.
//!
//! Permissions are a value computed per request from the caller's grants, never a
//! global. The `Authorization` header is marked sensitive before any layer sees it, so no
//! trace or log line can print a key or a JWT.

mod accept;
mod answers;
pub mod auth;
pub mod cors;
pub mod docs;
pub mod envelope;
mod error;
pub mod etag;
#[cfg(feature = "graphql")]
mod graphql;
pub mod openapi;
pub mod permissions;
mod route_case;
pub mod target;
pub mod v4;
mod write;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};
use serde_json::Value;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::sensitive_headers::SetSensitiveRequestHeadersLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};

pub use auth::PermissionSource;
pub use error::ApiError;
pub use permissions::RolePermissions;

use crate::query::{self, LocaleSelector, QueryConfig, qs, values};
use crate::schema::{Origin, SchemaId, SchemaKind};
use crate::store::Store;
use crate::store::entry::write_array;

/// Server settings (Strapi's `config/api.js` plus strata's limits).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The route prefix (`/api`).
    pub prefix: String,
    /// Query parsing settings and limits.
    pub query: QueryConfig,
    /// Cross-origin requests, as Strapi's `strapi::cors` answers them.
    pub cors: cors::CorsConfig,
    /// Whether `/docs` serves the API explorer (Swagger UI over `/openapi.json`).
    pub docs: bool,
    /// Time limit of one request.
    pub request_timeout: Duration,
    /// Largest accepted request body of a write, in bytes (Strapi's koa-body `1mb`); a
    /// larger one is answered 413.
    pub max_body_bytes: usize,
    /// How long grants and credential lookups are cached before the database is read
    /// again (a revoked token stops working within this time).
    pub permission_ttl: Duration,
    /// The salt of API tokens and the secret of JWTs (Strapi's `API_TOKEN_SALT`,
    /// `JWT_SECRET`).
    pub auth: crate::auth::AuthSecrets,
    /// Largest total size of a request's headers, in bytes: a larger request is answered
    /// 431 with no body, as Node (Strapi) answers it.
    pub max_header_bytes: usize,
    /// On SQLite, how long a request may run on the event loop's own thread before it
    /// gives the thread back and is answered on a blocking thread instead (`None`: always
    /// on a blocking thread). Reads, and writes with the database to themselves
    /// (`write.rs`), run there. See [`serve`].
    pub inline_budget: Option<Duration>,
    /// Bytes of REST answers kept while the data they were read from stands (`answers.rs`;
    /// 64 MiB by default, 0: none), where the database offers a data generation (SQLite,
    /// PostgreSQL).
    pub answer_cache_bytes: usize,
    /// `/graphql` (off by default; `[api.graphql]` in `strata.toml`).
    pub graphql: GraphqlConfig,
}

/// `[api.graphql]`: whether `/graphql` is served, and its page sizes (the plugin's
/// `defaultLimit` and `maxLimit`).
#[derive(Debug, Clone)]
pub struct GraphqlConfig {
    /// Whether `POST /graphql` and `GET /graphql` are served (default false).
    pub enabled: bool,
    /// Entries of a list without `pagination` (25).
    pub default_limit: u64,
    /// Largest page size (100).
    pub max_limit: u64,
    /// Whether introspection (`__schema`, `__type`) is answered (default true). Strapi in
    /// production (`NODE_ENV=production`) refuses it unless `apolloServer.introspection`
    /// says otherwise; `false` answers Apollo's 400 `INTROSPECTION_DISABLED`.
    pub introspection: bool,
}

impl Default for GraphqlConfig {
    fn default() -> Self {
        GraphqlConfig {
            enabled: false,
            default_limit: 25,
            max_limit: 100,
            introspection: true,
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            prefix: "/api".into(),
            query: QueryConfig::default(),
            cors: cors::CorsConfig::default(),
            docs: true,
            request_timeout: Duration::from_secs(30),
            max_body_bytes: 1024 * 1024,
            permission_ttl: Duration::from_secs(1),
            auth: crate::auth::AuthSecrets::default(),
            max_header_bytes: 16 * 1024,
            inline_budget: Some(Duration::from_millis(1)),
            answer_cache_bytes: 64 << 20,
            graphql: GraphqlConfig::default(),
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
    /// Requests allowed on blocking threads at once (one per pooled connection). The rest
    /// wait here, in async code, where a client that gives up (or the request timeout)
    /// cancels the wait: an overload never piles up work nobody is waiting for. A wait
    /// longer than the pool's wait timeout is a 503.
    workers: Arc<tokio::sync::Semaphore>,
    /// The same for writes, as many as the store lets be under way at once
    /// (`Pool::writes_at_once`: on SQLite more than its connections, so that concurrent
    /// writes are committed together).
    writers: Arc<tokio::sync::Semaphore>,
    /// Write requests past their body and not yet answered: a write alone may run on the
    /// event loop (`write.rs`).
    write_requests: std::sync::atomic::AtomicUsize,
    /// The tags of conditional requests, by data generation (`etag.rs`).
    validators: etag::Validators,
    /// REST answers kept while the data stands (`answers.rs`).
    answers: answers::Answers,
    /// The GraphQL schema, when `/graphql` is served.
    #[cfg(feature = "graphql")]
    graphql: Option<graphql::GraphqlState>,
}

fn users_query(config: &ServerConfig) -> QueryConfig {
    QueryConfig {
        strict_params: false,
        documents_strict_params: false,
        ..config.query.clone()
    }
}

impl AppState {
    /// State over a store; each caller's grants come from its credentials, checked
    /// against the store's database (`config.auth` holds the salt and JWT secret).
    pub fn new(store: Arc<Store>, config: ServerConfig) -> Arc<Self> {
        let auth =
            auth::Authenticator::new(store.clone(), config.auth.clone(), config.permission_ttl);
        Self::with_permissions(store, config, PermissionSource::Credentials(Box::new(auth)))
    }

    /// State with fixed grants (for embedding and tests).
    pub fn with_permissions(
        store: Arc<Store>,
        mut config: ServerConfig,
        permissions: PermissionSource,
    ) -> Arc<Self> {
        // An operator object as a value means what the database's driver makes of it.
        if store.pool().dialect() == crate::store::sql::Dialect::Postgres {
            config.query.operator_objects = query::OperatorObjects::JsonText;
        }
        let workers = Arc::new(tokio::sync::Semaphore::new(store.pool().size().max(1)));
        let writers = Arc::new(tokio::sync::Semaphore::new(
            store.pool().writes_at_once().max(1),
        ));
        #[cfg(feature = "graphql")]
        let graphql = config
            .graphql
            .enabled
            .then(|| graphql::GraphqlState::new(&store, &config));
        let answers = answers::Answers::new(config.answer_cache_bytes);
        Arc::new(AppState {
            #[cfg(feature = "graphql")]
            graphql,
            store,
            users_query: users_query(&config),
            config,
            permissions,
            workers,
            writers,
            write_requests: std::sync::atomic::AtomicUsize::new(0),
            validators: etag::Validators::default(),
            answers,
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

/// A route's `{id}` or `{document_id}`: its last path segment, percent-decoded; one
/// that does not decode to UTF-8 (`%ff`) is its raw text, as koa-router's
/// `safeDecodeURIComponent` leaves it. So it names no document (a 404 in Strapi's shape,
/// after the caller's grants), never axum's plain-text rejection.
struct Segment(String);

impl<S: Send + Sync> FromRequestParts<S> for Segment {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(segment)) => Ok(Segment(segment)),
            Err(_) => {
                let raw = parts.uri.path().trim_end_matches('/');
                Ok(Segment(
                    raw.rsplit('/').next().unwrap_or_default().to_owned(),
                ))
            }
        }
    }
}

/// Routes `path` and `path/` alike, as Strapi (koa-router, not strict) does:
/// `/api/articles/` is the list, `/api/articles/<documentId>/` the entry. A plain
/// `OPTIONS` is routed too (koa-router's `allowedMethods` answer): a CORS preflight is
/// answered before it by `cors.rs`, and an unrouted method would have axum add its own
/// `Allow` to that answer, which Strapi's does not have.
fn route_both(
    app: Router<Arc<AppState>>,
    path: &str,
    method: MethodRouter<Arc<AppState>>,
) -> Router<Arc<AppState>> {
    let method = method.options(method_not_allowed);
    app.route(path, method.clone())
        .route(&format!("{path}/"), method)
}

/// The router of the content API, generated from the model.
pub fn router(state: Arc<AppState>) -> Router {
    let prefix = state.config.prefix.trim_end_matches('/').to_string();
    let model = state.store.model().clone();
    // The OpenAPI document is the model's: built once, served as is (a `Bytes` clone
    // shares the buffer).
    let openapi = axum::body::Bytes::from(
        serde_json::to_vec(&openapi::document(&model, &prefix)).unwrap_or_default(),
    );
    let mut app: Router<Arc<AppState>> = Router::new().route("/_health", get(health)).route(
        "/openapi.json",
        get(move || {
            let body = openapi.clone();
            async move { json_bytes(StatusCode::OK, body) }
        }),
    );
    if state.config.docs {
        app = app.merge(docs::routes());
    }
    #[cfg(feature = "graphql")]
    if state.config.graphql.enabled {
        app = app.route(
            "/graphql",
            // Every other method is Apollo's to refuse (explicitly routed, so the router
            // adds no `Allow` of its own to what Strapi's authentication answers).
            get(graphql::get)
                .post(graphql::post)
                .head(graphql::other_method)
                .put(graphql::other_method)
                .patch(graphql::other_method)
                .delete(graphql::other_method)
                .options(graphql::other_method)
                .fallback(graphql::other_method)
                .layer(axum::middleware::map_response(graphql::any_origin)),
        );
    }
    for s in model.content_types() {
        match (s.kind, &s.origin) {
            (_, Origin::BuiltIn) if s.uid.as_str() == "plugin::users-permissions.user" => {
                app = route_both(
                    app,
                    &format!("{prefix}/{}", s.plural_name),
                    get(|st, uri, h| serve(st, Endpoint::Users, None, uri, h)),
                );
                app = route_both(
                    app,
                    &format!("{prefix}/{}/{{id}}", s.plural_name),
                    get(|st, Segment(id): Segment, uri, h| {
                        serve(st, Endpoint::User, Some(id), uri, h)
                    }),
                );
            }
            (_, Origin::BuiltIn) => {}
            (SchemaKind::CollectionType, _) => {
                let id = s.id;
                app = route_both(
                    app,
                    &format!("{prefix}/{}", s.plural_name),
                    get(move |st, uri, h| serve(st, Endpoint::List(id), None, uri, h)).post(
                        move |State(st), uri, h, body| {
                            write::handle(st, write::WriteRoute::Create(id), None, uri, h, body)
                        },
                    ),
                );
                app = route_both(
                    app,
                    &format!("{prefix}/{}/{{document_id}}", s.plural_name),
                    get(move |st, Segment(doc): Segment, uri, h| {
                        serve(st, Endpoint::One(id), Some(doc), uri, h)
                    })
                    .put(move |State(st), Segment(doc): Segment, uri, h, body| {
                        write::handle(st, write::WriteRoute::Update(id), Some(doc), uri, h, body)
                    })
                    .delete(
                        move |State(st), Segment(doc): Segment, uri, h, body| {
                            write::handle(
                                st,
                                write::WriteRoute::Delete(id),
                                Some(doc),
                                uri,
                                h,
                                body,
                            )
                        },
                    ),
                );
            }
            (SchemaKind::SingleType, _) => {
                let id = s.id;
                app = route_both(
                    app,
                    &format!("{prefix}/{}", s.singular_name),
                    get(move |st, uri, h| serve(st, Endpoint::Single(id), None, uri, h))
                        .put(move |State(st), uri, h, body| {
                            write::handle(st, write::WriteRoute::Update(id), None, uri, h, body)
                        })
                        .delete(move |State(st), uri, h, body| {
                            write::handle(st, write::WriteRoute::Delete(id), None, uri, h, body)
                        }),
                );
            }
            (SchemaKind::Component, _) => {}
        }
    }
    let cors_config = Arc::new(state.config.cors.clone());
    let timeout = state.config.request_timeout;
    let header_limit = state.config.max_header_bytes;
    let names: Vec<String> = model
        .content_types()
        .flat_map(|s| [s.plural_name.to_string(), s.singular_name.to_string()])
        .collect();
    let case = route_case::RouteCase::new(&prefix, names);
    let app = app
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .with_state(state);
    let routed = answering_panics(app)
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            timeout,
        ))
        .layer(CompressionLayer::new())
        .layer(axum::middleware::from_fn_with_state(
            cors_config,
            cors::cors,
        ))
        .layer(axum::middleware::from_fn_with_state(
            header_limit,
            limit_headers,
        ))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(tracing::Level::INFO))
                .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
        )
        // Outermost: credentials are marked sensitive before any layer can print them.
        .layer(SetSensitiveRequestHeadersLayer::new([
            header::AUTHORIZATION,
            header::COOKIE,
        ]));
    // Before routing (a layer on a `Router` wraps each route): the path in the routes'
    // case, as koa-router matches it.
    Router::new().fallback_service(
        tower::ServiceBuilder::new()
            .map_request(move |request| case.apply(request))
            .service(routed),
    )
}

/// `app`, whose handlers' panics are answered with [`panic_answer`]: the innermost
/// layer, so that CORS, compression and the trace line apply to that answer too.
fn answering_panics(app: Router) -> Router {
    app.layer(CatchPanicLayer::custom(panic_answer))
}

/// The answer to a request whose handler panicked: Strapi's 500 body (the panic is
/// logged), not a dropped connection. A request answered on the event loop (SQLite
/// reads, and writes with the database to themselves) runs on its connection's own task,
/// which a panic would otherwise end without an answer; on a blocking thread the panic
/// comes back as a failed join, answered the same.
fn panic_answer(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    ApiError::Internal(format!("a request's handler panicked: {message}")).into_response()
}

/// Answers 431 with no body when the request's head reaches `limit` bytes, counted as
/// Node's parser counts it (`TrackHeader`: the request target and every header's name and
/// value, nothing else): Strapi answers `GET /api/tags?x=…` 431 once the target and a
/// `Host: a` header make 16,384 bytes.
async fn limit_headers(
    State(limit): State<usize>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    let size: usize = target
        + request
            .headers()
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len())
            .sum::<usize>();
    if size >= limit {
        let mut res = Response::new(Body::empty());
        *res.status_mut() = StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE;
        res.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return res;
    }
    next.run(request).await
}

async fn health() -> Response {
    json_response(StatusCode::OK, &serde_json::json!({"status": "ok"}))
}

/// A path no route serves: Strapi's 404 to a read; to any other method, the answer of
/// its router for a method no route takes ([`answer_other_method`]), since its catch-all
/// route (the public folder's) takes `HEAD` and `GET`.
async fn not_found(method: Method) -> Response {
    match method {
        Method::GET | Method::HEAD => ApiError::NotFound.into_response(),
        other => answer_other_method(other, "HEAD, GET"),
    }
}

/// A method that the routes of a served path do not take: Strapi's router's answer, with
/// the path's methods in `Allow` as koa-router lists them (a collection: `HEAD, GET,
/// POST`; a document, a single type or a user: `HEAD, GET, PUT, DELETE`).
async fn method_not_allowed(
    State(state): State<Arc<AppState>>,
    method: Method,
    matched: Option<axum::extract::MatchedPath>,
) -> Response {
    let pattern = matched.as_ref().map_or("", |m| m.as_str());
    let pattern = pattern.strip_suffix('/').unwrap_or(pattern);
    let prefix = state.config.prefix.trim_end_matches('/');
    let single = state.store.model().content_types().any(|s| {
        s.kind == SchemaKind::SingleType && pattern == format!("{prefix}/{}", s.singular_name)
    });
    let allow = if pattern.ends_with('}') || single {
        "HEAD, GET, PUT, DELETE"
    } else {
        "HEAD, GET, POST"
    };
    answer_other_method(method, allow)
}

/// koa-router's `allowedMethods`: `405 Method Not Allowed` as plain text, and to a plain
/// `OPTIONS` (a CORS preflight never gets here, `cors.rs` answers it) `200` with no body;
/// both with `Allow`.
fn answer_other_method(method: Method, allow: &'static str) -> Response {
    let (status, body) = match method {
        Method::OPTIONS => (StatusCode::OK, ""),
        _ => (StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed"),
    };
    let mut res = Response::new(Body::from(body));
    *res.status_mut() = status;
    let headers = res.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(header::ALLOW, HeaderValue::from_static(allow));
    res
}

/// A JSON response with Strapi's content type.
pub(crate) fn json_response(status: StatusCode, body: &Value) -> Response {
    json_bytes(status, serde_json::to_vec(body).unwrap_or_default())
}

/// A response of JSON bytes with Strapi's content type.
fn json_bytes(status: StatusCode, bytes: impl Into<Body>) -> Response {
    let mut res = Response::new(bytes.into());
    *res.status_mut() = status;
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    res
}

/// A conditional request: its key, and its `If-None-Match` values.
#[derive(Clone)]
struct Conditional {
    key: etag::RequestKey,
    if_none_match: HeaderMap,
}

impl Conditional {
    fn of(headers: &HeaderMap, key: &etag::RequestKey) -> Option<Self> {
        if !etag::is_conditional(headers) {
            return None;
        }
        let mut if_none_match = HeaderMap::new();
        for v in headers.get_all(header::IF_NONE_MATCH) {
            if_none_match.append(header::IF_NONE_MATCH, v.clone());
        }
        Some(Conditional {
            key: key.clone(),
            if_none_match,
        })
    }
}

/// What [`answer`] found.
enum Answer {
    /// The body to send (JSON text) and its tag.
    Body(answers::KeptAnswer),
    /// Nothing changed since the client's tag: a 304 with this tag.
    NotModified(String),
}

/// A bodiless 304 with its tag.
fn not_modified(tag: &str) -> Response {
    let mut res = Response::new(Body::empty());
    *res.status_mut() = StatusCode::NOT_MODIFIED;
    if let Some(v) = etag::header_value(tag) {
        res.headers_mut().insert(header::ETAG, v);
    }
    res
}

/// A 200 with its `ETag`, or a bodiless 304 when `If-None-Match` names it. A conditional
/// request's tag is remembered with the data generation the body was computed at.
fn validated_response(
    state: &AppState,
    answer: answers::KeptAnswer,
    request: &HeaderMap,
    conditional: Option<(Conditional, u64)>,
) -> Response {
    let answers::KeptAnswer { body: bytes, tag } = answer;
    if let Some((c, generation)) = conditional {
        state.validators.remember(c.key, generation, &tag);
    }
    if etag::matches(request, &tag) {
        return not_modified(&tag);
    }
    let mut res = json_bytes(StatusCode::OK, bytes);
    if let Some(v) = etag::header_value(&tag) {
        res.headers_mut().insert(header::ETAG, v);
    }
    res
}

async fn serve(
    State(state): State<Arc<AppState>>,
    endpoint: Endpoint,
    param: Option<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes().to_vec());
    let v4 = headers
        .get("strapi-response-format")
        .is_some_and(|v| v.as_bytes() == b"v4");
    // The key of kept answers and tags: only built where one of them is used.
    let key = (state.answers.enabled() || etag::is_conditional(&headers)).then(|| {
        let target = uri.path_and_query().map_or("", |p| p.as_str());
        etag::RequestKey::new(target, authorization.as_deref(), v4)
    });
    let request = Request {
        endpoint,
        param,
        raw: uri.query().unwrap_or("").to_string(),
        conditional: key.as_ref().and_then(|key| Conditional::of(&headers, key)),
        key,
        authorization,
        v4,
    };
    let wait = state.store.pool().wait_timeout();
    let permit = match tokio::time::timeout(wait, state.workers.clone().acquire_owned()).await {
        Ok(Ok(permit)) => permit,
        Ok(Err(_)) => {
            return ApiError::Unavailable("the server is shutting down".into()).into_response();
        }
        Err(_) => {
            let msg = format!("every database connection stayed busy for {wait:?}");
            return ApiError::Unavailable(msg).into_response();
        }
    };
    // On SQLite most requests take well under a millisecond, less than handing them to
    // a blocking thread and back costs (two thread wake-ups: a third of a plain page's
    // server time). So they run here, on the event loop, within a budget; one that runs
    // past it is interrupted (its reads are idempotent) and answered again on a blocking
    // thread, so the event loop is never held longer than the budget.
    if let Some(budget) = state.config.inline_budget
        && let Some(outcome) = state
            .store
            .within_budget(budget, || answer(&state, &request))
    {
        if !matches!(outcome, Err(ApiError::OverBudget)) {
            drop(permit);
            return respond(&state, outcome, &headers);
        }
        tracing::debug!(
            ?budget,
            "past its budget on the event loop: answered on a blocking thread"
        );
    }
    let task_state = Arc::clone(&state);
    let result = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        // Past the request's time its statements stop (the timeout has answered it), so
        // a read that would run for minutes gives its connection back.
        let limit = task_state.config.request_timeout;
        task_state
            .store
            .within_limit(limit, || answer(&task_state, &request))
    })
    .await;
    match result {
        Ok(outcome) => respond(&state, outcome, &headers),
        Err(e) => ApiError::Internal(e.to_string()).into_response(),
    }
}

/// The response to what [`answer`] found.
fn respond(
    state: &AppState,
    outcome: Result<(Answer, Option<(Conditional, u64)>), ApiError>,
    headers: &HeaderMap,
) -> Response {
    match outcome {
        Ok((Answer::Body(body), conditional)) => {
            validated_response(state, body, headers, conditional)
        }
        Ok((Answer::NotModified(tag), _)) => not_modified(&tag),
        Err(e) => e.into_response(),
    }
}

/// What one request asks, as [`answer`] reads it.
struct Request {
    endpoint: Endpoint,
    /// The route's `{documentId}` or `{id}`.
    param: Option<String>,
    /// The raw query string.
    raw: String,
    /// The raw `Authorization` value.
    authorization: Option<Vec<u8>>,
    /// Whether the v4 response shape was asked for.
    v4: bool,
    /// What decides the answer besides the data (`answers.rs`), when answers are kept or
    /// the request is conditional.
    key: Option<etag::RequestKey>,
    conditional: Option<Conditional>,
}

/// Answers one request (on the event loop within a budget, or on a blocking thread). A
/// conditional request whose tag is still fresh gets [`Answer::NotModified`] once the
/// caller may make it, without the query; otherwise it comes back with the data
/// generation its body was computed at.
fn answer(
    state: &AppState,
    request: &Request,
) -> Result<(Answer, Option<(Conditional, u64)>), ApiError> {
    let Request {
        endpoint,
        param,
        raw,
        authorization,
        v4,
        key,
        conditional,
    } = request;
    let endpoint = *endpoint;
    let store = &state.store;
    let model = store.model();
    let grants = state.permissions.grants(authorization.as_deref())?;
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
            ApiError::Unauthorized("Missing or invalid credentials")
        } else {
            ApiError::Forbidden
        });
    }
    // Read before the query, so that the body is at least as new as the generation.
    let generation = match conditional.is_some() || state.answers.enabled() {
        true => store.data_generation()?,
        false => None,
    };
    let conditional = match (conditional, generation) {
        (Some(c), Some(generation)) => {
            if let Some(tag) = state.validators.fresh(&c.key, generation)
                && etag::matches(&c.if_none_match, &tag)
            {
                return Ok((Answer::NotModified(tag), None));
            }
            Some((c.clone(), generation))
        }
        _ => None,
    };
    if let (Some(generation), Some(key)) = (generation, key)
        && let Some(kept) = state.answers.get(key, generation)
    {
        return Ok((Answer::Body(kept), conditional));
    }
    let body = answer_body(state, endpoint, param.as_deref(), raw, *v4, schema, &grants)?;
    let answer = answers::KeptAnswer {
        tag: etag::tag(&body),
        body: body.into(),
    };
    if let (Some(generation), Some(key)) = (generation, key)
        && state.answers.enabled()
    {
        state.answers.put(key.clone(), generation, answer.clone());
    }
    Ok((Answer::Body(answer), conditional))
}

/// The body of an allowed request, as JSON text.
fn answer_body(
    state: &AppState,
    endpoint: Endpoint,
    param: Option<&str>,
    raw: &str,
    v4: bool,
    schema: SchemaId,
    grants: &permissions::RolePermissions,
) -> Result<Vec<u8>, ApiError> {
    let store = &state.store;
    let model = store.model();
    let config = if matches!(endpoint, Endpoint::Users | Endpoint::User) {
        &state.users_query
    } else {
        &state.config.query
    };
    let q = query::parse_query(raw, model, schema, &grants.find, config)?;
    let body = match endpoint {
        Endpoint::List(_) => envelope::list(&store.find_page(&q)?, &q.pagination),
        Endpoint::One(_) => {
            if q.locale == LocaleSelector::All {
                return Err(ApiError::NotFound);
            }
            envelope::one(&store.find_entry(&q, param)?.ok_or(ApiError::NotFound)?)
        }
        Endpoint::Single(_) => {
            envelope::one(&store.find_entry(&q, None)?.ok_or(ApiError::NotFound)?)
        }
        Endpoint::Users => {
            let (start, limit) = top_level_window(raw);
            let mut out = Vec::new();
            write_array(&mut out, &store.find_users(&q, start, limit)?);
            return Ok(out);
        }
        Endpoint::User => {
            let id = param
                .and_then(values::js_number)
                .ok_or(ApiError::NotFound)?;
            let mut q = q;
            q.filters = Some(add_id_condition(q.filters.take(), id));
            let list = store.find_users(&q, 0, Some(1))?;
            return match list.into_iter().next() {
                Some(user) => Ok(user.into_string().into_bytes()),
                None => Err(ApiError::NotFound),
            };
        }
    };
    if !v4 {
        return Ok(body);
    }
    // The v4 shape is rare: it is made from the v5 body's values.
    let value: Value =
        serde_json::from_slice(&body).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(serde_json::to_vec(&v4::body(model, schema, value)).unwrap_or_default())
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::io::{Read, Write};

    async fn panics() -> &'static str {
        panic!("this test's own panic")
    }

    /// A handler that panics is answered with Strapi's 500 body over a real connection,
    /// and the server goes on answering.
    #[test]
    fn a_panicking_handler_gets_a_500_not_a_dropped_connection() {
        let app = super::answering_panics(
            axum::Router::new()
                .route("/panics", axum::routing::get(panics))
                .route("/fine", axum::routing::get(|| async { "fine" })),
        );
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        rt.spawn(async move { axum::serve(listener, app).await });
        let get = |path: &str| {
            let mut conn = std::net::TcpStream::connect(addr).unwrap();
            conn.set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .unwrap();
            write!(
                conn,
                "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            .unwrap();
            let mut answer = String::new();
            conn.read_to_string(&mut answer).unwrap();
            answer
        };
        let answer = get("/panics");
        assert!(answer.starts_with("HTTP/1.1 500"), "{answer}");
        assert!(
            answer.ends_with(
                r#"{"data":null,"error":{"status":500,"name":"InternalServerError","message":"Internal Server Error"}}"#
            ),
            "{answer}"
        );
        assert!(get("/fine").ends_with("fine"));
    }
}
