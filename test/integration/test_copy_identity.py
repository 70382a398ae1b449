"""
test/integration/test_copy_identity.py
    One document, three transports: COPY (SELECT export(...)) TO STDOUT through psycopg2, the
    concatenated rows of a plain SELECT, psql's \\copy to a client file; the COPY command tag;
    and PgJDBC CopyManager.copyOut.
SPDX-License-Identifier: PostgreSQL
"""
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading

import pytest

import dve

JAR = "/usr/share/java/postgresql.jar"


def _cases(all_data_sets):
    base = dict(org_unit=[dve.ROOT_OU], children=True)
    return {
        "demo": dict(base, data_set=all_data_sets, start_date=dve.DEMO_START, end_date=dve.DEMO_END),
        "single-set-header": dict(data_set=["HostileDSet"], period=["202401"], org_unit=["DiszpKrYNg8"]),
        "periods-oug-deleted": dict(data_set=all_data_sets, period=["202402", "2024W7", "2024Q1", "2024"],
                                    org_unit_group=["__OUG__"], include_deleted=True),
        "hostile-deleted": dict(base, data_set=["HostileDSet"], start_date=dve.ALL_START, end_date=dve.ALL_END,
                                include_deleted=True),
        "de-lastupdated-limit": dict(base, data_element=["Hostile0001", "Hostile0029", "EdgePeriod1"],
                                     last_updated="2023-01-01", limit=7, offset=2),
        "empty": dict(base, data_set=["pBOMPrpg1QX"], period=["199901"]),
    }


@pytest.fixture(scope="module")
def cases(conn243, all_data_sets):
    with conn243.cursor() as cur:
        cur.execute("SELECT uid FROM orgunitgroup WHERE name = 'Rural'")
        rural = cur.fetchone()[0]
    out = _cases(all_data_sets)
    out["periods-oug-deleted"]["org_unit_group"] = [rural]
    return out


CASE_NAMES = list(_cases([]).keys())


@pytest.mark.parametrize("style", ["2.43", "2.42"])
@pytest.mark.parametrize("fmt", ["json", "csv"])
@pytest.mark.parametrize("case", CASE_NAMES)
def test_copy_select_and_psql_bytes_are_identical(conn243, db243, cases, case, fmt, style):
    params = dict(cases[case], style=style)
    via_copy = dve.copy_bytes(conn243, fmt, **params)
    via_select = dve.select_bytes(conn243, fmt, **params)
    via_psql, _ = dve.psql_copy(db243, fmt, **params)
    assert len(via_copy) > 0
    assert via_copy == via_select, "COPY and SELECT differ (%d vs %d bytes)" % (len(via_copy), len(via_select))
    assert via_copy == via_psql, "COPY and psql \\copy differ (%d vs %d bytes)" % (len(via_copy), len(via_psql))
    if case == "empty":
        if fmt == "csv":
            assert via_copy == (dve.CSV_HEADER + "\n").encode()
        elif style == "2.43":  # one data set and one period are hoisted (§4.2); children: no orgUnit
            assert via_copy == b'{"dataSet":"pBOMPrpg1QX","period":"199901","dataValues":[]}'
        else:  # 2.42 single data value set: one data set, period and org unit (§4.1)
            assert via_copy == (b'{"dataSet":"pBOMPrpg1QX","completeDate":null,"period":"199901",'
                                b'"orgUnit":"ImspTQPwCqd","dataValues":[]}')
    else:
        # each case must export something, or the comparison proves little
        if fmt == "json":
            assert len(dve.data_values(dve.parse_json_pairs(via_copy))) > 0
        else:
            assert via_copy.count(b"\n") > 1


def test_select_returns_several_chunks_for_a_large_document(conn243, demo_request):
    """The plain SELECT form streams chunks (rows), not one huge text value."""
    with conn243.cursor() as cur:
        cur.execute("SELECT count(*), sum(octet_length(chunk)) FROM %s AS chunk" % dve.call("json", **demo_request))
        n, total = cur.fetchone()
    assert total > 1_000_000
    assert n > 1


def _exported_values(conn, **params):
    return len(dve.data_values(dve.parse_json_pairs(dve.copy_bytes(conn, "json", **params))))


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_psql_copy_command_tag_counts_exported_values(conn243, db243, demo_request, fmt):
    n = _exported_values(conn243, **demo_request)
    assert n > 1000
    with tempfile.TemporaryDirectory(prefix="dve_it_") as tmp:
        path = os.path.join(tmp, "out")
        proc = subprocess.run(["psql", "-X", "-v", "ON_ERROR_STOP=1", "-d", db243, "-c",
                               "\\copy (SELECT %s) TO '%s'" % (dve.call(fmt, **demo_request), path)],
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "COPY %d" % n


def test_copy_rowcount_reported_to_libpq(conn243, demo_request):
    """psycopg2's cursor.rowcount after copy_expert is the command tag's count."""
    n = _exported_values(conn243, **demo_request)
    import io
    with conn243.cursor() as cur:
        cur.copy_expert("COPY (SELECT %s) TO STDOUT" % dve.call("csv", **demo_request), io.BytesIO())
        assert cur.rowcount == n


# ---------------------------------------------------------------------------------------------
# JDBC

JAVA_SOURCE = r"""
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.DriverManager;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

public class DveCopyOut {
    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], args[1], "")) {
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            try (OutputStream out = new FileOutputStream(args[3])) {
                long n = copy.copyOut(args[2], out);
                System.out.println(n);
            }
        }
    }
}
"""


class UnixSocketProxy:
    """127.0.0.1:<port> -> the cluster's Unix socket (the cluster listens on no TCP port)."""

    def __init__(self, unix_path):
        self.unix_path = unix_path
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(self.unix_path)
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _pump(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.closed = True
        self.listener.close()


def _pg_socket_path():
    host = os.environ.get("PGHOST", "/var/run/postgresql")
    return os.path.join(host, ".s.PGSQL.%s" % os.environ.get("PGPORT", "5432"))


@pytest.fixture(scope="module")
def jdbc_program():
    if shutil.which("javac") is None or shutil.which("java") is None or not os.path.exists(JAR):
        pytest.skip("javac/java or %s missing" % JAR)
    tmp = tempfile.mkdtemp(prefix="dve_it_java_")
    with open(os.path.join(tmp, "DveCopyOut.java"), "w") as f:
        f.write(JAVA_SOURCE)
    proc = subprocess.run(["javac", "-cp", JAR, "-d", tmp, os.path.join(tmp, "DveCopyOut.java")],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    yield tmp
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {}), ("json", {"style": "2.42"}),
                                       ("json", {"compression": "gzip"})])
def test_jdbc_copy_out_bytes_equal_psycopg2(conn243, db243, demo_request, jdbc_program, fmt, extra):
    params = dict(demo_request, **extra)
    expected = dve.copy_bytes(conn243, fmt, **params)
    proxy = UnixSocketProxy(_pg_socket_path())
    try:
        with tempfile.TemporaryDirectory(prefix="dve_it_") as tmp:
            out = os.path.join(tmp, "out")
            url = "jdbc:postgresql://127.0.0.1:%d/%s?sslmode=disable" % (proxy.port, db243)
            proc = subprocess.run(["java", "-Duser.timezone=UTC", "-cp", "%s:%s" % (jdbc_program, JAR), "DveCopyOut",
                                   url, os.environ.get("PGUSER", "postgres"),
                                   "COPY (SELECT %s) TO STDOUT" % dve.call(fmt, **params), out],
                                  capture_output=True, text=True, timeout=180)
            assert proc.returncode == 0, proc.stderr
            with open(out, "rb") as f:
                got = f.read()
    finally:
        proxy.close()
    assert got == expected, "JDBC copyOut gave %d bytes, psycopg2 %d" % (len(got), len(expected))
    # copyOut's return value is the command tag's row count: the number of exported values
    n = _exported_values(conn243, **demo_request)
    assert re.fullmatch(r"\d+", proc.stdout.strip()), proc.stdout
    assert int(proc.stdout.strip()) == n


@pytest.mark.parametrize("setting", ["TimeZone = 'Pacific/Chatham'", "TimeZone = 'America/St_Johns'",
                                     "DateStyle = 'SQL, DMY'", "DateStyle = 'German'",
                                     "IntervalStyle = 'sql_standard'", "extra_float_digits = -15"])
def test_session_settings_do_not_change_the_bytes(conn243, fresh_conn, demo_request, setting):
    """Timestamps are `timestamp without time zone`, printed as stored (a UTC JVM, docs §3.4)."""
    with fresh_conn.cursor() as cur:
        cur.execute("SET " + setting)
    for fmt in ("json", "csv"):
        params = dict(demo_request, last_updated="2024-03-01 12:00:00")
        assert dve.copy_bytes(fresh_conn, fmt, **params) == dve.copy_bytes(conn243, fmt, **params)
