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

/// Strapi's `depthLimit` (the oracle's `config/plugins.js`).
pub const DEPTH_LIMIT: usize = 10;

/// The schema and query settings the handler shares.
pub struct GraphqlState {
    schema: Result<Schema, String>,
    query: QueryConfig,
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
        GraphqlState {
            schema: graphql::schema(store.model()).map_err(|e| e.to_string()),
            query,
        }
    }
}

/// The request's reader: the store, with the caller's grants.
struct StoreReader {
    store: Arc<Store>,
    grants: Arc<RolePermissions>,
    query: QueryConfig,
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

/// Strapi's filter operators as GraphQL names them (without `$`).
const OPERATORS: &[&str] = &[
    "and",
    "or",
    "not",
    "eq",
    "eqi",
    "ne",
    "nei",
    "lt",
    "lte",
    "gt",
    "gte",
    "in",
    "notIn",
    "contains",
    "notContains",
    "containsi",
    "notContainsi",
    "null",
    "notNull",
    "between",
    "startsWith",
    "startsWithi",
    "endsWith",
    "endsWithi",
];

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
                let name = if filters && OPERATORS.contains(&k.as_str()) {
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
            // `hasPublishedVersion: null`, `publicationFilter: null`: not given.
            _ if value.is_null() => {}
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
        if let Some(sort) = &node.sort {
            push_pairs(&format!("{here}[sort]"), sort, false, out);
        }
        populate_pairs(&format!("{here}[populate]"), &node.below, out);
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
        let model = self.store.model();
        let schema = model.by_uid(&field.uid).ok_or_else(forbidden)?.id;
        let allowed = match field.kind {
            RootKind::One => self.grants.find_one.can_find(schema),
            _ => self.grants.find.can_find(schema),
        };
        if !allowed {
            return Err(forbidden());
        }
        let mut raw = query_string(&args)?;
        let mut pairs = Vec::new();
        populate_pairs("populate", populate, &mut pairs);
        for pair in pairs {
            if !raw.is_empty() {
                raw.push('&');
            }
            raw.push_str(&pair);
        }
        let q = query::parse_query(&raw, model, schema, &self.grants.find, &self.query)
            .map_err(|e| from_query_error(&e))?;
        match field.kind {
            RootKind::List | RootKind::Connection => {
                let page = self.store.find_page(&q).map_err(|e| internal(&e))?;
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
                match self.store.find_entry(&q, id).map_err(|e| internal(&e))? {
                    Some(entry) => entry_value(&entry),
                    None => Ok(Value::Null),
                }
            }
        }
    }
}

/// `POST /graphql`: `{query, variables, operationName}` as JSON.
pub async fn post(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    match serde_json::from_slice::<async_graphql::Request>(&body) {
        Ok(request) => execute(state, &headers, request).await,
        Err(e) => bad_request(&format!("POST body must be a GraphQL request: {e}")),
    }
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
    execute(state, &headers, request).await
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
    json_response(
        StatusCode::BAD_REQUEST,
        &json!({"errors": [{"message": message, "extensions": {"code": "BAD_REQUEST"}}]}),
    )
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        serde_json::to_vec(body).unwrap_or_default(),
    )
        .into_response()
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

async fn execute(
    state: Arc<AppState>,
    headers: &HeaderMap,
    request: async_graphql::Request,
) -> Response {
    if !preflighted(headers) {
        return errors_response(
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
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes().to_vec());
    let query = gql.query.clone();
    // Credentials and the resolvers read the store synchronously: off the event loop.
    let answer = tokio::task::spawn_blocking(move || {
        let grants = state.permissions.grants(authorization.as_deref())?;
        let reader: SharedReader = Arc::new(StoreReader {
            store: state.store.clone(),
            grants,
            query,
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
        let errors = response
            .errors
            .iter()
            .map(|e| {
                let locations: Vec<Value> = e
                    .locations
                    .iter()
                    .map(|p| json!({"line": p.line, "column": p.column}))
                    .collect();
                json!({
                    "message": graphql_js_message(&e.message),
                    "locations": locations,
                    "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
                })
            })
            .collect();
        return errors_response(StatusCode::BAD_REQUEST, errors);
    }
    let mut body = match serde_json::to_value(&response) {
        Ok(v) => v,
        Err(e) => return ApiError::Internal(e.to_string()).into_response(),
    };
    strapi_errors(&mut body);
    json_response(StatusCode::OK, &body)
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
                map.remove("locations");
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
        assert!(query_string(&args(json!({"hasPublishedVersion": true}))).is_err());
        assert!(query_string(&args(json!({"hasPublishedVersion": null}))).is_ok());
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
