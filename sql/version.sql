-- The version compiled into the library is the version of the SQL objects a fresh install
-- gets (default_version in the control file); test/version_check.sh checks the files without
-- a server.
SELECT datavalue_export_version() = extversion AS library_matches_extension,
       extversion = a.default_version AS extension_at_default_version
FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname
WHERE e.extname = 'datavalue_export';
-- A version string, not an empty or quoted one (the Makefile's -DDVE_VERSION).
SELECT datavalue_export_version() ~ '^[0-9]+\.[0-9]+(\.[0-9]+)?$' AS looks_like_version;
-- Anyone may ask; it is not an export.
SELECT has_function_privilege('public', 'datavalue_export_version()', 'EXECUTE') AS public_can_execute;
