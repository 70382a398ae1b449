"""
test/integration/test_path_rank.py
    An ordered export ranks its org units by path in the database's collation (ORDER BY path, id).
    It no longer sorts the paths in SQL: it reads them unsorted with the parent ids, proposes the
    order of a walk of the tree (src/core/path_order.hpp), and checks every adjacent pair with
    PostgreSQL's own comparison, sorting in SQL as before when the check fails or the paths would
    take more than datavalue_export.sort_run_memory (src/pg/metadata.cpp LoadOrgUnitsInPathOrder).
    Whichever way it went (the DEBUG1 messages say which), the export's order must be SQL's: here
    on hierarchies where the walk is not the sorted order (siblings told apart by case alone in an
    English collation, a path left stale by a move, a parent cycle), org units without a path,
    and a level (every org unit a root). Orders are compared with SQL's ORDER BY over DHIS2's join,
    in the C.UTF-8 demo and the same demo collated by ICU's en-US.
SPDX-License-Identifier: PostgreSQL
"""
import re

import pytest

import dve

FROM_TREE = "ranked by path from their tree"
OUT_OF_ORDER = "ranked by path by PostgreSQL: their paths are not in the order of their tree"
TOO_LARGE = "ranked by path by PostgreSQL: their paths would take more than datavalue_export.sort_run_memory"

# The export's order for "OU,PE": the org unit (path, then id), the period, then the remaining keys.
OU_ORDER = "ou.path, ou.organisationunitid, pe.startdate, pe.enddate, pe.periodid, de.uid, coc.uid, aoc.uid"


@pytest.fixture(params=["c_utf8", "icu_en_us"])
def collated(request, db243, db_icu):
    """A connection to either demo that receives the export's DEBUG1 messages."""
    conn = dve.connect(db243 if request.param == "c_utf8" else db_icu)
    with conn.cursor() as cur:
        cur.execute("SET client_min_messages = debug1")
    yield conn
    conn.close()


def icu(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT datlocprovider = 'i' FROM pg_database WHERE datname = current_database()")
        return cur.fetchone()[0]


def exported(conn, request, **params):
    """The values' keys in the export's order, and how it ranked its org units."""
    del conn.notices[:]
    doc = dve.copy_bytes(conn, "json", **dict(request, **params))
    with conn.cursor() as cur:
        cur.execute("SELECT 1")  # psycopg2 collects the notices of a COPY at the next statement
    ranked = [m for m in (FROM_TREE, OUT_OF_ORDER, TOO_LARGE) if any(m in n for n in conn.notices)]
    assert len(ranked) == 1, conn.notices
    values = [dict(v) for v in dve.data_values(dve.parse_json_pairs(doc))]
    return [(v["dataElement"], v["period"], v["orgUnit"], v["categoryOptionCombo"], v["attributeOptionCombo"])
            for v in values], ranked[0], doc


def reference(conn, request, where=None, params=None):
    where = where or dve.standard_where(start=True, root=True)
    rows = dve.reference_rows(conn, where, dict(ds=request["data_set"], start=dve.DEMO_START, end=dve.DEMO_END,
                                                root=dve.ROOT_OU, **(params or {})), order=OU_ORDER)
    return [(r.de, r.pe, r.ou, r.coc, r.aoc) for r in rows]


def rename_org_unit(cur, old_uid, new_uid):
    """Give an org unit another uid, and every path that names it the new one (as DHIS2 keeps them)."""
    cur.execute("UPDATE organisationunit SET path = replace(path, '/' || %(old)s, '/' || %(new)s) "
                "WHERE path LIKE '%%/' || %(old)s || '%%'", dict(old=old_uid, new=new_uid))
    cur.execute("UPDATE organisationunit SET uid = %s WHERE uid = %s", (new_uid, old_uid))


def two_chiefdoms(cur):
    """Two chiefdoms of one district, the first with facilities that have values."""
    cur.execute("""
        SELECT c1.uid, c2.uid FROM organisationunit c1
        JOIN organisationunit c2 ON c2.parentid = c1.parentid AND c2.organisationunitid <> c1.organisationunitid
        WHERE c1.hierarchylevel = 3
          AND EXISTS (SELECT 1 FROM organisationunit f JOIN datavalue dv ON dv.sourceid = f.organisationunitid
                      WHERE f.parentid = c1.organisationunitid)
        ORDER BY c1.organisationunitid, c2.organisationunitid LIMIT 1""")
    return cur.fetchone()


def test_a_consistent_hierarchy_is_ranked_from_its_tree(collated, demo_request):
    """The demo as it is: the walk is the sorted order in either collation, so the check passes. The
    ranking's memory is what the README says: about 70 bytes an org unit."""
    got, ranked, _ = exported(collated, demo_request, order="OU,PE")
    assert ranked == FROM_TREE
    assert got == reference(collated, demo_request)
    held = [re.search(r"(\d+) org units ranked by path from their tree, in (\d+) kB", n) for n in collated.notices]
    org_units, kb = next(tuple(map(int, m.groups())) for m in held if m)
    assert org_units == 1332 and kb * 1024 / org_units < 100


def test_siblings_told_apart_by_case_alone(collated, demo_request):
    """In English, /P/qq.../f sorts after /P/QQ...: case counts only after every letter. The walk
    keeps f under its parent, so the check fails and SQL sorts; in bytes the walk is the order."""
    with dve.rolled_back(collated), collated.cursor() as cur:
        first, second = two_chiefdoms(cur)
        rename_org_unit(cur, first, "qqqqqqqqqq1")
        rename_org_unit(cur, second, "QQQQQQQQQQ1")
        got, ranked, _ = exported(collated, demo_request, order="OU,PE")
        want = reference(collated, demo_request)
    assert ranked == (OUT_OF_ORDER if icu(collated) else FROM_TREE)
    assert got == want


def test_a_path_left_stale_by_a_move(collated, demo_request):
    """A facility moved to another chiefdom without its path: the walk puts it under the new
    parent, the paths under the old one."""
    with dve.rolled_back(collated), collated.cursor() as cur:
        first, second = two_chiefdoms(cur)
        cur.execute("""
            UPDATE organisationunit SET parentid = (SELECT organisationunitid FROM organisationunit WHERE uid = %s)
            WHERE organisationunitid = (SELECT f.organisationunitid FROM organisationunit f
                                        JOIN organisationunit c ON c.organisationunitid = f.parentid
                                        WHERE c.uid = %s AND EXISTS (SELECT 1 FROM datavalue dv
                                                                     WHERE dv.sourceid = f.organisationunitid)
                                        ORDER BY f.organisationunitid LIMIT 1)""", (second, first))
        got, ranked, _ = exported(collated, demo_request, order="OU,PE")
        want = reference(collated, demo_request)
    assert ranked == OUT_OF_ORDER
    assert got == want


def test_a_parent_cycle_and_an_org_unit_its_own_parent(collated, demo_request):
    """A district whose parent is one of its facilities, and a chiefdom that is its own parent: no
    walk from the root reaches them."""
    with dve.rolled_back(collated), collated.cursor() as cur:
        cur.execute("""
            UPDATE organisationunit d SET parentid = (SELECT f.organisationunitid FROM organisationunit f
                                                      WHERE f.path LIKE d.path || '/%%' AND f.hierarchylevel = 4
                                                      ORDER BY f.organisationunitid LIMIT 1)
            WHERE d.organisationunitid = (SELECT min(organisationunitid) FROM organisationunit
                                          WHERE hierarchylevel = 2)""")
        cur.execute("UPDATE organisationunit SET parentid = organisationunitid WHERE organisationunitid = "
                    "(SELECT max(organisationunitid) FROM organisationunit WHERE hierarchylevel = 3)")
        got, _, _ = exported(collated, demo_request, order="OU,PE")
        want = reference(collated, demo_request)
    assert got == want


def test_org_units_without_a_path_come_last(collated, demo_request):
    """Org units named without children need no path; ORDER BY puts a NULL path last, by id."""
    with dve.rolled_back(collated), collated.cursor() as cur:
        cur.execute("SELECT f.uid FROM organisationunit f WHERE EXISTS (SELECT 1 FROM datavalue dv JOIN period pe "
                    "USING (periodid) WHERE dv.sourceid = f.organisationunitid AND NOT dv.deleted "
                    "AND pe.startdate >= %s AND pe.enddate <= %s) ORDER BY f.organisationunitid LIMIT 6",
                    (dve.DEMO_START, dve.DEMO_END))
        named = [r[0] for r in cur.fetchall()]
        without_path = {named[1], named[4]}
        cur.execute("UPDATE organisationunit SET path = NULL WHERE uid = ANY(%s)", (sorted(without_path),))
        request = dict(demo_request, org_unit=named, children=False)
        got, ranked, _ = exported(collated, request, order="OU,PE")
        where = dve.standard_where(start=True) + ["ou.uid = ANY(%(named)s)"]
        want = reference(collated, request, where, dict(named=named))
    assert ranked == FROM_TREE
    org_units = [v[2] for v in want]
    assert set(org_units) == set(named)
    first_without = min(org_units.index(uid) for uid in without_path)
    assert set(org_units[first_without:]) == without_path
    assert got == want


def test_a_level_makes_every_org_unit_a_root(collated, demo_request):
    """No facility's parent is selected at level 4: the walk is a sort of whole paths."""
    got, ranked, _ = exported(collated, demo_request, order="OU,PE", level=4)
    where = dve.standard_where(start=True, root=True) + ["ou.hierarchylevel = 4"]
    assert ranked == FROM_TREE
    assert got == reference(collated, demo_request, where)


def test_paths_over_the_memory_setting_are_ranked_in_sql_to_the_same_bytes(collated, demo_request):
    """Below the 1,332 org units' estimate the export sorts in SQL: the same document, byte for byte."""
    _, ranked, doc = exported(collated, demo_request)
    assert ranked == FROM_TREE
    with collated.cursor() as cur:
        cur.execute("SET datavalue_export.sort_run_memory = '64kB'")
    try:
        _, small_ranked, small_doc = exported(collated, demo_request)
    finally:
        with collated.cursor() as cur:
            cur.execute("RESET datavalue_export.sort_run_memory")
    assert small_ranked == TOO_LARGE
    assert small_doc == doc


def test_an_export_of_few_values_ranks_its_org_units_from_their_tree(collated, demo_request):
    """An incremental export selects only the org units its values use. Here the country, the district
    that has values, two of its chiefdoms, and a facility of another of its chiefdoms that sorts between
    those two: the facility is a root of its own (its chiefdom is not selected) inside the country's
    subtree, and the walk must merge it there."""
    dve.refresh_estimates(collated)
    with dve.rolled_back(collated), collated.cursor() as cur:
        cur.execute("""
            WITH used AS (SELECT DISTINCT ou.organisationunitid AS id, ou.parentid, ou.path, ou.hierarchylevel AS level
                          FROM datavalue dv JOIN period pe USING (periodid)
                          JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid
                          WHERE NOT dv.deleted AND pe.startdate >= %(start)s AND pe.enddate <= %(end)s),
            district AS (SELECT * FROM used WHERE level = 2 ORDER BY path LIMIT 1),
            chiefdoms AS (SELECT c.* FROM used c, district d WHERE c.parentid = d.id ORDER BY c.path LIMIT 2)
            SELECT (SELECT id FROM used WHERE level = 1), (SELECT id FROM district),
                   (SELECT min(id) FROM chiefdoms), (SELECT max(id) FROM chiefdoms),
                   (SELECT f.id FROM used f, district d WHERE f.level = 4 AND f.path LIKE d.path || '/%%'
                      AND f.path > (SELECT min(path) FROM chiefdoms) AND f.path < (SELECT max(path) FROM chiefdoms)
                      AND NOT EXISTS (SELECT 1 FROM chiefdoms c WHERE f.path LIKE c.path || '/%%')
                    ORDER BY f.path LIMIT 1)""", dict(start=dve.DEMO_START, end=dve.DEMO_END))
        chosen = cur.fetchone()
        assert None not in chosen and len(set(chosen)) == 5
        cur.execute("UPDATE datavalue SET lastupdated = '2099-01-01' WHERE sourceid = ANY(%s)", (list(chosen),))
        got, ranked, _ = exported(collated, demo_request, order="OU,PE", last_updated="2099-01-01")
        notices = list(collated.notices)
        where = dve.standard_where(start=True, root=True) + ["dv.lastupdated >= '2099-01-01'"]
        want = reference(collated, demo_request, where)
        uids = chosen_uids(collated, chosen)
    assert any("only the org units of the values are loaded" in n for n in notices)
    assert {v[2] for v in want} == set(uids)
    assert ranked == FROM_TREE
    assert got == want


def chosen_uids(conn, ids):
    with conn.cursor() as cur:
        cur.execute("SELECT uid FROM organisationunit WHERE organisationunitid = ANY(%s)", (list(ids),))
        return [r[0] for r in cur.fetchall()]
