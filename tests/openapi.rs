//! The OpenAPI 3.1 document: what it describes (every route `serve` answers and only
//! those, `deepObject` parameters, optional populated shapes, the error body, the bearer
//! scheme), that `/openapi.json` and `strata openapi` give the same document, and the real
//! tools: `openapi-spec-validator` on it and `schemathesis` fuzzing the running server
//! from it (no 5xx; statuses, content types and bodies as documented), run by
//! `tools/openapi/check.sh` in a virtual environment it installs. Without python3 the
//! tool check skips with one loud line, except under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use serde_json::Value;

fn served() -> (std::net::SocketAddr, Value) {
    let addr = common::start_blog_server("openapi");
    let (status, headers, body) = common::http_get(addr, "/openapi.json", &[]);
    assert_eq!(status, 200);
    assert!(
        headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("content-type")
                && v.starts_with("application/json"))
    );
    (addr, serde_json::from_slice(&body).unwrap())
}

#[test]
fn the_document_describes_the_routes_and_shapes() {
    let (addr, doc) = served();
    assert_eq!(doc["openapi"], "3.1.0");
    let paths: Vec<&str> = doc["paths"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for p in [
        "/api/articles",
        "/api/articles/{documentId}",
        "/api/authors",
        "/api/categories/{documentId}",
        "/api/secrets",
        "/api/tags",
        "/api/users",
        "/api/users/{id}",
        "/_health",
        "/openapi.json",
    ] {
        assert!(paths.contains(&p), "{p} missing from {paths:?}");
    }
    // Only what the server answers: every documented path is a route, and components,
    // built-ins other than users, and the admin are not.
    assert_eq!(paths.len(), 14, "{paths:?}");
    // (A missing document is a 404 too, so only the paths without parameters tell.)
    for p in paths.iter().filter(|p| !p.contains('{')) {
        let (status, _, _) = common::http_get(addr, p, &[]);
        assert_ne!(status, 404, "{p} is documented but not served");
    }

    let list = &doc["paths"]["/api/articles"]["get"];
    let params = list["parameters"].as_array().unwrap();
    let filters = params.iter().find(|p| p["name"] == "filters").unwrap();
    assert_eq!(filters["style"], "deepObject");
    assert_eq!(filters["explode"], true);
    for name in [
        "populate",
        "fields",
        "sort",
        "pagination",
        "locale",
        "status",
    ] {
        assert!(params.iter().any(|p| p["name"] == name), "{name}");
    }
    for code in ["200", "400", "401", "403", "404", "503"] {
        assert!(list["responses"][code].is_object(), "{code}");
    }

    let article = &doc["components"]["schemas"]["Article"];
    assert_eq!(article["required"], serde_json::json!(["id", "documentId"]));
    let author = article["properties"]["author"]["anyOf"].as_array().unwrap();
    assert!(author.contains(&serde_json::json!({"$ref": "#/components/schemas/Author"})));
    assert!(author.contains(&serde_json::json!({"$ref": "#/components/schemas/Count"})));
    assert!(article["properties"]["blocks"]["items"]["anyOf"].is_array());
    assert!(
        article["properties"].get("password").is_none()
            && doc["components"]["schemas"]["UsersPermissionsUser"]["properties"]
                .get("password")
                .is_none(),
        "private fields are never documented"
    );
    assert_eq!(
        doc["components"]["securitySchemes"]["bearerAuth"]["scheme"],
        "bearer"
    );

    // `strata openapi` prints the same document.
    let out = common::succeeded(
        std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["openapi", "--schemas"])
            .arg(common::blog().join("schemas"))
            .env_remove("STRATA_CONFIG")
            .current_dir(std::env::temp_dir())
            .output()
            .unwrap(),
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, doc);
}

#[test]
fn real_tools_validate_the_document_and_fuzz_the_server() {
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output();
    if python.is_err() {
        common::unavailable("python3 is missing, the OpenAPI tools cannot run");
        return;
    }
    let (addr, doc) = served();
    let file = std::env::temp_dir().join(format!("strata-openapi-{}.json", std::process::id()));
    std::fs::write(&file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let out = std::process::Command::new("bash")
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/openapi/check.sh"))
        .arg(&file)
        .arg(format!("http://{addr}"))
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(": OK"),
        "the validator accepted it: {stdout}"
    );
    // schemathesis exits non-zero on any failed check; the summary names what ran.
    assert!(stdout.contains("Test cases:"), "schemathesis: {stdout}");
}
