-- DHIS2 2.43 JSON shape: header hoisting, members left out, escaping, order, empty result.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

-- One data set, one period, one org unit: all three hoisted; per-value period and orgUnit dropped.
-- Order: created, then data element uid. Texts: storedBy/comment '' and NULL left out, NULL
-- followup left out, value kept as given ("  9 "), control characters escaped as Jackson does.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}');

-- With children the org unit is not hoisted; two periods: no period header.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401,202402}',
                              org_unit => '{O6uvpzGd5pu}', children => true);

-- Two data sets: no dataSet header. Start/end containment picks periods inside the range only
-- (2024Q1 and 2024W1 are inside January..March; 2024Nov, 2020BiW27 and 2023 are not).
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX,MalariaWk01}', start_date => '2024-01-01',
                              end_date => '2024-03-31', org_unit => '{ImspTQPwCqd}', children => true);

-- One attribute option combo requested: hoisted, and left out of every value.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              attribute_option_combo => '{DonorAaoc01}');

-- One org unit or AOC named twice, by UID and by code: DHIS2 decodes both names into its list without
-- removing the duplicate, so neither is hoisted (as two names of one data set give no dataSet header).
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202402&orgUnit=YuQRtpLP10I,OU_539&inputUseCodeFallback=true');
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8'
                         '&attributeOptionCombo=DonorAaoc01,AOC_A&inputUseCodeFallback=true');

-- excludeDefaultCoc / excludeDefaultAoc drop the default combo from values.
SELECT export_datavalues_json(data_element => '{cYeuwXTCPkU}', period => '{202401,2024Q1}',
                              org_unit => '{ImspTQPwCqd}', children => true,
                              exclude_default_coc => true, exclude_default_aoc => true);

-- Deleted rows only with include_deleted, marked "deleted":true.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202402}', org_unit => '{YuQRtpLP10I}',
                              include_deleted => true);

-- Timestamps: milliseconds truncated, years before 2000 as four digits.
SELECT export_datavalues_json(data_set => '{Population0}', period => '{2023}', org_unit => '{DiszpKrYNg8}');

-- Nothing matches: an empty document, still with its header.
SELECT export_datavalues_json(data_set => '{EmptySet001}', period => '{202401}', org_unit => '{DiszpKrYNg8}');
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202312}', org_unit => '{fdc6uOvgoji}');

-- The result parses as JSON, and control characters are escaped (no raw byte below 0x20).
SELECT (d::jsonb -> 'dataValues' -> 1 ->> 'value') = E'a"b\\c\x01\x1f\x7f\b\f\n\r\t/ é 中 😀 ' || U&'\2028' AS value_round_trips,
       d ~ '[\x01-\x1f]' AS has_raw_control_characters
FROM export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}') AS d;

-- order => 'none' gives the same values (any order).
SELECT count(*) FROM (
  SELECT jsonb_array_elements(d::jsonb -> 'dataValues') FROM export_datavalues_json(data_set => '{pBOMPrpg1QX}',
    start_date => '2024-01-01', end_date => '2024-12-31', org_unit => '{ImspTQPwCqd}', children => true) AS d
  EXCEPT
  SELECT jsonb_array_elements(d::jsonb -> 'dataValues') FROM export_datavalues_json(data_set => '{pBOMPrpg1QX}',
    start_date => '2024-01-01', end_date => '2024-12-31', org_unit => '{ImspTQPwCqd}', children => true,
    "order" => 'none') AS d) AS missing;

-- Other orders: by org unit path, then created; by attribute option combo uid.
SELECT jsonb_path_query_array(d::jsonb, '$.dataValues[*].orgUnit')
FROM export_datavalues_json(data_set => '{pBOMPrpg1QX,MalariaWk01}', start_date => '2024-01-01',
                            end_date => '2024-03-31', org_unit => '{ImspTQPwCqd}', children => true,
                            "order" => 'OU,CREATED') AS d;
SELECT jsonb_path_query_array(d::jsonb, '$.dataValues[*].attributeOptionCombo')
FROM export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                            "order" => 'aoc, de') AS d;

-- limit and offset apply after ordering.
SELECT jsonb_path_query_array(d::jsonb, '$.dataValues[*].created')
FROM export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                            "limit" => 2, "offset" => 1) AS d;
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              "limit" => 0);
