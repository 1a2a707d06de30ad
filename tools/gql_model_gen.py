"""Random GraphQL reads for any content model, made from the schema Strapi's GraphQL plugin
serves (its introspection), for tools/fuzz_model.py's `--graphql`.

Nothing here knows the model: the root fields are the Query type's fields that return a
content type (a type with a `documentId`), its list, or its `_connection`; a selection takes
scalars and enums, follows object fields (relations, components, media) two levels deep, and
asks a union (a dynamic zone) for each of its members with `... on`; the arguments are those
the field declares (`filters` from its `…FiltersInput`, `sort`, `pagination`, `status`,
`locale`). Filter values are the values the same content holds (read through GraphQL first),
now and then cut short or changed in case.

`GqlModelGen(schema, rnd, full=True)` makes the selection of a mutation's answer instead
(tools/fuzz_model.py's `--writes --graphql`): every scalar, every component and zone member
three levels deep, an entity below the root (a relation, media) by its documentId only (not
one of a non-null field: required media, which a write may leave out), no arguments and no
`_connection` fields.
"""
import json

TYPE_REF = "kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }"
INTROSPECTION = (
    "query { __schema { queryType { name } types { name kind "
    f"fields {{ name args {{ name type {{ {TYPE_REF} }} }} type {{ {TYPE_REF} }} }} "
    f"inputFields {{ name type {{ {TYPE_REF} }} }} possibleTypes {{ name }} enumValues {{ name }} }} }} }}"
)
# Root fields of plugins, not of the model.
SKIPPED_ROOTS = ("usersPermissions", "i18N", "uploadFile", "reviewWorkflows", "me")
SCALAR_OPS = {
    "String": "string", "ID": "string", "Int": "int", "Long": "int", "Float": "float",
    "Boolean": "boolean", "Date": "date", "DateTime": "datetime", "Time": "time",
}
WORDS = ["alpha", "Beta", "gamma", "x", "100%", "a_b"]


def named(t):
    """The named type under NON_NULL and LIST wrappers, and whether a LIST was among them."""
    listed = False
    while t.get("ofType"):
        listed = listed or t["kind"] == "LIST"
        t = t["ofType"]
    return t["name"], t["kind"], listed


class Schema:
    """The introspected schema: its types by name, and which object types are content types."""

    def __init__(self, introspection):
        s = introspection["data"]["__schema"]
        self.types = {t["name"]: t for t in s["types"]}
        self.query = self.types[s["queryType"]["name"]]
        self.entities = {n for n, t in self.types.items()
                         if t["kind"] == "OBJECT" and any(f["name"] == "documentId" for f in t["fields"] or [])
                         and not n.startswith("UsersPermissions") and n not in ("UploadFile", "I18NLocale",
                                                                               "ReviewWorkflowsWorkflow",
                                                                               "ReviewWorkflowsWorkflowStage")}

    def roots(self):
        out = []
        for f in self.query["fields"]:
            if f["name"].startswith(SKIPPED_ROOTS):
                continue
            name, kind, listed = named(f["type"])
            if name in self.entities:
                out.append((f, name, "list" if listed else "one"))
            elif name.endswith("EntityResponseCollection") and f["name"].endswith("_connection"):
                node = name[: -len("EntityResponseCollection")]
                if node in self.entities:
                    out.append((f, node, "connection"))
        return out


def literal(kind, v):
    if kind in ("int", "float"):
        try:
            x = float(v)
        except (TypeError, ValueError):
            return "0"
        return str(int(x)) if kind == "int" else repr(x)
    if kind == "boolean":
        return "true" if v in (True, "true") else "false"
    return json.dumps(str(v))


class GqlModelGen:
    def __init__(self, schema, rnd, full=False):
        self.s, self.r = schema, rnd
        self.values = {}
        self.full = full
        self.depth = 3 if full else 2  # the depth below which object fields are followed

    # ------------------------------------------------------------------ values

    def learn(self, post):
        """Reads every content type's scalars once (`post(query)` → answer) to filter on."""
        for f, node, shape in self.s.roots():
            if shape != "list":
                continue
            scalars = [x["name"] for x in self.s.types[node]["fields"]
                       if named(x["type"])[1] in ("SCALAR", "ENUM") and named(x["type"])[0] != "JSON"]
            args = "(pagination: {limit: 100})" if any(a["name"] == "pagination" for a in f["args"]) else ""
            body = post(f"{{ {f['name']}{args} {{ {' '.join(scalars)} }} }}")
            for e in ((body or {}).get("data") or {}).get(f["name"]) or []:
                for k, v in (e or {}).items():
                    if v is not None and not isinstance(v, (dict, list)):
                        self.values.setdefault((node, k), set()).add(v)
        self.values = {k: sorted(v, key=str) for k, v in self.values.items()}

    def value(self, owner, field, kind):
        r = self.r
        vals = self.values.get((owner, field))
        if not vals or r.random() < 0.1:
            return {"int": r.randint(-5, 100), "float": r.random() * 100, "boolean": r.random() < 0.5,
                    "date": "2024-01-15", "datetime": "2024-01-15T10:00:00.000Z", "time": "10:30:00.000"
                    }.get(kind, r.choice(WORDS))
        v = r.choice(vals)
        if kind == "string" and isinstance(v, str) and len(v) > 2 and r.random() < 0.2:
            v = r.choice([v[: r.randint(1, len(v) - 1)], v.upper()])
        return v

    # ------------------------------------------------------------------ arguments

    def filter(self, input_name, depth=0):
        """One entry of a `…FiltersInput` object."""
        r, t = self.r, self.s.types[input_name]
        owner = input_name[: -len("FiltersInput")]
        fields = {f["name"]: named(f["type"])[0] for f in t["inputFields"]}
        x = r.random()
        if depth < 2 and x < 0.15 and "and" in fields:
            op = r.choice(["and", "or"])
            items = ", ".join("{" + self.filter(input_name, depth + 1) + "}" for _ in range(r.randint(1, 2)))
            return f"{op}: [{items}]"
        if depth < 2 and x < 0.2 and "not" in fields:
            return "not: {" + self.filter(input_name, depth + 1) + "}"
        nested = [k for k, v in fields.items() if v.endswith("FiltersInput") and k not in ("and", "or", "not")]
        if depth < 2 and x < 0.4 and nested:
            k = r.choice(nested)
            return f"{k}: {{" + self.filter(fields[k], depth + 1) + "}"
        leaves = [k for k, v in fields.items()
                  if v.endswith("FilterInput") and v[: -len("FilterInput")] in SCALAR_OPS]
        if not leaves:
            for k in ("documentId", "id"):
                if k in fields:
                    return f"{k}: {{notNull: true}}"
            return "and: []"
        k = r.choice(leaves)
        kind = SCALAR_OPS[fields[k][: -len("FilterInput")]]
        ops = [f["name"] for f in self.s.types[fields[k]]["inputFields"] if f["name"] not in ("and", "or", "not")]
        op = r.choice(ops)
        if op in ("null", "notNull"):
            return f"{k}: {{{op}: {r.choice(['true', 'false'])}}}"
        if op in ("in", "notIn", "between"):
            n = 2 if op == "between" else r.randint(1, 3)
            vals = ", ".join(literal(kind, self.value(owner, k, kind)) for _ in range(n))
            return f"{k}: {{{op}: [{vals}]}}"
        return f"{k}: {{{op}: {literal(kind, self.value(owner, k, kind))}}}"

    def sort(self, node):
        fields = [f["name"] for f in self.s.types[node]["fields"]
                  if named(f["type"])[1] in ("SCALAR", "ENUM") and named(f["type"])[0] != "JSON"]
        keys = [f"{self.r.choice(fields)}{self.r.choice(['', ':asc', ':desc'])}" for _ in range(self.r.randint(1, 2))]
        return "[" + ", ".join(json.dumps(k) for k in keys) + "]"

    def args(self, field, node, root):
        if self.full:
            return ""
        r = self.r
        out = []
        for a in field["args"]:
            name, kind, _ = named(a["type"])
            if a["name"] == "filters" and r.random() < 0.6:
                out.append("filters: {" + self.filter(name) + "}")
            elif a["name"] == "sort" and r.random() < 0.5:
                out.append("sort: " + self.sort(node))
            elif a["name"] == "pagination" and r.random() < 0.3:
                out.append("pagination: " + r.choice([f"{{page: {r.randint(1, 3)}, pageSize: {r.randint(1, 6)}}}",
                                                      f"{{start: {r.randint(0, 6)}, limit: {r.randint(1, 6)}}}"]))
            elif a["name"] == "status" and root and r.random() < 0.3:
                out.append(f"status: {r.choice(['DRAFT', 'PUBLISHED'])}")
            elif a["name"] == "locale" and root and r.random() < 0.2:
                out.append(f"locale: {json.dumps(r.choice(['en', 'fr']))}")
            elif a["name"] == "documentId":
                ids = self.values.get((node, "documentId")) or ["nonexistent000000000000"]
                out.append(f"documentId: {json.dumps(r.choice(ids))}")
        return "(" + ", ".join(out) + ")" if out else ""

    # ------------------------------------------------------------------ selections

    def selection(self, node, depth, taken=None):
        """A selection of object type `node`. `taken` (the response names the other
        members of a union selected, with their types) keeps the selection mergeable, as
        GraphQL's `OverlappingFieldsCanBeMerged` requires: a name is left out when it
        was selected with another type, and an object field when it was selected at all."""
        r, t = self.r, self.s.types[node]
        fields = t["fields"] or []
        if self.full:
            if depth > 0 and self.is_entity(node):
                return "documentId"
            # A non-null entity (required media, which a write may leave out) would null the
            # whole answer.
            fields = [f for f in fields if not named(f["type"])[0].endswith("RelationResponseCollection")
                      and not (f["type"]["kind"] == "NON_NULL" and f["type"]["ofType"]["kind"] == "OBJECT"
                               and self.is_entity(named(f["type"])[0]))]
        if taken is not None:
            def mergeable(f):
                shape = json.dumps(f["type"], sort_keys=True)
                if f["name"] in taken and (taken[f["name"]] != shape or named(f["type"])[1] != "SCALAR"
                                           and named(f["type"])[1] != "ENUM"):
                    return False
                return True
            fields = [f for f in fields if mergeable(f)]
            for f in fields:
                taken.setdefault(f["name"], json.dumps(f["type"], sort_keys=True))
        scalars = [f["name"] for f in fields if named(f["type"])[1] in ("SCALAR", "ENUM")]
        parts = ["documentId"] if "documentId" in scalars else []
        rest = [s for s in scalars if s not in parts]
        if rest:
            parts += rest if self.full else r.sample(rest, r.randint(1, min(4, len(rest))))
        objects = [f for f in fields if named(f["type"])[1] in ("OBJECT", "UNION")]
        if depth < self.depth and objects:
            for f in objects if self.full else r.sample(objects, r.randint(0, min(3, len(objects)))):
                parts.append(self.object_field(f, depth))
        return " ".join(parts) or "__typename"

    def is_entity(self, node):
        """Whether object type `node` is a document (a content type, media): has a documentId."""
        return any(f["name"] == "documentId" for f in self.s.types[node]["fields"] or [])

    def object_field(self, f, depth):
        name, kind, _ = named(f["type"])
        if kind == "UNION":
            members = [p["name"] for p in self.s.types[name]["possibleTypes"]]
            taken = {} if self.full or self.r.random() < 0.9 else None
            ons = " ".join(f"... on {m} {{ {self.selection(m, depth + 1, taken)} }}" for m in members)
            return f"{f['name']} {{ __typename {ons} }}"
        if name.endswith("RelationResponseCollection"):
            node = name[: -len("RelationResponseCollection")]
            return f"{f['name']}{self.args(f, node, False)} {{ nodes {{ {self.selection(node, depth + 1)} }} }}"
        return f"{f['name']}{self.args(f, name, False)} {{ {self.selection(name, depth + 1)} }}"

    def query(self):
        f, node, shape = self.r.choice(self.s.roots())
        args = self.args(f, node, True)
        sel = self.selection(node, 0)
        if shape == "connection":
            return (f"{{ {f['name']}{args} {{ nodes {{ {sel} }} "
                    f"pageInfo {{ total page pageSize pageCount }} }} }}")
        return f"{{ {f['name']}{args} {{ {sel} }} }}"
