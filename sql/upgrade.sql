-- Install at the oldest supported version, check the objects, then walk each upgrade script
-- (one ALTER EXTENSION ... UPDATE TO step per release) and check again.
DROP EXTENSION datavalue_export;
CREATE EXTENSION datavalue_export VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'datavalue_export';
-- The extension's functions: set-returning, volatility, parallel safety, documented, not for PUBLIC.
\set extension_functions 'SELECT p.oid::regprocedure AS function, p.proretset AS returns_set, p.provolatile, p.proparallel, obj_description(p.oid, ''pg_proc'') IS NOT NULL AS documented, has_function_privilege(''public'', p.oid, ''EXECUTE'') AS public_can_execute FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = ''pg_proc''::regclass JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = ''datavalue_export'' ORDER BY p.proname'
:extension_functions;
-- The named parameters are part of the interface (and of the C code's argument positions).
SELECT pronargs, array_to_string(proargnames, ',') FROM pg_proc WHERE proname = 'export_datavalues_json';
LOAD 'datavalue_export';
SELECT name, setting, unit FROM pg_settings WHERE name LIKE 'datavalue_export.%';
-- 1.0 -> 1.1: export_datavalues_xml, with the same parameters, documented, not executable by PUBLIC.
ALTER EXTENSION datavalue_export UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'datavalue_export';
:extension_functions;
SELECT pg_get_function_arguments('export_datavalues_json'::regproc) =
       pg_get_function_arguments('export_datavalues_xml'::regproc) AS same_arguments;
-- A fresh install at 1.1 (its own script) has the same objects as the upgraded one.
DROP EXTENSION datavalue_export;
CREATE EXTENSION datavalue_export;
SELECT extversion, (SELECT count(*) FROM pg_proc WHERE proname LIKE 'export_datavalues%') AS functions
FROM pg_extension WHERE extname = 'datavalue_export';
