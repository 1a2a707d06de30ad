#!/usr/bin/env bash
# The load benchmark: generate N articles through the import path, serve them with the
# release build, drive each request kind with wrk over loopback at several connection
# counts, and print req/s, p50 and p99 per kind and connection count, then the server's
# peak RSS, then the raw-SQL comparison of each kind (examples/raw_sql.rs). Bounded: each run lasts DURATION, and the server is stopped at the end.
#
#   bench/load.sh [N]                           # N articles (default 100000)
#   DURATION=10s CONNECTIONS="1 64 1000" KINDS="plain wide" bench/load.sh 1000000
#   BACKEND=postgres bench/load.sh 100000       # or BACKEND=mysql (MariaDB)
#
# Needs wrk (Debian: apt-get install -y wrk). The SQLite database is cached in
# target/bench/N.db and the dataset in target/bench/N.json (delete them to regenerate).
# BACKEND=postgres imports that dataset with `strata import` into the database
# strata_load_N of the local PostgreSQL (127.0.0.1:5432, user postgres; ICU en-US, as
# Strapi's), BACKEND=mysql into strata_load_N of the local MariaDB (127.0.0.1:3306, root;
# utf8mb4_unicode_ci); both are kept for the next run (drop them to regenerate). The
# raw-SQL comparison runs on SQLite only.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
N="${1:-100000}"
BACKEND="${BACKEND:-sqlite}"
DURATION="${DURATION:-8s}"
CONNECTIONS="${CONNECTIONS:-1 64 1000}"
PORT="${PORT:-1399}"
need_tools wrk
ulimit -n 8192 2>/dev/null || true

cargo build --release --bin strata --example import_bench --example raw_sql >&2
mkdir -p target/bench
DB="target/bench/$N.db"
DATASET="target/bench/$N.json"
if [ ! -f "$DB" ] || { [ "$BACKEND" != sqlite ] && [ ! -f "$DATASET" ]; }; then
  echo "load.sh: generating $N articles into $DB" >&2
  rm -f "$DB"
  /usr/bin/time -f "load.sh: import took %e s, peak RSS %M KiB" \
    ./target/release/examples/import_bench "$N" "$DB" "$DATASET" >&2
fi
# The last published English article and the eighth author, to filter on.
DOC_SQL="select document_id from articles where locale='en' and published_at is not null order by id desc limit 1"
AUTHOR_SQL="select document_id from authors order by id limit 1 offset 7"
NAME="strata_load_$N"
case "$BACKEND" in
  sqlite)
    URL="sqlite://$DB?mode=ro"
    DOC=$(python3 - "$DB" "$DOC_SQL" "$AUTHOR_SQL" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for q in sys.argv[2:]:
    print(c.execute(q).fetchone()[0])
PY
)
    ;;
  postgres)
    URL="postgres://postgres@127.0.0.1:5432/$NAME"
    PSQL=(psql -q -h 127.0.0.1 -U postgres -tA)
    if [ -z "$("${PSQL[@]}" -d postgres -c "select 1 from pg_database where datname = '$NAME'")" ]; then
      "${PSQL[@]}" -d postgres -c "CREATE DATABASE $NAME TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"
      /usr/bin/time -f "load.sh: import into PostgreSQL took %e s, peak RSS %M KiB" \
        ./target/release/strata import "$DATASET" --schemas schemas --config bench/load.toml --database "$URL" >&2
    fi
    DOC=$("${PSQL[@]}" -d "$NAME" -c "$DOC_SQL"; "${PSQL[@]}" -d "$NAME" -c "$AUTHOR_SQL")
    ;;
  mysql)
    URL="mysql://root@127.0.0.1:3306/$NAME"
    MYSQL=(mysql -h 127.0.0.1 -uroot -N -B)
    if [ -z "$("${MYSQL[@]}" -e "show databases like '$NAME'")" ]; then
      "${MYSQL[@]}" -e "CREATE DATABASE $NAME CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
      /usr/bin/time -f "load.sh: import into MariaDB took %e s, peak RSS %M KiB" \
        ./target/release/strata import "$DATASET" --schemas schemas --config bench/load.toml --database "$URL" >&2
    fi
    DOC=$("${MYSQL[@]}" "$NAME" -e "$DOC_SQL"; "${MYSQL[@]}" "$NAME" -e "$AUTHOR_SQL")
    ;;
  *) echo "load.sh: BACKEND is sqlite, postgres or mysql" >&2; exit 1 ;;
esac
ARTICLE_DOC=$(echo "$DOC" | sed -n 1p)
AUTHOR_DOC=$(echo "$DOC" | sed -n 2p)

declare -A KIND=(
  [plain]='/api/articles?pagination[pageSize]=25'
  [filter]='/api/articles?filters[title][$containsi]=9&filters[author][name][$eq]=author 9'
  [wide]='/api/articles?populate[author]=true&populate[tags]=true&populate[cover]=true&populate[seo][populate]=*&populate[blocks][on][shared.rich-text]=true&populate[blocks][on][shared.quote][populate]=author'
  [nested3]='/api/articles?populate[seo][populate][social][populate]=icon&populate[author][populate][avatar]=true'
  [star]='/api/articles?populate=*'
  [locale_all]='/api/articles?locale=*'
  [draft]='/api/articles?status=draft'
  [sort_relation]='/api/articles?sort=author.name:desc&fields[0]=title'
  [page100]='/api/articles?pagination[pageSize]=100&pagination[withCount]=false'
  [by_document]="/api/articles?filters[documentId][\$eq]=$ARTICLE_DOC"
  [relation_filter]="/api/articles?filters[author][documentId][\$eq]=$AUTHOR_DOC&fields[0]=title"
)
ORDER="plain filter wide nested3 star locale_all draft sort_relation page100 by_document relation_filter"
KINDS="${KINDS:-$ORDER}"
enc() { python3 -c "import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe='/?&=,:.-_*'))" "$1"; }

STRATA_LOG=warn ./target/release/strata serve --schemas schemas \
  --database "$URL" --port "$PORT" >target/bench/serve.log 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
wait_healthy "$PORT"

echo "# load benchmark: $N articles, $BACKEND, $(nproc) cores, wrk -t2 -d$DURATION --timeout 10s"
echo
echo "| kind | connections | req/s | p50 | p99 | errors+timeouts | non-2xx |"
echo "|---|---|---|---|---|---|---|"
for k in $KINDS; do
  url=$(enc "${KIND[$k]}")
  for c in $CONNECTIONS; do
    t=$(( c < 2 ? 1 : 2 ))
    read -r rps p50 p99 errs non2 < <(wrk -t$t -c"$c" -d"$DURATION" --timeout 10s --latency \
      "http://127.0.0.1:$PORT$url" 2>&1 | wrk_figures)
    echo "| $k | $c | $rps | $p50 | $p99 | $errs | $non2 |"
  done
done
echo
echo "peak RSS of the server: $(awk '/VmHWM/{print $2}' /proc/$PID/status) KiB"
kill $PID 2>/dev/null || true

[ "$BACKEND" = sqlite ] || exit 0
# The same requests through the store and as bare SQL, one at a time (no HTTP).
echo
echo "## store against the same SQL, bare (mean of ${RAW_RUNS:-20} runs)"
echo
for k in $KINDS; do echo "$k ${KIND[$k]}"; done |
  ./target/release/examples/raw_sql "$DB" schemas "${RAW_RUNS:-20}"
