"""
test/integration/test_json_content.py
    The JSON document against an independent SQL reading of the demo tables (docs §3 SQL
    semantics, §4 JSON shapes), and the escaping of the hostile values.
SPDX-License-Identifier: PostgreSQL
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import pytest

import dve

VALUE_KEYS_243 = ["dataElement", "period", "orgUnit", "categoryOptionCombo", "attributeOptionCombo", "value",
                  "storedBy", "created", "lastUpdated", "comment", "followup", "deleted"]


@pytest.fixture(scope="module")
def demo_json(conn243, demo_request):
    return dve.copy_bytes(conn243, "json", **demo_request)


@pytest.fixture(scope="module")
def demo_reference(conn243, all_data_sets):
    """The rows of the demo export by plain SQL, in DHIS2 2.43's default order."""
    where = dve.standard_where(start=True, root=True)
    params = dict(ds=all_data_sets, start=dve.DEMO_START, end=dve.DEMO_END, root=dve.ROOT_OU)
    return dve.reference_rows(conn243, where, params, order="pe.startdate, pe.enddate, dv.created, de.uid")


def test_demo_export_is_valid_json(demo_json):
    doc = json.loads(demo_json)
    assert list(doc.keys()) == ["dataValues"]
    assert len(doc["dataValues"]) > 1000
    # no whitespace, no trailing newline (json-tree PrettyPrint with no indent)
    assert demo_json.startswith(b'{"dataValues":[{"dataElement":"')
    assert demo_json.endswith(b"}]}")
    with tempfile.NamedTemporaryFile(prefix="dve_it_", suffix=".json") as f:
        f.write(demo_json)
        f.flush()
        proc = subprocess.run([sys.executable, "-m", "json.tool", f.name], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")


def test_demo_export_includes_the_hostile_rows(demo_json, conn243):
    values = dve.data_values(dve.parse_json_pairs(demo_json))
    exported = {dict(v)["dataElement"] for v in values}
    with conn243.cursor() as cur:
        cur.execute("SELECT DISTINCT h.dataelement_uid FROM dve_demo.hostile_case h "
                    "JOIN dataelement de ON de.uid = h.dataelement_uid "
                    "JOIN datavalue dv ON dv.dataelementid = de.dataelementid WHERE NOT dv.deleted")
        hostile = {r[0] for r in cur.fetchall()}
    assert len(hostile) > 20
    assert hostile <= exported


def test_demo_values_match_sql_2_43(demo_json, demo_reference):
    values = dve.data_values(dve.parse_json_pairs(demo_json))
    assert len(values) == len(demo_reference)
    got = dve.multiset(dve.freeze(v) for v in values)
    want = dve.multiset(dve.freeze(dve.expected_json_243(r)) for r in demo_reference)
    assert got == want, dve.diff_multisets(got, want)


def test_demo_value_keys_in_dhis2_order(demo_json):
    """Key order of every value object is a subsequence of §4.2's order, with the five ids always present."""
    for v in dve.data_values(dve.parse_json_pairs(demo_json)):
        keys = [k for k, _ in v]
        assert keys == [k for k in VALUE_KEYS_243 if k in keys], keys
        assert keys[:5] == VALUE_KEYS_243[:5]
        assert "created" in keys and "lastUpdated" in keys


def test_demo_order_is_period_created_data_element(demo_json, demo_reference, conn243):
    """ORDER BY pe.startdate, pe.enddate, dv.created, de.uid (§3.3); ties beyond these keys may differ."""
    with conn243.cursor() as cur:
        cur.execute("SELECT iso, startdate, enddate FROM period")
        dates = {iso: (s, e) for iso, s, e in cur.fetchall()}
    got = []
    for v in dve.data_values(dve.parse_json_pairs(demo_json)):
        d = dict(v)
        got.append(dates[d["period"]] + (d["created"], d["dataElement"]))
    want = [(r.startdate, r.enddate, dve.dhis2_timestamp(r.created), r.de) for r in demo_reference]
    assert len(got) == len(want)
    first_bad = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
    assert first_bad is None, "order differs at value %d: exported %r, expected %r" % (
        first_bad, got[first_bad], want[first_bad])


def test_demo_values_match_sql_2_42_shape(conn243, demo_request, demo_reference):
    """style => '2.42': every string key present with nulls, followup always boolean (§4.1)."""
    doc = dve.parse_json_pairs(dve.copy_bytes(conn243, "json", style="2.42", **demo_request))
    assert [k for k, _ in doc] == ["dataValues"]
    values = dve.data_values(doc)
    got = dve.multiset(dve.freeze(v) for v in values)
    want = dve.multiset(dve.freeze(dve.expected_json_242(r)) for r in demo_reference)
    assert got == want, dve.diff_multisets(got, want)


def test_timestamps_truncate_to_milliseconds(conn243):
    """The demo's .999999 / .000999 / .0005 timestamps (hostile cases 31, 32) print truncated."""
    doc = json.loads(dve.copy_bytes(conn243, "json", data_element=["Hostile0031", "Hostile0032"],
                                    start_date=dve.DEMO_START, end_date=dve.DEMO_END, org_unit=[dve.ROOT_OU],
                                    children=True))
    stamps = {(v["period"], v["created"], v["lastUpdated"]) for v in doc["dataValues"]}
    assert ("202412", "2024-12-31T23:59:59.999+0000", "2024-12-31T23:59:59.999+0000") in stamps
    assert ("202402", "2024-02-29T12:00:00.000+0000", "2024-03-01T00:00:00.000+0000") in stamps
    assert ("202306", "2023-06-15T08:30:00.000+0000", "2023-06-15T08:30:00.123+0000") in stamps
    assert ("202301", "2023-01-01T00:00:00.000+0000", "2025-12-31T23:59:59.999+0000") in stamps


# ---------------------------------------------------------------------------------------------
# headers (§4.1, §4.2)


def test_single_set_header_2_43(conn243):
    raw = dve.copy_bytes(conn243, "json", data_set=["HostileDSet"], period=["2024-01"], org_unit=["DiszpKrYNg8"])
    doc = dve.parse_json_pairs(raw)
    assert [k for k, _ in doc] == ["dataSet", "period", "orgUnit", "dataValues"]
    top = dict(doc)
    assert (top["dataSet"], top["period"], top["orgUnit"]) == ("HostileDSet", "202401", "DiszpKrYNg8")
    assert top["dataValues"]
    for v in top["dataValues"]:
        keys = [k for k, _ in v]
        # hoisted into the header, so left out of each value
        assert "period" not in keys and "orgUnit" not in keys
        assert "attributeOptionCombo" in keys


def test_single_set_header_2_42_complete_date(conn243):
    raw = dve.copy_bytes(conn243, "json", style="2.42", data_set=["HostileDSet"], period=["202401"],
                         org_unit=["DiszpKrYNg8"])
    doc = dve.parse_json_pairs(raw)
    assert [k for k, _ in doc] == ["dataSet", "completeDate", "period", "orgUnit", "dataValues"]
    top = dict(doc)
    # demo/datavalues.sql registers HostileDSet 202401 at Ngelehun CHC on 2024-02-05 10:00:00.999999
    assert top["completeDate"] == "2024-02-05T10:00:00.999+0000"
    for v in top["dataValues"]:
        d = dict(v)
        assert d["period"] == "202401" and d["orgUnit"] == "DiszpKrYNg8"


# ---------------------------------------------------------------------------------------------
# escaping (§4.1 Jackson rules; the extension applies them to both shapes, see src/core/escape.hpp)

SHORT_ESCAPES = {"b": 0x08, "t": 0x09, "n": 0x0A, "f": 0x0C, "r": 0x0D}


def _escapes(raw_text):
    """Every backslash escape of a compact JSON document, scanned left to right."""
    return re.findall(r'\\(u[0-9A-Fa-f]{4}|.)', raw_text, flags=re.S)


@pytest.fixture(scope="module")
def hostile_reference(conn243):
    where = dve.standard_where(start=True, root=True, include_deleted=True)
    params = dict(ds=["HostileDSet"], start=dve.ALL_START, end=dve.ALL_END, root=dve.ROOT_OU)
    rows = dve.reference_rows(conn243, where, params)
    assert len(rows) >= 50
    return rows


@pytest.mark.parametrize("style", ["2.43", "2.42"])
def test_hostile_values_round_trip(conn243, hostile_reference, style):
    raw = dve.copy_bytes(conn243, "json", style=style, data_set=["HostileDSet"], start_date=dve.ALL_START,
                         end_date=dve.ALL_END, org_unit=[dve.ROOT_OU], children=True, include_deleted=True)
    values = dve.data_values(dve.parse_json_pairs(raw))
    expect = dve.expected_json_243 if style == "2.43" else dve.expected_json_242
    got = dve.multiset(dve.freeze(v) for v in values)
    want = dve.multiset(dve.freeze(expect(r)) for r in hostile_reference)
    assert got == want, dve.diff_multisets(got, want)
    # the cases the brief names are really there and intact
    by_de = {}
    for v in values:
        d = dict(v)
        by_de.setdefault(d["dataElement"], []).append(d)
    assert by_de["Hostile0001"][0]["value"] == 'He said "hello", then left'
    assert by_de["Hostile0002"][0]["value"] == "C:\\dir\\file \\\\ \\u0041 end\\"
    assert by_de["Hostile0003"][0]["comment"] == "".join(chr(i) for i in range(1, 32))
    assert by_de["Hostile0005"][0]["value"] == "ls[\u2028]ps[\u2029]"
    assert by_de["Hostile0007"][0]["value"].startswith("\U0001F600 grin \U0001D11E")
    assert by_de["Hostile0008"][0]["value"] == "0123456789" * 5000
    assert by_de["Hostile0010"][0]["value"] == "\u00e9" * 50000
    assert by_de["Hostile0012"][0]["value"] == "\x01" * 50000
    assert by_de["Hostile0013"][0]["value"] == "\U0001F600" * 50000


@pytest.mark.parametrize("style", ["2.43", "2.42"])
def test_hostile_raw_bytes_have_no_control_characters(conn243, style):
    raw = dve.copy_bytes(conn243, "json", style=style, data_set=["HostileDSet"], start_date=dve.ALL_START,
                         end_date=dve.ALL_END, org_unit=[dve.ROOT_OU], children=True, include_deleted=True)
    bad = [b for b in set(raw) if b < 0x20]
    assert not bad, "raw control bytes in the JSON: %r" % sorted(bad)
    text = raw.decode("utf-8")  # also: the document is valid UTF-8
    escapes = _escapes(text)
    seen_u = set()
    for e in escapes:
        if e.startswith("u"):
            hexdigits = e[1:]
            code = int(hexdigits, 16)
            if code in (0x2028, 0x2029):  # json-tree escapes these, Jackson does not; both are valid
                continue
            if style == "2.42" and 0xD800 <= code <= 0xDFFF:  # Jackson: one escape per UTF-16 surrogate
                assert hexdigits == hexdigits.upper(), "lowercase hex in \\%s" % e
                continue
            assert code < 0x20, "unexpected \\%s escape" % e
            assert code not in SHORT_ESCAPES.values(), "\\%s must be written as a short escape" % e
            assert hexdigits == hexdigits.upper() and hexdigits.startswith("00"), "lowercase hex in \\%s" % e
            seen_u.add(code)
        else:
            assert e in ('"', "\\", "b", "f", "n", "r", "t"), "unexpected escape \\%s" % e
    # every control character without a short form appeared (hostile case 3 holds all of 0x01..0x1F)
    assert seen_u == set(range(1, 0x20)) - set(SHORT_ESCAPES.values())
    assert {e for e in escapes if len(e) == 1} >= {'"', "\\", "b", "f", "n", "r", "t"}
    # '/' is not escaped (hostile case 27)
    assert "a/b//c http://x/y" in text


@pytest.mark.parametrize("data_set,period,expected", [
    ("pBOMPrpg1QX", "202306", "2023-07-05T10:00:00.123+0000"),  # completed = false: the date is still used
    ("pBOMPrpg1QX", "202303", "2023-04-05T10:00:00.123+0000"),
    ("BfMAe6Itzgt", "202401", None),                             # registration with a NULL date
    ("BiNt8IRFnpj", "202401", None),                             # registered for a non-default AOC only
    ("pBOMPrpg1QX", "202401", None),                             # no registration
])
def test_2_42_complete_date_from_registrations(conn243, data_set, period, expected):
    """§3.1: completeDate is read by (data set, period, org unit, default AOC); `completed` is not checked."""
    with conn243.cursor() as cur:  # the expectation, independently from the table
        cur.execute("""SELECT r.date::text FROM completedatasetregistration r
                       JOIN dataset ds ON ds.datasetid = r.datasetid JOIN period pe ON pe.periodid = r.periodid
                       JOIN organisationunit ou ON ou.organisationunitid = r.sourceid
                       JOIN categoryoptioncombo aoc ON aoc.categoryoptioncomboid = r.attributeoptioncomboid
                       WHERE ds.uid = %s AND pe.iso = %s AND ou.uid = 'DiszpKrYNg8' AND aoc.uid = 'HllvX50cXC0'""",
                    (data_set, period))
        row = cur.fetchone()
    from_sql = dve.dhis2_timestamp(row[0]) if row and row[0] else None
    assert from_sql == expected
    raw = dve.copy_bytes(conn243, "json", style="2.42", data_set=[data_set], period=[period],
                         org_unit=["DiszpKrYNg8"])
    doc = dve.parse_json_pairs(raw)
    assert [k for k, _ in doc][:4] == ["dataSet", "completeDate", "period", "orgUnit"]
    assert dict(doc)["completeDate"] == expected


GRIN = "\U0001F600".encode("utf-8")


@pytest.mark.parametrize("style", ["2.43", "2.42"])
def test_bytes_follow_the_styles_escaping_rules(conn243, demo_request, style):
    """The whole demo document (hostile strings included) byte for byte as the style's writer
    writes its content: 2.43 (json-tree) keeps characters outside the BMP as raw UTF-8, 2.42
    (Jackson's UTF8JsonGenerator) escapes each UTF-16 surrogate, e.g. U+1F600 as \\uD83D\\uDE00.
    The expected bytes come from dve.jackson_bytes, written from that rule; the content itself is
    checked against SQL by the tests above."""
    params = dict(demo_request, style=style) if style == "2.42" else demo_request
    got = dve.copy_bytes(conn243, "json", **params)
    assert got == dve.jackson_bytes(dve.parse_json_pairs(got), surrogate_escapes=(style == "2.42"))
    if style == "2.42":
        assert b"\\uD83D\\uDE00" in got
        assert b"\xf0" not in got  # no 4-byte UTF-8 sequence left
    else:
        assert GRIN in got
        assert b"\\uD83D" not in got


def test_2_42_escapes_non_bmp_in_a_single_value(conn243):
    """Hostile case 13 (50,000 x U+1F600) alone, expected bytes spelled out."""
    got = dve.copy_bytes(conn243, "json", style="2.42", data_element=["Hostile0013"], period=["202401"],
                         org_unit=["DiszpKrYNg8"])
    values = dve.data_values(dve.parse_json_pairs(got))
    assert len(values) == 1
    assert b'"value":"' + b"\\uD83D\\uDE00" * 50000 + b'"' in got
