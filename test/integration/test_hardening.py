"""
test/integration/test_hardening.py
    Regression tests of the defects an independent probe found (issue "Hardening"):
    D1 the export's own SQL hijacked through the caller's search_path, D2 row-level security on
    metadata tables, D3 a nested call taking over the COPY stream, D4 memory kept after a huge
    row. Each test would fail on the code before its fix. Every change to the shared demo
    database happens inside a transaction that is rolled back.
SPDX-License-Identifier: PostgreSQL
"""
import io
import json

import psycopg2
import pytest

import dve


def copy_in_txn(conn, fmt="json", **params):
    return dve.copy_bytes(conn, fmt, **params)


# ---------------------------------------------------------------------------------------------
# D1: search_path hijack

# Every function and operator signature the extension's SQL could resolve to, planted in
# public with an implementation that records the call and then does the real work.
PLANTED_FUNCTIONS = [
    ("unnest", "a text[]", "SETOF text", "RETURN QUERY SELECT pg_catalog.unnest(a);"),
    ("unnest", "a bigint[]", "SETOF bigint", "RETURN QUERY SELECT pg_catalog.unnest(a);"),
    ("jsonb_extract_path_text", "j jsonb, VARIADIC p text[]", "text",
     "RETURN pg_catalog.jsonb_extract_path_text(j, VARIADIC p);"),
]
PLANTED_OPERATORS = [
    # (operator, left type, right type, result type, pg_catalog expression)
    ("=", "varchar", "text", "boolean", "$1::text OPERATOR(pg_catalog.=) $2"),
    ("=", "text", "text", "boolean", "$1 OPERATOR(pg_catalog.=) $2"),
    ("=", "varchar", "varchar", "boolean", "$1::text OPERATOR(pg_catalog.=) $2::text"),
    ("=", "bigint", "bigint", "boolean", "$1 OPERATOR(pg_catalog.=) $2"),
    ("=", "integer", "integer", "boolean", "$1 OPERATOR(pg_catalog.=) $2"),
    ("=", "text[]", "text[]", "boolean", "$1 OPERATOR(pg_catalog.=) $2"),
    ("~", "text", "text", "boolean", "$1 OPERATOR(pg_catalog.~) $2"),
    ("~", "varchar", "text", "boolean", "$1::text OPERATOR(pg_catalog.~) $2"),
    ("~~", "varchar", "text", "boolean", "$1::text OPERATOR(pg_catalog.~~) $2"),
    ("~~", "text", "text", "boolean", "$1 OPERATOR(pg_catalog.~~) $2"),
    ("||", "varchar", "text", "text", "$1::text OPERATOR(pg_catalog.||) $2"),
    ("||", "text", "text", "text", "$1 OPERATOR(pg_catalog.||) $2"),
    ("-", "date", "date", "integer", "$1 OPERATOR(pg_catalog.-) $2"),
    (">=", "date", "date", "boolean", "$1 OPERATOR(pg_catalog.>=) $2"),
    ("<=", "date", "date", "boolean", "$1 OPERATOR(pg_catalog.<=) $2"),
    (">=", "timestamp", "timestamp", "boolean", "$1 OPERATOR(pg_catalog.>=) $2"),
    ("-", "timestamp", "timestamp", "interval", "$1 OPERATOR(pg_catalog.-) $2"),
]


def plant_overloads(cur):
    cur.execute("CREATE TABLE public.pwned (what text, by_user name, superuser boolean)")
    cur.execute("GRANT INSERT ON public.pwned TO PUBLIC")
    record = ("INSERT INTO public.pwned SELECT %s, current_user, "
              "(SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);")
    for name, args, returns, body in PLANTED_FUNCTIONS:
        cur.execute("CREATE FUNCTION public.%s(%s) RETURNS %s LANGUAGE plpgsql AS $f$BEGIN %s %s END$f$"
                    % (name, args, returns, record % dve.sql_literal(name + "(" + args + ")"), body))
    for i, (op, left, right, result, expr) in enumerate(PLANTED_OPERATORS):
        fn = "public.evil_op_%d" % i
        cur.execute("CREATE FUNCTION %s(%s, %s) RETURNS %s LANGUAGE plpgsql AS $f$BEGIN %s RETURN %s; END$f$"
                    % (fn, left, right, result, record % dve.sql_literal("%s %s %s" % (left, op, right)), expr))
        cur.execute("CREATE OPERATOR public.%s (leftarg = %s, rightarg = %s, function = %s)" % (op, left, right, fn))
    # count(*) and the other aggregates
    cur.execute("CREATE FUNCTION public.evil_count_step(bigint) RETURNS bigint LANGUAGE plpgsql AS $f$BEGIN %s "
                "RETURN $1 + 1; END$f$" % (record % "'count(*)'"))
    cur.execute("CREATE AGGREGATE public.count(*) (sfunc = public.evil_count_step, stype = bigint, initcond = 0)")
    for agg in ("min", "max"):
        cur.execute("CREATE FUNCTION public.evil_%s_step(bigint, bigint) RETURNS bigint LANGUAGE plpgsql AS "
                    "$f$BEGIN %s RETURN pg_catalog.%s(x) FROM (VALUES ($1), ($2)) v(x); END$f$"
                    % (agg, record % dve.sql_literal(agg), "greatest" if agg == "max" else "least"))
        cur.execute("CREATE AGGREGATE public.%s(bigint) (sfunc = public.evil_%s_step, stype = bigint)" % (agg, agg))
    cur.execute("CREATE FUNCTION public.evil_agg_step(bigint[], bigint) RETURNS bigint[] LANGUAGE plpgsql AS "
                "$f$BEGIN %s RETURN $1 OPERATOR(pg_catalog.||) $2; END$f$" % (record % "'array_agg'"))
    cur.execute("CREATE AGGREGATE public.array_agg(bigint) (sfunc = public.evil_agg_step, stype = bigint[])")


def pwned(cur):
    cur.execute("SELECT what, by_user, superuser FROM public.pwned")
    return cur.fetchall()


# Requests that between them build every SQL string of the extension.
def hostile_requests(all_data_sets):
    base = dict(data_set=all_data_sets[:2], start_date=dve.DEMO_START, end_date="2023-03-31",
                org_unit=[dve.ROOT_OU], children=True)
    return [
        ("json", base),
        ("json", dict(base, include_deleted=True, order="none", limit=50, offset=3)),
        ("json", dict(base, id_scheme="NAME")),
        ("json", dict(base, data_element_id_scheme="NAME", org_unit_id_scheme="NAME", data_set_id_scheme="NAME",
                      attribute_option_combo_id_scheme="NAME", category_option_combo_id_scheme="NAME")),
        ("json", dict(data_set=all_data_sets[:1], period=["202301"], org_unit=[dve.ROOT_OU], style="2.42")),
        ("csv", dict(data_set=all_data_sets[:1], period=["202301", "2023Q1"], org_unit=[dve.ROOT_OU],
                     children=True, level=3, input_use_code_fallback=True)),
        ("csv", dict(base, last_updated_duration="10000d", attribute_option_combo=["HllvX50cXC0"],
                     category_option_combo=["HllvX50cXC0"])),
        ("json", dict(base, attribute_combo="DC3UgfegC3F", attribute_options=["U4OZ3OXivRe"])),
        ("json", dict(base, children=False, org_unit_group=["tygvHpBGloN"], input_id_scheme="UID")),
    ]


def test_planted_overloads_would_win_for_unqualified_sql(fresh_conn):
    """The plants are real: plain SQL under the caller's search_path runs them."""
    with dve.rolled_back(fresh_conn) as conn, conn.cursor() as cur:
        plant_overloads(cur)
        cur.execute("SELECT 'a'::varchar = 'a'::text, (SELECT count(*) FROM unnest('{x}'::text[]))")
        assert {w for w, _, _ in pwned(cur)} >= {"varchar = text", "unnest(a text[])"}


def _outcome(conn, fmt, params):
    """The document, or the SQLSTATE of the error (in a savepoint, so the transaction goes on)."""
    with conn.cursor() as cur:
        cur.execute("SAVEPOINT attempt")
        try:
            result = copy_in_txn(conn, fmt, **params)
            cur.execute("RELEASE SAVEPOINT attempt")
            return result
        except psycopg2.Error as e:
            cur.execute("ROLLBACK TO SAVEPOINT attempt")
            return e.pgcode


def test_no_planted_function_or_operator_runs_in_any_export(fresh_conn, all_data_sets):
    requests = hostile_requests(all_data_sets)
    # the ATTRIBUTE scheme reads attributevalues (no demo object has this one: E8201 after reading)
    requests.append(("json", dict(requests[0][1], data_element_id_scheme="ATTRIBUTE:AttrDeRef01")))
    with dve.rolled_back(fresh_conn) as conn, conn.cursor() as cur:
        expected = [_outcome(conn, fmt, params) for fmt, params in requests]
        assert sum(isinstance(e, bytes) for e in expected) == len(requests) - 1, expected
        plant_overloads(cur)
        got = [_outcome(conn, fmt, params) for fmt, params in requests]
        assert pwned(cur) == [], "planted code ran inside an export"
        assert got == expected


def test_a_temporary_datavalue_table_does_not_take_over(fresh_conn, demo_request):
    with dve.rolled_back(fresh_conn) as conn, conn.cursor() as cur:
        expected = copy_in_txn(conn, **demo_request)
        cur.execute("CREATE TEMP TABLE datavalue (LIKE public.datavalue)")
        cur.execute("CREATE TEMP TABLE period (LIKE public.period)")
        assert copy_in_txn(conn, **demo_request) == expected
        # also inside a SECURITY DEFINER wrapper with the path DBAs are told to avoid
        cur.execute("""CREATE FUNCTION public.wrapped_export(ds text[]) RETURNS SETOF text
                       LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_catalog
                       AS $f$ SELECT export_datavalues_json(data_set => ds, start_date => %s, end_date => %s,
                                                            org_unit => %s, children => true) $f$"""
                    % (dve.sql_literal(dve.DEMO_START), dve.sql_literal(dve.DEMO_END), dve.sql_literal([dve.ROOT_OU])))
        cur.execute("SELECT string_agg(c, '') FROM public.wrapped_export(%s) c", (demo_request["data_set"],))
        assert cur.fetchone()[0].encode() == expected


def test_the_dhis2_schema_comes_from_the_search_path(fresh_conn, demo_request):
    """With no datavalue table on the path the export says so; pg_temp never counts."""
    with dve.rolled_back(fresh_conn) as conn, conn.cursor() as cur:
        cur.execute("CREATE TEMP TABLE datavalue (LIKE public.datavalue)")
        cur.execute("SET LOCAL search_path = pg_temp, pg_catalog")
        with pytest.raises(psycopg2.Error) as err:
            cur.copy_expert("COPY (SELECT public.%s) TO STDOUT" % dve.call("json", **demo_request), io.BytesIO())
    assert err.value.pgcode == "42P01"
    assert "datavalue" in err.value.pgerror


# ---------------------------------------------------------------------------------------------
# D2: row-level security

RLS_ROLE = "dve_it_rls_reader"
# (table, policy USING clause): each hides some rows from the reader; the root stays visible.
RLS_POLICIES = [
    ("organisationunit", "path NOT LIKE '/ImspTQPwCqd/O6uvpzGd5pu%'"),
    ("dataelement", "dataelementid % 3 <> 0"),
    ("period", "startdate <> DATE '2023-02-01'"),
    ("categoryoptioncombo", "uid = 'HllvX50cXC0' OR categoryoptioncomboid % 2 = 0"),
    ("datavalue", "sourceid % 5 <> 0"),
]


@pytest.mark.parametrize("table,using", RLS_POLICIES, ids=[t for t, _ in RLS_POLICIES])
def test_row_level_security_on_a_table_gives_what_the_role_may_see(fresh_conn, all_data_sets, table, using):
    params = dict(ds=all_data_sets, start=dve.DEMO_START, end=dve.DEMO_END, root=dve.ROOT_OU)
    with dve.rolled_back(fresh_conn) as conn, conn.cursor() as cur:
        cur.execute("CREATE ROLE %s" % RLS_ROLE)
        cur.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s" % RLS_ROLE)
        cur.execute("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO %s" % RLS_ROLE)
        cur.execute("ALTER TABLE public.%s ENABLE ROW LEVEL SECURITY" % table)
        cur.execute("CREATE POLICY dve_it_hide ON public.%s FOR SELECT TO %s USING (%s)" % (table, RLS_ROLE, using))
        full = len(dve.reference_rows(conn, dve.standard_where(start=True, root=True), params))
        cur.execute("SET LOCAL ROLE %s" % RLS_ROLE)
        want = dve.reference_rows(conn, dve.standard_where(start=True, root=True), params)
        assert 0 < len(want) < full, "the policy hides nothing, or everything"
        for fmt in ("json", "csv"):
            try:
                doc = dve.copy_bytes(conn, fmt, data_set=all_data_sets, start_date=dve.DEMO_START,
                                     end_date=dve.DEMO_END, org_unit=[dve.ROOT_OU], children=True)
            except psycopg2.Error as e:
                pytest.fail("export under RLS on %s failed: %s" % (table, e.pgerror))
            if fmt == "json":
                got = dve.multiset(dve.freeze(v) for v in dve.data_values(dve.parse_json_pairs(doc)))
                expect = dve.multiset(dve.freeze(dve.expected_json_243(r)) for r in want)
                assert got == expect, dve.diff_multisets(got, expect)
            else:
                assert len(dve.parse_csv(doc.decode("utf-8"))) == len(want) + 1  # and the header


# ---------------------------------------------------------------------------------------------
# D3: nested calls

def test_a_nested_call_in_the_arguments_returns_rows_and_only_the_outer_call_streams(conn243, all_data_sets):
    ds = all_data_sets[0]
    inner = dve.call("json", data_set=[ds], period=["202402"], org_unit=[dve.ROOT_OU], children=True)
    # the inner export must see its rows (count > 1 means more than an empty document)
    outer = ("export_datavalues_json(data_set => %s, org_unit => %s, children => true, period => "
             "(SELECT CASE WHEN count(*) >= 1 AND sum(length(c)) > 20 THEN '{202402}'::text[] "
             "ELSE '{202401}'::text[] END FROM %s c))"
             % (dve.sql_literal([ds]), dve.sql_literal([dve.ROOT_OU]), inner))
    buf = io.BytesIO()
    with conn243.cursor() as cur:
        cur.copy_expert("COPY (SELECT %s) TO STDOUT" % outer, buf)
    got = buf.getvalue()
    expected = dve.copy_bytes(conn243, "json", data_set=[ds], org_unit=[dve.ROOT_OU], children=True,
                              period=["202402"])
    json.loads(got)  # one document, not two back to back
    assert got == expected


# ---------------------------------------------------------------------------------------------
# D4: memory after a huge row

def test_a_huge_row_leaves_no_large_send_buffer(fresh_conn):
    """A 10 MB value of control characters escapes to 60 MB of JSON; after the export the
    backend's TopMemoryContext (where libpq's send buffer lives) must not have kept it."""
    with dve.rolled_back(fresh_conn) as conn, conn.cursor() as cur:
        cur.execute("ALTER TABLE datavalue ALTER COLUMN value TYPE text")
        cur.execute("""UPDATE datavalue SET value = repeat(chr(1), 10000000)
                       WHERE ctid = (SELECT min(ctid) FROM datavalue WHERE NOT deleted)
                       RETURNING (SELECT uid FROM dataelement WHERE dataelementid = datavalue.dataelementid),
                                 (SELECT iso FROM period WHERE periodid = datavalue.periodid),
                                 (SELECT uid FROM organisationunit WHERE organisationunitid = datavalue.sourceid)""")
        de, pe, ou = cur.fetchone()
        cur.execute("SELECT total_bytes FROM pg_backend_memory_contexts WHERE name = 'TopMemoryContext'")
        before = cur.fetchone()[0]
        doc = dve.copy_bytes(conn, "json", data_element=[de], period=[pe], org_unit=[ou])
        assert len(doc) > 60_000_000
        cur.execute("SELECT total_bytes FROM pg_backend_memory_contexts WHERE name = 'TopMemoryContext'")
        after = cur.fetchone()[0]
    assert after - before < 4 * 1024 * 1024, "TopMemoryContext grew by %d bytes" % (after - before)


# ---------------------------------------------------------------------------------------------
# Exporting without the tables' privileges, and still streaming


def test_security_definer_export_streams_for_a_role_without_table_privileges(fresh_conn):
    """README (search_path): the extension's own function made SECURITY DEFINER with a fixed path lets a role that
    may not read the DHIS2 tables export, and the bare call still streams the exact document (a wrapper function
    would return COPY-escaped rows). Checked on the hostile values, whose backslashes COPY's rows would double."""
    params = dict(data_set=["HostileDSet"], start_date="2000-01-01", end_date="2030-12-31", org_unit=[dve.ROOT_OU],
                  children=True)
    expected = dve.copy_bytes(fresh_conn, "xml", **params)
    assert b"\\" in expected
    with dve.rolled_back(fresh_conn), fresh_conn.cursor() as cur:
        cur.execute("CREATE ROLE dve_it_no_tables")
        cur.execute("ALTER FUNCTION export_datavalues_xml SECURITY DEFINER")
        cur.execute("ALTER FUNCTION export_datavalues_xml SET search_path = public, pg_catalog, pg_temp")
        cur.execute("GRANT EXECUTE ON FUNCTION export_datavalues_xml TO dve_it_no_tables")
        cur.execute("SET LOCAL ROLE dve_it_no_tables")
        cur.execute("SELECT has_table_privilege('datavalue', 'SELECT')")
        assert cur.fetchone()[0] is False
        del fresh_conn.notices[:]
        assert dve.copy_bytes(fresh_conn, "xml", **params) == expected
        assert not fresh_conn.notices
