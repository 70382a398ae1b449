-- DHIS2 DXF2 XML (export_datavalues_xml, format=xml): both styles, header attributes, escaping
-- of Woodstox, U+FFFD for characters XML 1.0 cannot carry, well-formedness, zip needs COPY.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

-- 2.43: dataSet, period (ISO) and orgUnit hoisted into root attributes; storedBy/comment left out
-- when empty, followUp only when true; the fixture's control characters become U+FFFD.
SELECT export_datavalues_xml(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}');

-- 2.42: completeDate in the header, every non-null attribute, followUp always.
SELECT export_datavalues_xml(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                             style => '2.42');

-- Children and two periods: no orgUnit or period header; deleted values marked deleted="true".
SELECT export_datavalues_xml(data_set => '{pBOMPrpg1QX}', period => '{202401,202402}',
                             org_unit => '{O6uvpzGd5pu}', children => true, include_deleted => true);

-- Non-UID id schemes: the ...IdScheme root attributes, in DHIS2's order.
SELECT export_datavalues_xml(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                             data_set_id_scheme => 'name', data_element_id_scheme => 'code');

-- Empty results: the root element alone, with its header attributes.
SELECT export_datavalues_xml(data_set => '{EmptySet001}', period => '{202401}', org_unit => '{DiszpKrYNg8}');
SELECT export_datavalues_xml(data_set => '{pBOMPrpg1QX,MalariaWk01}', period => '{202312}',
                             org_unit => '{fdc6uOvgoji}', style => '2.42');

-- format=xml through the query string gives the same document, generic web-API parameters ignored.
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&format=xml&paging=false'
                         '&page=1&pageSize=50&skipPaging=true&fields=*')
     = export_datavalues_xml(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}')
  AS same_xml;

-- Every document over the fixture is well-formed XML (PostgreSQL's libxml parser).
SELECT style, xml_is_well_formed_document(string_agg(chunk, '')) AS well_formed
FROM (VALUES ('2.43'), ('2.42')) s(style),
     LATERAL export_datavalues_xml(data_set => '{pBOMPrpg1QX,MalariaWk01,Population0}',
                                   start_date => '1990-01-01', end_date => '2030-12-31',
                                   org_unit => '{ImspTQPwCqd}', children => true, include_deleted => true,
                                   style => s.style) AS chunk
GROUP BY style ORDER BY style;

-- zip, like gzip, needs COPY; a near-miss parameter name gets the closest-match hint.
SELECT export_datavalues_xml(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}',
                             compression => 'zip');
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&format=xml&pagesize=5');
