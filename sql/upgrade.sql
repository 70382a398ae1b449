-- Install at the oldest supported version and check the objects (1.0 is the only version so
-- far; later releases add an ALTER EXTENSION ... UPDATE TO step per upgrade script here).
DROP EXTENSION datavalue_export;
CREATE EXTENSION datavalue_export VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'datavalue_export';
SELECT p.oid::regprocedure AS function, p.proretset AS returns_set, p.provolatile, p.proparallel,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS documented,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_can_execute
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'datavalue_export'
ORDER BY p.proname;
-- The named parameters are part of the interface (and of the C code's argument positions).
SELECT pronargs, array_to_string(proargnames, ',') FROM pg_proc WHERE proname = 'export_datavalues_json';
LOAD 'datavalue_export';
SELECT name, setting, unit FROM pg_settings WHERE name LIKE 'datavalue_export.%';
-- 1.0 -> 1.1: export_datavalues_adx, documented, not executable by PUBLIC, taking the JSON
-- parameters then the two category schemes.
ALTER EXTENSION datavalue_export UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'datavalue_export';
SELECT p.proname, obj_description(p.oid, 'pg_proc') IS NOT NULL AS documented,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_can_execute
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'datavalue_export'
WHERE p.proname = 'export_datavalues_adx';
SELECT pronargs, (proargnames)[39:40] FROM pg_proc WHERE proname = 'export_datavalues_adx';
