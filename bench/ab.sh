#!/usr/bin/env bash
# Two builds of strata, one run: the lab's three requests (bench/lib.sh) served by each
# build in turn, round after round, on the blog fixture (a copy of Strapi's SQLite file,
# and a restore of Strapi's pg_dump), with wrk -t1 -c16 on each request and wrk -t1 -c1
# on the wide populate. Compare figures from the same round only.
#
#   bench/ab.sh BEFORE_BINARY AFTER_BINARY
#   ROUNDS=2 DURATION=6s BACKENDS="sqlite postgres mariadb" bench/ab.sh …   # the defaults
#
# Build the "before" side from another commit with, for example:
#   git worktree add /tmp/before <commit>
#   (cd /tmp/before && CARGO_TARGET_DIR="$PWD/target" cargo build --release --bin strata)
#
# Needs wrk; psql and PostgreSQL on 127.0.0.1:5432 (user postgres) when BACKENDS has
# postgres; the mysql client and MariaDB on 127.0.0.1:3306 (root) when it has mariadb.
# The scratch databases are dropped at the end.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: bench/ab.sh BEFORE_BINARY AFTER_BINARY" >&2; exit 2; }
BEFORE=$(realpath "$1")
AFTER=$(realpath "$2")
ROUNDS="${ROUNDS:-2}"
DURATION="${DURATION:-6s}"
BACKENDS="${BACKENDS:-sqlite postgres mariadb}"
PORT="${PORT:-1397}"
need_tools wrk
NAME="strata_ab_$$"
DIR=$(mktemp -d)
PID=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
  case " $BACKENDS " in *" postgres "*)
    psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $NAME" >/dev/null 2>&1 || true ;;
  esac
  case " $BACKENDS " in *" mariadb "*)
    mysql -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $NAME" >/dev/null 2>&1 || true ;;
  esac
  rm -rf "$DIR"
}
trap cleanup EXIT
cp tests/fixtures/blog/strapi.db "$DIR/strapi.db"
case " $BACKENDS " in *" postgres "*) restore_blog_pg "$NAME" ;; esac
case " $BACKENDS " in *" mariadb "*) restore_blog_mysql "$NAME" ;; esac

lab_requests
echo "# ab: before=$BEFORE after=$AFTER, wrk -t1 -d$DURATION, $(nproc) cores (req/s)"
echo
echo "| round | build | backend | plain c16 | filter c16 | wide c16 | wide c1 |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
  for side in before after; do
    case $side in before) BIN=$BEFORE ;; after) BIN=$AFTER ;; esac
    for backend in $BACKENDS; do
      case $backend in
        sqlite) URL="sqlite://$DIR/strapi.db?mode=ro" ;;
        postgres) URL="postgres://postgres@127.0.0.1:5432/$NAME" ;;
        mariadb) URL="mysql://root@127.0.0.1:3306/$NAME" ;;
        *) echo "ab.sh: unknown backend $backend" >&2; exit 2 ;;
      esac
      STRATA_LOG=warn "$BIN" serve --schemas tests/fixtures/blog/schemas \
        --database "$URL" --port "$PORT" >"$DIR/serve.log" 2>&1 &
      PID=$!
      wait_healthy "$PORT"
      row="| $round | $side | $backend"
      for r in plain filter wide; do
        read -r rps _ < <(wrk -t1 -c16 -d"$DURATION" --latency "http://127.0.0.1:$PORT${REQ[$r]}" | wrk_figures)
        row="$row | $rps"
      done
      read -r rps _ < <(wrk -t1 -c1 -d"$DURATION" --latency "http://127.0.0.1:$PORT${REQ[wide]}" | wrk_figures)
      echo "$row | $rps |"
      kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
    done
  done
done
