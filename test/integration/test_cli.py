"""
test/integration/test_cli.py
    The command-line exporter cli/datavalue-export end to end: its bytes against psql's \\copy of
    the same export_datavalues() call for every format and compression, the temporary file (no
    file, and an existing file untouched, on failure), every exit status, cancel on SIGINT and
    SIGTERM, and the progress display as a person sees it in a terminal (tmux).

How the running export is held without depending on machine speed: another session holds an
ACCESS EXCLUSIVE lock on datavalue, so the export's backend provably waits (pg_stat_activity
shows wait_event_type 'Lock' for its application_name) until the test releases the lock. For a
cancel in mid-stream, the CLI writes to a pipe nobody reads: once the backend waits in
ClientWrite, the CLI is blocked with part of the document written. The second-signal test uses a
socket that accepts the connection and never answers, and waits for the first signal's delivery in
/proc/<pid>/status. Waits poll with generous deadlines; the one fixed sleep is a lower bound on time
passed (the mid-export bar test), never a guess at how fast something runs.
Binary: cli/datavalue-export (built by make), or $DVE_CLI.
SPDX-License-Identifier: PostgreSQL
"""
import array
import contextlib
import fcntl
import gzip
import io
import json
import os
import pathlib
import pwd
import re
import select
import shlex
import shutil
import signal
import socket
import stat
import struct
import subprocess
import tempfile
import termios
import threading
import time
import uuid
import zipfile

import pytest

import dve

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CLI = os.environ.get("DVE_CLI", os.path.join(REPO, "cli", "datavalue-export"))
DEADLINE = 60  # seconds; a bound for waits on the server, never a measurement
F_GETPIPE_SZ = getattr(fcntl, "F_GETPIPE_SZ", 1032)  # Linux; the constant is in Python 3.10+


@pytest.fixture(scope="module")
def cli():
    if not os.access(CLI, os.X_OK):
        pytest.fail("%s is missing; build it with make" % CLI)
    return CLI


@pytest.fixture(scope="module")
def demo_query(all_data_sets):
    """The demo export of the brief as a DHIS2 query string (about 6 MB of JSON at the default scale)."""
    return "&".join(["dataSet=" + ds for ds in all_data_sets] +
                    ["startDate=" + dve.DEMO_START, "endDate=" + dve.DEMO_END,
                     "orgUnit=" + dve.ROOT_OU, "children=true"])


def run_cli(cli, *args, env=None, timeout=DEADLINE, **kw):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([cli] + list(args), capture_output=True, env=e, timeout=timeout, **kw)


def as_nobody():
    """preexec_fn: the CLI runs as the unprivileged user nobody (the test runs as root)."""
    nobody = pwd.getpwnam("nobody")
    os.setgid(nobody.pw_gid)
    os.setuid(nobody.pw_uid)


def psql_copy_query(dbname, query):
    """Bytes of psql's \\copy (SELECT export_datavalues('<query>')) TO file: the reference transport."""
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "dve_cli_ref_%s" % uuid.uuid4().hex)
    try:
        dve.psql(dbname, "-c", "\\copy (SELECT export_datavalues(%s)) TO '%s'" % (dve.sql_literal(query), path))
        with open(path, "rb") as f:
            return f.read()
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def wait_for(predicate, what, deadline=DEADLINE):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    pytest.fail("timed out after %d s waiting for %s" % (deadline, what() if callable(what) else what))


def backend_state(conn, app):
    """(state, wait_event_type, wait_event) of the export's backend, or None when it is gone. The CLI's
    progress connection carries the same application name (PGAPPNAME): the export's is the one that ran
    the COPY (which of the two pg_stat_activity lists first depends on the free backend slots)."""
    with conn.cursor() as cur:
        cur.execute("SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE application_name = %s"
                    " AND query LIKE 'COPY %%'", (app,))
        return cur.fetchone()


@contextlib.contextmanager
def datavalue_locked(dbname):
    """Hold ACCESS EXCLUSIVE on datavalue until the block ends (or release() is called)."""
    holder = dve.connect(dbname)
    holder.autocommit = False
    with holder.cursor() as cur:
        cur.execute("LOCK TABLE datavalue IN ACCESS EXCLUSIVE MODE")

    class Lock:
        def release(self):
            holder.rollback()
    try:
        yield Lock()
    finally:
        holder.rollback()
        holder.close()


# For tests that hold the backend in ClientWrite: the socket keeps its default send buffer, so
# the document cannot fit in it.
SMALL_SOCKET = "-c datavalue_export.client_send_buffer=0"


def unique_app():
    return "dve-cli-test-" + uuid.uuid4().hex[:12]


@contextlib.contextmanager
def export_held_by_lock(cli, dbname, conn, args):
    """Start the CLI (stdout and stderr pipes) while datavalue is locked; yields (proc, app, lock) once its
    backend provably waits for the lock. The CLI is killed if the test leaves it running."""
    app = unique_app()
    with datavalue_locked(dbname) as lock:
        proc = subprocess.Popen([cli, "-d", dbname] + list(args), env=dict(os.environ, PGAPPNAME=app),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            wait_for(lambda: (backend_state(conn, app) or (None, None))[1] == "Lock", "the export to wait")
            yield proc, app, lock
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


# ---------------------------------------------------------------------------------------------
# bytes


# (request as typed, output name or None for stdout, the query export_datavalues gets)
BYTE_CASES = [
    ("dataValueSets.json?{q}", "out.json", "{q}&format=json"),
    ("{q}", "out.csv", "{q}&format=csv"),
    ("dataValueSets.json.gz?{q}", "out.json.gz", "{q}&format=json&compression=gzip"),
    ("https://play.dhis2.org/api/dataValueSets.csv?{q}&compression=gzip", None, "{q}&compression=gzip&format=csv"),
    ("/api/40/dataValueSets.json?{q}&style=2.42", "-", "{q}&style=2.42&format=json"),
]
# XML, ADX and zip. ADX carries the export's time (`exported`) and a zip entry its DOS time, so
# those are compared after normalising exactly that (same_document).
FORMAT_CASES = [
    ("dataValueSets.xml?{q}", "out.xml", "{q}&format=xml"),
    # ADX refuses the hostile data set's control characters (XML 1.0 cannot carry them): {qp} is the rest
    ("dataValueSets.adx+xml?{qp}&idScheme=UID", "out.adx.xml", "{qp}&idScheme=UID&format=adx%2Bxml"),
    ("dataValueSets.json.zip?{q}", "out.json.zip", "{q}&format=json&compression=zip"),
    ("dataValueSets.csv.zip?{q}", "out.csv.zip", "{q}&format=csv&compression=zip"),
]


def same_document(got, want, sent):
    """Equal bytes, except for what names the moment of the export: ADX's exported attribute and
    a zip entry's modification time (the entries' names and contents must be equal)."""
    if "format=adx" in sent:
        stamp = re.compile(rb'exported="[^"]*"')
        return stamp.sub(b'exported=""', got) == stamp.sub(b'exported=""', want)
    if "compression=zip" in sent:

        with zipfile.ZipFile(io.BytesIO(got)) as a, zipfile.ZipFile(io.BytesIO(want)) as b:
            return ([(i.filename, a.read(i)) for i in a.infolist()] ==
                    [(i.filename, b.read(i)) for i in b.infolist()])
    return got == want


@pytest.mark.parametrize("typed,output,sent", BYTE_CASES + FORMAT_CASES)
def test_bytes_equal_psql_copy(cli, db243, demo_query, tmp_path, typed, output, sent):
    plain = "&".join(p for p in demo_query.split("&") if p != "dataSet=HostileDSet")
    args = ["-d", db243, typed.format(q=demo_query, qp=plain)]
    target = None
    if output is not None:
        target = tmp_path / output if output != "-" else None
        args += ["-o", str(target) if target else "-"]
    proc = run_cli(cli, *args)
    stderr = proc.stderr.decode(errors="replace")
    assert proc.returncode == 0, stderr
    assert stderr == "", "progress must be off when stderr is not a terminal: %r" % stderr
    got = target.read_bytes() if target else proc.stdout
    if target:
        assert proc.stdout == b""
        assert sorted(os.listdir(tmp_path)) == [output], "temporary file left behind"
    want = psql_copy_query(db243, sent.format(q=demo_query, qp=plain))
    assert len(got) > 1000
    assert same_document(got, want, sent)
    if "compression=gzip" in sent:
        assert got[:2] == b"\x1f\x8b"
        gzip.decompress(got)


def test_output_file_mode_follows_umask(cli, db243, demo_query, tmp_path):
    proc = run_cli(cli, "-d", db243, demo_query, "-o", str(tmp_path / "out.json"),
                   preexec_fn=lambda: os.umask(0o027))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out.json").stat().st_mode & 0o777 == 0o640


def test_fifo_is_written_in_place(cli, db243, demo_query, tmp_path):
    """A FIFO (like /dev/null or any device) gets the document; a rename would have replaced it."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    got = {}

    def read_fifo():
        with open(fifo, "rb") as f:
            got["bytes"] = f.read()

    reader = threading.Thread(target=read_fifo, daemon=True)  # a replaced FIFO never sees a writer
    reader.start()
    proc = run_cli(cli, "-d", db243, demo_query, "-o", str(fifo))
    reader.join(DEADLINE)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    assert json.loads(got["bytes"])["dataValues"]
    assert sorted(os.listdir(tmp_path)) == ["pipe.json"]


def test_existing_file_keeps_its_mode_and_symlink(cli, db243, demo_query, tmp_path):
    """Replacing a file keeps its permissions, and a symbolic link keeps pointing at the new file."""
    real = tmp_path / "real.json"
    real.write_bytes(b"old")
    os.chmod(real, 0o600)
    link = tmp_path / "link.json"
    os.symlink(real.name, link)
    proc = run_cli(cli, "-d", db243, demo_query, "-o", str(link), preexec_fn=lambda: os.umask(0o022))
    assert proc.returncode == 0, proc.stderr
    assert os.path.islink(link), "the link was replaced by the file"
    assert real.stat().st_mode & 0o777 == 0o600
    assert json.loads(real.read_bytes())["dataValues"]
    assert sorted(os.listdir(tmp_path)) == ["link.json", "real.json"]


def test_server_message_shows_control_characters(cli, db243):
    """The server's message echoes the request: an escape sequence in it must not reach the terminal."""
    proc = run_cli(cli, "-d", db243, "dataSet=pBOMPrpg1QX&period=202401&orgUnit=%1B%5D0%3Bpwned%07x")
    assert proc.returncode == 4, proc.stderr
    assert b"\x1b" not in proc.stderr and b"\x07" not in proc.stderr
    assert b"\\x1B]0;pwned\\x07x" in proc.stderr, proc.stderr


def test_dangling_symlink_is_written_through(cli, db243, demo_query, tmp_path):
    """A link to a file that does not exist yet: the file is created where the link points, and the link stays."""
    (tmp_path / "other").mkdir()
    link = tmp_path / "link.json"
    os.symlink("other/target.json", link)
    proc = run_cli(cli, "-d", db243, demo_query, "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert os.path.islink(link)
    assert json.loads((tmp_path / "other" / "target.json").read_bytes())["dataValues"]


def test_existing_file_keeps_its_owner_and_hard_links(cli, db243, demo_query, tmp_path):
    """Run as root (a cron job writing a service's file): the file keeps its owner, and every hard link
    to it sees the new document (a rename would leave the other names on the old file)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file to another owner")
    nobody = pwd.getpwnam("nobody")
    owned = tmp_path / "owned.json"
    owned.write_bytes(b"old")
    os.chown(owned, nobody.pw_uid, nobody.pw_gid)
    os.chmod(owned, 0o600)
    linked = tmp_path / "linked.json"
    linked.write_bytes(b"old")
    os.link(linked, tmp_path / "other-name.json")
    for target in (owned, linked):
        proc = run_cli(cli, "-d", db243, demo_query, "-o", str(target))
        assert proc.returncode == 0, proc.stderr
    st = owned.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (nobody.pw_uid, nobody.pw_gid, 0o600)
    assert json.loads(owned.read_bytes())["dataValues"]
    assert (tmp_path / "other-name.json").read_bytes() == linked.read_bytes() != b"old"
    assert sorted(os.listdir(tmp_path)) == ["linked.json", "other-name.json", "owned.json"]


def test_hard_linked_file_that_cannot_take_the_copy_keeps_the_document(cli, db243, demo_query, tmp_path):
    """A hard-linked file is overwritten in place at the end; when that copy fails (the disk fills: the
    temporary file and the copy need the space twice), the complete document is kept and named."""
    want = psql_copy_query(db243, demo_query)
    disk = tmp_path / "disk"
    disk.mkdir()
    size = len(want) * 3 // 2  # room for the temporary file, not for a second copy
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % size, "tmpfs", str(disk)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        target = disk / "linked.json"
        target.write_bytes(b"old")
        os.link(target, disk / "other-name.json")
        proc = run_cli(cli, "-d", db243, demo_query, "-o", str(target))
        assert proc.returncode == 5, proc.stderr
        kept = re.search(rb'the complete document is in "([^"]+)"', proc.stderr)
        assert kept, proc.stderr
        with open(kept.group(1), "rb") as f:
            assert f.read() == want
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_read_only_file_is_refused_not_replaced(cli, db243, demo_query, tmp_path):
    """As a shell's redirection: a user may not replace a file it cannot write (the folder being writable)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run the CLI as another user")
    nobody = pwd.getpwnam("nobody")
    folder = pathlib.Path(tempfile.mkdtemp(prefix="dve_cli_shared_"))  # pytest's own folders are root's 0700
    os.chmod(folder, 0o777)
    target = folder / "report.json"
    target.write_bytes(b"keep me")
    os.chown(target, nobody.pw_uid, nobody.pw_gid)
    os.chmod(target, 0o444)
    try:
        proc = run_cli(cli, "-d", db243, demo_query, "-o", str(target), preexec_fn=as_nobody)
        assert proc.returncode == 5, proc.stderr
        assert b"cannot write" in proc.stderr
        assert target.read_bytes() == b"keep me"
        assert os.listdir(folder) == ["report.json"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_file_the_rename_may_not_replace_takes_the_document_in_place(cli, db243, demo_query, tmp_path):
    """A bind-mounted file (docker -v /host/out.json:/out.json) cannot be renamed over (EBUSY): the
    complete document is copied into it instead of failing after the whole export."""
    want = psql_copy_query(db243, demo_query)
    host = tmp_path / "host.json"
    host.write_bytes(b"old")
    target = tmp_path / "mounted.json"
    target.write_bytes(b"")
    if subprocess.run(["mount", "--bind", str(host), str(target)], capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount here")
    try:
        proc = run_cli(cli, "-d", db243, demo_query, "-o", str(target))
        assert proc.returncode == 0, proc.stderr
        assert target.read_bytes() == want
    finally:
        subprocess.run(["umount", str(target)], check=True)
    assert host.read_bytes() == want
    assert sorted(os.listdir(tmp_path)) == ["host.json", "mounted.json"]


def test_another_users_file_in_a_sticky_folder_is_written_in_place(cli, db243, demo_query):
    """As a shell redirection may: a world-writable file of another user in a folder like /tmp, which
    the rename may not replace (EPERM), takes the document in place; its owner stays."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run the CLI as another user")
    want = psql_copy_query(db243, demo_query)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="dve_cli_sticky_"))
    os.chmod(folder, 0o1777)
    target = folder / "shared.json"
    target.write_bytes(b"old")
    os.chmod(target, 0o666)
    try:
        proc = run_cli(cli, "-d", db243, demo_query, "-o", str(target), preexec_fn=as_nobody)
        assert proc.returncode == 0, proc.stderr
        assert target.read_bytes() == want
        assert target.stat().st_uid == 0
        assert os.listdir(folder) == ["shared.json"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("name,fd", [("/dev/stdout", 1), ("/dev/stderr", 2), ("/proc/self/fd/1", 1),
                                     ("/dev//stderr", 2), ("/dev/./stderr", 2), ("//dev/stdout", 1),
                                     ("/proc/thread-self/fd/2", 2), ("link-to-stderr", 2)])
def test_named_descriptor_is_appended_to_not_replaced(cli, db243, demo_query, tmp_path, name, fd):
    """"-o /dev/stderr 2>>cron.log": the document goes where the descriptor points, after what the log
    held (resolved to the log file and renamed over it, the log was lost), however the path spells it."""
    log = tmp_path / "cron.log"
    log.write_bytes(b"earlier lines\n")
    if not name.startswith("/"):
        os.symlink("/dev/stderr", tmp_path / name)
        name = str(tmp_path / name)
    with open(log, "ab") as appended, open(os.devnull, "wb") as null:
        streams = {"stdout": appended if fd == 1 else null, "stderr": appended if fd == 2 else null}
        proc = subprocess.run([cli, "-q", "-d", db243, demo_query, "-o", name], timeout=DEADLINE, **streams)
    assert proc.returncode == 0
    content = log.read_bytes()
    assert content.startswith(b"earlier lines\n")
    assert json.loads(content[len(b"earlier lines\n"):])["dataValues"]
    assert sorted(os.listdir(tmp_path)) == sorted(["cron.log"] + (["link-to-stderr"] if "link" in name else []))


@pytest.mark.parametrize("spelled", ["/dev/./stdout", "/proc/thread-self/fd/1"])
def test_named_stdout_pipe_is_written_through(cli, db243, demo_query, spelled):
    """Another spelling of standard output on a pipe: the document goes through the pipe (it was
    taken for a folder to put a temporary file in, exit 5)."""
    proc = subprocess.run([cli, "-q", "-d", db243, demo_query, "-o", spelled], capture_output=True, timeout=DEADLINE)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["dataValues"]


def test_symlink_loop_is_refused(cli, db243, demo_query, tmp_path):
    """A link that names no file is refused as a shell refuses it (it was replaced by a file)."""
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    proc = run_cli(cli, "-d", db243, demo_query, "-o", str(tmp_path / "a"))
    assert proc.returncode == 5, proc.stderr
    assert b"Too many levels of symbolic links" in proc.stderr
    assert os.path.islink(tmp_path / "a") and os.readlink(tmp_path / "a") == "b"
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


def test_too_long_a_file_name_is_refused_before_the_export(cli, db243, demo_query, tmp_path):
    """A name over 255 bytes fails the rename: refused when the output is opened, not after the export."""
    proc = run_cli(cli, "-d", db243, demo_query, "-o", str(tmp_path / ("a" * 251 + ".json")))
    assert proc.returncode == 5, proc.stderr
    assert b"cannot create" in proc.stderr and b"File name too long" in proc.stderr
    assert b"rename" not in proc.stderr
    assert os.listdir(tmp_path) == []


def test_file_size_limit_is_an_output_error(cli, db243, demo_query, tmp_path):
    """ulimit -f (systemd LimitFSIZE=): exit 5 with the reason, no temporary file left, the old file kept
    (SIGXFSZ killed the program with status 153 and left its partial temporary file)."""
    import resource
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    proc = run_cli(cli, "-d", db243, demo_query, "-o", str(target),
                   preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024)))
    assert proc.returncode == 5, (proc.returncode, proc.stderr)
    assert b"File too large" in proc.stderr
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["out.json"]


@pytest.mark.parametrize("request_fails", [False, True])
def test_a_closed_stderr_pipe_does_not_kill_the_export(cli, db243, demo_query, tmp_path, request_fails):
    """`2>&1 | logger` whose logger died: messages to stderr fail quietly, the exit status and the file
    are the export's (SIGPIPE killed the program, status 141, and left its temporary file)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    target = tmp_path / "out.json"
    query = demo_query + ("&startDate=x" if request_fails else "")
    try:
        proc = subprocess.run([cli, "--progress=plain", "-d", db243, query, "-o", str(target)],
                              stdout=subprocess.DEVNULL, stderr=write_end, timeout=DEADLINE)
    finally:
        os.close(write_end)
    if request_fails:
        assert proc.returncode == 4
        assert os.listdir(tmp_path) == []
    else:
        assert proc.returncode == 0
        assert json.loads(target.read_bytes())["dataValues"]
        assert os.listdir(tmp_path) == ["out.json"]


def test_a_closed_stdout_pipe_ends_the_program_by_sigpipe(cli, db243, demo_query):
    """The document's own reader gone (| head): ended by SIGPIPE as any filter is (manual, 141 in a
    shell), though SIGPIPE is ignored for the messages on stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([cli, "-q", "-d", db243, demo_query], stdout=write_end, stderr=subprocess.PIPE,
                              timeout=DEADLINE)
    finally:
        os.close(write_end)
    assert proc.returncode == -signal.SIGPIPE, proc.stderr


def test_a_folder_without_create_rights_takes_the_document_in_place(cli, db243, demo_query):
    """A file the user may write in a folder it may not create files in (as a shell redirection may
    write it): the temporary file goes to $TMPDIR and the document is copied in (it was refused)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run the CLI as another user")
    nobody = pwd.getpwnam("nobody")
    want = psql_copy_query(db243, demo_query)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="dve_cli_closed_"))
    spare = pathlib.Path(tempfile.mkdtemp(prefix="dve_cli_tmpdir_"))
    os.chmod(folder, 0o755)
    os.chown(spare, nobody.pw_uid, nobody.pw_gid)
    target = folder / "report.json"
    target.write_bytes(b"old")
    os.chown(target, nobody.pw_uid, nobody.pw_gid)
    try:
        proc = run_cli(cli, "-d", db243, demo_query, "-o", str(target), preexec_fn=as_nobody,
                       env={"TMPDIR": str(spare)})
        assert proc.returncode == 0, proc.stderr
        assert target.read_bytes() == want
        assert os.listdir(folder) == ["report.json"]
        assert os.listdir(spare) == []
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(spare, ignore_errors=True)


def test_request_that_is_not_utf8_is_a_usage_error(cli, db243, tmp_path):
    proc = run_cli(cli, "-d", db243, b"orgUnit=\xff", "-o", str(tmp_path / "out.json"))
    assert proc.returncode == 2, proc.stderr
    assert b"could not quote the query" in proc.stderr
    assert os.listdir(tmp_path) == []


def locks_waiting_on(path):
    """Blocked flock() requests on path's inode, from /proc/locks ('->' lines)."""
    st = os.stat(path)
    inode = "%02x:%02x:%d" % (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    with open("/proc/locks") as f:
        return [line for line in f if "->" in line and "FLOCK" in line and inode in line]


@pytest.mark.parametrize("then", ["release", "cancel"])
def test_copy_into_a_hard_linked_file_waits_for_another_writer(cli, db243, demo_query, tmp_path, then):
    """Two exports into one hard-linked file (overlapping cron runs) copy one after the other, so the
    file is one whole document (both copied into the same inode at once: a mix of the two). A cancel
    while waiting leaves the file as it was."""
    want = psql_copy_query(db243, demo_query)
    target = tmp_path / "linked.json"
    target.write_bytes(b"old")
    os.link(target, tmp_path / "other-name.json")
    with open(target, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another writer in the middle of its copy
        proc = subprocess.Popen([cli, "-q", "-d", db243, demo_query, "-o", str(target)], stderr=subprocess.PIPE)
        try:
            wait_for(lambda: locks_waiting_on(target), "the export to wait for the file's lock")
            assert target.read_bytes() == b"old"
            if then == "cancel":
                proc.send_signal(signal.SIGINT)
                assert proc.wait(timeout=DEADLINE) == 130
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
        status = proc.wait(timeout=DEADLINE)
        stderr = proc.stderr.read()
    if then == "cancel":
        assert target.read_bytes() == b"old", stderr
    else:
        assert status == 0, stderr
        assert target.read_bytes() == want
    assert (tmp_path / "other-name.json").read_bytes() == target.read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["linked.json", "other-name.json"]


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (scripts/setup.sh installs it)")
def test_signals_during_the_copy_into_a_hard_linked_file_wait_for_it(cli, db243, demo_query, tmp_path):
    """Once the file is cut to take the document, a signal neither stops the copy halfway nor removes
    the complete temporary file (both happened: the file held a piece of the document, the rest was
    gone). strace stops the program at its first write into the file (and makes that write write
    nothing, so it is repeated), so the copy is provably under way, the file cut, when the signals
    come, however fast the machine; they stay pending until the copy is done."""
    want = psql_copy_query(db243, demo_query)
    target = tmp_path / "linked.json"
    target.write_bytes(b"old")
    os.link(target, tmp_path / "other-name.json")
    tracer = subprocess.Popen(["strace", "-f", "-qq", "-o", os.devnull, "-P", str(target), "-e", "trace=write",
                               "-e", "inject=write:retval=0:signal=SIGSTOP:when=1", cli, "-q", "-d", db243, demo_query,
                               "-o", str(target)], stderr=subprocess.PIPE)
    try:
        # The file cut: from here signals are held, and the first write stops the program (for good,
        # until it is continued), so what follows does not race the copy.
        wait_for(lambda: target.stat().st_size == 0, "the file to be cut for the copy")
        with open("/proc/%d/task/%d/children" % (tracer.pid, tracer.pid)) as f:
            pid = int(f.read().split()[0])
        for signo in (signal.SIGINT, signal.SIGTERM):
            os.kill(pid, signo)
            wait_for(lambda: signal_pending(pid, signo), "the signal to be held")
        assert target.stat().st_size == 0  # nothing of the document written while the signals came

        def continued():
            # A SIGCONT sent before strace's SIGSTOP lands would be lost: send until the program ends.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
            return tracer.poll() is not None
        wait_for(continued, "the program to finish the copy")
        status = tracer.wait(timeout=DEADLINE)
        stderr = tracer.stderr.read()
    finally:
        if tracer.poll() is None:
            tracer.kill()
    assert status in (130, 143), stderr
    assert target.read_bytes() == want
    assert (tmp_path / "other-name.json").read_bytes() == want
    assert sorted(os.listdir(tmp_path)) == ["linked.json", "other-name.json"]


def test_signal_while_waiting_for_a_fifo_reader_is_a_cancel(cli, db243, demo_query, tmp_path):
    """Opening a FIFO waits for its reader; a signal there is an interrupt (130), not an output error."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    proc = subprocess.Popen([cli, "-d", db243, demo_query, "-o", str(fifo)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        # Linux names the wait wait_for_partner (fs/pipe.c; fifo_open on older kernels).
        wait_for(lambda: open("/proc/%d/wchan" % proc.pid).read() in ("wait_for_partner", "fifo_open"),
                 "the CLI to wait in the FIFO's open")
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=DEADLINE)
        assert proc.returncode == 130, stderr
        assert b"interrupted: the export was cancelled; nothing was written to" in stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("closed", [1, 2])
def test_closed_standard_descriptor_is_not_reused(cli, db243, demo_query, tmp_path, closed):
    """With stdout or stderr closed, neither the connection nor the output file may take its number."""
    out = tmp_path / "out.json"
    args = [cli, "-d", db243, demo_query, "--progress=plain"] + (["-o", str(out)] if closed == 2 else [])
    proc = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL if closed == 2 else None,
                          stderr=subprocess.PIPE if closed == 1 else None, timeout=DEADLINE,
                          preexec_fn=lambda: os.close(closed))
    if closed == 1:
        assert proc.returncode == 5, "the document went somewhere with stdout closed"
        assert b"standard output is closed" in proc.stderr, proc.stderr
    else:
        assert proc.returncode == 0
        assert json.loads(out.read_bytes())["dataValues"], "progress text inside the output file"


def test_longest_file_name_is_written(cli, db243, demo_query, tmp_path):
    """A 255-byte name (the usual limit) is valid, so its temporary name must be shorter."""
    name = "x" * (255 - len(".json")) + ".json"
    proc = run_cli(cli, "-d", db243, demo_query, "-o", str(tmp_path / name))
    assert proc.returncode == 0, proc.stderr
    assert os.listdir(tmp_path) == [name]


def test_query_is_quoted_as_a_literal(cli, db243):
    """Quote and backslash reach the server intact (PQescapeLiteral), visible in its error message."""
    proc = run_cli(cli, "-d", db243, "dataSet=ab'c\\d&period=202401&orgUnit=" + dve.ROOT_OU)
    stderr = proc.stderr.decode()
    assert proc.returncode == 4, stderr
    assert "but was: ab'c\\d" in stderr
    assert "SQLSTATE:  22P02" in stderr


# ---------------------------------------------------------------------------------------------
# errors and exit statuses


def test_export_error_prints_dhis2_code_detail_hint(cli, db243, tmp_path):
    out = tmp_path / "out.json"
    proc = run_cli(cli, "-d", db243, "dataValueSets.json?period=202401&orgUnit=" + dve.ROOT_OU, "-o", str(out))
    stderr = proc.stderr.decode()
    assert proc.returncode == 4, stderr
    assert "ERROR:  E2001: At least one data element, data set or data element group must be specified" in stderr
    assert "SQLSTATE:  22023" in stderr
    assert os.listdir(tmp_path) == [], "no file (not even a temporary one) after a refused export"

    proc = run_cli(cli, "-d", db243, "dataSett=pBOMPrpg1QX")
    stderr = proc.stderr.decode()
    assert proc.returncode == 4
    assert 'HINT:  Perhaps you meant "dataSet".' in stderr
    proc = run_cli(cli, "-d", db243, "dataSet=pBOMPrpg1QX&period=202401&orgUnit=%s&limit=abc" % dve.ROOT_OU)
    assert "DETAIL:  The value must be an integer." in proc.stderr.decode()


def test_failed_export_leaves_an_existing_file_untouched(cli, db243, tmp_path):
    out = tmp_path / "out.json"
    out.write_bytes(b"previous export")
    proc = run_cli(cli, "-d", db243, "dataValueSets.json?orgUnit=" + dve.ROOT_OU, "-o", str(out))
    assert proc.returncode == 4
    assert out.read_bytes() == b"previous export"
    assert os.listdir(tmp_path) == ["out.json"]


def test_error_after_data_was_written_leaves_no_file(cli, db243, conn243, demo_query, tmp_path):
    """A value with an infinite timestamp fails the export after several 256 kB messages were written
    (the physically last row of an unordered export; see test_midstream_error.py). The broken table is
    a copy in a schema of its own (with views of the other DHIS2 tables), found first through the CLI
    connection's search_path."""
    schema = "dve_cli_broken"
    with conn243.cursor() as cur:
        cur.execute("DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s" % (schema, schema))
        cur.execute("CREATE TABLE %s.datavalue AS SELECT * FROM datavalue ORDER BY ctid" % schema)
        # the export reads every DHIS2 table from the schema that holds datavalue: the others as views
        cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'datavalue'")
        for (table,) in cur.fetchall():
            cur.execute("CREATE VIEW %s.%s AS SELECT * FROM public.%s" % (schema, table, table))
        # the physically last value the demo request exports (see test_midstream_error.py)
        cur.execute("""UPDATE {s}.datavalue SET created = 'infinity'
                       WHERE ctid = (SELECT max(dv.ctid) FROM {s}.datavalue dv
                                     JOIN period pe ON pe.periodid = dv.periodid
                                     WHERE NOT dv.deleted AND pe.startdate >= %s AND pe.enddate <= %s)""".format(
            s=schema), (dve.DEMO_START, dve.DEMO_END))
        assert cur.rowcount == 1
    try:
        out = tmp_path / "out.json"
        conninfo = "dbname=%s options='-c search_path=%s,public'" % (db243, schema)
        proc = run_cli(cli, "-d", conninfo, demo_query + "&order=none", "-o", str(out), "--progress=plain")
        stderr = proc.stderr.decode()
        assert proc.returncode == 4, stderr
        assert "SQLSTATE:  22008" in stderr
        assert "exporting to " + str(out) in stderr
        assert "done:" not in stderr
        assert os.listdir(tmp_path) == []
        # the same through stdout: an incomplete document, visibly so
        proc = run_cli(cli, "-d", conninfo, demo_query + "&order=none")
        assert proc.returncode == 4
        assert len(proc.stdout) >= 256 * 1024
        assert not proc.stdout.endswith(b"]}")
        assert ("standard output holds an incomplete document (%d bytes)" % len(proc.stdout)) in proc.stderr.decode()
    finally:
        with conn243.cursor() as cur:
            cur.execute("DROP SCHEMA %s CASCADE" % schema)


@pytest.mark.parametrize("args,message", [
    ([], "no request given"),
    (["dataSet=x", "period=202401"], "one request at a time"),
    (["--password=secret", "dataSet=x"], "--password takes no value"),
    (["dataValueSets.json?format=csv&dataSet=x"], "conflicting format"),
    (["dataValueSets.json.gz?dataSet=x", "-o", "out.json"], "conflicting compression"),
    (["dataSet=x", "-o", ""], "needs a file name"),
    (["https://play.dhis2.org/api/analytics.json?dimension=dx"], "is not DHIS2's /api/dataValueSets"),
    (["--progress=sometimes", "dataSet=x"], "invalid --progress value"),
])
def test_usage_errors_exit_2(cli, tmp_path, args, message):
    proc = run_cli(cli, *args, cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr.decode()
    assert "--help" in proc.stderr.decode()
    assert os.listdir(tmp_path) == []


def test_help_and_version(cli):
    proc = run_cli(cli, "--help")
    assert proc.returncode == 0
    text = proc.stdout.decode()
    for needle in ("Exit status", "pg_class.reltuples", "--progress=MODE", "-U, --username"):
        assert needle in text
    proc = run_cli(cli, "--version")
    assert proc.returncode == 0
    assert proc.stdout.decode().startswith("datavalue-export (datavalue_export) ")


def test_connection_failure_exits_3(cli, tmp_path):
    out = tmp_path / "out.json"
    proc = run_cli(cli, "-h", str(tmp_path), "-p", "1", "-d", "nosuchdb", "dataSet=x", "-o", str(out))
    assert proc.returncode == 3
    assert "could not connect" in proc.stderr.decode()
    assert os.listdir(tmp_path) == []


def test_missing_database_exits_3(cli, demo_dbs):
    proc = run_cli(cli, "-d", "dve_cli_no_such_database", "dataSet=x")
    assert proc.returncode == 3
    assert 'database "dve_cli_no_such_database" does not exist' in proc.stderr.decode()


@pytest.mark.parametrize("make_target", ["missing folder", "a folder"])
def test_output_errors_exit_5(cli, db243, demo_query, tmp_path, make_target):
    target = tmp_path / "no" / "out.json" if make_target == "missing folder" else tmp_path
    proc = run_cli(cli, "-d", db243, demo_query, "-o", str(target))
    assert proc.returncode == 5, proc.stderr
    assert str(target.parent if make_target == "missing folder" else target) in proc.stderr.decode()


def test_terminated_backend_exits_3(cli, db243, conn243, demo_query, tmp_path):
    with export_held_by_lock(cli, db243, conn243, [demo_query, "-o", str(tmp_path / "out.json")]) as (proc, app, _):
        with conn243.cursor() as cur:
            cur.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s", (app,))
        _, stderr = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 3, stderr
    assert "terminating connection" in stderr.decode()
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------------------------------------
# cancel


@pytest.mark.parametrize("signo,status,word", [(signal.SIGINT, 130, "interrupted"),
                                               (signal.SIGTERM, 143, "terminated"),
                                               (signal.SIGHUP, 129, "hung up"),
                                               (signal.SIGQUIT, 131, "quit")])
def test_signal_cancels_the_server_and_removes_the_temporary_file(cli, db243, conn243, demo_query, tmp_path,
                                                                   signo, status, word):
    out = tmp_path / "out.json"
    with export_held_by_lock(cli, db243, conn243, [demo_query, "-o", str(out)]) as (proc, app, _):
        temp = os.listdir(tmp_path)
        assert len(temp) == 1 and temp[0].startswith(".out.json.part."), temp
        proc.send_signal(signo)
        _, stderr = proc.communicate(timeout=DEADLINE)
        assert proc.returncode == status, stderr
        assert word + ": the export was cancelled" in stderr.decode()
        assert os.listdir(tmp_path) == []
        # The lock is still held: only the cancel request can have ended the backend's wait.
        wait_for(lambda: (backend_state(conn243, app) or ("gone",))[0] in ("gone", "idle"),
                 "the cancelled backend to stop waiting")


def signal_pending(pid, signo):
    """Whether signo is still pending (not yet delivered) for the process, from /proc/<pid>/status."""
    with open("/proc/%d/status" % pid) as f:
        fields = dict(line.split(":", 1) for line in f if ":" in line)
    return any(int(fields[key].strip(), 16) & (1 << (signo - 1)) for key in ("SigPnd", "ShdPnd"))


@pytest.mark.parametrize("signo,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_while_connecting_exits_at_once(cli, tmp_path, signo, status):
    """A server that never answers (a socket nobody serves: the connection is accepted, then silence). There is
    no query to cancel yet, so the first signal exits at once, says so, and removes the temporary file (libpq
    alone would retry its wait on EINTR and hang until a second signal)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(DEADLINE)
    out = tmp_path / "out.json"
    proc = subprocess.Popen([cli, "-h", "127.0.0.1", "-p", str(server.getsockname()[1]), "-d", "x", "dataSet=x",
                             "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        accepted, _ = server.accept()  # the CLI is now waiting for the server's first reply
        assert len(os.listdir(tmp_path)) == 1
        proc.send_signal(signo)
        _, stderr = proc.communicate(timeout=DEADLINE)
        assert proc.returncode == status
        assert b"interrupted while connecting" in stderr
        assert os.listdir(tmp_path) == []
        accepted.close()
    finally:
        server.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class CancelSwallowingProxy:
    """A Unix socket in front of the server: the first connection (the export's) is passed through, every
    later one (a cancel request) is accepted and then left unanswered, as by a server behind a dead link."""

    def __init__(self, folder, port):
        self.path = os.path.join(folder, ".s.PGSQL.%d" % port)
        self.upstream = os.path.join(os.environ["PGHOST"], ".s.PGSQL.%s" % os.environ.get("PGPORT", "5432"))
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(self.path)
        self.listener.listen(4)
        self.held = []
        self.cancel_arrived = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _pump(self, source, sink):
        with contextlib.suppress(OSError):
            while True:
                data = source.recv(1 << 16)
                if not data:
                    break
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def _serve(self):
        with contextlib.suppress(OSError):
            client, _ = self.listener.accept()
            server = socket.socket(socket.AF_UNIX)
            server.connect(self.upstream)
            self.held += [client, server]
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client), daemon=True).start()
            while True:
                cancel, _ = self.listener.accept()
                self.held.append(cancel)
                self.cancel_arrived.set()

    def close(self):
        for s in self.held + [self.listener]:
            with contextlib.suppress(OSError):
                s.close()


def test_second_signal_exits_while_the_cancel_request_hangs(cli, db243, conn243, demo_query, tmp_path):
    """The first Ctrl-C sends a cancel request that the server never answers (the proxy swallows it): the
    second one must still exit at once (it was blocked while the first one's handler waited)."""
    sockets = tmp_path / "sockets"
    sockets.mkdir()
    proxy = CancelSwallowingProxy(str(sockets), 5999)
    app = unique_app()
    out = tmp_path / "out.json"
    try:
        with datavalue_locked(db243):
            proc = subprocess.Popen([cli, "-h", str(sockets), "-p", "5999", "-d", db243, demo_query, "-o", str(out)],
                                    env=dict(os.environ, PGAPPNAME=app), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE)
            try:
                wait_for(lambda: (backend_state(conn243, app) or (None, None))[1] == "Lock", "the export to wait")
                proc.send_signal(signal.SIGINT)
                assert proxy.cancel_arrived.wait(DEADLINE), "no cancel request reached the proxy"
                assert proc.poll() is None  # still waiting for the cancel's answer
                proc.send_signal(signal.SIGINT)
                _, stderr = proc.communicate(timeout=DEADLINE)
                assert proc.returncode == 130, stderr
                assert os.listdir(tmp_path) == ["sockets"], "the temporary file was left behind"
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    finally:
        proxy.close()


def test_sigint_while_blocked_on_a_full_stdout_pipe(cli, db243, conn243, demo_query):
    """Mid-stream: stdout is a pipe nobody reads. Once the pipe is full the CLI cannot write (so it stops
    reading the socket) and its backend then blocks in ClientWrite with part of the document sent. SIGINT
    ends the CLI's wait, and the backend goes away."""
    app = unique_app()
    read_end, write_end = os.pipe()
    capacity = fcntl.fcntl(read_end, F_GETPIPE_SZ)
    proc = subprocess.Popen([cli, "-d", db243, demo_query],
                            env=dict(os.environ, PGAPPNAME=app, PGOPTIONS=SMALL_SOCKET),
                            stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    try:
        seen = []

        def blocked():
            queued = array.array("i", [0])
            fcntl.ioctl(read_end, termios.FIONREAD, queued)
            seen.append((queued[0], backend_state(conn243, app), proc.poll()))
            return queued[0] == capacity and (seen[-1][1] or (None,) * 3)[2] == "ClientWrite"

        wait_for(blocked, lambda: "a full pipe and the backend in ClientWrite (last seen: pipe bytes, backend, "
                                  "exit status %r)" % (seen[-3:],))
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=DEADLINE)
        assert proc.returncode == 130, stderr
        assert "standard output holds an incomplete document" in stderr.decode()
        received = b""
        while True:
            chunk = os.read(read_end, 1 << 20)
            if not chunk:
                break
            received += chunk
        assert len(received) > 0
        assert not received.endswith(b"]}")
        wait_for(lambda: backend_state(conn243, app) is None, "the backend to end")
    finally:
        os.close(read_end)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ---------------------------------------------------------------------------------------------
# progress


class Tmux:
    """A private tmux server (own socket) running one command in a 120x12 terminal."""

    def __init__(self, command, env):
        self.socket = "dve-cli-test-%s" % uuid.uuid4().hex[:8]
        exports = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())
        # Keep the pane after the command ends (read waits on the terminal), with its exit status shown.
        script = "env %s %s; echo \"[exit $?]\"; read _" % (exports, command)
        subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", "new-session", "-d", "-s", "t",
                        "-x", "120", "-y", "12", "sh", "-c", script], check=True, timeout=DEADLINE)

    def screen(self):
        return subprocess.run(["tmux", "-L", self.socket, "capture-pane", "-p", "-t", "t"], capture_output=True,
                              text=True, check=True, timeout=DEADLINE).stdout

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=DEADLINE)


def reltuples(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT reltuples::bigint FROM pg_class WHERE oid = 'datavalue'::regclass")
        return cur.fetchone()[0]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (scripts/setup.sh installs it)")
def test_progress_bar_in_a_terminal(cli, db243, conn243, demo_query, tmp_path):
    app = unique_app()
    out = tmp_path / "out.json"
    env = {k: v for k, v in os.environ.items() if k.startswith("PG")}
    env.update(PGAPPNAME=app, TERM="xterm")
    estimate = reltuples(conn243)
    assert estimate > 0, "the demo database is analysed"
    with datavalue_locked(db243) as lock:
        term = Tmux("%s -d %s %s -o %s" % (cli, db243, shlex.quote(demo_query), shlex.quote(str(out))), env)
        try:
            wait_for(lambda: (backend_state(conn243, app) or (None, None))[1] == "Lock", "the export to wait")
            # Drawn while the export is provably blocked: nothing sent yet, the estimate known.
            screen = wait_for(lambda: (lambda s: s if "ETA" in s else None)(term.screen()), "the bar")
            bar = [line for line in screen.splitlines() if "ETA" in line]
            assert len(bar) == 1, screen
            bar = bar[0]
            assert bar.startswith("[.........."), bar
            assert "] 0 / ~%s values  0 B  0 B/s  ETA --" % dve_count(estimate) in bar, bar
            assert len(bar) <= 119
            assert backend_state(conn243, app)[1] == "Lock", "the bar was drawn while the export waited"
            lock.release()
            screen = wait_for(lambda: (lambda s: s if "[exit " in s else None)(term.screen()), "the export to end")
        finally:
            term.close()
    assert "[exit 0]" in screen, screen
    data = out.read_bytes()
    values = len(dve.data_values(dve.parse_json_pairs(data)))
    # The bar line was replaced by the summary: exact values and bytes.
    assert "ETA" not in screen, screen
    assert "datavalue-export: done: %s values, %s bytes (" % (dve_count(values), dve_count(len(data))) in screen, screen


BAR = re.compile(r"^\[(#*)(\.*)\] ([\d,]+) / ~([\d,]+) values  ([\d.]+ k?M?G?B)  ([\d.]+ k?M?G?B)/s  ETA ~(\d+:\d\d)$")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (scripts/setup.sh installs it)")
def test_progress_bar_mid_export(cli, db243, conn243, demo_query, tmp_path):
    """The bar with values, bytes, rate and an ETA while data flows. The CLI writes to a FIFO the test
    reads, so the export advances only as the test reads: once the CLI is blocked (full FIFO, backend in
    ClientWrite, values counted in pg_stat_progress_copy), the test lets more than the 250 ms redraw
    interval pass and reads on until the next redraw shows up, then holds the CLI there."""
    app = unique_app()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    env = {k: v for k, v in os.environ.items() if k.startswith("PG")}
    env.update(PGAPPNAME=app, TERM="xterm", PGOPTIONS=SMALL_SOCKET)
    term = Tmux("%s -d %s %s > %s" % (cli, db243, shlex.quote(demo_query), shlex.quote(str(fifo))), env)
    reader = None
    try:
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        fcntl.fcntl(reader, fcntl.F_SETFL, fcntl.fcntl(reader, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        capacity = fcntl.fcntl(reader, F_GETPIPE_SZ)

        def blocked():
            queued = array.array("i", [0])
            fcntl.ioctl(reader, termios.FIONREAD, queued)
            state = backend_state(conn243, app)
            with conn243.cursor() as cur:
                cur.execute("SELECT p.tuples_processed FROM pg_stat_progress_copy p JOIN pg_stat_activity a "
                            "USING (pid) WHERE a.application_name = %s", (app,))
                row = cur.fetchone()
            return queued[0] == capacity and state and state[2] == "ClientWrite" and row and row[0] > 0

        wait_for(blocked, "the CLI to block on a full FIFO with values sent")
        time.sleep(0.3)  # a lower bound on time passed (> the redraw interval), not a speed assumption
        received = 0

        def drawn_with_values():
            nonlocal received
            screen = term.screen()
            match = [BAR.match(line) for line in screen.splitlines() if BAR.match(line)]
            if match and match[0].group(3) != "0":
                return match[0]
            chunk = os.read(reader, 65536)
            assert chunk, "the export ended before the bar was redrawn"
            received += len(chunk)
            return None

        bar = wait_for(drawn_with_values, "a redrawn bar")
        filled, empty, values, estimate, size, rate, eta = bar.groups()
        values, estimate = int(values.replace(",", "")), int(estimate.replace(",", ""))
        assert 0 < values <= estimate
        assert estimate == reltuples(conn243)
        assert size != "0 B" and rate != "0 B/s" and rate != "0 B"
        assert len(filled) == int(values / estimate * (len(filled) + len(empty)))
        assert eta  # minutes:seconds left at the average rate
        # let it finish: read the rest
        while os.read(reader, 1 << 20):
            pass
        screen = wait_for(lambda: (lambda s: s if "[exit " in s else None)(term.screen()), "the export to end")
        assert "[exit 0]" in screen, screen
        assert "datavalue-export: done: " in screen
    finally:
        if reader is not None:
            os.close(reader)
        term.close()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (scripts/setup.sh installs it)")
def test_quiet_draws_nothing_in_a_terminal(cli, db243, demo_query, tmp_path):
    out = tmp_path / "out.csv"
    env = {k: v for k, v in os.environ.items() if k.startswith("PG")}
    term = Tmux("%s -q -d %s %s -o %s" % (cli, db243, shlex.quote(demo_query), shlex.quote(str(out))), env)
    try:
        screen = wait_for(lambda: (lambda s: s if "[exit " in s else None)(term.screen()), "the export to end")
    finally:
        term.close()
    assert screen.strip() == "[exit 0]", screen
    assert out.read_bytes().startswith(dve.CSV_HEADER.encode())


def test_plain_progress_for_logs(cli, db243, conn243, demo_query, tmp_path):
    """--progress=plain with stderr a pipe: the start line appears while the export is held, the
    summary at the end has the exact counts."""
    out = tmp_path / "out.csv"
    with export_held_by_lock(cli, db243, conn243, [demo_query, "-o", str(out), "--progress=plain"]) as (proc, _, lock):
        ready, _, _ = select.select([proc.stderr], [], [], DEADLINE)
        assert ready, "no start line"
        first = proc.stderr.readline().decode()
        assert first == "datavalue-export: exporting to %s (table estimate ~%s values)\n" % (
            out, dve_count(reltuples(conn243))), first
        lock.release()
        _, rest = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 0, rest
    lines = rest.decode().splitlines()
    assert "\033" not in rest.decode()
    assert all(line.startswith("datavalue-export: progress: ") for line in lines[:-1]), lines
    data = out.read_bytes()
    values = len(dve.parse_csv(data.decode())) - 1  # the header line
    assert lines[-1].startswith("datavalue-export: done: %s values, %s bytes (" % (dve_count(values),
                                                                                   dve_count(len(data)))), lines


class PasswordServer:
    """Just enough of a PostgreSQL server to ask for a cleartext password (protocol 3.0: refuse SSL, then
    AuthenticationCleartextPassword) and record what a client sends, then refuse it with 28P01."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(DEADLINE)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.passwords = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @staticmethod
    def _read(conn, n):
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def _serve(self):
        try:
            while True:
                conn, _ = self.sock.accept()
                self.connections += 1
                with conn:
                    try:
                        self._session(conn)
                    except EOFError:
                        pass  # the client gave up (no password)
        except OSError:
            pass  # closed

    def _session(self, conn):
        while True:
            length, code = struct.unpack("!ii", self._read(conn, 8))
            self._read(conn, length - 8)
            if code in (80877103, 80877104):  # SSLRequest, GSSENCRequest: not here
                conn.sendall(b"N")
                continue
            break  # the startup message
        conn.sendall(b"R" + struct.pack("!ii", 8, 3))
        kind, length = struct.unpack("!ci", self._read(conn, 5))
        body = self._read(conn, length - 4)
        assert kind == b"p"
        self.passwords.append(body.rstrip(b"\0").decode())
        fields = b"SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user \"alice\"\0\0"
        conn.sendall(b"E" + struct.pack("!i", 4 + len(fields)) + fields)

    def close(self):
        self.sock.close()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (scripts/setup.sh installs it)")
@pytest.mark.parametrize("flag,connections", [("", 2), ("-W", 1)])
def test_password_prompt_on_the_terminal(cli, tmp_path, flag, connections):
    """Asked when the server wants a password (or first, with -W), typed without echo, sent to the server."""
    server = PasswordServer()
    out = tmp_path / "out.json"
    term = Tmux("env -u PGPASSWORD PGPASSFILE=%s %s %s -h 127.0.0.1 -p %d -U alice -d x dataSet=x -o %s" % (
        shlex.quote(str(tmp_path / "no-pgpass")), cli, flag, server.port, shlex.quote(str(out))), {"TERM": "xterm"})
    try:
        wait_for(lambda: "Password:" in term.screen(), "the prompt")  # capture-pane drops trailing blanks
        subprocess.run(["tmux", "-L", term.socket, "send-keys", "-t", "t", "s3cret", "Enter"], check=True,
                       timeout=DEADLINE)
        screen = wait_for(lambda: (lambda s: s if "[exit " in s else None)(term.screen()),
                          lambda: "the CLI to end; the screen shows %r" % term.screen())
    finally:
        term.close()
        server.close()
    assert server.passwords == ["s3cret"]
    assert server.connections == connections
    assert "s3cret" not in screen, "the password was echoed"
    assert 'password authentication failed for user "alice"' in screen.replace("\n", "")  # may wrap
    assert "[exit 3]" in screen
    assert os.listdir(tmp_path) == []


def test_no_password_never_asks(cli, tmp_path):
    server = PasswordServer()
    try:
        proc = run_cli(cli, "-w", "-h", "127.0.0.1", "-p", str(server.port), "-U", "alice", "-d", "x", "dataSet=x",
                       env={"PGPASSWORD": "", "PGPASSFILE": str(tmp_path / "no-pgpass")})
    finally:
        server.close()
    assert proc.returncode == 3
    assert "no password supplied" in proc.stderr.decode()
    assert server.passwords == []


def test_man_page_renders(tmp_path):
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    page = os.path.join(REPO, "cli", "datavalue-export.1")
    proc = subprocess.run(["man", "-l", page], capture_output=True, env=dict(os.environ, MANWIDTH="100",
                                                                               MANPAGER="cat", PAGER="cat"),
                          timeout=DEADLINE)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    for heading in ("NAME", "SYNOPSIS", "OPTIONS", "PROGRESS", "EXIT STATUS", "EXAMPLES"):
        assert heading in text
    assert proc.stderr == b"", proc.stderr


def dve_count(n):
    return "{:,}".format(n)
