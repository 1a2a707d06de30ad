//! `/graphql` (features `http` and `graphql`, off unless `ServerConfig::graphql` enables
//! it): Strapi 5.54's GraphQL queries and mutations over the same store, grants, query
//! parser and write path as REST.
//!
//! A root read query's arguments (`filters`, `pagination`, `sort`, `status`, `locale`)
//! are written as the REST query string that means the same (`filters[title][$eq]=…`),
//! parsed by `parse_query` with the caller's grants and the GraphQL page sizes, and read
//! by `Store::find_page`/`find_entry`; the entries' JSON is what the other fields read.
//! Mutations go through the REST write path. The schema is built once, when the router
//! is made.
//!
//! This module holds the routes, the order of the checks and the answer's shape;
//! `reader.rs` the store behind the root fields, `writer.rs` the mutations, `checks.rs`
//! what is refused before an operation runs.

use std::sync::Arc;

use async_graphql::Positioned;
use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::{ApiError, AppState, ServerConfig, permissions::RolePermissions};
use crate::graphql::{
    self, Populate, ReadError, Reader, RootField, RootKind, Schema, SharedReader,
};
use crate::query::{self, QueryConfig, QueryError};
use crate::store::Store;
use crate::write::{self as writes, WriteError, WriteRequest, WriteStatus};

/// Strapi's `depthLimit` (the oracle's `config/plugins.js`).
pub const DEPTH_LIMIT: usize = 10;

/// The schema and query settings the handler shares.
pub struct GraphqlState {
    schema: Result<Schema, String>,
    query: QueryConfig,
    /// The model as the plugin sees it (what a mutation's `data` is converted with).
    view: Arc<graphql::view::View>,
    /// The schema's types (what graphql-js's messages and variable coercion read).
    registry: Arc<graphql::ir::Registry>,
    /// The schema as graphql-js's introspection answers it (`__schema`, `__type`).
    introspection: Arc<graphql::introspect::Introspection>,
    /// The root fields the store answers and the fields that load something (what the
    /// fast path of plain reads walks with).
    roots: Arc<std::collections::HashMap<String, RootField>>,
    catalog: Arc<graphql::Catalog>,
    /// How argument values are coerced before they are read (the executor's and the
    /// fast path's alike).
    coercions: Arc<graphql::Coercions>,
    /// The documents already parsed (and the requests validated as plain reads).
    documents: graphql::document::Documents,
    /// The texts of Apollo's automatic persisted queries.
    persisted: persisted::PersistedQueries,
}

impl GraphqlState {
    /// Builds the schema of the store's model.
    pub fn new(store: &Store, config: &ServerConfig) -> Self {
        let query = QueryConfig {
            default_limit: config.graphql.default_limit,
            max_limit: Some(config.graphql.max_limit),
            with_count: true,
            // The GraphQL schema already decides which arguments exist.
            strict_params: false,
            ..config.query.clone()
        };
        let model = store.model();
        let registry = graphql::registry(model);
        let roots = graphql::roots(model, &registry);
        let catalog = Arc::new(graphql::catalog(model));
        let coercions = Arc::new(graphql::Coercions::new(&registry));
        GraphqlState {
            schema: graphql::schema_of(&registry, &roots, &catalog, &coercions)
                .map_err(|e| e.to_string()),
            query,
            view: Arc::new(graphql::view::View::of(model)),
            introspection: Arc::new(graphql::introspect::Introspection::new(&registry)),
            roots: Arc::new(roots),
            catalog,
            coercions,
            registry: Arc::new(registry),
            documents: graphql::document::Documents::default(),
            persisted: persisted::PersistedQueries::default(),
        }
    }
}

mod checks;
mod persisted;
mod reader;
mod request;
mod writer;

use checks::*;
use reader::*;

/// `POST /graphql`: `{query, variables, operationName}` as JSON, read by Strapi's body
/// parser first (its `SyntaxError` for a body that is no JSON object or array).
pub async fn post(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Response {
    let body = match super::write::read_body(&state, &headers, body).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let request = request::from_post(body).map_err(str::to_owned);
    negotiated(
        &headers,
        execute(state, &headers, request, Verb::Post).await,
    )
}

/// What kind of answer of Apollo Server's a response is (its `Content-Type` is then
/// negotiated); a response without it (a 401 of Strapi's authentication) keeps its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Apollo {
    /// Refused before the operation ran (`errorResponse`: the negotiated type, else JSON).
    Refused,
    /// The operation's result, errors included (`runHttpQuery`: the negotiated type,
    /// else a 406).
    Ran,
}

/// The media types Apollo Server offers for a single result, in its order.
const OFFERED: [&str; 3] = [
    "application/json; charset=utf-8",
    "application/graphql-response+json; charset=utf-8",
    "application/json; callbackSpec=1.0; charset=utf-8",
];

/// Apollo's `chooseContentTypeForSingleResultResponse`: JSON without `Accept`, else the
/// offer `Accept` prefers; a result nothing acceptable can carry is a 406 (after the
/// operation ran, as in Apollo).
fn negotiated(headers: &HeaderMap, mut response: Response) -> Response {
    let Some(kind) = response.extensions().get::<Apollo>().copied() else {
        return response;
    };
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty());
    let chosen = match accept {
        None => Some(OFFERED[0]),
        Some(accept) => super::accept::preferred(accept, &OFFERED),
    };
    let content_type = match (chosen, kind) {
        (Some(t), _) => t,
        (None, Apollo::Refused) => OFFERED[0],
        (None, Apollo::Ran) => {
            let message = format!(
                "An 'accept' header was provided for this request which does not accept {} or {}",
                OFFERED[0], OFFERED[1]
            );
            return refused_response(
                StatusCode::NOT_ACCEPTABLE,
                vec![json!({"message": message, "extensions": {"code": "BAD_REQUEST"}})],
            );
        }
    };
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
}

/// Strapi's authentication of a `/graphql` request before Apollo sees it (an API
/// token's `last_used_at` moves; bad credentials are its 401).
async fn authenticated(state: &Arc<AppState>, headers: &HeaderMap) -> Result<(), Response> {
    let auth_state = Arc::clone(state);
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes().to_vec());
    let checked = tokio::task::spawn_blocking(move || {
        auth_state
            .permissions
            .grants(authorization.as_deref())
            .map(|_| ())
    })
    .await;
    match checked {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.into_response()),
        Err(e) => Err(ApiError::Internal(e.to_string()).into_response()),
    }
}

/// Any other method on `/graphql` (Strapi routes them all to Apollo, `HEAD` and a plain
/// `OPTIONS` included): authenticated, then Apollo's CSRF check, then its 405.
pub async fn other_method(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if let Err(refused) = authenticated(&state, &headers).await {
        return refused;
    }
    if !preflighted(&headers) {
        return csrf_refusal();
    }
    apollo_405(
        "Apollo Server supports only GET/POST requests.",
        "GET, POST",
    )
}

/// Apollo's 405, with the methods it takes for the request in `Allow`.
fn apollo_405(message: &str, allow: &'static str) -> Response {
    let mut res = errors_response(
        StatusCode::METHOD_NOT_ALLOWED,
        vec![json!({"message": message, "extensions": {"code": "BAD_REQUEST"}})],
    );
    res.headers_mut()
        .insert(header::ALLOW, header::HeaderValue::from_static(allow));
    res
}

/// Marks every answer of `/graphql` as the plugin's own `@koa/cors()` answers it: any
/// origin may read it (see [`super::cors::AnyOrigin`]).
pub async fn any_origin(mut response: Response) -> Response {
    response.extensions_mut().insert(super::cors::AnyOrigin);
    response
}

/// `GET /graphql?query=…&variables=…&operationName=…`.
pub async fn get(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let request = request::from_get(raw.as_deref().unwrap_or(""));
    negotiated(&headers, execute(state, &headers, request, Verb::Get).await)
}

/// Apollo's refusal of a request a browser would not have preflighted.
fn csrf_refusal() -> Response {
    bad_request(CSRF_MESSAGE)
}

fn bad_request(message: &str) -> Response {
    refused_response(
        StatusCode::BAD_REQUEST,
        vec![json!({"message": message, "extensions": {"code": "BAD_REQUEST"}})],
    )
}

/// An answer of Apollo's after the operation ran (its `Content-Type` is negotiated).
fn json_response(status: StatusCode, body: &Value) -> Response {
    ran_response(status, serde_json::to_vec(body).unwrap_or_default())
}

/// [`json_response`] of JSON text already written (Apollo's `prettyJSONStringify` ends
/// every answer with a newline).
fn ran_response(status: StatusCode, mut body: Vec<u8>) -> Response {
    body.push(b'\n');
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body,
    )
        .into_response();
    response.extensions_mut().insert(Apollo::Ran);
    response
}

/// Apollo's refusal of a request before the operation runs (a bad body, CSRF).
fn refused_response(status: StatusCode, errors: Vec<Value>) -> Response {
    let mut response = errors_response(status, errors);
    response.extensions_mut().insert(Apollo::Refused);
    response
}

fn errors_response(status: StatusCode, errors: Vec<Value>) -> Response {
    json_response(status, &json!({ "errors": errors }))
}

/// The HTTP method a GraphQL request came with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    Get,
    Post,
}

/// Runs a request Apollo read (`Err`: its words for a request it cannot read, given
/// after its CSRF check). Strapi authenticates the caller before Apollo sees the request,
/// so bad credentials are a 401 whatever Apollo would have refused; strata
/// authenticates a request it refuses before running it only then ([`before_auth`]), and
/// the others where they run.
async fn execute(
    state: Arc<AppState>,
    headers: &HeaderMap,
    request: Result<request::Received, String>,
    verb: Verb,
) -> Response {
    let response = run(state.clone(), headers, request, verb).await;
    if response.extensions().get::<BeforeAuth>().is_some()
        && let Err(refused) = authenticated(&state, headers).await
    {
        return refused;
    }
    response
}

/// Marks a refusal made before the caller was authenticated.
#[derive(Debug, Clone, Copy)]
struct BeforeAuth;

fn before_auth(mut response: Response) -> Response {
    response.extensions_mut().insert(BeforeAuth);
    response
}

async fn run(
    state: Arc<AppState>,
    headers: &HeaderMap,
    request: Result<request::Received, String>,
    verb: Verb,
) -> Response {
    if !preflighted(headers) {
        return before_auth(csrf_refusal());
    }
    let received = match request {
        Ok(received) => received,
        Err(message) => return before_auth(bad_request(&message)),
    };
    if received.variables_too_deep {
        return before_auth(variables_too_deep());
    }
    // The state exists when GraphQL is enabled, and the route only then.
    let Some(gql) = state.graphql.as_ref() else {
        return ApiError::NotFound.into_response();
    };
    let mut request = received.request;
    let register = match gql
        .persisted
        .resolve(received.persisted.as_ref(), &request.query)
    {
        Ok(persisted::Persisted::No) => None,
        Ok(persisted::Persisted::Register(hash)) => Some((hash, request.query.clone())),
        Ok(persisted::Persisted::Found(text)) => {
            request.query = text;
            None
        }
        Err(refused) => return before_auth(refused.response()),
    };
    if request.query.is_empty() {
        return before_auth(bad_request(request::NO_QUERY));
    }
    let response = run_query(state.clone(), headers, request, verb).await;
    // Apollo keeps a persisted query's text once it passed validation: strata once it
    // ran (a 200; a variable it cannot coerce, which Apollo finds after validation, is a
    // 400 here, and the text is not kept).
    if let (Some((hash, text)), true) = (register, response.status() == StatusCode::OK) {
        gql.persisted.keep(hash, &text);
    }
    response
}

/// A 400 refusing a request past one of [`graphql::nesting`]'s bounds, with `code`.
fn past_bound(message: String, code: &str) -> Response {
    errors_response(
        StatusCode::BAD_REQUEST,
        vec![json!({"message": message, "extensions": {"code": code}})],
    )
}

/// The 400 of a document that nests deeper than [`graphql::nesting::MAX_NESTING`],
/// before anything recursive walks it.
fn too_nested(request: &async_graphql::Request) -> Option<Response> {
    use graphql::nesting::{MAX_NESTING, document_exceeds};
    document_exceeds(&request.query, MAX_NESTING).then(|| {
        let message = format!("Syntax Error: the document nests deeper than {MAX_NESTING} levels.");
        past_bound(message, "GRAPHQL_PARSE_FAILED")
    })
}

/// The 400 of variables that nest deeper than [`graphql::nesting::MAX_NESTING`]
/// (found before async-graphql converted them: [`request::Received`]).
fn variables_too_deep() -> Response {
    let message = format!(
        "Variable values nest deeper than {} levels.",
        graphql::nesting::MAX_NESTING
    );
    past_bound(message, "BAD_USER_INPUT")
}

/// [`run`] for a request with its query text.
async fn run_query(
    state: Arc<AppState>,
    headers: &HeaderMap,
    mut request: async_graphql::Request,
    verb: Verb,
) -> Response {
    let Some(gql) = state.graphql.as_ref() else {
        return ApiError::NotFound.into_response();
    };
    if let Some(refused) = too_nested(&request) {
        return before_auth(refused);
    }
    let parsed = match gql.documents.parse(&request.query) {
        Ok(parsed) => parsed,
        Err(e) => {
            // What graphql-js parses and then refuses in validation (two operations of
            // one name, an anonymous one beside others).
            if let Some(errors) = graphql::js_validation::parse_error(&request.query, &e) {
                let errors = errors
                    .iter()
                    .map(|(message, at)| validation_error(message, at))
                    .collect();
                return before_auth(errors_response(StatusCode::BAD_REQUEST, errors));
            }
            let locations: Vec<Value> = e
                .positions()
                .map(|p| json!({"line": p.line, "column": p.column}))
                .collect();
            return before_auth(errors_response(
                StatusCode::BAD_REQUEST,
                vec![json!({
                    "message": format!("Syntax Error: {e}"),
                    "locations": locations,
                    "extensions": {"code": "GRAPHQL_PARSE_FAILED"},
                })],
            ));
        }
    };
    let doc = &parsed.document;
    if graphql::nesting::document_too_large(doc) {
        let message = format!(
            "The query is too large once its fragments are expanded (more than {} fields, or spreads chained more than {} deep).",
            graphql::nesting::MAX_EXPANDED_FIELDS,
            graphql::nesting::MAX_NESTING
        );
        return before_auth(past_bound(message, "GRAPHQL_VALIDATION_FAILED"));
    }
    // graphql-depth-limit throws on a fragment the document does not define, and
    // overflows on a cycle of spreads that passes no field.
    if graphql::graphql_js::depth_limit_throws(doc, DEPTH_LIMIT) {
        return before_auth(errors_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            vec![json!({
                "message": "Internal server error",
                "extensions": {"code": "INTERNAL_SERVER_ERROR"},
            })],
        ));
    }
    // Apollo refuses a mutation over GET (a link or an image could send it), once Strapi
    // has authenticated the caller (an API token's `last_used_at` moves; a bad one is a
    // 401).
    if verb == Verb::Get && runs_mutation(doc, request.operation_name.as_deref()) {
        if let Err(refused) = authenticated(&state, headers).await {
            return refused;
        }
        return apollo_405(
            "GET requests only support query operations, not mutation operations",
            "POST",
        );
    }
    if !state.config.graphql.introspection {
        let refused = introspection_errors(doc);
        if !refused.is_empty() {
            return before_auth(errors_response(StatusCode::BAD_REQUEST, refused));
        }
    }
    let too_deep = depth_errors(doc, DEPTH_LIMIT);
    if !too_deep.is_empty() {
        return before_auth(errors_response(StatusCode::BAD_REQUEST, too_deep));
    }
    let schema = match &gql.schema {
        Ok(schema) => schema.clone(),
        Err(e) => return ApiError::Internal(e.clone()).into_response(),
    };
    // graphql-js coerces the variables before it executes (Apollo: 400 BAD_USER_INPUT).
    let mut variables = serde_json::to_value(&request.variables).unwrap_or(Value::Null);
    let coerced = graphql::graphql_js::variable_errors(
        &gql.registry,
        &gql.view,
        doc,
        request.operation_name.as_deref(),
        &mut variables,
    );
    if !coerced.errors.is_empty() {
        return before_auth(errors_response(StatusCode::BAD_REQUEST, coerced.errors));
    }
    // As graphql-js coerced them (a whole float given for an `Int` is the integer).
    if coerced.changed {
        request.variables = async_graphql::Variables::from_json(variables.clone());
    }
    // A literal that the plugin's scalars refuse (a zone item's, a date's) fails
    // validation; async-graphql's takes any value for a custom scalar, and misses an
    // `Int` past 32 bits and an enumeration given a string (`Found::missed`).
    let literals = graphql::literals::Literals {
        registry: &gql.registry,
        view: &gql.view,
        source: &request.query,
    }
    .arguments(doc, request.operation_name.as_deref());
    if literals.missed {
        return before_auth(errors_response(
            StatusCode::BAD_REQUEST,
            walked_errors(&literals),
        ));
    }
    // Fields of one response key under different members of a union must not return
    // conflicting types (graphql-js's `OverlappingFieldsCanBeMergedRule`; async-graphql
    // checks fields of one parent only). Found, the document is validated, not run.
    let merge_conflicts: Vec<((usize, usize), Value)> = parsed
        .type_conflicts(|doc| graphql::field_merge::type_conflicts(&gql.registry, doc))
        .iter()
        .map(|(set, (message, at))| ((set.line, set.column), validation_error(message, at)))
        .collect();
    if !merge_conflicts.is_empty() {
        request = request.only_introspection();
    }
    // `__schema` and `__type` are answered as graphql-js answers them (`introspect`);
    // async-graphql runs the rest of the document (nothing of it when the introspection
    // selections are invalid: only their validation).
    let introspection =
        gql.introspection
            .prepare(doc, request.operation_name.as_deref(), &variables);
    if let Some(prepared) = &introspection {
        request.set_parsed_query(prepared.document.clone());
        if !prepared.errors.is_empty() {
            request = request.only_introspection();
        }
    }
    let registry = gql.registry.clone();
    let source = request.query.clone();
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes().to_vec());
    let query = gql.query.clone();
    let view = gql.view.clone();
    // Credentials and the resolvers read the store synchronously: off the event loop.
    let plain = (introspection.is_none() && merge_conflicts.is_empty()).then(|| PlainParts {
        registry: gql.registry.clone(),
        roots: gql.roots.clone(),
        catalog: gql.catalog.clone(),
        coercions: gql.coercions.clone(),
    });
    let document = parsed.clone();
    let prepared_document = introspection.as_ref().map(|p| p.document.clone());
    let types = gql.registry.clone();
    let operation = request.operation_name.clone();
    // Past the request's time its statements stop, so they give their connection back.
    let (store, limit) = (state.store.clone(), state.config.request_timeout);
    let answer = tokio::task::spawn_blocking(move || {
        store.within_limit(limit, move || {
            let caller = state.permissions.caller(authorization.as_deref())?;
            let reader: SharedReader = Arc::new(StoreReader {
                store: state.store.clone(),
                grants: caller.grants,
                user: caller.user,
                query,
                view,
            });
            if let Some(parts) = plain {
                let asked = Asked {
                    parsed: &document,
                    request: &request,
                    variables: &variables,
                };
                if let Some(text) = plain_answer(&schema, &asked, &parts, &*reader) {
                    return Ok(Answer::Written(text));
                }
            }
            // Parsed once: the executor takes the document instead of the text, with a
            // `__typename` in each selection that may collect no field (graphql-js's `{}`).
            let mut executed = prepared_document.unwrap_or_else(|| document.document.clone());
            let kept = graphql::empty_objects::keep_empty_objects(&types, &mut executed);
            request.set_parsed_query(executed);
            let mut response = graphql::block_on(schema.execute(request.data(reader)));
            if kept {
                graphql::empty_objects::drop_kept(&mut response.data);
            }
            // Resolvers whose statements stopped at the request's limit answered errors;
            // the request is the timeout layer's 408, whichever comes first.
            if !response.errors.is_empty() && crate::store::limit::passed() {
                return Err(ApiError::TimedOut);
            }
            Ok::<_, ApiError>(Answer::Executed(response))
        })
    })
    .await;
    let response = match answer {
        Ok(Ok(Answer::Written(text))) => return ran_response(StatusCode::OK, text.into_bytes()),
        Ok(Ok(Answer::Executed(r))) => r,
        Ok(Err(e)) => return e.into_response(),
        Err(e) => return ApiError::Internal(e.to_string()).into_response(),
    };
    let validation_failed = !response.errors.is_empty()
        && response.data == async_graphql::Value::Null
        && response.errors.iter().all(|e| {
            let resolved = e
                .extensions
                .as_ref()
                .is_some_and(|x| x.get(graphql::PATH_EXTENSION).is_some());
            e.path.is_empty() && !resolved
        });
    if validation_failed {
        // async-graphql reports an argument's first invalid value; graphql-js every one:
        // the literal walk's errors take the place of the first such error.
        let mut walked = Some(walked_errors(&literals)).filter(|w| !w.is_empty());
        let mut errors = Vec::new();
        let mut subscription = None;
        for e in &response.errors {
            // graphql-js has no root type to check a subscription's fields against; its
            // execution then refuses the operation (200, `data: null`).
            if e.message == "Schema is not configured for subscriptions." {
                subscription = e.locations.first().map(|p| (p.line, p.column));
                continue;
            }
            if !graphql::js_validation::reported(&registry, &e.message) {
                continue;
            }
            let of_walked_argument = e.message.starts_with("Invalid value for argument ")
                && e.locations
                    .first()
                    .is_some_and(|p| literals.arguments.contains(&(p.line, p.column)));
            // The walk's errors hold every error of the arguments it walked: they come
            // once, where async-graphql's first error of one of them was.
            if of_walked_argument {
                if let Some(found) = walked.take() {
                    errors.extend(found);
                }
                continue;
            }
            errors.push(graphql_js_error(&registry, &source, doc, e));
        }
        // async-graphql reports a conflict once per differing argument; graphql-js once.
        errors.dedup();
        graphql::js_validation::undefined_variables_in_use_order(&mut errors);
        if let (Some((line, column)), true) = (subscription, errors.is_empty()) {
            return json_response(
                StatusCode::OK,
                &json!({
                    "errors": [{
                        "message": "Schema is not configured to execute subscription operation.",
                        "locations": [{"line": line, "column": column}],
                        "extensions": {"code": "INTERNAL_SERVER_ERROR"},
                    }],
                    "data": null,
                }),
            );
        }
        in_document_order(&mut errors, merge_conflicts);
        introspection_validation(introspection.as_ref(), &mut errors);
        return errors_response(StatusCode::BAD_REQUEST, errors);
    }
    let refused_introspection = introspection.as_ref().filter(|p| !p.errors.is_empty());
    if refused_introspection.is_some() || !merge_conflicts.is_empty() {
        let mut errors = Vec::new();
        in_document_order(&mut errors, merge_conflicts);
        introspection_validation(refused_introspection, &mut errors);
        return errors_response(StatusCode::BAD_REQUEST, errors);
    }
    if response.errors.is_empty() && introspection.is_none() {
        // Nothing to rewrite: the answer serialized as it is (`{"data": …}`).
        return match serde_json::to_vec(&response) {
            Ok(bytes) => ran_response(StatusCode::OK, bytes),
            Err(e) => ApiError::Internal(e.to_string()).into_response(),
        };
    }
    let mut body = match serde_json::to_value(&response) {
        Ok(v) => v,
        Err(e) => return ApiError::Internal(e.to_string()).into_response(),
    };
    strapi_errors(&mut body, &|path| {
        graphql::nulls::nulled_prefix(&registry, doc, operation.as_deref(), path)
    });
    if let (Some(prepared), Some(data)) = (&introspection, body.get_mut("data")) {
        prepared.merge(data);
    }
    json_response(StatusCode::OK, &body)
}

/// The literal walk's errors, as graphql-js's validation reports them.
fn walked_errors(literals: &graphql::literals::Found) -> Vec<Value> {
    literals
        .errors
        .iter()
        .map(|(message, at)| validation_error(message, at))
        .collect()
}

/// One of async-graphql's validation errors, as graphql-js words and places it.
fn graphql_js_error(
    registry: &graphql::ir::Registry,
    source: &str,
    doc: &ExecutableDocument,
    error: &async_graphql::ServerError,
) -> Value {
    if let Some(resolution) = operation_resolution_error(&error.message) {
        return resolution;
    }
    let at: Vec<(usize, usize)> = error.locations.iter().map(|p| (p.line, p.column)).collect();
    let (message, at) = graphql::js_validation::rewrite(registry, source, doc, &error.message, &at)
        .or_else(|| graphql::graphql_js::rewrite(registry, source, doc, &error.message, &at))
        .unwrap_or_else(|| (graphql_js_message(&error.message), at));
    validation_error(&message, &at)
}

/// How an operation was answered.
enum Answer {
    /// By the fast path of plain reads: the response's text.
    Written(String),
    /// By the executor.
    Executed(async_graphql::Response),
}

/// What the fast path of plain reads walks with (shared by every request).
struct PlainParts {
    registry: Arc<graphql::ir::Registry>,
    roots: Arc<std::collections::HashMap<String, RootField>>,
    catalog: Arc<graphql::Catalog>,
    coercions: Arc<graphql::Coercions>,
}

/// A request as the fast path reads it.
struct Asked<'a> {
    parsed: &'a graphql::document::Parsed,
    request: &'a async_graphql::Request,
    /// The request's variables as JSON.
    variables: &'a Value,
}

/// The fast path ([`graphql::Plain`]): a query whose selections are plain reads is
/// validated by the executor without running any resolver (its introspection-only
/// mode; once per document, operation and variables), then answered by one walk over
/// the entries, which writes the response's text. `None`: the executor answers
/// (anything not plain, or invalid, or an error on the way).
fn plain_answer(
    schema: &Schema,
    asked: &Asked<'_>,
    parts: &PlainParts,
    reader: &dyn graphql::Reader,
) -> Option<String> {
    let plain = graphql::Plain {
        registry: &parts.registry,
        roots: &parts.roots,
        catalog: &parts.catalog,
        coercions: &parts.coercions,
    };
    let operation = asked.request.operation_name.as_deref();
    let variables = &asked.request.variables;
    let doc = &asked.parsed.document;
    let planned = plain.plan(doc, operation, variables)?;
    let key = graphql::document::Parsed::request_key(operation, asked.variables);
    if !asked.parsed.is_validated(&key) {
        let mut check = async_graphql::Request::new(String::new())
            .variables(variables.clone())
            .only_introspection();
        if let Some(name) = operation {
            check = check.operation_name(name);
        }
        check.set_parsed_query(doc.clone());
        if !graphql::block_on(schema.execute(check)).errors.is_empty() {
            return None;
        }
        asked.parsed.validated(key);
    }
    planned.answer(reader)
}

/// The overlapping fields' conflicts (each with the start of the selection set it was
/// found in) among the other validation `errors` (in the document's order of their first
/// location): graphql-js reports a set's conflicts on entering it, before what the set
/// holds; a stable sort keeps the conflicts' own order.
fn in_document_order(errors: &mut Vec<Value>, conflicts: Vec<((usize, usize), Value)>) {
    if conflicts.is_empty() {
        return;
    }
    let mut all: Vec<((u64, u64), bool, Value)> = errors
        .drain(..)
        .map(|e| (first_location(&e), true, e))
        .collect();
    all.extend(conflicts.into_iter().map(|((line, column), e)| {
        let at = (
            u64::try_from(line).unwrap_or(0),
            u64::try_from(column).unwrap_or(0),
        );
        (at, false, e)
    }));
    all.sort_by_key(|(at, other, _)| (*at, *other));
    errors.extend(all.into_iter().map(|(_, _, e)| e));
}

/// An error's first location, `(0, 0)` without one.
fn first_location(e: &Value) -> (u64, u64) {
    let at = &e["locations"][0];
    (
        at["line"].as_u64().unwrap_or(0),
        at["column"].as_u64().unwrap_or(0),
    )
}

/// The introspection selections' validation errors among async-graphql's, in the
/// document's order.
fn introspection_validation(
    prepared: Option<&graphql::introspect::Prepared>,
    errors: &mut Vec<Value>,
) {
    let Some(prepared) = prepared.filter(|p| !p.errors.is_empty()) else {
        return;
    };
    errors.extend(
        prepared
            .errors
            .iter()
            .map(|(message, at)| validation_error(message, at)),
    );
    errors.sort_by_key(first_location);
}

/// Apollo's answer shape: a resolver's error has its `path` and no `locations`; the
/// position it nulls is null in `data` (`nulled_prefix`: how many segments of an error's
/// path name it, graphql-js's propagation; a path it cannot follow nulls one level up
/// for a non-null field), `data` itself for a non-null root field. graphql-js reports an
/// error where a nullable position catches it, so of the errors under one nulled
/// position only the first is reported: the others were never reached (a list's items
/// complete in order) or were lost with the position.
fn strapi_errors(body: &mut Value, nulled_prefix: &dyn Fn(&[Value]) -> Option<usize>) {
    let mut nulled: Vec<Vec<Value>> = Vec::new();
    if let Some(Value::Array(errors)) = body.get_mut("errors") {
        errors.retain_mut(|error| {
            let Some(map) = error.as_object_mut() else {
                return true;
            };
            let Some(Value::Object(ext)) = map.get_mut("extensions") else {
                return true;
            };
            let path = ext.remove(graphql::PATH_EXTENSION);
            let non_null = ext.remove(graphql::NON_NULL_EXTENSION);
            // `formatGraphqlError`'s new error for one it does not recognise.
            let pathless = ext.remove(graphql::NO_PATH_EXTENSION).is_some();
            // A plain `Error` (no Strapi error in `extensions`) keeps its `locations`.
            let plain = !ext.contains_key("error");
            let Some(path) = path else {
                return true;
            };
            let segments = path.as_array().cloned().unwrap_or_default();
            if nulled.iter().any(|n| segments.starts_with(n)) {
                return false;
            }
            let own = segments
                .len()
                .saturating_sub(usize::from(non_null == Some(Value::Bool(true))));
            let n = nulled_prefix(&segments).unwrap_or(own);
            nulled.push(segments[..n.min(segments.len())].to_vec());
            if !plain || pathless {
                map.remove("locations");
            }
            if pathless {
                return true;
            }
            // `path` before `extensions`, as Apollo writes it.
            let extensions = map.remove("extensions");
            map.insert("path".into(), path);
            if let Some(extensions) = extensions {
                map.insert("extensions".into(), extensions);
            }
            true
        });
    }
    let Some(object) = body.as_object_mut() else {
        return;
    };
    if nulled.iter().any(Vec::is_empty) {
        object.insert("data".into(), Value::Null);
    } else {
        let data = object
            .entry("data")
            .or_insert_with(|| Value::Object(Map::new()));
        if data.is_null() && !nulled.is_empty() {
            *data = Value::Object(Map::new());
        }
        for path in nulled {
            set_null(data, &path);
        }
    }
}

/// Sets the value at `path` (keys and indexes) to `null`, where its parent exists.
fn set_null(mut at: &mut Value, path: &[Value]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    for segment in parents {
        object_of_failed_fields(at, segment);
        let next = match (segment, at) {
            (Value::String(k), Value::Object(map)) => map.get_mut(k),
            (Value::Number(n), Value::Array(items)) => n
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| items.get_mut(i)),
            _ => None,
        };
        match next {
            Some(v) => at = v,
            None => return,
        }
    }
    object_of_failed_fields(at, last);
    match (last, at) {
        (Value::String(k), Value::Object(map)) => {
            map.insert(k.clone(), Value::Null);
        }
        (Value::Number(n), Value::Array(items)) => {
            if let Some(item) = n
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| items.get_mut(i))
            {
                *item = Value::Null;
            }
        }
        _ => {}
    }
}

/// An object whose every selected field failed is `null` in async-graphql's answer (it
/// leaves a failed field out, and an object without keys is `null`); an error below it
/// that nulls a field, not the object, shows it was resolved: graphql-js's object of
/// `null` fields. So a `null` reached on the way to a field's key becomes an object.
fn object_of_failed_fields(at: &mut Value, next: &Value) {
    if at.is_null() && next.is_string() {
        *at = Value::Object(Map::new());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn arguments_become_the_rest_query_that_means_the_same() {
        let raw = query_string(&args(json!({
            "filters": {"or": [{"title": {"containsi": "a&b"}}], "author": {"name": {"null": true}}},
            "sort": ["title:asc"],
            "pagination": {"page": 2, "pageSize": 5},
            "status": "DRAFT",
            "locale": "fr",
            "documentId": "x",
        })))
        .unwrap();
        assert_eq!(
            raw,
            "filters%5B%24or%5D%5B0%5D%5Btitle%5D%5B%24containsi%5D=a%26b\
             &filters%5Bauthor%5D%5Bname%5D%5B%24null%5D=true\
             &sort%5B0%5D=title%3Aasc&pagination%5Bpage%5D=2&pagination%5BpageSize%5D=5\
             &status=draft&locale=fr"
        );
        assert_eq!(
            query_string(&args(json!({"hasPublishedVersion": false}))).unwrap(),
            "hasPublishedVersion=false"
        );
        assert_eq!(
            query_string(&args(
                json!({"publicationFilter": "HAS_PUBLISHED_VERSION_DOCUMENT"})
            ))
            .unwrap(),
            "publicationFilter=has-published-version-document"
        );
        assert_eq!(
            query_string(&args(json!({"hasPublishedVersion": null}))).unwrap(),
            ""
        );
        assert!(query_string(&args(json!({"unknown": 1}))).is_err());
    }

    #[test]
    fn zone_members_and_localizations_become_rest_populate() {
        let mut author = Populate::default();
        author
            .0
            .insert("author".into(), graphql::PopulateNode::default());
        let mut on = std::collections::BTreeMap::new();
        on.insert("shared.quote".into(), author);
        on.insert("shared.rich-text".into(), Populate::default());
        let mut populate = Populate::default();
        populate.0.insert(
            "blocks".into(),
            graphql::PopulateNode {
                on,
                ..Default::default()
            },
        );
        populate
            .0
            .insert("localizations".into(), graphql::PopulateNode::default());
        let mut pairs = Vec::new();
        populate_pairs("populate", &populate, &mut pairs);
        let decoded: Vec<String> = pairs.iter().map(|p| request::decode(p)).collect();
        assert_eq!(
            decoded,
            [
                "populate[blocks][on][shared.quote][populate][author]=true",
                "populate[blocks][on][shared.rich-text]=true",
                "populate[localizations][sort][0]=id:asc",
            ]
        );
    }

    #[test]
    fn get_parameters_decode_without_panicking() {
        assert_eq!(request::decode("a%20b+c%"), "a b c%");
        assert_eq!(request::decode("%C3%A9%zz%4"), "é%zz%4");
        assert_eq!(request::decode("é%"), "é%");
    }

    #[test]
    fn the_depth_limit_counts_as_graphql_depth_limit() {
        let depth = |q: &str| {
            let doc = async_graphql::parser::parse_query(q).unwrap();
            depth_errors(&doc, 2)
        };
        assert!(depth("{ a { b { c } } }").is_empty());
        assert!(depth("{ a { b { __typename c { __schema } } } }").len() == 1);
        assert!(depth("{ a { b { __c { d { e } } } } }").is_empty());
        let errors = depth("query Q { a { ...F } } fragment F on T { b { c { d } } }");
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0]["message"],
            "'Q' exceeds maximum operation depth of 2"
        );
        // A fragment cycle is not followed again.
        assert!(
            depth("{ a { ...F } } fragment F on T { ...G } fragment G on T { ...F }").is_empty()
        );
    }
}

/// No N+1: a nested GraphQL query runs the statements of the REST populate of the same
/// shape (counted on this thread: SQLite runs them on the caller's), however many entries
/// its page holds.
#[cfg(test)]
mod statement_count {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::store::seam::record_statements;

    fn blog_store() -> Arc<Store> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/blog");
        let model =
            Arc::new(crate::schema::load(&std::path::Path::new(root).join("schemas")).unwrap());
        let url = crate::store::DatabaseUrl::parse(&format!("sqlite://{root}/strapi.db?mode=ro"))
            .unwrap();
        Arc::new(Store::open_existing(&url, model, 1).unwrap())
    }

    fn graphql_statements(store: &Arc<Store>, page: usize) -> (Value, usize) {
        let model = store.model();
        let schema = graphql::schema(model).unwrap();
        let reader: SharedReader = Arc::new(StoreReader {
            store: store.clone(),
            grants: Arc::new(RolePermissions::all(model)),
            user: None,
            query: QueryConfig::default(),
            view: Arc::new(graphql::view::View::of(model)),
        });
        let query = format!(
            "{{ articles(pagination: {{pageSize: {page}}}, sort: \"title\") {{ title \
             author {{ name articles {{ title }} }} tags {{ name }} category {{ name }} }} }}"
        );
        let request = async_graphql::Request::new(query).data(reader);
        let (response, statements) =
            record_statements(|| graphql::block_on(schema.execute(request)));
        assert!(response.errors.is_empty(), "{:?}", response.errors);
        (response.data.into_json().unwrap(), statements.len())
    }

    fn rest_statements(store: &Arc<Store>, page: usize) -> usize {
        let model = store.model();
        let articles = model.by_plural("articles").unwrap().id;
        let raw = format!(
            "pagination[pageSize]={page}&sort=title&populate[author][populate][articles]=true\
             &populate[tags]=true&populate[category]=true"
        );
        let q = query::parse_query(
            &raw,
            model,
            articles,
            &crate::query::Permissions::all(model),
            &QueryConfig::default(),
        )
        .unwrap();
        let (page, statements) = record_statements(|| store.find_page(&q).unwrap());
        assert!(!page.entries.is_empty());
        statements.len()
    }

    #[test]
    fn a_nested_query_runs_the_statements_of_the_rest_populate() {
        let store = blog_store();
        let (few, few_statements) = graphql_statements(&store, 2);
        let (many, many_statements) = graphql_statements(&store, 20);
        assert_eq!(few["articles"].as_array().unwrap().len(), 2);
        assert_eq!(many["articles"].as_array().unwrap().len(), 20);
        assert!(few_statements > 1, "{few_statements}");
        assert_eq!(
            few_statements, many_statements,
            "statements grow with the page"
        );
        assert!(
            many_statements <= rest_statements(&store, 20),
            "GraphQL ran {many_statements} statements, REST {}",
            rest_statements(&store, 20)
        );
    }
}

/// The fast path of plain reads answers what the executor answers, and only where it may.
#[cfg(test)]
mod plain_path {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn parts_and_reader() -> (Schema, PlainParts, SharedReader) {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/blog");
        let model =
            Arc::new(crate::schema::load(&std::path::Path::new(root).join("schemas")).unwrap());
        let url = crate::store::DatabaseUrl::parse(&format!("sqlite://{root}/strapi.db?mode=ro"))
            .unwrap();
        let store = Arc::new(Store::open_existing(&url, model.clone(), 1).unwrap());
        let registry = graphql::registry(&model);
        let parts = PlainParts {
            roots: Arc::new(graphql::roots(&model, &registry)),
            catalog: Arc::new(graphql::catalog(&model)),
            coercions: Arc::new(graphql::Coercions::new(&registry)),
            registry: Arc::new(registry),
        };
        let reader: SharedReader = Arc::new(StoreReader {
            store,
            grants: Arc::new(RolePermissions::all(&model)),
            user: None,
            query: QueryConfig::default(),
            view: Arc::new(graphql::view::View::of(&model)),
        });
        (graphql::schema(&model).unwrap(), parts, reader)
    }

    fn request(query: &str, variables: Value) -> async_graphql::Request {
        let mut request = async_graphql::Request::new(query)
            .variables(async_graphql::Variables::from_json(variables));
        let doc = async_graphql::parser::parse_query(query).unwrap();
        request.set_parsed_query(doc);
        request
    }

    /// The fast path's answer, validated twice over: the second time from what the
    /// store of documents remembers.
    fn fast(
        schema: &Schema,
        parts: &PlainParts,
        reader: &dyn graphql::Reader,
        query: &str,
        variables: &Value,
    ) -> Option<String> {
        let documents = graphql::document::Documents::default();
        let request = request(query, variables.clone());
        let answers: Vec<Option<String>> = (0..2)
            .map(|_| {
                let asked = Asked {
                    parsed: &documents.parse(query).unwrap(),
                    request: &request,
                    variables,
                };
                plain_answer(schema, &asked, parts, reader)
            })
            .collect();
        assert_eq!(answers[0], answers[1], "{query}");
        answers[0].clone()
    }

    #[test]
    fn plain_reads_answer_as_the_executor_and_the_rest_go_to_it() {
        let (schema, parts, reader) = parts_and_reader();
        let plain = [
            "{ articles(sort: \"title\") { documentId title views wordCount startTime kind publishedAt } }",
            "{ articles_connection(pagination: {pageSize: 3}) { __typename nodes { ...F } pageInfo { page pageSize pageCount total } } } fragment F on Article { t: title rating }",
            "query Q($id: ID!, $l: I18NLocaleCode = \"fr\") { article(documentId: $id, locale: $l) { ... on Article { title locale } } tags { name } __typename }",
            "{ articles(filters: {title: {containsi: \"e\"}}, status: DRAFT) { title eventAt metadata } }",
            // Every scalar of the blog's articles (escaped text, blocks, JSON, decimals,
            // floats, `Long`, `Time`, enums, nulls), in each locale and status.
            "{ articles_connection(locale: \"*\", pagination: {pageSize: 100}) { nodes { documentId title slug description content body views wordCount rating price featured publishDate eventAt startTime kind metadata contactEmail createdAt updatedAt publishedAt locale } pageInfo { total pageCount } } }",
            "{ articles(status: DRAFT, locale: \"fr\", sort: [\"views:desc\", \"title\"]) { __typename title views price rating } authors { name email bio } }",
            "{ a: article(documentId: \"article00000000000000001\") { ...F } b: article(documentId: \"nope\") { ...F } } fragment F on Article { title body content }",
        ];
        for query in plain {
            let variables = json!({"id": "article00000000000000001"});
            let fast = fast(&schema, &parts, &*reader, query, &variables)
                .unwrap_or_else(|| panic!("not plain: {query}"));
            let full =
                graphql::block_on(schema.execute(request(query, variables).data(reader.clone())));
            assert!(full.errors.is_empty(), "{query}: {:?}", full.errors);
            assert_eq!(fast, serde_json::to_string(&full).unwrap(), "{query}");
        }
        let not_plain = [
            // A relation to load, a directive, an invalid field, a mutation, a forbidden
            // variable left out without a default.
            "{ articles { title author { name } } }",
            "{ articles { title @include(if: true) } }",
            "{ articles { nope } }",
            "mutation { deleteTag(documentId: \"x\") { documentId } }",
            "query Q($id: ID) { article(documentId: $id) { title } }",
        ];
        for query in not_plain {
            assert!(
                fast(&schema, &parts, &*reader, query, &json!({})).is_none(),
                "{query}"
            );
        }
    }

    #[test]
    fn a_kept_document_is_validated_per_request() {
        let (schema, parts, reader) = parts_and_reader();
        let documents = graphql::document::Documents::default();
        let query =
            "query Q($n: Int) { articles(sort: \"title\", pagination: {pageSize: $n}) { title } }";
        let ask = |variables: Value| {
            let request = request(query, variables.clone());
            let parsed = documents.parse(query).unwrap();
            let asked = Asked {
                parsed: &parsed,
                request: &request,
                variables: &variables,
            };
            plain_answer(&schema, &asked, &parts, &*reader)
        };
        let one = ask(json!({"n": 1})).unwrap();
        let two = ask(json!({"n": 2})).unwrap();
        assert_eq!(
            one,
            r#"{"data":{"articles":[{"title":"  padded   title  "}]}}"#
        );
        assert!(two.len() > one.len(), "{two}");
        // Validated for `n: 1`, not for a text: the executor answers that one.
        assert_eq!(ask(json!({"n": "x"})), None);
        assert_eq!(ask(json!({"n": 1})).unwrap(), one);
        assert!(Arc::ptr_eq(
            &documents.parse(query).unwrap(),
            &documents.parse(query).unwrap()
        ));
    }
}
