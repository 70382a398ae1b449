-- Ordered exports hand the scan's heap tuples to a second thread undecoded (src/core/staged_rows):
-- every physical form a row can take must give the document the plain table gives.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

CREATE FUNCTION whole_export(deleted boolean) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(c, '') FROM export_datavalues_json(data_set => (SELECT array_agg(uid ORDER BY uid) FROM dataset),
    start_date => '1900-01-01', end_date => '2100-12-31', org_unit => '{ImspTQPwCqd}', children => true,
    include_deleted => deleted) AS c
$$;
CREATE TEMP TABLE reference AS SELECT whole_export(false) AS live, whole_export(true) AS all_rows;
SELECT length(live) > 1000 AS has_values, all_rows <> live AS deleted_rows_differ FROM reference;

-- Long comments in each storage: inline as they are (the thread decodes a 4-byte header),
-- compressed inline (handed back and decoded by PostgreSQL), and out of line (never staged).
BEGIN;
CREATE TEMP TABLE forms (storage text, live text, all_rows text, stored text);
-- Give half the rows a long comment (the suffix keeps each rewrite a real change) in this storage,
-- and keep both exports and the form the comments took on disk.
CREATE FUNCTION store_long_comments(storage text, suffix text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE datavalue ALTER COLUMN comment SET STORAGE %s', storage);
  UPDATE datavalue SET comment = repeat('long comment ', 400) || suffix WHERE dataelementid % 2 = 0;
  INSERT INTO forms SELECT lower(storage), whole_export(false), whole_export(true),
    (SELECT string_agg(DISTINCT CASE WHEN pg_column_compression(comment) IS NOT NULL THEN 'compressed inline'
                                     WHEN pg_column_size(comment) = octet_length(comment) + 4 THEN 'inline'
                                     ELSE 'out of line' END, ',')
     FROM datavalue WHERE dataelementid % 2 = 0);
END $$;
SELECT store_long_comments('PLAIN', '');
SELECT store_long_comments('MAIN', '.');
SELECT store_long_comments('EXTERNAL', '..');
SELECT storage, stored FROM forms ORDER BY storage;
-- The same documents once the suffixes are taken out, with the long comments in them.
SELECT storage,
       replace(replace(live, repeat('long comment ', 400) || '..', repeat('long comment ', 400)),
               repeat('long comment ', 400) || '.', repeat('long comment ', 400))
         = (SELECT live FROM forms WHERE storage = 'plain') AS live_same,
       replace(replace(all_rows, repeat('long comment ', 400) || '..', repeat('long comment ', 400)),
               repeat('long comment ', 400) || '.', repeat('long comment ', 400))
         = (SELECT all_rows FROM forms WHERE storage = 'plain') AS all_same,
       position(repeat('long comment ', 400) IN live) > 0 AS has_long_comment
FROM forms ORDER BY storage;
ROLLBACK;

-- The table rebuilt with columns the export does not read among its own (one dropped), of
-- every alignment, and its deleted flag added afterwards: old rows lack that attribute on disk
-- (they are decoded by PostgreSQL), new rows have it (the thread decodes them).
BEGIN;
CREATE TABLE datavalue_rebuilt (
  junk_short smallint, dataelementid bigint NOT NULL, junk_text text, periodid bigint NOT NULL,
  gone text, sourceid bigint NOT NULL, categoryoptioncomboid bigint NOT NULL, junk_char "char",
  attributeoptioncomboid bigint NOT NULL, value character varying(50000), junk_int integer,
  storedby character varying(255), created timestamp NOT NULL, junk_bool boolean,
  lastupdated timestamp NOT NULL, comment character varying(50000), followup boolean);
ALTER TABLE datavalue_rebuilt DROP COLUMN gone;
INSERT INTO datavalue_rebuilt (junk_short, dataelementid, junk_text, periodid, sourceid, categoryoptioncomboid,
                               junk_char, attributeoptioncomboid, value, junk_int, storedby, created, junk_bool,
                               lastupdated, comment, followup)
SELECT CASE WHEN dataelementid % 3 = 0 THEN NULL ELSE 7 END, dataelementid, repeat('j', (dataelementid % 200)::int),
       periodid, sourceid, categoryoptioncomboid, 'c', attributeoptioncomboid, value, 42, storedby, created, true,
       lastupdated, comment, followup
FROM datavalue WHERE NOT deleted AND dataelementid % 2 = 0;
ALTER TABLE datavalue_rebuilt ADD COLUMN deleted boolean NOT NULL DEFAULT false;
INSERT INTO datavalue_rebuilt (junk_short, dataelementid, junk_text, periodid, sourceid, categoryoptioncomboid,
                               junk_char, attributeoptioncomboid, value, junk_int, storedby, created, junk_bool,
                               lastupdated, comment, followup, deleted)
SELECT NULL, dataelementid, NULL, periodid, sourceid, categoryoptioncomboid, NULL, attributeoptioncomboid, value,
       NULL, storedby, created, NULL, lastupdated, comment, followup, deleted
FROM datavalue WHERE deleted OR dataelementid % 2 = 1;
ALTER TABLE datavalue RENAME TO datavalue_original;
ALTER TABLE datavalue_rebuilt RENAME TO datavalue;
SELECT whole_export(false) = live AS live_same, whole_export(true) = all_rows AS all_same FROM reference;
ROLLBACK;

-- Deleted rows are dropped before they are checked: an infinite timestamp on one fails only
-- the export that includes it (with SQLSTATE 22008).
BEGIN;
UPDATE datavalue SET created = 'infinity' WHERE ctid = (SELECT min(ctid) FROM datavalue WHERE deleted);
SELECT whole_export(false) = live AS live_same FROM reference;
SELECT length(whole_export(true));
ROLLBACK;

-- A column of another type than DHIS2 gives it is refused before the first row, ordered or not
-- (a text column of another type would be read as a pointer): 42804.
CREATE FUNCTION csv_export(ord text, deleted boolean) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(c, '') FROM export_datavalues_csv(data_set => (SELECT array_agg(uid ORDER BY uid) FROM dataset),
    start_date => '1900-01-01', end_date => '2100-12-31', org_unit => '{ImspTQPwCqd}', children => true,
    "order" => NULLIF(ord, 'dhis2'), include_deleted => deleted) AS c
$$;
BEGIN;
ALTER TABLE datavalue ALTER COLUMN storedby DROP DEFAULT, ALTER COLUMN storedby TYPE integer USING length(storedby);
SELECT length(whole_export(false));
ROLLBACK;
BEGIN;
ALTER TABLE datavalue ALTER COLUMN storedby DROP DEFAULT, ALTER COLUMN storedby TYPE integer USING length(storedby);
SELECT length(csv_export('none', false));
ROLLBACK;
BEGIN;
ALTER TABLE datavalue ALTER COLUMN created TYPE date;
SELECT length(whole_export(false));
ROLLBACK;
BEGIN;
ALTER TABLE datavalue ALTER COLUMN followup TYPE integer USING followup::integer;
SELECT length(csv_export('none', false));
ROLLBACK;
-- Text of another text type, and a domain over varchar, read as DHIS2's varchar.
BEGIN;
CREATE DOMAIN short_text AS varchar(300);
ALTER TABLE datavalue ALTER COLUMN storedby TYPE short_text;
ALTER TABLE datavalue ALTER COLUMN comment TYPE text;
SELECT whole_export(false) = live AS live_same, whole_export(true) = all_rows AS all_same FROM reference;
ROLLBACK;

-- A NULL deleted flag (DHIS2 declares it NOT NULL) is not live, as DHIS2's dv.deleted = false sees
-- it, on every path (the heap read directly, the query, unordered): the document is the one the
-- row gives as deleted; with include_deleted, the one it gives as not deleted. A NULL created or
-- lastupdated is an error (22004).
BEGIN;
ALTER TABLE datavalue ALTER COLUMN deleted DROP NOT NULL;
CREATE TEMP TABLE flagged AS
  SELECT dataelementid, periodid, sourceid FROM datavalue WHERE NOT deleted ORDER BY ctid LIMIT 3;
CREATE FUNCTION flag_rows(flag boolean) RETURNS void LANGUAGE sql AS $$
  UPDATE datavalue dv SET deleted = flag FROM flagged f
  WHERE (dv.dataelementid, dv.periodid, dv.sourceid) = (f.dataelementid, f.periodid, f.sourceid)
$$;
CREATE TEMP TABLE docs (flag text, path text, include boolean, doc text);
CREATE FUNCTION keep_docs(flag text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('datavalue_export.direct_heap_scan', 'on', true);
  INSERT INTO docs SELECT flag, p, i, csv_export(CASE p WHEN 'unordered' THEN 'none' END, i)
    FROM (VALUES ('direct'), ('unordered')) v(p), (VALUES (false), (true)) w(i);
  PERFORM set_config('datavalue_export.direct_heap_scan', 'off', true);
  INSERT INTO docs SELECT flag, 'query', i, csv_export(NULL, i) FROM (VALUES (false), (true)) w(i);
END $$;
SELECT flag_rows(NULL), keep_docs('null');
SELECT flag_rows(true), keep_docs('true');
SELECT flag_rows(false), keep_docs('false');
SELECT n.path, n.include, n.doc = CASE WHEN n.include THEN f.doc ELSE t.doc END AS as_dhis2,
       t.doc <> f.doc AS flags_differ
FROM docs n JOIN docs t USING (path, include) JOIN docs f USING (path, include)
WHERE n.flag = 'null' AND t.flag = 'true' AND f.flag = 'false' ORDER BY 1, 2;
ROLLBACK;
BEGIN;
ALTER TABLE datavalue ALTER COLUMN created DROP NOT NULL;
UPDATE datavalue SET created = NULL WHERE ctid = (SELECT min(ctid) FROM datavalue WHERE NOT deleted);
SAVEPOINT s;
SELECT length(whole_export(false));
ROLLBACK TO s;
SELECT length(csv_export('none', false));
ROLLBACK;

-- A value whose ids have no metadata row (DHIS2's foreign keys prevent it; here the foreign key
-- triggers are off) is left out, as DHIS2's join leaves it out, on every path, with a WARNING
-- that counts them.
BEGIN;
CREATE TEMP TABLE before AS
  SELECT csv_export(NULL, true) AS ordered, csv_export('none', true) AS unordered, whole_export(true) AS json;
SET LOCAL session_replication_role = replica;
INSERT INTO datavalue (dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid, value,
                       storedby, created, lastupdated, comment, followup, deleted)
SELECT dataelementid, 987654321, sourceid, categoryoptioncomboid, attributeoptioncomboid, 'no period row', storedby,
       created, lastupdated, comment, followup, false FROM datavalue WHERE NOT deleted LIMIT 1;
INSERT INTO datavalue (dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid, value,
                       storedby, created, lastupdated, comment, followup, deleted)
SELECT dataelementid, periodid, sourceid, categoryoptioncomboid, 987654321, 'no option combo row', storedby,
       created, lastupdated, comment, followup, false FROM datavalue WHERE NOT deleted LIMIT 1;
SELECT csv_export(NULL, true) = ordered AS ordered_same FROM before;
SELECT csv_export('none', true) = unordered AS unordered_same FROM before;
SELECT whole_export(true) = json AS json_same FROM before;
SET LOCAL datavalue_export.direct_heap_scan = off;
SELECT csv_export(NULL, true) = ordered AS query_same FROM before;
ROLLBACK;

-- An unordered page counts exported values, as DHIS2's joined query does: values of a period
-- whose row is gone (scattered through the heap) take no place in it, so a page of the whole
-- export's size is the whole export, and two pages split it.
CREATE FUNCTION csv_page(lim bigint, off bigint) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(c, '') FROM export_datavalues_csv(data_set => (SELECT array_agg(uid ORDER BY uid) FROM dataset),
    start_date => '1900-01-01', end_date => '2100-12-31', org_unit => '{ImspTQPwCqd}', children => true,
    "order" => 'none', "limit" => lim, "offset" => off) AS c
$$;
BEGIN;
SET LOCAL session_replication_role = replica;
DELETE FROM period WHERE periodid = (SELECT periodid FROM datavalue WHERE NOT deleted ORDER BY ctid LIMIT 1);
CREATE TEMP TABLE whole AS SELECT csv_export('none', false) AS doc;
SELECT array_length(regexp_split_to_array(rtrim(doc, E'\n'), E'\n'), 1) - 1 AS n FROM whole \gset
SELECT :n >= 7 AS has_seven, csv_page(:n, 0) = doc AS page_is_whole,
       csv_page(10, 0) || regexp_replace(csv_page(:n, 10), E'^[^\n]*\n', '') = doc AS pages_split_it,
       array_length(regexp_split_to_array(rtrim(csv_page(7, 0), E'\n'), E'\n'), 1) - 1 AS seven
FROM whole;
ROLLBACK;
