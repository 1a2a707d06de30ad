//! A real browser is the user here: Debian's Chromium, driven by playwright-core
//! (`tools/browser/`, installed by its `install.sh`), opens a page on another origin that
//! reads `/api/secrets` with an API token. strata with Strapi's default CORS answers it
//! (the preflight allows `Authorization`); strata configured with other origins is
//! refused by the browser. Without node or Chromium the test skips with one loud line,
//! except under `CI=true`.

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

/// Installs Chromium and playwright-core; `false` (after the loud line) when it cannot.
fn browser_ready(tools: &Path) -> bool {
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
    let chromium = Command::new("sh")
        .args(["-c", "command -v chromium"])
        .output()
        .unwrap();
    let chromium = String::from_utf8_lossy(&chromium.stdout).trim().to_string();
    let run = Command::new("node")
        .arg(tools.join("cors.mjs"))
        .arg(&chromium)
        .arg(format!("http://{open}"))
        .arg(format!("http://{closed}"))
        .arg(authorization)
        .current_dir(&tools)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let result: Value = serde_json::from_str(stdout.trim()).unwrap();
    // Allowed: the browser sent the token (a preflight allowed `Authorization`) and read
    // the answer; the public role may not read secrets, so the token did it.
    assert_eq!(result["open"]["status"], 200, "{result}");
    let secrets = result["open"]["body"]["data"].as_array().unwrap();
    assert!(!secrets.is_empty(), "{result}");
    // Refused: the page's origin is not listed, so the browser withholds the answer.
    let error = result["closed"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("TypeError"), "{result}");
}
