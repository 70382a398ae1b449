"""
test/integration/test_forbidden_metadata.py
    Metadata rows DHIS2's schema forbids, which leave a value without an identifier to write:
    - periods (a NULL iso, a NULL or unknown period type on a 2.42 database, an infinite start
      date where the period's identifier is made from it);
    - a NULL uid of a data element, org unit or option combo, under the UID scheme.
    An export with a value that needs one fails before any output with an error naming the
    object, never a document whose values lack a period or a data element; exports that do not
    reach such an object are not affected.
SPDX-License-Identifier: PostgreSQL
"""
import psycopg2
import pytest

import dve

JAN = "pe.startdate = '2024-01-01' AND pe.enddate = '2024-01-31'"
QUARTER = dict(data_set=["pBOMPrpg1QX"], start_date="2024-01-01", end_date="2024-03-31", org_unit=[dve.ROOT_OU],
               children=True)
FEBRUARY = dict(data_set=["pBOMPrpg1QX"], period=["202402"], org_unit=[dve.ROOT_OU], children=True)


def in_transaction(db, setup):
    """A connection whose transaction has run the setup statements (rolled back by the caller)."""
    conn = dve.connect(db)
    conn.autocommit = False
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT periodid FROM period pe WHERE " + JAN)
            (periodid,), = cur.fetchall()
            for statement in setup:
                cur.execute(statement)
                assert cur.rowcount != 0, statement
            return conn, periodid
    except BaseException:
        conn.close()
        raise


def refused(conn, fmt, request):
    with pytest.raises(psycopg2.Error) as err:
        dve.copy_bytes(conn, fmt, **request)
    conn.rollback()
    return err.value


def assert_period_refused(db, setup, fmt, request, sqlstate, why):
    """After setup, the export fails with sqlstate, naming January's period and why."""
    conn, periodid = in_transaction(db, setup)
    try:
        err = refused(conn, fmt, request)
        assert err.pgcode == sqlstate, (fmt, err.pgerror)
        assert "the period with periodid %d cannot be exported: " % periodid in err.pgerror, err.pgerror
        assert why in err.pgerror, err.pgerror
    finally:
        conn.close()


def assert_exported_as_before(db, setup, fmt, request):
    """After setup, the export gives the bytes it gave before."""
    conn = dve.connect(db)
    try:
        want = dve.copy_bytes(conn, fmt, **request)
    finally:
        conn.close()
    conn, _ = in_transaction(db, setup)
    try:
        assert dve.copy_bytes(conn, fmt, **request) == want, fmt
    finally:
        conn.rollback()
        conn.close()


BROKEN_243 = [
    (["ALTER TABLE period ALTER iso DROP NOT NULL", "UPDATE period pe SET iso = NULL WHERE " + JAN],
     ("json", "csv", "xml", "adx"), "22004", "its iso is NULL"),
    (["UPDATE period pe SET iso = 'Jan 2024' WHERE " + JAN], ("adx",), "22023", 'its iso "Jan 2024" is not an ISO'),
    (["UPDATE period pe SET startdate = '-infinity' WHERE " + JAN], ("adx",), "22008", "start date is infinite"),
]


@pytest.mark.parametrize("setup,formats,sqlstate,why", BROKEN_243)
def test_a_value_in_an_unusable_period_is_an_error_243(db243, setup, formats, sqlstate, why):
    # a date range holds no infinite start: the period is named instead
    request = dict(QUARTER) if "infinity" not in setup[-1] else dict(FEBRUARY, period=["202401"])
    for fmt in formats:
        assert_period_refused(db243, setup, fmt, dict(request, id_scheme="UID") if fmt == "adx" else request,
                              sqlstate, why)


@pytest.mark.parametrize("setup", [s for s, _, _, _ in BROKEN_243])
def test_other_periods_export_as_before(db243, setup):
    """February is exported the same whatever January's row holds."""
    for fmt in ("json", "csv"):
        assert_exported_as_before(db243, setup, fmt, FEBRUARY)


BROKEN_242 = [
    (["UPDATE periodtype SET name = 'Fortnightly' WHERE name = 'Monthly'"], "22023",
     'its period type "Fortnightly" is not one DHIS2 has'),
    (["ALTER TABLE period ALTER periodtypeid DROP NOT NULL", "UPDATE period pe SET periodtypeid = NULL WHERE " + JAN],
     "22004", "it has no period type"),
    (["UPDATE period pe SET startdate = '-infinity' WHERE " + JAN], "22008", "its start date is infinite"),
]


@pytest.mark.parametrize("setup,sqlstate,why", BROKEN_242)
def test_a_value_in_an_unusable_period_is_an_error_242(db242, setup, sqlstate, why):
    """2.42 has no iso column: the ISO period is made from the type and the start date."""
    request = dict(QUARTER)
    if "infinity" in setup[-1]:  # no period filter: every period row is read
        request = dict(data_set=QUARTER["data_set"], org_unit=QUARTER["org_unit"], children=True,
                       last_updated="1900-01-01")
    for fmt in ("json", "csv", "xml"):
        assert_period_refused(db242, setup, fmt, request, sqlstate, why)


def test_an_infinite_period_does_not_fail_other_periods_242(db242):
    """The ISO lookup of a 2.42 database reads every period row: one infinite start date is not an error."""
    assert_exported_as_before(db242, BROKEN_242[2][0], "json", FEBRUARY)


NULL_UIDS = [
    ("dataelement", "dataelementid", "dataelementid", "E8201", "data element(s)"),
    ("organisationunit", "organisationunitid", "sourceid", "E8202", "org unit(s)"),
    ("categoryoptioncombo", "categoryoptioncomboid", "categoryoptioncomboid", "E8203", "category option combo(s)"),
]
FEBRUARY_VALUES = ("FROM datavalue dv JOIN period pe USING (periodid) JOIN datasetelement dse USING (dataelementid) "
                   "JOIN dataset ds USING (datasetid) WHERE pe.startdate = '2024-02-01' AND pe.enddate = '2024-02-29' "
                   "AND ds.uid = 'pBOMPrpg1QX' AND NOT dv.deleted")


def first_object(column):
    """The object behind the first value of February's export (a combo other than the default,
    which is every value's attribute option combo too)."""
    other = " AND dv.%s <> (SELECT categoryoptioncomboid FROM categoryoptioncombo WHERE uid = 'HllvX50cXC0')" % column
    return "SELECT dv.%s %s%s ORDER BY dv.created, dv.sourceid LIMIT 1" % (
        column, FEBRUARY_VALUES, other if column == "categoryoptioncomboid" else "")


def null_uid_setup(table, key, column):
    """The uid of that object made NULL."""
    return ["ALTER TABLE %s ALTER uid DROP NOT NULL" % table,
            "UPDATE %s SET uid = NULL WHERE %s = (%s)" % (table, key, first_object(column))]


def null_uid_object(conn, table, key):
    with conn.cursor() as cur:
        cur.execute("SELECT %s FROM %s WHERE uid IS NULL" % (key, table))
        (object_id,), = cur.fetchall()
        return object_id


@pytest.mark.parametrize("table,key,column,code,label", NULL_UIDS)
def test_a_null_uid_under_the_uid_scheme_is_an_error_243(db243, table, key, column, code, label):
    """DHIS2 2.43 refuses an object without its identifier under a non-UID scheme (E8201-E8203);
    a NULL uid is refused the same way, not written as null or left out of the value."""
    for fmt in ("json", "csv", "xml"):
        conn, _ = in_transaction(db243, null_uid_setup(table, key, column))
        try:
            object_id = null_uid_object(conn, table, key)
            err = refused(conn, fmt, FEBRUARY)
            assert err.pgcode == "22004", (fmt, err.pgerror)
            assert err.pgerror.startswith("ERROR:  %s: Export as UID not possible" % code), err.pgerror
            assert "%s: `[id %d]`" % (label, object_id) in err.pgerror, err.pgerror
        finally:
            conn.close()


@pytest.mark.parametrize("table,key,column,code,label", NULL_UIDS)
def test_a_null_uid_no_value_uses_is_no_matter(db243, table, key, column, code, label):
    """A month of a data set none of whose values uses the object is exported as before."""
    conn = dve.connect(db243)
    try:
        with conn.cursor() as cur:
            cur.execute(first_object(column))
            (object_id,), = cur.fetchall()
            cur.execute("SELECT ds.uid, pe.iso, count(*) FROM datavalue dv JOIN period pe USING (periodid) "
                        "JOIN periodtype pt USING (periodtypeid) JOIN datasetelement dse USING (dataelementid) "
                        "JOIN dataset ds USING (datasetid) WHERE pt.name = 'Monthly' AND NOT dv.deleted "
                        "GROUP BY ds.uid, pe.iso HAVING bool_and(%%(id)s NOT IN (dv.%s, dv.attributeoptioncomboid)) "
                        "ORDER BY count(*) DESC, 1, 2 LIMIT 1" % column, dict(id=object_id))
            (data_set, period, values), = cur.fetchall()
            assert values >= 10
    finally:
        conn.close()
    assert_exported_as_before(db243, null_uid_setup(table, key, column), "json",
                              dict(data_set=[data_set], period=[period], org_unit=[dve.ROOT_OU], children=True))
