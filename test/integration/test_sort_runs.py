"""
test/integration/test_sort_runs.py
    Ordered exports sort in sorted runs that spill to temporary files when they outgrow
    datavalue_export.sort_run_memory, then merge. The bytes must not depend on the run size:
    one run in memory, a few spilled runs, and runs smaller than a single hostile record
    (two 50,000-character texts) must all give the same document.
SPDX-License-Identifier: PostgreSQL
"""
import contextlib
import io
import os
import pwd
import re
import shutil
import tempfile
import zipfile
import zlib

import pytest

import dve


def _export(conn, run_memory, fmt, request, **extra):
    with conn.cursor() as cur:
        cur.execute("SET datavalue_export.sort_run_memory = %s", (run_memory,))
    try:
        return dve.copy_bytes(conn, fmt, **request, **extra)
    finally:
        with conn.cursor() as cur:
            cur.execute("RESET datavalue_export.sort_run_memory")


def _export_reporting(conn, run_memory, request):
    """The ordered JSON export at DEBUG1, and the messages it gave on how it sorted and merged."""
    with conn.cursor() as cur:
        cur.execute("SET client_min_messages = debug1")
    del conn.notices[:]
    return _export(conn, run_memory, "json", request), list(conn.notices)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_bytes_do_not_depend_on_run_size(fresh_conn, demo_request, fmt):
    request = dict(demo_request, include_deleted=True)
    one_run = _export(fresh_conn, "1GB", fmt, request)
    assert len(one_run) > 1_000_000
    for run_memory in ("1MB", "64kB"):
        assert _export(fresh_conn, run_memory, fmt, request) == one_run, run_memory


def test_other_orders_and_paging_through_spilled_runs(fresh_conn, demo_request):
    for extra in ({"order": "OU,CREATED"}, {"order": "AOC,DE", "limit": 700, "offset": 123}):
        assert _export(fresh_conn, "64kB", "json", demo_request, **extra) == \
            _export(fresh_conn, "1GB", "json", demo_request, **extra), extra


def test_run_memory_has_a_floor(fresh_conn):
    with pytest.raises(Exception) as err:
        with fresh_conn.cursor() as cur:
            cur.execute("SET datavalue_export.sort_run_memory = '16kB'")
    assert "outside the valid range" in str(err.value)


def test_many_small_runs_merge_in_several_passes(fresh_conn, demo_request):
    """With 64 kB runs the merge reads at most four runs at once (about 32 kB each within the
    budget), so the spilled runs are first merged into longer ones: memory stays near the setting
    however many runs an export makes. The extra passes are reported at DEBUG1."""
    request = dict(demo_request, include_deleted=True)
    small, notices = _export_reporting(fresh_conn, "64kB", request)
    passes = [n for n in notices if "merged" in n and "extra pass" in n]
    assert passes, notices[-5:]
    extra = int(passes[-1].split("merged ")[1].split(" ")[0])
    assert extra >= 1, passes[-1]
    assert "fan-in 4" in passes[-1]
    assert small == _export(fresh_conn, "1GB", "json", request)


def test_the_last_run_is_merged_from_memory(fresh_conn, demo_request):
    """When one merge reads every run, the scan's last run is not written to a file: the merge
    reads it from memory (reported at DEBUG1). The document is the one of a single run."""
    request = dict(demo_request, include_deleted=True)
    # 2 MB: the demo's hostile records (about 200 kB) leave a fan-in of 9, more than its runs.
    spilled, notices = _export_reporting(fresh_conn, "2MB", request)
    merges = [n for n in notices if "from memory" in n]
    assert len(merges) == 1, notices[-5:]
    # The last run, or the last two when the worker's write of the one before had not ended.
    merge = re.search(r"merging (\d+) spilled runs and (the last run, (\d+) rows|the scan's last 2 runs), from memory",
                      merges[0])
    assert merge and int(merge.group(1)) >= 1 and int(merge.group(3) or 1) > 0, merges[0]
    assert spilled == _export(fresh_conn, "1GB", "json", request)


def test_an_ordered_export_reports_its_two_phases(fresh_conn, demo_request):
    """An ordered export sends nothing until its rows are read and sorted; at DEBUG1 it says how
    long that took and how long merging and sending took. An unordered one has no such phases."""
    with fresh_conn.cursor() as cur:
        cur.execute("SET client_min_messages = debug1")
    phases = re.compile(r"ordered export: rows read and sorted in (\d+) ms, merged and sent in (\d+) ms")
    for extra, reported in (({}, 1), ({"order": "none"}, 0)):
        del fresh_conn.notices[:]
        dve.copy_bytes(fresh_conn, "json", **demo_request, **extra)
        with fresh_conn.cursor() as cur:
            cur.execute("SELECT 1")  # psycopg2 hands over the notices of a COPY at the next command
        found = [m for m in map(phases.search, fresh_conn.notices) if m]
        assert len(found) == reported, (extra, fresh_conn.notices[-5:])


@pytest.mark.parametrize("run_memory", ["1GB", "64kB"])
def test_a_page_is_the_slice_of_the_full_order(fresh_conn, demo_request, run_memory):
    """limit/offset keep only the first offset + limit rows (a bounded heap); with 64 kB the
    hostile 100 kB rows make the kept set outgrow the budget and it falls back to sorted runs.
    Either way the page is exactly the slice of the fully ordered export."""
    request = dict(demo_request, include_deleted=True)
    full = dve.data_values(dve.parse_json_pairs(_export(fresh_conn, "1GB", "json", request)))
    for offset, limit in ((0, 1), (0, 50), (123, 200), (len(full) - 5, 50)):
        page = dve.data_values(dve.parse_json_pairs(
            _export(fresh_conn, run_memory, "json", request, offset=offset, limit=limit)))
        assert page == full[offset:offset + limit], (offset, limit)


def test_long_records_merge_fewer_runs_at_once(fresh_conn, demo_request):
    """A merge's read window grows to hold its run's longest record, so with the demo's hostile
    rows (50,000-character texts, records of 100 kB and more) the merge must read fewer runs at
    once: within the 2 MB budget, fan-in times (32 kB + a 50,000-byte record) at most. It read 64
    (2 MB / 32 kB); with DHIS2's longest rows (12,000 rows of 400 kB) the backend grew by 151 MB
    at the default 32 MB."""
    request = dict(demo_request, include_deleted=True)
    small, notices = _export_reporting(fresh_conn, "2MB", request)
    merges = [n for n in notices if "extra pass" in n]
    assert merges, notices[-5:]
    fan_in = int(merges[-1].rsplit("fan-in ", 1)[1].split()[0])
    assert 4 <= fan_in and fan_in * (32 * 1024 + 50_000) <= 2 * 1024 * 1024, merges[-1]
    assert small == _export(fresh_conn, "1GB", "json", request)


def test_a_page_of_huge_rows_falls_back_to_sorted_runs(fresh_conn):
    """The hostile data set's 50,000-character texts: 100 kept rows outgrow a 64 kB budget, so
    the page continues in sorted runs; it must still be the slice of the full order."""
    request = dict(data_set=["HostileDSet"], start_date=dve.ALL_START, end_date=dve.ALL_END,
                   org_unit=[dve.ROOT_OU], children=True, include_deleted=True)
    full = dve.data_values(dve.parse_json_pairs(_export(fresh_conn, "1GB", "json", request)))
    assert len(full) > 40
    page = dve.data_values(dve.parse_json_pairs(_export(fresh_conn, "64kB", "json", request, offset=3, limit=100)))
    assert page == full[3:103]


def test_spilled_runs_count_against_temp_file_limit(fresh_conn, demo_request):
    """Runs are plain temporary files (fd.c): temp_file_limit bounds them like any sort's, with
    PostgreSQL's own error, and the transaction stays usable afterwards."""
    request = dict(demo_request, include_deleted=True)
    with fresh_conn.cursor() as cur:
        cur.execute("SET temp_file_limit = '64kB'")
    try:
        with pytest.raises(dve.psycopg2.Error) as err:
            _export(fresh_conn, "64kB", "json", request)
        assert err.value.pgcode == "53400", err.value.pgerror
        assert "temp_file_limit" in err.value.pgerror
        # One run in memory writes no file, so the same limit does not stop it.
        assert len(_export(fresh_conn, "1GB", "json", request)) > 1_000_000
    finally:
        with fresh_conn.cursor() as cur:
            cur.execute("RESET temp_file_limit")


def _rows_read(conn, fmt, request, **extra):
    """The export's bytes and the datavalue rows its queries read (scanned or fetched), from the
    transaction's own statistics: exact, whatever the machine's speed."""
    conn.autocommit = False
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT pg_stat_get_xact_tuples_returned('datavalue'::regclass)"
                        " + pg_stat_get_xact_tuples_fetched('datavalue'::regclass)")
            before = cur.fetchone()[0]
        data = dve.copy_bytes(conn, fmt, **request, **extra)
        with conn.cursor() as cur:
            cur.execute("SELECT pg_stat_get_xact_tuples_returned('datavalue'::regclass)"
                        " + pg_stat_get_xact_tuples_fetched('datavalue'::regclass)")
            return data, cur.fetchone()[0] - before
    finally:
        conn.rollback()
        conn.autocommit = True


@contextlib.contextmanager
def _planner(conn, *settings):
    """The request for every value (deleted ones too) and the table's row count, with planner
    settings (enable_* = off) applied for the duration."""
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM datavalue")
        table_rows = cur.fetchone()[0]
        for setting in settings:
            cur.execute("SET %s = off" % setting)
    try:
        yield table_rows
    finally:
        with conn.cursor() as cur:
            for setting in settings:
                cur.execute("RESET %s" % setting)


def _every_value(all_data_sets):
    return dict(data_set=all_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END,
                org_unit=[dve.ROOT_OU], children=True, include_deleted=True)


def test_a_first_page_reads_only_its_first_periods(fresh_conn, all_data_sets):
    """DHIS2's order starts with the period, so a page stops reading once the periods read so far
    fill it (a doubling batch of periods per query, through the primary key): the first page reads
    a fraction of the table, a page at the end reads each row once, and both are the slices of
    the full order. Index scans are forced here; the planner's own choice is the next test."""
    request = _every_value(all_data_sets)
    with _planner(fresh_conn, "enable_seqscan") as table_rows:
        full_bytes, full_read = _rows_read(fresh_conn, "json", request)
        full = dve.data_values(dve.parse_json_pairs(full_bytes))
        assert full_read >= table_rows, (full_read, table_rows)

        first, first_read = _rows_read(fresh_conn, "json", request, limit=5)
        assert dve.data_values(dve.parse_json_pairs(first)) == full[:5]
        assert first_read < table_rows / 10, (first_read, table_rows)

        last, last_read = _rows_read(fresh_conn, "json", request, limit=50, offset=len(full) - 20)
        assert dve.data_values(dve.parse_json_pairs(last)) == full[-20:]
        assert table_rows <= last_read <= 3 * table_rows, (last_read, table_rows)

        # An order that does not start with the period cannot stop early: one query reads every row.
        other, other_read = _rows_read(fresh_conn, "json", request, limit=5, order="OU,PE")
        assert other_read >= table_rows, (other_read, table_rows)
        assert len(dve.data_values(dve.parse_json_pairs(other))) == 5


def test_a_page_scans_the_table_at_most_twice(fresh_conn, all_data_sets):
    """With sequential scans (forced here, as the planner picks them for small tables), a batch
    that read far more rows than it returned sends every remaining period to one last query:
    about two reads of the table at most, not one per batch."""
    request = _every_value(all_data_sets)
    with _planner(fresh_conn, "enable_indexscan", "enable_bitmapscan") as table_rows:
        full = dve.data_values(dve.parse_json_pairs(_rows_read(fresh_conn, "json", request)[0]))
        for offset in (0, len(full) // 2, len(full) - 20):
            page, read = _rows_read(fresh_conn, "json", request, limit=50, offset=offset)
            assert dve.data_values(dve.parse_json_pairs(page)) == full[offset:offset + 50]
            assert read <= 2 * table_rows, (offset, read, table_rows)


RENDER_MARK = "rendered on a second thread"


SHARE_MARK = "and on this one while it is behind"


def _export_rendering(conn, render_thread, run_memory, fmt, request, **extra):
    """(document bytes, whether the merge rendered on the second thread) of one ordered export.
    render_thread: True or False, or one of the setting's values by name."""
    setting = {True: "on", False: "off"}.get(render_thread, render_thread)
    with conn.cursor() as cur:
        cur.execute("SET client_min_messages = debug1")
        cur.execute("SET datavalue_export.render_thread = %s" % setting)
    del conn.notices[:]
    try:
        doc = _export(conn, run_memory, fmt, request, **extra)
    finally:
        with conn.cursor() as cur:
            cur.execute("RESET datavalue_export.render_thread")  # psycopg2 hands over the COPY's notices here
    return doc, any(RENDER_MARK in n for n in conn.notices)


@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {}), ("xml", {}), ("json", {"style": "2.42"}),
                                       ("csv", {"style": "2.42", "id_scheme": "CODE"}),
                                       ("json", {"order": "OU,CREATED"}),
                                       ("json", {"limit": 3000, "offset": 1234})],
                         ids=["json", "csv", "xml", "json-242", "csv-242-code", "order", "page"])
@pytest.mark.parametrize("run_memory", ["1GB", "64kB"])
def test_rendering_on_a_second_thread_writes_the_same_document(fresh_conn, demo_request, fmt, extra, run_memory):
    """The final merge hands each row's record to a thread that renders it (core/render_thread):
    from one run in memory (1GB) and from spilled runs merged in several passes (64kB), the
    document is byte for byte the one the backend renders itself. A page of 4,234 rows is kept in
    a bounded heap at 1GB (no merge, so no thread) and falls back to sorted runs at 64kB."""
    request = dict(demo_request, include_deleted=True)
    threaded, used = _export_rendering(fresh_conn, True, run_memory, fmt, request, **extra)
    backend, used_off = _export_rendering(fresh_conn, False, run_memory, fmt, request, **extra)
    assert used == ("limit" not in extra or run_memory == "64kB"), fresh_conn.notices[-5:]
    assert not used_off
    assert len(threaded) > 100_000
    assert threaded == backend


@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {}), ("xml", {}), ("json", {"style": "2.42"}),
                                       ("json", {"limit": 30000, "offset": 1234})],
                         ids=["json", "csv", "xml", "json-242", "page"])
@pytest.mark.parametrize("setting", ["alternate", "thread_only"])
def test_the_backends_share_of_the_rendering_writes_the_same_document(fresh_conn, demo_request, fmt, extra, setting):
    """With render_thread = on the backend renders a batch itself whenever the thread is behind
    (its text takes that batch's place); how many it renders depends on the two cores' speeds.
    The hidden setting alternate makes it render every other batch whatever the speeds, so the
    path is taken in every run; thread_only leaves all of it to the thread. Both give the bytes
    the backend writes alone, from spilled runs (64kB) and from one run in memory (1GB)."""
    request = dict(demo_request, include_deleted=True)
    for run_memory in ("64kB", "1GB"):
        if "limit" in extra and run_memory == "1GB":
            continue  # a page that fits memory takes the bounded heap, without the thread
        shared, used = _export_rendering(fresh_conn, setting, run_memory, fmt, request, **extra)
        shared_mark = any(SHARE_MARK in n for n in fresh_conn.notices)
        alone, _ = _export_rendering(fresh_conn, False, run_memory, fmt, request, **extra)
        assert used, fresh_conn.notices[-5:]
        assert shared_mark == (setting == "alternate")
        assert len(shared) > 100_000
        assert shared == alone, run_memory


def test_a_select_keeps_its_rows_when_the_backend_would_share(fresh_conn, demo_request):
    """A plain SELECT returns the document in rows cut where the text was flushed. The backend's
    share would move those cuts from run to run, so a SELECT leaves the rendering to the thread:
    its rows are the ones an export rendered on the backend alone returns, piece for piece."""
    request = dict(demo_request, include_deleted=True)

    def pieces(setting):
        with fresh_conn.cursor() as cur:
            cur.execute("SET datavalue_export.render_thread = %s" % setting)
            cur.execute("SET datavalue_export.sort_run_memory = '64kB'")
            cur.execute("SELECT chunk FROM %s AS chunk" % dve.call("json", **request))
            rows = [r[0] for r in cur.fetchall()]
            cur.execute("RESET datavalue_export.render_thread")
            cur.execute("RESET datavalue_export.sort_run_memory")
        return rows

    alone = pieces("off")
    assert len(alone) > 3
    assert pieces("alternate") == alone
    assert pieces("on") == alone


def test_a_gzip_export_renders_on_the_backend_and_a_zip_export_on_the_thread(fresh_conn, demo_request):
    """gzip already compresses on a second thread, so its merge renders on the backend; zip
    compresses on the backend, so its merge renders on the thread. Either way the compressed
    document holds exactly the plain one (one gzip member; one zip entry)."""
    request = dict(demo_request, include_deleted=True)
    plain, _ = _export_rendering(fresh_conn, False, "256kB", "json", request)
    for level in ({}, {"compression_level": 6}):
        compressed, used = _export_rendering(fresh_conn, True, "256kB", "json", request, compression="gzip", **level)
        assert not used
        member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        assert member.decompress(compressed) == plain, level
        assert member.eof and member.unused_data == b"", "not exactly one gzip member"
    archive, used = _export_rendering(fresh_conn, True, "256kB", "json", request, compression="zip")
    assert used
    assert not any(SHARE_MARK in n for n in fresh_conn.notices), "zip's deflate sees the text's cuts"
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        names = z.namelist()
        assert len(names) == 1
        assert z.read(names[0]) == plain


def test_a_gb18030_client_gets_the_transcoded_document(fresh_conn, demo_request):
    """Text rendered on the thread is transcoded by the backend before it is sent, as before:
    GB18030 encodes all of Unicode, so every value converts, multibyte ones included."""
    request = dict(demo_request, include_deleted=True)
    utf8, _ = _export_rendering(fresh_conn, False, "256kB", "csv", request)
    fresh_conn.set_client_encoding("GB18030")
    try:
        converted, used = _export_rendering(fresh_conn, True, "256kB", "csv", request)
    finally:
        fresh_conn.set_client_encoding("UTF8")
    assert used
    assert converted == utf8.decode("utf-8").encode("gb18030")
    assert converted != utf8, "the document holds no character that GB18030 writes differently"


def test_spilled_runs_go_to_temp_tablespaces_set_outside_a_transaction(fresh_conn, demo_request):
    """temp_tablespaces is read per transaction (PrepareTempTablespaces): a session-level SET must
    place the runs there, as it does for PostgreSQL's own sorts. log_temp_files reports each
    file's path as it is removed, to this client at client_min_messages = log."""
    location = tempfile.mkdtemp(prefix="dve_it_tblspc_")
    pw = pwd.getpwnam("postgres")
    os.chown(location, pw.pw_uid, pw.pw_gid)
    with fresh_conn.cursor() as cur:
        cur.execute("CREATE TABLESPACE dve_it_temp LOCATION %s", (location,))
    try:
        with fresh_conn.cursor() as cur:
            cur.execute("SELECT oid FROM pg_tablespace WHERE spcname = 'dve_it_temp'")
            oid = cur.fetchone()[0]
            cur.execute("SET temp_tablespaces = dve_it_temp")
            cur.execute("SET log_temp_files = 0")
            cur.execute("SET client_min_messages = log")
        del fresh_conn.notices[:]
        _export(fresh_conn, "64kB", "json", demo_request)
        with fresh_conn.cursor() as cur:
            cur.execute("SELECT 1")  # psycopg2 collects a COPY's notices at the next statement
        paths = [m.group(1) for m in (re.search(r'temporary file: path "([^"]+)"', n) for n in fresh_conn.notices)
                 if m]
        assert len(paths) > 2, fresh_conn.notices[:5]
        assert all(p.startswith("pg_tblspc/%d/" % oid) for p in paths), paths[:3]
    finally:
        with fresh_conn.cursor() as cur:
            cur.execute("RESET temp_tablespaces")
            cur.execute("DROP TABLESPACE dve_it_temp")
        shutil.rmtree(location, ignore_errors=True)


def test_an_empty_page_reads_and_sorts_nothing(fresh_conn, demo_request):
    """"limit" => 0 is an empty page: no ordered scan runs for it (its DEBUG1 phase message says
    when one does), while a page of one row runs one."""
    with fresh_conn.cursor() as cur:
        cur.execute("SET client_min_messages = debug1")
    phases = {}
    for limit in (0, 1):
        del fresh_conn.notices[:]
        doc = dve.copy_bytes(fresh_conn, "json", limit=limit, **demo_request)
        with fresh_conn.cursor() as cur:
            cur.execute("SELECT 1")  # psycopg2 collects a COPY's notices at the next statement
        phases[limit] = sum("ordered export: rows read and sorted" in n for n in fresh_conn.notices)
        assert doc.endswith(b"[]}") == (limit == 0)
    assert phases == {0: 0, 1: 1}
