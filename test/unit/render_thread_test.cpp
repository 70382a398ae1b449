/*
 * test/unit/render_thread_test.cpp
 *	  Unit tests of core/render_thread: rows rendered on the worker come back as exactly the text
 *	  the same Writer renders on the caller's thread, in order, for every format, batch size and
 *	  flush size; a failing row's exception reaches the caller; an abandoned render (cancel)
 *	  stops and joins the worker.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/render_thread.hpp"

#include <functional>
#include <random>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/row_sorter.hpp"

namespace datavalue_export::core {
namespace {

/* Rows over a few identifiers of each kind, with texts of varied lengths, NULLs and escapes. */
struct RowSet {
	std::vector<std::string> texts;
	std::vector<DataValueRow> rows;

	RowSet(size_t count, uint32_t seed)
	{
		std::mt19937 rng(seed);
		texts.reserve(count * 3);
		for (size_t i = 0; i < count; i++) {
			DataValueRow row{};
			for (size_t k = 0; k < kIdKindCount; k++)
				row.ids[k] = rng() % 3;
			TextField *fields[3] = {&row.value, &row.stored_by, &row.comment};
			for (TextField *field : fields) {
				if (rng() % 5 == 0)
					continue; /* NULL */
				std::string text(rng() % (i % 97 == 0 ? 400 : 20), 'a');
				for (char &c : text)
					c = "ab\"\\\n,<&x"[rng() % 9];
				texts.push_back(std::move(text));
				field->data = texts.back().data();
				field->size = texts.back().size();
				field->is_null = false;
			}
			row.created = 757382400000000LL + static_cast<int64_t>(rng() % 1000000) * 1000000;
			row.last_updated = rng() % 2 ? row.created : row.created + 5000000;
			row.followup = static_cast<int8_t>(static_cast<int>(rng() % 3) - 1);
			row.deleted = rng() % 7 == 0;
			rows.push_back(row);
		}
	}
};

std::unique_ptr<Writer>
NewWriter(Format format)
{
	DocumentOptions options;
	options.format = format;
	options.style = Style::k243;
	std::unique_ptr<Writer> writer = MakeWriter(options);
	const char *names[3] = {"HllvX50cXC0", "f7n9E0hX8qk", "DiszpKrYNg8"};
	for (size_t k = 0; k < kIdKindCount; k++)
		for (size_t i = 0; i < 3; i++) {
			const std::string text = std::string(names[i]) + std::to_string(k);
			writer->AddIdentifier(static_cast<IdKind>(k), text, i == 0);
		}
	return writer;
}

/* What the document held before its rows: the worker's first buffer starts with it. */
constexpr std::string_view kPrefix = "the document's start, not yet sent";

/* The rows rendered on this thread, as an export without the worker does. */
std::string
RenderHere(Format format, const std::vector<DataValueRow> &rows)
{
	std::unique_ptr<Writer> writer = NewWriter(format);
	OutputBuffer out;
	out.Append(kPrefix);
	for (const DataValueRow &row : rows)
		writer->WriteRow(row, out);
	return std::string(out.View());
}

/* Which batches (by their index) the caller renders itself; none when empty. */
using RenderHerePolicy = std::function<bool(RenderThread &thread, size_t batch)>;

/*
 * The rows encoded, queued batch_bytes at a time, and their text collected as the export's
 * merge does; with a policy, the caller renders the batches it picks (RenderHere).
 */
std::string
RenderOnWorker(Format format, const std::vector<DataValueRow> &rows, size_t batch_bytes, size_t flush_bytes,
               size_t *buffers = nullptr, const RenderHerePolicy &here = nullptr)
{
	std::unique_ptr<Writer> writer = NewWriter(format);
	OutputBuffer prefix;
	prefix.Append(kPrefix);
	RenderThread thread(*writer, flush_bytes, prefix, here != nullptr);
	EXPECT_TRUE(prefix.Empty());
	OutputBuffer batch;
	std::string sent;
	size_t taken = 0;
	const auto take = [&] {
		while (std::unique_ptr<OutputBuffer> text = thread.TakeRendered()) {
			EXPECT_FALSE(text->Empty());
			sent.append(text->View());
			taken++;
			thread.Recycle(std::move(text));
		}
	};
	size_t batches = 0;
	for (const DataValueRow &row : rows) {
		EncodeRow(row, batch);
		if (batch.Size() >= batch_bytes) {
			if (here && here(thread, batches))
				thread.RenderHere(batch);
			else
				thread.Submit(batch);
			batches++;
			EXPECT_TRUE(batch.Empty());
			take();
		}
	}
	thread.Submit(batch);
	thread.Finish();
	take();
	EXPECT_EQ(writer->Rows(), rows.size());
	if (buffers != nullptr)
		*buffers = taken;
	return sent;
}

TEST(RenderThreadTest, SameTextAsRenderingOnTheCallersThread)
{
	const RowSet set(20000, 7);
	for (const Format format : {Format::kJson, Format::kCsv, Format::kXml}) {
		const std::string expected = RenderHere(format, set.rows);
		ASSERT_GT(expected.size(), 1000000u);
		for (const size_t batch : {size_t{4096}, size_t{128 * 1024}})
			for (const size_t flush : {size_t{64 * 1024}, size_t{256 * 1024}}) {
				SCOPED_TRACE(testing::Message()
				             << "format " << static_cast<int>(format) << " batch " << batch << " flush " << flush);
				EXPECT_EQ(RenderOnWorker(format, set.rows, batch, flush), expected);
			}
	}
}

TEST(RenderThreadTest, SameTextWhenTheCallerRendersSomeBatches)
{
	const RowSet set(20000, 13);
	const std::pair<const char *, RenderHerePolicy> policies[] = {
	    {"every other", [](RenderThread &, size_t batch) { return batch % 2 == 1; }},
	    {"two in three", [](RenderThread &, size_t batch) { return batch % 3 != 0; }},
	    /* The first batch too: with no row before it, RenderHere submits it instead. */
	    {"all", [](RenderThread &, size_t) { return true; }},
	    {"while behind", [](RenderThread &thread, size_t) { return thread.ShouldRenderHere(); }},
	};
	for (const Format format : {Format::kJson, Format::kCsv, Format::kXml}) {
		const std::string expected = RenderHere(format, set.rows);
		for (const auto &[name, policy] : policies)
			for (const size_t batch : {size_t{1}, size_t{4096}, size_t{128 * 1024}}) {
				SCOPED_TRACE(testing::Message()
				             << "format " << static_cast<int>(format) << " policy " << name << " batch " << batch);
				/* RenderOnWorker also checks that the writer counts every row, the fork's too. */
				EXPECT_EQ(RenderOnWorker(format, set.rows, batch, 64 * 1024, nullptr, policy), expected);
			}
	}
}

TEST(RenderThreadTest, TextBuffersAreRecycledWhenEachRowFillsOne)
{
	/*
	 * Rows longer than the flush size: every row fills a text, so each batch the caller renders
	 * ends on an unused spare. That spare must go back to the pool: dropped, a new buffer was
	 * made (and grown again) for every such batch, and with DHIS2's long texts that churn left
	 * the backend's heap hundreds of MB larger (the render thread's merge of 3,000 rows of two
	 * 50,000-character texts: 340 MB). The pool is bounded by what is in flight, not by the rows.
	 */
	const std::string long_text(8000, 'x');
	std::vector<DataValueRow> rows(600);
	for (size_t i = 0; i < rows.size(); i++) {
		rows[i].ids[0] = i % 3;
		rows[i].value = TextField{long_text.data(), long_text.size(), false};
		rows[i].created = 757382400000000LL + static_cast<int64_t>(i) * 1000000;
		rows[i].last_updated = rows[i].created;
	}
	std::unique_ptr<Writer> writer = NewWriter(Format::kJson);
	OutputBuffer prefix;
	RenderThread thread(*writer, 4096, prefix, true);
	OutputBuffer batch;
	std::string sent;
	for (size_t i = 0; i < rows.size(); i++) {
		EncodeRow(rows[i], batch);
		if (i % 2 == 1)
			thread.RenderHere(batch);
		else
			thread.Submit(batch);
		while (std::unique_ptr<OutputBuffer> text = thread.TakeRendered()) {
			sent.append(text->View());
			thread.Recycle(std::move(text));
		}
	}
	thread.Finish();
	while (std::unique_ptr<OutputBuffer> text = thread.TakeRendered()) {
		sent.append(text->View());
		thread.Recycle(std::move(text));
	}
	EXPECT_EQ(sent, RenderHere(Format::kJson, rows).substr(kPrefix.size()));
	EXPECT_LT(thread.TextsMade(), 32u) << "a text buffer made for every batch rendered here";
}

TEST(RenderThreadTest, XmlRootClosesWhenOnlyTheForkRenderedRowsAfterTheFirst)
{
	/* XML's End depends on the writer's row count: one row submitted, the rest rendered here. */
	const RowSet set(50, 17);
	std::unique_ptr<Writer> writer = NewWriter(Format::kXml);
	OutputBuffer prefix;
	RenderThread thread(*writer, 1 << 20, prefix, true);
	OutputBuffer batch;
	for (const DataValueRow &row : set.rows) {
		EncodeRow(row, batch);
		thread.RenderHere(batch);
	}
	thread.Finish();
	EXPECT_EQ(writer->Rows(), set.rows.size());
	OutputBuffer end;
	writer->End(end);
	EXPECT_EQ(end.View(), "</dataValueSet>");
}

TEST(RenderThreadTest, TheCallerNeverRendersWithoutRenderHereToo)
{
	const RowSet set(20000, 19);
	std::unique_ptr<Writer> writer = NewWriter(Format::kJson);
	OutputBuffer prefix;
	RenderThread thread(*writer, 64 * 1024, prefix);
	OutputBuffer batch;
	for (const DataValueRow &row : set.rows) {
		EncodeRow(row, batch);
		EXPECT_FALSE(thread.ShouldRenderHere());
		if (batch.Size() >= 4096)
			thread.Submit(batch);
	}
	thread.Submit(batch);
	thread.Finish();
	EXPECT_EQ(writer->Rows(), set.rows.size());
}

TEST(RenderThreadTest, ARowAtATime)
{
	/* Every row its own batch and its own buffer: the most hand-overs, still the same text. */
	const RowSet set(2000, 9);
	for (const Format format : {Format::kJson, Format::kCsv}) {
		size_t buffers = 0;
		EXPECT_EQ(RenderOnWorker(format, set.rows, 1, 1, &buffers), RenderHere(format, set.rows));
		EXPECT_EQ(buffers, set.rows.size()); /* the prefix shares the first row's buffer */
	}
}

TEST(RenderThreadTest, TextComesBackInBuffersOfAboutTheFlushSize)
{
	const RowSet set(20000, 11);
	size_t buffers = 0;
	const std::string text = RenderOnWorker(Format::kJson, set.rows, 128 * 1024, 64 * 1024, &buffers);
	/* Each buffer but the last reaches the flush size; none is much larger (rows are short). */
	EXPECT_GE(buffers, text.size() / (64 * 1024 + 2048));
	EXPECT_LE(buffers, text.size() / (64 * 1024) + 1);
}

TEST(RenderThreadTest, NoRowsNoText)
{
	std::unique_ptr<Writer> writer = NewWriter(Format::kJson);
	OutputBuffer nothing;
	RenderThread thread(*writer, 1024, nothing);
	OutputBuffer empty;
	thread.Submit(empty);
	thread.Finish();
	EXPECT_EQ(thread.TakeRendered(), nullptr);
	EXPECT_EQ(writer->Rows(), 0u);
}

TEST(RenderThreadTest, NoRowsOnlyThePrefix)
{
	std::unique_ptr<Writer> writer = NewWriter(Format::kJson);
	OutputBuffer prefix;
	prefix.Append(kPrefix);
	RenderThread thread(*writer, 1024, prefix);
	thread.Finish();
	std::unique_ptr<OutputBuffer> text = thread.TakeRendered();
	ASSERT_NE(text, nullptr);
	EXPECT_EQ(text->View(), kPrefix);
	EXPECT_EQ(thread.TakeRendered(), nullptr);
}

/* A writer that fails at one row, as a row's text that cannot be allocated would. */
class FailingWriter : public Writer {
  public:
	FailingWriter(std::unique_ptr<Writer> inner, uint64_t fail_at)
	    : Writer(DocumentOptions{}), inner_(std::move(inner)), fail_at_(fail_at)
	{
	}
	void Begin(OutputBuffer &out) override { inner_->Begin(out); }
	void WriteRow(const DataValueRow &row, OutputBuffer &out) override
	{
		if (written_++ == fail_at_)
			throw std::length_error("row too long for the test");
		inner_->WriteRow(row, out);
	}
	void End(OutputBuffer &out) override { inner_->End(out); }

  protected:
	std::string RenderIdentifier(IdKind, std::optional<std::string_view>, bool) const override { return {}; }

  private:
	std::unique_ptr<Writer> inner_;
	uint64_t fail_at_;
	uint64_t written_ = 0;
};

TEST(RenderThreadTest, AFailingRowReachesTheCaller)
{
	const RowSet set(5000, 3);
	for (const uint64_t fail_at : {uint64_t{0}, uint64_t{2500}, uint64_t{4999}}) {
		FailingWriter writer(NewWriter(Format::kJson), fail_at);
		OutputBuffer nothing;
		RenderThread thread(writer, 4096, nothing);
		OutputBuffer batch;
		bool thrown = false;
		try {
			for (const DataValueRow &row : set.rows) {
				EncodeRow(row, batch);
				if (batch.Size() >= 8192) {
					thread.Submit(batch);
					while (std::unique_ptr<OutputBuffer> text = thread.TakeRendered())
						thread.Recycle(std::move(text));
				}
			}
			thread.Submit(batch);
			thread.Finish();
		} catch (const std::length_error &e) {
			thrown = true;
			EXPECT_STREQ(e.what(), "row too long for the test");
		}
		EXPECT_TRUE(thrown) << "fail_at " << fail_at;
	}
}

TEST(RenderThreadTest, AbandonedRenderStopsTheWorker)
{
	/* A cancelled export deletes the thread with batches queued and text untaken: it must join. */
	const RowSet set(20000, 5);
	for (int round = 0; round < 8; round++) {
		std::unique_ptr<Writer> writer = NewWriter(Format::kCsv);
		OutputBuffer prefix;
		prefix.Append(kPrefix);
		auto thread = std::make_unique<RenderThread>(*writer, 1024, prefix);
		OutputBuffer batch;
		for (const DataValueRow &row : set.rows) {
			EncodeRow(row, batch);
			if (batch.Size() >= 16384)
				thread->Submit(batch); /* nothing taken: text piles up until the end */
			if (batch.Empty() && round % 2 == 0)
				break;
		}
		thread.reset();
	}
}

} // namespace
} // namespace datavalue_export::core
