//! The plain schema ([`Registry`]) handed to async-graphql's dynamic schema, with its
//! resolvers.
//!
//! Resolution is over JSON: a root field (a read query or a mutation) asks the
//! [`Reader`] in the request's data for Strapi's JSON (entries, `{nodes, pageInfo}` for
//! a connection, the version a mutation wrote), and every other field reads its key
//! from its parent's JSON value. A field whose key the root's answer does not hold
//! resolves to an error, as do the root fields strata does not serve.

use std::collections::HashMap;
use std::sync::Arc;

use async_graphql::dynamic::{
    Enum, Field, FieldFuture, FieldValue, InputObject, InputValue, Object, ResolverContext, Scalar,
    Schema, SchemaError, TypeRef, Union,
};
use async_graphql::{ErrorExtensions, Name, Value};

use super::coerce::Coercions;
use super::ir::{DefaultValue, FieldDef, InputDef, Kind, Registry, Ty, TypeDef};
use super::names;
use super::scalars::is_rfc3339_date_time;

/// The message of a field strata does not resolve yet.
const NOT_SERVED: &str = "strata does not resolve this GraphQL field yet";

/// What a root query field reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootKind {
    /// `articles`: a list of entries.
    List,
    /// `articles_connection`: `{nodes, pageInfo}`.
    Connection,
    /// `article(documentId)`: one entry or `null`.
    One,
    /// A single type: its entry or `null`.
    Single,
    /// `createArticle(data, status, locale)`: the version written.
    Create,
    /// `updateArticle(documentId, data, status, locale)` (a single type's without
    /// `documentId`): the version written, or `null` for a document that does not exist.
    Update,
    /// `deleteArticle(documentId)`: `{documentId}`.
    Delete,
    /// users-permissions' `me`: the user of the request's JWT, with its role.
    Me,
}

impl RootKind {
    /// A mutation's kind (the others read).
    pub fn writes(&self) -> bool {
        matches!(self, RootKind::Create | RootKind::Update | RootKind::Delete)
    }
}

/// A root query field: the content type's uid and what it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootField {
    /// The content type's uid.
    pub uid: String,
    /// What it reads.
    pub kind: RootKind,
}

/// An error a resolver answers, in Strapi's shape (`extensions.error` and `code`).
#[derive(Debug, Clone)]
pub struct ReadError {
    /// `message`, and `extensions.error.message`.
    pub message: String,
    /// `extensions.error.name` (`ForbiddenError`, `ValidationError`…); empty for a
    /// plain `Error` (no `extensions.error`, and its `locations` stay).
    pub name: &'static str,
    /// `extensions.error.details`.
    pub details: Box<serde_json::Value>,
    /// `extensions.code` (`FORBIDDEN`, `BAD_USER_INPUT`, `INTERNAL_SERVER_ERROR`…).
    pub code: &'static str,
}

/// What answers a root field, read query or mutation (the HTTP server's store, with the
/// caller's grants).
pub trait Reader: Send + Sync {
    /// The JSON of a root field, given its arguments as JSON: what a read query reads,
    /// or what a mutation wrote (with `populate` loaded below it).
    ///
    /// # Errors
    ///
    /// A [`ReadError`] in Strapi's shape (forbidden, invalid arguments, store failures).
    fn read(
        &self,
        field: &RootField,
        args: serde_json::Map<String, serde_json::Value>,
        populate: &Populate,
    ) -> Result<serde_json::Value, ReadError>;

    /// The JSON text of what [`Reader::read`] answers without `populate` (what the fast
    /// path of plain reads walks: a reader that has the entries as text writes them as
    /// they are, without parsing them into values first).
    ///
    /// # Errors
    ///
    /// As [`Reader::read`].
    fn read_text(
        &self,
        field: &RootField,
        args: serde_json::Map<String, serde_json::Value>,
    ) -> Result<String, ReadError> {
        self.read(field, args, &Populate::default())
            .map(|v| v.to_string())
    }

    /// Whether the caller may read entries of this content type (`find`) through a
    /// relation.
    fn can_read(&self, uid: &str) -> bool {
        let _ = uid;
        true
    }

    /// The page size of to-many fields without `pagination` (the plugin's `defaultLimit`).
    fn default_limit(&self) -> usize {
        DEFAULT_LIMIT
    }

    /// The largest page size of to-many fields (the plugin's `maxLimit`).
    fn max_limit(&self) -> usize {
        MAX_LIMIT
    }
}

/// What a selection needs loaded below an entry, attribute by attribute.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Populate(pub std::collections::BTreeMap<String, PopulateNode>);

/// One loaded attribute: the relation field's `filters` and `sort` (its `pagination`
/// is applied by the field itself) and what is loaded below it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PopulateNode {
    /// `filters`, as given (GraphQL operator names).
    pub filters: Option<serde_json::Value>,
    /// `sort`, as given.
    pub sort: Option<serde_json::Value>,
    /// Below.
    pub below: Populate,
    /// A dynamic zone's members by component uid, with what is loaded below each (REST
    /// populate's `on`); empty when no member loads anything below (then the zone is
    /// loaded one level, every member).
    pub on: std::collections::BTreeMap<String, Populate>,
}

/// A field that loads something: its attribute, and the GraphQL type of what it holds
/// (`None` for a dynamic zone, whose `members` are looked into instead).
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The attribute.
    pub attr: String,
    /// The uid of a relation's or media's target (whose `find` grant it needs).
    pub uid: Option<String>,
    /// The type whose fields the sub-selection selects.
    pub target: Option<String>,
    /// The input type of the field's `filters` argument (`TagFiltersInput`), named once
    /// when the catalog is built.
    pub filters_input: Option<String>,
    /// A dynamic zone's members: (GraphQL type, component uid).
    pub members: Vec<(String, String)>,
}

impl Loaded {
    /// The field's `filters` argument as given (`None` when absent, null or empty),
    /// coerced as graphql-js and Strapi's traversal leave it ([`Coercions`]).
    fn filters(
        &self,
        ids: &Coercions,
        given: Option<serde_json::Value>,
    ) -> Option<serde_json::Value> {
        let mut given = given?;
        if let Some(input) = &self.filters_input {
            ids.coerce_filters(input, &mut given);
        }
        meaningful(given)
    }
}

/// Per GraphQL object type, its fields that load a relation, media, component or zone.
pub type Catalog = HashMap<String, HashMap<String, Loaded>>;

/// The populate a selection of `type_name`'s fields needs. Two selections of one
/// relation with different `filters` or `sort` (aliases) cannot share one load: each is
/// kept under its [`variant_key`], loaded by a pass of its own ([`split_variants`]).
fn populate_of<'a>(
    catalog: &Catalog,
    ids: &Coercions,
    type_name: &str,
    selection: impl Iterator<Item = async_graphql::SelectionField<'a>>,
    depth: usize,
) -> Populate {
    let mut out = Populate::default();
    // Bounded by the depth limit the server checks first; this guards embedders.
    if depth > 32 {
        return out;
    }
    let Some(fields) = catalog.get(type_name) else {
        return out;
    };
    for field in selection {
        let Some(loaded) = fields.get(field.name()) else {
            continue;
        };
        let Ok(args) = field.arguments() else {
            continue;
        };
        let arg = |name: &str| {
            args.iter()
                .find(|(n, _)| n.as_str() == name)
                .and_then(|(_, v)| v.clone().into_json().ok())
                .filter(|v| !v.is_null())
        };
        let (filters, sort) = (
            loaded.filters(ids, arg("filters")),
            arg("sort").and_then(meaningful),
        );
        let below = match &loaded.target {
            Some(target) => {
                let children: Vec<_> = if field.name().ends_with("_connection") {
                    field
                        .selection_set()
                        .filter(|f| f.name() == "nodes")
                        .flat_map(|f| f.selection_set().collect::<Vec<_>>())
                        .collect()
                } else {
                    field.selection_set().collect()
                };
                populate_of(catalog, ids, target, children.into_iter(), depth + 1)
            }
            None => Populate::default(),
        };
        let on = zone_members(catalog, ids, loaded, field, depth);
        add(
            &mut out,
            &loaded.attr,
            PopulateNode {
                filters,
                sort,
                below,
                on,
            },
        );
    }
    out
}

/// What a dynamic zone's selection loads below each member: every member with its
/// populate when any member loads something (REST's `on` leaves unlisted members out),
/// else nothing. The selection's fragments are flattened (async-graphql's
/// `SelectionField` drops their type conditions), so a field is looked up in every
/// member that has one of its name: members sharing a field name may load more than
/// their own fragment asks for, never less.
fn zone_members(
    catalog: &Catalog,
    ids: &Coercions,
    loaded: &Loaded,
    field: async_graphql::SelectionField<'_>,
    depth: usize,
) -> std::collections::BTreeMap<String, Populate> {
    let mut on = std::collections::BTreeMap::new();
    if loaded.members.is_empty() {
        return on;
    }
    let children: Vec<_> = field.selection_set().collect();
    for (type_name, uid) in &loaded.members {
        let below = populate_of(catalog, ids, type_name, children.iter().copied(), depth + 1);
        on.insert(uid.clone(), below);
    }
    if on.values().all(|p| p.0.is_empty()) {
        on.clear();
    }
    on
}

fn merge_on(
    into: &mut std::collections::BTreeMap<String, Populate>,
    from: std::collections::BTreeMap<String, Populate>,
) {
    if into.is_empty() {
        *into = from;
        return;
    }
    for (uid, below) in from {
        merge(into.entry(uid).or_default(), below);
    }
}

fn merge(into: &mut Populate, from: Populate) {
    for (k, v) in from.0 {
        let attr = k.split(VARIANT).next().unwrap_or_default().to_owned();
        add(into, &attr, v);
    }
}

/// Separates a relation's selections with other `filters` or `sort` than its first:
/// what precedes the arguments in a [`variant_key`] (never in an attribute's name).
const VARIANT: char = '\u{1f}';

/// An argument that says something: not `null`, `[]` or `{}` (the schema's defaults).
fn meaningful(value: serde_json::Value) -> Option<serde_json::Value> {
    match &value {
        serde_json::Value::Null => None,
        serde_json::Value::Array(items) if items.is_empty() => None,
        serde_json::Value::Object(map) if map.is_empty() => None,
        _ => Some(value),
    }
}

/// JSON text with the keys of every object sorted (the same arguments, the same text).
fn canonical(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        serde_json::Value::String(k.clone()),
                        canonical(&map[k])
                    )
                })
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        serde_json::Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", parts.join(","))
        }
        other => other.to_string(),
    }
}

/// The key under which a selection of `attr` with these `filters` and `sort` is loaded
/// when another selection of it (an alias) has others.
pub fn variant_key(
    attr: &str,
    filters: Option<&serde_json::Value>,
    sort: Option<&serde_json::Value>,
) -> String {
    let text = |v: Option<&serde_json::Value>| v.map(canonical).unwrap_or_default();
    format!("{attr}{VARIANT}{}{VARIANT}{}", text(filters), text(sort))
}

/// Adds a selection of `attr` to `into`: with the arguments of the one already there,
/// merged into it; with others, both under their [`variant_key`].
fn add(into: &mut Populate, attr: &str, node: PopulateNode) {
    let key = variant_key(attr, node.filters.as_ref(), node.sort.as_ref());
    let same = |n: &PopulateNode| n.filters == node.filters && n.sort == node.sort;
    let existing = match into.0.get(attr) {
        Some(n) if same(n) => Some(attr.to_owned()),
        Some(n) => {
            let moved = variant_key(attr, n.filters.as_ref(), n.sort.as_ref());
            if let Some(n) = into.0.remove(attr) {
                into.0.insert(moved, n);
            }
            into.0.contains_key(&key).then(|| key.clone())
        }
        None => into.0.contains_key(&key).then(|| key.clone()),
    };
    if let Some(found) = existing.and_then(|k| into.0.get_mut(&k)) {
        merge(&mut found.below, node.below);
        merge_on(&mut found.on, node.on);
        return;
    }
    let prefix = format!("{attr}{VARIANT}");
    if into.0.keys().any(|k| k.starts_with(&prefix)) {
        into.0.insert(key, node);
    } else {
        into.0.insert(attr.to_owned(), node);
    }
}

/// One more read of the same entries for a relation selected with other arguments: the
/// keys from an entry down to it (attributes, or variant keys of variants loaded before),
/// and the populate that loads it under its attribute.
#[derive(Debug, Clone)]
pub struct VariantPass {
    /// The keys, the variant's last.
    pub path: Vec<String>,
    /// The populate: the path's relations with their arguments, and the variant.
    pub populate: Populate,
}

/// Marks a step of a [`VariantPass`]'s path into a dynamic zone's items of one member:
/// the character, then the member's component uid (never an attribute's name).
const MEMBER: char = '\u{1e}';

/// The populate without variants, and a pass per variant (shallower ones first). A
/// variant inside a zone member is loaded with the zone's `on` naming that member only
/// (REST then leaves the other members' items out), and grafted into that member's items.
pub fn split_variants(populate: &Populate) -> (Populate, Vec<VariantPass>) {
    let mut passes = Vec::new();
    let base = strip(populate, &mut Vec::new(), &mut passes);
    passes.sort_by_key(|p| p.path.len());
    (base, passes)
}

fn attr_of(key: &str) -> &str {
    key.split(VARIANT).next().unwrap_or(key)
}

fn strip(
    populate: &Populate,
    chain: &mut Vec<(String, PopulateNode)>,
    passes: &mut Vec<VariantPass>,
) -> Populate {
    let mut out = Populate::default();
    for (key, node) in &populate.0 {
        let shallow = PopulateNode {
            filters: node.filters.clone(),
            sort: node.sort.clone(),
            ..PopulateNode::default()
        };
        chain.push((key.clone(), shallow));
        let below = strip(&node.below, chain, passes);
        let mut on = std::collections::BTreeMap::new();
        for (uid, p) in &node.on {
            chain.push((format!("{MEMBER}{uid}"), PopulateNode::default()));
            on.insert(uid.clone(), strip(p, chain, passes));
            chain.pop();
        }
        chain.pop();
        let stripped = PopulateNode {
            filters: node.filters.clone(),
            sort: node.sort.clone(),
            below,
            on,
        };
        if key.contains(VARIANT) {
            let mut load = Populate::default();
            load.0.insert(attr_of(key).to_owned(), stripped);
            let mut member = None;
            for (above, shallow) in chain.iter().rev() {
                if let Some(uid) = above.strip_prefix(MEMBER) {
                    member = Some(uid.to_owned());
                    continue;
                }
                let mut node = shallow.clone();
                match member.take() {
                    Some(uid) => {
                        node.on = std::collections::BTreeMap::from([(uid, load)]);
                    }
                    None => node.below = load,
                }
                load = Populate::default();
                load.0.insert(attr_of(above).to_owned(), node);
            }
            let mut path: Vec<String> = chain.iter().map(|(k, _)| k.clone()).collect();
            path.push(key.clone());
            passes.push(VariantPass {
                path,
                populate: load,
            });
        } else {
            out.0.insert(key.clone(), stripped);
        }
    }
    out
}

/// Copies what a [`VariantPass`] loaded into the entries read first, under the variant's
/// key: the two reads hold the same entries and, along the path, the same relations.
pub fn graft(into: &mut serde_json::Value, loaded: &serde_json::Value, path: &[String]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if let Some(uid) = first.strip_prefix(MEMBER) {
        // A zone's items; the pass read only this member's, in the same order.
        if let (serde_json::Value::Array(items), serde_json::Value::Array(from)) = (into, loaded) {
            let of_member = |item: &serde_json::Value| {
                item.get("__component").and_then(serde_json::Value::as_str) == Some(uid)
            };
            let mine = items.iter_mut().filter(|item| of_member(item));
            for (item, from) in mine.zip(from.iter().filter(|item| of_member(item))) {
                graft(item, from, rest);
            }
        }
        return;
    }
    match (into, loaded) {
        (serde_json::Value::Array(items), serde_json::Value::Array(from)) => {
            for (item, from) in items.iter_mut().zip(from) {
                graft(item, from, path);
            }
        }
        (serde_json::Value::Object(map), serde_json::Value::Object(from)) => {
            let Some(value) = from.get(attr_of(first)) else {
                return;
            };
            if rest.is_empty() {
                map.insert(first.clone(), value.clone());
            } else if let Some(below) = map.get_mut(first.as_str()) {
                graft(below, value, rest);
            }
        }
        _ => {}
    }
}

/// The plugin's `defaultLimit` when no reader says otherwise.
pub const DEFAULT_LIMIT: usize = 25;
/// The plugin's `maxLimit` when no reader says otherwise.
pub const MAX_LIMIT: usize = 100;

/// A to-many field's `pagination` (`page`/`pageSize` or `start`/`limit`) as the rows to
/// skip and keep, with the default and largest page size.
fn page_window(
    arg: Option<async_graphql::dynamic::ValueAccessor<'_>>,
    limits: (usize, usize),
) -> Result<(usize, usize), ReadError> {
    let json = match arg.map(|a| a.as_value().clone().into_json()) {
        Some(Ok(json)) => json,
        Some(Err(e)) => {
            return Err(ReadError {
                message: e.to_string(),
                name: "ValidationError",
                details: Box::new(serde_json::json!({})),
                code: "BAD_USER_INPUT",
            });
        }
        None => serde_json::Value::Null,
    };
    pagination_window(&json, limits)
}

/// `@strapi/utils`' `withDefaultPagination`, as the plugin's `transformArgs` calls it for
/// a root query and a to-many field alike: `pagination` (`page`/`pageSize` or
/// `start`/`limit`, `null` or `{}` for none) as (start, limit). A `limit` of -1 is the
/// largest page; otherwise a limit or page size below 1 is 1, one above the largest is
/// the largest, a negative start (a page below 1) is 0. Both kinds at once are Strapi's
/// `PaginationError`.
pub fn pagination_window(
    json: &serde_json::Value,
    (default, max): (usize, usize),
) -> Result<(usize, usize), ReadError> {
    let int = |key: &str| json.get(key).and_then(serde_json::Value::as_i64);
    let (default, max) = (
        i64::try_from(default).unwrap_or(i64::MAX),
        i64::try_from(max).unwrap_or(i64::MAX),
    );
    let paged = int("page").is_some() || int("pageSize").is_some();
    let offset = int("start").is_some() || int("limit").is_some();
    let (start, limit) = match (paged, offset) {
        (true, true) => {
            let message = "Cannot use both page & offset pagination in the same query";
            return Err(ReadError {
                message: message.into(),
                name: "PaginationError",
                details: Box::new(serde_json::json!({})),
                code: "STRAPI_PAGINATION_ERROR",
            });
        }
        (true, false) => {
            let size = int("pageSize").map_or(default, |n| n.max(1)).clamp(1, max);
            let page = int("page").unwrap_or(1);
            (page.saturating_sub(1).saturating_mul(size), size)
        }
        (false, true) => match int("limit").unwrap_or(default) {
            -1 => (int("start").unwrap_or(0), max),
            n => (int("start").unwrap_or(0), n),
        },
        (false, false) => (0, default),
    };
    let start = usize::try_from(start.max(0)).unwrap_or(0);
    let limit = usize::try_from(limit.clamp(1, max.max(1))).unwrap_or(1);
    Ok((start, limit))
}

/// The [`Reader`] of one request, put in the request's data.
pub type SharedReader = Arc<dyn Reader>;

/// How a field's value is turned into GraphQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A scalar: the JSON as is.
    Scalar,
    /// `ID`: text (a component's numeric id is written as a string, as graphql-js does).
    Id,
    /// `Long`: a number (a biginteger's text, as REST gives it, becomes the number).
    Long,
    /// `Time`: `HH:mm:ss.SSS`, the fraction padded to three digits (the plugin's
    /// `TimeScalar`; PostgreSQL's `time` text has none).
    Time,
    /// `DateTime`: the JSON as is, but a text that is not a date-time (a `timestamp`
    /// attribute's epoch milliseconds, as REST gives them) fails as graphql-scalars'
    /// `serialize` fails (`invalid_date_time`).
    DateTime,
    /// An enum: the string as `toRegressedEnumValue` names it.
    Enum,
    /// An object type: the JSON object is the children's parent.
    Object,
    /// A dynamic zone's union: each object's `__component` names its member.
    Union,
    /// Not resolved.
    Unserved,
}

/// Builds the async-graphql schema from the pruned registry, with the root fields that
/// read entries.
pub fn build(
    reg: &Registry,
    mutation: bool,
    roots: &HashMap<String, RootField>,
    catalog: &Arc<Catalog>,
    ids: &Arc<Coercions>,
) -> Result<Schema, SchemaError> {
    let mut builder = Schema::build("Query", mutation.then_some("Mutation"), None);
    for def in reg.types.values() {
        builder = match &def.kind {
            Kind::Scalar { specified_by } => builder.register(scalar(def, specified_by.as_deref())),
            Kind::Object(fields) if def.name == "Query" || def.name == "Mutation" => {
                builder.register(query_object(reg, def, fields, roots, catalog, ids))
            }
            Kind::Object(fields) => builder.register(object(def, fields, |f| {
                let loaded = catalog.get(&def.name).and_then(|c| c.get(&f.name)).cloned();
                field(f, json_resolver(reg, &def.name, f, loaded, ids.clone()))
            })),
            Kind::Input(fields) => builder.register(input_object(def, fields)),
            Kind::Enum(values) => builder.register(enumeration(def, values)),
            Kind::Union(members) => builder.register(union(def, members)),
        };
    }
    builder.finish()
}

fn type_ref(ty: &Ty) -> TypeRef {
    match ty {
        Ty::Named(name) => TypeRef::Named(name.clone().into()),
        Ty::List(inner) => TypeRef::List(Box::new(type_ref(inner))),
        Ty::NonNull(inner) => TypeRef::NonNull(Box::new(type_ref(inner))),
    }
}

fn scalar(def: &TypeDef, specified_by: Option<&str>) -> Scalar {
    let mut scalar = Scalar::new(&def.name);
    if let Some(text) = &def.description {
        scalar = scalar.description(text);
    }
    match specified_by {
        Some(url) => scalar.specified_by_url(url),
        None => scalar,
    }
}

fn object(def: &TypeDef, fields: &[FieldDef], make: impl Fn(&FieldDef) -> Field) -> Object {
    let mut object = Object::new(&def.name);
    if let Some(text) = &def.description {
        object = object.description(text);
    }
    fields
        .iter()
        .fold(object, |object, f| object.field(make(f)))
}

type Resolve = Box<dyn for<'a> Fn(ResolverContext<'a>) -> FieldFuture<'a> + Send + Sync + 'static>;

/// The error of a field strata does not resolve yet, with its path (so it reads as a
/// failed field, not as a refused query).
fn not_served(path: &serde_json::Value, non_null: bool) -> async_graphql::Error {
    let error = ReadError {
        message: NOT_SERVED.into(),
        name: "NotImplementedError",
        details: Box::new(serde_json::json!({})),
        code: "NOT_IMPLEMENTED",
    };
    into_error(error, path, non_null)
}

fn unserved(non_null: bool) -> Resolve {
    Box::new(move |ctx| {
        let path = serde_json::to_value(ctx.path_node).unwrap_or_default();
        FieldFuture::new(
            async move { Err::<Option<FieldValue<'_>>, _>(not_served(&path, non_null)) },
        )
    })
}

pub(crate) fn shape_of(reg: &Registry, ty: &Ty) -> Shape {
    match reg.types.get(ty.base()).map(|t| &t.kind) {
        Some(Kind::Scalar { .. }) if ty.base() == "Long" => Shape::Long,
        Some(Kind::Scalar { .. }) if ty.base() == "Time" => Shape::Time,
        Some(Kind::Scalar { .. }) if ty.base() == "DateTime" => Shape::DateTime,
        Some(Kind::Scalar { .. }) => Shape::Scalar,
        Some(Kind::Enum(_)) => Shape::Enum,
        Some(Kind::Object(_)) => Shape::Object,
        Some(Kind::Union(_)) => Shape::Union,
        Some(_) => Shape::Unserved,
        // The specification's scalars are not in the registry.
        None if ty.base() == "ID" => Shape::Id,
        None if matches!(ty.base(), "String" | "Int" | "Float" | "Boolean") => Shape::Scalar,
        None => Shape::Unserved,
    }
}

/// A field of object type `parent` read from its parent's JSON value.
fn json_resolver(
    reg: &Registry,
    parent: &str,
    def: &FieldDef,
    loaded: Option<Loaded>,
    ids: Arc<Coercions>,
) -> Resolve {
    let non_null = matches!(def.ty, Ty::NonNull(_));
    // graphql-js's completion of a non-null field that resolved to null (a draft's
    // required attribute): an error at the field, whose parent becomes null.
    let null_message: std::sync::Arc<str> = format!(
        "Cannot return null for non-nullable field {parent}.{}.",
        def.name
    )
    .into();
    let target = loaded.as_ref().and_then(|l| l.uid.clone());
    let shape = shape_of(reg, &def.ty);
    if shape == Shape::Unserved {
        return unserved(matches!(def.ty, Ty::NonNull(_)));
    }
    // `tags_connection` reads `tags` as `{nodes}`; to-many fields (those with a
    // `pagination` argument) hold the plugin's default page, as Strapi's association
    // resolver applies `defaultLimit`.
    let (key, connection) = match def.name.strip_suffix("_connection") {
        Some(attr) if shape == Shape::Object => (attr.to_owned(), true),
        _ => (def.name.clone(), false),
    };
    let paged = def.args.iter().any(|a| a.name == "pagination");
    // A zone's members: an item of another component (which a write may put there) is
    // left out. graphql-js answers it as null with an error (`Runtime Object type … is
    // not a possible type for …`); async-graphql's dynamic schema cannot resolve a null
    // item of a union list (a deviation, ARCHITECTURE).
    let members: Option<std::sync::Arc<[String]>> =
        match reg.types.get(def.ty.base()).map(|t| &t.kind) {
            Some(Kind::Union(members)) => Some(members.as_slice().into()),
            _ => None,
        };
    Box::new(move |ctx| {
        let members = members.clone();
        let null_message = null_message.clone();
        let arg = |name: &str| {
            ctx.args
                .get(name)
                .and_then(|v| v.as_value().clone().into_json().ok())
                .and_then(meaningful)
        };
        // The same filters as `populate_of` loaded this variant with.
        let filters = loaded.as_ref().and_then(|l| {
            l.filters(
                &ids,
                ctx.args
                    .get("filters")
                    .and_then(|v| v.as_value().clone().into_json().ok()),
            )
        });
        let variant = paged.then(|| variant_key(&key, filters.as_ref(), arg("sort").as_ref()));
        let found = ctx
            .parent_value
            .try_downcast_ref::<serde_json::Value>()
            .ok()
            .and_then(|parent| {
                variant
                    .as_deref()
                    .and_then(|v| parent.get(v))
                    .or_else(|| parent.get(&key))
            })
            .cloned();
        let window = if paged {
            let limits = ctx
                .data::<SharedReader>()
                .map_or((DEFAULT_LIMIT, MAX_LIMIT), |r| {
                    (r.default_limit(), r.max_limit())
                });
            page_window(ctx.args.get("pagination"), limits)
        } else {
            Ok((0, usize::MAX))
        };
        // A relation the caller may not read was not loaded: Strapi's `Forbidden access`.
        let forbidden = found.is_none()
            && target
                .as_deref()
                .is_some_and(|uid| ctx.data::<SharedReader>().is_ok_and(|r| !r.can_read(uid)));
        // The path, for an error only (it is an allocation per field otherwise).
        let path_node = ctx.path_node;
        let path = move || serde_json::to_value(path_node).unwrap_or_default();
        FieldFuture::new(async move {
            let Some(mut value) = found else {
                if forbidden {
                    return Err(into_error(forbidden_error(), &path(), non_null));
                }
                return Err(not_served(&path(), non_null));
            };
            let (start, limit) = window.map_err(|e| into_error(e, &path(), non_null))?;
            if paged && let serde_json::Value::Array(items) = &mut value {
                items.drain(..start.min(items.len()));
                items.truncate(limit);
            }
            if let Some(text) = invalid_date_time(shape, &value) {
                return Err(plain_error(
                    format!("DateTime cannot represent an invalid date-time-string {text}."),
                    &path(),
                    non_null,
                ));
            }
            if connection {
                return Ok(Some(FieldValue::owned_any(
                    serde_json::json!({ "nodes": value }),
                )));
            }
            if let (Some(members), serde_json::Value::Array(items)) = (&members, &mut value) {
                items.retain(|item| {
                    let member = item
                        .get("__component")
                        .and_then(serde_json::Value::as_str)
                        .map(names::component_name);
                    member.is_none_or(|m| members.contains(&m))
                });
            }
            match to_field_value(value, shape) {
                None if non_null => Err(null_in_non_null(&null_message, &path())),
                value => Ok(value),
            }
        })
    })
}

/// graphql-js's error for a non-null field that resolved to null, whose parent the
/// server nulls.
fn null_in_non_null(message: &str, path: &serde_json::Value) -> async_graphql::Error {
    plain_error(message.to_string(), path, true)
}

/// A plain `Error` of graphql-js's completion (a scalar's `serialize` threw, a non-null
/// field was null): `locations` kept, `INTERNAL_SERVER_ERROR`, no Strapi error.
fn plain_error(message: String, path: &serde_json::Value, non_null: bool) -> async_graphql::Error {
    let error = ReadError {
        message,
        name: "",
        details: Box::new(serde_json::Value::Null),
        code: "INTERNAL_SERVER_ERROR",
    };
    into_error(error, path, non_null)
}

/// The text of a `DateTime` value that graphql-scalars cannot serialize (it is not a
/// date-time: a `timestamp` attribute's epoch milliseconds), if it is one.
fn invalid_date_time(shape: Shape, value: &serde_json::Value) -> Option<&str> {
    match (shape, value) {
        (Shape::DateTime, serde_json::Value::String(s)) if !is_rfc3339_date_time(s) => Some(s),
        _ => None,
    }
}

/// A JSON value as the field value of a shape (lists item by item).
fn to_field_value(value: serde_json::Value, shape: Shape) -> Option<FieldValue<'static>> {
    match value {
        serde_json::Value::Null => None,
        serde_json::Value::Array(items) if shape != Shape::Scalar => {
            Some(FieldValue::list(items.into_iter().map(|v| {
                to_field_value(v, shape).unwrap_or(FieldValue::NULL)
            })))
        }
        value => Some(match shape {
            Shape::Object => FieldValue::owned_any(value),
            Shape::Union => {
                let member = value
                    .get("__component")
                    .and_then(serde_json::Value::as_str)
                    .map(names::component_name);
                match member {
                    Some(member) => FieldValue::owned_any(value).with_type(member),
                    None => FieldValue::NULL,
                }
            }
            Shape::Enum => match scalar_value(value, shape) {
                Value::String(name) => FieldValue::value(Value::Enum(Name::new(name))),
                _ => FieldValue::NULL,
            },
            _ => FieldValue::value(scalar_value(value, shape)),
        }),
    }
}

/// A leaf's JSON as GraphQL gives it: `ID` as text, a safe `Long` as a number (a larger
/// one stays text, as Strapi's `Long` serializes it), `Time` with its fraction, an enum
/// value by its GraphQL name (as text here), anything else as it is.
pub(crate) fn scalar_value(value: serde_json::Value, shape: Shape) -> Value {
    match (shape, value) {
        (Shape::Id, serde_json::Value::Number(n)) => Value::String(n.to_string()),
        (Shape::Long, serde_json::Value::String(s)) => match s.parse::<i64>() {
            Ok(n) if n.unsigned_abs() < (1 << 53) => Value::from(n),
            _ => Value::String(s),
        },
        (Shape::Time, serde_json::Value::String(s)) => Value::String(time_text(&s)),
        (Shape::Enum, serde_json::Value::String(s)) => Value::String(names::enum_value(&s)),
        (Shape::Enum, _) => Value::Null,
        (_, value) => Value::from_json(value).unwrap_or(Value::Null),
    }
}

/// `@strapi/utils`' `parseTime` of a `HH:mm:ss[.S{1,3}]` text: the fraction padded to
/// three digits. Any other text is left as it is.
fn time_text(text: &str) -> String {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let parts: Vec<&str> = whole.split(':').collect();
    let digits = |p: &str| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit());
    if parts.len() != 3
        || !parts.iter().all(|p| digits(p))
        || fraction.len() > 3
        || !fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return text.to_owned();
    }
    format!("{whole}.{fraction:0<3}")
}

/// The `Query` or `Mutation` type: the root fields in `roots` are answered by the
/// request's [`Reader`], the others are not served.
fn query_object(
    reg: &Registry,
    def: &TypeDef,
    fields: &[FieldDef],
    roots: &HashMap<String, RootField>,
    catalog: &Arc<Catalog>,
    ids: &Arc<Coercions>,
) -> Object {
    object(def, fields, |f| match roots.get(&f.name) {
        Some(root) => field(
            f,
            root_resolver(reg, f, root.clone(), catalog.clone(), ids.clone()),
        ),
        None => field(f, unserved(matches!(f.ty, Ty::NonNull(_)))),
    })
}

fn root_resolver(
    reg: &Registry,
    def: &FieldDef,
    root: RootField,
    catalog: Arc<Catalog>,
    ids: Arc<Coercions>,
) -> Resolve {
    let id_arguments = Arc::new(ids.of_arguments(&def.args));
    let shape = shape_of(reg, &def.ty);
    let entry_type = match &root.kind {
        RootKind::Connection => Some(def.ty.base().to_owned()),
        _ => None,
    };
    let type_name = def.ty.base().to_owned();
    let non_null = matches!(def.ty, Ty::NonNull(_));
    let root = Arc::new(root);
    Box::new(move |ctx| {
        let root = root.clone();
        let catalog = catalog.clone();
        let ids = ids.clone();
        let id_arguments = id_arguments.clone();
        let type_name = type_name.clone();
        let connection = entry_type.is_some();
        FieldFuture::new(async move {
            let reader = ctx.data::<SharedReader>()?;
            let selection = ctx.ctx.field();
            let populate = if connection {
                let nodes: Vec<_> = selection
                    .selection_set()
                    .filter(|f| f.name() == "nodes")
                    .flat_map(|f| f.selection_set().collect::<Vec<_>>())
                    .collect();
                let entry = type_name
                    .strip_suffix("EntityResponseCollection")
                    .unwrap_or(&type_name);
                populate_of(&catalog, &ids, entry, nodes.into_iter(), 0)
            } else {
                populate_of(&catalog, &ids, &type_name, selection.selection_set(), 0)
            };
            let mut args = serde_json::Map::new();
            for (name, value) in ctx.args.iter() {
                let json = value
                    .as_value()
                    .clone()
                    .into_json()
                    .map_err(|e| async_graphql::Error::new(e.to_string()))?;
                args.insert(name.to_string(), json);
            }
            // graphql-js hands an `ID` given as an integer on as its text.
            ids.coerce_arguments(&id_arguments, &mut args);
            let path = serde_json::to_value(ctx.path_node).unwrap_or_default();
            let value = reader
                .read(&root, args, &populate)
                .map_err(|e| into_error(e, &path, non_null))?;
            Ok(to_field_value(value, shape))
        })
    })
}

/// The extension that carries a root field's error path (async-graphql's dynamic
/// executor sets none) to the server, which moves it to `path`.
pub const PATH_EXTENSION: &str = "strataPath";
/// The extension that says the failed root field is non-null (its error nulls `data`,
/// as graphql-js propagates it; async-graphql leaves the key out instead).
pub const NON_NULL_EXTENSION: &str = "strataNonNull";

/// A private extension marking an error answered without `path` or `locations`
/// ([`ReadError::unrecognised`]); the HTTP layer removes it.
pub const NO_PATH_EXTENSION: &str = "strataNoPath";

/// Strapi's `Forbidden access`.
impl ReadError {
    /// An error the plugin's `formatGraphqlError` does not recognise as Strapi's (a plain
    /// `Error`, which Strapi throws with a status for a zone item's foreign id): answered
    /// as `Internal Server Error` (`INTERNAL_SERVER_ERROR`) without `path` or
    /// `locations`, `extensions.error` keeping the original's name and message.
    pub fn unrecognised(message: impl Into<String>) -> Self {
        ReadError {
            message: message.into(),
            name: "Error",
            details: Box::new(serde_json::Value::Null),
            code: "INTERNAL_SERVER_ERROR",
        }
    }

    fn is_unrecognised(&self) -> bool {
        self.name == "Error" && self.code == "INTERNAL_SERVER_ERROR"
    }
}

pub fn forbidden_error() -> ReadError {
    ReadError {
        message: "Forbidden access".into(),
        name: "ForbiddenError",
        details: Box::new(serde_json::json!({})),
        code: "FORBIDDEN",
    }
}

fn into_error(e: ReadError, path: &serde_json::Value, non_null: bool) -> async_graphql::Error {
    let unrecognised = e.is_unrecognised();
    let mut extension = serde_json::json!({
        "name": e.name,
        "message": e.message,
        "details": e.details,
    });
    // `fp.pick` leaves out the details an error does not have.
    if e.details.is_null()
        && let Some(map) = extension.as_object_mut()
    {
        map.remove("details");
    }
    let message = match unrecognised {
        true => "Internal Server Error".to_string(),
        false => e.message,
    };
    let mut error = async_graphql::Error::new(message);
    error = error.extend_with(|_, ext| {
        ext.set("code", e.code);
        if let Ok(path) = Value::from_json(path.clone()) {
            ext.set(PATH_EXTENSION, path);
        }
        ext.set(NON_NULL_EXTENSION, non_null);
        if unrecognised {
            ext.set(NO_PATH_EXTENSION, true);
        }
        // A plain `Error` thrown by a resolver (no name) has no `extensions.error`.
        if !e.name.is_empty()
            && let Ok(v) = Value::from_json(extension)
        {
            ext.set("error", v);
        }
    });
    error
}

fn field(def: &FieldDef, resolve: Resolve) -> Field {
    let mut field = Field::new(&def.name, type_ref(&def.ty), resolve);
    if let Some(text) = &def.description {
        field = field.description(text);
    }
    def.args
        .iter()
        .fold(field, |field, a| field.argument(input_value(a)))
}

fn input_value(def: &InputDef) -> InputValue {
    let mut value = InputValue::new(&def.name, type_ref(&def.ty));
    if let Some(text) = &def.description {
        value = value.description(text);
    }
    match &def.default {
        Some(DefaultValue::Enum(name)) => value.default_value(Value::Enum(Name::new(name))),
        Some(DefaultValue::Json(json)) => match Value::from_json(json.clone()) {
            Ok(v) => value.default_value(v),
            Err(_) => value,
        },
        None => value,
    }
}

fn input_object(def: &TypeDef, fields: &[InputDef]) -> InputObject {
    let mut object = InputObject::new(&def.name);
    if let Some(text) = &def.description {
        object = object.description(text);
    }
    fields
        .iter()
        .fold(object, |object, f| object.field(input_value(f)))
}

fn enumeration(def: &TypeDef, values: &[String]) -> Enum {
    let mut enumeration = Enum::new(&def.name);
    if let Some(text) = &def.description {
        enumeration = enumeration.description(text);
    }
    enumeration.items(values.iter().map(String::as_str))
}

fn union(def: &TypeDef, members: &[String]) -> Union {
    let mut union = Union::new(&def.name);
    if let Some(text) = &def.description {
        union = union.description(text);
    }
    members
        .iter()
        .fold(union, |union, m| union.possible_type(m))
}

#[cfg(test)]
mod variant_tests {
    use super::*;
    use serde_json::json;

    fn node(sort: Option<serde_json::Value>, below: Populate) -> PopulateNode {
        PopulateNode {
            sort,
            below,
            ..PopulateNode::default()
        }
    }

    #[test]
    fn aliases_with_other_arguments_load_in_passes_and_graft_back() {
        let mut below = Populate::default();
        for sort in ["name", "name:desc", "name"] {
            let tags = node(Some(json!(sort)), Populate::default());
            add(&mut below, "tags", tags);
        }
        assert_eq!(below.0.len(), 2);
        let mut top = Populate::default();
        add(&mut top, "articles", node(None, below));
        let (base, passes) = split_variants(&top);
        assert!(base.0["articles"].below.0.is_empty());
        assert_eq!(passes.len(), 2);
        let pass = &passes[0];
        assert_eq!(pass.path[0], "articles");
        assert_eq!(pass.populate.0["articles"].below.0.len(), 1);
        assert!(pass.populate.0["articles"].below.0.contains_key("tags"));
        let mut answer = json!([{"articles": [{"title": "a"}]}]);
        let loaded = json!([{"articles": [{"title": "a", "tags": [{"name": "x"}]}]}]);
        graft(&mut answer, &loaded, &pass.path);
        let grafted = &answer[0]["articles"][0][&pass.path[1]];
        assert_eq!(grafted, &json!([{"name": "x"}]));
    }

    #[test]
    fn variants_inside_a_zone_member_load_through_its_on_and_graft_into_its_items() {
        let mut member = Populate::default();
        add(&mut member, "articles", node(None, Populate::default()));
        add(
            &mut member,
            "articles",
            node(Some(json!("title")), Populate::default()),
        );
        let mut top = Populate::default();
        let zone = PopulateNode {
            on: std::collections::BTreeMap::from([("blocks.related".to_owned(), member)]),
            ..PopulateNode::default()
        };
        add(&mut top, "blocks", zone);
        let (base, passes) = split_variants(&top);
        // No variant key is left in what the first read loads.
        let kept = &base.0["blocks"].on["blocks.related"].0;
        assert!(kept.keys().all(|k| !k.contains(VARIANT)), "{kept:?}");
        // Both selections, each under its variant key.
        assert_eq!(passes.len(), 2);
        let pass = passes
            .iter()
            .find(|p| p.path[2].ends_with("\"title\""))
            .expect("the sorted selection's pass");
        assert_eq!(pass.path[0], "blocks");
        assert_eq!(pass.path[1], format!("{MEMBER}blocks.related"));
        let loads = &pass.populate.0["blocks"].on["blocks.related"].0["articles"];
        assert_eq!(loads.sort, Some(json!("title")));
        let mut answer = json!([{"blocks": [
            {"__component": "blocks.other", "id": 1},
            {"__component": "blocks.related", "id": 2, "articles": [{"title": "b"}, {"title": "a"}]},
        ]}]);
        let loaded = json!([{"blocks": [
            {"__component": "blocks.related", "id": 2, "articles": [{"title": "a"}, {"title": "b"}]},
        ]}]);
        graft(&mut answer, &loaded, &pass.path);
        let items = &answer[0]["blocks"];
        assert_eq!(items[0], json!({"__component": "blocks.other", "id": 1}));
        assert_eq!(
            items[1][&pass.path[2]],
            json!([{"title": "a"}, {"title": "b"}])
        );
        assert_eq!(
            items[1]["articles"],
            json!([{"title": "b"}, {"title": "a"}])
        );
    }

    #[test]
    fn pagination_is_with_default_pagination() {
        let w = |v: serde_json::Value| pagination_window(&v, (25, 100)).map_err(|e| e.name);
        assert_eq!(w(json!(null)), Ok((0, 25)));
        assert_eq!(w(json!({"limit": -1})), Ok((0, 100)));
        assert_eq!(w(json!({"start": -3, "limit": -5})), Ok((0, 1)));
        assert_eq!(w(json!({"limit": 0})), Ok((0, 1)));
        assert_eq!(w(json!({"page": 0, "pageSize": 5})), Ok((0, 5)));
        assert_eq!(w(json!({"page": 3, "pageSize": 500})), Ok((200, 100)));
        assert_eq!(w(json!({"page": 1, "start": 0})), Err("PaginationError"));
    }
}
