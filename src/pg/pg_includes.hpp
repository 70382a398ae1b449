/*
 * src/pg/pg_includes.hpp
 *	  Every PostgreSQL header src/pg uses, in one place, with C linkage.
 *
 * After the headers, undefine the port.h macros that rename C library functions
 * (snprintf -> pg_snprintf, ...): they break <cstdio> and friends in C++.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

extern "C" {
#include "postgres.h"

#include <sys/stat.h>

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/copy.h"
#include "commands/defrem.h"
#include "commands/progress.h"
#include "commands/tablespace.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "libpq/libpq-be.h"
#include "libpq/libpq.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "pgstat.h"
#include "parser/parser.h"
#include "storage/fd.h"
#include "tcop/dest.h"
#include "tcop/pquery.h"
#include "tcop/tcopprot.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/backend_progress.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/portal.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/varlena.h"
}

#undef snprintf
#undef vsnprintf
#undef sprintf
#undef vsprintf
#undef fprintf
#undef printf
#undef unlink
#undef bind
#undef gettext
#undef dgettext
#undef ngettext
#undef dngettext

/* The differences between PostgreSQL majors: the one place with PG_VERSION_NUM tests. */
#include "pg/compat.hpp"
