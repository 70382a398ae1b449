"""
test/integration/test_csv.py
    CSV export (docs §5): header, line ends, javacsv trimming and quoting, followup/deleted per
    style, against an independent SQL reading of the demo tables.
SPDX-License-Identifier: PostgreSQL
"""
import pytest

import dve


@pytest.fixture(scope="module")
def csv_reference(conn243, all_data_sets):
    where = dve.standard_where(start=True, root=True, include_deleted=True)
    params = dict(ds=all_data_sets, start=dve.DEMO_START, end=dve.DEMO_END, root=dve.ROOT_OU)
    return dve.reference_rows(conn243, where, params, order="pe.startdate, pe.enddate, dv.created, de.uid")


def _export(conn, style, demo_request):
    return dve.copy_bytes(conn, "csv", style=style, include_deleted=True, **demo_request)


@pytest.mark.parametrize("style", ["2.43", "2.42"])
def test_csv_header_and_line_ends(conn243, demo_request, style):
    raw = _export(conn243, style, demo_request)
    assert raw.startswith((dve.CSV_HEADER + "\n").encode())
    assert raw.endswith(b"\n")
    assert not raw.startswith(b"\xef\xbb\xbf")
    # every CR in the document is data inside a quoted field, never a record end
    for record in dve.parse_csv(raw.decode("utf-8"))[1:]:
        assert len(record) == 11, record


@pytest.mark.parametrize("style", ["2.43", "2.42"])
def test_csv_rows_match_sql(conn243, demo_request, csv_reference, style):
    text = _export(conn243, style, demo_request).decode("utf-8")
    rows = dve.parse_csv(text)
    assert rows[0] == dve.CSV_HEADER.split(",")
    got = dve.multiset(tuple(r) for r in rows[1:])
    want = dve.multiset(tuple(dve.java_trim(f or "") for f in dve.expected_csv_fields(r, style))
                        for r in csv_reference)
    assert len(rows) - 1 == len(csv_reference)
    assert got == want, dve.diff_multisets(got, want)


@pytest.mark.parametrize("style", ["2.43", "2.42"])
def test_csv_bytes_follow_javacsv_quoting(conn243, demo_request, style):
    """Re-writing every parsed record with javacsv's rules reproduces the document byte for byte."""
    text = _export(conn243, style, demo_request).decode("utf-8")
    rows = dve.parse_csv(text)
    rebuilt = "".join(dve.javacsv_record(r) for r in rows)
    if rebuilt != text:
        at = next(i for i, (a, b) in enumerate(zip(rebuilt, text)) if a != b) if len(rebuilt) == len(text) else None
        pytest.fail("CSV quoting differs from javacsv (first difference at char %r): exported %r, javacsv %r" % (
            at, text[max(0, (at or 0) - 80):(at or 0) + 80], rebuilt[max(0, (at or 0) - 80):(at or 0) + 80]))


@pytest.mark.parametrize("style", ["2.43", "2.42"])
def test_csv_hostile_records_exact(conn243, style):
    """The hostile rows, record by record, against javacsv applied in Python to the SQL values."""
    where = dve.standard_where(start=True, root=True, include_deleted=True)
    params = dict(ds=["HostileDSet"], start=dve.ALL_START, end=dve.ALL_END, root=dve.ROOT_OU)
    reference = dve.reference_rows(conn243, where, params)
    raw = dve.copy_bytes(conn243, "csv", style=style, data_set=["HostileDSet"], start_date=dve.ALL_START,
                         end_date=dve.ALL_END, org_unit=[dve.ROOT_OU], children=True, include_deleted=True)
    text = raw.decode("utf-8")
    body = text[len(dve.CSV_HEADER) + 1:]
    want = dve.multiset(dve.javacsv_record(dve.expected_csv_fields(r, style)) for r in reference)
    # split the body into records with the csv module, then re-serialise each (quoting proven above)
    got = dve.multiset(dve.javacsv_record(r) for r in dve.parse_csv(body))
    assert got == want, dve.diff_multisets(got, want)
    assert sum(len(dve.javacsv_record(r)) for r in dve.parse_csv(body)) == len(body)
    # spot checks of §5.2 examples on the demo's hostile cases
    assert '"Line1\nLine2 ""q"", x"' in text                      # case 29, the doc's example
    assert ',value with tabs,admin,' in text and ',tab,false,' in text  # case 15: trimmed tabs
    assert ',1,234,567,' not in text and ',"1,234,567",' in text    # case 17: comma quoted
    assert ',abc,' in text                                          # case 28: \x01abc trimmed to abc


def test_csv_followup_and_deleted_2_43(conn243):
    raw = dve.copy_bytes(conn243, "csv", data_element=["Hostile0024", "Hostile0025"], start_date=dve.DEMO_START,
                         end_date=dve.DEMO_END, org_unit=[dve.ROOT_OU], children=True, include_deleted=True)
    rows = {(r[0], r[1]): r for r in dve.parse_csv(raw.decode())[1:]}
    assert rows[("Hostile0024", "202401")][9:] == ["true", "false"]
    assert rows[("Hostile0024", "202402")][9:] == ["false", "false"]
    assert rows[("Hostile0024", "202403")][9:] == ["", "false"]      # followup NULL -> empty
    assert rows[("Hostile0025", "202401")][9:] == ["false", "true"]
    assert rows[("Hostile0025", "202403")][9:] == ["", "true"]


def test_csv_followup_and_deleted_2_42(conn243):
    raw = dve.copy_bytes(conn243, "csv", style="2.42", data_element=["Hostile0024", "Hostile0025"],
                         start_date=dve.DEMO_START, end_date=dve.DEMO_END, org_unit=[dve.ROOT_OU], children=True,
                         include_deleted=True)
    rows = {(r[0], r[1]): r for r in dve.parse_csv(raw.decode())[1:]}
    assert rows[("Hostile0024", "202401")][9:] == ["true", "null"]
    assert rows[("Hostile0024", "202402")][9:] == ["false", "null"]
    assert rows[("Hostile0024", "202403")][9:] == ["false", "null"]  # followup NULL -> false
    assert rows[("Hostile0025", "202401")][9:] == ["false", "true"]
    assert rows[("Hostile0025", "202403")][9:] == ["false", "true"]


def test_csv_empty_result_is_the_header_line(conn243):
    raw = dve.copy_bytes(conn243, "csv", data_set=["pBOMPrpg1QX"], period=["199901"], org_unit=[dve.ROOT_OU])
    assert raw == (dve.CSV_HEADER + "\n").encode()


PROFILE_PASS = "one pass over the values decides the header and checks their identifiers"
FIRST_VALUES = "the first values decide the header"


def _header_reads(conn, fmt, **params):
    """The document, how many times the export read every value first to decide its header or check ids, and how
    many times it looked at its first values instead."""
    del conn.notices[:]
    doc = dve.copy_bytes(conn, fmt, **params)
    with conn.cursor() as cur:
        cur.execute("SELECT 1")  # psycopg2 collects the notices of a COPY at the next statement
    return doc, sum(PROFILE_PASS in n for n in conn.notices), sum(FIRST_VALUES in n for n in conn.notices)


def _profile_passes(conn, fmt, **params):
    """The document and how many times the export read its values first to decide its header or check ids."""
    doc, passes, _ = _header_reads(conn, fmt, **params)
    return doc, passes


def _rows_read(cur):
    """Rows this transaction has read from datavalue so far (its own statistics: a count, whatever the machine)."""
    cur.execute("SELECT pg_stat_get_xact_tuples_returned('datavalue'::regclass)"
                " + pg_stat_get_xact_tuples_fetched('datavalue'::regclass)")
    return cur.fetchone()[0]


def test_a_csv_export_under_a_name_scheme_reads_its_values_once(explained, demo_request):
    """Under a non-UID scheme DHIS2 2.43 hoists a shared org unit into the header, so an export read its values
    first to decide it. CSV has no header, and needs that pass only to refuse an object without its identifier
    (E8201-E8204): a 1M CSV export under org unit names took 0.31 s with it and 0.24 s without."""
    names = dict(demo_request, org_unit_id_scheme="name")
    csv_doc, csv_passes, csv_looks = _header_reads(explained, "csv", **names)
    _, unordered_json_passes, unordered_json_looks = _header_reads(explained, "json", order="none", **names)
    assert (csv_passes, csv_looks) == (0, 0)
    assert (unordered_json_passes, unordered_json_looks) == (0, 1)
    with explained.cursor() as cur:
        cur.execute("SELECT count(DISTINCT name) FROM organisationunit")
        names_in_db = cur.fetchone()[0]
    rows = dve.parse_csv(csv_doc.decode())[1:]
    assert len(rows) > 1000 and 1 < len({r[2] for r in rows}) <= names_in_db
    # an org unit without a code still fails the export before any row, through that pass
    with pytest.raises(Exception) as failed:
        dve.copy_bytes(explained, "csv", **dict(demo_request, org_unit_id_scheme="code"))
    assert "E8202" in str(failed.value)


# A hospital whose subtree is itself (every value shares its org unit), and one value of it under an AOC.
HOISTED = [dict(org_unit=["JPL7HX7nUay"], children=True, org_unit_id_scheme="name"),
           dict(data_element=["IzFISGcY25y"], period=["202410"], org_unit=["JPL7HX7nUay"], children=True,
                attribute_option_combo_id_scheme="name"),
           dict(org_unit=[dve.ROOT_OU], children=True, org_unit_id_scheme="name"),
           dict(org_unit=[dve.ROOT_OU], children=True, period=["203001"], org_unit_id_scheme="name")]


def _header_and_values(doc, fmt):
    """The document's start before its first value, and its values' bytes, sorted (orders differ)."""
    if fmt == "json":
        head, rest = doc.split(b'"dataValues":[{', 1)
        return head, sorted(rest[:rest.rindex(b"}]")].split(b"},{"))
    head, rest = doc.split(b"<dataValue ", 1)
    return head, sorted(rest[:rest.rindex(b"</dataValueSet>")].split(b"<dataValue "))


@pytest.mark.parametrize("fmt", ["json", "xml"])
@pytest.mark.parametrize("extra", HOISTED, ids=["one-org-unit", "one-value", "many-org-units", "no-value"])
def test_an_ordered_export_decides_its_header_from_its_sorted_rows(explained, all_data_sets, fmt, extra):
    """An ordered export reads every row before its first byte, so its rows decide the hoisting (the org unit all
    values share, the AOC of a one-value result) without a pass over the values first: a whole export from its
    sorted runs, a page too long to keep in memory the same way, a short page from its own rows. The header is
    the one the unordered export of the same values decides from its first values."""
    request = dict(extra) if "data_element" in extra else dict(data_set=all_data_sets, **extra)
    if "period" not in extra:
        request.update(start_date=dve.ALL_START, end_date=dve.ALL_END)
    whole, whole_passes = _profile_passes(explained, fmt, **request)
    long_page, long_page_passes = _profile_passes(explained, fmt, limit=10_000_000, **request)
    short_page, short_page_passes = _profile_passes(explained, fmt, limit=1000, **request)
    unordered, unordered_passes, unordered_looks = _header_reads(explained, fmt, order="none", **request)
    nothing_can_match = extra is HOISTED[3]  # no such period: no look either way
    assert (whole_passes, long_page_passes, short_page_passes, unordered_passes) == (0, 0, 0, 0)
    assert unordered_looks == (0 if nothing_can_match else 1)
    assert whole == long_page
    if b"<dataValue " in whole or b'"dataValues":[{' in whole:
        assert _header_and_values(whole, fmt) == _header_and_values(unordered, fmt)
        if extra is not HOISTED[2]:  # fewer than 1,000 values: the short page is all of them
            assert short_page == whole
    else:
        assert whole == unordered == short_page
    header = whole.split(b'"dataValues"' if fmt == "json" else b"<dataValue ", 1)[0]
    if extra is HOISTED[0]:
        assert b"Setiko Hospital" in header
    if extra is HOISTED[1]:
        assert b"Government" in header and whole.count(b"IzFISGcY25y") == 1


def test_an_unordered_export_under_a_name_scheme_reads_its_values_once(explained, demo_request):
    """An unordered JSON export under org unit names decides its header from its first values: the values of many
    org units share none, and the first two values show it. It read every value twice before (an aggregate pass,
    then the export): 0.25 s against 0.19 s for a 1M CSV. The rows read beyond those of the same export under UIDs
    stay under 1% of its values."""
    def rows_read(conn, **scheme):
        with conn.cursor() as cur:
            before = _rows_read(cur)
            doc, passes, looks = _header_reads(conn, "json", order="none", **scheme, **demo_request)
            return _rows_read(cur) - before, doc, passes + looks

    with dve.rolled_back(explained) as conn:
        under_uids, uid_doc, uid_reads = rows_read(conn)
        under_names, name_doc, name_reads = rows_read(conn, org_unit_id_scheme="name")
    values = uid_doc.count(b'"dataElement"')
    assert values > 10_000 and name_doc.count(b'"dataElement"') == values
    assert (uid_reads, name_reads) == (0, 1)
    assert b'"orgUnit"' not in name_doc.split(b'"dataValues"', 1)[0]
    assert 0 <= under_names - under_uids < values // 100


def _move_to_heap_end(cur, element, period, org_units):
    """Rewrites the undeleted values of one data element and period in the given org units at the end of the heap,
    ordered by org unit (in this transaction): a scan of the heap or of the primary key meets them in that order."""
    where = cur.mogrify("dataelementid = %s AND periodid = %s AND sourceid = ANY(%s) AND NOT deleted",
                        (element, period, list(org_units))).decode()
    cur.execute("CREATE TEMP TABLE moved ON COMMIT DROP AS SELECT * FROM datavalue WHERE " + where)
    cur.execute("DELETE FROM datavalue WHERE " + where)
    cur.execute("INSERT INTO datavalue SELECT * FROM moved ORDER BY sourceid, categoryoptioncomboid, "
                "attributeoptioncomboid")
    cur.execute("SELECT sourceid FROM datavalue WHERE " + where + " LIMIT 2")
    return [r[0] for r in cur.fetchall()]


@pytest.mark.parametrize("fmt", ["json", "xml"])
def test_an_unordered_header_looks_past_two_values_of_one_org_unit(explained, fmt):
    """The first two values of an unordered export share an org unit and a later one has another: the header
    hoists no org unit (a second look finds the other). With the later one's org unit left out of the request, the
    header hoists the first: beside an org unit without values (the second look finds none), or alone (no second
    look). Each time it is the header the ordered export decides from its sorted rows."""
    with dve.rolled_back(explained) as conn, conn.cursor() as cur:
        # two values of one org unit, and one of a later org unit, for one data element and period
        cur.execute("""SELECT dv.dataelementid, dv.periodid, dv.sourceid, pg_catalog.min(other.sourceid)
                       FROM datavalue dv JOIN datavalue other ON other.dataelementid = dv.dataelementid
                        AND other.periodid = dv.periodid AND other.sourceid > dv.sourceid AND NOT other.deleted
                       WHERE NOT dv.deleted GROUP BY 1, 2, 3 HAVING count(DISTINCT dv.categoryoptioncomboid) >= 2
                       ORDER BY 1, 2, 3 LIMIT 1""")
        element, period, first, later = cur.fetchone()
        assert _move_to_heap_end(cur, element, period, [first, later]) == [first, first]
        cur.execute("SELECT uid FROM dataelement WHERE dataelementid = %s", (element,))
        element_uid = cur.fetchone()[0]
        cur.execute("SELECT iso FROM period WHERE periodid = %s", (period,))
        period_iso = cur.fetchone()[0]
        cur.execute("SELECT uid, name FROM organisationunit WHERE organisationunitid = ANY(%s) "
                    "ORDER BY organisationunitid", ([first, later],))
        (first_uid, first_name), (later_uid, later_name) = cur.fetchall()
        cur.execute("""SELECT o.uid FROM organisationunit o WHERE NOT EXISTS (SELECT 1 FROM datavalue dv
                        WHERE dv.dataelementid = %s AND dv.periodid = %s AND dv.sourceid = o.organisationunitid)
                       ORDER BY o.organisationunitid LIMIT 1""", (element, period))
        idle_uid = cur.fetchone()[0]

        for org_units, hoisted in (([first_uid, later_uid], None), ([first_uid, idle_uid], first_name),
                                   ([first_uid], first_name)):
            request = dict(data_element=[element_uid], period=[period_iso], org_unit=org_units,
                           org_unit_id_scheme="name")
            unordered, passes, looks = _header_reads(conn, fmt, order="none", **request)
            ordered = dve.copy_bytes(conn, fmt, **request)
            assert (passes, looks) == (0, 1)
            head, values = _header_and_values(unordered, fmt)
            assert (head, values) == _header_and_values(ordered, fmt)
            assert len(values) >= (3 if hoisted is None else 2)
            org_unit_in_head = (b'"orgUnit":' if fmt == "json" else b' orgUnit="') in head
            assert org_unit_in_head == (hoisted is not None)
            if hoisted is not None:
                assert hoisted.encode() in head
            else:
                assert all(name.encode() in unordered for name in (first_name, later_name))


def test_a_page_under_a_name_scheme_reads_no_more_rows_than_under_uids(explained, demo_request):
    """A page kept in memory decides its header from its own rows, so it no longer reads every value first to
    decide it: a first page reads the rows it reads under UIDs (on a large table, its first periods' rows through
    the primary key). Rows read from datavalue are this transaction's own statistics, so the check is a count,
    whatever the machine."""
    def rows_read(conn, **scheme):
        with conn.cursor() as cur:
            cur.execute("SELECT pg_stat_get_xact_tuples_returned('datavalue'::regclass)"
                        " + pg_stat_get_xact_tuples_fetched('datavalue'::regclass)")
            before = cur.fetchone()[0]
            page, passes = _profile_passes(conn, "json", limit=50, **scheme, **demo_request)
            cur.execute("SELECT pg_stat_get_xact_tuples_returned('datavalue'::regclass)"
                        " + pg_stat_get_xact_tuples_fetched('datavalue'::regclass)")
            assert passes == 0 and page.count(b'"dataElement"') == 50
            return cur.fetchone()[0] - before

    with dve.rolled_back(explained) as conn:
        under_uids = rows_read(conn)
        under_names = rows_read(conn, org_unit_id_scheme="name")
    assert under_uids > 0 and under_names == under_uids
