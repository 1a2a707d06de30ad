//! The plain schema ([`Registry`]) handed to async-graphql's dynamic schema, with its
//! resolvers.
//!
//! Resolution is over JSON: a read query's root field asks the [`Reader`] in the
//! request's data for Strapi's JSON (entries, or `{nodes, pageInfo}` for a connection),
//! and every other field reads its key from its parent's JSON value. A field whose key
//! the root's answer does not hold (relations, components, zones, media: not loaded yet)
//! and every mutation resolve to an error.

use std::collections::HashMap;
use std::sync::Arc;

use async_graphql::dynamic::{
    Enum, Field, FieldFuture, FieldValue, InputObject, InputValue, Object, ResolverContext, Scalar,
    Schema, SchemaError, TypeRef, Union,
};
use async_graphql::{ErrorExtensions, Name, Value};

use super::ir::{DefaultValue, FieldDef, InputDef, Kind, Registry, Ty, TypeDef};
use super::names;

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
    /// `extensions.error.name` (`ForbiddenError`, `ValidationError`…).
    pub name: &'static str,
    /// `extensions.error.details`.
    pub details: Box<serde_json::Value>,
    /// `extensions.code` (`FORBIDDEN`, `BAD_USER_INPUT`, `INTERNAL_SERVER_ERROR`…).
    pub code: &'static str,
}

/// What answers a root query field (the HTTP server's store, with the caller's grants).
pub trait Reader: Send + Sync {
    /// The JSON of a root field, given its arguments as JSON.
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
}

/// A field that loads something: its attribute, and the GraphQL type of what it holds
/// (`None` for a dynamic zone: its members are not looked into).
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The attribute.
    pub attr: String,
    /// The uid of a relation's or media's target (whose `find` grant it needs).
    pub uid: Option<String>,
    /// The type whose fields the sub-selection selects.
    pub target: Option<String>,
}

/// Per GraphQL object type, its fields that load a relation, media, component or zone.
pub type Catalog = HashMap<String, HashMap<String, Loaded>>;

/// The populate a selection of `type_name`'s fields needs. Two selections of one
/// relation with different `filters` or `sort` (aliases) cannot share one load: that
/// relation is not loaded, and its fields resolve to an error.
fn populate_of<'a>(
    catalog: &Catalog,
    type_name: &str,
    selection: impl Iterator<Item = async_graphql::SelectionField<'a>>,
    depth: usize,
) -> Populate {
    let mut out = Populate::default();
    let mut conflicts = Vec::new();
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
            conflicts.push(loaded.attr.clone());
            continue;
        };
        let arg = |name: &str| {
            args.iter()
                .find(|(n, _)| n.as_str() == name)
                .and_then(|(_, v)| v.clone().into_json().ok())
                .filter(|v| !v.is_null())
        };
        let (filters, sort) = (arg("filters"), arg("sort"));
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
                populate_of(catalog, target, children.into_iter(), depth + 1)
            }
            None => Populate::default(),
        };
        match out.0.get_mut(&loaded.attr) {
            Some(node) => {
                if node.filters != filters || node.sort != sort {
                    conflicts.push(loaded.attr.clone());
                }
                merge(&mut node.below, below);
            }
            None => {
                out.0.insert(
                    loaded.attr.clone(),
                    PopulateNode {
                        filters,
                        sort,
                        below,
                    },
                );
            }
        }
    }
    for attr in conflicts {
        out.0.remove(&attr);
    }
    out
}

fn merge(into: &mut Populate, from: Populate) {
    for (k, v) in from.0 {
        match into.0.get_mut(&k) {
            Some(node) if node.filters == v.filters && node.sort == v.sort => {
                merge(&mut node.below, v.below);
            }
            // Different arguments below one relation: neither is loaded.
            Some(_) => {
                into.0.remove(&k);
            }
            None => {
                into.0.insert(k, v);
            }
        }
    }
}

/// The plugin's `defaultLimit` when no reader says otherwise.
pub const DEFAULT_LIMIT: usize = 25;
/// The plugin's `maxLimit` when no reader says otherwise.
pub const MAX_LIMIT: usize = 100;

/// A to-many field's `pagination` (`page`/`pageSize` or `start`/`limit`) as the rows to
/// skip and keep, with the default and largest page size; a negative `limit` means the
/// largest.
fn page_window(
    arg: Option<async_graphql::dynamic::ValueAccessor<'_>>,
    (default, max): (usize, usize),
) -> Result<(usize, usize), async_graphql::Error> {
    let Some(arg) = arg else {
        return Ok((0, default));
    };
    let json = arg
        .as_value()
        .clone()
        .into_json()
        .map_err(|e| async_graphql::Error::new(e.to_string()))?;
    let int = |key: &str| json.get(key).and_then(serde_json::Value::as_i64);
    let clamp = |n: i64| usize::try_from(n).map_or(max, |n| n.min(max));
    let paged = int("page").is_some() || int("pageSize").is_some();
    let offset = int("start").is_some() || int("limit").is_some();
    if paged && offset {
        return Err(async_graphql::Error::new(
            "Invalid pagination attributes. You cannot use page and offset pagination in the same query",
        ));
    }
    if paged {
        let size = int("pageSize").map_or(default, |n| clamp(n.max(1)));
        let page = usize::try_from(int("page").unwrap_or(1).max(1)).unwrap_or(1);
        return Ok(((page - 1).saturating_mul(size), size));
    }
    let start = usize::try_from(int("start").unwrap_or(0).max(0)).unwrap_or(0);
    let limit = match int("limit") {
        Some(n) if n < 0 => max,
        Some(n) => clamp(n),
        None => default,
    };
    Ok((start, limit))
}

/// The [`Reader`] of one request, put in the request's data.
pub type SharedReader = Arc<dyn Reader>;

/// How a field's value is turned into GraphQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A scalar: the JSON as is.
    Scalar,
    /// `ID`: text (a component's numeric id is written as a string, as graphql-js does).
    Id,
    /// `Long`: a number (a biginteger's text, as REST gives it, becomes the number).
    Long,
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
) -> Result<Schema, SchemaError> {
    let mut builder = Schema::build("Query", mutation.then_some("Mutation"), None);
    for def in reg.types.values() {
        builder = match &def.kind {
            Kind::Scalar { specified_by } => builder.register(scalar(def, specified_by.as_deref())),
            Kind::Object(fields) if def.name == "Query" => {
                builder.register(query_object(reg, def, fields, roots, catalog))
            }
            Kind::Object(fields) if def.name == "Mutation" => {
                builder.register(object(def, fields, |f| {
                    field(f, unserved(matches!(f.ty, Ty::NonNull(_))))
                }))
            }
            Kind::Object(fields) => builder.register(object(def, fields, |f| {
                let loaded = catalog.get(&def.name).and_then(|c| c.get(&f.name)).cloned();
                field(f, json_resolver(reg, f, loaded))
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

fn shape_of(reg: &Registry, ty: &Ty) -> Shape {
    match reg.types.get(ty.base()).map(|t| &t.kind) {
        Some(Kind::Scalar { .. }) if ty.base() == "Long" => Shape::Long,
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

/// A field read from its parent's JSON value.
fn json_resolver(reg: &Registry, def: &FieldDef, loaded: Option<Loaded>) -> Resolve {
    let non_null = matches!(def.ty, Ty::NonNull(_));
    let target = loaded.and_then(|l| l.uid);
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
    Box::new(move |ctx| {
        let found = ctx
            .parent_value
            .try_downcast_ref::<serde_json::Value>()
            .ok()
            .and_then(|parent| parent.get(&key))
            .cloned();
        let limits = ctx
            .data::<SharedReader>()
            .map_or((DEFAULT_LIMIT, MAX_LIMIT), |r| {
                (r.default_limit(), r.max_limit())
            });
        let window = if paged {
            page_window(ctx.args.get("pagination"), limits)
        } else {
            Ok((0, usize::MAX))
        };
        // A relation the caller may not read was not loaded: Strapi's `Forbidden access`.
        let forbidden = found.is_none()
            && target
                .as_deref()
                .is_some_and(|uid| ctx.data::<SharedReader>().is_ok_and(|r| !r.can_read(uid)));
        let path = serde_json::to_value(ctx.path_node).unwrap_or_default();
        FieldFuture::new(async move {
            let Some(mut value) = found else {
                if forbidden {
                    return Err(into_error(forbidden_error(), &path, non_null));
                }
                return Err(not_served(&path, non_null));
            };
            let (start, limit) = window?;
            if paged && let serde_json::Value::Array(items) = &mut value {
                items.drain(..start.min(items.len()));
                items.truncate(limit);
            }
            if connection {
                return Ok(Some(FieldValue::owned_any(
                    serde_json::json!({ "nodes": value }),
                )));
            }
            Ok(to_field_value(value, shape))
        })
    })
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
                    .map(|uid| names::upper_first(&names::camel_case(&format!("component_{uid}"))));
                match member {
                    Some(member) => FieldValue::owned_any(value).with_type(member),
                    None => FieldValue::NULL,
                }
            }
            Shape::Id => match &value {
                serde_json::Value::Number(n) => FieldValue::value(Value::String(n.to_string())),
                _ => FieldValue::value(Value::from_json(value).unwrap_or(Value::Null)),
            },
            Shape::Long => match &value {
                // A safe integer is a number; a larger one stays text, as Strapi's
                // `Long` serializes it.
                serde_json::Value::String(s) => match s.parse::<i64>() {
                    Ok(n) if n.unsigned_abs() < (1 << 53) => FieldValue::value(Value::from(n)),
                    _ => FieldValue::value(Value::String(s.clone())),
                },
                _ => FieldValue::value(Value::from_json(value).unwrap_or(Value::Null)),
            },
            Shape::Enum => match &value {
                serde_json::Value::String(s) => {
                    FieldValue::value(Value::Enum(Name::new(names::enum_value(s))))
                }
                _ => FieldValue::NULL,
            },
            _ => FieldValue::value(Value::from_json(value).unwrap_or(Value::Null)),
        }),
    }
}

/// The `Query` type: read queries answered by the request's [`Reader`].
fn query_object(
    reg: &Registry,
    def: &TypeDef,
    fields: &[FieldDef],
    roots: &HashMap<String, RootField>,
    catalog: &Arc<Catalog>,
) -> Object {
    object(def, fields, |f| match roots.get(&f.name) {
        Some(root) => field(f, root_resolver(reg, f, root.clone(), catalog.clone())),
        None => field(f, unserved(matches!(f.ty, Ty::NonNull(_)))),
    })
}

fn root_resolver(
    reg: &Registry,
    def: &FieldDef,
    root: RootField,
    catalog: Arc<Catalog>,
) -> Resolve {
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
                populate_of(&catalog, entry, nodes.into_iter(), 0)
            } else {
                populate_of(&catalog, &type_name, selection.selection_set(), 0)
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

/// Strapi's `Forbidden access`.
pub fn forbidden_error() -> ReadError {
    ReadError {
        message: "Forbidden access".into(),
        name: "ForbiddenError",
        details: Box::new(serde_json::json!({})),
        code: "FORBIDDEN",
    }
}

fn into_error(e: ReadError, path: &serde_json::Value, non_null: bool) -> async_graphql::Error {
    let extension = serde_json::json!({
        "name": e.name,
        "message": e.message,
        "details": e.details,
    });
    let mut error = async_graphql::Error::new(e.message);
    error = error.extend_with(|_, ext| {
        ext.set("code", e.code);
        if let Ok(path) = Value::from_json(path.clone()) {
            ext.set(PATH_EXTENSION, path);
        }
        ext.set(NON_NULL_EXTENSION, non_null);
        if let Ok(v) = Value::from_json(extension) {
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
