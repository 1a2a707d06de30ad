#!/usr/bin/env bash
# The cost of authentication: the plain page of 25 (the blog fixture) served to the public
# role, to a read-only API token, to a custom token and to a users-permissions JWT, one
# after the other against the same release server, with wrk -t1 -c16.
#
#   bench/auth.sh                 # DURATION=8s by default
#
# Needs wrk and sqlite3's Python module. The credentials are the test fixture's
# (tests/fixtures/blog/auth), stored as Strapi stores them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
DURATION="${DURATION:-8s}"
PORT="${PORT:-1398}"
need_tools wrk
cargo build --release --bin strata >&2
DIR=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$DIR"' EXIT
cp tests/fixtures/blog/strapi.db "$DIR/strapi.db"
python3 - "$DIR/strapi.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript(open("tests/fixtures/blog/auth/credentials.sqlite.sql").read())
c.commit()
PY
API_TOKEN_SALT=lab-api-token-salt JWT_SECRET=lab-users-permissions-jwt-secret STRATA_LOG=warn \
  ./target/release/strata serve --schemas tests/fixtures/blog/schemas \
  --database "sqlite://$DIR/strapi.db?mode=ro" --port "$PORT" >"$DIR/serve.log" 2>&1 &
PID=$!
wait_healthy "$PORT"
cred() { python3 -c "import json,sys; print(json.load(open('tests/fixtures/blog/auth/credentials.json'))[sys.argv[1]])" "$1"; }
URL="http://127.0.0.1:$PORT/api/articles?pagination%5BpageSize%5D=25"
echo "# authentication cost: the plain page of 25 (blog fixture), SQLite, wrk -t1 -c16 -d$DURATION"
echo
echo "| caller | status | req/s | p50 | p99 |"
echo "|---|---|---|---|---|"
for who in public read-only custom jwt-alice public; do
  if [ "$who" = public ]; then H=(); else H=(-H "Authorization: $(cred "$who")"); fi
  status=$(curl -s -o /dev/null -w '%{http_code}' "${H[@]}" "$URL")
  read -r rps p50 p99 _ _ < <(wrk -t1 -c16 -d"$DURATION" --latency "${H[@]}" "$URL" 2>&1 | wrk_figures)
  echo "| $who | $status | $rps | $p50 | $p99 |"
done
