"""
test/integration/test_few_values.py
    An export of few values from many org units (an incremental export of a whole country, say)
    loads only the org units its values use, instead of every org unit selected, which an ordered
    export would also rank by path (src/pg/datavalue_query.cpp RestrictToOrgUnitsInUse). Its
    document must still be the full export's, cut to those values: the same values in the same
    order (the rank of a subset of org units), each written the same. The choice follows the
    planner's estimate of the values against that of the org units; which one ran is seen in the
    export's DEBUG1 messages. The demo has 1,332 org units and 20,000 values in 282 of them.
SPDX-License-Identifier: PostgreSQL
"""
import re

import pytest

import dve

ONLY_IN_USE = "only the org units of the values are loaded"
EVERY_ONE = "every org unit selected is loaded"
LOADED = re.compile(r"metadata: \d+ objects \((\d+) org units\)")


@pytest.fixture(autouse=True)
def true_estimates(explained):
    dve.refresh_estimates(explained)


@pytest.fixture(scope="module")
def whole_country(all_data_sets):
    """Every data set, every period, the root with children: every org unit of the demo is selected."""
    return dict(data_set=all_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END, org_unit=[dve.ROOT_OU],
                children=True)


def cutoff(conn, newest):
    """A whole second at or before the newest-th most recent lastupdated: values from it on are about that many."""
    with conn.cursor() as cur:
        cur.execute("SELECT date_trunc('second', lastupdated) FROM datavalue WHERE NOT deleted "
                    "ORDER BY lastupdated DESC OFFSET %s LIMIT 1", (newest,))
        return cur.fetchone()[0]


def export(conn, fmt, **params):
    """(document, the org unit choice it reported, how many org units it loaded)."""
    del conn.notices[:]
    doc = dve.copy_bytes(conn, fmt, **params)
    with conn.cursor() as cur:
        cur.execute("SELECT 1")  # psycopg2 collects the notices of a COPY at the next statement
    choice = [c for c in (ONLY_IN_USE, EVERY_ONE) if any(c in n for n in conn.notices)]
    loaded = [int(m.group(1)) for m in map(LOADED.search, conn.notices) if m]
    assert len(choice) == 1 and len(loaded) == 1, conn.notices
    return doc, choice[0], loaded[0]


def since(timestamp, stamp):
    """Whether a written timestamp (2025-06-18T12:39:16.566+0000) is at or after a whole-second cutoff."""
    return timestamp[:19] >= stamp.strftime("%Y-%m-%dT%H:%M:%S")


ORDERS = [None, "OU,PE", "DE", "none"]


@pytest.mark.parametrize("order", ORDERS, ids=["dhis2", "ou-pe", "de", "unordered"])
def test_an_incremental_export_is_the_full_export_cut_to_its_values(explained, whole_country, order):
    """JSON: the values updated since the cutoff, in the full export's order, each with the same members."""
    ordered = {} if order is None else {"order": order}
    stamp = cutoff(explained, 60)
    doc, choice, loaded = export(explained, "json", last_updated=stamp.isoformat(), **whole_country, **ordered)
    full, full_choice, full_loaded = export(explained, "json", **whole_country, **ordered)
    assert (choice, full_choice) == (ONLY_IN_USE, EVERY_ONE)
    values = [dve.freeze(v) for v in dve.data_values(dve.parse_json_pairs(doc))]
    want = [dve.freeze(v) for v in dve.data_values(dve.parse_json_pairs(full))
            if since(dict(v)["lastUpdated"], stamp)]
    assert len(want) >= 40
    if order == "none":
        assert sorted(map(repr, values)) == sorted(map(repr, want))
    else:
        assert values == want
    # exactly the org units of the values, out of the 1,332 the full export loads
    assert loaded == len({dict(v)["orgUnit"] for v in dve.data_values(dve.parse_json_pairs(doc))})
    assert full_loaded == 1332 and loaded < 100


def test_an_incremental_csv_export_is_the_full_export_cut_to_its_rows(explained, whole_country):
    """CSV, field for field (values hold line breaks, so rows are parsed, not split)."""
    stamp = cutoff(explained, 60)
    doc, choice, _ = export(explained, "csv", last_updated=stamp.isoformat(), **whole_country)
    full, _, _ = export(explained, "csv", **whole_country)
    assert choice == ONLY_IN_USE
    header, *rows = dve.parse_csv(doc.decode())
    full_header, *full_rows = dve.parse_csv(full.decode())
    assert header == full_header
    lastupdated = header.index("lastupdated")
    want = [r for r in full_rows if since(r[lastupdated], stamp)]
    assert len(want) >= 40 and rows == want


def test_an_export_of_many_values_loads_every_org_unit(explained, whole_country):
    """The choice follows the estimate: 2,000 values against 1,332 org units are not few."""
    stamp = cutoff(explained, 2000)
    doc, choice, loaded = export(explained, "json", last_updated=stamp.isoformat(), **whole_country)
    assert choice == EVERY_ONE and loaded == 1332
    assert len(dve.data_values(dve.parse_json_pairs(doc))) >= 2000


def test_few_values_with_deleted_ones_and_of_a_group(explained, whole_country, conn243):
    """Deleted values count when asked for, and an org unit group's members are the selection."""
    with conn243.cursor() as cur:
        cur.execute("SELECT date_trunc('second', max(lastupdated)) FROM datavalue WHERE deleted")
        deleted_since = cur.fetchone()[0]
        cur.execute("SELECT g.uid FROM orgunitgroup g JOIN orgunitgroupmembers m USING (orgunitgroupid) "
                    "GROUP BY g.uid ORDER BY count(*) DESC, g.uid LIMIT 1")
        group = cur.fetchone()[0]
    group_request = {k: v for k, v in whole_country.items() if k not in ("org_unit", "children")}
    for request, stamp in ((dict(whole_country, include_deleted=True), deleted_since),
                           (dict(group_request, org_unit_group=[group]), cutoff(explained, 60))):
        doc, choice, _ = export(explained, "json", last_updated=stamp.isoformat(), **request)
        full, _, _ = export(explained, "json", **request)
        assert choice == ONLY_IN_USE
        values = [dict(v) for v in dve.data_values(dve.parse_json_pairs(doc))]
        want = [dict(v) for v in dve.data_values(dve.parse_json_pairs(full)) if since(dict(v)["lastUpdated"], stamp)]
        assert values == want and len(values) > 5
        assert any(v.get("deleted") for v in values) == ("include_deleted" in request)
