//! The request's `Reader` over the store (`StoreReader`): a root read query's arguments
//! written as the REST query string that means the same, parsed by `parse_query` with
//! the caller's grants and read by the store; the plugins' root queries and `me`.

use super::*;
use crate::store::entry::Entry;
use crate::store::{Reader as EntryReader, StoreError};

/// The request's reader: the store, with the caller's grants.
pub(super) struct StoreReader {
    pub(super) store: Arc<Store>,
    pub(super) grants: Arc<RolePermissions>,
    /// The id of the JWT's user (`me`).
    pub(super) user: Option<i64>,
    pub(super) query: QueryConfig,
    pub(super) view: Arc<graphql::view::View>,
}

pub(super) fn forbidden() -> ReadError {
    ReadError {
        message: "Forbidden access".into(),
        name: "ForbiddenError",
        details: Box::new(json!({})),
        code: "FORBIDDEN",
    }
}

pub(super) fn from_query_error(e: &QueryError) -> ReadError {
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

pub(super) fn internal(e: &dyn std::fmt::Display) -> ReadError {
    tracing::error!(error = %e, "graphql read failed");
    ReadError {
        message: "Internal Server Error".into(),
        name: "InternalServerError",
        details: Box::new(json!({})),
        code: "INTERNAL_SERVER_ERROR",
    }
}

/// Percent-encodes everything but unreserved characters.
pub(super) fn encode(text: &str, out: &mut String) {
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
pub(super) fn push_pairs(key: &str, value: &Value, filters: bool, out: &mut Vec<String>) {
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

pub(super) fn invalid_argument(name: &str) -> ReadError {
    ReadError {
        message: format!("Invalid value for {name}"),
        name: "ValidationError",
        details: Box::new(json!({})),
        code: "BAD_USER_INPUT",
    }
}

/// The REST query string that means what a root field's arguments mean.
pub(super) fn query_string(args: &Map<String, Value>) -> Result<String, ReadError> {
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
pub(super) fn populate_pairs(key: &str, populate: &Populate, out: &mut Vec<String>) {
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

pub(super) fn entry_value(entry: &Entry) -> Result<Value, ReadError> {
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
        let schema = self.readable(field)?;
        self.read_entries(field, schema, &args, populate, Via::Query)
    }

    fn read_text(&self, field: &RootField, args: Map<String, Value>) -> Result<String, ReadError> {
        if field.kind.writes() || field.kind == RootKind::Me {
            return self
                .read(field, args, &Populate::default())
                .map(|v| v.to_string());
        }
        let schema = self.readable(field)?;
        Ok(self
            .read_page(field, schema, &args, &Populate::default(), Via::Query)?
            .into_text())
    }
}

/// What a root read query read, before it becomes JSON.
pub(super) enum RootRead {
    /// A list's entries.
    List(Vec<Entry>),
    /// A `_connection`'s entries and its `pageInfo`.
    Connection { nodes: Vec<Entry>, page: PageInfo },
    /// A single entry, or none.
    One(Option<Entry>),
}

/// A `_connection`'s `pageInfo`.
pub(super) struct PageInfo {
    page: u64,
    page_size: u64,
    page_count: u64,
    total: u64,
}

impl PageInfo {
    fn value(&self) -> Value {
        let mut map = Map::new();
        map.insert("page".into(), self.page.into());
        map.insert("pageSize".into(), self.page_size.into());
        map.insert("pageCount".into(), self.page_count.into());
        map.insert("total".into(), self.total.into());
        Value::Object(map)
    }
}

impl RootRead {
    /// The JSON the resolvers read.
    fn into_value(self) -> Result<Value, ReadError> {
        let list = |entries: Vec<Entry>| {
            entries
                .iter()
                .map(entry_value)
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array)
        };
        Ok(match self {
            RootRead::List(entries) => list(entries)?,
            RootRead::Connection { nodes, page } => {
                let mut map = Map::new();
                map.insert("nodes".into(), list(nodes)?);
                map.insert("pageInfo".into(), page.value());
                Value::Object(map)
            }
            RootRead::One(Some(entry)) => entry_value(&entry)?,
            RootRead::One(None) => Value::Null,
        })
    }

    /// The same JSON as text, written from the entries' own text.
    fn into_text(self) -> String {
        let list = |entries: &[Entry], out: &mut String| {
            out.push('[');
            for (i, entry) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(entry.as_str());
            }
            out.push(']');
        };
        let mut out = String::new();
        match self {
            RootRead::List(entries) => list(&entries, &mut out),
            RootRead::Connection { nodes, page } => {
                out.push_str("{\"nodes\":");
                list(&nodes, &mut out);
                out.push_str(",\"pageInfo\":");
                out.push_str(&page.value().to_string());
                out.push('}');
            }
            RootRead::One(Some(entry)) => out.push_str(entry.as_str()),
            RootRead::One(None) => out.push_str("null"),
        }
        out
    }
}

impl StoreReader {
    /// The content type a root read query reads, once the caller may read it.
    fn readable(&self, field: &RootField) -> Result<crate::schema::SchemaId, ReadError> {
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
        if allowed {
            Ok(schema)
        } else {
            Err(forbidden())
        }
    }

    /// What a read root field answers, once the caller may read it.
    pub(super) fn read_entries(
        &self,
        field: &RootField,
        schema: crate::schema::SchemaId,
        args: &Map<String, Value>,
        populate: &Populate,
        via: Via<'_, '_>,
    ) -> Result<Value, ReadError> {
        // Aliases of one relation with other `filters` or `sort`: the same entries read
        // again per such selection, each loaded under its own key.
        let (base, passes) = graphql::split_variants(populate);
        if !passes.is_empty() {
            let mut answer = self.read_entries(field, schema, args, &base, via)?;
            for pass in passes {
                let loaded = self.read_entries(field, schema, args, &pass.populate, via)?;
                match (answer.get_mut("nodes"), loaded.get("nodes")) {
                    (Some(into), Some(from)) if field.kind == RootKind::Connection => {
                        graphql::graft(into, from, &pass.path);
                    }
                    _ => graphql::graft(&mut answer, &loaded, &pass.path),
                }
            }
            return Ok(answer);
        }
        self.read_page(field, schema, args, &base, via)?
            .into_value()
    }

    /// One read of a root read query's entries, with `populate` (no variants) loaded.
    fn read_page(
        &self,
        field: &RootField,
        schema: crate::schema::SchemaId,
        args: &Map<String, Value>,
        populate: &Populate,
        via: Via<'_, '_>,
    ) -> Result<RootRead, ReadError> {
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
                    .read_via(via, |r| r.localizations_per_row().find(&q))
                    .map_err(|e| internal(&e))?;
                if field.kind == RootKind::List {
                    return Ok(RootRead::List(page.entries));
                }
                let limit = q.pagination.limit.max(1);
                let total = page.total.unwrap_or(0);
                Ok(RootRead::Connection {
                    nodes: page.entries,
                    page: PageInfo {
                        page: q.pagination.start / limit + 1,
                        page_size: limit,
                        page_count: total.div_ceil(limit),
                        total,
                    },
                })
            }
            RootKind::One | RootKind::Single => {
                let id = args.get("documentId").and_then(Value::as_str);
                if field.kind == RootKind::One && q.locale == query::LocaleSelector::All {
                    return Ok(RootRead::One(None));
                }
                let mut q = q;
                if let Some(id) = id {
                    q.restrict_to_document(id);
                }
                let entry = self
                    .read_via(via, |r| match via {
                        Via::Query => r.localizations_per_row().find_first(&q),
                        Via::Mutation(_) => r
                            .localizations_per_row()
                            .populated_in_any_status()
                            .find_first(&q),
                    })
                    .map_err(|e| internal(&e))?;
                Ok(RootRead::One(entry))
            }
            RootKind::Create | RootKind::Update | RootKind::Delete | RootKind::Me => {
                Err(internal(&"not a read of entries"))
            }
        }
    }

    /// users-permissions' `me`: the JWT's user with its role (what its strategy loads
    /// into `ctx.state.user`), whatever the caller may `find`. A caller allowed `me`
    /// without a user (a full-access token) gets the resolver's plain error.
    pub(super) fn me(&self) -> Result<Value, ReadError> {
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

/// Where a root field's entries are read, and the status of the rows they populate.
#[derive(Clone, Copy)]
pub(super) enum Via<'r, 'w> {
    /// A read query: on a pooled connection, populating rows in the root query's status
    /// (the plugin's association resolver inherits the status of a built-in root query,
    /// published by default).
    Query,
    /// A mutation's answer: inside the write's transaction (what this write left, as
    /// Strapi's resolver gets the entry from inside its transaction), populating rows of
    /// either status (the resolver inherits a status from root queries only, so a
    /// relation of the entry written shows its draft and published rows).
    Mutation(&'r EntryReader<'w>),
}

impl StoreReader {
    /// Runs `f` with the reader `via` names: a pooled connection's for a query, the
    /// write's for a mutation.
    fn read_via<T>(
        &self,
        via: Via<'_, '_>,
        f: impl Fn(&EntryReader<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match via {
            Via::Query => self.store.read(f),
            Via::Mutation(reader) => f(reader),
        }
    }
}

/// i18n's locale type.
pub(super) const LOCALE_UID: &str = "plugin::i18n.locale";
/// users-permissions' user type.
pub(super) const USER_UID: &str = "plugin::users-permissions.user";
