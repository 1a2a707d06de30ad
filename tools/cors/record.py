#!/usr/bin/env python3
"""Records the CORS answers of a running Strapi (the oracle, default `strapi::cors`) for
tests/fixtures/blog/oracle/cors.json: each request's method, target and headers, and the
answer's status and every `Vary`, `Allow` and `Access-Control-*` header (names lower-cased).
With `--graphql`, the answers of `/graphql` (GraphQL on, its plugin's own `@koa/cors`), with
their JSON bodies, for tests/fixtures/blog/oracle/graphql_http.json.

    python3 tools/cors/record.py http://127.0.0.1:1337 > tests/fixtures/blog/oracle/cors.json
    python3 tools/cors/record.py http://127.0.0.1:1337 --graphql \
        > tests/fixtures/blog/oracle/graphql_http.json
"""
import http.client
import json
import sys
import urllib.parse

ORIGIN = "http://app.example"
ARTICLES = "/api/articles?fields[0]=title&pagination[pageSize]=1"
CASES = [
    ("GET", ARTICLES, {"Origin": ORIGIN}),
    ("GET", ARTICLES, {}),
    ("GET", ARTICLES, {"Origin": ORIGIN, "Authorization": "Bearer not-a-token"}),
    ("GET", "/api/secrets", {"Origin": ORIGIN}),
    ("GET", "/api/nothing-here", {"Origin": ORIGIN}),
    ("HEAD", ARTICLES, {"Origin": ORIGIN}),
    ("OPTIONS", ARTICLES, {"Origin": ORIGIN, "Access-Control-Request-Method": "GET",
                            "Access-Control-Request-Headers": "authorization,x-custom"}),
    ("OPTIONS", "/api/secrets", {"Origin": ORIGIN, "Access-Control-Request-Method": "DELETE"}),
    ("OPTIONS", "/api/nothing-here", {"Origin": ORIGIN, "Access-Control-Request-Method": "GET"}),
    ("OPTIONS", ARTICLES, {"Origin": ORIGIN}),
    ("OPTIONS", ARTICLES, {"Access-Control-Request-Method": "GET"}),
    ("OPTIONS", ARTICLES, {}),
]

QUERY = '{"query":"{ tags(sort: \\"name\\") { name } }"}'
JSON = {"Content-Type": "application/json"}
GRAPHQL_CASES = [
    ("POST", "/graphql", {"Origin": ORIGIN, **JSON}, QUERY),
    ("POST", "/graphql", JSON, QUERY),
    ("POST", "/graphql", {"Origin": ORIGIN, "Authorization": "Bearer not-a-token", **JSON}, QUERY),
    ("POST", "/graphql", {"Origin": ORIGIN, **JSON}, "{not json"),
    ("GET", "/graphql?query={tags(sort:\"name\"){name}}", {"Origin": ORIGIN}, None),
    ("GET", "/graphql?query={tags(sort:\"name\"){name}}",
     {"Origin": ORIGIN, "apollo-require-preflight": "true"}, None),
    ("PUT", "/graphql", {"Origin": ORIGIN, **JSON}, QUERY),
    ("DELETE", "/graphql", {"Origin": ORIGIN}, None),
    ("PATCH", "/graphql", {"Origin": ORIGIN, "Authorization": "Bearer not-a-token"}, None),
    ("HEAD", "/graphql", {"Origin": ORIGIN}, None),
    ("OPTIONS", "/graphql", {"Origin": ORIGIN}, None),
    ("OPTIONS", "/graphql", {"Origin": ORIGIN, "Access-Control-Request-Method": "POST",
                             "Access-Control-Request-Headers": "content-type"}, None),
] + [
    # Strapi authenticates before Apollo refuses anything, after its body parser.
    ("POST", "/graphql", {"Authorization": "Bearer not-a-token", **JSON}, body) for body in [
        '{"query":"{ tags { "}', '{}', '{not json', '{"query":"{ tags { nope } }"}',
    ]
] + [
    ("GET", "/graphql?query={tags{name}}", {"Authorization": "Bearer not-a-token"}, None),
] + [
    # What Apollo's runHttpQuery and Strapi's body parser refuse.
    ("POST", "/graphql", JSON, body) for body in [
        '{"variables":{}}', '{"query":""}', '{"query":null}', '{"query":0}', '{"query":1}',
        '{"query":{"kind":"Document"}}', '{}', '5', '"x"', '[{"query":"{ tags { name } }"}]',
        '{"query":"{ tags { name } }","variables":"{}"}',
        '{"query":"{ tags { name } }","variables":[1]}',
        '{"query":"{ tags { name } }","extensions":5}',
        '{"query":"{ tags { name } }","extensions":"{}"}',
        '{"query":"{ tags { name } }","operationName":5}',
        '{not json',
    ]
] + [
    ("GET", target, {"apollo-require-preflight": "1"}, None) for target in [
        "/graphql?variables={}",
        "/graphql?query=&variables={}",
        "/graphql?query={tags{name}}&variables=[]",
        "/graphql?query={tags{name}}&variables=nope",
        "/graphql?query={tags{name}}&extensions=5",
        "/graphql?query={tags{name}}&query=x",
        "/graphql?query={tags{name}}&operationName=A&operationName=B",
    ]
]


def main():
    base = urllib.parse.urlparse(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:1337")
    graphql = "--graphql" in sys.argv
    cases = GRAPHQL_CASES if graphql else [(m, t, h, None) for m, t, h in CASES]
    out = []
    for method, target, headers, sent in cases:
        conn = http.client.HTTPConnection(base.hostname, base.port)
        conn.request(method, urllib.parse.quote(target, safe="/?=&"), body=sent, headers=headers)
        r = conn.getresponse()
        body = r.read()
        kept = {k.lower(): v for k, v in r.getheaders()
                if k.lower() in ("vary", "allow") or k.lower().startswith("access-control-")}
        case = {"method": method, "target": target, "headers": headers,
                "status": r.status, "response_headers": kept,
                "empty_body": len(body) == 0}
        if graphql:
            case["body"] = sent
            case["response_text"] = body.decode()
        out.append(case)
        conn.close()
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
