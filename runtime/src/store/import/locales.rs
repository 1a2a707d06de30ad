//! Locales and core-store settings as the import (and a new SQLite database) writes them:
//! `i18n_locale` rows by code, and the default-locale setting.

use super::statements::{first_cell, first_where, insert_setting, setting, update_setting};
use crate::clock::now_ms;
use crate::schema::Model;
use crate::store::StoreError;
use crate::store::document_id::DocumentIds;
use crate::store::seam::{Change, StoredValue, Writer};

/// The core-store key of the default locale (value JSON-encoded, type `string`).
pub const DEFAULT_LOCALE_KEY: &str = "plugin_i18n_default_locale";

/// A locale to create in `i18n_locale`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocaleSeed {
    /// The ISO code (`en`, `fr`, `pt-BR`).
    pub code: String,
    /// The display name (`English (en)`).
    pub name: String,
    /// Whether it becomes the default locale.
    pub default: bool,
    /// A documentId to keep (one is generated otherwise).
    pub document_id: Option<String>,
    /// `created_at`/`updated_at`/`published_at` (epoch ms); now when absent.
    pub timestamp: Option<i64>,
}

impl LocaleSeed {
    /// A locale with a generated documentId and the current time.
    pub fn new(code: &str, name: &str, default: bool) -> Self {
        LocaleSeed {
            code: code.to_string(),
            name: name.to_string(),
            default,
            document_id: None,
            timestamp: None,
        }
    }
}

/// Adds the locales that `i18n_locale` does not have yet (by code) and sets the default
/// locale setting to the one marked `default`. Returns how many locales were created.
pub fn seed_locales(
    w: &dyn Writer,
    model: &Model,
    locales: &[LocaleSeed],
) -> Result<usize, StoreError> {
    let schema = model.by_uid("plugin::i18n.locale").ok_or_else(|| {
        StoreError::Other(
            "the content model has no `plugin::i18n.locale` (a built-in type strata always loads)"
                .into(),
        )
    })?;
    let table = schema.layout.table.as_str();
    let now = now_ms();
    let mut ids = DocumentIds::new();
    let mut created = 0;
    for l in locales {
        let exists = first_cell(w, &first_where(table, "id", "code", l.code.as_str()), |r| {
            Ok(Some(r.int(0)?))
        })?;
        if exists.is_none() {
            let doc = match &l.document_id {
                Some(d) => d.clone(),
                None => ids.next_id()?,
            };
            let ts = StoredValue::Timestamp(l.timestamp.unwrap_or(now));
            w.insert_rows(
                table,
                &[
                    "document_id",
                    "name",
                    "code",
                    "created_at",
                    "updated_at",
                    "published_at",
                ],
                &[
                    StoredValue::Text(doc),
                    StoredValue::Text(l.name.clone()),
                    StoredValue::Text(l.code.clone()),
                    ts.clone(),
                    ts.clone(),
                    ts,
                ],
            )?;
            created += 1;
        }
        if l.default {
            let value = serde_json::Value::String(l.code.clone()).to_string();
            put_setting(w, DEFAULT_LOCALE_KEY, &value, "string", true)?;
        }
    }
    Ok(created)
}

/// Writes a core-store setting (`environment` and `tag` NULL). When `replace` is false an
/// existing value is kept.
pub fn put_setting(
    w: &dyn Writer,
    key: &str,
    value: &str,
    ty: &str,
    replace: bool,
) -> Result<(), StoreError> {
    let id = first_cell(w, &setting(key, "id"), |r| Ok(Some(r.int(0)?)))?;
    match id {
        Some(id) if replace => {
            w.execute(Change::Update(&update_setting(id, value, ty)))?;
        }
        Some(_) => {}
        None => {
            w.execute(Change::Insert(&insert_setting(key, value, ty)?))?;
        }
    }
    Ok(())
}

/// The default locale the database records, when it records one.
pub fn default_locale(w: &dyn Writer) -> Result<Option<String>, StoreError> {
    let value = first_cell(w, &setting(DEFAULT_LOCALE_KEY, "value"), |r| r.opt_text(0))?;
    Ok(value.and_then(|v| serde_json::from_str::<String>(&v).ok()))
}
