/*
 * bench/micro/sort_bench.cpp
 *	  Google Benchmark micro-benchmarks of an ordered export's per-row sort work, in rows/s.
 *
 *   - MakeSortKey and RecordSortKey under DHIS2's default order (PE, CREATED, DE, then the
 *     tie-breakers) and under a requested order (OU, CREATED): twice a row in an ordered export,
 *     once while scanning and once for each merge head;
 *   - RowSorter::Add (encoding a row and its key into the filling run) and SortRun on a run of
 *     128k rows (what the sorting thread does for each run; the last run is sorted on the
 *     backend's thread, where its time adds to the export's);
 *   - RunMerger merging 8 runs (the 1M demo) and 64 (10M values) of those rows, fed through
 *     64 kB windows as from the run files: the final merge's per-row cost;
 *   - DecodeStagedTuple on those rows as DHIS2's heap tuples (what the stager's thread does for
 *     each row of an ordered scan, before encoding it).
 * Rows are generated here, seeded, with the demo's identifier counts and dates. Built and run
 * with bench/micro/writers_bench.cpp (bench/run.sh --micro).
 * SPDX-License-Identifier: PostgreSQL
 */
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "core/id_map.hpp"
#include "core/output_buffer.hpp"
#include "core/row_sorter.hpp"
#include "core/staged_rows.hpp"

namespace dve = datavalue_export::core;

namespace {

constexpr size_t kRows = 1 << 17;                /* about one 16 MB run of the demo's rows */
constexpr int64_t kMicrosPerDay = 86400000000LL; /* PostgreSQL timestamps are microseconds */
constexpr int64_t kDay2023 = 8401;               /* 2023-01-01 as a PostgreSQL day number */
constexpr uint32_t kIdCounts[dve::kIdKindCount] = {400, 48, 1200, 60, 4};

struct SortFixture {
	std::vector<std::string> values;
	std::vector<dve::DataValueRow> rows;
	dve::OutputBuffer records; /* the rows encoded, as a run file holds them */
	std::vector<size_t> record_offsets;

	SortFixture()
	{
		std::mt19937_64 rng(21);
		for (size_t i = 0; i < kRows; i++)
			values.push_back(std::to_string(rng() % 100000));
		for (size_t i = 0; i < kRows; i++) {
			dve::DataValueRow row{};
			for (size_t k = 0; k < dve::kIdKindCount; k++)
				row.ids[k] = static_cast<uint32_t>(rng() % kIdCounts[k]);
			row.value = {values[i].data(), values[i].size(), false};
			row.stored_by = {"admin", 5, false};
			row.comment = dve::TextField{};
			row.created = (kDay2023 + static_cast<int64_t>(rng() % 731)) * kMicrosPerDay +
			              static_cast<int64_t>(rng() % static_cast<uint64_t>(kMicrosPerDay));
			row.last_updated = row.created;
			rows.push_back(row);
			record_offsets.push_back(records.Size());
			dve::EncodeRow(row, records);
		}
	}
};

const SortFixture &
Fixture()
{
	static const SortFixture fixture;
	return fixture;
}

const std::vector<dve::OrderKey> kDhis2Order = {dve::OrderKey::kPeriod, dve::OrderKey::kCreated,
                                                dve::OrderKey::kDataElement};
const std::vector<dve::OrderKey> kOrgUnitOrder = {dve::OrderKey::kOrgUnit, dve::OrderKey::kCreated};

void
MakeKeys(benchmark::State &state, const std::vector<dve::OrderKey> &order)
{
	const SortFixture &fx = Fixture();
	const dve::SortKeyPlan plan = dve::PlanSortKey(order);
	for (auto _ : state)
		for (const dve::DataValueRow &row : fx.rows) {
			dve::SortKey key = dve::MakeSortKey(plan, row);
			benchmark::DoNotOptimize(key);
		}
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fx.rows.size()));
}

void
BM_MakeSortKey_Dhis2Order(benchmark::State &state)
{
	MakeKeys(state, kDhis2Order);
}
BENCHMARK(BM_MakeSortKey_Dhis2Order);

void
BM_MakeSortKey_OrgUnitOrder(benchmark::State &state)
{
	MakeKeys(state, kOrgUnitOrder);
}
BENCHMARK(BM_MakeSortKey_OrgUnitOrder);

void
BM_RecordSortKey_Dhis2Order(benchmark::State &state)
{
	const SortFixture &fx = Fixture();
	const dve::SortKeyPlan plan = dve::PlanSortKey(kDhis2Order);
	for (auto _ : state)
		for (const size_t offset : fx.record_offsets) {
			dve::SortKey key = dve::RecordSortKey(plan, fx.records.Data() + offset);
			benchmark::DoNotOptimize(key);
		}
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fx.record_offsets.size()));
}
BENCHMARK(BM_RecordSortKey_Dhis2Order);

void
BM_RowSorter_Add(benchmark::State &state)
{
	const SortFixture &fx = Fixture();
	dve::RowSorter sorter(dve::PlanSortKey(kDhis2Order), size_t{1} << 30);
	for (auto _ : state) {
		for (const dve::DataValueRow &row : fx.rows)
			sorter.Add(row);
		state.PauseTiming();
		sorter.SortRun();
		sorter.ClearSortedRun();
		state.ResumeTiming();
	}
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fx.rows.size()));
}
BENCHMARK(BM_RowSorter_Add)->Unit(benchmark::kMillisecond);

void
BM_RowSorter_SortRun(benchmark::State &state)
{
	const SortFixture &fx = Fixture();
	dve::RowSorter sorter(dve::PlanSortKey(kDhis2Order), size_t{1} << 30);
	for (auto _ : state) {
		state.PauseTiming();
		for (const dve::DataValueRow &row : fx.rows)
			sorter.Add(row);
		state.ResumeTiming();
		sorter.SortRun();
		benchmark::DoNotOptimize(sorter.SortedRows());
		state.PauseTiming();
		sorter.ClearSortedRun();
		state.ResumeTiming();
	}
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fx.rows.size()));
}
BENCHMARK(BM_RowSorter_SortRun)->Unit(benchmark::kMillisecond);

/* Append one DHIS2 datavalue heap tuple of row, as RowStager::Stage records it (no NULL but the comment and followup).
 */
void
StageDhis2Tuple(const dve::DataValueRow &row, const int64_t *ids, dve::OutputBuffer &chunk)
{
	std::string data;
	const auto put = [&data](const void *p, size_t n) { data.append(static_cast<const char *>(p), n); };
	const auto short_text = [&data](const dve::TextField &f) {
		data.push_back(static_cast<char>(((f.size + 1) << 1) | 1)); /* a 1-byte varlena header */
		data.append(f.data, f.size);
	};
	for (size_t k = 0; k < dve::kIdKindCount; k++)
		put(&ids[k], 8);
	short_text(row.value);
	short_text(row.stored_by);
	data.resize((data.size() + 7) & ~size_t{7});
	put(&row.created, 8);
	put(&row.last_updated, 8);
	data.push_back(0);                                /* deleted; comment and followup are NULL */
	const uint8_t bitmap[2] = {0xFF, 0x09};           /* attributes 1-9 and 12 present */
	const uint16_t attributes = 12, bitmap_bytes = 2; /* the header: size, attributes, bitmap bytes */
	const uint32_t size = static_cast<uint32_t>(8 + bitmap_bytes + data.size());
	char *w = chunk.Reserve(size);
	std::memcpy(w, &size, 4);
	std::memcpy(w + 4, &attributes, 2);
	std::memcpy(w + 6, &bitmap_bytes, 2);
	std::memcpy(w + 8, bitmap, bitmap_bytes);
	std::memcpy(w + 8 + bitmap_bytes, data.data(), data.size());
	chunk.Commit(w + size);
}

void
BM_DecodeStagedTuple_Dhis2(benchmark::State &state)
{
	const SortFixture &fx = Fixture();
	dve::IdMap maps[dve::kIdKindCount];
	for (size_t k = 0; k < dve::kIdKindCount; k++) {
		for (uint32_t i = 0; i < kIdCounts[k]; i++)
			maps[k].Put(1000 + 3 * i, i); /* DHIS2's ids: one sequence shared by every table */
		maps[k].Densify();
	}
	dve::OutputBuffer chunk;
	for (const dve::DataValueRow &row : fx.rows) {
		int64_t ids[dve::kIdKindCount];
		for (size_t k = 0; k < dve::kIdKindCount; k++)
			ids[k] = 1000 + 3 * static_cast<int64_t>(row.ids[k]);
		StageDhis2Tuple(row, ids, chunk);
	}
	dve::TupleLayout layout = dve::Dhis2TupleLayout(); /* as RowStager recognises it */
	layout.dhis2 = state.range(0) == 1;                /* 0 walks the columns */
	for (auto _ : state) {
		dve::DataValueRow row;
		for (const char *p = chunk.Data(), *end = p + chunk.Size(); p < end; p += dve::EncodedRowSize(p)) {
			benchmark::DoNotOptimize(dve::DecodeStagedTuple(layout, maps, true, p, &row));
			benchmark::DoNotOptimize(row);
		}
	}
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fx.rows.size()));
}
BENCHMARK(BM_DecodeStagedTuple_Dhis2)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

/*
 * RowSorter::WriteSortedRun of a sorted 128k-row run to /dev/null: gathering the records in
 * sorted order, from all over the run's arena, into 1 MB writes (what the sorting thread does
 * after each sort; the write itself costs nothing here).
 */
void
BM_RowSorter_WriteSortedRun(benchmark::State &state)
{
	const SortFixture &fx = Fixture();
	dve::RowSorter sorter(dve::PlanSortKey(kDhis2Order), size_t{1} << 30);
	for (const dve::DataValueRow &row : fx.rows)
		sorter.Add(row);
	sorter.SortRun();
	const int fd = open("/dev/null", O_WRONLY);
	for (auto _ : state)
		benchmark::DoNotOptimize(sorter.WriteSortedRun(fd));
	close(fd);
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fx.rows.size()));
}
BENCHMARK(BM_RowSorter_WriteSortedRun)->Unit(benchmark::kMillisecond);

} // namespace

/*
 * RunMerger over runs of the fixture's rows, each fed through a 64 kB window as src/pg reads a
 * run file: the per-row cost of an ordered export's final merge (DecodeRow of the head, then the
 * tree replay), with 8 runs (the 1M demo) and 64 (10M values).
 */
void
BM_RunMerger_Merge(benchmark::State &state)
{
	const SortFixture &fx = Fixture();
	const size_t runs = static_cast<size_t>(state.range(0));
	const dve::SortKeyPlan plan = dve::PlanSortKey(kDhis2Order);
	std::vector<dve::OutputBuffer> run_bytes(runs);
	{
		std::vector<std::vector<size_t>> members(runs);
		for (size_t i = 0; i < fx.rows.size(); i++)
			members[i % runs].push_back(i);
		for (size_t r = 0; r < runs; r++) {
			std::sort(members[r].begin(), members[r].end(), [&](size_t a, size_t b) {
				return dve::KeyLess(dve::MakeSortKey(plan, fx.rows[a]), dve::MakeSortKey(plan, fx.rows[b]));
			});
			for (size_t i : members[r])
				dve::EncodeRow(fx.rows[i], run_bytes[r]);
		}
	}
	/* Packed keys (the spread of the rows' keys), or whole keys in the tree (every bit assumed to vary). */
	dve::KeySpread spread = dve::KeySpread::Everything();
	if (state.range(1) != 0) {
		spread = dve::KeySpread{};
		for (const dve::DataValueRow &row : fx.rows)
			spread.Add(dve::MakeSortKey(plan, row));
	}
	constexpr size_t kRead = 64 * 1024;
	std::vector<size_t> read_at(runs);
	for (auto _ : state) {
		dve::RunMerger merger(plan, runs, spread);
		const auto refill = [&](size_t r) {
			while (merger.BytesWanted(r) > 0) {
				const size_t n = std::min(kRead, run_bytes[r].Size() - read_at[r]);
				if (n == 0) {
					merger.MarkExhausted(r);
					return;
				}
				std::memcpy(merger.FeedSpace(r, n), run_bytes[r].Data() + read_at[r], n);
				merger.Fed(r, n);
				read_at[r] += n;
			}
		};
		for (size_t r = 0; r < runs; r++) {
			read_at[r] = 0;
			refill(r);
		}
		merger.Start();
		while (!merger.Done()) {
			const dve::DataValueRow row = merger.Top();
			benchmark::DoNotOptimize(row);
			const size_t r = merger.TopRun();
			merger.Pop();
			refill(r);
			merger.Reposition();
		}
	}
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fx.rows.size()));
}
BENCHMARK(BM_RunMerger_Merge)
    ->ArgNames({"runs", "packed"})
    ->ArgsProduct({{8, 64}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
