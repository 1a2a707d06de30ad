#!/bin/bash
# Instructions (callgrind Ir) a strata server runs for N sequential write requests, or
# reads of the lab's plain page and wide populate (the store issue's 2% bounds), or GraphQL
# reads: gql-plain (a page of every scalar, which the fast path of plain reads writes),
# gql-wide (bench/graphql.sh's wide query, written here) and gql-zone (a zone read through
# fragments only, whose items of other members are `{}`).
# usage: bench/callgrind_writes.sh BIN N KIND
#   (KIND: create, update, tags, page, filter, wide, gql-plain, gql-wide, gql-zone or none)
# Prints the total; subtract a run of KIND none and divide by N (BENCHMARKS.md §0x).
# Needs valgrind and curl; works on a scratch copy of the blog fixture.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$1; N=$2; KIND=$3
D=$(mktemp -d); cp $ROOT/tests/fixtures/blog/strapi.db $D/
export API_TOKEN_SALT=lab-api-token-salt STRATA_SCHEMAS=$ROOT/tests/fixtures/blog/schemas STRATA_DATABASE_URL=sqlite://$D/strapi.db STRATA_LOG=warn
KEY=$($BIN token create --name cg --type full-access 2>/dev/null | tail -1 | awk '{print $NF}')
PORT=$((20000 + RANDOM % 10000))
source $ROOT/bench/lib.sh
lab_requests; WIDE=${REQ[wide]}
# GraphQL is on for every kind (a REST request does not touch it).
printf '[api.graphql]\nenabled = true\n' > $D/strata.toml
export STRATA_CONFIG=$D/strata.toml
FILE='documentId name alternativeText caption width height formats hash ext mime size url'
AUTHOR='documentId name email bio'
GQL_WIDE="{ articles_connection { nodes { documentId title slug views publishDate locale
  author { $AUTHOR } category { documentId name slug } tags { documentId name } cover { $FILE }
  seo { id metaTitle shareImage { $FILE } social { id network url } }
  blocks { __typename ... on ComponentSharedRichText { id body }
    ... on ComponentSharedQuote { id title body author { $AUTHOR } }
    ... on ComponentSharedMedia { id file { $FILE } }
    ... on ComponentSharedSlider { id files { $FILE } } } } pageInfo { total } } }"
GQL_PLAIN='{ articles_connection(pagination: {pageSize: 25}) { nodes { documentId title slug
  description content body views wordCount rating price featured publishDate eventAt startTime
  kind metadata contactEmail createdAt updatedAt publishedAt locale } pageInfo { total } } }'
GQL_ZONE='{ articles(pagination: {limit: 25}) { title blocks { ... on ComponentSharedQuote { title body } ... on ComponentSharedSlider { files { name url } } } } }'
gql_body() { python3 -c 'import json, sys; print(json.dumps({"query": " ".join(sys.argv[1].split())}))' "$1"; }
gql_body "$GQL_PLAIN" > $D/gql-plain.json
gql_body "$GQL_WIDE" > $D/gql-wide.json
gql_body "$GQL_ZONE" > $D/gql-zone.json
valgrind --tool=callgrind --callgrind-out-file=$D/cg.out $BIN serve --port $PORT > $D/log 2>&1 &
VP=$!
for i in $(seq 1 120); do curl -s -o /dev/null http://127.0.0.1:$PORT/api/tags && break; sleep 0.5; done
for i in $(seq 1 $N); do
  case $KIND in
    create) curl -s -o /dev/null -X POST -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d '{"data":{"title":"bench","views":1}}' http://127.0.0.1:$PORT/api/articles ;;
    update) curl -s -o /dev/null -X PUT -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d "{\"data\":{\"views\":$i}}" http://127.0.0.1:$PORT/api/articles/article00000000000000002 ;;
    tags) if [ $((i % 2)) = 0 ]; then T='["tag000000000000000000001","tag000000000000000000002"]'; else T='["tag000000000000000000003"]'; fi
          curl -s -o /dev/null -X PUT -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d "{\"data\":{\"tags\":$T}}" http://127.0.0.1:$PORT/api/articles/article00000000000000002 ;;
    page) curl -s -o /dev/null -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT${REQ[plain]}" ;;
    filter) curl -s -o /dev/null -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT${REQ[filter]}" ;;
    wide) curl -s -o /dev/null -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT$WIDE" ;;
    gql-plain|gql-wide|gql-zone) curl -s -o /dev/null -X POST -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' --data-binary @$D/$KIND.json http://127.0.0.1:$PORT/graphql ;;
    none) ;;
  esac
done
kill -INT $VP; wait $VP 2>/dev/null || true
grep -E "^(summary|totals):" $D/cg.out | head -1 | awk '{print $2}'
if [ -n "$KEEP" ]; then cp $D/cg.out "$KEEP"; fi
rm -rf $D
