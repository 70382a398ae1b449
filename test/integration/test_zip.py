"""
test/integration/test_zip.py
    compression => 'zip' inside COPY, for JSON, CSV and XML: one entry named as DHIS2 names it
    (dhis2-xml-adx-format.md §1.3), holding exactly the plain document, readable by Python's
    zipfile, Info-ZIP's `unzip -t` and Java's java.util.zip.ZipInputStream (DHIS2's own reader
    family; a tiny reader is compiled here).
SPDX-License-Identifier: PostgreSQL
"""
import io
import shutil
import struct
import subprocess
import zipfile
import zlib

import pytest

import dve

JAVA_READER = r"""
import java.io.*;
import java.util.zip.*;

public class ReadZip {
    public static void main(String[] args) throws IOException {
        try (ZipInputStream in = new ZipInputStream(new FileInputStream(args[0]))) {
            ZipEntry e;
            byte[] buf = new byte[65536];
            while ((e = in.getNextEntry()) != null) {
                CRC32 crc = new CRC32();
                long n = 0;
                for (int r; (r = in.read(buf)) > 0; n += r)
                    crc.update(buf, 0, r);
                System.out.println(e.getName() + " " + n + " " + Long.toHexString(crc.getValue()));
            }
        }
    }
}
"""


@pytest.fixture(scope="module")
def java_reader(tmp_path_factory):
    if shutil.which("javac") is None:
        pytest.skip("javac not installed (scripts/setup.sh installs openjdk-17-jdk-headless)")
    d = tmp_path_factory.mktemp("javazip")
    (d / "ReadZip.java").write_text(JAVA_READER)
    subprocess.run(["javac", "ReadZip.java"], cwd=d, check=True, capture_output=True)
    return d


@pytest.mark.parametrize("fmt", ["json", "csv", "xml"])
def test_zip_holds_the_plain_document(conn243, demo_request, fmt, tmp_path, java_reader):
    plain = dve.copy_bytes(conn243, fmt, **demo_request)
    packed = dve.copy_bytes(conn243, fmt, compression="zip", **demo_request)
    assert len(packed) < len(plain) // 2
    name, content, info = dve.single_zip_entry(packed)
    # 2.43: <name>_<startDate>_<endDate>.<fmt>; the e2e DataValueSetTest shape
    assert name == "dataValues_%s_%s.%s" % (dve.DEMO_START, dve.DEMO_END, fmt)
    assert content == plain
    assert info.compress_type == zipfile.ZIP_DEFLATED
    assert info.flag_bits == 0x0808
    # Java's local header: PK 03 04, version 20, flags 0x0808, method 8, sizes deferred
    assert packed[:4] == b"PK\x03\x04"
    assert struct.unpack("<HHH", packed[4:10]) == (20, 0x0808, 8)
    assert packed[14:26] == b"\0" * 12

    path = tmp_path / ("export.%s.zip" % fmt)
    path.write_bytes(packed)
    unzip = subprocess.run(["unzip", "-t", str(path)], capture_output=True, text=True)
    assert unzip.returncode == 0, unzip.stdout + unzip.stderr
    assert "No errors detected" in unzip.stdout
    java = subprocess.run(["java", "-cp", str(java_reader), "ReadZip", str(path)], capture_output=True, text=True,
                          check=True)
    assert java.stdout.split() == [name, str(len(plain)), "%x" % zlib.crc32(plain)]


def test_zip_zlib_level_and_2_42_names(conn243):
    request = dict(data_set=["HostileDSet"], period=["202401"], org_unit=["DiszpKrYNg8"])
    plain = dve.copy_bytes(conn243, "xml", style="2.42", **request)
    name, content, _ = dve.single_zip_entry(dve.copy_bytes(conn243, "xml", style="2.42", compression="ZIP", compression_level=6,
                                             **request))
    assert (name, content) == ("dataValues.xml", plain)


def test_zip_entry_named_after_attachment(conn243):
    query = ("dataSet=HostileDSet&period=202401&orgUnit=DiszpKrYNg8&format=csv&compression=zip"
             "&attachment=report.csv.zip")
    buf = io.BytesIO()
    with conn243.cursor() as cur:
        cur.copy_expert("COPY (SELECT export_datavalues('%s')) TO STDOUT" % query, buf)
    name, content, _ = dve.single_zip_entry(buf.getvalue())
    assert name == "report.csv"
    assert content == dve.copy_bytes(conn243, "csv", data_set=["HostileDSet"], period=["202401"],
                                     org_unit=["DiszpKrYNg8"])


def test_empty_document_zips(conn243):
    request = dict(data_set=["HostileDSet"], period=["190001"], org_unit=["DiszpKrYNg8"])
    name, content, _ = dve.single_zip_entry(dve.copy_bytes(conn243, "json", compression="zip", **request))
    assert content == dve.copy_bytes(conn243, "json", **request)
