//! Strapi's credentials, checked the way Strapi 5 checks them: the pure part (no
//! database, no HTTP).
//!
//! * [`bearer`]: the token of an `Authorization` header, split as Strapi splits it.
//! * [`api_token`]: API token keys: new keys, their stored hash (`access_key`), types.
//! * [`jwt`]: users-permissions JWTs (HS256 with `JWT_SECRET`), verified as
//!   `jsonwebtoken.verify` does with `algorithms: ['HS256']`.
//!
//! The store reads the rows these refer to (`store::credentials`); the HTTP layer
//! (`http::auth`) runs Strapi's two strategies in order and turns the outcome into the
//! caller's grants or an error answer.
//!
//! Invariants: a key or JWT is never logged or put in an error message ([`Secret`] and
//! the bearer token types print as `<redacted>`); every comparison of a secret value is
//! constant-time.

pub mod api_token;
pub mod bearer;
pub mod jwt;

use std::fmt;

/// A secret string (a salt, a JWT secret, a key): its `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret; `None` for an empty string (an unset `.env` value).
    pub fn new(value: impl Into<String>) -> Option<Secret> {
        let value = value.into();
        (!value.is_empty()).then_some(Secret(value))
    }

    /// The secret's bytes, for a MAC key.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// The secrets a Strapi project keeps in its `.env`, under Strapi's own names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthSecrets {
    /// `admin.apiToken.salt` (`API_TOKEN_SALT`): API token hashes. Without it, API tokens
    /// are never accepted.
    pub api_token_salt: Option<Secret>,
    /// users-permissions' `jwtSecret` (`JWT_SECRET`): JWT signatures. Without it, JWTs are
    /// never accepted.
    pub jwt_secret: Option<Secret>,
}

impl AuthSecrets {
    /// The secrets from the environment variables a Strapi project's `.env` sets
    /// (`API_TOKEN_SALT`, `JWT_SECRET`).
    pub fn from_env() -> AuthSecrets {
        let var = |name: &str| std::env::var(name).ok().and_then(Secret::new);
        AuthSecrets {
            api_token_salt: var("API_TOKEN_SALT"),
            jwt_secret: var("JWT_SECRET"),
        }
    }

    /// `self`, with each secret that is missing taken from `fallback`.
    pub fn or(self, fallback: AuthSecrets) -> AuthSecrets {
        AuthSecrets {
            api_token_salt: self.api_token_salt.or(fallback.api_token_salt),
            jwt_secret: self.jwt_secret.or(fallback.jwt_secret),
        }
    }
}

/// Compares two byte strings in constant time (for equal lengths).
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_print() {
        let s = Secret::new("hunter2").unwrap_or_else(|| Secret(String::new()));
        assert_eq!(format!("{s:?}"), "<redacted>");
        let all = AuthSecrets {
            api_token_salt: Some(s.clone()),
            jwt_secret: Some(s),
        };
        assert!(!format!("{all:?}").contains("hunter2"));
        assert!(Secret::new("").is_none());
    }

    #[test]
    fn hex_is_lower_case() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
    }
}
