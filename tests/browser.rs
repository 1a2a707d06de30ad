//! A real browser is the user here: Debian's Chromium, driven by playwright-core
//! (`tools/browser/`, installed by its `install.sh`):
//! * a page on another origin reads `/api/secrets` with an API token: strata with
//!   Strapi's default CORS answers it (the preflight allows `Authorization`); strata
//!   configured with other origins is refused by the browser;
//! * the API explorer at `/docs` loads with no request outside strata, shows a section
//!   for every content type, and "Try it out" with the token answers 200.
//!
//! Without node or Chromium the tests skip with one loud line, except under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use strata::auth::{AuthSecrets, Secret};
use strata::http::ServerConfig;
use strata::http::cors::CorsConfig;
use strata::store::{DatabaseUrl, Store};

/// Installs Chromium and playwright-core, once per run; `false` (after the loud line) when
/// it cannot.
fn browser_ready(tools: &Path) -> bool {
    static READY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *READY.get_or_init(|| install_browser(tools))
}

fn install_browser(tools: &Path) -> bool {
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !node {
        common::unavailable("tests/browser.rs: node is missing, no browser test ran");
        return false;
    }
    let install = Command::new("bash")
        .arg(tools.join("install.sh"))
        .output()
        .unwrap();
    if !install.status.success() {
        common::unavailable(&format!(
            "tests/browser.rs: tools/browser/install.sh failed: {}",
            String::from_utf8_lossy(&install.stderr)
        ));
        return false;
    }
    true
}

/// The blog's database with the recorded credentials, served with `cors`.
fn serve(tag: &str, cors: CorsConfig) -> std::net::SocketAddr {
    let (_, db) = common::blog_db_copy(&format!("browser-{tag}"));
    let sql = std::fs::read_to_string(common::blog().join("auth/credentials.sqlite.sql")).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    let model = Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    let url = DatabaseUrl::parse(&format!("sqlite://{}?mode=ro", db.display())).unwrap();
    let store = Arc::new(Store::open_existing(&url, model, 2).unwrap());
    let config = ServerConfig {
        cors,
        auth: AuthSecrets {
            api_token_salt: Secret::new("lab-api-token-salt"),
            jwt_secret: Secret::new("lab-users-permissions-jwt-secret"),
        },
        permission_ttl: Duration::from_secs(1),
        ..ServerConfig::default()
    };
    common::serve_store_with(store, config)
}

#[test]
fn a_front_end_on_another_origin_reads_with_a_token_where_cors_allows_it() {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/browser");
    if !browser_ready(&tools) {
        return;
    }
    let open = serve("open", CorsConfig::default());
    let closed = serve(
        "closed",
        CorsConfig {
            origins: vec!["https://app.example".into()],
            ..CorsConfig::default()
        },
    );
    let credentials: Value = serde_json::from_str(
        &std::fs::read_to_string(common::blog().join("auth/credentials.json")).unwrap(),
    )
    .unwrap();
    let authorization = credentials["read-only"].as_str().unwrap();
    let result = run_script(
        &tools,
        "cors.mjs",
        &[
            format!("http://{open}"),
            format!("http://{closed}"),
            authorization.to_string(),
        ],
    );
    // Allowed: the browser sent the token (a preflight allowed `Authorization`) and read
    // the answer; the public role may not read secrets, so the token did it.
    assert_eq!(result["open"]["status"], 200, "{result}");
    let secrets = result["open"]["body"]["data"].as_array().unwrap();
    assert!(!secrets.is_empty(), "{result}");
    // Refused: the page's origin is not listed, so the browser withholds the answer.
    let error = result["closed"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("TypeError"), "{result}");
}

/// Runs a script of `tools/browser` with Chromium and `args`; its one JSON line.
fn run_script(tools: &Path, script: &str, args: &[String]) -> Value {
    let chromium = Command::new("sh")
        .args(["-c", "command -v chromium"])
        .output()
        .unwrap();
    let chromium = String::from_utf8_lossy(&chromium.stdout).trim().to_string();
    let run = Command::new("node")
        .arg(tools.join(script))
        .arg(&chromium)
        .args(args)
        .current_dir(tools)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap()
}

#[test]
fn the_api_explorer_lists_every_type_and_tries_a_call_with_a_token() {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/browser");
    if !browser_ready(&tools) {
        return;
    }
    let addr = serve("docs", CorsConfig::default());
    let credentials: Value = serde_json::from_str(
        &std::fs::read_to_string(common::blog().join("auth/credentials.json")).unwrap(),
    )
    .unwrap();
    let authorization = credentials["read-only"].as_str().unwrap().to_string();
    let result = run_script(
        &tools,
        "docs.mjs",
        &[format!("http://{addr}"), authorization.clone()],
    );
    // Every section of the document is on the page: one per content type, and the server's.
    let (_, _, body) = common::http_get(addr, "/openapi.json", &[]);
    let document: Value = serde_json::from_slice(&body).unwrap();
    let mut expected: Vec<String> = document["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|p| p.as_object().unwrap().values())
        .filter_map(|op| op["tags"][0].as_str().map(str::to_string))
        .collect();
    expected.sort();
    expected.dedup();
    let mut shown: Vec<String> = result["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    shown.sort();
    assert_eq!(shown, expected, "{result}");
    let model = strata::schema::load(&common::blog().join("schemas")).unwrap();
    assert!(
        model
            .content_types()
            .filter(|s| !matches!(s.origin, strata::schema::Origin::BuiltIn))
            .all(|s| shown.iter().any(|t| t == s.plural_name.as_str())),
        "{shown:?}"
    );
    // Try it out, authorized with the token: GET /api/secrets (not public) answers 200.
    assert_eq!(result["status"], 200, "{result}");
    assert_eq!(result["authorization"], authorization.as_str(), "{result}");
    // Everything the page loaded came from strata itself: no CDN.
    assert_eq!(result["external"], serde_json::json!([]), "{result}");
}

#[test]
fn the_api_explorer_can_be_switched_off() {
    let off = ServerConfig {
        docs: false,
        ..ServerConfig::default()
    };
    let addr = common::start_blog_server_with("docs-off", off);
    let (status, _, body) = common::http_get(addr, "/docs", &[]);
    assert_eq!(status, 404);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"]["name"], "NotFoundError");
    let on = common::start_blog_server("docs-on");
    let (status, headers, body) = common::http_get(on, "/docs", &[]);
    assert_eq!(status, 200);
    assert!(
        headers
            .iter()
            .any(|(k, v)| k == "content-type" && v.starts_with("text/html"))
    );
    assert!(String::from_utf8_lossy(&body).contains("/docs/swagger-ui-bundle.js"));
    let (status, _, bundle) = common::http_get(on, "/docs/swagger-ui-bundle.js", &[]);
    assert_eq!(status, 200);
    assert!(bundle.len() > 1_000_000, "the viewer is built in");
}
