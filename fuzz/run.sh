#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer's coverage instrumentation on the machine's stable
# toolchain (the flags cargo-fuzz passes; `--target` keeps them off build scripts), then runs
# one target for RUNS executions (default 10 million) on a scratch copy of its corpus.
#
#   fuzz/run.sh parse_query            # or roundtrip, http_request
#   RUNS=100000 fuzz/run.sh http_request
#
# Prints libFuzzer's closing lines (executions, time, corpus). A crash leaves its input in
# the working folder (crash-*) and the script exits non-zero; add the input to
# fuzz/corpus/<target>/ once fixed, so the stable replays keep it.
set -euo pipefail
cd "$(dirname "$0")"
TARGET="${1:?usage: fuzz/run.sh parse_query|roundtrip|http_request}"
RUNS="${RUNS:-10000000}"
TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks" \
  cargo build --release --bin "$TARGET" --target "$TRIPLE"
case "$TARGET" in
  http_request) CORPUS=corpus/http_request ;;
  *) CORPUS=corpus/parse_query ;;
esac
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp -r "$CORPUS"/. "$WORK"/
DICT=()
[ "$TARGET" != http_request ] && DICT=(-dict=parse_query.dict)
"$CARGO_TARGET_DIR/$TRIPLE/release/$TARGET" "$WORK" "${DICT[@]}" -runs="$RUNS" \
  -max_len=4096 -timeout=10 -print_final_stats=1 2>&1 | tail -25
