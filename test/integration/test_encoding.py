"""
test/integration/test_encoding.py
    Client encodings (pg-techniques §5): inside COPY the document is converted to the client
    encoding (or COPY's ENCODING option) as native COPY would, and unconvertible characters
    raise native COPY's error.
SPDX-License-Identifier: PostgreSQL
"""
import io

import psycopg2
import pytest

import dve

# demo hostile cases at Ngelehun CHC, 202401 (demo/datavalues.sql)
E_ACUTE = dict(data_element=["Hostile0010"], period=["202401"], org_unit=["DiszpKrYNg8"])  # 50,000 x é
EMOJI = dict(data_element=["Hostile0013"], period=["202401"], org_unit=["DiszpKrYNg8"])    # 50,000 x U+1F600
GREEK = dict(data_element=["Hostile0006"], period=["202401"], org_unit=["DiszpKrYNg8"])    # Ωμέγα 中文


def _latin1(conn):
    # psycopg2's set_client_encoding runs SET client_encoding = 'LATIN1' and also decodes text
    # results as LATIN1 (a bare SQL SET would leave psycopg2 decoding them as UTF-8)
    conn.set_client_encoding("LATIN1")
    with conn.cursor() as cur:
        cur.execute("SHOW client_encoding")
        assert cur.fetchone()[0] == "LATIN1"
    return conn


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_latin1_copy_converts_e_acute(conn243, fresh_conn, fmt):
    utf8 = dve.copy_bytes(conn243, fmt, **E_ACUTE)
    assert "\u00e9".encode("utf-8") * 50000 in utf8
    latin1 = dve.copy_bytes(_latin1(fresh_conn), fmt, **E_ACUTE)
    assert b"\xe9" * 50000 in latin1
    assert b"\xc3\xa9" not in latin1
    assert latin1 == utf8.decode("utf-8").encode("latin-1")


def test_copy_encoding_option_converts(conn243):
    utf8 = dve.copy_bytes(conn243, "json", **E_ACUTE)
    latin1 = dve.copy_bytes(conn243, "json", copy_options=" WITH (ENCODING 'LATIN1')", **E_ACUTE)
    assert latin1 == utf8.decode("utf-8").encode("latin-1")


def test_latin1_plain_select_is_converted_by_the_protocol(conn243, fresh_conn):
    utf8 = dve.copy_bytes(conn243, "json", **E_ACUTE).decode("utf-8")
    assert dve.select_text(_latin1(fresh_conn), "json", **E_ACUTE) == utf8


def test_latin1_psql_copy(db243, conn243):
    utf8 = dve.copy_bytes(conn243, "csv", **E_ACUTE)
    proc_bytes, _ = _psql_copy_latin1(db243, "csv", **E_ACUTE)
    assert proc_bytes == utf8.decode("utf-8").encode("latin-1")


def _psql_copy_latin1(dbname, fmt, **params):
    import os
    import tempfile
    with tempfile.TemporaryDirectory(prefix="dve_it_") as tmp:
        path = os.path.join(tmp, "out")
        dve.psql(dbname, "-c", "\\copy (SELECT %s) TO '%s'" % (dve.call(fmt, **params), path),
                 env={"PGCLIENTENCODING": "LATIN1"})
        with open(path, "rb") as f:
            return f.read(), None


def _native_copy_error(conn, data_element):
    with pytest.raises(psycopg2.Error) as err:
        with conn.cursor() as cur:
            cur.copy_expert("COPY (SELECT dv.value FROM datavalue dv JOIN dataelement de USING (dataelementid) "
                            "WHERE de.uid = '%s') TO STDOUT" % data_element, io.BytesIO())
    return err.value


@pytest.mark.parametrize("case,de", [("emoji", EMOJI), ("greek", GREEK)])
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_latin1_unconvertible_raises_native_copy_error(fresh_conn, case, de, fmt):
    conn = _latin1(fresh_conn)
    native = _native_copy_error(conn, de["data_element"][0])
    assert native.pgcode == "22P05"
    with pytest.raises(psycopg2.Error) as err:
        dve.copy_bytes(conn, fmt, **de)
    e = err.value
    assert e.pgcode == "22P05", e.pgerror
    assert e.diag.message_primary == native.diag.message_primary
    # and the connection is still usable
    with conn.cursor() as cur:
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)


def test_latin1_unconvertible_with_gzip(fresh_conn):
    """Conversion happens before compression, so the error is the same."""
    conn = _latin1(fresh_conn)
    with pytest.raises(psycopg2.Error) as err:
        dve.copy_bytes(conn, "json", compression="gzip", **EMOJI)
    assert err.value.pgcode == "22P05"


def test_latin1_gzip_holds_latin1_bytes(conn243, fresh_conn):
    import gzip
    utf8 = dve.copy_bytes(conn243, "json", **E_ACUTE)
    packed = dve.copy_bytes(_latin1(fresh_conn), "json", compression="gzip", **E_ACUTE)
    assert gzip.decompress(packed) == utf8.decode("utf-8").encode("latin-1")


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_gb18030_client_gets_every_hostile_value(conn243, fresh_conn, fmt):
    """GB18030 encodes all of Unicode: the whole hostile document converts, multibyte and emoji included."""
    params = dict(data_set=["HostileDSet"], start_date=dve.ALL_START, end_date=dve.ALL_END, org_unit=[dve.ROOT_OU],
                  children=True, include_deleted=True)
    utf8 = dve.copy_bytes(conn243, fmt, **params)
    fresh_conn.set_client_encoding("GB18030")
    assert dve.copy_bytes(fresh_conn, fmt, **params) == utf8.decode("utf-8").encode("gb18030")
