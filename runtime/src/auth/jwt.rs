//! users-permissions JWTs, verified as Strapi 5 verifies them: `jsonwebtoken.verify(token,
//! jwtSecret, { algorithms: ['HS256'] })` (its default `jwt.algorithm`).
//!
//! The rules, in `jsonwebtoken`'s order:
//! * three base64url parts (the signature may be empty), a JSON object header whose
//!   `alg` is exactly `HS256` (so `none`, `HS384`, `HS512` and `RS256` are refused);
//! * the signature is the canonical base64url of HMAC-SHA256(secret, `header.payload`),
//!   compared in constant time;
//! * `nbf`, when present, must be a number not after now; `exp`, when present, a number
//!   after now (in whole seconds, no clock tolerance). A JWT without `exp` never expires,
//!   as in Strapi.
//!
//! Every failure means "not authenticated" to Strapi, so the reason ([`JwtError`]) is for
//! tests and logs only; it never carries the token.

use base64::Engine;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Map, Value};
use sha2::Sha256;

use super::{Secret, constant_time_eq};

/// Why a JWT was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    /// Not three base64url parts, or a header or payload that is not JSON.
    #[error("jwt malformed")]
    Malformed,
    /// `alg` is not HS256.
    #[error("invalid algorithm")]
    Algorithm,
    /// The signature does not match.
    #[error("invalid signature")]
    Signature,
    /// `exp` has passed.
    #[error("jwt expired")]
    Expired,
    /// `nbf` has not come yet.
    #[error("jwt not active")]
    NotYetValid,
    /// `exp` or `nbf` is not a number.
    #[error("invalid {0}")]
    Claim(&'static str),
}

/// Node's base64 decoder takes both paddings and ignores stray trailing bits.
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

fn is_base64url(part: &str) -> bool {
    part.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn mac(secret: &Secret, signing_input: &str) -> Option<String> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.expose().as_bytes()).ok()?;
    mac.update(signing_input.as_bytes());
    Some(URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
}

/// Verifies `token` with `secret` at `now` (seconds since the Unix epoch) and returns its
/// payload. A payload that is JSON but not an object (an array, a string) is returned as
/// an empty object: it has no `id`, so Strapi treats it as no credential.
pub fn verify(token: &str, secret: &Secret, now: i64) -> Result<Map<String, Value>, JwtError> {
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(JwtError::Malformed);
    };
    if header.is_empty()
        || payload.is_empty()
        || !is_base64url(header)
        || !is_base64url(payload)
        || !is_base64url(signature)
    {
        return Err(JwtError::Malformed);
    }
    let header: Value = LENIENT
        .decode(header)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or(JwtError::Malformed)?;
    if header.get("alg").and_then(Value::as_str) != Some("HS256") {
        return Err(JwtError::Algorithm);
    }
    let signing_input_len = token.len() - signature.len() - 1;
    let expected = token
        .get(..signing_input_len)
        .and_then(|input| mac(secret, input))
        .ok_or(JwtError::Signature)?;
    if !constant_time_eq(expected.as_bytes(), signature.as_bytes()) {
        return Err(JwtError::Signature);
    }
    let claims: Value = LENIENT
        .decode(payload)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or(JwtError::Malformed)?;
    let Value::Object(claims) = claims else {
        return Ok(Map::new());
    };
    if let Some(nbf) = claims.get("nbf") {
        let nbf = nbf.as_f64().ok_or(JwtError::Claim("nbf"))?;
        if nbf > now as f64 {
            return Err(JwtError::NotYetValid);
        }
    }
    if let Some(exp) = claims.get("exp") {
        let exp = exp.as_f64().ok_or(JwtError::Claim("exp"))?;
        if now as f64 >= exp {
            return Err(JwtError::Expired);
        }
    }
    Ok(claims)
}

/// Signs `claims` with HS256, as users-permissions' `jwt.issue` does (for tests, tools
/// and embedders that sign their own users in).
pub fn sign(claims: &Value, secret: &Secret) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    let input = format!("{header}.{payload}");
    let signature = mac(secret, &input).unwrap_or_default();
    format!("{input}.{signature}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: i64 = 1_764_000_000;

    fn secret() -> Secret {
        Secret("lab-users-permissions-jwt-secret".into())
    }

    #[test]
    fn accepts_what_it_signs_and_matches_strapis_bytes() {
        let token = sign(&json!({"id": 1, "iat": NOW, "exp": NOW + 60}), &secret());
        let claims = verify(&token, &secret(), NOW);
        assert_eq!(claims.map(|c| c.get("id").cloned()), Ok(Some(json!(1))));
        // The same claims signed by tools/auth_fixture.py (Python's hmac), byte for byte.
        let python = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.\
                      eyJpZCI6MSwiaWF0IjoxNzY0MDAwMDAwLCJleHAiOjQxMDI0NDQ4MDB9.\
                      fr26WkV7wOpAJa1NnEDmm7O1kBbtOpd-ZoTJB4M8t7g";
        let signed = sign(
            &json!({"id": 1, "iat": NOW, "exp": 4_102_444_800_i64}),
            &secret(),
        );
        assert_eq!(signed, python);
    }

    #[test]
    fn refuses_what_strapi_refuses() {
        let good = sign(&json!({"id": 1}), &secret());
        let other = Secret("another".into());
        assert_eq!(verify(&good, &other, NOW), Err(JwtError::Signature));
        assert_eq!(verify("abc", &secret(), NOW), Err(JwtError::Malformed));
        assert_eq!(verify("a.b.c.d", &secret(), NOW), Err(JwtError::Malformed));
        assert_eq!(verify("a.b.c", &secret(), NOW), Err(JwtError::Malformed));
        let none = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#),
            URL_SAFE_NO_PAD.encode(br#"{"id":1}"#)
        );
        assert_eq!(verify(&none, &secret(), NOW), Err(JwtError::Algorithm));
        let expired = sign(&json!({"id": 1, "exp": NOW}), &secret());
        assert_eq!(verify(&expired, &secret(), NOW), Err(JwtError::Expired));
        let later = sign(&json!({"id": 1, "nbf": NOW + 1}), &secret());
        assert_eq!(verify(&later, &secret(), NOW), Err(JwtError::NotYetValid));
        let text_exp = sign(&json!({"id": 1, "exp": "2100-01-01"}), &secret());
        assert_eq!(
            verify(&text_exp, &secret(), NOW),
            Err(JwtError::Claim("exp"))
        );
        // A tampered payload under the original signature.
        let mut parts: Vec<&str> = good.split('.').collect();
        let forged = URL_SAFE_NO_PAD.encode(br#"{"id":2}"#);
        parts[1] = &forged;
        assert_eq!(
            verify(&parts.join("."), &secret(), NOW),
            Err(JwtError::Signature)
        );
    }

    #[test]
    fn a_payload_that_is_not_an_object_has_no_claims() {
        let token = sign(&json!([1, 2, 3]), &secret());
        assert_eq!(verify(&token, &secret(), NOW), Ok(Map::new()));
    }
}
