/*
 * src/core/top_rows.hpp
 *	  The first N rows of an ordered export, without sorting the others.
 *
 * An ordered export with `limit` (DHIS2 paging) needs only its first offset + limit rows in
 * sort order. Instead of sorting (and possibly spilling) every row, a bounded max-heap keeps
 * the N smallest keys seen so far: a row whose key is not below the largest kept one is
 * dropped at the cost of one key comparison. Sort keys are unique per data value (they end
 * with all five identifier ranks, the datavalue primary key), so the kept rows are exactly
 * the first N of the full sort, in the same order.
 *
 * Kept rows are stored in the compact form of row_sorter.hpp, one buffer per slot reused when
 * a row is replaced. Bytes() lets the caller fall back to the run sorter when rare, very large
 * rows would make the kept set outgrow its memory budget.
 *
 * May throw std::bad_alloc.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/row_sorter.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

class TopRows {
  public:
	/* Keeps the capacity smallest rows (capacity > 0). */
	TopRows(SortKeyPlan plan, size_t capacity);

	void Add(const DataValueRow &row);

	/* Sort the kept rows; then read them in order with Row. */
	void Finish();
	size_t Size() const noexcept { return heap_.size(); }
	/* Holds capacity rows: a row that sorts after all of them can no longer enter. */
	bool Full() const noexcept { return heap_.size() == capacity_; }
	DataValueRow Row(size_t i) const noexcept { return DecodeRow(slots_[heap_[i].slot].data()); }
	/* Row i's encoded record. */
	std::string_view Record(size_t i) const noexcept { return slots_[heap_[i].slot]; }

	/* Bytes of the kept rows. */
	size_t Bytes() const noexcept { return bytes_; }

	const SortKeyPlan &Plan() const noexcept { return plan_; }

  private:
	struct Entry {
		SortKey key;
		uint32_t slot;
	};
	void Store(uint32_t slot, const DataValueRow &row);

	SortKeyPlan plan_;
	size_t capacity_;
	std::vector<Entry> heap_;        /* a max-heap on key until Finish, then ascending */
	std::vector<std::string> slots_; /* encoded rows */
	OutputBuffer scratch_;
	size_t bytes_ = 0;
};

} // namespace datavalue_export::core
