//! Who may do what: the grants of a caller (`find`, `findOne` per type), made from the
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
    empty: bool,
}

impl RolePermissions {
    /// Grants from a list of actions (`api::article.article.find`, …).
    pub fn from_actions<S: AsRef<str>>(model: &Model, actions: &[S]) -> Self {
        let mut find = Permissions::none(model);
        let mut find_one = Permissions::none(model);
        for a in actions {
            let a = a.as_ref();
            if let Some((uid, action)) = a.rsplit_once('.')
                && let Some(s) = model.by_uid(uid)
            {
                match action {
                    "find" => find.allow(s.id),
                    "findOne" => find_one.allow(s.id),
                    _ => {}
                }
            }
        }
        RolePermissions {
            find,
            find_one,
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

    /// Every action on every type.
    pub fn all(model: &Model) -> Self {
        RolePermissions {
            find: Permissions::all(model),
            find_one: Permissions::all(model),
            empty: false,
        }
    }

    /// True when the role grants nothing at all (then Strapi answers 401, not 403).
    pub fn is_empty(&self) -> bool {
        self.empty
    }
}
