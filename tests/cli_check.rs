//! `strata check` as a user runs it: the real binary, on the bundled schemas and on a
//! broken folder.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

#[test]
fn check_bundled_schemas_prints_summary_and_layout() {
    let out = common::strata_cli(&["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("ok: 5 content types (5 collection, 0 single), 7 components, 55 attributes, 12 relations, 33 tables"),
        "{stdout}"
    );
    assert!(
        stdout.contains("api::article.article /api/articles → articles [draft&publish, localized]")
    );
    assert!(stdout.contains("table articles_tags_lnk (id integer, article_id integer, tag_id integer, tag_ord float, article_ord float)"));
    assert!(
        stdout.contains("  unique index articles_uq (entity_id, cmp_id, field, component_type)")
    );
}

#[test]
fn check_broken_schemas_fails_with_one_line_per_problem() {
    let out = common::strata_cli(&["check", "--schemas", "tests/fixtures/broken"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("11 problems in the content model:\n"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 12, "{stderr}");
}

#[test]
fn help_lists_only_working_commands() {
    let out = common::strata_cli(&["--help"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let commands: Vec<&str> = stdout
        .split("Commands:")
        .nth(1)
        .and_then(|rest| rest.split("Options:").next())
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        commands,
        [
            "check", "generate", "import", "openapi", "serve", "token", "help"
        ],
        "{stdout}"
    );
}

#[test]
fn check_a_database_against_the_model() {
    // Strapi's own SQLite database has every table and column of its model.
    let out = common::strata_cli(&[
        "check",
        "--schemas",
        "tests/fixtures/blog/schemas",
        "--summary",
        "--database",
        "sqlite://tests/fixtures/blog/strapi.db",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("has every table and column of the model"),
        "{stdout}"
    );

    // A PostgreSQL database without the layout: one line per missing table, status 1.
    if let Some(db) = common::pg::TestDb::create("check") {
        let out = common::strata_cli(&[
            "check",
            "--schemas",
            "tests/fixtures/blog/schemas",
            "--summary",
            "--database",
            &db.url,
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("missing table articles_cmps"), "{stderr}");
        db.restore(
            &std::fs::read_to_string(common::blog().join("pg/strapi-postgres.sql")).unwrap(),
        );
        common::succeeded(common::strata_cli(&[
            "check",
            "--schemas",
            "tests/fixtures/blog/schemas",
            "--summary",
            "--database",
            &db.url,
        ]));
    }

    // An unreachable server: one line naming host and port, status 1.
    let out = common::strata_cli(&[
        "check",
        "--schemas",
        "tests/fixtures/blog/schemas",
        "--summary",
        "--database",
        "postgres://postgres@127.0.0.1:1/nowhere",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("127.0.0.1:1"), "{stderr}");
}
