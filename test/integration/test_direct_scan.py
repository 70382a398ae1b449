"""
test/integration/test_direct_scan.py
    An export that reads all of datavalue (no filter, or filters PostgreSQL would answer with a
    sequential scan) reads its heap pages directly, without the executor, and applies its id filters
    (data elements, periods, org units, option combos) itself (datavalue_export.direct_heap_scan,
    src/pg/datavalue_query.cpp ReadWholeHeap): an ordered export in its stager, an unordered one as
    it decodes each tuple in its page. It must give the document the query gives, see what the
    query's snapshot sees, and leave to the query every table it cannot read the same way: row
    security, inheritance children, a role without SELECT on the whole table. Most tests run both
    orders.

    Which path ran is seen in the export's DEBUG1 message about the direct read. Every change to
    the demo database happens in a transaction that is rolled back.
SPDX-License-Identifier: PostgreSQL
"""

import csv
import hashlib
import io

import psycopg2
import pytest

import dve

DIRECT_MARK = "read the heap of datavalue directly"
ROLE = "dve_it_direct_scan"
ORDERS = pytest.mark.parametrize("order", [None, "none"], ids=["ordered", "unordered"])


def ordered(request, order):
    """The request, unordered when order is "none"."""
    return dict(request, order=order) if order else dict(request)


@pytest.fixture(scope="module")
def whole_table(all_data_sets):
    """A request that filters nothing: every data set, every period, the root with children."""
    return dict(data_set=all_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END, org_unit=[dve.ROOT_OU],
                children=True)


def export(conn, fmt, direct, **params):
    """(document bytes, whether the datavalue query ran instead of the direct read) of one export."""
    with conn.cursor() as cur:
        cur.execute("SET datavalue_export.direct_heap_scan = %s" % ("on" if direct else "off"))
    del conn.notices[:]
    doc = dve.copy_bytes(conn, fmt, **params)
    with conn.cursor() as cur:
        cur.execute("SELECT 1")  # psycopg2 collects the notices of a COPY at the next statement
    ran_query = not any(DIRECT_MARK in notice for notice in conn.notices)
    return doc, ran_query


@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {}), ("xml", {}), ("json", {"include_deleted": True}),
                                       ("json", {"limit": 200000, "offset": 7})],
                         ids=["json", "csv", "xml", "deleted", "page"])
@ORDERS
def test_a_whole_table_export_reads_the_heap_and_writes_what_the_query_gives(explained, whole_table, fmt, extra,
                                                                              order):
    direct, direct_ran_query = export(explained, fmt, True, **ordered(whole_table, order), **extra)
    query, query_ran = export(explained, fmt, False, **ordered(whole_table, order), **extra)
    assert query_ran, "auto_explain shows no datavalue query: the test cannot tell the paths apart"
    assert not direct_ran_query, "the whole-table export ran the datavalue query"
    assert len(direct) > 10000
    assert direct == query


# Filters of the kinds the stager applies (data elements, periods, org units), each alone and together, broad
# enough that PostgreSQL reads the table whole; and a small district, which it may read through an index.
BROAD = ("months", "most-data-sets", "most-regions", "all-three", "deleted-too", "option-combos",
         "attribute-option-combos")


@pytest.fixture(scope="module")
def filtered_requests(conn243, all_data_sets):
    with conn243.cursor() as cur:
        cur.execute("SELECT uid FROM organisationunit WHERE hierarchylevel = 2 ORDER BY uid")
        regions = [r[0] for r in cur.fetchall()]
    assert len(regions) > 2 and len(all_data_sets) > 2
    return {
        # with every data set the element filter is planned too, and PostgreSQL 17's index scans take six months
        "months": dict(start_date="2023-03-01", end_date="2024-12-31"),
        "most-data-sets": dict(data_set=all_data_sets[1:]),
        "most-regions": dict(org_unit=regions[1:]),
        "all-three": dict(data_set=all_data_sets[:-1], start_date="2023-07-01", end_date="2024-09-30",
                          org_unit=regions[:-1]),
        "deleted-too": dict(start_date="2024-01-01", end_date="2024-12-31", include_deleted=True),
        "district": dict(org_unit=[regions[0]], start_date="2024-01-01", end_date="2024-03-31"),
        # option combo filters: sets of their own (the combos' maps hold every combo)
        "option-combos": dict(category_option_combo=["HllvX50cXC0", "Boa2EFz5GEb", "PSArA5q09Em", "lXQibQYqeDg"],
                              start_date="2023-01-01", end_date="2024-12-31"),
        "attribute-option-combos": dict(attribute_option_combo=["HllvX50cXC0", "TaZS8plkSl8"]),
    }


@pytest.mark.parametrize("name", BROAD + ("district",))
@ORDERS
def test_a_filtered_export_read_directly_writes_what_the_query_gives(explained, whole_table, filtered_requests,
                                                                     name, order):
    request = ordered(dict(whole_table, **filtered_requests[name]), order)
    direct, direct_ran_query = export(explained, "json", True, **request)
    query, query_ran = export(explained, "json", False, **request)
    full, _ = export(explained, "json", True, **ordered(whole_table, order))
    assert query_ran
    assert direct == query
    assert 1000 < len(direct) < len(full), "the filter keeps every value, or none"
    if name in BROAD:
        assert not direct_ran_query, "PostgreSQL reads the table whole for this request; the export did not"


PLANNED_WITH_ELEMENTS = "planned with its filter of every data element, "


@pytest.mark.parametrize("order", [None, "none"], ids=["ordered", "unordered"])
def test_a_month_of_one_district_may_read_through_the_primary_key(explained, whole_table, order):
    """Every data set covers every data element, so the element filter filters no row; beside a month and a
    district it is still what lets the primary key (dataelementid, periodid, ...) find them, so the query is
    planned with it first (datavalue_query.cpp ElementFilterMayDecidePlan). Without it, such an export read the
    whole table (10M demo: 2.3 s against 0.1 s). With sequential scans disabled the plan must go through the key,
    which only the element filter allows. The planner's own choice on this small table differs between
    PostgreSQL majors (15 reads it whole, 17 goes through the key); the document is the same either way."""
    with explained.cursor() as cur:
        cur.execute("""SELECT d.uid, pe.startdate::text, pe.enddate::text FROM datavalue dv
                       JOIN period pe USING (periodid)
                       JOIN organisationunit o ON o.organisationunitid = dv.sourceid
                       JOIN organisationunit d ON o.path LIKE d.path || '%' AND d.hierarchylevel = 3
                       JOIN periodtype pt ON pt.periodtypeid = pe.periodtypeid AND pt.name = 'Monthly'
                       WHERE NOT dv.deleted GROUP BY 1, 2, 3 ORDER BY count(*) DESC, 1, 2 LIMIT 1""")
        district, start, end = cur.fetchone()
    request = dict(whole_table, org_unit=[district], start_date=start, end_date=end)
    if order is not None:
        request["order"] = order

    def planned(seqscan):
        with explained.cursor() as cur:
            cur.execute("SET enable_seqscan = %s" % seqscan)
        try:
            doc, _ = export(explained, "json", True, **request)
        finally:
            with explained.cursor() as cur:
                cur.execute("RESET enable_seqscan")
        said = [n.split(PLANNED_WITH_ELEMENTS, 1)[1].strip() for n in explained.notices if PLANNED_WITH_ELEMENTS in n]
        return doc, said

    by_key, by_key_said = planned("off")
    own, own_said = planned("on")
    assert by_key_said == ["reads through an index"]
    assert own_said in (["reads the whole table: the filter is left out"], ["reads through an index"]), own_said
    values = dve.data_values(dve.parse_json_pairs(own))
    assert len(values) > 100
    if order is None:
        assert by_key == own
    else:
        assert sorted(map(repr, dve.data_values(dve.parse_json_pairs(by_key)))) == sorted(map(repr, values))


def _fault_injection_build(conn):
    """Whether the library has the fault-injection settings (make SANITIZE=1)."""
    with conn.cursor() as cur:
        cur.execute("SELECT current_setting('datavalue_export.fault_cancel_mid_decode', true)")
        return cur.fetchone()[0] is not None


@pytest.mark.parametrize("name", ["option-combos", "attribute-option-combos", "all-three"])
def test_a_cancel_while_the_stager_thread_holds_a_chunk_leaves_it_what_it_reads(explained, whole_table,
                                                                                 filtered_requests, name):
    """The export cancels itself once the stager's thread holds a chunk it has yet to decode with the filter sets;
    datavalue_export.fault_cancel_mid_decode makes that thread wait until the teardown has begun, then 200 ms more.
    The teardown must join that thread before it frees what the thread reads: the sanitized CI step
    (test/matrix.sh --sanitize) reports the use-after-free otherwise, and the backend dies instead of cancelling."""
    if not _fault_injection_build(explained):
        pytest.skip("needs the fault-injection build: make SANITIZE=1 (test/matrix.sh --sanitize)")
    request = dict(whole_table, **filtered_requests[name])
    expected, _ = export(explained, "json", True, **request)
    with explained.cursor() as cur:
        # Chunks of a sixteenth of a run: 128 kB here, so even a small demo fills one before its scan ends.
        cur.execute("SET datavalue_export.sort_run_memory = '2MB'")
        cur.execute("SET datavalue_export.fault_cancel_mid_decode = on")
    with pytest.raises(psycopg2.errors.QueryCanceled):
        export(explained, "json", True, **request)
    with explained.cursor() as cur:
        cur.execute("RESET datavalue_export.fault_cancel_mid_decode")
    again, ran_query = export(explained, "json", True, **request)
    assert not ran_query
    assert again == expected


@ORDERS
def test_a_lastupdated_filter_runs_the_query(explained, whole_table, order):
    doc, ran_query = export(explained, "json", True, **ordered(whole_table, order), last_updated="2024-01-01")
    assert ran_query
    assert len(doc) > 1000


@ORDERS
def test_the_heap_is_read_with_the_transaction_s_snapshot(explained, whole_table, order):
    whole_table = ordered(whole_table, order)
    with dve.rolled_back(explained) as conn, conn.cursor() as cur:
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


@ORDERS
def test_inheritance_children_go_through_the_query(explained, whole_table, order):
    whole_table = ordered(whole_table, order)
    with dve.rolled_back(explained) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE dve_it_datavalue_child () INHERITS (datavalue)")
        cur.execute("""INSERT INTO dve_it_datavalue_child
                       SELECT dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid,
                              'row-of-a-child-table', storedby, created, lastupdated, comment, followup, false
                       FROM datavalue WHERE NOT deleted LIMIT 1""")
        assert cur.rowcount == 1
        doc, ran_query = export(conn, "json", True, **whole_table)
        assert ran_query, "a table with inheritance children was read directly"
        assert b"row-of-a-child-table" in doc


@ORDERS
def test_row_security_on_datavalue_goes_through_the_query(explained, whole_table, order):
    whole_table = ordered(whole_table, order)
    with dve.rolled_back(explained) as conn, conn.cursor() as cur:
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
    with dve.rolled_back(explained) as conn, conn.cursor() as cur:
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


@ORDERS
def test_columns_added_later_with_a_default_read_their_default(explained, whole_table, order):
    # ADD COLUMN ... DEFAULT leaves the table's tuples as they were: the value lives in the catalog
    # (atthasmissing), and every tuple older than the column is shorter than the table.
    whole_table = ordered(whole_table, order)
    with dve.rolled_back(explained) as conn, conn.cursor() as cur:
        cur.execute("SELECT count(*) FILTER (WHERE deleted), count(*) FROM datavalue")
        deleted, total = cur.fetchone()
        assert 0 < deleted < total
        cur.execute("ALTER TABLE datavalue DROP COLUMN storedby")
        cur.execute("ALTER TABLE datavalue ADD COLUMN storedby varchar(255) DEFAULT 'added-later'")
        cur.execute("ALTER TABLE datavalue DROP COLUMN deleted")
        cur.execute("ALTER TABLE datavalue ADD COLUMN deleted boolean NOT NULL DEFAULT true")
        cur.execute("SELECT count(*) FROM pg_attribute WHERE attrelid = 'datavalue'::regclass AND atthasmissing")
        assert cur.fetchone()[0] == 2
        # Every row is now deleted: only include_deleted exports any, each stored by 'added-later'.
        live, ran_query = export(conn, "csv", True, **whole_table)
        assert not ran_query
        assert live.count(b"\n") == 1, "rows deleted by the added column's default were exported"
        direct, ran_query = export(conn, "csv", True, **whole_table, include_deleted=True)
        query, _ = export(conn, "csv", False, **whole_table, include_deleted=True)
        assert not ran_query
        assert direct == query
        rows = list(csv.DictReader(io.StringIO(direct.decode())))
        assert len(rows) > 1000
        assert {(row["storedby"], row["deleted"]) for row in rows} == {("added-later", "true")}


@ORDERS
def test_compressed_and_out_of_line_texts_are_decoded_by_postgresql(explained, whole_table, order):
    """A text compressed in its tuple (a long repetitive value) or moved out of line (a long comment that does not
    compress) is not read from the page: the direct read hands its tuple to PostgreSQL's own decoding, and the
    document is the query's."""
    request = ordered(whole_table, order)
    comment = "".join(hashlib.md5(str(i).encode()).hexdigest() for i in range(200))  # 6,400 bytes, incompressible
    with dve.rolled_back(explained) as conn, conn.cursor() as cur:
        cur.execute("""UPDATE datavalue SET value = repeat('compressible ', 400)
                       WHERE ctid = (SELECT min(ctid) FROM datavalue WHERE NOT deleted)""")
        assert cur.rowcount == 1
        cur.execute("""UPDATE datavalue SET comment = %s
                       WHERE ctid = (SELECT max(ctid) FROM datavalue WHERE NOT deleted)""", (comment,))
        assert cur.rowcount == 1
        cur.execute("""SELECT pg_column_compression(value), pg_column_size(value) FROM datavalue
                       WHERE value LIKE 'compressible %'""")
        method, stored = cur.fetchone()
        assert method is not None and stored < 1000, "the long value is not compressed in its tuple"
        cur.execute("SELECT pg_column_size(comment) FROM datavalue WHERE comment = %s", (comment,))
        assert cur.fetchone()[0] > 2000, "the long comment was compressed"
        direct, ran_query = export(conn, "json", True, **request)
        query, _ = export(conn, "json", False, **request)
    assert not ran_query
    assert direct == query
    assert ("compressible " * 400).encode() in direct and comment.encode() in direct
