/*
 * demo/test_periods.sql
 *	  Self-test of the SQL period functions in periods.sql.
 *
 * Needs no tables: run it against any database, e.g.
 *   psql -X -v ON_ERROR_STOP=1 -d postgres -f demo/test_periods.sql
 * It checks (1) every worked example of docs/dhis2-schema-and-periods.md section 2.3 and the
 * DHIS2 unit-test vectors of section 2.6 (type, input date, expected start, end, ISO), and
 * (2) for every day 1990-01-01 .. 2040-12-31 and every type, that the functions agree with the
 * doc's closed forms (weekly: year and day-of-year of the 4th day; BiWeekly: odd ISO weeks),
 * that Weekly matches PostgreSQL's own IYYY/IW, that start <= d <= end, and that ISO strings
 * are unique per (type, start) and constant within a period. Fails with an error on any mismatch.
 * SPDX-License-Identifier: PostgreSQL
 */
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
\ir periods.sql

CREATE TEMP TABLE t_vector (ptype text, d date, s date, e date, iso text);

INSERT INTO t_vector VALUES
	-- Daily
	('Daily', '2024-01-01', '2024-01-01', '2024-01-01', '20240101'),
	('Daily', '2010-01-01', '2010-01-01', '2010-01-01', '20100101'),
	-- Weekly family (section 2.3 table)
	('Weekly', '2024-01-01', '2024-01-01', '2024-01-07', '2024W1'),
	('Weekly', '2023-01-01', '2022-12-26', '2023-01-01', '2022W52'),
	('Weekly', '2021-01-03', '2020-12-28', '2021-01-03', '2020W53'),
	('Weekly', '2020-12-28', '2020-12-28', '2021-01-03', '2020W53'),
	('Weekly', '2021-01-04', '2021-01-04', '2021-01-10', '2021W1'),
	('Weekly', '2024-12-30', '2024-12-30', '2025-01-05', '2025W1'),
	('Weekly', '2027-01-01', '2026-12-28', '2027-01-03', '2026W53'),
	('WeeklyWednesday', '2024-01-01', '2023-12-27', '2024-01-02', '2023WedW52'),
	('WeeklyWednesday', '2024-01-03', '2024-01-03', '2024-01-09', '2024WedW1'),
	('WeeklyWednesday', '2022-12-28', '2022-12-28', '2023-01-03', '2022WedW53'),
	('WeeklyWednesday', '2025-12-31', '2025-12-31', '2026-01-06', '2026WedW1'),
	('WeeklyThursday', '2024-01-04', '2024-01-04', '2024-01-10', '2024ThuW1'),
	('WeeklyThursday', '2023-12-28', '2023-12-28', '2024-01-03', '2023ThuW53'),
	('WeeklyThursday', '2021-01-01', '2020-12-31', '2021-01-06', '2021ThuW1'),
	('WeeklyFriday', '2023-12-29', '2023-12-29', '2024-01-04', '2024FriW1'),
	('WeeklyFriday', '2024-01-05', '2024-01-05', '2024-01-11', '2024FriW2'),
	('WeeklySaturday', '2023-12-30', '2023-12-30', '2024-01-05', '2024SatW1'),
	('WeeklySaturday', '2022-01-01', '2022-01-01', '2022-01-07', '2022SatW1'),
	('WeeklySunday', '2023-12-31', '2023-12-31', '2024-01-06', '2024SunW1'),
	('WeeklySunday', '2024-01-07', '2024-01-07', '2024-01-13', '2024SunW2'),
	('WeeklySunday', '2025-12-28', '2025-12-28', '2026-01-03', '2025SunW53'),
	('WeeklySunday', '2026-01-04', '2026-01-04', '2026-01-10', '2026SunW1'),
	-- Weekly family (section 2.6, WeeklyPeriodTypeTest)
	('Weekly', '2011-01-03', '2011-01-03', '2011-01-09', '2011W1'),
	('Weekly', '2012-12-31', '2012-12-31', '2013-01-06', '2013W1'),
	('Weekly', '2012-12-30', '2012-12-24', '2012-12-30', '2012W52'),
	('Weekly', '2009-12-29', '2009-12-28', '2010-01-03', '2009W53'),
	('Weekly', '2010-01-04', '2010-01-04', '2010-01-10', '2010W1'),
	('Weekly', '2008-12-29', '2008-12-29', '2009-01-04', '2009W1'),
	('Weekly', '2011-03-14', '2011-03-14', '2011-03-20', '2011W11'),
	('WeeklyWednesday', '2017-05-03', '2017-05-03', '2017-05-09', '2017WedW18'),
	('WeeklyWednesday', '2017-05-04', '2017-05-03', '2017-05-09', '2017WedW18'),
	('WeeklyWednesday', '2017-05-01', '2017-04-26', '2017-05-02', '2017WedW17'),
	('WeeklyWednesday', '2017-05-02', '2017-04-26', '2017-05-02', '2017WedW17'),
	('WeeklyThursday', '2017-05-04', '2017-05-04', '2017-05-10', '2017ThuW19'),
	('WeeklyThursday', '2017-05-07', '2017-05-04', '2017-05-10', '2017ThuW19'),
	('WeeklyThursday', '2017-05-01', '2017-04-27', '2017-05-03', '2017ThuW18'),
	('WeeklyThursday', '2017-05-03', '2017-04-27', '2017-05-03', '2017ThuW18'),
	('WeeklySaturday', '2017-05-06', '2017-05-06', '2017-05-12', '2017SatW19'),
	('WeeklySaturday', '2017-05-07', '2017-05-06', '2017-05-12', '2017SatW19'),
	('WeeklySaturday', '2017-05-01', '2017-04-29', '2017-05-05', '2017SatW18'),
	('WeeklySaturday', '2017-05-05', '2017-04-29', '2017-05-05', '2017SatW18'),
	('WeeklySunday', '2017-05-07', '2017-05-07', '2017-05-13', '2017SunW19'),
	('WeeklySunday', '2017-05-01', '2017-04-30', '2017-05-06', '2017SunW18'),
	('WeeklySunday', '2017-05-06', '2017-04-30', '2017-05-06', '2017SunW18'),
	('WeeklySunday', '2017-01-08', '2017-01-08', '2017-01-14', '2017SunW2'),
	('WeeklySunday', '2017-01-01', '2017-01-01', '2017-01-07', '2017SunW1'),
	('WeeklySunday', '2025-12-21', '2025-12-21', '2025-12-27', '2025SunW52'),
	-- BiWeekly (section 2.3 table and BiWeeklyPeriodTypeTest)
	('BiWeekly', '2024-01-10', '2024-01-01', '2024-01-14', '2024BiW1'),
	('BiWeekly', '2024-01-15', '2024-01-15', '2024-01-28', '2024BiW2'),
	('BiWeekly', '2024-12-30', '2024-12-30', '2025-01-12', '2025BiW1'),
	('BiWeekly', '2020-12-28', '2020-12-28', '2021-01-10', '2020BiW27'),
	('BiWeekly', '2021-01-05', '2021-01-04', '2021-01-17', '2021BiW1'),
	('BiWeekly', '2017-12-29', '2017-12-18', '2017-12-31', '2017BiW26'),
	('BiWeekly', '2018-01-08', '2018-01-01', '2018-01-14', '2018BiW1'),
	('BiWeekly', '2009-12-28', '2009-12-28', '2010-01-10', '2009BiW27'),
	('BiWeekly', '2026-12-28', '2026-12-28', '2027-01-10', '2026BiW27'),
	-- Monthly, BiMonthly
	('Monthly', '2024-01-15', '2024-01-01', '2024-01-31', '202401'),
	('Monthly', '2024-02-29', '2024-02-01', '2024-02-29', '202402'),
	('Monthly', '2023-12-01', '2023-12-01', '2023-12-31', '202312'),
	('Monthly', '2010-01-01', '2010-01-01', '2010-01-31', '201001'),
	('BiMonthly', '2024-01-15', '2024-01-01', '2024-02-29', '202401B'),
	('BiMonthly', '2024-05-01', '2024-05-01', '2024-06-30', '202403B'),
	('BiMonthly', '2024-12-31', '2024-11-01', '2024-12-31', '202406B'),
	('BiMonthly', '2010-03-01', '2010-03-01', '2010-04-30', '201002B'),
	-- Quarterly, QuarterlyNov
	('Quarterly', '2024-01-01', '2024-01-01', '2024-03-31', '2024Q1'),
	('Quarterly', '2024-05-20', '2024-04-01', '2024-06-30', '2024Q2'),
	('Quarterly', '2024-12-31', '2024-10-01', '2024-12-31', '2024Q4'),
	('Quarterly', '2010-01-01', '2010-01-01', '2010-03-31', '2010Q1'),
	('QuarterlyNov', '2023-11-01', '2023-11-01', '2024-01-31', '2024NovQ1'),
	('QuarterlyNov', '2024-01-31', '2023-11-01', '2024-01-31', '2024NovQ1'),
	('QuarterlyNov', '2024-02-01', '2024-02-01', '2024-04-30', '2024NovQ2'),
	('QuarterlyNov', '2024-06-15', '2024-05-01', '2024-07-31', '2024NovQ3'),
	('QuarterlyNov', '2024-10-31', '2024-08-01', '2024-10-31', '2024NovQ4'),
	('QuarterlyNov', '2024-12-05', '2024-11-01', '2025-01-31', '2025NovQ1'),
	('QuarterlyNov', '2009-03-15', '2009-02-01', '2009-04-30', '2009NovQ2'),
	('QuarterlyNov', '2009-08-15', '2009-08-01', '2009-10-31', '2009NovQ4'),
	-- SixMonthly, SixMonthlyApril, SixMonthlyNov
	('SixMonthly', '2024-03-01', '2024-01-01', '2024-06-30', '2024S1'),
	('SixMonthly', '2024-07-01', '2024-07-01', '2024-12-31', '2024S2'),
	('SixMonthly', '2010-01-01', '2010-01-01', '2010-06-30', '2010S1'),
	('SixMonthlyApril', '2024-02-01', '2023-10-01', '2024-03-31', '2023AprilS2'),
	('SixMonthlyApril', '2024-04-01', '2024-04-01', '2024-09-30', '2024AprilS1'),
	('SixMonthlyApril', '2024-10-01', '2024-10-01', '2025-03-31', '2024AprilS2'),
	('SixMonthlyApril', '2025-03-31', '2024-10-01', '2025-03-31', '2024AprilS2'),
	('SixMonthlyApril', '2010-04-01', '2010-04-01', '2010-09-30', '2010AprilS1'),
	('SixMonthlyApril', '2009-08-15', '2009-04-01', '2009-09-30', '2009AprilS1'),
	('SixMonthlyApril', '2009-12-15', '2009-10-01', '2010-03-31', '2009AprilS2'),
	('SixMonthlyApril', '2015-02-01', '2014-10-01', '2015-03-31', '2014AprilS2'),
	('SixMonthlyNov', '2023-11-01', '2023-11-01', '2024-04-30', '2024NovS1'),
	('SixMonthlyNov', '2024-04-30', '2023-11-01', '2024-04-30', '2024NovS1'),
	('SixMonthlyNov', '2024-05-01', '2024-05-01', '2024-10-31', '2024NovS2'),
	('SixMonthlyNov', '2024-11-15', '2024-11-01', '2025-04-30', '2025NovS1'),
	('SixMonthlyNov', '2009-08-15', '2009-05-01', '2009-10-31', '2009NovS2'),
	('SixMonthlyNov', '2009-12-15', '2009-11-01', '2010-04-30', '2010NovS1'),
	('SixMonthlyNov', '2014-11-01', '2014-11-01', '2015-04-30', '2015NovS1'),
	('SixMonthlyNov', '2015-05-01', '2015-05-01', '2015-10-31', '2015NovS2'),
	-- Yearly and financial years
	('Yearly', '2024-06-30', '2024-01-01', '2024-12-31', '2024'),
	('Yearly', '2010-01-01', '2010-01-01', '2010-12-31', '2010'),
	('FinancialFeb', '2024-01-31', '2023-02-01', '2024-01-31', '2023Feb'),
	('FinancialFeb', '2024-02-01', '2024-02-01', '2025-01-31', '2024Feb'),
	('FinancialApril', '2024-03-31', '2023-04-01', '2024-03-31', '2023April'),
	('FinancialApril', '2024-04-01', '2024-04-01', '2025-03-31', '2024April'),
	('FinancialApril', '2025-03-01', '2024-04-01', '2025-03-31', '2024April'),
	('FinancialApril', '2010-04-01', '2010-04-01', '2011-03-31', '2010April'),
	('FinancialJuly', '2024-06-30', '2023-07-01', '2024-06-30', '2023July'),
	('FinancialJuly', '2024-07-01', '2024-07-01', '2025-06-30', '2024July'),
	('FinancialJuly', '2010-07-01', '2010-07-01', '2011-06-30', '2010July'),
	('FinancialAug', '2024-08-01', '2024-08-01', '2025-07-31', '2024Aug'),
	('FinancialSep', '2024-08-31', '2023-09-01', '2024-08-31', '2023Sep'),
	('FinancialSep', '2024-09-01', '2024-09-01', '2025-08-31', '2024Sep'),
	('FinancialOct', '2024-10-01', '2024-10-01', '2025-09-30', '2024Oct'),
	('FinancialOct', '2025-02-01', '2024-10-01', '2025-09-30', '2024Oct'),
	('FinancialOct', '2010-10-01', '2010-10-01', '2011-09-30', '2010Oct'),
	('FinancialNov', '2023-11-01', '2023-11-01', '2024-10-31', '2024Nov'),
	('FinancialNov', '2024-10-31', '2023-11-01', '2024-10-31', '2024Nov'),
	('FinancialNov', '2024-12-25', '2024-11-01', '2025-10-31', '2025Nov'),
	('FinancialNov', '2009-02-15', '2008-11-01', '2009-10-31', '2009Nov'),
	('FinancialNov', '2009-11-12', '2009-11-01', '2010-10-31', '2010Nov'),
	-- not a DHIS2 ISO period type: no ISO string
	('TwoYearly', '2024-01-01', NULL, NULL, NULL);

/* (1) the vectors */
DO $$
DECLARE
	bad text;
BEGIN
	SELECT string_agg(format('%s %s: got %s..%s %s, want %s..%s %s', ptype, d,
							 pg_temp.dve_period_start(ptype, d), pg_temp.dve_period_end(ptype, d),
							 pg_temp.dve_period_iso(ptype, d), s, e, iso), E'\n')
	INTO bad
	FROM t_vector
	WHERE pg_temp.dve_period_start(ptype, d) IS DISTINCT FROM s
	   OR pg_temp.dve_period_end(ptype, d) IS DISTINCT FROM e
	   OR pg_temp.dve_period_iso(ptype, d) IS DISTINCT FROM iso;
	IF bad IS NOT NULL THEN
		RAISE EXCEPTION 'period vector mismatches:%', E'\n' || bad;
	END IF;
END
$$;
SELECT count(*) AS vectors_ok FROM t_vector;

/* (2) every day 1990..2040, every type, against the doc's closed forms */
CREATE TEMP TABLE t_type (ptype text);
INSERT INTO t_type VALUES ('Daily'), ('Weekly'), ('WeeklyWednesday'), ('WeeklyThursday'), ('WeeklyFriday'),
	('WeeklySaturday'), ('WeeklySunday'), ('BiWeekly'), ('Monthly'), ('BiMonthly'), ('Quarterly'),
	('QuarterlyNov'), ('SixMonthly'), ('SixMonthlyApril'), ('SixMonthlyNov'), ('Yearly'), ('FinancialFeb'),
	('FinancialApril'), ('FinancialJuly'), ('FinancialAug'), ('FinancialSep'), ('FinancialOct'),
	('FinancialNov');

CREATE TEMP TABLE t_day AS
SELECT t.ptype, g.d::date AS d,
	   pg_temp.dve_period_start(t.ptype, g.d::date) AS s,
	   pg_temp.dve_period_end(t.ptype, g.d::date) AS e,
	   pg_temp.dve_period_iso(t.ptype, g.d::date) AS iso
FROM t_type t, generate_series('1990-01-01'::date, '2040-12-31'::date, interval '1 day') g(d);

DO $$
DECLARE
	n bigint;
BEGIN
	/* start <= d <= end, and nothing NULL */
	SELECT count(*) INTO n FROM t_day WHERE s IS NULL OR e IS NULL OR iso IS NULL OR NOT (s <= d AND d <= e);
	IF n > 0 THEN RAISE EXCEPTION '% days outside their period', n; END IF;

	/* the period of the start date is the same period (normalisation is idempotent) */
	SELECT count(*) INTO n FROM t_day
	WHERE pg_temp.dve_period_start(ptype, s) <> s OR pg_temp.dve_period_iso(ptype, s) <> iso;
	IF n > 0 THEN RAISE EXCEPTION '% days whose start normalises differently', n; END IF;

	/* weekly family: doc closed form, A = start + 3, year(A), (doy(A) - 1) / 7 + 1 */
	SELECT count(*) INTO n FROM t_day
	WHERE pg_temp.dve_week_start_dow(ptype) IS NOT NULL
	  AND iso <> extract(year FROM s + 3)::integer::text || pg_temp.dve_week_prefix(ptype)
				 || ((extract(doy FROM s + 3)::integer - 1) / 7 + 1)::text;
	IF n > 0 THEN RAISE EXCEPTION '% weekly days disagree with the 4th-day closed form', n; END IF;

	/* Weekly = PostgreSQL ISO week */
	SELECT count(*) INTO n FROM t_day
	WHERE ptype = 'Weekly'
	  AND iso <> to_char(s, 'IYYY') || 'W' || extract(week FROM s)::integer::text;
	IF n > 0 THEN RAISE EXCEPTION '% Weekly days disagree with IYYY/IW', n; END IF;

	/* BiWeekly starts on the Monday of an odd ISO week and is labelled (week + 1) / 2 */
	SELECT count(*) INTO n FROM t_day
	WHERE ptype = 'BiWeekly'
	  AND (extract(isodow FROM s) <> 1 OR extract(week FROM s)::integer % 2 <> 1
		   OR iso <> to_char(s, 'IYYY') || 'BiW' || ((extract(week FROM s)::integer + 1) / 2)::text);
	IF n > 0 THEN RAISE EXCEPTION '% BiWeekly days break the odd-week rule', n; END IF;

	/* one ISO string per (type, start), and one (type, start) per ISO string */
	SELECT count(*) INTO n FROM (
		SELECT ptype, iso FROM t_day GROUP BY ptype, iso HAVING count(DISTINCT s) <> 1
		UNION ALL
		SELECT ptype, s::text FROM t_day GROUP BY ptype, s HAVING count(DISTINCT iso) <> 1) x;
	IF n > 0 THEN RAISE EXCEPTION '% ambiguous ISO strings', n; END IF;

	/* and, across types, no two types share an ISO string */
	SELECT count(*) INTO n FROM (SELECT iso FROM t_day GROUP BY iso HAVING count(DISTINCT ptype) > 1) x;
	IF n > 0 THEN RAISE EXCEPTION '% ISO strings shared by two period types', n; END IF;
END
$$;
SELECT count(*) AS day_checks_ok FROM t_day;
