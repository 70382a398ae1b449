/*
 * src/pg/boundary.hpp
 *	  The C++/PostgreSQL boundary: run core code so that no exception reaches PostgreSQL and
 *	  no ereport longjmps over a live C++ object.
 *
 * Rules this header serves (house style 7.2):
 *   - every call into core code goes through DVE_CORE(...): it runs the code in a try block,
 *     copies any exception into a fixed-size POD record, leaves the C++ scope, and only then
 *     calls ereport, so all C++ frames are gone before the longjmp;
 *   - src/pg frames that call PostgreSQL functions (which may ereport) hold only trivially
 *     destructible locals; long-lived C++ state lives on the heap, owned by a memory-context
 *     reset callback (see entry_points.cpp), so an aborted query still frees it;
 *   - SQL entry points are declared with DVE_PG_FUNCTION, one wrapper for all of them.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include "pg/pg_includes.hpp"

namespace datavalue_export::pg {

/* What a failed core call reports: plain bytes, so nothing needs destroying. */
struct CoreFailure {
	char sqlstate[6];
	char message[1024];
	char detail[1024];
	char hint[512];
};

/* Record the exception in flight; call only from a catch handler. */
void CaptureCurrentException(CoreFailure *failure) noexcept;

/* ereport(ERROR) from a captured failure. Never returns. */
[[noreturn]] void ReportCoreFailure(const CoreFailure *failure);

template <typename Fn>
inline bool
TryCore(CoreFailure *failure, Fn &&fn) noexcept
{
	try {
		fn();
		return true;
	} catch (...) {
		CaptureCurrentException(failure);
		return false;
	}
}

} // namespace datavalue_export::pg

/* Run core code; on exception, report it after the C++ scope is gone. */
#define DVE_CORE(...)                                                                                                  \
	do {                                                                                                               \
		::datavalue_export::pg::CoreFailure dve_failure_;                                                              \
		if (!::datavalue_export::pg::TryCore(&dve_failure_, [&]() { __VA_ARGS__; }))                                   \
			::datavalue_export::pg::ReportCoreFailure(&dve_failure_);                                                  \
	} while (0)

/*
 * Declare a SQL-callable function whose body is name##_impl. The body may call PostgreSQL
 * freely (it holds no C++ objects); the try block only catches what a careless core call
 * outside DVE_CORE might let escape.
 */
#define DVE_PG_FUNCTION(name)                                                                                          \
	static Datum name##_impl(FunctionCallInfo fcinfo);                                                                 \
	extern "C" {                                                                                                       \
	PG_FUNCTION_INFO_V1(name);                                                                                         \
	PGDLLEXPORT Datum name(PG_FUNCTION_ARGS)                                                                           \
	{                                                                                                                  \
		::datavalue_export::pg::CoreFailure dve_failure_;                                                              \
		Datum dve_result_ = (Datum)0;                                                                                  \
		if (!::datavalue_export::pg::TryCore(&dve_failure_, [&]() { dve_result_ = name##_impl(fcinfo); }))             \
			::datavalue_export::pg::ReportCoreFailure(&dve_failure_);                                                  \
		return dve_result_;                                                                                            \
	}                                                                                                                  \
	}                                                                                                                  \
	static Datum name##_impl(FunctionCallInfo fcinfo)
