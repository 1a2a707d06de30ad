#!/usr/bin/env bash
# Two strata builds on bench/graphql.sh's plain and wide GraphQL queries, strata alone (no
# Strapi), alternating in rounds over one copy of tests/fixtures/blog/strapi.db, with the
# answer cache off so that every request runs the handler's validation and the reads:
#
#   bench/graphql_ab.sh BEFORE_BIN AFTER_BIN
#   ROUNDS=3 DURATION=5s bench/graphql_ab.sh /tmp/strata-before target/release/strata
#
# For each round, build and query: a warm-up, then `wrk -t1 -c16` and `-c1` for DURATION.
# Prints "round R build query cC req/s" lines, then whether both builds answered each
# query with the same bytes. Environment: ROUNDS (2), DURATION (5s), PORT (1397).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: $0 BEFORE_BIN AFTER_BIN" >&2; exit 2; }
BEFORE=$1
AFTER=$2
ROUNDS="${ROUNDS:-2}"
DURATION="${DURATION:-5s}"
PORT="${PORT:-1397}"
need_tools wrk curl python3

DIR=$(mktemp -d /tmp/strata-graphql-ab.XXXXXX)
PID=
cleanup() {
  [ -z "$PID" ] || { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
  rm -rf "$DIR"
}
trap cleanup EXIT

graphql_queries   # QUERY: the plain, filter and wide queries (bench/lib.sh)
graphql_bodies "$DIR" plain wide   # DIR/body-K.json and DIR/K.lua
cp tests/fixtures/blog/strapi.db "$DIR/blog.db"
printf '[api.graphql]\nenabled = true\n' >"$DIR/strata.toml"

for r in $(seq 1 "$ROUNDS"); do
  for build in before after; do
    bin=$BEFORE
    [ "$build" = after ] && bin=$AFTER
    STRATA_LOG=warn STRATA_ANSWER_CACHE_MB=0 "$bin" serve --schemas tests/fixtures/blog/schemas \
      --config "$DIR/strata.toml" --database "sqlite://$DIR/blog.db?mode=ro" --port "$PORT" \
      >"$DIR/$build.log" 2>&1 &
    PID=$!
    wait_healthy "$PORT"
    for k in plain wide; do
      curl -s -X POST -H 'Content-Type: application/json' --data @"$DIR/body-$k.json" \
        "http://127.0.0.1:$PORT/graphql" >"$DIR/answer-$build-$k.json"
      wrk -t1 -c16 -d2s -s "$DIR/$k.lua" "http://127.0.0.1:$PORT/graphql" >/dev/null
      for c in 16 1; do
        rps=$(wrk -t1 -c"$c" -d"$DURATION" -s "$DIR/$k.lua" "http://127.0.0.1:$PORT/graphql" |
          awk '/Requests\/sec/ {print $2}')
        echo "round $r $build $k c$c $rps"
      done
    done
    kill "$PID"
    wait "$PID" 2>/dev/null || true
    PID=
  done
done
for k in plain wide; do
  if cmp -s "$DIR/answer-before-$k.json" "$DIR/answer-after-$k.json"; then
    echo "$k: both builds answered the same bytes"
  else
    echo "$k: the answers differ"
  fi
done
