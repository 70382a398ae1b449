/*
 * src/pg/boundary.cpp
 *	  Exception capture and reporting for the C++/PostgreSQL boundary; see boundary.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <cstring>
#include <exception>
#include <new>
#include <system_error>

#include "core/error.hpp"
/* Core headers refuse to follow PostgreSQL's; src/pg always includes them first. */
#include "pg/boundary.hpp"

namespace datavalue_export::pg {

namespace {
/* Copy a message into a fixed buffer, cut at a character boundary of the server encoding. */
void
Copy(char *dst, size_t size, const char *src) noexcept
{
	if (src == nullptr) {
		dst[0] = '\0';
		return;
	}
	const int length = static_cast<int>(strnlen(src, size));
	const int keep = length < static_cast<int>(size) ? length : pg_mbcliplen(src, length, static_cast<int>(size) - 1);
	memcpy(dst, src, keep);
	dst[keep] = '\0';
}
} // namespace

void
CaptureCurrentException(CoreFailure *failure) noexcept
{
	Copy(failure->detail, sizeof failure->detail, "");
	Copy(failure->hint, sizeof failure->hint, "");
	try {
		throw;
	} catch (const core::Error &e) {
		Copy(failure->sqlstate, sizeof failure->sqlstate, e.Sqlstate());
		Copy(failure->message, sizeof failure->message, e.what());
		Copy(failure->detail, sizeof failure->detail, e.Detail().c_str());
		Copy(failure->hint, sizeof failure->hint, e.Hint().c_str());
	} catch (const std::bad_alloc &) {
		Copy(failure->sqlstate, sizeof failure->sqlstate, core::sqlstate::kOutOfMemory);
		Copy(failure->message, sizeof failure->message, "out of memory");
	} catch (const std::system_error &e) {
		/* std::thread's EAGAIN: the process or thread limit, as PostgreSQL's own "could not fork". */
		const bool thread_limit = e.code() == std::errc::resource_unavailable_try_again;
		Copy(failure->sqlstate, sizeof failure->sqlstate,
		     thread_limit ? core::sqlstate::kInsufficientResources : core::sqlstate::kInternalError);
		Copy(failure->message, sizeof failure->message,
		     thread_limit ? "could not start a thread for the export" : "internal error in datavalue_export");
		Copy(failure->detail, sizeof failure->detail, e.what());
		if (thread_limit)
			Copy(failure->hint, sizeof failure->hint,
			     "The server's user reached its limit of processes and threads (ulimit -u, a container's "
			     "pids.max, kernel.threads-max). An unordered export without gzip (\"order\" => 'none') "
			     "starts no thread.");
	} catch (const std::exception &e) {
		Copy(failure->sqlstate, sizeof failure->sqlstate, core::sqlstate::kInternalError);
		Copy(failure->message, sizeof failure->message, "internal error in datavalue_export");
		Copy(failure->detail, sizeof failure->detail, e.what());
	} catch (...) {
		Copy(failure->sqlstate, sizeof failure->sqlstate, core::sqlstate::kInternalError);
		Copy(failure->message, sizeof failure->message, "internal error in datavalue_export");
	}
}

void
ReportCoreFailure(const CoreFailure *failure)
{
	const char *s = failure->sqlstate;
	ereport(ERROR, (errcode(MAKE_SQLSTATE(s[0], s[1], s[2], s[3], s[4])), errmsg_internal("%s", failure->message),
	                failure->detail[0] ? errdetail_internal("%s", failure->detail) : 0,
	                failure->hint[0] ? errhint("%s", failure->hint) : 0));
	pg_unreachable();
}

} // namespace datavalue_export::pg
