/*
 * bench/micro/writers_bench.cpp
 *	  Google Benchmark micro-benchmarks of the core hot paths, reported in bytes/s.
 *
 * What each group measures (inputs are generated here, seeded, so runs are comparable):
 *   - JSON escaping (EscapeJsonBody via WriteJsonString) and CSV quoting (WriteCsvField) on
 *     the four text shapes of real data: 11-character UIDs, short numeric values, long clean
 *     text, and text full of characters that need escaping or quoting;
 *   - DHIS2 timestamp formatting (WriteDhis2Timestamp);
 *   - ISO period strings (AppendIsoPeriod) for Monthly, Weekly and BiWeekly;
 *   - a whole data value row through Writer::WriteRow (MakeWriter), JSON 2.43, JSON 2.42 and CSV;
 *   - GzipWriter on a realistic JSON document fed in 256 kB chunks (the export's flush size):
 *     ISA-L level 1 (the default), zlib level 1 and zlib level 6 (Java's GZIPOutputStream).
 * Bytes processed are input bytes for escaping and gzip, output bytes for the formatters and
 * rows. Build and run (bench/run.sh --micro does this):
 *
 *   cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release && cmake --build build/bench --target micro_bench
 *   build/bench/micro_bench
 * SPDX-License-Identifier: PostgreSQL
 */
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/writer.hpp"
#include "core/escape.hpp"
#include "core/gzip.hpp"
#include "core/output_buffer.hpp"
#include "core/period.hpp"
#include "core/timestamp.hpp"

namespace dve = datavalue_export::core;

namespace {

constexpr size_t kInputs = 4096;                 /* distinct inputs cycled through per benchmark */
constexpr size_t kFlushBytes = 256 * 1024;       /* the export's output batch size */
constexpr int32_t kDay2023 = 8401;               /* 2023-01-01 as a PostgreSQL day number */
constexpr int64_t kMicrosPerDay = 86400000000LL; /* PostgreSQL timestamps are microseconds */

std::string
RandomUid(std::mt19937_64 &rng)
{
	static constexpr char kAlpha[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	static constexpr char kAlnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	std::string uid(11, ' ');
	uid[0] = kAlpha[rng() % 52];
	for (size_t i = 1; i < uid.size(); i++)
		uid[i] = kAlnum[rng() % 62];
	return uid;
}

std::vector<std::string>
Uids(size_t n, uint64_t seed)
{
	std::mt19937_64 rng(seed);
	std::vector<std::string> out;
	for (size_t i = 0; i < n; i++)
		out.push_back(RandomUid(rng));
	return out;
}

/* Aggregate values as DHIS2 stores them: small integers mostly, some decimals. */
std::vector<std::string>
NumericValues(size_t n)
{
	std::mt19937_64 rng(2);
	std::vector<std::string> out;
	for (size_t i = 0; i < n; i++) {
		if (rng() % 5 == 0)
			out.push_back(std::to_string(rng() % 1000) + "." + std::to_string(rng() % 100));
		else
			out.push_back(std::to_string(rng() % 5000));
	}
	return out;
}

/* Long comments: clean prose, about 2 kB each. */
std::vector<std::string>
LongCleanTexts(size_t n)
{
	static const char *const kWords[] = {"stock", "out",   "reported", "by",    "the",    "district", "health",
	                                     "team",  "after", "review",   "of",    "ledger", "values",   "for",
	                                     "the",   "month", "clinic",   "staff", "noted",  "delays"};
	std::mt19937_64 rng(3);
	std::vector<std::string> out;
	for (size_t i = 0; i < n; i++) {
		std::string s;
		while (s.size() < 2048) {
			s += kWords[rng() % (sizeof kWords / sizeof kWords[0])];
			s += ' ';
		}
		out.push_back(s);
	}
	return out;
}

/* About 200-byte texts where every fourth byte or so needs escaping (JSON) or forces quoting (CSV). */
std::vector<std::string>
DirtyTexts(size_t n)
{
	static constexpr char kSpecial[] = {'"', '\\', '\n', '\r', '\t', ',', '\x01', '\x1f'};
	std::mt19937_64 rng(4);
	std::vector<std::string> out;
	for (size_t i = 0; i < n; i++) {
		std::string s = "x";
		while (s.size() < 200)
			s += rng() % 4 == 0 ? kSpecial[rng() % sizeof kSpecial] : static_cast<char>('a' + rng() % 26);
		s += 'y';
		out.push_back(s);
	}
	return out;
}

size_t
TotalSize(const std::vector<std::string> &v)
{
	size_t n = 0;
	for (const std::string &s : v)
		n += s.size();
	return n;
}

size_t
MaxSize(const std::vector<std::string> &v)
{
	size_t n = 0;
	for (const std::string &s : v)
		n = std::max(n, s.size());
	return n;
}

/* ---- JSON escaping ---- */

void
JsonEscape(benchmark::State &state, const std::vector<std::string> &inputs)
{
	std::vector<char> out(dve::JsonEscapedMax(MaxSize(inputs)) + 2);
	for (auto _ : state) {
		for (const std::string &s : inputs) {
			char *end = dve::WriteJsonString(out.data(), s.data(), s.size());
			benchmark::DoNotOptimize(end);
			benchmark::ClobberMemory();
		}
	}
	state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * TotalSize(inputs)));
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * inputs.size()));
}

void
BM_JsonEscape_Uid(benchmark::State &state)
{
	JsonEscape(state, Uids(kInputs, 1));
}
BENCHMARK(BM_JsonEscape_Uid);

void
BM_JsonEscape_Numeric(benchmark::State &state)
{
	JsonEscape(state, NumericValues(kInputs));
}
BENCHMARK(BM_JsonEscape_Numeric);

void
BM_JsonEscape_LongClean(benchmark::State &state)
{
	JsonEscape(state, LongCleanTexts(256));
}
BENCHMARK(BM_JsonEscape_LongClean);

void
BM_JsonEscape_ManyEscapes(benchmark::State &state)
{
	JsonEscape(state, DirtyTexts(kInputs));
}
BENCHMARK(BM_JsonEscape_ManyEscapes);

/* ---- CSV quoting ---- */

void
CsvField(benchmark::State &state, const std::vector<std::string> &inputs)
{
	std::vector<char> out(dve::CsvFieldMax(MaxSize(inputs)));
	for (auto _ : state) {
		for (const std::string &s : inputs) {
			char *end = dve::WriteCsvField(out.data(), s.data(), s.size(), false);
			benchmark::DoNotOptimize(end);
			benchmark::ClobberMemory();
		}
	}
	state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * TotalSize(inputs)));
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * inputs.size()));
}

void
BM_CsvField_Uid(benchmark::State &state)
{
	CsvField(state, Uids(kInputs, 1));
}
BENCHMARK(BM_CsvField_Uid);

void
BM_CsvField_Numeric(benchmark::State &state)
{
	CsvField(state, NumericValues(kInputs));
}
BENCHMARK(BM_CsvField_Numeric);

void
BM_CsvField_LongClean(benchmark::State &state)
{
	CsvField(state, LongCleanTexts(256));
}
BENCHMARK(BM_CsvField_LongClean);

void
BM_CsvField_ManyQuotes(benchmark::State &state)
{
	CsvField(state, DirtyTexts(kInputs));
}
BENCHMARK(BM_CsvField_ManyQuotes);

/* ---- Timestamps ---- */

/* A created/lastupdated value: a day of 2023-2024 and a random microsecond of it. */
int64_t
RandomStamp(std::mt19937_64 &rng)
{
	return (kDay2023 + static_cast<int64_t>(rng() % 731)) * kMicrosPerDay +
	       static_cast<int64_t>(rng() % static_cast<uint64_t>(kMicrosPerDay));
}

void
BM_Timestamp(benchmark::State &state)
{
	std::mt19937_64 rng(5);
	std::vector<int64_t> stamps;
	for (size_t i = 0; i < kInputs; i++)
		stamps.push_back(RandomStamp(rng));
	char out[dve::kTimestampMax];
	size_t bytes = 0;
	for (auto _ : state) {
		for (const int64_t t : stamps) {
			char *end = dve::WriteDhis2Timestamp(out, t);
			bytes += static_cast<size_t>(end - out);
			benchmark::DoNotOptimize(end);
			benchmark::ClobberMemory();
		}
	}
	state.SetBytesProcessed(static_cast<int64_t>(bytes));
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * stamps.size()));
}
BENCHMARK(BM_Timestamp);

/*
 * The formatter as a row uses it: created, then lastupdated (a later instant, the same one in
 * a tenth of the rows), spread over 2023-2024, so most texts are new and the day cache hits.
 */
void
BM_TimestampFormatter_Row(benchmark::State &state)
{
	std::mt19937_64 rng(7);
	std::vector<int64_t> stamps;
	for (size_t i = 0; i < kInputs; i++) {
		const int64_t created = RandomStamp(rng);
		stamps.push_back(created);
		stamps.push_back(rng() % 10 == 0 ? created : created + static_cast<int64_t>(rng() % 1000000000));
	}
	dve::TimestampFormatter formatter;
	char out[2 * dve::kTimestampMax];
	size_t bytes = 0;
	for (auto _ : state) {
		for (size_t i = 0; i < stamps.size(); i += 2) {
			char *end = formatter.Write(out, stamps[i]);
			end = formatter.Write(end, stamps[i + 1]);
			bytes += static_cast<size_t>(end - out);
			benchmark::DoNotOptimize(end);
			benchmark::ClobberMemory();
		}
	}
	state.SetBytesProcessed(static_cast<int64_t>(bytes));
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * stamps.size()));
}
BENCHMARK(BM_TimestampFormatter_Row);

/* ---- ISO periods ---- */

void
IsoPeriod(benchmark::State &state, dve::PeriodType type)
{
	std::vector<int32_t> days;
	for (size_t i = 0; i < kInputs; i++)
		days.push_back(kDay2023 + static_cast<int32_t>((i * 7919) % 731));
	std::string out;
	out.reserve(32);
	size_t bytes = 0;
	for (auto _ : state) {
		for (const int32_t day : days) {
			out.clear();
			dve::AppendIsoPeriod(type, day, out);
			bytes += out.size();
			benchmark::DoNotOptimize(out.data());
			benchmark::ClobberMemory();
		}
	}
	state.SetBytesProcessed(static_cast<int64_t>(bytes));
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * days.size()));
}

void
BM_IsoPeriod_Monthly(benchmark::State &state)
{
	IsoPeriod(state, dve::PeriodType::kMonthly);
}
BENCHMARK(BM_IsoPeriod_Monthly);

void
BM_IsoPeriod_Weekly(benchmark::State &state)
{
	IsoPeriod(state, dve::PeriodType::kWeekly);
}
BENCHMARK(BM_IsoPeriod_Weekly);

void
BM_IsoPeriod_BiWeekly(benchmark::State &state)
{
	IsoPeriod(state, dve::PeriodType::kBiWeekly);
}
BENCHMARK(BM_IsoPeriod_BiWeekly);

/* ---- Whole rows ---- */

/* Metadata sizes of the demo database (Sierra Leone-like): identifiers per kind. */
constexpr size_t kIdCounts[dve::kIdKindCount] = {400, 48, 1200, 60, 4};

/* A writer with realistic identifiers registered, and rows that reference them at random. */
struct RowFixture {
	std::vector<std::string> id_texts[dve::kIdKindCount];
	std::vector<std::string> values, stored_by, comments;
	std::vector<dve::DataValueRow> rows;

	RowFixture()
	{
		for (size_t k = 0; k < dve::kIdKindCount; k++) {
			if (k == static_cast<size_t>(dve::IdKind::kPeriod)) {
				for (size_t i = 0; i < kIdCounts[k]; i++) {
					std::string iso;
					dve::AppendIsoPeriod(dve::PeriodType::kMonthly, kDay2023 + static_cast<int32_t>(i * 31), iso);
					id_texts[k].push_back(iso);
				}
			} else
				id_texts[k] = Uids(kIdCounts[k], 10 + k);
		}
		values = NumericValues(kInputs);
		std::mt19937_64 rng(6);
		const std::vector<std::string> users = {"admin", "district_officer", "system", "jdoe"};
		for (size_t i = 0; i < kInputs; i++) {
			stored_by.push_back(users[rng() % users.size()]);
			comments.push_back(rng() % 20 == 0 ? "checked against register" : "");
		}
		for (size_t i = 0; i < kInputs; i++) {
			dve::DataValueRow row{};
			for (size_t k = 0; k < dve::kIdKindCount; k++)
				row.ids[k] = static_cast<uint32_t>(rng() % kIdCounts[k]);
			row.value = {values[i].data(), values[i].size(), false};
			row.stored_by = {stored_by[i].data(), stored_by[i].size(), false};
			row.comment =
			    comments[i].empty() ? dve::TextField{} : dve::TextField{comments[i].data(), comments[i].size(), false};
			row.created = (kDay2023 + static_cast<int64_t>(rng() % 731)) * kMicrosPerDay + 37123456;
			row.last_updated = row.created + static_cast<int64_t>(rng() % 1000000000);
			row.followup = rng() % 50 == 0 ? 1 : 0;
			row.deleted = false;
			rows.push_back(row);
		}
	}

	std::unique_ptr<dve::Writer> Writer(dve::Format format, dve::Style style) const
	{
		dve::DocumentOptions options;
		options.format = format;
		options.style = style;
		auto writer = dve::MakeWriter(options);
		for (size_t k = 0; k < dve::kIdKindCount; k++)
			for (size_t i = 0; i < id_texts[k].size(); i++)
				writer->AddIdentifier(static_cast<dve::IdKind>(k), id_texts[k][i], false);
		return writer;
	}
};

const RowFixture &
Fixture()
{
	static const RowFixture fixture;
	return fixture;
}

void
WriteRows(benchmark::State &state, dve::Format format, dve::Style style)
{
	const RowFixture &fx = Fixture();
	auto writer = fx.Writer(format, style);
	dve::OutputBuffer out(kFlushBytes * 2);
	writer->Begin(out);
	size_t bytes = 0;
	for (auto _ : state) {
		for (const dve::DataValueRow &row : fx.rows) {
			writer->WriteRow(row, out);
			if (out.Size() >= kFlushBytes) {
				bytes += out.Size();
				benchmark::DoNotOptimize(out.Data());
				out.Clear();
			}
		}
	}
	bytes += out.Size();
	state.SetBytesProcessed(static_cast<int64_t>(bytes));
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fx.rows.size()));
}

void
BM_WriteRow_Json243(benchmark::State &state)
{
	WriteRows(state, dve::Format::kJson, dve::Style::k243);
}
BENCHMARK(BM_WriteRow_Json243);

void
BM_WriteRow_Json242(benchmark::State &state)
{
	WriteRows(state, dve::Format::kJson, dve::Style::k242);
}
BENCHMARK(BM_WriteRow_Json242);

void
BM_WriteRow_Csv(benchmark::State &state)
{
	WriteRows(state, dve::Format::kCsv, dve::Style::k243);
}
BENCHMARK(BM_WriteRow_Csv);

/* ---- gzip ---- */

/* About 16 MB of JSON 2.43 document, rendered by the writer from the row fixture. */
const std::string &
JsonDocument()
{
	static const std::string doc = [] {
		const RowFixture &fx = Fixture();
		auto writer = fx.Writer(dve::Format::kJson, dve::Style::k243);
		dve::OutputBuffer out;
		writer->Begin(out);
		std::mt19937_64 rng(7);
		while (out.Size() < 16 * 1024 * 1024) {
			/* Rows in random order, so the text is not one 4096-row cycle repeated. */
			writer->WriteRow(fx.rows[rng() % fx.rows.size()], out);
		}
		writer->End(out);
		return std::string(out.View());
	}();
	return doc;
}

void
Gzip(benchmark::State &state, dve::GzipEngine engine, int level)
{
	const std::string &doc = JsonDocument();
	dve::OutputBuffer out(kFlushBytes * 2);
	size_t compressed = 0;
	for (auto _ : state) {
		dve::GzipWriter gzip(engine, level);
		compressed = 0;
		for (size_t off = 0; off < doc.size(); off += kFlushBytes) {
			gzip.Write(doc.data() + off, std::min(kFlushBytes, doc.size() - off), out);
			compressed += out.Size();
			out.Clear();
		}
		gzip.Finish(out);
		compressed += out.Size();
		out.Clear();
	}
	state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * doc.size()));
	state.counters["ratio"] = static_cast<double>(doc.size()) / static_cast<double>(compressed);
}

void
BM_Gzip_IsalLevel1(benchmark::State &state)
{
	Gzip(state, dve::GzipEngine::kIsal, 1);
}
BENCHMARK(BM_Gzip_IsalLevel1)->Unit(benchmark::kMillisecond);

void
BM_Gzip_ZlibLevel1(benchmark::State &state)
{
	Gzip(state, dve::GzipEngine::kZlib, 1);
}
BENCHMARK(BM_Gzip_ZlibLevel1)->Unit(benchmark::kMillisecond);

void
BM_Gzip_ZlibLevel6(benchmark::State &state)
{
	Gzip(state, dve::GzipEngine::kZlib, 6);
}
BENCHMARK(BM_Gzip_ZlibLevel6)->Unit(benchmark::kMillisecond);

} // namespace
