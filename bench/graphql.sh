#!/usr/bin/env bash
# GraphQL, strata against Strapi 5.54 (the oracle, @strapi/plugin-graphql) on the same
# SQLite database, in one run: the GraphQL form of the lab's three requests (bench/lib.sh,
# BENCHMARKS.md §1), each `POST /graphql` with a JSON body:
#
#   (a) plain   articles_connection(pagination: {pageSize: 25}): every scalar, and pageInfo
#   (b) filter  articles_connection(filters: {title: {containsi: "e"}, category: {parent:
#               {slug: {eq: "technology"}}}}): every scalar, and pageInfo
#   (c) wide    (a)'s page with author, category, tags, cover, seo (its media and social
#               links) and the dynamic zone (rich text; quote with its author; media with its
#               file; slider with its files), each with every scalar
#
# The `_connection` form with `pageInfo` is what answers what the REST request answers: the
# entries and `meta.pagination` (so the total is counted, as REST counts it). Before
# measuring, each server answers each GraphQL query and the REST request it stands for, and
# they must hold the same data: the same entries in the same order with the same fields and
# values, `pageInfo` equal to `meta.pagination` (REST's `id`s aside, which GraphQL has not
# but on components; a zone member's `__component` is its `__typename`; `Long` is a number
# where REST writes a text). The two servers' GraphQL answers must be equal too (a
# difference stops the run; ALLOW_DIFFERENCES=1 measures anyway). Then each request is
# measured with `wrk -t1 -c16 -d$DURATION --latency` (a Lua script posts the
# body), one server at a time: Strapi, then strata's release build with GraphQL on
# (`[api.graphql] enabled = true`), over one copy of tests/fixtures/blog/strapi.db (strata
# reads it with mode=ro). Prints req/s, p50 and strata/Strapi per request.
#
#   bench/graphql.sh
#   DURATION=3s bench/graphql.sh
#
# Environment: DURATION (8s), CONNECTIONS (16), ORACLE (/work/oracle: its node_modules is
# used and Strapi runs from it (its public/uploads is created if missing); the database is named by
# DATABASE_FILENAME relative to it), STRAPI_PORT (1359), PORT (1396, strata),
# STRAPI_LOG_LEVEL (warn: no line per request, as strata's STRATA_LOG=warn), NO_BUILD (set:
# use target/release as it is), LOGS (a folder to keep the logs, answers and wrk outputs in).
# Needs wrk (apt-get install -y wrk), node, curl, python3. Everything it makes is removed at
# the end.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
DURATION="${DURATION:-8s}"
CONNECTIONS="${CONNECTIONS:-16}"
ORACLE="${ORACLE:-/work/oracle}"
STRAPI_PORT="${STRAPI_PORT:-1359}"
PORT="${PORT:-1396}"
STRAPI_LOG_LEVEL="${STRAPI_LOG_LEVEL:-warn}"
need_tools wrk node curl python3
[ -d "$ORACLE/node_modules/@strapi/plugin-graphql" ] || { echo "graphql.sh: no Strapi with GraphQL in $ORACLE" >&2; exit 1; }
[ -n "${NO_BUILD:-}" ] || cargo build --release --bin strata >&2
mkdir -p "$ORACLE/public/uploads"   # as its start.sh: Strapi refuses to start without it

DIR=$(mktemp -d /tmp/strata-graphql.XXXXXX)
declare -A PID=()
# stop_server strapi|strata
stop_server() {
  if [ -n "${PID[$1]:-}" ]; then
    kill "${PID[$1]}" 2>/dev/null || true
    wait "${PID[$1]}" 2>/dev/null || true
    unset "PID[$1]"
  fi
}
cleanup() {
  stop_server strapi
  stop_server strata
  if [ -n "${LOGS:-}" ]; then mkdir -p "$LOGS" && cp "$DIR"/*.log "$DIR"/*.json "$DIR"/wrk-*.txt "$LOGS"/ 2>/dev/null || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT
log() { echo "graphql.sh: $*" >&2; }

# ------------------------------------------------------------------------ the queries
graphql_queries   # QUERY: the GraphQL form of each (bench/lib.sh)
KINDS="plain filter wide"
lab_requests   # REQ: the REST form of each

graphql_bodies "$DIR" $KINDS   # DIR/body-K.json and DIR/K.lua

# ------------------------------------------------------------------------ the database
cp tests/fixtures/blog/strapi.db "$DIR/blog.db"
printf '[api.graphql]\nenabled = true\n' >"$DIR/strata.toml"

# start_server strapi|strata: serves $DIR/blog.db; BASE[WHO] is its address.
declare -A BASE=([strapi]="http://127.0.0.1:$STRAPI_PORT" [strata]="http://127.0.0.1:$PORT")
start_server() {
  local logf="$DIR/$1.log"
  if [ "$1" = strapi ]; then
    env -C "$ORACLE" -u DATABASE_CLIENT -u DATABASE_NAME -u DATABASE_PORT -u DATABASE_HOST \
      HOST=127.0.0.1 PORT="$STRAPI_PORT" NODE_ENV=production STRAPI_TELEMETRY_DISABLED=true \
      BROWSER=none LOG_LEVEL="$STRAPI_LOG_LEVEL" DATABASE_CLIENT=sqlite \
      DATABASE_FILENAME="$(realpath --relative-to="$ORACLE" "$DIR/blog.db")" \
      node node_modules/@strapi/strapi/bin/strapi.js start >"$logf" 2>&1 &
    PID[strapi]=$!
    for _ in $(seq 1 1800); do
      kill -0 "${PID[strapi]}" 2>/dev/null || { log "Strapi exited:"; tail -20 "$logf" >&2; return 1; }
      [ "$(curl -s -o /dev/null -w '%{http_code}' "${BASE[strapi]}/api/articles?pagination%5BpageSize%5D=1")" = 200 ] && return 0
      sleep 0.1
    done
    log "Strapi did not answer within 180 s"; return 1
  else
    STRATA_LOG=warn ./target/release/strata serve --schemas tests/fixtures/blog/schemas \
      --config "$DIR/strata.toml" --database "sqlite://$DIR/blog.db?mode=ro" --port "$PORT" >"$logf" 2>&1 &
    PID[strata]=$!
    wait_healthy "$PORT" || { tail -20 "$logf" >&2; return 1; }
  fi
}

# answers WHO: each GraphQL query and its REST request, once, into $DIR/WHO-{graphql,rest}-KIND.json.
answers() {
  local k status
  for k in $KINDS; do
    status=$(curl -s -o "$DIR/$1-graphql-$k.json" -w '%{http_code}' -X POST \
      -H 'Content-Type: application/json' --data-binary "@$DIR/body-$k.json" "${BASE[$1]}/graphql")
    [ "$status" = 200 ] || { log "$1: GraphQL $k answered $status: $(head -c 600 "$DIR/$1-graphql-$k.json")"; return 1; }
    status=$(curl -s -o "$DIR/$1-rest-$k.json" -w '%{http_code}' "${BASE[$1]}${REQ[$k]}")
    [ "$status" = 200 ] || { log "$1: REST $k answered $status"; return 1; }
  done
}

# measure WHO: one wrk run per request and connection count; figures go to R[WHO.KIND.c].
declare -A R
measure() {
  local k c out
  for k in $KINDS; do
    for c in $CONNECTIONS; do
      out="$DIR/wrk-$1-$k.c$c.txt"
      wrk -t1 -c"$c" -d"$DURATION" --timeout 10s --latency -s "$DIR/$k.lua" "${BASE[$1]}/graphql" >"$out" 2>&1
      R[$1.$k.c$c]=$(wrk_figures <"$out")
    done
  done
}

# ------------------------------------------------------------------------ the same data
# same_data: each server's GraphQL answers hold its REST answers' data, and the two
# servers' GraphQL answers are equal; prints what differs first.
same_data() {
python3 - "$DIR" $KINDS <<'PY'
import json, re, sys

folder, kinds = sys.argv[1], sys.argv[2:]

def typename(component):
    # shared.rich-text -> ComponentSharedRichText (the plugin's globalId of a component)
    words = re.split(r"[^A-Za-z0-9]+", component)
    return "Component" + "".join(w[:1].upper() + w[1:] for w in words if w)

def rest_as_graphql(v):
    """REST's JSON as the GraphQL selection holds it."""
    if isinstance(v, list):
        return [rest_as_graphql(x) for x in v]
    if not isinstance(v, dict):
        return v
    out = {k: rest_as_graphql(x) for k, x in v.items()}
    if "documentId" in out:
        out.pop("id", None)          # entries: GraphQL has no `id`
    elif "id" in out:
        out["id"] = str(out["id"])   # components: `id: ID!`, a text
    if "__component" in out:
        out["__typename"] = typename(out.pop("__component"))
    return out

def difference(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{path}: keys only in the first {sorted(set(a) - set(b))}, only in the second {sorted(set(b) - set(a))}"
        for k in a:
            d = difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if a == b and type(a) == type(b):
        return None
    # Long: a number in GraphQL, a text in REST.
    if isinstance(a, str) and isinstance(b, int) and not isinstance(b, bool) and a == str(b):
        return None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and a == b:
        return None
    return f"{path}: {json.dumps(a)[:200]} against {json.dumps(b)[:200]}"

def load(name):
    with open(f"{folder}/{name}.json") as f:
        return json.load(f)

failed = False
for k in kinds:
    graphql = {w: load(f"{w}-graphql-{k}") for w in ("strapi", "strata")}
    for who, g in graphql.items():
        if g.get("errors") or not isinstance(g.get("data"), dict):
            print(f"graphql.sh: {who} {k}: GraphQL errors: {json.dumps(g)[:600]}", file=sys.stderr)
            failed = True
            continue
        rest = load(f"{who}-rest-{k}")
        conn = g["data"]["articles_connection"]
        d = difference(rest_as_graphql(rest["data"]), conn["nodes"], "data") or difference(
            rest["meta"]["pagination"], conn["pageInfo"], "pageInfo")
        if d:
            print(f"graphql.sh: {who} {k}: REST (first) and GraphQL (second) differ: {d}", file=sys.stderr)
            failed = True
        else:
            print(f"graphql.sh: {who} {k}: GraphQL holds REST's data ({len(conn['nodes'])} entries, total {conn['pageInfo']['total']})", file=sys.stderr)
    d = difference(graphql["strapi"], graphql["strata"], "$")
    if d:
        print(f"graphql.sh: {k}: Strapi's (first) and strata's GraphQL answers differ: {d}", file=sys.stderr)
        failed = True
sys.exit(1 if failed else 0)
PY
}

# Both servers up: the answers first, and the check.
for who in strapi strata; do
  log "starting $who"
  start_server $who
  answers $who
done
same_data || [ -n "${ALLOW_DIFFERENCES:-}" ] || { log "the answers differ (ALLOW_DIFFERENCES=1 measures anyway)"; exit 1; }
# Then one server at a time.
stop_server strata
log "measuring Strapi"
measure strapi
stop_server strapi
start_server strata
log "measuring strata"
measure strata
stop_server strata

# ------------------------------------------------------------------------ the table
echo "# GraphQL: strata against Strapi 5.54 on one SQLite copy of the blog fixture, wrk -t1 -d$DURATION --latency, $(nproc) cores"
echo
echo "| request | connections | Strapi req/s (p50) | strata req/s (p50) | strata / Strapi | errors+timeouts, non-2xx (Strapi; strata) |"
echo "|---|---|---|---|---|---|"
for k in $KINDS; do
  for c in $CONNECTIONS; do
    read -r s_rps s_p50 _ s_err s_non <<<"${R[strapi.$k.c$c]}"
    read -r t_rps t_p50 _ t_err t_non <<<"${R[strata.$k.c$c]}"
    ratio=$(python3 -c "import sys; a, b = map(float, sys.argv[1:]); print(f'{b / a:.0f}x' if a else '-')" "${s_rps:-0}" "${t_rps:-0}")
    echo "| $k | $c | $s_rps ($s_p50) | $t_rps ($t_p50) | $ratio | $s_err, $s_non; $t_err, $t_non |"
  done
done
