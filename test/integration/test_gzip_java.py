"""
test/integration/test_gzip_java.py
    compression_level => 6 must give the same bytes as DHIS2's own gzip: Java's
    GZIPOutputStream over the plain document (pg-techniques §4.4). A tiny Java program is
    compiled at test time and gzips the plain export; its output must equal ours byte for byte.
SPDX-License-Identifier: PostgreSQL
"""
import os
import shutil
import subprocess
import tempfile

import pytest

import dve

JAVA = r"""
import java.io.*;
import java.util.zip.GZIPOutputStream;

public class DveGzip {
    public static void main(String[] args) throws Exception {
        byte[] data = java.nio.file.Files.readAllBytes(new File(args[0]).toPath());
        try (OutputStream out = new GZIPOutputStream(new FileOutputStream(args[1]))) {
            // Uneven writes, as a servlet stream would see them.
            int at = 0, step = 1;
            while (at < data.length) {
                int n = Math.min(step, data.length - at);
                out.write(data, at, n);
                at += n;
                step = step * 7 % 65521 + 1;
            }
        }
    }
}
"""


@pytest.fixture(scope="module")
def java_gzip():
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no JDK")
    tmp = tempfile.mkdtemp(prefix="dve_gzip_")
    with open(os.path.join(tmp, "DveGzip.java"), "w") as f:
        f.write(JAVA)
    subprocess.run(["javac", "-d", tmp, os.path.join(tmp, "DveGzip.java")], check=True, capture_output=True)

    def gzip(data):
        src, dst = os.path.join(tmp, "in.bin"), os.path.join(tmp, "out.gz")
        with open(src, "wb") as f:
            f.write(data)
        subprocess.run(["java", "-cp", tmp, "DveGzip", src, dst], check=True, capture_output=True)
        with open(dst, "rb") as f:
            return f.read()

    yield gzip
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_level_6_equals_java_gzipoutputstream(conn243, demo_request, java_gzip, fmt):
    plain = dve.copy_bytes(conn243, fmt, **demo_request)
    ours = dve.copy_bytes(conn243, fmt, compression="gzip", compression_level=6, **demo_request)
    assert len(plain) > 1_000_000
    assert ours == java_gzip(plain)
