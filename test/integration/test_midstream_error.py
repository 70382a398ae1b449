"""
test/integration/test_midstream_error.py
    An error after part of the document has been sent: the client gets the error, and what it
    received is visibly incomplete (no closing "]}"), never a document that looks whole. The
    connection stays usable. The failing row is made inside a transaction that is rolled back:
    a data value whose created timestamp is infinite, which DHIS2 never stores.
SPDX-License-Identifier: PostgreSQL
"""
import gzip
import io
import zlib

import psycopg2
import pytest

import dve


@pytest.mark.parametrize("order", ["none", None])
def test_error_mid_stream_leaves_an_incomplete_document(fresh_conn, demo_request, order):
    request = dict(demo_request)
    if order:
        request["order"] = order
    buf = io.BytesIO()
    assert fresh_conn.autocommit  # the BEGIN below makes the change undoable
    with fresh_conn.cursor() as cur:
        cur.execute("BEGIN")
        dve.break_last_demo_value(cur)
        with pytest.raises(psycopg2.Error) as err:
            cur.copy_expert("COPY (SELECT %s) TO STDOUT" % dve.call("json", **request), buf)
    assert err.value.pgcode == "22008"
    assert "infinite" in str(err.value)
    received = buf.getvalue()
    assert not received.endswith(b"]}")
    if order == "none":
        assert len(received) >= 256 * 1024  # part of the document had already been sent
    with fresh_conn.cursor() as cur:
        cur.execute("ROLLBACK")
        cur.execute("SELECT count(*) FROM datavalue WHERE created = 'infinity'")
        assert cur.fetchone()[0] == 0


def test_error_mid_stream_of_a_gzip_export_stops_the_compression_thread(fresh_conn, demo_request):
    """The same failing row in an unordered gzip export: the error arrives while the compression
    thread holds buffers; the backend is back to one thread and the stream is not a whole member."""
    with fresh_conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
    buf = io.BytesIO()
    with fresh_conn.cursor() as cur:
        cur.execute("BEGIN")
        dve.break_last_demo_value(cur)
        with pytest.raises(psycopg2.Error) as err:
            cur.copy_expert("COPY (SELECT %s) TO STDOUT"
                            % dve.call("json", order="none", compression="gzip", **demo_request), buf)
        cur.execute("ROLLBACK")
    assert err.value.pgcode == "22008"
    with open("/proc/%d/status" % pid) as f:
        assert next(line for line in f if line.startswith("Threads:")).split()[1] == "1"
    with pytest.raises((EOFError, zlib.error, OSError)):
        gzip.decompress(buf.getvalue())
