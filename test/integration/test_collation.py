"""
test/integration/test_collation.py
    DHIS2 orders by UIDs and org unit paths in SQL, so in the database's collation; many DHIS2
    databases collate in an English locale, where `aB...` sorts before `Ab...` and `Zx...`, unlike
    bytes. The export ranks identifiers through the same SQL, so its order (and the tie-break
    on the remaining keys, and a first page) must follow the collation of the database it runs
    in. Each order is checked in the C.UTF-8 demo and in the same demo collated by ICU's en-US,
    against SQL's ORDER BY over DHIS2's join.
SPDX-License-Identifier: PostgreSQL
"""
import pytest

import dve

# Each order key as SQL, as the export ranks it (row_sorter.hpp: a period's rank is its dates,
# then its id; every other identifier's is its UID or path).
KEY_SQL = {"PE": "pe.startdate, pe.enddate, pe.periodid", "CREATED": "dv.created", "DE": "de.uid", "OU": "ou.path",
           "COC": "coc.uid", "AOC": "aoc.uid"}
# Ties are broken on every identifier the request leaves out, in this order (PlanSortKey); they
# make up the primary key, so created is never needed to break one.
TIE_BREAK = ("DE", "PE", "OU", "COC", "AOC")

ORDERS = [None, "OU,PE", "DE", "AOC,DE", "OU"]


def order_sql(order, collate=""):
    """The full ORDER BY of an export's order; collate (e.g. ' COLLATE "C"') goes on each text key."""
    keys = [k.strip().upper() for k in (order or "PE,CREATED,DE").split(",")]
    keys += [k for k in TIE_BREAK if k not in keys]
    parts = []
    for k in keys:
        parts.append(KEY_SQL[k] + (collate if k in ("DE", "OU", "COC", "AOC") else ""))
    return ", ".join(parts)


def reference(conn, request, order, collate="", since=None):
    where = dve.standard_where(start=True, root=True) + (["dv.lastupdated >= %(since)s"] if since else [])
    ref = dve.reference_rows(conn, where, dict(ds=request["data_set"], start=dve.DEMO_START, end=dve.DEMO_END,
                                               root=dve.ROOT_OU, since=since), order=order_sql(order, collate))
    return [(r.de, r.pe, r.ou, r.coc, r.aoc) for r in ref]


def exported(conn, request, **params):
    values = dve.data_values(dve.parse_json_pairs(dve.copy_bytes(conn, "json", **dict(request, **params))))
    return [(d["dataElement"], d["period"], d["orgUnit"], d["categoryOptionCombo"], d["attributeOptionCombo"])
            for d in (dict(v) for v in values)]


def first_difference(got, want):
    i = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    return "value %d: exported %r, expected %r" % (i, got[i] if i < len(got) else None,
                                                   want[i] if i < len(want) else None)


@pytest.fixture(scope="module")
def icu_conn(db_icu):
    conn = dve.connect(db_icu)
    yield conn
    conn.close()


@pytest.fixture(params=["c_utf8", "icu_en_us"])
def collated_conn(request, conn243, icu_conn):
    return conn243 if request.param == "c_utf8" else icu_conn


def test_the_icu_database_collates_unlike_bytes(icu_conn, conn243):
    """The premise: en-US puts 'a' before 'B', bytes the other way, and the demo's UIDs meet it."""
    with icu_conn.cursor() as cur:
        cur.execute("SELECT datlocprovider FROM pg_database WHERE datname = current_database()")
        assert cur.fetchone()[0] == "i"
        cur.execute("SELECT 'a' < 'B', 'a' COLLATE \"C\" < 'B' COLLATE \"C\"")
        assert cur.fetchone() == (True, False)
        cur.execute("SELECT array_agg(uid ORDER BY uid) = array_agg(uid ORDER BY uid COLLATE \"C\") FROM dataelement")
        assert cur.fetchone()[0] is False
    with conn243.cursor() as cur:
        cur.execute("SELECT array_agg(uid ORDER BY uid) = array_agg(uid ORDER BY uid COLLATE \"C\") FROM dataelement")
        assert cur.fetchone()[0] is True


@pytest.mark.parametrize("order", ORDERS)
def test_an_ordered_export_follows_the_database_collation(collated_conn, demo_request, order):
    """Every value in SQL's order, ties included: the requested keys, then the remaining ones."""
    want = reference(collated_conn, demo_request, order)
    got = exported(collated_conn, demo_request, **({"order": order} if order else {}))
    assert len(got) == len(want)
    assert got == want, "order %r in %s: %s" % (order, collated_conn.info.dbname, first_difference(got, want))


@pytest.mark.parametrize("order", ORDERS)
def test_an_export_of_few_values_follows_the_database_collation(collated_conn, demo_request, order, db_icu):
    """An export of few values ranks only the org units they use (test_few_values.py), in the same order."""
    dve.refresh_estimates(collated_conn)
    with collated_conn.cursor() as cur:
        cur.execute("SELECT date_trunc('second', dv.lastupdated)::text FROM datavalue dv JOIN period pe USING (periodid) "
                    "WHERE NOT dv.deleted AND pe.startdate >= %s ORDER BY dv.lastupdated DESC OFFSET 80 LIMIT 1",
                    (dve.DEMO_START,))
        since = cur.fetchone()[0]
        cur.execute("SET client_min_messages = debug1")
    del collated_conn.notices[:]
    try:
        got = exported(collated_conn, demo_request, last_updated=since, **({"order": order} if order else {}))
    finally:
        with collated_conn.cursor() as cur:
            cur.execute("RESET client_min_messages")
    assert any("only the org units of the values are loaded" in n for n in collated_conn.notices)
    want = reference(collated_conn, demo_request, order, since=since)
    assert len(want) >= 40
    if collated_conn.info.dbname == db_icu:  # so that a ranking in byte order would fail here
        assert want != reference(collated_conn, demo_request, order, ' COLLATE "C"', since)
    assert got == want, "order %r in %s: %s" % (order, collated_conn.info.dbname, first_difference(got, want))


@pytest.mark.parametrize("order", ORDERS)
def test_the_icu_order_differs_from_the_byte_order(icu_conn, demo_request, order):
    """So the test above tells the collation's order from the bytes' for every order it checks."""
    assert reference(icu_conn, demo_request, order) != reference(icu_conn, demo_request, order, ' COLLATE "C"')


@pytest.mark.parametrize("order,limit,offset", [(None, 50, 0), (None, 40, 333), ("OU,PE", 25, 1000)])
def test_a_page_follows_the_database_collation(icu_conn, demo_request, order, limit, offset):
    """A page (the bounded top-N path) is the same slice of the collation's order."""
    want = reference(icu_conn, demo_request, order)[offset:offset + limit]
    got = exported(icu_conn, demo_request, limit=limit, offset=offset, **({"order": order} if order else {}))
    assert got == want, "page %d+%d, order %r: %s" % (offset, limit, order, first_difference(got, want))
