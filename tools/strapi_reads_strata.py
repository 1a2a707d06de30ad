#!/usr/bin/env python3
"""Strapi reads what strata wrote: a development check against the real Strapi (the oracle).

1. strata serves a copy of the blog fixture's SQLite database (tests/fixtures/blog/strapi.db)
   with a full-access token and takes a list of writes: creates with components, a dynamic
   zone, media and relations, partial updates, a new localization, drafts, relation
   connects with positions, deletes of one locale and of a document, writes of types
   without draft and publish.
2. strata stops; the oracle (a real Strapi 5.54, `--oracle`, default /work/oracle) boots on
   that very file.
3. Every read of tests/fixtures/blog/queries.txt (the 236 conformance requests), the same
   with `status=draft`, and full populates of the written documents go to both, strata
   (started again on the file) and Strapi; the answers must be equal.

It needs the oracle installed (see ../shared/oracle/README.md), so it is not part of the
test suite (the repository never depends on the oracle); run it by hand after changing the
write path:

    cargo build --release --bin strata
    python3 tools/strapi_reads_strata.py [--oracle /work/oracle] [--strata target/release/strata]

Exit status 0 when every answer is equal (reads where Strapi crashes with a 500 and strata
answers as ARCHITECTURE.md's "Deviations from Strapi" says are counted apart); the
differences are printed otherwise. On 2026-11-26: 448 of 458 reads equal, 10 Strapi 500s,
0 different. On PostgreSQL and MariaDB the same follows from tests/write_replay.rs, which
checks after every recorded step that strata leaves exactly the rows Strapi leaves.
"""

import argparse
import hashlib
import hmac
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOG = os.path.join(ROOT, "tests", "fixtures", "blog")
SALT = "lab-api-token-salt"
STRATA_PORT = 1461
STRAPI_PORT = 1462


def request(port, method, path, body=None, key=None):
    url = f"http://127.0.0.1:{port}{path}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if key:
        req.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            raw = res.read()
            return res.status, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, raw.decode(errors="replace")


def wait_for(port, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            request(port, "GET", "/api/tags")
            return
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.2)
    raise SystemExit(f"nothing answers on port {port}")


def start_strata(binary, db):
    env = dict(os.environ, API_TOKEN_SALT=SALT, JWT_SECRET="lab-users-permissions-jwt-secret")
    proc = subprocess.Popen(
        [binary, "serve", "--schemas", os.path.join(BLOG, "schemas"), "--database", f"sqlite://{db}",
         "--port", str(STRATA_PORT)],
        env=env, cwd="/tmp", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for(STRATA_PORT)
    return proc


def create_token(binary, db):
    env = dict(os.environ, API_TOKEN_SALT=SALT)
    out = subprocess.run(
        [binary, "token", "create", "--name", "cross-read", "--type", "full-access",
         "--database", f"sqlite://{db}", "--schemas", os.path.join(BLOG, "schemas")],
        env=env, cwd="/tmp", check=True, capture_output=True, text=True)
    return out.stdout.strip()


A1 = "article00000000000000001"
A2 = "article00000000000000002"


def writes():
    """(method, path, body, expected status). `{new}` is the documentId the first create gave."""
    full = {
        "title": "Cross read", "slug": "cross-read", "description": "written by strata",
        "views": 3, "wordCount": "12", "rating": 4.5, "price": 9.99, "featured": True,
        "publishDate": "2024-05-01", "eventAt": "2024-05-01T10:00:00.000Z", "startTime": "09:30:00",
        "kind": "tutorial", "metadata": {"a": [1, 2]}, "contactEmail": "x@example.com",
        "content": [{"type": "paragraph", "children": [{"type": "text", "text": "hi"}]}],
        "cover": 3, "gallery": [4, 5],
        "author": "author000000000000000002", "category": "category0000000000000001",
        "tags": ["tag000000000000000000002", "tag000000000000000000001"],
        "seo": {"metaTitle": "M", "metaDescription": "D", "social": [{"network": "x", "url": "https://x.example"}]},
        "faq": [{"question": "Q1", "answer": "A1"}, {"question": "Q2"}],
        "blocks": [
            {"__component": "shared.rich-text", "body": "Rich"},
            {"__component": "shared.quote", "title": "Q", "body": "B", "author": "author000000000000000001"},
            {"__component": "shared.media", "file": 4},
        ],
    }
    return [
        ("POST", "/api/articles", {"data": full}, 201),
        ("PUT", "/api/articles/{new}", {"data": {"title": "Cross read v2", "faq": [{"question": "Only"}]}}, 200),
        ("PUT", "/api/articles/{new}?locale=fr", {"data": {"title": "Lecture croisée", "views": 7}}, 200),
        ("PUT", "/api/articles/{new}?status=draft", {"data": {"description": "draft edit"}}, 200),
        ("POST", "/api/articles?status=draft", {"data": {"title": "Only a draft", "tags": ["tag000000000000000000003"]}}, 201),
        ("PUT", f"/api/articles/{A1}", {"data": {"tags": {"connect": [
            {"documentId": "tag000000000000000000003", "position": {"start": True}}],
            "disconnect": ["tag000000000000000000008"]}}}, 200),
        ("PUT", f"/api/articles/{A2}", {"data": {"views": 42, "author": None, "cover": None}}, 200),
        ("DELETE", f"/api/articles/{A1}?locale=de", None, 204),
        ("POST", "/api/tags", {"data": {"name": "cross", "articles": [A2]}}, 201),
        ("PUT", "/api/tags/tag000000000000000000002", {"data": {"name": "Python 3"}}, 200),
        ("PUT", "/api/authors/author000000000000000003", {"data": {"articles": {"connect": [A2]}}}, 200),
        ("PUT", "/api/categories/category0000000000000003", {"data": {"parent": "category0000000000000001"}}, 200),
        ("DELETE", "/api/articles/article00000000000000010", None, 204),
    ]


def run_writes(key):
    new = None
    for method, path, body, status in writes():
        path = path.replace("{new}", new or "")
        got, answer = request(STRATA_PORT, method, path, body, key)
        if got != status:
            raise SystemExit(f"{method} {path}: {got} {answer}")
        if new is None and method == "POST":
            new = answer["data"]["documentId"]
    return new


def reads(new):
    out = []
    with open(os.path.join(BLOG, "queries.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            out.append(line)
    out += [f"{q}{'&' if '?' in q else '?'}status=draft" for q in list(out) if q.startswith("/api/articles")]
    for doc in [new, A1, A2]:
        for extra in ["", "&status=draft", "&locale=fr", "&locale=fr&status=draft"]:
            out.append(f"/api/articles/{doc}?populate[seo][populate]=*&populate[faq]=true"
                       f"&populate[blocks][populate]=*&populate[tags]=true&populate[author]=true"
                       f"&populate[category]=true&populate[cover]=true&populate[gallery]=true{extra}")
    out += ["/api/tags?populate=articles&pagination[pageSize]=100",
            "/api/authors?populate=articles&pagination[pageSize]=100",
            "/api/categories?populate=*&status=draft"]
    return out


def encode(line):
    return urllib.parse.quote(line, safe="/?&=[]$*,:!'()~-_.%+@;")


def answers(port, key, lines):
    out = {}
    for line in lines:
        out[line] = request(port, "GET", encode(line), None, key)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--oracle", default="/work/oracle")
    ap.add_argument("--strata", default=os.path.join(ROOT, "target", "release", "strata"))
    args = ap.parse_args()
    args.strata = os.path.abspath(args.strata)
    tmp = os.path.join(args.oracle, ".tmp")
    os.makedirs(tmp, exist_ok=True)
    db = os.path.join(tmp, "strata-wrote.db")
    for suffix in ["", "-wal", "-shm"]:
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    shutil.copy(os.path.join(BLOG, "strapi.db"), db)

    key = create_token(args.strata, db)
    strata = start_strata(args.strata, db)
    try:
        new = run_writes(key)
        lines = reads(new)
        ours = answers(STRATA_PORT, key, lines)
    finally:
        strata.send_signal(signal.SIGTERM)
        strata.wait(timeout=30)

    env = dict(os.environ, PORT=str(STRAPI_PORT), HOST="127.0.0.1", NODE_ENV="production",
               STRAPI_TELEMETRY_DISABLED="true", BROWSER="none", LOG_LEVEL="warn",
               DATABASE_FILENAME=".tmp/strata-wrote.db")
    strapi = subprocess.Popen(["node", "node_modules/@strapi/strapi/bin/strapi.js", "start"],
                              cwd=args.oracle, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(STRAPI_PORT, 180)
        theirs = answers(STRAPI_PORT, key, lines)
    finally:
        strapi.send_signal(signal.SIGTERM)
        strapi.wait(timeout=60)

    unequal = [line for line in lines if ours[line] != theirs[line]]
    # Where Strapi crashes on a malformed query, strata answers on purpose (a 4xx, or a
    # meaning; ARCHITECTURE.md, "Deviations from Strapi"): not differences of data.
    crashes = [line for line in unequal if theirs[line][0] == 500 and ours[line][0] != 500]
    differences = [line for line in unequal if line not in crashes]
    for line in differences[:20]:
        print(f"DIFF {line}\n  strata: {json.dumps(ours[line])[:400]}\n  strapi: {json.dumps(theirs[line])[:400]}")
    equal = len(lines) - len(unequal)
    print(f"{equal} of {len(lines)} reads equal after {len(writes())} writes by strata; "
          f"{len(crashes)} where Strapi answers 500 and strata as documented; "
          f"{len(differences)} different")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
