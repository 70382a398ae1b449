"""
test/integration/test_errors.py
    Request errors (docs §2.3) and COPY forms the export cannot serve: SQLSTATE and message.
SPDX-License-Identifier: PostgreSQL
"""
import io
import json
import os
import shutil
import subprocess

import psycopg2
import pytest

import dve

OK = dict(data_set=["HostileDSet"], period=["202401"], org_unit=[dve.ROOT_OU], children=True)


def _error(conn, sql):
    with pytest.raises(psycopg2.Error) as err:
        with conn.cursor() as cur:
            cur.execute(sql)
            cur.fetchall()
    return err.value


def _select(fmt="json", **params):
    return "SELECT * FROM %s" % dve.call(fmt, **params)


def _copy_error(conn, sql):
    with pytest.raises(psycopg2.Error) as err:
        with conn.cursor() as cur:
            cur.copy_expert(sql, io.BytesIO())
    return err.value


def test_valid_request_works(conn243):
    with conn243.cursor() as cur:
        cur.execute(_select(**OK))
        assert cur.fetchall()


@pytest.mark.parametrize("fmt", ["json", "csv", "xml"])
@pytest.mark.parametrize("mode", ["select", "copy"])
@pytest.mark.parametrize("params,sqlstate,fragment", [
    (dict(OK, data_set=["not-a-uid"]), "22P02", "UID must be an alphanumeric string of 11 characters"),
    (dict(OK, org_unit=["0abcdefghij"]), "22P02", "0abcdefghij"),
    (dict(OK, data_element=["abc"]), "22P02", "abc"),
    (dict(OK, data_set=["Zzzzzzzzzz1"]), "42704", "Zzzzzzzzzz1"),
    (dict(OK, period=["2024-13"]), "22007", "Invalid Period `2024-13`"),
    (dict(OK, period=["202401", "banana"]), "22007", "banana"),
    (dict(period=["202401"], org_unit=[dve.ROOT_OU]), "22023", "E2001"),
    (dict(data_set=["HostileDSet"], org_unit=[dve.ROOT_OU]), "22023", "E2002"),
    (dict(data_set=["HostileDSet"], period=["202401"]), "22023", "E2006"),
    (dict(OK, start_date="2024-01-01", end_date="2024-12-31"), "22023", "E2003"),
    (dict(data_set=["HostileDSet"], org_unit=[dve.ROOT_OU], start_date="2024-02-01", end_date="2024-01-31"),
     "22023", "E2004"),
    (dict(data_set=["HostileDSet"], period=["202401"], org_unit_group=["CXw2yu5fodb"], children=True),
     "22023", "E2007"),
    (dict(OK, compression="brotli"), "22023", "compression"),
    (dict(OK, compression="zip", compression_level=0), "22023", "compression level must be between 1 and 9"),
], ids=["bad-uid-ds", "bad-uid-ou", "bad-uid-de", "unknown-ds", "bad-period", "bad-period-2", "E2001", "E2002",
        "E2006", "E2003", "E2004", "E2007", "unknown-compression", "zip-level"])
def test_request_errors(conn243, mode, fmt, params, sqlstate, fragment):
    if mode == "select":
        e = _error(conn243, _select(fmt, **params))
    else:
        e = _copy_error(conn243, "COPY (SELECT %s) TO STDOUT" % dve.call(fmt, **params))
    assert e.pgcode == sqlstate, "%s: %s" % (e.pgcode, e.pgerror)
    assert fragment in e.pgerror


def test_dhis2_messages(conn243):
    cases = {
        "E2001": (dict(period=["202401"], org_unit=[dve.ROOT_OU]),
                  "At least one data element, data set or data element group must be specified"),
        "E2002": (dict(data_set=["HostileDSet"], org_unit=[dve.ROOT_OU]),
                  "At least one period, start/end dates, last updated or last updated duration must be specified"),
        "E2006": (dict(data_set=["HostileDSet"], period=["202401"]),
                  "At least one organisation unit or organisation unit group must be specified"),
        "E2003": (dict(OK, start_date="2024-01-01", end_date="2024-12-31"),
                  "Both periods and start/end date cannot be specified"),
        "E2004": (dict(data_set=["HostileDSet"], org_unit=[dve.ROOT_OU], start_date="2024-02-01",
                       end_date="2024-01-31"), "Start date must be before end date"),
        "E2007": (dict(data_set=["HostileDSet"], period=["202401"], org_unit_group=["CXw2yu5fodb"], children=True),
                  "Organisation unit children cannot be included for organisation unit groups"),
    }
    for code, (params, message) in cases.items():
        e = _error(conn243, _select(**params))
        assert code in e.pgerror and message in e.pgerror, e.pgerror


def test_first_failing_check_wins(conn243):
    """2.43 validateFilters order: E2001 before E2002 before E2006 (§2.3)."""
    assert "E2001" in _error(conn243, _select(org_unit=[dve.ROOT_OU])).pgerror
    assert "E2001" in _error(conn243, "SELECT * FROM export_datavalues_json()").pgerror
    assert "E2002" in _error(conn243, _select(data_set=["HostileDSet"])).pgerror


@pytest.mark.parametrize("options,fragment", [
    (" WITH (FORMAT binary)", "binary"),
    (" (FORMAT binary)", "binary"),
    (" WITH (FORMAT csv, HEADER)", "HEADER"),
    (" WITH (FORMAT csv, HEADER true)", "HEADER"),
    (" WITH CSV HEADER", "HEADER"),
])
def test_copy_forms_that_cannot_carry_the_document(conn243, options, fragment):
    e = _copy_error(conn243, "COPY (SELECT %s) TO STDOUT%s" % (dve.call("json", **OK), options))
    assert e.pgcode == "0A000", e.pgerror
    assert fragment in e.pgerror


def test_copy_to_a_relative_server_path_is_natives_error(conn243):
    """Server files and programs are written (test_server_targets.py); COPY's own checks apply."""
    e = _error(conn243, "COPY (SELECT %s) TO 'dve_it_relative.json'" % dve.call("json", **OK))
    assert e.pgcode == "42602", e.pgerror
    assert "relative path not allowed" in e.pgerror


def test_copy_csv_format_without_header_is_fine(conn243):
    """FORMAT csv / text options do not matter: the export writes its own bytes."""
    plain = dve.copy_bytes(conn243, "csv", **OK)
    assert dve.copy_bytes(conn243, "csv", copy_options=" WITH (FORMAT csv)", **OK) == plain
    assert dve.copy_bytes(conn243, "csv", copy_options=" WITH (FORMAT csv, HEADER false)", **OK) == plain


def test_connection_usable_after_errors(conn243):
    _error(conn243, _select(**dict(OK, data_set=["Zzzzzzzzzz1"])))
    with conn243.cursor() as cur:
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("prlimit") is None,
                    reason="lowering the backend's limit needs root (to act as postgres) and util-linux's prlimit")
def test_thread_limit_is_insufficient_resources(fresh_conn):
    """An ordered export starts threads; a backend at its user's process limit (ulimit -u, a container's pids.max)
    cannot. That is SQLSTATE 53000 with what to do, as PostgreSQL's own fork failures are, not XX000 "internal
    error"; the session stays usable, and an unordered export, which starts no thread, still runs."""
    with fresh_conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
    # The server's user runs several processes already, so a limit of one refuses every new thread. Set as that
    # user: root may lack CAP_SYS_RESOURCE in a container.
    subprocess.run(["runuser", "-u", "postgres", "--", "prlimit", "--pid", str(pid), "--nproc=1:1"], check=True)
    err = _copy_error(fresh_conn, "COPY (SELECT %s) TO STDOUT" % dve.call("json", **OK))
    assert err.pgcode == "53000", err
    assert "could not start a thread for the export" in err.pgerror
    assert "\"order\" => 'none'" in err.diag.message_hint
    fresh_conn.rollback()
    data = dve.copy_bytes(fresh_conn, "json", order="none", **OK)
    assert json.loads(data)["dataValues"]
