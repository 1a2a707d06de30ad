//! strata-codegen: turns Strapi v5 content-type schemas into typed Rust source
//! (entry structs, filter builders, populate enums) for `build.rs` and `strata generate`.
//!
//! It reads the content model through [`strata_runtime::schema`], built without the
//! runtime's server and database features, so a build script stays light.
//! The generator itself lands with the typed-Rust issue; today the crate only fixes
//! the dependency boundary.

pub use strata_runtime::schema;
