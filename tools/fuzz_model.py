#!/usr/bin/env python3
"""Random REST reads on another content model, asked of the real Strapi 5.54 and of strata.

usage:
  python3 tools/fuzz_model.py --strata BIN [--schemas DIR] [--count N] [--seed S] [--docs N]
                              [--oracle DIR] [--show] [--graphql]
                              [--writes [--bad S] [--log FILE]] [--backend sqlite|postgres|mysql]

`--schemas` is a Strapi project's `src` folder (default: tests/fixtures/launchpad/src, the
LaunchPad demo's schemas). The tool
  1. makes a copy of the oracle whose content types and components are that model's only,
     and boots it on a new SQLite database (Strapi creates the tables);
  2. writes content through Strapi's own REST API with a full-access token: `--docs`
     documents of every collection type and each single type, with random scalars,
     components (nested, repeatable), dynamic-zone items and relations between them;
  3. serves a copy of that database with strata, and sends both servers N random reads
     made from the schemas (filters on every scalar and through relations and
     components, sorts, `fields`, `populate` with nested options and zone `on`,
     pagination, `status`), comparing status and JSON as tools/fuzz_reads.py does.

`--graphql` sends random GraphQL queries instead, made from the schema Strapi's GraphQL
plugin serves for the model (tools/gql_model_gen.py).

`--writes` compares writes instead: both servers start from copies of one empty database
and get the same random REST writes (`--docs` documents of each type, relations between
them, other locales, drafts, some deleted, more written; `--bad S`: that share of scalar
values wrong or at an edge); their answers are compared once documentIds are mapped and
timestamps blanked, then their database tables. `--writes --graphql` sends each of those
writes as the GraphQL mutation it stands for (`createX`, `updateX`, `deleteX`; `data` mostly
as a variable, else inline), and compares the mutations' answers (`data`, errors' messages,
paths and codes); see GraphqlDualWriter.

`--backend postgres|mysql` runs both on the machine's server instead (127.0.0.1:5432 user
postgres, 127.0.0.1:3306 root): Strapi on a new database, strata on a copy of it made once
the tokens are in, both dropped at the end.
"""
import argparse
import http.client
import json
import os
import random
import re
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
import fuzz_reads as fr  # noqa: E402
import gen_sequences as gs  # noqa: E402
import gql_model_gen as gql  # noqa: E402
import record_writes as rw  # noqa: E402

SCALAR_KIND = {"string": "string", "text": "string", "richtext": "string", "email": "string",
               "uid": "string", "enumeration": "string", "integer": "number", "biginteger": "number",
               "float": "number", "decimal": "number", "boolean": "boolean", "date": "date",
               "datetime": "date", "time": "date"}
WORDS = ["alpha", "Beta", "gamma", "Delta", "épsilon", "zeta", "ETA", "theta", "iota", "kappa", "100%", "a_b"]


class Model:
    """The content types and components of a schemas folder."""

    def __init__(self, src):
        self.types, self.components = {}, {}
        for api in sorted(os.listdir(os.path.join(src, "api"))):
            ct = os.path.join(src, "api", api, "content-types")
            for name in sorted(os.listdir(ct)) if os.path.isdir(ct) else []:
                s = json.load(open(os.path.join(ct, name, "schema.json")))
                s["uid"] = f"api::{api}.{name}"
                self.types[s["uid"]] = s
        comp = os.path.join(src, "components")
        for cat in sorted(os.listdir(comp)) if os.path.isdir(comp) else []:
            for f in sorted(os.listdir(os.path.join(comp, cat))):
                if f.endswith(".json"):
                    self.components[f"{cat}.{f[:-5]}"] = json.load(open(os.path.join(comp, cat, f)))

    def collection_types(self):
        return [u for u, s in self.types.items() if s["kind"] == "collectionType"]

    def single_types(self):
        return [u for u, s in self.types.items() if s["kind"] == "singleType"]

    def scalars(self, schema):
        return {k: a["type"] for k, a in schema["attributes"].items() if a["type"] in SCALAR_KIND
                and not a.get("private")}

    def relations(self, schema):
        return {k: a["target"] for k, a in schema["attributes"].items()
                if a["type"] == "relation" and a.get("target", "").startswith("api::")}


# ------------------------------------------------------------------------------------ content

# Values a validator refuses, or takes at an edge, by attribute type (--bad); BAD_ANY for
# every type. NULL is sent as JSON null (a scalar of None is left out).
NULL = object()
BAD_ANY = [[], {}, {"a": 1}, [1, 2], "", True, 0, -1, 1.5, "x" * 300, "'; DROP TABLE x; --", NULL]
BAD_VALUES = {
    "string": [123, " ", "\u0000", "é" * 255, "é" * 256],
    "text": [12, "a\nb"],
    "richtext": [12],
    "email": ["not-an-email", "a@b", "@example.com", "A@EXAMPLE.COM", " a@example.com"],
    "uid": ["a b", "UPPER", "a/b", "é", "-a-", "a" * 256, 12],
    "enumeration": ["four", "ONE", 1, ""],
    "integer": [2 ** 31, -2 ** 31 - 1, 2 ** 31 - 1, "12", "1e3", 1e3, 12.0, "0x10", "-0"],
    "biginteger": ["9223372036854775807", "9223372036854775808", 2 ** 53 + 1, "-12", "1.5", " 3"],
    "float": ["1.5", 1e308, -0.0, "NaN", 1e-320],
    "decimal": ["1.5", "1,5", 1e20, 0.1 + 0.2],
    "boolean": ["true", "false", 1, 0, "yes", "1", "t"],
    "date": ["2024-02-30", "2024-13-01", "24-01-01", "2024-01-01T10:00:00Z", 20240101, "2024-1-1"],
    "datetime": ["2024-01-01", "2024-01-01T25:00:00Z", "yesterday", 1704067200000, "2024-01-01 10:00",
                 "2024-01-01T10:00:00+02:00"],
    "time": ["25:00", "10:00", "10:00:00", "10:61:00.000", 1000, "10:00:00.1234"],
    "json": ["{", "[1,2]", 12, "x", NULL],
    "password": [12, "short", "x" * 80],
}


class Writer:
    def __init__(self, model, port, auth, rnd):
        self.m, self.port, self.auth, self.r = model, port, auth, rnd
        self.ids = {u: [] for u in model.types}
        self.bad = 0.0  # the share of scalar values that are wrong or at an edge (--bad)

    def scalar(self, a, name):
        t, r = a["type"], self.r
        if self.bad and r.random() < self.bad:
            return r.choice(BAD_VALUES.get(t, []) + BAD_ANY)
        if t in ("string", "text", "richtext"):
            return " ".join(r.sample(WORDS, r.randint(1, 3)))
        if t == "email":
            return f"{r.choice(WORDS[:4]).lower()}@example.com"
        if t == "uid":
            return f"{r.choice(WORDS[:8]).lower()}-{r.randint(1, 999)}"
        if t == "enumeration":
            return r.choice(a["enum"])
        if t in ("integer", "biginteger"):
            return r.randint(-5, 500)
        if t in ("float", "decimal"):
            return round(r.uniform(-10, 100), 2)
        if t == "boolean":
            return r.random() < 0.5
        if t == "date":
            return f"2024-0{r.randint(1, 9)}-1{r.randint(0, 9)}"
        if t == "datetime":
            return f"2024-0{r.randint(1, 9)}-1{r.randint(0, 9)}T1{r.randint(0, 9)}:00:00.000Z"
        if t == "time":
            return f"1{r.randint(0, 9)}:30:00.000"
        if t == "json":
            return {"k": r.randint(1, 9)}
        if t == "blocks":
            return [{"type": "paragraph", "children": [{"type": "text", "text": r.choice(WORDS)}]}]
        return None

    def attrs(self, attributes, depth, relations):
        out = {}
        for name, a in attributes.items():
            if self.r.random() < 0.15 and not a.get("required"):
                continue
            t = a["type"]
            if t == "component":
                comp = self.m.components.get(a["component"])
                if comp is None or depth > 3:
                    continue
                if a.get("repeatable"):
                    out[name] = [self.attrs(comp["attributes"], depth + 1, relations)
                                 for _ in range(self.r.randint(0, 2))]
                else:
                    out[name] = self.attrs(comp["attributes"], depth + 1, relations)
            elif t == "dynamiczone":
                items = []
                for _ in range(self.r.randint(0, 3)):
                    c = self.r.choice(a["components"])
                    if c in self.m.components:
                        item = self.attrs(self.m.components[c]["attributes"], depth + 1, relations)
                        # Mostly first, as clients write it; now and then last (Strapi then
                        # refuses it after a relation, media or component).
                        items.append({"__component": c, **item} if self.r.random() < 0.9
                                     else {**item, "__component": c})
                out[name] = items
            elif t == "relation":
                if not relations or not a.get("target", "").startswith("api::"):
                    continue
                pool = self.ids.get(a["target"], [])
                if not pool:
                    continue
                if a["relation"] in ("oneToOne", "manyToOne"):
                    out[name] = self.r.choice(pool)
                else:
                    out[name] = self.r.sample(pool, self.r.randint(0, min(3, len(pool))))
            elif t == "media":
                continue
            else:
                v = self.scalar(a, name)
                if v is NULL:
                    out[name] = None
                elif v is not None:
                    out[name] = v
        return out

    def send(self, method, path, body):
        return fr.send(self.port, method, path, self.auth, body)

    def fill(self, docs):
        m = self.m
        made = 0
        for relations in (False, True):
            for uid in m.collection_types():
                s = m.types[uid]
                plural = s["info"]["pluralName"]
                if not relations:
                    for _ in range(docs):
                        for _attempt in range(3):
                            status, body = self.send("POST", f"/api/{plural}",
                                                     {"data": self.attrs(s["attributes"], 0, False)})
                            if status == 201:
                                self.ids[uid].append(body["data"]["documentId"])
                                made += 1
                                break
                else:
                    rel = {k: a for k, a in s["attributes"].items() if a["type"] == "relation"}
                    for doc in self.ids[uid]:
                        data = self.attrs(rel, 0, True)
                        if data:
                            self.send("PUT", f"/api/{plural}/{doc}", {"data": data})
            for uid in m.single_types():
                s = m.types[uid]
                status, _ = self.send("PUT", f"/api/{s['info']['singularName']}",
                                      {"data": self.attrs(s["attributes"], 0, relations)})
                made += status == 200
        # Other locales of localized types (the project has `fr` besides `en`).
        for uid in m.collection_types():
            s = m.types[uid]
            if not s.get("pluginOptions", {}).get("i18n", {}).get("localized"):
                continue
            for doc in self.ids[uid][: max(1, docs // 2)]:
                status = "?locale=fr" + ("&status=draft" if self.r.random() < 0.3 else "")
                self.send("PUT", f"/api/{s['info']['pluralName']}/{doc}{status}",
                          {"data": self.attrs(s["attributes"], 0, True)})
        # Some drafts ahead of their published versions.
        for uid in m.collection_types():
            s = m.types[uid]
            if s.get("options", {}).get("draftAndPublish"):
                for doc in self.ids[uid][: max(1, docs // 3)]:
                    data = {k: v for k, v in self.attrs(s["attributes"], 0, False).items()
                            if m.types[uid]["attributes"][k]["type"] in SCALAR_KIND}
                    self.send("PUT", f"/api/{s['info']['pluralName']}/{doc}?status=draft", {"data": data})
        return made


class DualWriter(Writer):
    """Sends every write to Strapi and to strata, each on its own copy of one database,
    and compares the answers once documentIds are mapped (strata's to Strapi's, by
    creation) and timestamps blanked."""

    def __init__(self, model, ports, auth, rnd):
        super().__init__(model, ports[0], auth, rnd)
        self.strata_port = ports[1]
        self.docs = {}  # Strapi's documentId -> strata's
        self.differing = []
        self.show = False  # --show: print a differing write's body and answers whole
        self.steps = 0
        self.log = None  # a file each write goes to, as strata got it (--log)
        self.revive = None  # restarts Strapi where a write killed it (then answered "died")
        self.deaths = 0

    def send(self, method, path, body):
        def made(answer, port):
            status, body = answer
            if method in ("POST", "PUT") and status in (200, 201) and isinstance(body, dict):
                return (body.get("data") or {}).get("documentId")
            return None
        return self.both(method, path, body, made, lambda body: body)

    def both(self, method, path, body, made, compared):
        """Sends one request to Strapi, and to strata with Strapi's documentIds turned into
        strata's; learns the documentId `made(answer, port)` names for both servers (a new
        document: a POST, or a single type's first PUT) and records a difference between
        `compared(body)` of both answers. Returns Strapi's answer."""
        try:
            a = self.one(self.port, method, path, body)
        except (OSError, http.client.HTTPException):
            # Node exits on some unhandled database errors (a NUL byte in a unique string's
            # lookup on PostgreSQL): counted as an answer of its own, Strapi started again.
            if not self.revive:
                raise
            self.deaths += 1
            self.revive()
            a = ("died", None)
        theirs = json.dumps(body)
        for mine, other in self.docs.items():
            theirs = theirs.replace(mine, other)
        strata_path, strata_body = self.to_strata_path(path), json.loads(theirs)
        b = self.one(self.strata_port, method, strata_path, strata_body)
        mine, other = made(a, self.port), made(b, self.strata_port)
        if self.log:
            self.log.write(json.dumps({"method": method, "path": strata_path, "body": strata_body,
                                       "strapi": a[0], "strata": b[0], "made": other}) + "\n")
        if a[0] == b[0] and mine and other and mine not in self.docs:
            self.docs[mine] = other
        self.steps += 1
        back = {v: k for k, v in self.docs.items()}
        d = (fr.first_difference(blank(compared(a[1]), {}), blank(compared(b[1]), back)) if a[0] == b[0]
             else f"status {a[0]} vs {b[0]}")
        if d:
            cut = None if self.show else 300
            self.differing.append(f"{self.describe(method, path, body, cut)}\n    {d}\n    strapi: "
                                  f"{json.dumps(a[1])[:cut and 600]}\n    strata: {json.dumps(b[1])[:cut and 600]}")
        return a

    def describe(self, method, path, body, cut):
        return f"{method} {path} {json.dumps(body)[:cut]}"

    def to_strata_path(self, path):
        for mine, other in self.docs.items():
            path = path.replace(mine, other)
        return path

    def one(self, port, method, path, body):
        return fr.send(port, method, path, self.auth, body)

    def deletes(self, n):
        for uid in self.m.collection_types():
            plural = self.m.types[uid]["info"]["pluralName"]
            for doc in self.r.sample(self.ids[uid], min(n, len(self.ids[uid]))):
                self.send("DELETE", f"/api/{plural}/{doc}", None)
                self.ids[uid].remove(doc)


class GraphqlDualWriter(DualWriter):
    """`--writes --graphql`: DualWriter's writes, each sent to both servers as the GraphQL
    mutation it stands for: a POST as `createX(data:, status:, locale:)`, a PUT as
    `updateX(documentId:, data:, status:, locale:)` (a single type's without documentId),
    a DELETE as `deleteX(documentId:, locale:)`; `status` and `locale` those of the path
    (now and then another one), `data` mostly a variable (`$data: XInput!`), else an inline
    literal. The REST data becomes GraphQL input by the introspected input types:
    enumerations by their GraphQL names, a zone item's `__component` as `__typename` (the
    component's GraphQL type), keys the input type lacks dropped unless `bad` is set.
    The answer compared is the mutation's `data`, and each error's message, path and
    `extensions.code`. A document written whose answer is null (a draft lacking a required
    field: `Cannot return null for non-nullable field`) is found through REST (`newest`) to
    map its documentId."""

    NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]*$")

    def __init__(self, model, ports, auth, rnd, schema):
        super().__init__(model, ports, auth, rnd)
        self.s = schema
        # GraphQL's names of types, by their letters and digits in lower case ("blog-page",
        # "BlogPage": "blogpage"), for the names of content types and components.
        self.type_names = {squeeze(n): n for n in schema.types}
        self.answers = gql.GqlModelGen(schema, rnd, full=True)
        self.mutations = {f["name"]: f for f in schema.types["Mutation"]["fields"]}
        self.by_path = {}  # a REST path's name -> the type's uid
        for uid, t in model.types.items():
            self.by_path[t["info"]["pluralName" if t["kind"] == "collectionType" else "singularName"]] = uid
        self.variables = 0  # how many mutations took `data` as a variable, and inline
        self.inline = 0

    # ------------------------------------------------------------------ REST -> GraphQL

    def send(self, method, path, body):
        url = urllib.parse.urlsplit(path)
        parts = url.path.split("/")  # ["", "api", name, documentId?]
        uid = self.by_path[parts[2]]
        params = dict(urllib.parse.parse_qsl(url.query))
        field, query, variables, locale = self.mutation(method, uid, parts[3] if len(parts) > 3 else None,
                                                        params, (body or {}).get("data"))
        request = {"query": query, **({"variables": variables} if variables is not None else {})}

        def made(answer, port):
            status, body = answer
            if method == "DELETE" or status != 200 or not isinstance(body, dict):
                return None
            doc = ((body.get("data") or {}).get(field) or {}).get("documentId")
            errors = [e.get("message", "") for e in body.get("errors") or []]
            if not doc and errors and all(m.startswith("Cannot return null for non-nullable field") for m in errors):
                # Written, but the answer is null: a draft without a required (non-null) field.
                return self.newest(port, uid, locale) if method == "POST" or len(parts) == 3 else None
            return doc
        status, answer = self.both("POST", "/graphql", request, made, self.compared)
        # What fill() expects of a REST answer.
        result = ((answer.get("data") or {}).get(field)) if isinstance(answer, dict) else None
        if result is None:
            return (400 if status == 200 else status), answer
        return (201 if method == "POST" else 200), {"data": result}

    def mutation(self, method, uid, doc, params, data):
        """The mutation field's name, the query, its variables (None: none) and the locale
        it names (None: none)."""
        r = self.r
        name = self.type_names[squeeze(self.m.types[uid]["info"]["singularName"])]
        field = {"POST": "create", "PUT": "update", "DELETE": "delete"}[method] + name
        declared = {a["name"]: a["type"] for a in self.mutations[field]["args"]}
        args = []
        if doc and "documentId" in declared:
            args.append(f"documentId: {json.dumps(doc)}")
        status = params.get("status")
        if "status" in declared and method != "DELETE" and not status and r.random() < 0.15:
            status = r.choice(["draft", "published"])
        if status and "status" in declared:
            args.append(f"status: {status.upper()}")
        locale = params.get("locale")
        if "locale" in declared and not locale and r.random() < 0.1:
            locale = r.choice(["en", "fr"])
        if locale and "locale" in declared:
            args.append(f"locale: {json.dumps(locale)}")
        head, variables = "mutation", None
        if data is not None and "data" in declared:
            input_name = gql.named(declared["data"])[0]
            value = self.to_input(data, input_name, self.m.types[uid]["attributes"])
            if r.random() < 0.75:
                head, variables = f"mutation Write($data: {input_name}!)", {"data": value}
                args.append("data: $data")
                self.variables += 1
            else:
                args.append(f"data: {self.literal(value, input_name)}")
                self.inline += 1
        selection = "documentId" if method == "DELETE" else self.answers.selection(name, 0)
        return field, f"{head} {{ {field}({', '.join(args)}) {{ {selection} }} }}", variables, locale

    def newest(self, port, uid, locale):
        """The documentId of the newest document of type `uid` in `locale` (None: the
        default), read through REST."""
        t = self.m.types[uid]
        query = "status=draft&fields[0]=documentId"
        if locale and t.get("pluginOptions", {}).get("i18n", {}).get("localized"):
            query += f"&locale={locale}"
        if t["kind"] == "singleType":
            _, body = fr.get(port, fr.encode(f"/api/{t['info']['singularName']}?{query}"), self.auth)
            return ((body or {}).get("data") or {}).get("documentId")
        _, body = fr.get(port, fr.encode(f"/api/{t['info']['pluralName']}?{query}&sort[0]=id:desc"
                                         "&pagination[pageSize]=1"), self.auth)
        return next((e.get("documentId") for e in (body or {}).get("data") or []), None)

    def to_input(self, value, input_name, attributes):
        """REST data `value` as the value of GraphQL input type `input_name`, whose
        attributes (a content type's or a component's) are `attributes`."""
        t = self.s.types.get(input_name)
        if not isinstance(value, dict) or not t or t["kind"] != "INPUT_OBJECT":
            return value
        fields = {f["name"]: f["type"] for f in t["inputFields"]}
        out = {}
        for k, v in value.items():
            a = attributes.get(k) or {}
            if k not in fields:
                if self.bad:
                    out[k] = v
                continue
            name, kind, _ = gql.named(fields[k])
            if kind == "ENUM" and a.get("enum"):
                names = [e["name"] for e in self.s.types[name]["enumValues"]]
                if len(names) == len(a["enum"]) and v in a["enum"]:
                    v = names[a["enum"].index(v)]
            elif kind == "INPUT_OBJECT" and a.get("type") == "component":
                comp = self.m.components[a["component"]]["attributes"]
                v = ([self.to_input(x, name, comp) for x in v] if isinstance(v, list)
                     else self.to_input(v, name, comp))
            elif a.get("type") == "dynamiczone" and isinstance(v, list):
                v = [self.zone_item(x) for x in v]
            out[k] = v
        return out

    def zone_item(self, item):
        """A zone item's `__component` as `__typename`, in its place (left as it is now and
        then when bad values are on)."""
        if not isinstance(item, dict) or "__component" not in item or (self.bad and self.r.random() < 0.1):
            return item
        typename = self.type_names.get(squeeze("component" + item["__component"]), item["__component"])
        return {("__typename" if k == "__component" else k): (typename if k == "__component" else v)
                for k, v in item.items()}

    def literal(self, v, type_name):
        """`v` as a GraphQL literal of the named input type `type_name` (tools/gen_sequences.py's
        `gql_value`, with the strings that stand where the input type has an enum written bare)."""
        return gs.gql_value(self.enums_marked(v, type_name))

    def enums_marked(self, v, type_name):
        """`v` with each string that stands where its input type has an enum (and is a GraphQL
        name) made a `GqlEnum`; `type_name` None: a scalar's inside, where every string stays."""
        t = self.s.types.get(type_name) if type_name else None
        if isinstance(v, str):
            enum = t and t["kind"] == "ENUM" and self.NAME.match(v) and v not in ("true", "false", "null")
            return gs.GqlEnum(v) if enum else v
        if isinstance(v, list):
            return [self.enums_marked(x, type_name) for x in v]
        if isinstance(v, dict):
            fields = ({f["name"]: gql.named(f["type"])[0] for f in t["inputFields"]}
                      if t and t["kind"] == "INPUT_OBJECT" else {})
            return {k: self.enums_marked(x, fields.get(k)) for k, x in v.items()}
        return v

    # ------------------------------------------------------------------ answers

    @staticmethod
    def compared(body):
        """What of a GraphQL answer is compared: `data`, and each error's message, path and code."""
        if not isinstance(body, dict):
            return body
        out = {"data": body.get("data")}
        if "errors" in body:
            out["errors"] = [{"message": e.get("message"), "path": e.get("path"),
                              "code": (e.get("extensions") or {}).get("code")} for e in body["errors"]]
        return out

    def describe(self, method, path, body, cut):
        text = body["query"] + ("\n    variables: " + json.dumps(body["variables"], ensure_ascii=False)
                                if "variables" in body else "")
        return text[:cut and 3 * cut]


def squeeze(name):
    """`name`'s letters and digits in lower case."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


TIMESTAMPS = {"createdAt", "updatedAt", "publishedAt", "created_at", "updated_at", "published_at"}


def blank(v, docs, key=""):
    """`v` with timestamps blanked and documentIds mapped by `docs`."""
    if isinstance(v, dict):
        return {k: blank(x, docs, k) for k, x in v.items()}
    if isinstance(v, list):
        return [blank(x, docs) for x in v]
    if key in TIMESTAMPS and v is not None:
        return "T"
    if isinstance(v, str) and docs:
        if v in docs:
            return docs[v]
        # A documentId inside a message.
        for theirs, mine in docs.items():
            if theirs in v:
                v = v.replace(theirs, mine)
    return v


def rows_differences(a_tables, b_tables, docs):
    """The content tables (`{table: rows}`, Strapi's first) that differ once strata's
    documentIds are mapped to Strapi's and timestamps blanked."""
    out = []
    for t in sorted(a_tables):
        if t.startswith(("strapi_", "admin_", "sqlite_")) or t in ("up_permissions_role_lnk", "up_permissions"):
            continue
        if t not in b_tables:
            out.append(f"{t}: missing from strata's database")
            continue
        rows_a = [blank(r, {}) for r in a_tables[t]]
        rows_b = [blank(r, docs) for r in b_tables[t]]
        for r in rows_a + rows_b:
            if r.get("document_id") is not None:
                r["document_id"] = docs.get(r["document_id"], r["document_id"])
        if rows_a != rows_b:
            d = fr.first_difference(rows_a, rows_b) or "rows differ"
            out.append(f"{t}: {d}")
    return out


class ServerDatabases:
    """`--backend postgres|mysql`: Strapi's database and strata's copy of it on the
    machine's server, through tools/record_writes.py's backends (their `dump`)."""

    def __init__(self, kind, project):
        cls = rw.BACKENDS[kind]
        tag = f"fz{os.getpid()}"
        self.dialect = kind
        self.strapi = cls(f"{tag}_strapi", project)
        self.strata = cls(f"{tag}_strata", project)
        for b in (self.strapi, self.strata):
            b.create(b.db) if kind == "postgres" else b.create()

    def env(self):
        return self.strapi.env()

    def execute(self, statements):
        b = self.strapi
        if self.dialect == "postgres":
            rw.run(["psql", *b.base, "-d", b.db, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-At"],
                   input="begin;\n" + ";\n".join(statements) + ";\ncommit;\n")
        else:
            rw.run(["mysql", *b.base, "--default-character-set=utf8mb4", b.db], input=";\n".join(statements) + ";\n")

    def copy(self, keep_as=None):
        """strata's database: a copy of Strapi's as it is now (`keep_as`: SQLite only)."""
        a, b = self.strapi, self.strata
        if self.dialect == "postgres":
            text = rw.run(["pg_dump", *a.base, "--no-owner", a.db]).stdout
            rw.run(["psql", *b.base, "-d", b.db, "-v", "ON_ERROR_STOP=1", "-X", "-q"], input=text)
            return f"postgres://postgres@127.0.0.1:5432/{b.db}"
        text = rw.run(["mysqldump", *a.base, "--default-character-set=utf8mb4", "--single-transaction",
                       "--hex-blob", a.db]).stdout
        rw.run(["mysql", *b.base, "--default-character-set=utf8mb4", b.db], input=text)
        return f"mysql://root@127.0.0.1:3306/{b.db}"

    def differences(self, docs):
        a = {t: rows for t, (_, rows) in self.strapi.dump().items()}
        b = {t: rows for t, (_, rows) in self.strata.dump().items()}
        return rows_differences(a, b, docs)

    def drop(self):
        for b in (self.strapi, self.strata):
            b.drop()


class SqliteDatabases:
    """The default backend: Strapi's SQLite file in its project, and strata's copy of it;
    the same calls as [`ServerDatabases`]."""

    dialect = "sqlite"

    def __init__(self, project, work):
        self.rel = os.path.join(".tmp", "model.db")
        self.path = os.path.join(project, self.rel)
        self.copy_path = os.path.join(work, "strata.db")
        os.makedirs(os.path.dirname(self.path), exist_ok=True)

    def env(self):
        return {"DATABASE_CLIENT": "sqlite", "DATABASE_FILENAME": self.rel}

    def execute(self, statements):
        con = sqlite3.connect(self.path)
        for stmt in statements:
            con.execute(stmt)
        con.commit()
        con.close()

    def copy(self, keep_as=None):
        """strata's database: a copy of Strapi's as it is now, kept at `keep_as` too."""
        copy_database(self.path, self.copy_path)
        if keep_as:
            shutil.copyfile(self.copy_path, keep_as)
        return f"sqlite://{self.copy_path}"

    def differences(self, docs):
        return table_differences(self.path, self.copy_path, docs)

    def drop(self):
        pass


def sqlite_tables(path):
    """`{table: rows}` of SQLite file `path`, each table's rows in the order of its first column."""
    con = sqlite3.connect(path)
    out = {}
    for (t,) in con.execute("select name from sqlite_master where type='table' order by name").fetchall():
        try:
            cur = con.execute(f'select * from "{t}" order by 1')
        except sqlite3.Error as e:
            print(f"table {t}: {e}", flush=True)
            continue
        cols = [c[0] for c in cur.description]
        out[t] = [dict(zip(cols, r)) for r in cur.fetchall()]
    con.close()
    return out


def table_differences(a_path, b_path, docs):
    """The content tables of two SQLite files that differ, once strata's documentIds are
    mapped to Strapi's and timestamps blanked."""
    return rows_differences(sqlite_tables(a_path), sqlite_tables(b_path), docs)


# ------------------------------------------------------------------------------------ reads

class ModelGen:
    def __init__(self, model, rnd, values):
        self.m, self.r, self.values = model, rnd, values

    def value(self, uid, field, kind):
        vals = self.values.get((uid, field)) or ["x"]
        v = self.r.choice(vals)
        if kind == "string" and self.r.random() < 0.2 and len(v) > 2:
            v = v[: self.r.randint(1, len(v) - 1)]
            v = self.r.choice([v, v.upper()])
        return v

    def leaf(self, uid, schema, prefix, depth):
        r, m = self.r, self.m
        rels = m.relations(schema)
        comps = {k: a["component"] for k, a in schema["attributes"].items() if a["type"] == "component"}
        x = r.random()
        if depth < 2 and x < 0.2 and rels:
            name, target = r.choice(list(rels.items()))
            return self.leaf(target, m.types[target], f"{prefix}[{name}]", depth + 1)
        if depth < 2 and x < 0.3 and comps:
            name, c = r.choice(list(comps.items()))
            cs = m.components.get(c)
            if cs and m.scalars(cs):
                return self.leaf(None, cs, f"{prefix}[{name}]", depth + 1)
        scalars = dict(m.scalars(schema))
        if "documentId" not in scalars and uid:
            scalars["documentId"] = "string"
            scalars["id"] = "integer"
        if not scalars:
            return [(f"{prefix}[id][$notNull]", "true")]
        f = r.choice(list(scalars))
        kind = SCALAR_KIND[scalars[f]]
        op = r.choice(fr.OPS[kind])
        key = f"{prefix}[{f}][{op}]"
        if op in ("$null", "$notNull"):
            return [(key, r.choice(["true", "false"]))]
        if op in ("$in", "$notIn"):
            return [(f"{key}[{i}]", self.value(uid, f, kind)) for i in range(r.randint(1, 3))]
        if op == "$between":
            a, b = self.value(uid, f, kind), self.value(uid, f, kind)
            return [(f"{key}[0]", a), (f"{key}[1]", b)]
        return [(key, self.value(uid, f, kind))]

    def filters(self, uid, schema, prefix):
        return fr.combined_filters(self.r, prefix, lambda p: self.leaf(uid, schema, p, 0))

    def sort(self, uid, schema, key):
        fields = list(self.m.scalars(schema)) + ["id", "createdAt", "documentId"]
        out = []
        for i in range(self.r.randint(1, 2)):
            f = self.r.choice(fields)
            rels = self.m.relations(schema)
            if rels and self.r.random() < 0.15:
                name, target = self.r.choice(list(rels.items()))
                tf = list(self.m.scalars(self.m.types[target])) or ["id"]
                f = f"{name}.{self.r.choice(tf)}"
            out.append((f"{key}[{i}]", f + self.r.choice(["", ":asc", ":desc"])))
        return out

    def fields(self, schema, key):
        names = list(self.m.scalars(schema))
        if not names:
            return []
        return [(f"{key}[{i}]", f) for i, f in enumerate(self.r.sample(names, self.r.randint(1, min(3, len(names)))))]

    def populate(self, uid, schema, key, depth=0):
        r, m = self.r, self.m
        attrs = {k: a for k, a in schema["attributes"].items()
                 if a["type"] in ("relation", "component", "dynamiczone", "media")}
        if not attrs:
            return []
        if depth == 0 and r.random() < 0.15:
            return [(key, "*")]
        chosen = r.sample(list(attrs), r.randint(1, min(3, len(attrs))))
        out = []
        for name in chosen:
            a, k = attrs[name], f"{key}[{name}]"
            if a["type"] == "dynamiczone":
                if r.random() < 0.5:
                    out.append((f"{k}[populate]", "*"))
                else:
                    for c in r.sample(a["components"], r.randint(1, min(2, len(a["components"])))):
                        out.append((f"{k}[on][{c}][populate]", "*"))
                continue
            if a["type"] == "media":
                out.append((k, "true"))
                continue
            target = m.types.get(a.get("target")) if a["type"] == "relation" else m.components.get(a.get("component"))
            if target is None:
                continue
            before = len(out)
            if r.random() < 0.4:
                out += self.fields(target, f"{k}[fields]")
            if a["type"] == "relation" and r.random() < 0.3:
                out += self.filters(a["target"], target, f"{k}[filters]")
            if a["type"] == "relation" and r.random() < 0.3:
                out += [(kk, vv) for kk, vv in self.sort(a["target"], target, f"{k}[sort]") if "." not in vv]
            if depth < 1 and r.random() < 0.4:
                out += self.populate(a.get("target"), target, f"{k}[populate]", depth + 1)
            if len(out) == before:
                out.append((k, "true"))
        return out

    def request(self):
        r, m = self.r, self.m
        uid = r.choice(m.collection_types() + m.single_types())
        s = m.types[uid]
        single = s["kind"] == "singleType"
        q = []
        if not single and r.random() < 0.6:
            q += self.filters(uid, s, "filters")
        if not single and r.random() < 0.5:
            q += self.sort(uid, s, "sort")
        if r.random() < 0.3:
            q += self.fields(s, "fields")
        if r.random() < 0.7:
            q += self.populate(uid, s, "populate")
        if not single and r.random() < 0.3:
            q += [("pagination[page]", str(r.randint(1, 3))), ("pagination[pageSize]", str(r.randint(1, 6)))]
        if s.get("options", {}).get("draftAndPublish") and r.random() < 0.3:
            q.append(("status", r.choice(["draft", "published"])))
        if not single and not any(k.startswith("sort") for k, _ in q):
            q.append(("sort[0]", "id"))
        name = s["info"]["singularName"] if single else s["info"]["pluralName"]
        return f"/api/{name}?" + "&".join(f"{k}={fr.escape(str(v))}" for k, v in q)


def collect_values(model, port, auth):
    """Each (type uid, field)'s values, read through Strapi's REST."""
    values = {}
    for uid in model.collection_types():
        s = model.types[uid]
        for status in ("published", "draft"):
            _, body = fr.get(port, f"/api/{s['info']['pluralName']}?pagination%5BpageSize%5D=100&status={status}", auth)
            for e in (body or {}).get("data") or []:
                for k, v in e.items():
                    if v is None or isinstance(v, (dict, list)):
                        continue
                    values.setdefault((uid, k), set()).add(
                        ("true" if v else "false") if isinstance(v, bool) else str(v))
    return {k: sorted(v) for k, v in values.items()}


# ------------------------------------------------------------------------------------ main

class ModelStrapi(rw.Strapi):
    """The oracle on the model's project: up once `/_health` answers (the model's types
    may not be readable by the public role)."""

    def start(self):
        env = dict(os.environ)
        for k in ["DATABASE_CLIENT", "DATABASE_NAME", "DATABASE_PORT", "DATABASE_FILENAME", "DATABASE_HOST"]:
            env.pop(k, None)
        env.update(HOST="127.0.0.1", PORT=str(self.port), NODE_ENV="production", STRAPI_TELEMETRY_DISABLED="true",
                   BROWSER="none", LOG_LEVEL="warn", **self.backend.env())
        self.proc = subprocess.Popen(["node", "node_modules/@strapi/strapi/bin/strapi.js", "start"],
                                     cwd=self.project, env=env, stdout=open(self.log, "a"),
                                     stderr=subprocess.STDOUT, start_new_session=True)
        for _ in range(900):
            if self.proc.poll() is not None:
                raise SystemExit(f"strapi exited with {self.proc.returncode}")
            try:
                if fr.get(self.port, "/_health", None)[0] in (200, 204):
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise SystemExit("strapi did not answer within 180 s")


def make_project(oracle, src, dest):
    """A copy of the oracle whose content types and components are those of `src` only."""
    rw.copy_oracle(oracle, dest, ["config", "database", "package.json", "public"])
    os.makedirs(os.path.join(dest, "src"))
    # The oracle's own src/index.js seeds the blog: this project's does nothing.
    with open(os.path.join(dest, "src", "index.js"), "w") as f:
        f.write("'use strict';\nmodule.exports = { register() {}, bootstrap() {} };\n")
    for sub in ("api", "components"):
        if os.path.isdir(os.path.join(src, sub)):
            shutil.copytree(os.path.join(src, sub), os.path.join(dest, "src", sub),
                            ignore=shutil.ignore_patterns("controllers", "routes", "services"))
    for api in sorted(os.listdir(os.path.join(dest, "src", "api"))):
        for ct in os.listdir(os.path.join(dest, "src", "api", api, "content-types")):
            uid = f"api::{api}.{ct}"
            for kind, factory in [("controllers", "createCoreController"), ("routes", "createCoreRouter"),
                                  ("services", "createCoreService")]:
                d = os.path.join(dest, "src", "api", api, kind)
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, f"{ct}.js"), "w") as f:
                    f.write(f"'use strict';\nconst {{ factories }} = require('@strapi/strapi');\n"
                            f"module.exports = factories.{factory}('{uid}');\n")


def copy_database(src, dst):
    """A consistent copy of SQLite file `src` (with its log) at `dst`."""
    a, b = sqlite3.connect(src), sqlite3.connect(dst)
    a.backup(b)
    b.close()
    a.close()
    return dst


def compare_writes(args, model, databases, work, auth, rnd, strapi):
    """The `--writes` run: both servers from the same empty database, the same writes
    (`--graphql`: as GraphQL mutations)."""
    url = databases.copy(keep_as=args.log and args.log + ".db")
    ports = (args.strapi_port, args.strata_port)
    if args.graphql:
        schema = gql.Schema(fr.post_graphql(args.strapi_port, gql.INTROSPECTION, auth)[1])
        w = GraphqlDualWriter(model, ports, auth, rnd, schema)
    else:
        w = DualWriter(model, ports, auth, rnd)
    w.revive = strapi.start
    w.bad = args.bad
    w.show = args.show
    if args.log:
        w.log = open(args.log, "w")
    strata = fr.Strata(args.strata, url, args.strata_port, os.path.join(work, "strata.log"),
                       schemas=args.schemas)
    try:
        w.fill(args.docs)
        w.deletes(2)
        w.fill(max(1, args.docs // 2))
        for d in w.differing:
            print(d, flush=True)
        if args.graphql:
            print(f"data as a variable {w.variables} times, inline {w.inline} times", flush=True)
        if w.deaths:
            print(f"Strapi died {w.deaths} times (started again)", flush=True)
        print(f"{len(w.differing)} of {w.steps} writes answered otherwise", flush=True)
    finally:
        strata.stop()
        if w.log:
            w.log.close()
    tables = databases.differences({v: k for k, v in w.docs.items()})
    for t in tables:
        print("table", t, flush=True)
    print(f"{len(tables)} tables differ", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strata", required=True)
    ap.add_argument("--schemas", default=os.path.join(ROOT, "tests", "fixtures", "launchpad", "src"))
    ap.add_argument("--with", dest="extra", action="append", default=[],
                    help="another schemas folder whose types and components are added (may repeat)")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--docs", type=int, default=8)
    ap.add_argument("--oracle", default="/work/oracle")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--graphql", action="store_true",
                    help="random GraphQL queries (tools/gql_model_gen.py) instead of REST reads; "
                    "with --writes: the writes as GraphQL mutations")
    ap.add_argument("--writes", action="store_true",
                    help="compare writes instead: every write goes to both servers, each on its own copy")
    ap.add_argument("--bad", type=float, default=0.0,
                    help="--writes: this share of scalar values is wrong or at an edge (BAD_VALUES)")
    ap.add_argument("--log", help="--writes: write each request as strata got it to this file (JSON lines), "
                    "and strata's starting database to this path + .db")
    ap.add_argument("--keep", help="copy the database Strapi wrote to this path")
    ap.add_argument("--backend", choices=["sqlite", "postgres", "mysql"], default="sqlite",
                    help="the database both servers run on (postgres, mysql: the machine's server)")
    ap.add_argument("--strapi-port", type=int, default=1381)
    ap.add_argument("--strata-port", type=int, default=1431)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fuzz_model_")
    if args.extra:
        combined = os.path.join(work, "schemas")
        shutil.copytree(args.schemas, combined)
        for extra in args.extra:
            shutil.copytree(extra, combined, dirs_exist_ok=True)
        args.schemas = combined
    model = Model(args.schemas)
    project = os.path.join(work, "oracle")
    make_project(args.oracle, args.schemas, project)
    databases = ServerDatabases(args.backend, project) if args.backend != "sqlite" else SqliteDatabases(project, work)
    strapi = ModelStrapi(project, args.strapi_port, databases, os.path.join(work, "strapi.log"))
    strata = None
    rnd = random.Random(args.seed)
    auth = "Bearer " + rw.token_key(200)
    try:
        strapi.start()
        now = {"sqlite": "1764000000000", "postgres": "to_timestamp(1764000000)",
               "mysql": "FROM_UNIXTIME(1764000000)"}[databases.dialect]
        # A second locale, as the admin panel adds one.
        databases.execute(rw.seed_sql(databases.dialect, []) + [
            "INSERT INTO i18n_locale (document_id, name, code, created_at, updated_at, published_at) "
            f"VALUES ('fuzzlocalefr00000000000a', 'French (fr)', 'fr', {now}, {now}, {now})"])
        if args.writes:
            return compare_writes(args, model, databases, work, auth, rnd, strapi)
        made = Writer(model, args.strapi_port, auth, rnd).fill(args.docs)
        print(f"{made} documents written through Strapi", flush=True)
        url = databases.copy(keep_as=args.keep)
        strata = fr.Strata(args.strata, url, args.strata_port, os.path.join(work, "strata.log"),
                           schemas=args.schemas)
        if args.graphql:
            schema = gql.Schema(fr.post_graphql(args.strapi_port, gql.INTROSPECTION, auth)[1])
            gen = gql.GqlModelGen(schema, rnd)
            gen.learn(lambda q: fr.post_graphql(args.strapi_port, q, auth)[1])
            next_request, ask = gen.query, lambda port, line: fr.post_graphql(port, line, auth)
        else:
            gen = ModelGen(model, rnd, collect_values(model, args.strapi_port, auth))
            next_request, ask = gen.request, lambda port, line: fr.get(port, fr.encode(line), auth)
        differing = 0
        for n in range(args.count):
            line = next_request()
            a = ask(args.strapi_port, line)
            b = ask(args.strata_port, line)
            if a[0] != b[0]:
                d = f"status {a[0]} vs {b[0]}: {json.dumps(a[1])[:300]} / {json.dumps(b[1])[:300]}"
            else:
                d = fr.first_difference(fr.canonical(a[1]), fr.canonical(b[1]))
            if d:
                differing += 1
                print(f"#{n} {line}\n    {d}", flush=True)
                if args.show:
                    print("    strapi:", json.dumps(a[1])[:3000], "\n    strata:", json.dumps(b[1])[:3000], flush=True)
        print(f"{differing} of {args.count} differ", flush=True)
    except BaseException:
        for log in ("strapi.log", "strata.log"):
            path = os.path.join(work, log)
            if os.path.exists(path):
                print(f"--- {log}:\n" + open(path, errors="replace").read()[-3000:], file=sys.stderr)
        raise
    finally:
        if strata:
            strata.stop()
        strapi.stop()
        databases.drop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
