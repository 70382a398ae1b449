#!/usr/bin/env python3
"""
bench/ab_builds.py
    A paired A/B of library builds on one export (ordered unless --order): wall time and the backend's CPU time.

On a noisy machine (this project's 2-core VM ran the same export at two speeds on some days) a
change of a few percent shows only when the builds alternate in the same minutes. For each round
and each build this installs the build's datavalue_export.so (an atomic rename in pg_config's
pkglibdir), restarts the cluster of test/cluster.sh, runs one untimed export, then PER timed ones:
COPY (SELECT export_datavalues_json(<every data set, 2009-12-28..2027-01-10, whole country>)) TO
STDOUT, read and discarded by psycopg2. The backend's CPU is utime + stime from /proc/<pid>/stat,
which includes its threads (the sorter and the stager) once they have ended. The library installed
before the run is put back at the end. Besides each build's medians over all rounds it prints the
median over rounds of each build's wall time against the first build's in the same round: this
machine's speed drifts by a third over minutes, and a ratio within one round drifts less.

    sudo python3 bench/ab_builds.py bench_1000000 /tmp/before.so /tmp/after.so
    sudo python3 bench/ab_builds.py --rounds 4 --per 2 bench_10000000 /tmp/before.so /tmp/after.so
    sudo python3 bench/ab_builds.py --set "SET datavalue_export.sort_run_memory = '256MB'" ...
    sudo python3 bench/ab_builds.py --order none bench_1000000 /tmp/before.so /tmp/after.so
    sudo python3 bench/ab_builds.py --start 2024-01-01 --end 2024-12-31 bench_1000000 \
        /tmp/after.so "/tmp/after.so::SET datavalue_export.direct_heap_scan = off"

A build given as LIBRARY::SQL runs that statement first in its sessions (after --set): one library
under two settings is an A/B of the setting, with the same restarts and alternation as two builds.
--start and --end narrow the request's period range (a filtered export), --org-unit exports another org unit's
subtree, and --param adds a named parameter (e.g. --param org_unit_id_scheme=name).
--psql-to FILE exports with `psql \\copy` to FILE (one psql per export, as bench/run.sh runs them) instead of
psycopg2 discarding, and reports psql's CPU time instead of the backend's.

Run as root on the server's machine (it replaces the installed library, restarts the cluster and
reads /proc), with the environment of `eval "$(test/cluster.sh env)"`. A development tool: it is
not part of bench/run.sh.
SPDX-License-Identifier: PostgreSQL
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

import psycopg2

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "..", "test", "cluster.sh")


def install(library, target):
    shutil.copyfile(library, target + ".tmp")
    os.rename(target + ".tmp", target)


def restart():
    subprocess.run(["bash", CLUSTER, "stop"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["bash", CLUSTER, "start"], check=True, stdout=subprocess.DEVNULL)


def cpu_ms(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def export_sql(cur, request):
    """The COPY of the export the arguments describe (--start, --end, --order, --org-unit, --param)."""
    cur.execute("SELECT '{' || string_agg(uid, ',') || '}' FROM dataset")
    data_sets = cur.fetchone()[0]
    org_unit = "ARRAY[%s]" % (cur.mogrify("%s", (request.org_unit,)).decode() if request.org_unit else
                              "(SELECT uid FROM organisationunit WHERE parentid IS NULL ORDER BY uid LIMIT 1)")
    extra = ""
    for param in request.param:
        name, _, value = param.partition("=")
        if not name.isidentifier():
            raise SystemExit("--param %r: expected NAME=VALUE" % param)
        extra += cur.mogrify(", %s => %%s" % name, (value,)).decode()
    return cur.mogrify(
        "COPY (SELECT export_datavalues_json(data_set => %s, start_date => %s::date, end_date => %s::date, "
        "org_unit => " + org_unit + ", children => true, \"order\" => %s" + extra.replace("%", "%%") + ")) TO STDOUT",
        (data_sets, request.start, request.end, request.order)).decode()


def measure_psql(dbname, per, settings, request, out):
    """psql \\copy to the file OUT, one psql (and one backend) per export, as bench/run.sh runs it.

    The second number of each sample is psql's CPU time (user + system), not the backend's: the backend
    is gone before it could be read."""
    conn = psycopg2.connect(dbname=dbname)
    copy = export_sql(conn.cursor(), request)
    conn.close()
    script = "".join(s + ";\n" for s in settings if s) + "\\copy (" + copy[len("COPY ("):-len(" TO STDOUT")] \
        + " TO '" + out + "'\n"
    command = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dbname]
    samples = []
    for i in range(per + 1):  # the first one untimed: the file's pages and the server's caches
        before, wall_before = os.times(), time.monotonic()
        subprocess.run(command, input=script.encode(), check=True)
        wall = (time.monotonic() - wall_before) * 1000.0
        after = os.times()
        cpu = (after.children_user + after.children_system - before.children_user - before.children_system) * 1000.0
        if i:
            samples.append((wall, cpu))
    os.unlink(out)
    return samples


def measure(dbname, per, settings, request):
    conn = psycopg2.connect(dbname=dbname)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SELECT pg_backend_pid()")
    pid = cur.fetchone()[0]
    for setting in settings:
        if setting:
            cur.execute(setting)
    copy = export_sql(cur, request)
    samples = []
    with open(os.devnull, "w") as sink:
        cur.copy_expert(copy, sink)  # untimed: caches and the first plan
        for _ in range(per):
            cpu_before, wall_before = cpu_ms(pid), time.monotonic()
            cur.copy_expert(copy, sink)
            wall = (time.monotonic() - wall_before) * 1000.0
            samples.append((wall, cpu_ms(pid) - cpu_before))
    conn.close()
    return samples


def main():
    parser = argparse.ArgumentParser(description="paired A/B of library builds on one ordered export")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--per", type=int, default=4, help="timed exports per build and round")
    parser.add_argument("--set", dest="setting", help="an SQL statement run first in each session")
    parser.add_argument("--start", default="2009-12-28", help="the request's start date (default: every period)")
    parser.add_argument("--end", default="2027-01-10", help="the request's end date")
    parser.add_argument("--order", help="the export's order parameter, e.g. none (default: DHIS2's order)")
    parser.add_argument("--org-unit", metavar="UID", help="the org unit exported with its children (default: the root)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="another named parameter of the export, e.g. org_unit_id_scheme=name (repeatable)")
    parser.add_argument("--psql-to", metavar="FILE",
                        help="export with psql \\copy to FILE (e.g. in /dev/shm), one psql per export, as bench/run.sh"
                        " does; the CPU column is then psql's (default: psycopg2 reads and discards)")
    parser.add_argument("dbname")
    parser.add_argument("libraries", nargs="+", help="builds to compare, each LIBRARY or LIBRARY::SQL")
    args = parser.parse_args()
    pkglibdir = subprocess.check_output(["pg_config", "--pkglibdir"]).decode().strip()
    target = os.path.join(pkglibdir, "datavalue_export.so")
    backup = target + ".ab_builds"
    shutil.copyfile(target, backup)
    results = {lib: [] for lib in args.libraries}
    rounds = []  # per round: each build's median wall time in that round
    try:
        for round_number in range(args.rounds):
            walls = {}
            # In two A/Bs of the same two builds, one in each order (10M, 2026-12-02), whichever ran second
            # in its round was about 9% faster: every other round runs the builds in reverse order.
            order = args.libraries if round_number % 2 == 0 else args.libraries[::-1]
            for lib in order:
                library, _, setting = lib.partition("::")
                install(library, target)
                restart()
                if args.psql_to:
                    samples = measure_psql(args.dbname, args.per, [args.setting, setting], args, args.psql_to)
                else:
                    samples = measure(args.dbname, args.per, [args.setting, setting], args)
                results[lib] += samples
                walls[lib] = statistics.median(w for w, _ in samples)
            rounds.append(walls)
    finally:
        install(backup, target)
        os.unlink(backup)
        restart()
    # The machine's speed drifts over minutes: the ratio within each round (builds minutes apart at most)
    # is steadier than the ratio of overall medians.
    first = args.libraries[0]
    cpu_label = "psql CPU" if args.psql_to else "backend CPU"
    print("| build | exports | wall median, ms | wall min, ms | %s median, ms | wall / first build's, median of rounds |"
          % cpu_label)
    print("|---|--:|--:|--:|--:|--:|")
    for lib in args.libraries:
        walls = [w for w, _ in results[lib]]
        cpus = [c for _, c in results[lib]]
        ratio = statistics.median(r[lib] / r[first] for r in rounds)
        library, separator, setting = lib.partition("::")
        name = os.path.basename(library) + separator + setting
        print("| %s | %d | %.1f | %.1f | %.0f | %.3f |" % (name, len(walls), statistics.median(walls),
                                                         min(walls), statistics.median(cpus), ratio))
    print("\nper round, median wall ms: " + "; ".join(
        " / ".join("%.0f" % r[lib] for lib in args.libraries) for r in rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
