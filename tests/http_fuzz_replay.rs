//! The HTTP fuzz target's property on stable, in CI: every input of the committed corpus
//! (`fuzz/corpus/http_request/`: every golden request, requests with credentials, CORS,
//! conditional and v4 headers, other methods, and any input a fuzzer once crashed on),
//! and then a short deterministic fuzz run of 20,000 mutations of them (bytes flipped,
//! inserted, removed, spliced), goes through the real router without a panic or a 500
//! (`fuzz/src/http_check.rs`). The long runs are `cargo fuzz run http_request` (fuzz/).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

#[allow(dead_code)]
#[path = "../fuzz/src/http_check.rs"]
mod http_check;

/// A small deterministic generator (xorshift64*), so a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes that matter to the query language and HTTP.
const INTERESTING: &[u8] = b"[]$=&%?/:\n\"<>`*_.,;- 0123456789abcdefxyzAZ\\\r\t\x00\xff";

fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(5) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] = INTERESTING[rng.below(INTERESTING.len())];
            }
            1 => out.insert(at, INTERESTING[rng.below(INTERESTING.len())]),
            2 if at < out.len() => {
                let end = (at + 1 + rng.below(8)).min(out.len());
                out.drain(at..end);
            }
            3 => {
                let from = rng.below(other.len() + 1);
                let to = (from + rng.below(24)).min(other.len());
                out.splice(at..at, other[from..to].iter().copied());
            }
            _ => {
                let i = rng.below(out.len() + 1);
                out.truncate(i.max(1));
            }
        }
    }
    out
}

fn run(data: &[u8], what: &str) {
    if let Err(e) = std::panic::catch_unwind(|| http_check::check_request(data)) {
        let message = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!("{what} ({:?}): {message}", String::from_utf8_lossy(data));
    }
}

#[test]
fn the_corpus_and_a_short_fuzz_run_get_no_panic_and_no_500() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/http_request");
    let mut corpus: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (p.display().to_string(), std::fs::read(&p).unwrap())
        })
        .collect();
    corpus.sort();
    assert!(
        corpus.len() >= 250,
        "the corpus has {} inputs",
        corpus.len()
    );
    for (name, data) in &corpus {
        run(data, name);
    }
    let mut rng = Rng(0x5eed_cafe_f00d_d00d);
    for i in 0..20_000 {
        let a = &corpus[rng.below(corpus.len())].1;
        let b = &corpus[rng.below(corpus.len())].1;
        run(&mutate(&mut rng, a, b), &format!("mutation {i}"));
    }
}
