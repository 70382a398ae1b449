/*
 * src/core/path_order.cpp
 *	  The order of org units by path, proposed from their tree (path_order.hpp).
 *
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/path_order.hpp"

#include <algorithm>

namespace datavalue_export::core {

namespace {

unsigned char
FoldCase(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c - 'A' + 'a') : c;
}

/* <0, 0, >0 as a sorts before, with, after b. */
int
Compare(PathCollation collation, std::string_view a, std::string_view b)
{
	if (collation == PathCollation::kBytes)
		return a.compare(b);
	const size_t common = std::min(a.size(), b.size());
	for (size_t i = 0; i < common; i++) {
		const unsigned char x = FoldCase(static_cast<unsigned char>(a[i]));
		const unsigned char y = FoldCase(static_cast<unsigned char>(b[i]));
		if (x != y)
			return x < y ? -1 : 1;
	}
	if (a.size() != b.size())
		return a.size() < b.size() ? -1 : 1;
	/* The same letters: case decides, lower case (the larger byte) first. */
	for (size_t i = 0; i < common; i++)
		if (a[i] != b[i])
			return static_cast<unsigned char>(a[i]) > static_cast<unsigned char>(b[i]) ? -1 : 1;
	return 0;
}

} // namespace

bool
PathLess(PathCollation collation, std::string_view a, int64_t a_id, std::string_view b, int64_t b_id)
{
	const int order = Compare(collation, a, b);
	return order != 0 ? order < 0 : a_id < b_id;
}

namespace {

constexpr size_t kTextPerRow = 20; /* what a path adds to its parent's (a uid and '/'), and the paths kept whole */

size_t
SlotsFor(size_t rows)
{
	size_t slots = 16;
	while (slots < rows * 2)
		slots *= 2;
	return slots;
}

size_t
SlotOf(int64_t id, size_t mask)
{
	return (static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ULL) >> 32 & mask;
}

} // namespace

uint32_t
PathOrder::Find(int64_t id) const noexcept
{
	if (dense_) {
		const uint64_t offset = static_cast<uint64_t>(id) - static_cast<uint64_t>(dense_min_);
		return offset < slots_.size() ? slots_[offset] : kNotFound;
	}
	if (slots_.empty())
		return kNotFound;
	const size_t mask = slots_.size() - 1;
	for (size_t i = SlotOf(id, mask);; i = (i + 1) & mask) {
		const uint32_t row = slots_[i];
		if (row == kNotFound || rows_[row].id == id)
			return row;
	}
}

/* A hash table of slots (a power of two) holding every row indexed so far, up to row. */
void
PathOrder::Rehash(size_t slots)
{
	const uint32_t rows = static_cast<uint32_t>(rows_.size());
	dense_ = false;
	slots_.assign(slots, kNotFound);
	indexed_ = 0;
	for (uint32_t r = 0; r + 1 < rows; r++)
		if (HasPath(r))
			Index(r);
}

void
PathOrder::Index(uint32_t row)
{
	const int64_t id = rows_[row].id;
	if (dense_) {
		const uint64_t offset = static_cast<uint64_t>(id) - static_cast<uint64_t>(dense_min_);
		if (offset < slots_.size()) {
			slots_[offset] = row; /* the same id again: the last one is its row */
			return;
		}
		Rehash(SlotsFor(rows_.capacity()));
	}
	if ((indexed_ + 1) * 2 > slots_.size())
		Rehash(std::max<size_t>(16, slots_.size() * 2)); /* at most half full */
	const size_t mask = slots_.size() - 1;
	for (size_t i = SlotOf(id, mask);; i = (i + 1) & mask) {
		if (slots_[i] == kNotFound) {
			slots_[i] = row;
			indexed_++;
			return;
		}
		if (rows_[slots_[i]].id == id) {
			slots_[i] = row;
			return;
		}
	}
}

bool
PathOrder::Extends(std::string_view path, uint32_t row) const noexcept
{
	size_t end = rows_[row].path_length;
	while (rows_[row].base != kWhole) {
		const std::string_view text = Text(row);
		end -= text.size();
		if (path.compare(end, text.size(), text) != 0)
			return false;
		row = rows_[row].base;
	}
	return path.compare(0, end, Text(row)) == 0;
}

void
PathOrder::PathOf(uint32_t row, std::string *path) const
{
	size_t end = rows_[row].path_length;
	path->resize(end);
	for (;; row = rows_[row].base) {
		const std::string_view text = Text(row);
		end -= text.size();
		path->replace(end, text.size(), text);
		if (rows_[row].base == kWhole)
			return;
	}
}

void
PathOrder::PathOf(uint32_t row, std::string *path, uint32_t previous, std::string_view previous_path) const
{
	const uint32_t base = rows_[row].base;
	if (base == kWhole || (base != previous && base != rows_[previous].base)) {
		PathOf(row, path);
		return;
	}
	/* previous's path begins with base's: previous is base, or adds to it. */
	path->assign(previous_path.substr(0, rows_[base].path_length));
	path->append(Text(row));
}

bool
PathOrder::AppendText(std::string_view text, uint32_t *offset)
{
	if (texts_.size() + text.size() >= UINT32_MAX) {
		overflowed_ = true;
		return false;
	}
	*offset = static_cast<uint32_t>(texts_.size());
	texts_.append(text);
	return true;
}

size_t
PathOrder::BytesFor(size_t rows) noexcept
{
	return rows * (sizeof(Row) + kTextPerRow) + SlotsFor(rows) * sizeof(uint32_t);
}

void
PathOrder::Reserve(size_t rows, int64_t min_id, int64_t max_id)
{
	rows += rows / 16 + 16;
	if (BytesFor(rows) > limit_ || !rows_.empty())
		return;
	rows_.reserve(rows);
	texts_.reserve(rows * kTextPerRow);
	const uint64_t range = static_cast<uint64_t>(max_id) - static_cast<uint64_t>(min_id) + 1;
	if (max_id >= min_id && range <= rows * 4) {
		dense_ = true;
		dense_min_ = min_id;
		slots_.assign(range, kNotFound);
	} else {
		slots_.assign(SlotsFor(rows), kNotFound);
	}
}

bool
PathOrder::Add(int64_t id, std::optional<int64_t> parent_id, std::optional<std::string_view> path)
{
	if (overflowed_)
		return false;
	Row row{id, parent_id ? *parent_id : kNoParent, kWhole, 0, kNoPath, 0};
	if (path) {
		if (path->size() >= kNoPath) {
			overflowed_ = true;
			return false;
		}
		row.path_length = static_cast<uint32_t>(path->size());
		std::string_view text = *path;
		const uint32_t parent = parent_id ? Find(*parent_id) : kNotFound;
		if (parent != kNotFound && rows_[parent].path_length <= path->size() && Extends(*path, parent)) {
			if (rows_[parent].hops == kMaxHops) {
				/* Its first child: keep the parent's path whole, so no rebuilding follows more parents. */
				std::string whole;
				PathOf(parent, &whole);
				uint32_t offset;
				if (!AppendText(whole, &offset))
					return false;
				rows_[parent].base = kWhole;
				rows_[parent].text_offset = offset;
				rows_[parent].hops = 0;
			}
			row.base = parent;
			row.hops = static_cast<uint8_t>(rows_[parent].hops + 1);
			text = path->substr(rows_[parent].path_length);
		}
		if (!AppendText(text, &row.text_offset))
			return false;
	}
	rows_.push_back(row);
	if (path)
		Index(static_cast<uint32_t>(rows_.size() - 1));
	if (MemoryBytes() > limit_)
		overflowed_ = true;
	return !overflowed_;
}

std::vector<uint32_t>
PathOrder::Propose(PathCollation collation) const
{
	constexpr uint32_t kNone = UINT32_MAX;
	const uint32_t n = static_cast<uint32_t>(rows_.size());

	/* Each org unit's parent among those collected, as families laid out back to back. */
	std::vector<uint32_t> parent(n, kNone);
	std::vector<uint32_t> family_start(static_cast<size_t>(n) + 1, 0);
	std::vector<uint32_t> roots, without_path;
	for (uint32_t i = 0; i < n; i++) {
		if (!HasPath(i)) {
			without_path.push_back(i);
			continue;
		}
		/* A path kept as what it adds to its parent's knows its parent. */
		const uint32_t p = rows_[i].base != kWhole           ? rows_[i].base
		                   : rows_[i].parent_id == kNoParent ? kNotFound
		                                                     : Find(rows_[i].parent_id);
		if (p == kNotFound || p == i) {
			roots.push_back(i);
			continue;
		}
		parent[i] = p;
		family_start[p + 1]++;
	}
	for (uint32_t i = 0; i < n; i++)
		family_start[i + 1] += family_start[i];
	std::vector<uint32_t> children(family_start[n]);
	{
		std::vector<uint32_t> next(family_start.begin(), family_start.end() - 1);
		for (uint32_t i = 0; i < n; i++)
			if (parent[i] != kNone)
				children[next[parent[i]]++] = i;
	}

	/*
	 * Whole paths as views: what a row keeps when that is its whole path, else rebuilt into
	 * *rebuilt. A root always keeps its path whole; an org unit of a parent cycle may not.
	 */
	const auto whole_paths = [&](const std::vector<uint32_t> &rows, std::vector<std::string> *rebuilt) {
		size_t count = 0;
		for (const uint32_t r : rows)
			count += rows_[r].base != kWhole;
		rebuilt->assign(count, std::string());
		std::vector<std::string_view> views(n);
		size_t k = 0;
		for (const uint32_t r : rows) {
			if (rows_[r].base == kWhole) {
				views[r] = Text(r);
			} else {
				PathOf(r, &(*rebuilt)[k]);
				views[r] = (*rebuilt)[k++];
			}
		}
		return views;
	};

	/*
	 * Siblings by what their paths add to their parent's (the parent's path is their common
	 * prefix). A child keeps just that, or (its parent came after it, or its path does not
	 * extend the parent's) its whole path.
	 */
	std::vector<std::pair<std::string_view, uint32_t>> family;
	for (uint32_t p = 0; p < n; p++) {
		const auto first = children.begin() + family_start[p];
		const auto last = children.begin() + family_start[p + 1];
		if (last - first < 2)
			continue;
		const uint32_t prefix = rows_[p].path_length;
		const auto tail = [&](uint32_t c) {
			return rows_[c].base == p ? Text(c) : Text(c).substr(std::min<size_t>(prefix, rows_[c].path_length));
		};
		family.clear();
		for (auto c = first; c != last; ++c)
			family.emplace_back(tail(*c), *c);
		std::sort(family.begin(), family.end(), [&](const auto &a, const auto &b) {
			return PathLess(collation, a.first, rows_[a.second].id, b.first, rows_[b.second].id);
		});
		for (size_t k = 0; k < family.size(); k++)
			first[static_cast<ptrdiff_t>(k)] = family[k].second;
	}
	std::vector<std::string> rebuilt_roots;
	const std::vector<std::string_view> root_paths = whole_paths(roots, &rebuilt_roots);
	std::sort(roots.begin(), roots.end(), [&](uint32_t a, uint32_t b) {
		return PathLess(collation, root_paths[a], rows_[a].id, root_paths[b], rows_[b].id);
	});

	/*
	 * The walk: each org unit, then its children's subtrees in order. With several roots it is
	 * also a merge: a root whose parent was not selected may belong inside another root's
	 * subtree (an export of few values selects a facility without its chiefdom, but with the
	 * country), so before each org unit the next root goes first when it sorts before it.
	 */
	std::vector<uint32_t> order;
	order.reserve(n);
	std::vector<bool> reached(n, false);
	std::vector<uint32_t> stack;
	std::string path;         /* the path of the org unit on top of the stack, once rebuilt */
	uint32_t path_of = kNone; /* whose */
	size_t next_root = 0;
	while (next_root < roots.size()) {
		stack.push_back(roots[next_root++]);
		while (!stack.empty()) {
			const uint32_t node = stack.back();
			if (next_root < roots.size()) {
				if (path_of != node) {
					PathOf(node, &path);
					path_of = node;
				}
				const uint32_t root = roots[next_root];
				if (PathLess(collation, root_paths[root], rows_[root].id, path, rows_[node].id)) {
					stack.push_back(root);
					next_root++;
					continue;
				}
			}
			stack.pop_back();
			order.push_back(node);
			reached[node] = true;
			for (uint32_t c = family_start[node + 1]; c > family_start[node]; c--)
				stack.push_back(children[c - 1]);
		}
	}
	/* A parent cycle has no root: its org units follow, sorted (the caller's check decides). */
	if (order.size() + without_path.size() < n) {
		std::vector<uint32_t> unreached;
		for (uint32_t i = 0; i < n; i++)
			if (HasPath(i) && !reached[i])
				unreached.push_back(i);
		std::vector<std::string> rebuilt;
		const std::vector<std::string_view> paths = whole_paths(unreached, &rebuilt);
		std::sort(unreached.begin(), unreached.end(), [&](uint32_t a, uint32_t b) {
			return PathLess(collation, paths[a], rows_[a].id, paths[b], rows_[b].id);
		});
		order.insert(order.end(), unreached.begin(), unreached.end());
	}
	std::sort(without_path.begin(), without_path.end(),
	          [&](uint32_t a, uint32_t b) { return rows_[a].id < rows_[b].id; });
	order.insert(order.end(), without_path.begin(), without_path.end());
	return order;
}

void
PathOrder::Release() noexcept
{
	std::vector<Row>().swap(rows_);
	std::string().swap(texts_);
	std::vector<uint32_t>().swap(slots_);
	indexed_ = 0;
	dense_ = false;
	overflowed_ = false;
}

} // namespace datavalue_export::core
