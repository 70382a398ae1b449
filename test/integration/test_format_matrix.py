"""
test/integration/test_format_matrix.py
    The combination matrix: format (JSON, CSV, DXF2 XML, ADX) x style (2.43, 2.42) x database
    (it_demo_243, it_demo_242: the two schema generations, same data) x order (DHIS2's default,
    "none") x paging (none, limit, limit + offset) x compression (none, gzip, zip) x transport (COPY,
    plain SELECT). Each feature has its own tests elsewhere; this file checks that every combination
    still gives a complete, well-formed document whose values agree with the other combinations of
    the same request: the same values as the unordered export, as an independent SQL count, as the
    other formats and styles, and as the other database; a page is the slice of the ordered export
    (per data set for ADX); compressed output holds exactly the plain document; COPY and SELECT give
    the same bytes. gzip or zip in a plain SELECT is refused (0A000).
SPDX-License-Identifier: PostgreSQL
"""
import csv
import gzip
import io
import json
import xml.etree.ElementTree as ET
import zlib
from collections import Counter

import psycopg2
import pytest

import dve

# Three data sets, six months, the root with children (checked with SQL below): 1017 values in 6
# periods and 20-odd org units, with attribute option combos of several categories; 1090 in ADX,
# where a value whose data element is in two of the data sets is written under both.
DATA_SETS = ["pBOMPrpg1QX", "BiNt8IRFnpj", "DZ0JHXT7tf9"]
START, END = "2024-01-01", "2024-06-30"
REQUEST = dict(data_set=DATA_SETS, start_date=START, end_date=END, org_unit=[dve.ROOT_OU], children=True)

LIMIT, OFFSET = 200, 300  # ADX pages per data set: 200 of 599, 99 of 399 and 0 of 92 values
PAGING = {"unpaged": {}, "limit": {"limit": LIMIT}, "limit_offset": {"limit": LIMIT, "offset": OFFSET}}
ORDER = {"ordered": {}, "unordered": {"order": "none"}}
STYLES = ["2.43", "2.42"]
DATABASES = {"db243": "conn243", "db242": "conn242"}  # fixture names

DXF2 = "{http://dhis2.org/schema/dxf/2.0}"
ADX = "{urn:ihe:qrph:adx:2015}"
CORE_JSON = ("dataElement", "period", "orgUnit", "categoryOptionCombo", "attributeOptionCombo", "value", "storedBy",
             "lastUpdated", "comment")


def _params(fmt, style, order, paging, compression=None):
    params = dict(REQUEST, style=style, **ORDER[order], **PAGING[paging])
    if fmt == "adx":
        params["id_scheme"] = "UID"  # the demo's ADX needs UIDs (not every object has a code)
    if compression:
        params["compression"] = compression
    return params


def _select_bytes(conn, fmt, params):
    with conn.cursor() as cur:
        cur.execute("SELECT string_agg(c, '') FROM %s c" % dve.call(fmt, **params))
        text = cur.fetchone()[0]
    assert text is not None, "the SELECT returned no rows"
    return text.encode("utf-8")


# ---------------------------------------------------------------------------------------------
# parsing: every document to its rows (hashable tuples) in document order


def _norm(value):
    """A field as every format can carry it: CSV has no null and trims (javacsv)."""
    return dve.java_trim("" if value is None else str(value))


def _json_rows(data):
    doc = json.loads(data.decode("utf-8"))
    assert isinstance(doc, dict) and isinstance(doc.get("dataValues"), list), str(data[:200])
    header = {k: v for k, v in doc.items() if k != "dataValues"}
    rows = []
    for value in doc["dataValues"]:
        assert isinstance(value, dict), value
        merged = dict(header, **value)  # a hoisted header member belongs to every value
        rows.append(tuple(sorted(merged.items())))
    return rows


def _json_core(row):
    d = dict(row)
    return tuple(_norm(d.get(k)) for k in CORE_JSON) + (d.get("followup") is True,)


def _csv_rows(data):
    text = data.decode("utf-8")
    assert text.endswith("\n"), "CSV does not end with a line end: %r" % text[-80:]
    records = list(csv.reader(io.StringIO(text, newline="")))
    header = dve.CSV_HEADER.split(",")
    assert records and records[0] == header, records[:1]
    for record in records[1:]:
        assert len(record) == len(header), record
    return [tuple(r) for r in records[1:]]


def _csv_core(row):
    return tuple(_norm(v) for v in row[:8]) + (_norm(row[8]), row[9] == "true")


def _xml_rows(data):
    assert data.startswith(b"<?xml version='1.0' encoding='UTF-8'?><dataValueSet "), data[:100]
    root = ET.fromstring(data)
    assert root.tag == DXF2 + "dataValueSet", root.tag
    rows = []
    for child in root:
        assert child.tag == DXF2 + "dataValue" and len(child) == 0, child.tag
        rows.append(tuple(sorted(dict(root.attrib, **child.attrib).items())))
    return rows


def _xml_core(row):
    d = dict(row)
    return tuple(_norm(d.get(k)) for k in CORE_JSON) + (d.get("followUp") == "true",)


def _adx_rows(data):
    root = ET.fromstring(data)
    assert root.tag == ADX + "adx", root.tag
    assert root.get("exported"), root.attrib
    rows = []
    for group in root:
        assert group.tag == ADX + "group", group.tag
        assert group.get("dataSet") in DATA_SETS and group.get("period") and group.get("orgUnit"), group.attrib
        assert len(group) >= 1, "empty group %r" % group.attrib
        for dv in group:
            assert dv.tag == ADX + "dataValue" and dv.get("dataElement"), dv.tag
            annotation = [a.text or "" for a in dv]
            assert len(annotation) <= 1 and all(a.tag == ADX + "annotation" for a in dv), list(dv)
            rows.append((group.get("dataSet"), tuple(sorted(group.attrib.items())), tuple(sorted(dv.attrib.items())),
                         annotation[0] if annotation else None))
    return rows


def _adx_core(row):
    """(data set, data element, org unit, value): the text of an annotated value is its value."""
    data_set, group, value, annotation = row
    group, value = dict(group), dict(value)
    return (data_set, value["dataElement"], group["orgUnit"],
            annotation if annotation is not None else value.get("value", ""))


def _sorted(rows):
    """Rows as a sorted list (repr orders tuples that hold None, JSON's null, too)."""
    return sorted(rows, key=repr)


PARSE = {"json": _json_rows, "csv": _csv_rows, "xml": _xml_rows, "adx": _adx_rows}
CORE = {"json": _json_core, "csv": _csv_core, "xml": _xml_core, "adx": _adx_core}


# ---------------------------------------------------------------------------------------------
# references, computed once per module


class References:
    def __init__(self, request):
        self.request = request
        self.cache = {}

    def conn(self, db):
        return self.request.getfixturevalue(DATABASES[db])

    def rows(self, db, fmt, style, order, paging="unpaged"):
        """The rows of the uncompressed COPY export (parsed, so ADX's exported time drops out)."""
        key = (db, fmt, style, order, paging)
        if key not in self.cache:
            self.cache[key] = PARSE[fmt](dve.copy_bytes(self.conn(db), fmt, **_params(fmt, style, order, paging)))
        return self.cache[key]

    def sql_counts(self, db):
        """{data set: values} and the number of distinct values, with plain SQL."""
        key = ("sql", db)
        if key not in self.cache:
            base = ("SELECT count(*) FROM datavalue dv JOIN period pe ON pe.periodid = dv.periodid "
                    "JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid "
                    "WHERE NOT dv.deleted AND pe.startdate >= %s AND pe.enddate <= %s "
                    "AND ou.path LIKE (SELECT r.path FROM organisationunit r WHERE r.uid = %s) || '%%' "
                    "AND dv.dataelementid IN (SELECT dse.dataelementid FROM datasetelement dse "
                    "JOIN dataset ds ON ds.datasetid = dse.datasetid WHERE ds.uid = ANY(%s))")
            with self.conn(db).cursor() as cur:
                per_set = {}
                for ds in DATA_SETS:
                    cur.execute(base, (START, END, dve.ROOT_OU, [ds]))
                    per_set[ds] = cur.fetchone()[0]
                cur.execute(base, (START, END, dve.ROOT_OU, DATA_SETS))
                self.cache[key] = per_set, cur.fetchone()[0]
        return self.cache[key]

    def members(self, db):
        """{data element uid: [data set uids]} for the requested data sets."""
        key = ("members", db)
        if key not in self.cache:
            with self.conn(db).cursor() as cur:
                cur.execute("SELECT de.uid, ds.uid FROM datasetelement dse "
                            "JOIN dataset ds ON ds.datasetid = dse.datasetid "
                            "JOIN dataelement de ON de.dataelementid = dse.dataelementid WHERE ds.uid = ANY(%s)",
                            (DATA_SETS,))
                members = {}
                for de, ds in cur.fetchall():
                    members.setdefault(de, []).append(ds)
            self.cache[key] = members
        return self.cache[key]

    def expected_core(self, db, fmt):
        """The multiset of core tuples every format and style must hold on db, from its unordered
        2.43 JSON export; ADX's from it too, each value once per requested data set holding its element."""
        json_rows = self.rows(db, "json", "2.43", "unordered")
        if fmt != "adx":
            return Counter(_json_core(r) for r in json_rows)
        members = self.members(db)
        out = Counter()
        for row in json_rows:
            d = dict(row)
            for ds in members[d["dataElement"]]:
                out[(ds, d["dataElement"], d["orgUnit"], "" if d.get("value") is None else d["value"])] += 1
        return out


@pytest.fixture(scope="module")
def refs(request):
    return References(request)


# ---------------------------------------------------------------------------------------------
# transport and compression


def _single_gzip_member(data):
    assert data[:2] == b"\x1f\x8b", data[:10]
    d = zlib.decompressobj(wbits=31)
    out = d.decompress(data) + d.flush()
    assert d.eof, "gzip stream is truncated"
    assert d.unused_data == b"", "more than one gzip member"
    assert gzip.decompress(data) == out
    return out


def _document(conn, fmt, params, compression, transport):
    """The case's document, uncompressed and checked against the plain COPY export of the same request
    (in one transaction, so ADX's exported time, the transaction start, is the same)."""
    with dve.rolled_back(conn):
        plain = dve.copy_bytes(conn, fmt, **params)
        if transport == "select":
            data = _select_bytes(conn, fmt, params)
            assert data == plain, "SELECT and COPY differ (%d and %d bytes)" % (len(data), len(plain))
        elif compression is None:
            data = plain
        else:
            packed = dve.copy_bytes(conn, fmt, compression=compression, **params)
            data = _single_gzip_member(packed) if compression == "gzip" else dve.single_zip_entry(packed)[1]
            assert len(packed) < len(data)
            assert data == plain, "the %s content differs from the plain export" % compression
    return data


# ---------------------------------------------------------------------------------------------
# the matrix


@pytest.mark.parametrize("transport", ["copy", "select"])
@pytest.mark.parametrize("compression", [None, "gzip", "zip"], ids=["plain", "gzip", "zip"])
@pytest.mark.parametrize("paging", list(PAGING))
@pytest.mark.parametrize("order", list(ORDER))
@pytest.mark.parametrize("db", list(DATABASES))
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("fmt", ["json", "csv", "xml", "adx"])
def test_combination(refs, fmt, style, db, order, paging, compression, transport):
    conn = refs.conn(db)
    params = _params(fmt, style, order, paging)
    if transport == "select" and compression is not None:
        # README "Usage": gzip and zip need COPY; a plain SELECT is refused before any output
        with pytest.raises(psycopg2.Error) as err:
            _select_bytes(conn, fmt, dict(params, compression=compression))
        assert err.value.pgcode == "0A000", (err.value.pgcode, err.value.pgerror)
        assert "COPY" in err.value.pgerror
        return

    rows = PARSE[fmt](_document(conn, fmt, params, compression, transport))
    ordered = refs.rows(db, fmt, style, "ordered")
    unordered = refs.rows(db, fmt, style, "unordered")
    per_set, distinct = refs.sql_counts(db)
    # ADX groups are always in DHIS2's group order (README "ADX"), whatever "order" says
    sliced = order == "ordered" or fmt == "adx"

    if paging == "unpaged":
        assert len(unordered) == (sum(per_set.values()) if fmt == "adx" else distinct)
        assert len(rows) == len(unordered)
        assert _sorted(rows) == _sorted(unordered)
        assert _sorted(ordered) == _sorted(unordered)
        if fmt == "adx":
            for ds in DATA_SETS:
                assert sum(1 for r in rows if r[0] == ds) == per_set[ds], ds
        # the same values as every other format and style (the 2.43 JSON export of this database)
        core = [CORE[fmt](r) for r in rows]
        want = refs.expected_core(db, fmt)
        assert Counter(core) == want, dve.diff_multisets(Counter(core), want)
        if order == "ordered" and fmt in ("csv", "xml"):
            # and in the same order as JSON
            assert core == [_json_core(r) for r in refs.rows(db, "json", style, "ordered")]
        if sliced:
            assert rows == ordered
        return

    limit, offset = PAGING[paging]["limit"], PAGING[paging].get("offset", 0)
    if fmt == "adx":  # limit and offset apply per data set
        pages = [([r for r in rows if r[0] == ds], [r for r in ordered if r[0] == ds], per_set[ds])
                 for ds in DATA_SETS]
    else:
        pages = [(rows, ordered, distinct)]
    for page, full, total in pages:
        assert len(page) == max(0, min(limit, total - offset)), (len(page), total)
        if sliced:
            assert page == full[offset:offset + limit]
        else:
            # an unordered page is some page: values of the export, each at most as often
            assert not Counter(page) - Counter(unordered)


def test_the_two_databases_agree(refs):
    """Both schema generations hold the same data (conftest): the same values, periods included
    (it_demo_242 has no period.iso; the export computes the ISO periods), in the same order."""
    rows = {db: [_json_core(r) for r in refs.rows(db, "json", "2.43", "ordered")] for db in DATABASES}
    assert len(rows["db243"]) == refs.sql_counts("db243")[1]
    assert rows["db242"] == rows["db243"]
