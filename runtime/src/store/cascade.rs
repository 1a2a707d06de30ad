//! Which rows the database deletes by itself when a row is deleted: the link rows and
//! `_cmps` rows whose foreign keys say `ON DELETE CASCADE`, as Strapi's layout declares
//! them. [`Rows::delete_rows`](super::rows::Rows::delete_rows) leaves those tables to the
//! database and deletes from the others itself (the morph table of media links, whose
//! `related_id` has no foreign key, and the component rows, which `_cmps` only points
//! at). For a blog article that is six statements fewer per delete, and per publish
//! (which deletes the old published row), with the same rows left.
//!
//! Decision: a (table, column) is trusted only when the database has the foreign key the
//! model's layout declares there (same table, column and referenced table), with
//! `ON DELETE CASCADE`, and enforces it on its connections (SQLite's `foreign_keys`,
//! MySQL's `foreign_key_checks`). It is read once, when the store opens. A database
//! without them (a key dropped or never made, enforcement off) gets the explicit deletes
//! it always got. A key dropped while strata runs is not seen until the next start.

use std::collections::BTreeSet;

use super::StoreError;
use super::seam::{CascadingKey, Executor};
use crate::schema::{Model, OnDelete};

/// The (table, column) pairs whose rows the database deletes with the row they reference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cascades {
    keys: BTreeSet<(String, String)>,
}

/// Cascades trusted nowhere: every delete is explicit.
static NONE: Cascades = Cascades {
    keys: BTreeSet::new(),
};

impl Cascades {
    /// Cascades trusted nowhere.
    pub fn none() -> &'static Cascades {
        &NONE
    }

    /// The model's declared `ON DELETE CASCADE` keys that the database has and enforces
    /// (see the module's doc).
    pub fn read(exec: &dyn Executor, model: &Model) -> Result<Cascades, StoreError> {
        let found: BTreeSet<CascadingKey> = exec.cascading_foreign_keys()?.into_iter().collect();
        let mut keys = BTreeSet::new();
        for table in &model.database_layout().tables {
            for fk in &table.foreign_keys {
                let declared = CascadingKey {
                    table: table.name.clone(),
                    column: fk.column.clone(),
                    references: fk.ref_table.clone(),
                };
                if fk.on_delete == OnDelete::Cascade && found.contains(&declared) {
                    keys.insert((declared.table, declared.column));
                }
            }
        }
        Ok(Cascades { keys })
    }

    /// Whether deleting a referenced row deletes the rows of `table` whose `column`
    /// points at it.
    pub fn deletes(&self, table: &str, column: &str) -> bool {
        self.keys
            .iter()
            .any(|(t, c)| t.as_str() == table && c.as_str() == column)
    }
}
