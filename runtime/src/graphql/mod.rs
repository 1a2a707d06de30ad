//! Strapi 5.54's GraphQL schema (`@strapi/plugin-graphql`), built from the content
//! model at run time with async-graphql's dynamic schema (feature `graphql`).
//!
//! The flow: [`view`] reads the model as Strapi's plugin sees it (system attributes,
//! plugin types, shadow-CRUD switches); [`build`] and [`plugins`] write every type into
//! a plain [`ir::Registry`]; the registry is pruned to what the root types reach, as
//! Strapi prunes its schema; [`dynamic`] hands it to async-graphql. Names follow
//! Strapi's rules ([`names`]), never a list of one model's names.
//!
//! The read queries and mutations of the model's content types resolve over a
//! [`Reader`] (the HTTP server's store, `http/graphql/`; mutations go through the REST
//! write path, their `data` converted by [`input`]). Introspection is answered from the
//! same registry as graphql-js answers it ([`introspect`], [`introspection_json`]), not by
//! async-graphql; so is the SDL ([`sdl`], printed as graphql-js prints, and checked
//! against async-graphql's).

mod build;
mod coerce;
pub mod document;
mod dynamic;
pub mod empty_objects;
pub mod field_merge;
pub mod graphql_js;
pub mod input;
pub mod introspect;
pub mod ir;
pub mod js_validation;
pub mod literals;
pub mod names;
pub mod nesting;
pub mod nulls;
mod plugins;
mod project;
mod scalars;

pub use coerce::Coercions;
pub use plugins::OPERATORS as FILTER_OPERATORS;
pub use project::{Plain, PlainQuery};
mod sdl;
pub mod view;

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

pub use async_graphql::dynamic::Schema;
pub use dynamic::{
    Catalog, NO_PATH_EXTENSION, NON_NULL_EXTENSION, PATH_EXTENSION, Populate, PopulateNode,
    ReadError, Reader, RootField, RootKind, SharedReader, VariantPass, graft, pagination_window,
    split_variants, variant_key,
};

use crate::schema::Model;

/// graphql-js's `getIntrospectionQuery` with every option on (descriptions,
/// `specifiedByURL`, `isRepeatable`, the schema's description, deprecated inputs).
pub const INTROSPECTION_QUERY: &str = include_str!("introspection.graphql");

/// Why a schema or its introspection could not be made.
#[derive(Debug, thiserror::Error)]
pub enum GraphqlError {
    /// The library refused the generated schema: a bug in the rules or a model whose
    /// names clash (two types that map to one GraphQL name).
    #[error(
        "the GraphQL schema built from the model is invalid: {0}; check the model for types or attributes whose GraphQL names clash"
    )]
    Invalid(String),
    /// Introspection answered errors.
    #[error("introspecting the GraphQL schema failed: {0}")]
    Introspection(String),
}

/// The plain schema (types, fields, arguments) of a model, pruned as Strapi prunes it.
pub fn registry(model: &Model) -> ir::Registry {
    let view = view::View::of(model);
    let mut reg = ir::Registry::default();
    plugins::internals(&mut reg);
    build::shadow_crud(&view, &mut reg);
    plugins::upload(&view, &mut reg);
    plugins::i18n(&mut reg);
    plugins::users_permissions(&view, &mut reg);
    plugins::pagination_arg(&mut reg);
    reg.roots_last(&["Query", "Mutation"]);
    reg.pruned(&["Query", "Mutation"])
}

/// The GraphQL schema Strapi 5.54 serves for this model.
///
/// # Errors
///
/// [`GraphqlError::Invalid`] when async-graphql refuses the schema.
pub fn schema(model: &Model) -> Result<Schema, GraphqlError> {
    let reg = registry(model);
    let roots = roots(model, &reg);
    let coercions = std::sync::Arc::new(Coercions::new(&reg));
    schema_of(
        &reg,
        &roots,
        &std::sync::Arc::new(catalog(model)),
        &coercions,
    )
}

/// [`schema`] from its parts, for a caller that keeps them ([`registry`], [`roots`],
/// [`catalog`] of one model, and the [`Coercions`] of the registry's input types).
///
/// # Errors
///
/// As [`schema`].
pub fn schema_of(
    reg: &ir::Registry,
    roots: &HashMap<String, RootField>,
    catalog: &std::sync::Arc<Catalog>,
    coercions: &std::sync::Arc<Coercions>,
) -> Result<Schema, GraphqlError> {
    let mutation = reg.types.contains_key("Mutation");
    dynamic::build(reg, mutation, roots, catalog, coercions).map_err(|e| GraphqlError::Invalid(e.0))
}

/// Per object type, the fields that load a relation, media, component or zone (what a
/// selection turns into populate).
pub fn catalog(model: &Model) -> Catalog {
    let view = view::View::of(model);
    let mut out = Catalog::new();
    for ty in view.enabled() {
        let mut fields = HashMap::new();
        for attr in &ty.attrs {
            let (target, many, uid) = match &attr.shape {
                view::AttrShape::Relation {
                    target: Some(uid),
                    to_many,
                    morph: false,
                } => (
                    view.get(uid).map(|t| t.name.clone()),
                    *to_many,
                    Some(uid.clone()),
                ),
                view::AttrShape::Media { multiple } => (
                    view.get("plugin::upload.file").map(|t| t.name.clone()),
                    *multiple,
                    // Media is loaded whatever the caller's upload grants, as REST does.
                    None,
                ),
                view::AttrShape::Component { uid, .. } => {
                    (view.get(uid).map(|t| t.name.clone()), false, None)
                }
                view::AttrShape::Zone(_) => (None, false, None),
                _ => continue,
            };
            // A zone's members, whose own relations, media and components load too.
            let members = match &attr.shape {
                view::AttrShape::Zone(uids) => uids
                    .iter()
                    .filter_map(|uid| view.get(uid).map(|t| (t.name.clone(), uid.clone())))
                    .collect(),
                _ => Vec::new(),
            };
            if target.is_none() && !matches!(attr.shape, view::AttrShape::Zone(_)) {
                continue;
            }
            let loaded = dynamic::Loaded {
                attr: attr.name.clone(),
                uid,
                filters_input: target.as_deref().map(names::filters_name),
                target,
                members,
            };
            if many {
                fields.insert(format!("{}_connection", attr.name), loaded.clone());
            }
            fields.insert(attr.name.clone(), loaded);
        }
        out.insert(ty.name.clone(), fields);
    }
    out
}

/// The plugins' content types strata stores, whose read queries it answers as the
/// model's own (`uploadFiles`, `i18NLocales`, `usersPermissionsUsers`,
/// `usersPermissionsRoles`); review workflows' are not stored.
const STORED_PLUGIN_TYPES: [&str; 4] = [
    "plugin::upload.file",
    "plugin::i18n.locale",
    "plugin::users-permissions.user",
    "plugin::users-permissions.role",
];

/// The root fields answered from the store, by field name: the read queries and the
/// mutations (`create`/`update`/`delete<T>`) of the model's own (`api::`) content types
/// that the pruned schema kept; the read queries of the plugins' stored types
/// ([`STORED_PLUGIN_TYPES`]) and users-permissions' `me`.
pub fn roots(model: &Model, reg: &ir::Registry) -> HashMap<String, RootField> {
    let view = view::View::of(model);
    let mut out = mutation_roots(&view, reg);
    let Some(ir::Kind::Object(query)) = reg.types.get("Query").map(|t| &t.kind) else {
        return out;
    };
    let served = |name: &str| query.iter().any(|f| f.name == name);
    if served("me") {
        out.insert(
            "me".into(),
            RootField {
                uid: "plugin::users-permissions.user".into(),
                kind: RootKind::Me,
            },
        );
    }
    for ty in view.enabled() {
        let stored = ty.uid.starts_with("api::") || STORED_PLUGIN_TYPES.contains(&ty.uid.as_str());
        if !stored || ty.crud.no_queries {
            continue;
        }
        let one = names::lower_first(&ty.name);
        let mut add = |name: String, kind: RootKind| {
            if served(&name) {
                out.insert(
                    name,
                    RootField {
                        uid: ty.uid.clone(),
                        kind,
                    },
                );
            }
        };
        match ty.kind {
            view::ViewKind::Single => add(one, RootKind::Single),
            view::ViewKind::Collection => {
                let many = names::lower_first(&ty.plural_name);
                add(one, RootKind::One);
                add(format!("{many}_connection"), RootKind::Connection);
                add(many, RootKind::List);
            }
            view::ViewKind::Component => {}
        }
    }
    out
}

/// The mutations of the model's own content types: `create<T>` (collection types),
/// `update<T>` and `delete<T>`, where the pruned `Mutation` type has them.
fn mutation_roots(view: &view::View, reg: &ir::Registry) -> HashMap<String, RootField> {
    let mut out = HashMap::new();
    let Some(ir::Kind::Object(mutation)) = reg.types.get("Mutation").map(|t| &t.kind) else {
        return out;
    };
    for ty in view.enabled() {
        if !ty.uid.starts_with("api::") || ty.crud.no_mutations || ty.crud.no_write_actions {
            continue;
        }
        for (prefix, kind) in [
            ("create", RootKind::Create),
            ("update", RootKind::Update),
            ("delete", RootKind::Delete),
        ] {
            let name = format!("{prefix}{}", ty.name);
            if mutation.iter().any(|f| f.name == name) {
                let uid = ty.uid.clone();
                out.insert(name, RootField { uid, kind });
            }
        }
    }
    out
}

/// The SDL of a model's schema, printed as graphql-js prints Strapi's (for front-end
/// code generators; `strata generate --lang graphql`).
pub fn sdl(model: &Model) -> String {
    sdl::print(&registry(model))
}

/// The answer to [`INTROSPECTION_QUERY`] for a model's schema, as JSON (`{"data":
/// {"__schema": …}}`): graphql-js's, as Strapi serves it ([`introspect`], what
/// `/graphql` answers too).
///
/// # Errors
///
/// [`GraphqlError::Introspection`] when the query answers errors.
pub fn introspection(model: &Model) -> Result<serde_json::Value, GraphqlError> {
    introspect::Introspection::new(&registry(model))
        .answer(INTROSPECTION_QUERY)
        .map_err(GraphqlError::Introspection)
}

/// [`introspection`] as pretty JSON text.
///
/// # Errors
///
/// As [`introspection`].
pub fn introspection_json(model: &Model) -> Result<String, GraphqlError> {
    let value = introspection(model)?;
    serde_json::to_string_pretty(&value).map_err(|e| GraphqlError::Introspection(e.to_string()))
}

/// Runs a future that never waits on I/O (introspection, and the resolvers, which read
/// the store synchronously: call it from a blocking thread).
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::yield_now();
    }
}
