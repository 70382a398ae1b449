/*
 * src/core/path_order.hpp
 *	  The order of org units by path, proposed from their tree instead of sorted.
 *
 * DHIS2 orders org units (its OU key, and our tie-break after the data element) by ou.path in
 * the database's collation. A country's paths are long and share their first levels, so sorting
 * them was most of an ordered export's fixed cost on a large hierarchy: 0.35-0.95 s for 329k
 * org units in PostgreSQL, by collation, where reading them unsorted takes 0.06 s.
 *
 * A path is its parent's path, '/' and its own uid. So in a consistent hierarchy the sorted
 * paths are a walk of the tree that visits each org unit before its children, and the children
 * in the order of what their paths add to their parent's: one small sort per family. PathOrder
 * collects the selected org units (id, parent id, path) and proposes that walk. It is only a
 * proposal: the caller checks every adjacent pair in the real collation (n - 1 comparisons
 * instead of about n log n) and sorts as before when one is out of order. A broken hierarchy (a
 * stale path, a parent cycle, a collation that orders sibling uids by what follows them) costs
 * time, never the order.
 *
 * The paths are kept exactly but not whole: a path that extends its parent's (checked byte for
 * byte when it is added) keeps only what it adds, about 12 bytes, so a country's 329k paths of
 * 191 bytes take 25 MB instead of 70. Rebuilding a path follows at most kMaxHops parents before
 * a path kept whole; a parent at that depth is rewritten whole when its first child comes.
 *
 * May throw std::bad_alloc.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/*
 * How the proposal compares two texts, as near to the database's collation as a pure function
 * can be: byte order (C, C.UTF-8), or an English-like one (ICU, glibc's en_US) in which case
 * counts only after the letters, lower case first.
 */
enum class PathCollation : uint8_t {
	kBytes,
	kCaseFolded,
};

/* Whether a sorts before b under collation, with the id as the last key (as ORDER BY path, id). */
bool PathLess(PathCollation collation, std::string_view a, int64_t a_id, std::string_view b, int64_t b_id);

class PathOrder {
  public:
	/* Stop collecting (Add returns false from then on) once MemoryBytes() exceeds limit. */
	explicit PathOrder(size_t limit = SIZE_MAX) : limit_(limit) {}

	/*
	 * Room for about rows org units (a planner's estimate: a sixteenth more is kept), since
	 * growing the lists copies them and may double them. When their ids are known to lie in
	 * [min_id, max_id] and that range is at most four per org unit, an id indexes an array
	 * instead of a hash table: DHIS2's ids come from one sequence, so a country's org units are
	 * nearly consecutive, and a lookup is one load near the last one. An id outside the range
	 * turns the array back into a hash table.
	 */
	void Reserve(size_t rows, int64_t min_id = 0, int64_t max_id = -1);
	/* The bytes rows org units of a consistent hierarchy take, added parents first. */
	static size_t BytesFor(size_t rows) noexcept;

	/* Collect one org unit. Returns false, and keeps nothing more, once over the limit. */
	bool Add(int64_t id, std::optional<int64_t> parent_id, std::optional<std::string_view> path);

	size_t size() const noexcept { return rows_.size(); }
	bool overflowed() const noexcept { return overflowed_; }

	int64_t Id(uint32_t row) const noexcept { return rows_[row].id; }
	bool HasPath(uint32_t row) const noexcept { return rows_[row].path_length != kNoPath; }
	/* The path of row (HasPath), rebuilt into *path. */
	void PathOf(uint32_t row, std::string *path) const;
	/*
	 * The same, knowing the path of another row (previous, with a path): a row that adds to
	 * previous's path or to its parent's (the next row of a walk, mostly) takes that prefix
	 * instead of following its parents.
	 */
	void PathOf(uint32_t row, std::string *path, uint32_t previous, std::string_view previous_path) const;

	/*
	 * The proposed order, as the rows' indices in the order they were added: the org units with
	 * a path as a walk of their tree (roots, the org units whose parent is not collected, in
	 * collation order; each family in collation order of what the children add to their parent's
	 * path), those in no tree the walk reached (a cycle) after them, then those without a path by
	 * id (ORDER BY puts NULLs last).
	 */
	std::vector<uint32_t> Propose(PathCollation collation) const;

	/* Bytes held, for the limit and for measurements. */
	size_t MemoryBytes() const noexcept
	{
		return texts_.capacity() + rows_.capacity() * sizeof(Row) + slots_.capacity() * sizeof(uint32_t);
	}

	/* Give the memory back. */
	void Release() noexcept;

	/* Parents followed at most to rebuild a path. */
	static constexpr uint8_t kMaxHops = 6;

  private:
	static constexpr uint32_t kNoPath = UINT32_MAX;
	static constexpr uint32_t kWhole = UINT32_MAX; /* Row::base of a path kept whole */
	static constexpr uint32_t kNotFound = UINT32_MAX;
	static constexpr int64_t kNoParent = INT64_MIN;

	struct Row {
		int64_t id;
		int64_t parent_id;    /* kNoParent when NULL */
		uint32_t base;        /* the row whose path this one's extends (its parent), or kWhole */
		uint32_t text_offset; /* in texts_: the whole path, or what it adds to base's */
		uint32_t path_length; /* kNoPath when NULL */
		uint8_t hops;         /* rows followed to a path kept whole: 0 when this one is */
	};

	/* The bytes row keeps: its whole path, or what it adds to its base's. */
	std::string_view Text(uint32_t row) const noexcept
	{
		const Row &r = rows_[row];
		const uint32_t before = r.base == kWhole ? 0 : rows_[r.base].path_length;
		return std::string_view(texts_).substr(r.text_offset, r.path_length - before);
	}
	/* Whether path begins with row's path. */
	bool Extends(std::string_view path, uint32_t row) const noexcept;
	/* Append text to texts_; false (over the limit) when it does not fit its offsets. */
	bool AppendText(std::string_view text, uint32_t *offset);
	/* The row of an org unit with a path, by id, or kNotFound. */
	uint32_t Find(int64_t id) const noexcept;
	void Index(uint32_t row);
	void Rehash(size_t slots);

	size_t limit_;
	bool overflowed_ = false;
	std::vector<Row> rows_;
	std::string texts_; /* every row's bytes, back to back */
	/* The rows with a path by id (kNotFound: none): open addressing, or by id - dense_min_. */
	std::vector<uint32_t> slots_;
	bool dense_ = false;
	int64_t dense_min_ = 0;
	size_t indexed_ = 0;
};

} // namespace datavalue_export::core
