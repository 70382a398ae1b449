/* datavalue_export--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION datavalue_export UPDATE TO '1.1'" to load this file. \quit

-- The version compiled into the loaded library; after a library upgrade and before ALTER
-- EXTENSION ... UPDATE it differs from pg_extension.extversion. STABLE, as version() is.
CREATE FUNCTION datavalue_export_version() RETURNS text
AS 'MODULE_PATHNAME', 'datavalue_export_version'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION datavalue_export_version() IS
'Version of the datavalue_export library loaded in this session (compare with pg_extension.extversion).';
