"""
test/integration/test_client_socket.py
    A COPY export to a client on a Unix socket raises the socket's send buffer, so the backend
    can render the next messages while the client still reads (sink.cpp), and puts the old size
    back when it ends, also when it fails. Text result rows, TCP clients and
    datavalue_export.client_send_buffer = 0 leave it alone. The sizes are the kernel's own
    (getsockopt), reported at DEBUG1.
SPDX-License-Identifier: PostgreSQL
"""
import re

import psycopg2
import pytest

import dve

RAISED = re.compile(r"client socket send buffer raised from (\d+) to (\d+) bytes")


def _raised(conn, run):
    """The (before, after) sizes each export in run() reported."""
    with conn.cursor() as cur:
        cur.execute("SET client_min_messages = debug1")
    del conn.notices[:]
    run()
    with conn.cursor() as cur:
        cur.execute("SELECT 1")  # psycopg2 hands over the notices of a COPY at the next command
        cur.execute("RESET client_min_messages")
    return [(int(m.group(1)), int(m.group(2))) for m in map(RAISED.search, conn.notices) if m]


def _over_unix_socket(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT inet_server_addr() IS NULL")
        return cur.fetchone()[0]


def test_a_copy_export_raises_the_send_buffer_and_puts_it_back(fresh_conn, demo_request):
    request = dict(demo_request, limit=5)

    def two_exports():
        dve.copy_bytes(fresh_conn, "json", **request)
        dve.copy_bytes(fresh_conn, "csv", **request)

    reports = _raised(fresh_conn, two_exports)
    if not _over_unix_socket(fresh_conn):
        assert reports == []  # TCP keeps the kernel's own sizing
        return
    assert len(reports) == 2, fresh_conn.notices[-5:]
    (before, after), (before_again, _) = reports
    assert after > before
    # The second export found the size the first one started from: it was put back.
    assert before_again == before


def test_the_send_buffer_is_put_back_after_a_failed_export(fresh_conn, demo_request):
    if not _over_unix_socket(fresh_conn):
        pytest.skip("the send buffer is only raised for clients on a Unix socket")

    def failing_then_whole():
        with fresh_conn.cursor() as cur:
            cur.execute("BEGIN")
            dve.break_last_demo_value(cur)
            with pytest.raises(psycopg2.Error) as err:
                dve.copy_bytes(fresh_conn, "json", **dict(demo_request, order="none"))
            assert err.value.pgcode == "22008"
            cur.execute("ROLLBACK")
        dve.copy_bytes(fresh_conn, "json", **dict(demo_request, limit=5))

    reports = _raised(fresh_conn, failing_then_whole)
    assert len(reports) == 2, fresh_conn.notices[-5:]
    assert reports[1][0] == reports[0][0]


def test_result_rows_leave_the_socket_alone(fresh_conn, demo_request):
    reports = _raised(fresh_conn, lambda: dve.select_text(fresh_conn, "json", **dict(demo_request, limit=5)))
    assert reports == []


def test_zero_leaves_the_socket_alone(fresh_conn, demo_request):
    with fresh_conn.cursor() as cur:
        cur.execute("SET datavalue_export.client_send_buffer = 0")
    reports = _raised(fresh_conn, lambda: dve.copy_bytes(fresh_conn, "json", **dict(demo_request, limit=5)))
    assert reports == []
