/*
 * demo/check.sql
 *	  Invariants of a generated demo database (either schema variant).
 *
 *   psql -X -v ON_ERROR_STOP=1 -d <demo db> -f demo/check.sql
 * Prints one line per check and fails with an error if any check fails. Reads every datavalue
 * row a few times: about a second per million rows.
 * SPDX-License-Identifier: PostgreSQL
 */
\set ON_ERROR_STOP 1
\set QUIET 1
\pset tuples_only on
\pset format unaligned
\pset footer off
SET client_min_messages = warning;
\ir periods.sql

SELECT value = '2.42' AS dve_is_242 FROM dve_demo.build_info WHERE key = 'dhis2_schema' \gset

CREATE TEMP TABLE c_result (n serial, check_name text, ok boolean, detail text);

CREATE FUNCTION pg_temp.dve_check(name text, ok boolean, detail text DEFAULT NULL) RETURNS void
LANGUAGE sql AS $$ INSERT INTO c_result (check_name, ok, detail) VALUES (name, coalesce(ok, false), detail) $$;

/* the checks return nothing worth printing */
\o /dev/null

-- schema shape ---------------------------------------------------------------------------------

SELECT pg_temp.dve_check('periodtype rows (23 for 2.43, 20 for 2.42)',
						 count(*) = CASE WHEN :'dve_is_242'::boolean THEN 20 ELSE 23 END, count(*)::text)
FROM periodtype;
SELECT pg_temp.dve_check('period.iso present only in 2.43, periodtype.label likewise',
						 count(*) FILTER (WHERE attname IN ('iso', 'label'))
						 = CASE WHEN :'dve_is_242'::boolean THEN 0 ELSE 2 END)
FROM pg_attribute
WHERE attrelid IN ('period'::regclass, 'periodtype'::regclass) AND NOT attisdropped AND attnum > 0;
SELECT pg_temp.dve_check('datavalue primary key and both indexes exist',
						 count(*) = 3, string_agg(indexrelid::regclass::text, ', '))
FROM pg_index WHERE indrelid = 'datavalue'::regclass;
SELECT pg_temp.dve_check('datavalue has 5 foreign keys', count(*) = 5, count(*)::text)
FROM pg_constraint WHERE conrelid = 'datavalue'::regclass AND contype = 'f';
SELECT pg_temp.dve_check('organisationunit path index uses varchar_pattern_ops',
						 pg_get_indexdef('in_organisationunit_path'::regclass) LIKE '%varchar_pattern_ops%');

-- identifiers ----------------------------------------------------------------------------------

SELECT pg_temp.dve_check('every uid matches ^[a-zA-Z][a-zA-Z0-9]{10}$', count(*) = 0, string_agg(uid, ', '))
FROM (SELECT uid FROM organisationunit UNION ALL SELECT uid FROM orgunitgroup UNION ALL SELECT uid FROM attribute
	  UNION ALL SELECT uid FROM categoryoption UNION ALL SELECT uid FROM category
	  UNION ALL SELECT uid FROM categorycombo UNION ALL SELECT uid FROM categoryoptioncombo
	  UNION ALL SELECT uid FROM dataelement UNION ALL SELECT uid FROM dataelementgroup
	  UNION ALL SELECT uid FROM dataset) u
WHERE uid !~ '^[a-zA-Z][a-zA-Z0-9]{10}$';
SELECT pg_temp.dve_check('default category objects have their fixed UIDs', count(*) = 4)
FROM (SELECT 1 FROM categoryoption WHERE uid = 'xYerKDKCefk' AND name = 'default'
	  UNION ALL SELECT 1 FROM category WHERE uid = 'GLevLNI9wkl' AND name = 'default'
	  UNION ALL SELECT 1 FROM categorycombo WHERE uid = 'bjDvmb4bfuf' AND name = 'default'
	  UNION ALL SELECT 1 FROM categoryoptioncombo WHERE uid = 'HllvX50cXC0' AND name = 'default'
					AND code = 'default') x;

-- org unit tree --------------------------------------------------------------------------------

SELECT pg_temp.dve_check('org units per level 1/13/149/1169',
						 string_agg(n::text, '/' ORDER BY hierarchylevel) = '1/13/149/1169',
						 string_agg(n::text, '/' ORDER BY hierarchylevel))
FROM (SELECT hierarchylevel, count(*) AS n FROM organisationunit GROUP BY 1) x;
SELECT pg_temp.dve_check('path = parent path || / || uid, and level = number of slashes', count(*) = 0,
						 string_agg(c.uid, ', '))
FROM organisationunit c LEFT JOIN organisationunit p ON p.organisationunitid = c.parentid
WHERE c.path IS DISTINCT FROM coalesce(p.path, '') || '/' || c.uid
   OR c.hierarchylevel IS DISTINCT FROM length(c.path) - length(replace(c.path, '/', ''))
   OR (c.parentid IS NULL) <> (c.hierarchylevel = 1);
SELECT pg_temp.dve_check('root is Sierra Leone ImspTQPwCqd OU_525',
						 bool_and(uid = 'ImspTQPwCqd' AND code = 'OU_525' AND name = 'Sierra Leone'))
FROM organisationunit WHERE parentid IS NULL;

-- periods --------------------------------------------------------------------------------------

SELECT pg_temp.dve_check('periods are normalised (start and end as the type defines them)', count(*) = 0,
						 string_agg(pt.name || ' ' || pe.startdate, ', '))
FROM period pe JOIN periodtype pt USING (periodtypeid)
WHERE pg_temp.dve_period_start(pt.name, pe.startdate) <> pe.startdate
   OR pg_temp.dve_period_end(pt.name, pe.startdate) <> pe.enddate;
SELECT pg_temp.dve_check('every period type has periods', count(DISTINCT pe.periodtypeid) = (SELECT count(*) FROM periodtype))
FROM period pe;
SELECT pg_temp.dve_check('every period type has data values', count(DISTINCT pe.periodtypeid) = (SELECT count(*) FROM periodtype))
FROM (SELECT DISTINCT periodid FROM datavalue) v JOIN period pe USING (periodid);

\if :dve_is_242
\else
SELECT pg_temp.dve_check('period.iso unique', count(*) = count(DISTINCT iso)) FROM period;
SELECT pg_temp.dve_check('period.iso = ISO string recomputed from type and start', count(*) = 0,
						 string_agg(iso, ', '))
FROM period pe JOIN periodtype pt USING (periodtypeid)
WHERE pe.iso IS DISTINCT FROM pg_temp.dve_period_iso(pt.name, pe.startdate);
SELECT pg_temp.dve_check('spot check ' || t || ' ' || s || ' = ' || want, got IS NOT DISTINCT FROM want, got)
FROM (VALUES
	(1, 'Weekly', '2020-12-28', '2020W53'),
	(2, 'Weekly', '2026-12-28', '2026W53'),
	(3, 'Weekly', '2021-01-04', '2021W1'),
	(4, 'Weekly', '2024-12-30', '2025W1'),
	(5, 'BiWeekly', '2020-12-28', '2020BiW27'),
	(6, 'BiWeekly', '2021-01-04', '2021BiW1'),
	(7, 'BiWeekly', '2017-12-18', '2017BiW26'),
	(8, 'FinancialNov', '2023-11-01', '2024Nov'),
	(9, 'QuarterlyNov', '2023-11-01', '2024NovQ1'),
	(10, 'SixMonthlyNov', '2023-11-01', '2024NovS1'),
	(11, 'SixMonthlyApril', '2023-10-01', '2023AprilS2'),
	(12, 'BiMonthly', '2024-11-01', '202406B'),
	(13, 'WeeklyWednesday', '2025-12-31', '2026WedW1'),
	(14, 'WeeklySunday', '2025-12-28', '2025SunW53'),
	(15, 'WeeklyThursday', '2020-12-31', '2021ThuW1'),
	(16, 'WeeklyFriday', '2023-12-29', '2024FriW1'),
	(17, 'FinancialFeb', '2023-02-01', '2023Feb'),
	(18, 'Daily', '2024-02-29', '20240229')
) v(o, t, s, want)
LEFT JOIN LATERAL (SELECT pe.iso AS got FROM period pe JOIN periodtype pt USING (periodtypeid)
				   WHERE pt.name = v.t AND pe.startdate = v.s::date) g ON true
ORDER BY v.o;
\endif

-- data values ----------------------------------------------------------------------------------

SELECT pg_temp.dve_check('datavalue rows = build_info.datavalue_rows', count(*)::text = b.value, count(*)::text)
FROM datavalue, dve_demo.build_info b WHERE b.key = 'datavalue_rows' GROUP BY b.value;
SELECT pg_temp.dve_check('category option combo belongs to the data element''s combo', count(*) = 0, count(*)::text)
FROM datavalue dv JOIN dataelement de USING (dataelementid)
WHERE NOT EXISTS (SELECT 1 FROM categorycombos_optioncombos cc
				  WHERE cc.categoryoptioncomboid = dv.categoryoptioncomboid AND cc.categorycomboid = de.categorycomboid);
SELECT pg_temp.dve_check('attribute option combo belongs to the attribute combo of a data set of the data element',
						 count(*) = 0, count(*)::text)
FROM datavalue dv
WHERE NOT EXISTS (SELECT 1 FROM datasetelement dse JOIN dataset ds USING (datasetid)
				  JOIN categorycombos_optioncombos cc ON cc.categorycomboid = ds.categorycomboid
				  WHERE dse.dataelementid = dv.dataelementid AND cc.categoryoptioncomboid = dv.attributeoptioncomboid);
SELECT pg_temp.dve_check('created and lastupdated within 2023-01-01 .. 2025-12-31, created <= lastupdated',
						 count(*) = 0, count(*)::text)
FROM datavalue
WHERE created < '2023-01-01' OR lastupdated > '2025-12-31 23:59:59.999999' OR created > lastupdated;
SELECT pg_temp.dve_check('most timestamps have sub-millisecond digits',
						 count(*) FILTER (WHERE extract(microseconds FROM created)::bigint % 1000 <> 0) > count(*) * 0.9)
FROM datavalue;
SELECT pg_temp.dve_check('some rows share their created timestamp', count(*) > 0, count(*)::text || ' tied values')
FROM (SELECT created FROM datavalue GROUP BY created HAVING count(*) > 1) x;
SELECT pg_temp.dve_check('deleted ~1%, followup true present, values at every level',
						 count(*) FILTER (WHERE deleted) BETWEEN count(*) * 0.005 AND count(*) * 0.02 + 10
						 AND count(*) FILTER (WHERE followup) > 0
						 AND count(DISTINCT ou.hierarchylevel) = 4)
FROM datavalue dv JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid;
SELECT pg_temp.dve_check('every hostile case row is present', count(*) = (SELECT count(*) FROM dve_demo.hostile_case),
						 count(*)::text)
FROM dve_demo.hostile_case h
JOIN dataelement de ON de.uid = h.dataelement_uid
JOIN organisationunit ou ON ou.uid = h.orgunit_uid
JOIN period pe ON pe.startdate = to_date(h.period_iso, 'YYYYMM')
JOIN periodtype pt ON pt.periodtypeid = pe.periodtypeid AND pt.name = 'Monthly'
JOIN categoryoptioncombo coc ON coc.uid = h.coc_uid
JOIN categoryoptioncombo aoc ON aoc.uid = h.aoc_uid
JOIN datavalue dv ON (dv.dataelementid, dv.periodid, dv.sourceid, dv.categoryoptioncomboid, dv.attributeoptioncomboid)
					 = (de.dataelementid, pe.periodid, ou.organisationunitid, coc.categoryoptioncomboid,
						aoc.categoryoptioncomboid);
SELECT pg_temp.dve_check('objects without a code carry values (org unit, data element, COC, AOC)',
						 count(DISTINCT ou.organisationunitid) FILTER (WHERE ou.code IS NULL) > 0
						 AND count(DISTINCT de.dataelementid) FILTER (WHERE de.code IS NULL) > 0
						 AND count(DISTINCT coc.categoryoptioncomboid) FILTER (WHERE coc.code IS NULL) > 0
						 AND count(DISTINCT aoc.categoryoptioncomboid) FILTER (WHERE aoc.code IS NULL) > 0)
FROM datavalue dv
JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid
JOIN dataelement de ON de.dataelementid = dv.dataelementid
JOIN categoryoptioncombo coc ON coc.categoryoptioncomboid = dv.categoryoptioncomboid
JOIN categoryoptioncombo aoc ON aoc.categoryoptioncomboid = dv.attributeoptioncomboid
WHERE NOT dv.deleted;
SELECT pg_temp.dve_check('hostile extremes: 50,000-char value and comment, NULL and empty value',
						 max(length(value)) = 50000 AND max(length(comment)) = 50000
						 AND count(*) FILTER (WHERE value IS NULL) > 0 AND count(*) FILTER (WHERE value = '') > 0)
FROM datavalue;

-- report ---------------------------------------------------------------------------------------

\o

SELECT format('%s  %s%s', CASE WHEN ok THEN 'ok  ' ELSE 'FAIL' END, check_name,
			  CASE WHEN detail IS NOT NULL AND (NOT ok OR length(detail) < 40) THEN ' [' || left(detail, 300) || ']' ELSE '' END)
FROM c_result ORDER BY n;

SELECT count(*) FILTER (WHERE NOT ok) = 0 AS dve_all_ok FROM c_result \gset
\if :dve_all_ok
\echo all checks passed
\else
DO $$ BEGIN RAISE EXCEPTION 'some demo database checks failed'; END $$;
\endif
