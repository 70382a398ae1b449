#!/usr/bin/env python3
"""
bench/sort_memory.py
    Peak backend memory and phase times of an ordered export per datavalue_export.sort_run_memory
    setting.

The export's memory should stay near the setting whatever the export's size (runs are merged
as they accumulate, and a merge reads at most setting / 32 kB runs). This samples the exporting
backend's private memory (RssAnon in /proc/<pid>/status) every 20 ms during
COPY (SELECT export_datavalues_json(<every data set, 2023-2024, whole country>)) TO STDOUT,
read and discarded by the client, and prints the growth over the idle session. From the
export's DEBUG1 messages it also prints how many runs the final merge read and how long the two
phases took (reading and sorting the rows; merging and sending them): a larger setting means
fewer, longer runs and a shallower merge, which is how to see what the merge's depth costs.

    python3 bench/sort_memory.py bench_10000000 64kB 1MB 16MB
    python3 bench/sort_memory.py --rounds 3 bench_10000000 32MB 256MB 1GB   (settings interleaved)

Run it on the same machine as the server (it reads /proc); PG* environment variables connect
(eval "$(test/cluster.sh env)").
SPDX-License-Identifier: PostgreSQL
"""
import re
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
    cur.execute("SET client_min_messages = debug1")
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
        elapsed = time.monotonic() - started
        cur.execute("SELECT 1")  # psycopg2 files the notices that arrived during COPY at the next statement
        messages = "".join(conn.notices)
    finally:
        done[0] = True
        sampler.join()
        conn.close()
    return sink.size, elapsed, (peak[0] - base) / 1024, phases(messages)


def phases(messages):
    """Runs of the final merge and the two phases (ms) from the export's DEBUG1 messages."""
    last_in_memory = re.search(r"merging (\d+) spilled runs and the last run", messages)
    merged = re.search(r"merged \d+ run groups in extra passes, fan-in (\d+)", messages)
    times = re.search(r"rows read and sorted in (\d+) ms, merged and sent in (\d+) ms", messages)
    if last_in_memory:
        runs = str(int(last_in_memory.group(1)) + 1)
    elif merged:
        runs = "fan-in %s or more" % merged.group(1)  # every run spilled; the count is not reported
    else:
        runs = "1 (in memory)" if times else "-"
    return runs, (times.group(1) if times else "-"), (times.group(2) if times else "-")


def main():
    args = sys.argv[1:]
    rounds = 1
    if len(args) >= 2 and args[0] == "--rounds":
        rounds = int(args[1])
        args = args[2:]
    if len(args) < 2:
        sys.exit("usage: sort_memory.py [--rounds K] DBNAME SETTING [SETTING ...]   e.g. bench_1000000 64kB 1MB 16MB")
    print("| sort_run_memory | document bytes | seconds | peak backend memory growth | runs merged"
          " | read and sorted, ms | merged and sent, ms |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    measure(args[0], args[1])  # untimed: a Python process's first COPY here was 2-4x slower than the next ones
    for _ in range(rounds):
        for setting in args[1:]:
            size, seconds, growth, (runs, read_ms, send_ms) = measure(args[0], setting)
            print("| %s | %d | %.1f | %.1f MB | %s | %s | %s |" % (setting, size, seconds, growth, runs, read_ms,
                                                                  send_ms))


if __name__ == "__main__":
    main()
