//! Settings Strapi keeps in the database and strata reads as Strapi does: the default
//! locale (`strapi_core_store_settings`, key `plugin_i18n_default_locale`), the locales
//! (`i18n_locale`) and the actions granted to a users-permissions role (`up_permissions`).

use rusqlite::{Connection, OptionalExtension};

use super::StoreError;

/// i18n settings of a database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The default locale code (`en` when the database does not say).
    pub default_locale: String,
    /// The configured locale codes.
    pub locales: Vec<String>,
}

/// Reads the i18n settings. Missing tables or rows fall back to Strapi's defaults (`en`).
pub fn read_settings(conn: &Connection) -> Result<Settings, StoreError> {
    let raw: Option<String> = conn
        .query_row(
            "SELECT value FROM strapi_core_store_settings WHERE key = ?1 AND environment IS NULL AND tag IS NULL LIMIT 1",
            ["plugin_i18n_default_locale"],
            |r| r.get(0),
        )
        .optional()
        .or_else(ignore_missing_table)?;
    // The value is JSON-encoded (`"en"`).
    let default_locale = raw
        .and_then(|v| serde_json::from_str::<String>(&v).ok())
        .unwrap_or_else(|| "en".to_string());
    let mut locales = Vec::new();
    match conn.prepare("SELECT code FROM i18n_locale ORDER BY id") {
        Ok(mut stmt) => {
            let rows = stmt.query_map([], |r| r.get::<_, Option<String>>(0))?;
            for r in rows {
                if let Some(code) = r? {
                    locales.push(code);
                }
            }
        }
        Err(e) if is_missing_table(&e) => {}
        Err(e) => return Err(e.into()),
    }
    if locales.is_empty() {
        locales.push(default_locale.clone());
    }
    Ok(Settings {
        default_locale,
        locales,
    })
}

/// The actions (`api::article.article.find`, …) granted to the users-permissions role of
/// this `type` (`public`, `authenticated`).
pub fn role_actions(conn: &Connection, role_type: &str) -> Result<Vec<String>, StoreError> {
    let sql = "SELECT DISTINCT p.action FROM up_permissions p \
               JOIN up_permissions_role_lnk l ON p.id = l.permission_id \
               JOIN up_roles r ON l.role_id = r.id WHERE r.type = ?1";
    let mut stmt = match conn.prepare_cached(sql) {
        Ok(s) => s,
        Err(e) if is_missing_table(&e) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let rows = stmt.query_map([role_type], |r| r.get::<_, Option<String>>(0))?;
    let mut out = Vec::new();
    for r in rows {
        if let Some(a) = r? {
            out.push(a);
        }
    }
    Ok(out)
}

fn is_missing_table(e: &rusqlite::Error) -> bool {
    e.to_string().contains("no such table")
}

fn ignore_missing_table<T: Default>(e: rusqlite::Error) -> Result<T, rusqlite::Error> {
    if is_missing_table(&e) {
        Ok(T::default())
    } else {
        Err(e)
    }
}
