"""
ADX end to end on the demo database: export_datavalues_adx and format=adx against documents
computed here, in Python, from plain SQL over the DHIS2 tables and the ADX rules of DHIS2
(AdxPeriod.serialize durations, ValueType.NUMERIC_TYPES, Woodstox escaping, the 2.43 group
order), never from the writer code. Every document is parsed with lxml and checked against the
structure of the loose ADX schema (dhis2/adx IHE2015/schema/adx_loose.xsd): root adx with a
required exported dateTime, groups with dataSet/period/orgUnit and at least one dataValue, each
dataValue with dataElement and value (an xs:decimal unless it carries an annotation).
"""
import datetime as _dt
import re

import psycopg2
import pytest
from lxml import etree

import dve
from test_cancel_progress import BlockingSink, _copy, _pid, _poll, _usable

NS = "urn:ihe:qrph:adx:2015"
NUMERIC = {"INTEGER", "INTEGER_POSITIVE", "INTEGER_NEGATIVE", "INTEGER_ZERO_OR_POSITIVE", "NUMBER",
           "UNIT_INTERVAL", "PERCENTAGE"}
# PeriodType.getIso8601Duration by periodtype.name
DURATION = {"Daily": "P1D", "BiWeekly": "P14D", "Monthly": "P1M", "BiMonthly": "P2M", "Quarterly": "P3M",
            "QuarterlyNov": "P3M", "SixMonthly": "P6M", "SixMonthlyApril": "P6M", "SixMonthlyNov": "P6M",
            "Yearly": "P1Y"}
for _t in ("Weekly", "WeeklyWednesday", "WeeklyThursday", "WeeklyFriday", "WeeklySaturday", "WeeklySunday"):
    DURATION[_t] = "P7D"
for _t in ("Feb", "April", "July", "Aug", "Sep", "Oct", "Nov"):
    DURATION["Financial" + _t] = "P1Y"
assert len(DURATION) == 23

EXPORTED = re.compile(r' exported="(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"')
FORBIDDEN = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f]")


# ---------------------------------------------------------------------------------------------
# Woodstox escaping, from the rules (contract tables), not from the C++ code

def esc_attr(s):
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == '"':
            out.append("&quot;")
        elif o in (9, 10, 13):
            out.append("&#x%x;" % o)
        elif o in (0xFFFE, 0xFFFF):
            out.append("&#x%x;" % o)
        else:
            assert o >= 0x20, "forbidden character reached the escaper"
            out.append(ch)
    return "".join(out)


def esc_text(s):
    """Text content: '>' escaped by position (String path below 12 UTF-16 units, else 512-unit chunks)."""
    units = len(s.encode("utf-16-le")) // 2
    long_path = units >= 12
    out = []
    unit = 0
    seg_start = True
    prev = ""
    for ch in s:
        o = ord(ch)
        if long_path and unit % 512 == 0:
            seg_start = True
        ref = None
        if ch == "&":
            ref = "&amp;"
        elif ch == "<":
            ref = "&lt;"
        elif ch == ">":
            if seg_start or prev == "]":
                ref = "&gt;"
        elif o == 13 or 0x7F <= o <= 0x9F or o in (0xFFFE, 0xFFFF):
            ref = "&#x%x;" % o
        if ref is not None:
            out.append(ref)
            seg_start = long_path
        else:
            out.append(ch)
            seg_start = False
        prev = ch
        unit += 2 if o > 0xFFFF else 1
    return "".join(out)


def attr(name, value):
    return "" if value is None else ' %s="%s"' % (name, esc_attr(value))


# ---------------------------------------------------------------------------------------------
# the independent SQL side

def scheme_col(alias, scheme):
    return {"UID": alias + ".uid", "CODE": alias + ".code", "NAME": alias + ".name::text"}[scheme]


def category_pairs(conn, cat_scheme, opt_scheme):
    """{coc id: [(category id, option id), ...]} from the raw link tables, in category sort order."""
    with conn.cursor() as cur:
        cur.execute("SELECT categoryoptioncomboid, categorycomboid FROM categorycombos_optioncombos")
        combo_of = dict(cur.fetchall())
        cur.execute("SELECT categorycomboid, categoryid, sort_order FROM categorycombos_categories")
        cats_of = {}
        for combo, cat, order in cur.fetchall():
            cats_of.setdefault(combo, []).append((order, cat))
        cur.execute("SELECT categoryid, categoryoptionid, sort_order FROM categories_categoryoptions")
        opts_of = {}
        for cat, opt, order in cur.fetchall():
            opts_of.setdefault(cat, []).append((order, opt))
        cur.execute("SELECT categoryoptioncomboid, categoryoptionid FROM categoryoptioncombos_categoryoptions")
        coc_opts = {}
        for coc, opt in cur.fetchall():
            coc_opts.setdefault(coc, set()).add(opt)
        cur.execute("SELECT categoryid, %s FROM category c" % scheme_col("c", cat_scheme))
        cat_id = dict(cur.fetchall())
        cur.execute("SELECT categoryoptionid, %s FROM categoryoption o" % scheme_col("o", opt_scheme))
        opt_id = dict(cur.fetchall())
    pairs = {}
    for coc, combo in combo_of.items():
        pairs[coc] = []
        for _, cat in sorted(cats_of.get(combo, [])):
            held = [opt for _, opt in sorted(opts_of.get(cat, [])) if opt in coc_opts.get(coc, ())]
            pairs[coc].append((cat_id[cat], opt_id[held[0]] if held else None))
    return pairs


def expected_adx(conn, data_sets, start, end, root, scheme="UID", style="2.43", iso_col=True):
    """The whole document (exported masked) for data sets in request order, children of root."""
    pairs = category_pairs(conn, scheme, scheme)
    groups = []
    with conn.cursor() as cur:
        for ds in data_sets:
            cur.execute("SELECT %s FROM dataset t WHERE t.uid = %%s" % scheme_col("t", scheme), (ds,))
            ds_id = cur.fetchone()[0]
            cur.execute(
                "SELECT %s, de.uid, de.valuetype, pe.startdate, pe.enddate, pe.periodid, pt.name, %s, ou.path, "
                "dv.categoryoptioncomboid, coc.uid, dv.attributeoptioncomboid, aoc.uid, dv.value "
                "FROM datavalue dv JOIN dataelement de ON de.dataelementid = dv.dataelementid "
                "JOIN period pe ON pe.periodid = dv.periodid JOIN periodtype pt ON pt.periodtypeid = pe.periodtypeid "
                "JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid "
                "JOIN categoryoptioncombo coc ON coc.categoryoptioncomboid = dv.categoryoptioncomboid "
                "JOIN categoryoptioncombo aoc ON aoc.categoryoptioncomboid = dv.attributeoptioncomboid "
                "WHERE dv.dataelementid IN (SELECT dse.dataelementid FROM datasetelement dse JOIN dataset ds "
                "ON ds.datasetid = dse.datasetid WHERE ds.uid = %%s) AND pe.startdate >= %%s AND pe.enddate <= %%s "
                "AND ou.path LIKE (SELECT r.path FROM organisationunit r WHERE r.uid = %%s) || '%%%%' "
                "AND NOT dv.deleted" % (scheme_col("de", scheme), scheme_col("ou", scheme)),
                (ds, start, end, root))
            rows = cur.fetchall()
            # group order: period (start, end), org unit path, AOC uid; then data element and COC uid
            rows.sort(key=lambda r: (r[3], r[4], r[5], r[8], r[12], r[1], r[10]))
            key = None
            for r in rows:
                (de_id, _de_uid, vtype, startdate, _end, periodid, ptype, ou_id, _path, coc, coc_uid, aoc, aoc_uid,
                 value) = r
                if (periodid, ou_id, aoc) != key:
                    key = (periodid, ou_id, aoc)
                    groups.append([(ds_id, startdate.isoformat() + "/" + DURATION[ptype], ou_id, aoc, aoc_uid), []])
                groups[-1][1].append((de_id, coc, coc_uid, vtype, value))

    def combo_attrs(combo, uid):
        if style == "2.42" and uid == "HllvX50cXC0":
            return ""
        return "".join(attr(c, o) for c, o in pairs[combo])

    out = ['<adx xmlns="%s" exported="X"' % NS]
    if not groups:
        return out[0] + "/>"
    out.append(">")
    for (ds_id, period, ou_id, aoc, aoc_uid), values in groups:
        out.append("<group" + attr("dataSet", ds_id) + attr("period", period) + attr("orgUnit", ou_id) +
                   combo_attrs(aoc, aoc_uid) + ">")
        for de_id, coc, coc_uid, vtype, value in values:
            head = "<dataValue" + attr("dataElement", de_id) + combo_attrs(coc, coc_uid)
            if vtype in NUMERIC:
                out.append(head + attr("value", value) + "/>")
            else:
                out.append(head + ' value="0"><annotation>' + esc_text(value or "") + "</annotation></dataValue>")
        out.append("</group>")
    out.append("</adx>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# structure (the loose ADX schema) and helpers

DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")


def check_structure(doc_bytes):
    """Parse with lxml and check the loose schema's structure; returns the root."""
    root = etree.fromstring(doc_bytes)
    assert root.tag == "{%s}adx" % NS
    exported = root.get("exported")
    assert exported is not None and re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", exported)
    for group in root:
        assert group.tag == "{%s}group" % NS
        for required in ("dataSet", "period", "orgUnit"):
            assert group.get(required), (required, group.attrib)
        assert re.match(r"^\d{4}-\d\d-\d\d/P\d+[DMY]$", group.get("period"))
        assert len(group) >= 1
        for dv in group:
            assert dv.tag == "{%s}dataValue" % NS
            assert dv.get("dataElement")
            children = list(dv)
            if children:
                assert [c.tag for c in children] == ["{%s}annotation" % NS] and dv.get("value") == "0"
            elif dv.get("value") is not None:
                # xs:decimal: numeric value types hold numbers (DHIS2 writes the stored string as is)
                assert DECIMAL.match(dv.get("value")), dv.attrib
    return root


def masked(doc):
    m = EXPORTED.search(doc)
    assert m, doc[:200]
    return EXPORTED.sub(' exported="X"', doc, count=1)


@pytest.fixture(scope="module")
def plain_data_sets(conn243):
    """Every data set but the hostile one (whose control characters XML cannot carry)."""
    with conn243.cursor() as cur:
        cur.execute("SELECT uid FROM dataset WHERE uid <> 'HostileDSet' ORDER BY code NULLS LAST, uid")
        return [r[0] for r in cur.fetchall()]


# ---------------------------------------------------------------------------------------------
# tests

def test_every_period_type_all_data_sets(conn243, plain_data_sets):
    params = dict(data_set=plain_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END,
                  org_unit=[dve.ROOT_OU], children=True, id_scheme="UID")
    got = dve.copy_bytes(conn243, "adx", **params)
    root = check_structure(got)
    want = expected_adx(conn243, plain_data_sets, dve.ALL_START, dve.ALL_END, dve.ROOT_OU)
    assert masked(got.decode()) == want
    durations = {g.get("period").split("/")[1] for g in root}
    assert durations == {"P1D", "P7D", "P14D", "P1M", "P2M", "P3M", "P6M", "P1Y"}
    # every one of the 23 period types is in the export (the demo has values of each)
    with conn243.cursor() as cur:
        cur.execute("SELECT count(DISTINCT pe.periodtypeid) FROM datavalue dv JOIN period pe USING (periodid) "
                    "JOIN datasetelement dse USING (dataelementid) JOIN dataset ds USING (datasetid) "
                    "WHERE ds.uid = ANY(%s) AND NOT dv.deleted", (plain_data_sets,))
        assert cur.fetchone()[0] == 23
    # attribute option combos with categories appear on groups
    assert any(len(g.attrib) > 3 and "GLevLNI9wkl" not in g.attrib for g in root)
    # the SELECT path gives the same document
    assert masked(dve.select_text(conn243, "adx", **params)) == want


def test_code_scheme_and_shared_data_elements(conn243):
    # DS_RH and DS_DMS share four data elements: their values appear in both data sets' groups
    data_sets = ["pBOMPrpg1QX", "DZ0JHXT7tf9"]
    params = dict(data_set=["DS_RH", "DS_DMS"], start_date="2024-01-01", end_date="2024-03-31",
                  org_unit=["OU_525"], children=True)
    got = dve.copy_bytes(conn243, "adx", **params)
    root = check_structure(got)
    want = expected_adx(conn243, data_sets, "2024-01-01", "2024-03-31", dve.ROOT_OU, scheme="CODE")
    assert masked(got.decode()) == want
    shared = {dv.get("dataElement") for g in root if g.get("dataSet") == "DS_RH" for dv in g} & \
             {dv.get("dataElement") for g in root if g.get("dataSet") == "DS_DMS" for dv in g}
    assert shared, "a data element of both data sets is exported under both"
    # the query string form, both spellings of the format
    query = ("dataSet=DS_RH&dataSet=DS_DMS&startDate=2024-01-01&endDate=2024-03-31&orgUnit=OU_525&children=true"
             "&format=")
    for fmt in ("adx%2Bxml", "adx"):
        with conn243.cursor() as cur:
            cur.execute("SELECT string_agg(c, '') FROM export_datavalues(%s) c", (query + fmt,))
            assert masked(cur.fetchone()[0]) == want


def test_hostile_strings(db243):
    """Hostile texts (quotes, <>&, CR/LF, C1, non-BMP, 50,000 characters) with the XML-forbidden controls removed."""
    conn = dve.connect(db243)
    conn.autocommit = False
    try:
        with conn.cursor() as cur:
            cur.execute("UPDATE datavalue SET value = regexp_replace(value, '[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f]', "
                        "'', 'g') WHERE value ~ '[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f]'")
            assert cur.rowcount >= 1
        params = dict(data_set=["HostileDSet"], start_date=dve.ALL_START, end_date=dve.ALL_END,
                      org_unit=[dve.ROOT_OU], children=True, id_scheme="UID")
        got = dve.select_text(conn, "adx", **params)
        check_structure(got.encode())
        want = expected_adx(conn, ["HostileDSet"], dve.ALL_START, dve.ALL_END, dve.ROOT_OU)
        assert masked(got) == want
        for needle in ("&lt;/script>", "&amp;amp;", "&#xd;", "\U0001F600"):
            assert needle in got, needle
    finally:
        conn.rollback()
        conn.close()


def test_forbidden_character_is_an_error_never_a_complete_document(conn243):
    params = dict(data_set=["HostileDSet"], start_date=dve.ALL_START, end_date=dve.ALL_END,
                  org_unit=[dve.ROOT_OU], children=True, id_scheme="UID")
    with pytest.raises(psycopg2.Error) as err:
        dve.copy_bytes(conn243, "adx", **params)
    assert err.value.pgcode == "22021"
    assert "cannot be written in XML" in err.value.pgerror


def test_missing_code_is_e8202_before_output(conn243):
    with pytest.raises(psycopg2.Error) as err:
        dve.copy_bytes(conn243, "adx", data_set=["HostileDSet"], period=["202401"], org_unit=[dve.ROOT_OU],
                       children=True)
    assert err.value.pgcode == "22004"
    assert err.value.pgerror.startswith("ERROR:  E820"), err.value.pgerror


@pytest.mark.parametrize("category,code", [("SEX", "value"), ("SEX", "AGE:GROUP"), ("SEX", "xmlns"),
                                           ("FUNDING_PARTNER", "period"), ("FUNDING_PARTNER", "AGE:GROUP")])
def test_a_category_code_an_adx_reader_cannot_take_is_an_error(db243, category, code):
    """A COC category (on <dataValue>) or an AOC category (on <group>) coded so that DHIS2's document
    would not be well-formed, or would leave ADX's namespace: an error before any output."""
    conn = dve.connect(db243)
    conn.autocommit = False
    params = dict(data_set=["pBOMPrpg1QX", "BiNt8IRFnpj"], start_date=dve.DEMO_START, end_date=dve.DEMO_END,
                  org_unit=[dve.ROOT_OU], children=True, category_id_scheme="CODE", org_unit_id_scheme="UID")
    try:
        check_structure(dve.copy_bytes(conn, "adx", **params))  # the request is fine as the demo is
        with conn.cursor() as cur:
            cur.execute("UPDATE category SET code = %s WHERE code = %s", (code, category))
            assert cur.rowcount == 1
        with pytest.raises(psycopg2.Error) as err:
            dve.copy_bytes(conn, "adx", **params)
        assert err.value.pgcode == "22004"
        assert "cannot write the category attributes" in err.value.pgerror
        assert '"%s"' % code in err.value.pgerror, err.value.pgerror
    finally:
        conn.rollback()
        conn.close()


def test_style_242_on_the_242_schema(conn242, plain_data_sets):
    """The 2.42 database has no period.iso: periods come from the type name; no default-combo attributes."""
    params = dict(data_set=plain_data_sets[:3], start_date="2023-01-01", end_date="2024-12-31",
                  org_unit=[dve.ROOT_OU], children=True, id_scheme="UID", style="2.42")
    got = dve.copy_bytes(conn242, "adx", **params)
    check_structure(got)
    want = expected_adx(conn242, plain_data_sets[:3], "2023-01-01", "2024-12-31", dve.ROOT_OU, style="2.42")
    assert masked(got.decode()) == want
    assert 'GLevLNI9wkl="' not in got.decode()


def test_empty_result_and_exported_time(conn243):
    with conn243.cursor() as cur:
        cur.execute("SELECT now() AT TIME ZONE 'UTC'")
        before = cur.fetchone()[0]
    got = dve.copy_bytes(conn243, "adx", data_set=["pBOMPrpg1QX"], period=["199001"], org_unit=[dve.ROOT_OU],
                         id_scheme="UID").decode()
    assert masked(got) == '<adx xmlns="urn:ihe:qrph:adx:2015" exported="X"/>'
    exported = _dt.datetime.strptime(EXPORTED.search(got).group(1), "%Y-%m-%dT%H:%M:%S.%fZ")
    assert abs((exported - before).total_seconds()) < 60
    root = etree.fromstring(got.encode())
    assert root.tag == "{%s}adx" % NS and len(root) == 0


def _plain_request(plain_data_sets):
    return dict(data_set=plain_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END,
                org_unit=[dve.ROOT_OU], children=True, id_scheme="UID")


def test_adx_streams_with_progress_and_cancels(fresh_conn, db243, plain_data_sets):
    """ADX streams like JSON: progress rows while the client holds the backend mid-document, and
    pg_cancel_backend stops it with a visibly incomplete document."""
    request = _plain_request(plain_data_sets)
    full = dve.copy_bytes(fresh_conn, "adx", **request)
    pid = _pid(fresh_conn)
    other = dve.connect(db243)
    seen = []
    try:
        def look():
            seen.append(_poll(other, "SELECT command, tuples_processed, bytes_processed FROM pg_stat_progress_copy "
                                     "WHERE pid = %s", (pid,), lambda row: row is not None and row[1] > 0))

        _copy(fresh_conn, BlockingSink(look), "adx", **request)
        command, tuples, size = seen[-1]
        assert command == "COPY TO" and tuples > 0 and 0 < size < len(full)

        def cancel():
            with other.cursor() as cur:
                cur.execute("SELECT pg_cancel_backend(%s)", (pid,))

        sink = BlockingSink(cancel)
        with pytest.raises(psycopg2.Error) as err:
            _copy(fresh_conn, sink, "adx", **request)
        assert err.value.pgcode == "57014"
        assert 0 < sink.size < len(full)
    finally:
        other.close()
    _usable(fresh_conn)


def test_spilled_runs_give_the_same_groups(fresh_conn, plain_data_sets):
    """With 64 kB sort runs every data set's rows spill and are merged: the same document."""
    request = _plain_request(plain_data_sets)
    whole = masked(dve.copy_bytes(fresh_conn, "adx", **request).decode())
    with fresh_conn.cursor() as cur:
        cur.execute("SET datavalue_export.sort_run_memory = 64; SET log_temp_files = 0; SET client_min_messages = log")
    del fresh_conn.notices[:]
    assert masked(dve.copy_bytes(fresh_conn, "adx", **request).decode()) == whole
    assert any("temporary file" in n for n in fresh_conn.notices), "runs did not spill"
    with fresh_conn.cursor() as cur:
        cur.execute("RESET log_temp_files; RESET client_min_messages")
    # gzip wraps the same bytes
    import gzip
    assert masked(gzip.decompress(dve.copy_bytes(fresh_conn, "adx", compression="gzip", **request)).decode()) == whole
