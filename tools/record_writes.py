#!/usr/bin/env python3
"""Records what a real Strapi 5.54 (the oracle) does for write requests: for every sequence of a
sequences file, the answers and the difference of every table before and after each step.

usage:
  python3 tools/record_writes.py [--backend sqlite|postgres|mysql] [--only NAME[,NAME...]]
                                 [--from NAME] [--sequences FILE] [--out DIR] [--oracle DIR]
                                 [--port N] [--keep]

  --backend    which database the oracle runs on (default sqlite). postgres uses the server at
               127.0.0.1:5432 (user postgres, trust); mysql the MariaDB at 127.0.0.1:3306 (root).
  --only       record these sequences only (comma-separated names, or prefixes ending in '*').
  --sequences  default tests/fixtures/blog/writes/sequences.txt (format: see the top of that file).
  --out        default tests/fixtures/blog/writes; files go to OUT/<backend>/<sequence>.json.
  --oracle     the oracle's project folder (default /work/oracle, which must have node_modules).
  --port       the port Strapi listens on while recording (default 1347, not the oracle's 1337).
  --keep       keep the databases this tool created (they are dropped at the end otherwise).
  --from       start at this sequence (skip those before it in the file).

For each sequence the tool
  1. puts the oracle's database back to the seed state: SQLite copies a pristine file taken after
     the first seeding boot; PostgreSQL recreates the database from a seeded template database;
     MariaDB recreates it from a mysqldump of a seeded database;
  2. inserts the API tokens of TOKENS below (stored as Strapi stores them: access_key =
     hex(HMAC-SHA512("lab-api-token-salt", key)), as tools/auth_fixture.py does) and applies the
     sequence's `setup:` lines (grants to the users-permissions roles);
  3. starts Strapi on it (production mode, as the oracle's start.sh does) and waits until
     /api/articles answers 200;
  4. for every step: dumps every table, sends the request byte for byte as written (method, path
     and query, headers, raw body), waits for Strapi to settle, dumps every table again and stores
     the answer (status, content-type, JSON body) and the per-table difference;
  5. stops Strapi.

Sequences whose `model:` is `ext` run on a copy of the oracle, made under /tmp/record_writes, that
adds the content types of tests/fixtures/blog/writes/ext/schemas to the blog model (constraints
the blog model lacks: required, unique, min/max, regex, private, password, single types). Those
whose `model:` is `edge` run on another copy that adds writes/edge/schemas (every attribute type,
self relations, long names, keywords, nested components; its custom fields are registered in the
copy's src/index.js, MODEL_REGISTER). Those whose `model:` is `shared` add writes/shared/schemas (a
localized type whose components and dynamic zone are shared by its locales); `required`,
writes/required/schemas; `i18n`, writes/i18n/schemas (localized types with and without draft and
publish, related to each other, and a localized single type without it).

Values are kept raw: documentIds and timestamps are what Strapi wrote. Table rows are sorted by
primary key (all columns when a table has none), JSON keys are sorted.

Python 3 standard library only; psql, createdb/dropdb, mysql and mysqldump for the server backends.
This is a development tool: no test runs it.
"""
import argparse, base64, hashlib, http.client, json, os, random, re, shutil, signal, sqlite3
import subprocess, sys, time
from urllib.parse import quote

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import auth_fixture as af  # noqa: E402  (key(), access_key(), jwt(): the same derivations)

WRITES = os.path.join(ROOT, "tests", "fixtures", "blog", "writes")
# The models beside the oracle's blog: each adds the content types of its folder.
MODEL_SCHEMAS = {
    "ext": os.path.join(WRITES, "ext", "schemas"),
    "edge": os.path.join(WRITES, "edge", "schemas"),
    "shared": os.path.join(WRITES, "shared", "schemas"),
    "required": os.path.join(WRITES, "required", "schemas"),
    "i18n": os.path.join(WRITES, "i18n", "schemas"),
    "conditions": os.path.join(WRITES, "conditions", "schemas"),
}
# Code each model's project adds to src/index.js's register(): the edge model's custom fields
# (Strapi refuses to boot on a custom field nobody registered).
MODEL_REGISTER = {
    "edge": "strapi.customFields.register([{ name: 'color', type: 'string' }, "
            "{ name: 'stars', type: 'integer' }]);",
}
# The tool's scratch folder (the models' copies of the oracle, pristine databases, logs);
# RECORD_WRITES_WORK names another, so that a SQLite recording can run beside a server one.
WORK = os.environ.get("RECORD_WRITES_WORK", "/tmp/record_writes")
# The blog fixture's MariaDB database, which write_replay's MariaDB runs start from.
MYSQL_FIXTURE = os.path.join(HERE, "..", "tests", "fixtures", "blog", "mysql", "strapi-mysql.sql")
STRAPI_VERSION = "5.54.0"

NOW_MS = 1764000000000  # created_at/updated_at of the rows this tool inserts (2025-11-24)

# id, name, type, actions (custom tokens only). Keys are af.key(f"strata write token {id}").
TOKENS = [
    (200, "writes full-access", "full-access", []),
    (201, "writes read-only", "read-only", []),
    (202, "writes custom: article create", "custom", ["api::article.article.create"]),
    (203, "writes custom: article find/findOne/create/update/delete", "custom",
     ["api::article.article.find", "api::article.article.findOne", "api::article.article.create",
      "api::article.article.update", "api::article.article.delete"]),
]
ROLE_IDS = {"authenticated": 1, "public": 2}  # ids of the users-permissions roles in the seed


def token_key(tid):
    return af.key(f"strata write token {tid}")


def auth_header(name):
    """`auth:` value of a step -> Authorization header value (None: no header)."""
    fixed = {
        "full": token_key(200), "read-only": token_key(201), "create-only": token_key(202),
        "article-rw": token_key(203),
    }
    if name in fixed:
        return "Bearer " + fixed[name]
    if name == "none":
        return None
    if name == "invalid":
        return "Bearer " + af.key("not a stored token")
    if name.startswith("jwt-"):
        users = {"jwt-alice": 1, "jwt-bob": 2, "jwt-carol": 3}
        return "Bearer " + af.jwt({"id": users[name], "iat": NOW_MS // 1000, "exp": af.FUTURE_MS // 1000})
    if name.startswith("raw "):
        return name[4:]
    raise SystemExit(f"unknown auth {name!r}")


# ------------------------------------------------------------------------------------ sequences

class Step:
    def __init__(self, method, path):
        self.method, self.path = method, path
        self.auth = "full"
        self.headers = []          # [(name, value)]
        self.content_type = None   # None: application/json when there is a body; "none": omit
        self.body = None           # str
        self.body_hex = None
        self.body_gen = None
        self.about = ""


class Sequence:
    def __init__(self, name, line):
        self.name, self.line = name, line
        self.about = []
        self.model = "blog"
        self.setup = []
        self.steps = []


def parse_sequences(path):
    seqs, cur, step, last = [], None, None, None
    for n, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("=== "):
            cur = Sequence(line[4:].strip(), n)
            if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", cur.name):
                raise SystemExit(f"{path}:{n}: bad sequence name {cur.name!r}")
            seqs.append(cur)
            step = None
            continue
        if cur is None:
            raise SystemExit(f"{path}:{n}: line outside a sequence")
        if line.startswith("> "):
            method, _, target = line[2:].strip().partition(" ")
            step = Step(method, target.strip())
            cur.steps.append(step)
            last = None
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise SystemExit(f"{path}:{n}: expected `key: value`")
        key, value = key.strip(), value[1:] if value.startswith(" ") else value
        if step is None:
            if key == "about":
                cur.about.append(value)
            elif key == "model":
                cur.model = value.strip()
            elif key == "setup":
                cur.setup.append(value.strip())
            else:
                raise SystemExit(f"{path}:{n}: unknown sequence key {key!r}")
            continue
        if key == "auth":
            step.auth = value.strip()
        elif key == "header":
            h, _, v = value.partition(":")
            step.headers.append((h.strip(), v.strip()))
        elif key == "content-type":
            step.content_type = value.strip()
        elif key == "body":
            step.body = value
        elif key == "body+":
            step.body += "\n" + value
        elif key == "body-hex":
            step.body_hex = value.strip()
        elif key == "body-gen":
            step.body_gen = value.strip()
        elif key == "about":
            step.about = (step.about + " " + value).strip()
        else:
            raise SystemExit(f"{path}:{n}: unknown step key {key!r}")
    names = [s.name for s in seqs]
    dup = {x for x in names if names.count(x) > 1}
    if dup:
        raise SystemExit(f"duplicate sequence names: {sorted(dup)}")
    return seqs


def generate_body(spec):
    """`body-gen:` values. Deterministic."""
    kind, *args = spec.split()
    n = int(args[0]) if args else 0
    if kind == "large":          # {"data":{"title":"large"}} padded with spaces to exactly n bytes
        head, tail = '{"data":{"title":"large"}', '}'
        return (head + " " * (n - len(head) - len(tail)) + tail).encode()
    if kind == "deep-json":      # a json attribute nested n arrays deep
        return ('{"data":{"title":"deep json","metadata":' + "[" * n + "1" + "]" * n + "}}").encode()
    if kind == "deep-object":    # data.seo.social... no: an unknown key nested n objects deep
        return ('{"data":{"title":"deep object","metadata":' + '{"a":' * n + "1" + "}" * n + "}}").encode()
    if kind == "deep-unknown":
        return ('{"data":{"title":"deep unknown","zzz":' + '{"a":' * n + "1" + "}" * n + "}}").encode()
    if kind == "wide-tags":      # tags: the same tag documentId n times
        return json.dumps({"data": {"title": "wide", "tags": ["tag000000000000000000001"] * n}},
                          separators=(",", ":")).encode()
    if kind == "many-keys":      # n unknown keys
        return json.dumps({"data": {f"k{i}": i for i in range(n)}}, separators=(",", ":")).encode()
    raise SystemExit(f"unknown body-gen {spec!r}")


PLACEHOLDER = re.compile(r"\{\{s(\d+)\.([^}]+)\}\}")


def substitute(text, answers):
    """{{sN.a.b.0.c}} -> value at that path in step N's JSON answer."""
    def one(m):
        v = answers[int(m.group(1)) - 1]
        try:
            for part in m.group(2).split("."):
                v = v[int(part)] if isinstance(v, list) else v[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return "UNRESOLVED"   # the step it names did not answer what the sequence expected
        return str(v)
    return PLACEHOLDER.sub(one, text) if text is not None else None


# ------------------------------------------------------------------------------------ backends

def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def sql_literal(v):
    return "null" if v is None else "'" + str(v).replace("'", "''") + "'"


def seed_sql(dialect, setup):
    """Tokens and the `setup:` grants, as SQL statements for the dialect."""
    def ts(ms):
        if dialect == "mysql":
            import datetime
            t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
            return "'" + t.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}'"
        return str(ms) if dialect == "sqlite" else f"to_timestamp({ms} / 1000.0)"
    now = ts(NOW_MS)
    out, perm_id = [], 200
    for (tid, name, typ, actions) in TOKENS:
        out.append(
            "insert into strapi_api_tokens (id, document_id, name, description, kind, type, access_key, "
            "encrypted_key, last_used_at, expires_at, lifespan, created_at, updated_at, published_at, "
            f"created_by_id, updated_by_id, locale) values ({tid}, {sql_literal(f'token{tid:021d}')}, "
            f"{sql_literal(name)}, '', 'content-api', {sql_literal(typ)}, "
            f"{sql_literal(af.access_key(token_key(tid)))}, null, null, null, null, {now}, {now}, {now}, "
            "null, null, null)")
        for n, action in enumerate(actions, 1):
            out.append(
                "insert into strapi_api_token_permissions (id, document_id, action, created_at, updated_at, "
                f"published_at, created_by_id, updated_by_id, locale) values ({perm_id}, "
                f"{sql_literal(f'tokenperm{perm_id:015d}')}, {sql_literal(action)}, {now}, {now}, {now}, "
                "null, null, null)")
            out.append(
                "insert into strapi_api_token_permissions_token_lnk (id, api_token_permission_id, api_token_id, "
                f"api_token_permission_ord) values ({perm_id}, {perm_id}, {tid}, {float(n)})")
            perm_id += 1
    up_id = 300
    for line in setup:
        words = line.split()
        if len(words) == 3 and words[0] == "grant" and words[1] in ROLE_IDS:
            out.append(
                "insert into up_permissions (id, document_id, action, created_at, updated_at, published_at, "
                f"created_by_id, updated_by_id, locale) values ({up_id}, {sql_literal(f'perm{up_id:020d}')}, "
                f"{sql_literal(words[2])}, {now}, {now}, {now}, null, null, null)")
            out.append(
                "insert into up_permissions_role_lnk (id, permission_id, role_id, permission_ord) values "
                f"({up_id}, {up_id}, {ROLE_IDS[words[1]]}, {float(up_id)})")
            up_id += 1
        else:
            raise SystemExit(f"unknown setup line {line!r}")
    if dialect == "postgres":
        for table in ["strapi_api_tokens", "strapi_api_token_permissions",
                      "strapi_api_token_permissions_token_lnk", "up_permissions", "up_permissions_role_lnk"]:
            out.append(f"select setval(pg_get_serial_sequence('{table}', 'id'), (select max(id) from {table}))")
    return out


def decode_text(b):
    """SQLite TEXT that is not valid UTF-8 (Strapi can store a lone surrogate) is kept as its bytes."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"invalid_utf8_hex": b.hex()}


class SQLite:
    name = "sqlite"

    def __init__(self, model, project):
        self.project = project
        self.rel = f".tmp/record_writes_{model}.db"
        self.path = os.path.join(project, self.rel)
        self.pristine = os.path.join(WORK, f"pristine-{model}.sqlite")

    def env(self):
        return {"DATABASE_CLIENT": "sqlite", "DATABASE_FILENAME": self.rel}

    def _remove(self):
        for suffix in ["", "-journal", "-wal", "-shm"]:
            if os.path.exists(self.path + suffix):
                os.remove(self.path + suffix)

    def has_pristine(self):
        return os.path.exists(self.pristine)

    def empty(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self._remove()

    def save_pristine(self):
        shutil.copyfile(self.path, self.pristine)

    def reset(self, statements):
        self._remove()
        shutil.copyfile(self.pristine, self.path)
        con = sqlite3.connect(self.path)
        for s in statements:
            con.execute(s)
        con.commit()
        con.close()

    def dump(self):
        con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        con.text_factory = decode_text
        out = {}
        tables = [r[0] for r in con.execute(
            "select name from sqlite_master where type='table' order by name")]
        for t in tables:
            info = con.execute(f'pragma table_info("{t}")').fetchall()
            cols = [r[1] for r in info]
            pk = [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5] > 0]
            if t == "sqlite_sequence":
                pk = ["name"]
            rows = [dict(zip(cols, r)) for r in con.execute(f'select * from "{t}"')]
            out[t] = (pk, rows)
        con.close()
        return out

    def drop(self):
        self._remove()
        if os.path.exists(self.pristine):
            os.remove(self.pristine)


class Postgres:
    name = "postgres"
    base = ["-h", "127.0.0.1", "-p", "5432", "-U", "postgres"]

    def __init__(self, model, project):
        self.db = f"writes_rec_pg_{model}"
        self.seed = f"writes_rec_pg_{model}_seed"
        self.pristine_flag = os.path.join(WORK, f"pristine-{model}.postgres")

    def env(self):
        return {"DATABASE_CLIENT": "postgres", "DATABASE_PORT": "5432", "DATABASE_NAME": self.db}

    def psql(self, db, sql, **kw):
        return run(["psql", *self.base, "-d", db, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-At", "-c", sql], **kw)

    def create(self, name, template=None):
        self.psql("postgres", f'drop database if exists "{name}"')
        tmpl = f'template "{template}"' if template else "template template0"
        self.psql("postgres", f"create database \"{name}\" {tmpl} encoding 'UTF8' locale_provider icu "
                              "icu_locale 'en-US' locale 'C.UTF-8'")

    def has_pristine(self):
        return os.path.exists(self.pristine_flag) and self.psql(
            "postgres", f"select 1 from pg_database where datname='{self.seed}'").stdout.strip() == "1"

    def empty(self):
        self.create(self.db)

    def save_pristine(self):
        self.psql("postgres", f'drop database if exists "{self.seed}"')
        self.psql("postgres", f'create database "{self.seed}" template "{self.db}"')
        open(self.pristine_flag, "w").write(self.seed + "\n")

    def reset(self, statements):
        self.create(self.db, template=self.seed)
        run(["psql", *self.base, "-d", self.db, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-At"],
            input="begin;\n" + ";\n".join(statements) + ";\ncommit;\n")

    def dump(self):
        q = """select c.relname,
                 coalesce((select string_agg(a.attname, ',' order by array_position(i.indkey, a.attnum))
                           from pg_index i join pg_attribute a on a.attrelid = i.indrelid
                           and a.attnum = any(i.indkey) where i.indrelid = c.oid and i.indisprimary), '')
               from pg_class c join pg_namespace n on n.oid = c.relnamespace
               where n.nspname = 'public' and c.relkind = 'r' order by c.relname"""
        tables = [line.split("|") for line in self.psql(self.db, q).stdout.splitlines()]
        script = []
        for t, pk in tables:
            order = ", ".join(f'"{c}"' for c in pk.split(",")) if pk else "t::text"
            # jsonb prints on one line (json_agg puts newlines between elements)
            script.append(f"select coalesce(jsonb_agg(to_jsonb(t) order by {order}), '[]'::jsonb) from \"{t}\" t;")
        res = run(["psql", *self.base, "-d", self.db, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-At"],
                  input="\n".join(script) + "\n")
        # One line a table; not splitlines(), which also splits at U+2028 inside a value.
        lines = res.stdout.rstrip("\n").split("\n")
        assert len(lines) == len(tables), (len(lines), len(tables))
        return {t: (pk.split(",") if pk else [], json.loads(line)) for (t, pk), line in zip(tables, lines)}

    def drop(self):
        self.psql("postgres", f'drop database if exists "{self.db}"')
        self.psql("postgres", f'drop database if exists "{self.seed}"')
        if os.path.exists(self.pristine_flag):
            os.remove(self.pristine_flag)


class MySQL:
    name = "mysql"
    base = ["-h", "127.0.0.1", "-P", "3306", "-u", "root"]

    def __init__(self, model, project):
        self.db = f"writes_rec_my_{model}"
        self.dumpfile = os.path.join(WORK, f"pristine-{model}.mysql.sql")

    def env(self):
        return {"DATABASE_CLIENT": "mysql", "DATABASE_NAME": self.db}

    def mysql(self, sql, db=None, **kw):
        return run(["mysql", *self.base, "--default-character-set=utf8mb4", "-N", "-B", "--raw",
                    *([db] if db else []), "-e", sql], **kw)

    def create(self):
        self.mysql(f"drop database if exists `{self.db}`; create database `{self.db}` character set utf8mb4 "
                   "collate utf8mb4_unicode_ci")

    def has_pristine(self):
        return os.path.exists(self.dumpfile)

    def empty(self):
        # Not empty: the blog fixture's database (the one the replay starts from), which the
        # seeding boot then finds seeded and only extends with the model's own tables.
        # MariaDB numbers tied order values its own way, differently from one seeding to the
        # next, so a database Strapi seeded here would not hold the replay's order values
        # (the new published link of a republish takes the old one's, as in rel-id-strings).
        self.create()
        run(["mysql", *self.base, "--default-character-set=utf8mb4", self.db],
            input=open(MYSQL_FIXTURE).read())

    def save_pristine(self):
        res = run(["mysqldump", *self.base, "--default-character-set=utf8mb4", "--single-transaction",
                   "--skip-dump-date", "--hex-blob", self.db])
        open(self.dumpfile, "w").write(res.stdout)

    def reset(self, statements):
        self.create()
        run(["mysql", *self.base, "--default-character-set=utf8mb4", self.db],
            input=open(self.dumpfile).read() + "\n" + ";\n".join(statements) + ";\n")

    def dump(self):
        cols = self.mysql(
            "select table_name, column_name, column_key from information_schema.columns "
            f"where table_schema = '{self.db}' order by table_name, ordinal_position").stdout.splitlines()
        tables = {}
        for line in cols:
            t, c, key = line.split("\t")
            tables.setdefault(t, ([], []))
            tables[t][0].append(c)
            if key == "PRI":
                tables[t][1].append(c)
        script = ["set session group_concat_max_len = 1073741824;"]
        names = sorted(tables)
        for t in names:
            cs, pk = tables[t]
            obj = "json_object(" + ", ".join(f"'{c}', `{c}`" for c in cs) + ")"
            order = ", ".join(f"`{c}`" for c in (pk or cs))
            script.append(f"select concat('[', ifnull(group_concat({obj} order by {order} separator ','), ''), ']') "
                          f"from `{t}`;")
        res = run(["mysql", *self.base, "--default-character-set=utf8mb4", "-N", "-B", "--raw", self.db],
                  input="\n".join(script) + "\n")
        # One line a table; not splitlines(), which also splits at U+2028 inside a value.
        lines = res.stdout.rstrip("\n").split("\n")
        assert len(lines) == len(names), (len(lines), len(names))
        return {t: (tables[t][1], json.loads(line)) for t, line in zip(names, lines)}

    def drop(self):
        self.mysql(f"drop database if exists `{self.db}`")
        if os.path.exists(self.dumpfile):
            os.remove(self.dumpfile)


BACKENDS = {"sqlite": SQLite, "postgres": Postgres, "mysql": MySQL}


# ------------------------------------------------------------------------------------ strapi

class Strapi:
    def __init__(self, project, port, backend, log):
        self.project, self.port, self.backend, self.log = project, port, backend, log
        self.proc = None

    def start(self):
        env = dict(os.environ)
        for k in ["DATABASE_CLIENT", "DATABASE_NAME", "DATABASE_PORT", "DATABASE_FILENAME", "DATABASE_HOST"]:
            env.pop(k, None)
        env.update(HOST="127.0.0.1", PORT=str(self.port), NODE_ENV="production", STRAPI_TELEMETRY_DISABLED="true",
                   BROWSER="none", LOG_LEVEL="http", **self.backend.env())
        logf = open(self.log, "a")
        logf.write(f"\n===== start {time.strftime('%H:%M:%S')} {self.backend.env()}\n")
        logf.flush()
        self.proc = subprocess.Popen(["node", "node_modules/@strapi/strapi/bin/strapi.js", "start"],
                                     cwd=self.project, env=env, stdout=logf, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        t0 = time.time()
        while time.time() - t0 < 180:
            if self.proc.poll() is not None:
                raise SystemExit(f"strapi exited with {self.proc.returncode}; see {self.log}")
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                c.request("GET", "/api/articles?pagination[pageSize]=1")
                r = c.getresponse()
                r.read()
                c.close()
                if r.status == 200:
                    return time.time() - t0
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"strapi did not answer within 180 s; see {self.log}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None


def copy_oracle(oracle, dest, names):
    """A new project at `dest` with the oracle's `names` copied (its uploads left out) and
    its node_modules symlinked."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    for name in names:
        src = os.path.join(oracle, name)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dest, name), ignore=shutil.ignore_patterns("uploads"))
        elif os.path.exists(src):
            shutil.copyfile(src, os.path.join(dest, name))
    os.makedirs(os.path.join(dest, "public", "uploads"), exist_ok=True)
    os.symlink(os.path.join(oracle, "node_modules"), os.path.join(dest, "node_modules"))


def make_model_project(oracle, model):
    """A copy of the oracle (node_modules symlinked) whose src/api and src/components also hold the
    content types of MODEL_SCHEMAS[model]."""
    schemas = MODEL_SCHEMAS[model]
    dest = os.path.join(WORK, f"oracle-{model}")
    copy_oracle(oracle, dest, ["config", "database", "lib", "seed", "src", "package.json", "public"])
    for sub in ["api", "components"]:
        src = os.path.join(schemas, sub)
        if not os.path.isdir(src):
            continue
        for dirpath, _, files in os.walk(src):
            for f in files:
                rel = os.path.relpath(os.path.join(dirpath, f), schemas)
                target = os.path.join(dest, "src", rel)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(os.path.join(dirpath, f), target)
    # Strapi needs a controller, route and service per API; the factories' defaults, as `strapi generate` writes
    api_root = os.path.join(schemas, "api")
    for api in sorted(os.listdir(api_root)) if os.path.isdir(api_root) else []:
        uid = f"api::{api}.{api}"
        base = os.path.join(dest, "src", "api", api)
        for kind, factory in [("controllers", "createCoreController"), ("routes", "createCoreRouter"),
                              ("services", "createCoreService")]:
            os.makedirs(os.path.join(base, kind), exist_ok=True)
            with open(os.path.join(base, kind, f"{api}.js"), "w") as f:
                f.write(f"'use strict';\nconst {{ factories }} = require('@strapi/strapi');\n"
                        f"module.exports = factories.{factory}('{uid}');\n")
    if model in MODEL_REGISTER:
        index = os.path.join(dest, "src", "index.js")
        with open(index) as f:
            text = f.read()
        hook = "register(/* { strapi } */) {},"
        assert hook in text, "the oracle's src/index.js changed: update MODEL_REGISTER's hook"
        text = text.replace(hook, "register({ strapi }) {\n    " + MODEL_REGISTER[model] + "\n  },")
        with open(index, "w") as f:
            f.write(text)
    return dest


# ------------------------------------------------------------------------------------ diffs

def norm(v):
    if isinstance(v, (bytes, bytearray)):
        return {"hex": bytes(v).hex()}
    return v


def diff_tables(before, after):
    out = {}
    for t in sorted(set(before) | set(after)):
        pk_b, rows_b = before.get(t, ([], []))
        pk_a, rows_a = after.get(t, ([], []))
        pk = pk_a or pk_b
        if t not in before:
            out[t] = {"table_added": True, "added": rows_a}
            continue
        if t not in after:
            out[t] = {"table_removed": True, "removed": rows_b}
            continue
        if pk:
            kb = {tuple(r[c] for c in pk): r for r in rows_b}
            ka = {tuple(r[c] for c in pk): r for r in rows_a}
            added = [ka[k] for k in sorted(set(ka) - set(kb), key=sort_key)]
            removed = [kb[k] for k in sorted(set(kb) - set(ka), key=sort_key)]
            changed = []
            for k in sorted(set(ka) & set(kb), key=sort_key):
                a, b = ka[k], kb[k]
                if a != b:
                    cols = sorted(set(a) | set(b))
                    changed.append({"key": {c: a[c] for c in pk},
                                    "changed": {c: [b.get(c), a.get(c)] for c in cols if a.get(c) != b.get(c)}})
        else:
            canon = lambda r: json.dumps(r, sort_keys=True, default=str)
            sb = [canon(r) for r in rows_b]
            sa = [canon(r) for r in rows_a]
            added = [json.loads(x) for x in sorted(multiset_minus(sa, sb))]
            removed = [json.loads(x) for x in sorted(multiset_minus(sb, sa))]
            changed = []
        d = {}
        if added:
            d["added"] = added
        if removed:
            d["removed"] = removed
        if changed:
            d["changed"] = changed
        if d:
            out[t] = d
    return out


def sort_key(k):
    return tuple((0, x, "") if isinstance(x, (int, float)) else (1, 0, str(x)) for x in k)


def multiset_minus(a, b):
    rest = list(b)
    out = []
    for x in a:
        if x in rest:
            rest.remove(x)
        else:
            out.append(x)
    return out


def clean_dump(d):
    return {t: (pk, [{c: norm(v) for c, v in r.items()} for r in rows]) for t, (pk, rows) in d.items()}


def summary(d, tables):
    """For the tables the steps change: row count and a digest of the rows before step 1 (raw values,
    so the digest only compares recordings of one backend; the count is what a replay can check)."""
    return {t: {"rows": len(rows),
                "sha256": hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()[:16]}
            for t, (_, rows) in sorted(d.items()) if t in tables}


# ------------------------------------------------------------------------------------ requests

def send(port, step, answers):
    path = substitute(step.path, answers)
    target = quote(path, safe="".join(chr(c) for c in range(0x21, 0x7F)))
    if step.body_gen:
        body = generate_body(step.body_gen)
    elif step.body_hex is not None:
        body = bytes.fromhex(substitute(step.body_hex, answers))
    elif step.body is not None:
        text = substitute(step.body, answers)
        if (step.content_type or "").startswith("multipart/"):
            text = text.replace("\n", "\r\n")   # multipart needs CRLF line ends
        body = text.encode("utf-8")
    else:
        body = None
    headers = {"Accept": "application/json"}
    if body is not None or step.content_type not in (None, "none"):
        ct = step.content_type or "application/json"
        if ct != "none":
            headers["Content-Type"] = ct
    auth = auth_header(step.auth)
    if auth is not None:
        headers["Authorization"] = auth
    for h, v in step.headers:
        headers[h] = substitute(v, answers)
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.putrequest(step.method, target, skip_accept_encoding=True)
    for h, v in headers.items():
        c.putheader(h, v)
    if body is not None:
        c.putheader("Content-Length", str(len(body)))
    c.endheaders(body)
    r = c.getresponse()
    raw = r.read()
    ctype = r.getheader("Content-Type")
    c.close()
    req = {"method": step.method, "path": path, "headers": headers}
    if step.body_gen:
        req["body_gen"] = step.body_gen
        req["body_bytes"] = len(body)
        req["body_sha256"] = hashlib.sha256(body).hexdigest()
    elif step.body_hex is not None:
        req["body_hex"] = body.hex()
    else:
        req["body"] = None if body is None else body.decode("utf-8")
    if raw:
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = {"_raw": raw.decode("utf-8", "replace")}
    else:
        parsed = None
    resp = {"status": r.status, "content_type": ctype, "body": parsed}
    return req, resp


def record_sequence(seq, backend, strapi, out_dir):
    backend.reset(seed_sql(backend.name, seq.setup))
    boot = strapi.start()
    try:
        state = clean_dump(backend.dump())
        first = state
        steps, answers = [], []
        for n, step in enumerate(seq.steps, 1):
            req, resp = send(strapi.port, step, answers)
            answers.append(resp["body"])
            time.sleep(0.3)   # let anything Strapi does after answering (token last_used_at) land
            after = clean_dump(backend.dump())
            entry = {"n": n, "request": req, "response": resp, "db": diff_tables(state, after)}
            if step.about:
                entry["about"] = step.about
            steps.append(entry)
            state = after
            print(f"    {n}. {step.method} {req['path'][:70]} -> {resp['status']} "
                  f"({', '.join(sorted(entry['db'])) or 'no table changed'})", flush=True)
    finally:
        strapi.stop()
    baseline = summary(first, {t for st in steps for t in st["db"]})
    doc = {
        "format": "strata-write-recording/1",
        "sequence": seq.name,
        "about": " ".join(seq.about),
        "model": seq.model,
        "backend": backend.name,
        "strapi": STRAPI_VERSION,
        "setup": seq.setup,
        "tokens": [{"id": tid, "name": name, "type": typ, "actions": actions} for (tid, name, typ, actions) in TOKENS],
        "baseline": baseline,
        "steps": steps,
    }
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, seq.name + ".json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    return boot


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="sqlite", choices=sorted(BACKENDS))
    ap.add_argument("--only")
    ap.add_argument("--sequences", default=os.path.join(WRITES, "sequences.txt"))
    ap.add_argument("--out", default=WRITES)
    ap.add_argument("--oracle", default="/work/oracle")
    ap.add_argument("--port", type=int, default=1347)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--from", dest="start", help="skip the sequences before this one")
    args = ap.parse_args()
    seqs = parse_sequences(args.sequences)
    if args.only:
        wanted = args.only.split(",")
        seqs = [s for s in seqs if any(s.name == w or (w.endswith("*") and s.name.startswith(w[:-1]))
                                       for w in wanted)]
    if args.start:
        names = [s.name for s in seqs]
        seqs = seqs[names.index(args.start):]
    os.makedirs(WORK, exist_ok=True)
    log = os.path.join(WORK, f"strapi-{args.backend}.log")
    print(f"{len(seqs)} sequences on {args.backend}; Strapi log: {log}")
    done = 0
    backends = []
    try:
        for model in ["blog", *MODEL_SCHEMAS]:
            group = [s for s in seqs if s.model == model]
            if not group:
                continue
            project = args.oracle if model == "blog" else make_model_project(args.oracle, model)
            backend = BACKENDS[args.backend](model, project)
            backends.append(backend)
            strapi = Strapi(project, args.port, backend, log)
            if not backend.has_pristine():
                print(f"  seeding a pristine {args.backend} database for model {model}")
                backend.empty()
                t = strapi.start()
                strapi.stop()
                backend.save_pristine()
                print(f"  seeded in {t:.1f}s")
            for s in group:
                print(f"  {s.name} ({model})", flush=True)
                boot = record_sequence(s, backend, strapi, os.path.join(args.out, args.backend))
                done += 1
    finally:
        if not args.keep:
            for b in backends:
                b.drop()
    print(f"recorded {done} sequences into {os.path.join(args.out, args.backend)}")


if __name__ == "__main__":
    main()
