#!/usr/bin/env python3
"""Convert the Strapi lab's seed (format `strapi-lab-seed/1`) into a strata dataset
(`strata-dataset/1`), keeping documentIds, keys, publication states, relations,
components, dynamic zones, media, users and locales, and the deterministic timestamps
the lab wrote after loading, so that `strata import` produces the same rows as the
real Strapi database built from the same seed.

Usage: python3 tools/convert_seed.py SEED.json OUT.json

Standard library only. The mapping:

* locales → `locales` (with the lab's `locale000…N` documentIds and timestamps t0);
* media → `files` (provider `local`, folderPath `/`), users → `users`;
* secrets, tags, authors (no draft & publish, not localized) → documents with `data`;
* categories (draft & publish) → `published` and/or `draft` versions;
* articles (draft & publish, localized) → document-level `data` with the shared
  (non-localized) fields and the relations, and per locale `published` and/or `draft`.
  A `modified` locale has both: the draft holds only the fields that changed (the
  importer lays a draft over its published version).

Timestamps (seed-format.md, "Deterministic timestamps"): with t the index of the list,
i the 1-based position and j the locale index, base = t0 + t·10 days + i hours + j·10 min;
non-D&P rows get base for all three; a published row gets createdAt = base and
updatedAt = publishedAt = base + 1 min; its draft row updatedAt = base (draft only),
base + 1 min (published) or base + 5 min (modified).

Two quirks of Strapi are reproduced so that the rows match byte for byte: JSON numbers
pass through JavaScript doubles (12345678901234567890 is stored as 12345678901234567000),
and a biginteger beyond 2^53 loses precision in the published row (Strapi copies the
draft through a JavaScript number when it publishes).
"""

import datetime
import json
import sys
from decimal import Decimal

FORMAT = "strata-dataset/1"
MINUTE = 60_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR

# Attribute kinds the converter needs to know (from schemas/api/*/schema.json).
ARTICLE_BIGINTEGER = ["wordCount"]
ARTICLE_JSON = ["metadata", "content"]
LOCALE_INDEX = {"en": 0, "fr": 1, "de": 2}
LIST_INDEX = {"media": 0, "users": 1, "secrets": 2, "tags": 3, "authors": 4, "categories": 5, "articles": 6}


def iso(ms):
    """Epoch milliseconds → ISO 8601 with milliseconds and Z, like JavaScript's toISOString."""
    dt = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(milliseconds=ms)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse_iso(s):
    dt = datetime.datetime.strptime(s.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z")
    return int(dt.timestamp() * 1000)


def js_number(n):
    """An integer as JavaScript would print it after JSON.parse (a double)."""
    if isinstance(n, bool) or not isinstance(n, int) or abs(n) <= 2**53:
        return n
    # The shortest decimal that round-trips the double, with zeros as JS prints it.
    return int(Decimal(repr(float(n))))


def js_json(v):
    if isinstance(v, dict):
        return {k: js_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [js_json(x) for x in v]
    return js_number(v)


def stamps(created, updated, published=None):
    out = {"createdAt": iso(created), "updatedAt": iso(updated)}
    if published is not None:
        out["publishedAt"] = iso(published)
    return out


def convert(seed):
    t0 = parse_iso(seed["clock"]["t0"])

    def base(list_name, i, j=0):
        return t0 + LIST_INDEX[list_name] * 10 * DAY + i * HOUR + j * 10 * MINUTE

    out = {"format": FORMAT}
    out["locales"] = [
        dict(
            code=l["code"],
            name=l["name"],
            default=bool(l.get("isDefault")),
            documentId="locale" + str(n).zfill(18),
            createdAt=iso(t0),
        )
        for n, l in enumerate(seed["locales"], start=1)
    ]

    files = []
    for i, m in enumerate(seed["media"], start=1):
        b = base("media", i)
        f = {"key": m["key"], "documentId": m["documentId"]}
        for k in ["name", "alternativeText", "caption", "width", "height", "formats", "hash", "ext", "mime", "size", "url"]:
            if k in m:
                f[k] = m[k]
        f.update(previewUrl=None, provider="local", provider_metadata=None)
        f.update(stamps(b, b, b))
        files.append(f)
    out["files"] = files

    users = []
    for i, u in enumerate(seed["users"], start=1):
        b = base("users", i)
        user = {"key": u["key"], "documentId": u["documentId"]}
        for k in ["username", "email", "password", "confirmed", "blocked", "role"]:
            if k in u:
                user[k] = u[k]
        user["provider"] = "local"
        user.update(stamps(b, b, b))
        users.append(user)
    out["users"] = users

    docs = []
    for list_name, uid in [("secrets", "api::secret.secret"), ("tags", "api::tag.tag"), ("authors", "api::author.author")]:
        for i, rec in enumerate(seed[list_name], start=1):
            b = base(list_name, i)
            data = {k: v for k, v in rec.items() if k not in ("key", "documentId")}
            data.update(stamps(b, b, b))
            docs.append({"type": uid, "key": rec["key"], "documentId": rec["documentId"], "data": data})

    for i, c in enumerate(seed["categories"], start=1):
        b = base("categories", i)
        data = {k: v for k, v in c.items() if k not in ("key", "documentId", "status", "draft")}
        doc = {"type": "api::category.category", "key": c["key"], "documentId": c["documentId"], "data": data}
        status = c["status"]
        if status == "draft":
            doc["draft"] = stamps(b, b)
        else:
            doc["published"] = stamps(b, b + MINUTE, b + MINUTE)
            if status == "modified":
                doc["draft"] = dict(c.get("draft", {}), updatedAt=iso(b + 5 * MINUTE))
        docs.append(doc)

    for i, a in enumerate(seed["articles"], start=1):
        shared = dict(a.get("shared", {}))
        data = dict(shared)
        data.update(a.get("relations", {}))
        for k in ARTICLE_JSON:
            if k in data:
                data[k] = js_json(data[k])
        doc = {"type": "api::article.article", "key": a["key"], "documentId": a["documentId"], "data": data, "locales": {}}
        for code, loc in a["locales"].items():
            b = base("articles", i, LOCALE_INDEX[code])
            values = {k: (js_json(v) if k in ARTICLE_JSON else v) for k, v in loc.get("data", {}).items()}
            status = loc["status"]
            versions = {}
            if status == "draft":
                versions["draft"] = dict(values, **stamps(b, b))
            else:
                published = dict(values, **stamps(b, b + MINUTE, b + MINUTE))
                draft = None
                if status == "modified":
                    draft = {k: (js_json(v) if k in ARTICLE_JSON else v) for k, v in loc.get("draft", {}).items()}
                    draft["updatedAt"] = iso(b + 5 * MINUTE)
                # Publishing copies the draft through JavaScript numbers; the draft row keeps
                # the exact value (so it is given again on the draft, which the importer lays
                # over the published version).
                for k in ARTICLE_BIGINTEGER:
                    v = published.get(k, shared.get(k))
                    if v is not None and int(v) != js_number(int(v)):
                        published[k] = str(js_number(int(v)))
                        draft = draft if draft is not None else {}
                        draft.setdefault(k, v)
                versions["published"] = published
                if draft is not None:
                    versions["draft"] = draft
            doc["locales"][code] = versions
        docs.append(doc)
    out["documents"] = docs
    return out


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        seed = json.load(f)
    if seed.get("format") != "strapi-lab-seed/1":
        sys.stderr.write(f"{argv[1]}: expected format strapi-lab-seed/1, got {seed.get('format')!r}\n")
        return 1
    dataset = convert(seed)
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(dataset, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {argv[2]}: {len(dataset['documents'])} documents, {len(dataset['files'])} files, {len(dataset['users'])} users")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
