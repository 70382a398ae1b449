-- Output and input id schemes: UID, CODE, NAME, ATTRIBUTE:<uid>; fallbacks; E8200-E8203.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

-- idScheme=CODE applies to every type and adds the seven ...IdScheme header keys. Under a
-- non-UID org unit scheme an org unit shared by all values is hoisted even with children.
SELECT export_datavalues_json(data_set => '{Population0}', period => '{2023}', org_unit => '{fdc6uOvgoji}',
                              children => true, id_scheme => 'code');
-- NAME, case-insensitive; a per-type scheme wins over idScheme.
SELECT export_datavalues_json(data_element => '{cYeuwXTCPkU}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              id_scheme => 'Name', data_element_id_scheme => 'UID', org_unit_id_scheme => 'id');
-- ATTRIBUTE:<uid> reads attributevalues -> <uid> -> value.
SELECT export_datavalues_csv(data_element => '{fbfJHSPpUQD,cYeuwXTCPkU}', period => '{202401}',
                             org_unit => '{DiszpKrYNg8}', data_element_id_scheme => 'attribute:AttrDeRef01');
-- One value under a non-UID AOC scheme: DHIS2 2.43 hoists its AOC into the header.
SELECT export_datavalues_json(data_element => '{cYeuwXTCPkU}', period => '{2024Q1}', org_unit => '{ImspTQPwCqd}',
                              children => true, attribute_option_combo_id_scheme => 'CODE');

-- An empty result under non-UID org unit / AOC schemes: DHIS2 2.43 encodes identifiers from the
-- returned values only, so the requested org unit and AOC have no encoding and are left out of the
-- header (the data set and period stay). Under UID they are written as given.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{199001}', org_unit => '{O6uvpzGd5pu}',
                              attribute_option_combo => '{DonorAaoc01}', org_unit_id_scheme => 'CODE',
                              attribute_option_combo_id_scheme => 'CODE');
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{199001}', org_unit => '{O6uvpzGd5pu}',
                              attribute_option_combo => '{DonorAaoc01}', org_unit_id_scheme => 'CODE');
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{199001}', org_unit => '{O6uvpzGd5pu}',
                              attribute_option_combo => '{DonorAaoc01}');

-- Objects without the property: 2.43 refuses (E8201 data elements, E8202 org units, E8203
-- option combos, E8200 data set), naming the UIDs.
SELECT export_datavalues_json(data_set => '{MalariaWk01}', period => '{2024W1}', org_unit => '{O6uvpzGd5pu}',
                              data_element_id_scheme => 'CODE');
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              org_unit_id_scheme => 'CODE');
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              attribute_option_combo_id_scheme => 'CODE');
SELECT export_datavalues_json(data_set => '{MalariaWk01}', period => '{2024W1}', org_unit => '{O6uvpzGd5pu}',
                              data_set_id_scheme => 'CODE');
-- E8200 comes first: DHIS2 encodes the header before any value (here the data elements lack codes too).
SELECT export_datavalues_json(data_set => '{MalariaWk01}', period => '{2024W1}', org_unit => '{O6uvpzGd5pu}',
                              id_scheme => 'CODE');
-- ... but only for objects that values actually reference.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202402}', org_unit => '{YuQRtpLP10I}',
                              attribute_option_combo_id_scheme => 'CODE');
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              data_element_id_scheme => 'attribute:NoSuchAttr1');

-- A page ("limit") is checked on its own values, as DHIS2 encodes only what it returns: the
-- first and third values' org unit has a code, the second's (DiszpKrYNg8) none.
SELECT export_datavalues_csv(data_set => '{pBOMPrpg1QX,MalariaWk01,Population0}', start_date => '1900-01-01',
                             end_date => '2100-12-31', org_unit => '{ImspTQPwCqd}', children => true,
                             org_unit_id_scheme => 'CODE', "limit" => 1);
SELECT export_datavalues_csv(data_set => '{pBOMPrpg1QX,MalariaWk01,Population0}', start_date => '1900-01-01',
                             end_date => '2100-12-31', org_unit => '{ImspTQPwCqd}', children => true,
                             org_unit_id_scheme => 'CODE', "limit" => 1, "offset" => 2);
-- ERROR E8202
SELECT export_datavalues_csv(data_set => '{pBOMPrpg1QX,MalariaWk01,Population0}', start_date => '1900-01-01',
                             end_date => '2100-12-31', org_unit => '{ImspTQPwCqd}', children => true,
                             org_unit_id_scheme => 'CODE', "limit" => 2);
-- ERROR E8202: an unordered page streams as it reads, so the whole result is checked first.
SELECT export_datavalues_csv(data_set => '{pBOMPrpg1QX,MalariaWk01,Population0}', start_date => '1900-01-01',
                             end_date => '2100-12-31', org_unit => '{ImspTQPwCqd}', children => true,
                             org_unit_id_scheme => 'CODE', "limit" => 1, "order" => 'none');

-- ... and hoists into the header the org unit its own values share, and the AOC of a one-value
-- page (DHIS2 detects both on what it returns); an empty page hoists nothing.
CREATE FUNCTION page_header(lim bigint, off bigint, fmt text DEFAULT 'json') RETURNS text LANGUAGE sql AS $$
  SELECT left(string_agg(c, ''), 120) FROM export_datavalues('dataSet=pBOMPrpg1QX&dataSet=MalariaWk01'
    '&dataSet=Population0&startDate=1900-01-01&endDate=2100-12-31&orgUnit=ImspTQPwCqd&children=true'
    '&orgUnitIdScheme=CODE&attributeOptionComboIdScheme=CODE&format=' || fmt || '&limit=' || lim || '&offset=' || off) c
$$;
SELECT page_header(1, 0);
SELECT page_header(2, 2);
SELECT page_header(0, 0);
SELECT page_header(2, 2, 'xml');
DROP FUNCTION page_header(bigint, bigint, text);

-- Invalid schemes.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              id_scheme => 'uuid');
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              org_unit_id_scheme => 'ATTRIBUTE:short');

-- Input schemes: identifiers in the filters read as codes or names.
SELECT export_datavalues_csv(data_set => '{DS_ANC}', period => '{202401}', org_unit => '{OU_264}', children => true,
                             input_id_scheme => 'code');
SELECT n FROM (SELECT jsonb_array_length(export_datavalues_json(data_element => '{ANC 2nd visit}',
  period => '{202401}', org_unit => '{Sierra Leone}', children => true,
  input_data_element_id_scheme => 'NAME', input_org_unit_id_scheme => 'name')::jsonb -> 'dataValues') AS n) AS t;
SELECT jsonb_array_length(export_datavalues_json(data_element_group => '{ANC}', period => '{202401}',
  org_unit => '{ImspTQPwCqd}', children => true, input_data_element_group_id_scheme => 'CODE')::jsonb -> 'dataValues');
-- input_use_code_fallback: UIDs as UIDs, anything else as a code.
SELECT jsonb_array_length(export_datavalues_json(data_set => '{DS_ANC}', period => '{202401}',
  org_unit => '{ImspTQPwCqd,OU_264}', children => true, input_use_code_fallback => true)::jsonb -> 'dataValues');
-- Unknown identifiers are errors, naming the scheme they were read with.
SELECT export_datavalues_json(data_set => '{DS_NOPE}', period => '{202401}', org_unit => '{OU_264}',
                              input_id_scheme => 'code');
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{ImspTQPwCqe}');
-- Input schemes bind to DHIS2's enum (ID, UID, UUID, NAME, CODE, ATTRIBUTE): ATTRIBUTE binds and is refused
-- (2.43), ATTRIBUTE:<uid> does not bind.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              input_id_scheme => 'attribute:AttrDeRef01');
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              input_id_scheme => 'attribute');
