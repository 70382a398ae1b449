/*
 * src/core/row_sorter.hpp
 *	  Ordering exported rows in C++: sorted runs of compact rows, merged at the end.
 *
 * DHIS2 orders by pe.startdate, pe.enddate, dv.created, de.uid. Letting PostgreSQL sort the
 * joined rows costs about 1 us a row (wide tuples, a text key). Here every identifier is
 * registered in its sort order (src/pg/metadata.cpp), so a row's sort key is a few integers:
 * identifier indexes (ranks) and the created timestamp, packed into four words.
 *
 * Rows are kept in a compact binary form (ids, timestamps, flags, the three texts), about a
 * fifth of their rendered JSON. When a run reaches its budget it is sorted (a radix sort on the
 * bits of its keys that vary, packed into 96 when they fit) and written, in order, to a file
 * src/pg opened for it (a temporary file); at the end the runs are merged and rendered in
 * order: the last run straight from memory, and the one before it too unless its write had
 * ended with the scan. An export that fits in one run never touches disk, and memory stays at
 * two half-budget runs and a megabyte whatever its size.
 *
 * May throw std::bad_alloc and std::system_error (the sorting thread).
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "core/large_allocation.hpp"
#include "core/model.hpp"
#include "core/output_buffer.hpp"
#include "core/validate.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* What each part of a sort key holds, most significant first. */
enum class SortComponent : uint8_t {
	kCreated, /* 64 bits */
	kDataElement,
	kPeriod,
	kOrgUnit,
	kCategoryOptionCombo,
	kAttributeOptionCombo, /* identifier ranks: 32 bits each */
};

inline constexpr size_t kSortKeyWords = 4; /* 64 + 5 * 32 bits fit in 256 */
/* Sorted records are gathered into writes of this size (RowSorter): few system calls, little memory. */
inline constexpr size_t kSpillWriteBytes = 1024 * 1024;

/* The requested order keys then every identifier not yet in it, so ties are broken too. */
struct SortKeyPlan {
	SortKeyPlan() = default;
	SortKeyPlan(std::vector<SortComponent> order); /* NOLINT: implicit, so SortKeyPlan{{...}} reads as the list */

	std::vector<SortComponent> components;
	/*
	 * Where each 32-bit half of the key comes from, precomputed so that MakeSortKey (twice a row
	 * in an ordered export) is eight table lookups: 0-4 an identifier rank (IdKind), 5 and 6 the
	 * created timestamp's high and low half, 7 zero.
	 */
	uint8_t half_source[2 * kSortKeyWords] = {7, 7, 7, 7, 7, 7, 7, 7};
};

struct SortKey {
	uint64_t words[kSortKeyWords];
};

/*
 * The key for an export's order: the requested order keys, then every remaining identifier as
 * a tie-breaker (DHIS2 leaves ties unordered; fixing them makes every run give the same bytes).
 */
SortKeyPlan PlanSortKey(const std::vector<OrderKey> &order);

SortKey MakeSortKey(const SortKeyPlan &plan, const DataValueRow &row) noexcept;
/* The key of an encoded record (EncodeRow), reading only its ids and created timestamp. */
SortKey RecordSortKey(const SortKeyPlan &plan, const char *record) noexcept;

inline bool
KeyLess(const SortKey &a, const SortKey &b) noexcept
{
	for (size_t i = 0; i < kSortKeyWords; i++)
		if (a.words[i] != b.words[i])
			return a.words[i] < b.words[i];
	return false;
}

/*
 * Where a set of keys differ: the bits of each word that are not the same in every key (each
 * key XOR the first). A run's sort packs its keys to these bits (RowSorter), and so does the
 * merge of an export's runs, over the spread of all of them (RunMerger).
 */
struct KeySpread {
	bool empty = true;
	SortKey first{};
	uint64_t varying[kSortKeyWords] = {0};

	void Add(const SortKey &key) noexcept
	{
		if (empty) {
			first = key;
			empty = false;
		}
		for (size_t w = 0; w < kSortKeyWords; w++)
			varying[w] |= key.words[w] ^ first.words[w];
	}
	void Merge(const KeySpread &other) noexcept
	{
		if (other.empty)
			return;
		Add(other.first);
		for (size_t w = 0; w < kSortKeyWords; w++)
			varying[w] |= other.varying[w];
	}
	/* A spread in which every bit varies: what a merge must assume without one. */
	static KeySpread Everything() noexcept
	{
		KeySpread all;
		all.empty = false;
		for (uint64_t &w : all.varying)
			w = UINT64_MAX;
		return all;
	}
};

/*
 * The id of kind (a row's ids[kind]: its place in the export's identifier list) that every key
 * of spread shares, or nullopt when the keys differ there or there are none. Every kind is in
 * every key (PlanSortKey), so an ordered export learns from its runs' spread whether all its
 * values have one org unit, before it writes a byte.
 */
std::optional<uint32_t> SharedId(const SortKeyPlan &plan, const KeySpread &spread, IdKind kind) noexcept;

/*
 * Compact row encoding: the record's total size (4 bytes), the five ids (4 each), created (8),
 * a flags byte (deleted, followup, which texts are NULL, whether last_updated differs from
 * created), last_updated only when it differs (8), each text's length in one byte (or 0xFF and
 * four more for 255 and over), then the text bytes. Rows are spilled and read back in this form,
 * so every byte counts: DHIS2 rows are about 50 bytes here. Decoded rows point into the encoded
 * bytes.
 */
inline constexpr size_t kCompactRowHeader = 4 + kIdKindCount * 4 + 8 + 1 + 3; /* the smallest record */
/* The bytes EncodeRow takes for row. */
size_t EncodedRowBytes(const DataValueRow &row) noexcept;
void EncodeRow(const DataValueRow &row, OutputBuffer &out);
/* Size of the record starting at p, given at least its first four bytes. */
inline size_t
EncodedRowSize(const char *p) noexcept
{
	uint32_t size;
	std::memcpy(&size, p, sizeof size);
	return size;
}
DataValueRow DecodeRow(const char *p) noexcept;

/* A row's place in its arena and its key: what a run sorts. */
struct SortEntry {
	SortKey key;
	size_t offset;
};

/* Encoded rows (EncodeRow) with their sort keys, in the order they were added. */
struct EncodedRows {
	OutputBuffer arena;
	std::vector<SortEntry, LargeAllocator<SortEntry>> entries;

	/* Encode row and its key. May throw std::bad_alloc. */
	void Add(const SortKeyPlan &plan, const DataValueRow &row);
	size_t Bytes() const noexcept { return arena.Size() + entries.size() * sizeof(SortEntry); }
	void Clear() noexcept
	{
		entries.clear();
		arena.Clear();
	}
};

/*
 * Two runs of half the budget each: one fills from the scan while the other is sorted on a
 * worker thread (a second core; sorting was about a seventh of an ordered export on one) and
 * written to its file there too, so the scan's thread neither sorts nor copies spilled bytes.
 * The worker only sorts, copies plain memory and calls pwrite, with every signal blocked; the
 * destructor joins it, so a cancelled export frees everything. Memory: the two runs and a
 * megabyte to gather records in order for each write.
 */
class RowSorter {
  public:
	/* Reserves the run budget up front: no copying while a run grows. May throw. */
	RowSorter(SortKeyPlan plan, size_t run_budget);
	~RowSorter();
	RowSorter(const RowSorter &) = delete;
	RowSorter &operator=(const RowSorter &) = delete;

	void Add(const DataValueRow &row)
	{
		filling_.Add(plan_, row);
		rows_added_++;
		max_record_ = std::max(max_record_, filling_.arena.Size() - filling_.entries.back().offset);
	}
	/*
	 * Append rows encoded elsewhere (core/staged_rows: on a second core), from rows.entries[from]
	 * on, until the run is full; returns where it stopped (rows.entries.size() when all fit). The
	 * run ends at the row Add would have ended it at. May throw std::bad_alloc.
	 */
	size_t AddEncoded(const EncodedRows &rows, size_t from);
	bool RunFull() const noexcept { return filling_.Bytes() >= run_budget_; }
	bool RunEmpty() const noexcept { return filling_.entries.empty(); }
	/* The bytes the filling run's records take in a file (what SortRunInBackground writes). */
	size_t FillingBytes() const noexcept { return filling_.arena.Size(); }

	/*
	 * Hand the filling run to the worker thread, which sorts it, writes its records in order to
	 * spill_fd from offset 0 and closes spill_fd; a new run starts filling. The previous
	 * background run must have been waited for. Takes spill_fd even when it throws
	 * std::system_error (thread creation).
	 */
	void SortRunInBackground(int spill_fd);
	bool SortPending() const noexcept { return worker_.joinable(); }
	/* Whether the worker thread is still sorting or writing (SortPending stays true until the wait). */
	bool SortBusy() const noexcept { return sorting_.load(std::memory_order_relaxed); }
	/*
	 * At a scan's end the background run need not reach its file: the merge can read it from
	 * memory beside the last run, and memory stays at the scan's two runs. Asks the worker to
	 * stop writing the current (or next) background run at its next write of a megabyte, or not
	 * to start, so the wait that follows is about the sort alone. WaitForSortedRun consumes the
	 * request; SortedRunWritten then says whether the run had reached its file all the same.
	 */
	void KeepSortedRunInMemory() noexcept { keep_in_memory_.store(true, std::memory_order_relaxed); }
	/* Wait for the background run: 0 once it is sorted (and in its file, unless kept), else the write's errno. */
	int WaitForSortedRun() noexcept;
	/* After WaitForSortedRun: whether the background run is in its file (else it is the sorted run, in memory). */
	bool SortedRunWritten() const noexcept { return sorted_written_; }

	/* Sort the filling run on this thread; it becomes the sorted run (none may be pending). */
	void SortRun() noexcept;
	/*
	 * SortRun in two steps, so the last run of a scan is sorted while the worker still sorts and
	 * writes the one before it: sorting the filling run touches nothing the worker uses.
	 */
	void SortFillingRun() noexcept;
	/* The sorted filling run becomes the sorted run (none may be pending). */
	void AdoptSortedRun() noexcept;
	size_t SortedRows() const noexcept { return sorted_.entries.size(); }
	size_t SortedBytes() const noexcept { return sorted_.arena.Size(); }
	DataValueRow SortedRow(size_t i) const noexcept
	{
		return DecodeRow(sorted_.arena.Data() + sorted_.entries[i].offset);
	}
	/* Row i's encoded record. */
	std::string_view SortedRecord(size_t i) const noexcept
	{
		const char *p = sorted_.arena.Data() + sorted_.entries[i].offset;
		return {p, EncodedRowSize(p)};
	}
	/* Write the sorted run's records in order to fd from offset 0, on this thread; 0 or errno. */
	int WriteSortedRun(int fd) noexcept;
	/*
	 * The bytes WriteSortedRun would write, copied up to size at a time from where the last read
	 * stopped (records may be split between reads); 0 at the end. The merge reads a scan's last
	 * run this way instead of writing it to a file and reading it back.
	 */
	size_t ReadSortedRun(char *destination, size_t size) noexcept { return sorted_.Read(destination, size); }
	void RewindSortedRun() noexcept { sorted_.Rewind(); }
	/*
	 * The same for the sorted filling run (SortFillingRun), when the background run stayed in
	 * memory too (KeepSortedRunInMemory): the merge then reads both runs from here.
	 */
	size_t ReadFillingRun(char *destination, size_t size) noexcept { return filling_.Read(destination, size); }
	void RewindFillingRun() noexcept { filling_.Rewind(); }
	void ClearSortedRun() noexcept;
	/* Free both runs' memory once the last run is spilled, so the merge's read windows take its place. */
	void ReleaseRuns() noexcept;
	/* Free all but the sorted run, which the merge still reads (ReadSortedRun). */
	void ReleaseAllButSortedRun() noexcept;
	/* Free the buffer that gathers records for writes, when both runs are merged from memory. */
	void ReleaseWriteBuffer() noexcept;

	const SortKeyPlan &Plan() const noexcept { return plan_; }
	/*
	 * The largest record added so far: a merge's read window grows to hold its run's largest, so
	 * src/pg merges fewer runs at once when records are long (datavalue_export.sort_run_memory).
	 */
	size_t MaxRecordBytes() const noexcept { return max_record_; }
	/* Where the keys of every run sorted so far differ (a background run's once waited for): for RunMerger. */
	const KeySpread &Spread() const noexcept { return spread_; }
	/* Rows added, either way, since the sorter was made. */
	uint64_t RowsAdded() const noexcept { return rows_added_; }

  private:
	using Entry = SortEntry;
	struct Run : EncodedRows {
		size_t read_entry = 0;  /* Read's place: an entry */
		size_t read_offset = 0; /* and the bytes of its record already read */
		KeySpread spread;       /* of the keys, set by Sort */

		void Sort() noexcept;
		size_t Read(char *destination, size_t size) noexcept;
		void Rewind() noexcept { read_entry = read_offset = 0; }
		void Swap(Run &other) noexcept
		{
			arena.Swap(other.arena);
			entries.swap(other.entries);
		}
	};
	/* WriteSortedRun; with unless_kept, stops before a write once keep_in_memory_ is set (kKeptInMemory). */
	int WriteSorted(int fd, bool unless_kept) noexcept;
	SortKeyPlan plan_;
	size_t run_budget_;
	KeySpread spread_;
	size_t max_record_ = 0;
	uint64_t rows_added_ = 0;
	Run filling_;
	Run sorted_;                       /* being sorted and written by worker_, or sorted on this thread */
	OutputBuffer gather_;              /* sorted records gathered for one write */
	int worker_error_ = 0;             /* errno of the worker's write; read after the join */
	bool sorted_written_ = false;      /* the worker's run reached its file; read after the join */
	std::atomic<bool> sorting_{false}; /* SortBusy: a hint only, so relaxed (a stale value moves no data) */
	/* KeepSortedRunInMemory. Relaxed: a late look costs one more megabyte written; the join orders the rest. */
	std::atomic<bool> keep_in_memory_{false};
	std::thread worker_;
};

/*
 * Merge of spilled runs. Each run is read through a window of bytes that the caller fills
 * (src/pg reads the temporary file straight into it); the merger parses records and picks the
 * smallest head with a tree of losers: one key comparison per level after each row, where a
 * binary heap needs two (the merge's comparisons grow with the log of the run count). Each
 * node keeps its loser's key beside the run, and a replay swaps without branching on who won:
 * either outcome is as likely, so such a branch is mispredicted at about every other level
 * (the replay was 39% of a 64-run merge's time, bench/micro BM_RunMerger_Merge).
 *
 * When the bits in which the runs' keys differ (their KeySpread) and the run's number fit in 127
 * bits, as a DHIS2 export's do (the 10M demo's take under 90: its ranks and created span), each
 * key is packed into one 128-bit integer with the run in its low bits: a node is that integer
 * alone, and a match is one 128-bit comparison and two swapped words instead of four (a 64-run
 * merge 7.4 -> 5.9 ms in BM_RunMerger_Merge). Otherwise the nodes keep whole keys.
 */
class RunMerger {
  public:
	/* spread: where the keys of all the runs differ (RowSorter::Spread, or KeySpread::Everything). */
	RunMerger(SortKeyPlan plan, size_t runs, const KeySpread &spread);

	/* Bytes the caller should append to run r before it has a complete head record, or 0. */
	size_t BytesWanted(size_t run) const noexcept;
	/* Room for up to size more bytes at the end of run r's window, to read into; then Fed. May throw. */
	char *FeedSpace(size_t run, size_t size);
	void Fed(size_t run, size_t size) noexcept;
	void MarkExhausted(size_t run) noexcept { cursors_[run].exhausted = true; }

	/* Build the tree once every run has a head record or is exhausted. May throw std::bad_alloc. */
	void Start();
	bool Done() const noexcept { return cursors_.empty() || !cursors_[winner_].has_head; }
	/* The smallest head row (valid until Pop) and the run it came from. */
	DataValueRow Top() const noexcept;
	/* The smallest head's encoded record, for merging runs into a longer run. */
	std::string_view TopRecord() const noexcept;
	size_t TopRun() const noexcept { return winner_; }
	/* Whether the tree holds packed keys (the spread and the run's number fit in 127 bits). */
	bool KeysPacked() const noexcept { return packing_.fits; }
	/* Drop the top record; the caller then refills that run if BytesWanted and calls Reposition. */
	void Pop() noexcept;
	void Reposition() noexcept;

  private:
	struct Cursor {
		OutputBuffer window;
		size_t position = 0;
		bool exhausted = false;
		bool has_head = false; /* key holds the head record's key, else kNoHead */
		SortKey key{};
		size_t Available() const noexcept { return window.Size() - position; }
		bool HasRecord() const noexcept;
	};
	/* An inner node of the tree: the run that lost the match there, and that run's head key. */
	struct Node {
		SortKey key;
		size_t run;
	};
	/* A packed key: the varying bits of the key, then the run's number. */
	using PackedKey = unsigned __int128;
	/*
	 * How a key packs: each of its 32-bit halves that varies (up to 7: the eighth is always zero),
	 * cut to the bits below its highest varying one, at a shift above the run's bits.
	 */
	struct Packing {
		bool fits = false;
		uint8_t halves = 0;
		uint8_t source[2 * kSortKeyWords] = {}; /* FillKey's source of the half: an id, created's high or low half */
		uint8_t shift[2 * kSortKeyWords] = {};
		uint32_t mask[2 * kSortKeyWords] = {};
		uint8_t run_bits = 0;
	};
	static Packing PlanPacking(const SortKeyPlan &plan, const KeySpread &spread, size_t runs) noexcept;
	/* Run r's head record's packed key, or one above every real key when it has none. */
	PackedKey LoadPackedHead(size_t run) noexcept;
	void StartPacked();
	void ReplayPacked(PackedKey key) noexcept;

	void LoadHead(size_t run) noexcept;
	/* Run r's head changed: play it up the tree to find the new winner. */
	void Replay(size_t run) noexcept;

	SortKeyPlan plan_;
	Packing packing_;
	std::vector<Cursor> cursors_;
	std::vector<Node> tree_;             /* tree_[n]: inner node n (1..runs-1), unless packed */
	std::vector<PackedKey> packed_tree_; /* the same when packing_.fits: the loser's packed key */
	size_t winner_ = 0;
};

} // namespace datavalue_export::core
