/*
 * demo/helpers.sql
 *	  Session-local (pg_temp) helpers of the demo generator: deterministic UIDs, hashes and
 *	  place names. Nothing here is left in the database.
 *
 * Determinism: everything the generator produces is a pure function of a seed string or a
 * number, through md5() and hashint8extended(); nothing uses random(). hashint8extended is the
 * bigint hash behind hash partitioning, which needs it to stay the same across releases, and for
 * bigint input it does not depend on byte order.
 * SPDX-License-Identifier: PostgreSQL
 */

/* A DHIS2-style UID (^[a-zA-Z][a-zA-Z0-9]{10}$) derived from a seed string. */
CREATE FUNCTION pg_temp.dve_uid(seed text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT substr(l, get_byte(h, 0) % 52 + 1, 1)
		|| substr(a, get_byte(h, 1) % 62 + 1, 1) || substr(a, get_byte(h, 2) % 62 + 1, 1)
		|| substr(a, get_byte(h, 3) % 62 + 1, 1) || substr(a, get_byte(h, 4) % 62 + 1, 1)
		|| substr(a, get_byte(h, 5) % 62 + 1, 1) || substr(a, get_byte(h, 6) % 62 + 1, 1)
		|| substr(a, get_byte(h, 7) % 62 + 1, 1) || substr(a, get_byte(h, 8) % 62 + 1, 1)
		|| substr(a, get_byte(h, 9) % 62 + 1, 1) || substr(a, get_byte(h, 10) % 62 + 1, 1)
	FROM (SELECT decode(md5('dve-demo-uid:' || seed), 'hex') AS h,
				 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'::text AS l,
				 '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'::text AS a) s
$$;

/* Non-negative 31-bit hash of (v, stream); different streams give independent values. */
CREATE FUNCTION pg_temp.dve_h(v bigint, stream bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT hashint8extended(v, stream) & 2147483647
$$;

/* A pronounceable place name (2 or 3 syllables) derived from a seed string. */
CREATE FUNCTION pg_temp.dve_place(seed text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT initcap(syl[get_byte(h, 0) % 40 + 1] || syl[get_byte(h, 1) % 40 + 1]
				   || CASE WHEN get_byte(h, 2) % 3 = 0 THEN syl[get_byte(h, 3) % 40 + 1] ELSE '' END)
	FROM (SELECT decode(md5('dve-demo-place:' || seed), 'hex') AS h,
				 ARRAY['ba', 'bo', 'gbe', 'kpa', 'ma', 'nge', 'ka', 'lu', 'se', 'to',
					   'ye', 'wa', 'ko', 'fo', 'mo', 'ja', 'ngo', 'le', 'hun', 'ta',
					   'nda', 'bu', 'ru', 'yo', 'ti', 'mbo', 'kai', 'gbo', 'san', 'dia',
					   'ma', 'ke', 'ne', 'ro', 'wu', 'kui', 'gor', 'lah', 'pe', 'ya'] AS syl) s
$$;

/* Raise an error from a query (used for argument and capacity checks). */
CREATE FUNCTION pg_temp.dve_fail(msg text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION '%', msg;
END
$$;

/*
 * One progress line: label, seconds since the previous lap and since the first one. The times
 * live in two custom settings of the session (dve.lap, dve.start).
 */
CREATE FUNCTION pg_temp.dve_lap(label text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	now_ts timestamptz := clock_timestamp();
	prev timestamptz := coalesce(nullif(current_setting('dve.lap', true), ''), now_ts::text)::timestamptz;
	first timestamptz := coalesce(nullif(current_setting('dve.start', true), ''), now_ts::text)::timestamptz;
BEGIN
	PERFORM set_config('dve.lap', now_ts::text, false);
	PERFORM set_config('dve.start', first::text, false);
	RETURN format('  %-34s %8s s  (total %s s)', label, to_char(extract(epoch FROM now_ts - prev), 'FM99990.0'),
				  to_char(extract(epoch FROM now_ts - first), 'FM99990.0'));
END
$$;
