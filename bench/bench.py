#!/usr/bin/env python3
"""bench/bench.py - the datavalue_export end-to-end benchmark driver (run it through bench/run.sh).

Measures, on one demo database and one request (the whole demo), the export functions against
PostgreSQL's own ways of producing the same rows and against DHIS2 2.42's writer (the Java peer
in bench/java/), K interleaved repetitions each, and prints a markdown report (variants table,
targets table, optional micro-benchmark summary) that is also written to
bench/results/<timestamp>.md with the raw numbers in <timestamp>.json.

Method and the meaning of every variant: bench/README.md. Python standard library only; every
database access goes through psql, like a user's would, except the Java peer's (PgJDBC, like
DHIS2's).
"""

import argparse
import datetime
import glob
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
RESULTS_DIR = os.path.join(BENCH_DIR, "results")

ROOT_OU = "ImspTQPwCqd"
MB = 1e6  # output sizes and rates are in decimal megabytes
MEMORY_POLL_SECONDS = 0.005
COMMAND_TIMEOUT_SECONDS = 4 * 3600
CLK_TCK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024

# Targets of issue 4 (bench/README.md, "Reading the targets table").
TARGET_JSON_VS_NATIVE = 3.0  # our JSON at least 3x faster than native COPY CSV (ordered)
TARGET_JSON_VS_TRANSPORT = 1.4  # our ordered JSON at most 1.4x the transport floor (issue 12)
TARGET_ORDERED_VS_UNORDERED = 1.15  # ordered JSON at most 1.15x "order" => 'none' (issue 12)
TARGET_PAGE_VS_FULL = 0.2  # "limit" => 50 at most 0.2x the full ordered export (issue 12)
TARGET_CSV_VS_NATIVE = 4.0  # our CSV at least 4x faster than native COPY CSV (ordered)
TARGET_GZIP_VS_JSON = 1.10  # gzip JSON at most 1.10x our plain JSON (issue 12; 1.4x before)
TARGET_XML_VS_JSON = 1.2  # DXF2 XML at most 1.2x our plain JSON
TARGET_MEMORY_MB = 64.0  # peak backend memory growth of an export below 64 MB
TARGET_LINEAR = 1.25  # per-value time at the larger size at most 1.25x the smaller size's
TARGET_FLAT_MB = 8.0  # peak memory growth at the larger size at most 8 MB above the smaller's
TARGET_VS_DHIS2_242 = 15.0  # our JSON at least 15x faster than DHIS2 2.42's writer (issue 12), at 1M and 10M


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# psql helpers


def psql_base(db):
    return ["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", db]


def psql(db, sql):
    """Run SQL through psql and return its unaligned, tuples-only output."""
    proc = subprocess.run(psql_base(db) + ["-c", sql], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"psql failed on {db}: {proc.stderr.strip()}\nSQL: {sql[:500]}")
    return proc.stdout.strip()


def sql_literal(s):
    return "'" + s.replace("'", "''") + "'"


def sql_text_array(items):
    return "ARRAY[" + ",".join(sql_literal(x) for x in items) + "]::text[]"


# ---------------------------------------------------------------------------------------------
# /proc sampling of the backend that runs an export


def read_status(pid):
    """RssAnon, RssShmem, VmHWM in kB from /proc/<pid>/status (None when the process is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except OSError:
        return None
    out = {}
    for key in ("RssAnon", "RssShmem", "VmHWM", "VmRSS"):
        m = re.search(rf"^{key}:\s+(\d+) kB", text, re.M)
        out[key] = int(m.group(1)) if m else 0
    return out


def read_cpu_seconds(pid):
    """User + system CPU seconds of a process from /proc/<pid>/stat (None when gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def read_steal_seconds():
    """CPU time the hypervisor gave other guests while this VM's CPUs wanted to run, all CPUs summed
    ("steal" in /proc/stat); 0 on bare metal. A run with steal was slowed by the host, not by its work."""
    with open("/proc/stat") as f:
        fields = f.readline().split()
    return int(fields[8]) / CLK_TCK if len(fields) > 8 else 0.0


class MemoryPoller(threading.Thread):
    """Samples the backend's private anonymous memory (RssAnon) every few milliseconds."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid = pid
        self.stop_event = threading.Event()
        self.peak_anon_kb = 0
        self.samples = 0

    def run(self):
        while not self.stop_event.is_set():
            status = read_status(self.pid)
            if status is None:
                return
            self.samples += 1
            self.peak_anon_kb = max(self.peak_anon_kb, status["RssAnon"])
            self.stop_event.wait(MEMORY_POLL_SECONDS)

    def stop(self):
        self.stop_event.set()
        self.join()


# ---------------------------------------------------------------------------------------------
# One measured command in its own psql session


class Session:
    """A psql process fed commands on stdin; output lines are read back as they come.

    The session first reports its backend's pid and is then idle, so the baseline memory and
    CPU readings are taken before the measured command is even sent. The clock runs from
    writing the command to reading the line psql echoes after it, i.e. it covers the command,
    psql receiving and writing every byte, and nothing of connection setup or teardown.
    """

    def __init__(self, db, setup_commands=()):
        self.proc = subprocess.Popen(
            ["psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", db],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.watchdog = threading.Timer(COMMAND_TIMEOUT_SECONDS, self.proc.kill)
        self.watchdog.daemon = True
        self.watchdog.start()
        for cmd in setup_commands:
            self.send(cmd)
        self.send("SELECT 'BACKEND_PID', pg_backend_pid();")
        lines = self.run_until_marker("__READY__")
        pids = [l.split("|")[1] for l in lines if l.startswith("BACKEND_PID|")]
        if not pids:
            self.fail("no backend pid")
        self.backend_pid = int(pids[0])

    def send(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def run_until_marker(self, marker):
        self.send(f"\\echo {marker}")
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                self.fail("psql ended early")
            line = line.rstrip("\n")
            if line == marker:
                return lines
            lines.append(line)

    def fail(self, what):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        err = self.proc.stderr.read()
        self.proc.wait()
        self.watchdog.cancel()
        raise RuntimeError(f"{what}: {err.strip()}")

    def close(self):
        self.proc.stdin.close()
        err = self.proc.stderr.read()
        rc = self.proc.wait()
        self.watchdog.cancel()
        if rc != 0:
            raise RuntimeError(f"psql exited with {rc}: {err.strip()}")


def measure(db, variant, command, setup_commands=()):
    """Run one command in a fresh session; return its timing, memory and output lines."""
    session = Session(db, setup_commands)
    bpid, cpid = session.backend_pid, session.proc.pid
    base = read_status(bpid)
    base_cpu_backend = read_cpu_seconds(bpid)
    base_cpu_psql = read_cpu_seconds(cpid)
    poller = MemoryPoller(bpid)
    poller.peak_anon_kb = base["RssAnon"]
    poller.start()
    base_steal = read_steal_seconds()
    t0 = time.monotonic()
    session.send(command)
    lines = session.run_until_marker("__DONE__")
    seconds = time.monotonic() - t0
    steal = read_steal_seconds() - base_steal
    poller.stop()
    end = read_status(bpid)
    cpu_backend = read_cpu_seconds(bpid) - base_cpu_backend
    cpu_psql = read_cpu_seconds(cpid) - base_cpu_psql
    session.close()
    server_ms = None
    copy_rows = None
    values = []
    for line in lines:
        m = re.match(r"^Time: ([0-9.]+) ms", line)
        if m:
            server_ms = float(m.group(1))
            continue
        m = re.match(r"^COPY (\d+)$", line)
        if m:
            copy_rows = int(m.group(1))
            continue
        values.append(line)
    return {
        "variant": variant,
        "wall_seconds": seconds,
        "timing_seconds": server_ms / 1000 if server_ms is not None else None,
        "copy_rows": copy_rows,
        "output_lines": values,
        "rss_anon_growth_mb": (max(poller.peak_anon_kb, end["RssAnon"]) - base["RssAnon"]) / 1024,
        "vmhwm_growth_mb": (end["VmHWM"] - base["VmHWM"]) / 1024,
        "rss_shmem_end_mb": end["RssShmem"] / 1024,
        "memory_samples": poller.samples,
        "backend_cpu_seconds": cpu_backend,
        "psql_cpu_seconds": cpu_psql,
        "steal_seconds": steal,
        "backend_pid": bpid,
    }


def java_classpath():
    """Compile the DHIS2 2.42 Java peer (bench/java/build.sh) and return its classpath."""
    proc = subprocess.run(["bash", os.path.join(BENCH_DIR, "java", "build.sh")], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"bench/java/build.sh failed: {proc.stderr.strip()}")
    return proc.stdout.strip()


def measure_java(db, variant, args):
    """Run the Java peer; time it like a psql command: from "go" to its DONE line.

    The program connects and warms its JIT up (an untimed export of a few rows to /dev/null)
    first, then reports its backend pid and waits, so connection setup, JVM start and JIT
    warm-up are not timed, as a running DHIS2 server has paid them long before a request.
    """
    proc = subprocess.Popen(
        ["java", "-Duser.timezone=UTC", "-cp", variant["classpath"], "Dhis242JsonExport", "--db", db] + args,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    watchdog = threading.Timer(COMMAND_TIMEOUT_SECONDS, proc.kill)
    watchdog.daemon = True
    watchdog.start()

    def fail(what):
        proc.kill()
        err = proc.stderr.read()
        proc.wait()
        watchdog.cancel()
        raise RuntimeError(f"{variant['name']}: {what}: {err.strip()[-2000:]}")

    bpid = None
    while True:
        line = proc.stdout.readline()
        if line == "":
            fail("the Java peer ended before it was ready")
        if line.startswith("BACKEND_PID "):
            bpid = int(line.split()[1])
        if line.strip() == "READY":
            break
    if bpid is None:
        fail("no backend pid")
    base = read_status(bpid)
    base_cpu_backend = read_cpu_seconds(bpid)
    base_cpu_client = read_cpu_seconds(proc.pid)
    poller = MemoryPoller(bpid)
    poller.peak_anon_kb = base["RssAnon"]
    poller.start()
    base_steal = read_steal_seconds()
    t0 = time.monotonic()
    proc.stdin.write("go\n")
    proc.stdin.flush()
    done = proc.stdout.readline()
    seconds = time.monotonic() - t0
    steal = read_steal_seconds() - base_steal
    poller.stop()
    # Check the reply first: a peer that died took its backend with it, and its stderr says why.
    m = re.match(r"^DONE (\d+) ([0-9.]+)$", done.strip())
    if not m:
        fail(f"unexpected output {done.strip()!r}")
    # The peer keeps its session until its stdin closes, so its backend is still there to read.
    end = read_status(bpid)
    end_cpu_backend = read_cpu_seconds(bpid)
    if end is None or end_cpu_backend is None:
        fail("the backend ended before its CPU and memory were read")
    cpu_backend = end_cpu_backend - base_cpu_backend
    cpu_client = read_cpu_seconds(proc.pid) - base_cpu_client
    proc.stdin.close()
    if proc.wait() != 0:
        fail(f"exit status {proc.returncode}")
    proc.stderr.close()
    proc.stdout.close()
    watchdog.cancel()
    return {
        "variant": variant["name"],
        "wall_seconds": seconds,
        "timing_seconds": float(m.group(2)),  # the program's own clock, for reference
        "copy_rows": int(m.group(1)),
        "output_lines": [],
        "rss_anon_growth_mb": (max(poller.peak_anon_kb, end["RssAnon"]) - base["RssAnon"]) / 1024,
        "vmhwm_growth_mb": (end["VmHWM"] - base["VmHWM"]) / 1024,
        "rss_shmem_end_mb": end["RssShmem"] / 1024,
        "memory_samples": poller.samples,
        "backend_cpu_seconds": cpu_backend,
        "psql_cpu_seconds": cpu_client,  # the client's CPU: here the JVM, all its threads
        "steal_seconds": steal,
        "backend_pid": bpid,
    }


# ---------------------------------------------------------------------------------------------
# The request and the variants


def flush_bytes():
    """The export's output batch (one CopyData message), read from the source; 256 kB if not found."""
    path = os.path.join(REPO, "src", "pg", "export_session.hpp")
    try:
        with open(path) as f:
            m = re.search(r"kFlushBytes\s*=\s*(\d+)\s*\*\s*(\d+)", f.read())
        if m:
            return int(m.group(1)) * int(m.group(2))
    except OSError:
        pass
    return 256 * 1024


class Request:
    """The one filter every variant uses: all data sets, the whole period range, the root with children."""

    def __init__(self, db):
        self.data_sets = [x for x in psql(db, "SELECT uid FROM dataset ORDER BY uid").split("\n") if x]
        if not self.data_sets:
            raise RuntimeError(f"{db} has no data sets")
        self.ds_array = sql_text_array(self.data_sets)
        # The full period range of the database, so the request is the whole demo (the bulk is
        # 2023-2024; the demo also has edge periods well outside it).
        self.start_date, self.end_date = psql(db, "SELECT min(startdate), max(enddate) FROM period").split("|")
        self.joins = (
            "FROM datavalue dv"
            " JOIN dataelement de ON de.dataelementid = dv.dataelementid"
            " JOIN period pe ON pe.periodid = dv.periodid"
            " JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid"
            " JOIN categoryoptioncombo coc ON coc.categoryoptioncomboid = dv.categoryoptioncomboid"
            " JOIN categoryoptioncombo aoc ON aoc.categoryoptioncomboid = dv.attributeoptioncomboid"
        )
        self.where = (
            " WHERE dv.dataelementid IN (SELECT dse.dataelementid FROM datasetelement dse"
            f" JOIN dataset ds ON ds.datasetid = dse.datasetid WHERE ds.uid = ANY({self.ds_array}))"
            f" AND pe.startdate >= DATE '{self.start_date}' AND pe.enddate <= DATE '{self.end_date}'"
            f" AND ou.path LIKE '/{ROOT_OU}%'"
            " AND NOT dv.deleted"
        )
        self.order = " ORDER BY pe.startdate, pe.enddate, dv.created, de.uid"
        self.columns = (
            "de.uid AS dataelement, pe.iso AS period, ou.uid AS orgunit, coc.uid AS categoryoptioncombo,"
            " aoc.uid AS attributeoptioncombo, dv.value, dv.storedby, dv.created, dv.lastupdated,"
            " dv.comment, dv.followup, dv.deleted"
        )
        self.json_object = (
            "json_build_object('dataElement', de.uid, 'period', pe.iso, 'orgUnit', ou.uid,"
            " 'categoryOptionCombo', coc.uid, 'attributeOptionCombo', aoc.uid, 'value', dv.value,"
            " 'storedBy', dv.storedby, 'created', dv.created, 'lastUpdated', dv.lastupdated,"
            " 'comment', dv.comment, 'followup', dv.followup, 'deleted', dv.deleted)"
        )
        self.count_sql = f"SELECT count(*) {self.joins}{self.where}"

    def ours(self, function, extra=""):
        return (
            f"{function}(data_set => {self.ds_array}, start_date => DATE '{self.start_date}',"
            f" end_date => DATE '{self.end_date}', org_unit => ARRAY['{ROOT_OU}'], children => true{extra})"
        )


SERIAL = ("SET max_parallel_workers_per_gather = 0;",)
# The read floor's query; floor_scan_then_send runs the same scan before sending.
READ_FLOOR_SQL = "SELECT count(followup) FROM datavalue WHERE NOT deleted"
# Floors that send as many bytes as our JSON export, so they are built after its warm-up run.
SIZED_BY_OUR_JSON = {"transport", "floor_scan_then_send"}
TIMING = ("\\timing on",)


def build_variants(req):
    """Every variant: name, description, command template ({out} = output file), options."""
    v = []

    def add(name, what, command, group, out="file", setup=(), timing="wall", check_rows=False, check=None, runner="psql"):
        v.append(
            dict(
                name=name,
                what=what,
                command=command,
                group=group,
                out=out,
                setup=setup,
                timing=timing,
                check_rows=check_rows,
                check=check,
                runner=runner,
            )
        )

    add(
        "floor_scan",
        "bare serial scan: count(*) of datavalue WHERE NOT deleted (server-side \\timing)",
        "SELECT count(*) FROM datavalue WHERE NOT deleted;",
        "floor",
        out=None,
        setup=SERIAL + TIMING,
        timing="server",
    )
    add(
        "floor_read",
        "serial scan reading every exported column: count(followup) of datavalue WHERE NOT deleted (server-side \\timing)",
        READ_FLOOR_SQL + ";",
        "floor",
        out=None,
        setup=SERIAL + TIMING,
        timing="server",
    )
    add(
        "floor_join",
        "bare serial six-way join count(*) of the selected rows (server-side \\timing)",
        req.count_sql + ";",
        "floor",
        out=None,
        setup=SERIAL + TIMING,
        timing="server",
    )
    add(
        "native_csv",
        "native COPY (six-way join ORDER BY DHIS2 order) TO STDOUT (FORMAT csv), psql \\copy to a file",
        f"\\copy (SELECT {req.columns} {req.joins}{req.where}{req.order}) TO '{{out}}' (FORMAT csv)",
        "native",
        check_rows=True,
    )
    add(
        "native_csv_unordered",
        "native COPY CSV as above without ORDER BY",
        f"\\copy (SELECT {req.columns} {req.joins}{req.where}) TO '{{out}}' (FORMAT csv)",
        "native",
        check_rows=True,
    )
    add(
        "native_json",
        "native COPY of json_build_object(...) rows, ordered, one object per line (text format)",
        f"\\copy (SELECT {req.json_object} {req.joins}{req.where}{req.order}) TO '{{out}}'",
        "native",
        check_rows=True,
    )
    add(
        "transport",
        "transport floor: COPY (FORMAT binary) of constant bytea chunks, export's message size, our JSON's byte count",
        None,  # filled in once our JSON's size is known
        "floor",
    )
    add(
        "floor_scan_then_send",
        "ordered-export floor: the read floor's scan, then the transport floor's bytes, in one COPY (FORMAT binary);"
        " what an ordered export takes if its own work were free (it can send no row before its scan ends)",
        None,  # filled in once our JSON's size is known
        "floor",
        setup=SERIAL,
    )
    add(
        "ours_json",
        "export_datavalues_json, psql \\copy to a file",
        f"\\copy (SELECT {req.ours('export_datavalues_json')}) TO '{{out}}'",
        "ours",
        check_rows=True,
        check="json",
    )
    add(
        "ours_json_devnull",
        "export_datavalues_json, psql \\copy to /dev/null (no file write)",
        f"\\copy (SELECT {req.ours('export_datavalues_json')}) TO '/dev/null'",
        "ours",
        out="devnull",
        check_rows=True,
    )
    add(
        "ours_json_unordered",
        "export_datavalues_json with \"order\" => 'none', \\copy to a file",
        "\\copy (SELECT " + req.ours("export_datavalues_json", ', "order" => ' + sql_literal("none")) + ") TO '{out}'",
        "ours",
        check_rows=True,
        check="json",
    )
    add(
        "ours_json_unordered_devnull",
        "export_datavalues_json with \"order\" => 'none', \\copy to /dev/null (no file write)",
        "\\copy (SELECT " + req.ours("export_datavalues_json", ', "order" => ' + sql_literal("none")) + ") TO '/dev/null'",
        "ours",
        out="devnull",
        check_rows=True,
    )
    add(
        "ours_json_limit50",
        "export_datavalues_json with \"limit\" => 50 (the first page of the DHIS2 order), \\copy to a file",
        "\\copy (SELECT " + req.ours("export_datavalues_json", ', "limit" => 50') + ") TO '{out}'",
        "ours",
        check="json",
    )
    add(
        "ours_csv",
        "export_datavalues_csv, \\copy to a file",
        f"\\copy (SELECT {req.ours('export_datavalues_csv')}) TO '{{out}}'",
        "ours",
        check_rows=True,
        check="csv",
    )
    add(
        "ours_json_gzip",
        "export_datavalues_json with compression => 'gzip' (default level), \\copy to a file",
        f"\\copy (SELECT {req.ours('export_datavalues_json', ', compression => ' + sql_literal('gzip'))}) TO '{{out}}'",
        "ours",
        check_rows=True,
        check="gzip",
    )
    add(
        "ours_json_242",
        "export_datavalues_json with style => '2.42' (DHIS2 2.42's shape), \\copy to a file",
        "\\copy (SELECT " + req.ours("export_datavalues_json", ", style => " + sql_literal("2.42")) + ") TO '{out}'",
        "ours",
        check_rows=True,
        check="json",
    )
    add(
        "dhis2_242_java",
        "DHIS2 2.42's export path in Java: its SQL over PgJDBC (fetch size, no ORDER BY), Jackson"
        " UTF8JsonGenerator to a file (bench/java)",
        # the Java peer's arguments; {out} is the output file
        ["--data-sets", ",".join(req.data_sets), "--start", req.start_date, "--end", req.end_date,
         "--org-unit", ROOT_OU, "--out", "{out}"],
        "peer",
        check_rows=True,
        check="json",
        runner="java",
    )
    add(
        "ours_xml",
        "export_datavalues_xml (DXF2 XML, 2.43), \\copy to a file",
        f"\\copy (SELECT {req.ours('export_datavalues_xml')}) TO '{{out}}'",
        "ours",
        check_rows=True,
        check="xml",
    )
    add(
        "ours_json_zip",
        "export_datavalues_json with compression => 'zip' (default level), \\copy to a file",
        f"\\copy (SELECT {req.ours('export_datavalues_json', ', compression => ' + sql_literal('zip'))}) TO '{{out}}'",
        "ours",
        check_rows=True,
        check="zip",
    )
    add(
        "ours_json_select",
        "SELECT count(*) FROM export_datavalues_json(...): server-side null sink, includes the tuplestore",
        f"SELECT count(*) FROM {req.ours('export_datavalues_json')};",
        "ours",
        out=None,
        setup=TIMING,
        timing="server",
    )
    return v


def transport_command(json_bytes, chunk, scan_first=False):
    """COPY BINARY of constant bytea chunks: the bytes of our JSON with no rendering and no escaping.

    repeat() and decode() are immutable, so the planner folds each chunk into one constant;
    per row the server only copies the chunk into the CopyData message (binary COPY does not
    escape). Output = json_bytes + 6 bytes per chunk + 21 bytes of file header/trailer.

    scan_first joins every chunk to a materialized count over the read floor's scan: an
    aggregate returns its row only after its last input row, so no byte leaves before the scan
    ends, as in an ordered export.
    """
    full, rest = divmod(json_bytes, chunk)
    parts = []
    if full:
        rows = f"scanned, generate_series(1, {full})" if scan_first else f"generate_series(1, {full})"
        parts.append(f"SELECT decode(repeat('78', {chunk}), 'hex') AS b FROM {rows}")
    if rest or not parts:
        parts.append(f"SELECT decode(repeat('78', {max(rest, 1)}), 'hex')" + (" FROM scanned" if scan_first else ""))
    query = " UNION ALL ".join(parts)
    if scan_first:
        query = f"WITH scanned AS MATERIALIZED ({READ_FLOOR_SQL}) " + query
    return f"\\copy ({query}) TO '{{out}}' (FORMAT binary)"


def check_output(path, kind):
    """Cheap sanity check of an output file's first and last bytes."""
    if kind is None or path is None:
        return None
    with open(path, "rb") as f:
        head = f.read(64)
        f.seek(max(0, os.path.getsize(path) - 22))  # a zip's end record is the last 22 bytes
        tail = f.read()
    if kind == "json" and not (head.startswith(b"{") and tail.rstrip().endswith(b"]}")):
        return f"not a JSON document: {head[:30]!r} ... {tail!r}"
    if kind == "csv" and not head.startswith(b"dataelement,period,orgunit,"):
        return f"no CSV header: {head[:40]!r}"
    if kind == "gzip" and not head.startswith(b"\x1f\x8b\x08"):
        return f"not gzip: {head[:10]!r}"
    if kind == "xml" and not (head.startswith(b"<?xml version='1.0' encoding='UTF-8'?><dataValueSet")
                              and tail.endswith(b"</dataValueSet>")):
        return f"not a DXF2 XML document: {head[:40]!r} ... {tail!r}"
    if kind == "zip" and not (head.startswith(b"PK\x03\x04") and tail.startswith(b"PK\x05\x06")):
        return f"not a zip archive: {head[:10]!r}"
    return None


# ---------------------------------------------------------------------------------------------
# Running all variants


def wait_for_server(seconds=300):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if subprocess.run(["pg_isready", "-q"]).returncode == 0:
            return
        time.sleep(2)
    raise RuntimeError("the server did not come back")


def run_once(db, variant, scratch, expected_rows, problems, notes):
    """One measurement; retried (twice at most) when the shared cluster restarts under it."""
    for attempt in range(3):
        try:
            return run_once_attempt(db, variant, scratch, expected_rows, problems)
        except RuntimeError as e:
            if attempt == 2 or not re.search(r"terminating connection|server closed|connection to server", str(e)):
                raise
            log(f"{variant['name']}: connection lost ({str(e).splitlines()[0]}); waiting for the server, then retrying")
            notes.append(f"{variant['name']}: retried after the server restarted or terminated the session")
            wait_for_server()
            time.sleep(5)


def run_once_attempt(db, variant, scratch, expected_rows, problems):
    out_path = None
    command = variant["command"]
    if variant["out"] == "file":
        out_path = os.path.join(scratch, f"{variant['name']}.out")
        if isinstance(command, str):
            command = command.replace("{out}", out_path)
    if variant["runner"] == "java":
        m = measure_java(db, variant, [a.replace("{out}", out_path) for a in command])
    else:
        m = measure(db, variant["name"], command, variant["setup"])
    size = None
    if out_path is not None:
        size = os.path.getsize(out_path)
        problem = check_output(out_path, variant["check"])
        if problem:
            problems.add(f"{variant['name']}: {problem}")
        os.unlink(out_path)
        # Write back whatever is dirty (temporary files, other outputs), so no run pays for the last one's.
        os.sync()
    m["output_bytes"] = size
    if variant["check_rows"] and m["copy_rows"] != expected_rows:
        problems.add(f"{variant['name']}: COPY reported {m['copy_rows']} rows, the independent count is {expected_rows}")
    m["seconds"] = m["timing_seconds"] if variant["timing"] == "server" else m["wall_seconds"]
    return m


# A bound on an output's size per selected row. The largest measured is native COPY's JSON at 349 bytes
# (DXF2 XML about 330, ours 280). 500 asked 19.8 GB free for the 10M run, more than a 24 GB machine has
# left beside 5 GB of huge pages, and sent its outputs to the disk.
OUTPUT_BYTES_PER_ROW = 400


def choose_scratch(requested, expected_rows):
    """Where the variants write their files, and a line for the report saying so.

    Every variant writes its whole output through psql (or the JVM) to a file. On disk, the 10M
    outputs (about 3 GB each) pass the kernel's dirty-page thresholds, so the disk's writeback
    runs during the timed runs, on the same two cores, and 10M times varied from 3.5 to 6.7 s
    between identical runs. On tmpfs the client still copies every byte into the page cache,
    and the disk is left out. --scratch picks the directory; by default /dev/shm when it is a
    tmpfs with room for two outputs, else $TMPDIR or /tmp.
    """
    if requested:
        return requested, f"{requested} (--scratch)"
    need = 2 * OUTPUT_BYTES_PER_ROW * max(expected_rows, 1)
    try:
        st = os.statvfs("/dev/shm")
        tmpfs = any(line.split()[1:3] == ["/dev/shm", "tmpfs"] for line in open("/proc/mounts"))
        if tmpfs and st.f_bavail * st.f_frsize >= need and mem_available_bytes() >= 2 * need:
            return "/dev/shm", "/dev/shm (tmpfs: written to memory; the disk's writeback is not timed)"
    except OSError:
        pass
    fallback = tempfile.gettempdir()
    return fallback, f"{fallback} (no tmpfs with room for two outputs; the disk's writeback is timed too)"


def mem_available_bytes():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


def run_size(args, db, values_label):
    req = Request(db)
    expected = int(psql(db, req.count_sql))
    total_live = int(psql(db, "SELECT count(*) FROM datavalue WHERE NOT deleted"))
    total_all = int(psql(db, "SELECT count(*) FROM datavalue"))
    log(
        f"{db}: {total_all} values ({total_live} not deleted); the request selects {expected} "
        f"(independent six-way join count, {len(req.data_sets)} data sets, {req.start_date}..{req.end_date}, "
        f"{ROOT_OU} with children)"
    )
    print(f"Selected rows (independent SQL count): {expected}", flush=True)
    variants = build_variants(req)
    if args.only:
        wanted = set(args.only.split(","))
        if wanted & SIZED_BY_OUR_JSON:
            wanted.add("ours_json")
        variants = [x for x in variants if x["name"] in wanted]
    problems = set()
    notes = []
    if any(x["runner"] == "java" for x in variants):
        try:
            classpath = java_classpath()
        except (RuntimeError, OSError) as e:
            log(f"the Java peer is left out: {e}")
            notes.append(f"dhis2_242_java left out: {str(e).splitlines()[0]}")
            variants = [x for x in variants if x["runner"] != "java"]
            classpath = None
        for x in variants:
            if x["runner"] == "java":
                x["classpath"] = classpath
    by_name = {x["name"]: x for x in variants}
    chunk = flush_bytes()
    scratch_dir, scratch_note = choose_scratch(args.scratch, expected)
    log(f"output files: {scratch_note}")
    scratch = tempfile.mkdtemp(prefix="dve_bench_", dir=scratch_dir)
    results = {x["name"]: [] for x in variants}
    try:
        # Warm-up: one untimed run of each, in table order; ours_json's size sizes the transport floor.
        json_bytes = None
        warmup = [x for x in variants if x["name"] not in SIZED_BY_OUR_JSON]
        warmup += [x for x in variants if x["name"] in SIZED_BY_OUR_JSON]
        for variant in warmup:
            if variant["name"] in SIZED_BY_OUR_JSON:
                if json_bytes is None:
                    raise RuntimeError(f"{variant['name']} needs ours_json")
                variant["command"] = transport_command(json_bytes, chunk, variant["name"] == "floor_scan_then_send")
            log(f"warm-up {variant['name']}")
            m = run_once(db, variant, scratch, expected, problems, notes)
            if variant["name"] == "ours_json":
                json_bytes = m["output_bytes"]
        # Timed: K rounds, each running every variant once in its own shuffled order. A rotation
        # kept each variant behind the same neighbour, and what one leaves behind can cost the
        # next: ours_json took 0.598 s (median of 7) right after floor_scan_then_send against
        # 0.530-0.544 s after transport, floor_read or ours_json_242. Seeded: a rerun repeats it.
        for rep in range(args.reps):
            order = list(variants)
            random.Random(rep).shuffle(order)
            for variant in order:
                m = run_once(db, variant, scratch, expected, problems, notes)
                results[variant["name"]].append(m)
                log(
                    f"rep {rep + 1}/{args.reps} {variant['name']:<21} {m['seconds']:8.3f} s"
                    f"  rss +{m['rss_anon_growth_mb']:.1f} MB"
                )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {
        "db": db,
        "values": values_label,
        "total_values": total_all,
        "live_values": total_live,
        "selected_rows": expected,
        "data_sets": len(req.data_sets),
        "start_date": req.start_date,
        "end_date": req.end_date,
        "chunk_bytes": chunk,
        "json_bytes": json_bytes,
        "scratch": scratch_note,
        "table_mb": int(psql(db, "SELECT pg_relation_size('datavalue')")) // (1024 * 1024),
        "shared_buffers_mb": int(psql(db, "SELECT setting::bigint * 8192 / (1024 * 1024) FROM pg_settings WHERE name = 'shared_buffers'")),
        "variants": [
            {k: by_name[name][k] for k in ("name", "what", "group", "timing")} | {"runs": runs}
            for name, runs in results.items()
        ],
        "problems": sorted(problems),
        "notes": notes,
        "native_plan": native_plan(db, req),
    }


def native_plan(db, req):
    """One-line summary of the native ordered query's plan (parallel or not, sort kind)."""
    plan = psql(db, f"EXPLAIN (COSTS off) SELECT {req.columns} {req.joins}{req.where}{req.order}")
    workers = re.search(r"Workers Planned: (\d+)", plan)
    parts = [f"parallel, {workers.group(1)} workers planned" if workers else "serial"]
    if "Gather Merge" in plan:
        parts.append("Gather Merge")
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------------
# Summaries and the report


def summarize(size):
    rows = size["selected_rows"]
    out = {}
    for v in size["variants"]:
        secs = [r["seconds"] for r in v["runs"]]
        if not secs:
            continue
        sizes = [r["output_bytes"] for r in v["runs"] if r["output_bytes"] is not None]
        out[v["name"]] = {
            "what": v["what"],
            "group": v["group"],
            "timing": v["timing"],
            "median": statistics.median(secs),
            "seconds": secs,  # one a round, in round order (paired_ratio)
            "min": min(secs),
            "max": max(secs),
            "us_per_value": statistics.median(secs) / rows * 1e6 if rows else None,
            "output_bytes": statistics.median(sizes) if sizes else None,
            "peak_rss_mb": max(r["rss_anon_growth_mb"] for r in v["runs"]),
            "backend_cpu": statistics.median(r["backend_cpu_seconds"] for r in v["runs"]),
            "psql_cpu": statistics.median(r["psql_cpu_seconds"] for r in v["runs"]),
            # Steal as a share of the CPU time the VM's cores had over each run, the worst run's.
            "steal_pct": max(100 * r["steal_seconds"] / (r["wall_seconds"] * CORES) for r in v["runs"]),
        }
    json_bytes = out.get("ours_json", {}).get("output_bytes")
    for name in ("ours_json_devnull", "ours_json_unordered_devnull", "ours_json_select"):
        if name in out and json_bytes:
            out[name]["output_bytes"] = json_bytes
            out[name]["bytes_inferred"] = True
    return out


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return f"{x:.{digits}f}"


def variants_table(summary):
    native = summary.get("native_csv", {}).get("median")
    ours = summary.get("ours_json", {}).get("median")
    lines = [
        "| variant | median s | min s | max s | µs/value | output MB | MB/s | speedup vs native CSV |"
        " time / our JSON | peak RSS MB | backend CPU s | client CPU s | steal % |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for name, s in summary.items():
        mb = s["output_bytes"] / MB if s["output_bytes"] is not None else None
        mb_text = "-" if mb is None else (f"({mb:.1f})" if s.get("bytes_inferred") else f"{mb:.1f}")
        rate = mb / s["median"] if mb is not None and s["median"] > 0 else None
        label = name + (" ¹" if s["timing"] == "server" else "")
        lines.append(
            f"| {label} | {fmt(s['median'])} | {fmt(s['min'])} | {fmt(s['max'])} | {fmt(s['us_per_value'], 2)} |"
            f" {mb_text} | {fmt(rate, 0)} |"
            f" {ratio(native, s['median'])} | {ratio(s['median'], ours)} | {fmt(s['peak_rss_mb'], 1)} |"
            f" {fmt(s['backend_cpu'], 2)} | {fmt(s['psql_cpu'], 2)} | {fmt(s['steal_pct'], 1)} |"
        )
    return "\n".join(lines)


def ratio(num, den):
    return f"{num / den:.2f}x" if num and den else "-"


def verdict(ok):
    if ok is None:
        return "n/a"
    return "PASS" if ok else "FAIL"


def targets_table(summary, scaling):
    def med(name):
        return summary.get(name, {}).get("median")

    rows = []

    def ratio_row(text, num, den, threshold, at_least):
        if num is None or den is None or den == 0:
            rows.append((text, "-", ("≥ " if at_least else "≤ ") + f"{threshold}x", "n/a"))
            return
        r = num / den
        ok = r >= threshold if at_least else r <= threshold
        rows.append((text, f"{r:.2f}x", ("≥ " if at_least else "≤ ") + f"{threshold}x", verdict(ok)))

    # An ordered export sends nothing before its scan ends, and psql then needs at least the
    # transport floor to take the bytes: reading the rows and then moving the bytes is what an
    # ordered export would take if its own work (encoding, sorting, merging, rendering) were free.
    # floor_scan_then_send measures that in one command; without it (--only), the two floors'
    # medians are added. The three targets that compare the ordered export are each shown
    # against that time, so a FAIL can be read as the extension's own cost or as the floors'
    # (PostgreSQL's COPY path; the export's own sink, with its larger socket buffer, can move
    # bytes faster). A reference above a target's threshold means the target asks for more than
    # PostgreSQL's own scan and COPY give; the strict lower bound below is what no export can beat.
    read_then_move, bound_name = med("floor_scan_then_send"), "scan-then-send floor"
    if read_then_move is None:
        bound_name = "(read floor + transport)"
        if med("floor_read") and med("transport"):
            read_then_move = med("floor_read") + med("transport")
    # A strict lower bound: the bare serial scan, then psql's own CPU time for our bytes through
    # our sink (taken from the unordered export, which sends the same bytes). psql can do none
    # of that work before an ordered export's first row, which comes after the scan, and our
    # sink's larger socket buffer cannot make psql's part smaller. What lies between this bound
    # and the scan-then-send floor is work an ordered export could in principle avoid.
    client_cpu = summary.get("ours_json_unordered", {}).get("psql_cpu")
    scan_then_client = med("floor_scan") + client_cpu if med("floor_scan") and client_cpu else None
    bound_strict = "(bare scan + psql CPU of the unordered export)"

    def reference_row(text, num, den):
        if num and den:
            rows.append((f"(reference, not a target) {text}", f"{num / den:.2f}x", "-", "info"))

    # This VM's speed drifts by half over minutes, so the medians of two variants can come from
    # different speeds. Every round runs each variant once: the median of the rounds' own ratios
    # compares the two at the same speed. Shown beside the target, which stays on the medians.
    def paired_row(text, num_name, den_name):
        num = summary.get(num_name, {}).get("seconds") or []
        den = summary.get(den_name, {}).get("seconds") or []
        if len(num) == len(den) and num and all(d > 0 for d in den):
            r = statistics.median(n / d for n, d in zip(num, den))
            rows.append((f"(reference, not a target) {text}", f"{r:.2f}x", "-", "info"))

    ratio_row(
        "our JSON ≥ 3x faster than native COPY CSV (ordered): native / JSON",
        med("native_csv"),
        med("ours_json"),
        TARGET_JSON_VS_NATIVE,
        True,
    )
    ratio_row(
        f"our JSON ≥ {TARGET_VS_DHIS2_242:.0f}x faster than DHIS2 2.42's writer (Java peer): dhis2_242_java / JSON",
        med("dhis2_242_java"),
        med("ours_json"),
        TARGET_VS_DHIS2_242,
        True,
    )
    reference_row(
        "the same for reading the rows, then moving the bytes, with no work of ours (not a bound: an export"
        f" that reads the heap itself and renders while it sends can beat it): dhis2_242_java / {bound_name}",
        med("dhis2_242_java"),
        read_then_move,
    )
    ratio_row(
        f"ordered JSON within {TARGET_ORDERED_VS_UNORDERED}x of \"order\" => 'none': JSON / unordered JSON",
        med("ours_json"),
        med("ours_json_unordered"),
        TARGET_ORDERED_VS_UNORDERED,
        False,
    )
    paired_row(
        "the same, paired by round: median of each round's JSON / unordered JSON", "ours_json", "ours_json_unordered"
    )
    reference_row(
        f"read the rows, then move the bytes, with no work of ours: {bound_name} / unordered JSON",
        read_then_move,
        med("ours_json_unordered"),
    )
    reference_row(
        f"lower bound of any ordered export, the scan then the client's own work: {bound_strict} / unordered JSON",
        scan_then_client,
        med("ours_json_unordered"),
    )
    # The client's work per byte overlaps the unordered export's scan but comes after the ordered one's:
    # the same ratio with psql writing nothing shows how much of the gap is the client's file write.
    reference_row(
        "the same ratio with psql discarding the document (\\copy to /dev/null): JSON / unordered JSON, both to"
        " /dev/null",
        med("ours_json_devnull"),
        med("ours_json_unordered_devnull"),
    )
    ratio_row(
        f"\"limit\" => 50 under {TARGET_PAGE_VS_FULL}x the full ordered export: limit 50 / JSON",
        med("ours_json_limit50"),
        med("ours_json"),
        TARGET_PAGE_VS_FULL,
        False,
    )
    ratio_row(
        f"our JSON within {TARGET_JSON_VS_TRANSPORT}x of the transport floor: JSON / transport",
        med("ours_json"),
        med("transport"),
        TARGET_JSON_VS_TRANSPORT,
        False,
    )
    paired_row("the same, paired by round: median of each round's JSON / transport", "ours_json", "transport")
    reference_row(
        f"the same with no work of ours: {bound_name} / transport", read_then_move, med("transport")
    )
    reference_row(f"the lower bound: {bound_strict} / transport", scan_then_client, med("transport"))
    ratio_row(
        "our CSV ≥ 4x faster than native COPY CSV (ordered): native / CSV",
        med("native_csv"),
        med("ours_csv"),
        TARGET_CSV_VS_NATIVE,
        True,
    )
    ratio_row(
        f"gzip JSON ≤ {TARGET_GZIP_VS_JSON}x our plain JSON: gzip / JSON",
        med("ours_json_gzip"),
        med("ours_json"),
        TARGET_GZIP_VS_JSON,
        False,
    )
    ratio_row(
        "XML ≤ 1.2x our plain JSON: XML / JSON",
        med("ours_xml"),
        med("ours_json"),
        TARGET_XML_VS_JSON,
        False,
    )
    copy_exports = [
        n
        for n in ("ours_json", "ours_json_unordered", "ours_csv", "ours_json_gzip", "ours_xml", "ours_json_zip")
        if n in summary
    ]
    if copy_exports:
        worst = max(copy_exports, key=lambda n: summary[n]["peak_rss_mb"])
        peak = summary[worst]["peak_rss_mb"]
        rows.append(
            (
                "peak backend memory growth of a COPY export < 64 MB (worst of our COPY variants)",
                f"{peak:.1f} MB ({worst})",
                f"< {TARGET_MEMORY_MB:.0f} MB",
                verdict(peak < TARGET_MEMORY_MB),
            )
        )
    if scaling is None:
        rows.append(
            (
                "time linear in values (per-value time, larger vs smaller size)",
                "-",
                f"≤ {TARGET_LINEAR}x",
                "n/a (run with --scaling, or --values 10000000 after a 1M run)",
            )
        )
        rows.append(("memory flat in values (peak growth, larger vs smaller size)", "-", f"≤ +{TARGET_FLAT_MB:.0f} MB", "n/a"))
    else:
        rows.extend(scaling)
    lines = ["| target | measured | threshold | result |", "|---|--:|--:|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(lines)


def scaling_rows(small, big):
    """Compare two sizes' summaries: per-value time of our exports and their peak memory."""
    s, b = small["summary"], big["summary"]
    nb, ns = f"{big['values']:,}", f"{small['values']:,}"
    rows = []
    for name in ("ours_json", "ours_csv", "ours_json_gzip"):
        if name in s and name in b and s[name]["us_per_value"]:
            r = b[name]["us_per_value"] / s[name]["us_per_value"]
            rows.append(
                (
                    f"time linear in values, {name}: µs/value {b[name]['us_per_value']:.3f} at {nb}"
                    f" ÷ {s[name]['us_per_value']:.3f} at {ns}",
                    f"{r:.2f}x",
                    f"≤ {TARGET_LINEAR}x",
                    verdict(r <= TARGET_LINEAR),
                )
            )
    if all(n in x for x in (s, b) for n in ("ours_json", "dhis2_242_java")):
        rs = s["dhis2_242_java"]["median"] / s["ours_json"]["median"]
        rb = b["dhis2_242_java"]["median"] / b["ours_json"]["median"]
        rows.append(
            (
                f"our JSON ≥ {TARGET_VS_DHIS2_242:.0f}x faster than DHIS2 2.42's writer at both sizes (the smaller"
                f" ratio): dhis2_242_java / JSON {rs:.2f}x at {ns}, {rb:.2f}x at {nb}",
                f"{min(rs, rb):.2f}x",
                f"≥ {TARGET_VS_DHIS2_242}x",
                verdict(min(rs, rb) >= TARGET_VS_DHIS2_242),
            )
        )
    for name in ("ours_json", "ours_csv", "ours_json_gzip"):
        if name in s and name in b:
            d = b[name]["peak_rss_mb"] - s[name]["peak_rss_mb"]
            rows.append(
                (
                    f"memory flat in values, {name}: peak {b[name]['peak_rss_mb']:.1f} MB at {nb}"
                    f" − {s[name]['peak_rss_mb']:.1f} MB at {ns}",
                    f"{d:+.1f} MB",
                    f"≤ +{TARGET_FLAT_MB:.0f} MB",
                    verdict(d <= TARGET_FLAT_MB),
                )
            )
    return rows


def shared_memory_page_size(db):
    """Whether the postmaster's main shared memory segment is in 2 MB huge pages or 4 kB pages
    (PostgreSQL 15 has no huge_pages_status): the largest mapping in its smaps says."""
    try:
        datadir = psql(db, "SHOW data_directory")
        with open(os.path.join(datadir, "postmaster.pid")) as f:
            pid = int(f.readline())
        largest, page = 0, None
        size = 0
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                if line.startswith("Size:"):
                    size = int(line.split()[1])
                elif line.startswith("KernelPageSize:") and size > largest:
                    largest, page = size, int(line.split()[1])
        if page is None:
            return None
        kind = "huge pages" if page >= 2048 else "normal pages"
        return f"{kind} ({page} kB) for its {largest // 1024} MB segment"
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def page_reporting():
    """Whether a virtio balloon can hand the guest's free memory back to its host (free page
    reporting, feature bit 5), and whether run.sh paused it (its driver unbound, or the reporting
    order raised) for this run.
    None when the machine has no such balloon."""
    base = "/sys/bus/virtio/devices"
    try:
        devices = sorted(os.listdir(base))
    except OSError:
        return None
    for dev in devices:
        try:
            with open(os.path.join(base, dev, "device")) as f:
                if f.read().strip() != "0x0005":  # virtio balloon
                    continue
            with open(os.path.join(base, dev, "features")) as f:
                if f.read()[5:6] != "1":
                    continue
        except OSError:
            continue
        if os.path.exists(os.path.join(base, dev, "driver")):
            try:
                with open("/sys/module/page_reporting/parameters/page_reporting_order") as f:
                    if int(f.read()) > 10:  # past the largest free block: nothing is reported
                        return ("paused (page_reporting_order raised past the largest free block: run.sh does so"
                                " for its run when the balloon's driver cannot be unbound)")
            except (OSError, ValueError):
                pass
            return "ON: memory the guest frees goes back to the host, and touching it again faults into the host"
        return "paused (the balloon's driver is unbound: run.sh does so for its run and touches the free memory once)"
    return None


def environment(db):
    env = {}
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            env["cpu"] = m.group(1).strip() if m else platform.processor()
    except OSError:
        env["cpu"] = platform.processor()
    env["cores"] = os.cpu_count()
    try:
        with open("/proc/meminfo") as f:
            m = re.search(r"^MemTotal:\s+(\d+) kB", f.read(), re.M)
            env["memory_gb"] = round(int(m.group(1)) / 1024 / 1024, 1)
    except OSError:
        env["memory_gb"] = None
    env["server"] = psql(db, "SHOW server_version")
    env["settings"] = psql(
        db,
        "SELECT string_agg(name || '=' || current_setting(name), ', ' ORDER BY name) FROM pg_settings"
        " WHERE name IN ('shared_buffers', 'work_mem', 'max_parallel_workers_per_gather', 'jit')",
    )

    env["huge_pages"] = shared_memory_page_size(db)
    env["page_reporting"] = page_reporting()

    def git(*a):
        r = subprocess.run(["git", "-C", REPO, *a], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else "?"

    env["git"] = git("rev-parse", "--short", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no")
    env["git_dirty"] = bool(dirty and dirty != "?")
    built = os.path.join(REPO, "datavalue_export.so")
    installed = os.path.join(
        subprocess.run(["pg_config", "--pkglibdir"], capture_output=True, text=True).stdout.strip(),
        "datavalue_export.so",
    )
    env["installed_library_matches_build"] = files_equal(built, installed)
    return env


def loadavg():
    """1-, 5- and 15-minute load averages: other work on the machine shows up here."""
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def files_equal(a, b):
    try:
        if os.path.getsize(a) != os.path.getsize(b):
            return False
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                x, y = fa.read(1 << 20), fb.read(1 << 20)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError:
        return None


def report(sizes, env, args, micro, scaling):
    out = []
    stamp = env["timestamp"]
    out.append(f"# datavalue_export benchmark, {stamp}")
    out.append("")
    out.append(
        f"- machine: {env['cpu']}, {env['cores']} cores, {env['memory_gb']} GB RAM; PostgreSQL {env['server']}"
        f" ({env['settings']})"
    )
    out.append(
        f"- code: git {env['git']}{' + uncommitted changes' if env['git_dirty'] else ''}; installed library"
        f" {'= this build' if env['installed_library_matches_build'] else 'DIFFERS from this build (run without --no-setup)' if env['installed_library_matches_build'] is False else 'not compared'}"
    )
    out.append(f"- load average (1, 5, 15 min): {env['load']}")
    out.append(f"- shared memory pages of the server: {env.get('huge_pages') or 'unknown'} (bench/README.md \"Huge pages\")")
    if env.get("page_reporting"):
        out.append(
            f"- free page reporting of the VM's balloon: {env['page_reporting']}"
            " (bench/README.md \"Free page reporting\")"
        )
    if sizes:
        out.append(
            f"- method: {args.reps} interleaved repetitions per variant, each round in its own shuffled order, after one warm-up run each; medians"
            " (bench/README.md)"
        )
    for size in sizes:
        out.append("")
        out.append(f"## {size['values']:,} values (database {size['db']})")
        out.append("")
        out.append(
            f"Request: all {size['data_sets']} data sets, startDate {size['start_date']}, endDate {size['end_date']},"
            f" orgUnit {ROOT_OU} with children. Selected rows (independent six-way join count):"
            f" **{size['selected_rows']:,}** of {size['total_values']:,} values ({size['live_values']:,} not deleted)."
            f" Native ordered plan: {size['native_plan']}. Export message size {size['chunk_bytes'] // 1024} kB."
            + buffer_note(size)
            + (f" Output files: {size['scratch']}." if size.get("scratch") else "")
        )
        out.append("")
        out.append(variants_table(size["summary"]))
        out.append("")
        out.append(
            "¹ server-side time from psql's `\\timing` (floors serial). Other rows: monotonic clock from sending the"
            " command to psql finishing it (file written), connection setup excluded; dhis2_242_java likewise from"
            " telling the warmed-up JVM to start to its report (JVM start, connection and JIT warm-up excluded)."
            " Output MB in parentheses: not written, our JSON's size. Peak RSS MB: highest growth of the backend's"
            " private memory (RssAnon) over the idle session, sampled every 5 ms, worst of the repetitions; parallel"
            " workers not included. Client CPU: psql's, or the JVM's (all threads) for dhis2_242_java. Steal %:"
            " CPU time the hypervisor gave to other guests while this VM's cores wanted it, as a share of the"
            " cores' time over the run, worst of the repetitions (/proc/stat; 0 on bare metal)."
        )
        if size["problems"]:
            out.append("")
            out.append("**Problems found:**")
            for p in size["problems"]:
                out.append(f"- {p}")
        if size.get("notes"):
            out.append("")
            out.append("Notes: " + "; ".join(size["notes"]) + ".")
        out.append("")
        out.append("### Targets")
        out.append("")
        scale = scaling if size is sizes[-1] else None
        out.append(targets_table(size["summary"], scale))
    if micro:
        out.append("")
        out.append("## Micro-benchmarks (bench/micro, Google Benchmark, Release)")
        out.append("")
        out.append(micro)
    return "\n".join(out) + "\n"


def buffer_note(size):
    """Whether the size's sequential scans read datavalue from shared buffers or through the ring."""
    if "table_mb" not in size:
        return ""
    where = (
        "sequential scans read it from shared buffers."
        if size["table_mb"] * 4 <= size["shared_buffers_mb"]
        else "**larger than a quarter of shared_buffers, so every sequential scan reads it again from the OS page"
        ' cache through a 256 kB ring** (bench/README.md "Hardware note").'
    )
    return f" datavalue table {size['table_mb']} MB, shared_buffers {size['shared_buffers_mb']} MB: {where}"


# ---------------------------------------------------------------------------------------------
# Micro-benchmarks


def micro_summary(path):
    with open(path) as f:
        data = json.load(f)
    lines = ["| benchmark | throughput | items/s | ns/item | note |", "|---|--:|--:|--:|---|"]
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate":
            continue
        bps = b.get("bytes_per_second")
        ips = b.get("items_per_second")
        note = f"compression ratio {b['ratio']:.2f}" if "ratio" in b else ""
        thr = "-" if bps is None else (f"{bps / 1e9:.2f} GB/s" if bps >= 1e9 else f"{bps / 1e6:.0f} MB/s")
        items = "-" if ips is None else (f"{ips / 1e6:.1f} M/s" if ips >= 1e6 else f"{ips / 1e3:.0f} k/s")
        per_item = "-" if not ips else f"{1e9 / ips:.1f}"
        lines.append(f"| {b['name']} | {thr} | {items} | {per_item} | {note} |")
    ctx = data.get("context", {})
    lines.append("")
    lines.append(
        f"Google Benchmark library build type: {ctx.get('library_build_type', '?')} (the Debian package says"
        " debug; only the library is, the code under test is built Release)."
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------


def previous_result(values):
    """The most recent saved result for another, smaller size, for the scaling comparison."""
    best = None
    for path in sorted(glob.glob(os.path.join(RESULTS_DIR, "*.json"))):
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        for size in data.get("sizes", []):
            if size.get("values") and size["values"] < values and "summary" in size:
                if best is None or size["values"] >= best["values"]:
                    best = size | {"source": os.path.basename(path)}
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", action="append", default=[], help="database to measure, as VALUES=DBNAME (repeatable)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", help="comma-separated variant names (development)")
    ap.add_argument("--micro-json", help="Google Benchmark JSON output to summarize")
    ap.add_argument("--scratch", default=None, help="directory for output files (default: /dev/shm when it has room, else $TMPDIR or /tmp)")
    ap.add_argument("--stamp", default=datetime.datetime.utcnow().strftime("%Y%m%dT%H%M%SZ"))
    args = ap.parse_args()
    if args.reps < 1:
        ap.error("--reps must be at least 1")

    load_before = loadavg()
    sizes = []
    for item in args.db:
        values, db = item.split("=", 1)
        size = run_size(args, db, int(values))
        size["summary"] = summarize(size)
        sizes.append(size)

    micro = micro_summary(args.micro_json) if args.micro_json else None
    env = environment(sizes[0]["db"] if sizes else "postgres")
    env["timestamp"] = args.stamp
    env["load"] = f"{load_before} before, {loadavg()} after"

    scaling = None
    if sizes:
        big = sizes[-1]
        small = sizes[0] if len(sizes) > 1 else previous_result(big["values"])
        if small is not None and small["values"] < big["values"]:
            scaling = scaling_rows(small, big)
            if "source" in small:
                scaling.append(
                    (f"(smaller size taken from bench/results/{small['source']})", "", "", "")
                )

    text = report(sizes, env, args, micro, scaling)
    print()
    print(text)
    os.makedirs(RESULTS_DIR, exist_ok=True)
    base = os.path.join(RESULTS_DIR, args.stamp)
    with open(base + ".md", "w") as f:
        f.write(text)
    with open(base + ".json", "w") as f:
        json.dump({"environment": env, "reps": args.reps, "sizes": sizes}, f, indent=1, default=str)
    log(f"report written to bench/results/{args.stamp}.md (raw numbers: {args.stamp}.json)")
    if any(size["problems"] for size in sizes):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
