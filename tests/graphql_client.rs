//! A real GraphQL client from npm against strata: `examples/graphql-frontend/main.mjs`
//! (Apollo Client 4, core, no React) runs with node against a strata server on loopback
//! with GraphQL on, over a copy of the blog fixture database, and must print exactly what
//! it printed against Strapi 5.54 on the same database
//! (`tests/fixtures/graphql_client/against_strapi.txt`, see its README): lists with
//! variables, a named fragment with nested relations, a `_connection` page, a dynamic
//! zone through inline fragments, the normalized cache, Apollo's error handling, and its
//! automatic persisted queries (`PersistedQueryLink`).
//!
//! Apollo Client, `graphql` and `rxjs` are pinned in `tools/typescript/package-lock.json`
//! and installed by `tools/typescript/install.sh` (the same install as the TypeScript
//! check). Without node/npm the test skips with one loud line, except under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn apollo_client_reads_strata_as_it_reads_strapi() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(tools) = common::typescript_tools(
        "tests/graphql_client.rs: node or npm is missing, Apollo Client is not run",
    ) else {
        return;
    };

    // Run from under tools/typescript/, where node resolves the pinned @apollo/client.
    let dir = tools
        .join(".check")
        .join(format!("graphql-client-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        root.join("examples/graphql-frontend/main.mjs"),
        dir.join("main.mjs"),
    )
    .unwrap();

    let config = common::graphql_on();
    let (scratch, db) = common::blog_db_copy("graphql-client");
    let model = std::sync::Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    let url =
        strata::store::DatabaseUrl::parse(&format!("sqlite://{}?mode=ro", db.display())).unwrap();
    let store = std::sync::Arc::new(strata::store::Store::open_existing(&url, model, 2).unwrap());
    let addr = common::serve_store_with(store, config);
    let run = Command::new("node")
        .arg(dir.join("main.mjs"))
        .env("GRAPHQL_URL", format!("http://{addr}/graphql"))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&scratch);
    let printed = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "node main.mjs failed:\n{printed}{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let expected =
        std::fs::read_to_string(root.join("tests/fixtures/graphql_client/against_strapi.txt"))
            .unwrap();
    let got: Vec<&str> = printed.lines().collect();
    let want: Vec<&str> = expected.lines().collect();
    let differences: Vec<String> = (0..want.len().max(got.len()))
        .filter(|&i| want.get(i) != got.get(i))
        .map(|i| {
            format!(
                "line {}:\n  Strapi: {}\n  strata: {}",
                i + 1,
                want.get(i).unwrap_or(&"(none)"),
                got.get(i).unwrap_or(&"(none)")
            )
        })
        .collect();
    assert!(
        differences.is_empty(),
        "Apollo Client printed {} of {} lines differently against strata:\n{}",
        differences.len(),
        want.len(),
        differences.join("\n")
    );
    assert_eq!(want.len(), 14, "the recording has one line per step");
}
