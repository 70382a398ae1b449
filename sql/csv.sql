-- DHIS2 2.43 CSV: header line, full key on every row, javacsv trimming and quoting, booleans.
\getenv abs_srcdir PG_ABS_SRCDIR
\set setup :abs_srcdir '/test/data/setup.sql'
\i :setup

-- Hoisting does not apply to CSV: period and org unit are on every row. Fields are trimmed
-- (value "  9 " becomes 9, storedBy "user<TAB>..." keeps its inner tab), quoted when they hold
-- a quote, comma, CR or LF, with quotes doubled; followup is empty for NULL; lastupdated only.
SELECT export_datavalues_csv(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}');

-- deleted is true/false in 2.43; an empty result is the header line alone.
SELECT export_datavalues_csv(data_set => '{pBOMPrpg1QX}', period => '{202402}', org_unit => '{YuQRtpLP10I}',
                             include_deleted => true);
SELECT export_datavalues_csv(data_set => '{EmptySet001}', period => '{202401}', org_unit => '{DiszpKrYNg8}');

-- excludeDefault* leaves the column empty rather than dropping it.
SELECT export_datavalues_csv(data_element => '{cYeuwXTCPkU}', period => '{2024Q1}', org_unit => '{O6uvpzGd5pu}',
                             exclude_default_coc => true, exclude_default_aoc => true);

-- Every line ends with LF (line.separator on Linux), never CRLF.
SELECT right(d, 1) = E'\n' AS ends_with_lf, position(E'\r\n' IN d) = 0 AS no_crlf
FROM export_datavalues_csv(data_set => '{pBOMPrpg1QX}', period => '{202401}', org_unit => '{DiszpKrYNg8}') AS d;

-- A first column that would be empty or start with '#' is quoted (javacsv); with CODE ids a data
-- element without a code is an error in 2.43, so the 2.42 style shows the empty first column.
SELECT export_datavalues_csv(data_set => '{MalariaWk01}', period => '{2024W1}', org_unit => '{O6uvpzGd5pu}',
                             data_element_id_scheme => 'CODE', style => '2.42');
