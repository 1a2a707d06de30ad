//! The OpenAPI 3.1 document: what it describes (every route `serve` answers and only
//! those, reads and writes, `deepObject` parameters, optional populated shapes, the write
//! input schemas, the error body, the bearer scheme), that `/openapi.json` and `strata
//! openapi` give the same document, and the real tools: `openapi-spec-validator` on it
//! and `schemathesis` fuzzing the running server from it (no 5xx; statuses, content
//! types and bodies as documented), run by `tools/openapi/check.sh` in a virtual
//! environment it installs. The fuzzed server writes: it serves a scratch copy of the
//! blog database with every grant, so `POST`, `PUT` and `DELETE` are fuzzed too. Without
//! python3 the tool check skips with one loud line, except under `CI=true`.

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

/// The server schemathesis fuzzes: a scratch copy of the blog database, opened writable,
/// with every grant, so that its writes (`POST`, `PUT`, `DELETE`) run too.
fn served_writable() -> (std::net::SocketAddr, Value) {
    let (_, db) = common::blog_db_copy("openapi-writes");
    let addr = common::serve_with_every_grant(&format!("sqlite://{}", db.display()), 2);
    let (status, _, body) = common::http_get(addr, "/openapi.json", &[]);
    assert_eq!(status, 200);
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

    // The writes: exactly the methods the router takes, each with its input schema.
    let methods = |p: &str| -> Vec<String> {
        let mut m: Vec<String> = doc["paths"][p]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        m.sort();
        m
    };
    for plural in ["articles", "authors", "categories", "secrets", "tags"] {
        assert_eq!(
            methods(&format!("/api/{plural}")),
            ["get", "post"],
            "{plural}"
        );
        assert_eq!(
            methods(&format!("/api/{plural}/{{documentId}}")),
            ["delete", "get", "put"],
            "{plural}"
        );
    }
    assert_eq!(methods("/api/users"), ["get"]);
    assert_eq!(methods("/api/users/{id}"), ["get"]);
    // Every documented write is routed (a 401 or 403 here, never 405), and the methods
    // left out are not (405).
    for (method, target, routed) in [
        ("POST", "/api/articles", true),
        ("PUT", "/api/articles/nothing", true),
        ("DELETE", "/api/tags/nothing", true),
        ("PUT", "/api/articles", false),
        ("POST", "/api/articles/nothing", false),
        ("POST", "/api/users", false),
    ] {
        let (status, _, _) = common::http_request(addr, method, target, &[]);
        assert_eq!(status == 405, !routed, "{method} {target}: {status}");
    }
    let input = |name: &str| serde_json::json!({"$ref": format!("#/components/schemas/{name}")});
    for (path, method, name, data, ok) in [
        (
            "/api/articles",
            "post",
            "Article",
            "ArticleCreateInput",
            "201",
        ),
        (
            "/api/articles/{documentId}",
            "put",
            "Article",
            "ArticleUpdateInput",
            "200",
        ),
        ("/api/tags", "post", "Tag", "TagCreateInput", "201"),
        (
            "/api/categories/{documentId}",
            "put",
            "Category",
            "CategoryUpdateInput",
            "200",
        ),
    ] {
        let op = &doc["paths"][path][method];
        let body = &op["requestBody"]["content"]["application/json"]["schema"];
        assert_eq!(body["properties"]["data"], input(data), "{method} {path}");
        assert_eq!(body["required"], serde_json::json!(["data"]));
        assert_eq!(
            op["responses"][ok]["content"]["application/json"]["schema"]["properties"]["data"],
            serde_json::json!({"$ref": format!("#/components/schemas/{name}")}),
            "{method} {path}: the answer is a read's entry"
        );
        let names: Vec<&str> = op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        for p in ["status", "locale", "fields", "populate"] {
            assert!(names.contains(&p), "{method} {path}: {p}");
        }
        assert_eq!(
            op["responses"]["400"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/WriteError",
            "{method} {path}: 400"
        );
        for code in ["401", "403", "413", "503"] {
            assert_eq!(
                op["responses"][code]["content"]["application/json"]["schema"]["$ref"],
                "#/components/schemas/Error",
                "{method} {path}: {code}"
            );
        }
        assert!(op["responses"].get("405").is_none());
    }
    assert!(doc["paths"]["/api/articles/{documentId}"]["put"]["responses"]["404"].is_object());
    let delete = &doc["paths"]["/api/articles/{documentId}"]["delete"];
    assert!(delete.get("requestBody").is_none());
    assert_eq!(
        delete["responses"]["204"]["description"],
        "Deleted (no body)"
    );
    assert!(delete["responses"]["204"].get("content").is_none());
    assert_eq!(
        delete["parameters"].as_array().unwrap().len(),
        3,
        "documentId, status, locale"
    );

    let schemas = &doc["components"]["schemas"];
    assert!(schemas.get("ArticleInput").is_none() && schemas.get("RelationInput").is_none());
    let article_input = &schemas["ArticleCreateInput"];
    assert_eq!(article_input["additionalProperties"], false);
    // The blog requires nothing; the same properties on create and update.
    assert!(article_input.get("required").is_none());
    assert_eq!(
        article_input["properties"],
        schemas["ArticleUpdateInput"]["properties"]
    );
    let props = &article_input["properties"];
    for key in ["documentId", "id", "createdAt", "updatedBy"] {
        assert!(props.get(key).is_none(), "{key} is refused on write");
    }
    assert!(props["publishedAt"].is_object() && props["locale"].is_object());
    // Relations: one input per target type.
    for (attr, target) in [
        ("tags", "Tag"),
        ("author", "Author"),
        ("category", "Category"),
        ("editor", "UsersPermissionsUser"),
    ] {
        assert_eq!(
            props[attr]["$ref"],
            format!("#/components/schemas/{target}RelationInput"),
            "{attr}"
        );
    }
    let tags = &schemas["TagRelationInput"];
    assert!(
        tags["description"]
            .as_str()
            .unwrap()
            .starts_with("entries of api::tag.tag")
    );
    let forms = tags["anyOf"].as_array().unwrap();
    assert!(forms.contains(&serde_json::json!({"type": "null"})));
    assert!(forms.contains(&serde_json::json!({"$ref": "#/components/schemas/TagRelationRef"})));
    let ops = forms.iter().find(|f| f["type"] == "object").unwrap();
    assert_eq!(ops["additionalProperties"], false);
    for op in ["connect", "disconnect", "set"] {
        assert!(
            ops["properties"][op]["anyOf"]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!({"type": "array", "items": {"$ref": "#/components/schemas/TagRelationRef"}})),
            "{op}"
        );
    }
    let longhand = &schemas["TagRelationRef"]["anyOf"][1];
    assert_eq!(longhand["additionalProperties"], false);
    for key in ["documentId", "locale", "status", "position"] {
        assert!(longhand["properties"][key].is_object(), "{key}");
    }
    for key in ["before", "after", "start", "end"] {
        assert!(
            longhand["properties"]["position"]["properties"][key].is_object(),
            "{key}"
        );
    }
    // Private attributes are written (never read): the edge schemas have some, and a
    // required attribute there is required on create only.
    let edge = strata::http::openapi::document(
        &strata::schema::load(std::path::Path::new("tests/fixtures/edge/schemas")).unwrap(),
        "/api",
    );
    let edge = &edge["components"]["schemas"];
    let create = &edge["EverythingCreateInput"];
    assert_eq!(create["required"], serde_json::json!(["string"]));
    assert!(edge["EverythingUpdateInput"].get("required").is_none());
    assert_eq!(create["properties"]["password"]["writeOnly"], true);
    assert_eq!(create["properties"]["internalNote"]["writeOnly"], true);
    assert!(edge["Everything"]["properties"].get("password").is_none());
    assert!(edge.get("HomepageCreateInput").is_none() && edge["HomepageUpdateInput"].is_object());
    let sections = &create["properties"]["sections"]["anyOf"][1]["items"]["anyOf"];
    assert_eq!(
        sections
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["allOf"][1]["properties"]["__component"]["const"].clone())
            .collect::<Vec<_>>(),
        ["shared.pair", "nested.level-three", "everything.kind"]
    );

    // The error body of writes: Strapi's, with `details.errors[]`.
    let field = &schemas["FieldError"];
    assert_eq!(
        field["required"],
        serde_json::json!(["path", "message", "name"])
    );
    assert_eq!(field["properties"]["path"]["items"]["type"], "string");
    assert!(field["properties"]["value"].is_object());
    let write_error = &schemas["WriteError"]["properties"]["error"];
    assert_eq!(
        write_error["properties"]["details"]["properties"]["errors"]["items"]["$ref"],
        "#/components/schemas/FieldError"
    );
    // ... and the server answers in it.
    let (_, db) = common::blog_db_copy("openapi-error-shape");
    let writable = common::serve_with_every_grant(&format!("sqlite://{}", db.display()), 1);
    let (status, body) = common::send_json(
        writable,
        "POST",
        "/api/articles",
        r#"{"data":{"views":"many","kind":"nonsense"}}"#,
    );
    assert_eq!(status, 400);
    let errors = body["error"]["details"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{body}");
    for e in errors {
        let mut keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["message", "name", "path", "value"], "{e}");
        assert!(e["path"].as_array().unwrap().iter().all(Value::is_string));
    }
    assert_eq!(
        props["views"]["type"],
        serde_json::json!(["integer", "string", "null"])
    );
    assert!(
        props["gallery"]["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["type"] == "array")
    );
    let zone = props["blocks"]["anyOf"][1]["items"]["anyOf"]
        .as_array()
        .unwrap();
    assert_eq!(zone.len(), 4);
    assert!(
        zone.iter()
            .all(|item| item["allOf"][1]["required"] == serde_json::json!(["__component"]))
    );
    let seo = &schemas["SharedSeoInput"];
    assert_eq!(seo["additionalProperties"], false);
    assert!(seo["properties"]["id"].is_object() && seo["properties"]["__component"].is_object());
    assert!(
        schemas.get("UsersPermissionsUserCreateInput").is_none()
            && schemas.get("UsersPermissionsUserUpdateInput").is_none(),
        "users are not written"
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
    let (addr, doc) = served_writable();
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
