-- ADX (export_datavalues_adx, format=adx): groups, category attributes, periods, annotations, errors.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

-- The whole document of an ADX export, its exported time (the transaction start) masked.
CREATE FUNCTION adx(doc text) RETURNS text LANGUAGE sql AS
$$ SELECT regexp_replace(doc, ' exported="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"', ' exported="…"') $$;

-- UID schemes. Groups by (period, org unit, AOC); the AOC's category FundCat0001 on <group>, the
-- default combo as its own category pair (default category GLevLNI9wkl, option xYerKDKCefk).
-- MaleCoc0001's combo has no categories: no attributes. The hostile value holds U+0001: refused.
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{pBOMPrpg1QX}', period => '{202401,202402}',
       org_unit => '{ImspTQPwCqd}', children => true, id_scheme => 'UID', attribute_option_combo => '{DonorAaoc01}') c;
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{pBOMPrpg1QX}', period => '{202401,202402}',
       org_unit => '{ImspTQPwCqd}', children => true, id_scheme => 'UID', attribute_option_combo => '{DonorAaoc01}',
       include_deleted => true, exclude_default_aoc => true) c;
-- ERROR: U+0001 cannot be written in XML (DHIS2 truncates the document there).
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{pBOMPrpg1QX}', period => '{202401}',
       org_unit => '{DiszpKrYNg8}', id_scheme => 'UID') c;

-- Text values go into <annotation> with value="0"; weekly, bi-weekly (week 53) and FinancialNov
-- periods in ADX notation (start date / duration).
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{MalariaWk01}', start_date => '2020-01-01',
       end_date => '2025-12-31', org_unit => '{ImspTQPwCqd}', children => true, id_scheme => 'UID') c;

-- Category names by code, option values by name; a yearly population value.
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{Population0}', period => '{2023}',
       org_unit => '{ImspTQPwCqd}', children => true, id_scheme => 'UID', category_id_scheme => 'CODE',
       category_option_id_scheme => 'NAME') c;

-- The query string: format=adx+xml (sent as adx%2Bxml) and format=adx; categoryIdScheme is real for ADX.
SELECT adx(string_agg(c, '')) FROM export_datavalues(
       'dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&idScheme=UID&categoryIdScheme=CODE&format=adx%2Bxml'
       '&attributeOptionCombo=DonorAaoc01') c;
SELECT adx(string_agg(c, '')) FROM export_datavalues('dataSet=DS_POP&period=2023&orgUnit=ImspTQPwCqd&children=true'
       '&idScheme=UID&format=adx') c;
-- unfoldOptionCombos=true is ADX's own default shape; false (combo ids) is refused.
SELECT adx(string_agg(c, '')) FROM export_datavalues('dataSet=DS_POP&period=2023&orgUnit=OU_193190'
       '&idScheme=UID&format=adx&unfoldOptionCombos=true') c;
-- ERROR
SELECT export_datavalues('dataSet=DS_POP&period=2023&orgUnit=OU_193190&idScheme=UID&format=adx&unfoldOptionCombos=false');
-- ERROR: JSON and CSV refuse the category schemes.
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&categoryIdScheme=CODE');

-- A page ("limit", "offset": per data set) closes its last group, as the whole export does; each
-- data set's page is a well-formed part of one well-formed document.
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{pBOMPrpg1QX}', period => '{202401,202402}',
       org_unit => '{ImspTQPwCqd}', children => true, id_scheme => 'UID', attribute_option_combo => '{DonorAaoc01}',
       "limit" => 2, "offset" => 1) c;
SELECT xml_is_well_formed_document(string_agg(c, '')) AS well_formed,
       (length(string_agg(c, '')) - length(replace(string_agg(c, ''), '</group>', ''))) / length('</group>') AS closed,
       (length(string_agg(c, '')) - length(replace(string_agg(c, ''), '<group ', ''))) / length('<group ') AS opened
  FROM export_datavalues_adx(data_set => '{MalariaWk01,Population0}', start_date => '2020-01-01',
       end_date => '2025-12-31', org_unit => '{ImspTQPwCqd}', children => true, id_scheme => 'UID', "limit" => 2) c;
SELECT adx(string_agg(c, '')) FROM export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8'
       '&idScheme=UID&format=adx&attributeOptionCombo=DonorAaoc01&limit=1') c;

-- A data set named twice, by its UID and by its code, is exported once.
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{pBOMPrpg1QX,DS_ANC}', period => '{202401}',
       org_unit => '{DiszpKrYNg8}', id_scheme => 'UID', attribute_option_combo => '{DonorAaoc01}') c;

-- Empty result: the root alone.
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{EmptySet001}', period => '{202401}',
       org_unit => '{ImspTQPwCqd}') c;

-- CODE is the default scheme. ERROR E8200: a data set without a code.
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{MalariaWk01}', period => '{2024W1}',
       org_unit => '{ImspTQPwCqd}', children => true) c;
-- ERROR E8202: org units without a code (data set, data elements by code).
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{DS_POP}', period => '{2023}',
       org_unit => '{ImspTQPwCqd}', children => true) c;
-- ERROR E8204: no option has a value for the attribute scheme.
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{DS_POP}', period => '{2023}',
       org_unit => '{ImspTQPwCqd}', children => true, id_scheme => 'UID',
       category_option_id_scheme => 'ATTRIBUTE:AttrDeRef01') c;
-- 2.42 writes no category attributes for the default combo and leaves out missing ids instead of refusing.
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{DS_POP}', period => '{2023}',
       org_unit => '{ImspTQPwCqd}', children => true, style => '2.42') c;

-- 2.42 never looks up the default combo's ids: a default category and option without a code do not
-- stop it (E8204 in 2.43, which writes the default pair).
BEGIN;
UPDATE category SET code = NULL WHERE uid = 'GLevLNI9wkl';
UPDATE categoryoption SET code = NULL WHERE uid = 'xYerKDKCefk';
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{pBOMPrpg1QX}', period => '{202402}',
       org_unit => '{ImspTQPwCqd}', children => true, style => '2.42') c;
SAVEPOINT s;
-- ERROR E8204
SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{pBOMPrpg1QX}', period => '{202402}',
       org_unit => '{ImspTQPwCqd}', children => true) c;
ROLLBACK;

-- A combo of two categories: two attributes. An option code that is an empty string is written
-- as it is by 2.43 and refused by 2.42 ("null or empty"); two categories with the same id would
-- write one attribute twice, which is not XML: refused in both shapes.
BEGIN;
INSERT INTO categorycombos_categories (categorycomboid, categoryid, sort_order)
  SELECT cc.categorycomboid, c.categoryid, 2 FROM categorycombo cc, category c
  WHERE cc.uid = 'FundCombo01' AND c.uid = 'GLevLNI9wkl';
INSERT INTO categoryoptioncombos_categoryoptions (categoryoptioncomboid, categoryoptionid)
  SELECT coc.categoryoptioncomboid, co.categoryoptionid FROM categoryoptioncombo coc, categoryoption co
  WHERE coc.uid = 'DonorAaoc01' AND co.uid = 'xYerKDKCefk';
CREATE FUNCTION two_categories(style text) RETURNS text LANGUAGE sql AS $$
  SELECT adx(string_agg(c, '')) FROM export_datavalues_adx(data_set => '{pBOMPrpg1QX}', period => '{202401,202402}',
         org_unit => '{ImspTQPwCqd}', children => true, attribute_option_combo => '{DonorAaoc01}',
         id_scheme => 'UID', category_id_scheme => 'ATTRIBUTE:AttrDeRef01', category_option_id_scheme => 'CODE',
         style => style) c $$;
UPDATE category SET attributevalues = '{"AttrDeRef01": {"value": "Fund"}}' WHERE uid = 'FundCat0001';
UPDATE category SET attributevalues = '{"AttrDeRef01": {"value": "Default"}}' WHERE uid = 'GLevLNI9wkl';
SELECT two_categories('2.43');
SAVEPOINT s;
UPDATE category SET attributevalues = '{"AttrDeRef01": {"value": "Fund"}}' WHERE uid = 'GLevLNI9wkl';
-- ERROR: the same attribute twice
SELECT two_categories('2.43');
ROLLBACK TO s;
UPDATE category SET attributevalues = '{"AttrDeRef01": {"value": "Fund"}}' WHERE uid = 'GLevLNI9wkl';
-- ERROR: the same attribute twice
SELECT two_categories('2.42');
ROLLBACK TO s;
UPDATE categoryoption SET code = '' WHERE uid = 'DonorAopt01';
SELECT two_categories('2.43');
-- ERROR: an option without an id (2.42)
SELECT two_categories('2.42');
ROLLBACK;

-- Cleanup
DROP FUNCTION adx(text);
