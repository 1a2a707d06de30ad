#!/usr/bin/env python3
"""PostgreSQL's own CPU per write, strata's before and after builds alternating.

usage: python3 bench/pg_write_cpu.py create|update   (from the repository root; binaries at
/tmp/strata-before and /tmp/strata-after)

Each build serves a new copy of the blog fixture (tests/fixtures/blog/pg) with the bench token
(tools/record_writes.py's) and `synchronous_commit = off` on that database, so the figure is
the server's work rather than the disk's; one keep-alive connection sends 50 warm-up writes,
then 1,000 measured ones. The CPU is the user and system time of every `postgres` process over
the measured writes (/proc), divided by the writes. Needs PostgreSQL on 127.0.0.1:5432.
"""
import http.client
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, "tools")
import auth_fixture as af  # noqa: E402
import record_writes as rw  # noqa: E402

PORT = 1477
WRITES = 1000


def postgres_cpu_seconds():
    """User and system time of every process named `postgres`."""
    ticks = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        if "(postgres)" in stat:
            fields = stat.rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def psql(db, sql=None, file=None):
    """Runs statement `sql`, or the script at `file`, on database `db`."""
    args = ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-U", "postgres", "-d", db]
    subprocess.run(args + (["-f", file] if file else ["-c", sql]), check=True, capture_output=True)


def fresh_database(db):
    psql("postgres", f"drop database if exists {db}")
    psql("postgres", f"create database {db}")
    psql(db, file="tests/fixtures/blog/pg/strapi-postgres.sql")
    for statement in rw.seed_sql("postgres", []):
        psql(db, statement)
    psql(db, f"alter database {db} set synchronous_commit = off")


def measure(binary, db, kind):
    """(µs per write, PostgreSQL CPU µs per write) of `kind` against `binary` on `db`."""
    env = dict(os.environ, STRATA_LOG="warn", API_TOKEN_SALT=af.SALT)
    server = subprocess.Popen(
        [binary, "serve", "--schemas", "tests/fixtures/blog/schemas", "--database",
         f"postgres://postgres@127.0.0.1:5432/{db}", "--port", str(PORT)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(1.5)
    conn = http.client.HTTPConnection("127.0.0.1", PORT)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer " + rw.token_key(200)}

    def send(i):
        if kind == "create":
            conn.request("POST", "/api/articles", json.dumps({"data": {"title": "bench", "views": 1}}), headers)
        else:
            conn.request("PUT", "/api/articles/article00000000000000002",
                         json.dumps({"data": {"views": i}}), headers)
        answer = conn.getresponse()
        answer.read()
        assert answer.status in (200, 201), answer.status

    try:
        for i in range(50):
            send(i)
        cpu, start = postgres_cpu_seconds(), time.time()
        for i in range(WRITES):
            send(i)
        return (time.time() - start) / WRITES * 1e6, (postgres_cpu_seconds() - cpu) / WRITES * 1e6
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait()


def main():
    kind = sys.argv[1]
    for round_ in (1, 2):
        for name in ("before", "after"):
            db = f"pgcpu_{name}"
            fresh_database(db)
            try:
                us, cpu = measure(f"/tmp/strata-{name}", db, kind)
            finally:
                psql("postgres", f"drop database if exists {db}")
            print(f"round {round_} {name} {kind}: {us:.0f} us/request, PostgreSQL CPU {cpu:.0f} us/request",
                  flush=True)


if __name__ == "__main__":
    main()
