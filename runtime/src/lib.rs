//! strata's engine.
//!
//! * [`schema`]: the content model (Strapi v5 schema files → an indexed, validated model
//!   with Strapi's database layout).
//! * [`query`]: the query language (query string → validated `Query`, and back).
//! * [`typed`]: the traits and value types of generated, typed Rust.
//! * `store` (feature `store`): Strapi's database layout on SQLite.
//! * `auth` (feature `store`): Strapi's credentials: API token hashes, users-permissions
//!   JWTs, the `Authorization` header.
//! * `http` (feature `http`): the content API over axum.
//! * `client` (feature `client`): a typed HTTP client of the content API.
//!
//! See `ARCHITECTURE.md` at the repository root for the map of the whole system.

#[cfg(feature = "store")]
pub mod auth;
#[cfg(feature = "client")]
pub mod client;
pub mod clock;
#[cfg(feature = "graphql")]
pub mod graphql;
#[cfg(feature = "http")]
pub mod http;
pub mod query;
pub mod schema;
#[cfg(feature = "store")]
pub mod store;
pub mod typed;
#[cfg(feature = "store")]
pub mod write;
