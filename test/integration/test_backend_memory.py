"""
test/integration/test_backend_memory.py
    A backend that runs export after export (a connection pool's) returns to its size between
    them: what an export frees, including what its threads allocated in their own malloc arenas,
    is given back to the system, not kept by the C library for reuse (it grew by about 4 MB per
    export of this small demo, and by 10 to 20 MB per export of the 1M one, with no bound).
SPDX-License-Identifier: PostgreSQL
"""
import dve


def _rss_anon_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    raise AssertionError("no RssAnon in /proc/%d/status" % pid)


def test_repeated_exports_do_not_grow_the_backend(fresh_conn, all_data_sets):
    request = dict(data_set=all_data_sets, start_date=dve.ALL_START, end_date=dve.ALL_END, org_unit=[dve.ROOT_OU],
                   children=True, include_deleted=True)
    with fresh_conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
    # The first export loads what stays for the session (catalog caches, the library's own state).
    assert len(dve.copy_bytes(fresh_conn, "csv", **request)) > 100000
    after_first = _rss_anon_kb(pid)
    for _ in range(4):
        dve.copy_bytes(fresh_conn, "json", compression="gzip", **request)  # a compression thread
        dve.copy_bytes(fresh_conn, "csv", **request)  # the sorting and staging threads
    grown = _rss_anon_kb(pid) - after_first
    assert grown < 8 * 1024, "the backend kept %d kB more after 8 more exports" % grown
