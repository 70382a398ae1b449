#!/usr/bin/env python3
"""
bench/org_unit_subtree.py
    The fixed cost of an export on a large org unit hierarchy: resolving "children => true".

An export resolves its org units before it reads a data value: the roots, then every org unit
whose path starts with a root's. This copies a demo database (CREATE DATABASE ... TEMPLATE) into
DB_ou<N>, adds N synthetic org units under the country root (as a national hierarchy of that size
would have), and times exports whose period range holds no data, so that only the fixed cost is
left: one for the country with children (every org unit), one for a district with children (its
115 org units of the demo). Then incremental exports of the whole country (every data set, the
values updated since the newest 100, 10,000 and 100,000), ordered and unordered: an export of few
values loads only the org units they use. Medians of K runs each, client-side, for the library
the cluster has loaded. Run it once per build to compare (bench/README.md, "Org unit subtrees").

    python3 bench/org_unit_subtree.py [--org-units N] [--levels L] [--option-combos M] [--runs K] bench_1000000

With --option-combos the copy (DB_ou<N>_coc<M>) also has M more option combos that no value uses,
as a system with many disaggregations or attribute combos (DATIM's mechanisms) has. With --levels
L (2 or more) the N org units are not all children of the country but a tree of L levels under it
(DB_ou<N>_l<L>; each org unit has the same number of children, ids continuing the demo's, as
DHIS2's sequence gives them). Last, exports of every value through psql's \copy to /dev/null:
those load every org unit, and an ordered one ranks them all by path, which deeper paths make
longer to compare.

Environment: that of `eval "$(test/cluster.sh env)"`. A development tool, not part of bench/run.sh.
SPDX-License-Identifier: PostgreSQL
"""
import argparse
import statistics
import subprocess
import time

import psycopg2

COUNTRY = "ImspTQPwCqd"
DISTRICT = "O6uvpzGd5pu"
EMPTY_RANGE = "start_date => DATE '2030-01-01', end_date => DATE '2030-01-31'"


def insert_and_analyze(name, table, sql, args):
    """Run one INSERT in database name, then estimate the table afresh."""
    db = psycopg2.connect(dbname=name)
    with db, db.cursor() as c:
        c.execute(sql, args)
    db.close()
    vacuum = psycopg2.connect(dbname=name)
    vacuum.autocommit = True
    vacuum.cursor().execute("VACUUM ANALYZE %s" % table)
    vacuum.close()


def ensure_database(template, name, org_units, option_combos=0, levels=1):
    admin = psycopg2.connect(dbname="postgres")
    admin.autocommit = True
    cur = admin.cursor()
    cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
    if cur.fetchone() is None:
        cur.execute('CREATE DATABASE "%s" TEMPLATE "%s"' % (name, template))
        if levels < 2:
            # Copies of the district's row with new ids, uids, codes, names and paths: level 2 under the root.
            insert_and_analyze(name, "organisationunit", """
                INSERT INTO organisationunit
                SELECT (jsonb_populate_record(NULL::organisationunit, to_jsonb(t) || jsonb_build_object(
                    'organisationunitid', 50000000 + g, 'uid', 'S' || lpad(g::text, 10, '0'),
                    'code', 'SYN' || g, 'name', 'Synthetic ' || g, 'shortname', 'Syn ' || g,
                    'path', %s || lpad(g::text, 10, '0'), 'hierarchylevel', 2))).*
                FROM organisationunit t, generate_series(1, %s) g WHERE t.uid = %s
                """, ("/%s/S" % COUNTRY, org_units, DISTRICT))
        else:
            # A tree of the district's copies: org unit g's parent is (g - 1) / fanout (0: the country).
            fanout = 2
            while sum(fanout ** i for i in range(1, levels + 1)) < org_units:
                fanout += 1
            insert_and_analyze(name, "organisationunit", """
                WITH RECURSIVE base AS (SELECT max(organisationunitid) AS id FROM organisationunit),
                tree(g, path, level) AS (
                    SELECT g, %(root)s || lpad(g::text, 10, '0'), 2 FROM generate_series(1, %(fanout)s) g
                    UNION ALL
                    SELECT c, tree.path || '/S' || lpad(c::text, 10, '0'), tree.level + 1
                    FROM tree, generate_series(tree.g * %(fanout)s + 1, tree.g * %(fanout)s + %(fanout)s) c
                    WHERE c <= %(n)s)
                INSERT INTO organisationunit
                SELECT (jsonb_populate_record(NULL::organisationunit, to_jsonb(t) || jsonb_build_object(
                    'organisationunitid', base.id + g, 'uid', 'S' || lpad(g::text, 10, '0'),
                    'code', 'SYN' || g, 'name', 'Synthetic ' || g, 'shortname', 'Syn ' || g,
                    'parentid', CASE WHEN g <= %(fanout)s THEN t.parentid ELSE base.id + (g - 1) / %(fanout)s END,
                    'path', tree.path, 'hierarchylevel', tree.level))).*
                FROM organisationunit t, base, tree WHERE t.uid = %(district)s AND tree.g <= %(n)s
                """, dict(root="/%s/S" % COUNTRY, fanout=fanout, n=org_units, district=DISTRICT))
        if option_combos:
            # Copies of the default combo with new ids, uids, codes and names.
            insert_and_analyze(name, "categoryoptioncombo", """
                INSERT INTO categoryoptioncombo
                SELECT (jsonb_populate_record(NULL::categoryoptioncombo, to_jsonb(t) || jsonb_build_object(
                    'categoryoptioncomboid', 60000000 + g, 'uid', 'C' || lpad(g::text, 10, '0'),
                    'code', 'COC' || g, 'name', 'Combo ' || g))).*
                FROM categoryoptioncombo t, generate_series(1, %s) g WHERE t.uid = 'HllvX50cXC0'
                """, (option_combos,))
    admin.close()


def median_ms(cur, sql, runs):
    cur.execute(sql)  # warm-up
    times = []
    for _ in range(runs):
        start = time.monotonic()
        cur.execute(sql)
        cur.fetchall()
        times.append((time.monotonic() - start) * 1000.0)
    return statistics.median(times), min(times)


def median_psql_ms(dbname, sql, runs):
    """median_ms for an export through psql's \\copy to /dev/null, as a DBA runs one (each time includes
    psql's start)."""
    command = ["psql", "-X", "-q", "-d", dbname, "-c", "\\copy (%s) TO '/dev/null'" % sql]
    subprocess.run(command, check=True)  # warm-up
    times = []
    for _ in range(runs):
        start = time.monotonic()
        subprocess.run(command, check=True)
        times.append((time.monotonic() - start) * 1000.0)
    return statistics.median(times), min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("template", help="a demo database (bench/run.sh's bench_<N>)")
    parser.add_argument("--org-units", type=int, default=200000)
    parser.add_argument("--levels", type=int, default=1)
    parser.add_argument("--option-combos", type=int, default=0)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    name = "%s_ou%d" % (args.template, args.org_units)
    if args.levels >= 2:
        name += "_l%d" % args.levels
    if args.option_combos:
        name += "_coc%d" % args.option_combos
    ensure_database(args.template, name, args.org_units, args.option_combos, args.levels)
    conn = psycopg2.connect(dbname=name)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SELECT (SELECT count(*) FROM organisationunit), (SELECT max(hierarchylevel) FROM organisationunit), "
                "(SELECT round(avg(length(path))) FROM organisationunit), (SELECT count(*) FROM categoryoptioncombo)")
    print("database %s: %d org units in %d levels (paths of %d bytes on average), %d option combos"
          % ((name,) + cur.fetchone()))
    for label, root in (("country with children", COUNTRY), ("district with children", DISTRICT)):
        sql = ("SELECT length(string_agg(x, '')) FROM (SELECT export_datavalues_json("
               "data_set => '{pBOMPrpg1QX}', %s, org_unit => '{%s}', children => true) x) s" % (EMPTY_RANGE, root))
        median, best = median_ms(cur, sql, args.runs)
        print("%-24s median %8.1f ms  min %8.1f ms  (%d runs)" % (label, median, best, args.runs))
    for newest in (100, 10000, 100000):
        cur.execute("SELECT date_trunc('second', lastupdated)::text FROM datavalue WHERE NOT deleted "
                    "ORDER BY lastupdated DESC OFFSET %s LIMIT 1", (newest,))
        since = cur.fetchone()[0]
        for order in ("NULL", "'none'"):
            sql = ("SELECT length(string_agg(x, '')) FROM (SELECT export_datavalues_json(data_set => (SELECT "
                   "array_agg(uid) FROM dataset), org_unit => '{%s}', children => true, last_updated => '%s', "
                   "\"order\" => %s) x) s" % (COUNTRY, since, order))
            median, best = median_ms(cur, sql, args.runs)
            label = "newest %d, %s" % (newest, "ordered" if order == "NULL" else "unordered")
            print("%-24s median %8.1f ms  min %8.1f ms  (%d runs)" % (label, median, best, args.runs))
    for order in ("NULL", "'none'"):
        sql = ("SELECT export_datavalues_json(data_set => (SELECT array_agg(uid) FROM dataset), %s, "
               "org_unit => '{%s}', children => true, \"order\" => %s)"
               % ("start_date => DATE '2000-01-01', end_date => DATE '2030-12-31'", COUNTRY, order))
        median, best = median_psql_ms(name, sql, args.runs)
        label = "every value, %s" % ("ordered" if order == "NULL" else "unordered")
        print("%-24s median %8.1f ms  min %8.1f ms  (%d runs, psql \\copy)" % (label, median, best, args.runs))
    conn.close()


if __name__ == "__main__":
    main()
