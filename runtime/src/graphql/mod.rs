//! Strapi 5.54's GraphQL schema (`@strapi/plugin-graphql`), built from the content
//! model at run time with async-graphql's dynamic schema (feature `graphql`).
//!
//! The flow: [`view`] reads the model as Strapi's plugin sees it (system attributes,
//! plugin types, shadow-CRUD switches); [`build`] and [`plugins`] write every type into
//! a plain [`ir::Registry`]; the registry is pruned to what the root types reach, as
//! Strapi prunes its schema; [`dynamic`] hands it to async-graphql. Names follow
//! Strapi's rules ([`names`]), never a list of one model's names.
//!
//! Resolvers are not here yet: every field answers an error, and no route serves the
//! schema. It gives its introspection ([`introspection_json`]) and SDL ([`sdl`], printed
//! from the same registry as graphql-js prints, and checked against async-graphql's).

mod build;
mod dynamic;
pub mod ir;
pub mod names;
mod plugins;
mod sdl;
pub mod view;

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

pub use async_graphql::dynamic::Schema;

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
    let mutation = reg.types.contains_key("Mutation");
    dynamic::build(&reg, mutation).map_err(|e| GraphqlError::Invalid(e.0))
}

/// The SDL of a model's schema, printed as graphql-js prints Strapi's (for front-end
/// code generators; `strata generate --lang graphql`).
pub fn sdl(model: &Model) -> String {
    sdl::print(&registry(model))
}

/// The answer to [`INTROSPECTION_QUERY`], as JSON (`{"data": {"__schema": …}}`).
///
/// # Errors
///
/// [`GraphqlError::Introspection`] when the query answers errors.
pub fn introspection(schema: &Schema) -> Result<serde_json::Value, GraphqlError> {
    let response = block_on(schema.execute(INTROSPECTION_QUERY));
    if !response.errors.is_empty() {
        let messages: Vec<String> = response.errors.iter().map(|e| e.message.clone()).collect();
        return Err(GraphqlError::Introspection(messages.join("; ")));
    }
    let data = response
        .data
        .into_json()
        .map_err(|e| GraphqlError::Introspection(e.to_string()))?;
    Ok(serde_json::json!({ "data": data }))
}

/// [`introspection`] as pretty JSON text.
///
/// # Errors
///
/// As [`introspection`].
pub fn introspection_json(schema: &Schema) -> Result<String, GraphqlError> {
    let value = introspection(schema)?;
    serde_json::to_string_pretty(&value).map_err(|e| GraphqlError::Introspection(e.to_string()))
}

/// Runs a future that never waits on I/O (introspection resolves synchronously).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::yield_now();
    }
}
