/*
 * src/core/top_rows.cpp
 *	  The first N rows of an ordered export; see top_rows.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/top_rows.hpp"

#include <algorithm>

namespace datavalue_export::core {

namespace {

struct HeapOrder {
	template <typename E>
	bool operator()(const E &a, const E &b) const noexcept
	{
		return KeyLess(a.key, b.key);
	}
};

} // namespace

TopRows::TopRows(SortKeyPlan plan, size_t capacity) : plan_(std::move(plan)), capacity_(capacity)
{
	heap_.reserve(std::min<size_t>(capacity_, 1 << 16));
}

void
TopRows::Store(uint32_t slot, const DataValueRow &row)
{
	scratch_.Clear();
	EncodeRow(row, scratch_);
	std::string &bytes = slots_[slot];
	bytes_ -= bytes.size();
	bytes.assign(scratch_.Data(), scratch_.Size());
	bytes_ += bytes.size();
}

void
TopRows::Add(const DataValueRow &row)
{
	const SortKey key = MakeSortKey(plan_, row);
	if (heap_.size() < capacity_) {
		const uint32_t slot = static_cast<uint32_t>(slots_.size());
		slots_.emplace_back();
		Store(slot, row);
		heap_.push_back(Entry{key, slot});
		std::push_heap(heap_.begin(), heap_.end(), HeapOrder{});
		return;
	}
	if (!KeyLess(key, heap_.front().key))
		return;
	/* Replace the largest kept row, reusing its slot. */
	std::pop_heap(heap_.begin(), heap_.end(), HeapOrder{});
	Entry &entry = heap_.back();
	entry.key = key;
	Store(entry.slot, row);
	std::push_heap(heap_.begin(), heap_.end(), HeapOrder{});
}

void
TopRows::Finish()
{
	std::sort_heap(heap_.begin(), heap_.end(), HeapOrder{});
}

} // namespace datavalue_export::core
