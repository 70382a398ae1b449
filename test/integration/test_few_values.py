"""
test/integration/test_few_values.py
    An export of few values from many org units (an incremental export of a whole country, say)
    loads only the org units its values use, instead of every org unit selected, which an ordered
    export would also rank by path (src/pg/datavalue_query.cpp RestrictToObjectsInUse). Its
    document must still be the full export's, cut to those values: the same values in the same
    order (the rank of a subset of org units), each written the same, and the same bytes as with
    every one loaded (datavalue_export.metadata_in_use = off). The same holds for option combos.
    The choice follows the planner's estimate of the values against that of the objects; which
    one ran is seen in the export's DEBUG1 messages. The demo has 1,332 org units, 14 option
    combos and 20,000 values in 282 org units.
SPDX-License-Identifier: PostgreSQL
"""
import re

import pytest

import dve

ONLY_IN_USE = "only the org units of the values are loaded"
EVERY_ONE = "every one of the org units selected is loaded"
LOADED = re.compile(r"metadata: \d+ objects \((\d+) org units\)")
EXPORTED = re.compile(rb' exported="[^"]*"')


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


def both_ways(conn, fmt, **params):
    """The document with only the objects in use loaded and with every one loaded, and the first's choices."""
    del conn.notices[:]
    used = dve.copy_bytes(conn, fmt, **params)
    with conn.cursor() as cur:
        cur.execute("SELECT 1")
        said = [n for n in conn.notices if "loaded" in n]
        cur.execute("SET datavalue_export.metadata_in_use = off")
    try:
        every = dve.copy_bytes(conn, fmt, **params)
    finally:
        with conn.cursor() as cur:
            cur.execute("RESET datavalue_export.metadata_in_use")
    # ADX's exported attribute is the transaction's start
    return EXPORTED.sub(b"", used), EXPORTED.sub(b"", every), said


VARIANTS = {
    "json": ("json", {}),
    "ou-pe": ("json", {"order": "OU,PE"}),
    "csv": ("csv", {}),
    "xml": ("xml", {}),
    "adx": ("adx", {"id_scheme": "UID"}),
    "2.42": ("json", {"style": "2.42"}),
    "codes": ("json", {"org_unit_id_scheme": "code", "attribute_option_combo_id_scheme": "code",
                        "data_set_id_scheme": "uid"}),
    "page": ("json", {"limit": 7, "offset": 5}),
    "unordered-page": ("csv", {"order": "none", "limit": 7, "offset": 5}),
}


def without_control_characters(fmt, request):
    """ADX cannot carry the hostile data set's control characters (test_adx.py leaves it out too)."""
    if fmt != "adx":
        return request
    return dict(request, data_set=[d for d in request["data_set"] if d != "HostileDSet"])


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_document_is_the_one_with_every_org_unit_loaded(explained, whole_country, variant):
    fmt, extra = VARIANTS[variant]
    stamp = cutoff(explained, 60)
    request = without_control_characters(fmt, dict(whole_country, **extra))
    used, every, said = both_ways(explained, fmt, last_updated=stamp.isoformat(), **request)
    assert any(ONLY_IN_USE in n for n in said), said
    assert len(used) > 1000 or "limit" in extra
    assert used == every


def _add_option_combos(cur, count):
    """Option combos no value uses (copies of the default one with new ids and uids), estimated."""
    cur.execute("""
        INSERT INTO categoryoptioncombo
        SELECT (jsonb_populate_record(NULL::categoryoptioncombo, to_jsonb(t) || jsonb_build_object(
            'categoryoptioncomboid', top.id + g, 'uid', 'X' || lpad(g::text, 10, '0'), 'code', 'XCOC' || g,
            'name', 'Extra combo ' || g))).*
        FROM categoryoptioncombo t, generate_series(1, %s) g,
             (SELECT max(categoryoptioncomboid) AS id FROM categoryoptioncombo) top
        WHERE t.uid = 'HllvX50cXC0'""", (count,))
    cur.execute("ANALYZE categoryoptioncombo")


NAMED_AOC = {"attribute_option_combo": ["TaZS8plkSl8"]}


@pytest.mark.parametrize("fmt,extra,newest", [
    ("json", {}, 60), ("adx", {"id_scheme": "UID"}, 60), ("json", NAMED_AOC, 60),
    ("json", dict(NAMED_AOC, attribute_option_combo_id_scheme="code", data_set_id_scheme="uid"), 60),
    ("json", NAMED_AOC, 3), ("xml", {"category_option_combo": ["HllvX50cXC0"]}, 60)],
    ids=["json", "adx", "named-aoc", "named-aoc-codes", "named-aoc-no-value", "named-coc"])
def test_few_values_among_many_option_combos_load_only_theirs(explained, whole_country, fmt, extra, newest):
    """With 1,000 more option combos, an export of few values loads only the combos they use and the ones the
    request names: a named AOC is the 2.43 header's even when no value has it."""
    stamp = cutoff(explained, newest)
    try:
        with dve.rolled_back(explained) as conn, conn.cursor() as cur:
            _add_option_combos(cur, 1000)
            request = without_control_characters(fmt, dict(whole_country, **extra))
            used, every, said = both_ways(conn, fmt, last_updated=stamp.isoformat(), **request)
    finally:
        # ANALYZE writes pg_class.reltuples in place, so the rollback keeps 1,014: estimate the table again.
        with explained.cursor() as cur:
            cur.execute("ANALYZE categoryoptioncombo")
    assert any("only the option combos of the values are loaded" in n for n in said), said
    assert used == every
    if "attribute_option_combo" in extra:
        assert b'"attributeOptionCombo"' in used.split(b'"dataValues"')[0]
        assert (b'"value"' in used) == (newest == 60)


def test_a_value_of_a_missing_org_unit_is_counted_only_where_every_org_unit_is_read(explained, whole_country):
    """A value whose org unit has no row (a broken foreign key) is left out either way; the WARNING that counts such
    values comes from an export that reads every org unit's values, not from one of few values, which reads only
    the values of the org units it loads (README, "Differences from DHIS2")."""
    stamp = cutoff(explained, 60)
    with dve.rolled_back(explained) as conn, conn.cursor() as cur:
        before = dve.copy_bytes(conn, "csv", last_updated=stamp.isoformat(), **whole_country)
        cur.execute("SET LOCAL session_replication_role = replica")
        cur.execute("""INSERT INTO datavalue (dataelementid, periodid, sourceid, categoryoptioncomboid,
                                              attributeoptioncomboid, value, storedby, created, lastupdated, deleted)
                       SELECT dataelementid, periodid, 987654321, categoryoptioncomboid, attributeoptioncomboid,
                              'no org unit row', storedby, created, lastupdated, false
                       FROM datavalue WHERE NOT deleted ORDER BY lastupdated DESC LIMIT 1""")
        few, few_choice, _ = export(conn, "csv", last_updated=stamp.isoformat(), **whole_country)
        few_warned = [n for n in conn.notices if "left out" in n]
        everything, every_choice, _ = export(conn, "csv", **whole_country)
        every_warned = [n for n in conn.notices if "left out" in n]
    assert (few_choice, every_choice) == (ONLY_IN_USE, EVERY_ONE)
    assert few == before and b"no org unit row" not in everything
    assert few_warned == [] and len(every_warned) == 1 and "1 data value was left out" in every_warned[0]
