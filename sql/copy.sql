-- Inside COPY (...) TO STDOUT the export writes the document itself: the exact bytes, with no
-- COPY escaping and no rows of its own. Other COPY forms are refused.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

-- JSON: backslashes, tabs and newlines inside the document arrive as written (COPY's text
-- format would have doubled the backslashes and escaped the newline).
COPY (SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                                    attribute_option_combo => '{DonorBaoc01}')) TO STDOUT;
\echo
-- CSV, through the FROM-clause form and under COPY's own CSV format option (ignored: the bytes are ours).
COPY (SELECT * FROM export_datavalues_csv(data_set => '{pBOMPrpg1QX}', period => '{202402}',
                                          org_unit => '{YuQRtpLP10I}', include_deleted => true)) TO STDOUT (FORMAT csv);
-- Same bytes as the plain SELECT, which returns them as text.
COPY (SELECT export_datavalues_json(data_set => '{MalariaWk01}', period => '{2024W1}', org_unit => '{O6uvpzGd5pu}'))
  TO STDOUT;
\echo
SELECT export_datavalues_json(data_set => '{MalariaWk01}', period => '{2024W1}', org_unit => '{O6uvpzGd5pu}');

-- Forms that cannot carry the document.
COPY (SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}'))
  TO STDOUT (FORMAT binary);
-- (Refused before COPY sends its header line, by the library's ProcessUtility hook: no line shows up.)
COPY (SELECT export_datavalues_csv(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}'))
  TO STDOUT (FORMAT csv, HEADER);
-- gzip needs COPY; a plain SELECT is refused before anything is read.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              compression => 'gzip');
-- A COPY FROM's trigger is a plain call, not a COPY of the export: the plain-query DETAIL.
CREATE TABLE regress_copy_from (id int);
CREATE FUNCTION regress_copy_from_export() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM * FROM export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                                        compression => 'gzip');
  RETURN NEW;
END $$;
CREATE TRIGGER regress_copy_from_export BEFORE INSERT ON regress_copy_from
  FOR EACH ROW EXECUTE FUNCTION regress_copy_from_export();
COPY regress_copy_from FROM STDIN;
1
\.
DROP TABLE regress_copy_from;
DROP FUNCTION regress_copy_from_export();
-- So is a COPY whose query is more than the bare call; its DETAIL says so.
COPY (SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                                    compression => 'gzip') FROM generate_series(1, 2)) TO '/dev/null';

-- Server-side targets (superuser here; test/integration/test_server_targets.py covers the
-- privileges): a device is written directly, the command tag counts the values.
COPY (SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}'))
  TO '/dev/null';
COPY (SELECT export_datavalues_csv(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}'))
  TO PROGRAM 'wc -c > /dev/null';
COPY (SELECT export_datavalues_csv(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}'))
  TO PROGRAM 'exit 3';

-- Another client encoding: text is converted like native COPY, and a character the
-- encoding lacks is the same error native COPY gives.
SET client_encoding = 'LATIN1';
COPY (SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                                    attribute_option_combo => '{DonorBaoc01}')) TO STDOUT;
COPY (SELECT E'\u4e2d') TO STDOUT;
RESET client_encoding;

-- Only a COPY of the bare call streams; any other query over the function gets its rows.
COPY (SELECT count(*) FROM export_datavalues_json(data_set => '{MalariaWk01}', period => '{2024W1}',
                                                  org_unit => '{O6uvpzGd5pu}') AS c) TO STDOUT;
COPY (SELECT length(c) FROM export_datavalues_csv(data_set => '{MalariaWk01}', period => '{2024W1}',
                                                  org_unit => '{O6uvpzGd5pu}') AS c) TO STDOUT;
COPY (SELECT c FROM export_datavalues_csv(data_set => '{MalariaWk01}', period => '{2024W1}',
                                          org_unit => '{O6uvpzGd5pu}') AS c) TO STDOUT;

-- A same-named wrapper in another schema that uses the export inside a COPY does not get the
-- stream handed to the inner call: the COPY carries the wrapper's rows.
CREATE SCHEMA regress_wrap;
CREATE FUNCTION regress_wrap.export_datavalues_csv(org_unit text[]) RETURNS SETOF text LANGUAGE sql AS $$
  SELECT upper(c) FROM public.export_datavalues_csv(data_set => '{MalariaWk01}', period => '{2024W1}',
                                                    org_unit => org_unit) AS c $$;
COPY (SELECT regress_wrap.export_datavalues_csv('{O6uvpzGd5pu}')) TO STDOUT;
DROP SCHEMA regress_wrap CASCADE;
