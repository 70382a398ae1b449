"""
test/integration/test_error_messages.py
    Error messages quote user input; a long non-ASCII input must be cut at a character boundary,
    so the error still reaches a UTF8 or LATIN1 client as that error.
SPDX-License-Identifier: PostgreSQL
"""
import psycopg2
import pytest


@pytest.mark.parametrize("encoding", ["UTF8", "LATIN1"])
def test_long_non_ascii_input_in_an_error_message(fresh_conn, encoding):
    with fresh_conn.cursor() as cur:
        cur.execute("SET client_encoding = %s", (encoding,))
        with pytest.raises(psycopg2.Error) as err:
            cur.execute("SELECT * FROM export_datavalues('dataSet=pBOMPrpg1QX&orgUnit=DiszpKrYNg8&period=' || "
                        "repeat(chr(233), 600))")
        cur.execute("RESET client_encoding")
    assert err.value.pgcode == "22007"
    assert "Invalid Period" in err.value.pgerror
