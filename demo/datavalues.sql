/*
 * demo/datavalues.sql
 *	  The datavalue rows: a scaled bulk of "reports" plus a fixed set of edge-period and hostile
 *	  rows that exist at every scale; then completedatasetregistration.
 *
 * Included by generate.sql after metadata.sql (uses its g_* temp tables and the psql variables
 * dve_values and dve_is_242). The table has no primary key or index yet; datavalue_keys.sql
 * builds them afterwards.
 *
 * Bulk design. A "report" is one (data set, period, org unit, attribute option combo) of a data
 * set; it holds one value per (data element, category option combo) "cell" of the data set. Each
 * data set gets a share of the bulk (g_ds.weight), i.e. a number of reports, which are picked
 * from the data set's report space R = periods x assigned org units x AOCs by the permutation
 * r(j) = (offset + j * step) mod R with gcd(step, R) = 1 (step ~ 0.618 R, so that consecutive
 * reports land far apart). So every (data set, report, cell) is distinct, which makes the primary
 * key unique by construction, and small runs still spread over periods and org units. Every
 * column of a row is a hash of the row's identity (data set, report r, cell k), not of the run
 * size: a row present at 1k has the same content at 10M.
 * SPDX-License-Identifier: PostgreSQL
 */

-- fixed rows: edge periods ---------------------------------------------------------------------

/*
 * Four values in every period that is not a main period (all types other than Monthly, Weekly,
 * Quarterly, Yearly, plus the year-boundary weeks 2009W53 ... 2026W53), one per level: Ngelehun
 * CHC (facility), Badjia (chiefdom), Bo (district), Sierra Leone (root).
 */
CREATE TEMP TABLE g_edge AS
SELECT e.n, p.periodid, p.ptype, p.startdate, p.iso, p.only_243, o.organisationunitid, d.dataelementid
FROM g_period p
CROSS JOIN (VALUES (1, 'DiszpKrYNg8'), (2, 'YuQRtpLP10I'), (3, 'O6uvpzGd5pu'), (4, 'ImspTQPwCqd')) e(n, ou_uid)
JOIN g_ou o ON o.uid = e.ou_uid
JOIN g_de d ON d.uid = 'EdgePeriod' || e.n
WHERE NOT p.main;

-- fixed rows: hostile values -------------------------------------------------------------------

CREATE TEMP TABLE g_hostile (
	case_no integer NOT NULL,
	row_no integer NOT NULL DEFAULT 1,
	iso text NOT NULL DEFAULT '202401',
	ou text NOT NULL DEFAULT 'DiszpKrYNg8',
	coc bigint NOT NULL DEFAULT 230001,		/* option combo ids (metadata.sql g_coc) */
	aoc bigint NOT NULL DEFAULT 230001,
	value text,
	comment text,
	storedby text DEFAULT 'admin',
	followup boolean DEFAULT false,
	deleted boolean NOT NULL DEFAULT false,
	created timestamp NOT NULL DEFAULT '2024-02-05 10:00:00.123456',
	lastupdated timestamp NOT NULL DEFAULT '2024-02-06 11:30:00.654321',
	note text NOT NULL
);

INSERT INTO g_hostile (case_no, value, comment, note) VALUES
	(1, 'He said "hello", then left', '"quoted" comment', 'double quote in value and comment'),
	(2, E'C:\\dir\\file \\\\ \\u0041 end\\', E'back\\slash', 'backslashes, a literal \u0041, trailing backslash'),
	(3, 'ctl[' || (SELECT string_agg(chr(i), '' ORDER BY i) FROM generate_series(1, 31) i) || ']',
	 (SELECT string_agg(chr(i), '' ORDER BY i) FROM generate_series(1, 31) i),
	 'every control character 0x01..0x1F (value between ctl[ and ], comment bare)'),
	(4, 'del[' || chr(127) || ']', chr(127), 'DEL 0x7F'),
	(5, E'ls[\u2028]ps[\u2029]', E'\u2028', 'U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR'),
	(7, E'\U0001F600 grin \U0001D11E clef \U0001F1F8\U0001F1F1', E'\U0001F600', '4-byte UTF-8 (non-BMP)'),
	(8, repeat('0123456789', 5000), 'value is 50,000 ASCII characters', '50,000-character value'),
	(9, '9', repeat('abcdefghij', 5000), '50,000-character comment'),
	(10, repeat('é', 50000), 'value is 50,000 x U+00E9 (100,000 bytes)', '50,000 two-byte characters'),
	(11, repeat('"', 50000), repeat('"', 50000), '50,000 double quotes in value and comment'),
	(12, repeat(chr(1), 50000), 'value is 50,000 x U+0001', '50,000 control characters (\u0001 escapes: 300,000 bytes)'),
	(13, repeat(E'\U0001F600', 50000), 'value is 50,000 x U+1F600 (200,000 bytes)', '50,000 emoji'),
	(15, E'\tvalue with tabs\t', E'\t\ttab\t', 'leading and trailing tabs'),
	(16, '   ', E' \t ', 'whitespace only (CSV trims to empty)'),
	(17, '1,234,567', 'a, b, c', 'commas'),
	(19, '#hash value', '#hash comment', 'values starting with #'),
	(20, NULL, 'value is NULL', 'NULL value'),
	(21, '', 'value is the empty string', 'empty-string value (and data element code is '''')'),
	(28, chr(31) || 'x' || chr(31), chr(1) || 'abc', 'leading/trailing control characters (CSV trim)'),
	(29, E'Line1\nLine2 "q", x', E'Line1\nLine2 "q", x', 'the CSV quoting example of the export doc'),
	(35, E'bs\b ff\f nl\n cr\r tab\t end', E'\b\f\n\r\t', 'the five JSON short escapes'),
	(36, E'\uFEFFBOM first, zero\u200Bwidth, replacement \uFFFD', E'\uFEFF',
	 'U+FEFF BOM at start, U+200B, U+FFFD');

INSERT INTO g_hostile (case_no, value, comment, storedby, note) VALUES
	(6, 'café résumé naïve ß Ωμέγα 中文数据', 'Commentaire: été, 中文', 'usér_中文', 'non-ASCII (2- and 3-byte UTF-8)'),
	(14, '  padded value  ', '  padded comment  ', '  admin  ', 'leading and trailing spaces (also storedby)');

INSERT INTO g_hostile (case_no, row_no, iso, value, comment, note) VALUES
	(18, 1, '202401', E'line1\r\nline2', E'first\r\nsecond', 'CR LF'),
	(18, 2, '202402', E'cr\ronly', E'\r', 'CR only'),
	(18, 3, '202403', E'lf\nonly', E'\n', 'LF only'),
	(26, 1, '202401', 'null', 'NULL', 'the text null / NULL'),
	(26, 2, '202402', '007', NULL, 'leading zeros'),
	(26, 3, '202403', '1.0E10', NULL, 'exponent'),
	(26, 4, '202404', '-0', NULL, 'negative zero'),
	(26, 5, '202405', 'true', NULL, 'boolean-looking'),
	(27, 1, '202401', E'</script><b attr=\'x\'>&amp;', NULL, 'HTML/XML markup'),
	(27, 2, '202402', '{"a": [1, 2], "b": null}', NULL, 'JSON text'),
	(27, 3, '202403', 'a/b//c http://x/y', NULL, 'slashes (not escaped by DHIS2)');

INSERT INTO g_hostile (case_no, row_no, iso, value, storedby, note) VALUES
	(22, 1, '202401', 'storedby is NULL', NULL, 'NULL storedby'),
	(22, 2, '202402', 'storedby is empty', '', 'empty storedby'),
	(30, 1, '202401', 'odd storedby', E'O''Brien, "the" admin\\', 'storedby with quote, comma, backslash'),
	(30, 2, '202402', '255 x 中', repeat('中', 255), 'storedby of 255 three-byte characters'),
	(30, 3, '202403', 'emoji storedby', E'usér_中文_\U0001F600', 'storedby with non-ASCII and emoji');

INSERT INTO g_hostile (case_no, row_no, iso, value, comment, note) VALUES
	(23, 1, '202401', 'comment is NULL', NULL, 'NULL comment'),
	(23, 2, '202402', 'comment is empty', '', 'empty comment');

INSERT INTO g_hostile (case_no, row_no, iso, value, followup, note) VALUES
	(24, 1, '202401', 'followup true', true, 'followup true'),
	(24, 2, '202402', 'followup false', false, 'followup false'),
	(24, 3, '202403', 'followup NULL', NULL, 'followup NULL');

INSERT INTO g_hostile (case_no, row_no, iso, value, comment, storedby, followup, deleted, note) VALUES
	(25, 1, '202401', 'deleted value', NULL, 'admin', false, true, 'deleted'),
	(25, 2, '202402', E'deleted "quoted"\nline', 'deleted, hostile', 'admin', true, true,
	 'deleted with quote and newline, followup true'),
	(25, 3, '202403', NULL, NULL, NULL, NULL, true, 'deleted with NULL value, storedby, comment, followup');

INSERT INTO g_hostile (case_no, row_no, iso, value, created, lastupdated, note) VALUES
	(31, 1, '202412', '31', '2024-12-31 23:59:59.999999', '2024-12-31 23:59:59.999999',
	 '.999999 at year end: truncation keeps 2024, rounding would give 2025'),
	(32, 1, '202402', '32', '2024-02-29 12:00:00.000999', '2024-03-01 00:00:00',
	 '.000999 truncates to .000; whole-second lastupdated'),
	(32, 2, '202306', '32', '2023-06-15 08:30:00.0005', '2023-06-15 08:30:00.123999',
	 '.0005 (rounding would give .001); .123999 truncates to .123'),
	(32, 3, '202301', '32', '2023-01-01 00:00:00', '2025-12-31 23:59:59.999999',
	 'earliest and latest timestamps of the demo');

INSERT INTO g_hostile (case_no, row_no, iso, ou, value, note) VALUES
	(33, 1, '202401', 'HostileOrgU', '1', 'value at the hostile org unit'),
	(33, 2, '202402', 'HostileOrgU', E'quote " and backslash \\', 'hostile value at the hostile org unit'),
	(34, 1, '202401', 'DiszpKrYNg8', '34', 'same data element, period and created as row 2'),
	(34, 2, '202401', 'HostileOrgU', '34', 'same data element, period and created as row 1');

/* values for the code-less org unit and option combos, so that every scale has them */
INSERT INTO g_hostile (case_no, row_no, iso, ou, value, note)
SELECT 37, 1, '202401', uid, 'no org unit code', 'at the first facility without a code (Pujehun)'
FROM g_ou WHERE hierarchylevel = 4 AND code IS NULL ORDER BY organisationunitid LIMIT 1;
INSERT INTO g_hostile (case_no, row_no, iso, coc, aoc, value, note) VALUES
	(38, 1, '202401', 230011, 230001, '38', 'COC Male of combo Sex has no code'),
	(38, 2, '202402', 230010, 230014, '38', 'AOC Partner B has no code (and is not data-readable by the public)');

/* the persistent catalogue of hostile rows, for tests (dve_demo is not part of the DHIS2 shape) */
CREATE SCHEMA dve_demo;
CREATE TABLE dve_demo.hostile_case (
	case_no integer NOT NULL,
	row_no integer NOT NULL,
	dataelement_uid text NOT NULL,
	period_iso text NOT NULL,
	orgunit_uid text NOT NULL,
	coc_uid text NOT NULL,
	aoc_uid text NOT NULL,
	note text NOT NULL,
	PRIMARY KEY (case_no, row_no)
);
COMMENT ON SCHEMA dve_demo IS 'datavalue_export demo generator bookkeeping; not part of DHIS2';
INSERT INTO dve_demo.hostile_case
SELECT h.case_no, h.row_no, 'Hostile' || lpad(h.case_no::text, 4, '0'), h.iso, h.ou, c.uid, a.uid, h.note
FROM g_hostile h
JOIN g_coc c ON c.categoryoptioncomboid = h.coc
JOIN g_coc a ON a.categoryoptioncomboid = h.aoc
ORDER BY 1, 2;

-- bulk: budget per data set --------------------------------------------------------------------

SELECT (SELECT count(*) FROM g_hostile) + (SELECT count(*) FROM g_edge) AS dve_fixed_rows \gset
SELECT :dve_values::bigint - :dve_fixed_rows AS dve_bulk_rows \gset
SELECT pg_temp.dve_fail(format('--values %s is too small: the fixed edge-period and hostile rows alone are %s '
							   '(use at least 500)', :dve_values, :dve_fixed_rows))
WHERE :dve_values::bigint < 500 OR :dve_bulk_rows < 0;

/* cells: (data element, category option combo) of the data elements whose own data set this is */
CREATE TEMP TABLE g_cell AS
SELECT d.datasetid, (row_number() OVER (PARTITION BY d.datasetid ORDER BY d.dataelementid, c.categoryoptioncomboid) - 1)::integer AS k,
	   d.dataelementid, c.categoryoptioncomboid AS cocid, d.valuetype
FROM g_de d
JOIN g_coc c ON c.categorycomboid = d.combo
JOIN g_ds s ON s.datasetid = d.datasetid AND s.bulk;

/* main periods, assigned org units, attribute option combos of each bulk data set, numbered from 0 */
CREATE TEMP TABLE g_dspe AS
SELECT s.datasetid, (row_number() OVER (PARTITION BY s.datasetid ORDER BY p.startdate) - 1)::integer AS ord,
	   p.periodid, p.startdate, p.enddate
FROM g_ds s JOIN g_period p ON p.ptype = s.ptype AND p.main
WHERE s.bulk;

CREATE TEMP TABLE g_dsou AS
SELECT s.datasetid, (row_number() OVER (PARTITION BY s.datasetid ORDER BY ds.sourceid) - 1)::integer AS ord,
	   ds.sourceid AS organisationunitid
FROM g_ds s JOIN datasetsource ds ON ds.datasetid = s.datasetid
WHERE s.bulk;

CREATE TEMP TABLE g_dsaoc AS
SELECT s.datasetid, (row_number() OVER (PARTITION BY s.datasetid ORDER BY c.categoryoptioncomboid) - 1)::integer AS ord,
	   c.categoryoptioncomboid AS aocid
FROM g_ds s JOIN g_coc c ON c.categorycomboid = s.combo
WHERE s.bulk;

CREATE TEMP TABLE g_budget AS
WITH shape AS (
	SELECT s.datasetid, s.key, s.weight,
		   (SELECT count(*) FROM g_cell c WHERE c.datasetid = s.datasetid) AS kk,
		   (SELECT count(*) FROM g_dspe p WHERE p.datasetid = s.datasetid) AS pp,
		   (SELECT count(*) FROM g_dsou o WHERE o.datasetid = s.datasetid) AS oo,
		   (SELECT count(*) FROM g_dsaoc a WHERE a.datasetid = s.datasetid) AS aa
	FROM g_ds s
	WHERE s.bulk
), share AS (
	SELECT *, CASE WHEN key = 'CH' THEN NULL ELSE floor(:dve_bulk_rows * weight)::bigint END AS nv
	FROM shape
)
SELECT datasetid, key, kk, pp, oo, aa, pp * oo * aa AS rr,
	   coalesce(nv, :dve_bulk_rows - sum(nv) OVER ())::bigint AS nvalues,
	   ((coalesce(nv, :dve_bulk_rows - sum(nv) OVER ()) + kk - 1) / kk)::bigint AS nreports,
	   pg_temp.dve_h(datasetid, 1) % (pp * oo * aa) AS off,
	   (SELECT min(s) FROM generate_series(round((pp * oo * aa) * 0.6180339887)::bigint,
										   round((pp * oo * aa) * 0.6180339887)::bigint + 1000) s
		WHERE gcd(s, pp * oo * aa) = 1) AS step
FROM share;

SELECT pg_temp.dve_fail(format('--values %s is too large: data set %s would need %s reports but has %s '
							   '(this demo holds about 15 million values)', :dve_values, key, nreports, rr))
FROM g_budget WHERE nreports > rr LIMIT 1;

ANALYZE g_cell;
ANALYZE g_dspe;
ANALYZE g_dsou;
ANALYZE g_dsaoc;
ANALYZE g_budget;

-- bulk: the insert -----------------------------------------------------------------------------

INSERT INTO datavalue (dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid, value,
					   storedby, created, lastupdated, comment, followup, deleted)
SELECT dataelementid, periodid, organisationunitid, cocid, aocid,
	   CASE valuetype
		   WHEN 'NUMBER' THEN
			   CASE WHEN hv % 8 = 0 THEN ((hv >> 3) % 1000)::text || '.' || ((hv >> 13) % 9 + 1)::text
					ELSE ((hv >> 3) % 300)::text END
		   WHEN 'INTEGER_ZERO_OR_POSITIVE' THEN ((hv >> 3) % 250)::text
		   WHEN 'INTEGER_POSITIVE' THEN ((hv >> 3) % 250 + 1)::text
		   WHEN 'INTEGER' THEN CASE WHEN hv % 5 = 0 THEN '-' || ((hv >> 3) % 20 + 1)::text
									ELSE ((hv >> 3) % 40)::text END
		   WHEN 'PERCENTAGE' THEN ((hv >> 3) % 101)::text
		   WHEN 'BOOLEAN' THEN CASE WHEN hv % 3 = 0 THEN 'false' ELSE 'true' END
		   WHEN 'TRUE_ONLY' THEN 'true'
		   WHEN 'DATE' THEN to_char(startdate + ((hv >> 3) % 28)::integer, 'YYYY-MM-DD')
		   WHEN 'TEXT' THEN (ARRAY['OK', 'Stock out', 'Reported late', 'Not applicable', 'Supervisor visited',
								   'Register missing'])[(hv >> 3) % 6 + 1]
		   ELSE ((hv >> 3) % 100)::text
	   END,
	   storedby, created,
	   CASE WHEN hl % 100 < 85 THEN created
			ELSE least(created + ((hl >> 7) % 180) * interval '1 day' + ((hl >> 3) % 86400) * interval '1 second'
					   + ((hl >> 11) % 999983) * interval '1 microsecond',
					   '2025-12-31 23:59:59.999999'::timestamp) END,
	   CASE WHEN hc % 100 = 0 THEN (ARRAY['Checked by supervisor', 'Data from register', 'Estimated',
										  'Corrected after review', 'Late report'])[(hc >> 7) % 5 + 1] END,
	   CASE WHEN hf % 200 = 0 THEN true WHEN hf % 200 < 110 THEN false END,
	   hd % 100 = 0
FROM (
	SELECT c.dataelementid, p.periodid, o.organisationunitid, c.cocid, a.aocid, c.valuetype, p.startdate,
		   (ARRAY['admin', 'system', 'hmis_officer', 'district_bo', 'district_kenema', 'facility_user01',
				  'facility_user02', 'dataentry_clerk'])[hr1 % 8 + 1] AS storedby,
		   least(
			   cday + (21600 + hr2 % 61200) * interval '1 second' + (hr3 % 1000000) * interval '1 microsecond'
			   /* one report in ten was imported in one go: all its values share one created */
			   + CASE WHEN hr1 % 10 = 0 THEN interval '0'
					  ELSE (c.k * 1700000 + pg_temp.dve_h(rowkey, salt + 2) % 999983) * interval '1 microsecond' END,
			   '2025-12-31 23:59:59.999999'::timestamp) AS created,
		   pg_temp.dve_h(rowkey, salt + 3) AS hv,
		   pg_temp.dve_h(rowkey, salt + 4) AS hl,
		   pg_temp.dve_h(rowkey, salt + 5) AS hc,
		   pg_temp.dve_h(rowkey, salt + 6) AS hf,
		   pg_temp.dve_h(rowkey, salt + 7) AS hd
	FROM (
		SELECT b.datasetid, b.kk, b.oo, b.aa, b.nvalues, j, (b.off + j * b.step) % b.rr AS r,
			   b.datasetid * 100 AS salt
		FROM g_budget b, generate_series(0, b.nreports - 1) AS j
	) rep
	JOIN g_cell c ON c.datasetid = rep.datasetid AND rep.j * rep.kk + c.k < rep.nvalues
	JOIN g_dspe p ON p.datasetid = rep.datasetid AND p.ord = rep.r / (rep.oo * rep.aa)
	JOIN g_dsou o ON o.datasetid = rep.datasetid AND o.ord = (rep.r / rep.aa) % rep.oo
	JOIN g_dsaoc a ON a.datasetid = rep.datasetid AND a.ord = rep.r % rep.aa,
		 LATERAL (SELECT rep.r * rep.kk + c.k AS rowkey,
						 pg_temp.dve_h(rep.r, rep.salt) AS hr1,
						 pg_temp.dve_h(rep.r, rep.salt + 1) AS hr2,
						 pg_temp.dve_h(rep.r, rep.salt + 8) AS hr3) h,
		 /* values are entered 1-40 days after the period ends, within 2023-2025 */
		 LATERAL (SELECT CASE WHEN p.enddate + 1 + (hr1 % 40)::integer > '2025-12-20'::date
							  THEN p.startdate + (hr1 % 300)::integer
							  WHEN p.enddate + 1 + (hr1 % 40)::integer < '2023-01-01'::date
							  THEN '2023-01-01'::date + (hr1 % 365)::integer
							  ELSE p.enddate + 1 + (hr1 % 40)::integer END::timestamp AS cday) t
	OFFSET 0
) x;

-- fixed rows: insert ---------------------------------------------------------------------------

INSERT INTO datavalue (dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid, value,
					   storedby, created, lastupdated, comment, followup, deleted)
SELECT e.dataelementid, e.periodid, e.organisationunitid, 230001, 230001,
	   (pg_temp.dve_h(e.periodid * 10 + e.n, 501) % 500)::text, 'admin', c.created, c.created, NULL, false, false
FROM g_edge e,
	 LATERAL (SELECT least(greatest(e.startdate + 2, '2023-01-01'::date), '2025-12-20'::date)::timestamp
					 + (pg_temp.dve_h(e.periodid * 10 + e.n, 502) % 86400000000) * interval '1 microsecond' AS created) c
WHERE NOT (e.only_243 AND :'dve_is_242'::boolean)
ORDER BY e.startdate, e.iso, e.n;

INSERT INTO datavalue (dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid, value,
					   storedby, created, lastupdated, comment, followup, deleted)
SELECT d.dataelementid, p.periodid, o.organisationunitid, h.coc, h.aoc, h.value, h.storedby, h.created,
	   h.lastupdated, h.comment, h.followup, h.deleted
FROM g_hostile h
JOIN g_de d ON d.uid = 'Hostile' || lpad(h.case_no::text, 4, '0')
JOIN g_period p ON p.iso = h.iso AND p.ptype = 'Monthly'
JOIN g_ou o ON o.uid = h.ou
ORDER BY h.case_no, h.row_no;

-- complete data set registrations --------------------------------------------------------------

/*
 * A handful, independent of --values: Reproductive Health at Ngelehun CHC for every month of 2023
 * (202306 completed = false), the hostile data set for 202401 (date .999999), Child Health with a
 * NULL date, and the partner data set with a non-default attribute option combo.
 */
INSERT INTO completedatasetregistration (datasetid, periodid, sourceid, attributeoptioncomboid, date, storedby,
										 lastupdatedby, lastupdated, completed)
SELECT r.datasetid, p.periodid, o.organisationunitid, r.aocid, r.date, r.storedby, r.storedby,
	   coalesce(r.date, '2024-02-10 09:00:00'), r.completed
FROM (
	SELECT 400001 AS datasetid, d::date AS pstart, 'DiszpKrYNg8' AS ou, 230001 AS aocid,
		   (d + interval '1 month 4 days 10 hours' + interval '123456 microseconds')::timestamp AS date,
		   'admin' AS storedby, d <> '2023-06-01' AS completed
	FROM generate_series('2023-01-01'::date, '2023-12-01', interval '1 month') d
	UNION ALL
	SELECT 400010, '2024-01-01', 'DiszpKrYNg8', 230001, '2024-02-05 10:00:00.999999', 'usér_中文', true
	UNION ALL
	SELECT 400002, '2024-01-01', 'DiszpKrYNg8', 230001, NULL, 'admin', true
	UNION ALL
	SELECT 400004, '2024-01-01', 'DiszpKrYNg8', 230013, '2024-02-12 14:15:16.171819', 'district_bo', true
) r
JOIN g_period p ON p.ptype = 'Monthly' AND p.startdate = r.pstart
JOIN g_ou o ON o.uid = r.ou
ORDER BY 1, 2;
