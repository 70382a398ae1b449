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
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
	dow integer := pg_temp.dve_week_start_dow(ptype);
	shape integer[] := pg_temp.dve_month_shape(ptype);
BEGIN
	IF ptype = 'Daily' THEN
		RETURN d;
	ELSIF dow IS NOT NULL THEN
		/* back to the most recent day that is the type's first weekday */
		RETURN d - ((extract(isodow FROM d)::integer - dow + 7) % 7);
	ELSIF ptype = 'BiWeekly' THEN
		/* Monday of d's ISO week, one more week back when that week number is even */
		RETURN d - (extract(isodow FROM d)::integer - 1)
			   - CASE WHEN extract(week FROM d)::integer % 2 = 0 THEN 7 ELSE 0 END;
	ELSIF shape IS NOT NULL THEN
		/* back to the 1st of the latest month m <= month(d) with (m - anchor) mod length = 0 */
		RETURN (date_trunc('month', d)
				- make_interval(months => ((extract(month FROM d)::integer - shape[1] + 12) % 12) % shape[2]))::date;
	END IF;
	RETURN NULL;
END
$$;

/* Last day of the period of type ptype that contains d. */
CREATE FUNCTION pg_temp.dve_period_end(ptype text, d date) RETURNS date
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
	s date := pg_temp.dve_period_start(ptype, d);
	shape integer[] := pg_temp.dve_month_shape(ptype);
BEGIN
	IF ptype = 'Daily' THEN
		RETURN s;
	ELSIF pg_temp.dve_week_start_dow(ptype) IS NOT NULL THEN
		RETURN s + 6;
	ELSIF ptype = 'BiWeekly' THEN
		RETURN s + 13;
	ELSIF shape IS NOT NULL THEN
		RETURN (s + make_interval(months => shape[2]) - interval '1 day')::date;
	END IF;
	RETURN NULL;
END
$$;

/*
 * First day of week 1 of week-based year y for weeks starting on ISO weekday dow: the week that
 * contains 4 January (minimal days in first week = 4).
 */
CREATE FUNCTION pg_temp.dve_week1_start(y integer, dow integer) RETURNS date
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT make_date(y, 1, 4) - ((extract(isodow FROM make_date(y, 1, 4))::integer - dow + 7) % 7)
$$;

/* ISO string of the period of type ptype that contains d; NULL for unknown types. */
CREATE FUNCTION pg_temp.dve_period_iso(ptype text, d date) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
	s date := pg_temp.dve_period_start(ptype, d);
	dow integer := pg_temp.dve_week_start_dow(ptype);
	y integer := extract(year FROM s)::integer;
	m integer := extract(month FROM s)::integer;
	k integer;		/* months since the type's anchor month */
	wy integer;		/* week-based year */
BEGIN
	IF s IS NULL THEN
		RETURN NULL;
	END IF;
	k := (m - coalesce((pg_temp.dve_month_shape(ptype))[1], 1) + 12) % 12;

	IF ptype = 'Daily' THEN
		RETURN to_char(s, 'YYYYMMDD');
	ELSIF dow IS NOT NULL THEN
		/* the week-based year is the one whose week 1 starts on or before s, and the next one's does not */
		wy := CASE
			WHEN s >= pg_temp.dve_week1_start(y + 1, dow) THEN y + 1
			WHEN s < pg_temp.dve_week1_start(y, dow) THEN y - 1
			ELSE y
		END;
		RETURN wy::text || pg_temp.dve_week_prefix(ptype)
			   || ((s - pg_temp.dve_week1_start(wy, dow)) / 7 + 1)::text;
	ELSIF ptype = 'BiWeekly' THEN
		RETURN extract(isoyear FROM s)::integer::text || 'BiW' || ((extract(week FROM s)::integer + 1) / 2)::text;
	END IF;

	RETURN CASE ptype
		WHEN 'Monthly' THEN to_char(s, 'YYYYMM')
		WHEN 'BiMonthly' THEN y::text || to_char((m + 1) / 2, 'FM00') || 'B'
		WHEN 'Quarterly' THEN y::text || 'Q' || ((m - 1) / 3 + 1)::text
		/* Q1 (Nov-Jan) and S1 (Nov-Apr) carry the year they end in */
		WHEN 'QuarterlyNov' THEN (y + CASE WHEN k / 3 = 0 THEN 1 ELSE 0 END)::text || 'NovQ' || (k / 3 + 1)::text
		WHEN 'SixMonthly' THEN y::text || 'S' || ((m - 1) / 6 + 1)::text
		WHEN 'SixMonthlyApril' THEN y::text || 'AprilS' || (k / 6 + 1)::text
		WHEN 'SixMonthlyNov' THEN (y + CASE WHEN k / 6 = 0 THEN 1 ELSE 0 END)::text || 'NovS' || (k / 6 + 1)::text
		WHEN 'Yearly' THEN y::text
		WHEN 'FinancialFeb' THEN y::text || 'Feb'
		WHEN 'FinancialApril' THEN y::text || 'April'
		WHEN 'FinancialJuly' THEN y::text || 'July'
		WHEN 'FinancialAug' THEN y::text || 'Aug'
		WHEN 'FinancialSep' THEN y::text || 'Sep'
		WHEN 'FinancialOct' THEN y::text || 'Oct'
		/* the only financial year labelled with the year it ends in */
		WHEN 'FinancialNov' THEN (y + 1)::text || 'Nov'
	END;
END
$$;
