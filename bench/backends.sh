#!/usr/bin/env bash
# The three requests of the oracle's bench.sh (plain page, $containsi + two-hop relation
# filter, wide populate with a dynamic zone `on`) on each backend, in one run: the blog
# fixture on embedded SQLite (a copy of Strapi's file), on PostgreSQL (a restore of
# Strapi's pg_dump into a fresh ICU en-US database) and on MariaDB (a restore of Strapi's
# mysqldump into a fresh utf8mb4_unicode_ci database), each served by the release build
# and driven with wrk -t1 -c16.
#
#   bench/backends.sh                      # DURATION=8s by default
#
# Needs wrk, psql and the mysql client, and the local servers (127.0.0.1:5432 as postgres,
# 127.0.0.1:3306 as root). The scratch databases are dropped at the end.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
DURATION="${DURATION:-8s}"
PORT="${PORT:-1396}"
need_tools wrk psql mysql
cargo build --release --bin strata >&2
NAME="strata_bench_$$"
DIR=$(mktemp -d)
PID=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $NAME" >/dev/null 2>&1 || true
  mysql -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $NAME" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
cp tests/fixtures/blog/strapi.db "$DIR/strapi.db"
restore_blog_pg "$NAME"
restore_blog_mysql "$NAME"

lab_requests
echo "# backends: the blog fixture, wrk -t1 -c16 -d$DURATION, $(nproc) cores, pool of $(nproc)"
echo
echo "| backend | request | status | req/s | p50 | p99 |"
echo "|---|---|---|---|---|---|"
for backend in sqlite postgres mariadb; do
  case $backend in
    sqlite) URL="sqlite://$DIR/strapi.db?mode=ro" ;;
    postgres) URL="postgres://postgres@127.0.0.1:5432/$NAME" ;;
    mariadb) URL="mysql://root@127.0.0.1:3306/$NAME" ;;
  esac
  STRATA_LOG=warn ./target/release/strata serve --schemas tests/fixtures/blog/schemas \
    --database "$URL" --port "$PORT" >"$DIR/serve-$backend.log" 2>&1 &
  PID=$!
  wait_healthy "$PORT"
  for r in plain filter wide; do
    url="http://127.0.0.1:$PORT${REQ[$r]}"
    code=$(curl -s -o /dev/null -w '%{http_code}' "$url")
    read -r rps p50 p99 _ _ < <(wrk -t1 -c16 -d"$DURATION" --latency "$url" 2>&1 | wrk_figures)
    echo "| $backend | $r | $code | $rps | $p50 | $p99 |"
  done
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
done
