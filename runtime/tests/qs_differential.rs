//! Differential tests of `strata_runtime::query::qs` against npm `qs` (the version Strapi 5 uses,
//! called with Strapi's options).
//!
//! * `recorded_table_matches_qs` replays `tests/fixtures/qs_table.json`, made by
//!   `tests/qs/gen_table.js` (`cd tests/qs && npm install && node gen_table.js`).
//! * The proptests check that any input parses without panicking and in bounded time.
//! * `live_differential` compares with a running qs on generated inputs. It runs only when
//!   `STRATA_QS_LIVE=1` is set and `node` plus `tests/qs/node_modules/qs` are available
//!   (`STRATA_QS_LIVE_CASES` sets the number of cases, default 2000).

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use strata_runtime::query::qs;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What our parser says, in `JSON.stringify` form.
fn ours(input: &str) -> String {
    match qs::parse(input) {
        Ok(map) => qs::map_to_json(&map),
        Err(e) => format!("<error: {e}>"),
    }
}

fn shorten(s: &str) -> String {
    const MAX: usize = 300;
    if s.chars().count() <= MAX {
        return s.to_owned();
    }
    let head: String = s.chars().take(MAX).collect();
    format!("{head}… ({} chars)", s.chars().count())
}

#[test]
fn recorded_table_matches_qs() -> Result<(), Box<dyn std::error::Error>> {
    let path = manifest_dir().join("tests/fixtures/qs_table.json");
    let text = std::fs::read_to_string(&path)?;
    let table: Vec<serde_json::Value> = serde_json::from_str(&text)?;
    assert!(
        table.len() > 3000,
        "the table has only {} cases",
        table.len()
    );

    let mut mismatches = Vec::new();
    for case in &table {
        let input = case
            .get("input")
            .and_then(serde_json::Value::as_str)
            .ok_or("a case without a string input")?;
        let output = case.get("output").ok_or("a case without output")?;
        // serde_json (preserve_order) writes compact JSON with the same escapes as
        // JSON.stringify, so equal strings mean equal values with equal key order.
        let expected = serde_json::to_string(output)?;
        let got = ours(input);
        if got != expected {
            mismatches.push((input.to_owned(), expected, got));
        }
    }
    let agreed = table.len() - mismatches.len();
    println!("qs differential: {agreed}/{} cases agree", table.len());
    for (input, expected, got) in mismatches.iter().take(10) {
        println!(
            "MISMATCH\n  input:    {}\n  qs:       {}\n  ours:     {}",
            shorten(&format!("{input:?}")),
            shorten(expected),
            shorten(got)
        );
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} cases differ from qs",
        mismatches.len(),
        table.len()
    );
    Ok(())
}

/// Inputs built from the tokens that matter to qs.
fn bracket_heavy() -> impl Strategy<Value = String> {
    let tokens = prop::sample::select(vec![
        "a",
        "b",
        "x",
        "0",
        "1",
        "5",
        "99",
        "100",
        "101",
        "[",
        "]",
        "[]",
        "[0]",
        "[1]",
        "[5]",
        "[99]",
        "[100]",
        "[150]",
        "[b]",
        "[$in]",
        "[__proto__]",
        "[constructor]",
        "__proto__",
        "toString",
        "=",
        "=",
        "&",
        "&",
        "&&",
        "]=",
        "+",
        "%",
        "%5B",
        "%5d",
        "%20",
        "%C3",
        "%C3%A9",
        "%E2%82%AC",
        "%FF",
        "%ZZ",
        "é",
        "日",
        "filters",
        "populate",
        "[$or]",
        "[01]",
        "[-1]",
        "[100000000000000000000]",
        "[9007199254740993]",
        "[4294967295]",
        ".",
    ]);
    prop::collection::vec(tokens, 0..120).prop_map(|parts| parts.concat())
}

/// Inputs made of `key=value` pairs whose keys often share paths, so that merging, combining,
/// array limits and overflow objects interact.
fn structured() -> impl Strategy<Value = String> {
    let name = prop::sample::select(vec!["a", "b", "5", "0", "x", "__proto__", ""]);
    let segment = prop::sample::select(vec![
        "[a]",
        "[b]",
        "[]",
        "[]",
        "[0]",
        "[1]",
        "[2]",
        "[99]",
        "[100]",
        "[101]",
        "[150]",
        "[100000000000000000000]",
        "[9007199254740993]",
        "x",
        "[",
        "]",
        "[[a]]",
        "[toString]",
    ]);
    let key = (name, prop::collection::vec(segment, 0..6))
        .prop_map(|(n, s)| format!("{n}{}", s.concat()));
    let value = prop::sample::select(vec![None, Some(""), Some("1"), Some("x"), Some("%C3%A9")]);
    let pair = (key, value).prop_map(|(k, v)| match v {
        Some(v) => format!("{k}={v}"),
        None => k,
    });
    prop::collection::vec(pair, 0..250).prop_map(|pairs| pairs.join("&"))
}

proptest! {
    #![proptest_config(Config { cases: 512, ..Config::default() })]

    #[test]
    fn arbitrary_strings_never_panic(input in any::<String>()) {
        let map = qs::parse(&input).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let json = qs::map_to_json(&map);
        prop_assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
    }

    #[test]
    fn structured_strings_never_panic(input in structured()) {
        prop_assert!(qs::parse(&input).is_ok());
    }

    #[test]
    fn printable_strings_never_panic(input in "[ -~]{0,400}") {
        prop_assert!(qs::parse(&input).is_ok());
    }

    #[test]
    fn bracket_heavy_strings_never_panic(input in bracket_heavy()) {
        let map = qs::parse(&input).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let json = qs::map_to_json(&map);
        prop_assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
    }
}

/// Large and adversarial inputs: each must finish quickly (linear-ish time) and without
/// overflowing the stack.
#[test]
fn large_inputs_finish() {
    let unlimited = qs::QsOptions {
        parameter_limit: usize::MAX,
        max_input_len: usize::MAX,
        ..qs::QsOptions::default()
    };
    let mut deepening = String::new();
    for i in 0..5000 {
        // Each pair of pieces pushes the existing subtree one level deeper in qs.
        deepening.push_str(&format!("x[a][q{i}]=1&x[a]{i}=2&"));
    }
    let inputs: Vec<(&str, String)> = vec![
        ("open brackets", "[".repeat(60_000)),
        ("close brackets", format!("a{}=1", "]".repeat(60_000))),
        ("nested groups", format!("a{}=1", "[b".repeat(30_000))),
        ("empty groups", format!("a{}=1", "[]".repeat(30_000))),
        ("deep key", format!("a{}=1", "[x]".repeat(20_000))),
        ("percent signs", "%".repeat(60_000)),
        ("ampersands", "&".repeat(60_000)),
        ("repeated key", "a=1&".repeat(15_000)),
        ("repeated array key", "a[]=1&".repeat(10_000)),
        (
            "distinct array paths",
            (0..8000).map(|i| format!("a[]x{i}=1&")).collect(),
        ),
        (
            "indexes",
            (0..8000).map(|i| format!("a[{}]=1&", i % 200)).collect(),
        ),
        (
            "huge indexes",
            "a[100000000000000000000]=1&a=2&".repeat(2000),
        ),
        ("deepening", deepening),
    ];
    for (name, input) in &inputs {
        let started = Instant::now();
        let result = qs::parse_with(input, &unlimited);
        let elapsed = started.elapsed();
        assert!(result.is_ok(), "{name}: {result:?}");
        if let Ok(map) = result {
            // Serialising and dropping deep results must be safe too.
            let json = qs::map_to_json(&map);
            assert!(!json.is_empty());
        }
        assert!(elapsed < Duration::from_secs(20), "{name} took {elapsed:?}");
    }
    // The default limit refuses inputs over 64 KiB instead.
    let too_long = "a".repeat(64 * 1024 + 1);
    assert!(matches!(
        qs::parse(&too_long),
        Err(qs::QsError::InputTooLong { .. })
    ));
}

#[test]
fn parameter_count_is_reported() -> Result<(), qs::QsError> {
    let input = "a=1&".repeat(1200);
    let parsed = qs::parse_detailed(&input, &qs::QsOptions::default())?;
    assert_eq!(parsed.parameter_count, 1201);
    assert_eq!(parsed.parameters_parsed, 1000);
    assert!(parsed.truncated());
    let parsed = qs::parse_detailed("a=1&b=2", &qs::QsOptions::default())?;
    assert_eq!(parsed.parameter_count, 2);
    assert!(!parsed.truncated());
    Ok(())
}

/// A running `node tests/qs/serve.js`.
struct LiveQs {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl LiveQs {
    fn start(dir: &Path) -> Option<LiveQs> {
        if !dir.join("node_modules/qs/package.json").is_file() {
            return None;
        }
        let mut child = Command::new("node")
            .arg("serve.js")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .ok()?;
        let stdin = child.stdin.take()?;
        let stdout = BufReader::new(child.stdout.take()?);
        Some(LiveQs {
            child,
            stdin,
            stdout,
        })
    }

    fn parse(&mut self, input: &str) -> Result<String, String> {
        // One JSON string per line; escape the separators JSON leaves raw, to be safe.
        let line = serde_json::to_string(input)
            .map_err(|e| e.to_string())?
            .replace('\u{2028}', "\\u2028")
            .replace('\u{2029}', "\\u2029");
        writeln!(self.stdin, "{line}").map_err(|e| e.to_string())?;
        self.stdin.flush().map_err(|e| e.to_string())?;
        let mut answer = String::new();
        self.stdout
            .read_line(&mut answer)
            .map_err(|e| e.to_string())?;
        if answer.is_empty() {
            return Err("node closed its output".to_owned());
        }
        Ok(answer.trim_end_matches('\n').to_owned())
    }
}

impl Drop for LiveQs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn live_differential() {
    if std::env::var("STRATA_QS_LIVE").ok().as_deref() != Some("1") {
        println!("live qs differential skipped (set STRATA_QS_LIVE=1 to run it)");
        return;
    }
    let Some(live) = LiveQs::start(&manifest_dir().join("tests/qs")) else {
        println!("live qs differential skipped: node or tests/qs/node_modules/qs is missing");
        return;
    };
    let cases = std::env::var("STRATA_QS_LIVE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let live = RefCell::new(live);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = prop_oneof![
        3 => bracket_heavy(),
        3 => structured(),
        1 => "[ -~]{0,200}",
        1 => any::<String>(),
    ];
    let result = runner.run(&strategy, |input| {
        let expected = live
            .borrow_mut()
            .parse(&input)
            .map_err(TestCaseError::fail)?;
        prop_assert_eq!(ours(&input), expected, "input: {:?}", input);
        Ok(())
    });
    assert!(result.is_ok(), "live differential failed: {result:?}");
    println!("live qs differential: {cases} generated cases agree");
}
