//! The rows behind Strapi's credentials, read and written as Strapi stores them:
//! API tokens (`strapi_api_tokens`, their actions through
//! `strapi_api_token_permissions_token_lnk`), users-permissions users (`up_users`, their
//! role through `up_users_role_lnk`), a role's grants (`up_permissions`) and the
//! `email_confirmation` setting.
//!
//! Reads run on any [`Executor`]; token creation and revocation run on a [`Writer`] (one
//! transaction). Datetimes are written as epoch milliseconds, which the backend binds as
//! SQLite's integers or PostgreSQL's `timestamptz`, and read back from either.

use sea_query::{Alias, Expr, ExprTrait, JoinType, Order, Query as Sql};

use super::StoreError;
use super::decode::epoch_ms;
use super::document_id::DocumentIds;
use super::seam::{Cell, Change, Executor, RowRef, Writer, query_map};
use super::settings::{or_empty, role_actions_by_id};
use super::sql::col;
use crate::auth::api_token::TokenType;
use crate::query::values;

/// How old a token's `last_used_at` may get before a use writes it again (Strapi's hour).
pub const TOKEN_USE_INTERVAL_MS: i64 = 3_600_000;

/// A row of `strapi_api_tokens`, without its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredToken {
    /// `id`.
    pub id: i64,
    /// `document_id`.
    pub document_id: Option<String>,
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `kind`: `content-api`, `admin`, or `None` (an older row; content-api).
    pub kind: Option<String>,
    /// `type` as stored (`read-only`, `full-access`, `custom`).
    pub token_type: String,
    /// `expires_at`, epoch ms.
    pub expires_at: Option<i64>,
    /// Whether `expires_at` holds a value that is not an instant strata can read. Such a
    /// token fails closed: it counts as expired, never as valid forever.
    pub expires_at_unreadable: bool,
    /// `last_used_at`, epoch ms.
    pub last_used_at: Option<i64>,
    /// `lifespan`, ms.
    pub lifespan: Option<i64>,
    /// `created_at`, epoch ms.
    pub created_at: Option<i64>,
}

impl StoredToken {
    /// Whether the token is for the content API (`kind` `content-api` or unset).
    pub fn is_content_api(&self) -> bool {
        matches!(self.kind.as_deref(), None | Some("content-api"))
    }

    /// Whether it has expired at `now_ms` (an unreadable expiry has).
    pub fn expired(&self, now_ms: i64) -> bool {
        self.expires_at_unreadable || self.expires_at.is_some_and(|at| at < now_ms)
    }
}

/// A users-permissions user, as authentication needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthUser {
    /// `id`.
    pub id: i64,
    /// `blocked`.
    pub blocked: bool,
    /// `confirmed`.
    pub confirmed: bool,
    /// The role's id, when the user has one.
    pub role_id: Option<i64>,
}

/// A boolean cell (SQLite's 0/1, PostgreSQL's booleans).
fn flag(cell: Cell<'_>) -> bool {
    match cell {
        Cell::Bool(b) => b,
        Cell::Int(i) | Cell::BigInt(i) => i != 0,
        Cell::Text(t) => values::truthy(&t),
        _ => false,
    }
}

const TOKEN_COLUMNS: [&str; 10] = [
    "id",
    "document_id",
    "name",
    "description",
    "kind",
    "type",
    "expires_at",
    "last_used_at",
    "lifespan",
    "created_at",
];

fn token_select() -> sea_query::SelectStatement {
    let mut stmt = Sql::select();
    for c in TOKEN_COLUMNS {
        stmt.expr(col("t", c));
    }
    stmt.from_as(Alias::new("strapi_api_tokens"), Alias::new("t"));
    stmt
}

fn token_row(r: &dyn RowRef) -> Result<StoredToken, StoreError> {
    let expires = r.cell(6)?;
    let expires_at_unreadable = expires != Cell::Null && epoch_ms(expires.clone()).is_none();
    Ok(StoredToken {
        id: r.int(0)?,
        document_id: r.opt_text(1)?,
        name: r.opt_text(2)?.unwrap_or_default(),
        description: r.opt_text(3)?,
        kind: r.opt_text(4)?,
        token_type: r.opt_text(5)?.unwrap_or_default(),
        expires_at: epoch_ms(expires),
        expires_at_unreadable,
        last_used_at: epoch_ms(r.cell(7)?),
        lifespan: r.cell(8)?.as_i64(),
        created_at: epoch_ms(r.cell(9)?),
    })
}

/// The token whose `access_key` is `access_key` (an exact match on the stored hash).
pub fn token_by_access_key(
    exec: &dyn Executor,
    access_key: &str,
) -> Result<Option<StoredToken>, StoreError> {
    let mut stmt = token_select();
    stmt.and_where(col("t", "access_key").eq(Expr::val(access_key.to_string())))
        .order_by_expr(col("t", "id"), Order::Asc)
        .limit(1);
    Ok(or_empty(query_map(exec, &stmt, token_row))?
        .into_iter()
        .next())
}

/// Every token, by id.
pub fn list_tokens(exec: &dyn Executor) -> Result<Vec<StoredToken>, StoreError> {
    let mut stmt = token_select();
    stmt.order_by_expr(col("t", "id"), Order::Asc);
    or_empty(query_map(exec, &stmt, token_row))
}

/// The actions of a custom token, in their link order.
pub fn token_actions(exec: &dyn Executor, token_id: i64) -> Result<Vec<String>, StoreError> {
    let mut stmt = Sql::select();
    stmt.expr(col("p", "action"))
        .from_as(Alias::new("strapi_api_token_permissions"), Alias::new("p"))
        .join_as(
            JoinType::InnerJoin,
            Alias::new("strapi_api_token_permissions_token_lnk"),
            Alias::new("l"),
            col("l", "api_token_permission_id").equals((Alias::new("p"), Alias::new("id"))),
        )
        .and_where(col("l", "api_token_id").eq(Expr::val(token_id)))
        .order_by_expr(col("l", "api_token_permission_ord"), Order::Asc)
        .order_by_expr(col("p", "id"), Order::Asc);
    Ok(or_empty(query_map(exec, &stmt, |r| r.opt_text(0)))?
        .into_iter()
        .flatten()
        .collect())
}

/// The user `id` with its role, as users-permissions' `fetchAuthenticatedUser` reads it.
pub fn auth_user(exec: &dyn Executor, id: i64) -> Result<Option<AuthUser>, StoreError> {
    let mut stmt = Sql::select();
    stmt.expr(col("u", "id"))
        .expr(col("u", "blocked"))
        .expr(col("u", "confirmed"))
        .expr(col("l", "role_id"))
        .from_as(Alias::new("up_users"), Alias::new("u"))
        .join_as(
            JoinType::LeftJoin,
            Alias::new("up_users_role_lnk"),
            Alias::new("l"),
            col("l", "user_id").equals((Alias::new("u"), Alias::new("id"))),
        )
        .and_where(col("u", "id").eq(Expr::val(id)))
        .order_by_expr(col("l", "id"), Order::Asc)
        .limit(1);
    let rows = or_empty(query_map(exec, &stmt, |r| {
        Ok(AuthUser {
            id: r.int(0)?,
            blocked: flag(r.cell(1)?),
            confirmed: flag(r.cell(2)?),
            role_id: r.cell(3)?.as_i64(),
        })
    }))?;
    Ok(rows.into_iter().next())
}

/// users-permissions' advanced setting `email_confirmation`: when on, unconfirmed users
/// cannot authenticate.
pub fn email_confirmation(exec: &dyn Executor) -> Result<bool, StoreError> {
    let mut stmt = Sql::select();
    stmt.expr(col("s", "value"))
        .from_as(Alias::new("strapi_core_store_settings"), Alias::new("s"))
        .and_where(col("s", "key").eq("plugin_users-permissions_advanced"))
        .limit(1);
    let raw = or_empty(query_map(exec, &stmt, |r| r.opt_text(0)))?;
    Ok(raw
        .into_iter()
        .flatten()
        .next()
        .and_then(|v| serde_json::from_str::<serde_json::Value>(&v).ok())
        .and_then(|v| v.get("email_confirmation").and_then(|b| b.as_bool()))
        .unwrap_or(false))
}

fn sea_error(e: sea_query::error::Error) -> StoreError {
    StoreError::Other(format!("cannot build the statement: {e}"))
}

/// A token to create.
#[derive(Debug, Clone)]
pub struct NewToken<'a> {
    /// Its name (unique among tokens, as Strapi's admin requires).
    pub name: &'a str,
    /// Its description.
    pub description: &'a str,
    /// Its type.
    pub token_type: TokenType,
    /// The actions of a custom token (deduplicated, in order).
    pub actions: &'a [String],
    /// Its lifespan in ms (`None`: unlimited).
    pub lifespan_ms: Option<i64>,
    /// The stored hash of its key.
    pub access_key: &'a str,
    /// Now, epoch ms.
    pub now_ms: i64,
}

/// Why a token could not be created or revoked.
#[derive(Debug, thiserror::Error)]
pub enum TokenWriteError {
    /// Another token has this name.
    #[error("a token named {0:?} already exists")]
    NameTaken(String),
    /// No token has this name or id.
    #[error("no token {0}")]
    NotFound(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Inserts a content-API token (and, for a custom one, its actions and their links),
/// with the columns Strapi's admin writes. Returns the new row.
pub fn create_token(w: &dyn Writer, new: &NewToken<'_>) -> Result<StoredToken, TokenWriteError> {
    if list_tokens(w)?.iter().any(|t| t.name == new.name) {
        return Err(TokenWriteError::NameTaken(new.name.to_string()));
    }
    let mut ids = DocumentIds::new();
    // Datetimes in the form each backend stores (epoch ms, timestamptz, DATETIME text).
    let dialect = w.dialect();
    let at = |ms: Option<i64>| match ms {
        Some(ms) => dialect.bind(&crate::query::Value::DateTime(ms)),
        None => Expr::val(Option::<i64>::None),
    };
    let now = at(Some(new.now_ms));
    let expires_at = at(new.lifespan_ms.map(|l| new.now_ms + l));
    let mut insert = Sql::insert();
    insert
        .into_table(Alias::new("strapi_api_tokens"))
        .columns(
            [
                "document_id",
                "name",
                "description",
                "kind",
                "type",
                "access_key",
                "expires_at",
                "lifespan",
                "created_at",
                "updated_at",
                "published_at",
            ]
            .map(Alias::new),
        )
        .values([
            Expr::val(ids.next_id()?),
            Expr::val(new.name.to_string()),
            Expr::val(new.description.to_string()),
            Expr::val("content-api"),
            Expr::val(new.token_type.as_str()),
            Expr::val(new.access_key.to_string()),
            expires_at,
            Expr::val(new.lifespan_ms),
            now.clone(),
            now.clone(),
            now.clone(),
        ])
        .map_err(sea_error)?;
    let token_id = w.insert_id(&insert)?;
    if new.token_type == TokenType::Custom {
        let mut seen = std::collections::HashSet::new();
        for (ord, action) in new
            .actions
            .iter()
            .filter(|a| seen.insert(a.as_str()))
            .enumerate()
        {
            let mut perm = Sql::insert();
            perm.into_table(Alias::new("strapi_api_token_permissions"))
                .columns(
                    [
                        "document_id",
                        "action",
                        "created_at",
                        "updated_at",
                        "published_at",
                    ]
                    .map(Alias::new),
                )
                .values([
                    Expr::val(ids.next_id()?),
                    Expr::val(action.clone()),
                    now.clone(),
                    now.clone(),
                    now.clone(),
                ])
                .map_err(sea_error)?;
            let perm_id = w.insert_id(&perm)?;
            let mut link = Sql::insert();
            link.into_table(Alias::new("strapi_api_token_permissions_token_lnk"))
                .columns(
                    [
                        "api_token_permission_id",
                        "api_token_id",
                        "api_token_permission_ord",
                    ]
                    .map(Alias::new),
                )
                .values([
                    Expr::val(perm_id),
                    Expr::val(token_id),
                    Expr::val((ord + 1) as f64),
                ])
                .map_err(sea_error)?;
            w.execute(Change::Insert(&link))?;
        }
    }
    let mut stmt = token_select();
    stmt.and_where(col("t", "id").eq(Expr::val(token_id)));
    query_map(w, &stmt, token_row)?
        .into_iter()
        .next()
        .ok_or_else(|| TokenWriteError::NotFound(format!("id {token_id}")))
}

/// Deletes the token named `name_or_id` (a name, else an id), its custom actions and
/// their links, as Strapi's admin does. Returns the deleted row.
pub fn revoke_token(w: &dyn Writer, name_or_id: &str) -> Result<StoredToken, TokenWriteError> {
    let tokens = list_tokens(w)?;
    let token = tokens
        .iter()
        .find(|t| t.name == name_or_id)
        .or_else(|| {
            name_or_id
                .parse::<i64>()
                .ok()
                .and_then(|id| tokens.iter().find(|t| t.id == id))
        })
        .cloned()
        .ok_or_else(|| TokenWriteError::NotFound(format!("{name_or_id:?}")))?;
    let mut perms = Sql::select();
    perms
        .expr(col("l", "api_token_permission_id"))
        .from_as(
            Alias::new("strapi_api_token_permissions_token_lnk"),
            Alias::new("l"),
        )
        .and_where(col("l", "api_token_id").eq(Expr::val(token.id)));
    let perm_ids = or_empty(query_map(w, &perms, |r| r.int(0)))?;
    let mut unlink = Sql::delete();
    unlink
        .from_table(Alias::new("strapi_api_token_permissions_token_lnk"))
        .and_where(Expr::col(Alias::new("api_token_id")).eq(Expr::val(token.id)));
    w.execute(Change::Delete(&unlink))?;
    if !perm_ids.is_empty() {
        let mut drop_perms = Sql::delete();
        drop_perms
            .from_table(Alias::new("strapi_api_token_permissions"))
            .and_where(Expr::col(Alias::new("id")).is_in(perm_ids));
        w.execute(Change::Delete(&drop_perms))?;
    }
    let mut delete = Sql::delete();
    delete
        .from_table(Alias::new("strapi_api_tokens"))
        .and_where(Expr::col(Alias::new("id")).eq(Expr::val(token.id)));
    w.execute(Change::Delete(&delete))?;
    Ok(token)
}

impl super::Store {
    /// The content-API token whose stored hash is `access_key`, with its actions when it
    /// is a custom token.
    pub fn api_token(
        &self,
        access_key: &str,
    ) -> Result<Option<(StoredToken, Vec<String>)>, StoreError> {
        self.read_with(|exec| {
            let Some(token) = token_by_access_key(exec, access_key)? else {
                return Ok(None);
            };
            let actions = match token.token_type.as_str() {
                "custom" => token_actions(exec, token.id)?,
                _ => Vec::new(),
            };
            Ok(Some((token, actions)))
        })
    }

    /// The user `id` and the actions of its role, for a JWT; `None` when there is no
    /// such user. Also whether users must have confirmed their email.
    pub fn jwt_user(&self, id: i64) -> Result<Option<(AuthUser, Vec<String>, bool)>, StoreError> {
        self.read_with(|exec| {
            let Some(user) = auth_user(exec, id)? else {
                return Ok(None);
            };
            let actions = match user.role_id {
                Some(role) => role_actions_by_id(exec, role)?,
                None => Vec::new(),
            };
            Ok(Some((user, actions, email_confirmation(exec)?)))
        })
    }

    /// Every API token.
    pub fn api_tokens(&self) -> Result<Vec<StoredToken>, StoreError> {
        self.read_with(list_tokens)
    }

    /// Creates a content-API token (one transaction).
    pub fn create_api_token(&self, new: &NewToken<'_>) -> Result<StoredToken, TokenWriteError> {
        self.pool().write(|w| create_token(w, new))
    }

    /// Records that token `id` was used at `now_ms`, as Strapi's admin does
    /// (`api-token-utils.js`): `last_used_at` and `updated_at` are set when `last_used_at`
    /// is unset or at least an hour old (one transaction; the condition is in the
    /// statement, so concurrent requests write it once).
    pub fn touch_api_token(&self, id: i64, now_ms: i64) -> Result<(), StoreError> {
        self.pool().write(|w| {
            let dialect = w.dialect();
            let now = dialect.bind(&crate::query::Value::DateTime(now_ms));
            let hour_ago = dialect.bind(&crate::query::Value::DateTime(
                now_ms - TOKEN_USE_INTERVAL_MS,
            ));
            let mut up = Sql::update();
            up.table(Alias::new("strapi_api_tokens"))
                .values([
                    (Alias::new("last_used_at"), now.clone()),
                    (Alias::new("updated_at"), now),
                ])
                .and_where(Expr::col(Alias::new("id")).eq(id))
                .and_where(
                    Expr::col(Alias::new("last_used_at"))
                        .is_null()
                        .or(Expr::col(Alias::new("last_used_at")).lte(hour_ago)),
                );
            w.execute(Change::Update(&up))?;
            Ok(())
        })
    }

    /// Deletes a token by name or id (one transaction).
    pub fn revoke_api_token(&self, name_or_id: &str) -> Result<StoredToken, TokenWriteError> {
        self.pool().write(|w| revoke_token(w, name_or_id))
    }
}
