"""
test/integration/test_cancel_progress.py
    Cancelling a running export (statement_timeout, pg_cancel_backend) and its progress row in
    pg_stat_progress_copy.

None of these depends on how fast the machine is. The backend is provably inside the export
when the cancel or timeout arrives, held in one of two ways:
- Held on a lock: another session holds ACCESS EXCLUSIVE on datavalue, which only the
  export's own queries read, so the export cannot finish and must wait inside its SPI query;
  the error then carries that query as its CONTEXT, which proves where it was interrupted.
- Held by the client: the export is read through a sink whose first write() blocks. The demo
  document (about 6 MB) is far larger than the socket buffers (left at their default size:
  datavalue_export.client_send_buffer = 0), so the backend waits in a
  socket write (wait_event ClientWrite) mid-document. PostgreSQL acts on a cancel only once the
  backend runs again (a backend blocked in a client write reacts only to terminate), so the
  sink resumes reading, and the client must then receive an error and less than the whole
  document.
Waits on the server's state are polls bounded only as a guard against hangs (60 s).
SPDX-License-Identifier: PostgreSQL
"""
import contextlib
import gzip
import threading
import time

import psycopg2
import pytest

import dve

HANG_GUARD_S = 60


class BlockingSink:
    """A copy_expert target whose first write() runs a callback (while the backend is held)."""

    def __init__(self, on_first_write):
        self.on_first_write = on_first_write
        self.writes = 0
        self.size = 0

    def write(self, data):
        self.writes += 1
        self.size += len(data)
        if self.writes == 1:
            self.on_first_write()
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
        # The socket keeps its default send buffer (about 200 kB), so the document cannot fit in it.
        cur.execute("SET datavalue_export.client_send_buffer = 0")
        cur.copy_expert("COPY (SELECT %s) TO STDOUT" % dve.call(fmt, **params), sink)


def _poll(conn, sql, args, until):
    """Run sql until until(row) holds; fails after HANG_GUARD_S (a hang, not a slow machine)."""
    deadline = time.monotonic() + HANG_GUARD_S
    while True:
        with conn.cursor() as cur:
            cur.execute(sql, args)
            row = cur.fetchone()
        if until(row):
            return row
        assert time.monotonic() < deadline, "server never reached the expected state: %r" % (row,)
        time.sleep(0.01)


@contextlib.contextmanager
def _datavalue_locked(dbname):
    """Another session holds ACCESS EXCLUSIVE on datavalue until the block ends."""
    holder = dve.connect(dbname)
    try:
        with holder.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute("LOCK TABLE datavalue IN ACCESS EXCLUSIVE MODE")
        yield holder
    finally:
        with holder.cursor() as cur:
            cur.execute("ROLLBACK")
        holder.close()


def _waiting_on_datavalue(observer, pid):
    """Poll until pid waits for a lock on datavalue (it is then inside the export's query)."""
    _poll(observer, """SELECT count(*) FROM pg_locks
                       WHERE pid = %s AND NOT granted AND relation = 'datavalue'::regclass""",
          (pid,), lambda row: row[0] > 0)


def _cancel_while_waiting_inside(conn, dbname, run, during=None):
    """Run run() on conn in a thread while datavalue is locked, wait until the backend waits for
    that lock inside the export, call during(pid) if given, cancel it; returns the errors run raised."""
    pid = _pid(conn)
    observer = dve.connect(dbname)
    errors = []

    def export():
        try:
            run()
        except psycopg2.Error as e:
            errors.append(e)

    try:
        with _datavalue_locked(dbname):
            worker = threading.Thread(target=export)
            worker.start()
            _waiting_on_datavalue(observer, pid)
            if during is not None:
                during(pid)
            with observer.cursor() as cur:
                cur.execute("SELECT pg_cancel_backend(%s)", (pid,))
                assert cur.fetchone()[0] is True
            worker.join(HANG_GUARD_S)
            assert not worker.is_alive(), "the export did not react to the cancel"
    finally:
        observer.close()
    return errors


def _run_export(conn, form, params):
    """The export as COPY into a byte counter, or as a plain SELECT (count of chunks)."""
    if form == "copy":
        sink = BlockingSink(lambda: None)
        _copy(conn, sink, **params)
    else:
        with conn.cursor() as cur:
            # count(*): the client receives one row; the backend still builds every chunk
            cur.execute("SELECT count(*) FROM %s AS chunk" % dve.call("json", **params))


@pytest.fixture(scope="module")
def demo_document_size(conn243, demo_request):
    return len(dve.copy_bytes(conn243, "json", **demo_request))


def test_document_is_larger_than_the_buffers(demo_document_size):
    assert demo_document_size > 4_000_000


@pytest.mark.parametrize("form", ["copy", "select"])
def test_statement_timeout_interrupts_an_export_inside_its_query(fresh_conn, db243, demo_request, form):
    """The export cannot finish while datavalue is locked, so the timeout must fire inside it: the
    error's CONTEXT is the export's own query over datavalue. The timer starts with the statement, before
    the metadata queries that precede that one; on a machine too slow to reach it within the timeout, the
    timeout doubles and the export runs again (the error must still be the timeout's)."""
    contexts = []
    for timeout_ms in (3000, 6000, 12000, 24000, 48000):
        with fresh_conn.cursor() as cur:
            cur.execute("SET statement_timeout = %d" % timeout_ms)
        with _datavalue_locked(db243):
            with pytest.raises(psycopg2.Error) as err:
                _run_export(fresh_conn, form, demo_request)
        assert err.value.pgcode == "57014", err.value.pgerror
        assert "statement timeout" in err.value.pgerror
        contexts.append(err.value.diag.context or "")
        if "datavalue" in contexts[-1]:
            break
    assert "datavalue" in contexts[-1], "not interrupted inside the export's query: %r" % contexts
    _usable(fresh_conn)


@pytest.mark.parametrize("form", ["copy", "select"])
def test_pg_cancel_backend_interrupts_an_export_waiting_inside_its_query(fresh_conn, db243, demo_request, form):
    errors = _cancel_while_waiting_inside(fresh_conn, db243, lambda: _run_export(fresh_conn, form, demo_request))
    assert len(errors) == 1, "the export finished instead of being cancelled"
    assert errors[0].pgcode == "57014", errors[0].pgerror
    assert "user request" in errors[0].pgerror
    _usable(fresh_conn)


def test_statement_timeout_fires_while_the_client_is_not_reading(fresh_conn, db243, demo_request,
                                                                 demo_document_size):
    """The timeout passes while the backend is blocked writing to a client that stopped reading;
    once the client reads again the export stops with the timeout error, mid-document.

    The timer starts with the statement, so on a very slow or overloaded machine it may fire
    before the first message is sent; the export must then stop just the same. Either way the
    client gets 57014 and less than the whole document."""
    pid = _pid(fresh_conn)
    observer = dve.connect(db243)
    timeout_ms = 1000
    with fresh_conn.cursor() as cur:
        cur.execute("SET statement_timeout = %s", (timeout_ms,))

    def hold_until_the_timeout_has_passed():
        # blocked in a socket write (or already failed), and the server's clock is past the timeout
        _poll(observer, """SELECT state <> 'active'
                                  OR (wait_event = 'ClientWrite'
                                      AND clock_timestamp() - query_start > %s * interval '2 ms')
                           FROM pg_stat_activity WHERE pid = %s""",
              (timeout_ms, pid), lambda row: row[0])

    sink = BlockingSink(hold_until_the_timeout_has_passed)
    try:
        with pytest.raises(psycopg2.Error) as err:
            _copy(fresh_conn, sink, **demo_request)
    finally:
        observer.close()
    assert err.value.pgcode == "57014", err.value.pgerror
    assert "statement timeout" in err.value.pgerror
    assert sink.size < demo_document_size, "the whole document arrived despite the timeout"
    _usable(fresh_conn)


# not gzip: the compressed demo (about 0.5 MB) fits in the socket buffers, so nothing would hold the backend
@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {}), ("json", {"style": "2.42"}), ("xml", {})])
def test_pg_cancel_backend_cancels_a_copy_export(fresh_conn, db243, demo_request, fmt, extra):
    full_size = len(dve.copy_bytes(fresh_conn, fmt, **extra, **demo_request))
    pid = _pid(fresh_conn)
    other = dve.connect(db243)
    try:
        def cancel():
            with other.cursor() as cur:
                cur.execute("SELECT pg_cancel_backend(%s)", (pid,))
                assert cur.fetchone()[0] is True

        sink = BlockingSink(cancel)
        with pytest.raises(psycopg2.Error) as err:
            _copy(fresh_conn, sink, fmt, **extra, **demo_request)
        assert err.value.pgcode == "57014", err.value.pgerror
        assert "user request" in err.value.pgerror
        assert sink.writes >= 1, "the export never started sending"
        assert sink.size < full_size, "the whole document arrived despite the cancel"
    finally:
        other.close()
    _usable(fresh_conn)


@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {}), ("xml", {})])
def test_progress_row_while_exporting(fresh_conn, db243, demo_request, fmt, extra):
    """While the sink holds the backend mid-document, its pg_stat_progress_copy row shows the
    values and bytes sent so far."""
    pid = _pid(fresh_conn)
    other = dve.connect(db243)
    seen = []
    try:
        def look():
            seen.append(_poll(other, "SELECT command, type, tuples_processed, bytes_processed "
                                     "FROM pg_stat_progress_copy WHERE pid = %s",
                              (pid,), lambda row: row is not None and row[2] > 0))

        sink = BlockingSink(look)
        _copy(fresh_conn, sink, fmt, **extra, **demo_request)
    finally:
        other.close()
    command, kind, tuples, size = seen[-1]
    assert command == "COPY TO"
    assert kind == "PIPE"
    assert tuples > 0
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


def _backend_threads(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(next(line for line in f if line.startswith("Threads:")).split()[1])


@pytest.mark.parametrize("engine", [{}, {"compression_level": 6}])
def test_cancelling_a_gzip_export_stops_its_compression_thread(fresh_conn, db243, demo_request, engine):
    """gzip compresses on a second thread of the backend. Cancelled while the export waits inside
    its query (the thread is running by then), the backend is back to one thread, and the next
    gzip export is whole."""
    params = dict(demo_request, compression="gzip", **engine)
    pid = _pid(fresh_conn)

    def thread_running(backend):
        assert _backend_threads(backend) == 2, "no compression thread while the gzip export runs"

    errors = _cancel_while_waiting_inside(fresh_conn, db243,
                                          lambda: _copy(fresh_conn, BlockingSink(lambda: None), **params),
                                          during=thread_running)
    assert len(errors) == 1 and errors[0].pgcode == "57014"
    assert _backend_threads(pid) == 1
    gzip.decompress(dve.copy_bytes(fresh_conn, "json", **params))
    assert _backend_threads(pid) == 1


@pytest.fixture(scope="module")
def threads_while_merging():
    """Per datavalue_export.render_thread setting, the backend's threads while a merge was held."""
    return {}


@pytest.mark.parametrize("render_thread", ["off", "on"])
def test_cancelling_a_merge_of_spilled_runs_removes_its_files(fresh_conn, db243, demo_request, render_thread,
                                                              threads_while_merging):
    """With small runs the export spills several runs and keeps its last one in memory; cancelled
    while the client holds it mid-merge, its temporary files are gone, the backend is back to one
    thread (the merge's render thread joined, when it has one), and the next export is the whole
    document again."""
    request = dict(demo_request, include_deleted=True)
    with fresh_conn.cursor() as cur:
        cur.execute("SET datavalue_export.render_thread = " + render_thread)
        # 2 MB: a few spilled runs, all read by one merge (the demo's 200 kB records leave a fan-in of 9).
        cur.execute("SET datavalue_export.sort_run_memory = '2MB'")
        cur.execute("SET client_min_messages = debug1")
    full = dve.copy_bytes(fresh_conn, "json", **request)
    _usable(fresh_conn)  # a command after the COPY: psycopg2 hands over its notices
    assert any("from memory" in n for n in fresh_conn.notices), "the export did not spill runs"
    pid = _pid(fresh_conn)
    other = dve.connect(db243)

    def backend_temp_files():
        with other.cursor() as cur:
            cur.execute("SELECT count(*) FROM pg_ls_tmpdir() WHERE name LIKE %s", ("pgsql_tmp%d.%%" % pid,))
            return cur.fetchone()[0]

    try:
        def cancel():
            assert backend_temp_files() > 0, "no spilled run files while the merge is held"
            threads_while_merging[render_thread] = _backend_threads(pid)
            with other.cursor() as cur:
                cur.execute("SELECT pg_cancel_backend(%s)", (pid,))

        sink = BlockingSink(cancel)
        with pytest.raises(psycopg2.Error) as err:
            _copy(fresh_conn, sink, "json", **request)
        assert err.value.pgcode == "57014", err.value.pgerror
        assert sink.size < len(full)
        _usable(fresh_conn)
        assert backend_temp_files() == 0
        assert _backend_threads(pid) == 1
    finally:
        other.close()
    assert dve.copy_bytes(fresh_conn, "json", **request) == full
    if render_thread == "on" and "off" in threads_while_merging:
        assert threads_while_merging["on"] == threads_while_merging["off"] + 1, threads_while_merging


LONG_TEXT = 50_000  # DHIS2's varchar(50000): value and comment at their longest
LONG_ROWS = 1_200


class CountingSink:
    """A copy_expert target that cancels the export once it has received cancel_after bytes and
    reads on, counting. pg_cancel_backend has signalled the backend when it returns, so whatever
    arrives after it was already sent or is sent before the backend's next check, at any speed."""

    def __init__(self, cancel_after, cancel):
        self.cancel_after = cancel_after
        self.cancel = cancel
        self.size = 0
        self.at_cancel = None

    def write(self, data):
        self.size += len(data)
        if self.at_cancel is None and self.size >= self.cancel_after:
            self.at_cancel = self.size
            self.cancel()
        return len(data)


@pytest.mark.parametrize("run_memory", ["32MB", "1GB"])
def test_cancel_lands_within_a_few_messages_of_an_ordered_export_of_long_rows(fresh_conn, db243, run_memory):
    """1,200 rows of DHIS2's longest texts (about 100 kB of JSON each), ordered: merged from spilled
    runs (32MB) or from one run in memory (1GB). After pg_cancel_backend the client must receive
    at most what was already on its way (the socket's buffer, the message being sent, a row), not
    the up to 1,024 rows (about 100 MB) the merge rendered between two checks until now. Bounded in
    bytes, not time: the sink reads on at any speed until the error comes."""
    pid = _pid(fresh_conn)
    observer = dve.connect(db243)
    try:
        with dve.rolled_back(fresh_conn), fresh_conn.cursor() as cur:
            cur.execute("""SELECT de.dataelementid, de.uid, pe.periodid, pe.iso
                           FROM dataelement de, period pe
                           WHERE pe.iso = '202401' ORDER BY de.dataelementid LIMIT 1""")
            de_id, de_uid, pe_id, pe_iso = cur.fetchone()
            cur.execute("DELETE FROM datavalue WHERE dataelementid = %s AND periodid = %s", (de_id, pe_id))
            cur.execute("""INSERT INTO datavalue (dataelementid, periodid, sourceid, categoryoptioncomboid,
                                                  attributeoptioncomboid, value, storedby, created, lastupdated,
                                                  comment, followup, deleted)
                           SELECT %s, %s, ou.organisationunitid, coc.id, coc.id, repeat('v', %s), 'admin',
                                  timestamp '2024-02-01' + ou.organisationunitid * interval '1 second',
                                  timestamp '2024-02-02', repeat('c', %s), false, false
                           FROM (SELECT organisationunitid FROM organisationunit
                                 WHERE path LIKE '/ImspTQPwCqd%%' ORDER BY organisationunitid LIMIT %s) ou,
                                (SELECT min(categoryoptioncomboid) AS id FROM categoryoptioncombo) coc""",
                        (de_id, pe_id, LONG_TEXT, LONG_TEXT, LONG_ROWS))
            assert cur.rowcount == LONG_ROWS, "the demo has fewer org units than the test needs"
            cur.execute("SET datavalue_export.sort_run_memory = %s", (run_memory,))

            def cancel():
                with observer.cursor() as ocur:
                    ocur.execute("SELECT pg_cancel_backend(%s)", (pid,))
                    assert ocur.fetchone()[0] is True

            sink = CountingSink(2 * 1024 * 1024, cancel)
            with pytest.raises(psycopg2.Error) as err:
                cur.copy_expert("COPY (SELECT %s) TO STDOUT" % dve.call(
                    "json", data_element=[de_uid], period=[pe_iso], org_unit=["ImspTQPwCqd"], children=True), sink)
            assert err.value.pgcode == "57014", err.value.pgerror
            assert sink.at_cancel is not None, "the export ended before 2 MB"
            after = sink.size - sink.at_cancel
            assert after < 24 * 1024 * 1024, \
                "%d bytes arrived after the cancel (document about %d MB)" % (after, LONG_ROWS * 100_000 // 10**6)
    finally:
        observer.close()
    _usable(fresh_conn)
