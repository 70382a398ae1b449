/*
 * src/core/row_sorter.cpp
 *	  Sorted runs and their merge; see row_sorter.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/row_sorter.hpp"

#include <algorithm>
#include <cstring>

namespace datavalue_export::core {

void
RowSorter::SortRun()
{
	std::sort(entries_.begin(), entries_.end(), [](const Entry &a, const Entry &b) { return KeyLess(a.key, b.key); });
	spill_position_ = 0;
}

bool
RowSorter::SpillChunk(OutputBuffer &out, size_t max_bytes)
{
	const size_t start = out.Size();
	while (spill_position_ < entries_.size() && out.Size() - start < max_bytes) {
		const Entry &e = entries_[spill_position_++];
		char *w = out.Reserve(kSpillRecordHeader + e.length);
		std::memcpy(w, e.key.words, sizeof e.key.words);
		std::memcpy(w + sizeof e.key.words, &e.length, sizeof e.length);
		std::memcpy(w + kSpillRecordHeader, arena_.Data() + e.offset, e.length);
		out.Commit(w + kSpillRecordHeader + e.length);
	}
	if (spill_position_ < entries_.size())
		return true;
	ClearRun();
	return false;
}

void
RowSorter::ClearRun() noexcept
{
	entries_.clear();
	arena_.Clear();
	spill_position_ = 0;
}

RunMerger::RunMerger(size_t runs) : cursors_(runs) {}

bool
RunMerger::Cursor::HasRecord() const noexcept
{
	const size_t available = window.size() - position;
	return available >= kSpillRecordHeader && available >= kSpillRecordHeader + Length();
}

uint32_t
RunMerger::Cursor::Length() const noexcept
{
	uint32_t length;
	std::memcpy(&length, window.data() + position + kSortKeyWords * sizeof(uint64_t), sizeof length);
	return length;
}

SortKey
RunMerger::Cursor::Key() const noexcept
{
	SortKey key;
	std::memcpy(key.words, window.data() + position, sizeof key.words);
	return key;
}

size_t
RunMerger::BytesWanted(size_t run) const noexcept
{
	const Cursor &c = cursors_[run];
	if (c.exhausted)
		return 0;
	const size_t available = c.window.size() - c.position;
	if (available < kSpillRecordHeader)
		return kSpillRecordHeader - available;
	const size_t need = kSpillRecordHeader + c.Length();
	return available < need ? need - available : 0;
}

void
RunMerger::Feed(size_t run, const char *data, size_t size)
{
	Cursor &c = cursors_[run];
	/* Drop consumed bytes before growing, so a window holds about one read's worth. */
	if (c.position > 0) {
		c.window.erase(c.window.begin(), c.window.begin() + static_cast<std::ptrdiff_t>(c.position));
		c.position = 0;
	}
	c.window.insert(c.window.end(), data, data + size);
}

bool
RunMerger::HeadLess(size_t a, size_t b) const noexcept
{
	return KeyLess(cursors_[a].Key(), cursors_[b].Key());
}

void
RunMerger::SiftDown(size_t i) noexcept
{
	const size_t n = heap_.size();
	for (;;) {
		size_t smallest = i;
		const size_t l = 2 * i + 1, r = 2 * i + 2;
		if (l < n && HeadLess(heap_[l], heap_[smallest]))
			smallest = l;
		if (r < n && HeadLess(heap_[r], heap_[smallest]))
			smallest = r;
		if (smallest == i)
			return;
		std::swap(heap_[i], heap_[smallest]);
		i = smallest;
	}
}

void
RunMerger::Start()
{
	heap_.clear();
	for (size_t r = 0; r < cursors_.size(); r++)
		if (cursors_[r].HasRecord())
			heap_.push_back(r);
	for (size_t i = heap_.size(); i-- > 0;)
		SiftDown(i);
}

std::string_view
RunMerger::Top() const noexcept
{
	const Cursor &c = cursors_[heap_.front()];
	return std::string_view(c.window.data() + c.position + kSpillRecordHeader, c.Length());
}

void
RunMerger::Pop() noexcept
{
	Cursor &c = cursors_[heap_.front()];
	c.position += kSpillRecordHeader + c.Length();
	popped_run_ = heap_.front();
}

void
RunMerger::Reposition()
{
	if (!cursors_[popped_run_].HasRecord()) {
		heap_.front() = heap_.back();
		heap_.pop_back();
	}
	if (!heap_.empty())
		SiftDown(0);
}

} // namespace datavalue_export::core
