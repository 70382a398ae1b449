"""
test/integration/test_metadata_size.py
    An export holds the metadata objects it reaches until it ends; for a whole country with
    children that is every org unit (329k on a large DHIS2). The README's first screen promises
    about 0.15 kB per org unit selected. The export's DEBUG1 message counts the objects and the
    bytes of their lists and id maps (src/pg/metadata.cpp ResolveMetadata), so the cost per org
    unit is checked in bytes, whatever the machine. The org units are added in a transaction
    that is rolled back.
SPDX-License-Identifier: PostgreSQL
"""
import re

import pytest

import dve

EXTRA_ORG_UNITS = 50000
METADATA = re.compile(r"metadata: (\d+) objects \((\d+) org units\) in (\d+) kB of lists and id maps")


@pytest.fixture()
def explained(fresh_conn):
    with fresh_conn.cursor() as cur:
        cur.execute("SET client_min_messages = debug1")
    return fresh_conn


def _metadata_message(conn, **params):
    del conn.notices[:]
    doc = dve.copy_bytes(conn, "json", **params)
    with conn.cursor() as cur:
        cur.execute("SELECT 1")  # psycopg2 collects the notices of a COPY at the next statement
    found = [METADATA.search(n) for n in conn.notices]
    found = [m for m in found if m]
    assert len(found) == 1, conn.notices
    objects, org_units, kb = (int(g) for g in found[0].groups())
    return doc, objects, org_units, kb


def _add_org_units(cur, count):
    """Org units with DHIS2-shaped 11-character UIDs and paths, all under the root (level 2), their ids next in
    sequence as DHIS2's are (the id map is then an array, not a hash table); none has data values."""
    cur.execute("""
        INSERT INTO organisationunit (organisationunitid, uid, created, lastupdated, name, shortname, parentid,
                                      path, hierarchylevel, openingdate)
        SELECT top.id + g, 'T' || lpad(g::text, 10, '0'), now(), now(), 'Test unit ' || g, 'T' || g,
               root.organisationunitid, root.path || '/T' || lpad(g::text, 10, '0'), 2, '2000-01-01'
        FROM generate_series(1, %s) g,
             (SELECT max(organisationunitid) AS id FROM organisationunit) top,
             (SELECT organisationunitid, path FROM organisationunit WHERE uid = %s) root
        RETURNING uid""", (count, dve.ROOT_OU))
    uids = [r[0] for r in cur.fetchall()]
    assert len(uids) == count
    return uids


@pytest.mark.parametrize("order", ["none", None], ids=["unordered", "ordered"])
def test_a_country_of_org_units_costs_well_under_a_tenth_of_a_kilobyte_each(explained, all_data_sets, order):
    extra = {} if order is None else {"order": order}
    request = dict(data_set=all_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END, org_unit=[dve.ROOT_OU],
                   children=True, limit=10, **extra)
    with dve.rolled_back(explained) as conn, conn.cursor() as cur:
        # every org unit selected, however few values the planner expects for them (test_few_values.py)
        cur.execute("SET LOCAL datavalue_export.metadata_in_use = off")
        _, _, before_units, before_kb = _metadata_message(conn, **request)
        _add_org_units(cur, EXTRA_ORG_UNITS)
        doc, _, after_units, after_kb = _metadata_message(conn, **request)
    assert after_units == before_units + EXTRA_ORG_UNITS
    assert b'"dataValues"' in doc
    per_unit = (after_kb - before_kb) * 1024 / EXTRA_ORG_UNITS
    # An id, offsets and flags (25 bytes), the 11-byte UID once, the id map's array slot (4 bytes), and what
    # growing vectors and text buffers leave spare: 55 bytes here. One Identifier (before the packed lists)
    # was 120 bytes, up to twice that in its growing vector, plus a 16-byte hash slot at most half full.
    assert 30 < per_unit < 100, "%.1f bytes per org unit" % per_unit


@pytest.mark.parametrize("fmt,order", [("json", None), ("json", "none"), ("csv", None)])
def test_a_request_listing_thousands_of_org_units_exports_what_their_values_are(explained, all_data_sets, fmt,
                                                                               order):
    """Past 10,000 ids the roots' own query matches them as COALESCE(id = ANY(...), false), which the planner
    estimates at once instead of element by element (metadata.cpp IdsAnySql), and so does the data value query
    where its plan reads the whole table (datavalue_query.cpp ExecuteRowQuery, which says so at debug1): it
    then filters the 12,000 and the districts' subtrees. The listed org units without data change nothing in
    the document."""
    extra = {} if order is None else {"order": order}
    with explained.cursor() as cur:
        cur.execute("SELECT uid FROM organisationunit WHERE hierarchylevel = 3 ORDER BY uid LIMIT 2")
        districts = [r[0] for r in cur.fetchall()]
    assert len(districts) == 2
    request = dict(data_set=all_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END, children=True, **extra)
    try:
        with dve.rolled_back(explained) as conn, conn.cursor() as cur:
            expected = dve.copy_bytes(conn, fmt, org_unit=districts, **request)
            empty_units = _add_org_units(cur, 12000)
            # True estimates: the table bloated by earlier rolled-back rows would be estimated at several times
            # its rows, and an export of 20,000 values would then load only the org units of its values
            # (test_few_values.py), leaving the data value query a short list.
            cur.execute("ANALYZE organisationunit")
            del conn.notices[:]
            listed = dve.copy_bytes(conn, fmt, org_unit=empty_units[:6000] + districts + empty_units[6000:], **request)
            cur.execute("SELECT 1")  # psycopg2 collects the notices of a COPY at the next statement
            at_once = [n for n in conn.notices if re.search(r"its 120\d\d org units are not estimated one by one", n)]
            # and so does the estimate that decides whether only the option combos in use are loaded
            combos_at_once = [n for n in conn.notices if re.search(
                r"values \(of 120\d\d org units estimated at once\) for about \d+ option combos", n)]
    finally:
        # ANALYZE writes pg_class.reltuples in place, so the rollback keeps 13k: estimate the table again.
        with explained.cursor() as cur:
            cur.execute("ANALYZE organisationunit")
    assert len(expected) > 1000
    assert listed == expected
    assert len(at_once) == 1, conn.notices
    assert len(combos_at_once) == 1, conn.notices


def _org_unit_rows_read(cur):
    cur.execute("SELECT pg_stat_get_xact_tuples_returned('organisationunit'::regclass)"
                " + pg_stat_get_xact_tuples_fetched('organisationunit'::regclass)")
    return cur.fetchone()[0]


@pytest.mark.parametrize("fmt,order", [("json", None), ("json", "none"), ("csv", None)])
def test_a_district_export_reads_its_subtree_not_every_org_unit(fresh_conn, all_data_sets, fmt, order):
    """Whether the selected org units are the whole table decides if the data value query filters them at all
    (metadata.cpp HoldsEveryRow). Counting the table read every org unit on each export: 23 ms for 329k, on
    every district's export. A set under half the planner's estimate (pg_class.reltuples) is now partial
    without a count. Rows read from organisationunit are this transaction's own statistics, so the check is a
    count of rows, whatever the machine."""
    extra = {} if order is None else {"order": order}
    with fresh_conn.cursor() as cur:
        cur.execute("SELECT uid FROM organisationunit WHERE hierarchylevel = 3 ORDER BY uid LIMIT 1")
        district = cur.fetchone()[0]
    request = dict(data_set=all_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END, org_unit=[district],
                   children=True, **extra)
    try:
        with dve.rolled_back(fresh_conn) as conn, conn.cursor() as cur:
            expected = dve.copy_bytes(conn, fmt, **request)
            _add_org_units(cur, EXTRA_ORG_UNITS)
            cur.execute("ANALYZE organisationunit")  # the estimate a DHIS2 database keeps by autovacuum
            before = _org_unit_rows_read(cur)
            exported = dve.copy_bytes(conn, fmt, **request)
            read = _org_unit_rows_read(cur) - before
            whole = dve.copy_bytes(conn, fmt, **dict(request, org_unit=[dve.ROOT_OU]))
    finally:
        # ANALYZE writes pg_class.reltuples in place, so the rollback keeps 51k: estimate the table again.
        with fresh_conn.cursor() as cur:
            cur.execute("ANALYZE organisationunit")
    assert len(expected) > 1000
    assert exported == expected
    assert read < EXTRA_ORG_UNITS / 10, "%d org unit rows read for one district" % read
    assert len(whole) > len(expected)
