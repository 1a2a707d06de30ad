//! The generated TypeScript (`strata generate --lang typescript`) compiles with
//! `tsc --strict`, and a front-end file that calls `@strapi/client` and reads populated
//! articles through the types type-checks (with a `@ts-expect-error` line that fails the
//! check if the types grow too loose). The compiler and client are pinned in
//! `tools/typescript/package-lock.json` and installed by `tools/typescript/install.sh`.
//! Without node/npm the check skips with one loud line, except under `CI=true`.
//! `strata generate --lang typescript` and its `--check` are tested here as well (they need
//! no node).
//!
//! The example front end (`examples/typescript-frontend/`) is compiled with `tsc --strict`
//! (its `@ts-expect-error` lines prove that a wrong relation target, a component a zone does
//! not allow and a wrong media value are type errors; `tests/fixtures/typescript/frontend.ts`
//! proves a missing required attribute is one) and run with node, as compiled JavaScript,
//! against a real strata server on loopback: it creates, updates, relates, publishes and
//! deletes an article through `@strapi/client`, checks every answer, and the test reads the
//! database's state back over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Command;

/// The example front end's folder.
const EXAMPLE: &str = "examples/typescript-frontend";

#[test]
fn generated_types_compile_under_tsc_strict_with_a_strapi_client_front_end() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(tools) = common::typescript_tools(
        "tests/typescript.rs: node or npm is missing, the generated TypeScript is not compiled",
    ) else {
        return;
    };

    // Through the binary, as a user runs it.
    let dir = tools.join(".check").join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).unwrap();
    common::succeeded(
        Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["generate", "--lang", "typescript", "--schemas"])
            .arg(common::blog().join("schemas"))
            .arg("--out")
            .arg(dir.join("content.ts"))
            .output()
            .unwrap(),
    );
    std::fs::copy(
        root.join("tests/fixtures/typescript/frontend.ts"),
        dir.join("frontend.ts"),
    )
    .unwrap();
    // The edge-case schemas (keywords, odd names, nesting) must compile too, and so must
    // content types named like the envelope's types, and a real third-party project
    // (Strapi's LaunchPad demo).
    for (schemas, file) in [
        ("tests/fixtures/edge/schemas", "edge.ts"),
        ("tests/fixtures/typescript/clash", "clash.ts"),
        ("tests/fixtures/launchpad/src", "launchpad.ts"),
    ] {
        common::succeeded(
            Command::new(env!("CARGO_BIN_EXE_strata"))
                .args(["generate", "--lang", "typescript", "--schemas"])
                .arg(root.join(schemas))
                .arg("--out")
                .arg(dir.join(file))
                .output()
                .unwrap(),
        );
    }

    let tsc = Command::new(tools.join("node_modules/.bin/tsc"))
        .args([
            "--strict",
            "--noEmit",
            "--target",
            "ES2022",
            "--module",
            "ESNext",
            "--moduleResolution",
            "Bundler",
            "--lib",
            "ES2022,DOM",
        ])
        .arg(dir.join("content.ts"))
        .arg(dir.join("frontend.ts"))
        .arg(dir.join("edge.ts"))
        .arg(dir.join("clash.ts"))
        .arg(dir.join("launchpad.ts"))
        .current_dir(&tools)
        .output()
        .unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&tsc.stdout),
        String::from_utf8_lossy(&tsc.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(tsc.status.success(), "tsc --strict failed:\n{report}");
}

#[test]
fn generate_writes_typescript_and_checks_it_while_rust_stays_the_default() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let strata = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(args)
            .current_dir(root)
            .output()
            .unwrap()
    };
    let dir = std::env::temp_dir().join(format!("strata-ts-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ts = dir.join("x.ts");
    let rs = dir.join("x.rs");
    let (ts, rs) = (ts.to_str().unwrap(), rs.to_str().unwrap());
    let schemas = "tests/fixtures/blog/schemas";

    // --lang typescript writes what the library generates.
    common::succeeded(strata(&[
        "generate",
        "--lang",
        "typescript",
        "--schemas",
        schemas,
        "--out",
        ts,
    ]));
    let written = std::fs::read_to_string(ts).unwrap();
    assert_eq!(
        written,
        strata_codegen::generate_typescript(Path::new(schemas)).unwrap()
    );
    assert!(written.starts_with(
        "// @generated by strata-codegen from tests/fixtures/blog/schemas; do not edit.\n"
    ));
    assert!(written.contains("export interface Article {"));

    // Without --lang: Rust.
    common::succeeded(strata(&["generate", "--schemas", schemas, "--out", rs]));
    assert_eq!(
        std::fs::read_to_string(rs).unwrap(),
        strata_codegen::generate_source(Path::new(schemas)).unwrap()
    );

    // --check accepts fresh files of either language, and refuses the other language's.
    let check = |lang: &str, file: &str| {
        strata(&[
            "generate",
            "--lang",
            lang,
            "--schemas",
            schemas,
            "--out",
            file,
            "--check",
        ])
    };
    assert!(check("typescript", ts).status.success());
    assert!(check("rust", rs).status.success());
    assert!(!check("rust", ts).status.success());
    let stale = check("typescript", rs);
    assert!(!stale.status.success());
    let stderr = String::from_utf8_lossy(&stale.stderr);
    assert!(
        stderr.contains("`strata generate --lang typescript --schemas tests/fixtures/blog/schemas"),
        "{stderr}"
    );

    // A stale TypeScript file fails --check and is left as it was.
    let stale_text = written.replace(
        "documentId: DocumentId<\"api::article.article\">;",
        "documentId: number;",
    );
    assert_ne!(stale_text, written);
    std::fs::write(ts, stale_text).unwrap();
    assert!(!check("typescript", ts).status.success());
    assert_ne!(std::fs::read_to_string(ts).unwrap(), written);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The example front end uses the types `strata generate --lang typescript` writes for the
/// bundled blog today (they are committed, as `examples/generated/blog.rs` is).
#[test]
fn the_example_front_end_uses_fresh_generated_types() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "generate",
            "--lang",
            "typescript",
            "--schemas",
            "schemas",
            "--out",
        ])
        .arg(format!("{EXAMPLE}/content.ts"))
        .arg("--check")
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{EXAMPLE}/content.ts is stale: run `cargo run -- generate --lang typescript \
         --schemas schemas --out {EXAMPLE}/content.ts`\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_example_front_end_writes_through_strapi_client_against_a_real_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(tools) = common::typescript_tools(
        "tests/typescript.rs: node or npm is missing, the example front end is not compiled nor run",
    ) else {
        return;
    };
    // Compiled where node finds the pinned `@strapi/client` (tools/typescript/node_modules),
    // as CommonJS (tools/typescript/package.json has no `"type": "module"`).
    let dir = tools
        .join(".check")
        .join(format!("example-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sources = ["content.ts", "typed.ts", "main.ts", "type-errors.ts"];
    for file in sources {
        std::fs::copy(root.join(EXAMPLE).join(file), dir.join(file)).unwrap();
    }
    let tsc = Command::new(tools.join("node_modules/.bin/tsc"))
        .args([
            "--strict",
            "--target",
            "ES2022",
            "--module",
            "NodeNext",
            "--moduleResolution",
            "NodeNext",
            "--lib",
            "ES2022,DOM",
            "--types",
            "node",
            "--outDir",
        ])
        .arg(dir.join("out"))
        .args(sources.map(|f| dir.join(f)))
        .current_dir(&tools)
        .output()
        .unwrap();
    assert!(
        tsc.status.success(),
        "tsc --strict failed on {EXAMPLE}:\n{}{}",
        String::from_utf8_lossy(&tsc.stdout),
        String::from_utf8_lossy(&tsc.stderr)
    );

    // A real server on a scratch copy of the blog's database, every grant to the public.
    let (db_dir, db) = common::blog_db_copy("typescript-frontend");
    let addr = common::serve_with_every_grant(&format!("sqlite://{}", db.display()), 2);
    let drafts = |addr| -> u64 {
        let (status, _, body) = common::http_get(addr, "/api/articles?status=draft", &[]);
        assert_eq!(status, 200);
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        v["meta"]["pagination"]["total"].as_u64().unwrap()
    };
    let before = drafts(addr);

    let run = Command::new("node")
        .arg(dir.join("out/main.js"))
        .env("STRATA_URL", format!("http://{addr}/api"))
        .env_remove("STRATA_TOKEN")
        .current_dir(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).to_string();
    let stderr = String::from_utf8_lossy(&run.stderr).to_string();
    assert!(
        run.status.success(),
        "the front end failed:\n{stdout}\n{stderr}"
    );
    // Step for step what the same program printed against Strapi 5.54 itself (the oracle;
    // tests/fixtures/typescript/README.md), and the same summary but for the new
    // document's id and publication time.
    let strapi =
        std::fs::read_to_string(root.join("tests/fixtures/typescript/frontend_against_strapi.txt"))
            .unwrap();
    let steps = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("ok: "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(steps(&stdout), steps(&strapi), "{stdout}");
    assert_eq!(steps(&stdout).len(), 14, "{stdout}");
    let summary = |out: &str| -> serde_json::Value {
        serde_json::from_str(out.lines().last().unwrap()).unwrap()
    };
    let (mut ours, mut theirs) = (summary(&stdout), summary(&strapi));
    let id = ours["documentId"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 24, "{ours}");
    assert!(ours["publishedAt"].is_string(), "{ours}");
    for s in [&mut ours, &mut theirs] {
        s["documentId"] = serde_json::Value::Null;
        s["publishedAt"] = serde_json::Value::Null;
    }
    assert_eq!(ours, theirs);

    // The server's side of it: the article is gone in both versions, nothing else changed.
    for status in ["draft", "published"] {
        let (code, _, body) =
            common::http_get(addr, &format!("/api/articles/{id}?status={status}"), &[]);
        assert_eq!(code, 404, "{}", String::from_utf8_lossy(&body));
    }
    assert_eq!(drafts(addr), before);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&db_dir);
}
