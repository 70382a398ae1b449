-- style => '2.42': DHIS2 2.42's Jackson JSON and CSV shapes.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

-- Single data value set (one data set, one period, one org unit): the four header members,
-- completeDate from completedatasetregistration (default AOC). Every value member is present,
-- null when empty, followup NULL as false; no hoisting.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              style => '2.42');

-- No registration: completeDate null. Children do not disqualify the single-set header.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202402}', org_unit => '{O6uvpzGd5pu}',
                              children => true, style => '2.42');

-- Not a single set (two periods): only dataValues. Deleted rows carry "deleted":true.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401,202402}',
                              org_unit => '{YuQRtpLP10I}', include_deleted => true, style => '2.42');

-- A missing identifier under a non-UID scheme is null in 2.42 (2.43 refuses: see id_schemes).
SELECT export_datavalues_json(data_set => '{MalariaWk01}', period => '{2024W1}', org_unit => '{O6uvpzGd5pu}',
                              id_scheme => 'code', style => '2.42');

-- CSV 2.42: followup false for NULL, deleted "true" or the literal "null".
SELECT export_datavalues_csv(data_set => '{pBOMPrpg1QX}', period => '{202402}', org_unit => '{YuQRtpLP10I}',
                             include_deleted => true, style => '2.42');

-- Unknown style.
SELECT export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                              style => '2.41');
