/*
 * demo/metadata.sql
 *	  Metadata of the demo database: period types and periods, the Sierra Leone-shaped org unit
 *	  tree and groups, the attribute, the category model, data elements, groups and data sets.
 *
 * Included by generate.sql (needs helpers.sql and periods.sql, and the psql variable
 * dve_is_242). Fixed ids, no sequences: every table has its own id range so that no id
 * appears in two tables (as with DHIS2's single hibernate_sequence) and a join on the wrong id
 * column finds nothing. Temp tables g_* are shared with datavalues.sql.
 *
 * Id ranges: periodtype 1037.. (step 37), organisationunit 100001.., orgunitgroup 190001..,
 * attribute 195001.., categoryoption 200001.., category 210001.., categorycombo 220001..,
 * categoryoptioncombo 230001.., dataelement 300001.., dataelementgroup 390001..,
 * dataset 400001.., datasetelement 410001.., period 500002.. (step 2).
 * SPDX-License-Identifier: PostgreSQL
 */

-- period types ---------------------------------------------------------------------------------

/* all 23 types of a 2.43 install; ids from a hash order, so neither contiguous nor sorted by frequency */
CREATE TEMP TABLE g_periodtype AS
SELECT name, 1000 + 37 * row_number() OVER (ORDER BY md5(name))::integer AS periodtypeid,
	   name IN ('WeeklyFriday', 'FinancialFeb', 'FinancialAug') AS only_243
FROM unnest(ARRAY['Daily', 'Weekly', 'WeeklyWednesday', 'WeeklyThursday', 'WeeklyFriday', 'WeeklySaturday',
				  'WeeklySunday', 'BiWeekly', 'Monthly', 'BiMonthly', 'Quarterly', 'QuarterlyNov', 'SixMonthly',
				  'SixMonthlyApril', 'SixMonthlyNov', 'Yearly', 'FinancialFeb', 'FinancialApril', 'FinancialJuly',
				  'FinancialAug', 'FinancialSep', 'FinancialOct', 'FinancialNov']) AS name;

/* label (2.43 only) is left NULL: DHIS2 does not document its content */
INSERT INTO periodtype (periodtypeid, name)
SELECT periodtypeid, name
FROM g_periodtype
WHERE NOT (only_243 AND :'dve_is_242'::boolean)
ORDER BY periodtypeid;

-- periods --------------------------------------------------------------------------------------

/*
 * Main periods carry the bulk of the values: Monthly 2023-01..2024-12, Weekly covering the same
 * range (2022W52..2025W1), Quarterly 2023Q1..2024Q4, Yearly 2021..2025. Edge periods exist for
 * every other type, and for year-boundary weeks, each with a few fixed values.
 */
CREATE TEMP TABLE g_period_seed (ptype text, d date, main boolean);

INSERT INTO g_period_seed
SELECT 'Monthly', d::date, true FROM generate_series('2023-01-01'::date, '2024-12-01', interval '1 month') d
UNION ALL
SELECT 'Weekly', d::date, true FROM generate_series('2022-12-26'::date, '2024-12-30', interval '7 days') d
UNION ALL
SELECT 'Quarterly', d::date, true FROM generate_series('2023-01-01'::date, '2024-10-01', interval '3 months') d
UNION ALL
SELECT 'Yearly', d::date, true FROM generate_series('2021-01-01'::date, '2025-01-01', interval '1 year') d;

INSERT INTO g_period_seed (ptype, d, main) VALUES
	('Daily', '2023-01-01', false), ('Daily', '2024-02-29', false), ('Daily', '2024-12-31', false),
	('Daily', '2025-03-15', false),
	/* ISO week 53 years 2009, 2015, 2020, 2026; 2021W1 follows 2020W53 */
	('Weekly', '2009-12-28', false), ('Weekly', '2015-12-28', false), ('Weekly', '2020-12-28', false),
	('Weekly', '2021-01-04', false), ('Weekly', '2026-12-28', false),
	('WeeklyWednesday', '2023-12-27', false), ('WeeklyWednesday', '2024-01-03', false),
	('WeeklyWednesday', '2022-12-28', false), ('WeeklyWednesday', '2025-12-31', false),
	('WeeklyThursday', '2024-01-04', false), ('WeeklyThursday', '2023-12-28', false),
	('WeeklyThursday', '2020-12-31', false),
	('WeeklyFriday', '2023-12-29', false), ('WeeklyFriday', '2024-01-05', false),
	('WeeklySaturday', '2023-12-30', false), ('WeeklySaturday', '2022-01-01', false),
	('WeeklySaturday', '2024-12-28', false), ('WeeklySaturday', '2018-12-29', false),
	('WeeklySunday', '2023-12-31', false), ('WeeklySunday', '2024-01-07', false),
	('WeeklySunday', '2025-12-28', false), ('WeeklySunday', '2026-01-04', false),
	/* BiW27 of 53-week ISO years overlaps the next year's BiW1 */
	('BiWeekly', '2009-12-28', false), ('BiWeekly', '2017-12-18', false), ('BiWeekly', '2020-12-28', false),
	('BiWeekly', '2021-01-04', false), ('BiWeekly', '2024-01-01', false), ('BiWeekly', '2024-01-15', false),
	('BiWeekly', '2024-12-30', false), ('BiWeekly', '2026-12-28', false),
	('BiMonthly', '2023-01-01', false), ('BiMonthly', '2023-11-01', false), ('BiMonthly', '2024-01-01', false),
	('BiMonthly', '2024-05-01', false), ('BiMonthly', '2024-11-01', false),
	('QuarterlyNov', '2023-11-01', false), ('QuarterlyNov', '2024-02-01', false),
	('QuarterlyNov', '2024-05-01', false), ('QuarterlyNov', '2024-08-01', false),
	('QuarterlyNov', '2024-11-01', false),
	('SixMonthly', '2023-01-01', false), ('SixMonthly', '2023-07-01', false), ('SixMonthly', '2024-01-01', false),
	('SixMonthly', '2024-07-01', false),
	('SixMonthlyApril', '2023-10-01', false), ('SixMonthlyApril', '2024-04-01', false),
	('SixMonthlyApril', '2024-10-01', false),
	('SixMonthlyNov', '2023-11-01', false), ('SixMonthlyNov', '2024-05-01', false),
	('SixMonthlyNov', '2024-11-01', false),
	('FinancialFeb', '2023-02-01', false), ('FinancialFeb', '2024-02-01', false),
	('FinancialApril', '2023-04-01', false), ('FinancialApril', '2024-04-01', false),
	('FinancialJuly', '2023-07-01', false), ('FinancialJuly', '2024-07-01', false),
	('FinancialAug', '2023-08-01', false), ('FinancialAug', '2024-08-01', false),
	('FinancialSep', '2023-09-01', false), ('FinancialSep', '2024-09-01', false),
	('FinancialOct', '2023-10-01', false), ('FinancialOct', '2024-10-01', false),
	('FinancialNov', '2022-11-01', false), ('FinancialNov', '2023-11-01', false),
	('FinancialNov', '2024-11-01', false);

/* normalised periods of all 23 types; ids do not follow start dates (ordered by a hash of the ISO string) */
CREATE TEMP TABLE g_period AS
SELECT 500000 + 2 * row_number() OVER (ORDER BY md5(iso)) AS periodid, pt.periodtypeid, pt.only_243,
	   x.ptype, x.startdate, x.enddate, x.iso, x.main
FROM (SELECT ptype, pg_temp.dve_period_start(ptype, d) AS startdate, pg_temp.dve_period_end(ptype, d) AS enddate,
			 pg_temp.dve_period_iso(ptype, d) AS iso, bool_or(main) AS main
	  FROM g_period_seed
	  GROUP BY 1, 2, 3, 4) x
JOIN g_periodtype pt ON pt.name = x.ptype;

\if :dve_is_242
INSERT INTO period (periodid, periodtypeid, startdate, enddate)
SELECT periodid, periodtypeid, startdate, enddate
FROM g_period
WHERE NOT only_243
ORDER BY periodid;
\else
INSERT INTO period (periodid, periodtypeid, startdate, enddate, iso)
SELECT periodid, periodtypeid, startdate, enddate, iso
FROM g_period
ORDER BY periodid;
\endif

-- organisation units ---------------------------------------------------------------------------

/* the 13 real districts (uid and code from the doc) with a chiefdom count summing to 149 */
CREATE TEMP TABLE g_district (ord integer, name text, uid text, code text, n_chiefdoms integer, area text);
INSERT INTO g_district VALUES
	(1, 'Bo', 'O6uvpzGd5pu', 'OU_264', 15, 'Southern Area'),
	(2, 'Bombali', 'fdc6uOvgoji', 'OU_193190', 13, 'Northern Area'),
	(3, 'Bonthe', 'lc3eMKXaEfw', 'OU_197385', 11, 'Southern Area'),
	(4, 'Kailahun', 'jUb8gELQApl', 'OU_204856', 14, 'Eastern Area'),
	(5, 'Kambia', 'PMa2VCrupOd', 'OU_211212', 7, 'Northern Area'),
	(6, 'Kenema', 'kJq2mPyFEHo', 'OU_222616', 15, 'Eastern Area'),
	(7, 'Koinadugu', 'qhqAxPSTUXp', 'OU_226213', 11, 'Northern Area'),
	(8, 'Kono', 'Vth0fbpFcsO', 'OU_233310', 14, 'Eastern Area'),
	(9, 'Moyamba', 'jmIPBj66vD6', 'OU_246990', 13, 'Southern Area'),
	(10, 'Port Loko', 'TEQlaapDQoK', 'OU_254945', 11, 'Northern Area'),
	(11, 'Pujehun', 'bL4ooGhyHRQ', 'OU_260377', 12, 'Southern Area'),
	(12, 'Tonkolili', 'eIQbndfxQMb', 'OU_268149', 11, 'Northern Area'),
	(13, 'Western Area', 'at6UHUQatSo', 'OU_278310', 2, 'Western Area');

CREATE TEMP TABLE g_ou (
	organisationunitid bigint PRIMARY KEY,
	uid text NOT NULL,
	code text,
	name text NOT NULL,
	parentid bigint,
	hierarchylevel integer NOT NULL,
	path text NOT NULL,
	district_ord integer,
	ftype text,			/* facilities: CHC, CHP, MCHP, Clinic, Hospital */
	ownership text,		/* facilities: org unit group name */
	location text,		/* facilities: Rural / Urban */
	seq integer			/* ordinal within its level */
);

INSERT INTO g_ou (organisationunitid, uid, code, name, parentid, hierarchylevel, path, seq)
VALUES (100001, 'ImspTQPwCqd', 'OU_525', 'Sierra Leone', NULL, 1, '/ImspTQPwCqd', 1);

INSERT INTO g_ou (organisationunitid, uid, code, name, parentid, hierarchylevel, path, district_ord, seq)
SELECT 100001 + ord, uid, code, name, 100001, 2, '/ImspTQPwCqd/' || uid, ord, ord
FROM g_district;

/* chiefdoms: Badjia is the real first chiefdom of Bo; Western Area has two; the rest get generated names */
CREATE TEMP TABLE g_chiefdom AS
SELECT row_number() OVER (ORDER BY d.ord, n)::integer AS c, d.ord AS district_ord, d.name AS district, n,
	   d.uid AS district_uid
FROM g_district d, generate_series(1, d.n_chiefdoms) n;

INSERT INTO g_ou (organisationunitid, uid, code, name, parentid, hierarchylevel, path, district_ord, seq)
SELECT 100100 + c, u.uid, 'OU_' || (400000 + 100100 + c), nm, 100001 + district_ord, 3,
	   '/ImspTQPwCqd/' || district_uid || '/' || u.uid, district_ord, c
FROM g_chiefdom,
	 LATERAL (SELECT CASE WHEN district = 'Bo' AND n = 1 THEN 'YuQRtpLP10I'
						  ELSE pg_temp.dve_uid('ou:chiefdom:' || c) END AS uid,
					 CASE WHEN district = 'Bo' AND n = 1 THEN 'Badjia'
						  WHEN district = 'Western Area' THEN (ARRAY['Freetown', 'Rural Western'])[n]
						  ELSE pg_temp.dve_place('chiefdom:' || c) END AS nm) u;

/* 1,168 facilities spread over the chiefdoms with deterministic uneven weights (3..11) */
CREATE TEMP TABLE g_fac_alloc AS
SELECT c, w, (floor(1168.0 * cw / tw) - floor(1168.0 * (cw - w) / tw))::integer AS nfac
FROM (SELECT c, w, sum(w) OVER (ORDER BY c) AS cw, sum(w) OVER () AS tw
	  FROM (SELECT c, 3 + pg_temp.dve_h(c, 101) % 9 AS w FROM g_chiefdom) a) b;

CREATE TEMP TABLE g_facility AS
SELECT row_number() OVER (ORDER BY a.c, i)::integer AS f, a.c, i, ch.district_ord, ch.district
FROM g_fac_alloc a
JOIN g_chiefdom ch USING (c),
	 generate_series(1, a.nfac) i;

INSERT INTO g_ou (organisationunitid, uid, code, name, parentid, hierarchylevel, path, district_ord,
				  ftype, ownership, location, seq)
SELECT 101000 + f.f, x.uid,
	   /* every facility of Pujehun's first chiefdom has no code ("property missing" cases) */
	   CASE WHEN f.district = 'Pujehun' AND ch.n = 1 THEN NULL ELSE 'OU_' || (400000 + 101000 + f.f) END,
	   CASE WHEN x.ngelehun THEN 'Ngelehun CHC' ELSE pg_temp.dve_place('facility:' || f.f) || ' ' || x.ftype END,
	   100100 + f.c, 4, p.path || '/' || x.uid, f.district_ord, x.ftype,
	   CASE WHEN x.ftype = 'Clinic' THEN
				CASE WHEN pg_temp.dve_h(f.f, 203) % 10 < 6 THEN 'Private Clinic'
					 WHEN pg_temp.dve_h(f.f, 203) % 10 < 8 THEN 'NGO' ELSE 'Mission' END
			ELSE CASE WHEN pg_temp.dve_h(f.f, 203) % 10 < 8 THEN 'Public facilities'
					  WHEN pg_temp.dve_h(f.f, 203) % 10 = 8 THEN 'Mission' ELSE 'NGO' END
	   END,
	   CASE WHEN pg_temp.dve_h(f.f, 204) % 10 < CASE WHEN f.district = 'Western Area' THEN 8 ELSE 2 END
			THEN 'Urban' ELSE 'Rural' END,
	   f.f
FROM g_facility f
JOIN g_chiefdom ch ON ch.c = f.c
JOIN g_ou p ON p.organisationunitid = 100100 + f.c,
	 LATERAL (SELECT ngelehun,
					 CASE WHEN ngelehun THEN 'DiszpKrYNg8' ELSE pg_temp.dve_uid('ou:facility:' || f.f) END AS uid,
					 CASE WHEN ngelehun THEN 'CHC'
						  WHEN pg_temp.dve_h(f.f, 202) % 100 < 5 THEN 'Hospital'
						  WHEN pg_temp.dve_h(f.f, 202) % 100 < 20 THEN 'CHC'
						  WHEN pg_temp.dve_h(f.f, 202) % 100 < 45 THEN 'CHP'
						  WHEN pg_temp.dve_h(f.f, 202) % 100 < 55 THEN 'Clinic'
						  ELSE 'MCHP' END AS ftype
			  FROM (SELECT ch.district = 'Bo' AND ch.n = 1 AND f.i = 1 AS ngelehun) q) x;

/* one hostile facility (1,332nd org unit), in Badjia next to Ngelehun CHC */
INSERT INTO g_ou (organisationunitid, uid, code, name, parentid, hierarchylevel, path, district_ord,
				  ftype, ownership, location, seq)
SELECT 102500, 'HostileOrgU', 'OU_HOSTILE,"1"', 'Hostile "Clinic", Ünïcødé 中文 😀', organisationunitid, 4,
	   path || '/HostileOrgU', 1, 'Clinic', 'NGO', 'Rural', 1169
FROM g_ou WHERE uid = 'YuQRtpLP10I';

INSERT INTO organisationunit (organisationunitid, uid, code, created, lastupdated, name, shortname, parentid, path,
							  hierarchylevel, openingdate, closeddate, translations, attributevalues)
SELECT organisationunitid, uid, code,
	   '2012-02-17 09:00:00'::timestamp + (pg_temp.dve_h(organisationunitid, 301) % 86400000) * interval '1 second',
	   '2023-06-01 08:00:00'::timestamp + (pg_temp.dve_h(organisationunitid, 302) % 31536000) * interval '1 second',
	   name, left(name, 50), parentid, path, hierarchylevel,
	   CASE WHEN hierarchylevel < 4 THEN '1970-01-01'::date
			ELSE '1990-01-01'::date + (pg_temp.dve_h(organisationunitid, 303) % 9000)::integer END,
	   CASE WHEN hierarchylevel = 4 AND pg_temp.dve_h(organisationunitid, 304) % 200 = 0 THEN '2024-06-30'::date END,
	   '[]'::jsonb,
	   CASE
		   WHEN uid = 'HostileOrgU' THEN
			   jsonb_build_object('ExtIdAttr01', jsonb_build_object('value', E'ext "q" \\ \u2028 中文'))
		   /* about one facility in ten has no value for the attribute */
		   WHEN hierarchylevel = 4 AND seq % 10 = 3 THEN '{}'::jsonb
		   ELSE jsonb_build_object('ExtIdAttr01',
								   jsonb_build_object('value', 'EXT-OU-' || hierarchylevel || '-' || lpad(seq::text, 5, '0')))
	   END
FROM g_ou
ORDER BY organisationunitid;

-- org unit groups ------------------------------------------------------------------------------

/* the 18 group names of the SL demo (doc section 3.1) */
CREATE TEMP TABLE g_oug AS
SELECT 190000 + ord::integer AS orgunitgroupid, name, pg_temp.dve_uid('oug:' || name) AS uid,
	   'OUG_' || upper(replace(name, ' ', '_')) AS code
FROM unnest(ARRAY['CHC', 'CHP', 'Chiefdom', 'Clinic', 'Country', 'District', 'Eastern Area', 'Hospital', 'MCHP',
				  'Mission', 'NGO', 'Northern Area', 'Private Clinic', 'Public facilities', 'Rural',
				  'Southern Area', 'Urban', 'Western Area']) WITH ORDINALITY AS t(name, ord);

INSERT INTO orgunitgroup (orgunitgroupid, uid, code, created, lastupdated, name, shortname, symbol, color,
						  translations, attributevalues, sharing)
SELECT orgunitgroupid, uid, code, '2012-11-13 12:00:00', '2023-01-10 12:00:00', name, name, NULL, NULL,
	   '[]', '{}', '{"owner": null, "users": {}, "public": "rw------", "external": false, "userGroups": {}}'
FROM g_oug ORDER BY orgunitgroupid;

/* facilities are in a type, an ownership and a location group; districts in an area group */
INSERT INTO orgunitgroupmembers (organisationunitid, orgunitgroupid)
SELECT DISTINCT o.organisationunitid, g.orgunitgroupid
FROM g_ou o
JOIN g_oug g ON g.name = o.ftype OR g.name = o.ownership OR g.name = o.location
	OR (g.name = 'Country' AND o.hierarchylevel = 1)
	OR (g.name = 'District' AND o.hierarchylevel = 2)
	OR (g.name = 'Chiefdom' AND o.hierarchylevel = 3)
	OR (o.hierarchylevel = 2 AND g.name = (SELECT area FROM g_district d WHERE d.ord = o.district_ord))
ORDER BY 2, 1;

-- attributes -----------------------------------------------------------------------------------

INSERT INTO attribute (attributeid, uid, code, created, lastupdated, name, shortname, description, valuetype,
					   mandatory, isunique, sortorder, translations, sharing, objecttypes)
VALUES
	(195001, 'ExtIdAttr01', 'EXT_ID', '2019-03-01 10:00:00', '2023-05-01 10:00:00', 'External ID', 'External ID',
	 'Identifier in an external system (idScheme=ATTRIBUTE:ExtIdAttr01)', 'TEXT', false, true, 1, '[]',
	 '{"owner": null, "users": {}, "public": "rw------", "external": false, "userGroups": {}}',
	 '["DATA_ELEMENT", "ORGANISATION_UNIT", "CATEGORY_OPTION_COMBO", "DATA_SET"]'),
	(195002, 'RepTagAttr1', 'REPORTING_TAG', '2020-07-15 10:00:00', '2023-05-01 10:00:00', 'Reporting tag',
	 'Reporting tag', 'A second attribute, set on a few data elements only', 'TEXT', false, false, 2, '[]',
	 '{"owner": null, "users": {}, "public": "rw------", "external": false, "userGroups": {}}',
	 '["DATA_ELEMENT"]');

-- category model -------------------------------------------------------------------------------

INSERT INTO categoryoption (categoryoptionid, uid, code, created, lastupdated, name, shortname, translations,
							attributevalues, sharing)
SELECT id, uid, code, '2011-12-24 12:24:25', '2023-02-01 09:00:00', name, name, '[]', '{}',
	   jsonb_build_object('owner', NULL, 'users', '{}'::jsonb, 'public', public_access, 'external', false,
						  'userGroups', '{}'::jsonb)
FROM (VALUES
	(200001, 'xYerKDKCefk', 'default', 'default', 'rwrw----'),
	(200002, pg_temp.dve_uid('co:female'), 'FEMALE', 'Female', 'rwrw----'),
	(200003, pg_temp.dve_uid('co:male'), 'MALE', 'Male', 'rwrw----'),
	(200004, pg_temp.dve_uid('co:lt5'), 'AGE_LT5', '<5y', 'rwrw----'),
	(200005, pg_temp.dve_uid('co:5-14'), 'AGE_5_14', '5-14y', 'rwrw----'),
	(200006, pg_temp.dve_uid('co:15p'), 'AGE_15P', '15y+', 'rwrw----'),
	(200007, pg_temp.dve_uid('co:fixed'), 'FIXED', 'Fixed', 'rwrw----'),
	(200008, pg_temp.dve_uid('co:outreach'), 'OUTREACH', 'Outreach', 'rwrw----'),
	(200009, pg_temp.dve_uid('co:gov'), 'PARTNER_GOV', 'Government', 'rwrw----'),
	(200010, pg_temp.dve_uid('co:pa'), 'PARTNER_A', 'Partner A', 'rwrw----'),
	/* public may read the metadata but not the data: non-superusers lose this attribute option combo */
	(200011, pg_temp.dve_uid('co:pb'), 'PARTNER_B', 'Partner B', 'rw------')
) v(id, uid, code, name, public_access);

INSERT INTO category (categoryid, uid, code, created, lastupdated, name, datadimensiontype, datadimension,
					  translations, attributevalues, sharing, shortname)
VALUES
	(210001, 'GLevLNI9wkl', 'default', '2011-12-24 12:24:25', '2023-02-01 09:00:00', 'default', 'DISAGGREGATION',
	 false, '[]', '{}', '{"owner": null, "users": {}, "public": "rw------", "external": false, "userGroups": {}}',
	 'default'),
	(210002, pg_temp.dve_uid('cat:sex'), 'SEX', '2011-12-24 12:24:25', '2023-02-01 09:00:00', 'Sex',
	 'DISAGGREGATION', true, '[]', '{}', '{}', 'Sex'),
	(210003, pg_temp.dve_uid('cat:age'), 'AGE', '2011-12-24 12:24:25', '2023-02-01 09:00:00', 'Age',
	 'DISAGGREGATION', true, '[]', '{}', '{}', 'Age'),
	(210004, pg_temp.dve_uid('cat:location'), 'LOCATION_FIXED_OUTREACH', '2011-12-24 12:24:25',
	 '2023-02-01 09:00:00', 'Location Fixed/Outreach', 'DISAGGREGATION', true, '[]', '{}', '{}', 'Location'),
	(210005, pg_temp.dve_uid('cat:partner'), 'FUNDING_PARTNER', '2016-04-18 10:00:00', '2023-02-01 09:00:00',
	 'Funding Partner', 'ATTRIBUTE', true, '[]', '{}', '{}', 'Funding Partner');

INSERT INTO categories_categoryoptions (categoryid, sort_order, categoryoptionid) VALUES
	(210001, 0, 200001),
	(210002, 0, 200002), (210002, 1, 200003),
	(210003, 0, 200004), (210003, 1, 200005), (210003, 2, 200006),
	(210004, 0, 200007), (210004, 1, 200008),
	(210005, 0, 200009), (210005, 1, 200010), (210005, 2, 200011);

INSERT INTO categorycombo (categorycomboid, uid, code, created, lastupdated, name, datadimensiontype, skiptotal,
						   translations, sharing)
VALUES
	(220001, 'bjDvmb4bfuf', 'default', '2011-12-24 12:24:25', '2023-02-01 09:00:00', 'default', 'DISAGGREGATION',
	 false, '[]', '{}'),
	(220002, pg_temp.dve_uid('cc:sexage'), 'SEX_AGE', '2012-01-01 10:00:00', '2023-02-01 09:00:00', 'Sex and Age',
	 'DISAGGREGATION', false, '[]', '{}'),
	(220003, pg_temp.dve_uid('cc:location'), 'LOCATION_FIXED_OUTREACH', '2012-01-01 10:00:00',
	 '2023-02-01 09:00:00', 'Location Fixed/Outreach', 'DISAGGREGATION', false, '[]', '{}'),
	(220004, pg_temp.dve_uid('cc:sex'), 'SEX', '2012-01-01 10:00:00', '2023-02-01 09:00:00', 'Sex',
	 'DISAGGREGATION', false, '[]', '{}'),
	(220005, pg_temp.dve_uid('cc:partner'), 'FUNDING_PARTNER', '2016-04-18 10:00:00', '2023-02-01 09:00:00',
	 'Funding Partner', 'ATTRIBUTE', false, '[]', '{}');

INSERT INTO categorycombos_categories (categoryid, sort_order, categorycomboid) VALUES
	(210001, 0, 220001),
	(210002, 0, 220002), (210003, 1, 220002),
	(210004, 0, 220003),
	(210002, 0, 220004),
	(210005, 0, 220005);

/* option combos: name = option names joined with ", " in category order, as DHIS2 names them */
CREATE TEMP TABLE g_coc (categoryoptioncomboid bigint, categorycomboid bigint, uid text, code text, name text,
						 options bigint[]);
INSERT INTO g_coc VALUES
	(230001, 220001, 'HllvX50cXC0', 'default', 'default', '{200001}'),
	(230002, 220002, pg_temp.dve_uid('coc:f-lt5'), 'COC_F_LT5', 'Female, <5y', '{200002,200004}'),
	(230003, 220002, pg_temp.dve_uid('coc:f-5-14'), 'COC_F_5_14', 'Female, 5-14y', '{200002,200005}'),
	(230004, 220002, pg_temp.dve_uid('coc:f-15p'), 'COC_F_15P', 'Female, 15y+', '{200002,200006}'),
	(230005, 220002, pg_temp.dve_uid('coc:m-lt5'), 'COC_M_LT5', 'Male, <5y', '{200003,200004}'),
	(230006, 220002, pg_temp.dve_uid('coc:m-5-14'), 'COC_M_5_14', 'Male, 5-14y', '{200003,200005}'),
	(230007, 220002, pg_temp.dve_uid('coc:m-15p'), 'COC_M_15P', 'Male, 15y+', '{200003,200006}'),
	(230008, 220003, 'pq2XI5kz2BY', 'COC_167661', 'Fixed', '{200007}'),
	(230009, 220003, 'PT59n8BQbqM', 'COC_167660', 'Outreach', '{200008}'),
	(230010, 220004, pg_temp.dve_uid('coc:sex-f'), 'COC_SEX_F', 'Female', '{200002}'),
	/* no code */
	(230011, 220004, pg_temp.dve_uid('coc:sex-m'), NULL, 'Male', '{200003}'),
	(230012, 220005, pg_temp.dve_uid('aoc:gov'), 'AOC_GOV', 'Government', '{200009}'),
	(230013, 220005, pg_temp.dve_uid('aoc:pa'), 'AOC_PARTNER_A', 'Partner A', '{200010}'),
	/* no code, and data not readable by non-superusers */
	(230014, 220005, pg_temp.dve_uid('aoc:pb'), NULL, 'Partner B', '{200011}');

INSERT INTO categoryoptioncombo (categoryoptioncomboid, uid, code, created, lastupdated, name, ignoreapproval,
								 translations, attributevalues)
SELECT categoryoptioncomboid, uid, code, '2011-12-24 12:24:25', '2023-02-01 09:00:00', name, false, '[]',
	   CASE WHEN code IS NULL THEN '{}'::jsonb
			ELSE jsonb_build_object('ExtIdAttr01', jsonb_build_object('value', 'EXT-COC-' || code)) END
FROM g_coc ORDER BY 1;

INSERT INTO categorycombos_optioncombos (categoryoptioncomboid, categorycomboid)
SELECT categoryoptioncomboid, categorycomboid FROM g_coc ORDER BY 1;

INSERT INTO categoryoptioncombos_categoryoptions (categoryoptioncomboid, categoryoptionid)
SELECT categoryoptioncomboid, unnest(options) FROM g_coc ORDER BY 1, 2;

-- data sets ------------------------------------------------------------------------------------

/*
 * weight = share of the scaled ("bulk") values; CH takes the remainder. EDGE and HOST only carry
 * the fixed rows of datavalues.sql. sources: which org units the data set is assigned to.
 */
CREATE TEMP TABLE g_ds (datasetid bigint, key text, uid text, code text, name text, ptype text, combo bigint,
						weight numeric, sources text, bulk boolean GENERATED ALWAYS AS (key NOT IN ('EDGE', 'HOST')) STORED);
INSERT INTO g_ds (datasetid, key, uid, code, name, ptype, combo, weight, sources) VALUES
	(400001, 'RH', 'pBOMPrpg1QX', 'DS_RH', 'Reproductive Health', 'Monthly', 220001, 0.12, 'facilities'),
	(400002, 'CH', 'BfMAe6Itzgt', 'DS_CH', 'Child Health', 'Monthly', 220001, NULL, 'facilities'),
	(400003, 'ART', 'lyLU2wR22tC', 'DS_ART', 'ART monthly summary', 'Monthly', 220001, 0.08, 'facilities'),
	(400004, 'HIVP', pg_temp.dve_uid('ds:hivp'), 'DS_HIVP', 'HIV partner report', 'Monthly', 220005, 0.08,
	 'facilities'),
	(400005, 'IDSR', pg_temp.dve_uid('ds:idsr'), 'DS_IDSR', 'IDSR weekly report', 'Weekly', 220001, 0.25,
	 'facilities'),
	/* no code */
	(400006, 'QFR', pg_temp.dve_uid('ds:qfr'), NULL, 'Quarterly facility report', 'Quarterly', 220001, 0.01,
	 'facilities'),
	(400007, 'POP', pg_temp.dve_uid('ds:pop'), 'DS_POP', 'Population estimates', 'Yearly', 220001, 0.02, 'all'),
	(400008, 'DMS', pg_temp.dve_uid('ds:dms'), 'DS_DMS', 'District monthly summary', 'Monthly', 220001, 0.005,
	 'chiefdoms and districts'),
	(400009, 'EDGE', 'EdgePeriods', 'DS_EDGE', 'Period type edge cases', 'Daily', 220001, NULL, 'edge'),
	(400010, 'HOST', 'HostileDSet', 'DS_HOSTILE', 'Hostile values', 'Monthly', 220001, NULL, 'hostile');

INSERT INTO dataset (datasetid, uid, code, created, lastupdated, name, shortname, periodtypeid, categorycomboid,
					 mobile, version, expirydays, timelydays, openfutureperiods, translations, attributevalues,
					 openperiodsaftercoenddate, sharing, displayoptions)
SELECT d.datasetid, d.uid, d.code, '2012-06-05 10:00:00', '2023-09-01 10:00:00', d.name, d.name, pt.periodtypeid,
	   d.combo, false, 1, 0, 15, 0, '[]',
	   CASE WHEN d.code IS NULL THEN '{}'::jsonb
			ELSE jsonb_build_object('ExtIdAttr01', jsonb_build_object('value', 'EXT-DS-' || d.key)) END,
	   0, '{"owner": null, "users": {}, "public": "rwrw----", "external": false, "userGroups": {}}', '{}'
FROM g_ds d JOIN g_periodtype pt ON pt.name = d.ptype
ORDER BY 1;

INSERT INTO datasetsource (sourceid, datasetid)
SELECT o.organisationunitid, d.datasetid
FROM g_ds d
JOIN g_ou o ON CASE d.sources
				   WHEN 'facilities' THEN o.hierarchylevel = 4 AND o.uid <> 'HostileOrgU'
				   WHEN 'all' THEN o.uid <> 'HostileOrgU'
				   WHEN 'chiefdoms and districts' THEN o.hierarchylevel IN (2, 3)
				   WHEN 'edge' THEN o.uid IN ('DiszpKrYNg8', 'YuQRtpLP10I', 'O6uvpzGd5pu', 'ImspTQPwCqd')
				   /* and the first facility without a code (hostile case 37) */
				   WHEN 'hostile' THEN o.uid IN ('DiszpKrYNg8', 'HostileOrgU')
									   OR o.organisationunitid = (SELECT min(organisationunitid) FROM g_ou
																  WHERE hierarchylevel = 4 AND code IS NULL)
			   END
ORDER BY 2, 1;

-- data elements --------------------------------------------------------------------------------

/*
 * Definitions per data set: name, value type and disaggregation combo. uid/code are generated
 * unless fixed (the four SL ANC data elements, the edge and hostile ones).
 */
CREATE TEMP TABLE g_de_def (ds text, n integer, name text, valuetype text, combo bigint, uid text, code text,
							nocode boolean DEFAULT false);

INSERT INTO g_de_def (ds, n, name, valuetype, combo)
SELECT 'RH', n::integer, name,
	   CASE WHEN name IN ('Maternal deaths', 'Still births', 'Live births') THEN 'INTEGER_ZERO_OR_POSITIVE'
			ELSE 'NUMBER' END,
	   CASE WHEN n <= 25 THEN 220003 ELSE 220001 END
FROM unnest(ARRAY['ANC 1st visit', 'ANC 2nd visit', 'ANC 3rd visit', 'ANC 4th or more visits',
				  'IPT 1st dose given', 'IPT 2nd dose given', 'IPT 3rd dose given', 'LLITN given at ANC 1st',
				  'TT1 doses given', 'TT2 doses given', 'TT3 doses given', 'TT4 doses given', 'TT5 doses given',
				  'Postnatal care 1st visit', 'Postnatal care 2nd visit', 'Family planning new acceptors',
				  'Family planning continuing users', 'Oral pill cycles distributed', 'Injectable doses given',
				  'Implants inserted', 'IUD inserted', 'Condoms distributed', 'Syphilis tests at ANC',
				  'HIV tests at ANC', 'Iron folate given', 'Deliveries by skilled attendant',
				  'Deliveries at facility', 'Live births', 'Still births', 'Maternal deaths',
				  'Low birth weight babies', 'Caesarean sections', 'Post-abortion care',
				  'Obstetric complications referred', 'Women counselled on breastfeeding',
				  'Vitamin A given to mothers', 'Deworming in pregnancy', 'Malaria in pregnancy cases',
				  'Anaemia in pregnancy cases', 'Births registered']) WITH ORDINALITY AS t(name, n);

UPDATE g_de_def SET uid = v.uid, code = v.code
FROM (VALUES ('ANC 1st visit', 'fbfJHSPpUQD', 'DE_359596'), ('ANC 2nd visit', 'cYeuwXTCPkU', NULL),
			 ('ANC 3rd visit', 'Jtf34kNZhzP', NULL), ('ANC 4th or more visits', 'hfdmMSPBgLG', NULL)) v(name, uid, code)
WHERE g_de_def.ds = 'RH' AND g_de_def.name = v.name;

INSERT INTO g_de_def (ds, n, name, valuetype, combo)
SELECT 'CH', n::integer, name, 'INTEGER_ZERO_OR_POSITIVE', 220002
FROM unnest(ARRAY['BCG doses given', 'OPV0 doses given', 'OPV1 doses given', 'OPV2 doses given',
				  'OPV3 doses given', 'Penta1 doses given', 'Penta2 doses given', 'Penta3 doses given',
				  'PCV1 doses given', 'PCV2 doses given', 'PCV3 doses given', 'Rota1 doses given',
				  'Rota2 doses given', 'IPV doses given', 'Measles 1 doses given', 'Measles 2 doses given',
				  'Yellow fever doses given', 'HPV doses given', 'Vitamin A supplements given',
				  'Deworming doses given', 'Children weighed', 'Underweight children',
				  'Severe acute malnutrition cases', 'Moderate acute malnutrition cases',
				  'Diarrhoea treated with ORS', 'Diarrhoea treated with zinc', 'Pneumonia cases treated',
				  'Malaria RDT positive (child)', 'Malaria treated with ACT (child)', 'Fever cases (child)',
				  'Child referrals to hospital', 'Child deaths', 'LLIN given to children',
				  'Growth monitoring visits', 'Exclusive breastfeeding at 6 months', 'Fully immunized children',
				  'Ear infection cases', 'Skin infection cases', 'Eye infection cases',
				  'Anaemia cases (child)']) WITH ORDINALITY AS t(name, n);

INSERT INTO g_de_def (ds, n, name, valuetype, combo, nocode)
SELECT 'ART', n::integer, name,
	   CASE name WHEN 'Viral load suppression rate' THEN 'PERCENTAGE' WHEN 'ARV stock-out reported' THEN 'BOOLEAN'
				 ELSE 'NUMBER' END,
	   CASE WHEN n <= 15 THEN 220001 ELSE 220004 END,
	   /* three data elements without a code */
	   n IN (5, 17, 29)
FROM unnest(ARRAY['ARV stock on hand', 'ARV stock-out reported', 'Viral load suppression rate', 'CD4 tests done',
				  'Viral load tests done', 'Infants tested by PCR', 'Cotrimoxazole prophylaxis given',
				  'Adherence counselling sessions', 'Index testing contacts', 'Self-test kits distributed',
				  'PrEP new clients', 'PrEP continuing clients', 'Post-exposure prophylaxis given',
				  'Pre-ART clients', 'Second line regimen clients', 'ART new clients', 'ART clients on treatment',
				  'ART defaulters', 'ART transferred in', 'ART transferred out', 'Viral load suppressed',
				  'HIV tests performed', 'HIV positive results', 'PMTCT mothers on ART',
				  'TB screening among PLHIV', 'TB/HIV co-infected on ART', 'Deaths among ART clients',
				  'ART clients lost to follow-up', 'STI cases treated', 'Key population reached']) WITH ORDINALITY AS t(name, n);

INSERT INTO g_de_def (ds, n, name, valuetype, combo)
SELECT 'HIVP', n::integer, name, CASE WHEN n % 4 = 0 THEN 'NUMBER' ELSE 'INTEGER_POSITIVE' END, 220001
FROM unnest(ARRAY['Outreach sessions held', 'People reached with HIV messages', 'Peer educators trained',
				  'Community health workers supported', 'HIV test kits procured', 'Samples transported',
				  'Facilities supervised by partner', 'Support groups held', 'Home visits conducted',
				  'Referrals completed', 'Mobile clinics conducted', 'Radio spots aired', 'Stigma workshops held',
				  'Nutrition packs distributed', 'Transport vouchers issued', 'School sessions held',
				  'Community meetings held', 'Mentorship visits', 'Data quality audits',
				  'Partner staff trained']) WITH ORDINALITY AS t(name, n);

INSERT INTO g_de_def (ds, n, name, valuetype, combo)
SELECT 'IDSR', n::integer, 'IDSR ' || name, 'INTEGER_ZERO_OR_POSITIVE', 220004
FROM unnest(ARRAY['Acute flaccid paralysis', 'Acute watery diarrhoea', 'Bloody diarrhoea', 'Cholera', 'Dog bite',
				  'Ebola suspected', 'Guinea worm', 'Lassa fever', 'Maternal death', 'Measles', 'Meningitis',
				  'Neonatal tetanus', 'Plague', 'Rabies', 'Severe pneumonia under 5', 'Typhoid fever',
				  'Yellow fever', 'Malaria confirmed', 'Malaria suspected', 'Influenza-like illness',
				  'Severe acute respiratory infection', 'Mpox', 'Anthrax', 'Dengue',
				  'Hepatitis E']) WITH ORDINALITY AS t(name, n);

INSERT INTO g_de_def (ds, n, name, valuetype, combo)
SELECT 'QFR', n::integer, name,
	   CASE WHEN name = 'Maternity waiting home available' THEN 'TRUE_ONLY'
			WHEN name LIKE '%available' OR name LIKE '%functional' THEN 'BOOLEAN'
			ELSE 'INTEGER_ZERO_OR_POSITIVE' END,
	   220001
FROM unnest(ARRAY['Doctors in post', 'Nurses in post', 'Midwives in post', 'Beds', 'Fridges functional',
				  'Solar power functional', 'Safe water source available', 'Generator functional',
				  'Ambulance available', 'Supervision visits received', 'Tracer drug stock-outs',
				  'Maternity waiting home available', 'Incinerator functional', 'Latrines', 'Staff houses',
				  'Motorbikes', 'Computers', 'Internet connectivity available', 'Radio communication available',
				  'Quarterly review meetings']) WITH ORDINALITY AS t(name, n);

INSERT INTO g_de_def (ds, n, name, valuetype, combo)
SELECT 'POP', n::integer, name, 'INTEGER_ZERO_OR_POSITIVE', 220002
FROM unnest(ARRAY['Total population', 'Expected pregnancies', 'Expected deliveries', 'Women of child bearing age',
				  'Population under 1 year', 'Population under 5 years', 'Households', 'School age population',
				  'Adolescent population', 'Elderly population', 'Urban population',
				  'Rural population']) WITH ORDINALITY AS t(name, n);

INSERT INTO g_de_def (ds, n, name, valuetype, combo)
SELECT 'DMS', n::integer, name,
	   CASE name WHEN 'Latrine coverage (%)' THEN 'PERCENTAGE' WHEN 'Remarks' THEN 'TEXT'
				 WHEN 'Last supervision date' THEN 'DATE' WHEN 'Net change in active CHWs' THEN 'INTEGER'
				 ELSE 'NUMBER' END,
	   220001
FROM unnest(ARRAY['Chiefdom supervision visits', 'Chiefdom health meetings', 'Active community health workers',
				  'Net change in active CHWs', 'Village development committees', 'Outreach sessions planned',
				  'Outreach sessions conducted', 'Health promotion events', 'Monthly reports received',
				  'Monthly reports received on time', 'Stock reports received', 'Births notified',
				  'Deaths notified', 'Cholera alerts', 'Measles alerts', 'Referrals received',
				  'Traditional birth attendants', 'Latrine coverage (%)', 'Last supervision date',
				  'Remarks']) WITH ORDINALITY AS t(name, n);

INSERT INTO g_de_def (ds, n, name, valuetype, combo, uid, code)
SELECT 'EDGE', n, 'Edge period value ' || n, 'NUMBER', 220001, 'EdgePeriod' || n, 'DE_EDGE_' || n
FROM generate_series(1, 4) n;

/* one data element per hostile case (datavalues.sql has the rows; README.md the list) */
INSERT INTO g_de_def (ds, n, name, valuetype, combo, uid, code, nocode)
SELECT 'HOST', n, name, vt, 220001, 'Hostile' || lpad(n::text, 4, '0'), code, code IS NULL
FROM (VALUES
	(1, 'Hostile 01: double quote "q", and comma', 'TEXT', 'HOSTILE "01", quoted'),
	(2, 'Hostile 02: backslash \ and \u0041', 'TEXT', E'HOSTILE_02\\back'),
	(3, 'Hostile 03: control characters 0x01-0x1F', 'TEXT', 'HOSTILE_03'),
	(4, 'Hostile 04: DEL 0x7F', 'TEXT', 'HOSTILE_04'),
	(5, 'Hostile 05: U+2028 and U+2029', 'TEXT', 'HOSTILE_05'),
	(6, 'Hostile 06: non-ASCII é 中文', 'TEXT', 'HOSTILE_06_é中文'),
	(7, 'Hostile 07: 4-byte UTF-8 😀', 'TEXT', 'HOSTILE_07_😀'),
	(8, 'Hostile 08: 50,000-character ASCII value', 'LONG_TEXT', 'HOSTILE_08'),
	(9, 'Hostile 09: 50,000-character comment', 'TEXT', 'HOSTILE_09'),
	(10, 'Hostile 10: 50,000 two-byte characters', 'LONG_TEXT', 'HOSTILE_10'),
	(11, 'Hostile 11: 50,000 double quotes', 'LONG_TEXT', 'HOSTILE_11'),
	(12, 'Hostile 12: 50,000 control characters', 'LONG_TEXT', 'HOSTILE_12'),
	(13, 'Hostile 13: 50,000 emoji', 'LONG_TEXT', 'HOSTILE_13'),
	(14, '  Hostile 14: leading and trailing spaces  ', 'TEXT', 'HOSTILE_14'),
	(15, 'Hostile 15: tabs', 'TEXT', 'HOSTILE_15'),
	(16, 'Hostile 16: whitespace only', 'TEXT', 'HOSTILE_16'),
	(17, 'Hostile 17: commas', 'TEXT', 'HOSTILE_17'),
	(18, 'Hostile 18: CR LF, CR, LF', 'TEXT', 'HOSTILE_18'),
	(19, '#Hostile 19: leading hash', 'TEXT', '#HOSTILE_19'),
	(20, 'Hostile 20: NULL value', 'TEXT', NULL),
	(21, 'Hostile 21: empty-string value', 'TEXT', ''),
	(22, 'Hostile 22: NULL and empty storedby', 'TEXT', 'HOSTILE_22'),
	(23, 'Hostile 23: NULL and empty comment', 'TEXT', 'HOSTILE_23'),
	(24, 'Hostile 24: followup true, false, NULL', 'TEXT', 'HOSTILE_24'),
	(25, 'Hostile 25: deleted rows', 'TEXT', 'HOSTILE_25'),
	(26, 'Hostile 26: literal null and numeric-looking text', 'TEXT', 'HOSTILE_26'),
	(27, 'Hostile 27: markup, JSON and slashes', 'TEXT', 'HOSTILE_27'),
	(28, 'Hostile 28: leading and trailing control characters', 'TEXT', 'HOSTILE_28'),
	(29, 'Hostile 29: CSV quoting example', 'TEXT', 'HOSTILE_29'),
	(30, 'Hostile 30: hostile storedby', 'TEXT', 'HOSTILE_30'),
	(31, 'Hostile 31: timestamp .999999 at year end', 'NUMBER', 'HOSTILE_31'),
	(32, 'Hostile 32: sub-millisecond timestamps', 'NUMBER', 'HOSTILE_32'),
	(33, 'Hostile 33: hostile org unit', 'TEXT', 'HOSTILE_33'),
	(34, 'Hostile 34: fully tied sort key', 'NUMBER', 'HOSTILE_34'),
	(35, 'Hostile 35: JSON short escapes', 'TEXT', 'HOSTILE_35'),
	(36, 'Hostile 36: BOM, zero-width space, U+FFFD', 'TEXT', 'HOSTILE_36'),
	(37, 'Hostile 37: value at an org unit without code', 'TEXT', 'HOSTILE_37'),
	(38, 'Hostile 38: option combos without code', 'NUMBER', 'HOSTILE_38')
) v(n, name, vt, code);
/* case 38 is disaggregated by Sex, so that it can carry the code-less COC Male */
UPDATE g_de_def SET combo = 220004 WHERE ds = 'HOST' AND n = 38;

/* ids in a hash order, so that dataelementid order, uid order and name order all differ */
CREATE TEMP TABLE g_de AS
SELECT 300000 + row_number() OVER (ORDER BY md5(d.ds || ':' || d.n)) AS dataelementid,
	   coalesce(d.uid, pg_temp.dve_uid('de:' || d.ds || ':' || d.n)) AS uid,
	   CASE WHEN d.uid IS NOT NULL OR d.ds IN ('EDGE', 'HOST') THEN d.code
			WHEN d.nocode THEN NULL
			ELSE 'DE_' || (400000 + dense_rank() OVER (ORDER BY ds.datasetid, d.n)) END AS code,
	   d.ds, d.n, d.name, d.valuetype, d.combo, ds.datasetid
FROM g_de_def d JOIN g_ds ds ON ds.key = d.ds;
/* the three real ANC uids without a known code get generated codes */
UPDATE g_de SET code = 'DE_' || (400000 + 900 + n) WHERE ds = 'RH' AND code IS NULL AND n BETWEEN 2 AND 4;

INSERT INTO dataelement (dataelementid, uid, code, created, lastupdated, name, shortname, formname, valuetype,
						 domaintype, aggregationtype, categorycomboid, zeroissignificant, translations,
						 attributevalues, sharing)
SELECT dataelementid, uid, code,
	   '2011-12-24 12:24:25'::timestamp + (pg_temp.dve_h(dataelementid, 401) % 300000000) * interval '1 second',
	   '2023-03-01 10:00:00'::timestamp + (pg_temp.dve_h(dataelementid, 402) % 30000000) * interval '1 second',
	   name, left(name, 50), NULL, valuetype, 'AGGREGATE',
	   CASE WHEN valuetype IN ('PERCENTAGE', 'BOOLEAN', 'TRUE_ONLY') THEN 'AVERAGE'
			WHEN valuetype IN ('TEXT', 'LONG_TEXT', 'DATE') THEN 'NONE' ELSE 'SUM' END,
	   combo, false, '[]',
	   CASE
		   WHEN uid = 'Hostile0001' THEN '{"ExtIdAttr01": {"value": "ext \"quoted\", comma"}}'::jsonb
		   WHEN uid = 'Hostile0003' THEN jsonb_build_object('ExtIdAttr01', jsonb_build_object('value', E'ext\u0001ctl\u001f'))
		   WHEN uid = 'Hostile0006' THEN '{"ExtIdAttr01": {"value": "ext é 中文 😀"}}'::jsonb
		   WHEN ds = 'HOST' THEN '{}'::jsonb
		   /* one in seven without a value for External ID; a few with both attributes */
		   WHEN n % 7 = 0 THEN '{}'::jsonb
		   WHEN n % 9 = 1 THEN jsonb_build_object('ExtIdAttr01', jsonb_build_object('value', 'EXT-' || code),
												  'RepTagAttr1', jsonb_build_object('value', 'tag-' || ds))
		   ELSE jsonb_build_object('ExtIdAttr01', jsonb_build_object('value', 'EXT-' || coalesce(code, uid)))
	   END,
	   '{"owner": null, "users": {}, "public": "rw------", "external": false, "userGroups": {}}'
FROM g_de
ORDER BY dataelementid;

/*
 * membership: every data element in its own data set; the four ANC visits also in DMS; hostile
 * case 38 also in the partner report, whose attribute combo has the code-less AOC Partner B
 */
INSERT INTO datasetelement (datasetelementid, datasetid, dataelementid, categorycomboid)
SELECT 410000 + row_number() OVER (ORDER BY datasetid, dataelementid), datasetid, dataelementid, NULL
FROM (SELECT datasetid, dataelementid FROM g_de
	  UNION ALL
	  SELECT 400008, dataelementid FROM g_de WHERE ds = 'RH' AND n <= 4
	  UNION ALL
	  SELECT 400004, dataelementid FROM g_de WHERE ds = 'HOST' AND n = 38) m;

-- data element groups --------------------------------------------------------------------------

CREATE TEMP TABLE g_deg (dataelementgroupid bigint, name text, code text, members text);
INSERT INTO g_deg VALUES
	(390001, 'ANC', 'DEG_ANC', 'RH 1-13'),
	(390002, 'Reproductive health', 'DEG_RH', 'RH'),
	(390003, 'Immunization', 'DEG_IMMUNIZATION', 'CH 1-20'),
	(390004, 'Child health', 'DEG_CH', 'CH'),
	(390005, 'HIV/AIDS', 'DEG_HIV', 'ART HIVP'),
	(390006, 'Surveillance (IDSR)', 'DEG_IDSR', 'IDSR'),
	(390007, 'Facility infrastructure', 'DEG_QFR', 'QFR'),
	(390008, 'Population', 'DEG_POP', 'POP'),
	(390009, 'Chiefdom management', 'DEG_DMS', 'DMS'),
	(390010, 'Period type edge cases', 'DEG_EDGE', 'EDGE'),
	(390011, 'Hostile values', 'DEG_HOSTILE', 'HOST'),
	(390012, 'One per data set', 'DEG_SAMPLE', 'first of each'),
	(390013, 'Empty group', NULL, 'none');

INSERT INTO dataelementgroup (dataelementgroupid, uid, code, created, lastupdated, name, shortname, translations,
							  attributevalues, sharing)
SELECT dataelementgroupid, pg_temp.dve_uid('deg:' || name), code, '2012-03-01 10:00:00', '2023-03-01 10:00:00',
	   name, name, '[]', '{}',
	   '{"owner": null, "users": {}, "public": "rw------", "external": false, "userGroups": {}}'
FROM g_deg ORDER BY 1;

INSERT INTO dataelementgroupmembers (dataelementid, dataelementgroupid)
SELECT d.dataelementid, g.dataelementgroupid
FROM g_deg g
JOIN g_de d ON CASE g.members
				   WHEN 'RH 1-13' THEN d.ds = 'RH' AND d.n <= 13
				   WHEN 'CH 1-20' THEN d.ds = 'CH' AND d.n <= 20
				   WHEN 'ART HIVP' THEN d.ds IN ('ART', 'HIVP')
				   WHEN 'first of each' THEN d.n = 1
				   WHEN 'none' THEN false
				   ELSE d.ds = g.members
			   END
ORDER BY 2, 1;
