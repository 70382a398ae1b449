#!/usr/bin/env python3
"""
bench/sort_memory.py
    Peak backend memory of an ordered export per datavalue_export.sort_run_memory setting.

The export's memory should stay near the setting whatever the export's size (runs are merged
as they accumulate, and a merge reads at most setting / 32 kB runs). This samples the exporting
backend's private memory (RssAnon in /proc/<pid>/status) every 20 ms during
COPY (SELECT export_datavalues_json(<every data set, 2023-2024, whole country>)) TO STDOUT,
read and discarded by the client, and prints the growth over the idle session.

    python3 bench/sort_memory.py bench_10000000 64kB 1MB 16MB

Run it on the same machine as the server (it reads /proc); PG* environment variables connect
(eval "$(test/cluster.sh env)").
SPDX-License-Identifier: PostgreSQL
"""
import sys
import threading
import time

import psycopg2


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0


def measure(dbname, run_memory):
    conn = psycopg2.connect(dbname=dbname)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SELECT pg_backend_pid()")
    pid = cur.fetchone()[0]
    cur.execute("SET datavalue_export.sort_run_memory = %s", (run_memory,))
    cur.execute("SELECT '{' || string_agg(uid, ',') || '}' FROM dataset")
    data_sets = cur.fetchone()[0]
    base = rss_kb(pid)
    peak = [base]
    done = [False]

    def sample():
        while not done[0]:
            try:
                peak[0] = max(peak[0], rss_kb(pid))
            except OSError:
                pass
            time.sleep(0.02)

    class Discard:
        size = 0

        def write(self, data):
            self.size += len(data)

    sampler = threading.Thread(target=sample)
    sampler.start()
    sink = Discard()
    started = time.monotonic()
    try:
        cur.copy_expert("COPY (SELECT export_datavalues_json(data_set => '%s', start_date => '2023-01-01', "
                        "end_date => '2024-12-31', org_unit => '{ImspTQPwCqd}', children => true, "
                        "include_deleted => true)) TO STDOUT" % data_sets, sink)
    finally:
        done[0] = True
        sampler.join()
        conn.close()
    return sink.size, time.monotonic() - started, (peak[0] - base) / 1024


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: sort_memory.py DBNAME SETTING [SETTING ...]   e.g. bench_1000000 64kB 1MB 16MB")
    print("| sort_run_memory | document bytes | seconds | peak backend memory growth |")
    print("|---|--:|--:|--:|")
    for setting in sys.argv[2:]:
        size, seconds, growth = measure(sys.argv[1], setting)
        print("| %s | %d | %.1f | %.1f MB |" % (setting, size, seconds, growth))


if __name__ == "__main__":
    main()
