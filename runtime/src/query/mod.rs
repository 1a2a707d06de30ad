//! The read-query language of Strapi v5's content API.
//!
//! A raw query string and a content type go in; a validated, canonical [`Query`] or a
//! Strapi-shaped [`QueryError`] (always a 400) comes out. No I/O, no panics.
//!
//! * [`qs`]: the qs-compatible bracket parser (string → tree of strings).
//! * `parse.rs`: tree → [`Query`], validated against the [`Model`](crate::schema::Model).
//! * [`ast`]: the typed query.
//! * [`mod@print`]: [`Query`] → canonical query string.
//! * `values.rs`: Strapi's value coercions (numbers, booleans, dates, times).
//!
//! Who the caller is does not matter here: permission-dependent rules read a
//! [`Permissions`] value passed in by the caller.

pub mod ast;
mod error;
mod parse;
pub mod print;
pub mod qs;
pub mod values;

pub use ast::*;
pub use error::{Param, QueryError};
pub use parse::parse_query;

use crate::schema::{Model, SchemaId};

/// Which content types the caller may `find` (read). Relations to other types cannot be
/// filtered or sorted on (400) and are silently left out of populate, as in Strapi.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permissions {
    find: Vec<bool>,
}

impl Permissions {
    /// May find every type of `model`.
    pub fn all(model: &Model) -> Self {
        Permissions {
            find: vec![true; model.schemas().len()],
        }
    }

    /// May find nothing.
    pub fn none(model: &Model) -> Self {
        Permissions {
            find: vec![false; model.schemas().len()],
        }
    }

    /// Grants `find` on one type.
    pub fn allow(&mut self, id: SchemaId) {
        if let Some(slot) = self.find.get_mut(id.index()) {
            *slot = true;
        }
    }

    /// Whether the caller may find this type.
    pub fn can_find(&self, id: SchemaId) -> bool {
        self.find.get(id.index()).copied().unwrap_or(false)
    }
}

/// Query settings: Strapi's `config/api.js` knobs plus strata's limits.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryConfig {
    /// `api.rest.defaultLimit` (25).
    pub default_limit: u64,
    /// `api.rest.maxLimit` (Strapi: none; the project template and strata: 100).
    pub max_limit: Option<u64>,
    /// `api.rest.withCount` (true).
    pub with_count: bool,
    /// `api.rest.strictParams`: unknown top-level keys are a 400 instead of ignored.
    pub strict_params: bool,
    /// `api.documents.strictParams`: `status` and `locale` are checked strictly.
    pub documents_strict_params: bool,
    /// What a comparison operator whose value is itself an operator object
    /// (`filters[title][$eq][$eq]=x`) means: the database decides, as in Strapi.
    pub operator_objects: OperatorObjects,
    /// Size limits.
    pub limits: QueryLimits,
}

impl Default for QueryConfig {
    fn default() -> Self {
        QueryConfig {
            default_limit: 25,
            max_limit: Some(100),
            with_count: true,
            strict_params: false,
            documents_strict_params: false,
            operator_objects: OperatorObjects::Reject,
            limits: QueryLimits::default(),
        }
    }
}

/// A comparison operator whose value is an operator object (`[$eq][$eq]=x`), as Strapi's
/// drivers bind it: `pg` sends the object as its JSON text (`{"$eq":"x"}`), which then
/// matches nothing on a text column and fails on a number; SQLite's driver refuses to
/// bind an object (a 500 there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OperatorObjects {
    /// A 400 naming the operator (where Strapi crashes: SQLite, MySQL).
    #[default]
    Reject,
    /// The object's JSON text is the value (PostgreSQL); in `$in`/`$notIn`, a list of it.
    JsonText,
}

/// Limits on query size. Exceeding one is a 400 with `details.limit` naming it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryLimits {
    /// Bytes of query string (default 32 KiB).
    pub max_query_length: usize,
    /// Nesting of `$and`/`$or`/`$not` and relation paths in filters (default 16).
    pub max_depth: usize,
    /// Field conditions in one query, populate filters included (default 500).
    pub max_conditions: usize,
    /// Values of one `$in`/`$notIn` (default 1000; Strapi silently drops lists over 100).
    pub max_in_values: usize,
    /// Levels of nested populate (default 10).
    pub max_populate_depth: usize,
}

impl Default for QueryLimits {
    fn default() -> Self {
        QueryLimits {
            max_query_length: 32 * 1024,
            max_depth: 16,
            max_conditions: 500,
            max_in_values: 1000,
            max_populate_depth: 10,
        }
    }
}
