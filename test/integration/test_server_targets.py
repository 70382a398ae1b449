"""
test/integration/test_server_targets.py
    COPY (SELECT export_...(...)) TO 'server file' and TO PROGRAM 'command': the same bytes as
    the TO STDOUT stream (gzip included), the privileges of native COPY and no others, and no
    complete-looking file after a failed export. The server runs as the postgres OS user, so
    targets live in a folder that user owns. Role and data changes are rolled back.
SPDX-License-Identifier: PostgreSQL
"""
import gzip
import io
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
import time

import psycopg2
import pytest

import dve

ROLE = "dve_it_copy_role"


@pytest.fixture()
def target_dir():
    path = tempfile.mkdtemp(prefix="dve_it_server_")
    pw = pwd.getpwnam("postgres")
    os.chown(path, pw.pw_uid, pw.pw_gid)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _small(conn):
    return dict(data_set=["pBOMPrpg1QX"], start_date=dve.DEMO_START, end_date=dve.DEMO_END,
                org_unit=[dve.ROOT_OU], children=True)


def _copy_to(conn, target, fmt="json", **params):
    with conn.cursor() as cur:
        cur.execute("COPY (SELECT %s) TO %s" % (dve.call(fmt, **params), target))
        return cur.rowcount


def _read(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {}), ("json", {"style": "2.42"}),
                                       ("json", {"compression": "gzip"}),
                                       ("csv", {"compression": "gzip", "compression_level": 6})])
def test_server_file_and_program_get_the_stdout_bytes(fresh_conn, demo_request, target_dir, fmt, extra):
    params = dict(demo_request, **extra)
    want = dve.copy_bytes(fresh_conn, fmt, **params)
    path = os.path.join(target_dir, "export.out")
    rows = _copy_to(fresh_conn, dve.sql_literal(path), fmt, **params)
    assert _read(path) == want
    assert os.listdir(target_dir) == ["export.out"], "a temporary file was left behind"
    piped = os.path.join(target_dir, "piped.out")
    rows_program = _copy_to(fresh_conn, "PROGRAM " + dve.sql_literal("cat > " + piped), fmt, **params)
    assert _read(piped) == want
    assert rows == rows_program and rows > 1000  # COPY's tag counts the values
    if "compression" in extra:
        gzip.decompress(want)  # a complete gzip member


def test_a_failed_export_leaves_no_complete_looking_file(fresh_conn, demo_request, target_dir):
    """The physically last demo value gets an infinite timestamp inside a rolled-back
    transaction: the export fails after most of the document was written. The target holds
    nothing that looks complete (native COPY opens, and so truncates, it first) and the
    temporary file is gone."""
    path = os.path.join(target_dir, "export.json")
    with open(path, "wb") as f:
        f.write(b"previous content")
    os.chown(path, pwd.getpwnam("postgres").pw_uid, pwd.getpwnam("postgres").pw_gid)
    with fresh_conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("""UPDATE datavalue SET created = 'infinity'
                       WHERE ctid = (SELECT max(dv.ctid) FROM datavalue dv JOIN period pe USING (periodid)
                                     WHERE NOT dv.deleted AND pe.startdate >= %s AND pe.enddate <= %s)""",
                    (dve.DEMO_START, dve.DEMO_END))
        with pytest.raises(psycopg2.Error) as err:
            cur.execute("COPY (SELECT %s) TO %s" % (dve.call("json", order="none", **demo_request),
                                                   dve.sql_literal(path)))
        cur.execute("ROLLBACK")
    assert err.value.pgcode == "22008"
    assert os.listdir(target_dir) == ["export.json"], os.listdir(target_dir)
    content = _read(path)
    assert not content.endswith(b"]}")
    assert len(content) == 0


def test_program_failure_is_an_error(fresh_conn, target_dir):
    with pytest.raises(psycopg2.Error) as err:
        _copy_to(fresh_conn, "PROGRAM 'cat > /dev/null; exit 7'", **_small(fresh_conn))
    assert err.value.pgcode == "38000"
    assert "exit code 7" in (err.value.diag.message_detail or "")


def test_a_program_that_stops_reading_is_reported_by_its_exit_status(fresh_conn, demo_request):
    """The program exits without reading megabytes of document: the export's write fails with
    EPIPE, and the error is the program's exit status, as native COPY reports it."""
    with pytest.raises(psycopg2.Error) as err:
        _copy_to(fresh_conn, "PROGRAM 'exit 3'", **demo_request)
    assert err.value.pgcode == "38000", err.value.pgerror
    assert err.value.diag.message_primary == 'program "exit 3" failed'
    assert "exit code 3" in (err.value.diag.message_detail or "")


@pytest.mark.parametrize("grant,file_ok,program_ok", [
    (None, False, False),
    ("pg_write_server_files", True, False),
    ("pg_execute_server_program", False, True),
])
def test_privileges_are_those_of_native_copy(fresh_conn, target_dir, grant, file_ok, program_ok):
    """Each case runs native COPY of a query beside the export, as the same role: both must be
    allowed or refused alike, with the same error."""
    path = os.path.join(target_dir, "priv.json")
    with fresh_conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("CREATE ROLE %s" % ROLE)
        cur.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s" % ROLE)
        cur.execute("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO %s" % ROLE)
        if grant:
            cur.execute("GRANT %s TO %s" % (grant, ROLE))
        cur.execute("SET LOCAL ROLE %s" % ROLE)
        outcomes = {}
        for kind, target in (("file", dve.sql_literal(path)), ("program", "PROGRAM 'cat > /dev/null'")):
            for query in ("SELECT 1", "SELECT %s" % dve.call("json", **_small(fresh_conn))):
                cur.execute("SAVEPOINT s")
                try:
                    cur.execute("COPY (%s) TO %s" % (query, target))
                    outcomes.setdefault(kind, []).append("ok")
                    cur.execute("RELEASE SAVEPOINT s")
                except psycopg2.Error as e:
                    outcomes.setdefault(kind, []).append((e.pgcode, e.diag.message_primary))
                    cur.execute("ROLLBACK TO SAVEPOINT s")
        cur.execute("ROLLBACK")
    for kind, allowed in (("file", file_ok), ("program", program_ok)):
        native, export = outcomes[kind]
        assert export == native, (kind, outcomes)
        if allowed:
            assert export == "ok"
        else:
            assert export[0] == "42501", export


def _dollar_quoted(sql):
    assert "$dve$" not in sql
    return "$dve$" + sql + "$dve$"


@pytest.mark.parametrize("fmt,extra", [("json", {}), ("csv", {"compression": "gzip"})], ids=["json", "gzip-csv"])
def test_copy_run_from_a_function_gets_the_stdout_bytes(fresh_conn, demo_request, target_dir, fmt, extra):
    """EXECUTE in PL/pgSQL runs the COPY nested in the DO statement (the portal is the DO's): the
    export must still write the document itself, not result rows with COPY's escaping in them."""
    params = dict(demo_request, **extra)
    want = dve.copy_bytes(fresh_conn, fmt, **params)
    path = os.path.join(target_dir, "nested.out")
    piped = os.path.join(target_dir, "piped.out")
    with fresh_conn.cursor() as cur:
        for target in (dve.sql_literal(path), "PROGRAM " + dve.sql_literal("cat > " + piped)):
            copy = "COPY (SELECT %s) TO %s" % (dve.call(fmt, **params), target)
            cur.execute("DO $$ BEGIN EXECUTE %s; END $$" % _dollar_quoted(copy))
    assert _read(path) == want
    assert _read(piped) == want
    assert sorted(os.listdir(target_dir)) == ["nested.out", "piped.out"]


def test_copy_inside_a_copy_s_query_writes_its_own_target(fresh_conn, demo_request, target_dir):
    """A function in an outer COPY's query runs a COPY of an export to a file: the inner export
    writes the file, and the outer COPY gets the function's own rows, not the document."""
    want = dve.copy_bytes(fresh_conn, "json", **demo_request)
    path = os.path.join(target_dir, "inner.json")
    inner = "COPY (SELECT %s) TO %s" % (dve.call("json", **demo_request), dve.sql_literal(path))
    buf = io.BytesIO()
    with dve.rolled_back(fresh_conn) as conn, conn.cursor() as cur:
        cur.execute("CREATE FUNCTION pg_temp.export_inside() RETURNS text LANGUAGE plpgsql AS $$ BEGIN "
                    "EXECUTE %s; RETURN 'inner done'; END $$" % _dollar_quoted(inner))
        cur.copy_expert("COPY (SELECT pg_temp.export_inside()) TO STDOUT", buf)
    assert buf.getvalue() == b"inner done\n"
    assert _read(path) == want


def test_a_symbolic_link_is_written_through(fresh_conn, demo_request, target_dir):
    """COPY writes through a link to the file; so does the export: its temporary file goes beside
    the file itself and replaces it, and the link stays a link."""
    want = dve.copy_bytes(fresh_conn, "json", **demo_request)
    real_dir = os.path.join(target_dir, "real")
    os.mkdir(real_dir)
    os.chown(real_dir, pwd.getpwnam("postgres").pw_uid, pwd.getpwnam("postgres").pw_gid)
    real = os.path.join(real_dir, "export.json")
    link = os.path.join(target_dir, "link.json")
    os.symlink(real, link)
    _copy_to(fresh_conn, dve.sql_literal(link), **demo_request)
    assert os.path.islink(link) and os.readlink(link) == real
    assert _read(real) == want
    assert sorted(os.listdir(real_dir)) == ["export.json"]


def test_a_writable_file_in_a_directory_the_server_cannot_write(fresh_conn, demo_request):
    """COPY can write the file, but no temporary file can be created beside it: the export writes
    the file itself instead of failing after COPY truncated it."""
    want = dve.copy_bytes(fresh_conn, "csv", **demo_request)
    locked = tempfile.mkdtemp(prefix="dve_it_locked_")  # root's, mode 0700: postgres may not create files
    os.chmod(locked, 0o711)
    try:
        path = os.path.join(locked, "export.csv")
        with open(path, "wb") as f:
            f.write(b"previous content")
        os.chown(path, pwd.getpwnam("postgres").pw_uid, pwd.getpwnam("postgres").pw_gid)
        _copy_to(fresh_conn, dve.sql_literal(path), "csv", **demo_request)
        assert _read(path) == want
        assert os.listdir(locked) == ["export.csv"]
    finally:
        shutil.rmtree(locked, ignore_errors=True)


def test_a_bind_mounted_file_is_written_in_place(fresh_conn, demo_request, target_dir):
    """A file that is a mount point (a file bind-mounted into a container) cannot be replaced:
    rename says EBUSY. The complete document is copied into it instead of the export failing
    after COPY truncated it. Needs mount(8) as root; skipped where the sandbox refuses it."""
    want = dve.copy_bytes(fresh_conn, "json", **demo_request)
    source = os.path.join(target_dir, "source.json")
    target = os.path.join(target_dir, "mounted.json")
    for path in (source, target):
        with open(path, "wb") as f:
            f.write(b"previous content")
        _postgres_owns(path)
    if subprocess.run(["mount", "--bind", source, target], capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount a file here")
    try:
        _copy_to(fresh_conn, dve.sql_literal(target), **demo_request)
        assert _read(target) == want
        assert _read(source) == want  # the same file, seen through the mount
    finally:
        subprocess.run(["umount", target], check=True)
    assert sorted(os.listdir(target_dir)) == ["mounted.json", "source.json"], "a temporary file was left behind"


def _postgres_owns(path):
    pw = pwd.getpwnam("postgres")
    os.chown(path, pw.pw_uid, pw.pw_gid)


def _backend_pid(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        return cur.fetchone()[0]


def test_a_link_planted_at_the_temporary_name_is_not_followed(fresh_conn, demo_request, target_dir):
    """The temporary name is not predictable: a link put at <file>.<pid>.partial (the name it had) or at
    any other guess is neither written through nor in the way (in a sticky directory another user's
    file there could not be removed, and the export failed after COPY had emptied the target)."""
    want = dve.copy_bytes(fresh_conn, "json", **demo_request)
    victim = os.path.join(target_dir, "victim.conf")
    with open(victim, "wb") as f:
        f.write(b"keep me")
    _postgres_owns(victim)
    path = os.path.join(target_dir, "out.json")
    planted = "%s.%d.partial" % (path, _backend_pid(fresh_conn))
    os.symlink(victim, planted)
    _copy_to(fresh_conn, dve.sql_literal(path), **demo_request)
    assert _read(victim) == b"keep me"
    assert not os.path.islink(path) and _read(path) == want
    assert os.readlink(planted) == victim
    assert sorted(os.listdir(target_dir)) == ["out.json", os.path.basename(planted), "victim.conf"]


def test_a_file_of_another_group_keeps_it(fresh_conn, demo_request, target_dir):
    """A rename would give the file the server's group: it is written in place, as COPY writes it."""
    want = dve.copy_bytes(fresh_conn, "json", **demo_request)
    path = os.path.join(target_dir, "shared.json")
    with open(path, "wb") as f:
        f.write(b"previous content")
    os.chown(path, pwd.getpwnam("postgres").pw_uid, 0)
    os.chmod(path, 0o640)
    _copy_to(fresh_conn, dve.sql_literal(path), **demo_request)
    st = os.stat(path)
    assert (st.st_gid, st.st_mode & 0o777) == (0, 0o640)
    assert _read(path) == want
    assert os.listdir(target_dir) == ["shared.json"]


def test_a_mount_point_on_another_file_system_is_written_in_place(fresh_conn, demo_request, target_dir):
    """A file bind-mounted from another file system into a directory with no room for the document
    (a container's small or read-only root): the temporary file went there and the export failed
    with ENOSPC after COPY had emptied the file. Needs mount(8) as root."""
    want = dve.copy_bytes(fresh_conn, "json", **demo_request)
    small = os.path.join(target_dir, "small")
    os.mkdir(small)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % (len(want) // 4), "tmpfs", small],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    roomy = os.path.join("/dev/shm", "dve_roomy_%d.json" % os.getpid())
    target = os.path.join(small, "out.json")
    try:
        for path in (roomy, target):
            with open(path, "wb") as f:
                f.write(b"previous content")
            _postgres_owns(path)
        os.chmod(small, 0o777)
        if subprocess.run(["mount", "--bind", roomy, target], capture_output=True).returncode != 0:
            pytest.skip("cannot bind-mount a file here")
        try:
            _copy_to(fresh_conn, dve.sql_literal(target), **demo_request)
            assert _read(target) == want
        finally:
            subprocess.run(["umount", target], check=True)
        assert _read(roomy) == want
        assert os.listdir(small) == ["out.json"]
    finally:
        subprocess.run(["umount", small], capture_output=True)
        if os.path.exists(roomy):
            os.unlink(roomy)


def test_the_file_keeps_its_mode_owner_and_links(fresh_conn, demo_request, target_dir):
    """Native COPY writes into the existing file; an export that replaces it must not change what
    the file was: its permissions (0600 must not become world-readable), its owner (another
    owner's file is written in place, as in a sticky directory such as /tmp, where renaming over
    it is refused) and its hard links (written in place too)."""
    want = dve.copy_bytes(fresh_conn, "csv", **demo_request)
    private = os.path.join(target_dir, "private.csv")
    open(private, "wb").close()
    _postgres_owns(private)
    os.chmod(private, 0o600)
    _copy_to(fresh_conn, dve.sql_literal(private), "csv", **demo_request)
    assert _read(private) == want
    assert os.stat(private).st_mode & 0o777 == 0o600

    sticky = os.path.join(target_dir, "sticky")
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    roots = os.path.join(sticky, "roots.csv")
    open(roots, "wb").close()
    os.chmod(roots, 0o666)  # root's file, writable by the server
    _copy_to(fresh_conn, dve.sql_literal(roots), "csv", **demo_request)
    assert _read(roots) == want
    assert os.stat(roots).st_uid == 0
    assert os.listdir(sticky) == ["roots.csv"]

    linked = os.path.join(target_dir, "linked.csv")
    other_name = os.path.join(target_dir, "other-name.csv")
    open(linked, "wb").close()
    _postgres_owns(linked)
    os.link(linked, other_name)
    _copy_to(fresh_conn, dve.sql_literal(linked), "csv", **demo_request)
    assert _read(linked) == want and _read(other_name) == want
    assert os.stat(linked).st_ino == os.stat(other_name).st_ino


def test_other_functions_of_the_same_name_do_not_hide_the_export(fresh_conn, demo_request, target_dir):
    """The COPY's call is resolved as the parser resolves it: a function of the same name with
    other parameters elsewhere on the search_path, or one on the export's own search_path that
    only the function's SET search_path sees, must not turn the document into COPY-escaped rows."""
    want = dve.copy_bytes(fresh_conn, "json", **demo_request)
    path = os.path.join(target_dir, "resolved.json")
    with dve.rolled_back(fresh_conn) as conn, conn.cursor() as cur:
        cur.execute("CREATE SCHEMA dve_it_other")
        cur.execute("CREATE FUNCTION dve_it_other.export_datavalues_json(x integer) RETURNS SETOF text "
                    "LANGUAGE sql AS 'SELECT 1::text'")
        cur.execute("SET LOCAL search_path = public, dve_it_other")
        cur.execute("COPY (SELECT %s) TO %s" % (dve.call("json", **demo_request), dve.sql_literal(path)))
        assert _read(path) == want
        # An overload taking the same named arguments, seen only under the function's own search_path.
        cur.execute("CREATE FUNCTION dve_it_other.export_datavalues_json(data_set text[], start_date date, "
                    "end_date date, org_unit text[], children boolean) RETURNS SETOF text "
                    "LANGUAGE sql AS 'SELECT 1::text'")
        cur.execute("SET LOCAL search_path = public")
        cur.execute("SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                    "WHERE proname = 'export_datavalues_json' AND nspname = 'public'")
        cur.execute("ALTER FUNCTION %s SET search_path = public, dve_it_other" % cur.fetchone()[0])
        os.unlink(path)
        cur.execute("COPY (SELECT %s) TO %s" % (dve.call("json", **demo_request), dve.sql_literal(path)))
        assert _read(path) == want


def test_copy_of_another_function_of_the_library_runs_its_program(fresh_conn, target_dir):
    path = os.path.join(target_dir, "version.txt")
    with fresh_conn.cursor() as cur:
        cur.execute("COPY (SELECT datavalue_export_version()) TO PROGRAM %s" % dve.sql_literal("cat > " + path))
        cur.execute("SELECT datavalue_export_version()")
        version = cur.fetchone()[0]
    assert _read(path) == version.encode() + b"\n"


def test_header_match_gets_copy_s_own_error(fresh_conn, demo_request):
    with pytest.raises(psycopg2.Error) as err:
        dve.copy_bytes(fresh_conn, "csv", copy_options=" (FORMAT csv, HEADER match)", **demo_request)
    assert 'cannot use "match" with HEADER in COPY TO' in err.value.pgerror


def test_cancel_while_writing_to_a_program_is_a_cancel(fresh_conn, conn243, demo_request):
    """The cancel signal reaches the program's process group too, so the program dies with it:
    the client must see the cancel (57014), not a program failure. The program never reads and
    does not end by itself before the cancel, so the export is held in a write to the full pipe
    (the kernel's wait channel says so) when the cancel is sent, however fast or slow the machine."""
    pid = _backend_pid(fresh_conn)
    result = {}

    def run():
        try:
            _copy_to(fresh_conn, "PROGRAM 'sleep 3600'", **dict(demo_request, start_date=dve.ALL_START,
                                                              end_date=dve.ALL_END))
            result["error"] = None
        except psycopg2.Error as e:
            result["error"] = e

    worker = threading.Thread(target=run)
    worker.start()
    blocked = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not blocked:
        with open("/proc/%d/wchan" % pid) as f:
            blocked = f.read().strip().endswith("pipe_write")  # anon_pipe_write on newer kernels
        time.sleep(0.01)
    with conn243.cursor() as cur:
        cur.execute("SELECT pg_cancel_backend(%s)", (pid,))
    worker.join(60)
    assert blocked, "the export was never held in a write to the program's pipe"
    assert result["error"] is not None and result["error"].pgcode == "57014", result.get("error")
