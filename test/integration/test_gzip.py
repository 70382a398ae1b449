"""
test/integration/test_gzip.py
    compression => 'gzip' inside COPY: one gzip member holding exactly the plain document.
SPDX-License-Identifier: PostgreSQL
"""
import gzip
import zlib

import psycopg2
import pytest

import dve


def _single_member(data):
    d = zlib.decompressobj(wbits=31)
    out = d.decompress(data) + d.flush()
    assert d.eof, "gzip stream is truncated"
    assert d.unused_data == b"", "more than one gzip member (%d bytes after the first)" % len(d.unused_data)
    return out


@pytest.mark.parametrize("fmt", ["json", "csv"])
@pytest.mark.parametrize("level", [None, 6, 1, 9])
def test_gzip_decompresses_to_the_plain_document(conn243, demo_request, fmt, level):
    plain = dve.copy_bytes(conn243, fmt, **demo_request)
    extra = {} if level is None else {"compression_level": level}
    packed = dve.copy_bytes(conn243, fmt, compression="gzip", **extra, **demo_request)
    assert packed[:2] == b"\x1f\x8b"
    assert len(packed) < len(plain) // 2
    assert gzip.decompress(packed) == plain
    assert _single_member(packed) == plain


def test_gzip_case_insensitive_and_2_42(conn243, demo_request):
    plain = dve.copy_bytes(conn243, "json", style="2.42", **demo_request)
    packed = dve.copy_bytes(conn243, "json", style="2.42", compression="GZip", **demo_request)
    assert _single_member(packed) == plain


def test_gzip_of_an_empty_result(conn243):
    params = dict(data_set=["pBOMPrpg1QX"], period=["199901"], org_unit=[dve.ROOT_OU])
    plain = dve.copy_bytes(conn243, "csv", **params)
    assert _single_member(dve.copy_bytes(conn243, "csv", compression="gzip", **params)) == plain


def test_gzip_through_psql_copy(db243, conn243, demo_request):
    packed, _ = dve.psql_copy(db243, "json", compression="gzip", **demo_request)
    assert _single_member(packed) == dve.copy_bytes(conn243, "json", **demo_request)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_gzip_in_plain_select_is_an_error_mentioning_copy(conn243, demo_request, fmt):
    with pytest.raises(psycopg2.Error) as err:
        dve.select_text(conn243, fmt, compression="gzip", **demo_request)
    assert err.value.pgcode == "0A000"
    assert "COPY" in err.value.pgerror
