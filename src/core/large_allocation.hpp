/*
 * src/core/large_allocation.hpp
 *	  Memory for large buffers (sorted runs): aligned to 2 MB and advised for transparent huge
 *	  pages.
 *
 * An ordered export fills two sort runs of several MB each from fresh memory, and the first
 * touch of every 4 kB page is a page fault. On bare metal that is a fraction of a microsecond;
 * in a virtual machine with software-managed page tables (the test machine) it measured about
 * 18 us, so 32 MB cost 140 ms, a third of a whole 1M-value export. With MADV_HUGEPAGE (honoured
 * when /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise", the default of
 * most distributions) one fault maps 2 MB. The advice is only a hint: where it is ignored the
 * memory behaves as before. Small blocks come from malloc as usual; free everything with
 * std::free.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

/* bytes of malloc-family memory (nullptr if none); from 2 MB up, 2 MB-aligned and advised for huge pages. */
void *AllocateLarge(size_t bytes) noexcept;

/* A std::allocator for vectors that grow to megabytes (the sort entries). */
template <typename T>
struct LargeAllocator {
	using value_type = T;
	LargeAllocator() = default;
	template <typename U>
	LargeAllocator(const LargeAllocator<U> &) noexcept
	{
	}
	T *allocate(size_t n)
	{
		if (n > SIZE_MAX / sizeof(T))
			throw std::bad_alloc();
		void *p = AllocateLarge(n * sizeof(T));
		if (p == nullptr)
			throw std::bad_alloc();
		return static_cast<T *>(p);
	}
	void deallocate(T *p, size_t) noexcept { std::free(p); }
	template <typename U>
	bool operator==(const LargeAllocator<U> &) const noexcept
	{
		return true;
	}
	template <typename U>
	bool operator!=(const LargeAllocator<U> &) const noexcept
	{
		return false;
	}
};

} // namespace datavalue_export::core
