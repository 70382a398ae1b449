/*
 * src/pg/version.cpp
 *	  SQL entry point datavalue_export_version(): the version compiled into this library.
 *
 * It can differ from pg_extension.extversion: after a new package or `make install` and before
 * ALTER EXTENSION ... UPDATE, the database still has the old version's SQL objects and the new
 * library. Tests compare the two (sql/version.sql, test/deb_test.sh).
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/version.hpp"
/* Core headers first: they refuse to follow PostgreSQL headers. */
#include "pg/boundary.hpp"

DVE_PG_FUNCTION(datavalue_export_version)
{
	/* LibraryVersion() returns a static string and cannot throw. */
	PG_RETURN_TEXT_P(cstring_to_text(datavalue_export::core::LibraryVersion()));
}
