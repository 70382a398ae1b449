"""
test/integration/test_server_versions.py
    What differs between the PostgreSQL majors the extension supports, checked on whichever server
    the suite runs against (test/matrix.sh runs it on 15, 17 and 18): each test asserts the
    behaviour of that major, so the version guards of src/pg/compat.hpp and the documented
    differences are exercised instead of skipped.

- pg_stat_progress_copy: the columns of 14-16, plus tuples_skipped from 17 (COPY FROM ON_ERROR);
  an export's row is a COPY TO of a query to the client, with nothing excluded or skipped.
- PG_MODULE_MAGIC_EXT (18+): the loaded library names itself and its version in
  pg_get_loaded_modules(); before 18 that function does not exist.
- MarkGUCPrefixReserved (15+): an unknown datavalue_export.* setting is an error once the library
  is loaded (14 only warns).
The COPY command tag (`COPY n`, library preloaded) is the same on every major; test_copy_identity
pins it.
SPDX-License-Identifier: PostgreSQL
"""
import os
import re
import time

import psycopg2
import pytest

import dve

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

PROGRESS_COPY_COLUMNS_14 = ["pid", "datid", "datname", "relid", "command", "type", "bytes_processed", "bytes_total",
                            "tuples_processed", "tuples_excluded"]


def _server_version_num(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT current_setting('server_version_num')::int")
        return cur.fetchone()[0]


def _extversion():
    """The version the library is built with: default_version of the control file (its one source)."""
    with open(os.path.join(REPO, "datavalue_export.control")) as f:
        return re.search(r"^default_version = '([^']+)'$", f.read(), re.M).group(1)


def test_progress_copy_columns_of_this_major(conn243):
    with conn243.cursor() as cur:
        cur.execute("SELECT attname FROM pg_attribute WHERE attrelid = 'pg_stat_progress_copy'::regclass "
                    "AND attnum > 0 ORDER BY attnum")
        columns = [r[0] for r in cur.fetchall()]
    want = PROGRESS_COPY_COLUMNS_14 + (["tuples_skipped"] if _server_version_num(conn243) >= 170000 else [])
    assert columns == want


def test_progress_row_of_an_export(fresh_conn, db243, demo_request):
    """The whole progress row, read while the export is held in a client write (as in
    test_cancel_progress): every column of this major has the value an export implies."""
    with fresh_conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
        # The default send buffer, so the document cannot fit in the socket and end the COPY early.
        cur.execute("SET datavalue_export.client_send_buffer = 0")
    other = dve.connect(db243)
    rows = []

    class Sink:
        def write(self, data):
            if rows:
                return len(data)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not rows:
                with other.cursor() as cur:
                    cur.execute("SELECT * FROM pg_stat_progress_copy WHERE pid = %s AND tuples_processed > 0",
                                (pid,))
                    row = cur.fetchone()
                    names = [d[0] for d in cur.description]
                if row:
                    rows.append(dict(zip(names, row)))
                else:
                    time.sleep(0.01)
            return len(data)

    try:
        with fresh_conn.cursor() as cur:
            cur.copy_expert("COPY (SELECT %s) TO STDOUT" % dve.call("csv", **demo_request), Sink())
    finally:
        other.close()
    assert rows, "no pg_stat_progress_copy row with tuples_processed > 0 for the exporting backend"
    row = rows[0]
    expected_columns = PROGRESS_COPY_COLUMNS_14 + (["tuples_skipped"]
                                                   if _server_version_num(fresh_conn) >= 170000 else [])
    assert list(row) == expected_columns
    assert row["pid"] == pid
    assert row["datname"] == db243
    assert row["relid"] == 0  # a query, not a table
    assert (row["command"], row["type"]) == ("COPY TO", "PIPE")
    assert row["bytes_processed"] > 0 and row["bytes_total"] == 0
    assert row["tuples_excluded"] == 0
    assert row.get("tuples_skipped", 0) == 0


def test_module_magic_names_the_library_from_18(conn243):
    with conn243.cursor() as cur:
        cur.execute("SELECT to_regproc('pg_catalog.pg_get_loaded_modules') IS NOT NULL")
        has_function = cur.fetchone()[0]
        if _server_version_num(conn243) < 180000:
            assert not has_function
            return
        assert has_function
        cur.execute("SELECT module_name, version FROM pg_get_loaded_modules() "
                    "WHERE file_name = 'datavalue_export.so'")
        assert cur.fetchall() == [("datavalue_export", _extversion())]


def test_unknown_setting_under_the_prefix(fresh_conn):
    with fresh_conn.cursor() as cur:
        cur.execute("LOAD 'datavalue_export'")
        if _server_version_num(fresh_conn) < 150000:  # EmitWarningsOnPlaceholders: accepted, with a warning
            cur.execute("SET datavalue_export.sort_run_memroy = '1MB'")
            return
        with pytest.raises(psycopg2.Error) as err:
            cur.execute("SET datavalue_export.sort_run_memroy = '1MB'")
    assert err.value.pgcode == "42602"  # invalid_name
    assert "datavalue_export" in err.value.pgerror

