-- Upgrade path: an install at the oldest supported version, updated step by step, must end
-- exactly where a fresh install of the current version does.
--
-- The comparison is generic: every object pg_depend records as a member of the extension, by
-- identity, definition (pg_get_functiondef for functions; kind and columns for relations;
-- format_type for types), comment, ACL and initial privileges (pg_init_privs), plus the export
-- output on the fixture. So a function added to only one of datavalue_export--<new>.sql and
-- datavalue_export--<old>--<new>.sql, a changed default or comment, or a missing REVOKE, shows
-- up as a difference row below. A version bump adds one ALTER EXTENSION ... UPDATE TO step.
\getenv abs_srcdir PG_ABS_SRCDIR
\set ECHO none
\set fixture :abs_srcdir '/test/data/fixture.sql'
\i :fixture
\set QUIET off
\set ECHO all

-- One row per extension member: what an upgrade and a fresh install must agree on.
CREATE FUNCTION public.regress_extension_state() RETURNS TABLE (object text, definition text, description text,
                                                                acl text, initial_acl text)
LANGUAGE sql AS $$
SELECT pg_describe_object(d.classid, d.objid, d.objsubid),
       CASE d.classid
           WHEN 'pg_proc'::regclass THEN
               (SELECT CASE WHEN p.prokind = 'a' THEN 'aggregate'
                            ELSE pg_get_functiondef(p.oid) END FROM pg_proc p WHERE p.oid = d.objid)
           WHEN 'pg_class'::regclass THEN
               (SELECT c.relkind::text || ' ' || coalesce(string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                                                               || coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), ''),
                                                               ', ' ORDER BY a.attnum), '')
                       || coalesce(' as ' || pg_get_viewdef(c.oid), '')
                FROM pg_class c
                LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
                WHERE c.oid = d.objid GROUP BY c.oid, c.relkind)
           WHEN 'pg_type'::regclass THEN
               (SELECT t.typtype::text || ' ' || format_type(t.oid, NULL) FROM pg_type t WHERE t.oid = d.objid)
       END,
       (SELECT s.description FROM pg_description s
        WHERE s.objoid = d.objid AND s.classoid = d.classid AND s.objsubid = d.objsubid),
       CASE d.classid
           WHEN 'pg_proc'::regclass THEN (SELECT p.proacl::text FROM pg_proc p WHERE p.oid = d.objid)
           WHEN 'pg_class'::regclass THEN (SELECT c.relacl::text FROM pg_class c WHERE c.oid = d.objid)
           WHEN 'pg_type'::regclass THEN (SELECT t.typacl::text FROM pg_type t WHERE t.oid = d.objid)
           WHEN 'pg_namespace'::regclass THEN (SELECT n.nspacl::text FROM pg_namespace n WHERE n.oid = d.objid)
       END,
       (SELECT i.initprivs::text FROM pg_init_privs i
        WHERE i.objoid = d.objid AND i.classoid = d.classid AND i.objsubid = d.objsubid)
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'datavalue_export'
UNION ALL
-- The behaviour the functions are for: the same documents, JSON and CSV.
SELECT 'export ' || format, NULL, doc, NULL, NULL
FROM (SELECT 'json' AS format, string_agg(chunk, '' ORDER BY n) AS doc
      FROM export_datavalues_json(data_set => '{pBOMPrpg1QX}', org_unit => '{ImspTQPwCqd}', children => true,
                                  start_date => '2020-01-01', end_date => '2024-12-31') WITH ORDINALITY AS t(chunk, n)
      UNION ALL
      SELECT 'csv', string_agg(chunk, '' ORDER BY n)
      FROM export_datavalues('dataSet=pBOMPrpg1QX&orgUnit=ImspTQPwCqd&children=true&startDate=2020-01-01&endDate=2024-12-31&format=csv')
           WITH ORDINALITY AS t(chunk, n)) exports
$$;
CREATE TABLE public.regress_extension_snapshot (install text, object text, definition text, description text,
                                               acl text, initial_acl text);

-- 1.0, the oldest supported version, as released.
DROP EXTENSION datavalue_export;
CREATE EXTENSION datavalue_export VERSION '1.0' SCHEMA public;
SELECT extversion FROM pg_extension WHERE extname = 'datavalue_export';
-- The extension's functions: set-returning, volatility, parallel safety, documented, not for PUBLIC.
\set extension_functions 'SELECT p.oid::regprocedure AS function, p.proretset AS returns_set, p.provolatile, p.proparallel, obj_description(p.oid, ''pg_proc'') IS NOT NULL AS documented, has_function_privilege(''public'', p.oid, ''EXECUTE'') AS public_can_execute FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = ''pg_proc''::regclass JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = ''datavalue_export'' ORDER BY p.proname'
:extension_functions;
-- The named parameters are part of the interface (and of the C code's argument positions).
SELECT pronargs, array_to_string(proargnames, ',') FROM pg_proc WHERE proname = 'export_datavalues_json';
-- A grant made by the DBA must survive the updates.
CREATE ROLE regress_dve_reader;
GRANT EXECUTE ON FUNCTION export_datavalues(text) TO regress_dve_reader;

-- The chain, one step per upgrade script.
ALTER EXTENSION datavalue_export UPDATE TO '1.1';

-- The walk reached the version a fresh install gets.
SELECT e.extversion, e.extversion = a.default_version AS is_default_version
FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname WHERE e.extname = 'datavalue_export';
SELECT has_function_privilege('regress_dve_reader', 'export_datavalues(text)', 'EXECUTE') AS grant_kept;
REVOKE EXECUTE ON FUNCTION export_datavalues(text) FROM regress_dve_reader;
INSERT INTO regress_extension_snapshot SELECT 'updated', * FROM regress_extension_state();

-- A fresh install of the default version.
DROP EXTENSION datavalue_export;
CREATE EXTENSION datavalue_export SCHEMA public;
INSERT INTO regress_extension_snapshot SELECT 'fresh', * FROM regress_extension_state();

-- What is compared: the members of the current version, and the two export documents.
SELECT object, definition IS NOT NULL AS has_definition, description IS NOT NULL AS has_description,
       CASE WHEN acl IS NULL THEN 'default' WHEN acl ~ '[{,]=' THEN 'granted to public' ELSE 'owner only' END AS privileges
FROM regress_extension_snapshot WHERE install = 'fresh' ORDER BY object;
SELECT object, length(description) > 500 AS document_not_trivial FROM regress_extension_snapshot
WHERE install = 'fresh' AND object LIKE 'export %' ORDER BY object;

-- Differences between the updated and the fresh install: none.
(SELECT 'only after update' AS side, object, definition, description, acl, initial_acl
 FROM regress_extension_snapshot WHERE install = 'updated'
 EXCEPT
 SELECT 'only after update', object, definition, description, acl, initial_acl
 FROM regress_extension_snapshot WHERE install = 'fresh')
UNION ALL
(SELECT 'only in fresh install', object, definition, description, acl, initial_acl
 FROM regress_extension_snapshot WHERE install = 'fresh'
 EXCEPT
 SELECT 'only in fresh install', object, definition, description, acl, initial_acl
 FROM regress_extension_snapshot WHERE install = 'updated')
ORDER BY object, side;

-- Nothing in the extension names its schema, so it moves with ALTER EXTENSION SET SCHEMA, and a
-- call qualified with the new schema gives the same document.
CREATE SCHEMA regress_dve_home;
ALTER EXTENSION datavalue_export SET SCHEMA regress_dve_home;
SELECT DISTINCT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE p.proname LIKE 'export_datavalues%';
SELECT string_agg(chunk, '' ORDER BY n) = (SELECT description FROM regress_extension_snapshot
                                           WHERE install = 'fresh' AND object = 'export json') AS same_document
FROM regress_dve_home.export_datavalues_json(data_set => '{pBOMPrpg1QX}', org_unit => '{ImspTQPwCqd}', children => true,
                                             start_date => '2020-01-01', end_date => '2024-12-31')
     WITH ORDINALITY AS t(chunk, n);
ALTER EXTENSION datavalue_export SET SCHEMA public;
DROP SCHEMA regress_dve_home;

LOAD 'datavalue_export';
SELECT name, setting, unit FROM pg_settings WHERE name LIKE 'datavalue_export.%' ORDER BY name;

-- cleanup (the extension stays, at the default version, for the tests that follow)
DROP TABLE regress_extension_snapshot;
DROP FUNCTION regress_extension_state();
DROP ROLE regress_dve_reader;
SET client_min_messages = warning;
DROP SCHEMA regress_dhis2 CASCADE;
RESET client_min_messages;
RESET search_path;
