//! `/graphql` (features `http` and `graphql`, off unless `ServerConfig::graphql` enables
//! it): Strapi 5.54's GraphQL read queries over the same store, grants and query parser
//! as REST.
//!
//! A root read query's arguments (`filters`, `pagination`, `sort`, `status`, `locale`)
//! are written as the REST query string that means the same (`filters[title][$eq]=…`),
//! parsed by `parse_query` with the caller's grants and the GraphQL page sizes, and read
//! by `Store::find_page`/`find_entry`; the entries' JSON is what the other fields read.
//! The schema is built once, when the router is made.

use std::sync::Arc;

use async_graphql::Positioned;
use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, OperationDefinition, Selection, SelectionSet,
};
use axum::body::Bytes;
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
        let registry = graphql::registry(store.model());
        GraphqlState {
            schema: graphql::schema(store.model()).map_err(|e| e.to_string()),
            query,
            view: Arc::new(graphql::view::View::of(store.model())),
            introspection: Arc::new(graphql::introspect::Introspection::new(&registry)),
            registry: Arc::new(registry),
        }
    }
}

/// The request's reader: the store, with the caller's grants.
struct StoreReader {
    store: Arc<Store>,
    grants: Arc<RolePermissions>,
    /// The id of the JWT's user (`me`).
    user: Option<i64>,
    query: QueryConfig,
    view: Arc<graphql::view::View>,
}

fn forbidden() -> ReadError {
    ReadError {
        message: "Forbidden access".into(),
        name: "ForbiddenError",
        details: Box::new(json!({})),
        code: "FORBIDDEN",
    }
}

fn from_query_error(e: &QueryError) -> ReadError {
    let (_, body) = ApiError::from(e.clone()).parts();
    let error = body.get("error").cloned().unwrap_or(Value::Null);
    ReadError {
        message: error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("Invalid query")
            .to_owned(),
        name: "ValidationError",
        details: Box::new(error.get("details").cloned().unwrap_or(json!({}))),
        code: "BAD_USER_INPUT",
    }
}

fn internal(e: &dyn std::fmt::Display) -> ReadError {
    tracing::error!(error = %e, "graphql read failed");
    ReadError {
        message: "Internal Server Error".into(),
        name: "InternalServerError",
        details: Box::new(json!({})),
        code: "INTERNAL_SERVER_ERROR",
    }
}

/// Percent-encodes everything but unreserved characters.
fn encode(text: &str, out: &mut String) {
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// Appends `key=value` pairs of a JSON value under `key`, as qs reads them back;
/// `filters` keys that are operators get their `$`.
fn push_pairs(key: &str, value: &Value, filters: bool, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let name = if filters && graphql::FILTER_OPERATORS.contains(&k.as_str()) {
                    format!("${k}")
                } else {
                    k.clone()
                };
                push_pairs(&format!("{key}[{name}]"), v, filters, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                push_pairs(&format!("{key}[{i}]"), v, filters, out);
            }
        }
        other => {
            let mut pair = String::new();
            encode(key, &mut pair);
            let text = match other {
                // strictNullHandling: a key without `=` is null.
                Value::Null => {
                    out.push(pair);
                    return;
                }
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            pair.push('=');
            encode(&text, &mut pair);
            out.push(pair);
        }
    }
}

fn invalid_argument(name: &str) -> ReadError {
    ReadError {
        message: format!("Invalid value for {name}"),
        name: "ValidationError",
        details: Box::new(json!({})),
        code: "BAD_USER_INPUT",
    }
}

/// The REST query string that means what a root field's arguments mean.
fn query_string(args: &Map<String, Value>) -> Result<String, ReadError> {
    let mut pairs = Vec::new();
    for (name, value) in args {
        match name.as_str() {
            "documentId" => {}
            "filters" => push_pairs("filters", value, true, &mut pairs),
            "pagination" | "sort" | "locale" => push_pairs(name, value, false, &mut pairs),
            "status" => match value.as_str() {
                Some("DRAFT") => pairs.push("status=draft".into()),
                Some("PUBLISHED") | None => pairs.push("status=published".into()),
                Some(other) => {
                    return Err(ReadError {
                        message: format!("Invalid status {other}"),
                        name: "ValidationError",
                        details: Box::new(json!({})),
                        code: "BAD_USER_INPUT",
                    });
                }
            },
            // Not given.
            _ if value.is_null() => {}
            // The plugin's `mergePublicationFilterFromGraphQLArgs`: `publicationFilter`
            // wins over the deprecated `hasPublishedVersion`, as REST's parser has it too.
            "publicationFilter" => match value.as_str() {
                Some(value) => {
                    let mode = value.to_ascii_lowercase().replace('_', "-");
                    let mut pair = String::from("publicationFilter=");
                    encode(&mode, &mut pair);
                    pairs.push(pair);
                }
                None => return Err(invalid_argument(name)),
            },
            "hasPublishedVersion" => match value.as_bool() {
                Some(flag) => pairs.push(format!("hasPublishedVersion={flag}")),
                None => return Err(invalid_argument(name)),
            },
            other => {
                return Err(ReadError {
                    message: format!("strata does not serve the argument {other} yet"),
                    name: "NotImplementedError",
                    details: Box::new(json!({})),
                    code: "BAD_USER_INPUT",
                });
            }
        }
    }
    Ok(pairs.join("&"))
}

/// `populate[a]=true`, or `populate[a][filters]…`, `[sort]…` and `[populate][b]…`.
fn populate_pairs(key: &str, populate: &Populate, out: &mut Vec<String>) {
    for (attr, node) in &populate.0 {
        let here = format!("{key}[{attr}]");
        let before = out.len();
        if let Some(filters) = &node.filters {
            push_pairs(&format!("{here}[filters]"), filters, true, out);
        }
        match &node.sort {
            Some(sort) => push_pairs(&format!("{here}[sort]"), sort, false, out),
            // Strapi's statement for `localizations` has no `ORDER BY` (the engine's plan
            // decides): its GraphQL answers come in row order on SQLite, where its REST
            // populate comes in locale order. GraphQL's is pinned to the row id.
            None if attr == "localizations" => {
                push_pairs(&format!("{here}[sort]"), &json!(["id:asc"]), false, out);
            }
            None => {}
        }
        populate_pairs(&format!("{here}[populate]"), &node.below, out);
        // A zone's members, each listed (REST's `on` leaves the others out).
        for (uid, below) in &node.on {
            let member = format!("{here}[on][{uid}]");
            let inner = out.len();
            populate_pairs(&format!("{member}[populate]"), below, out);
            if out.len() == inner {
                let mut pair = String::new();
                encode(&member, &mut pair);
                pair.push_str("=true");
                out.push(pair);
            }
        }
        if out.len() == before {
            let mut pair = String::new();
            encode(&here, &mut pair);
            pair.push_str("=true");
            out.push(pair);
        }
    }
}

fn entry_value(entry: &crate::store::entry::Entry) -> Result<Value, ReadError> {
    serde_json::from_str(entry.as_str()).map_err(|e| internal(&e))
}

impl Reader for StoreReader {
    fn default_limit(&self) -> usize {
        usize::try_from(self.query.default_limit).unwrap_or(usize::MAX)
    }

    fn can_read(&self, uid: &str) -> bool {
        self.store
            .model()
            .by_uid(uid)
            .is_some_and(|s| self.grants.find.can_find(s.id))
    }

    fn max_limit(&self) -> usize {
        self.query
            .max_limit
            .map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX))
    }

    fn read(
        &self,
        field: &RootField,
        args: Map<String, Value>,
        populate: &Populate,
    ) -> Result<Value, ReadError> {
        if field.kind.writes() {
            return self.write(field, args, populate);
        }
        if field.kind == RootKind::Me {
            return self.me();
        }
        let schema = self
            .store
            .model()
            .by_uid(&field.uid)
            .ok_or_else(forbidden)?
            .id;
        let allowed = match field.kind {
            // i18n gives `i18NLocales` and `i18NLocale` the scope of its REST route.
            RootKind::One | RootKind::List if field.uid == LOCALE_UID => self.grants.list_locales,
            RootKind::One => self.grants.find_one.can_find(schema),
            _ => self.grants.find.can_find(schema),
        };
        if !allowed {
            return Err(forbidden());
        }
        self.read_entries(field, schema, &args, populate)
    }
}

impl StoreReader {
    /// What a read root field answers, once the caller may read it.
    fn read_entries(
        &self,
        field: &RootField,
        schema: crate::schema::SchemaId,
        args: &Map<String, Value>,
        populate: &Populate,
    ) -> Result<Value, ReadError> {
        // Aliases of one relation with other `filters` or `sort`: the same entries read
        // again per such selection, each loaded under its own key.
        let (base, passes) = graphql::split_variants(populate);
        if !passes.is_empty() {
            let mut answer = self.read_entries(field, schema, args, &base)?;
            for pass in passes {
                let loaded = self.read_entries(field, schema, args, &pass.populate)?;
                match (answer.get_mut("nodes"), loaded.get("nodes")) {
                    (Some(into), Some(from)) if field.kind == RootKind::Connection => {
                        graphql::graft(into, from, &pass.path);
                    }
                    _ => graphql::graft(&mut answer, &loaded, &pass.path),
                }
            }
            return Ok(answer);
        }
        let model = self.store.model();
        // The plugin's `transformArgs`: a list's `pagination` becomes `start`/`limit` as
        // `withDefaultPagination` makes them (its page sizes, -1, values below 1).
        let windowed;
        let args = if matches!(field.kind, RootKind::List | RootKind::Connection) {
            let given = args.get("pagination").unwrap_or(&Value::Null);
            let (start, limit) =
                graphql::pagination_window(given, (self.default_limit(), self.max_limit()))?;
            let mut with = args.clone();
            with.insert("pagination".into(), json!({"start": start, "limit": limit}));
            windowed = with;
            &windowed
        } else {
            args
        };
        let mut raw = query_string(args)?;
        let mut pairs = Vec::new();
        populate_pairs("populate", populate, &mut pairs);
        for pair in pairs {
            if !raw.is_empty() {
                raw.push('&');
            }
            raw.push_str(&pair);
        }
        let mut q = query::parse_query(&raw, model, schema, &self.grants.find, &self.query)
            .map_err(|e| from_query_error(&e))?;
        // A plain list has no `pageInfo`: no count.
        if field.kind == RootKind::List {
            q.pagination.with_count = false;
        }
        match field.kind {
            RootKind::List | RootKind::Connection => {
                // `localizations` per entry, as the plugin loads them parent by parent.
                let page = self
                    .store
                    .read(|r| r.localizations_per_row().find(&q))
                    .map_err(|e| internal(&e))?;
                let nodes = page
                    .entries
                    .iter()
                    .map(entry_value)
                    .collect::<Result<Vec<_>, _>>()?;
                if field.kind == RootKind::List {
                    return Ok(Value::Array(nodes));
                }
                let limit = q.pagination.limit.max(1);
                let total = page.total.unwrap_or(0);
                Ok(json!({
                    "nodes": nodes,
                    "pageInfo": {
                        "page": q.pagination.start / limit + 1,
                        "pageSize": limit,
                        "pageCount": total.div_ceil(limit),
                        "total": total,
                    },
                }))
            }
            RootKind::One | RootKind::Single => {
                let id = args.get("documentId").and_then(Value::as_str);
                if field.kind == RootKind::One && q.locale == query::LocaleSelector::All {
                    return Ok(Value::Null);
                }
                let mut q = q;
                if let Some(id) = id {
                    q.restrict_to_document(id);
                }
                let entry = self
                    .store
                    .read(|r| r.localizations_per_row().find_first(&q))
                    .map_err(|e| internal(&e))?;
                match entry {
                    Some(entry) => entry_value(&entry),
                    None => Ok(Value::Null),
                }
            }
            RootKind::Create | RootKind::Update | RootKind::Delete | RootKind::Me => {
                Err(internal(&"not a read of entries"))
            }
        }
    }

    /// users-permissions' `me`: the JWT's user with its role (what its strategy loads
    /// into `ctx.state.user`), whatever the caller may `find`. A caller allowed `me`
    /// without a user (a full-access token) gets the resolver's plain error.
    fn me(&self) -> Result<Value, ReadError> {
        if !self.grants.me {
            return Err(forbidden());
        }
        let Some(id) = self.user else {
            return Err(ReadError {
                message: "Authentication requested".into(),
                name: "",
                details: Box::new(json!({})),
                code: "INTERNAL_SERVER_ERROR",
            });
        };
        let model = self.store.model();
        let schema = model.by_uid(USER_UID).ok_or_else(forbidden)?.id;
        let raw = format!("filters[id][$eq]={id}&populate[role]=true");
        let all = query::Permissions::all(model);
        let q = query::parse_query(&raw, model, schema, &all, &self.query)
            .map_err(|e| from_query_error(&e))?;
        match self.store.find_entry(&q, None).map_err(|e| internal(&e))? {
            Some(entry) => entry_value(&entry),
            None => Ok(Value::Null),
        }
    }
}

/// i18n's locale type.
const LOCALE_UID: &str = "plugin::i18n.locale";
/// users-permissions' user type.
const USER_UID: &str = "plugin::users-permissions.user";

/// Mutations: Strapi's GraphQL plugin calls its document service, so they go through the
/// REST write path (`crate::write`) with the same grants, and answer the version written,
/// read back as a read query would read it.
impl StoreReader {
    fn write(
        &self,
        field: &RootField,
        args: Map<String, Value>,
        populate: &Populate,
    ) -> Result<Value, ReadError> {
        let schema = self
            .store
            .model()
            .by_uid(&field.uid)
            .ok_or_else(forbidden)?;
        let allowed = match field.kind {
            RootKind::Create => &self.grants.create,
            RootKind::Update => &self.grants.update,
            _ => &self.grants.delete,
        };
        if !allowed.can_find(schema.id) {
            return Err(forbidden());
        }
        let single = schema.kind == crate::schema::SchemaKind::SingleType;
        let document_id = args.get("documentId").and_then(Value::as_str);
        let locale = args.get("locale").and_then(Value::as_str);
        let now_ms = crate::clock::now_ms();
        if field.kind == RootKind::Delete {
            // A collection type's `delete<T>` passes only `documentId` to the document
            // service (the default locale's version goes); a single type's passes its
            // arguments, `locale` included, and needs a document.
            let locale = if single { locale } else { None };
            let deleted = writes::delete(
                &self.store,
                schema.id,
                document_id,
                locale,
                WriteStatus::Published,
                now_ms,
            )
            .map_err(from_write_error)?;
            return match (deleted, document_id) {
                (_, Some(id)) => Ok(json!({ "documentId": id })),
                (Some(id), None) => Ok(json!({ "documentId": id })),
                (None, None) => Err(not_found("Document not found")),
            };
        }
        let status = match args.get("status").and_then(Value::as_str) {
            Some("DRAFT") => WriteStatus::Draft,
            _ => WriteStatus::Published,
        };
        let mut data = match args.get("data") {
            Some(Value::Object(data)) => data.clone(),
            _ => Map::new(),
        };
        graphql::input::rest_data(&self.view, &field.uid, &mut data, &|uid| self.can_read(uid))
            .map_err(|e| validation(e.to_string()))?;
        let request = WriteRequest {
            schema: schema.id,
            document_id,
            locale,
            status,
            data: &data,
            readable: &self.grants.find,
            now_ms,
            answer_has_fields: false,
        };
        let written = match field.kind {
            RootKind::Create => writes::create(&self.store, &request),
            _ => writes::update(&self.store, &request),
        };
        let written = match written {
            Ok(w) => w,
            // The document service updates nothing and answers `null`.
            Err(WriteError::NotFound) => return Ok(Value::Null),
            Err(e) => return Err(from_write_error(e)),
        };
        let mut read = Map::new();
        read.insert("documentId".into(), json!(written.document_id));
        let status = match status {
            WriteStatus::Draft => "DRAFT",
            WriteStatus::Published => "PUBLISHED",
        };
        read.insert("status".into(), json!(status));
        if let Some(l) = written.locale {
            read.insert("locale".into(), json!(l));
        }
        let one = RootField {
            uid: field.uid.clone(),
            kind: RootKind::One,
        };
        self.read_entries(&one, schema.id, &read, populate)
    }
}

fn validation(message: String) -> ReadError {
    ReadError {
        message,
        name: "ValidationError",
        details: Box::new(json!({})),
        code: "BAD_USER_INPUT",
    }
}

fn not_found(message: &str) -> ReadError {
    ReadError {
        message: message.into(),
        name: "NotFoundError",
        details: Box::new(json!({})),
        code: "STRAPI_NOT_FOUND_ERROR",
    }
}

/// A refused write in the GraphQL plugin's error shape (`formatGraphqlError`): the REST
/// answer's `error`, with `extensions.code` `BAD_USER_INPUT` for a `ValidationError`,
/// `STRAPI_<NAME>` for another of Strapi's errors, and a bare internal error for a 5xx.
fn from_write_error(e: WriteError) -> ReadError {
    let (status, body) = ApiError::Write(e).parts();
    if status.is_server_error() {
        return internal(&body);
    }
    let error = body.get("error").cloned().unwrap_or(Value::Null);
    let text = |key: &str| error.get(key).and_then(Value::as_str).unwrap_or_default();
    let (name, code) = match text("name") {
        "ValidationError" => ("ValidationError", "BAD_USER_INPUT"),
        "ForbiddenError" => ("ForbiddenError", "FORBIDDEN"),
        "UnauthorizedError" => ("UnauthorizedError", "FORBIDDEN"),
        "NotFoundError" => ("NotFoundError", "STRAPI_NOT_FOUND_ERROR"),
        "PayloadTooLargeError" => ("PayloadTooLargeError", "STRAPI_PAYLOAD_TOO_LARGE_ERROR"),
        _ => ("ApplicationError", "STRAPI_APPLICATION_ERROR"),
    };
    ReadError {
        message: text("message").to_owned(),
        name,
        details: Box::new(error.get("details").cloned().unwrap_or(json!({}))),
        code,
    }
}

/// `POST /graphql`: `{query, variables, operationName}` as JSON.
pub async fn post(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    let response = match serde_json::from_slice::<async_graphql::Request>(&body) {
        Ok(request) => execute(state, &headers, request, Verb::Post).await,
        Err(e) => bad_request(&format!("POST body must be a GraphQL request: {e}")),
    };
    negotiated(&headers, response)
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

/// `GET /graphql?query=…&variables=…&operationName=…`.
pub async fn get(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let mut query = None;
    let mut variables = None;
    let mut operation = None;
    for (k, v) in form_pairs(raw.as_deref().unwrap_or("")) {
        match k.as_str() {
            "query" => query = Some(v),
            "variables" => variables = Some(v),
            "operationName" => operation = Some(v),
            _ => {}
        }
    }
    let Some(query) = query else {
        return bad_request("GET query missing.");
    };
    let mut request = async_graphql::Request::new(query);
    if let Some(name) = operation.filter(|n| !n.is_empty()) {
        request = request.operation_name(name);
    }
    if let Some(text) = variables.filter(|t| !t.is_empty()) {
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => request = request.variables(async_graphql::Variables::from_json(v)),
            Err(_) => return bad_request("Variables are invalid JSON."),
        }
    }
    negotiated(&headers, execute(state, &headers, request, Verb::Get).await)
}

fn form_pairs(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match (hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
                (Some(hi), Some(lo)) => {
                    out.push(hi * 16 + lo);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: Option<&u8>) -> Option<u8> {
    char::from(*b?)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
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

/// [`json_response`] of JSON text already written.
fn ran_response(status: StatusCode, body: Vec<u8>) -> Response {
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

/// Apollo's CSRF prevention: a request must be one a browser preflights (a
/// `Content-Type` other than the three simple ones, or a non-empty
/// `x-apollo-operation-name` or `apollo-require-preflight`).
fn preflighted(headers: &HeaderMap) -> bool {
    let simple = [
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "text/plain",
    ];
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        });
    if content_type.is_some_and(|t| !simple.contains(&t.as_str())) {
        return true;
    }
    ["x-apollo-operation-name", "apollo-require-preflight"]
        .iter()
        .any(|h| headers.get(*h).is_some_and(|v| !v.is_empty()))
}

const CSRF_MESSAGE: &str = "This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a 'content-type' header (with a type that is not one of application/x-www-form-urlencoded, multipart/form-data, text/plain) or provide a non-empty value for one of the following headers: x-apollo-operation-name, apollo-require-preflight\n";

/// Strapi's `depthLimit` (graphql-depth-limit's `determineDepth`): a field deeper than
/// `max` (top-level fields are at depth 0) is an error at that field, for every
/// operation of the document; `__` fields are not counted.
fn depth_errors(doc: &ExecutableDocument, max: usize) -> Vec<Value> {
    let mut errors = Vec::new();
    let operations: Vec<(String, &Positioned<OperationDefinition>)> = match &doc.operations {
        DocumentOperations::Single(op) => vec![(String::new(), op)],
        DocumentOperations::Multiple(ops) => {
            let mut ops: Vec<_> = ops.iter().map(|(n, op)| (n.to_string(), op)).collect();
            ops.sort_by_key(|(_, op)| (op.pos.line, op.pos.column));
            ops
        }
    };
    for (name, op) in operations {
        let mut walk = DepthWalk {
            doc,
            max,
            name: &name,
            spreads: Vec::new(),
            errors: &mut errors,
        };
        walk.selections(&op.node.selection_set.node, 0);
    }
    errors
}

struct DepthWalk<'a> {
    doc: &'a ExecutableDocument,
    max: usize,
    name: &'a str,
    /// The fragments being expanded (a cycle is not followed again).
    spreads: Vec<&'a str>,
    errors: &'a mut Vec<Value>,
}

impl<'a> DepthWalk<'a> {
    fn selections(&mut self, set: &'a SelectionSet, depth: usize) {
        for item in &set.items {
            self.selection(item, depth);
        }
    }

    fn selection(&mut self, item: &'a Positioned<Selection>, depth: usize) {
        if depth > self.max {
            self.errors.push(json!({
                "message": format!("'{}' exceeds maximum operation depth of {}", self.name, self.max),
                "locations": [{"line": item.pos.line, "column": item.pos.column}],
                "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
            }));
            return;
        }
        match &item.node {
            Selection::Field(field) => {
                if !field.node.name.node.starts_with("__") {
                    self.selections(&field.node.selection_set.node, depth + 1);
                }
            }
            Selection::InlineFragment(fragment) => {
                self.selections(&fragment.node.selection_set.node, depth);
            }
            Selection::FragmentSpread(spread) => {
                let name = spread.node.fragment_name.node.as_str();
                if self.spreads.contains(&name) {
                    return;
                }
                if let Some(fragment) = self.doc.fragments.get(&spread.node.fragment_name.node) {
                    self.spreads.push(name);
                    self.selections(&fragment.node.selection_set.node, depth);
                    self.spreads.pop();
                }
            }
        }
    }
}

/// A `GRAPHQL_VALIDATION_FAILED` error at `(line, column)` positions.
fn validation_error(message: &str, at: &[(usize, usize)]) -> Value {
    let locations: Vec<Value> = at
        .iter()
        .map(|(line, column)| json!({"line": line, "column": column}))
        .collect();
    json!({
        "message": message,
        "locations": locations,
        "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
    })
}

/// async-graphql's validation messages in graphql-js's words, where they say the same.
fn graphql_js_message(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("Unknown field ") {
        return format!("Cannot query field {rest}");
    }
    // `Invalid value for argument "filters", unknown field "x" of type "T"`.
    if message.starts_with("Invalid value for argument ")
        && let Some((_, rest)) = message.split_once(", unknown field ")
        && let Some((field, ty)) = rest.split_once(" of type ")
    {
        return format!("Field {field} is not defined by type {ty}.");
    }
    message.to_owned()
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

/// Whether the operation the request runs is a mutation (the named one, else the only
/// one; an ambiguous document is left to the executor, which refuses it).
fn runs_mutation(doc: &ExecutableDocument, name: Option<&str>) -> bool {
    use async_graphql::parser::types::OperationType;
    let op = match (&doc.operations, name) {
        (DocumentOperations::Single(op), _) => Some(op),
        (DocumentOperations::Multiple(ops), Some(name)) => ops
            .iter()
            .find(|(n, _)| n.as_str() == name)
            .map(|(_, op)| op),
        (DocumentOperations::Multiple(_), None) => None,
    };
    op.is_some_and(|op| op.node.ty == OperationType::Mutation)
}

const INTROSPECTION_DISABLED: &str = "GraphQL introspection is not allowed by Apollo Server, but the query contained __schema or __type. To enable introspection, pass introspection: true to ApolloServer in production";

/// Apollo's rule when introspection is off: an error at every `__schema` and `__type`
/// field of the document (operations and fragments), in source order.
fn introspection_errors(doc: &ExecutableDocument) -> Vec<Value> {
    fn walk(set: &SelectionSet, found: &mut Vec<async_graphql::Pos>) {
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => {
                    let name = field.node.name.node.as_str();
                    if name == "__schema" || name == "__type" {
                        found.push(field.pos);
                    }
                    walk(&field.node.selection_set.node, found);
                }
                Selection::InlineFragment(fragment) => {
                    walk(&fragment.node.selection_set.node, found);
                }
                Selection::FragmentSpread(_) => {}
            }
        }
    }
    let mut found = Vec::new();
    for (_, op) in doc.operations.iter() {
        walk(&op.node.selection_set.node, &mut found);
    }
    for fragment in doc.fragments.values() {
        walk(&fragment.node.selection_set.node, &mut found);
    }
    found.sort_by_key(|p| (p.line, p.column));
    found
        .into_iter()
        .map(|p| {
            json!({
                "message": INTROSPECTION_DISABLED,
                "locations": [{"line": p.line, "column": p.column}],
                "extensions": {
                    "validationErrorCode": "INTROSPECTION_DISABLED",
                    "code": "GRAPHQL_VALIDATION_FAILED",
                },
            })
        })
        .collect()
}

async fn execute(
    state: Arc<AppState>,
    headers: &HeaderMap,
    mut request: async_graphql::Request,
    verb: Verb,
) -> Response {
    if !preflighted(headers) {
        return refused_response(
            StatusCode::BAD_REQUEST,
            vec![json!({"message": CSRF_MESSAGE, "extensions": {"code": "BAD_REQUEST"}})],
        );
    }
    let doc = match async_graphql::parser::parse_query(&request.query) {
        Ok(doc) => doc,
        Err(e) => {
            let locations: Vec<Value> = e
                .positions()
                .map(|p| json!({"line": p.line, "column": p.column}))
                .collect();
            return errors_response(
                StatusCode::BAD_REQUEST,
                vec![json!({
                    "message": format!("Syntax Error: {e}"),
                    "locations": locations,
                    "extensions": {"code": "GRAPHQL_PARSE_FAILED"},
                })],
            );
        }
    };
    // graphql-depth-limit throws on a fragment the document does not define.
    if graphql::graphql_js::reaches_unknown_fragment(&doc, DEPTH_LIMIT) {
        return errors_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            vec![json!({
                "message": "Internal server error",
                "extensions": {"code": "INTERNAL_SERVER_ERROR"},
            })],
        );
    }
    // Apollo refuses a mutation over GET (a link or an image could send it), once Strapi
    // has authenticated the caller (an API token's `last_used_at` moves; a bad one is a
    // 401).
    if verb == Verb::Get && runs_mutation(&doc, request.operation_name.as_deref()) {
        let auth_state = Arc::clone(&state);
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
            Ok(Ok(())) => {}
            Ok(Err(e)) => return e.into_response(),
            Err(e) => return ApiError::Internal(e.to_string()).into_response(),
        }
        let mut res = errors_response(
            StatusCode::METHOD_NOT_ALLOWED,
            vec![json!({
                "message": "GET requests only support query operations, not mutation operations",
                "extensions": {"code": "BAD_REQUEST"},
            })],
        );
        res.headers_mut()
            .insert(header::ALLOW, header::HeaderValue::from_static("POST"));
        return res;
    }
    if !state.config.graphql.introspection {
        let refused = introspection_errors(&doc);
        if !refused.is_empty() {
            return errors_response(StatusCode::BAD_REQUEST, refused);
        }
    }
    let too_deep = depth_errors(&doc, DEPTH_LIMIT);
    if !too_deep.is_empty() {
        return errors_response(StatusCode::BAD_REQUEST, too_deep);
    }
    let Some(gql) = state.graphql.as_ref() else {
        return ApiError::NotFound.into_response();
    };
    if !state.config.graphql.enabled {
        return ApiError::NotFound.into_response();
    }
    let schema = match &gql.schema {
        Ok(schema) => schema.clone(),
        Err(e) => return ApiError::Internal(e.clone()).into_response(),
    };
    // graphql-js coerces the variables before it executes (Apollo: 400 BAD_USER_INPUT).
    let variables = serde_json::to_value(&request.variables).unwrap_or(Value::Null);
    let bad_variables = graphql::graphql_js::variable_errors(
        &gql.registry,
        &doc,
        request.operation_name.as_deref(),
        &variables,
    );
    if !bad_variables.is_empty() {
        return errors_response(StatusCode::BAD_REQUEST, bad_variables);
    }
    // Parsed once: the executor takes this document instead of parsing the text again.
    request.set_parsed_query(doc.clone());
    // `__schema` and `__type` are answered as graphql-js answers them (`introspect`);
    // async-graphql runs the rest of the document (nothing of it when the introspection
    // selections are invalid: only their validation).
    let introspection =
        gql.introspection
            .prepare(&doc, request.operation_name.as_deref(), &variables);
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
    let answer = tokio::task::spawn_blocking(move || {
        let caller = state.permissions.caller(authorization.as_deref())?;
        let reader: SharedReader = Arc::new(StoreReader {
            store: state.store.clone(),
            grants: caller.grants,
            user: caller.user,
            query,
            view,
        });
        Ok::<_, ApiError>(graphql::block_on(schema.execute(request.data(reader))))
    })
    .await;
    let response = match answer {
        Ok(Ok(r)) => r,
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
        let mut errors = response
            .errors
            .iter()
            .map(|e| {
                let at: Vec<(usize, usize)> =
                    e.locations.iter().map(|p| (p.line, p.column)).collect();
                let (message, at) =
                    graphql::graphql_js::rewrite(&registry, &source, &doc, &e.message, &at)
                        .unwrap_or_else(|| (graphql_js_message(&e.message), at));
                validation_error(&message, &at)
            })
            .collect::<Vec<_>>();
        // async-graphql reports a conflict once per differing argument; graphql-js once.
        errors.dedup();
        introspection_validation(introspection.as_ref(), &mut errors);
        return errors_response(StatusCode::BAD_REQUEST, errors);
    }
    if let Some(prepared) = introspection.as_ref().filter(|p| !p.errors.is_empty()) {
        let mut errors = Vec::new();
        introspection_validation(Some(prepared), &mut errors);
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
    strapi_errors(&mut body);
    if let (Some(prepared), Some(data)) = (&introspection, body.get_mut("data")) {
        prepared.merge(data);
    }
    json_response(StatusCode::OK, &body)
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
    let first = |e: &Value| {
        let at = &e["locations"][0];
        (
            at["line"].as_u64().unwrap_or(0),
            at["column"].as_u64().unwrap_or(0),
        )
    };
    errors.extend(
        prepared
            .errors
            .iter()
            .map(|(message, at)| validation_error(message, at)),
    );
    errors.sort_by_key(first);
}

/// Apollo's answer shape: a resolver's error has its `path` and no `locations`; a
/// failed non-null root field nulls `data`, a nullable one is `null` in it.
fn strapi_errors(body: &mut Value) {
    let mut null_data = false;
    let mut null_paths: Vec<Vec<Value>> = Vec::new();
    if let Some(Value::Array(errors)) = body.get_mut("errors") {
        for error in errors {
            let Some(map) = error.as_object_mut() else {
                continue;
            };
            let Some(Value::Object(ext)) = map.get_mut("extensions") else {
                continue;
            };
            let path = ext.remove(graphql::PATH_EXTENSION);
            let non_null = ext.remove(graphql::NON_NULL_EXTENSION);
            // A plain `Error` (no Strapi error in `extensions`) keeps its `locations`.
            let plain = !ext.contains_key("error");
            if let Some(path) = path {
                let mut segments = path.as_array().cloned().unwrap_or_default();
                // A non-null field's error nulls its parent (one level; graphql-js goes
                // on while the parent is non-null too).
                if non_null == Some(Value::Bool(true)) {
                    segments.pop();
                }
                if segments.is_empty() {
                    null_data = true;
                } else {
                    null_paths.push(segments);
                }
                if !plain {
                    map.remove("locations");
                }
                // `path` before `extensions`, as Apollo writes it.
                let extensions = map.remove("extensions");
                map.insert("path".into(), path);
                if let Some(extensions) = extensions {
                    map.insert("extensions".into(), extensions);
                }
            }
        }
    }
    let Some(object) = body.as_object_mut() else {
        return;
    };
    if null_data {
        object.insert("data".into(), Value::Null);
    } else {
        let data = object
            .entry("data")
            .or_insert_with(|| Value::Object(Map::new()));
        if data.is_null() && !null_paths.is_empty() {
            *data = Value::Object(Map::new());
        }
        for path in null_paths {
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
        let decoded: Vec<String> = pairs.iter().map(|p| decode(p)).collect();
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
        assert_eq!(decode("a%20b+c%"), "a b c%");
        assert_eq!(decode("%C3%A9%zz%4"), "é%zz%4");
        assert_eq!(decode("é%"), "é%");
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
