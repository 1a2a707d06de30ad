//! strata's engine.
//!
//! * [`schema`]: the content model (Strapi v5 schema files → an indexed, validated model
//!   with Strapi's database layout).
//!
//! See `ARCHITECTURE.md` at the repository root for the map of the whole system.

#[cfg(feature = "http")]
pub mod http;
pub mod query;
pub mod schema;
#[cfg(feature = "store")]
pub mod store;
