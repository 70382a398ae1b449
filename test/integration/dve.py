"""
test/integration/dve.py
    Shared helpers of the end-to-end tests: connections, calling the export three ways (COPY,
    plain SELECT, psql \\copy), and an independent Python model of DHIS2's output rules (2.43/2.42
    JSON value objects, javacsv CSV fields, timestamps) applied to rows read with plain SQL.

Nothing here calls the extension's own logic: the expected side is built from the demo tables
with ordinary SQL and the rules of docs/dhis2-export-format.md (§3, §4, §5).
SPDX-License-Identifier: PostgreSQL
"""
import contextlib
import datetime as _dt
import io
import json
import os
import re
import subprocess
import tempfile
import zipfile
from collections import Counter

import psycopg2

ROOT_OU = "ImspTQPwCqd"
DEMO_START = "2023-01-01"  # the demo's 24 main months, 2023-01 .. 2024-12 (demo/metadata.sql)
DEMO_END = "2024-12-31"
ALL_START = "1900-01-01"
ALL_END = "2100-12-31"

CSV_HEADER = ("dataelement,period,orgunit,categoryoptioncombo,attributeoptioncombo,"
              "value,storedby,lastupdated,comment,followup,deleted")


# ---------------------------------------------------------------------------------------------
# connections


def connect(dbname, **kw):
    conn = psycopg2.connect(dbname=dbname, **kw)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("SET timezone = 'UTC'; SET DateStyle = 'ISO, YMD'")
    return conn


def refresh_estimates(conn):
    """Estimate datavalue and organisationunit afresh, as autovacuum would. The planner scales a table's
    pg_class.reltuples by its current pages, so rows that earlier tests inserted and rolled back inflate its
    estimates until then; a test of a choice made on estimates starts from true ones."""
    with conn.cursor() as cur:
        cur.execute("VACUUM ANALYZE datavalue, organisationunit")


# ---------------------------------------------------------------------------------------------
# building calls


@contextlib.contextmanager
def rolled_back(conn):
    """A transaction on conn (in autocommit mode) that is always rolled back."""
    assert conn.autocommit
    with conn.cursor() as cur:
        cur.execute("BEGIN")
    try:
        yield conn
    finally:
        with conn.cursor() as cur:
            cur.execute("ROLLBACK")


def sql_literal(value):
    """A SQL literal for a Python value (standard_conforming_strings is on)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "ARRAY[" + ",".join(sql_literal(v) for v in value) + "]::text[]"
    if isinstance(value, _dt.datetime):
        return "'" + value.isoformat(sep=" ") + "'::timestamp"
    if isinstance(value, _dt.date):
        return "'" + value.isoformat() + "'::date"
    text = str(value)
    if "\x00" in text:
        raise ValueError("NUL in SQL literal")
    return "'" + text.replace("'", "''") + "'"


def call(fmt="json", **params):
    """`export_datavalues_<fmt>("p" => literal, ...)` with named arguments."""
    args = ", ".join('"%s" => %s' % (name, sql_literal(v)) for name, v in params.items())
    return "export_datavalues_%s(%s)" % (fmt, args)


def copy_bytes(conn, fmt="json", copy_options="", **params):
    """The bytes of COPY (SELECT export(...)) TO STDOUT, read with psycopg2 copy_expert."""
    buf = io.BytesIO()
    with conn.cursor() as cur:
        cur.copy_expert("COPY (SELECT %s) TO STDOUT%s" % (call(fmt, **params), copy_options), buf)
    return buf.getvalue()


def break_last_demo_value(cur):
    """The physically last value of the demo export gets an infinite created timestamp (in the
    caller's transaction; DHIS2 never stores one, and the export fails with 22008 on it): in an
    unordered export it comes after several 256 kB messages."""
    cur.execute("""UPDATE datavalue SET created = 'infinity'
                   WHERE ctid = (SELECT max(dv.ctid) FROM datavalue dv
                                 JOIN period pe ON pe.periodid = dv.periodid
                                 WHERE NOT dv.deleted AND pe.startdate >= %s AND pe.enddate <= %s)""",
                (DEMO_START, DEMO_END))
    assert cur.rowcount == 1


def select_text(conn, fmt="json", **params):
    """The concatenation of the text rows of SELECT chunk FROM export(...) AS chunk."""
    with conn.cursor() as cur:
        cur.execute("SELECT chunk FROM %s AS chunk" % call(fmt, **params))
        return "".join(r[0] for r in cur.fetchall())


def select_bytes(conn, fmt="json", **params):
    return select_text(conn, fmt, **params).encode("utf-8")


def single_zip_entry(data):
    """The one entry of a zip as DHIS2 writes it: (name, content, ZipInfo); fails on a bad CRC or another entry."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.testzip() is None
        names = z.namelist()
        assert len(names) == 1, names
        return names[0], z.read(names[0]), z.infolist()[0]


def psql(dbname, *args, env=None, check=True, timeout=120):
    cmd = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dbname] + list(args)
    e = dict(os.environ)
    e.setdefault("PGTZ", "UTC")
    if env:
        e.update(env)
    proc = subprocess.run(cmd, capture_output=True, env=e, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError("psql failed (%d): %s" % (proc.returncode, proc.stderr.decode(errors="replace")))
    return proc


def psql_copy(dbname, fmt="json", **params):
    """(bytes written by psql \\copy (...) TO 'file', psql's stdout) — run as a subprocess."""
    with tempfile.TemporaryDirectory(prefix="dve_it_") as tmp:
        path = os.path.join(tmp, "out")
        # psql's \copy is a one-line meta-command; the call has no newlines.
        command = "\\copy (SELECT %s) TO '%s'" % (call(fmt, **params), path)
        proc = psql(dbname, "-c", command)
        with open(path, "rb") as f:
            return f.read(), proc.stdout.decode()


# ---------------------------------------------------------------------------------------------
# the independent SQL side

# The six-way join of docs §3.2 with plain SQL filters (§2.2 semantics); placeholders are
# psycopg2 %(name)s parameters. Timestamps are read as text so that every digit of the stored
# microseconds reaches Python (the truncation to ms is done here, not in SQL).
REFERENCE_SELECT = """
SELECT de.uid AS de, {iso} AS pe, ou.uid AS ou, coc.uid AS coc, aoc.uid AS aoc,
       dv.value, dv.storedby, dv.created::text AS created, dv.lastupdated::text AS lastupdated,
       dv.comment, dv.followup, dv.deleted,
       pe.startdate, pe.enddate, dv.created AS created_ts, ou.path, pe.periodid
FROM datavalue dv
JOIN dataelement de ON de.dataelementid = dv.dataelementid
JOIN period pe ON pe.periodid = dv.periodid
JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid
JOIN categoryoptioncombo coc ON coc.categoryoptioncomboid = dv.categoryoptioncomboid
JOIN categoryoptioncombo aoc ON aoc.categoryoptioncomboid = dv.attributeoptioncomboid
"""

FIELDS = ("de", "pe", "ou", "coc", "aoc", "value", "storedby", "created", "lastupdated",
          "comment", "followup", "deleted", "startdate", "enddate", "created_ts", "path", "periodid")


class Ref(dict):
    """One reference row (attribute access for readability)."""
    __getattr__ = dict.__getitem__


def reference_rows(conn, where, params=None, order=None, iso_expr="pe.iso"):
    sql = REFERENCE_SELECT.format(iso=iso_expr) + "WHERE " + " AND ".join(where)
    if order:
        sql += " ORDER BY " + order
    with conn.cursor() as cur:
        cur.execute(sql, params or {})
        return [Ref(zip(FIELDS, r)) for r in cur.fetchall()]


def standard_where(data_sets=True, start=None, end=None, root=None, children=True, include_deleted=False):
    """WHERE clauses for the common request shape (see the callers for the parameters)."""
    where = []
    if data_sets:
        where.append("de.dataelementid IN (SELECT dse.dataelementid FROM datasetelement dse "
                     "JOIN dataset ds ON ds.datasetid = dse.datasetid WHERE ds.uid = ANY(%(ds)s))")
    if start is not None:
        where.append("pe.startdate >= %(start)s::date AND pe.enddate <= %(end)s::date")
    if root is not None:
        if children:
            where.append("ou.path LIKE (SELECT r.path FROM organisationunit r WHERE r.uid = %(root)s) || '%%'")
        else:
            where.append("ou.uid = %(root)s")
    if not include_deleted:
        where.append("dv.deleted = false")
    return where


_TS = re.compile(r"^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$")


def dhis2_timestamp(text):
    """`yyyy-MM-ddTHH:mm:ss.SSS+0000` from PostgreSQL's ISO text of a timestamp, ms truncated."""
    m = _TS.match(text)
    assert m, "unexpected timestamp text %r" % text
    year, month, day, hh, mm, ss, frac = m.groups()
    ms = int(((frac or "") + "000000")[:6]) // 1000  # truncation, not rounding
    return "%s-%s-%sT%s:%s:%s.%03d+0000" % (year.zfill(4), month, day, hh, mm, ss, ms)


def expected_json_243(row):
    """The 2.43 value object (§4.2) as an ordered list of (key, value), all keys present."""
    out = [("dataElement", row.de), ("period", row.pe), ("orgUnit", row.ou),
           ("categoryOptionCombo", row.coc), ("attributeOptionCombo", row.aoc)]
    if row.value is not None:
        out.append(("value", row.value))
    if row.storedby not in (None, ""):
        out.append(("storedBy", row.storedby))
    out.append(("created", dhis2_timestamp(row.created)))
    out.append(("lastUpdated", dhis2_timestamp(row.lastupdated)))
    if row.comment not in (None, ""):
        out.append(("comment", row.comment))
    if row.followup is not None:
        out.append(("followup", bool(row.followup)))
    if row.deleted:
        out.append(("deleted", True))
    return out


def expected_json_242(row):
    """The 2.42 value object (§4.1): every string key present, nulls as null, followup NULL -> false."""
    out = [("dataElement", row.de), ("period", row.pe), ("orgUnit", row.ou),
           ("categoryOptionCombo", row.coc), ("attributeOptionCombo", row.aoc),
           ("value", row.value), ("storedBy", row.storedby),
           ("created", dhis2_timestamp(row.created)), ("lastUpdated", dhis2_timestamp(row.lastupdated)),
           ("comment", row.comment), ("followup", bool(row.followup))]
    if row.deleted:
        out.append(("deleted", True))
    return out


def parse_json_pairs(data):
    """json.loads keeping every object as a list of (key, value) pairs (key order is checked)."""
    return json.loads(data, object_pairs_hook=lambda pairs: pairs)


def _jackson_string(text, surrogate_escapes):
    """A JSON string as Jackson writes it (docs §4.1): short escapes for " \\ \\b \\t \\n \\f \\r, other
    characters below U+0020 as \\u00XX (uppercase hex), the rest raw, except that with
    surrogate_escapes (DHIS2 2.42's UTF8JsonGenerator) a character outside the BMP is written as
    its two UTF-16 surrogates, each escaped with uppercase hex."""
    short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
    out = ['"']
    for ch in text:
        cp = ord(ch)
        if ch in short:
            out.append(short[ch])
        elif cp < 0x20:
            out.append("\\u%04X" % cp)
        elif cp > 0xFFFF and surrogate_escapes:
            v = cp - 0x10000
            out.append("\\u%04X\\u%04X" % (0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def jackson_bytes(doc_pairs, surrogate_escapes):
    """The bytes of a document parsed by parse_json_pairs, serialised again by the rules of
    _jackson_string with no whitespace: what DHIS2 writes for that content."""
    def render(node):
        if isinstance(node, list) and all(isinstance(p, tuple) and len(p) == 2 for p in node) and node:
            return "{" + ",".join(_jackson_string(k, surrogate_escapes) + ":" + render(v) for k, v in node) + "}"
        if isinstance(node, list):
            return "[" + ",".join(render(v) for v in node) + "]"
        if node is None:
            return "null"
        if node is True:
            return "true"
        if node is False:
            return "false"
        if isinstance(node, str):
            return _jackson_string(node, surrogate_escapes)
        raise TypeError("unexpected JSON node %r" % (node,))
    return render(doc_pairs).encode("utf-8")


def data_values(doc_pairs):
    """The dataValues array of a document parsed by parse_json_pairs."""
    top = dict(doc_pairs)
    assert "dataValues" in top, "no dataValues in %r" % [k for k, _ in doc_pairs]
    return top["dataValues"]


def freeze(pairs):
    return tuple((k, v) for k, v in pairs)


# ---------------------------------------------------------------------------------------------
# javacsv 2.0 CsvWriter (docs §5.2)


def java_trim(s):
    """Java String.trim(): strip characters <= U+0020 at both ends."""
    start, end = 0, len(s)
    while start < end and s[start] <= " ":
        start += 1
    while end > start and s[end - 1] <= " ":
        end -= 1
    return s[start:end]


def javacsv_field(value, first):
    s = java_trim("" if value is None else value)
    if ('"' in s or "," in s or "\n" in s or "\r" in s
            or (first and (s == "" or s.startswith("#")))):
        return '"' + s.replace('"', '""') + '"'
    return s


def javacsv_record(fields):
    return ",".join(javacsv_field(f, i == 0) for i, f in enumerate(fields)) + "\n"


def expected_csv_fields(row, style="2.43"):
    """The 11 CSV fields of a row before javacsv trimming/quoting (§5.1)."""
    if style == "2.43":
        followup = "" if row.followup is None else ("true" if row.followup else "false")
        deleted = "true" if row.deleted else "false"
    else:
        followup = "true" if row.followup else "false"
        deleted = "true" if row.deleted else "null"
    return [row.de, row.pe, row.ou, row.coc, row.aoc, row.value, row.storedby,
            dhis2_timestamp(row.lastupdated), row.comment, followup, deleted]


def parse_csv(text):
    import csv
    return list(csv.reader(io.StringIO(text, newline="")))


def multiset(items):
    return Counter(items)


def diff_multisets(got, want, limit=5):
    """A short human-readable description of the difference of two Counters."""
    missing = list((want - got).elements())[:limit]
    extra = list((got - want).elements())[:limit]
    return "missing (expected, not exported) %d, e.g. %r; extra (exported, not expected) %d, e.g. %r" % (
        sum((want - got).values()), missing, sum((got - want).values()), extra)
