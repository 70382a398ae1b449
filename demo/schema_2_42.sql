/*
 * demo/schema_2_42.sql
 *	  Turn the tables of schema.sql into the shape of a fresh DHIS2 2.42 install
 *	  (docs/dhis2-schema-and-periods.md Appendix B).
 *
 * Run right after schema.sql was loaded with dve_schema_242 set (so that period.iso and
 * periodtype.label were never created), before any data; generate.sql does this for
 * schema=2.42. The rows are then loaded as for 2.43, minus the three 2.43-only period types
 * (WeeklyFriday, FinancialFeb, FinancialAug) and their periods and values.
 * SPDX-License-Identifier: PostgreSQL
 */

DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_attribute
			   WHERE attrelid IN ('period'::regclass, 'periodtype'::regclass) AND attname IN ('iso', 'label')) THEN
		RAISE EXCEPTION 'period.iso or periodtype.label exists: load schema.sql with dve_schema_242 set';
	END IF;
END
$$;

/* periodtype: no unique index on name (only the primary key) */
DROP INDEX periodtype_name_key;

/* categorycombos_optioncombos: only its primary key */
DROP INDEX idx_categorycombos_optioncombos_categorycomboid;

/* datavalue: no column defaults (2.43's V2_43_6 added them) */
ALTER TABLE datavalue
	ALTER COLUMN storedby DROP DEFAULT,
	ALTER COLUMN created DROP DEFAULT,
	ALTER COLUMN lastupdated DROP DEFAULT;

/* translations: nullable and without a default everywhere */
DO $$
DECLARE
	t text;
BEGIN
	FOR t IN
		SELECT c.table_name
		FROM information_schema.columns c
		WHERE c.table_schema = current_schema() AND c.column_name = 'translations'
		ORDER BY c.table_name
	LOOP
		EXECUTE format('ALTER TABLE %I ALTER COLUMN translations DROP NOT NULL, ALTER COLUMN translations DROP DEFAULT', t);
	END LOOP;
END
$$;
