#!/usr/bin/env python3
"""Generates write sequences for tests/fixtures/blog/writes/sequences.txt.

A generated sequence mixes valid and invalid steps of one kind of work, picked by a seeded
random generator, so that the same seed prints the same sequence. Append its output to
sequences.txt, record it from the oracle (tools/record_writes.py --only NAME, on each backend),
then replay it (STRATA_REPLAY_ONLY=NAME cargo test --test write_replay).

    python3 tools/gen_sequences.py i18n-lifecycle --seed 7 --steps 40 >> tests/fixtures/blog/writes/sequences.txt

Kinds:
  i18n-lifecycle   articles (blog model): creates in several locales and states, updates that make
                   new localizations and change shared (non-localized) values, deletes of one locale,
                   of the default one and of every locale, reads of each version.
  single-type      the ext model's homepage, a localized draft-and-publish single type: updates in
                   several locales and states, deletes of one locale, reads.
  i18n-model       the i18n model: pages (localized, draft and publish) related to sections and
                   labels (localized, without draft and publish) and to the blog's articles, and a
                   notice (a localized single type without draft and publish) related to them;
                   creates, localizations, updates of shared values and relations, deletes, reads.
  components       articles' components, dynamic zone and media (blog model): set, replaced,
                   cleared and edited in place by id, in several locales and states, with invalid
                   values and missing files among them.
  graphql-components  the components work through GraphQL mutations and queries.
  graphql-i18n     the same work on the i18n model through GraphQL mutations and queries.
  scalars          the edge model's `everything`: every scalar type from pools of valid,
                   coercible and invalid values, several at once, in creates, updates and new
                   localizations; reads of what was stored.
  shared           the shared model's guides, manuals and boards: shared (non-localized) components,
                   zones, media and relations inside components, copied to new localizations and
                   synced to the other locales by updates; localized ones beside them; deletes of
                   one locale; reads.
  products         the ext model's `product`: every rule it declares, from small pools so that its
                   unique values collide across documents, locales and states; creates, new
                   localizations, updates, publishes, deletes of one locale; reads and listings.
  graphql-products the products work through GraphQL mutations and queries.
  relations        the blog model's relations from both sides (articles, tags, authors,
                   categories): shorthand, connect with positions, disconnect, set, longhand
                   entries, to-ones given several entries, invalid targets; reads of each side.
  self-relations   the edge model's `node`: the same work on every kind of self relation (a
                   two-way many-to-one and many-to-many from both sides, one-way to-one and
                   to-many), a node linked to itself, deleted nodes still named.
  graphql-self-relations  the same work through GraphQL mutations and queries.
"""

import argparse
import json
import random
import re

LOCALES = ["en", "fr", "de"]
SEED_ARTICLES = [
    "article00000000000000001",
    "article00000000000000002",
    "article00000000000000010",
    "article00000000000000023",
    "article00000000000000024",
    "article00000000000000025",
]
TAGS = [f"tag00000000000000000000{i}" for i in (1, 2, 3, 8)]
CATEGORIES = ["category0000000000000001", "category0000000000000004", "category0000000000000005"]
KINDS = ["news", "tutorial", "opinion", "rumour"]


def query(**params):
    pairs = [f"{k}={v}" for k, v in params.items() if v is not None]
    return ("?" + "&".join(pairs)) if pairs else ""


class Lifecycle:
    """Steps on articles; `docs` holds the documentIds a step may name (seed documents, and
    `{{sN.data.documentId}}` of the creates so far, which are always valid)."""

    def __init__(self, rng):
        self.rng = rng
        self.docs = list(SEED_ARTICLES)
        self.steps = []
        self.serial = 0

    def pick_locale(self, none_weight=1):
        return self.rng.choice([None] * none_weight + LOCALES)

    def status(self):
        return self.rng.choice([None, None, "draft", "published"])

    def shared_values(self, data, valid=True):
        r = self.rng
        if r.random() < 0.5:
            data["views"] = r.randint(0, 500) if valid or r.random() < 0.5 else "many"
        if r.random() < 0.3:
            data["kind"] = r.choice(KINDS[:3] if valid else KINDS)
        if r.random() < 0.3:
            data["price"] = round(r.uniform(0, 99), 2)
        if r.random() < 0.2:
            data["featured"] = r.random() < 0.5

    def relations(self, data):
        r = self.rng
        x = r.random()
        if x < 0.25:
            data["tags"] = r.sample(TAGS, r.randint(0, 2))
        elif x < 0.45:
            data["tags"] = {"connect": [r.choice(TAGS)], "disconnect": [r.choice(TAGS)]}
        if r.random() < 0.25:
            data["category"] = r.choice(CATEGORIES + [None])

    def populate(self):
        return self.rng.choice(
            [None, "populate[tags]=true&populate[category]=true", "fields[0]=title&fields[1]=views"]
        )

    def add(self, method, path, body=None, about=None):
        self.steps.append((method, path, body, about))
        return len(self.steps)

    def create(self):
        self.serial += 1
        data = {"title": f"gen {self.serial}"}
        self.shared_values(data)
        self.relations(data)
        loc = self.pick_locale(2)
        st = self.rng.choice([None, "draft"])
        q = query(locale=loc, status=st)
        extra = self.populate()
        if extra:
            q += ("&" if q else "?") + extra
        n = self.add("POST", f"/api/articles{q}", {"data": data})
        self.docs.append(f"{{{{s{n}.data.documentId}}}}")

    def update(self):
        doc = self.rng.choice(self.docs)
        self.serial += 1
        data = {}
        if self.rng.random() < 0.6:
            data["title"] = f"gen {self.serial}"
        valid = self.rng.random() < 0.85
        self.shared_values(data, valid)
        self.relations(data)
        q = query(locale=self.pick_locale(), status=self.rng.choice([None, None, "draft"]))
        extra = self.populate()
        if extra:
            q += ("&" if q else "?") + extra
        self.add("PUT", f"/api/articles/{doc}{q}", {"data": data})

    def delete(self):
        doc = self.rng.choice(self.docs)
        loc = self.rng.choice([None, "en", "fr", "de", "*"])
        self.add("DELETE", f"/api/articles/{doc}{query(locale=loc)}")

    def read(self):
        doc = self.rng.choice(self.docs)
        q = query(locale=self.pick_locale(), status=self.status())
        q += ("&" if q else "?") + "populate[tags]=true&populate[category]=true"
        self.add("GET", f"/api/articles/{doc}{q}")

    def listing(self):
        loc = self.rng.choice(["en", "fr", "de", "*"])
        st = self.rng.choice(["draft", "published"])
        q = query(
            locale=loc,
            status=st,
            **{"filters[title][$startsWith]": "gen", "sort[0]": "title", "sort[1]": "locale",
               "fields[0]": "title", "fields[1]": "views", "fields[2]": "kind"},
        )
        self.add("GET", f"/api/articles{q}")

    def operations(self):
        """The kinds of step and their weights."""
        return [(self.create, 3), (self.update, 5), (self.delete, 1.5), (self.read, 2), (self.listing, 0.7)]

    def generate(self, n):
        funcs, weights = zip(*self.operations())
        self.create()
        while len(self.steps) < n:
            self.rng.choices(funcs, weights)[0]()
        return self.steps


class SingleType(Lifecycle):
    """Steps on the ext model's homepage (localized, draft and publish)."""

    def update(self):
        self.serial += 1
        data = {}
        r = self.rng
        if r.random() < 0.7:
            data["title"] = f"home {self.serial}"
        if r.random() < 0.5:
            data["visits"] = r.randint(0, 99) if r.random() < 0.9 else "lots"
        if r.random() < 0.3:
            data["featured"] = r.choice(SEED_ARTICLES + [None])
        if r.random() < 0.2:
            data["seo"] = {"metaTitle": f"seo {self.serial}"}
        q = query(locale=self.pick_locale(), status=r.choice([None, None, "draft"]))
        if r.random() < 0.4:
            q += ("&" if q else "?") + "populate[featured]=true&populate[seo]=true"
        self.add("PUT", f"/api/homepage{q}", {"data": data})

    def delete(self):
        self.add("DELETE", f"/api/homepage{query(locale=self.rng.choice([None, 'en', 'fr', 'de', '*']))}")

    def read(self):
        q = query(locale=self.pick_locale(), status=self.status())
        q += ("&" if q else "?") + "populate[featured]=true"
        self.add("GET", f"/api/homepage{q}")

    def generate(self, n):
        ops = [(self.update, 5), (self.delete, 1.5), (self.read, 3)]
        funcs, weights = zip(*ops)
        while len(self.steps) < n:
            self.rng.choices(funcs, weights)[0]()
        return self.steps


class I18nModel(Lifecycle):
    """Steps on the i18n model. Sections and labels are made first (some localized), so the
    pages' and the notice's relations have targets in some locales and not in others."""

    def __init__(self, rng, positions=False):
        super().__init__(rng)
        self.positions = positions
        self.sections = []
        self.labels = []
        self.pages = []

    def ref(self, pool, valid=False):
        r = self.rng
        doc = r.choice(pool)
        x = r.random()
        if x < 0.2:
            return {"documentId": doc, "locale": r.choice(LOCALES)}
        if x < 0.25 and not valid:
            return "missing0000000000000000x"
        return doc

    def make_targets(self):
        for i in range(3):
            n = self.add("POST", "/api/sections", {"data": {"name": f"section {i}", "code": f"s{i}"}})
            self.sections.append(f"{{{{s{n}.data.documentId}}}}")
        for i in range(3):
            n = self.add("POST", "/api/labels", {"data": {"name": f"label {i}"}})
            self.labels.append(f"{{{{s{n}.data.documentId}}}}")
        for doc in self.sections[:2] + self.labels[:1]:
            kind = "sections" if doc in self.sections else "labels"
            loc = self.rng.choice(["fr", "de"])
            key = "name"
            self.add("PUT", f"/api/{kind}/{doc}{query(locale=loc)}", {"data": {key: f"{kind} {loc}"}})

    def page_data(self, valid=False):
        """A page's data; `valid`: every target exists in English (the sections and labels
        are made in English; any entry's locale is ignored between localized types)."""
        r = self.rng
        self.serial += 1
        data = {}
        if r.random() < 0.7:
            data["title"] = f"page {self.serial}"
        if r.random() < 0.4:
            data["views"] = r.randint(0, 99)
        if r.random() < 0.4:
            data["section"] = self.ref(self.sections, valid) if r.random() < 0.9 else None
        if r.random() < 0.4:
            x = r.random()
            if x < 0.5:
                data["labels"] = [self.ref(self.labels, valid) for _ in range(r.randint(0, 2))]
            elif x < 0.8 or not self.positions:
                data["labels"] = {"connect": [self.ref(self.labels, valid)],
                                  "disconnect": [r.choice(self.labels)]}
            else:
                entry = {"documentId": r.choice(self.labels)}
                where = r.choice(["start", "end", "before", "after"])
                entry["position"] = {where: r.choice(self.labels)} if where in ("before", "after") else {where: True}
                data["labels"] = {"connect": [entry]}
        if r.random() < 0.3:
            data["articles"] = [r.choice(SEED_ARTICLES) for _ in range(r.randint(1, 2))]
        return data

    def section_data(self, with_pages):
        r = self.rng
        data = {}
        if r.random() < 0.6:
            data["name"] = f"section {self.serial}"
        if r.random() < 0.5:
            data["code"] = f"c{self.serial}"
        if with_pages and r.random() < 0.3 and self.pages:
            data["pages"] = {"connect": [r.choice(self.pages)]}
        return data

    def notice_data(self):
        r = self.rng
        data = {}
        if r.random() < 0.6:
            data["text"] = f"notice {self.serial}"
        if r.random() < 0.5:
            data["level"] = r.randint(1, 5)
        if r.random() < 0.4 and self.pages:
            data["page"] = r.choice(self.pages)
        if r.random() < 0.4:
            data["sections"] = [self.ref(self.sections)]
        return data

    def populate(self):
        return self.rng.choice([None, "populate=*", "populate[section][populate]=pages&populate[labels]=true"])

    def with_query(self, path, **params):
        q = query(**params)
        extra = self.populate()
        if extra:
            q += ("&" if q else "?") + extra
        return path + q

    def create(self):
        """A page in English that later steps may name (always valid), or one in another
        locale, which may be refused, that none names."""
        english = self.rng.random() < 0.7
        data = self.page_data(valid=english)
        data.setdefault("title", f"page {self.serial}")
        locale = self.rng.choice([None, "en"]) if english else self.rng.choice(["fr", "de"])
        path = self.with_query("/api/pages", locale=locale, status=self.rng.choice([None, "draft"]))
        n = self.add("POST", path, {"data": data})
        if english:
            self.pages.append(f"{{{{s{n}.data.documentId}}}}")

    def update(self):
        r = self.rng
        x = r.random()
        if x < 0.6 and self.pages:
            path = self.with_query(f"/api/pages/{r.choice(self.pages)}", locale=self.pick_locale(),
                                   status=r.choice([None, None, "draft"]))
            self.add("PUT", path, {"data": self.page_data()})
        elif x < 0.8:
            doc = r.choice(self.sections)
            data = self.section_data(with_pages=True)
            path = f"/api/sections/{doc}{query(locale=self.pick_locale())}"
            if r.random() < 0.5:
                path += ("&" if "?" in path else "?") + "populate[pages][fields][0]=title"
            self.add("PUT", path, {"data": data})
        else:
            data = self.notice_data()
            path = f"/api/notice{query(locale=self.pick_locale())}"
            if r.random() < 0.5:
                path += ("&" if "?" in path else "?") + "populate=*"
            self.add("PUT", path, {"data": data})
        self.serial += 1

    def delete(self):
        r = self.rng
        loc = r.choice([None, "en", "fr", "de", "*"])
        x = r.random()
        if x < 0.6 and self.pages:
            self.add("DELETE", f"/api/pages/{r.choice(self.pages)}{query(locale=loc)}")
        elif x < 0.8:
            self.add("DELETE", f"/api/sections/{r.choice(self.sections)}{query(locale=loc)}")
        else:
            self.add("DELETE", f"/api/notice{query(locale=loc)}")

    def read(self):
        r = self.rng
        x = r.random()
        loc = self.pick_locale()
        if x < 0.5 and self.pages:
            q = query(locale=loc, status=self.status())
            q += ("&" if q else "?") + "populate=*"
            self.add("GET", f"/api/pages/{r.choice(self.pages)}{q}")
        elif x < 0.8:
            q = query(locale=loc)
            q += ("&" if q else "?") + "populate[pages][fields][0]=title&populate[pages][fields][1]=locale"
            self.add("GET", f"/api/sections/{r.choice(self.sections)}{q}")
        else:
            q = query(locale=loc)
            q += ("&" if q else "?") + "populate=*"
            self.add("GET", f"/api/notice{q}")

    def listing(self):
        q = query(locale=self.rng.choice(["en", "fr", "de", "*"]), status=self.rng.choice(["draft", "published"]),
                  **{"sort[0]": "title", "sort[1]": "locale", "fields[0]": "title", "fields[1]": "views",
                     "fields[2]": "locale"})
        self.add("GET", f"/api/pages{q}")

    def generate(self, n):
        self.make_targets()
        ops = [(self.create, 3), (self.update, 5), (self.delete, 1.2), (self.read, 2), (self.listing, 0.5)]
        funcs, weights = zip(*ops)
        self.create()
        while len(self.steps) < n:
            self.rng.choices(funcs, weights)[0]()
        return self.steps


class Components(Lifecycle):
    """Articles' components, dynamic zone and media (blog model): creates and updates that set,
    replace, clear and edit in place (by the `id` an earlier answer showed) the single `seo` (with
    its nested repeatable `social`), the repeatable `faq` and the `blocks` zone, in several locales
    and states; media ids in the fields and inside components, some of them missing or of a type
    the field does not allow; invalid values inside components; reads and listings filtered on a
    component's field."""

    POPULATE = "populate[seo][populate]=*&populate[faq]=true&populate[blocks][populate]=*&populate[cover]=true&populate[gallery]=true"
    FILES = list(range(1, 10))

    def __init__(self, rng, positions=False):
        super().__init__(rng)
        self.docs = list(SEED_ARTICLES[:3])
        self.answers = []   # steps whose answer populates every component

    def file(self, valid):
        r = self.rng
        if valid or r.random() < 0.8:
            return r.choice(self.FILES)
        return r.choice([999, "file00000000000000000003", {"id": 2}])

    def earlier_id(self, path):
        """`{{sN.data.<path>.id}}` of an earlier step that populated every component."""
        n = self.rng.choice(self.answers)
        return f"{{{{s{n}.data.{path}.id}}}}"

    def social(self, valid):
        r = self.rng
        item = {}
        if r.random() < 0.8:
            item["network"] = r.choice(["x", "facebook", "linkedin"] if valid else ["x", "myspace"])
        if r.random() < 0.7:
            item["url"] = f"https://s{self.serial}.example/{r.randint(1, 9)}"
        if r.random() < 0.3:
            item["icon"] = self.file(valid)
        if self.answers and r.random() < 0.15:
            item["id"] = self.earlier_id(f"seo.social.{r.randint(0, 1)}")
        return item

    def seo(self, valid):
        r = self.rng
        if r.random() < 0.1:
            return None
        seo = {}
        if r.random() < 0.7:
            seo["metaTitle"] = f"meta {self.serial}"
        if r.random() < 0.4:
            seo["metaDescription"] = f"description {self.serial}"
        if r.random() < 0.3:
            seo["shareImage"] = self.file(valid) if r.random() < 0.9 else None
        if r.random() < 0.4:
            seo["social"] = [self.social(valid) for _ in range(r.randint(0, 2))]
        if self.answers and r.random() < 0.3:
            seo["id"] = self.earlier_id("seo")
        if not valid and r.random() < 0.2:
            seo["unknownKey"] = 1
        return seo

    def faq(self, valid):
        r = self.rng
        items = []
        for i in range(r.randint(0, 3)):
            item = {"question": f"q{self.serial}.{i}"}
            if r.random() < 0.5:
                item["answer"] = f"a{self.serial}.{i}"
            if self.answers and r.random() < 0.25:
                item["id"] = self.earlier_id(f"faq.{r.randint(0, 2)}")
            if not valid and r.random() < 0.2:
                item["question"] = r.choice([12, ["x"], {"a": 1}])
            items.append(item)
        return items

    def block(self, valid):
        r = self.rng
        kind = r.choice(["rich-text", "quote", "media", "slider"])
        if kind == "rich-text":
            block = {"__component": "shared.rich-text", "body": f"rich {self.serial}"}
        elif kind == "quote":
            block = {"__component": "shared.quote", "title": f"quote {self.serial}"}
            if r.random() < 0.5:
                block["author"] = r.choice(["author000000000000000001", "author000000000000000002"]
                                           + ([] if valid else ["missing0000000000000000x"]))
        elif kind == "media":
            block = {"__component": "shared.media", "file": self.file(valid)}
        else:
            block = {"__component": "shared.slider", "files": [self.file(valid) for _ in range(r.randint(0, 2))]}
        if self.answers and r.random() < 0.2:
            block["id"] = self.earlier_id(f"blocks.{r.randint(0, 1)}")
        if not valid and r.random() < 0.3:
            x = r.random()
            if x < 0.4:
                block.pop("__component")
            elif x < 0.7:
                block["__component"] = "shared.faq-item"
            else:
                block["__component"] = "shared.unknown"
        return block

    def media(self, data, valid):
        r = self.rng
        if r.random() < 0.3:
            data["cover"] = self.file(valid) if r.random() < 0.85 else None
        if r.random() < 0.25:
            x = r.random()
            if x < 0.6:
                data["gallery"] = [self.file(valid) for _ in range(r.randint(0, 3))]
            else:
                data["gallery"] = {"connect": [self.file(valid)], "disconnect": [r.choice(self.FILES)]}

    def component_data(self, data):
        """Fills `data`; returns whether every value in it was picked to be valid."""
        r = self.rng
        valid = r.random() < 0.8
        if r.random() < 0.5:
            data["seo"] = self.seo(valid)
        if r.random() < 0.4:
            data["faq"] = self.faq(valid)
        if r.random() < 0.4:
            data["blocks"] = [self.block(valid) for _ in range(r.randint(0, 3))]
        self.media(data, valid)
        return valid

    def populate(self):
        return self.rng.choice([self.POPULATE, self.POPULATE, None, "populate=*"])

    def write(self, method, path, data, q, valid):
        extra = self.populate()
        if extra:
            q += ("&" if q else "?") + extra
        n = self.add(method, f"{path}{q}", {"data": data})
        if extra == self.POPULATE and valid:
            self.answers.append(n)
        return n

    def created_data(self):
        """A new article's data, and whether it was picked to be valid."""
        self.serial += 1
        data = {"title": f"gen {self.serial}"}
        return data, self.component_data(data)

    def updated_data(self):
        """An update's data, and whether it was picked to be valid."""
        self.serial += 1
        data = {}
        if self.rng.random() < 0.3:
            data["title"] = f"gen {self.serial}"
        return data, self.component_data(data)

    def create(self):
        data, valid = self.created_data()
        q = query(locale=self.pick_locale(2), status=self.rng.choice([None, "draft"]))
        n = self.write("POST", "/api/articles", data, q, valid)
        self.docs.append(f"{{{{s{n}.data.documentId}}}}")

    def update(self):
        data, valid = self.updated_data()
        q = query(locale=self.pick_locale(2), status=self.rng.choice([None, None, "draft"]))
        self.write("PUT", f"/api/articles/{self.rng.choice(self.docs)}", data, q, valid)

    def read(self):
        q = query(locale=self.pick_locale(2), status=self.status())
        q += ("&" if q else "?") + self.POPULATE
        self.add("GET", f"/api/articles/{self.rng.choice(self.docs)}{q}")

    def listing(self):
        r = self.rng
        q = query(locale=r.choice(["en", "fr", "*"]), status=r.choice(["draft", "published"]),
                  **{"filters[seo][metaTitle][$startsWith]": "meta", "sort[0]": "title", "sort[1]": "locale",
                     "fields[0]": "title", "populate[seo][fields][0]": "metaTitle",
                     "populate[faq][fields][0]": "question"})
        self.add("GET", f"/api/articles{q}")

    def operations(self):
        return [(self.create, 3), (self.update, 5), (self.delete, 0.8), (self.read, 1.5), (self.listing, 0.7)]


class GqlEnum(str):
    """A string written as a GraphQL enum value (bare, not quoted)."""


def gql_value(v):
    """A Python value as a GraphQL input literal."""
    if isinstance(v, GqlEnum):
        return str(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {gql_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(gql_value(x) for x in v) + "]"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    return json.dumps(v, ensure_ascii=False)


class GraphqlI18n(I18nModel):
    """The i18n model's work through `POST /graphql`. GraphQL names relations by
    documentId only (no longhand), so every reference is a documentId."""

    PAGE_FIELDS = "documentId title views locale publishedAt section { name locale } labels { name } articles { title locale }"

    def args(self, **kw):
        parts = [f"{k}: {v}" for k, v in kw.items() if v is not None]
        return ("(" + ", ".join(parts) + ")") if parts else ""

    def gql_locale(self, none_weight=1):
        loc = self.pick_locale(none_weight)
        return json.dumps(loc) if loc else None

    def gql_status(self):
        return self.rng.choice([None, None, "DRAFT", "PUBLISHED"])

    def ref(self, pool, valid=False):
        if not valid and self.rng.random() < 0.05:
            return "missing0000000000000000x"
        return self.rng.choice(pool)

    def make_targets(self):
        for i in range(3):
            n = self.add_query(f"mutation {{ createSection(data: {{name: \"section {i}\", code: \"s{i}\"}}) {{ documentId name code locale }} }}")
            self.sections.append(f"{{{{s{n}.data.createSection.documentId}}}}")
        for i in range(3):
            n = self.add_query(f"mutation {{ createLabel(data: {{name: \"label {i}\"}}) {{ documentId name }} }}")
            self.labels.append(f"{{{{s{n}.data.createLabel.documentId}}}}")
        for doc, kind in [(self.sections[0], "Section"), (self.sections[1], "Section"), (self.labels[0], "Label")]:
            loc = self.rng.choice(["fr", "de"])
            self.add_query(f"mutation {{ update{kind}(documentId: \"{doc}\", locale: \"{loc}\", data: {{name: \"{kind.lower()} {loc}\"}}) {{ documentId name locale }} }}")

    def page_input(self, valid=False):
        data = self.page_data(valid)
        for key in ("section", "labels"):
            v = data.get(key)
            if isinstance(v, dict) and "documentId" in v:
                data[key] = v["documentId"]
            elif isinstance(v, dict):
                data.pop(key)
            elif isinstance(v, list):
                data[key] = [x["documentId"] if isinstance(x, dict) else x for x in v]
        return data

    def create(self):
        english = self.rng.random() < 0.7
        data = self.page_input(valid=english)
        data.setdefault("title", f"page {self.serial}")
        locale = None if english else json.dumps(self.rng.choice(["fr", "de"]))
        status = self.rng.choice([None, "DRAFT"])
        args = self.args(locale=locale, status=status, data=gql_value(data))
        n = self.add_query(f"mutation {{ createPage{args} {{ {self.PAGE_FIELDS} }} }}")
        if english:
            self.pages.append(f"{{{{s{n}.data.createPage.documentId}}}}")

    def add_query(self, text):
        return self.add("POST", "/graphql", {"query": text})

    def update(self):
        r = self.rng
        x = r.random()
        if x < 0.6 and self.pages:
            args = self.args(documentId=json.dumps(r.choice(self.pages)), locale=self.gql_locale(),
                             status=r.choice([None, None, "DRAFT"]), data=gql_value(self.page_input()))
            self.add_query(f"mutation {{ updatePage{args} {{ {self.PAGE_FIELDS} }} }}")
        elif x < 0.8:
            data = self.section_data(with_pages=False)
            args = self.args(documentId=json.dumps(r.choice(self.sections)), locale=self.gql_locale(), data=gql_value(data))
            self.add_query(f"mutation {{ updateSection{args} {{ documentId name code locale pages {{ title }} }} }}")
        else:
            data = self.notice_data()
            args = self.args(locale=self.gql_locale(), data=gql_value(data))
            self.add_query(f"mutation {{ updateNotice{args} {{ documentId text level locale page {{ title }} sections {{ name }} localizations {{ locale level }} }} }}")
        self.serial += 1

    def delete(self):
        r = self.rng
        x = r.random()
        if x < 0.6 and self.pages:
            args = self.args(documentId=json.dumps(r.choice(self.pages)), locale=self.gql_locale())
            self.add_query(f"mutation {{ deletePage{args} {{ documentId }} }}")
        elif x < 0.8:
            args = self.args(documentId=json.dumps(r.choice(self.sections)), locale=self.gql_locale())
            self.add_query(f"mutation {{ deleteSection{args} {{ documentId }} }}")
        else:
            self.add_query(f"mutation {{ deleteNotice{self.args(locale=self.gql_locale())} {{ documentId }} }}")

    def read(self):
        r = self.rng
        x = r.random()
        if x < 0.5 and self.pages:
            args = self.args(documentId=json.dumps(r.choice(self.pages)), locale=self.gql_locale(),
                             status=r.choice([None, "DRAFT", "PUBLISHED"]))
            self.add_query(f"{{ page{args} {{ {self.PAGE_FIELDS} localizations {{ locale title views }} }} }}")
        elif x < 0.8:
            args = self.args(locale=self.gql_locale(), sort='"name"')
            self.add_query(f"{{ sections{args} {{ documentId name code locale pages {{ title locale }} }} }}")
        else:
            self.add_query(f"{{ notice{self.args(locale=self.gql_locale())} {{ text level locale page {{ title }} sections {{ name }} }} }}")

    def listing(self):
        args = self.args(locale=json.dumps(self.rng.choice(["en", "fr", "de"])),
                         status=self.rng.choice(["DRAFT", "PUBLISHED"]), sort='["title", "locale"]')
        self.add_query(f"{{ pages{args} {{ title views locale section {{ name }} }} }}")


class GraphqlComponents(Components):
    """The `components` work through `POST /graphql`: a zone item names its component by
    `__typename`, ids are GraphQL `ID`s, and what GraphQL's own validation refuses (an
    unknown enum value, a number for a string, an unknown input field) is among the
    invalid values."""

    FIELDS = ("documentId title locale publishedAt "
              "seo { id metaTitle metaDescription shareImage { name } social { id network url icon { name } } } "
              "faq { id question answer } cover { name } gallery { name } "
              "blocks { __typename ... on ComponentSharedRichText { id body } "
              "... on ComponentSharedQuote { id title author { name } } "
              "... on ComponentSharedMedia { id file { name } } "
              "... on ComponentSharedSlider { id files { name } } }")

    def earlier_id(self, path):
        n, field = self.rng.choice(self.answers)
        return f"{{{{s{n}.data.{field}.{path}.id}}}}"

    @staticmethod
    def typename(uid):
        category, name = uid.split(".", 1)
        pascal = lambda t: "".join(w[:1].upper() + w[1:] for w in t.replace("_", "-").split("-"))
        return "Component" + pascal(category) + pascal(name)

    def gql_data(self, data):
        """`data` as GraphQL input: zone items named by `__typename`, enumerations bare."""
        seo = data.get("seo")
        for link in (seo.get("social") or []) if isinstance(seo, dict) else []:
            if isinstance(link.get("network"), str):
                link["network"] = GqlEnum(link["network"])
        for item in data.get("blocks") or []:
            uid = item.pop("__component", None)
            if uid is not None:
                item["__typename"] = self.typename(uid)
        return data

    def args(self, **kw):
        parts = [f"{k}: {v}" for k, v in kw.items() if v is not None]
        return ("(" + ", ".join(parts) + ")") if parts else ""

    def mutation(self, field, valid, **kw):
        n = self.add("POST", "/graphql", {"query": f"mutation {{ {field}{self.args(**kw)} {{ {self.FIELDS} }} }}"})
        if valid:
            self.answers.append((n, field))
        return n

    def gql_locale(self, none_weight=2):
        loc = self.pick_locale(none_weight)
        return json.dumps(loc) if loc else None

    def create(self):
        data, valid = self.created_data()
        n = self.mutation("createArticle", valid, locale=self.gql_locale(),
                          status=self.rng.choice([None, "DRAFT"]), data=gql_value(self.gql_data(data)))
        self.docs.append(f"{{{{s{n}.data.createArticle.documentId}}}}")

    def update(self):
        data, valid = self.updated_data()
        self.mutation("updateArticle", valid, documentId=json.dumps(self.rng.choice(self.docs)),
                      locale=self.gql_locale(), status=self.rng.choice([None, None, "DRAFT"]),
                      data=gql_value(self.gql_data(data)))

    def delete(self):
        args = self.args(documentId=json.dumps(self.rng.choice(self.docs)),
                         locale=json.dumps(self.rng.choice(["en", "fr", "de"])) if self.rng.random() < 0.6 else None)
        self.add("POST", "/graphql", {"query": f"mutation {{ deleteArticle{args} {{ documentId }} }}"})

    def read(self):
        args = self.args(documentId=json.dumps(self.rng.choice(self.docs)), locale=self.gql_locale(),
                         status=self.rng.choice([None, "DRAFT", "PUBLISHED"]))
        self.add("POST", "/graphql", {"query": f"{{ article{args} {{ {self.FIELDS} }} }}"})

    def listing(self):
        args = self.args(locale=json.dumps(self.rng.choice(["en", "fr"])),
                         status=self.rng.choice(["DRAFT", "PUBLISHED"]),
                         filters='{seo: {metaTitle: {startsWith: "meta"}}}', sort='["title", "locale"]')
        self.add("POST", "/graphql", {"query": f"{{ articles{args} {{ title locale seo {{ metaTitle }} faq {{ question }} }} }}"})


class Relations(Lifecycle):
    """The blog model's relations from both sides: articles' `tags` (manyToMany), `author`
    (manyToOne, the author's `articles` its inverse) and `category` (manyToOne, inverse
    `articles`); tags', authors' and categories' `articles`; categories' `parent` and `children`
    (a self relation); authors' `mentor` (oneToOne, one-way). Shorthand lists, `connect` with
    `position` (start, end, before, after), `disconnect`, `set`, longhand entries with `locale`
    and `status`, several entries for a to-one, and invalid steps among them (missing targets,
    the same entry twice, an anchor not in the list). Reads from both sides show the `_ord` order."""

    AUTHORS = [f"author00000000000000000{i}" for i in (1, 2, 3)]
    ALL_TAGS = [f"tag00000000000000000000{i}" for i in range(1, 9)]

    def __init__(self, rng, positions=False):
        super().__init__(rng)
        self.docs = list(SEED_ARTICLES)
        self.tags = list(self.ALL_TAGS)
        self.authors = list(self.AUTHORS)
        self.categories = list(CATEGORIES)

    def pick(self, pool, valid):
        r = self.rng
        if not valid and r.random() < 0.3:
            return r.choice(["missing0000000000000000x", "article00000000000000001"])
        return r.choice(pool)

    def entry(self, pool, valid, positions=True):
        """One `connect` entry: a documentId, or a longhand object, perhaps with a position."""
        r = self.rng
        doc = self.pick(pool, valid)
        if r.random() < 0.5:
            return doc
        item = {"documentId": doc}
        if r.random() < 0.3:
            item["locale"] = r.choice(LOCALES)
        if r.random() < 0.3:
            item["status"] = r.choice(["draft", "published"])
        if positions and r.random() < 0.6:
            where = r.choice(["start", "end", "before", "after"])
            item["position"] = {where: r.choice(pool)} if where in ("before", "after") else {where: True}
        return item

    def to_many(self, pool, valid):
        r = self.rng
        x = r.random()
        if x < 0.2:
            return r.sample(pool, min(len(pool), r.randint(0, 3)))
        if x < 0.35:
            return {"set": [self.entry(pool, valid, positions=False) for _ in range(r.randint(0, 3))]}
        value = {}
        if r.random() < 0.85:
            value["connect"] = [self.entry(pool, valid) for _ in range(r.randint(1, 3))]
        if r.random() < 0.4:
            value["disconnect"] = [r.choice(pool) for _ in range(r.randint(1, 2))]
        return value

    def to_one(self, pool, valid):
        r = self.rng
        x = r.random()
        if x < 0.3:
            return self.pick(pool, valid)
        if x < 0.4:
            return None
        if x < 0.5:
            return {"disconnect": [r.choice(pool)]}
        if x < 0.6:
            return {"set": [self.entry(pool, valid, positions=False)]}
        return {"connect": [self.entry(pool, valid, positions=False) for _ in range(r.randint(1, 2))]}

    def article_data(self, valid):
        r = self.rng
        data = {}
        if r.random() < 0.6:
            data["tags"] = self.to_many(self.tags, valid)
        if r.random() < 0.4:
            data["author"] = self.to_one(self.authors, valid)
        if r.random() < 0.4:
            data["category"] = self.to_one(self.categories, valid)
        if not data:
            data["tags"] = self.to_many(self.tags, valid)
        return data

    def article_populate(self):
        return self.rng.choice([
            None,
            "populate[tags][fields][0]=name&populate[author][fields][0]=name&populate[category][fields][0]=name",
            "populate[tags][fields][0]=name",
        ])

    def create(self):
        r = self.rng
        self.serial += 1
        x = r.random()
        if x < 0.5:
            valid = r.random() < 0.85
            data = {"title": f"rel {self.serial}", **self.article_data(valid)}
            q = query(locale=self.pick_locale(3), status=r.choice([None, "draft"]))
            extra = self.article_populate()
            if extra:
                q += ("&" if q else "?") + extra
            n = self.add("POST", f"/api/articles{q}", {"data": data})
            if valid:
                self.docs.append(f"{{{{s{n}.data.documentId}}}}")
        elif x < 0.7:
            data = {"name": f"tag {self.serial}"}
            if r.random() < 0.6:
                data["articles"] = self.to_many(self.docs, True)
            n = self.add("POST", "/api/tags?populate[articles][fields][0]=title", {"data": data})
            self.tags.append(f"{{{{s{n}.data.documentId}}}}")
        elif x < 0.85:
            data = {"name": f"author {self.serial}"}
            if r.random() < 0.5:
                data["articles"] = self.to_many(self.docs, True)
            if r.random() < 0.4:
                data["mentor"] = self.to_one(self.authors, True)
            n = self.add("POST", "/api/authors?populate=*", {"data": data})
            self.authors.append(f"{{{{s{n}.data.documentId}}}}")
        else:
            data = {"name": f"category {self.serial}", "slug": f"category-{self.serial}"}
            if r.random() < 0.5:
                data["parent"] = self.to_one(self.categories, True)
            if r.random() < 0.4:
                data["articles"] = self.to_many(self.docs, True)
            q = query(status=r.choice([None, "draft"]))
            n = self.add("POST", f"/api/categories{q}{'&' if q else '?'}populate=*", {"data": data})
            self.categories.append(f"{{{{s{n}.data.documentId}}}}")

    def update(self):
        r = self.rng
        self.serial += 1
        valid = r.random() < 0.85
        x = r.random()
        if x < 0.5:
            q = query(locale=self.pick_locale(3), status=r.choice([None, None, "draft"]))
            extra = self.article_populate()
            if extra:
                q += ("&" if q else "?") + extra
            self.add("PUT", f"/api/articles/{r.choice(self.docs)}{q}", {"data": self.article_data(valid)})
        elif x < 0.7:
            data = {"articles": self.to_many(self.docs, valid)}
            self.add("PUT", f"/api/tags/{r.choice(self.tags)}?populate[articles][fields][0]=title&populate[articles][fields][1]=locale",
                     {"data": data})
        elif x < 0.85:
            data = {}
            if r.random() < 0.7:
                data["articles"] = self.to_many(self.docs, valid)
            if r.random() < 0.4:
                data["mentor"] = self.to_one(self.authors, valid)
            self.add("PUT", f"/api/authors/{r.choice(self.authors)}?populate[articles][fields][0]=title&populate[mentor][fields][0]=name",
                     {"data": data})
        else:
            data = {}
            y = r.random()
            if y < 0.4:
                data["articles"] = self.to_many(self.docs, valid)
            elif y < 0.7:
                data["parent"] = self.to_one(self.categories, valid)
            else:
                data["children"] = self.to_many(self.categories, valid)
            q = query(status=r.choice([None, None, "draft"]))
            q += ("&" if q else "?") + "populate[articles][fields][0]=title&populate[parent][fields][0]=name&populate[children][fields][0]=name"
            self.add("PUT", f"/api/categories/{r.choice(self.categories)}{q}", {"data": data})

    def delete(self):
        r = self.rng
        x = r.random()
        if x < 0.5:
            self.add("DELETE", f"/api/articles/{r.choice(self.docs)}{query(locale=r.choice([None, 'en', 'fr', '*']))}")
        elif x < 0.7:
            self.add("DELETE", f"/api/tags/{r.choice(self.tags)}")
        elif x < 0.85:
            self.add("DELETE", f"/api/authors/{r.choice(self.authors)}")
        else:
            self.add("DELETE", f"/api/categories/{r.choice(self.categories)}")

    def read(self):
        r = self.rng
        x = r.random()
        if x < 0.4:
            q = query(locale=self.pick_locale(), status=self.status())
            q += ("&" if q else "?") + "populate[tags][fields][0]=name&populate[author][fields][0]=name&populate[category][fields][0]=name"
            self.add("GET", f"/api/articles/{r.choice(self.docs)}{q}")
        elif x < 0.6:
            q = query(locale=self.pick_locale(), status=self.status())
            q += ("&" if q else "?") + "populate[articles][fields][0]=title&populate[articles][fields][1]=locale"
            self.add("GET", f"/api/tags/{r.choice(self.tags)}{q}")
        elif x < 0.8:
            q = query(status=self.status())
            q += ("&" if q else "?") + "populate[articles][fields][0]=title&populate[mentor][fields][0]=name"
            self.add("GET", f"/api/authors/{r.choice(self.authors)}{q}")
        else:
            q = query(status=self.status())
            q += ("&" if q else "?") + "populate[articles][fields][0]=title&populate[parent][fields][0]=name&populate[children][fields][0]=name"
            self.add("GET", f"/api/categories/{r.choice(self.categories)}{q}")

    def listing(self):
        q = query(locale=self.rng.choice(["en", "fr", "*"]), status=self.rng.choice(["draft", "published"]),
                  **{"sort[0]": "title", "sort[1]": "locale", "fields[0]": "title",
                     "populate[tags][fields][0]": "name", "populate[author][fields][0]": "name"})
        self.add("GET", f"/api/articles{q}")


class Scalars(Lifecycle):
    """Every scalar type of the edge model's `everything` (localized, draft and publish,
    every rule): creates and updates whose values come from pools of valid, coercible and
    invalid values (numbers as strings, booleans as words, dates in other formats, values
    out of range, wrong types), several at once; new localizations; reads of what was
    stored. What yup casts, what it refuses and in which order, and what is stored."""

    POOLS = {
        "text": ["plain", "", 5, True, "  spaced  ", None],
        "richtext": ["# title", 12, None],
        "email": ["a@b.co", "A@B.CO", "bad", " a@b.co", "", None, 5],
        "password": ["longenough1", "short", 12345678, None],
        "uid": ["my-uid", "bad uid!", "UPPER", "", None, "x-1"],
        "kind": ["small", "large", "huge", "", None, 1],
        "integer": [0, 100, 101, -1, "5", "5.5", 5.5, "abc", True, None, 1e2, " 7 ", [], "0x10"],
        "biginteger": ["9007199254740993", 12, "12abc", -5, "1e3", 1.5, None, "-0"],
        "float": [1.5, 1.6, -1.5, "0.5", "abc", 0, True, None, "1e0", -2],
        "decimal": [1.25, "3.14159", "x", 1e-7, None, "12.50", -0.5],
        "boolean": [True, False, "true", "false", 1, 0, "1", "0", "yes", "t", None, "TRUE", 2],
        "date": ["2024-01-02", "2024-1-2", "2024-02-30", "20240102", "2024-01-02T10:00:00Z",
                 1700000000000, "", None, "2024-13-01"],
        "time": ["10:11:12", "10:11", "25:00:00", "10:11:12.345", "101112", 3600, None, ""],
        "datetime": ["2024-01-02T03:04:05.678Z", "2024-01-02", "2024-01-02 03:04:05",
                     "2024-01-02T03:04:05+02:00", 1700000000000, "not a date", None, ""],
        "timestamp": ["2024-01-02T03:04:05.678Z", 1700000000000, "1700000000000", "yesterday", None],
        "json": [{"x": 1}, [1, 2], "str", 5, None, True, {"nested": {"a": [None]}}],
        "color": ["#fff", 5, None, ""],
        "rating": [3, "3", 3.5, "x", None],
        "internalNote": ["note", 7],
    }
    VALID = {
        "text": "plain", "email": "a@b.co", "kind": "small", "integer": 7, "float": 0.5,
        "decimal": 2.5, "boolean": False, "date": "2024-03-04", "time": "10:11:12",
        "datetime": "2024-01-02T03:04:05.678Z", "json": {"k": [1]}, "rating": 4,
    }

    def __init__(self, rng, positions=False):
        super().__init__(rng)
        self.docs = []

    def name(self):
        self.serial += 1
        return "Item " + "".join(chr(ord("a") + int(d)) for d in str(self.serial))

    def values(self, valid):
        r = self.rng
        data = {}
        for key in r.sample(sorted(self.POOLS), r.randint(1, 5)):
            if valid:
                if key in self.VALID:
                    data[key] = self.VALID[key]
            else:
                data[key] = r.choice(self.POOLS[key])
        return data

    def parts(self, data):
        data["pairs"] = [{"key": "k"}]
        data["sections"] = [{"__component": "shared.pair", "key": "s"}]

    def with_query(self, path, **params):
        q = query(**params)
        return path + q

    def create(self):
        r = self.rng
        valid = r.random() < 0.4
        data = {"string": self.name(), **self.values(valid)}
        if r.random() < 0.9:
            self.parts(data)
        if r.random() < 0.1:
            data["string"] = r.choice(["x", "Has 1 digit", 5])
            valid = False
        path = self.with_query("/api/everythings", locale=self.rng.choice([None, None, "fr"]),
                               status=r.choice([None, "draft"]))
        n = self.add("POST", path, {"data": data})
        if valid and "pairs" in data:
            self.docs.append(f"{{{{s{n}.data.documentId}}}}")

    def update(self):
        r = self.rng
        if not self.docs:
            return self.create()
        data = self.values(r.random() < 0.3)
        if r.random() < 0.2:
            data["string"] = self.name()
        path = self.with_query(f"/api/everythings/{r.choice(self.docs)}", locale=self.pick_locale(2),
                               status=r.choice([None, None, "draft"]))
        self.add("PUT", path, {"data": data})

    def delete(self):
        if self.docs:
            self.add("DELETE", f"/api/everythings/{self.rng.choice(self.docs)}{query(locale=self.rng.choice([None, 'fr', '*']))}")

    def read(self):
        if not self.docs:
            return
        q = query(locale=self.pick_locale(), status=self.status())
        self.add("GET", f"/api/everythings/{self.rng.choice(self.docs)}{q}")

    def listing(self):
        q = query(locale=self.rng.choice(["en", "fr", "*"]), status=self.rng.choice(["draft", "published"]),
                  **{"sort[0]": "string", "sort[1]": "locale"})
        self.add("GET", f"/api/everythings{q}")

    def operations(self):
        return [(self.create, 4), (self.update, 6), (self.delete, 0.4), (self.read, 2), (self.listing, 0.4)]


class SharedModel(Lifecycle):
    """The shared model: guides (localized, draft and publish) whose `code`, `cover`, `hero`,
    `steps`, `extras` and `link` are shared by their locales, manuals (localized, no draft and
    publish, a required shared `code`, `cover` and `hero`) and boards (neither). Creates in
    several locales and states, new localizations that copy the shared parts, updates that set,
    clear or edit them in place (by an `id` an earlier answer showed) and so sync them to the
    other locales, media and relations inside components, deletes of one locale; reads."""

    FILES = list(range(1, 10))
    ARTICLES = ["article00000000000000001", "article00000000000000002", "article00000000000000025"]
    GUIDE = ("populate[cover]=true&populate[hero][populate]=*&populate[steps][populate][detail][populate]=*"
             "&populate[extras][populate]=*&populate[notes][populate]=*&populate[link][populate]=*"
             "&populate[links][populate]=*")
    MANUAL = "populate[cover]=true&populate[hero][populate]=*&populate[notes][populate]=*"
    BOARD = "populate[top][populate]=*&populate[links][populate]=*"

    def __init__(self, rng, positions=False):
        super().__init__(rng)
        self.docs = {"guides": [], "manuals": [], "boards": []}
        self.answers = {"guides": [], "manuals": [], "boards": []}
        self.locale = None   # the locale of the write being generated

    def file(self, valid):
        r = self.rng
        if valid or r.random() < 0.7:
            return r.choice(self.FILES)
        return r.choice([999, "x", {"id": 2}])

    def earlier_id(self, kind, path):
        """`{{sN.data.<path>.id}}` of an earlier answer that showed a component at `path` (one
        whose request set it), else None."""
        shown = [n for n, paths in self.answers[kind] if path in paths]
        if not shown:
            return None
        return f"{{{{s{self.rng.choice(shown)}.data.{path}.id}}}}"

    @staticmethod
    def component_paths(data):
        """The paths of the components a valid write of `data` shows in its answer."""
        paths = set()
        for key, value in data.items():
            if isinstance(value, dict):
                paths.add(key)
            elif isinstance(value, list):
                paths.update(f"{key}.{i}" for i, v in enumerate(value) if isinstance(v, dict))
        return paths

    def panel(self, valid, kind=None, path=None):
        r = self.rng
        panel = {}
        if r.random() < 0.8:
            panel["label"] = f"p{self.serial}" if valid or r.random() < 0.6 else r.choice([5, ["x"]])
        if r.random() < 0.4:
            panel["picture"] = self.file(valid) if r.random() < 0.9 else None
        if r.random() < 0.4:
            panel["tag"] = r.choice(TAGS + ([] if valid else ["missing0000000000000000x"]))
        if kind and r.random() < 0.2 and (earlier := self.earlier_id(kind, path)):
            panel["id"] = earlier
        return panel

    def step(self, valid, kind, i):
        r = self.rng
        step = {"name": f"s{self.serial}.{i}"}
        if r.random() < 0.4:
            step["detail"] = self.panel(valid)
        if r.random() < 0.15 and (earlier := self.earlier_id(kind, f"steps.{r.randint(0, 1)}")):
            step["id"] = earlier
        return step

    def extra(self, valid, kind, i):
        r = self.rng
        if r.random() < 0.5:
            item = {"__component": "sharing.panel", **self.panel(valid)}
        else:
            item = {"__component": "sharing.step", **self.step(valid, kind, i)}
            item.pop("id", None)
        if not valid and r.random() < 0.2:
            item["__component"] = r.choice(["sharing.link", "sharing.nope"])
        return item

    def link(self, valid):
        r = self.rng
        link = {}
        # A link's articles are looked up in the written locale: article 2 is English only,
        # 25 has no German version.
        articles = {"fr": self.ARTICLES[::2], "de": self.ARTICLES[:1]}.get(self.locale, self.ARTICLES)
        if not valid:
            articles = self.ARTICLES
        if r.random() < 0.7:
            link["label"] = f"l{self.serial}"
        if r.random() < 0.5:
            link["article"] = r.choice(articles + [None])
        if r.random() < 0.5:
            link["articles"] = r.sample(articles, r.randint(0, min(2, len(articles))))
            if not valid and r.random() < 0.3:
                link["articles"].append("missing0000000000000000x")
        return link

    def guide_data(self, create):
        r = self.rng
        self.serial += 1
        valid = r.random() < 0.8
        data = {}
        if create or r.random() < 0.6:
            data["title"] = f"guide {self.serial}"
        if r.random() < 0.4:
            data["code"] = f"c{self.serial}" if r.random() < 0.85 else None
        if r.random() < 0.3:
            data["cover"] = self.file(valid) if r.random() < 0.85 else None
        if r.random() < 0.4:
            data["hero"] = self.panel(valid, "guides", "hero") if r.random() < 0.85 else None
        if r.random() < 0.35:
            data["steps"] = [self.step(valid, "guides", i) for i in range(r.randint(0, 2))]
        if r.random() < 0.35:
            data["extras"] = [self.extra(valid, "guides", i) for i in range(r.randint(0, 2))]
        if r.random() < 0.35:
            data["notes"] = [self.panel(valid) for _ in range(r.randint(0, 2))]
        if r.random() < 0.3:
            data["link"] = self.link(valid) if r.random() < 0.85 else None
        if r.random() < 0.25:
            data["links"] = [self.link(valid) for _ in range(r.randint(0, 2))]
        return data, valid

    def manual_data(self, create):
        r = self.rng
        self.serial += 1
        valid = r.random() < 0.8
        data = {}
        if create or r.random() < 0.5:
            data["title"] = f"manual {self.serial}"
        if (create and r.random() < 0.9) or r.random() < 0.3:
            data["code"] = f"m{self.serial}" if r.random() < 0.9 else None
        if (create and r.random() < 0.9) or r.random() < 0.3:
            data["cover"] = self.file(valid) if r.random() < 0.9 else None
        if (create and r.random() < 0.9) or r.random() < 0.3:
            data["hero"] = self.panel(valid, "manuals", "hero") if r.random() < 0.9 else None
        if r.random() < 0.3:
            data["notes"] = [self.panel(valid) for _ in range(r.randint(0, 2))]
        return data, valid

    def board_data(self, create):
        r = self.rng
        self.serial += 1
        valid = r.random() < 0.8
        data = {}
        if create or r.random() < 0.5:
            data["name"] = f"board {self.serial}"
        if r.random() < 0.5:
            data["top"] = self.link(valid) if r.random() < 0.85 else None
        if r.random() < 0.5:
            data["links"] = [self.link(valid) for _ in range(r.randint(0, 3))]
        return data, valid

    def write(self, method, kind, doc, data, valid, **params):
        full = {"guides": self.GUIDE, "manuals": self.MANUAL, "boards": self.BOARD}[kind]
        extra = self.rng.choice([full, full, None, "populate=*"])
        q = query(**params)
        if extra:
            q += ("&" if q else "?") + extra
        path = f"/api/{kind}" + (f"/{doc}" if doc else "") + q
        n = self.add(method, path, {"data": data})
        if extra == full and valid:
            self.answers[kind].append((n, self.component_paths(data)))
        return n

    def kind(self):
        return self.rng.choices(["guides", "manuals", "boards"], [6, 2, 1])[0]

    def create(self):
        r = self.rng
        kind = self.kind()
        params = {}
        if kind != "boards":
            params["locale"] = r.choice([None, None, "en", "fr"])
        self.locale = params.get("locale")
        data, valid = getattr(self, kind[:-1] + "_data")(True)
        if kind == "guides":
            params["status"] = r.choice([None, "draft"])
        n = self.write("POST", kind, None, data, valid, **params)
        if valid and (kind != "manuals" or all(k in data for k in ("code", "cover", "hero"))):
            self.docs[kind].append(f"{{{{s{n}.data.documentId}}}}")

    def update(self):
        r = self.rng
        kind = self.kind()
        if not self.docs[kind]:
            return self.create()
        params = {}
        if kind != "boards":
            params["locale"] = self.pick_locale(2)
        self.locale = params.get("locale")
        data, valid = getattr(self, kind[:-1] + "_data")(False)
        if kind == "guides":
            params["status"] = r.choice([None, None, "draft"])
        self.write("PUT", kind, r.choice(self.docs[kind]), data, valid, **params)

    def delete(self):
        r = self.rng
        kind = self.kind()
        if not self.docs[kind]:
            return
        loc = None if kind == "boards" else r.choice([None, "en", "fr", "de", "fr"])
        self.add("DELETE", f"/api/{kind}/{r.choice(self.docs[kind])}{query(locale=loc)}")

    def read(self):
        r = self.rng
        kind = self.kind()
        if not self.docs[kind]:
            return
        full = {"guides": self.GUIDE, "manuals": self.MANUAL, "boards": self.BOARD}[kind]
        params = {}
        if kind != "boards":
            params["locale"] = self.pick_locale(2)
        if kind == "guides":
            params["status"] = self.status()
        q = query(**params)
        q += ("&" if q else "?") + full
        self.add("GET", f"/api/{kind}/{r.choice(self.docs[kind])}{q}")

    def listing(self):
        r = self.rng
        q = query(locale=r.choice(["en", "fr", "de", "*"]), status=r.choice(["draft", "published"]),
                  **{"sort[0]": "title", "sort[1]": "locale", "fields[0]": "title", "fields[1]": "code",
                     "fields[2]": "locale", "populate[hero][fields][0]": "label",
                     "populate[steps][fields][0]": "name", "populate[cover][fields][0]": "name"})
        self.add("GET", f"/api/guides{q}")

    def operations(self):
        return [(self.create, 3), (self.update, 6), (self.delete, 0.8), (self.read, 1.5), (self.listing, 0.5)]


class Products(Lifecycle):
    """The ext model's `product` (localized, draft and publish): every rule it declares,
    from small pools of values so that unique ones collide across documents, locales and
    states (`sku` localized, `ean` and `code` shared); lengths, ranges, the pattern, the
    uid, list counts, private and password keys; creates, new localizations, updates,
    publishes of modified drafts, deletes of one locale; reads and listings."""

    POPULATE = "populate[specs]=true&populate[sections]=true&populate[tags]=true"

    def __init__(self, rng, positions=False):
        super().__init__(rng)
        self.docs = []

    def pick(self, good, bad, valid):
        r = self.rng
        return r.choice(good) if valid or r.random() < 0.6 else r.choice(bad)

    def product_data(self, create):
        r = self.rng
        self.serial += 1
        valid = r.random() < 0.75
        data = {}
        if create or r.random() < 0.4:
            data["name"] = self.pick([f"Product {self.serial}", "Widget", "abc"],
                                     ["ab", "x" * 21, None, 7], valid)
        if r.random() < 0.45:
            data["sku"] = r.choice(["sku-1", "sku-2", "sku-3", None])
        if r.random() < 0.4:
            data["ean"] = r.choice(["ean-1", "ean-2", None])
        if r.random() < 0.3:
            data["code"] = self.pick(["ABC-123", "XYZ-999", None], ["abc-123", "", "ABCD-12"], valid)
        if r.random() < 0.25:
            data["summary"] = self.pick(["short", "", "ten chars!"], ["eleven char", "x" * 40], valid)
        if r.random() < 0.3:
            data["qty"] = self.pick([0, 100, 42, "7"], [-1, 101, 1.5, "x"], valid)
        if r.random() < 0.2:
            data["weight"] = self.pick([0.5, 2, "3.25"], [0.49, -1, "heavy"], valid)
        if r.random() < 0.2:
            data["price"] = self.pick([1000, 0, 99.99], [1000.01, "cheap"], valid)
        if r.random() < 0.2:
            data["stock"] = self.pick(["9007199254740993", "0", 12], ["9007199254740994", -1, "x"], valid)
        if r.random() < 0.3:
            data["handle"] = self.pick(["h-1", "h-2", f"h-{self.serial}"], ["Bad Handle", "h 1", "é"], valid)
        if r.random() < 0.1:
            data[r.choice(["internal", "pin"])] = r.choice(["secret", 5])
        if r.random() < 0.3:
            n = r.choice([1, 2] if valid else [0, 3])
            data["specs"] = [{"question": f"q{self.serial}.{i}"} for i in range(n)]
        if r.random() < 0.2:
            n = r.choice([0, 1, 2] if valid else [3])
            data["sections"] = [r.choice([{"__component": "shared.rich-text", "body": f"b{i}"},
                                          {"__component": "shared.quote", "title": f"t{i}"}])
                                for i in range(n)]
        if r.random() < 0.2:
            data["tags"] = r.sample(TAGS, r.randint(0, 2))
        return data

    def with_query(self, path, **params):
        q = query(**params)
        if self.rng.random() < 0.5:
            q += ("&" if q else "?") + self.POPULATE
        return path + q

    def create(self):
        r = self.rng
        data = self.product_data(True)
        loc = r.choice([None, None, "en", "fr"])
        n = self.add("POST", self.with_query("/api/products", locale=loc, status=r.choice([None, "draft"])),
                     {"data": data})
        self.docs.append(f"{{{{s{n}.data.documentId}}}}")

    def update(self):
        r = self.rng
        if not self.docs:
            return self.create()
        data = self.product_data(False)
        path = self.with_query(f"/api/products/{r.choice(self.docs)}", locale=self.pick_locale(2),
                               status=r.choice([None, None, "draft"]))
        self.add("PUT", path, {"data": data})

    def delete(self):
        if self.docs:
            loc = self.rng.choice([None, "en", "fr", "de", "*"])
            self.add("DELETE", f"/api/products/{self.rng.choice(self.docs)}{query(locale=loc)}")

    def read(self):
        if self.docs:
            q = query(locale=self.pick_locale(2), status=self.status())
            q += ("&" if q else "?") + self.POPULATE
            self.add("GET", f"/api/products/{self.rng.choice(self.docs)}{q}")

    def listing(self):
        r = self.rng
        q = query(locale=r.choice(["en", "fr", "*"]), status=r.choice(["draft", "published"]),
                  **{"sort[0]": "name", "sort[1]": "locale", "sort[2]": "id", "fields[0]": "name",
                     "fields[1]": "sku", "fields[2]": "ean", "fields[3]": "handle", "fields[4]": "qty"})
        self.add("GET", f"/api/products{q}")

    def operations(self):
        return [(self.create, 3), (self.update, 5), (self.delete, 1), (self.read, 1.5), (self.listing, 0.6)]


class GraphqlProducts(Products):
    """The `products` work through `POST /graphql`: zone items named by `__typename`, and
    what GraphQL's own validation refuses (a string for an `Int`, a number for a `String`)
    among the invalid values, beside the rules Strapi's validator checks."""

    FIELDS = ("documentId name sku ean code summary qty weight price stock handle locale publishedAt "
              "specs { id question answer } "
              "sections { __typename ... on ComponentSharedRichText { id body } "
              "... on ComponentSharedQuote { id title } } tags { name }")

    def gql_data(self, data):
        for item in data.get("sections") or []:
            uid = item.pop("__component", None)
            if uid is not None:
                item["__typename"] = GraphqlComponents.typename(uid)
        return data

    def args(self, **kw):
        parts = [f"{k}: {v}" for k, v in kw.items() if v is not None]
        return ("(" + ", ".join(parts) + ")") if parts else ""

    def gql_locale(self, none_weight=2):
        loc = self.pick_locale(none_weight)
        return json.dumps(loc) if loc else None

    def query_step(self, text):
        return self.add("POST", "/graphql", {"query": text})

    def create(self):
        r = self.rng
        data = self.gql_data(self.product_data(True))
        args = self.args(locale=json.dumps(r.choice(["en", "fr"])) if r.random() < 0.4 else None,
                         status=r.choice([None, "DRAFT"]), data=gql_value(data))
        n = self.query_step(f"mutation {{ createProduct{args} {{ {self.FIELDS} }} }}")
        self.docs.append(f"{{{{s{n}.data.createProduct.documentId}}}}")

    def update(self):
        r = self.rng
        if not self.docs:
            return self.create()
        data = self.gql_data(self.product_data(False))
        args = self.args(documentId=json.dumps(r.choice(self.docs)), locale=self.gql_locale(),
                         status=r.choice([None, None, "DRAFT"]), data=gql_value(data))
        self.query_step(f"mutation {{ updateProduct{args} {{ {self.FIELDS} }} }}")

    def delete(self):
        if self.docs:
            args = self.args(documentId=json.dumps(self.rng.choice(self.docs)),
                             locale=json.dumps(self.rng.choice(["en", "fr", "de"])) if self.rng.random() < 0.6 else None)
            self.query_step(f"mutation {{ deleteProduct{args} {{ documentId }} }}")

    def read(self):
        if self.docs:
            args = self.args(documentId=json.dumps(self.rng.choice(self.docs)), locale=self.gql_locale(),
                             status=self.rng.choice([None, "DRAFT", "PUBLISHED"]))
            self.query_step(f"{{ product{args} {{ {self.FIELDS} }} }}")

    def listing(self):
        args = self.args(locale=json.dumps(self.rng.choice(["en", "fr"])),
                         status=self.rng.choice(["DRAFT", "PUBLISHED"]), sort='["name", "locale", "sku", "ean", "handle", "qty"]')
        self.query_step(f"{{ products{args} {{ name sku ean handle qty locale }} }}")


class SelfRelations(Relations):
    """The edge model's `node` (draft and publish, not localized): every kind of self relation
    from both sides (`parent`/`children`, a two-way many-to-one; `friends`/`friendOf`, a two-way
    many-to-many; `next`, one-way one-to-one; `seeAlso`, one-way one-to-many) given by shorthand,
    `connect` with positions, `disconnect`, `set` and longhand entries with `status` (and, now and
    then, a `locale` the type does not have), a node linked to itself, deleted nodes still named,
    drafts beside published versions; reads of each version and listings with every relation."""

    POPULATE = "&".join(
        f"populate[{a}][fields][0]=name"
        for a in ("parent", "children", "friends", "friendOf", "next", "seeAlso")
    )

    def __init__(self, rng, positions=False):
        super().__init__(rng)
        self.nodes = []
        # Nodes with a draft only (created with `?status=draft`, not published since).
        self.drafts = set()
        self.gone = ["missing0000000000000000x", "article00000000000000001"]

    def pick(self, pool, valid):
        r = self.rng
        if not valid and r.random() < 0.3:
            return r.choice(self.gone)
        return r.choice(pool)

    def entry(self, pool, valid, positions=True):
        item = super().entry(pool, valid, positions)
        if isinstance(item, dict) and "locale" in item and self.rng.random() < 0.7:
            del item["locale"]
        return item

    def to_many(self, pool, valid):
        value = super().to_many(pool, valid)
        if not valid:
            return value
        # A valid list names each node once (twice is Strapi's "already connected").
        doc = lambda e: e["documentId"] if isinstance(e, dict) else e
        for key in ("connect", "set"):
            if isinstance(value, dict) and key in value:
                seen, kept = set(), []
                for e in value[key]:
                    if doc(e) not in seen:
                        seen.add(doc(e))
                        kept.append(e)
                value[key] = kept
        return value

    def node_data(self, valid, publishing):
        r = self.rng
        data = {}
        # A published version may link only nodes that have one.
        pool = [n for n in self.nodes if not publishing or n not in self.drafts]
        if not pool:
            return data
        for attr, many, weight in (
            ("parent", False, 0.35), ("children", True, 0.3), ("friends", True, 0.4),
            ("friendOf", True, 0.25), ("next", False, 0.3), ("seeAlso", True, 0.3),
        ):
            if r.random() < weight:
                data[attr] = self.to_many(pool, valid) if many else self.to_one(pool, valid)
        return data

    def suffix(self, q):
        return q + ("&" if q else "?") + self.POPULATE

    # What differs between REST and GraphQL ([`GraphqlSelfRelations`]): the draft status's
    # name, a relation's value, and the steps themselves.
    DRAFT = "draft"

    def node_fields(self, valid, publishing):
        return self.node_data(valid, publishing)

    def create_step(self, status, data):
        n = self.add("POST", "/api/nodes" + self.suffix(query(status=status)), {"data": data})
        return f"{{{{s{n}.data.documentId}}}}"

    def update_step(self, node, status, data):
        self.add("PUT", f"/api/nodes/{node}" + self.suffix(query(status=status)), {"data": data})

    def delete_step(self, node):
        self.add("DELETE", f"/api/nodes/{node}")

    def create(self):
        r = self.rng
        self.serial += 1
        valid = r.random() < 0.85
        status = r.choice([None, None, self.DRAFT])
        data = {"name": f"n{self.serial}", **self.node_fields(valid, status is None)}
        node = self.create_step(status, data)
        if valid:
            self.nodes.append(node)
            if status == self.DRAFT:
                self.drafts.add(node)

    def update(self):
        r = self.rng
        if not self.nodes:
            return self.create()
        self.serial += 1
        valid = r.random() < 0.85
        status = r.choice([None, None, self.DRAFT])
        data = self.node_fields(valid, status is None)
        if r.random() < 0.3 or not data:
            data["name"] = f"n{self.serial}"
        node = r.choice(self.nodes)
        self.update_step(node, status, data)
        if valid and status is None:
            self.drafts.discard(node)

    def delete(self):
        if len(self.nodes) < 3:
            return self.create()
        node = self.rng.choice(self.nodes)
        self.delete_step(node)
        # Mostly named no more (a later step naming it fails), but now and then still.
        if self.rng.random() < 0.8:
            self.nodes.remove(node)
            self.gone.append(node)

    def read(self):
        if not self.nodes:
            return self.create()
        q = query(status=self.status())
        self.add("GET", f"/api/nodes/{self.rng.choice(self.nodes)}" + self.suffix(q))

    def listing(self):
        q = query(status=self.rng.choice(["draft", "published"]), **{"sort[0]": "name", "fields[0]": "name"})
        self.add("GET", "/api/nodes" + self.suffix(q))

    def generate(self, n):
        for _ in range(4):
            self.create()
        return super().generate(n)


class GraphqlSelfRelations(SelfRelations):
    """The `self-relations` work through `POST /graphql`: GraphQL names relations by
    documentId only, a to-many as the whole list (`set`) and a to-one as one id or `null`."""

    FIELDS = ("documentId name publishedAt parent { name } children { name } friends { name } "
              "friendOf { name } next { name } seeAlso { name }")

    def node_input(self, valid, publishing):
        data = self.node_data(valid, publishing)
        doc = lambda e: e["documentId"] if isinstance(e, dict) else e
        for key, value in list(data.items()):
            if isinstance(value, dict):
                entries = value.get("set", value.get("connect"))
                if entries is None:
                    data.pop(key)
                    continue
                ids = [doc(e) for e in entries]
                value = ids if key in ("children", "friends", "friendOf", "seeAlso") else (ids[-1] if ids else None)
            elif isinstance(value, list):
                value = [doc(e) for e in value]
            data[key] = value
        return data

    def args(self, **kw):
        parts = [f"{k}: {v}" for k, v in kw.items() if v is not None]
        return ("(" + ", ".join(parts) + ")") if parts else ""

    def add_query(self, text):
        return self.add("POST", "/graphql", {"query": text})

    DRAFT = "DRAFT"

    def node_fields(self, valid, publishing):
        return self.node_input(valid, publishing)

    def create_step(self, status, data):
        n = self.add_query(f"mutation {{ createNode{self.args(status=status, data=gql_value(data))} {{ {self.FIELDS} }} }}")
        return f"{{{{s{n}.data.createNode.documentId}}}}"

    def update_step(self, node, status, data):
        args = self.args(documentId=json.dumps(node), status=status, data=gql_value(data))
        self.add_query(f"mutation {{ updateNode{args} {{ {self.FIELDS} }} }}")

    def delete_step(self, node):
        self.add_query(f"mutation {{ deleteNode(documentId: {json.dumps(node)}) {{ documentId }} }}")

    def read(self):
        if not self.nodes:
            return self.create()
        status = self.rng.choice([None, "DRAFT", "PUBLISHED"])
        args = self.args(documentId=json.dumps(self.rng.choice(self.nodes)), status=status)
        self.add_query(f"{{ node{args} {{ {self.FIELDS} }} }}")

    def listing(self):
        status = self.rng.choice(["DRAFT", "PUBLISHED"])
        self.add_query(f"{{ nodes{self.args(status=status, sort=json.dumps(['name', 'publishedAt']))} {{ {self.FIELDS} }} }}")


GENERATORS = {
    "i18n-lifecycle": (Lifecycle, "blog"),
    "components": (Components, "blog"),
    "graphql-components": (GraphqlComponents, "blog"),
    "single-type": (SingleType, "ext"),
    "i18n-model": (I18nModel, "i18n"),
    "graphql-i18n": (GraphqlI18n, "i18n"),
    "relations": (Relations, "blog"),
    "self-relations": (SelfRelations, "edge"),
    "graphql-self-relations": (GraphqlSelfRelations, "edge"),
    "scalars": (Scalars, "edge"),
    "shared": (SharedModel, "shared"),
    "products": (Products, "ext"),
    "graphql-products": (GraphqlProducts, "ext"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=sorted(GENERATORS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--name")
    ap.add_argument("--positions", action="store_true",
                    help="i18n-model, graphql-i18n: some label connects carry a position")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cls, model = GENERATORS[args.kind]
    gen = cls(rng, positions=True) if args.positions else cls(rng)
    name = args.name or f"gen-{args.kind}-{args.seed}"
    print(f"=== {name}")
    if model != "blog":
        print(f"model: {model}")
    flags = " --positions" if args.positions else ""
    print(f"about: generated (tools/gen_sequences.py {args.kind} --seed {args.seed} --steps {args.steps}{flags}).")
    for method, path, body, about in gen.generate(args.steps):
        print(f"> {method} {path}")
        if about:
            print(f"about: {about}")
        if body is not None:
            text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
            # a component's id from an earlier answer is a number, not a string
            print("body: " + re.sub(r'"(\{\{s\d+\.[^}"]+\.id\}\})"', r"\1", text))
    print()


if __name__ == "__main__":
    main()
