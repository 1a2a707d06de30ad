//! API token keys as Strapi 5 makes and stores them.
//!
//! A key is 128 random bytes in lower-case hex (256 characters), shown once. The database
//! keeps only `access_key` = hex(HMAC-SHA512(key = salt, message = key)), so a key is
//! checked by hashing it and looking the hash up; the lookup is an exact match on a
//! value the caller cannot steer towards another row.

use std::fmt;
use std::str::FromStr;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha512;

use super::{Secret, hex};

/// The stored hash of a key: hex(HMAC-SHA512(salt, key)).
pub fn access_key(salt: &Secret, key: &str) -> String {
    // HMAC takes a key of any length; `new_from_slice` cannot fail for it.
    match Hmac::<Sha512>::new_from_slice(salt.expose().as_bytes()) {
        Ok(mut mac) => {
            mac.update(key.as_bytes());
            hex(&mac.finalize().into_bytes())
        }
        Err(_) => String::new(),
    }
}

/// A fresh key: 128 random bytes in hex, as Strapi's admin makes them.
pub fn new_key() -> Result<Secret, getrandom::Error> {
    let mut bytes = [0u8; 128];
    getrandom::fill(&mut bytes)?;
    Ok(Secret(hex(&bytes)))
}

/// `strapi_api_tokens.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenType {
    /// `find` and `findOne` on every content type (any scope ending in `find`/`findOne`).
    ReadOnly,
    /// Every action.
    FullAccess,
    /// The actions linked to the token in `strapi_api_token_permissions`.
    Custom,
}

impl TokenType {
    /// The stored name (`read-only`, `full-access`, `custom`).
    pub fn as_str(self) -> &'static str {
        match self {
            TokenType::ReadOnly => "read-only",
            TokenType::FullAccess => "full-access",
            TokenType::Custom => "custom",
        }
    }
}

impl fmt::Display for TokenType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A token type name that is not one of Strapi's three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown token type {0:?}: expected read-only, full-access or custom")]
pub struct UnknownTokenType(pub String);

impl FromStr for TokenType {
    type Err = UnknownTokenType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "read-only" => Ok(TokenType::ReadOnly),
            "full-access" => Ok(TokenType::FullAccess),
            "custom" => Ok(TokenType::Custom),
            other => Err(UnknownTokenType(other.to_string())),
        }
    }
}

/// The lifespans Strapi's admin offers (`API_TOKEN_LIFESPANS`), in days; `None` is
/// unlimited. Strapi refuses any other.
pub const LIFESPAN_DAYS: [u32; 3] = [7, 30, 90];

/// One day in milliseconds (lifespans are stored in ms).
pub const DAY_MS: i64 = 86_400_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_key_is_strapis_hash() {
        // Python: hmac.new(b"lab-api-token-salt", b"abc", hashlib.sha512).hexdigest(),
        // the same definition as Node's createHmac('sha512', salt).update(key).digest('hex').
        let salt = Secret("lab-api-token-salt".into());
        assert_eq!(
            access_key(&salt, "abc"),
            "bcbc5b7e4ed791160590becef60baa550e22392676471b46baf85accc9bd51e4\
             1c80ef2333a61f40c8d6d8e507c53eb14949c3c796c466ee797ac4d42c6d07a3"
        );
    }

    #[test]
    fn new_keys_are_256_hex_and_differ() {
        let a = new_key()
            .map(|k| k.expose().to_string())
            .unwrap_or_default();
        let b = new_key()
            .map(|k| k.expose().to_string())
            .unwrap_or_default();
        assert_eq!(a.len(), 256);
        assert!(
            a.bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(a, b);
    }

    #[test]
    fn types_round_trip() {
        for t in [
            TokenType::ReadOnly,
            TokenType::FullAccess,
            TokenType::Custom,
        ] {
            assert_eq!(t.as_str().parse::<TokenType>(), Ok(t));
        }
        assert!("admin".parse::<TokenType>().is_err());
    }
}
