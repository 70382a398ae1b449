-- Validation in DHIS2 2.43's order (binding, decoding, then E2001..E2009), one test per error.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup
-- try(call): the SQLSTATE and message that SELECT <call> raises, or 'ok'.
CREATE FUNCTION try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE 'SELECT ' || query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- E2001: no data selection.
SELECT try($$export_datavalues_json(period => '{202401}', org_unit => '{DiszpKrYNg8}')$$);
-- E2002: no time selection (a start date alone does not count).
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2024-01-01', org_unit => '{DiszpKrYNg8}')$$);
-- E2006: no org unit selection.
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}')$$);
-- E2001 is reported before E2006 (first failure wins).
SELECT try($$export_datavalues_json(period => '{202401}')$$);
-- E2003: periods together with start/end.
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', start_date => '2024-01-01',
                              end_date => '2024-12-31', org_unit => '{DiszpKrYNg8}')$$);
-- A single date is ignored, with periods too: E2003 needs both dates (2.43 hasStartEndDate).
SELECT jsonb_array_length(export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}',
                              start_date => '2024-01-01', org_unit => '{DiszpKrYNg8}')::jsonb -> 'dataValues') > 0;
SELECT try($$export_datavalues('dataSet=pBOMPrpg1QX&period=202401&endDate=2024-12-31&orgUnit=DiszpKrYNg8')$$);
-- E2004: start after end (equal dates are fine).
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2024-02-01', end_date => '2024-01-31',
                              org_unit => '{DiszpKrYNg8}')$$);
SELECT jsonb_array_length(export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2024-01-01',
                              end_date => '2024-01-01', org_unit => '{DiszpKrYNg8}')::jsonb -> 'dataValues');
-- A query string's dates compare with their time of day (DHIS2 compares the instants).
SELECT try($$export_datavalues('dataSet=pBOMPrpg1QX&startDate=2024-01-01T12:00&endDate=2024-01-01&orgUnit=DiszpKrYNg8')$$);
SELECT try($$export_datavalues('dataSet=pBOMPrpg1QX&startDate=2024-01-01T12:00&endDate=2024-01-01T12:00&orgUnit=DiszpKrYNg8')$$);
-- E2005: invalid duration, with the value.
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', last_updated_duration => '-5d', org_unit => '{DiszpKrYNg8}')$$);
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', last_updated_duration => 'abc', org_unit => '{DiszpKrYNg8}')$$);
-- E2007: children with org unit groups.
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit_group => '{CXw2yu5fodb}',
                              children => true)$$);
-- E2009: negative limit.
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              "limit" => -1)$$);
-- Decoding comes before the filter checks: a malformed UID wins over the missing org unit.
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX,notauid}', period => '{202401}')$$);
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{1mspTQPwCqd}')$$);
-- Invalid ISO period; yyyy-MM is accepted and normalised (202401).
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{2024W53}', org_unit => '{DiszpKrYNg8}')$$);
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{2024-13}', org_unit => '{DiszpKrYNg8}')$$);
SELECT d::jsonb ->> 'period' FROM export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{2024-01}',
                                                         org_unit => '{DiszpKrYNg8}') AS d;
-- Options with a fixed vocabulary.
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              compression => 'brotli')$$);
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              compression => 'zip', compression_level => 0)$$);
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              compression_level => 6)$$);
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              compression => 'gzip', compression_level => 10)$$);
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              "order" => 'DE,SIZE')$$);
-- A zip entry name longer than its 16-bit length field (attachment + ".json"): refused before any output. At 65,535
-- bytes the name passes, and the plain SELECT is refused for compression instead.
SELECT try($$export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&compression=zip&attachment='
                               || repeat('x', 65531))$$);
SELECT try($$export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&compression=zip&attachment='
                               || repeat('x', 65530))$$);
-- NULL elements in identifier lists: the message names the list.
SELECT try($$export_datavalues_json(data_set => ARRAY['pBOMPrpg1QX', NULL], period => '{202401}',
                              org_unit => '{DiszpKrYNg8}')$$);
SELECT try($$export_datavalues_csv(data_set => '{pBOMPrpg1QX}', period => '{202401}',
                             org_unit => '{DiszpKrYNg8}', org_unit_group => ARRAY[NULL])$$);
-- A malformed UID: DHIS2's message, and a detail that names the parameter (an empty one is called empty).
CREATE FUNCTION try_detail(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	detail text;
BEGIN
	EXECUTE 'SELECT ' || query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || ' | ' || detail;
END $$;
SELECT try_detail($$export_datavalues_json(data_set => '{""}', period => '{202401}', org_unit => '{DiszpKrYNg8}')$$);
SELECT try_detail($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}',
                                     org_unit => ARRAY['DiszpKrYNg8', 'short'])$$);
SELECT try_detail($$export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&attributeCombo=bad')$$);
DROP FUNCTION try_detail(text);
-- Infinite dates and timestamps: the message names the SQL parameter (from the parameter table).
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => 'infinity', end_date => '2024-12-31',
                              org_unit => '{DiszpKrYNg8}')$$);
SELECT try($$export_datavalues_csv(data_set => '{pBOMPrpg1QX}', start_date => '2024-01-01', end_date => '-infinity',
                             org_unit => '{DiszpKrYNg8}')$$);
SELECT try($$export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              last_updated => 'infinity')$$);

-- inputUseCodeFallback reads a non-UID as a code only where no input scheme was given (2.43
-- decodeParams): with inputIdScheme=UID, or the kind's own UID scheme, the value must be a UID.
SELECT try($$export_datavalues('dataSet=DS_ANC&period=202401&orgUnit=DiszpKrYNg8&inputUseCodeFallback=true')$$);
SELECT try($$export_datavalues('dataSet=DS_ANC&period=202401&orgUnit=DiszpKrYNg8&inputUseCodeFallback=true&inputIdScheme=UID')$$);
SELECT try($$export_datavalues('dataSet=DS_ANC&period=202401&orgUnit=DiszpKrYNg8&inputUseCodeFallback=true&inputDataSetIdScheme=uid')$$);
-- Another kind's scheme leaves the data set's fallback alone.
SELECT try($$export_datavalues('dataSet=DS_ANC&period=202401&orgUnit=DiszpKrYNg8&inputUseCodeFallback=true&inputOrgUnitIdScheme=UID')$$);
-- E2040: attributeCombo without attributeOptions (2.42's error; 2.43 ignores the combo).
SELECT try($$export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&attributeCombo=FundCombo01')$$);
-- attributeOptionCombo names the combos itself: attributeCombo + attributeOptions are then not used.
SELECT count(*) FILTER (WHERE v ->> 'attributeOptionCombo' IS NULL) AS rows_without_aoc,
       (SELECT d::jsonb ->> 'attributeOptionCombo' FROM export_datavalues('dataSet=pBOMPrpg1QX&startDate=2000-01-01&endDate=2030-12-31&orgUnit=ImspTQPwCqd&children=true&attributeOptionCombo=HllvX50cXC0&attributeCombo=FundCombo01&attributeOptions=DonorBopt01') d) AS header_aoc
FROM export_datavalues('dataSet=pBOMPrpg1QX&startDate=2000-01-01&endDate=2030-12-31&orgUnit=ImspTQPwCqd&children=true&attributeOptionCombo=HllvX50cXC0&attributeCombo=FundCombo01&attributeOptions=DonorBopt01') d,
     jsonb_array_elements(d::jsonb -> 'dataValues') v;

-- No schema on the search_path holds DHIS2's tables (pg_restore refreshes a materialized view with an
-- empty one): the error names the path it searched.
SET search_path = '';
SELECT public.export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}');
-- A schema earlier on the path with only a datavalue of its own (a per-role view) is passed over.
CREATE SCHEMA regress_partial;
CREATE VIEW regress_partial.datavalue AS SELECT * FROM regress_dhis2.datavalue WHERE false;
SET search_path = regress_partial, regress_dhis2, public;
SELECT jsonb_array_length(export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}',
                                                 org_unit => '{DiszpKrYNg8}')::jsonb -> 'dataValues') AS "values";
DROP SCHEMA regress_partial CASCADE;
SET search_path = regress_dhis2, public;
