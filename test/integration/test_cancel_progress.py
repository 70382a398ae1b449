"""
test/integration/test_cancel_progress.py
    Cancelling a running export (statement_timeout, pg_cancel_backend) and its progress row in
    pg_stat_progress_copy.

How these are made deterministic: the export is read through a sink whose write() blocks on
its first call. The demo document (about 6 MB) is far larger than what the socket and libpq
can buffer, so the backend cannot finish while the sink blocks; it waits in a socket write.
PostgreSQL acts on a cancel only once the backend runs again (a backend blocked in a client
write only reacts to terminate, pg-techniques §1.5), so the sink then resumes reading and the
error must arrive promptly. The progress test looks at pg_stat_progress_copy from a second
connection while the first one is held in that state, polling with a generous bound.
SPDX-License-Identifier: PostgreSQL
"""
import time

import psycopg2
import pytest

import dve


class BlockingSink:
    """A copy_expert target whose first write() runs a callback (while the backend is held)."""

    def __init__(self, on_first_write):
        self.on_first_write = on_first_write
        self.writes = 0
        self.size = 0
        self.resumed_at = None

    def write(self, data):
        self.writes += 1
        self.size += len(data)
        if self.writes == 1:
            self.on_first_write()
            self.resumed_at = time.monotonic()
        return len(data)


def _pid(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        return cur.fetchone()[0]


def _usable(conn):
    with conn.cursor() as cur:
        cur.execute("RESET statement_timeout")
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)


def _copy(conn, sink, fmt="json", **params):
    with conn.cursor() as cur:
        cur.copy_expert("COPY (SELECT %s) TO STDOUT" % dve.call(fmt, **params), sink)


def test_document_is_larger_than_the_buffers(conn243, demo_request):
    assert len(dve.copy_bytes(conn243, "json", **demo_request)) > 4_000_000


def test_statement_timeout_cancels_a_copy_export(fresh_conn, demo_request):
    with fresh_conn.cursor() as cur:
        cur.execute("SET statement_timeout = '50ms'")
    sink = BlockingSink(lambda: time.sleep(0.5))  # the timeout fires while the backend is held
    started = time.monotonic()
    with pytest.raises(psycopg2.Error) as err:
        _copy(fresh_conn, sink, **demo_request)
    ended = time.monotonic()
    assert err.value.pgcode == "57014", err.value.pgerror
    assert "statement timeout" in err.value.pgerror
    assert ended - started < 5
    if sink.resumed_at is not None:
        assert ended - sink.resumed_at < 5
    _usable(fresh_conn)


def test_statement_timeout_cancels_a_select_export(fresh_conn, demo_request):
    """The plain SELECT form of the largest demo export (all values, 1900..2100, with deleted; about
    0.2 s on 2 cores) under a 50 ms statement_timeout."""
    params = dict(demo_request, start_date=dve.ALL_START, end_date=dve.ALL_END, include_deleted=True)
    with fresh_conn.cursor() as cur:
        cur.execute("SET statement_timeout = '50ms'")
        started = time.monotonic()
        with pytest.raises(psycopg2.Error) as err:
            # count(*): the client receives one row; the backend still builds every chunk
            cur.execute("SELECT count(*) FROM %s AS chunk" % dve.call("json", **params))
        assert err.value.pgcode == "57014", err.value.pgerror
        assert time.monotonic() - started < 5
    _usable(fresh_conn)


# not gzip: the compressed demo (about 0.5 MB) fits in the socket buffers, so nothing would hold the backend
@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {}), ("json", {"style": "2.42"})])
def test_pg_cancel_backend_cancels_a_copy_export(fresh_conn, db243, demo_request, fmt, extra):
    pid = _pid(fresh_conn)
    other = dve.connect(db243)
    try:
        def cancel():
            with other.cursor() as cur:
                cur.execute("SELECT pg_cancel_backend(%s)", (pid,))
                assert cur.fetchone()[0] is True

        sink = BlockingSink(cancel)
        started = time.monotonic()
        with pytest.raises(psycopg2.Error) as err:
            _copy(fresh_conn, sink, fmt, **extra, **demo_request)
        assert err.value.pgcode == "57014", err.value.pgerror
        assert "user request" in err.value.pgerror
        assert time.monotonic() - started < 5
        assert sink.writes >= 1, "the export never started sending"
    finally:
        other.close()
    _usable(fresh_conn)


@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {})])
def test_progress_row_while_exporting(fresh_conn, db243, demo_request, fmt, extra):
    """Best effort by design, but without sleeps: while the sink holds the backend, poll (up to 10 s)
    for its pg_stat_progress_copy row with tuples_processed > 0."""
    pid = _pid(fresh_conn)
    other = dve.connect(db243)
    seen = []
    try:
        def look():
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                with other.cursor() as cur:
                    cur.execute("SELECT command, type, tuples_processed, bytes_processed "
                                "FROM pg_stat_progress_copy WHERE pid = %s", (pid,))
                    row = cur.fetchone()
                if row is not None:
                    seen.append(row)
                    if row[2] > 0:
                        return
                time.sleep(0.01)

        sink = BlockingSink(look)
        _copy(fresh_conn, sink, fmt, **extra, **demo_request)
    finally:
        other.close()
    assert seen, "no pg_stat_progress_copy row for the exporting backend"
    command, kind, tuples, size = seen[-1]
    assert command == "COPY TO"
    assert kind == "PIPE"
    assert tuples > 0, "tuples_processed stayed 0 while the export was running: %r" % seen
    assert size > 0
    # the progress row is gone afterwards
    with fresh_conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_stat_progress_copy WHERE pid = %s", (pid,))
        assert cur.fetchone()[0] == 0


def test_progress_counts_all_values_at_the_end(fresh_conn, db243, demo_request):
    """Watching the row until just before the end: tuples_processed never exceeds the value count."""
    n = len(dve.data_values(dve.parse_json_pairs(dve.copy_bytes(fresh_conn, "json", **demo_request))))
    pid = _pid(fresh_conn)
    other = dve.connect(db243)
    counts = []
    try:
        class Sink:
            def write(self, data):
                with other.cursor() as cur:
                    cur.execute("SELECT tuples_processed FROM pg_stat_progress_copy WHERE pid = %s", (pid,))
                    row = cur.fetchone()
                if row:
                    counts.append(row[0])

        _copy(fresh_conn, Sink(), "json", **demo_request)
    finally:
        other.close()
    assert counts and max(counts) > 0
    assert max(counts) <= n
    assert counts == sorted(counts), "tuples_processed went backwards"
