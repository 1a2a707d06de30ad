//! The DDL of a fresh database, and the rows Strapi expects to find in one.
//!
//! [`create_database`] creates every table of [`Model::database_layout`] with the exact
//! statements Strapi 5.54 issues on SQLite (backtick quoting,
//! `integer not null primary key autoincrement`, declared types from
//! [`ColumnType::sqlite_decl`], `null` columns, named foreign-key constraints, named
//! indexes), plus Strapi's own admin and internal tables (`admin_*`, `strapi_*`, copied
//! verbatim from a fresh Strapi boot in `sqlite/strapi_system.sql`), and seeds what Strapi
//! looks for at boot: the 8 internal migration names, the default-locale setting, the
//! join-table repair flag and the two users-permissions roles. `strapi_database_schema`
//! stays empty, so a Strapi pointed at the file adopts it without migrating data.
//!
//! [`seed_locales`] and [`seed_public_permissions`] add locales and public-role
//! permissions from a list the caller gives (the dataset, or `strata.toml`).
//!
//! Statements are formatted only from identifiers the model computed; values are bound.

use rusqlite::{Connection, OptionalExtension, params};

use super::SqliteExecutor;
use super::render::{quote, table_statements};
use crate::clock::now_ms;
use crate::schema::{AttributeKind, Model, RelationStorage, Schema};
use crate::store::StoreError;
use crate::store::document_id::DocumentIds;
use crate::store::import::locales;

/// Strapi's admin and internal tables, one statement per line (see the file's header).
const STRAPI_SYSTEM_DDL: &str = include_str!("strapi_system.sql");

/// The internal migrations Strapi 5.54 records on a fresh database. A database without them
/// makes Strapi run them at boot, and `core::5.0.0-discard-drafts` would duplicate every draft.
pub const STRAPI_INTERNAL_MIGRATIONS: [&str; 8] = [
    "5.0.0-rename-identifiers-longer-than-max-length",
    "5.0.0-02-created-document-id",
    "5.0.0-03-created-locale",
    "5.0.0-04-created-published-at",
    "5.0.0-05-drop-slug-fields-index",
    "5.0.0-06-add-document-id-indexes",
    "core::5.0.0-discard-drafts",
    "admin::migrate-prefered-language-dk-to-da",
];

pub use crate::store::import::locales::{DEFAULT_LOCALE_KEY, LocaleSeed};

/// The core-store key that tells Strapi its one-time link-table repair already ran.
pub const JOIN_TABLE_REPAIR_KEY: &str = "strapi_unidirectional-join-table-repair-ran";

/// Sets the connection pragmas strata relies on: foreign keys (Strapi's cascades) and,
/// for files, the WAL journal. Must run outside a transaction.
pub fn set_pragmas(conn: &Connection) -> Result<(), StoreError> {
    conn.pragma_update(None, "foreign_keys", "ON")?;
    if conn.path().is_some_and(|p| !p.is_empty()) {
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    }
    Ok(())
}

/// Creates a fresh database for `model` that Strapi 5.54 itself would accept: every table
/// of the model's layout with Strapi's DDL, Strapi's admin and internal tables, and the rows
/// Strapi expects (internal migrations, default locale `en`, the join-table repair flag,
/// the `authenticated` and `public` roles). Records the layout for later migrations.
///
/// Fails without changing anything when the database already has tables.
pub fn create_database(conn: &Connection, model: &Model) -> Result<(), StoreError> {
    set_pragmas(conn)?;
    let existing: i64 = conn.query_row(
        "select count(*) from sqlite_master where type = 'table' and name not like 'sqlite_%'",
        [],
        |r| r.get(0),
    )?;
    if existing > 0 {
        return Err(StoreError::Other(format!(
            "cannot create a fresh database: it already has {existing} tables (open it with migrations instead, or use a new file)"
        )));
    }
    let layout = model.database_layout();
    let tx = conn.unchecked_transaction()?;
    for stmt in STRAPI_SYSTEM_DDL
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("--"))
    {
        tx.execute(stmt, [])?;
    }
    for table in &layout.tables {
        for stmt in table_statements(table) {
            tx.execute(&stmt, [])?;
        }
    }
    super::migrate::record_layout(&tx, model)?;
    seed_system_rows(&tx)?;
    seed_roles(&tx, model)?;
    tx.commit()?;
    Ok(())
}

/// The rows of `strapi_migrations_internal` and `strapi_core_store_settings` Strapi looks
/// for at boot. Idempotent.
fn seed_system_rows(conn: &Connection) -> Result<(), StoreError> {
    let now = now_ms();
    for name in STRAPI_INTERNAL_MIGRATIONS {
        let present: Option<i64> = conn
            .query_row(
                "select id from `strapi_migrations_internal` where `name` = ?1",
                [name],
                |r| r.get(0),
            )
            .optional()?;
        if present.is_none() {
            conn.execute(
                "insert into `strapi_migrations_internal` (`name`, `time`) values (?1, ?2)",
                params![name, now],
            )?;
        }
    }
    put_setting(conn, JOIN_TABLE_REPAIR_KEY, "true", "boolean", false)?;
    put_setting(conn, DEFAULT_LOCALE_KEY, "\"en\"", "string", false)?;
    Ok(())
}

/// Writes a core-store setting ([`locales::put_setting`]) on a connection.
pub fn put_setting(
    conn: &Connection,
    key: &str,
    value: &str,
    ty: &str,
    replace: bool,
) -> Result<(), StoreError> {
    locales::put_setting(&SqliteExecutor::new(conn), key, value, ty, replace)
}

fn schema_table<'m>(model: &'m Model, uid: &str) -> Result<&'m Schema, StoreError> {
    model.by_uid(uid).ok_or_else(|| {
        StoreError::Other(format!(
            "the content model has no `{uid}` (a built-in type strata always loads)"
        ))
    })
}

/// The role link table of users or permissions: (table, owner column, role column, inverse order column).
pub(crate) fn role_link(
    model: &Model,
    uid: &str,
) -> Result<(String, String, String, Option<String>), StoreError> {
    let schema = schema_table(model, uid)?;
    match schema.attribute("role").map(|a| &a.kind) {
        Some(AttributeKind::Relation(rel)) => match &rel.storage {
            RelationStorage::LinkTable(lt) => Ok((
                lt.table.clone(),
                lt.owner_column.clone(),
                lt.target_column.clone(),
                lt.inverse_order.clone(),
            )),
            _ => Err(StoreError::Other(format!(
                "`{uid}.role` is not stored in a link table"
            ))),
        },
        _ => Err(StoreError::Other(format!("`{uid}` has no `role` relation"))),
    }
}

/// Creates the users-permissions roles `authenticated` (id 1) and `public` (id 2) when the
/// roles table is empty, as Strapi does at its first boot.
fn seed_roles(conn: &Connection, model: &Model) -> Result<(), StoreError> {
    let roles = schema_table(model, "plugin::users-permissions.role")?;
    let table = quote(&roles.layout.table);
    let count: i64 = conn.query_row(&format!("select count(*) from {table}"), [], |r| r.get(0))?;
    if count > 0 {
        return Ok(());
    }
    let now = now_ms();
    let mut ids = DocumentIds::new();
    for (name, description, ty) in [
        (
            "Authenticated",
            "Default role given to authenticated user.",
            "authenticated",
        ),
        (
            "Public",
            "Default role given to unauthenticated user.",
            "public",
        ),
    ] {
        conn.execute(
            &format!(
                "insert into {table} (`document_id`, `name`, `description`, `type`, `created_at`, `updated_at`, `published_at`) values (?1, ?2, ?3, ?4, ?5, ?5, ?5)"
            ),
            params![ids.next_id()?, name, description, ty, now],
        )?;
    }
    Ok(())
}

/// Adds locales on a connection ([`locales::seed_locales`]).
pub fn seed_locales(
    conn: &Connection,
    model: &Model,
    seeds: &[LocaleSeed],
) -> Result<usize, StoreError> {
    locales::seed_locales(&SqliteExecutor::new(conn), model, seeds)
}

/// The verbs of the content API the public role can be granted.
pub const PUBLIC_VERBS: [&str; 2] = ["find", "findOne"];

/// The action string Strapi uses for `verb` on a content type: `api::article.article.find`.
pub fn action_for(schema: &Schema, verb: &str) -> String {
    format!("{}.{verb}", schema.uid)
}

/// Grants the public role the given actions (`api::article.article.find`,
/// `api::article.article.findOne`, …): one `up_permissions` row and one
/// `up_permissions_role_lnk` row per action the role does not have yet. Every action must
/// name a content type of the model and a verb of [`PUBLIC_VERBS`]. Returns how many
/// permissions were added.
pub fn seed_public_permissions(
    conn: &Connection,
    model: &Model,
    actions: &[String],
) -> Result<usize, StoreError> {
    let mut problems = Vec::new();
    for action in actions {
        let ok = action.rsplit_once('.').is_some_and(|(uid, verb)| {
            PUBLIC_VERBS.contains(&verb) && model.by_uid(uid).is_some_and(|s| s.is_content_type())
        });
        if !ok {
            problems.push(format!(
                "unknown public permission `{action}`: expected `<content-type uid>.find` or `.findOne`, e.g. `api::article.article.find`"
            ));
        }
    }
    if !problems.is_empty() {
        return Err(StoreError::Other(problems.join("\n")));
    }
    let perms = schema_table(model, "plugin::users-permissions.permission")?;
    let roles = schema_table(model, "plugin::users-permissions.role")?;
    let perm_table = quote(&perms.layout.table);
    let role_table = quote(&roles.layout.table);
    let (lnk, perm_col, role_col, ord_col) =
        role_link(model, "plugin::users-permissions.permission")?;
    let (lnk, perm_col, role_col) = (quote(&lnk), quote(&perm_col), quote(&role_col));
    let role_id: i64 = conn
        .query_row(
            &format!("select id from {role_table} where `type` = 'public' limit 1"),
            [],
            |r| r.get(0),
        )
        .optional()?
        .ok_or_else(|| {
            StoreError::Other(
                "the database has no public role (up_roles type `public`); create it with strata or Strapi first".into(),
            )
        })?;
    let now = now_ms();
    let mut ids = DocumentIds::new();
    let mut added = 0;
    for action in actions {
        let has: Option<i64> = conn
            .query_row(
                &format!(
                    "select p.id from {perm_table} p join {lnk} l on p.id = l.{perm_col} where l.{role_col} = ?1 and p.`action` = ?2 limit 1"
                ),
                params![role_id, action],
                |r| r.get(0),
            )
            .optional()?;
        if has.is_some() {
            continue;
        }
        conn.execute(
            &format!(
                "insert into {perm_table} (`document_id`, `action`, `created_at`, `updated_at`, `published_at`) values (?1, ?2, ?3, ?3, ?3)"
            ),
            params![ids.next_id()?, action, now],
        )?;
        let perm_id = conn.last_insert_rowid();
        match &ord_col {
            Some(ord) => {
                let ord = quote(ord);
                let next: f64 = conn.query_row(
                    &format!("select coalesce(max({ord}), 0) + 1 from {lnk} where {role_col} = ?1"),
                    [role_id],
                    |r| r.get(0),
                )?;
                conn.execute(
                    &format!(
                        "insert into {lnk} ({perm_col}, {role_col}, {ord}) values (?1, ?2, ?3)"
                    ),
                    params![perm_id, role_id, next],
                )?;
            }
            None => {
                conn.execute(
                    &format!("insert into {lnk} ({perm_col}, {role_col}) values (?1, ?2)"),
                    params![perm_id, role_id],
                )?;
            }
        }
        added += 1;
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn document_ids_look_like_cuid2() {
        let mut g = DocumentIds::new();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1000 {
            let id = g.next_id().unwrap();
            assert_eq!(id.len(), 24);
            assert!(id.as_bytes()[0].is_ascii_lowercase());
            assert!(
                id.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            );
            assert!(seen.insert(id));
        }
    }

    #[test]
    fn quoting_doubles_backticks() {
        assert_eq!(quote("a`b"), "`a``b`");
    }
}
