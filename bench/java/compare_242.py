#!/usr/bin/env python3
"""bench/java/compare_242.py - does the Java DHIS2 2.42 peer write the same bytes as our style => '2.42'?

    bench/java/compare_242.py DBNAME [--keep DIR]

Runs, on the benchmark's request (every data set, the database's whole period range, the root
org unit with children), once each:
  1. the Java peer with --order dhis2 (the 2.43 order plus a full tie-break: the order our
     export writes), compared byte for byte with export_datavalues_json(..., style => '2.42');
  2. the Java peer as DHIS2 2.42 runs it (no ORDER BY), compared as a multiset of dataValues
     elements, since 2.42's row order is whatever the planner produces.
When bytes differ it says why, element by element: order only, or content, and for content
whether the difference is Jackson's escaping of supplementary characters (each UTF-16 surrogate
as \\uD83D\\uDE00, where the extension writes raw UTF-8), by re-encoding those escapes and
comparing again. Exit status 0 when the only differences are explained, 1 otherwise.

Connects like psql (PGHOST, PGPORT, PGUSER). Writes about 3 x 300 MB at 1M values under $TMPDIR.
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT_OU = "ImspTQPwCqd"
# Elements of "dataValues" are separated by this; it cannot occur inside a JSON string, where
# the quote would be escaped.
ELEMENT_SEPARATOR = b'},{"dataElement":'
SURROGATE_PAIR = re.compile(rb"\\u(D[89AB][0-9A-F]{2})\\u(D[C-F][0-9A-F]{2})")


def psql(db, sql):
    out = subprocess.run(["psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", db, "-c", sql],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def raw_supplementary(data):
    """Jackson's \\uD83D\\uDE00 pairs as the raw UTF-8 of the character they encode."""
    def one(m):
        hi, lo = int(m.group(1), 16), int(m.group(2), 16)
        return chr(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)).encode("utf-8")
    return SURROGATE_PAIR.sub(one, data)


def elements(data):
    """The dataValues elements, without the document's opening and closing, so order can change."""
    head, tail = b'{"dataValues":[{"dataElement":', b"}]}"
    if data.startswith(head) and data.endswith(tail):
        data = data[len(head):-len(tail)]
    return data.split(ELEMENT_SEPARATOR)


def run_java(db, request, out, order):
    classpath = subprocess.run(["bash", os.path.join(BENCH_DIR, "java", "build.sh")], check=True,
                               capture_output=True, text=True).stdout.strip()
    args = ["java", "-Duser.timezone=UTC", "-cp", classpath, "Dhis242JsonExport", "--db", db,
            "--data-sets", ",".join(request["data_sets"]), "--start", request["start"], "--end", request["end"],
            "--org-unit", ROOT_OU, "--out", out, "--no-wait", "--warmup-rows", "0", "--order", order]
    done = subprocess.run(args, check=True, capture_output=True, text=True).stdout.split()
    return int(done[1])


def run_ours(db, request, out):
    array = "ARRAY[" + ",".join("'%s'" % u for u in request["data_sets"]) + "]::text[]"
    call = ("export_datavalues_json(data_set => %s, start_date => DATE '%s', end_date => DATE '%s',"
            " org_unit => ARRAY['%s'], children => true, style => '2.42')"
            % (array, request["start"], request["end"], ROOT_OU))
    tag = subprocess.run(["psql", "-X", "-v", "ON_ERROR_STOP=1", "-d", db, "-c",
                          "\\copy (SELECT %s) TO '%s'" % (call, out)], check=True, capture_output=True, text=True)
    return int(tag.stdout.split()[-1])


def describe(label, ours, java, ordered):
    """Print how the two documents differ; return True when every difference is explained."""
    if ours == java:
        print(f"{label}: byte-identical ({len(ours):,} bytes)")
        return True
    a, b = elements(ours), elements(java)
    print(f"{label}: differ ({len(ours):,} bytes ours, {len(java):,} Java; {len(a):,} and {len(b):,} elements)")
    if ordered and len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        print(f"  {len(diff)} elements differ in place")
    same_multiset = collections.Counter(a) == collections.Counter(b)
    if same_multiset:
        print("  same elements, different order only")
        return not ordered
    java_raw = raw_supplementary(java)
    if java_raw == ours:
        n = len(SURROGATE_PAIR.findall(java))
        print(f"  identical once Jackson's {n} surrogate-pair escapes are written as raw UTF-8:"
              " the only difference is the escaping of supplementary characters")
        return True
    if collections.Counter(elements(java_raw)) == collections.Counter(a):
        print("  same elements once surrogate-pair escapes are written as raw UTF-8; the order differs"
              " (DHIS2 2.42 has no ORDER BY)")
        return not ordered
    only_ours = collections.Counter(a) - collections.Counter(elements(java_raw))
    only_java = collections.Counter(elements(java_raw)) - collections.Counter(a)
    print(f"  unexplained: {sum(only_ours.values())} elements only in ours, {sum(only_java.values())} only in Java")
    for e in list(only_ours)[:3]:
        print("   ours:", e[:300])
    for e in list(only_java)[:3]:
        print("   java:", e[:300])
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("--keep", help="keep the three documents in this directory")
    args = ap.parse_args()
    start, end = psql(args.db, "SELECT min(startdate), max(enddate) FROM period").split("|")
    request = {"data_sets": psql(args.db, "SELECT uid FROM dataset ORDER BY uid").split("\n"),
               "start": start, "end": end}
    tmp = args.keep or tempfile.mkdtemp(prefix="dve_compare_242_")
    os.makedirs(tmp, exist_ok=True)
    try:
        paths = {k: os.path.join(tmp, k + ".json") for k in ("ours_242", "java_ordered", "java_unordered")}
        n_ours = run_ours(args.db, request, paths["ours_242"])
        n_ordered = run_java(args.db, request, paths["java_ordered"], "dhis2")
        n_unordered = run_java(args.db, request, paths["java_unordered"], "none")
        print(f"values: ours {n_ours:,}, Java ordered {n_ordered:,}, Java unordered {n_unordered:,}")
        with open(paths["ours_242"], "rb") as f:
            ours = f.read()
        ok = True
        with open(paths["java_ordered"], "rb") as f:
            ok &= describe("Java --order dhis2 vs ours style 2.42", ours, f.read(), ordered=True)
        with open(paths["java_unordered"], "rb") as f:
            ok &= describe("Java as 2.42 (no ORDER BY) vs ours style 2.42", ours, f.read(), ordered=False)
        ok &= n_ours == n_ordered == n_unordered
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
