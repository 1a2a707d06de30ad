//! Cross-origin requests, as Strapi's default `strapi::cors` middleware answers them
//! (`@strapi/core` `middlewares/cors`, over `@koa/cors` 5), so a browser front end on
//! another origin can move from Strapi to strata by changing its base URL alone:
//!
//! * every answer says `Vary: Origin`;
//! * the allowed origin is the request's `Origin` when the configured origins hold `*` or
//!   that origin, `*` when the request has no `Origin`, and none otherwise (then no CORS
//!   header at all, and the browser refuses the answer);
//! * with credentials on (the default), an allowed `*` becomes the request's own origin
//!   (empty when it sent none, as Strapi sends it) and `Access-Control-Allow-Credentials:
//!   true` goes with it;
//! * a preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin
//!   is answered here, 204 with the methods, the request headers allowed (Strapi's
//!   `Content-Type, Authorization, Origin, Accept`) and `Access-Control-Max-Age`, whatever
//!   the path; any other request but `OPTIONS` gets the headers on its own answer, errors
//!   included.
//! * an answer marked [`AnyOrigin`] (every answer of `/graphql`) says
//!   `Access-Control-Allow-Origin: *` instead, whenever the configured origins allow the
//!   request at all (see [`AnyOrigin`]).
//!
//! The recorded answers of the real Strapi are `tests/fixtures/blog/oracle/cors.json` and
//! `graphql_cors.json` (`tools/cors/record.py`).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

/// CORS settings (`[server.cors]` in strata.toml), with Strapi's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorsConfig {
    /// Origins allowed to read answers: `*` for any (Strapi's `origin`, default `*`).
    pub origins: Vec<String>,
    /// Whether credentials (cookies, `Authorization`) may be sent: default true.
    pub credentials: bool,
    /// `Access-Control-Max-Age` of a preflight, in seconds (default one year).
    pub max_age: Option<u64>,
    /// `Access-Control-Allow-Methods`.
    pub methods: Vec<String>,
    /// `Access-Control-Allow-Headers`; empty: whatever the preflight asks for.
    pub headers: Vec<String>,
    /// `Access-Control-Expose-Headers`; empty: none.
    pub expose: Vec<String>,
}

impl Default for CorsConfig {
    fn default() -> Self {
        let list = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
        CorsConfig {
            origins: list(&["*"]),
            credentials: true,
            max_age: Some(31_536_000),
            methods: list(&["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]),
            headers: list(&["Content-Type", "Authorization", "Origin", "Accept"]),
            expose: Vec::new(),
        }
    }
}

impl CorsConfig {
    /// The `Access-Control-Allow-Origin` value for a request from `origin` (empty when
    /// the request sent none), or `None` when that origin may not read the answer
    /// (Strapi's `matchOrigin`, then `@koa/cors`'s credentials rule).
    pub fn allowed_origin(&self, origin: &str) -> Option<String> {
        let allowed = if origin.is_empty() {
            "*".to_string()
        } else if self
            .origins
            .iter()
            .flat_map(|o| o.split(','))
            .map(str::trim)
            .any(|o| o == "*" || o == origin)
        {
            origin.to_string()
        } else {
            return None;
        };
        Some(if self.credentials && allowed == "*" {
            origin.to_string()
        } else {
            allowed
        })
    }
}

/// A response extension: the answer may be read by any origin. Strapi's GraphQL plugin
/// runs its own `@koa/cors()` with its defaults (`origin: '*'`, no credentials) after
/// `strapi::cors`, so every `/graphql` answer but a preflight says
/// `Access-Control-Allow-Origin: *` (with `strapi::cors`'s `Allow-Credentials: true`
/// left in place). strata does the same when the configured origins allow the request;
/// when they refuse its origin, the answer carries no CORS header, as on REST (Strapi
/// would still say `*`: a configured list of origins is not widened here).
#[derive(Debug, Clone, Copy)]
pub struct AnyOrigin;

/// The middleware (`axum::middleware::from_fn_with_state(Arc<CorsConfig>, cors)`).
pub async fn cors(State(config): State<Arc<CorsConfig>>, request: Request, next: Next) -> Response {
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let allowed = config.allowed_origin(&origin);
    let options = request.method() == Method::OPTIONS;
    let preflight = options
        && request
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    if preflight && let Some(allowed) = &allowed {
        let asked = request
            .headers()
            .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
            .cloned();
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::NO_CONTENT;
        let headers = response.headers_mut();
        add_vary_origin(headers);
        set_allowed(headers, &config, allowed);
        if let Some(age) = config.max_age {
            headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from(age));
        }
        set_list(
            headers,
            header::ACCESS_CONTROL_ALLOW_METHODS,
            &config.methods,
        );
        if config.headers.is_empty() {
            if let Some(asked) = asked {
                headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, asked);
            }
        } else {
            set_list(
                headers,
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                &config.headers,
            );
        }
        return response;
    }
    let mut response = next.run(request).await;
    let any = response.extensions().get::<AnyOrigin>().is_some();
    let headers = response.headers_mut();
    add_vary_origin(headers);
    // `OPTIONS` that is no preflight is no CORS request: Vary alone, as `@koa/cors`.
    if !options && let Some(allowed) = &allowed {
        set_allowed(headers, &config, if any { "*" } else { allowed });
        if !config.expose.is_empty() {
            set_list(
                headers,
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                &config.expose,
            );
        }
    }
    response
}

fn set_allowed(headers: &mut HeaderMap, config: &CorsConfig, allowed: &str) {
    if let Ok(v) = HeaderValue::from_str(allowed) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
    }
    if config.credentials {
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        );
    }
}

fn set_list(headers: &mut HeaderMap, name: header::HeaderName, items: &[String]) {
    if let Ok(v) = HeaderValue::from_str(&items.join(",")) {
        headers.insert(name, v);
    }
}

/// Adds `Origin` to the answer's `Vary`, unless it is there (or `*`).
fn add_vary_origin(headers: &mut HeaderMap) {
    let present = headers.get_all(header::VARY).iter().any(|v| {
        v.to_str().is_ok_and(|v| {
            v.split(',')
                .map(str::trim)
                .any(|t| t == "*" || t.eq_ignore_ascii_case("origin"))
        })
    });
    if !present {
        headers.append(header::VARY, HeaderValue::from_static("Origin"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_matched_as_strapi_matches_them() {
        let any = CorsConfig::default();
        assert_eq!(
            any.allowed_origin("http://a.example").as_deref(),
            Some("http://a.example")
        );
        // No Origin: `*`, which credentials turn into the (empty) request origin.
        assert_eq!(any.allowed_origin("").as_deref(), Some(""));
        let listed = CorsConfig {
            origins: vec!["http://a.example, http://b.example".into()],
            ..CorsConfig::default()
        };
        assert_eq!(
            listed.allowed_origin("http://b.example").as_deref(),
            Some("http://b.example")
        );
        assert_eq!(listed.allowed_origin("http://c.example"), None);
        let no_credentials = CorsConfig {
            credentials: false,
            ..CorsConfig::default()
        };
        assert_eq!(no_credentials.allowed_origin("").as_deref(), Some("*"));
    }
}
