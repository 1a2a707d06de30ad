//! Who may do what: the grants of a caller (`find`, `findOne`, `create`, `update`,
//! `delete` per type), made from the
//! actions of a users-permissions role, an API token or a user's role. Which caller it is
//! is `auth.rs`'s business ([`super::auth::PermissionSource`]).

use crate::query::Permissions;
use crate::schema::Model;

/// The grants of one role, per content type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RolePermissions {
    /// `<uid>.find`: list (and single types); also decides which relations may be filtered,
    /// sorted and populated.
    pub find: Permissions,
    /// `<uid>.findOne`: `GET /api/<plural>/{documentId}`.
    pub find_one: Permissions,
    /// `<uid>.create`: `POST /api/<plural>`.
    pub create: Permissions,
    /// `<uid>.update`: `PUT /api/<plural>/{documentId}`, `PUT /api/<singular>`.
    pub update: Permissions,
    /// `<uid>.delete`: `DELETE /api/<plural>/{documentId}`, `DELETE /api/<singular>`.
    pub delete: Permissions,
    /// `plugin::users-permissions.user.me`: GraphQL's `me`.
    pub me: bool,
    /// `plugin::i18n.locales.listLocales`: GraphQL's `i18NLocales` and `i18NLocale`
    /// (i18n gives them this scope; `i18NLocales_connection` keeps the locale's `find`).
    pub list_locales: bool,
    empty: bool,
}

/// The action of GraphQL's `me`.
const ME: &str = "plugin::users-permissions.user.me";
/// The action i18n gives its GraphQL locale queries.
const LIST_LOCALES: &str = "plugin::i18n.locales.listLocales";

impl RolePermissions {
    /// Grants from a list of actions (`api::article.article.find`, …).
    pub fn from_actions<S: AsRef<str>>(model: &Model, actions: &[S]) -> Self {
        let mut find = Permissions::none(model);
        let mut find_one = Permissions::none(model);
        let mut create = Permissions::none(model);
        let mut update = Permissions::none(model);
        let mut delete = Permissions::none(model);
        let (mut me, mut list_locales) = (false, false);
        for a in actions {
            let a = a.as_ref();
            me |= a == ME;
            list_locales |= a == LIST_LOCALES;
            if let Some((uid, action)) = a.rsplit_once('.')
                && let Some(s) = model.by_uid(uid)
            {
                match action {
                    "find" => find.allow(s.id),
                    "findOne" => find_one.allow(s.id),
                    "create" => create.allow(s.id),
                    "update" => update.allow(s.id),
                    "delete" => delete.allow(s.id),
                    _ => {}
                }
            }
        }
        RolePermissions {
            find,
            find_one,
            create,
            update,
            delete,
            me,
            list_locales,
            empty: actions.is_empty(),
        }
    }

    /// Grants of an authenticated caller (a custom API token, a user's role): like
    /// [`RolePermissions::from_actions`], but a denial is always a 403, never a 401, even
    /// when nothing is granted (Strapi has an ability for them).
    pub fn granted<S: AsRef<str>>(model: &Model, actions: &[S]) -> Self {
        RolePermissions {
            empty: false,
            ..Self::from_actions(model, actions)
        }
    }

    /// Every action on every type (a full-access token).
    pub fn all(model: &Model) -> Self {
        RolePermissions {
            find: Permissions::all(model),
            find_one: Permissions::all(model),
            create: Permissions::all(model),
            update: Permissions::all(model),
            delete: Permissions::all(model),
            me: true,
            list_locales: true,
            empty: false,
        }
    }

    /// Every read on every type, no write (a read-only token: a scope that ends in
    /// `find` or `findOne`, so neither `me` nor `listLocales`).
    pub fn read_only(model: &Model) -> Self {
        RolePermissions {
            me: false,
            list_locales: false,
            create: Permissions::none(model),
            update: Permissions::none(model),
            delete: Permissions::none(model),
            ..Self::all(model)
        }
    }

    /// True when the role grants nothing at all (then Strapi answers 401, not 403).
    pub fn is_empty(&self) -> bool {
        self.empty
    }
}
