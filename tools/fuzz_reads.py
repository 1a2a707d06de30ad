#!/usr/bin/env python3
"""Random REST reads, asked of the real Strapi 5.54 (the oracle) and of strata, answers compared.

usage:
  python3 tools/fuzz_reads.py --strata BIN [--count N] [--seed S] [--oracle DIR] [--out FILE]
                              [--auth full|public] [--only-diff]

Both servers serve a copy of tests/fixtures/blog/strapi.db (the full-access token of
tools/record_writes.py inserted). For each of N random requests on the blog model (filters
with every operator on every kind of field and through relations, `$and`/`$or`/`$not`,
sorts on fields and relations, `fields`, every form of `populate` with nested `fields`,
`filters`, `sort` and `populate`, dynamic-zone `on`, pagination by page and by offset,
`locale` and `status`), the status and the JSON of both answers are compared. `localizations`
lists are compared as sets (their order is the engine's plan in Strapi). A request whose
answers differ is printed with the first difference; `--out` writes every differing request
as a line of tests/fixtures/blog/queries.txt's format, to be recorded as goldens.

The generator draws filter values from the database, so most filters match something.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import auth_fixture as af  # noqa: E402
import record_writes as rw  # noqa: E402

BLOG_DB = os.path.join(ROOT, "tests", "fixtures", "blog", "strapi.db")

# ------------------------------------------------------------------------------------ the model

SCALARS = {
    "article": {
        "title": "string", "slug": "uid", "description": "text", "body": "richtext",
        "views": "integer", "wordCount": "biginteger", "rating": "float", "price": "decimal",
        "featured": "boolean", "publishDate": "date", "eventAt": "datetime", "startTime": "time",
        "kind": "enumeration", "contactEmail": "email", "locale": "string",
        "createdAt": "datetime", "updatedAt": "datetime", "publishedAt": "datetime",
        "documentId": "string", "id": "integer",
    },
    "author": {"name": "string", "email": "email", "bio": "text", "id": "integer", "documentId": "string",
               "createdAt": "datetime"},
    "category": {"name": "string", "slug": "uid", "id": "integer", "documentId": "string",
                 "publishedAt": "datetime"},
    "tag": {"name": "string", "id": "integer", "documentId": "string"},
}
# relation -> target type
RELATIONS = {
    "article": {"author": "author", "category": "category", "tags": "tag"},
    "author": {"articles": "article", "mentor": "author"},
    "category": {"articles": "article", "parent": "category", "children": "category"},
    "tag": {"articles": "article"},
}
PLURAL = {"article": "articles", "author": "authors", "category": "categories", "tag": "tags"}
TABLE = {"article": "articles", "author": "authors", "category": "categories", "tag": "tags"}
COLUMN = {"wordCount": "word_count", "publishDate": "publish_date", "eventAt": "event_at",
          "startTime": "start_time", "contactEmail": "contact_email", "createdAt": "created_at",
          "updatedAt": "updated_at", "publishedAt": "published_at", "documentId": "document_id"}
MEDIA = {"article": ["cover", "gallery"], "author": ["avatar"]}
COMPONENTS = {"article": ["seo", "faq"]}
ZONE = {"article": "blocks"}
ZONE_MEMBERS = ["shared.rich-text", "shared.quote", "shared.media", "shared.slider"]
OPS = {
    "string": ["$eq", "$eqi", "$ne", "$nei", "$in", "$notIn", "$contains", "$notContains", "$containsi",
               "$notContainsi", "$startsWith", "$startsWithi", "$endsWith", "$endsWithi", "$null",
               "$notNull", "$lt", "$gt", "$between"],
    "number": ["$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$in", "$notIn", "$between", "$null", "$notNull"],
    "boolean": ["$eq", "$ne", "$null", "$notNull"],
    "date": ["$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$between", "$null", "$notNull", "$in"],
}
KIND = {"string": "string", "uid": "string", "text": "string", "richtext": "string", "email": "string",
        "enumeration": "string", "integer": "number", "biginteger": "number", "float": "number",
        "decimal": "number", "boolean": "boolean", "date": "date", "datetime": "date", "time": "date"}


class Values:
    """Values of each (type, field) read from the database, to filter on."""

    def __init__(self, path):
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.v = {}
        for t, fields in SCALARS.items():
            for f, ty in fields.items():
                col = COLUMN.get(f, f)
                try:
                    rows = [r[0] for r in con.execute(f'select distinct "{col}" from {TABLE[t]} limit 40')]
                except sqlite3.Error:
                    rows = []
                self.v[(t, f)] = [self.shape(ty, r) for r in rows if r is not None]
        con.close()

    @staticmethod
    def shape(ty, r):
        if ty == "boolean":
            return "true" if r else "false"
        if ty == "datetime" and isinstance(r, (int, float)):
            return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(r / 1000))
        if ty == "time" and isinstance(r, str):
            return r[:8]
        return str(r)

    def pick(self, rnd, t, f):
        vals = self.v.get((t, f)) or ["x"]
        v = rnd.choice(vals)
        if rnd.random() < 0.15 and SCALARS[t][f] in ("string", "text", "richtext", "uid", "email"):
            # a part of a value, in another case now and then
            if len(v) > 2:
                a = rnd.randrange(len(v) - 1)
                v = v[a:a + rnd.randrange(1, len(v) - a + 1)]
            v = rnd.choice([v, v.upper(), v.lower()])
        return v


# ------------------------------------------------------------------------------------ the generator

def combined_filters(r, prefix, leaf, depth=0):
    """Filter pairs under `prefix`: `$and`/`$or` lists and `$not` (two levels at most)
    around the conditions `leaf(prefix)` makes."""
    x = r.random()
    if depth < 2 and x < 0.2:
        op = r.choice(["$and", "$or"])
        out = []
        for i in range(r.randint(1, 3)):
            out += combined_filters(r, f"{prefix}[{op}][{i}]", leaf, depth + 1)
        return out
    if depth < 2 and x < 0.27:
        return combined_filters(r, f"{prefix}[$not]", leaf, depth + 1)
    return leaf(prefix)


class Gen:
    def __init__(self, rnd, values):
        self.r, self.values = rnd, values

    def filter_leaf(self, t, prefix, depth):
        r = self.r
        if depth < 2 and r.random() < 0.3 and RELATIONS.get(t):
            rel, target = r.choice(list(RELATIONS[t].items()))
            if r.random() < 0.15:
                op = r.choice(["$null", "$notNull"])
                return [(f"{prefix}[{rel}][{op}]", r.choice(["true", "false"]))]
            return self.filter_leaf(target, f"{prefix}[{rel}]", depth + 1)
        if depth < 2 and t == "article" and r.random() < 0.12:
            comp, fields = r.choice([("seo", {"metaTitle": "string", "metaDescription": "text"}),
                                     ("faq", {"question": "string", "answer": "text"}),
                                     ("cover", {"name": "string", "width": "integer", "mime": "string"}),
                                     ("localizations", {"locale": "string", "title": "string"})])
            f = r.choice(list(fields))
            kind = KIND[fields[f]]
            op = r.choice(OPS[kind])
            v = r.choice(["Hello", "news", "fr", "500", "image/png", "What", "x"])
            if op in ("$null", "$notNull"):
                v = r.choice(["true", "false"])
            if op in ("$in", "$notIn", "$between"):
                return [(f"{prefix}[{comp}][{f}][{op}][0]", v), (f"{prefix}[{comp}][{f}][{op}][1]", v + "z")]
            return [(f"{prefix}[{comp}][{f}][{op}]", v)]
        if r.random() < 0.02:
            return [(f"{prefix}[{r.choice(['nope', 'password', 'secret', 'createdBy'])}][$eq]", "1")]
        f = r.choice(list(SCALARS[t]))
        kind = KIND[SCALARS[t][f]]
        op = r.choice(OPS[kind])
        key = f"{prefix}[{f}][{op}]"
        if op in ("$null", "$notNull"):
            return [(key, r.choice(["true", "false"]))]
        if op in ("$in", "$notIn"):
            return [(f"{key}[{i}]", self.values.pick(r, t, f)) for i in range(r.randint(1, 3))]
        if op == "$between":
            a, b = sorted([self.values.pick(r, t, f), self.values.pick(r, t, f)],
                          key=lambda x: (float(x) if kind == "number" else x))
            return [(f"{key}[0]", a), (f"{key}[1]", b)]
        if r.random() < 0.1:
            return [(f"{prefix}[{f}]", self.values.pick(r, t, f))]  # implicit $eq
        return [(key, self.values.pick(r, t, f))]

    def filters(self, t, prefix, depth=0):
        return combined_filters(self.r, prefix, lambda p: self.filter_leaf(t, p, 0), depth)

    def sort(self, t, key="sort", relations=True):
        r = self.r
        out = []
        fields = [f for f in SCALARS[t] if f not in ("locale",)]
        for i in range(r.randint(1, 3)):
            if relations and r.random() < 0.2 and RELATIONS.get(t):
                rel, target = r.choice(list(RELATIONS[t].items()))
                f = f"{rel}.{r.choice(list(SCALARS[target]))}"
            else:
                f = r.choice(fields)
            d = r.choice(["", ":asc", ":desc", ":DESC"])
            out.append((f"{key}[{i}]", f + d))
        if r.random() < 0.3:
            return [(key, ",".join(v for _, v in out))]
        return out

    def fields(self, t, key):
        picks = self.r.sample(list(SCALARS[t]), self.r.randint(1, min(4, len(SCALARS[t]))))
        return [(f"{key}[{i}]", f) for i, f in enumerate(picks)]

    def populate(self, t, key, depth=0):
        r = self.r
        x = r.random()
        if depth == 0 and x < 0.1:
            return [(key, "*")]
        rels = list(RELATIONS.get(t, {}).items())
        others = MEDIA.get(t, []) + COMPONENTS.get(t, [])
        names = [n for n, _ in rels] + others + ([ZONE[t]] if t in ZONE else [])
        if t == "article":
            names.append("localizations")
            rels = rels + [("localizations", "article")]
        if not names:
            return []
        chosen = r.sample(names, r.randint(1, min(3, len(names))))
        if x < 0.3:
            return [(f"{key}[{i}]", n) for i, n in enumerate(chosen)]
        out = []
        for n in chosen:
            k = f"{key}[{n}]"
            target = dict(rels).get(n)
            if n == ZONE.get(t):
                if r.random() < 0.5:
                    out.append((f"{k}[populate]", "*"))
                else:
                    for m in r.sample(ZONE_MEMBERS, r.randint(1, 3)):
                        if r.random() < 0.5:
                            out.append((f"{k}[on][{m}][populate]", "*"))
                        else:
                            out.append((f"{k}[on][{m}][fields][0]", {"shared.rich-text": "body",
                                        "shared.quote": "title", "shared.media": "id",
                                        "shared.slider": "id"}[m]))
                continue
            if target is None:
                if n == "seo" and r.random() < 0.5:
                    out.append((f"{k}[populate][0]", r.choice(["social", "shareImage"])))
                else:
                    out.append((f"{k}", "true"))
                continue
            sub = r.random()
            if sub < 0.08:
                out.append((f"{k}[count]", "true"))
                continue
            if sub < 0.25:
                out.append((k, "true"))
                continue
            if r.random() < 0.5:
                out += self.fields(target, f"{k}[fields]")
            if r.random() < 0.4:
                out += self.filters(target, f"{k}[filters]")
            if r.random() < 0.4:
                out += self.sort(target, f"{k}[sort]", relations=False)
            if depth < 1 and r.random() < 0.3:
                out += self.populate(target, f"{k}[populate]", depth + 1)
            if not any(o[0].startswith(k) for o in out):
                out.append((k, "true"))
        return out

    def request(self):
        r = self.r
        t = r.choices(list(PLURAL), weights=[6, 2, 2, 1])[0]
        q = []
        if r.random() < 0.6:
            q += self.filters(t, "filters")
        if r.random() < 0.5:
            q += self.sort(t)
        if r.random() < 0.4:
            q += self.fields(t, "fields")
        if r.random() < 0.5:
            q += self.populate(t, "populate")
        x = r.random()
        if x < 0.2:
            q += [("pagination[page]", str(r.randint(1, 4))), ("pagination[pageSize]", str(r.randint(1, 12)))]
        elif x < 0.35:
            q += [("pagination[start]", str(r.randint(0, 20))), ("pagination[limit]", str(r.randint(1, 12)))]
        if r.random() < 0.15:
            q.append(("pagination[withCount]", r.choice(["true", "false"])))
        if t == "article" and r.random() < 0.35:
            q.append(("locale", r.choice(["en", "fr", "de", "*", "es"])))
        if t in ("article", "category") and r.random() < 0.3:
            q.append(("status", r.choice(["draft", "published"])))
        if "sort" not in "".join(k for k, _ in q) and r.random() < 0.8:
            q.append(("sort[0]", "id"))  # a stable order where Strapi's default would be the plan's
        return f"/api/{PLURAL[t]}?" + "&".join(f"{k}={escape(v)}" for k, v in q)


# ------------------------------------------------------------------------------------ GraphQL

GQL_SCALARS = {
    "article": ["title", "slug", "description", "views", "wordCount", "rating", "price", "featured",
                "publishDate", "eventAt", "startTime", "kind", "contactEmail", "createdAt", "updatedAt",
                "publishedAt", "locale", "metadata", "body", "content"],
    "author": ["name", "email", "bio", "createdAt"],
    "category": ["name", "slug", "publishedAt"],
    "tag": ["name"],
}
# field -> (target type or None for a fixed selection, list?)
GQL_RELATIONS = {
    "article": {"author": ("author", False), "category": ("category", False), "tags": ("tag", True),
                "localizations": ("article", True), "cover": (None, "{ name url width }"),
                "gallery": (None, "{ name mime }"), "seo": (None, "{ metaTitle social { network url } shareImage { name } }"),
                "faq": (None, "{ question answer }"),
                "blocks": (None, "{ __typename ... on ComponentSharedQuote { title body author { name } } "
                                 "... on ComponentSharedRichText { body } ... on ComponentSharedSlider { files { name } } }")},
    "author": {"articles": ("article", True), "mentor": ("author", False), "avatar": (None, "{ name }")},
    "category": {"articles": ("article", True), "parent": ("category", False), "children": ("category", True)},
    "tag": {"articles": ("article", True)},
}
GQL_ROOT = {"article": "articles", "author": "authors", "category": "categories", "tag": "tags"}


def gql_literal(ty, v):
    kind = KIND.get(ty, "string")
    if kind == "number":
        try:
            x = float(v)
        except ValueError:
            return json.dumps(v)
        return str(int(x)) if ty in ("integer", "biginteger") and x == int(x) else repr(x)
    if kind == "boolean":
        return "true" if v in ("true", "1", "True") else "false"
    return json.dumps(v)


class GqlGen(Gen):
    def gfilter(self, t, depth=0):
        r = self.r
        x = r.random()
        if depth < 2 and x < 0.2:
            op = r.choice(["and", "or"])
            return f"{op}: [" + ", ".join("{" + self.gfilter(t, depth + 1) + "}" for _ in range(r.randint(1, 3))) + "]"
        if depth < 2 and x < 0.27:
            return "not: {" + self.gfilter(t, depth + 1) + "}"
        if depth < 2 and x < 0.45 and RELATIONS.get(t):
            rel, target = r.choice(list(RELATIONS[t].items()))
            return f"{rel}: {{" + self.gfilter(target, depth + 1) + "}"
        f = r.choice([f for f in SCALARS[t] if f != "id"])
        ty = SCALARS[t][f]
        kind = KIND[ty]
        op = r.choice(OPS[kind]).lstrip("$")
        if op in ("null", "notNull"):
            return f"{f}: {{{op}: {r.choice(['true', 'false'])}}}"
        if op in ("in", "notIn", "between"):
            n = 2 if op == "between" else r.randint(1, 3)
            vals = [gql_literal(ty, self.values.pick(r, t, f)) for _ in range(n)]
            return f"{f}: {{{op}: [{', '.join(vals)}]}}"
        return f"{f}: {{{op}: {gql_literal(ty, self.values.pick(r, t, f))}}}"

    def gsort(self, t):
        fields = [f for f in GQL_SCALARS[t] if f not in ("metadata", "content")]
        keys = [f"{self.r.choice(fields)}{self.r.choice(['', ':asc', ':desc'])}" for _ in range(self.r.randint(1, 2))]
        return "[" + ", ".join(json.dumps(k) for k in keys) + "]"

    def gpagination(self):
        r = self.r
        if r.random() < 0.5:
            return f"{{page: {r.randint(1, 3)}, pageSize: {r.randint(1, 10)}}}"
        return f"{{start: {r.randint(0, 10)}, limit: {r.randint(1, 10)}}}"

    def gargs(self, t, root):
        r = self.r
        args = []
        if r.random() < 0.6:
            args.append("filters: {" + self.gfilter(t) + "}")
        if r.random() < 0.5:
            args.append("sort: " + self.gsort(t))
        if r.random() < 0.3:
            args.append("pagination: " + self.gpagination())
        if root and t in ("article", "category") and r.random() < 0.3:
            args.append(f"status: {r.choice(['DRAFT', 'PUBLISHED'])}")
        if root and t == "article" and r.random() < 0.3:
            args.append(f"locale: {json.dumps(r.choice(['en', 'fr', 'de', 'es']))}")
        return "(" + ", ".join(args) + ")" if args else ""

    def gselection(self, t, depth):
        r = self.r
        parts = ["documentId"] + r.sample(GQL_SCALARS[t], r.randint(1, min(5, len(GQL_SCALARS[t]))))
        if depth < 2:
            for rel in r.sample(list(GQL_RELATIONS[t]), r.randint(0, min(3, len(GQL_RELATIONS[t])))):
                target, shape = GQL_RELATIONS[t][rel]
                if target is None:
                    parts.append(f"{rel} {shape}")
                elif shape:  # a list: arguments allowed
                    parts.append(f"{rel}{self.gargs(target, False)} {{ {self.gselection(target, depth + 1)} }}")
                else:
                    parts.append(f"{rel} {{ {self.gselection(target, depth + 1)} }}")
        return " ".join(parts)

    def graphql(self):
        r = self.r
        t = r.choices(list(GQL_ROOT), weights=[6, 2, 2, 1])[0]
        root = GQL_ROOT[t]
        if r.random() < 0.3:
            return (f"{{ {root}_connection{self.gargs(t, True)} {{ nodes {{ {self.gselection(t, 0)} }} "
                    f"pageInfo {{ total page pageSize pageCount }} }} }}")
        return f"{{ {root}{self.gargs(t, True)} {{ {self.gselection(t, 0)} }} }}"


# ------------------------------------------------------------------------------------ running

def escape(v):
    """A value as a line of queries.txt holds it: `%`, `&`, `#`, `+` and line breaks escaped."""
    for ch, code in (("%", "%25"), ("&", "%26"), ("#", "%23"), ("+", "%2B"), ("\n", "%0A"), ("\r", "%0D")):
        v = v.replace(ch, code)
    return v


def encode(line):
    """As tests/common's `encode`: percent-encode what is not ASCII-printable, and spaces."""
    out = []
    for ch in line:
        if ch == " " or ord(ch) > 126 or ord(ch) < 33:
            out.append(urllib.parse.quote(ch, safe=""))
        elif ch in "[]":
            out.append(urllib.parse.quote(ch, safe=""))
        else:
            out.append(ch)
    return "".join(out)


def send(port, method, path, auth, body=None):
    """One request to 127.0.0.1:`port` (`body`, if any, as JSON): its status and its JSON
    (the text where it is not JSON, None where it is empty)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": auth} if auth else {}
    if body is not None:
        headers["Content-Type"] = "application/json"
    c.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    r = c.getresponse()
    data = r.read()
    c.close()
    try:
        return r.status, json.loads(data) if data else None
    except ValueError:
        return r.status, data.decode("utf-8", "replace")


def get(port, path, auth):
    return send(port, "GET", path, auth)


def post_graphql(port, query, auth):
    return send(port, "POST", "/graphql", auth, {"query": query})


def canonical(v, key=""):
    if isinstance(v, dict):
        return {k: canonical(x, k) for k, x in v.items()}
    if isinstance(v, list):
        items = [canonical(x) for x in v]
        if key == "localizations":
            items.sort(key=lambda x: json.dumps(x, sort_keys=True))
        return items
    return v


def first_difference(a, b, path=""):
    if type(a) is not type(b):
        return f"{path}: {json.dumps(a)[:200]} vs {json.dumps(b)[:200]}"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}.{k}: only in {'strapi' if k in a else 'strata'}"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {json.dumps(a)[:200]} vs {json.dumps(b)[:200]}"


class Strata:
    def __init__(self, binary, db, port, log, schemas=os.path.join(ROOT, "tests/fixtures/blog/schemas")):
        config = os.path.join(os.path.dirname(log), "strata.toml")
        with open(config, "w") as f:
            f.write("[api.graphql]\nenabled = true\n")
        env = dict(os.environ, STRATA_LOG="warn", API_TOKEN_SALT=af.SALT, STRATA_ANSWER_CACHE_MB="0",
                   STRATA_CONFIG=config)
        self.proc = subprocess.Popen(
            [binary, "serve", "--schemas", schemas,
             "--database", db, "--port", str(port)],
            env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True)
        for _ in range(300):
            if self.proc.poll() is not None:
                raise SystemExit(f"strata exited with {self.proc.returncode}; see {log}")
            try:
                get(port, "/_health", None)
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise SystemExit(f"strata did not start; see {log}")

    def stop(self):
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strata", required=True)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--oracle", default="/work/oracle")
    ap.add_argument("--out")
    ap.add_argument("--graphql", action="store_true", help="random GraphQL queries instead of REST reads")
    ap.add_argument("--lines", help="send these requests (a file of queries.txt lines) instead of random ones")
    ap.add_argument("--show", action="store_true", help="print both answers of a differing request")
    ap.add_argument("--record", help="write Strapi's answers to the requests sent here, as tests/oracle_edges.rs replays them")
    ap.add_argument("--backend", choices=["sqlite", "postgres", "mysql"], default="sqlite",
                    help="the database both servers serve (postgres, mysql: a scratch copy of the blog fixture)")
    ap.add_argument("--auth", choices=["full", "public"], default="full")
    ap.add_argument("--strapi-port", type=int, default=1349)
    ap.add_argument("--strata-port", type=int, default=1399)
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="fuzz_reads_")
    scratch = f"fuzz_reads_{os.getpid()}"
    rel = os.path.join(".tmp", f"{scratch}.db")
    strapi_db = os.path.join(args.oracle, rel)
    if args.backend == "sqlite":
        strata_db = os.path.join(work, "strata.db")
        os.makedirs(os.path.dirname(strapi_db), exist_ok=True)
        for path in (strapi_db, strata_db):
            shutil.copyfile(BLOG_DB, path)
            con = sqlite3.connect(path)
            for s in rw.seed_sql("sqlite", []):
                con.execute(s)
            con.commit()
            con.close()
        strata_url = f"sqlite://{strata_db}"
        strapi_env = {"DATABASE_CLIENT": "sqlite", "DATABASE_FILENAME": rel}
    else:
        # One scratch database that both servers serve (neither writes).
        restore = "restore_blog_pg" if args.backend == "postgres" else "restore_blog_mysql"
        subprocess.run(["bash", "-c", f". bench/lib.sh && {restore} {scratch}"], cwd=ROOT, check=True)
        seed = ";\n".join(rw.seed_sql(args.backend, [])) + ";"
        if args.backend == "postgres":
            subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-U", "postgres", "-d", scratch],
                           input=seed, text=True, check=True, stdout=subprocess.DEVNULL)
            strata_url = f"postgres://postgres@127.0.0.1:5432/{scratch}"
            strapi_env = {"DATABASE_CLIENT": "postgres", "DATABASE_PORT": "5432", "DATABASE_NAME": scratch}
        else:
            subprocess.run(["mysql", "-h", "127.0.0.1", "-uroot", scratch], input=seed, text=True, check=True)
            strata_url = f"mysql://root@127.0.0.1:3306/{scratch}"
            strapi_env = {"DATABASE_CLIENT": "mysql", "DATABASE_PORT": "3306", "DATABASE_NAME": scratch}

    class Backend:
        def env(self):
            return strapi_env

    strapi = rw.Strapi(args.oracle, args.strapi_port, Backend(), os.path.join(work, "strapi.log"))
    strata = None
    differing = []
    recorded = []
    try:
        strapi.start()
        strata = Strata(args.strata, strata_url, args.strata_port, os.path.join(work, "strata.log"))
        gen = GqlGen(random.Random(args.seed), Values(BLOG_DB))
        auth = "Bearer " + rw.token_key(200) if args.auth == "full" else None
        lines = None
        if args.lines:
            lines = [x for x in open(args.lines).read().splitlines() if x and not x.startswith("#")]
        for n in range(len(lines) if lines else args.count):
            line = lines[n] if lines else (gen.graphql() if args.graphql else gen.request())
            if args.graphql:
                a = post_graphql(args.strapi_port, line, auth)
                b = post_graphql(args.strata_port, line, auth)
            else:
                path = encode(line)
                a = get(args.strapi_port, path, auth)
                b = get(args.strata_port, path, auth)
            recorded.append({"n": n + 1, "line": line, "request": f"GET {line}", "status": a[0], "body": a[1]})
            if a[0] != b[0]:
                d = f"status {a[0]} vs {b[0]}: {json.dumps(a[1])[:300]} / {json.dumps(b[1])[:300]}"
            else:
                d = first_difference(canonical(a[1]), canonical(b[1]))
            if d:
                differing.append(line)
                print(f"#{n} {line}\n    {d}", flush=True)
                if args.show:
                    print("    strapi:", json.dumps(a[1]), "\n    strata:", json.dumps(b[1]), flush=True)
        print(f"{len(differing)} of {n + 1} differ", flush=True)
    finally:
        if strata:
            strata.stop()
        strapi.stop()
        for suffix in ("", "-wal", "-shm", "-journal"):
            if os.path.exists(strapi_db + suffix):
                os.remove(strapi_db + suffix)
        if args.backend == "postgres":
            subprocess.run(["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c",
                            f"DROP DATABASE IF EXISTS {scratch}"], check=False)
        elif args.backend == "mysql":
            subprocess.run(["mysql", "-h", "127.0.0.1", "-uroot", "-e", f"DROP DATABASE IF EXISTS {scratch}"], check=False)
        shutil.rmtree(work, ignore_errors=True)
    if args.record:
        with open(args.record, "w") as f:
            json.dump(recorded, f, indent=1, ensure_ascii=False)
            f.write("\n")
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(differing) + ("\n" if differing else ""))


if __name__ == "__main__":
    main()
