/*
 * test/unit/row_sorter_test.cpp
 *	  Sort keys, compact rows, and sorted runs merged through RunMerger, against std::sort.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "core/row_sorter.hpp"

using namespace datavalue_export::core;

namespace {

struct OwnedRow {
	uint32_t ids[kIdKindCount];
	int64_t created;
	int64_t last_updated;
	int8_t followup;
	bool deleted;
	std::optional<std::string> value, stored_by, comment;

	DataValueRow View() const
	{
		DataValueRow row;
		std::copy(ids, ids + kIdKindCount, row.ids);
		row.created = created;
		row.last_updated = last_updated;
		row.followup = followup;
		row.deleted = deleted;
		const auto text = [](const std::optional<std::string> &s) {
			TextField f;
			f.is_null = !s;
			f.data = s ? s->data() : nullptr;
			f.size = s ? s->size() : 0;
			return f;
		};
		row.value = text(value);
		row.stored_by = text(stored_by);
		row.comment = text(comment);
		return row;
	}
};

/* An anonymous temporary file, as src/pg's run files are to the sorter: a descriptor to write to. */
struct TempFile {
	FILE *stream = std::tmpfile();
	int fd = fileno(stream);
	~TempFile() { std::fclose(stream); }
	std::string Contents() const
	{
		std::string bytes;
		char buffer[65536];
		off_t at = 0;
		for (ssize_t n; (n = pread(fd, buffer, sizeof buffer, at)) > 0; at += n)
			bytes.append(buffer, static_cast<size_t>(n));
		return bytes;
	}
};

std::string
Describe(const DataValueRow &r)
{
	std::string s;
	for (uint32_t id : r.ids)
		s += std::to_string(id) + ",";
	s += std::to_string(r.created) + "," + std::to_string(r.last_updated) + "," + std::to_string(r.followup) + "," +
	     (r.deleted ? "d" : "-") + ",";
	for (const TextField *f : {&r.value, &r.stored_by, &r.comment})
		s += f->is_null ? std::string("<null>") : "[" + std::string(f->data, f->size) + "]";
	return s;
}

std::vector<OwnedRow>
RandomRows(size_t n, uint32_t seed)
{
	std::mt19937 rng(seed);
	std::vector<OwnedRow> rows(n);
	for (OwnedRow &r : rows) {
		for (uint32_t &id : r.ids)
			id = rng() % 7; /* few distinct ranks: plenty of ties on every component */
		r.created = static_cast<int64_t>(rng() % 5) * 1000000 - 2000000; /* negative timestamps too */
		r.last_updated = static_cast<int64_t>(rng());
		r.followup = static_cast<int8_t>(static_cast<int>(rng() % 3) - 1);
		r.deleted = rng() % 2;
		if (rng() % 4)
			r.value = std::string(rng() % 40, static_cast<char>('a' + rng() % 26));
		if (rng() % 4)
			r.stored_by = std::to_string(rng());
		if (rng() % 2)
			r.comment = std::string(rng() % 3 ? 0 : 5000, '\n');
	}
	return rows;
}

/* Sort rows in one run on this thread; the bytes WriteSortedRun writes for it. */
std::string
SortAndWrite(RowSorter &sorter, const std::vector<OwnedRow> &rows)
{
	for (const OwnedRow &r : rows)
		sorter.Add(r.View());
	sorter.SortRun();
	TempFile file;
	EXPECT_EQ(sorter.WriteSortedRun(file.fd), 0);
	return file.Contents();
}

SortKeyPlan
DefaultPlan()
{
	return SortKeyPlan{{SortComponent::kPeriod, SortComponent::kCreated, SortComponent::kDataElement,
	                    SortComponent::kOrgUnit, SortComponent::kCategoryOptionCombo,
	                    SortComponent::kAttributeOptionCombo}};
}

/* The reference: full lexicographic order on the plan's components. */
bool
ReferenceLess(const OwnedRow &a, const OwnedRow &b)
{
	const auto tuple = [](const OwnedRow &r) {
		return std::make_tuple(r.ids[1], r.created, r.ids[0], r.ids[2], r.ids[3], r.ids[4]);
	};
	return tuple(a) < tuple(b);
}

} // namespace

TEST(SortKeyTest, OrdersLikeTheComponentTuple)
{
	const auto rows = RandomRows(2000, 1);
	const SortKeyPlan plan = DefaultPlan();
	for (size_t i = 0; i + 1 < rows.size(); i++) {
		const bool key_less = KeyLess(MakeSortKey(plan, rows[i].View()), MakeSortKey(plan, rows[i + 1].View()));
		EXPECT_EQ(key_less, ReferenceLess(rows[i], rows[i + 1])) << i;
	}
}

TEST(SortKeyTest, CreatedComparesSignedAndFullWidth)
{
	SortKeyPlan plan{{SortComponent::kCreated}};
	OwnedRow a{}, b{};
	a.created = -1;
	b.created = 0;
	EXPECT_TRUE(KeyLess(MakeSortKey(plan, a.View()), MakeSortKey(plan, b.View())));
	a.created = INT64_C(1) << 40;
	b.created = (INT64_C(1) << 40) + 1;
	EXPECT_TRUE(KeyLess(MakeSortKey(plan, a.View()), MakeSortKey(plan, b.View())));
	EXPECT_FALSE(KeyLess(MakeSortKey(plan, b.View()), MakeSortKey(plan, a.View())));
}

TEST(CompactRowTest, RoundTripsEveryField)
{
	for (const OwnedRow &r : RandomRows(500, 2)) {
		OutputBuffer buffer;
		EncodeRow(r.View(), buffer);
		ASSERT_EQ(EncodedRowSize(buffer.Data()), buffer.Size());
		EXPECT_EQ(Describe(DecodeRow(buffer.Data())), Describe(r.View()));
	}
}

TEST(CompactRowTest, RoundTripsTheEncodingsEdges)
{
	/*
	 * Each edge of the encoding: last_updated stored or not, NULL against empty texts, lengths at
	 * the one-byte limit (254 in one byte, 255 and over in five), every followup and deleted.
	 */
	OwnedRow base{};
	std::fill(base.ids, base.ids + kIdKindCount, 3);
	base.created = 1700000000000000;
	size_t cases = 0;
	for (const int64_t last_updated : {base.created, base.created + 1, INT64_MIN})
		for (const int8_t followup : {int8_t{-1}, int8_t{0}, int8_t{1}})
			for (const bool deleted : {false, true})
				for (const std::optional<std::string> &text :
				     {std::optional<std::string>{}, std::optional<std::string>{""},
				      std::optional(std::string(254, 'a')), std::optional(std::string(255, 'b')),
				      std::optional(std::string(70000, 'c'))}) {
					OwnedRow r = base;
					r.last_updated = last_updated;
					r.followup = followup;
					r.deleted = deleted;
					r.value = text;
					r.stored_by = text ? std::optional<std::string>{} : std::optional<std::string>{"x"};
					r.comment = text;
					OutputBuffer buffer;
					EncodeRow(r.View(), buffer);
					const size_t text_bytes = text ? text->size() : 0;
					const size_t length_bytes = text_bytes < 255 ? 0 : 4; /* beyond the one byte each */
					const size_t expected = kCompactRowHeader + (last_updated == base.created ? 0 : 8) +
					                        2 * (text_bytes + length_bytes) + (text ? 0 : 1);
					ASSERT_EQ(buffer.Size(), expected);
					ASSERT_EQ(EncodedRowSize(buffer.Data()), buffer.Size());
					ASSERT_EQ(EncodedRowBytes(r.View()), buffer.Size());
					EXPECT_EQ(Describe(DecodeRow(buffer.Data())), Describe(r.View()));
					cases++;
				}
	EXPECT_EQ(cases, 3u * 3 * 2 * 5);
}

void ExpectSortedRows(const std::vector<OwnedRow> &rows, const std::vector<std::string> &merged);

/*
 * Feed every run (refill(r) fills run r until it holds a whole record or ends), then merge:
 * Describe of each row, in merged order.
 */
template <typename Refill>
std::vector<std::string>
MergeAll(RunMerger &merger, size_t runs, const Refill &refill)
{
	for (size_t r = 0; r < runs; r++)
		refill(r);
	merger.Start();
	std::vector<std::string> merged;
	while (!merger.Done()) {
		merged.push_back(Describe(merger.Top()));
		const size_t r = merger.TopRun();
		merger.Pop();
		refill(r);
		merger.Reposition();
	}
	return merged;
}

/* How CheckSortedThroughRuns sorts its runs and which it merges from memory. */
enum class RunPath {
	kThisThread, /* every run sorted and spilled on this thread */
	kWorker,     /* full runs sorted and written on the worker; the last run merged from memory */
	kWorkerKeep, /* and the worker's last run too, unless its write had ended (src/pg/ordering.cpp) */
};

/*
 * Sort in runs of a small budget, spill each, merge, and compare with std::stable_sort. On the
 * worker paths each full run is sorted on the worker thread while the next one fills, and the
 * last run is sorted while the worker finishes and then merged from memory, as
 * src/pg/ordering.cpp does; with kWorkerKeep the worker is asked to keep its run in memory too.
 */
void
CheckSortedThroughRuns(size_t rows_count, size_t budget, size_t feed_size, RunPath path = RunPath::kThisThread)
{
	const bool background = path != RunPath::kThisThread;
	const auto rows = RandomRows(rows_count, static_cast<uint32_t>(rows_count + budget));
	RowSorter sorter(DefaultPlan(), budget);
	std::vector<std::string> runs;
	const auto spill = [&] {
		TempFile file;
		ASSERT_EQ(sorter.WriteSortedRun(file.fd), 0);
		runs.push_back(file.Contents());
		sorter.ClearSortedRun();
	};
	std::unique_ptr<TempFile> pending_file;
	size_t pending_bytes = 0;
	bool kept = false; /* the worker's last run stayed in memory */
	const auto spill_pending = [&](bool keep) {
		if (sorter.SortPending()) {
			if (keep)
				sorter.KeepSortedRunInMemory();
			ASSERT_EQ(sorter.WaitForSortedRun(), 0);
			EXPECT_FALSE(sorter.SortBusy()) << "the run is written: the worker is done";
			if (!sorter.SortedRunWritten()) {
				ASSERT_TRUE(keep) << "a run is always written unless asked to stay";
				kept = true;
				return;
			}
			runs.push_back(pending_file->Contents());
			EXPECT_EQ(runs.back().size(), pending_bytes); /* the size src/pg accounts for before the write */
			pending_file.reset();
		}
	};
	for (const OwnedRow &r : rows) {
		sorter.Add(r.View());
		if (!sorter.RunFull())
			continue;
		if (background) {
			spill_pending(false);
			pending_bytes = sorter.FillingBytes();
			pending_file = std::make_unique<TempFile>();
			sorter.SortRunInBackground(dup(pending_file->fd)); /* as src/pg hands the worker a duplicate */
			EXPECT_EQ(sorter.FillingBytes(), 0u);
		} else {
			sorter.SortRun();
			spill();
		}
	}
	const bool was_spilling = !runs.empty() || sorter.SortPending();
	if (background)
		sorter.SortFillingRun(); /* while the worker may still sort and write the run before */
	spill_pending(path == RunPath::kWorkerKeep);
	std::vector<std::string> merged;
	if (!was_spilling) {
		sorter.SortRun();
		for (size_t i = 0; i < sorter.SortedRows(); i++)
			merged.push_back(Describe(sorter.SortedRow(i)));
	} else {
		/* The last run: merged from memory (background, as src/pg does) or spilled like the others. */
		size_t in_memory = SIZE_MAX, filling_in_memory = SIZE_MAX;
		if (kept) {
			in_memory = runs.size();
			runs.emplace_back(); /* read through ReadSortedRun */
			if (!sorter.RunEmpty()) {
				filling_in_memory = runs.size();
				runs.emplace_back(); /* read through ReadFillingRun */
			}
			sorter.ReleaseWriteBuffer();
		} else if (background && !sorter.RunEmpty()) {
			sorter.AdoptSortedRun();
			sorter.ReleaseAllButSortedRun();
			in_memory = runs.size();
			runs.emplace_back(); /* read through ReadSortedRun */
		} else if (!sorter.RunEmpty()) {
			sorter.SortRun();
			spill();
			sorter.ReleaseRuns(); /* as src/pg/ordering.cpp does before the merge */
		}
		EXPECT_TRUE(kept || sorter.RunEmpty());
		EXPECT_FALSE(sorter.SortPending());
		RunMerger merger(DefaultPlan(), runs.size(), sorter.Spread());
		std::vector<size_t> read(runs.size(), 0);
		const auto refill = [&](size_t r) {
			while (size_t want = merger.BytesWanted(r)) {
				const size_t space = std::max(want, feed_size);
				size_t n;
				if (r == in_memory) {
					n = sorter.ReadSortedRun(merger.FeedSpace(r, space), space);
				} else if (r == filling_in_memory) {
					n = sorter.ReadFillingRun(merger.FeedSpace(r, space), space);
				} else {
					n = std::min(space, runs[r].size() - read[r]);
					if (n > 0) /* as src/pg reads the file */
						std::memcpy(merger.FeedSpace(r, n), runs[r].data() + read[r], n);
				}
				if (n == 0) {
					merger.MarkExhausted(r);
					return;
				}
				merger.Fed(r, n);
				read[r] += n;
			}
		};
		merged = MergeAll(merger, runs.size(), refill);
	}
	ExpectSortedRows(rows, merged);
}

/* merged (Describe of each row) holds rows in the reference order. */
void
ExpectSortedRows(const std::vector<OwnedRow> &rows, const std::vector<std::string> &merged)
{
	std::vector<OwnedRow> expected = rows;
	std::stable_sort(expected.begin(), expected.end(), ReferenceLess);
	ASSERT_EQ(merged.size(), expected.size());
	/* Full-key ties are genuinely equal rows in order terms; compare order keys, then multisets. */
	std::vector<std::string> expected_text, merged_sorted = merged;
	for (size_t i = 0; i < expected.size(); i++) {
		expected_text.push_back(Describe(expected[i].View()));
		const OwnedRow &e = expected[i];
		const std::string prefix = std::to_string(e.ids[0]) + "," + std::to_string(e.ids[1]) + "," +
		                           std::to_string(e.ids[2]) + "," + std::to_string(e.ids[3]) + "," +
		                           std::to_string(e.ids[4]) + "," + std::to_string(e.created) + ",";
		EXPECT_EQ(merged[i].compare(0, prefix.size(), prefix), 0) << "row " << i;
	}
	std::sort(expected_text.begin(), expected_text.end());
	std::sort(merged_sorted.begin(), merged_sorted.end());
	EXPECT_EQ(merged_sorted, expected_text);
}

TEST(RowSorterTest, OneRunInMemory)
{
	CheckSortedThroughRuns(300, 1 << 30, 64);
}
TEST(RowSorterTest, ManyRunsSmallReads)
{
	CheckSortedThroughRuns(3000, 16 * 1024, 7);
}
TEST(RowSorterTest, ManyRunsLargeReads)
{
	CheckSortedThroughRuns(5000, 64 * 1024, 1 << 20);
}
TEST(RowSorterTest, MergesEveryRunCount)
{
	/* The tree of losers has inner nodes for any number of runs, not only powers of two. */
	for (size_t rows : {1, 12, 25, 40, 61, 90, 150, 333, 1000})
		CheckSortedThroughRuns(rows, 2048, 1 << 20);
}
/*
 * Merge runs of rows (each already in order) held whole in their windows: with the spread of
 * their keys, or with every bit assumed to vary (whole keys in the tree). Describe of each row.
 */
std::vector<std::string>
MergeRowRuns(const std::vector<std::vector<OwnedRow>> &runs, bool whole_keys, bool *packed = nullptr)
{
	KeySpread spread = KeySpread::Everything();
	if (!whole_keys) {
		spread = KeySpread{};
		for (const auto &run : runs)
			for (const OwnedRow &o : run)
				spread.Add(MakeSortKey(DefaultPlan(), o.View()));
	}
	RunMerger merger(DefaultPlan(), runs.size(), spread);
	if (packed != nullptr)
		*packed = merger.KeysPacked();
	for (size_t r = 0; r < runs.size(); r++) {
		OutputBuffer bytes;
		for (const OwnedRow &o : runs[r])
			EncodeRow(o.View(), bytes);
		if (bytes.Size() > 0) {
			std::memcpy(merger.FeedSpace(r, bytes.Size()), bytes.Data(), bytes.Size());
			merger.Fed(r, bytes.Size());
		}
		merger.MarkExhausted(r); /* every run is whole in its window */
	}
	merger.Start();
	std::vector<std::string> merged;
	while (!merger.Done()) {
		merged.push_back(Describe(merger.Top()));
		merger.Pop();
		merger.Reposition();
	}
	return merged;
}
TEST(RowSorterTest, LargestPossibleKeysStillBeatEndedRuns)
{
	/*
	 * A run that has ended takes part in the tree with a key above every real one. Rows with the
	 * largest ranks and timestamp come closest to it; they must still all come out, in order.
	 */
	const auto row = [](uint32_t id, int64_t created, uint32_t last_id) {
		OwnedRow r{};
		std::fill(r.ids, r.ids + kIdKindCount, id);
		r.ids[static_cast<size_t>(IdKind::kAttributeOptionCombo)] = last_id;
		r.created = created;
		r.value = std::to_string(id);
		return r;
	};
	const OwnedRow small = row(1, 0, 1), small2 = row(2, 0, 2);
	const OwnedRow largest = row(UINT32_MAX, INT64_MAX, UINT32_MAX);
	const OwnedRow next_largest = row(UINT32_MAX, INT64_MAX, UINT32_MAX - 1);
	const std::vector<std::vector<OwnedRow>> runs = {{small}, {largest}, {small2, next_largest}, {}};
	EXPECT_EQ(MergeRowRuns(runs, false), MergeRowRuns(runs, true)) << "every bit varies: whole keys either way";
	const std::vector<std::string> expected = {Describe(small.View()), Describe(small2.View()),
	                                           Describe(next_largest.View()), Describe(largest.View())};
	EXPECT_EQ(MergeRowRuns(runs, false), expected);
}
TEST(RowSorterTest, PackedKeysMergeAsWholeKeysDo)
{
	/*
	 * The merge packs keys and the run's number into 127 bits when they fit. Keys whose varying
	 * bits take exactly 127 (created over 64 bits, two ids over 32 and 31) pack with one run and
	 * not with two (the run's bit makes 128); both must merge in order, as whole keys do.
	 */
	const auto row = [](uint32_t de, uint32_t pe, int64_t created) {
		OwnedRow r{};
		r.ids[static_cast<size_t>(IdKind::kDataElement)] = de;
		r.ids[static_cast<size_t>(IdKind::kPeriod)] = pe;
		r.created = created;
		r.value = std::to_string(de) + "/" + std::to_string(pe);
		return r;
	};
	std::vector<OwnedRow> rows = {row(0, 0, INT64_MIN), row(UINT32_MAX, 5, -1), row(7, INT32_MAX, 0),
	                              row(UINT32_MAX, INT32_MAX, INT64_MAX), row(3, 1, 12345)};
	std::vector<OwnedRow> sorted = rows;
	std::stable_sort(sorted.begin(), sorted.end(), ReferenceLess);
	std::vector<std::string> expected;
	for (const OwnedRow &r : sorted)
		expected.push_back(Describe(r.View()));
	bool packed = false;
	EXPECT_EQ(MergeRowRuns({sorted}, false, &packed), expected);
	EXPECT_TRUE(packed) << "127 bits";
	const std::vector<std::vector<OwnedRow>> two = {{sorted[0], sorted[2], sorted[4]}, {sorted[1], sorted[3]}};
	EXPECT_EQ(MergeRowRuns(two, false, &packed), expected);
	EXPECT_FALSE(packed) << "128 bits";
	EXPECT_EQ(MergeRowRuns(two, true, &packed), expected);
	EXPECT_FALSE(packed);
	/* The random rows of the other tests (about 80 varying bits: packed), with full-key ties. */
	const auto random = RandomRows(3000, 11);
	std::vector<std::vector<OwnedRow>> many(9);
	for (size_t i = 0; i < random.size(); i++)
		many[i % many.size()].push_back(random[i]);
	for (auto &run : many)
		std::stable_sort(run.begin(), run.end(), ReferenceLess);
	ExpectSortedRows(random, MergeRowRuns(many, false, &packed));
	EXPECT_TRUE(packed);
	ExpectSortedRows(random, MergeRowRuns(many, true));
}
TEST(RowSorterTest, EmptyInput)
{
	CheckSortedThroughRuns(0, 1024, 64);
}
TEST(RowSorterTest, RunsSortedOnTheWorkerThread)
{
	for (RunPath path : {RunPath::kWorker, RunPath::kWorkerKeep}) {
		CheckSortedThroughRuns(5000, 32 * 1024, 1 << 20, path);
		CheckSortedThroughRuns(20000, 256 * 1024, 64, path);
		CheckSortedThroughRuns(300, 1 << 30, 64, path);    /* one run: never handed to the worker */
		CheckSortedThroughRuns(160, 256 * 1024, 64, path); /* about one and a half runs (109 rows fill one) */
	}
}

TEST(RowSorterTest, KeptRunIsNotWrittenAndMergesFromMemory)
{
	/*
	 * Asked before the handover, the worker sorts its run and writes nothing (deterministic: it
	 * looks before each write); the merge then reads both runs from memory. The request ends with
	 * the wait: the next background run is written as usual.
	 */
	auto rows = RandomRows(20000, 29);
	RowSorter sorter(DefaultPlan(), 256 * 1024);
	TempFile file;
	size_t i = 0;
	while (!sorter.RunFull())
		sorter.Add(rows[i++].View());
	const size_t first_run_rows = i;
	sorter.KeepSortedRunInMemory();
	sorter.SortRunInBackground(dup(file.fd));
	rows.resize(first_run_rows + first_run_rows / 2); /* and half a run more */
	for (; i < rows.size(); i++)
		sorter.Add(rows[i].View());
	ASSERT_FALSE(sorter.RunFull());
	sorter.SortFillingRun();
	ASSERT_EQ(sorter.WaitForSortedRun(), 0);
	EXPECT_FALSE(sorter.SortedRunWritten());
	EXPECT_EQ(file.Contents().size(), 0u) << "nothing written";
	EXPECT_EQ(sorter.SortedRows(), first_run_rows);

	RunMerger merger(DefaultPlan(), 2, sorter.Spread());
	const auto refill = [&](size_t r) {
		while (size_t want = merger.BytesWanted(r)) {
			const size_t space = std::max<size_t>(want, 100);
			char *to = merger.FeedSpace(r, space);
			const size_t n = r == 0 ? sorter.ReadSortedRun(to, space) : sorter.ReadFillingRun(to, space);
			if (n == 0) {
				merger.MarkExhausted(r);
				return;
			}
			merger.Fed(r, n);
		}
	};
	ExpectSortedRows(rows, MergeAll(merger, 2, refill));

	/* The request is spent: the next background run reaches its file. */
	sorter.ClearSortedRun();
	for (i = 0; !sorter.RunFull(); i++)
		sorter.Add(rows[i].View());
	const size_t bytes = sorter.FillingBytes();
	TempFile next_file;
	sorter.SortRunInBackground(dup(next_file.fd));
	ASSERT_EQ(sorter.WaitForSortedRun(), 0);
	EXPECT_TRUE(sorter.SortedRunWritten());
	EXPECT_EQ(next_file.Contents().size(), bytes);
}
TEST(RowSorterTest, DestroyedWhileTheWorkerSorts)
{
	/* A cancelled export deletes its sorter whatever the worker is doing: it must join, not leak or crash. */
	const auto rows = RandomRows(20000, 7);
	auto sorter = std::make_unique<RowSorter>(DefaultPlan(), 1 << 20);
	TempFile file;
	for (const OwnedRow &r : rows) {
		sorter->Add(r.View());
		if (sorter->RunFull() && !sorter->SortPending())
			sorter->SortRunInBackground(dup(file.fd));
	}
	EXPECT_TRUE(sorter->SortPending());
	sorter.reset();
}

TEST(RowSorterTest, WorkerWriteErrorIsReported)
{
	/* A run file that cannot be written (a full disk, here a read-only descriptor) is an error, not a short run. */
	const auto rows = RandomRows(3000, 11);
	RowSorter sorter(DefaultPlan(), 64 * 1024);
	size_t i = 0;
	while (!sorter.RunFull())
		sorter.Add(rows[i++].View());
	EXPECT_FALSE(sorter.SortBusy());
	sorter.SortRunInBackground(open("/dev/null", O_RDONLY));
	EXPECT_EQ(sorter.WaitForSortedRun(), EBADF);
	EXPECT_FALSE(sorter.SortBusy()) << "a failed write ends the work too";
	/* and on the caller's thread */
	while (!sorter.RunFull())
		sorter.Add(rows[i++].View());
	sorter.SortRun();
	const int read_only = open("/dev/null", O_RDONLY);
	EXPECT_EQ(sorter.WriteSortedRun(read_only), EBADF);
	close(read_only);
}

TEST(RowSorterTest, RecordLargerThanOneWriteKeepsItsPlace)
{
	/* Records over the megabyte a write gathers are written on their own, between the others. */
	auto rows = RandomRows(40, 13);
	rows[7].comment = std::string(3 * 1024 * 1024, 'x');
	rows[20].value = std::string(1024 * 1024, 'v');
	RowSorter sorter(DefaultPlan(), 64 * 1024 * 1024);
	const std::string bytes = SortAndWrite(sorter, rows);
	ASSERT_EQ(bytes.size(), sorter.SortedBytes());
	size_t at = 0;
	for (size_t k = 0; k < sorter.SortedRows(); k++) {
		ASSERT_LT(at, bytes.size());
		EXPECT_EQ(Describe(DecodeRow(bytes.data() + at)), Describe(sorter.SortedRow(k))) << "row " << k;
		at += EncodedRowSize(bytes.data() + at);
	}
	EXPECT_EQ(at, bytes.size());
}

TEST(RowSorterTest, ReportsItsLongestRecordAddedEitherWay)
{
	/* The merge's fan-in is cut by the longest record (src/pg MergeFanIn): rows added one by one and encoded elsewhere.
	 */
	auto rows = RandomRows(60, 17);
	rows[11].comment = std::string(70000, 'c');
	rows[42].value = std::string(120000, 'v');
	size_t longest = 0;
	for (const OwnedRow &r : rows)
		longest = std::max(longest, EncodedRowBytes(r.View()));
	ASSERT_GE(longest, 120000u);
	RowSorter one_by_one(DefaultPlan(), 64 * 1024 * 1024);
	EXPECT_EQ(one_by_one.MaxRecordBytes(), 0u);
	for (size_t i = 0; i < 30; i++)
		one_by_one.Add(rows[i].View());
	EXPECT_GE(one_by_one.MaxRecordBytes(), 70000u);
	EXPECT_LT(one_by_one.MaxRecordBytes(), 120000u);
	for (size_t i = 30; i < rows.size(); i++)
		one_by_one.Add(rows[i].View());
	EXPECT_EQ(one_by_one.MaxRecordBytes(), longest);

	EncodedRows encoded;
	for (const OwnedRow &r : rows)
		encoded.Add(DefaultPlan(), r.View());
	RowSorter in_bulk(DefaultPlan(), 64 * 1024 * 1024);
	EXPECT_EQ(in_bulk.AddEncoded(encoded, 0), rows.size());
	EXPECT_EQ(in_bulk.MaxRecordBytes(), longest);
}

/*
 * A run sorts by distributing on the bits of its keys that vary (an MSD radix sort, on keys packed
 * to those bits when they fit 96), so check it on runs whose keys vary in very different places:
 * everything, one component only, the extremes of created and of the ranks, every row equal, and
 * around the packed key's limits.
 */
TEST(RowSorterTest, SortsRunsWhateverBitsOfTheKeyVary)
{
	std::mt19937_64 rng(23);
	const std::vector<std::function<void(OwnedRow &)>> shapes = {
	    [&](OwnedRow &r) { /* like real data: many periods and creation times */
		                   r.ids[1] = static_cast<uint32_t>(rng() % 48);
		                   r.created = static_cast<int64_t>(rng() % (INT64_C(86400000000) * 731));
	    },
	    [&](OwnedRow &r) { r.created = static_cast<int64_t>(rng() % 1000); },   /* low bits only */
	    [&](OwnedRow &r) { r.created = static_cast<int64_t>(rng()); },          /* full width, signed */
	    [&](OwnedRow &r) { r.created = rng() % 2 ? INT64_MIN : INT64_MAX; },    /* extremes */
	    [&](OwnedRow &r) { r.ids[4] = rng() % 2 ? 0 : UINT32_MAX; },            /* the last word only */
	    [&](OwnedRow &r) { r.ids[2] = static_cast<uint32_t>(rng() % 100000); }, /* a tie-breaker only */
	    [&](OwnedRow &) {},                                                     /* all equal */
	    /* Around the packed key's limit of 96 bits. Only two values of the leading parts, so rows tie on them. */
	    [&](OwnedRow &r) { /* 136 bits vary: sorted on the full key */
		                   r.ids[1] = rng() % 2 ? 0 : UINT32_MAX;
		                   r.created = rng() % 2 ? INT64_MIN : INT64_MAX;
		                   r.ids[0] = static_cast<uint32_t>(rng());
		                   r.ids[2] = static_cast<uint32_t>(rng() % 256);
	    },
	    [&](OwnedRow &r) { /* 92 bits vary: the first 60 in the packed key's first word, the rest in its last 32 bits */
		                   r.ids[1] = rng() % 2 ? 0 : (1u << 20) - 1;
		                   r.created = rng() % 2 ? 0 : (INT64_C(1) << 40) - 1;
		                   r.ids[0] = static_cast<uint32_t>(rng() % (1u << 16));
		                   r.ids[2] = static_cast<uint32_t>(rng() % (1u << 16));
	    },
	};
	for (size_t shape = 0; shape < shapes.size(); shape++) {
		std::vector<OwnedRow> rows(20000);
		for (OwnedRow &r : rows) {
			for (uint32_t &id : r.ids)
				id = 3;
			r.created = 1000;
			shapes[shape](r);
			r.value = std::to_string(rng() % 1000); /* tells equal keys apart in the multiset check */
		}
		RowSorter sorter(DefaultPlan(), size_t{1} << 30);
		for (const OwnedRow &r : rows)
			sorter.Add(r.View());
		sorter.SortRun();
		ASSERT_EQ(sorter.SortedRows(), rows.size());
		std::vector<std::string> sorted_text, expected_text;
		for (size_t i = 0; i < sorter.SortedRows(); i++) {
			sorted_text.push_back(Describe(sorter.SortedRow(i)));
			if (i > 0) {
				ASSERT_FALSE(KeyLess(MakeSortKey(DefaultPlan(), sorter.SortedRow(i)),
				                     MakeSortKey(DefaultPlan(), sorter.SortedRow(i - 1))))
				    << "shape " << shape << " row " << i;
			}
		}
		std::vector<OwnedRow> expected = rows;
		std::stable_sort(expected.begin(), expected.end(), ReferenceLess);
		for (size_t i = 0; i < expected.size(); i++) {
			expected_text.push_back(Describe(expected[i].View()));
			/* the keys agree row by row; rows of equal keys may come in any order */
			const SortKey got = MakeSortKey(DefaultPlan(), sorter.SortedRow(i));
			const SortKey want = MakeSortKey(DefaultPlan(), expected[i].View());
			ASSERT_TRUE(std::equal(got.words, got.words + kSortKeyWords, want.words))
			    << "shape " << shape << " row " << i;
		}
		std::sort(sorted_text.begin(), sorted_text.end());
		std::sort(expected_text.begin(), expected_text.end());
		EXPECT_EQ(sorted_text, expected_text) << "shape " << shape;
	}
}

TEST(RowSorterTest, ReadSortedRunGivesTheBytesOfAWrite)
{
	/* The merge reads a scan's last run from memory instead of a file: the same bytes, at any read size. */
	auto rows = RandomRows(300, 17);
	rows[5].comment = std::string(2 * 1024 * 1024, 'c');
	RowSorter sorter(DefaultPlan(), 64 * 1024 * 1024);
	const std::string written = SortAndWrite(sorter, rows);
	for (size_t read_size : {size_t{1}, size_t{7}, size_t{kCompactRowHeader}, size_t{4096}, size_t{3} << 20}) {
		sorter.RewindSortedRun();
		std::string read;
		std::vector<char> buffer(read_size);
		while (const size_t n = sorter.ReadSortedRun(buffer.data(), read_size)) {
			ASSERT_LE(n, read_size);
			read.append(buffer.data(), n);
		}
		EXPECT_EQ(read.size(), written.size()) << "reads of " << read_size;
		EXPECT_TRUE(read == written) << "reads of " << read_size;
	}
	/* Cleared, it reads nothing. */
	sorter.ClearSortedRun();
	char byte;
	EXPECT_EQ(sorter.ReadSortedRun(&byte, 1), 0u);
}

TEST(PlanSortKeyTest, DefaultOrderThenTieBreakers)
{
	const SortKeyPlan plan = PlanSortKey({OrderKey::kPeriod, OrderKey::kCreated, OrderKey::kDataElement});
	const std::vector<SortComponent> expected = {SortComponent::kPeriod,
	                                             SortComponent::kCreated,
	                                             SortComponent::kDataElement,
	                                             SortComponent::kOrgUnit,
	                                             SortComponent::kCategoryOptionCombo,
	                                             SortComponent::kAttributeOptionCombo};
	EXPECT_EQ(plan.components, expected);
}

TEST(PlanSortKeyTest, RequestedKeysFirstWithoutRepeats)
{
	const SortKeyPlan plan = PlanSortKey({OrderKey::kAttributeOptionCombo, OrderKey::kOrgUnit, OrderKey::kCreated});
	const std::vector<SortComponent> expected = {
	    SortComponent::kAttributeOptionCombo, SortComponent::kOrgUnit, SortComponent::kCreated,
	    SortComponent::kDataElement,          SortComponent::kPeriod,  SortComponent::kCategoryOptionCombo};
	EXPECT_EQ(plan.components, expected);
}

TEST(SharedIdTest, TheIdEveryKeyHasOrNone)
{
	/* In every order: the kind's half is found wherever the plan put it. */
	for (const std::vector<OrderKey> &order :
	     {std::vector<OrderKey>{OrderKey::kPeriod, OrderKey::kCreated, OrderKey::kDataElement},
	      std::vector<OrderKey>{OrderKey::kOrgUnit, OrderKey::kPeriod},
	      std::vector<OrderKey>{OrderKey::kAttributeOptionCombo, OrderKey::kCreated}}) {
		const SortKeyPlan plan = PlanSortKey(order);
		KeySpread spread;
		EXPECT_FALSE(SharedId(plan, spread, IdKind::kOrgUnit)) << "no rows, no id";
		OwnedRow row{{3, 9, 70000, 4, 5}, 1700000000000000, 0, 0, false, std::string("1"), std::nullopt, std::nullopt};
		spread.Add(MakeSortKey(plan, row.View()));
		EXPECT_EQ(SharedId(plan, spread, IdKind::kOrgUnit), std::optional<uint32_t>(70000));
		EXPECT_EQ(SharedId(plan, spread, IdKind::kAttributeOptionCombo), std::optional<uint32_t>(5));
		/* Another row of the same org unit, another AOC, period and time. */
		row.ids[static_cast<size_t>(IdKind::kPeriod)] = 10;
		row.ids[static_cast<size_t>(IdKind::kAttributeOptionCombo)] = 6;
		row.created += 1;
		spread.Add(MakeSortKey(plan, row.View()));
		EXPECT_EQ(SharedId(plan, spread, IdKind::kOrgUnit), std::optional<uint32_t>(70000));
		EXPECT_FALSE(SharedId(plan, spread, IdKind::kAttributeOptionCombo));
		/* An org unit that differs in its lowest bit only. */
		row.ids[static_cast<size_t>(IdKind::kOrgUnit)] = 70001;
		spread.Add(MakeSortKey(plan, row.View()));
		EXPECT_FALSE(SharedId(plan, spread, IdKind::kOrgUnit));
		EXPECT_EQ(SharedId(plan, spread, IdKind::kDataElement), std::optional<uint32_t>(3));
	}
}

TEST(RowSorterTest, CountsTheRowsAddedEitherWay)
{
	RowSorter sorter(PlanSortKey({OrderKey::kPeriod}), 1 << 20);
	OwnedRow row{{1, 2, 3, 4, 5}, 0, 0, 0, false, std::string("v"), std::nullopt, std::nullopt};
	sorter.Add(row.View());
	EncodedRows encoded;
	for (int i = 0; i < 3; i++)
		encoded.Add(sorter.Plan(), row.View());
	EXPECT_EQ(sorter.AddEncoded(encoded, 1), 3u); /* two of the three */
	EXPECT_EQ(sorter.RowsAdded(), 3u);
}
