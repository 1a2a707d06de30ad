//! The typed examples (`examples/embed.rs`, `examples/typed_client.rs`) use
//! `examples/generated/blog.rs`, the committed output of
//! `strata generate --schemas schemas --out examples/generated/blog.rs` for the bundled
//! schemas. Examples of the root package cannot have a build script of their own, so the
//! file is committed (as a user who commits generated code would) and checked here;
//! `examples/build-rs/` shows the `build.rs` setup instead.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn the_examples_generated_code_is_fresh() {
    // Cargo runs tests from the package root; the header names the folder as given.
    let fresh = strata_codegen::generate_source(Path::new("schemas")).unwrap();
    let committed = std::fs::read_to_string("examples/generated/blog.rs").unwrap();
    assert!(
        fresh == committed,
        "examples/generated/blog.rs is stale: run \
         `cargo run -- generate --schemas schemas --out examples/generated/blog.rs`"
    );
}

/// `examples/typed_client.rs` as a user runs it (README): `strata serve` creates and seeds
/// the bundled example, `strata token create` makes a full-access token, and the example,
/// given both, reads, then creates a draft, updates and relates it, publishes it, meets a
/// validation error and deletes it. What it printed is checked, and so is the server
/// afterwards: the document it wrote is gone and the article count is back.
#[test]
fn the_typed_client_example_reads_and_writes_against_strata_serve() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("strata-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let database = format!("sqlite://{}/data.db", dir.display());
    let salt = "typed-example-salt";
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["serve", "--port", &port.to_string()])
        .env("STRATA_DATABASE_URL", &database)
        .env("API_TOKEN_SALT", salt)
        .env("STRATA_LOG", "info")
        .current_dir(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = BufReader::new(server.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .any(|line| line.contains("strata listening on"));
    assert!(started, "strata serve did not start");
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();

    let token = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "token",
            "create",
            "--name",
            "example",
            "--type",
            "full-access",
        ])
        .env("STRATA_DATABASE_URL", &database)
        .env("API_TOKEN_SALT", salt)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(token.status.success(), "{token:?}");
    let token = String::from_utf8(token.stdout).unwrap().trim().to_string();
    let bearer = format!("Bearer {token}");
    let total = |status: &str| {
        let path = format!("/api/articles?status={status}&pagination[pageSize]=1");
        let (code, _, body) = common::http_get(addr, &path, &[("Authorization", &bearer)]);
        assert_eq!(code, 200);
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        body["meta"]["pagination"]["total"].as_u64().unwrap()
    };
    let before = (total("draft"), total("published"));

    let output = Command::new(example_binary("typed_client"))
        .env("STRATA_URL", format!("http://{addr}"))
        .env("STRATA_TOKEN", &token)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = |prefix: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line starting {prefix:?} in:\n{stdout}"))
            .to_string()
    };
    // The reads: Ada Lovelace's articles, with their author.
    assert!(stdout.contains("by Ada Lovelace"), "{stdout}");
    // The writes, in order: the tag connected before `rust` comes first.
    let created = line("created the draft ");
    let document_id = created.trim_start_matches("created the draft ").to_string();
    assert_eq!(document_id.len(), 24, "{created}");
    assert!(line("published at ").contains("Some("), "{stdout}");
    assert_eq!(line("its tags: "), r#"its tags: ["javascript", "RUST"]"#);
    assert!(
        line("refused: ").contains("must be a valid email"),
        "{stdout}"
    );
    assert_eq!(line("deleted "), format!("deleted {document_id}"));
    // Line for line what the same program printed against Strapi 5.54 itself.
    let strapi = std::fs::read_to_string(
        root.join("tests/fixtures/typed_client/example_against_strapi.txt"),
    )
    .unwrap();
    assert_eq!(masked(&stdout), masked(&strapi));

    // The server agrees: the document is gone in both versions, and nothing else moved.
    let (code, _, _) = common::http_get(
        addr,
        &format!("/api/articles/{document_id}?status=draft"),
        &[("Authorization", &bearer)],
    );
    assert_eq!(code, 404);
    assert_eq!((total("draft"), total("published")), before);

    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The binary of an example of this package, built by `cargo test` beside the tests
/// (`target/<profile>/examples/`); built here when only this test target was built.
fn example_binary(name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let binary = profile_dir.join("examples").join(name);
    if !binary.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--example", name])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success(), "cargo build --example {name}");
    }
    binary
}

/// The example's output without what differs from run to run and server to server: the
/// server's address, the new document's id and its publication time.
fn masked(output: &str) -> Vec<String> {
    const VARYING: [&str; 4] = [
        "server: ",
        "published at ",
        "created the draft ",
        "deleted ",
    ];
    output
        .lines()
        .map(|l| match VARYING.iter().find(|p| l.starts_with(*p)) {
            Some(prefix) => format!("{prefix}<varies>"),
            None => l.to_string(),
        })
        .collect()
}
