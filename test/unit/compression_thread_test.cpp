/*
 * test/unit/compression_thread_test.cpp
 *	  Unit tests of core/compression_thread: the worker's gzip stream inflates to exactly what was
 *	  submitted, in order, for every engine and chunking; zlib level 6 gives the same bytes as the
 *	  single-threaded writer; an abandoned stream (cancel) stops and joins the worker.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/compression_thread.hpp"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

namespace datavalue_export::core {
namespace {

std::string
Inflate(const std::string &gz)
{
	z_stream s{};
	EXPECT_EQ(inflateInit2(&s, 16 + 15), Z_OK);
	s.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(gz.data()));
	s.avail_in = static_cast<uInt>(gz.size());
	std::string out;
	std::vector<char> buf(1 << 16);
	int rc;
	do {
		s.next_out = reinterpret_cast<Bytef *>(buf.data());
		s.avail_out = static_cast<uInt>(buf.size());
		rc = inflate(&s, Z_NO_FLUSH);
		out.append(buf.data(), buf.size() - s.avail_out);
	} while (rc == Z_OK);
	EXPECT_EQ(rc, Z_STREAM_END) << "stream not complete (CRC/ISIZE checked at the end)";
	EXPECT_EQ(s.avail_in, 0u) << "bytes after the one member";
	inflateEnd(&s);
	return out;
}

std::string
Document(size_t n, uint32_t seed)
{
	std::mt19937 rng(seed);
	std::string doc;
	while (doc.size() < n)
		doc +=
		    "{\"dataElement\":\"de" + std::to_string(rng() % 1000) + "\",\"value\":\"" + std::to_string(rng()) + "\"},";
	doc.resize(n);
	return doc;
}

/* Submit doc in chunks of the given sizes (cycled), collecting as the export's sink does. */
std::string
Compress(GzipEngine engine, int level, const std::string &doc, const std::vector<size_t> &chunks)
{
	CompressionThread thread(std::make_unique<GzipWriter>(engine, level));
	OutputBuffer text, sent;
	size_t at = 0, i = 0;
	while (at < doc.size()) {
		const size_t n = std::min(chunks[i++ % chunks.size()], doc.size() - at);
		text.Append(doc.data() + at, n);
		at += n;
		thread.Submit(text);
		EXPECT_TRUE(text.Empty());
		thread.Collect(sent);
	}
	thread.Finish(sent);
	return std::string(sent.View());
}

TEST(CompressionThreadTest, InflatesToTheSubmittedBytesForEveryEngineAndChunking)
{
	const std::string doc = Document(1024 * 1024 + 17, 3);
	for (const auto &[engine, level] : {std::pair{GzipEngine::kIsal, 1}, std::pair{GzipEngine::kZlib, 1},
	                                    std::pair{GzipEngine::kZlib, 6}, std::pair{GzipEngine::kZlib, 9}})
		for (const std::vector<size_t> &chunks : {std::vector<size_t>{262144}, std::vector<size_t>{1, 7, 65536, 300000},
		                                          std::vector<size_t>{4 * 1024 * 1024}})
			ASSERT_EQ(Inflate(Compress(engine, level, doc, chunks)), doc) << "level " << level;
}

TEST(CompressionThreadTest, Zlib6BytesEqualTheSingleThreadedWriter)
{
	const std::string doc = Document(1024 * 1024, 5);
	GzipWriter direct(GzipEngine::kZlib, 6);
	OutputBuffer want;
	for (size_t at = 0; at < doc.size(); at += 262144)
		direct.Write(doc.data() + at, std::min<size_t>(262144, doc.size() - at), want);
	direct.Finish(want);
	EXPECT_EQ(Compress(GzipEngine::kZlib, 6, doc, {262144}), std::string(want.View()));
}

TEST(CompressionThreadTest, EmptyDocumentIsOneEmptyMember)
{
	CompressionThread thread(std::make_unique<GzipWriter>(GzipEngine::kIsal, 1));
	OutputBuffer sent;
	thread.Finish(sent);
	EXPECT_EQ(Inflate(std::string(sent.View())), "");
}

TEST(CompressionThreadTest, AbandonedStreamStopsTheWorker)
{
	/* As when an export is cancelled: buffers queued, no Finish, the state is deleted. */
	const std::string doc = Document(2 * 1024 * 1024, 9);
	for (int round = 0; round < 5; round++) {
		CompressionThread thread(std::make_unique<GzipWriter>(GzipEngine::kZlib, 1));
		OutputBuffer text;
		for (size_t at = 0; at < doc.size(); at += 262144) {
			text.Append(doc.data() + at, std::min<size_t>(262144, doc.size() - at));
			thread.Submit(text);
		}
	}
	SUCCEED();
}

} // namespace
} // namespace datavalue_export::core
