/*
 * src/core/row_sorter.hpp
 *	  Ordering exported rows in C++: sorted runs of rendered rows, merged at the end.
 *
 * DHIS2 orders by pe.startdate, pe.enddate, dv.created, de.uid. Letting PostgreSQL sort the
 * joined rows costs about 1 us a row (wide tuples, a text key); here every identifier is
 * registered in its sort order, so a row's key is a few integers: the identifier indexes
 * (ranks) and the created timestamp. Rows are rendered once into an arena with their key;
 * when the arena reaches the run budget the run is sorted and spilled (src/pg writes it to a
 * temporary BufFile), and at the end the runs are merged. An export that fits in one run
 * never touches disk. Memory stays at one run whatever the export's size.
 *
 * Spilled record format: kSortKeyWords uint64 key words, a uint32 length, then the bytes.
 * May throw std::bad_alloc only.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/output_buffer.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

inline constexpr size_t kSortKeyWords = 6;

struct SortKey {
	uint64_t words[kSortKeyWords];
};

inline bool
KeyLess(const SortKey &a, const SortKey &b) noexcept
{
	for (size_t i = 0; i < kSortKeyWords; i++)
		if (a.words[i] != b.words[i])
			return a.words[i] < b.words[i];
	return false;
}

/* Map a signed timestamp to an unsigned word with the same order. */
constexpr uint64_t
OrderedWord(int64_t v) noexcept
{
	return static_cast<uint64_t>(v) ^ (UINT64_C(1) << 63);
}

inline constexpr size_t kSpillRecordHeader = kSortKeyWords * sizeof(uint64_t) + sizeof(uint32_t);

class RowSorter {
  public:
	explicit RowSorter(size_t run_budget) : run_budget_(run_budget) {}

	/* The arena the caller renders the next row into; then call Commit with its key. */
	OutputBuffer &Arena() noexcept { return arena_; }
	void Commit(const SortKey &key, size_t row_start)
	{
		entries_.push_back(Entry{key, row_start, static_cast<uint32_t>(arena_.Size() - row_start)});
	}

	bool RunFull() const noexcept { return arena_.Size() + entries_.size() * sizeof(Entry) >= run_budget_; }
	bool RunEmpty() const noexcept { return entries_.empty(); }
	size_t RunRows() const noexcept { return entries_.size(); }

	/* Sort the current run; then read it with SortedRow or serialise it with SpillChunk. */
	void SortRun();
	std::string_view SortedRow(size_t i) const noexcept
	{
		return std::string_view(arena_.Data() + entries_[i].offset, entries_[i].length);
	}

	/*
	 * Serialise the sorted run into out, about max_bytes at a time; returns false once the
	 * whole run has been written (and clears it).
	 */
	bool SpillChunk(OutputBuffer &out, size_t max_bytes);
	void ClearRun() noexcept;

  private:
	struct Entry {
		SortKey key;
		size_t offset;
		uint32_t length;
	};
	size_t run_budget_;
	OutputBuffer arena_;
	std::vector<Entry> entries_;
	size_t spill_position_ = 0;
};

/*
 * Merge of spilled runs. Each run is read through a window of bytes that the caller refills
 * (src/pg reads the BufFile); the merger only parses records and keeps a heap of run heads.
 */
class RunMerger {
  public:
	explicit RunMerger(size_t runs);

	/* Bytes the caller should append to run r before it has a complete head record, or 0. */
	size_t BytesWanted(size_t run) const noexcept;
	void Feed(size_t run, const char *data, size_t size);
	void MarkExhausted(size_t run) noexcept { cursors_[run].exhausted = true; }

	/* Build the heap once every run has a head record or is exhausted. */
	void Start();
	bool Done() const noexcept { return heap_.empty(); }
	/* The smallest head record and the run it came from. */
	std::string_view Top() const noexcept;
	size_t TopRun() const noexcept { return heap_.front(); }
	/* Drop the top record; the caller must then refill that run if BytesWanted and call Reposition. */
	void Pop() noexcept;
	void Reposition();

  private:
	struct Cursor {
		std::vector<char> window;
		size_t position = 0;
		bool exhausted = false;
		bool HasRecord() const noexcept;
		SortKey Key() const noexcept;
		uint32_t Length() const noexcept;
	};
	bool HeadLess(size_t a, size_t b) const noexcept;
	void SiftDown(size_t i) noexcept;

	std::vector<Cursor> cursors_;
	std::vector<size_t> heap_; /* run indexes, smallest head first */
	size_t popped_run_ = SIZE_MAX;
};

} // namespace datavalue_export::core
