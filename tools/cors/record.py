#!/usr/bin/env python3
"""Records the CORS answers of a running Strapi (the oracle, default `strapi::cors`) for
tests/fixtures/blog/oracle/cors.json: each request's method, target and headers, and the
answer's status and every `Vary`, `Allow` and `Access-Control-*` header (names lower-cased).

    python3 tools/cors/record.py http://127.0.0.1:1337 > tests/fixtures/blog/oracle/cors.json
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


def main():
    base = urllib.parse.urlparse(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:1337")
    out = []
    for method, target, headers in CASES:
        conn = http.client.HTTPConnection(base.hostname, base.port)
        conn.request(method, urllib.parse.quote(target, safe="/?=&"), headers=headers)
        r = conn.getresponse()
        body = r.read()
        kept = {k.lower(): v for k, v in r.getheaders()
                if k.lower() in ("vary", "allow") or k.lower().startswith("access-control-")}
        out.append({"method": method, "target": target, "headers": headers,
                    "status": r.status, "response_headers": kept,
                    "empty_body": len(body) == 0})
        conn.close()
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
