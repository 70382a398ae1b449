-- The named parameters of export_datavalues_adx (those of export_datavalues_json and
-- export_datavalues_csv, then the ADX-only ones), one row each, in argument order, as the server has them. The parameter table (src/core/parameters.cpp) must say
-- the same: test/unit/parameters_test.cpp reads these rows from expected/parameters.out and
-- compares names, types, defaults and order with the table, so a change to either side fails.
SELECT a.n AS position, a.arg AS argument
FROM regexp_split_to_table(pg_get_function_arguments('export_datavalues_adx'::regproc), ', ')
     WITH ORDINALITY AS a(arg, n)
ORDER BY a.n;
-- ADX takes the JSON parameters first, then its own.
SELECT starts_with(pg_get_function_arguments('export_datavalues_adx'::regproc),
                   pg_get_function_arguments('export_datavalues_json'::regproc) || ', ') AS adx_extends_json;
-- Both functions take the same parameters.
SELECT pg_get_function_arguments('export_datavalues_json'::regproc) =
       pg_get_function_arguments('export_datavalues_csv'::regproc) AS same_arguments;
-- The XML function takes them too (1.1).
SELECT pg_get_function_arguments('export_datavalues_json'::regproc) =
       pg_get_function_arguments('export_datavalues_xml'::regproc) AS same_arguments;
