-- Every filter, checked by counting exported values against an independent SQL query.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

-- n(doc): number of values in a JSON export.
CREATE FUNCTION n(doc text) RETURNS bigint LANGUAGE sql AS $$ SELECT jsonb_array_length(doc::jsonb -> 'dataValues') $$;
-- ref: DHIS2 2.43's query semantics over the fixture, written as plain SQL (doc §3.2).
CREATE VIEW ref AS
SELECT de.uid AS de, pe.iso AS pe, pe.startdate, pe.enddate, ou.uid AS ou, ou.path, ou.hierarchylevel,
       coc.uid AS coc, aoc.uid AS aoc, dv.lastupdated, dv.deleted, dv.dataelementid, dv.sourceid
FROM datavalue dv
JOIN dataelement de ON de.dataelementid = dv.dataelementid
JOIN period pe ON pe.periodid = dv.periodid
JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid
JOIN categoryoptioncombo coc ON coc.categoryoptioncomboid = dv.categoryoptioncomboid
JOIN categoryoptioncombo aoc ON aoc.categoryoptioncomboid = dv.attributeoptioncomboid;
CREATE VIEW anc AS SELECT dataelementid FROM datasetelement WHERE datasetid = 51;

-- data_set = the data set's data elements; period list; org unit with children (path prefix).
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401,202402}',
                                org_unit => '{ImspTQPwCqd}', children => true)) AS exported,
       (SELECT count(*) FROM ref WHERE dataelementid IN (SELECT * FROM anc) AND pe IN ('202401', '202402')
          AND path LIKE '/ImspTQPwCqd%' AND NOT deleted) AS expected;
-- Without children only the org unit itself.
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401,202402}',
                                org_unit => '{YuQRtpLP10I}')) AS exported,
       (SELECT count(*) FROM ref WHERE dataelementid IN (SELECT * FROM anc) AND pe IN ('202401', '202402')
          AND ou = 'YuQRtpLP10I' AND NOT deleted) AS expected;
-- start/end: containment (startdate >= start AND enddate <= end), not overlap.
SELECT n(export_datavalues_json(data_set => '{MalariaWk01,Population0}', start_date => '2020-12-28',
                                end_date => '2024-10-31', org_unit => '{ImspTQPwCqd}', children => true)) AS exported,
       (SELECT count(*) FROM ref WHERE dataelementid IN (46, 47) AND startdate >= '2020-12-28'
          AND enddate <= '2024-10-31' AND NOT deleted) AS expected;
-- data_element and data_element_group are OR-ed with data_set (union, no duplicates).
SELECT n(export_datavalues_json(data_element => '{Malaria0001}', data_element_group => '{AncGroup001}',
                                data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                                org_unit => '{ImspTQPwCqd}', children => true)) AS exported,
       (SELECT count(*) FROM ref WHERE dataelementid IN (44, 45, 46) AND NOT deleted) AS expected;
-- org_unit_group, OR-ed with org_unit, without duplicates.
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX,MalariaWk01,Population0}', start_date => '2000-01-01',
                                end_date => '2030-12-31', org_unit_group => '{CXw2yu5fodb}',
                                org_unit => '{DiszpKrYNg8,O6uvpzGd5pu}')) AS exported,
       (SELECT count(*) FROM ref WHERE sourceid IN (22, 24, 25) AND NOT deleted) AS expected;
-- level narrows the org units (children of the root at level 4 only).
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX,MalariaWk01,Population0}', start_date => '2000-01-01',
                                end_date => '2030-12-31', org_unit => '{ImspTQPwCqd}', children => true,
                                level => 4)) AS exported,
       (SELECT count(*) FROM ref WHERE hierarchylevel = 4 AND NOT deleted) AS expected;
-- A single org unit that level leaves out of the rows is still the header's (2.43 takes it from the
-- request); XML too.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{ImspTQPwCqd}',
                              level => 2);
SELECT export_datavalues_xml(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{ImspTQPwCqd}',
                             level => 2);
-- include_deleted adds the deleted rows.
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                                org_unit => '{ImspTQPwCqd}', children => true, include_deleted => true)) AS exported,
       (SELECT count(*) FROM ref WHERE dataelementid IN (SELECT * FROM anc)) AS expected;
-- last_updated: lastupdated >= the cutoff; alone it is a valid time selection (no period filter).
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX,MalariaWk01,Population0}',
                                last_updated => '2024-02-03 10:11:12.999999', org_unit => '{ImspTQPwCqd}',
                                children => true)) AS exported,
       (SELECT count(*) FROM ref WHERE lastupdated >= '2024-02-03 10:11:12.999999' AND NOT deleted) AS expected;
-- last_updated_duration: now() minus the duration; 100000d reaches back before every value.
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', last_updated_duration => '100000d',
                                org_unit => '{ImspTQPwCqd}', children => true)) AS exported,
       (SELECT count(*) FROM ref WHERE dataelementid IN (SELECT * FROM anc) AND NOT deleted) AS expected;
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', last_updated_duration => '1h',
                                org_unit => '{ImspTQPwCqd}', children => true)) AS exported_last_hour;
-- The cutoff is the transaction start in UTC, whatever the session's TimeZone (stored timestamps are
-- read as UTC wall time): a value updated 30 minutes ago (UTC) is in the last hour, one 3 hours ago is not.
BEGIN;
UPDATE datavalue SET lastupdated = (now() AT TIME ZONE 'UTC') - interval '30 minutes'
WHERE ctid = (SELECT ctid FROM datavalue WHERE dataelementid IN (SELECT * FROM anc) AND NOT deleted
              ORDER BY dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid LIMIT 1);
UPDATE datavalue SET lastupdated = (now() AT TIME ZONE 'UTC') - interval '3 hours'
WHERE ctid = (SELECT ctid FROM datavalue WHERE dataelementid IN (SELECT * FROM anc) AND NOT deleted
              ORDER BY dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid
              OFFSET 1 LIMIT 1);
SET LOCAL timezone = 'Asia/Tokyo';
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', last_updated_duration => '1h',
                                org_unit => '{ImspTQPwCqd}', children => true)) AS last_hour_tokyo;
SET LOCAL timezone = 'America/New_York';
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', last_updated_duration => '1h',
                                org_unit => '{ImspTQPwCqd}', children => true)) AS last_hour_new_york;
SELECT n(export_datavalues('dataSet=pBOMPrpg1QX&lastUpdatedDuration=4h&orgUnit=ImspTQPwCqd&children=true'))
       AS last_4_hours_new_york;
ROLLBACK;
-- children: a root is in its subtree through its own path only; one whose path is NULL (data DHIS2's
-- invariants forbid) matches nothing, itself included, as in DHIS2's join. Without children it is itself.
BEGIN;
UPDATE organisationunit SET path = NULL WHERE uid = 'DiszpKrYNg8';
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                                org_unit => '{DiszpKrYNg8}', children => true)) AS null_path_with_children,
       n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                                org_unit => '{DiszpKrYNg8}')) AS null_path_alone,
       (SELECT count(*) FROM ref WHERE dataelementid IN (SELECT * FROM anc) AND ou = 'DiszpKrYNg8'
          AND NOT deleted) AS expected_alone;
ROLLBACK;
-- attribute_option_combo and category_option_combo.
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                                org_unit => '{ImspTQPwCqd}', children => true,
                                attribute_option_combo => '{DonorAaoc01}')) AS exported,
       (SELECT count(*) FROM ref WHERE aoc = 'DonorAaoc01' AND NOT deleted) AS expected;
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                                org_unit => '{ImspTQPwCqd}', children => true,
                                category_option_combo => '{MaleCoc0001,HllvX50cXC0}')) AS exported,
       (SELECT count(*) FROM ref WHERE dataelementid IN (SELECT * FROM anc) AND coc IN ('MaleCoc0001', 'HllvX50cXC0')
          AND NOT deleted) AS expected;
-- attribute_combo + attribute_options name one AOC (by its category options).
SELECT jsonb_path_query_array(d::jsonb, '$.attributeOptionCombo'), n(d)
FROM export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                            org_unit => '{ImspTQPwCqd}', children => true, attribute_combo => 'FundCombo01',
                            attribute_options => '{DonorBopt01}') AS d;
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                                org_unit => '{ImspTQPwCqd}', children => true, attribute_combo => 'FundCombo01',
                                attribute_options => '{DonorAopt01,DonorBopt01}'));
-- 2.42's codes for the pair: an unknown combo is E1110, an unknown option E1111 (the first one), and known ones
-- that make no AOC of the combo E2041 (as above).
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{ImspTQPwCqd}',
                                attribute_combo => 'NoCombo0001', attribute_options => '{NoOption001}'));
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{ImspTQPwCqd}',
                                attribute_combo => 'FundCombo01', attribute_options => '{DonorAopt01,NoOption001,NoOption002}'));
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{ImspTQPwCqd}',
                                attribute_combo => 'FundCombo01', attribute_options => '{xYerKDKCefk}'));
-- limit / offset: counts after paging; negative offset is taken as its absolute value.
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                                org_unit => '{ImspTQPwCqd}', children => true, "limit" => 3)) AS limited,
       n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                                org_unit => '{ImspTQPwCqd}', children => true, "offset" => -4)) AS offset_4,
       n(export_datavalues_json(data_set => '{pBOMPrpg1QX}', start_date => '2000-01-01', end_date => '2030-12-31',
                                org_unit => '{ImspTQPwCqd}', children => true, "order" => 'none',
                                "limit" => 3)) AS unordered_limited;
-- Duplicate identifiers in a list count once.
SELECT n(export_datavalues_json(data_set => '{pBOMPrpg1QX,pBOMPrpg1QX}', period => '{202401,2024-01}',
                                org_unit => '{DiszpKrYNg8,DiszpKrYNg8}')) AS exported;
