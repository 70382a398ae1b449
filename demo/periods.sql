/*
 * demo/periods.sql
 *	  DHIS2 period arithmetic in SQL: normalise a date to the period of a given type that contains
 *	  it, give that period's end date and its ISO string.
 *
 * These are session-local (pg_temp) helpers for the demo generator and its tests; they leave
 * nothing behind in the database. Rules: docs/dhis2-schema-and-periods.md section 2 (ISO
 * calendar). They are written to be an implementation *independent* of the C++ one, because the
 * 2.43-shaped demo stores their output in period.iso and the extension's C++ code is compared
 * with it byte for byte:
 *   - weekly types use the "week 1 is the week that contains 4 January" rule, not the
 *     "year and day-of-year of the 4th day" closed form the C++ code is told to use;
 *   - BiWeekly uses PostgreSQL's own ISO week fields (extract(isoyear/week));
 *   - month-based types share one anchor-month/length table and date_trunc/interval arithmetic.
 * test_periods.sql checks them against every worked example and DHIS2 test vector of the doc
 * and against the closed form for every day 1990-2040.
 *
 * Usage (psql): \ir periods.sql, then pg_temp.dve_period_start(type, date),
 * pg_temp.dve_period_end(type, date) and pg_temp.dve_period_iso(type, date). Unknown type
 * names (e.g. TwoYearly) give NULL.
 * SPDX-License-Identifier: PostgreSQL
 */

/* First ISO weekday (Mon = 1 ... Sun = 7) of the weekly types; NULL for every other type. */
CREATE FUNCTION pg_temp.dve_week_start_dow(ptype text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE ptype
		WHEN 'Weekly' THEN 1
		WHEN 'WeeklyWednesday' THEN 3
		WHEN 'WeeklyThursday' THEN 4
		WHEN 'WeeklyFriday' THEN 5
		WHEN 'WeeklySaturday' THEN 6
		WHEN 'WeeklySunday' THEN 7
	END
$$;

/* Text between the year and the week number of the weekly types. */
CREATE FUNCTION pg_temp.dve_week_prefix(ptype text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE ptype
		WHEN 'Weekly' THEN 'W'
		WHEN 'WeeklyWednesday' THEN 'WedW'
		WHEN 'WeeklyThursday' THEN 'ThuW'
		WHEN 'WeeklyFriday' THEN 'FriW'
		WHEN 'WeeklySaturday' THEN 'SatW'
		WHEN 'WeeklySunday' THEN 'SunW'
	END
$$;

/*
 * Month-based types as {anchor month, length in months}: a period starts on the 1st of a month m
 * with (m - anchor) mod length = 0. Yearly and the financial years are 12-month periods.
 */
CREATE FUNCTION pg_temp.dve_month_shape(ptype text) RETURNS integer[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE ptype
		WHEN 'Monthly' THEN '{1,1}'::integer[]
		WHEN 'BiMonthly' THEN '{1,2}'
		WHEN 'Quarterly' THEN '{1,3}'
		WHEN 'QuarterlyNov' THEN '{11,3}'
		WHEN 'SixMonthly' THEN '{1,6}'
		WHEN 'SixMonthlyApril' THEN '{4,6}'
		WHEN 'SixMonthlyNov' THEN '{11,6}'
		WHEN 'Yearly' THEN '{1,12}'
		WHEN 'FinancialFeb' THEN '{2,12}'
		WHEN 'FinancialApril' THEN '{4,12}'
		WHEN 'FinancialJuly' THEN '{7,12}'
		WHEN 'FinancialAug' THEN '{8,12}'
		WHEN 'FinancialSep' THEN '{9,12}'
		WHEN 'FinancialOct' THEN '{10,12}'
		WHEN 'FinancialNov' THEN '{11,12}'
	END
$$;

/* Start date of the period of type ptype that contains d (DHIS2's createPeriod(date) normalisation). */
CREATE FUNCTION pg_temp.dve_period_start(ptype text, d date) RETURNS date
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT CASE
		WHEN ptype = 'Daily' THEN d
		WHEN pg_temp.dve_week_start_dow(ptype) IS NOT NULL THEN
			d - ((extract(isodow FROM d)::integer - pg_temp.dve_week_start_dow(ptype) + 7) % 7)
		WHEN ptype = 'BiWeekly' THEN
			/* Monday of d's ISO week, one more week back when that week number is even */
			d - (extract(isodow FROM d)::integer - 1)
			  - CASE WHEN extract(week FROM d)::integer % 2 = 0 THEN 7 ELSE 0 END
		WHEN pg_temp.dve_month_shape(ptype) IS NOT NULL THEN
			(date_trunc('month', d)
			 - make_interval(months => ((extract(month FROM d)::integer - (pg_temp.dve_month_shape(ptype))[1] + 12) % 12)
									   % (pg_temp.dve_month_shape(ptype))[2]))::date
	END
$$;

/* Last day of the period of type ptype that contains d. */
CREATE FUNCTION pg_temp.dve_period_end(ptype text, d date) RETURNS date
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT CASE
		WHEN ptype = 'Daily' THEN d
		WHEN pg_temp.dve_week_start_dow(ptype) IS NOT NULL THEN pg_temp.dve_period_start(ptype, d) + 6
		WHEN ptype = 'BiWeekly' THEN pg_temp.dve_period_start(ptype, d) + 13
		WHEN pg_temp.dve_month_shape(ptype) IS NOT NULL THEN
			(pg_temp.dve_period_start(ptype, d)
			 + make_interval(months => (pg_temp.dve_month_shape(ptype))[2]) - interval '1 day')::date
	END
$$;

/*
 * First day of week 1 of week-based year y for weeks starting on ISO weekday s: the s-day week
 * that contains 4 January (minimal days in first week = 4).
 */
CREATE FUNCTION pg_temp.dve_week1_start(y integer, s integer) RETURNS date
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT make_date(y, 1, 4) - ((extract(isodow FROM make_date(y, 1, 4))::integer - s + 7) % 7)
$$;

/* ISO string of a weekly-type period that starts on ws (ws already normalised). */
CREATE FUNCTION pg_temp.dve_week_iso(ptype text, ws date) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT wy::text || pg_temp.dve_week_prefix(ptype)
		   || ((ws - pg_temp.dve_week1_start(wy, s)) / 7 + 1)::text
	FROM (SELECT s,
				 CASE
					 WHEN ws >= pg_temp.dve_week1_start(y + 1, s) THEN y + 1
					 WHEN ws < pg_temp.dve_week1_start(y, s) THEN y - 1
					 ELSE y
				 END AS wy
		  FROM (SELECT extract(year FROM ws)::integer AS y,
					   pg_temp.dve_week_start_dow(ptype) AS s) a) b
$$;

/* ISO string of the period of type ptype that contains d; NULL for unknown types. */
CREATE FUNCTION pg_temp.dve_period_iso(ptype text, d date) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT CASE
		WHEN ptype = 'Daily' THEN to_char(s, 'YYYYMMDD')
		WHEN pg_temp.dve_week_start_dow(ptype) IS NOT NULL THEN pg_temp.dve_week_iso(ptype, s)
		WHEN ptype = 'BiWeekly' THEN
			extract(isoyear FROM s)::integer::text || 'BiW' || ((extract(week FROM s)::integer + 1) / 2)::text
		WHEN ptype = 'Monthly' THEN to_char(s, 'YYYYMM')
		WHEN ptype = 'BiMonthly' THEN to_char(s, 'YYYY') || to_char((m + 1) / 2, 'FM00') || 'B'
		WHEN ptype = 'Quarterly' THEN y::text || 'Q' || ((m - 1) / 3 + 1)::text
		/* k = months since the anchor month; Q1 (Nov-Jan) and S1 (Nov-Apr) carry the year they end in */
		WHEN ptype = 'QuarterlyNov' THEN
			(y + CASE WHEN k / 3 = 0 THEN 1 ELSE 0 END)::text || 'NovQ' || (k / 3 + 1)::text
		WHEN ptype = 'SixMonthly' THEN y::text || 'S' || ((m - 1) / 6 + 1)::text
		WHEN ptype = 'SixMonthlyApril' THEN y::text || 'AprilS' || (k / 6 + 1)::text
		WHEN ptype = 'SixMonthlyNov' THEN
			(y + CASE WHEN k / 6 = 0 THEN 1 ELSE 0 END)::text || 'NovS' || (k / 6 + 1)::text
		WHEN ptype = 'Yearly' THEN y::text
		WHEN ptype = 'FinancialFeb' THEN y::text || 'Feb'
		WHEN ptype = 'FinancialApril' THEN y::text || 'April'
		WHEN ptype = 'FinancialJuly' THEN y::text || 'July'
		WHEN ptype = 'FinancialAug' THEN y::text || 'Aug'
		WHEN ptype = 'FinancialSep' THEN y::text || 'Sep'
		WHEN ptype = 'FinancialOct' THEN y::text || 'Oct'
		/* the only financial year labelled with the year it ends in */
		WHEN ptype = 'FinancialNov' THEN (y + 1)::text || 'Nov'
	END
	FROM (SELECT s,
				 extract(year FROM s)::integer AS y,
				 extract(month FROM s)::integer AS m,
				 (extract(month FROM s)::integer - coalesce((pg_temp.dve_month_shape(ptype))[1], 1) + 12) % 12 AS k
		  FROM (SELECT pg_temp.dve_period_start(ptype, d) AS s) a) b
	WHERE s IS NOT NULL
$$;
