"""
test/integration/conftest.py
    Session fixtures of the end-to-end tests: the two demo databases (DHIS2 2.43 and 2.42
    schemas, same data) built with demo/create_demo_db.sh at a small scale, and connections.

The databases are it_demo_243 and it_demo_242. They are reused when they already hold a build
with the same size and schema from the current generator files (a fingerprint of demo/ is kept
as the database comment), so reruns are fast. Scale: DVE_IT_VALUES (default 20000).
SPDX-License-Identifier: PostgreSQL
"""
import hashlib
import os
import shlex
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import dve  # noqa: E402

VALUES = int(os.environ.get("DVE_IT_VALUES", "20000"))
DEMOS = {"2.43": "it_demo_243", "2.42": "it_demo_242"}


def _cluster_env():
    """PG* variables from test/cluster.sh env when the caller did not export them."""
    if os.environ.get("PGHOST") and os.environ.get("PGPORT"):
        return
    out = subprocess.run(["bash", os.path.join(REPO, "test", "cluster.sh"), "env"], capture_output=True,
                         text=True, check=True).stdout
    for word in shlex.split(out.replace("export ", "")):
        key, _, value = word.partition("=")
        if key.startswith("PG"):
            os.environ.setdefault(key, value)


_cluster_env()
os.environ.setdefault("PGTZ", "UTC")


def _fingerprint():
    h = hashlib.sha256()
    demo = os.path.join(REPO, "demo")
    for name in sorted(os.listdir(demo)):
        if name.endswith((".sql", ".sh")):
            h.update(name.encode())
            with open(os.path.join(demo, name), "rb") as f:
                h.update(f.read())
    return "dve-it values=%d fingerprint=%s" % (VALUES, h.hexdigest()[:16])


def _is_current(admin, dbname, schema, marker):
    with admin.cursor() as cur:
        cur.execute("SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s", (dbname,))
        row = cur.fetchone()
    if row is None or row[0] != marker:
        return False
    try:
        conn = dve.connect(dbname)
    except Exception:
        return False
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT to_regclass('dve_demo.build_info') IS NOT NULL")
            if not cur.fetchone()[0]:
                return False
            cur.execute("SELECT key, value FROM dve_demo.build_info")
            info = dict(cur.fetchall())
            cur.execute("SELECT count(*) FROM datavalue")
            rows = cur.fetchone()[0]
        return (info.get("values_requested") == str(VALUES) and info.get("dhis2_schema") == schema
                and info.get("datavalue_rows") == str(rows))
    finally:
        conn.close()


def _build(dbname, schema, options):
    script = os.path.join(REPO, "demo", "create_demo_db.sh")
    if not os.path.exists(script):
        pytest.fail("demo/create_demo_db.sh is missing; it builds the demo databases")
    proc = subprocess.run(["bash", script, "--values", str(VALUES), "--schema", schema] + list(options) + [dbname],
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        pytest.fail("create_demo_db.sh %s failed:\n%s\n%s" % (dbname, proc.stdout[-3000:], proc.stderr[-3000:]))


def _ensure_demo_dbs(demos, options=()):
    """Build (or reuse) each {schema: dbname} demo with the generator's options, with the extension."""
    marker = _fingerprint() + "".join(" " + o for o in options)
    admin = dve.connect("postgres")
    try:
        with admin.cursor() as cur:
            # one builder at a time on the shared cluster
            cur.execute("SELECT pg_advisory_lock(hashtext('datavalue_export integration demo dbs'))")
        for schema, dbname in demos.items():
            if not _is_current(admin, dbname, schema, marker):
                _build(dbname, schema, options)
                conn = dve.connect(dbname)
                with conn.cursor() as cur:
                    cur.execute("CREATE EXTENSION IF NOT EXISTS datavalue_export")
                conn.close()
                with admin.cursor() as cur:
                    cur.execute("COMMENT ON DATABASE %s IS %s" % (dbname, dve.sql_literal(marker)))
            conn = dve.connect(dbname)
            with conn.cursor() as cur:
                cur.execute("CREATE EXTENSION IF NOT EXISTS datavalue_export")
                # a reused database may hold an older version of the extension
                cur.execute("ALTER EXTENSION datavalue_export UPDATE")
                # Tests compare the planner's estimate of datavalue (pg_class.reltuples), which the CLI
                # shows, with what they read themselves: autovacuum must not change it in between. The
                # table is vacuumed and analysed here instead, once a session.
                cur.execute("ALTER TABLE datavalue SET (autovacuum_enabled = off)")
                cur.execute("VACUUM ANALYZE datavalue")
            conn.close()
        with admin.cursor() as cur:
            cur.execute("SELECT pg_advisory_unlock(hashtext('datavalue_export integration demo dbs'))")
    finally:
        admin.close()
    return dict(demos)


@pytest.fixture(scope="session")
def demo_dbs():
    """{'2.43': 'it_demo_243', '2.42': 'it_demo_242'}, built (or reused) and with the extension."""
    return _ensure_demo_dbs(DEMOS)


@pytest.fixture(scope="session")
def db_icu():
    """The 2.43 demo in a database that collates with ICU's en-US (as DHIS2 servers set up in an
    English locale do): UIDs and paths sort case-insensitively first, unlike the C.UTF-8 cluster's."""
    return _ensure_demo_dbs({"2.43": "it_demo_icu"}, ("--icu-locale", "en-US"))["2.43"]


@pytest.fixture(scope="session")
def db243(demo_dbs):
    return demo_dbs["2.43"]


@pytest.fixture(scope="session")
def db242(demo_dbs):
    return demo_dbs["2.42"]


@pytest.fixture(scope="session")
def conn243(db243):
    conn = dve.connect(db243)
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def conn242(db242):
    conn = dve.connect(db242)
    yield conn
    conn.close()


@pytest.fixture()
def fresh_conn(db243):
    """A connection of its own (for tests that change session settings or cancel)."""
    conn = dve.connect(db243)
    yield conn
    conn.close()


@pytest.fixture()
def explained(fresh_conn):
    """A connection of its own that receives the export's DEBUG1 messages as notices."""
    with fresh_conn.cursor() as cur:
        cur.execute("SET client_min_messages = debug1")
    return fresh_conn


@pytest.fixture(scope="session")
def all_data_sets(conn243):
    with conn243.cursor() as cur:
        cur.execute("SELECT uid FROM dataset ORDER BY uid")
        return [r[0] for r in cur.fetchall()]


@pytest.fixture(scope="session")
def demo_request(all_data_sets):
    """The demo export of the brief: all data sets, the 24 main months, the root with children."""
    return dict(data_set=all_data_sets, start_date=dve.DEMO_START, end_date=dve.DEMO_END,
                org_unit=[dve.ROOT_OU], children=True)
