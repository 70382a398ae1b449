"""
test/integration/test_schema_242.py
    A DHIS2 2.42 database (no period.iso: the extension computes ISO strings from the period
    type and dates) exports exactly what the 2.43 database (period.iso written by the demo
    generator's SQL) exports, for every period type.

The two demo databases hold the same rows, except that the 2.42 one lacks the period types
that 2.43 introduced (WeeklyFriday, FinancialFeb, FinancialAug) and their edge-period values.
SPDX-License-Identifier: PostgreSQL
"""
import json

import pytest

import dve

ONLY_243_TYPES = ("WeeklyFriday", "FinancialFeb", "FinancialAug")


def _period_types(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT DISTINCT pt.name FROM datavalue dv JOIN period pe ON pe.periodid = dv.periodid "
                    "JOIN periodtype pt ON pt.periodtypeid = pe.periodtypeid ORDER BY 1")
        return [r[0] for r in cur.fetchall()]


def test_schemas_differ_as_expected(conn243, conn242):
    with conn243.cursor() as cur:
        cur.execute("SELECT count(*) FROM information_schema.columns WHERE table_name = 'period' AND column_name = 'iso'")
        assert cur.fetchone()[0] == 1
    with conn242.cursor() as cur:
        cur.execute("SELECT count(*) FROM information_schema.columns WHERE table_name = 'period' AND column_name = 'iso'")
        assert cur.fetchone()[0] == 0
    types_242 = _period_types(conn242)
    types_243 = _period_types(conn243)
    assert set(types_243) - set(types_242) == set(ONLY_243_TYPES)
    assert len(types_242) >= 20


@pytest.mark.parametrize("style", ["2.43", "2.42"])
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_full_range_export_is_identical(conn243, conn242, all_data_sets, fmt, style):
    """Every data set but the edge-period one (its 2.43-only periods are missing in 2.42): identical bytes."""
    params = dict(data_set=[d for d in all_data_sets if d != "EdgePeriods"], start_date=dve.ALL_START,
                  end_date=dve.ALL_END, org_unit=[dve.ROOT_OU], children=True, include_deleted=True, style=style)
    a = dve.copy_bytes(conn243, fmt, **params)
    b = dve.copy_bytes(conn242, fmt, **params)
    assert len(a) > 1_000_000
    assert a == b


def _json_without_periods(raw, drop_isos):
    """The 2.43 JSON document with the value objects of drop_isos cut out, byte for byte otherwise."""
    text = raw.decode("utf-8")
    prefix = '{"dataValues":['
    assert text.startswith(prefix)
    decoder = json.JSONDecoder()
    kept, dropped, idx = [], 0, len(prefix)
    while text[idx] != "]":
        obj, end = decoder.raw_decode(text, idx)
        if obj["period"] in drop_isos:
            dropped += 1
        else:
            kept.append(text[idx:end])
        idx = end + 1 if text[end] == "," else end
    assert text[idx:] == "]}"
    return (prefix + ",".join(kept) + "]}").encode("utf-8"), dropped


def _csv_without_periods(raw, drop_isos):
    """The CSV document without the records of drop_isos (those edge rows need no quoting)."""
    text = raw.decode("utf-8")
    dropped = 0
    for record in dve.parse_csv(text)[1:]:
        if record[1] in drop_isos:
            line = ",".join(record) + "\n"
            assert dve.javacsv_record(record) == line
            assert ("\n" + line) in text
            text = text.replace("\n" + line, "\n", 1)
            dropped += 1
    return text.encode("utf-8"), dropped


@pytest.mark.parametrize("style", ["2.43", "2.42"])
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_all_data_sets_identical_but_2_43_only_types(conn243, conn242, all_data_sets, fmt, style):
    """All data sets over 1900..2100: the 2.42 export is byte for byte the 2.43 one without the values
    of the 2.43-only period types."""
    params = dict(data_set=all_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END, org_unit=[dve.ROOT_OU],
                  children=True, include_deleted=True, style=style)
    with conn243.cursor() as cur:
        cur.execute("SELECT pe.iso FROM period pe JOIN periodtype pt ON pt.periodtypeid = pe.periodtypeid "
                    "WHERE pt.name = ANY(%s)", (list(ONLY_243_TYPES),))
        only_243_isos = {r[0] for r in cur.fetchall()}
    assert only_243_isos
    a = dve.copy_bytes(conn243, fmt, **params)
    b = dve.copy_bytes(conn242, fmt, **params)
    cut, dropped = (_json_without_periods if fmt == "json" else _csv_without_periods)(a, only_243_isos)
    assert dropped > 0
    assert cut == b


@pytest.fixture(scope="module")
def isos_by_type(conn243):
    with conn243.cursor() as cur:
        cur.execute("SELECT pt.name, array_agg(DISTINCT pe.iso ORDER BY pe.iso) FROM datavalue dv "
                    "JOIN period pe ON pe.periodid = dv.periodid "
                    "JOIN periodtype pt ON pt.periodtypeid = pe.periodtypeid GROUP BY 1")
        return dict(cur.fetchall())


PERIOD_TYPES = ["Daily", "Weekly", "WeeklyWednesday", "WeeklyThursday", "WeeklySaturday", "WeeklySunday",
                "BiWeekly", "Monthly", "BiMonthly", "Quarterly", "QuarterlyNov", "SixMonthly", "SixMonthlyApril",
                "SixMonthlyNov", "Yearly", "FinancialApril", "FinancialJuly", "FinancialSep", "FinancialOct",
                "FinancialNov"]


@pytest.mark.parametrize("period_type", PERIOD_TYPES)
def test_each_period_type_identical(conn243, conn242, all_data_sets, isos_by_type, period_type):
    """Per period type, by the ISO strings of its periods (the 2.42 side parses them to dates)."""
    isos = isos_by_type.get(period_type)
    assert isos, "the demo has no values in %s periods" % period_type
    base = dict(data_set=all_data_sets, org_unit=[dve.ROOT_OU], children=True, include_deleted=True)
    for fmt, style in (("json", "2.43"), ("csv", "2.43"), ("json", "2.42")):
        a = dve.copy_bytes(conn243, fmt, period=isos, style=style, **base)
        b = dve.copy_bytes(conn242, fmt, period=isos, style=style, **base)
        assert a == b, "%s %s %s differs between the 2.43 and the 2.42 database" % (period_type, fmt, style)
        if fmt == "json" and style == "2.43":
            doc = dve.parse_json_pairs(a)
            hoisted = dict(doc).get("period")  # exactly one period requested: it moves to the header
            assert {dict(v).get("period", hoisted) for v in dve.data_values(doc)} == set(isos)
