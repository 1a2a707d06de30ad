//! The write routes of the content API, as Strapi 5.54 answers them:
//! `POST /api/:plural` (201), `PUT /api/:plural/:documentId` and `PUT /api/:singular`
//! (200), `DELETE` on either (204, no body).
//!
//! A request goes: the body is read (at most [`super::ServerConfig::max_body_bytes`],
//! Strapi's 413 past it) and parsed as its content type says (JSON, or
//! `application/x-www-form-urlencoded` through qs; anything else is no body), with
//! koa-body's `SyntaxError`s, before any credential is looked at → the caller's grants
//! (`create`, `update`, `delete`; 401/403) → `data` must be an object (Strapi's
//! `Missing "data" payload`) → the query (`fields`, `populate`: they shape the answer)
//! → [`crate::write`] writes in one transaction, and reads the answer inside it through the
//! read path, so it is formatted exactly as a `GET` of the version written, and no write
//! committed after it (a `DELETE` of the same locale) can change it.
//!
//! Where the database offers a time budget (SQLite), a write that has the database to
//! itself runs on the event loop, as reads do, and falls back to a blocking thread
//! without leaving anything behind ([`write_on_event_loop`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use super::{ApiError, AppState, envelope, json_bytes};
use crate::query::{self, FieldRef, LocaleSelector, PopulateKey, Status, qs};
use crate::schema::SchemaId;
use crate::store::{Entry, Reader};
use crate::write::{self as writes, WriteError, WriteRequest, WriteStatus};

/// What a write route does.
#[derive(Debug, Clone, Copy)]
pub(super) enum WriteRoute {
    /// `POST /api/:plural`.
    Create(SchemaId),
    /// `PUT /api/:plural/:documentId`, or `PUT /api/:singular` (no documentId).
    Update(SchemaId),
    /// `DELETE /api/:plural/:documentId`, or `DELETE /api/:singular`.
    Delete(SchemaId),
}

impl WriteRoute {
    fn schema(self) -> SchemaId {
        match self {
            WriteRoute::Create(s) | WriteRoute::Update(s) | WriteRoute::Delete(s) => s,
        }
    }
}

/// One write request, read and parsed.
struct WriteCall {
    route: WriteRoute,
    document_id: Option<String>,
    raw_query: String,
    authorization: Option<Vec<u8>>,
    v4: bool,
    body: Value,
}

/// koa-body's `SyntaxError`: 400 without `details`.
fn syntax_error(message: impl Into<String>) -> Response {
    let body = serde_json::json!({"data": null, "error": {"status": 400, "name": "SyntaxError", "message": message.into()}});
    super::json_response(StatusCode::BAD_REQUEST, &body)
}

fn too_large() -> Response {
    let body = serde_json::json!({"data": null, "error": {"status": 413, "name": "PayloadTooLargeError", "message": "request entity too large"}});
    super::json_response(StatusCode::PAYLOAD_TOO_LARGE, &body)
}

/// How koa-body reads a content type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    Json,
    Form,
    Ignored,
}

fn body_kind(headers: &HeaderMap) -> BodyKind {
    let Some(ct) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return BodyKind::Ignored;
    };
    let media = ct
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if media == "application/json" || media == "application/csp-report" || media.ends_with("+json")
    {
        BodyKind::Json
    } else if media == "application/x-www-form-urlencoded" {
        BodyKind::Form
    } else {
        BodyKind::Ignored
    }
}

/// The deepest nesting of arrays and objects a write's body may have. Strapi takes a
/// JSON attribute 100 levels deep and fails with a 500 (its sanitizers' stack) at 5000;
/// strata takes 1000 and answers 400 beyond.
pub const MAX_BODY_DEPTH: usize = 1000;

/// Why a body could not be read.
#[derive(Debug)]
enum BodyError {
    /// koa-body's `SyntaxError`, with its message.
    Syntax(String),
    /// Nested deeper than [`MAX_BODY_DEPTH`].
    TooDeep,
}

impl From<String> for BodyError {
    fn from(m: String) -> Self {
        BodyError::Syntax(m)
    }
}

/// The deepest nesting of arrays and objects in JSON text (brackets inside strings do
/// not count).
fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The parsed body, or why it could not be read.
fn parse_body(kind: BodyKind, bytes: &[u8]) -> Result<Value, BodyError> {
    if bytes.is_empty() || kind == BodyKind::Ignored {
        return Ok(Value::Object(Map::new()));
    }
    // Invalid UTF-8 is read as U+FFFD, as Node decodes it.
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    match kind {
        BodyKind::Json => {
            let first = text.trim_start().chars().next();
            if !matches!(first, Some('{' | '[')) {
                return Err(BodyError::Syntax(
                    "invalid JSON, only supports object and array".into(),
                ));
            }
            let text = without_lone_surrogates(text);
            if nesting_depth(&text) > MAX_BODY_DEPTH {
                return Err(BodyError::TooDeep);
            }
            let mut de = serde_json::Deserializer::from_str(&text);
            // The depth is bounded above (serde_json's own bound, 128, is below what
            // Strapi takes: a JSON attribute 100 arrays deep inside `data`).
            de.disable_recursion_limit();
            let value = serde::Deserialize::deserialize(&mut de)
                .map_err(|e| BodyError::Syntax(e.to_string()))?;
            de.end().map_err(|e| BodyError::Syntax(e.to_string()))?;
            Ok(value)
        }
        BodyKind::Form => {
            let map = qs::parse(text).map_err(|e| BodyError::Syntax(e.to_string()))?;
            let json = qs::QsValue::Object(map).to_json();
            serde_json::from_str(&json).map_err(|e| BodyError::Syntax(e.to_string()))
        }
        BodyKind::Ignored => Ok(Value::Object(Map::new())),
    }
}

/// JSON text with every `\\u` escape of a lone UTF-16 surrogate (which JavaScript's
/// `JSON.parse` takes and serde_json refuses) replaced by `\\ufffd`, the character Node
/// writes for it to PostgreSQL and MySQL. (On SQLite Strapi stores the surrogate's
/// invalid UTF-8 bytes; strata stores U+FFFD there too, a reviewed deviation.)
fn without_lone_surrogates(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("\\u") {
        return std::borrow::Cow::Borrowed(text);
    }
    let hex = |s: &str| -> Option<u32> {
        (s.len() == 4 && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(s, 16).ok())
            .flatten()
    };
    let escape_at = |i: usize| -> Option<u32> {
        if text.get(i..i + 2) == Some("\\u") {
            text.get(i + 2..i + 6).and_then(hex)
        } else {
            None
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let Some(rest) = text.get(i..) else {
            break;
        };
        if !rest.starts_with('\\') {
            let c = rest.chars().next().unwrap_or('\0');
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        match escape_at(i) {
            Some(0xD800..=0xDBFF) => {
                if matches!(escape_at(i + 6), Some(0xDC00..=0xDFFF)) {
                    out.push_str(&text[i..i + 12]);
                    i += 12;
                } else {
                    out.push_str("\\ufffd");
                    i += 6;
                }
            }
            Some(0xDC00..=0xDFFF) => {
                out.push_str("\\ufffd");
                i += 6;
            }
            _ => {
                // Any other escape: copy the backslash and the character it escapes.
                out.push('\\');
                i += 1;
                if let Some(c) = text.get(i..).and_then(|r| r.chars().next()) {
                    out.push(c);
                    i += c.len_utf8();
                }
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A request's body as Strapi's body parser reads it (JSON, a form, or nothing), or its
/// answer to a body it refuses: too large (413), not JSON or not an object or array
/// (koa-body's `SyntaxError`), nested too deep.
pub(super) async fn read_body(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<Value, Response> {
    let limit = state.config.max_body_bytes;
    let bytes: Bytes = match axum::body::to_bytes(body, limit).await {
        Ok(b) => b,
        Err(_) => return Err(too_large()),
    };
    match parse_body(body_kind(headers), &bytes) {
        Ok(v) => Ok(v),
        Err(BodyError::Syntax(message)) => Err(syntax_error(message)),
        Err(BodyError::TooDeep) => Err(ApiError::Write(WriteError::bare(format!(
            "The request body is nested deeper than {MAX_BODY_DEPTH} levels"
        )))
        .into_response()),
    }
}

/// Handles a write route.
pub(super) async fn handle(
    state: Arc<AppState>,
    route: WriteRoute,
    document_id: Option<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let body = match read_body(&state, &headers, body).await {
        Ok(v) => v,
        Err(refused) => return refused,
    };
    let call = WriteCall {
        route,
        document_id,
        raw_query: uri.query().unwrap_or("").to_string(),
        authorization: headers
            .get(header::AUTHORIZATION)
            .map(|v| v.as_bytes().to_vec()),
        v4: headers
            .get("strapi-response-format")
            .is_some_and(|v| v.as_bytes() == b"v4"),
        body,
    };
    let _counted = WriteRequests::count(&state.write_requests);
    let wait = state.store.pool().wait_timeout();
    let permit = match tokio::time::timeout(wait, state.writers.clone().acquire_owned()).await {
        Ok(Ok(permit)) => permit,
        _ => {
            return ApiError::Unavailable(format!(
                "the database stayed busy with other writes for {wait:?}"
            ))
            .into_response();
        }
    };
    // A write that has the database to itself is tried on the event loop first (see
    // `write_on_event_loop`); one while others are under way goes straight to a blocking
    // thread, where it can be committed in a group with them.
    let alone = state.write_requests.load(Ordering::SeqCst) == 1;
    let tried = match state.config.inline_budget {
        // Twice the reads' budget: the write and the read of its answer, which used to
        // have one budget each, so the loop is held no longer than before at worst.
        Some(budget) if alone => write_on_event_loop(&state, &call, budget.saturating_mul(2)),
        _ => None,
    };
    if let Some(response) = tried {
        return response;
    }
    let task_state = Arc::clone(&state);
    let result = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        // Past the request's time its statements stop and an unfinished write rolls back.
        let limit = task_state.config.request_timeout;
        task_state.store.within_limit(limit, || {
            let done = write(&task_state, &call)?;
            answer(&task_state, &call, done)
        })
    })
    .await;
    match result {
        Ok(outcome) => respond(outcome),
        Err(e) => ApiError::Internal(e.to_string()).into_response(),
    }
}

/// A write request counted in [`AppState::write_requests`] while this lives.
struct WriteRequests<'a>(&'a AtomicUsize);

impl<'a> WriteRequests<'a> {
    fn count(requests: &'a AtomicUsize) -> Self {
        requests.fetch_add(1, Ordering::SeqCst);
        WriteRequests(requests)
    }
}

impl Drop for WriteRequests<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs a write on the event loop within `budget`, when the database offers a budget
/// (SQLite): it saves the two thread wake-ups of a blocking thread, a sixth of a create's
/// server time. Its statements are interrupted past the budget, and a write that would
/// have to wait (for the turn, a connection, a lock) does not start
/// (`store::sqlite::group`); either way nothing of it is left (its answer is read inside
/// its transaction), and the caller runs it again on a blocking thread: `None`. Also
/// `None` when the database offers no budget.
fn write_on_event_loop(state: &AppState, call: &WriteCall, budget: Duration) -> Option<Response> {
    let outcome = state.store.within_budget(budget, || write(state, call))?;
    match outcome.and_then(|done| answer(state, call, done)) {
        Err(ApiError::OverBudget) => {
            tracing::debug!(
                ?budget,
                "a write past its budget on the event loop, nothing of it kept: run again on a blocking thread"
            );
            None
        }
        outcome => Some(respond(outcome)),
    }
}

/// The response to a write's outcome.
fn respond(outcome: Result<(StatusCode, Option<Vec<u8>>), ApiError>) -> Response {
    match outcome {
        Ok((status, Some(body))) => json_bytes(status, body),
        Ok((status, None)) => {
            let mut res = Response::new(Body::empty());
            *res.status_mut() = status;
            res
        }
        Err(e) => e.into_response(),
    }
}

/// `?status` and `?locale` of a write, as the document service reads them.
fn status_and_locale(raw: &str) -> (Option<qs::QsValue>, Option<String>) {
    let Ok(map) = qs::parse(raw) else {
        return (None, None);
    };
    (
        map.get("status").cloned(),
        map.get("locale")
            .and_then(|v| v.as_str())
            .map(str::to_string),
    )
}

/// What a write did, committed: what its answer is made of.
enum Done {
    /// A delete: its answer is 204, without a body.
    Deleted,
    /// A create or an update: the version written, read as the request's query says
    /// inside the write's transaction (`None`: the query does not find it).
    Written {
        written: writes::Written,
        entry: Option<Entry>,
    },
}

/// Checks the caller's grants and the request, and writes (one transaction), reading
/// the version written inside it.
fn write(state: &AppState, call: &WriteCall) -> Result<Done, ApiError> {
    let store = &state.store;
    let model = store.model();
    let schema = call.route.schema();
    let grants = state.permissions.grants(call.authorization.as_deref())?;
    let allowed = match call.route {
        WriteRoute::Create(s) => grants.create.can_find(s),
        WriteRoute::Update(s) => grants.update.can_find(s),
        WriteRoute::Delete(s) => grants.delete.can_find(s),
    };
    if !allowed {
        return Err(if grants.is_empty() {
            ApiError::Unauthorized("Missing or invalid credentials")
        } else {
            ApiError::Forbidden
        });
    }
    let (status, locale) = status_and_locale(&call.raw_query);
    let now = crate::clock::now_ms();
    if let WriteRoute::Delete(_) = call.route {
        let draft = status.as_ref().and_then(qs::QsValue::as_str) == Some("draft");
        let status = if draft {
            WriteStatus::Draft
        } else {
            WriteStatus::Published
        };
        writes::delete(
            store,
            schema,
            call.document_id.as_deref(),
            locale.as_deref(),
            status,
            now,
        )?;
        return Ok(Done::Deleted);
    }
    let data = match call.body.get("data") {
        Some(Value::Object(o)) => o.clone(),
        Some(Value::Array(_)) if call.body.is_object() => {
            return Err(ApiError::Write(WriteError::field(
                &[],
                "this must be a `object` type, but the final value was: `null` (cast from the value `[]`).",
                Some(Value::Null),
            )));
        }
        _ => {
            return Err(ApiError::Write(WriteError::bare(
                "Missing \"data\" payload in the request body",
            )));
        }
    };
    let mut q = query::parse_query(
        &call.raw_query,
        model,
        schema,
        &grants.find,
        &state.config.query,
    )?;
    let write_status = match status.as_ref() {
        None => WriteStatus::Published,
        Some(v) if v.as_str() == Some("published") => WriteStatus::Published,
        Some(_) => WriteStatus::Draft,
    };
    let request = WriteRequest {
        schema,
        document_id: call.document_id.as_deref(),
        locale: locale.as_deref(),
        status: write_status,
        data: &data,
        readable: &grants.find,
        now_ms: now,
        fields_omit_locale: q
            .fields
            .as_ref()
            .is_some_and(|f| !f.contains(&FieldRef::Locale)),
        shows_localizations: q
            .populate
            .0
            .iter()
            .any(|p| p.key == PopulateKey::Localizations),
        refuses_unknown_keys: true,
        answers_before_self_sync: true,
        shows_far_end_lists: q.populate.reaches_past_first_level(),
    };
    // The answer: the version written, shaped by the query's `fields` and `populate`.
    q.filters = None;
    q.publication_filter = None;
    q.status = match write_status {
        WriteStatus::Published => Status::Published,
        WriteStatus::Draft => Status::Draft,
    };
    let read = |reader: &Reader<'_>, written: writes::Written| {
        q.locale = match &written.locale {
            Some(l) => LocaleSelector::Codes(vec![l.clone()]),
            None => LocaleSelector::Default,
        };
        q.restrict_to_document(&written.document_id);
        let entry = reader.find_first(&q)?;
        Ok(Done::Written { written, entry })
    };
    let action = match call.route {
        WriteRoute::Create(_) => writes::Action::Create,
        _ => writes::Action::Update,
    };
    Ok(writes::write_and_read(store, &request, action, read)?)
}

/// The answer to a committed write: 204 for a delete; the version written, as a `GET`
/// of it with the request's `fields` and `populate` would show it, for the others.
fn answer(
    state: &AppState,
    call: &WriteCall,
    done: Done,
) -> Result<(StatusCode, Option<Vec<u8>>), ApiError> {
    let Done::Written { written, entry } = done else {
        return Ok((StatusCode::NO_CONTENT, None));
    };
    let entry = entry.ok_or(ApiError::NotFound)?;
    let mut body = envelope::one(&entry);
    if !written.localizations_before_sync.is_empty() {
        body = with_localizations_before_sync(&body, &written.localizations_before_sync)?;
    }
    if call.v4 {
        let value: Value =
            serde_json::from_slice(&body).map_err(|e| ApiError::Internal(e.to_string()))?;
        let model = state.store.model();
        let schema = call.route.schema();
        body = serde_json::to_vec(&super::v4::body(model, schema, value)).unwrap_or_default();
    }
    let code = match call.route {
        WriteRoute::Create(_) => StatusCode::CREATED,
        _ => StatusCode::OK,
    };
    Ok((code, Some(body)))
}

/// The answer `body` with its `localizations` showing the values `before` holds for the
/// rows an i18n sync changed (Strapi reads its answer before it syncs: see
/// [`writes::Written::localizations_before_sync`]). Only the keys the answer shows are
/// replaced, and a row's first values win (the values before any of the write's syncs).
fn with_localizations_before_sync(
    body: &[u8],
    before: &[(i64, serde_json::Map<String, Value>)],
) -> Result<Vec<u8>, ApiError> {
    let mut answer: Value =
        serde_json::from_slice(body).map_err(|e| ApiError::Internal(e.to_string()))?;
    let localizations = answer
        .get_mut("data")
        .and_then(|d| d.get_mut("localizations"))
        .and_then(Value::as_array_mut);
    for entry in localizations.into_iter().flatten() {
        let id = entry.get("id").and_then(Value::as_i64);
        let Some((_, shown)) = before.iter().find(|(row, _)| Some(*row) == id) else {
            continue;
        };
        let Some(entry) = entry.as_object_mut() else {
            continue;
        };
        for (key, value) in shown {
            if let Some(v) = entry.get_mut(key) {
                *v = value.clone();
            }
        }
    }
    serde_json::to_vec(&answer).map_err(|e| ApiError::Internal(e.to_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::without_lone_surrogates;

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert_eq!(super::nesting_depth(r#"{"a":[[1]],"b":"[[[[\"]]]"}"#), 3);
        assert_eq!(super::nesting_depth("[]"), 1);
        assert_eq!(super::nesting_depth("{}"), 1);
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        assert_eq!(
            without_lone_surrogates(r#"{"a":"x\ud800y"}"#),
            r#"{"a":"x\ufffdy"}"#
        );
        assert_eq!(
            without_lone_surrogates(r#"{"a":"\udc00"}"#),
            r#"{"a":"\ufffd"}"#
        );
        // A pair, an escaped backslash and other escapes stay.
        assert_eq!(
            without_lone_surrogates(r#"["\ud83d\ude00"]"#),
            r#"["\ud83d\ude00"]"#
        );
        assert_eq!(without_lone_surrogates(r#"["\\ud800"]"#), r#"["\\ud800"]"#);
        assert_eq!(without_lone_surrogates(r#"["é\n"]"#), r#"["é\n"]"#);
    }
}
