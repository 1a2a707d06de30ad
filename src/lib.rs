//! strata: a schema-first content API.
//!
//! Teams describe their content types as Strapi v5 `schema.json` files; strata loads them
//! into a typed model ([`schema`]) with Strapi's exact database layout, and serves them
//! with Strapi v5's REST content API.
//!
//! This crate is the facade: it re-exports the engine ([`strata_runtime`]) and hosts the
//! `strata` command-line tool.

pub use strata_runtime::*;

/// The derives of typed content: see [`typed`] and the `strata-derive` crate.
pub use strata_derive::{Component, ContentType, DynamicZone};

/// The engine crate, for paths like `strata::runtime::schema::Model`.
pub use strata_runtime as runtime;

/// schemars, as generated code names it (`#[schemars(crate = "::strata::schemars")]`).
pub use schemars;
/// serde, as generated code names it (`#[serde(crate = "::strata::serde")]`): a crate that
/// uses generated types depends on `strata` alone.
pub use serde;
/// serde_json, for reading and writing entries and the untyped `Json` values.
pub use serde_json;
