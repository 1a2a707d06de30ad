//! strata-derive: `#[derive(ContentType)]` and `#[derive(Component)]` for structs that
//! strata-codegen emits. The macros land with the typed-Rust issue; today the crate only
//! fixes the place and the dependency boundary (no runtime, no database).
