"""
test/integration/test_copy_detection.py
    When may the export write raw CopyData? Only when its document IS the COPY's output:
    `COPY (SELECT export(...)) TO STDOUT` or `COPY (SELECT * FROM export(...) c) TO STDOUT`.
    When the call is only part of the COPY's query (an aggregate over the chunks, a UNION with
    other rows, an expression, a function that runs the export internally), the COPY's rows are
    something else, and src/pg/sink.cpp promises "anything but a plain COPY of a query
    to the client either falls back to result rows or is a clear error" (and pg-techniques §6:
    "keep the detection strict, with an ERROR fallback").

    BUG (reported to the lead): these tests fail at the time of writing. Detection only checks
    that the active portal is a COPY, so the document is streamed raw into the COPY and then
    PostgreSQL's own COPY rows follow it, e.g. COPY (SELECT count(*) FROM export(...) c) gives
    `{...}]}0\\n`, and COPY (SELECT f()) where f() runs the export inside PL/pgSQL gives the
    document followed by `\\N\\n` (f saw no rows). Kept failing on purpose: do not weaken.
SPDX-License-Identifier: PostgreSQL
"""
import io

import psycopg2
import pytest

import dve

SMALL = dict(data_element=["Hostile0001", "Hostile0029"], period=["202401"], org_unit=["DiszpKrYNg8"])


def _copy_text(value):
    """One value in COPY's text format (PostgreSQL CopyAttributeOutText)."""
    if value is None:
        return "\\N"
    out = []
    for ch in str(value):
        out.append({"\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                    "\v": "\\v"}.get(ch, ch))
    return "".join(out)


def _native_copy_of(conn, query):
    """What COPY (query) TO STDOUT must give: the plain query's rows in COPY text format."""
    with conn.cursor() as cur:
        cur.execute(query)
        rows = cur.fetchall()
    return "".join("\t".join(_copy_text(v) for v in row) + "\n" for row in rows).encode("utf-8")


def _copy_or_error(conn, query):
    buf = io.BytesIO()
    try:
        with conn.cursor() as cur:
            cur.copy_expert("COPY (%s) TO STDOUT" % query, buf)
    except psycopg2.Error as e:
        return None, e
    return buf.getvalue(), None


def test_bare_forms_stream_the_document(conn243):
    doc = dve.select_bytes(conn243, "json", **SMALL)
    f = dve.call("json", **SMALL)
    for query in ("SELECT %s" % f, "SELECT * FROM %s c" % f, "SELECT c FROM %s AS c" % f):
        got, err = _copy_or_error(conn243, query)
        assert err is None, err
        assert got == doc


def test_near_bare_forms_stream_the_document(fresh_conn):
    """A text cast, a qualified star or column, a column alias: the rows are the function's, unchanged, so the
    document streams (they gave the chunks COPY-escaped, with a line break after each, on the build before)."""
    doc = dve.select_bytes(fresh_conn, "json", **SMALL)
    assert b"\\" in doc  # the hostile values hold backslashes, which COPY's text rows would double
    f = dve.call("json", **SMALL)
    for query in ("SELECT %s::text" % f, "SELECT %s::pg_catalog.text" % f, "SELECT t.* FROM %s t" % f,
                  "SELECT t.t FROM %s t" % f, "SELECT doc FROM %s AS t(doc)" % f,
                  "SELECT t.doc::text FROM %s AS t(doc)" % f):
        del fresh_conn.notices[:]
        got, err = _copy_or_error(fresh_conn, query)
        assert err is None, err
        assert got == doc, query
        assert not fresh_conn.notices, (query, fresh_conn.notices)


def test_a_later_copy_in_the_same_function_body_is_not_refused(fresh_conn):
    """The library is loaded (preloaded here): a SQL function whose body reads an export and then COPYs one runs
    both. The guard against a COPY the hook could not see looks at the whole body's text, and once refused the
    first statement for the COPY in the second."""
    f = dve.call("json", **SMALL)
    with fresh_conn.cursor() as cur:
        cur.execute("CREATE FUNCTION pg_temp.dve_it_two() RETURNS void LANGUAGE sql AS $$ "
                    "SELECT count(*) FROM %s; COPY (SELECT %s) TO '/dev/null' $$" % (f, f))
        cur.execute("SELECT pg_temp.dve_it_two()")
        cur.fetchall()


def test_rows_into_copy_warn(fresh_conn):
    """An export whose rows reach a COPY some other way (a wrapper function, an expression) is COPY-escaped: the
    export warns, naming the bare call, since such a file may still parse and differ from the document."""
    f = dve.call("json", **SMALL)
    with fresh_conn.cursor() as cur:
        cur.execute("CREATE FUNCTION pg_temp.dve_it_wrapper() RETURNS SETOF text LANGUAGE sql SECURITY DEFINER "
                    "SET search_path = public, pg_catalog AS $$ SELECT * FROM %s $$" % f)
    for query in ("SELECT * FROM pg_temp.dve_it_wrapper()", "SELECT upper(c) FROM %s c" % f):
        del fresh_conn.notices[:]
        got, err = _copy_or_error(fresh_conn, query)
        assert err is None, err
        assert got == _native_copy_of(fresh_conn, query)
        warnings = [n for n in fresh_conn.notices if n.startswith("WARNING:")]
        assert len(warnings) == 1 and "is not the bare call of this COPY" in warnings[0], fresh_conn.notices
    # A plain SELECT of the same rows is not a COPY: no warning.
    del fresh_conn.notices[:]
    with fresh_conn.cursor() as cur:
        cur.execute("SELECT * FROM pg_temp.dve_it_wrapper()")
        cur.fetchall()
    assert not fresh_conn.notices


WRAPPERS = {
    "aggregate-count": "SELECT count(*) FROM {f} c",
    "aggregate-length": "SELECT sum(octet_length(c)) FROM {f} c",
    "union-with-rows": "SELECT 'before' UNION ALL SELECT * FROM {f} c UNION ALL SELECT 'after'",
    "expression": "SELECT upper(c) FROM {f} c",
    "two-exports": "SELECT * FROM {f} c UNION ALL SELECT * FROM {g} d",
}


@pytest.mark.parametrize("name", list(WRAPPERS))
def test_export_inside_a_larger_copy_query(fresh_conn, name):
    """BUG (reported): fails while the export streams raw CopyData into any COPY."""
    query = WRAPPERS[name].format(f=dve.call("json", **SMALL), g=dve.call("csv", **SMALL))
    expected = _native_copy_of(fresh_conn, query)
    got, err = _copy_or_error(fresh_conn, query)
    if err is not None:  # a clear error is acceptable
        assert err.pgcode == "0A000", err.pgerror
        return
    assert got == expected, "COPY (%s) gave %r..., the query's rows are %r" % (name, got[:80], expected[:80])


def test_export_inside_a_function_called_by_copy(fresh_conn):
    """BUG (reported): a function that reads an export, called from a COPY, must see the rows."""
    with fresh_conn.cursor() as cur:
        cur.execute("CREATE FUNCTION pg_temp.dve_it_export_length() RETURNS bigint LANGUAGE plpgsql AS $$ "
                    "DECLARE n bigint; BEGIN SELECT sum(octet_length(chunk)) INTO n FROM %s AS chunk; RETURN n; END $$"
                    % dve.call("json", **SMALL))
    query = "SELECT pg_temp.dve_it_export_length()"
    expected = _native_copy_of(fresh_conn, query)
    assert expected == b"%d\n" % len(dve.select_bytes(fresh_conn, "json", **SMALL))
    got, err = _copy_or_error(fresh_conn, query)
    if err is not None:
        assert err.pgcode == "0A000", err.pgerror
        return
    assert got == expected, "COPY (SELECT f()) gave %r..., expected %r" % (got[:80], expected)
