"""
test/integration/test_direct_scan.py
    An ordered export that reads all of datavalue reads its heap pages directly, without the
    executor (datavalue_export.direct_heap_scan, src/pg/datavalue_query.cpp ReadWholeHeap). It
    must give the document the query gives, see what the query's snapshot sees, and leave to the
    query every table it cannot read the same way: row security, inheritance children, a role
    without SELECT on the whole table.

    Which path ran is seen through auto_explain: with nested statements logged as notices, the
    query's plan appears only when the query ran. Every change to the demo database happens in a
    transaction that is rolled back.
SPDX-License-Identifier: PostgreSQL
"""
import contextlib

import psycopg2
import pytest

import dve

# The datavalue query's text (datavalue_query.cpp ExecuteRowQuery) as auto_explain logs it.
QUERY_MARK = ".datavalue dv"
ROLE = "dve_it_direct_scan"


@contextlib.contextmanager
def rolled_back(conn):
    with conn.cursor() as cur:
        cur.execute("BEGIN")
    try:
        yield conn
    finally:
        with conn.cursor() as cur:
            cur.execute("ROLLBACK")


@pytest.fixture()
def explained(fresh_conn):
    """A connection whose nested statements' plans arrive as notices."""
    with fresh_conn.cursor() as cur:
        cur.execute("LOAD 'auto_explain'")
        cur.execute("SET auto_explain.log_min_duration = 0")
        cur.execute("SET auto_explain.log_nested_statements = on")
        cur.execute("SET auto_explain.log_level = notice")
    return fresh_conn


@pytest.fixture(scope="module")
def whole_table(all_data_sets):
    """A request that filters nothing: every data set, every period, the root with children."""
    return dict(data_set=all_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END, org_unit=[dve.ROOT_OU],
                children=True)


def export(conn, fmt, direct, **params):
    """(document bytes, whether the datavalue query ran) of one export."""
    with conn.cursor() as cur:
        cur.execute("SET datavalue_export.direct_heap_scan = %s" % ("on" if direct else "off"))
    del conn.notices[:]
    doc = dve.copy_bytes(conn, fmt, **params)
    with conn.cursor() as cur:
        cur.execute("SELECT 1")  # psycopg2 collects the notices of a COPY at the next statement
    ran_query = any(QUERY_MARK in notice for notice in conn.notices)
    return doc, ran_query


@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {}), ("xml", {}), ("json", {"include_deleted": True}),
                                       ("json", {"limit": 200000, "offset": 7})],
                         ids=["json", "csv", "xml", "deleted", "page"])
def test_a_whole_table_export_reads_the_heap_and_writes_what_the_query_gives(explained, whole_table, fmt, extra):
    direct, direct_ran_query = export(explained, fmt, True, **whole_table, **extra)
    query, query_ran = export(explained, fmt, False, **whole_table, **extra)
    assert query_ran, "auto_explain shows no datavalue query: the test cannot tell the paths apart"
    assert not direct_ran_query, "the whole-table export ran the datavalue query"
    assert len(direct) > 10000
    assert direct == query


def test_a_filtered_export_still_runs_the_query(explained, demo_request):
    doc, ran_query = export(explained, "json", True, **demo_request)
    assert ran_query
    assert len(doc) > 1000


def test_the_heap_is_read_with_the_transaction_s_snapshot(explained, whole_table):
    with rolled_back(explained) as conn, conn.cursor() as cur:
        before, _ = export(conn, "csv", True, **whole_table)
        # One value deleted and then one changed (a new tuple version, which may land at the table's end) in
        # this transaction, before the export.
        cur.execute("""DELETE FROM datavalue WHERE ctid = (SELECT max(ctid) FROM datavalue WHERE NOT deleted)""")
        assert cur.rowcount == 1
        cur.execute("""UPDATE datavalue SET value = 'changed-in-txn'
                       WHERE ctid = (SELECT min(ctid) FROM datavalue WHERE NOT deleted)""")
        assert cur.rowcount == 1
        direct, ran_query = export(conn, "csv", True, **whole_table)
        query, _ = export(conn, "csv", False, **whole_table)
        assert not ran_query
        assert direct == query
        assert b"changed-in-txn" in direct and b"changed-in-txn" not in before
        assert direct.count(b"\n") == before.count(b"\n") - 1


def test_inheritance_children_go_through_the_query(explained, whole_table):
    with rolled_back(explained) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE dve_it_datavalue_child () INHERITS (datavalue)")
        cur.execute("""INSERT INTO dve_it_datavalue_child
                       SELECT dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid,
                              'row-of-a-child-table', storedby, created, lastupdated, comment, followup, false
                       FROM datavalue WHERE NOT deleted LIMIT 1""")
        assert cur.rowcount == 1
        doc, ran_query = export(conn, "json", True, **whole_table)
        assert ran_query, "a table with inheritance children was read directly"
        assert b"row-of-a-child-table" in doc


def test_row_security_on_datavalue_goes_through_the_query(explained, whole_table):
    with rolled_back(explained) as conn, conn.cursor() as cur:
        full, _ = export(conn, "csv", True, **whole_table)
        cur.execute("CREATE ROLE %s" % ROLE)
        cur.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s" % ROLE)
        cur.execute("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO %s" % ROLE)
        cur.execute("ALTER TABLE datavalue ENABLE ROW LEVEL SECURITY")
        cur.execute("CREATE POLICY dve_it_hide ON datavalue FOR SELECT TO %s USING (sourceid %% 5 <> 0)" % ROLE)
        cur.execute("SELECT count(*) FROM datavalue WHERE NOT deleted AND sourceid % 5 = 0")
        hidden = cur.fetchone()[0]
        assert hidden > 0
        cur.execute("SET LOCAL ROLE %s" % ROLE)
        seen, ran_query = export(conn, "csv", True, **whole_table)
        assert ran_query, "a table under row security was read directly"
        assert seen.count(b"\n") == full.count(b"\n") - hidden


def test_a_role_without_select_on_datavalue_is_refused(explained, whole_table):
    with rolled_back(explained) as conn, conn.cursor() as cur:
        cur.execute("CREATE ROLE %s" % ROLE)
        cur.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s" % ROLE)
        cur.execute("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO %s" % ROLE)
        cur.execute("REVOKE SELECT ON datavalue FROM %s" % ROLE)
        cur.execute("SET LOCAL ROLE %s" % ROLE)
        cur.execute("SAVEPOINT refused")
        with pytest.raises(psycopg2.Error) as raised:
            export(conn, "json", True, **whole_table)
        assert raised.value.pgcode == "42501"
        assert "permission denied for table datavalue" in raised.value.pgerror
        cur.execute("ROLLBACK TO SAVEPOINT refused")
