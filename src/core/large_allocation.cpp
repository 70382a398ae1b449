/*
 * src/core/large_allocation.cpp
 *	  Huge-page-advised allocations; see large_allocation.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/large_allocation.hpp"

#include <cstdint>

#include <sys/mman.h>

namespace datavalue_export::core {

void *
AllocateLarge(size_t bytes) noexcept
{
	if (bytes < kHugePageBytes)
		return std::malloc(bytes);
	if (bytes > SIZE_MAX - kHugePageBytes)
		return nullptr;
	const size_t rounded = (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
	void *p = std::aligned_alloc(kHugePageBytes, rounded);
#ifdef MADV_HUGEPAGE
	if (p != nullptr)
		(void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint; where refused, 4 kB pages as usual */
#endif
	return p;
}

} // namespace datavalue_export::core
