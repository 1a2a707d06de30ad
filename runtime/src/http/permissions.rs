//! Who may do what: the grants of a users-permissions role (`find`, `findOne` per type),
//! read from the database (`up_permissions`) as Strapi does, cached for a short time.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::ApiError;
use crate::query::Permissions;
use crate::schema::Model;
use crate::store::Store;

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

/// Where a request's grants come from.
pub enum PermissionSource {
    /// Fixed grants.
    Fixed(Arc<RolePermissions>),
    /// The public role in the store's database, re-read after `ttl`.
    Database {
        /// The store to read from.
        store: Arc<Store>,
        /// How long a read is reused.
        ttl: Duration,
        /// The last read.
        cached: Mutex<Option<(Instant, Arc<RolePermissions>)>>,
    },
}

impl PermissionSource {
    /// Grants of the public role of `store`'s database.
    pub fn database(store: Arc<Store>, ttl: Duration) -> Self {
        PermissionSource::Database {
            store,
            ttl,
            cached: Mutex::new(None),
        }
    }

    /// The grants in force now.
    pub fn current(&self) -> Result<Arc<RolePermissions>, ApiError> {
        match self {
            PermissionSource::Fixed(p) => Ok(p.clone()),
            PermissionSource::Database { store, ttl, cached } => {
                if let Ok(guard) = cached.lock()
                    && let Some((at, p)) = guard.as_ref()
                    && at.elapsed() < *ttl
                {
                    return Ok(p.clone());
                }
                let actions = store.role_actions("public")?;
                let p = Arc::new(RolePermissions::from_actions(store.model(), &actions));
                if let Ok(mut guard) = cached.lock() {
                    *guard = Some((Instant::now(), p.clone()));
                }
                Ok(p)
            }
        }
    }
}
