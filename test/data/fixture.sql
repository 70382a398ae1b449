-- test/data/fixture.sql
--   A small, hand-checkable DHIS2 2.43 database for the pg_regress suite.
--
-- Loaded at the top of every test file into its own schema, regress_dhis2 (the export reads
-- the DHIS2 tables through search_path), on the DDL of demo/schema.sql. Every row is chosen to
-- pin one rule: hoisting, nulls, escaping, CSV quoting, period types, id schemes, deleted rows.
-- Ids: periods 1x, org units 2x, option combos 3x, data elements 4x, data sets 5x.
\set QUIET on
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS regress_dhis2 CASCADE;
CREATE SCHEMA regress_dhis2;
SET search_path = regress_dhis2, public;
SET timezone = 'UTC';
\ir ../../demo/schema.sql
RESET client_min_messages;

INSERT INTO periodtype (periodtypeid, name) VALUES
  (1, 'Monthly'), (2, 'Weekly'), (3, 'Quarterly'), (4, 'BiWeekly'), (5, 'FinancialNov'), (6, 'Yearly');
INSERT INTO period (periodid, periodtypeid, startdate, enddate, iso) VALUES
  (11, 1, '2024-01-01', '2024-01-31', '202401'),
  (12, 1, '2024-02-01', '2024-02-29', '202402'),
  (13, 2, '2024-01-01', '2024-01-07', '2024W1'),
  (14, 3, '2024-01-01', '2024-03-31', '2024Q1'),
  (15, 4, '2020-12-28', '2021-01-10', '2020BiW27'),
  (16, 5, '2023-11-01', '2024-10-31', '2024Nov'),
  (17, 6, '2023-01-01', '2023-12-31', '2023');

INSERT INTO organisationunit (organisationunitid, uid, code, created, lastupdated, name, shortname, parentid, path,
                              hierarchylevel, openingdate, attributevalues) VALUES
  (21, 'ImspTQPwCqd', 'OU_525', now(), now(), 'Sierra Leone', 'Sierra Leone', NULL, '/ImspTQPwCqd', 1, '1970-01-01', '{}'),
  (22, 'O6uvpzGd5pu', 'OU_264', now(), now(), 'Bo', 'Bo', 21, '/ImspTQPwCqd/O6uvpzGd5pu', 2, '1970-01-01',
   '{"AttrOuRef01": {"value": "bo-ref"}}'),
  (23, 'YuQRtpLP10I', 'OU_539', now(), now(), 'Badjia', 'Badjia', 22, '/ImspTQPwCqd/O6uvpzGd5pu/YuQRtpLP10I', 3,
   '1970-01-01', '{}'),
  (24, 'DiszpKrYNg8', NULL, now(), now(), 'Ngelehun CHC', 'Ngelehun CHC', 23,
   '/ImspTQPwCqd/O6uvpzGd5pu/YuQRtpLP10I/DiszpKrYNg8', 4, '1970-01-01', '{}'),
  (25, 'fdc6uOvgoji', 'OU_193190', now(), now(), 'Bombali', 'Bombali', 21, '/ImspTQPwCqd/fdc6uOvgoji', 2,
   '1970-01-01', '{}');
INSERT INTO orgunitgroup (orgunitgroupid, uid, code, created, lastupdated, name, shortname) VALUES
  (26, 'CXw2yu5fodb', 'CHC', now(), now(), 'CHC', 'CHC');
INSERT INTO orgunitgroupmembers (organisationunitid, orgunitgroupid) VALUES (24, 26), (25, 26);

-- Category model: default, a Sex disaggregation, a Funding attribute combo.
INSERT INTO categorycombo (categorycomboid, uid, code, created, lastupdated, name, datadimensiontype, skiptotal) VALUES
  (31, 'bjDvmb4bfuf', 'default', now(), now(), 'default', 'DISAGGREGATION', false),
  (32, 'SexCombo001', 'SEX', now(), now(), 'Sex', 'DISAGGREGATION', false),
  (33, 'FundCombo01', 'FUNDING', now(), now(), 'Funding', 'ATTRIBUTE', false);
INSERT INTO category (categoryid, uid, code, created, lastupdated, name, shortname, datadimensiontype, datadimension) VALUES
  (34, 'GLevLNI9wkl', 'default', now(), now(), 'default', 'default', 'DISAGGREGATION', false),
  (35, 'FundCat0001', 'FUND', now(), now(), 'Funding source', 'Funding source', 'ATTRIBUTE', false);
INSERT INTO categoryoption (categoryoptionid, uid, code, created, lastupdated, name, shortname) VALUES
  (36, 'xYerKDKCefk', 'default', now(), now(), 'default', 'default'),
  (37, 'DonorAopt01', 'DONOR_A', now(), now(), 'Donor A', 'Donor A'),
  (38, 'DonorBopt01', 'DONOR_B', now(), now(), 'Donor B', 'Donor B');
INSERT INTO categoryoptioncombo (categoryoptioncomboid, uid, code, created, lastupdated, name, attributevalues) VALUES
  (30, 'HllvX50cXC0', 'default', now(), now(), 'default', '{}'),
  (39, 'MaleCoc0001', 'MALE', now(), now(), 'Male', '{}'),
  (40, 'FemaleCoc01', 'FEMALE', now(), now(), 'Female', '{}'),
  (41, 'DonorAaoc01', 'AOC_A', now(), now(), 'Donor A', '{}'),
  (42, 'DonorBaoc01', NULL, now(), now(), 'Donor B', '{}');
INSERT INTO categorycombos_optioncombos (categoryoptioncomboid, categorycomboid) VALUES
  (30, 31), (39, 32), (40, 32), (41, 33), (42, 33);
INSERT INTO categorycombos_categories (categorycomboid, sort_order, categoryid) VALUES (31, 1, 34), (33, 1, 35);
INSERT INTO categories_categoryoptions (categoryid, sort_order, categoryoptionid) VALUES (34, 1, 36), (35, 1, 37), (35, 2, 38);
INSERT INTO categoryoptioncombos_categoryoptions (categoryoptioncomboid, categoryoptionid) VALUES
  (30, 36), (41, 37), (42, 38);

INSERT INTO attribute (attributeid, uid, code, created, lastupdated, name, valuetype, mandatory, objecttypes) VALUES
  (43, 'AttrDeRef01', 'DE_REF', now(), now(), 'DE reference', 'TEXT', false, '["DATA_ELEMENT"]');
INSERT INTO dataelement (dataelementid, uid, code, created, lastupdated, name, shortname, valuetype, domaintype,
                         aggregationtype, categorycomboid, zeroissignificant, attributevalues) VALUES
  (44, 'fbfJHSPpUQD', 'DE_359596', now(), now(), 'ANC 1st visit', 'ANC 1st visit', 'NUMBER', 'AGGREGATE', 'SUM', 32,
   false, '{"AttrDeRef01": {"value": "anc-1"}}'),
  (45, 'cYeuwXTCPkU', 'DE_359597', now(), now(), 'ANC 2nd visit', 'ANC 2nd visit', 'NUMBER', 'AGGREGATE', 'SUM', 31,
   false, '{"AttrDeRef01": {"value": "anc-2"}}'),
  (46, 'Malaria0001', NULL, now(), now(), 'Malaria cases', 'Malaria cases', 'TEXT', 'AGGREGATE', 'SUM', 31,
   false, '{}'),
  (47, 'Population1', 'POP', now(), now(), 'Population', 'Population', 'INTEGER', 'AGGREGATE', 'SUM', 31, false, '{}');
INSERT INTO dataset (datasetid, uid, code, created, lastupdated, name, shortname, periodtypeid, categorycomboid, mobile) VALUES
  (51, 'pBOMPrpg1QX', 'DS_ANC', now(), now(), 'ANC', 'ANC', 1, 33, false),
  (52, 'MalariaWk01', NULL, now(), now(), 'Malaria weekly', 'Malaria weekly', 2, 31, false),
  (53, 'Population0', 'DS_POP', now(), now(), 'Population', 'Population', 6, 31, false),
  (54, 'EmptySet001', 'DS_EMPTY', now(), now(), 'Empty', 'Empty', 1, 31, false);
INSERT INTO datasetelement (datasetelementid, datasetid, dataelementid) VALUES
  (1, 51, 44), (2, 51, 45), (3, 52, 46), (4, 53, 47);
INSERT INTO dataelementgroup (dataelementgroupid, uid, code, created, lastupdated, name, shortname) VALUES
  (55, 'AncGroup001', 'ANC', now(), now(), 'ANC', 'ANC');
INSERT INTO dataelementgroupmembers (dataelementid, dataelementgroupid) VALUES (44, 55), (45, 55);
INSERT INTO completedatasetregistration (datasetid, periodid, sourceid, attributeoptioncomboid, date, storedby,
                                         lastupdated, completed) VALUES
  (51, 11, 24, 30, '2024-02-05 08:00:00.123456', 'admin', '2024-02-05 08:00:00', true);

-- (de, pe, ou, coc, aoc, value, storedby, created, lastupdated, comment, followup, deleted)
INSERT INTO datavalue (dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid, value,
                       storedby, created, lastupdated, comment, followup, deleted) VALUES
  -- Ngelehun, January: the DHIS2 doc's example row, then its disaggregation siblings
  (45, 11, 24, 30, 30, '12', 'admin', '2024-02-03 10:11:12.123456', '2024-02-03 10:11:12.999999', NULL, NULL, false),
  (44, 11, 24, 39, 41, '7', 'admin', '2024-02-03 10:11:12.123456', '2024-02-04 00:00:00', 'checked', false, false),
  (44, 11, 24, 40, 41, '  9 ', '', '2024-02-01 09:00:00', '2024-02-01 09:00:00', '', true, false),
  -- hostile texts: quotes, backslash, control characters, CSV separators, non-ASCII, 4-byte UTF-8
  (44, 11, 24, 39, 42, E'a"b\\c\x01\x1f\x7f\b\f\n\r\t/ é 中 😀 ' || U&'\2028', E'user\t"x"', '2024-02-02 00:00:00',
   '2024-02-02 00:00:00.000999', E'#note, with "quotes"\nline 2', NULL, false),
  -- Badjia, February: NULL value, NULL storedby, deleted row
  (45, 12, 23, 30, 30, NULL, NULL, '2024-03-01 00:00:00', '2024-03-01 00:00:00', NULL, false, false),
  (44, 12, 23, 39, 41, '3', 'district', '2024-03-01 00:00:00', '2024-03-05 12:00:00', NULL, NULL, true),
  -- Bo (district level) in quarterly and weekly periods
  (45, 14, 22, 30, 30, '40', 'admin', '2024-04-01 00:00:00', '2024-04-01 00:00:00', NULL, NULL, false),
  (46, 13, 22, 30, 30, 'Confirmed: 5', 'system', '2024-01-08 06:00:00', '2024-01-08 06:00:00', NULL, NULL, false),
  -- Bombali: bi-weekly week-53 and a FinancialNov period, a yearly population value
  (46, 15, 25, 30, 30, '1', 'system', '2021-01-11 00:00:00', '2021-01-11 00:00:00', NULL, NULL, false),
  (46, 16, 25, 30, 30, '2', 'system', '2024-11-01 00:00:00', '2024-11-01 00:00:00', NULL, NULL, false),
  (47, 17, 25, 30, 30, '125000', 'system', '2023-01-15 00:00:00', '2023-01-15 00:00:00', NULL, NULL, false),
  -- before 2000: timestamps still print with four-digit years
  (47, 17, 24, 30, 30, '900', 'system', '1999-12-31 23:59:59.999999', '1999-12-31 23:59:59.999999', NULL, NULL, false);
\set QUIET off
