-- A DHIS2 2.42 database has no period.iso: the ISO text comes from periodtype.name and the
-- start date (the C++ period module). It must equal what 2.43 stores in period.iso.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

CREATE TABLE stored_iso AS SELECT periodid, iso FROM period;
ALTER TABLE period DROP COLUMN iso;

-- Every period type of the fixture (Monthly, Weekly, Quarterly, BiWeekly week 53, FinancialNov,
-- Yearly): the computed text equals the iso column the fixture stored.
SELECT count(*) AS mismatches
FROM (SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX,MalariaWk01,Population0}', start_date => '1900-01-01',
                                    end_date => '2100-12-31', org_unit => '{ImspTQPwCqd}', children => true,
                                    include_deleted => true, style => '2.42') AS d) AS e,
     jsonb_array_elements(d::jsonb -> 'dataValues') AS v
JOIN regress_dhis2.dataelement de ON de.uid = v ->> 'dataElement'
WHERE NOT EXISTS (SELECT 1 FROM stored_iso s JOIN datavalue dv ON dv.periodid = s.periodid
                  WHERE s.iso = v ->> 'period' AND dv.dataelementid = de.dataelementid AND dv.value IS NOT DISTINCT FROM v ->> 'value');
SELECT jsonb_path_query_array(export_datavalues_json(data_set => '{pBOMPrpg1QX,MalariaWk01,Population0}',
                                                     start_date => '1900-01-01', end_date => '2100-12-31',
                                                     org_unit => '{ImspTQPwCqd}', children => true)::jsonb,
                              '$.dataValues[*].period');
-- Requested by ISO text: matched by type, start and end.
SELECT export_datavalues_json(data_set => '{MalariaWk01}', period => '{2020BiW27,2024Nov}', org_unit => '{fdc6uOvgoji}');

-- Every period type DHIS2 has, computed for a run of start dates, against the 2.43 rule
-- table of the doc (a handful of the doc's worked examples).
INSERT INTO periodtype (periodtypeid, name) VALUES
  (7, 'Daily'), (8, 'WeeklyWednesday'), (9, 'WeeklyThursday'), (10, 'WeeklyFriday'), (11, 'WeeklySaturday'),
  (12, 'WeeklySunday'), (13, 'BiMonthly'), (14, 'QuarterlyNov'), (15, 'SixMonthly'), (16, 'SixMonthlyApril'),
  (17, 'SixMonthlyNov'), (18, 'FinancialFeb'), (19, 'FinancialApril'), (20, 'FinancialJuly'), (21, 'FinancialAug'),
  (22, 'FinancialSep'), (23, 'FinancialOct'), (24, 'TwoYearly');
INSERT INTO period (periodid, periodtypeid, startdate, enddate) VALUES
  (101, 7, '2024-02-29', '2024-02-29'),   -- 20240229
  (102, 2, '2020-12-28', '2021-01-03'),   -- 2020W53
  (103, 8, '2022-12-28', '2023-01-03'),   -- 2022WedW53
  (104, 9, '2020-12-31', '2021-01-06'),   -- 2021ThuW1
  (105, 10, '2023-12-29', '2024-01-04'),  -- 2024FriW1
  (106, 11, '2023-12-30', '2024-01-05'),  -- 2024SatW1
  (107, 12, '2025-12-28', '2026-01-03'),  -- 2025SunW53
  (108, 13, '2024-11-01', '2024-12-31'),  -- 202406B
  (109, 14, '2023-11-01', '2024-01-31'),  -- 2024NovQ1
  (110, 15, '2024-07-01', '2024-12-31'),  -- 2024S2
  (111, 16, '2023-10-01', '2024-03-31'),  -- 2023AprilS2
  (112, 17, '2023-11-01', '2024-04-30'),  -- 2024NovS1
  (113, 18, '2023-02-01', '2024-01-31'),  -- 2023Feb
  (114, 19, '2024-04-01', '2025-03-31'),  -- 2024April
  (115, 20, '2023-07-01', '2024-06-30'),  -- 2023July
  (116, 21, '2024-08-01', '2025-07-31'),  -- 2024Aug
  (117, 22, '2023-09-01', '2024-08-31'),  -- 2023Sep
  (118, 23, '2024-10-01', '2025-09-30'),  -- 2024Oct
  (119, 24, '2024-01-01', '2025-12-31');  -- TwoYearly: no ISO text, null in 2.42
INSERT INTO datavalue (dataelementid, periodid, sourceid, categoryoptioncomboid, attributeoptioncomboid, value,
                       storedby, created, lastupdated, deleted)
SELECT 47, periodid, 21, 30, 30, periodid::text, 'system', '2024-01-01', '2024-01-01', false
FROM period WHERE periodid > 100;
SELECT string_agg(format('%s=%s', v ->> 'value', coalesce(v ->> 'period', 'null')), E'\n' ORDER BY (v ->> 'value')::int)
FROM (SELECT export_datavalues_json(data_element => '{Population1}', start_date => '1900-01-01',
                                    end_date => '2100-12-31', org_unit => '{ImspTQPwCqd}', style => '2.42') AS d) AS e,
     jsonb_array_elements(d::jsonb -> 'dataValues') AS v;
