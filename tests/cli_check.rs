//! `strata check` as a user runs it: the real binary, on the bundled schemas and on a
//! broken folder.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

fn strata(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run strata")
}

#[test]
fn check_bundled_schemas_prints_summary_and_layout() {
    let out = strata(&["check"]);
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
    let out = strata(&["check", "--schemas", "tests/fixtures/broken"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("10 problems in the content model:\n"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 11, "{stderr}");
}

#[test]
fn help_lists_only_working_commands() {
    let out = strata(&["--help"]);
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
        ["check", "generate", "import", "serve", "help"],
        "{stdout}"
    );
}
