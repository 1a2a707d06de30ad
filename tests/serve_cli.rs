//! `strata serve` as a user runs it: the real binary creates a fresh SQLite database,
//! imports the seed dataset, grants the public role from the config, serves over
//! loopback, and shuts down cleanly on SIGTERM.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};

#[test]
fn serve_creates_seeds_and_serves_the_bundled_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("strata-serve-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["serve", "--port", &port.to_string()])
        .env(
            "STRATA_DATABASE_URL",
            format!("sqlite://{}/data.db", dir.display()),
        )
        .env("STRATA_LOG", "info")
        .current_dir(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the start-up line.
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let mut started = None;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.contains("strata listening on") {
            started = Some(line);
            break;
        }
    }
    let started = started.unwrap_or_else(|| {
        let _ = child.kill();
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        panic!("no start-up line; stderr: {err}")
    });
    assert!(
        started.contains("5 collection types, 0 single types, 7 components"),
        "{started}"
    );
    assert!(started.contains("data.db"), "{started}");
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();

    let (status, _, body) = common::http_get(addr, "/api/articles?populate=*", &[]);
    assert_eq!(status, 200);
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let first = &body["data"][0];
    assert_eq!(first["documentId"], "article00000000000000001");
    assert_eq!(first["author"]["name"], "Ada Lovelace");
    assert_eq!(body["meta"]["pagination"]["total"], 27);
    // Grants come from strata.toml: secrets are not public.
    let (status, _, _) = common::http_get(addr, "/api/secrets", &[]);
    assert_eq!(status, 403);

    // SIGTERM: graceful shutdown, exit status 0.
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "exit status {status}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
