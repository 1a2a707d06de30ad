# Shared by the bench/ scripts (sourced, not run): the lab's three requests, the blog
# fixture restored into PostgreSQL and MariaDB, waiting for a server, and the figures of
# one wrk run. Paths are relative to the repository root (the scripts cd there).

# strata keeps REST answers while the data stands (`[server] answer_cache_mb`), so a
# benchmark that asks the same request again and again would measure the kept answer.
# The benchmarks measure the query path unless ANSWER_CACHE_MB says otherwise
# (ANSWER_CACHE_MB=64: strata's default, kept answers). Older builds ignore the variable.
export STRATA_ANSWER_CACHE_MB="${ANSWER_CACHE_MB:-0}"

# Checks that each tool named is on PATH; wrk, which a fresh machine lacks, is installed
# with apt-get (as root, or through sudo) when it is missing. Anything else missing stops
# the script with its name.
need_tools() {
  local script tool
  script=$(basename "$0")
  for tool in "$@"; do
    command -v "$tool" >/dev/null && continue
    if [ "$tool" = wrk ] && command -v apt-get >/dev/null; then
      echo "$script: wrk is missing; installing it with apt-get" >&2
      local sudo=
      [ "$(id -u)" = 0 ] || sudo=sudo
      $sudo apt-get install -y -q wrk >&2 || { $sudo apt-get update -q >&2 && $sudo apt-get install -y -q wrk >&2; } || true
      command -v wrk >/dev/null && continue
    fi
    echo "$script: $tool is missing" >&2
    exit 1
  done
}

# Waits (up to 10 s) until the server on 127.0.0.1:$1 answers /_health.
wait_healthy() {
  for _ in $(seq 1 100); do
    curl -s -o /dev/null "http://127.0.0.1:$1/_health" && return 0
    sleep 0.1
  done
  echo "bench: no server answered on port $1" >&2
  return 1
}

# Reads wrk's --latency output on stdin; prints "req/s p50 p99 errors+timeouts non-2xx".
wrk_figures() {
  awk '/Requests\/sec/{rps=$2} $1=="50%"{p50=$2} $1=="99%"{p99=$2}
       /Socket errors/{gsub(",",""); errs=$4+$6+$8+$10}
       /Non-2xx/{non2=$5}
       END{print rps, p50, p99, errs+0, non2+0}'
}

# Fills REQ with the three requests of the oracle's bench.sh: the plain page, $containsi
# with a two-hop relation filter, and the wide populate with a dynamic zone `on`.
lab_requests() {
  declare -gA REQ=(
    [plain]='/api/articles?pagination%5BpageSize%5D=25'
    [filter]='/api/articles?filters%5Btitle%5D%5B%24containsi%5D=e&filters%5Bcategory%5D%5Bparent%5D%5Bslug%5D%5B%24eq%5D=technology'
    [wide]='/api/articles?populate%5Bauthor%5D=true&populate%5Bcategory%5D=true&populate%5Btags%5D=true&populate%5Bcover%5D=true&populate%5Bseo%5D%5Bpopulate%5D=*&populate%5Bblocks%5D%5Bon%5D%5Bshared.rich-text%5D=true&populate%5Bblocks%5D%5Bon%5D%5Bshared.quote%5D%5Bpopulate%5D=author&populate%5Bblocks%5D%5Bon%5D%5Bshared.media%5D%5Bpopulate%5D=file&populate%5Bblocks%5D%5Bon%5D%5Bshared.slider%5D%5Bpopulate%5D=files'
  )
}

# Creates PostgreSQL database $1 as the recording's was (ICU en-US) and restores Strapi's
# pg_dump of the blog into it.
restore_blog_pg() {
  psql -q -h 127.0.0.1 -U postgres -d postgres -c \
    "CREATE DATABASE $1 TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'" >/dev/null
  psql -q -h 127.0.0.1 -U postgres -d "$1" -f tests/fixtures/blog/pg/strapi-postgres.sql >/dev/null 2>&1
}

# Creates MariaDB database $1 (utf8mb4_unicode_ci) and restores Strapi's mysqldump of the
# blog into it.
restore_blog_mysql() {
  mysql -h 127.0.0.1 -uroot -e "CREATE DATABASE $1 CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
  mysql -h 127.0.0.1 -uroot "$1" < tests/fixtures/blog/mysql/strapi-mysql.sql
}

# The GraphQL form of the lab's three requests (bench/graphql.sh, bench/graphql_ab.sh):
# QUERY[plain], QUERY[filter] and QUERY[wide], the `_connection` form with `pageInfo`.
graphql_queries() {
  local SCALARS PAGE_INFO FILE AUTHOR
  SCALARS='documentId title slug description content body views wordCount rating price featured
    publishDate eventAt startTime kind metadata contactEmail createdAt updatedAt publishedAt locale'
  PAGE_INFO='pageInfo { page pageSize pageCount total }'
  FILE='documentId name alternativeText caption focalPoint width height formats hash ext mime size
    url previewUrl provider provider_metadata createdAt updatedAt publishedAt'
  AUTHOR='documentId name email bio createdAt updatedAt publishedAt'
  declare -gA QUERY=(
    [plain]="{ articles_connection(pagination: {pageSize: 25}) { nodes { $SCALARS } $PAGE_INFO } }"
    [filter]="{ articles_connection(filters: {title: {containsi: \"e\"}, category: {parent: {slug: {eq: \"technology\"}}}}) { nodes { $SCALARS } $PAGE_INFO } }"
    [wide]="{ articles_connection { nodes { $SCALARS
    author { $AUTHOR }
    category { documentId name slug createdAt updatedAt publishedAt }
    tags { documentId name createdAt updatedAt publishedAt }
    cover { $FILE }
    seo { id metaTitle metaDescription shareImage { $FILE } social { id network url } }
    blocks { __typename
      ... on ComponentSharedRichText { id body }
      ... on ComponentSharedQuote { id title body author { $AUTHOR } }
      ... on ComponentSharedMedia { id file { $FILE } }
      ... on ComponentSharedSlider { id files { $FILE } } } } $PAGE_INFO } }"
  )
}

# graphql_bodies DIR KIND...: for each QUERY kind (graphql_queries), DIR/body-KIND.json (the
# POST body, the query's whitespace collapsed) and DIR/KIND.lua (a wrk script posting it).
graphql_bodies() {
  local dir=$1 k
  shift
  for k in "$@"; do
    python3 -c 'import json, sys; print(json.dumps({"query": " ".join(sys.argv[1].split())}))' \
      "${QUERY[$k]}" >"$dir/body-$k.json"
    cat >"$dir/$k.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = assert(io.open("$dir/body-$k.json", "rb"))
wrk.body = f:read("*a")
f:close()
LUA
  done
}
