/*
 * demo/generate.sql
 *	  Build the datavalue_export demo database: a DHIS2-shaped schema with Sierra Leone-like
 *	  metadata and a chosen number of data values.
 *
 *   psql -X -v ON_ERROR_STOP=1 -v values=1000000 -v schema=2.43 -d <empty database> -f demo/generate.sql
 *
 * Variables (both optional):
 *   values   total datavalue rows, default 1000000; 500 .. about 15 million. With schema=2.42 the
 *            result has 24 rows fewer: the edge-period values of the three 2.43-only period types.
 *   schema   2.43 (default) or 2.42; 2.42 leaves out period.iso and periodtype.label, applies
 *            schema_2_42.sql before loading, and leaves out the 2.43-only period types.
 * The target database must be empty (create_demo_db.sh drops and recreates it) and UTF8.
 * Deterministic: the same variables give the same rows, ids, UIDs and timestamps. Each included
 * file has its own header; README.md describes the result.
 * SPDX-License-Identifier: PostgreSQL
 */
\set ON_ERROR_STOP 1
\set QUIET 1
\pset tuples_only on
\pset format unaligned
\pset footer off

\if :{?values}
\else
\set values 1000000
\endif
\if :{?schema}
\else
\set schema 2.43
\endif

SET client_min_messages = warning;
SET synchronous_commit = off;
SET maintenance_work_mem = '512MB';
SET work_mem = '256MB';
SET jit = off;

-- arguments and target -------------------------------------------------------------------------

SELECT :'values' ~ '^[0-9]{1,12}$' AS dve_ok_values, :'schema' IN ('2.42', '2.43') AS dve_ok_schema,
	   :'schema' = '2.42' AS dve_is_242,
	   pg_encoding_to_char(encoding) = 'UTF8' AS dve_utf8,
	   to_regclass('public.datavalue') IS NULL AND to_regnamespace('dve_demo') IS NULL AS dve_empty
FROM pg_database WHERE datname = current_database() \gset

\if :dve_ok_values
\else
DO $$ BEGIN RAISE EXCEPTION 'values must be a non-negative integer'; END $$;
\endif
\if :dve_ok_schema
\else
DO $$ BEGIN RAISE EXCEPTION 'schema must be 2.42 or 2.43'; END $$;
\endif
\if :dve_utf8
\else
DO $$ BEGIN RAISE EXCEPTION 'the database must use the UTF8 encoding (createdb -E UTF8 -T template0)'; END $$;
\endif
\if :dve_empty
\else
DO $$ BEGIN RAISE EXCEPTION 'the database already has a datavalue table or a dve_demo schema; use an empty database'; END $$;
\endif
\set dve_values :values

\ir helpers.sql
\ir periods.sql
SELECT pg_temp.dve_lap('start') AS dve_started \gset
\echo Building a DHIS2 :schema demo with :values data values

-- schema, metadata, values, keys ---------------------------------------------------------------

\set dve_defer_datavalue_keys 1
\if :dve_is_242
\set dve_schema_242 1
\ir schema.sql
\ir schema_2_42.sql
\else
\ir schema.sql
\endif
SELECT pg_temp.dve_lap('schema');

\ir metadata.sql
SELECT pg_temp.dve_lap('metadata and periods');

\ir datavalues.sql
SELECT pg_temp.dve_lap('data values');

\ir datavalue_keys.sql
SELECT pg_temp.dve_lap('datavalue keys and indexes');

SELECT setval('hibernate_sequence', 1000000, false) AS dve_sequence_start \gset

CREATE TABLE dve_demo.build_info (key text PRIMARY KEY, value text NOT NULL);
INSERT INTO dve_demo.build_info VALUES
	('generator', 'datavalue_export demo/generate.sql, data version 1'),
	('dhis2_schema', :'schema'),
	('values_requested', :'values'),
	('datavalue_rows', (SELECT count(*) FROM datavalue)::text),
	('fixed_rows', :'dve_fixed_rows'),
	('hostile_rows', (SELECT count(*) FROM dve_demo.hostile_case)::text);

VACUUM (ANALYZE) datavalue;
ANALYZE;
SELECT pg_temp.dve_lap('vacuum and analyze');

-- summary --------------------------------------------------------------------------------------

\echo
\echo Row counts
SELECT format('  %-38s %12s', t, to_char(n, 'FM999,999,999,990'))
FROM (VALUES
	('periodtype', (SELECT count(*) FROM periodtype)),
	('period', (SELECT count(*) FROM period)),
	('organisationunit', (SELECT count(*) FROM organisationunit)),
	('  level 1 / 2 / 3 / 4', NULL),
	('orgunitgroup', (SELECT count(*) FROM orgunitgroup)),
	('orgunitgroupmembers', (SELECT count(*) FROM orgunitgroupmembers)),
	('attribute', (SELECT count(*) FROM attribute)),
	('categoryoption', (SELECT count(*) FROM categoryoption)),
	('category', (SELECT count(*) FROM category)),
	('categorycombo', (SELECT count(*) FROM categorycombo)),
	('categoryoptioncombo', (SELECT count(*) FROM categoryoptioncombo)),
	('dataelement', (SELECT count(*) FROM dataelement)),
	('dataelementgroup', (SELECT count(*) FROM dataelementgroup)),
	('dataelementgroupmembers', (SELECT count(*) FROM dataelementgroupmembers)),
	('dataset', (SELECT count(*) FROM dataset)),
	('datasetelement', (SELECT count(*) FROM datasetelement)),
	('datasetsource', (SELECT count(*) FROM datasetsource)),
	('completedatasetregistration', (SELECT count(*) FROM completedatasetregistration)),
	('datavalue', (SELECT count(*) FROM datavalue)),
	('  deleted', (SELECT count(*) FROM datavalue WHERE deleted)),
	('  followup true', (SELECT count(*) FROM datavalue WHERE followup)),
	('  with comment', (SELECT count(*) FROM datavalue WHERE comment IS NOT NULL)),
	('  non-default attribute option combo', (SELECT count(*) FROM datavalue WHERE attributeoptioncomboid <> 230001)),
	('  hostile rows', (SELECT count(*) FROM dve_demo.hostile_case))
) v(t, n)
WHERE n IS NOT NULL;

SELECT format('  %-38s %12s', 'datavalue at level ' || hierarchylevel, to_char(count(*), 'FM999,999,999,990'))
FROM datavalue dv JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid
GROUP BY hierarchylevel ORDER BY hierarchylevel;

SELECT format('  %-38s %12s', 'datavalue ' || pt.name, to_char(count(*), 'FM999,999,999,990'))
FROM datavalue dv JOIN period pe ON pe.periodid = dv.periodid JOIN periodtype pt ON pt.periodtypeid = pe.periodtypeid
GROUP BY pt.name ORDER BY count(*) DESC, pt.name;
