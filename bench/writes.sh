#!/usr/bin/env bash
# Writes, strata against Strapi 5.54 (the oracle) on the same database content, in one run:
#
#   create   POST /api/articles {"data":{"title":"bench","views":1}}   (published: a draft
#            and a published row)
#   update   PUT /api/articles/article00000000000000002 {"data":{"views":<n>}}   (n counts up;
#            republishes each time)
#   tags     PUT /api/articles/article00000000000000002, {"data":{"tags":[tag 1, tag 2]}} and
#            {"data":{"tags":[tag 3]}} in turn
#   delete   DELETE /api/articles/<documentId>, each request a different document: those the
#            create run made, read from the database, walked by the wrk script
#
# each with wrk -t1 at 1 and at 16 connections (--latency, --timeout 10s; the wrk scripts
# count the statuses they get), one server at a time, Strapi then
# strata. Every server gets a fresh copy of the blog fixture for each of create, update and
# tags (delete runs on the create run's database, since it needs its documents), plus a
# full-access API token inserted as tools/record_writes.py inserts it (its seed_sql; the
# Bearer key is its token_key(200)). Before measuring, each request is sent once to each
# server: the status must be 201 / 200 / 200 / 204, and the two answers are compared (their
# shape, and their values but for ids, documentIds and timestamps). Then, for strata only,
# the p50 of a create, a create with a slug and a one-field update at BIG articles
# (import_bench's SQLite database, every article given a slug, wrk -c1): a uid is checked
# for uniqueness on every publish. BIG_BEFORE names another build of strata to measure
# there first, on the same database, for a before and after in one run.
#
#   bench/writes.sh                                   # all three backends, then 1M
#   BACKENDS=sqlite BIG=0 DURATION=3s bench/writes.sh # SQLite only, no large database
#
# Environment: BACKENDS (default "sqlite postgres mariadb"), DURATION (5s), CONNECTIONS
# ("1 16"), BIG (1000000; 0 skips it), ORACLE (/work/oracle: its node_modules is used, its
# files are not changed; Strapi's SQLite file is named by DATABASE_FILENAME relative to it),
# STRAPI_PORT (1357), PORT (1398, strata), STRAPI_LOG_LEVEL (warn: no per-request log line,
# as strata's STRATA_LOG=warn), NO_BUILD (set: use target/release as it is), LOGS (a folder
# to keep the servers' logs, wrk's outputs and the answers in), NICE (0: the niceness of both
# servers and wrk; -10 keeps other work on the machine from taking their cores; the database
# servers keep theirs), SERVERS ("strapi strata": drop one to measure the other alone; the
# table then shows "-" for it), SQLITE_JOURNAL (wal: each SQLite copy is put in WAL mode before
# either server opens it, as a database is once strata has opened it, so Strapi runs on the
# journal strata runs on, and better-sqlite3's WAL default, synchronous=NORMAL, is strata's
# default too; "delete" keeps the fixture's rollback journal, Strapi's own default, in which
# better-sqlite3 syncs every commit twice), STRATA_SQLITE_OPTIONS (appended to strata's SQLite
# URL, e.g. "synchronous=full"). Needs wrk, sqlite3, psql, mysql, node; PostgreSQL on 127.0.0.1:5432
# (postgres, trust) and MariaDB on 127.0.0.1:3306 (root). Everything it makes (database
# files, scratch databases, servers, the large database) is removed at the end.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
BACKENDS="${BACKENDS-sqlite postgres mariadb}"
DURATION="${DURATION:-5s}"
CONNECTIONS="${CONNECTIONS:-1 16}"
BIG="${BIG:-1000000}"
ORACLE="${ORACLE:-/work/oracle}"
STRAPI_PORT="${STRAPI_PORT:-1357}"
PORT="${PORT:-1398}"
STRAPI_LOG_LEVEL="${STRAPI_LOG_LEVEL:-warn}"
NICE="${NICE:-0}"
SERVERS="${SERVERS:-strapi strata}"
SQLITE_JOURNAL="${SQLITE_JOURNAL:-wal}"
SECS="${DURATION%s}"
need_tools wrk sqlite3 psql mysql node curl python3
[[ " $SERVERS " != *" strapi "* ]] || [ -d "$ORACLE/node_modules/@strapi/strapi" ] || { echo "writes.sh: no Strapi in $ORACLE" >&2; exit 1; }

if [ -n "${NO_BUILD:-}" ]; then
  :
elif [ "$BIG" != 0 ]; then
  cargo build --release --bin strata --example import_bench >&2
else
  cargo build --release --bin strata >&2
fi

DIR=$(mktemp -d /tmp/strata-writes.XXXXXX)
TAG="strata_w$$"
SERVER_PID=
DATABASES=()
cleanup() {
  stop_server
  if [ -n "${LOGS:-}" ]; then mkdir -p "$LOGS" && cp "$DIR"/*.log "$DIR"/wrk-*.txt "$DIR"/answer-* "$LOGS"/ 2>/dev/null || true; fi
  for db in "${DATABASES[@]}"; do
    psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
    mysql -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  done
  rm -rf "$DIR"
}
trap cleanup EXIT
log() { echo "writes.sh: $*" >&2; }

# The token of tools/record_writes.py: its key, and the statements that store it per dialect.
AUTH="Bearer $(python3 -c 'import sys; sys.path.insert(0, "tools"); import record_writes as r; print(r.token_key(200))')"
export BENCH_AUTH="$AUTH"
token_sql() {
  python3 -c 'import sys; sys.path.insert(0, "tools"); import record_writes as r
print(";\n".join(r.seed_sql(sys.argv[1], [])) + ";")' "$1"
}
# strata reads the salt from the environment; the oracle's config/admin.js has the same default.
export API_TOKEN_SALT="$(python3 -c 'import sys; sys.path.insert(0, "tools"); import auth_fixture as a; print(a.SALT)')"

# ------------------------------------------------------------------------ the wrk scripts
cat >"$DIR/create.lua" <<'LUA'
wrk.method = "POST"
wrk.path = "/api/articles"
wrk.body = '{"data":{"title":"bench","views":1}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
LUA
cat >"$DIR/update.lua" <<'LUA'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
local n = 0
request = function()
  n = n + 1
  return wrk.format("PUT", "/api/articles/article00000000000000002", nil, '{"data":{"views":' .. n .. '}}')
end
LUA
cat >"$DIR/tags.lua" <<'LUA'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
local bodies = {
  '{"data":{"tags":["tag000000000000000000001","tag000000000000000000002"]}}',
  '{"data":{"tags":["tag000000000000000000003"]}}',
}
local n = 0
request = function()
  n = n + 1
  return wrk.format("PUT", "/api/articles/article00000000000000002", nil, bodies[n % 2 + 1])
end
LUA
cat >"$DIR/delete.lua" <<'LUA'
-- args: a file of documentIds, one a line; each request deletes the next one (-t1: one list).
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
local ids, i = {}, 0
init = function(args)
  for line in io.lines(args[1]) do ids[#ids + 1] = line end
end
request = function()
  i = i + 1
  return wrk.format("DELETE", "/api/articles/" .. (ids[i] or "exhausted0000000000000000"), nil, nil)
end
LUA
# Every script counts the statuses it gets; done() prints them ("status 201: 4711").
cat >"$DIR/tally.lua" <<'LUA'
statuses = {}
response = function(status, headers, body) statuses[status] = (statuses[status] or 0) + 1 end
local threads = {}
setup = function(thread) threads[#threads + 1] = thread end
done = function(summary, latency, requests)
  for _, t in ipairs(threads) do
    for code, n in pairs(t:get("statuses")) do io.write(string.format("status %d: %d\n", code, n)) end
  end
end
LUA
for kind in create update tags delete; do cat "$DIR/tally.lua" >>"$DIR/$kind.lua"; done
BODY_create='{"data":{"title":"bench","views":1}}'
BODY_update='{"data":{"views":0}}'
BODY_tags='{"data":{"tags":["tag000000000000000000001","tag000000000000000000002"]}}'

# ------------------------------------------------------------------------ databases
# fresh_db BACKEND NAME: a new copy of the blog fixture with the token; sets DB_URL (strata),
# STRAPI_DB_ENV (the oracle's DATABASE_* variables) and DB_NAME (for sql_rows).
fresh_db() {
  local backend=$1 name="${TAG}_$2"
  DB_BACKEND=$backend DB_NAME=$name
  case $backend in
    sqlite)
      DB_NAME="$DIR/$2.db"
      cp tests/fixtures/blog/strapi.db "$DB_NAME"
      sqlite3 "$DB_NAME" "pragma journal_mode = $SQLITE_JOURNAL" >/dev/null
      token_sql sqlite | sqlite3 "$DB_NAME"
      DB_URL="sqlite://$DB_NAME${STRATA_SQLITE_OPTIONS:+?$STRATA_SQLITE_OPTIONS}"
      STRAPI_DB_ENV=(DATABASE_CLIENT=sqlite "DATABASE_FILENAME=$(realpath --relative-to="$ORACLE" "$DB_NAME")")
      ;;
    postgres)
      DATABASES+=("$name")
      restore_blog_pg "$name"
      token_sql postgres | psql -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d "$name" >/dev/null
      DB_URL="postgres://postgres@127.0.0.1:5432/$name"
      STRAPI_DB_ENV=(DATABASE_CLIENT=postgres DATABASE_PORT=5432 "DATABASE_NAME=$name")
      ;;
    mariadb)
      DATABASES+=("$name")
      restore_blog_mysql "$name"
      token_sql mysql | mysql -h 127.0.0.1 -uroot "$name"
      DB_URL="mysql://root@127.0.0.1:3306/$name"
      STRAPI_DB_ENV=(DATABASE_CLIENT=mysql DATABASE_PORT=3306 "DATABASE_NAME=$name")
      ;;
  esac
}

# sql_rows SQL: the rows of a query on the current database, one a line.
sql_rows() {
  case $DB_BACKEND in
    sqlite) sqlite3 -cmd '.timeout 10000' "$DB_NAME" "$1" ;;
    postgres) psql -q -h 127.0.0.1 -U postgres -d "$DB_NAME" -tA -c "$1" ;;
    mariadb) mysql -h 127.0.0.1 -uroot -N -B "$DB_NAME" -e "$1" ;;
  esac
}

# ------------------------------------------------------------------------ servers
stop_server() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
  fi
}

# start_server strapi|strata LOGNAME [SCHEMAS]: serves the current database; sets BASE.
start_server() {
  local who=$1 logf="$DIR/$2.log" schemas=${3:-tests/fixtures/blog/schemas}
  if [ "$who" = strapi ]; then
    env -C "$ORACLE" -u DATABASE_CLIENT -u DATABASE_NAME -u DATABASE_PORT -u DATABASE_FILENAME \
      -u DATABASE_HOST HOST=127.0.0.1 PORT="$STRAPI_PORT" NODE_ENV=production \
      STRAPI_TELEMETRY_DISABLED=true BROWSER=none LOG_LEVEL="$STRAPI_LOG_LEVEL" "${STRAPI_DB_ENV[@]}" \
      nice -n "$NICE" node node_modules/@strapi/strapi/bin/strapi.js start >"$logf" 2>&1 &
    SERVER_PID=$!
    BASE="http://127.0.0.1:$STRAPI_PORT"
    for _ in $(seq 1 1800); do
      kill -0 "$SERVER_PID" 2>/dev/null || { log "Strapi exited:"; tail -20 "$logf" >&2; return 1; }
      [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/api/articles?pagination%5BpageSize%5D=1")" = 200 ] && return 0
      sleep 0.1
    done
    log "Strapi did not answer within 180 s"; return 1
  else
    STRATA_LOG=warn nice -n "$NICE" "${STRATA_BIN:-./target/release/strata}" serve --schemas "$schemas" --database "$DB_URL" \
      --port "$PORT" >"$logf" 2>&1 &
    SERVER_PID=$!
    BASE="http://127.0.0.1:$PORT"
    wait_healthy "$PORT" || { tail -20 "$logf" >&2; return 1; }
  fi
}

# once METHOD PATH BODY OUT: sends one request; prints the status, the answer goes to OUT.
once() {
  local args=(-s -o "$4" -w '%{http_code}' -X "$1" -H "Authorization: $AUTH")
  [ -n "$3" ] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
  curl "${args[@]}" "$BASE$2"
}

# measure KEY SCRIPT [ARG]: one wrk run per connection count; figures go to R[KEY.c].
declare -A R EXHAUSTED BAD
# problems WRK_OUTPUT: the statuses that are not 2xx and the socket errors, e.g. "500×3, 2 timeouts".
problems() {
  awk '/^status [0-9]+:/ { code = $2 + 0; if (code < 200 || code >= 300) out = out sep code "×" $3; sep = ", " }
       /Socket errors/ { gsub(",", ""); if ($10 > 0) { out = out sep $10 " timeouts"; sep = ", " }
                         if ($4 + $6 + $8 > 0) { out = out sep ($4 + $6 + $8) " socket errors"; sep = ", " } }
       END { print (out == "" ? "0" : out) }' "$1"
}
measure() {
  local key=$1 script=$2 arg=${3:-} c out
  for c in $CONNECTIONS; do
    out="$DIR/wrk-$key.c$c.txt"
    if [ -n "$arg" ]; then
      [ "$c" != "${CONNECTIONS%% *}" ] && "$arg" "$c"   # the delete list, read again
      nice -n "$NICE" wrk -t1 -c"$c" -d"$DURATION" --timeout 10s --latency -s "$script" "$BASE/" -- "$DIR/ids.txt" >"$out" 2>&1
    else
      nice -n "$NICE" wrk -t1 -c"$c" -d"$DURATION" --timeout 10s --latency -s "$script" "$BASE/" >"$out" 2>&1
    fi
    R[$key.c$c]=$(wrk_figures <"$out")
    BAD[$key.c$c]=$(problems "$out")
    # Strapi and strata answer 204 to a documentId that is gone: an exhausted list shows here.
    if [ -n "$arg" ] && [ "$(sql_rows "select count(*) from articles where title = 'bench'")" = 0 ]; then
      log "$key c$c: the list ran out"; EXHAUSTED[$key.c$c]=1
    fi
    log "$key c$c: ${R[$key.c$c]}"
  done
}

# The documents the create run left (title "bench"), into ids.txt; tops them up (an unmeasured
# create run at 16 connections) when fewer than three times what the fastest run so far
# (create or delete) would delete in DURATION.
delete_list() {
  local rate need have rps k
  rate=1
  for k in "${!R[@]}"; do
    case $k in "$CUR.create."*|"$CUR.delete."*) rps=${R[$k]%% *}; rate=$(python3 -c "print(max($rate, $rps))") ;; esac
  done
  need=$(python3 -c "print(int(3 * $rate * $SECS) + 20)")
  have=$(sql_rows "select count(distinct document_id) from articles where title = 'bench'")
  if [ "$have" -lt "$need" ]; then
    local extra; extra=$(python3 -c "import math; print(math.ceil(($need - $have) / $rate * 1.5) + 1)")
    log "$CUR: $have documents to delete, $need wanted: creating more for ${extra}s"
    wrk -t1 -c16 -d"${extra}s" -s "$DIR/create.lua" "$BASE/" >/dev/null 2>&1
  fi
  sql_rows "select distinct document_id from articles where title = 'bench'" >"$DIR/ids.txt"
  log "$CUR: $(wc -l <"$DIR/ids.txt") documents to delete"
}

STATUS_create=201 STATUS_update=200 STATUS_tags=200 STATUS_delete=204
declare -A OK
# run_server BACKEND WHO: the four kinds on one server.
run_server() {
  local backend=$1 who=$2 kind code
  CUR="$backend.$who"
  for kind in create update tags; do
    fresh_db "$backend" "${who}_$kind"
    start_server "$who" "$backend-$who-$kind"
    local body_var="BODY_$kind" want_var="STATUS_$kind" path=/api/articles method=POST
    [ "$kind" != create ] && { path=/api/articles/article00000000000000002; method=PUT; }
    code=$(once "$method" "$path" "${!body_var}" "$DIR/answer-$CUR.$kind.json")
    OK[$CUR.$kind]=$code
    if [ "$code" = "${!want_var}" ]; then
      measure "$CUR.$kind" "$DIR/$kind.lua"
    else
      log "$CUR $kind: status $code, not ${!want_var}:"; head -c 600 "$DIR/answer-$CUR.$kind.json" >&2; echo >&2
    fi
    if [ "$kind" = create ] && [ "$code" = 201 ]; then
      delete_list
      local first; first=$(head -1 "$DIR/ids.txt"); sed -i 1d "$DIR/ids.txt"
      code=$(once DELETE "/api/articles/$first" "" "$DIR/answer-$CUR.delete.json")
      OK[$CUR.delete]=$code
      if [ "$code" = 204 ]; then
        measure "$CUR.delete" "$DIR/delete.lua" delete_list
      else
        log "$CUR delete: status $code, not 204"
      fi
    fi
    stop_server
  done
}

# compare KIND BACKEND: the two answers' shapes and values (ids, documentIds, timestamps aside).
compare() {
  python3 - "$DIR/answer-$2.strapi.$1.json" "$DIR/answer-$2.strata.$1.json" <<'PY'
import json, os, sys
VOLATILE = {"id", "documentId", "createdAt", "updatedAt", "publishedAt"}
def load(p):
    if not os.path.exists(p) or os.path.getsize(p) == 0:
        return None
    try:
        return json.load(open(p))
    except ValueError:
        return "<not JSON>"
def shape(v):
    if isinstance(v, dict):
        return {k: shape(x) for k, x in sorted(v.items())}
    if isinstance(v, list):
        return [shape(x) for x in v]
    return type(v).__name__
def mask(v):
    if isinstance(v, dict):
        return {k: ("*" if k in VOLATILE else mask(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [mask(x) for x in v]
    return v
a, b = load(sys.argv[1]), load(sys.argv[2])
if a is None and b is None:
    print("both empty")
elif shape(a) != shape(b):
    print("SHAPES DIFFER")
elif mask(a) != mask(b):
    print("same shape, values differ")
else:
    print("same")
PY
}

fmt_ms() {  # wrk's 1.23ms / 456.00us / 1.20s -> milliseconds, 2 significant decimals
  python3 -c "
import sys
v = sys.argv[1]
for suf, f in (('us', 1e-3), ('ms', 1.0), ('s', 1e3), ('m', 6e4)):
    if v.endswith(suf):
        x = float(v[:-len(suf)]) * f
        print(f'{x:.2f}' if x < 10 else f'{x:.1f}' if x < 100 else f'{x:.0f}')
        break
else:
    print(v)" "$1"
}

# ------------------------------------------------------------------------ the run
echo "# writes: strata against Strapi 5.54 (the oracle), wrk -t1 -d$DURATION --timeout 10s --latency, $(nproc) cores, nice $NICE"
echo "# SQLite journal: $SQLITE_JOURNAL; load average before: $(cut -d' ' -f1-3 /proc/loadavg); strata $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- runtime src || echo '+changes')"
declare -A LOAD
for backend in $BACKENDS; do
  LOAD[$backend]=$(cut -d' ' -f1 /proc/loadavg)
  for who in $SERVERS; do
    log "$backend: $who"
    run_server "$backend" "$who"
  done
done

echo
echo "| backend | request | conns | Strapi req/s | p50 / p99 ms | strata req/s | p50 / p99 ms | ratio | not 2xx, timeouts (Strapi / strata) |"
echo "|---|---|---|---|---|---|---|---|---|"
for backend in $BACKENDS; do
  for kind in create update tags delete; do
    for c in $CONNECTIONS; do
      row="| $backend | $kind | $c"
      declare -A rps=() lat=() err=()
      for who in strapi strata; do
        f=${R[$backend.$who.$kind.c$c]:-}
        if [ -z "$f" ]; then
          rps[$who]="status ${OK[$backend.$who.$kind]:-?}"; lat[$who]=-; err[$who]=-
        else
          read -r r p50 p99 e n <<<"$f"
          rps[$who]=$(python3 -c "print(f'{float(\"$r\"):,.0f}')")
          lat[$who]="$(fmt_ms "$p50") / $(fmt_ms "$p99")"
          err[$who]=${BAD[$backend.$who.$kind.c$c]}
        fi
      done
      ratio=-
      if [ -n "${R[$backend.strapi.$kind.c$c]:-}" ] && [ -n "${R[$backend.strata.$kind.c$c]:-}" ]; then
        ratio=$(python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2])
print("-" if not a else f"{b / a:.0f}x" if b / a >= 10 else f"{b / a:.1f}x")' "${R[$backend.strapi.$kind.c$c]%% *}" "${R[$backend.strata.$kind.c$c]%% *}")
      fi
      [ -n "${EXHAUSTED[$backend.strapi.$kind.c$c]:-}${EXHAUSTED[$backend.strata.$kind.c$c]:-}" ] && ratio="$ratio (list ran out)"
      echo "$row | ${rps[strapi]} | ${lat[strapi]} | ${rps[strata]} | ${lat[strata]} | $ratio | ${err[strapi]} / ${err[strata]} |"
    done
  done
done
echo
for backend in $BACKENDS; do
  for kind in create update tags delete; do
    [ $kind = create ] && echo "- $backend: load average (1 min) before it ${LOAD[$backend]}"
    echo "- $backend $kind: status Strapi ${OK[$backend.strapi.$kind]:-?}, strata ${OK[$backend.strata.$kind]:-?}; answers: $(compare "$kind" "$backend")"
  done
done

# ------------------------------------------------------------------------ strata at BIG articles
if [ "$BIG" != 0 ]; then
  log "generating $BIG articles"
  T0=$(date +%s)
  ./target/release/examples/import_bench "$BIG" "$DIR/big.db" >&2
  log "import_bench took $(( $(date +%s) - T0 )) s"
  DB_BACKEND=sqlite DB_NAME="$DIR/big.db" DB_URL="sqlite://$DIR/big.db"
  token_sql sqlite | sqlite3 "$DB_NAME"
  # Every article gets a slug (a uid: each publish checks it against the other documents'
  # published rows of its locale), as a real site's articles have.
  T0=$(date +%s)
  sql_rows "update articles set slug = 'article-' || document_id where slug is null"
  log "slugs for every article took $(( $(date +%s) - T0 )) s"
  DOC=$(sql_rows "select document_id from articles where locale = 'en' and published_at is not null order by id desc limit 1")
  sed "s#/api/articles/article00000000000000002#/api/articles/$DOC#" "$DIR/update.lua" >"$DIR/update-big.lua"
  # create-slug: a create with a slug of its own ("bench-<build>-<n>"), checked on publish.
  slug_script() {
    { echo "local n = 0"
      echo "request = function() n = n + 1; return wrk.format(nil, nil, nil, '{\"data\":{\"title\":\"bench\",\"views\":1,\"slug\":\"bench-$1-' .. n .. '\"}}') end"
      cat "$DIR/create.lua"; } >"$DIR/create-slug-big.lua"
  }
  echo
  echo "strata at $BIG articles, each with a slug (wrk -t1 -c1 -d$DURATION --timeout 10s):"
  echo
  echo "| build | request | req/s | p50 ms | p99 ms | not 2xx, timeouts |"
  echo "|---|---|---|---|---|---|"
  # BIG_BEFORE: another build to measure first, on the same database (its writes stay).
  for bin in ${BIG_BEFORE:-} ./target/release/strata; do
    T0=$(date +%s.%N)
    STRATA_BIN=$bin start_server strata big schemas
    log "$bin: up in $(python3 -c "import time; print(f'{time.time() - $T0:.1f}')") s"
    c1=$(once POST /api/articles "$BODY_create" "$DIR/big-create.json")
    u1=$(once PUT "/api/articles/$DOC" "$BODY_update" "$DIR/big-update.json")
    [ "$c1 $u1" = "201 200" ] || log "$bin: first answers $c1 / $u1"
    for kind in create create-slug update; do
      case $kind in
        create) script="$DIR/create.lua" ;;
        create-slug) slug_script "$(basename "$(dirname "$bin")")$RANDOM"; script="$DIR/create-slug-big.lua" ;;
        update) script="$DIR/update-big.lua" ;;
      esac
      nice -n "$NICE" wrk -t1 -c1 -d"$DURATION" --timeout 10s --latency -s "$script" "$BASE/" >"$DIR/wrk-big-$kind.txt" 2>&1
      read -r r p50 p99 _ _ < <(wrk_figures <"$DIR/wrk-big-$kind.txt")
      echo "| $bin | $kind | $(python3 -c "print(f'{float(\"$r\"):,.0f}')") | $(fmt_ms "$p50") | $(fmt_ms "$p99") | $(problems "$DIR/wrk-big-$kind.txt") |"
    done
    stop_server
  done
fi
echo
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
