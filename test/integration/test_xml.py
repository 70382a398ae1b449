"""
test/integration/test_xml.py
    DXF2 XML end to end on the demo databases: the bytes equal a document built here in Python
    from the contract's rules (declaration, attribute order, Woodstox escaping, 2.42/2.43 shapes,
    U+FFFD for characters XML 1.0 cannot carry) over the content of the JSON export of the same
    request; every document parses with lxml and its attributes equal the JSON values; gzip and
    format=xml through the query string.
SPDX-License-Identifier: PostgreSQL
"""
import gzip
import json

import pytest
from lxml import etree

import dve

NS = "http://dhis2.org/schema/dxf/2.0"
DECLARATION = "<?xml version='1.0' encoding='UTF-8'?>"
VALUE_KEYS = ["dataElement", "period", "orgUnit", "categoryOptionCombo", "attributeOptionCombo", "value",
              "storedBy", "created", "lastUpdated", "comment"]


def xml_safe(text):
    """What XML 1.0 can carry: C0 controls other than TAB/LF/CR and U+FFFE/U+FFFF become U+FFFD."""
    return "".join("\ufffd" if (ord(c) < 0x20 and c not in "\t\n\r") or c in "\ufffe\uffff" else c for c in text)


def woodstox_attribute(text):
    """Woodstox's attribute-value escaping (contract §2.3), after xml_safe."""
    out = []
    for c in xml_safe(text):
        out.append({"&": "&amp;", "<": "&lt;", '"': "&quot;", "\t": "&#x9;", "\n": "&#xa;", "\r": "&#xd;"}.get(c, c))
    return "".join(out)


def attr(name, value):
    return ' %s="%s"' % (name, woodstox_attribute(value))


def expected_xml(json_doc, style):
    """The XML document DHIS2's writer would produce for the values of a JSON export (contract §3)."""
    head = DECLARATION + '<dataValueSet xmlns="%s"' % NS
    for key, value in json_doc.items():
        if key != "dataValues" and value is not None:
            head += attr(key, value)
    rows = []
    for v in json_doc["dataValues"]:
        row = "<dataValue"
        for key in VALUE_KEYS:
            if v.get(key) is not None:
                row += attr(key, v[key])
        if style == "2.42":
            row += ' followUp="%s"' % ("true" if v.get("followup") else "false")
        elif v.get("followup"):
            row += ' followUp="true"'
        if v.get("deleted"):
            row += ' deleted="true"'
        rows.append(row + "/>")
    if not rows:
        return (head + "/>").encode("utf-8")
    return (head + ">" + "".join(rows) + "</dataValueSet>").encode("utf-8")


REQUESTS = {
    # one data set, period and org unit: header attributes, hoisting in 2.43, completeDate in 2.42
    "hostile-single": dict(data_set=["HostileDSet"], period=["202401"], org_unit=["DiszpKrYNg8"]),
    # every hostile value, deleted ones included, no header
    "hostile-all": dict(data_set=["HostileDSet"], start_date=dve.ALL_START, end_date=dve.ALL_END,
                        org_unit=[dve.ROOT_OU], children=True, include_deleted=True),
    # unordered: the streaming path that writes as rows arrive
    "hostile-unordered": dict(data_set=["HostileDSet"], start_date=dve.ALL_START, end_date=dve.ALL_END,
                              org_unit=[dve.ROOT_OU], children=True, order="none"),
    "empty": dict(data_set=["HostileDSet"], period=["190001"], org_unit=["DiszpKrYNg8"]),
}


@pytest.fixture(scope="module")
def every_period_type(all_data_sets):
    """Every data set, the whole time range, one facility: each period type of the demo."""
    return dict(data_set=all_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END, org_unit=["DiszpKrYNg8"])


@pytest.mark.parametrize("style", ["2.43", "2.42"])
@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_xml_bytes_follow_the_contract(conn243, name, style):
    request = dict(REQUESTS[name], style=style)
    doc = json.loads(dve.copy_bytes(conn243, "json", **request))
    xml = dve.copy_bytes(conn243, "xml", **request)
    assert xml == expected_xml(doc, style)
    if name != "empty":
        assert len(doc["dataValues"]) > 0


def test_hostile_strings_are_exported(conn243):
    """The demo's control characters are replaced, the rest (quotes, <, &, emoji, U+2028) kept as is."""
    xml = dve.copy_bytes(conn243, "xml", **REQUESTS["hostile-all"]).decode("utf-8")
    assert "\ufffd" in xml and "&lt;" in xml and "&amp;" in xml and "&quot;" in xml and "&#xa;" in xml
    assert not any(ord(c) < 0x20 for c in xml)


@pytest.mark.parametrize("style", ["2.43", "2.42"])
def test_every_period_type_parses_and_equals_json(conn243, every_period_type, style):
    request = dict(every_period_type, style=style)
    doc = json.loads(dve.copy_bytes(conn243, "json", **request))
    xml = dve.copy_bytes(conn243, "xml", **request)
    assert xml == expected_xml(doc, style)
    root = etree.fromstring(xml)  # a real XML parser: raises on anything not well-formed
    assert root.tag == "{%s}dataValueSet" % NS
    values = list(root)
    assert len(values) == len(doc["dataValues"])
    periods = set()
    for element, v in zip(values, doc["dataValues"]):
        got = dict(element.attrib)
        for key in VALUE_KEYS:
            if v.get(key) is None:
                assert key not in got
            else:
                # the parser normalises nothing inside attributes written as character references
                assert got.pop(key) == xml_safe(v[key]), key
        periods.add(v["period"])
    # the ISO forms of several period types (monthly, weekly, quarterly, yearly, financial...)
    assert len({p[4:5] for p in periods}) >= 3, periods


def test_style_242_on_the_242_schema(conn242):
    request = REQUESTS["hostile-all"]
    doc = json.loads(dve.copy_bytes(conn242, "json", style="2.42", **request))
    assert dve.copy_bytes(conn242, "xml", style="2.42", **request) == expected_xml(doc, "2.42")


def test_select_rows_and_query_string_give_the_same_document(conn243):
    request = REQUESTS["hostile-single"]
    copied = dve.copy_bytes(conn243, "xml", **request)
    assert dve.select_bytes(conn243, "xml", **request) == copied
    with conn243.cursor() as cur:
        cur.execute("SELECT string_agg(c, '') FROM export_datavalues(%s) c",
                    ("dataSet=HostileDSet&period=202401&orgUnit=DiszpKrYNg8&format=xml&paging=false&fields=*",))
        assert cur.fetchone()[0].encode("utf-8") == copied


@pytest.mark.parametrize("level", [None, 6])
def test_gzip_xml(conn243, level):
    request = REQUESTS["hostile-all"]
    extra = {} if level is None else {"compression_level": level}
    plain = dve.copy_bytes(conn243, "xml", **request)
    assert gzip.decompress(dve.copy_bytes(conn243, "xml", compression="gzip", **extra, **request)) == plain


def test_xml_is_utf8_whatever_the_client_encoding(fresh_conn):
    """The declaration says UTF-8, so COPY sends UTF-8 even to a LATIN1 client."""
    request = REQUESTS["hostile-single"]
    utf8 = dve.copy_bytes(fresh_conn, "xml", **request)
    fresh_conn.set_client_encoding("LATIN1")
    assert dve.copy_bytes(fresh_conn, "xml", **request) == utf8
