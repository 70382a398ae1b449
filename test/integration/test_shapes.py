"""
test/integration/test_shapes.py
    2.43 document shapes that depend on the request (docs §4.2): hoisted attribute option combo,
    excludeDefaultCoc/Aoc, output ID schemes and their header keys, E820x for undefined codes.
SPDX-License-Identifier: PostgreSQL
"""
import psycopg2
import pytest

import dve

DEFAULT_COMBO = "HllvX50cXC0"
RANGE = dict(start_date=dve.DEMO_START, end_date=dve.DEMO_END)


def test_single_attribute_option_combo_is_hoisted(conn243):
    with conn243.cursor() as cur:
        cur.execute("SELECT uid FROM categoryoptioncombo WHERE code = 'AOC_PARTNER_A'")
        aoc = cur.fetchone()[0]
    doc = dve.parse_json_pairs(dve.copy_bytes(conn243, "json", data_set=["BiNt8IRFnpj"], attribute_option_combo=[aoc],
                                              org_unit=[dve.ROOT_OU], children=True, **RANGE))
    assert [k for k, _ in doc] == ["dataSet", "attributeOptionCombo", "dataValues"]
    assert dict(doc)["attributeOptionCombo"] == aoc
    values = dict(doc)["dataValues"]
    assert values
    for v in values:
        assert "attributeOptionCombo" not in dict(v)
        assert list(dict(v))[:4] == ["dataElement", "period", "orgUnit", "categoryOptionCombo"]


def test_exclude_default_coc_and_aoc(conn243, all_data_sets):
    params = dict(data_set=all_data_sets, org_unit=["O6uvpzGd5pu"], children=True, **RANGE)
    plain = dve.data_values(dve.parse_json_pairs(dve.copy_bytes(conn243, "json", **params)))
    slim = dve.data_values(dve.parse_json_pairs(dve.copy_bytes(conn243, "json", exclude_default_coc=True,
                                                               exclude_default_aoc=True, **params)))
    assert len(plain) == len(slim)

    def drop_defaults(v):
        return tuple((k, x) for k, x in v
                     if not (k in ("categoryOptionCombo", "attributeOptionCombo") and x == DEFAULT_COMBO))

    assert any(dict(v)["categoryOptionCombo"] == DEFAULT_COMBO for v in plain)
    assert any(dict(v)["categoryOptionCombo"] != DEFAULT_COMBO for v in plain)
    assert dve.multiset(drop_defaults(v) for v in plain) == dve.multiset(dve.freeze(v) for v in slim)


def test_code_id_scheme_against_sql(conn243):
    params = dict(data_set=["pBOMPrpg1QX"], org_unit=["O6uvpzGd5pu"], children=True, **RANGE)
    doc = dve.parse_json_pairs(dve.copy_bytes(conn243, "json", id_scheme="CODE", **params))
    assert [k for k, _ in doc] == ["dataSet", "dataSetIdScheme", "dataElementIdScheme", "orgUnitIdScheme",
                                   "categoryOptionComboIdScheme", "attributeOptionComboIdScheme", "categoryIdScheme",
                                   "categoryOptionIdScheme", "dataValues"]
    top = dict(doc)
    assert top["dataSet"] == "DS_RH"
    assert all(top[k] == "CODE" for k in top if k.endswith("IdScheme"))
    with conn243.cursor() as cur:
        cur.execute("""
            SELECT de.code, pe.iso, ou.code, coc.code, aoc.code, dv.value
            FROM datavalue dv
            JOIN dataelement de ON de.dataelementid = dv.dataelementid
            JOIN period pe ON pe.periodid = dv.periodid
            JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid
            JOIN categoryoptioncombo coc ON coc.categoryoptioncomboid = dv.categoryoptioncomboid
            JOIN categoryoptioncombo aoc ON aoc.categoryoptioncomboid = dv.attributeoptioncomboid
            WHERE de.dataelementid IN (SELECT dataelementid FROM datasetelement dse JOIN dataset ds USING (datasetid)
                                       WHERE ds.uid = 'pBOMPrpg1QX')
              AND pe.startdate >= %s AND pe.enddate <= %s
              AND ou.path LIKE '/ImspTQPwCqd/O6uvpzGd5pu%%' AND NOT dv.deleted""", (dve.DEMO_START, dve.DEMO_END))
        want = dve.multiset(cur.fetchall())
    assert sum(want.values()) > 0
    got = dve.multiset((d["dataElement"], d["period"], d["orgUnit"], d["categoryOptionCombo"],
                        d["attributeOptionCombo"], d.get("value"))
                       for d in (dict(v) for v in top["dataValues"]))
    assert got == want, dve.diff_multisets(got, want)


def test_undefined_code_is_e8202(conn243, all_data_sets):
    """Every facility of Pujehun's first chiefdom has no code (demo/metadata.sql): 409 E8202 in DHIS2."""
    with conn243.cursor() as cur:
        cur.execute("SELECT ou.uid, count(*) FROM datavalue dv JOIN organisationunit ou "
                    "ON ou.organisationunitid = dv.sourceid WHERE ou.code IS NULL AND NOT dv.deleted "
                    "AND ou.hierarchylevel = 4 GROUP BY 1 ORDER BY 2 DESC LIMIT 1")
        ou, n = cur.fetchone()
        cur.execute("SELECT r.uid FROM organisationunit o JOIN organisationunit r ON r.organisationunitid = o.parentid "
                    "WHERE o.uid = %s", (ou,))
        chiefdom = cur.fetchone()[0]
    assert n > 0
    with pytest.raises(psycopg2.Error) as err:
        dve.copy_bytes(conn243, "json", data_set=all_data_sets,
                       org_unit=[chiefdom], children=True, org_unit_id_scheme="CODE", start_date=dve.ALL_START,
                       end_date=dve.ALL_END)
    assert "E8202" in err.value.pgerror
    assert "Export as CODE not possible as the property is undefined for org unit(s)" in err.value.pgerror
    assert ou in err.value.pgerror
