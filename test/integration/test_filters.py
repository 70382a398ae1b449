"""
test/integration/test_filters.py
    Each request filter (docs §2.2, §3.2) against an independent SQL query over the demo tables:
    the exported (data element, period, org unit, COC, AOC) keys must be the SQL rows' keys.
SPDX-License-Identifier: PostgreSQL
"""
import pytest

import dve

DS_MEMBER = ("de.dataelementid IN (SELECT dse.dataelementid FROM datasetelement dse "
             "JOIN dataset ds ON ds.datasetid = dse.datasetid WHERE ds.uid = ANY(%(ds)s))")
DEG_MEMBER = ("de.dataelementid IN (SELECT m.dataelementid FROM dataelementgroupmembers m "
              "JOIN dataelementgroup g ON g.dataelementgroupid = m.dataelementgroupid WHERE g.uid = ANY(%(deg)s))")
UNDER = "ou.path LIKE (SELECT r.path FROM organisationunit r WHERE r.uid = %(root)s) || '%%'"
UNDER_ROOT = "ou.path LIKE '/ImspTQPwCqd%%'"
ALL_DATES = "pe.startdate >= '1900-01-01' AND pe.enddate <= '2100-12-31'"
NOT_DELETED = "dv.deleted = false"
OUG_MEMBER = ("ou.organisationunitid IN (SELECT m.organisationunitid FROM orgunitgroupmembers m "
              "JOIN orgunitgroup g ON g.orgunitgroupid = m.orgunitgroupid WHERE g.uid = ANY(%(oug)s))")


def exported_keys(raw):
    """Counter of (de, period, ou, coc, aoc, deleted) of a JSON document, header values filled in."""
    doc = dve.parse_json_pairs(raw)
    top = dict(doc)
    keys = []
    for v in dve.data_values(doc):
        d = dict(v)
        keys.append((d["dataElement"], d.get("period", top.get("period")), d.get("orgUnit", top.get("orgUnit")),
                     d["categoryOptionCombo"], d.get("attributeOptionCombo", top.get("attributeOptionCombo")),
                     d.get("deleted", False)))
    return dve.multiset(keys)


def reference_keys(conn, where, params):
    rows = dve.reference_rows(conn, where, params)
    return dve.multiset((r.de, r.pe, r.ou, r.coc, r.aoc, bool(r.deleted)) for r in rows)


@pytest.fixture(scope="module")
def ids(conn243):
    with conn243.cursor() as cur:
        def one(sql):
            cur.execute(sql)
            return cur.fetchone()[0]
        return dict(
            chc=one("SELECT uid FROM orgunitgroup WHERE name = 'CHC'"),
            urban=one("SELECT uid FROM orgunitgroup WHERE name = 'Urban'"),
            anc=one("SELECT uid FROM dataelementgroup WHERE name = 'ANC'"),
            immunization=one("SELECT uid FROM dataelementgroup WHERE name = 'Immunization'"),
            partner_a=one("SELECT uid FROM categoryoptioncombo WHERE code = 'AOC_PARTNER_A'"),
            partner_combo=one("SELECT uid FROM categorycombo WHERE code = 'FUNDING_PARTNER'"),
            partner_a_option=one("SELECT uid FROM categoryoption WHERE code = 'PARTNER_A'"),
            partner_b=one("SELECT uid FROM categoryoptioncombo WHERE name = 'Partner B'"),
            f_lt5=one("SELECT uid FROM categoryoptioncombo WHERE code = 'COC_F_LT5'"),
            bulk_de=one("SELECT de.uid FROM datavalue dv JOIN dataelement de USING (dataelementid) "
                        "WHERE de.uid NOT LIKE 'Hostile%%' AND de.uid NOT LIKE 'EdgePeriod%%' "
                        "GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1"),
            lastupdated_mid=one("SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY lastupdated) FROM datavalue"),
            # More roots than the export binds as prefixes one by one (metadata.cpp), one nested in another.
            many_roots=one("SELECT array_agg(uid ORDER BY uid) FROM (SELECT uid FROM organisationunit "
                           "WHERE hierarchylevel = 3 ORDER BY uid LIMIT 11) s")
                       + [one("SELECT c.uid FROM organisationunit c JOIN organisationunit p "
                              "ON p.organisationunitid = c.parentid WHERE p.hierarchylevel = 3 ORDER BY p.uid, c.uid "
                              "LIMIT 1")],
        )


def _cases(ids, all_ds):
    """name -> (export parameters, SQL where clauses, SQL parameters)."""
    root = dict(org_unit=[dve.ROOT_OU], children=True)
    all_dates = dict(start_date=dve.ALL_START, end_date=dve.ALL_END)
    return {
        "period-list": (
            dict(root, data_set=all_ds, period=["202402", "2024-03", "2024W7", "2024Q1", "2023", "2024BiW1",
                                                "20240229", "2024NovQ1"]),
            [DS_MEMBER, "pe.iso = ANY(%(isos)s)", UNDER_ROOT, NOT_DELETED],
            dict(isos=["202402", "202403", "2024W7", "2024Q1", "2023", "2024BiW1", "20240229", "2024NovQ1"])),
        "start-end-containment": (
            dict(root, data_set=all_ds, start_date="2024-02-01", end_date="2024-05-31"),
            [DS_MEMBER, "pe.startdate >= '2024-02-01' AND pe.enddate <= '2024-05-31'", UNDER_ROOT, NOT_DELETED], {}),
        "start-equals-end": (
            dict(root, data_set=all_ds, start_date="2024-02-29", end_date="2024-02-29"),
            [DS_MEMBER, "pe.startdate >= '2024-02-29' AND pe.enddate <= '2024-02-29'", UNDER_ROOT, NOT_DELETED], {}),
        "org-unit-no-children": (
            dict(data_set=all_ds, org_unit=["DiszpKrYNg8", "O6uvpzGd5pu"], **all_dates),
            [DS_MEMBER, ALL_DATES, "ou.uid IN ('DiszpKrYNg8', 'O6uvpzGd5pu')", NOT_DELETED], {}),
        "children": (
            dict(data_set=all_ds, org_unit=["O6uvpzGd5pu"], children=True, **all_dates),
            [DS_MEMBER, ALL_DATES, UNDER, NOT_DELETED], dict(root="O6uvpzGd5pu")),
        "overlapping-roots": (  # a root and its descendant, with children: each value once
            dict(data_set=all_ds, org_unit=["O6uvpzGd5pu", dve.ROOT_OU, "YuQRtpLP10I"], children=True, **all_dates),
            [DS_MEMBER, ALL_DATES, UNDER_ROOT, NOT_DELETED], {}),
        "many-roots-children": (  # over eight roots: one LIKE ANY instead of a bound prefix each
            dict(data_set=all_ds, org_unit=ids["many_roots"], children=True, **all_dates),
            [DS_MEMBER, ALL_DATES, NOT_DELETED,
             "ou.path LIKE ANY (SELECT r.path || '%%' FROM organisationunit r WHERE r.uid = ANY(%(roots)s))"],
            dict(roots=ids["many_roots"])),
        "org-unit-group": (
            dict(data_set=all_ds, org_unit_group=[ids["chc"]], **all_dates),
            [DS_MEMBER, ALL_DATES, OUG_MEMBER, NOT_DELETED], dict(oug=[ids["chc"]])),
        "org-unit-or-group": (
            dict(data_set=all_ds, org_unit=["O6uvpzGd5pu"], org_unit_group=[ids["chc"], ids["urban"]], **all_dates),
            [DS_MEMBER, ALL_DATES, "(ou.uid = 'O6uvpzGd5pu' OR %s)" % OUG_MEMBER, NOT_DELETED],
            dict(oug=[ids["chc"], ids["urban"]])),
        "data-element": (
            dict(root, data_element=["Hostile0001", ids["bulk_de"]], **all_dates),
            [ALL_DATES, UNDER_ROOT, "de.uid = ANY(%(de)s)", NOT_DELETED], dict(de=["Hostile0001", ids["bulk_de"]])),
        "data-element-group": (
            dict(root, data_element_group=[ids["anc"]], **all_dates),
            [ALL_DATES, UNDER_ROOT, DEG_MEMBER, NOT_DELETED], dict(deg=[ids["anc"]])),
        "group-union-set-union-element": (  # 2.43 takes the union of all three (§2.2)
            dict(root, data_element_group=[ids["immunization"]], data_set=["HostileDSet"],
                 data_element=["EdgePeriod1"], **all_dates),
            [ALL_DATES, UNDER_ROOT, "(%s OR %s OR de.uid = 'EdgePeriod1')" % (DEG_MEMBER, DS_MEMBER), NOT_DELETED],
            dict(deg=[ids["immunization"]], ds=["HostileDSet"])),
        "set-and-element-overlap": (  # a data element named twice (directly and via its set): once
            dict(root, data_set=["HostileDSet"], data_element=["Hostile0001", "Hostile0029"], **all_dates),
            [ALL_DATES, UNDER_ROOT, DS_MEMBER, NOT_DELETED], dict(ds=["HostileDSet"])),
        "attribute-combo-and-options": (
            dict(root, data_set=all_ds, attribute_combo=ids["partner_combo"], attribute_options=[ids["partner_a_option"]],
                 **all_dates),
            [DS_MEMBER, ALL_DATES, UNDER_ROOT, NOT_DELETED, "aoc.uid = %(aoc)s"], dict(aoc=ids["partner_a"])),
        "include-deleted": (
            dict(root, data_set=all_ds, include_deleted=True, **all_dates),
            [DS_MEMBER, ALL_DATES, UNDER_ROOT], {}),
        "last-updated": (
            dict(root, data_set=all_ds, last_updated=ids["lastupdated_mid"], **all_dates),
            [DS_MEMBER, ALL_DATES, UNDER_ROOT, NOT_DELETED, "dv.lastupdated >= %(cutoff)s"],
            dict(cutoff=ids["lastupdated_mid"])),
        "last-updated-alone": (  # lastUpdated satisfies E2002 without a period filter
            dict(root, data_set=["HostileDSet"], last_updated="2024-02-06 11:30:00.654321"),
            [DS_MEMBER, UNDER_ROOT, NOT_DELETED, "dv.lastupdated >= '2024-02-06 11:30:00.654321'"],
            dict(ds=["HostileDSet"])),
        "last-updated-duration": (
            dict(root, data_set=["HostileDSet"], last_updated_duration="36500d"),
            [DS_MEMBER, UNDER_ROOT, NOT_DELETED, "dv.lastupdated >= now()::timestamp - interval '36500 days'"],
            dict(ds=["HostileDSet"])),
        "level": (
            dict(root, data_set=all_ds, level=4, **all_dates),
            [DS_MEMBER, ALL_DATES, UNDER_ROOT, NOT_DELETED, "ou.hierarchylevel = 4"], {}),
        "level-2": (
            dict(root, data_set=all_ds, level=2, **all_dates),
            [DS_MEMBER, ALL_DATES, UNDER_ROOT, NOT_DELETED, "ou.hierarchylevel = 2"], {}),
        "attribute-option-combo": (
            dict(root, data_set=all_ds, attribute_option_combo=[ids["partner_a"], ids["partner_b"]], **all_dates),
            [DS_MEMBER, ALL_DATES, UNDER_ROOT, NOT_DELETED, "aoc.uid = ANY(%(aoc)s)"],
            dict(aoc=[ids["partner_a"], ids["partner_b"]])),
        "category-option-combo": (
            dict(root, data_set=all_ds, category_option_combo=[ids["f_lt5"]], **all_dates),
            [DS_MEMBER, ALL_DATES, UNDER_ROOT, NOT_DELETED, "coc.uid = ANY(%(coc)s)"], dict(coc=[ids["f_lt5"]])),
    }


CASES = list(_cases({k: "x" for k in ("chc", "urban", "anc", "immunization", "partner_a", "partner_b", "f_lt5",
                                       "bulk_de", "lastupdated_mid", "partner_combo", "partner_a_option",
                                       "many_roots")},
                    []).keys())


@pytest.mark.parametrize("case", CASES)
def test_filter_matches_sql(conn243, ids, all_data_sets, case):
    params, where, sql_params = _cases(ids, all_data_sets)[case]
    sql_params = dict(sql_params)
    sql_params.setdefault("ds", all_data_sets)
    want = reference_keys(conn243, where, sql_params)
    assert sum(want.values()) > 0, "the demo has no rows for %s; the case proves nothing" % case
    got = exported_keys(dve.copy_bytes(conn243, "json", **params))
    assert sum(got.values()) == sum(want.values()), "%s: exported %d values, SQL finds %d" % (
        case, sum(got.values()), sum(want.values()))
    assert got == want, dve.diff_multisets(got, want)


def test_cases_discriminate(conn243, ids):
    """Sanity of the cases above: each filter really removes rows that a looser one keeps."""
    with conn243.cursor() as cur:
        # containment, not overlap: periods overlapping 2024-02-01..2024-05-31 that are not inside it
        cur.execute("SELECT count(*) FROM datavalue dv JOIN period pe USING (periodid) "
                    "WHERE pe.startdate <= '2024-05-31' AND pe.enddate >= '2024-02-01' "
                    "AND NOT (pe.startdate >= '2024-02-01' AND pe.enddate <= '2024-05-31')")
        assert cur.fetchone()[0] > 0
        cur.execute("SELECT count(*) FROM datavalue WHERE deleted")
        assert cur.fetchone()[0] > 0
        cur.execute("SELECT count(*) FROM datavalue WHERE lastupdated < %s", (ids["lastupdated_mid"],))
        assert cur.fetchone()[0] > 0


# ---------------------------------------------------------------------------------------------
# limit / offset / order


def _order_keys(raw, dates):
    out = []
    for v in dve.data_values(dve.parse_json_pairs(raw)):
        d = dict(v)
        out.append(dates[d["period"]] + (d["created"], d["dataElement"]))
    return out


@pytest.fixture(scope="module")
def period_dates(conn243):
    with conn243.cursor() as cur:
        cur.execute("SELECT iso, startdate, enddate FROM period")
        return {iso: (s, e) for iso, s, e in cur.fetchall()}


@pytest.mark.parametrize("limit,offset", [(100, 0), (100, 50), (1, 0), (0, 0), (50, -7), (None, 19000),
                                          (10, 10 ** 9)])
def test_limit_offset_with_default_order(conn243, demo_request, period_dates, limit, offset):
    full = dve.copy_bytes(conn243, "json", **demo_request)
    full_keys = _order_keys(full, period_dates)
    params = dict(demo_request, offset=offset)
    if limit is not None:
        params["limit"] = limit
    part_keys = _order_keys(dve.copy_bytes(conn243, "json", **params), period_dates)
    start = abs(offset)  # DHIS2 takes the absolute value of offset (§2.2)
    # limit 0: DHIS2 2.43's setMaxResults(0) may mean "no limit" (§7.6) -- here: zero rows
    end = len(full_keys) if limit is None else start + limit
    assert part_keys == full_keys[start:end]
    # and the count against SQL
    with conn243.cursor() as cur:
        where = dve.standard_where(start=True, root=True)
        cur.execute("SELECT count(*) FROM (" + dve.REFERENCE_SELECT.format(iso="pe.iso") + " WHERE "
                    + " AND ".join(where) + " ORDER BY pe.startdate, pe.enddate, dv.created, de.uid LIMIT %(lim)s "
                    "OFFSET %(off)s) s",
                    dict(ds=demo_request["data_set"], start=dve.DEMO_START, end=dve.DEMO_END, root=dve.ROOT_OU,
                         lim=limit, off=start))
        assert len(part_keys) == cur.fetchone()[0]


def test_order_none_is_the_same_multiset(conn243, demo_request):
    ordered = dve.data_values(dve.parse_json_pairs(dve.copy_bytes(conn243, "json", **demo_request)))
    unordered = dve.data_values(dve.parse_json_pairs(dve.copy_bytes(conn243, "json", order="none", **demo_request)))
    assert dve.multiset(dve.freeze(v) for v in unordered) == dve.multiset(dve.freeze(v) for v in ordered)


ORDER_SQL = {"PE": "pe.startdate, pe.enddate", "OU": "ou.path", "CREATED": "dv.created", "DE": "de.uid",
             "AOC": "aoc.uid"}


@pytest.mark.parametrize("order,by_period", [("OU,PE", False), ("DE", False), ("AOC,DE", False), ("CREATED", False),
                                             ("OU", True), ("de, created", False), ("PE,OU,PE", False)])
def test_order_keys(conn243, demo_request, all_data_sets, order, by_period):
    """order => 'K1,K2' sorts by those keys ascending; orderByPeriod puts PE first (§3.3)."""
    keys = []
    for k in (["PE"] if by_period and "PE" not in order.upper() else []) + [x.strip().upper() for x in order.split(",")]:
        if k not in keys:
            keys.append(k)
    with conn243.cursor() as cur:
        cur.execute("SELECT uid, path FROM organisationunit")
        paths = dict(cur.fetchall())
        cur.execute("SELECT iso, startdate, enddate FROM period")
        dates = {iso: (s, e) for iso, s, e in cur.fetchall()}

    def project(de, pe, ou, aoc, created):
        parts = {"PE": dates[pe], "OU": paths[ou], "CREATED": created, "DE": de, "AOC": aoc}
        return tuple(parts[k] for k in keys)

    where = dve.standard_where(start=True, root=True)
    ref = dve.reference_rows(conn243, where, dict(ds=all_data_sets, start=dve.DEMO_START, end=dve.DEMO_END,
                                                  root=dve.ROOT_OU), order=", ".join(ORDER_SQL[k] for k in keys))
    want = [project(r.de, r.pe, r.ou, r.aoc, dve.dhis2_timestamp(r.created)) for r in ref]
    values = dve.data_values(dve.parse_json_pairs(dve.copy_bytes(conn243, "json", order=order,
                                                                 order_by_period=by_period, **demo_request)))
    got = [project(d["dataElement"], d["period"], d["orgUnit"], d["attributeOptionCombo"], d["created"])
           for d in (dict(v) for v in values)]
    assert len(got) == len(want)
    first_bad = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
    assert first_bad is None, "order %r differs at value %d: exported %r, expected %r" % (
        order, first_bad, got[first_bad], want[first_bad])
