#!/usr/bin/env bash
# Checks strata's OpenAPI document with real tools: openapi-spec-validator on the file, then
# schemathesis fuzzing the running server from the document it serves (no 5xx, every
# response conforms to the document: status codes, content types, bodies).
#
#   tools/openapi/check.sh DOCUMENT.json http://127.0.0.1:PORT [MAX_EXAMPLES] [WRITE_EXAMPLES]
#
# The server may be writable (tests/openapi.rs serves a scratch copy of the blog database
# with every grant): the writes (POST, PUT, DELETE) are fuzzed too, with fewer examples,
# as each one is a transaction.
#
# The tools are installed (once, pinned in requirements.txt) into target/openapi-venv.
# Bounded: schemathesis gets MAX_EXAMPLES (default 25) per read operation and
# WRITE_EXAMPLES (default 10) per write operation in its fuzzing phase, its coverage and
# stateful phases as the document defines them, and 900 s in all: a guard against a hang,
# not a budget (the coverage phase alone is about 18,000 requests; a run took up to 305 s
# on a slow machine, and `--workers 2` broke schemathesis 4.32: BENCHMARKS §0zs).
set -euo pipefail
cd "$(dirname "$0")/../.."
DOC="$1"
BASE="$2"
MAX="${3:-25}"
WRITES="${4:-10}"
VENV="${STRATA_OPENAPI_VENV:-target/openapi-venv}"
REQ=tools/openapi/requirements.txt
if [ ! -f "$VENV/.installed" ] || ! cmp -s "$REQ" "$VENV/.installed"; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ"
  cp "$REQ" "$VENV/.installed"
fi
"$VENV/bin/openapi-spec-validator" "$DOC"
# schemathesis keeps a cache of found crashes in its working directory: keep it in target/.
VENV_ABS=$(cd "$VENV" && pwd)
cd "$VENV_ABS"
# Per-method example counts can only be set in a configuration file.
cat > schemathesis.toml <<EOF
[[operations]]
include-method = ["POST", "PUT", "DELETE"]
generation.max-examples = $WRITES
EOF
timeout 900 "$VENV_ABS/bin/schemathesis" --config-file schemathesis.toml run "$BASE/openapi.json" \
  --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
  --max-examples "$MAX" --seed 1 --no-color
