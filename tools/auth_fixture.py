#!/usr/bin/env python3
"""Credentials for the authentication tests, stored the way Strapi 5 stores them, and the
requests that exercise them.

usage:
  python3 tools/auth_fixture.py write            # (re)writes tests/fixtures/blog/auth/
  python3 tools/auth_fixture.py record BASE DB   # inserts the rows into a running oracle's
                                                 # SQLite file DB, replays every case
                                                 # against BASE, writes recorded.json
  python3 tools/auth_fixture.py replay BASE ENGINE
                                                 # replays every case against an oracle on
                                                 # PostgreSQL or MySQL whose database already
                                                 # holds credentials.<engine>.sql (insert it
                                                 # with psql or mysql), writes
                                                 # recorded.<engine>.json

The salt and JWT secret are the oracle's (`config/admin.js`, `config/plugins.js`). Tokens are
256 hex characters like Strapi's, derived from a fixed seed so the fixture is reproducible;
`access_key` is hex(HMAC-SHA512(salt, key)). JWTs are HS256 as users-permissions issues
them (`{"id", "iat", "exp"}`), plus the malformed and hostile ones the tests need.

This is a development tool: the tests read only the files it writes.
"""
import base64, hashlib, hmac, json, os, sqlite3, sys, urllib.request, urllib.error

SALT = "lab-api-token-salt"
JWT_SECRET = "lab-users-permissions-jwt-secret"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures", "blog", "auth")

NOW_MS = 1764000000000          # 2025-11-24: created_at of every row
PAST_MS = 1704067200000         # 2024-01-01: an expiry that has passed
FUTURE_MS = 4102444800000       # 2100-01-01: one that has not


def key(seed):
    return (hashlib.sha512(seed.encode()).hexdigest() + hashlib.sha512((seed + "/2").encode()).hexdigest())


def access_key(plain):
    return hmac.new(SALT.encode(), plain.encode(), hashlib.sha512).hexdigest()


# id, name, kind, type, expires_at, actions
TOKENS = [
    (100, "strata read-only", "content-api", "read-only", None, []),
    (101, "strata full-access", "content-api", "full-access", None, []),
    (102, "strata custom", "content-api", "custom", None,
     ["api::article.article.find", "api::author.author.find", "api::secret.secret.find",
      "plugin::users-permissions.user.find"]),
    (103, "strata custom, no actions", "content-api", "custom", None, []),
    (104, "strata custom, findOne only", "content-api", "custom", None, ["api::article.article.findOne"]),
    (105, "strata expired", "content-api", "read-only", PAST_MS, []),
    (106, "strata admin kind", "admin", "read-only", None, []),
    (107, "strata legacy kind", None, "read-only", None, []),
    (108, "strata expires later", "content-api", "full-access", FUTURE_MS, []),
]

# The authenticated role (id 1) gets these on top of the auth routes it already has.
AUTHENTICATED_ACTIONS = ["api::article.article.find", "api::article.article.findOne",
                         "api::author.author.find", "api::secret.secret.find"]

# A user with no role: users-permissions fails on `user.role.id`.
USERS = [(4, "user00000000000000000004", "dave", "dave@example.com")]


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(payload, alg="HS256", secret=JWT_SECRET, header=None):
    head = header or {"alg": alg, "typ": "JWT"}
    signing = b64(json.dumps(head, separators=(",", ":")).encode()) + "." + b64(
        json.dumps(payload, separators=(",", ":")).encode())
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}.get(alg)
    sig = b64(hmac.new(secret.encode(), signing.encode(), digest).digest()) if digest else ""
    return signing + "." + sig


def credentials():
    """name -> Authorization header value (None: no header)."""
    tok = {t[0]: key(f"strata test token {t[0]}") for t in TOKENS}
    iat = NOW_MS // 1000
    exp = FUTURE_MS // 1000
    alice = jwt({"id": 1, "iat": iat, "exp": exp})
    return {
        "none": None,
        "read-only": "Bearer " + tok[100],
        "full-access": "Bearer " + tok[101],
        "custom": "Bearer " + tok[102],
        "custom-empty": "Bearer " + tok[103],
        "custom-findone": "Bearer " + tok[104],
        "expired-token": "Bearer " + tok[105],
        "admin-kind-token": "Bearer " + tok[106],
        "legacy-kind-token": "Bearer " + tok[107],
        "expires-later": "Bearer " + tok[108],
        "unknown-token": "Bearer " + key("not stored"),
        "lowercase-bearer": "bearer " + tok[100],
        "two-spaces": "Bearer  " + tok[100],
        "tab": "Bearer\t" + tok[100],
        "three-parts": "Bearer " + tok[100] + " extra",
        "bearer-alone": "Bearer",
        "basic": "Basic YWxpY2U6c2VjcmV0",
        "token-scheme": "Token " + tok[100],
        "empty-header": "",
        "jwt-alice": "Bearer " + alice,
        "jwt-bob-blocked": "Bearer " + jwt({"id": 2, "iat": iat, "exp": exp}),
        "jwt-carol-unconfirmed": "Bearer " + jwt({"id": 3, "iat": iat, "exp": exp}),
        "jwt-dave-no-role": "Bearer " + jwt({"id": 4, "iat": iat, "exp": exp}),
        "jwt-unknown-user": "Bearer " + jwt({"id": 999, "iat": iat, "exp": exp}),
        "jwt-id-string": "Bearer " + jwt({"id": "1", "iat": iat, "exp": exp}),
        "jwt-no-id": "Bearer " + jwt({"sub": "1", "iat": iat, "exp": exp}),
        "jwt-no-exp": "Bearer " + jwt({"id": 1, "iat": iat}),
        "jwt-expired": "Bearer " + jwt({"id": 1, "iat": PAST_MS // 1000 - 60, "exp": PAST_MS // 1000}),
        "jwt-not-yet-valid": "Bearer " + jwt({"id": 1, "iat": iat, "nbf": exp, "exp": exp + 60}),
        "jwt-wrong-secret": "Bearer " + jwt({"id": 1, "iat": iat, "exp": exp}, secret="another secret"),
        "jwt-tampered": "Bearer " + alice[: alice.index(".") + 1] + b64(
            json.dumps({"id": 2, "iat": iat, "exp": exp}, separators=(",", ":")).encode()) + alice[alice.rindex("."):],
        "jwt-alg-none": "Bearer " + jwt({"id": 1, "iat": iat, "exp": exp}, alg="none"),
        "jwt-hs512": "Bearer " + jwt({"id": 1, "iat": iat, "exp": exp}, alg="HS512"),
        "jwt-hs384": "Bearer " + jwt({"id": 1, "iat": iat, "exp": exp}, alg="HS384"),
        "jwt-payload-array": "Bearer " + jwt([1, 2, 3]),
        "jwt-exp-string": "Bearer " + jwt({"id": 1, "iat": iat, "exp": "2100-01-01"}),
        "malformed-one-part": "Bearer abcdef",
        "malformed-three-parts": "Bearer a.b.c",
        "malformed-bad-json": "Bearer " + b64(b"{not json") + "." + b64(b"{}") + ".sig",
    }


ART = "/api/articles/article00000000000000001"
# (credential, request line)
CASES = []
for cred in credentials():
    CASES.append((cred, "/api/articles?fields[0]=title&pagination[pageSize]=2"))
for cred in ["none", "read-only", "full-access", "custom", "custom-empty", "custom-findone",
             "jwt-alice", "expires-later", "legacy-kind-token"]:
    CASES += [
        (cred, ART + "?fields[0]=title"),
        (cred, "/api/secrets?fields[0]=label"),
        (cred, "/api/tags?fields[0]=name&pagination[pageSize]=2"),
        (cred, "/api/users?fields[0]=username"),
        (cred, "/api/users/1?fields[0]=username"),
        (cred, "/api/articles?fields[0]=title&populate[tags][fields][0]=name&pagination[pageSize]=2"),
        (cred, "/api/articles?fields[0]=title&populate[author][fields][0]=name&pagination[pageSize]=2"),
        (cred, "/api/articles?fields[0]=title&filters[tags][name][$eq]=rust"),
        (cred, "/api/articles?fields[0]=title&filters[author][name][$eq]=Ada"),
        (cred, "/api/articles?fields[0]=title&sort=category.name:asc&pagination[pageSize]=2"),
        (cred, "/api/articles?fields[0]=title&populate=*&pagination[pageSize]=1"),
        (cred, "/api/users?fields[0]=username&populate=role"),
        (cred, "/api/articles?fields[0]=title&populate[createdBy]=true&pagination[pageSize]=1"),
        (cred, "/api/articles?fields[0]=title&filters[bogus]=1"),
    ]


def sql(dialect):
    def ts(ms):
        if ms is None:
            return "null"
        if dialect == "mysql":
            import datetime
            t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
            return "'" + t.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}'"
        return str(ms) if dialect == "sqlite" else f"to_timestamp({ms} / 1000.0)"

    def s(v):
        return "null" if v is None else "'" + str(v).replace("'", "''") + "'"

    now = ts(NOW_MS)
    out = ["-- Generated by tools/auth_fixture.py: API tokens, token permissions, a user without a",
           "-- role and grants of the authenticated role, stored the way Strapi 5.54 stores them.",
           f"-- Dialect: {dialect}. Salt {SALT!r}, JWT secret {JWT_SECRET!r}."]
    perm_id = 100
    for (tid, name, kind, typ, expires, actions) in TOKENS:
        out.append(
            "insert into strapi_api_tokens (id, document_id, name, description, kind, type, access_key, "
            "encrypted_key, last_used_at, expires_at, lifespan, created_at, updated_at, published_at, "
            f"created_by_id, updated_by_id, locale) values ({tid}, {s(f'token{tid:021d}')}, {s(name)}, '', "
            f"{s(kind)}, {s(typ)}, {s(access_key(key(f'strata test token {tid}')))}, null, null, {ts(expires)}, "
            f"null, {now}, {now}, {now}, null, null, null);")
        for n, action in enumerate(actions, 1):
            out.append(
                "insert into strapi_api_token_permissions (id, document_id, action, created_at, updated_at, "
                f"published_at, created_by_id, updated_by_id, locale) values ({perm_id}, "
                f"{s(f'tokenperm{perm_id:015d}')}, {s(action)}, {now}, {now}, {now}, null, null, null);")
            out.append(
                "insert into strapi_api_token_permissions_token_lnk (id, api_token_permission_id, api_token_id, "
                f"api_token_permission_ord) values ({perm_id}, {perm_id}, {tid}, {float(n)});")
            perm_id += 1
    for n, action in enumerate(AUTHENTICATED_ACTIONS):
        pid = 100 + n
        out.append(
            "insert into up_permissions (id, document_id, action, created_at, updated_at, published_at, "
            f"created_by_id, updated_by_id, locale) values ({pid}, {s(f'perm{pid:020d}')}, {s(action)}, "
            f"{now}, {now}, {now}, null, null, null);")
        out.append(
            "insert into up_permissions_role_lnk (id, permission_id, role_id, permission_ord) values "
            f"({pid}, {pid}, 1, {float(100 + n)});")
    for (uid, doc, username, email) in USERS:
        out.append(
            "insert into up_users (id, document_id, username, email, provider, password, "
            "reset_password_token, confirmation_token, confirmed, blocked, created_at, updated_at, "
            f"published_at, created_by_id, updated_by_id, locale) values ({uid}, {s(doc)}, {s(username)}, "
            f"{s(email)}, 'local', null, null, null, true, false, {now}, {now}, {now}, null, null, null);")
    if dialect == "postgres":
        for table in ["strapi_api_tokens", "strapi_api_token_permissions",
                      "strapi_api_token_permissions_token_lnk", "up_permissions", "up_permissions_role_lnk",
                      "up_users"]:
            out.append(f"select setval(pg_get_serial_sequence('{table}', 'id'), (select max(id) from {table}));")
    return "\n".join(out) + "\n"


def write():
    os.makedirs(OUT, exist_ok=True)
    for dialect in ["sqlite", "postgres", "mysql"]:
        with open(os.path.join(OUT, f"credentials.{dialect}.sql"), "w") as f:
            f.write(sql(dialect))
    creds = credentials()
    with open(os.path.join(OUT, "credentials.json"), "w") as f:
        json.dump(creds, f, indent=1)
        f.write("\n")


def record(base, db):
    con = sqlite3.connect(db)
    con.executescript(sql("sqlite"))
    con.commit()
    con.close()
    replay(base, "recorded.json")


def replay(base, name):
    creds = credentials()
    out = []
    for n, (cred, line) in enumerate(CASES, 1):
        from urllib.parse import quote
        target = quote(line, safe="".join(chr(c) for c in range(0x21, 0x7F)))
        req = urllib.request.Request(base + target, headers={"Accept": "application/json"})
        if creds[cred] is not None:
            req.add_header("Authorization", creds[cred])
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        out.append({"n": n, "credential": cred, "line": line, "status": status, "body": body})
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"recorded {len(out)} cases into {name}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["write"]:
        write()
    elif sys.argv[1:2] == ["record"] and len(sys.argv) == 4:
        write()
        record(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["replay"] and len(sys.argv) == 4 and sys.argv[3] in ("postgres", "mysql"):
        replay(sys.argv[2], f"recorded.{sys.argv[3]}.json")
    else:
        print(__doc__)
        sys.exit(2)
