//! Settings Strapi keeps in the database and strata reads as Strapi does: the default
//! locale (`strapi_core_store_settings`, key `plugin_i18n_default_locale`), the locales
//! (`i18n_locale`) and the actions granted to a users-permissions role (`up_permissions`).
//! Statements are sea-query's and run through the backend seam, so they read SQLite and
//! PostgreSQL alike.

use sea_query::{Alias, Expr, ExprTrait, JoinType, Order, Query as Sql};

use super::StoreError;
use super::seam::{Executor, query_map};
use super::sql::col;

/// i18n settings of a database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The default locale code (`en` when the database does not say).
    pub default_locale: String,
    /// The configured locale codes.
    pub locales: Vec<String>,
}

/// A missing table reads as no rows (a database Strapi has not fully set up).
pub(super) fn or_empty<T>(r: Result<Vec<T>, StoreError>) -> Result<Vec<T>, StoreError> {
    match r {
        Err(StoreError::MissingTable(_)) => Ok(Vec::new()),
        other => other,
    }
}

/// Reads the i18n settings. Missing tables or rows fall back to Strapi's defaults (`en`).
pub fn read_settings(exec: &dyn Executor) -> Result<Settings, StoreError> {
    let mut stmt = Sql::select();
    stmt.expr(col("s", "value"))
        .from_as(Alias::new("strapi_core_store_settings"), Alias::new("s"))
        .and_where(col("s", "key").eq("plugin_i18n_default_locale"))
        .and_where(col("s", "environment").is_null())
        .and_where(col("s", "tag").is_null())
        .limit(1);
    let raw = or_empty(query_map(exec, &stmt, |r| r.opt_text(0)))?;
    // The value is JSON-encoded (`"en"`).
    let default_locale = raw
        .into_iter()
        .flatten()
        .next()
        .and_then(|v| serde_json::from_str::<String>(&v).ok())
        .unwrap_or_else(|| "en".to_string());
    let mut stmt = Sql::select();
    stmt.expr(col("l", "code"))
        .from_as(Alias::new("i18n_locale"), Alias::new("l"))
        .order_by_expr(col("l", "id"), Order::Asc);
    let mut locales: Vec<String> = or_empty(query_map(exec, &stmt, |r| r.opt_text(0)))?
        .into_iter()
        .flatten()
        .collect();
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
pub fn role_actions(exec: &dyn Executor, role_type: &str) -> Result<Vec<String>, StoreError> {
    let mut stmt = actions_of_roles();
    stmt.join_as(
        JoinType::InnerJoin,
        Alias::new("up_roles"),
        Alias::new("r"),
        col("l", "role_id").equals((Alias::new("r"), Alias::new("id"))),
    )
    .and_where(col("r", "type").eq(Expr::val(role_type.to_string())));
    distinct_actions(exec, &stmt)
}

/// The actions granted to the role with this id (a signed-in user's role).
pub fn role_actions_by_id(exec: &dyn Executor, role_id: i64) -> Result<Vec<String>, StoreError> {
    let mut stmt = actions_of_roles();
    stmt.and_where(col("l", "role_id").eq(Expr::val(role_id)));
    distinct_actions(exec, &stmt)
}

/// `SELECT DISTINCT p.action FROM up_permissions p JOIN up_permissions_role_lnk l`, for
/// the caller to narrow to roles.
fn actions_of_roles() -> sea_query::SelectStatement {
    let mut stmt = Sql::select();
    stmt.distinct()
        .expr(col("p", "action"))
        .from_as(Alias::new("up_permissions"), Alias::new("p"))
        .join_as(
            JoinType::InnerJoin,
            Alias::new("up_permissions_role_lnk"),
            Alias::new("l"),
            col("p", "id").equals((Alias::new("l"), Alias::new("permission_id"))),
        );
    stmt
}

fn distinct_actions(
    exec: &dyn Executor,
    stmt: &sea_query::SelectStatement,
) -> Result<Vec<String>, StoreError> {
    Ok(or_empty(query_map(exec, stmt, |r| r.opt_text(0)))?
        .into_iter()
        .flatten()
        .collect())
}
