//! The content model: Strapi v5 content types and components, loaded from schema files,
//! validated, resolved into an indexed immutable [`Model`], and mapped onto Strapi's
//! exact database layout.
//!
//! Flow: [`load`] finds the files (`load.rs`), `resolve.rs` parses and validates them and
//! resolves uids to [`SchemaId`]s, `layout.rs` computes table and column names with the
//! rules in `naming.rs`. Everything that depends on the schema files is computed here,
//! once; request-time code only follows ids.
//!
//! This module depends on `serde_json`, `thiserror` and `indexmap` only, so that
//! `strata-codegen` and `strata-derive` can use it without pulling in a server or a database.

mod condition;
mod error;
mod ids;
mod layout;
mod load;
mod model;
pub mod naming;
mod resolve;
mod tables;

pub use condition::{Condition, ConditionError, Op, Rule};
pub use error::{Problem, SchemaError, SchemaErrors};
pub use model::*;
pub use resolve::{
    KNOWN_CUSTOM_FIELDS, LoadOptions, RESERVED_ATTRIBUTE_NAMES, load, load_embedded, load_with,
};
pub use tables::{
    Column, ColumnDef, ColumnRole, ColumnType, DatabaseLayout, ForeignKeyDef, IndexDef, LinkTable,
    LookupIndex, MorphTable, OnDelete, RelationStorage, SchemaLayout, TableDef,
};
