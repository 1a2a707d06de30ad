//! A real third-party Strapi 5 project (the schemas of Strapi's LaunchPad demo,
//! `tests/fixtures/launchpad/`) used from the repository root, where the bundled blog's
//! `./strata.toml` lies: `check`, `import` and `serve` take the project's own settings
//! (`tests/fixtures/launchpad/strata.toml`), never the blog's grants or seed. The generated
//! Rust (`tests/generated_compiles.rs`) and TypeScript (`tests/typescript.rs`) of the same
//! schemas are compiled elsewhere.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

const SCHEMAS: &str = "tests/fixtures/launchpad/src";

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("strata-launchpad-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `strata serve` of the LaunchPad schemas from the repository root, on `database`.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(database: &str) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["serve", "--schemas", SCHEMAS, "--database", database])
            .args(["--port", &port.to_string()])
            .env_remove("STRATA_CONFIG")
            .env_remove("STRATA_SCHEMAS")
            .env("STRATA_LOG", "info")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let started = BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .any(|line| line.contains("strata listening on"));
        if !started {
            let _ = child.kill();
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            panic!("strata serve did not start: {err}");
        }
        Server {
            child,
            addr: format!("127.0.0.1:{port}").parse().unwrap(),
        }
    }

    fn get(&self, target: &str) -> (u16, serde_json::Value) {
        let (status, _, body) = common::http_get(self.addr, target, &[]);
        (status, serde_json::from_slice(&body).unwrap_or_default())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn check_import_and_serve_take_the_projects_own_settings() {
    let check = common::strata_cli(&["check", "--schemas", SCHEMAS, "--summary"]);
    assert!(check.status.success(), "{}", text(&check));
    assert!(
        text(&check).contains("12 content types (9 collection, 3 single), 32 components"),
        "{}",
        text(&check)
    );

    // Into a new database, from the repository root: the project's grants apply (the
    // blog's, which name types LaunchPad lacks, made this fail).
    let dir = temp_dir("import");
    let url = format!("sqlite://{}/data.db", dir.display());
    let import = common::strata_cli(&[
        "import",
        "tests/fixtures/launchpad/dataset.json",
        "--schemas",
        SCHEMAS,
        "--database",
        &url,
    ]);
    assert!(import.status.success(), "{}", text(&import));
    assert!(
        text(&import).contains("imported 2 documents (5 rows)"),
        "{}",
        text(&import)
    );

    let server = Server::start(&url);
    let (status, body) = server.get("/api/articles?populate=*");
    assert_eq!(status, 200, "{body}");
    let articles = body["data"].as_array().unwrap();
    assert_eq!(articles.len(), 1, "{body}");
    assert_eq!(articles[0]["title"], "LaunchPad is live");
    assert_eq!(articles[0]["categories"][0]["name"], "News");
    assert_eq!(
        articles[0]["dynamic_zone"][0]["__component"],
        "dynamic-zone.cta"
    );
    assert_eq!(articles[0]["dynamic_zone"][0]["heading"], "Try it");
    let (status, body) = server.get("/api/categories?locale=fr");
    assert_eq!(
        (status, &body["data"][0]["name"]),
        (200, &"Actualités".into())
    );
    // Only what the project's strata.toml grants: products are not public.
    assert_eq!(server.get("/api/products").0, 403);
    // The blog's types are no routes here.
    assert_eq!(server.get("/api/authors").0, 404);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_creates_a_database_without_the_blogs_seed() {
    let dir = temp_dir("serve");
    let server = Server::start(&format!("sqlite://{}/data.db", dir.display()));
    let (status, body) = server.get("/api/articles");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"], serde_json::json!([]), "no seed imported");
    assert_eq!(body["meta"]["pagination"]["total"], 0);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
