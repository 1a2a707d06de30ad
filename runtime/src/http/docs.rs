//! The API explorer at `/docs`: Swagger UI (a maintained OpenAPI viewer) over the
//! server's own `/openapi.json`, with its assets built into the binary (`docs/`, see its
//! README), so it works offline. "Authorize" takes an API token or a JWT (the document's
//! `bearerAuth` scheme), and "Try it out" sends real requests to this server.
//! `[server] docs = false` in strata.toml switches the page off (then `/docs` is Strapi's
//! 404 like any unknown path).

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

const PAGE: &str = r##"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>strata: content API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/explorer.js"></script>
</body>
</html>
"##;

const EXPLORER: &str = r##"window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: true,
  displayRequestDuration: true,
});
"##;

const BUNDLE: &str = include_str!("docs/swagger-ui-bundle.js");
const STYLE: &str = include_str!("docs/swagger-ui.css");

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            // The assets change only with the binary: a day is safe.
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=86400"),
            ),
        ],
        body,
    )
        .into_response()
}

/// The routes of the explorer: `/docs` and its assets.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route(
            "/docs",
            get(|| async { asset("text/html; charset=utf-8", PAGE) }),
        )
        .route(
            "/docs/explorer.js",
            get(|| async { asset("text/javascript; charset=utf-8", EXPLORER) }),
        )
        .route(
            "/docs/swagger-ui-bundle.js",
            get(|| async { asset("text/javascript; charset=utf-8", BUNDLE) }),
        )
        .route(
            "/docs/swagger-ui.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE) }),
        )
}
