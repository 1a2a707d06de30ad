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
import subprocess, sys, time, json, os, http.client, signal
sys.path.insert(0,'tools'); import record_writes as rw, auth_fixture as af
def pg_cpu():
    t=0
    for pid in os.listdir('/proc'):
        if not pid.isdigit(): continue
        try:
            st=open(f'/proc/{pid}/stat').read()
            if '(postgres)' not in st: continue
            f=st.rsplit(')',1)[1].split()
            t+=int(f[11])+int(f[12])
        except Exception: pass
    return t/os.sysconf('SC_CLK_TCK')
def run(binary, db, n, kind):
    q=lambda sql: subprocess.run(["psql","-q","-h","127.0.0.1","-U","postgres","-d",db,"-c",sql],check=True,capture_output=True)
    env=dict(os.environ, STRATA_LOG="warn", API_TOKEN_SALT=af.SALT)
    p=subprocess.Popen([binary,"serve","--schemas","tests/fixtures/blog/schemas","--database",f"postgres://postgres@127.0.0.1:5432/{db}","--port","1477"],env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL,start_new_session=True)
    time.sleep(1.5)
    c=http.client.HTTPConnection("127.0.0.1",1477)
    h={"Content-Type":"application/json","Authorization":"Bearer "+rw.token_key(200)}
    def send(i):
        if kind=="create": c.request("POST","/api/articles",json.dumps({"data":{"title":"bench","views":1}}),h)
        else: c.request("PUT","/api/articles/article00000000000000002",json.dumps({"data":{"views":i}}),h)
        r=c.getresponse(); r.read(); assert r.status in (200,201), r.status
    for i in range(50): send(i)
    c0=pg_cpu(); t0=time.time()
    for i in range(n): send(i)
    t=time.time()-t0; c1=pg_cpu()
    os.killpg(p.pid, signal.SIGTERM); p.wait()
    return t/n*1e6, (c1-c0)/n*1e6
kind=sys.argv[1]
for rnd in range(2):
  for name in ["before","after"]:
    db=f"pgcpu_{name}"
    subprocess.run(["psql","-q","-h","127.0.0.1","-U","postgres","-d","postgres","-c",f"drop database if exists {db}"],check=True,capture_output=True)
    subprocess.run(["psql","-q","-h","127.0.0.1","-U","postgres","-d","postgres","-c",f"create database {db}"],check=True,capture_output=True)
    subprocess.run(["psql","-q","-h","127.0.0.1","-U","postgres","-d",db,"-f","tests/fixtures/blog/pg/strapi-postgres.sql"],check=True,capture_output=True)
    subprocess.run(["psql","-q","-h","127.0.0.1","-U","postgres","-d",db],input=";\n".join(rw.seed_sql("postgres",[]))+";\n",text=True,check=True,capture_output=True)
    subprocess.run(["psql","-q","-h","127.0.0.1","-U","postgres","-d",db,"-c",f"alter database {db} set synchronous_commit = off"],check=True,capture_output=True)
    us, cpu = run(f"/tmp/strata-{name}", db, 1000, kind)
    print(f"round {rnd+1} {name} {kind}: {us:.0f} us/request, PostgreSQL CPU {cpu:.0f} us/request", flush=True)
    subprocess.run(["psql","-q","-h","127.0.0.1","-U","postgres","-d","postgres","-c",f"drop database {db}"],capture_output=True)
