-- export_datavalues(query): a DHIS2 request's query string, verbatim.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

-- Same document as the named-parameter function.
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8')
     = export_datavalues_json(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}')
  AS same_json;
-- format=csv, comma lists, repeated parameters, percent-encoding (%4E is N), booleans as Spring reads them.
SELECT export_datavalues('dataSet=pBOMPrpg1QX,MalariaWk01&period=202401&period=2024W1&orgUnit=ImspTQPwCqd'
                         '&children=yes&format=csv&idScheme=%4EAME&includeDeleted=0');
SELECT export_datavalues('dataElement=cYeuwXTCPkU&startDate=2024-01-01&endDate=2024-03-31&orgUnit=O6uvpzGd5pu'
                         '&orgUnit=YuQRtpLP10I&excludeDefaultCoc=true&order=PE,CREATED');
-- The 2.42 shape, limit and lastUpdated.
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202402&orgUnit=YuQRtpLP10I&style=2.42&limit=1');
SELECT jsonb_array_length(export_datavalues('dataSet=pBOMPrpg1QX&lastUpdated=2024-02-03T10:11:12.999Z'
                          '&orgUnit=ImspTQPwCqd&children=true')::jsonb -> 'dataValues');
-- Errors: unknown parameter with the closest valid name, bad values; ADX (format=adx+xml, CODE by default)
-- refuses an org unit without a code.
SELECT export_datavalues('dataset=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8');
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&children=maybe');
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&format=adx%2Bxml');
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&startDate=2024-02-30');
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&limit=1&limit=2');
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=%ZZ');
SELECT export_datavalues('period=202401&orgUnit=DiszpKrYNg8');
SELECT export_datavalues('dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8&compression=gzip');
