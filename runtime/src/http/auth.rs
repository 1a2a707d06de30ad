//! Who is calling, decided as Strapi 5 decides it for a content-API route: its two
//! strategies, in the order Strapi registers them, then the public role.
//!
//! 1. **API token** (admin's `content-api-token` strategy): a `Bearer` token is hashed with
//!    the salt ([`crate::auth::api_token::access_key`]) and looked up. A content-API token
//!    (`kind` `content-api` or unset) authenticates: past its `expires_at` it is a 401
//!    "Token expired"; `read-only` may `find`/`findOne` everything, `full-access`
//!    everything, `custom` its own actions. An unknown key falls through.
//! 2. **users-permissions**: without a bearer token, the public role (none of its grants:
//!    401 "Missing or invalid credentials"). With one, it must be an HS256 JWT
//!    ([`crate::auth::jwt`]) carrying an `id`; a user that does not exist, is blocked, or
//!    is unconfirmed while email confirmation is on is a 401 "Invalid credentials"; a user
//!    without a role, or any JWT failure, is a 401 "Missing or invalid credentials".
//!
//! A header that is not a two-part `Bearer <token>` is no credential (the public role), as
//! in Strapi. The grants that come out decide the route (401/403) and every relation the
//! query filters, sorts or populates through, exactly as the public role's do.
//!
//! Decisions:
//! * Lookups are cached for [`super::ServerConfig::permission_ttl`] (1 s): a token revoked
//!   or a user blocked in Strapi's admin stops working within that time. Expiry is checked
//!   on every request, never cached. Caches are bounded ([`CACHE_ENTRIES`]).
//! * strata never writes `last_used_at`: the content API is read-only (it serves
//!   `mode=ro` files and read replicas); Strapi keeps updating it for its own traffic.
//! * An `admin`-kind token is not a content-API credential (401). Strapi 5.54 answers 500
//!   for one without an owner; strata never answers 500 for a credential.
//! * No salt: API tokens are never accepted (the serve command warns once when the
//!   database holds tokens). No JWT secret: JWTs are never accepted.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::ApiError;
use super::permissions::RolePermissions;
use crate::auth::api_token::{self, TokenType};
use crate::auth::{AuthSecrets, bearer, jwt};
use crate::clock::now_ms;
use crate::store::Store;
use crate::store::credentials::StoredToken;

/// Entries a lookup cache holds before it starts over (bounds memory under a flood of
/// distinct made-up tokens).
pub const CACHE_ENTRIES: usize = 10_000;

/// A small map whose entries are good for a fixed time.
struct TtlCache<K, V> {
    ttl: Duration,
    entries: Mutex<HashMap<K, (Instant, V)>>,
}

impl<K: Eq + Hash, V: Clone> TtlCache<K, V> {
    fn new(ttl: Duration) -> Self {
        TtlCache {
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The cached value of `key`, else `load(&key)`'s (cached when it succeeds). An
    /// entry's age counts from the start of the lookup that loaded it, so a revocation
    /// committed while a slow lookup ran is seen within `ttl` of that start.
    fn get_or_load(
        &self,
        key: K,
        load: impl FnOnce(&K) -> Result<V, ApiError>,
    ) -> Result<V, ApiError> {
        if let Ok(map) = self.entries.lock()
            && let Some((at, v)) = map.get(&key)
            && at.elapsed() < self.ttl
        {
            return Ok(v.clone());
        }
        let started = Instant::now();
        let v = load(&key)?;
        if let Ok(mut map) = self.entries.lock() {
            if map.len() >= CACHE_ENTRIES {
                map.clear();
            }
            map.insert(key, (started, v.clone()));
        }
        Ok(v)
    }
}

/// A token found by its hash, with the grants it carries.
struct KnownToken {
    token: StoredToken,
    grants: Arc<RolePermissions>,
    /// When this process last saw `last_used_at` written (epoch ms): a use an hour later
    /// writes it again.
    last_used: std::sync::atomic::AtomicI64,
}

/// A user found by id, with the grants of its role (`None`: no role).
struct KnownUser {
    blocked: bool,
    confirmed: bool,
    email_confirmation: bool,
    grants: Option<Arc<RolePermissions>>,
}

/// Resolves a request's `Authorization` header into the caller's grants.
pub struct Authenticator {
    store: Arc<Store>,
    secrets: AuthSecrets,
    public: TtlCache<(), Arc<RolePermissions>>,
    tokens: TtlCache<String, Option<Arc<KnownToken>>>,
    users: TtlCache<i64, Option<Arc<KnownUser>>>,
}

const MISSING: &str = "Missing or invalid credentials";
const INVALID: &str = "Invalid credentials";

impl Authenticator {
    /// An authenticator over `store`'s tables, caching lookups for `ttl`.
    pub fn new(store: Arc<Store>, secrets: AuthSecrets, ttl: Duration) -> Self {
        Authenticator {
            store,
            secrets,
            public: TtlCache::new(ttl),
            tokens: TtlCache::new(ttl),
            users: TtlCache::new(ttl),
        }
    }

    /// The grants of the caller that sent `authorization` (the raw header value), or the
    /// error answer Strapi gives it.
    pub fn grants(&self, authorization: Option<&[u8]>) -> Result<Arc<RolePermissions>, ApiError> {
        self.caller(authorization).map(|c| c.grants)
    }

    /// The caller that sent `authorization`: its grants and, for a JWT, its user.
    pub fn caller(&self, authorization: Option<&[u8]>) -> Result<Caller, ApiError> {
        let token = authorization.and_then(bearer::token);
        let Some(token) = token else {
            return self.public().map(Caller::anonymous);
        };
        if let Some(salt) = &self.secrets.api_token_salt
            && let Some(known) = self.token(api_token::access_key(salt, token.as_str()))?
            && known.token.is_content_api()
        {
            let now = now_ms();
            if known.token.expired(now) {
                return Err(ApiError::Unauthorized("Token expired"));
            }
            self.note_use(&known, now);
            return Ok(Caller::anonymous(known.grants.clone()));
        }
        let Some(secret) = &self.secrets.jwt_secret else {
            return Err(ApiError::Unauthorized(MISSING));
        };
        let claims = jwt::verify(token.as_str(), secret, now_ms().div_euclid(1000))
            .map_err(|_| ApiError::Unauthorized(MISSING))?;
        let Some(id) = claims.get("id") else {
            return Err(ApiError::Unauthorized(MISSING));
        };
        let Some(id) = user_id(id) else {
            return Err(ApiError::Unauthorized(INVALID));
        };
        let Some(user) = self.user(id)? else {
            return Err(ApiError::Unauthorized(INVALID));
        };
        if user.blocked || (user.email_confirmation && !user.confirmed) {
            return Err(ApiError::Unauthorized(INVALID));
        }
        let grants = user.grants.clone().ok_or(ApiError::Unauthorized(MISSING))?;
        Ok(Caller {
            grants,
            user: Some(id),
        })
    }

    /// Writes the token's `last_used_at` when it is unset or an hour old, as Strapi does
    /// on every authenticated request. A failure is logged and tried again on the next
    /// use; it never fails the request.
    fn note_use(&self, known: &KnownToken, now: i64) {
        use std::sync::atomic::Ordering;
        let last = known.last_used.load(Ordering::Acquire);
        if now.saturating_sub(last) < crate::store::credentials::TOKEN_USE_INTERVAL_MS {
            return;
        }
        if known
            .last_used
            .compare_exchange(last, now, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return;
        }
        if let Err(e) = self.store.touch_api_token(known.token.id, now) {
            // On the event loop a write that would wait is not started (interrupted);
            // the next request tries again.
            if e.is_interrupted() {
                tracing::debug!(error = %e, "an API token's use not recorded yet");
            } else {
                tracing::warn!(error = %e, "could not record an API token's use");
            }
            known.last_used.store(last, Ordering::Release);
        }
    }

    fn public(&self) -> Result<Arc<RolePermissions>, ApiError> {
        self.public.get_or_load((), |_| {
            let actions = self.store.role_actions("public")?;
            Ok(Arc::new(RolePermissions::from_actions(
                self.store.model(),
                &actions,
            )))
        })
    }

    fn token(&self, access_key: String) -> Result<Option<Arc<KnownToken>>, ApiError> {
        let model = self.store.model();
        self.tokens.get_or_load(access_key, |key| {
            let Some((token, actions)) = self.store.api_token(key)? else {
                return Ok(None);
            };
            let grants = match token.token_type.parse::<TokenType>() {
                Ok(TokenType::ReadOnly) => RolePermissions::read_only(model),
                Ok(TokenType::FullAccess) => RolePermissions::all(model),
                Ok(TokenType::Custom) => RolePermissions::granted(model, &actions),
                // A type Strapi does not know passes none of its checks: 403 everywhere.
                Err(_) => RolePermissions::granted(model, &[] as &[String]),
            };
            Ok(Some(Arc::new(KnownToken {
                last_used: std::sync::atomic::AtomicI64::new(
                    token.last_used_at.unwrap_or(i64::MIN),
                ),
                token,
                grants: Arc::new(grants),
            })))
        })
    }

    fn user(&self, id: i64) -> Result<Option<Arc<KnownUser>>, ApiError> {
        let model = self.store.model();
        self.users.get_or_load(id, |_| {
            let Some((user, actions, email_confirmation)) = self.store.jwt_user(id)? else {
                return Ok(None);
            };
            Ok(Some(Arc::new(KnownUser {
                blocked: user.blocked,
                confirmed: user.confirmed,
                email_confirmation,
                grants: user
                    .role_id
                    .map(|_| Arc::new(RolePermissions::granted(model, &actions))),
            })))
        })
    }
}

/// The user id of a JWT's `id` claim: an integer, or a string of one (`where id = '1'`
/// finds the row too). Anything else finds no user.
fn user_id(id: &Value) -> Option<i64> {
    match id {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse().ok()
        }
        _ => None,
    }
}

/// Who is calling: the grants, and the user of a users-permissions JWT (GraphQL's `me`).
#[derive(Clone)]
pub struct Caller {
    /// What the caller may do.
    pub grants: Arc<RolePermissions>,
    /// The id of the JWT's user (`None` for the public role and API tokens).
    pub user: Option<i64>,
}

impl Caller {
    fn anonymous(grants: Arc<RolePermissions>) -> Self {
        Caller { grants, user: None }
    }
}

/// Where a request's grants come from.
pub enum PermissionSource {
    /// Fixed grants, whatever the request sends (embedding, tests).
    Fixed(Arc<RolePermissions>),
    /// The caller's credentials checked against the store's database: API tokens,
    /// users-permissions JWTs, else the public role.
    Credentials(Box<Authenticator>),
}

impl PermissionSource {
    /// The grants of the caller that sent this `Authorization` header value.
    pub fn grants(&self, authorization: Option<&[u8]>) -> Result<Arc<RolePermissions>, ApiError> {
        match self {
            PermissionSource::Fixed(p) => Ok(p.clone()),
            PermissionSource::Credentials(auth) => auth.grants(authorization),
        }
    }

    /// The caller that sent this `Authorization` header value (fixed grants: no user).
    pub fn caller(&self, authorization: Option<&[u8]>) -> Result<Caller, ApiError> {
        match self {
            PermissionSource::Fixed(p) => Ok(Caller::anonymous(p.clone())),
            PermissionSource::Credentials(auth) => auth.caller(authorization),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_cached_lookup_ages_from_the_start_of_the_lookup() {
        let cache: TtlCache<(), u32> = TtlCache::new(Duration::from_millis(100));
        let slow = cache.get_or_load((), |_| {
            std::thread::sleep(Duration::from_millis(150));
            Ok(1)
        });
        assert!(matches!(slow, Ok(1)));
        // The lookup began 150 ms ago, past the 100 ms lease: a revocation committed
        // while it ran must show now, so the next request looks again.
        assert!(matches!(cache.get_or_load((), |_| Ok(2)), Ok(2)));
        // A fresh entry is served from the cache.
        assert!(matches!(cache.get_or_load((), |_| Ok(3)), Ok(2)));
    }

    #[test]
    fn user_ids_as_strapi_finds_them() {
        assert_eq!(user_id(&json!(1)), Some(1));
        assert_eq!(user_id(&json!(1.0)), Some(1));
        assert_eq!(user_id(&json!("12")), Some(12));
        assert_eq!(user_id(&json!(1.5)), None);
        assert_eq!(user_id(&json!("1 or 1=1")), None);
        assert_eq!(user_id(&json!(null)), None);
        assert_eq!(user_id(&json!([1])), None);
    }

    #[test]
    fn the_cache_expires_and_is_bounded() {
        let cache: TtlCache<u32, u32> = TtlCache::new(Duration::from_millis(0));
        let mut loads = 0;
        for _ in 0..2 {
            let v = cache.get_or_load(1, |_| {
                loads += 1;
                Ok(7)
            });
            assert!(matches!(v, Ok(7)));
        }
        assert_eq!(loads, 2, "a zero ttl reloads every time");
        let cache: TtlCache<usize, usize> = TtlCache::new(Duration::from_secs(60));
        for k in 0..CACHE_ENTRIES + 5 {
            let _ = cache.get_or_load(k, |k| Ok(*k));
        }
        let len = cache.entries.lock().map(|m| m.len()).unwrap_or(usize::MAX);
        assert!(len <= CACHE_ENTRIES);
    }
}
