/*
 * src/pg/compat.hpp
 *	  The PostgreSQL API differences between the supported majors (14 to 18), in one place.
 *
 * Every PG_VERSION_NUM test of src/pg lives here; call sites use the names below and contain
 * no #if. pg_includes.hpp includes this file after the PostgreSQL headers; do not include it
 * on its own. Each guard sits at the release that changed the API (PostgreSQL's sources,
 * REL_14_STABLE .. REL_18_STABLE):
 *
 *   - 14 is the floor. SPI_execute_extended with a DestReceiver (executor/spi.h),
 *     pg_stat_progress_copy with PROGRESS_COPY_* (commands/progress.h), the ProcessUtility
 *     hook's readOnlyTree argument (tcop/utility.h), FuncnameGetCandidates'
 *     include_out_arguments (catalog/namespace.h) and utils/backend_progress.h are all new in
 *     14, and 14 to 18 agree on them, so those call sites need nothing here.
 *   - 15 added MarkGUCPrefixReserved (utils/guc.h); 14 has the older EmitWarningsOnPlaceholders,
 *     which warns about misspelt datavalue_export.* settings instead of rejecting them.
 *   - 16 made FileRead/FileWrite (storage/fd.h) take void * buffers and size_t amounts; 15
 *     has char * and int.
 *   - 18 added PG_MODULE_MAGIC_EXT (fmgr.h): the module states its name and version, shown by
 *     pg_get_loaded_modules().
 *
 * Unchanged from 14 to 18 and used as is: pq_flush (PqCommMethods) and secure_write
 * (libpq/libpq.h), CopyStmt, ActivePortal and Portal->commandTag, tuplestore_begin_heap,
 * OpenTemporaryFile/FileClose, construct_array; for staging heap tuples (datavalue_query.cpp)
 * TTS_IS_BUFFERTUPLE, ExecFetchSlotHeapTuple, the HeapTupleHeader accessors, heap_deform_tuple and
 * the on-disk tuple format itself.
 *
 * Tested for real by test/matrix.sh: 15, 17, 18. 14 and 16 are built on the strength of these
 * guards alone (no server headers for them are reachable from the test machine).
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#if PG_VERSION_NUM < 140000
#error "datavalue_export needs PostgreSQL 14 or later (SPI_execute_extended and pg_stat_progress_copy are new in 14)"
#endif

#ifndef DATAVALUE_EXPORT_VERSION
#error "DATAVALUE_EXPORT_VERSION is not defined; build with the Makefile (it passes EXTVERSION)"
#endif

/* The module's magic block; from 18 on it also names the module and its version. */
#if PG_VERSION_NUM >= 180000
#define DATAVALUE_EXPORT_MODULE_MAGIC                                                                                  \
	PG_MODULE_MAGIC_EXT(.name = "datavalue_export", .version = DATAVALUE_EXPORT_VERSION)
#else
#define DATAVALUE_EXPORT_MODULE_MAGIC PG_MODULE_MAGIC
#endif

namespace datavalue_export::pg {

/* Reserve a custom setting prefix: unknown settings under it become errors (15+) or warnings (14). */
inline void
ReserveSettingPrefix(const char *prefix)
{
#if PG_VERSION_NUM >= 150000
	MarkGUCPrefixReserved(prefix);
#else
	EmitWarningsOnPlaceholders(prefix);
#endif
}

/* Read or write a temporary file at an offset; returns the byte count, or -1 with errno set. */
inline ssize_t
ReadTemporaryFile(File file, char *buffer, size_t amount, off_t offset)
{
#if PG_VERSION_NUM >= 160000
	return FileRead(file, buffer, amount, offset, WAIT_EVENT_BUFFILE_READ);
#else
	return FileRead(file, buffer, static_cast<int>(amount), offset, WAIT_EVENT_BUFFILE_READ);
#endif
}

inline ssize_t
WriteTemporaryFile(File file, const char *buffer, size_t amount, off_t offset)
{
#if PG_VERSION_NUM >= 160000
	return FileWrite(file, buffer, amount, offset, WAIT_EVENT_BUFFILE_WRITE);
#else
	return FileWrite(file, const_cast<char *>(buffer), static_cast<int>(amount), offset, WAIT_EVENT_BUFFILE_WRITE);
#endif
}

} // namespace datavalue_export::pg
