//! The generated write sequences are what their generator prints: each sequence of
//! `writes/sequences.txt` whose `about:` line names a `tools/gen_sequences.py` command is
//! printed again by that command, byte for byte. So a change to the generator that would
//! print other steps for a recorded seed fails here, not silently at the next recording.

mod common;

use std::process::Command;

/// The sequences of `sequences.txt` (from `=== name` to the next), with their names.
fn sequences(text: &str) -> Vec<(&str, &str)> {
    let starts: Vec<usize> = text
        .match_indices("\n=== ")
        .map(|(i, _)| i + 1)
        .chain(std::iter::once(text.len()))
        .collect();
    starts
        .windows(2)
        .map(|w| {
            let block = &text[w[0]..w[1]];
            let name = block["=== ".len()..].lines().next().unwrap_or("").trim();
            (name, block)
        })
        .collect()
}

#[test]
fn generated_sequences_are_their_generators_output() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text =
        std::fs::read_to_string(common::blog().join("writes/sequences.txt")).expect("sequences");
    let prefix = "about: generated (tools/gen_sequences.py ";
    let mut checked = 0;
    for (name, block) in sequences(&text) {
        let Some(line) = block.lines().find(|l| l.starts_with(prefix)) else {
            continue;
        };
        let args = line[prefix.len()..].trim_end_matches(").");
        let out = match Command::new("python3")
            .arg(root.join("tools/gen_sequences.py"))
            .args(args.split_whitespace())
            .args(["--name", name])
            .output()
        {
            Ok(out) => common::succeeded(out),
            Err(e) => return common::unavailable(&format!("python3 ({e})")),
        };
        let printed = String::from_utf8(out.stdout).expect("utf-8");
        // The sequence's own lines: comments and blank lines (the next section's
        // heading) are not part of it.
        let steps = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect()
        };
        let (printed, recorded) = (steps(&printed), steps(block));
        let differs = printed.iter().zip(&recorded).find(|(p, b)| p != b);
        assert!(
            differs.is_none() && printed.len() == recorded.len(),
            "{name}: `gen_sequences.py {args}` prints other steps than recorded; first \
             difference (printed, recorded): {differs:?}"
        );
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} generated sequences found");
}
