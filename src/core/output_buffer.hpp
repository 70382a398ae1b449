/*
 * src/core/output_buffer.hpp
 *	  A growable byte buffer with unchecked appends after an explicit reserve.
 *
 * Writers reserve the worst case of a row's fixed part once, then write through a raw
 * pointer: this is the inner loop of every export, so it avoids std::string's per-append
 * capacity checks. Memory comes from malloc (never palloc): core code owns it, and the
 * buffer is freed by the destructor of the export state, which a memory-context reset
 * callback deletes when a query ends or aborts.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

#include "core/large_allocation.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

class OutputBuffer {
  public:
	OutputBuffer() = default;
	explicit OutputBuffer(size_t initial_capacity) { Grow(initial_capacity); }
	~OutputBuffer() { std::free(data_); }
	OutputBuffer(const OutputBuffer &) = delete;
	OutputBuffer &operator=(const OutputBuffer &) = delete;

	const char *Data() const noexcept { return data_; }
	char *Data() noexcept { return data_; }
	size_t Size() const noexcept { return size_; }
	bool Empty() const noexcept { return size_ == 0; }
	std::string_view View() const noexcept { return {data_, size_}; }
	void Clear() noexcept { size_ = 0; }
	/* Exchange contents and storage with another buffer. */
	void Swap(OutputBuffer &other) noexcept
	{
		std::swap(data_, other.data_);
		std::swap(size_, other.size_);
		std::swap(capacity_, other.capacity_);
	}

	/* Make room for n more bytes; returns the write position. May throw std::bad_alloc. */
	char *Reserve(size_t n)
	{
		if (capacity_ - size_ < n)
			Grow(size_ + n);
		return data_ + size_;
	}
	/* Commit bytes written through the pointer Reserve returned. */
	void Commit(char *end) noexcept { size_ = static_cast<size_t>(end - data_); }
	void Resize(size_t n) noexcept { size_ = n; }

	void Append(const char *p, size_t n)
	{
		char *w = Reserve(n);
		std::memcpy(w, p, n);
		size_ += n;
	}
	void Append(std::string_view s) { Append(s.data(), s.size()); }
	void Append(char c)
	{
		*Reserve(1) = c;
		size_++;
	}

  private:
	void Grow(size_t min_capacity)
	{
		size_t cap = capacity_ ? capacity_ : 4096;
		while (cap < min_capacity)
			cap *= 2;
		char *p;
		if (cap >= kHugePageBytes) {
			/* Sort runs and large texts: huge pages (large_allocation.hpp); copy what is there. */
			p = static_cast<char *>(AllocateLarge(cap));
			if (p == nullptr)
				throw std::bad_alloc();
			if (size_ > 0)
				std::memcpy(p, data_, size_);
			std::free(data_);
		} else {
			p = static_cast<char *>(std::realloc(data_, cap));
			if (p == nullptr)
				throw std::bad_alloc();
		}
		data_ = p;
		capacity_ = cap;
	}

	char *data_ = nullptr;
	size_t size_ = 0;
	size_t capacity_ = 0;
};

} // namespace datavalue_export::core
