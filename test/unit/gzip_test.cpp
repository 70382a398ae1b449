/*
 * test/unit/gzip_test.cpp
 *	  Unit tests of core/gzip: one streamed gzip member over ISA-L (levels 0-3) or zlib (levels 1-9).
 *
 * Every output is inflated again with zlib's own gzip reader (inflateInit2 with 16+15 window bits),
 * which also checks the CRC and ISIZE; a test then confirms that nothing follows the first member
 * (exactly one member, pg-techniques.md §4.3), that the header is Java's 1f 8b 08 00 00000000 00 ff
 * and that the trailer holds CRC-32 and the input size little-endian. zlib level 6 must give the
 * same bytes as the recipe of pg-techniques.md §4.4 (raw deflate at level 6, window -15, memLevel 8,
 * Java's header, CRC32/ISIZE trailer), built here directly on zlib. Inputs are fed in many chunk
 * patterns, with zero-byte writes in between, and as one huge write.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/gzip.hpp"

#include <algorithm>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

#include "core/error.hpp"

namespace datavalue_export::core {
namespace {

const std::string kJavaHeader("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);

struct EngineLevel {
	GzipEngine engine;
	int level;
};

std::vector<EngineLevel>
AllEngineLevels()
{
	std::vector<EngineLevel> out;
	for (int level = 0; level <= 3; level++)
		out.push_back({GzipEngine::kIsal, level});
	for (int level = 1; level <= 9; level++)
		out.push_back({GzipEngine::kZlib, level});
	return out;
}

std::string
Name(const EngineLevel &el)
{
	return std::string(el.engine == GzipEngine::kIsal ? "isal" : "zlib") + " level " + std::to_string(el.level);
}

/* ---- Inputs ---- */

/* Something like a JSON export: repetitive keys, varying numbers. */
std::string
JsonLike(size_t size, uint32_t seed)
{
	std::mt19937 rng(seed);
	std::string s;
	while (s.size() < size)
		s += "{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"2024" + std::to_string(rng() % 12 + 1) + "\",\"value\":\"" +
		     std::to_string(rng() % 100000) + "\",\"storedBy\":\"admin\"},";
	s.resize(size);
	return s;
}

std::string
RandomBytes(size_t size, uint32_t seed)
{
	std::mt19937 rng(seed);
	std::string s(size, '\0');
	for (char &c : s)
		c = static_cast<char>(rng());
	return s;
}

/* Long runs and incompressible stretches, so that the engines switch block types. */
std::string
Mixed(size_t size, uint32_t seed)
{
	std::mt19937 rng(seed);
	std::string s;
	while (s.size() < size) {
		const size_t run = rng() % 70000;
		switch (rng() % 3) {
		case 0:
			s.append(run, static_cast<char>(rng()));
			break;
		case 1:
			s += RandomBytes(run, rng());
			break;
		default:
			s += JsonLike(run, rng());
		}
	}
	s.resize(size);
	return s;
}

/* ---- Helpers ---- */

/* Writes data in pieces of the given sizes (cycled); optionally a zero-byte write before each piece. */
std::string
Compress(const EngineLevel &el, const std::string &data, const std::vector<size_t> &chunks, bool zero_writes,
         uint64_t *input_bytes = nullptr)
{
	GzipWriter writer(el.engine, el.level);
	OutputBuffer out;
	size_t pos = 0;
	for (size_t i = 0; pos < data.size(); i++) {
		const size_t n = std::min(chunks[i % chunks.size()], data.size() - pos);
		if (zero_writes)
			writer.Write(data.data() + pos, 0, out);
		writer.Write(data.data() + pos, n, out);
		pos += n;
	}
	if (zero_writes)
		writer.Write(data.data(), 0, out);
	writer.Finish(out);
	if (input_bytes)
		*input_bytes = writer.InputBytes();
	return std::string(out.View());
}

struct Inflated {
	bool ok = false;
	std::string data;
	size_t consumed = 0; /* compressed bytes used by the first member */
	std::string error;
};

/* zlib's gzip reader, first member only; Z_STREAM_END is reached only when CRC and ISIZE match. */
Inflated
InflateFirstMember(std::string_view gz)
{
	Inflated r;
	z_stream s{};
	if (inflateInit2(&s, 16 + 15) != Z_OK) {
		r.error = "inflateInit2";
		return r;
	}
	s.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(gz.data()));
	s.avail_in = static_cast<uInt>(gz.size());
	std::vector<char> buf(1 << 16);
	for (;;) {
		s.next_out = reinterpret_cast<Bytef *>(buf.data());
		s.avail_out = static_cast<uInt>(buf.size());
		const int rc = inflate(&s, Z_NO_FLUSH);
		r.data.append(buf.data(), buf.size() - s.avail_out);
		if (rc == Z_STREAM_END) {
			r.ok = true;
			break;
		}
		if (rc != Z_OK) {
			r.error = "inflate rc " + std::to_string(rc) + (s.msg ? std::string(": ") + s.msg : std::string());
			break;
		}
	}
	r.consumed = gz.size() - s.avail_in;
	inflateEnd(&s);
	return r;
}

uint32_t
Le32(std::string_view s, size_t at)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<size_t>(i)]);
	return v;
}

uint32_t
Crc32(const std::string &data)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	size_t pos = 0;
	while (pos < data.size()) {
		const size_t n = std::min<size_t>(data.size() - pos, 1u << 30);
		crc = crc32(crc, reinterpret_cast<const Bytef *>(data.data() + pos), static_cast<uInt>(n));
		pos += n;
	}
	return static_cast<uint32_t>(crc);
}

/* Round trip, one member, Java header, CRC/ISIZE trailer. */
void
CheckGzip(const std::string &gz, const std::string &data)
{
	ASSERT_GE(gz.size(), 18u);
	EXPECT_EQ(gz.substr(0, 10), kJavaHeader);
	const Inflated r = InflateFirstMember(gz);
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_TRUE(r.data == data) << "inflated " << r.data.size() << " bytes, expected " << data.size();
	EXPECT_EQ(r.consumed, gz.size()) << "bytes after the first gzip member";
	EXPECT_EQ(Le32(gz, gz.size() - 8), Crc32(data));
	EXPECT_EQ(Le32(gz, gz.size() - 4), static_cast<uint32_t>(data.size()));
}

/* pg-techniques.md §4.4: the bytes Java's GZIPOutputStream writes, rebuilt directly on zlib. */
std::string
JavaRecipe(const std::string &data, int level = 6)
{
	z_stream s{};
	EXPECT_EQ(deflateInit2(&s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	std::string out = kJavaHeader;
	std::vector<char> buf(1 << 16);
	size_t pos = 0;
	int rc;
	do {
		const size_t n = std::min<size_t>(data.size() - pos, 64 * 1024);
		s.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data() + pos));
		s.avail_in = static_cast<uInt>(n);
		pos += n;
		const int flush = pos == data.size() ? Z_FINISH : Z_NO_FLUSH;
		do {
			s.next_out = reinterpret_cast<Bytef *>(buf.data());
			s.avail_out = static_cast<uInt>(buf.size());
			rc = deflate(&s, flush);
			EXPECT_NE(rc, Z_STREAM_ERROR);
			out.append(buf.data(), buf.size() - s.avail_out);
		} while (s.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	} while (pos < data.size());
	deflateEnd(&s);
	const uint32_t crc = Crc32(data);
	const uint32_t isize = static_cast<uint32_t>(data.size());
	for (int i = 0; i < 4; i++)
		out += static_cast<char>(crc >> (8 * i));
	for (int i = 0; i < 4; i++)
		out += static_cast<char>(isize >> (8 * i));
	return out;
}

const std::vector<std::vector<size_t>> kChunkPatterns = {
    {1}, {7}, {8, 1, 4096}, {100}, {4095, 4097}, {65535, 65536, 65537}, {1 << 20}, {3, 70000, 1, 250000, 17},
};

/* ---- Tests ---- */

TEST(GzipTest, JavaRecipeSelfCheck)
{
	/* The recipe for an empty input is what Java writes: header, an empty final fixed block, zero trailer. */
	const std::string want = kJavaHeader + std::string("\x03\x00", 2) + std::string(8, '\0');
	EXPECT_EQ(JavaRecipe(""), want);
	CheckGzip(JavaRecipe("hello"), "hello");
}

TEST(GzipTest, EmptyInputEveryEngineAndLevel)
{
	for (const EngineLevel &el : AllEngineLevels()) {
		SCOPED_TRACE(Name(el));
		/* Finish without any Write. */
		GzipWriter writer(el.engine, el.level);
		OutputBuffer out;
		writer.Finish(out);
		const std::string gz(out.View());
		CheckGzip(gz, "");
		EXPECT_EQ(writer.InputBytes(), 0u);
		EXPECT_EQ(gz.substr(gz.size() - 8), std::string(8, '\0'));
		/* Zero-byte writes only. */
		CheckGzip(Compress(el, "", {1}, true), "");
	}
}

TEST(GzipTest, ZlibLevel6EmptyInputIsJavaBytes)
{
	GzipWriter writer(GzipEngine::kZlib, 6);
	OutputBuffer out;
	writer.Write("", 0, out);
	writer.Finish(out);
	EXPECT_EQ(std::string(out.View()), JavaRecipe(""));
}

TEST(GzipTest, HeaderIsJavasForEveryEngineAndLevel)
{
	for (const EngineLevel &el : AllEngineLevels()) {
		const std::string gz = Compress(el, "abc", {3}, false);
		EXPECT_EQ(gz.substr(0, 10), kJavaHeader) << Name(el);
		EXPECT_EQ(std::count(gz.begin(), gz.begin() + 10, '\x1f'), 1) << Name(el);
	}
}

TEST(GzipTest, RoundTripEveryEngineLevelAndChunkPattern)
{
	const std::string inputs[] = {JsonLike(300000, 1), RandomBytes(200000, 2), Mixed(400000, 3), std::string(1, 'x'),
	                              std::string(70000, '\0')};
	for (const EngineLevel &el : AllEngineLevels())
		for (size_t d = 0; d < std::size(inputs); d++)
			for (size_t c = 0; c < kChunkPatterns.size(); c++) {
				if (inputs[d].size() > 100000 && kChunkPatterns[c][0] < 8)
					continue; /* tiny pieces of big inputs add time, not coverage (see ByteAtATime...) */
				SCOPED_TRACE(Name(el) + ", input " + std::to_string(d) + ", chunk pattern " + std::to_string(c));
				uint64_t input_bytes = 0;
				const std::string gz = Compress(el, inputs[d], kChunkPatterns[c], c % 2 == 0, &input_bytes);
				CheckGzip(gz, inputs[d]);
				EXPECT_EQ(input_bytes, inputs[d].size());
			}
}

TEST(GzipTest, ByteAtATimeEveryEngineAndLevel)
{
	const std::string data = Mixed(20000, 9);
	for (const EngineLevel &el : AllEngineLevels()) {
		SCOPED_TRACE(Name(el));
		CheckGzip(Compress(el, data, {1}, true), data);
	}
}

TEST(GzipTest, OneHugeWriteEveryEngineAndLevel)
{
	const std::string data = Mixed(8u << 20, 11);
	for (const EngineLevel &el : AllEngineLevels()) {
		SCOPED_TRACE(Name(el));
		uint64_t input_bytes = 0;
		CheckGzip(Compress(el, data, {data.size()}, false, &input_bytes), data);
		EXPECT_EQ(input_bytes, data.size());
	}
}

TEST(GzipTest, CompressesCompressibleInput)
{
	const std::string data = JsonLike(1 << 20, 4);
	for (const EngineLevel &el : AllEngineLevels()) {
		if (el.engine == GzipEngine::kIsal && el.level == 0)
			continue; /* level 0 may use stored blocks */
		EXPECT_LT(Compress(el, data, {65536}, false).size(), data.size() / 2) << Name(el);
	}
}

TEST(GzipTest, AppendsToWhatTheBufferAlreadyHolds)
{
	for (const EngineLevel &el : AllEngineLevels()) {
		SCOPED_TRACE(Name(el));
		const std::string data = JsonLike(100000, 5);
		GzipWriter writer(el.engine, el.level);
		OutputBuffer out;
		out.Append("PREFIX");
		writer.Write(data.data(), 1000, out);
		writer.Write(data.data() + 1000, data.size() - 1000, out);
		writer.Finish(out);
		const std::string all(out.View());
		ASSERT_EQ(all.substr(0, 6), "PREFIX");
		CheckGzip(all.substr(6), data);
	}
}

TEST(GzipTest, OutputMayBeDrainedBetweenWrites)
{
	/* The caller sends and clears the buffer between writes; the concatenation is still one member. */
	for (const EngineLevel &el : AllEngineLevels()) {
		SCOPED_TRACE(Name(el));
		const std::string data = Mixed(600000, 6);
		GzipWriter writer(el.engine, el.level);
		OutputBuffer out;
		std::string sent;
		for (size_t pos = 0; pos < data.size(); pos += 50000) {
			writer.Write(data.data() + pos, std::min<size_t>(50000, data.size() - pos), out);
			sent.append(out.View());
			out.Clear();
		}
		writer.Finish(out);
		sent.append(out.View());
		CheckGzip(sent, data);
	}
}

TEST(GzipTest, ZlibLevel6IsByteIdenticalToJavaRecipe)
{
	const std::string inputs[] = {"", "a", JsonLike(1 << 20, 7), RandomBytes(300000, 8), Mixed(3u << 20, 9)};
	for (size_t d = 0; d < std::size(inputs); d++) {
		const std::string want = JavaRecipe(inputs[d]);
		for (size_t c = 0; c < kChunkPatterns.size(); c++) {
			if (inputs[d].size() > 500000 && kChunkPatterns[c][0] == 1)
				continue;
			SCOPED_TRACE("input " + std::to_string(d) + ", chunk pattern " + std::to_string(c));
			const std::string got = Compress({GzipEngine::kZlib, 6}, inputs[d], kChunkPatterns[c], c % 2 == 1);
			EXPECT_EQ(got.size(), want.size());
			EXPECT_TRUE(got == want) << "zlib level 6 output differs from the Java recipe";
		}
		/* One huge write, too. */
		EXPECT_TRUE(Compress({GzipEngine::kZlib, 6}, inputs[d], {inputs[d].size() + 1}, false) == want) << d;
	}
}

TEST(GzipTest, ZlibEveryLevelMatchesTheRecipeAtThatLevel)
{
	/* Same framing at every level: header, raw deflate at that level, CRC/ISIZE. */
	const std::string data = Mixed(500000, 10);
	for (int level = 1; level <= 9; level++)
		EXPECT_TRUE(Compress({GzipEngine::kZlib, level}, data, {65536, 1000}, false) == JavaRecipe(data, level))
		    << "level " << level;
}

TEST(GzipTest, InvalidLevelsThrowCoreError)
{
	for (const int level : {-1, 4, 5, 9, 100}) {
		try {
			GzipWriter writer(GzipEngine::kIsal, level);
			ADD_FAILURE() << "ISA-L level " << level << " accepted";
		} catch (const Error &e) {
			EXPECT_STREQ(e.Sqlstate(), sqlstate::kInvalidParameterValue) << level;
		}
	}
	for (const int level : {-1, 0, 10, 100}) {
		try {
			GzipWriter writer(GzipEngine::kZlib, level);
			ADD_FAILURE() << "zlib level " << level << " accepted";
		} catch (const Error &e) {
			EXPECT_STREQ(e.Sqlstate(), sqlstate::kInvalidParameterValue) << level;
		}
	}
}

TEST(GzipTest, ValidLevelsDoNotThrow)
{
	for (const EngineLevel &el : AllEngineLevels())
		EXPECT_NO_THROW(GzipWriter(el.engine, el.level)) << Name(el);
}

TEST(GzipTest, InputBytesCountsEveryWrite)
{
	GzipWriter writer(GzipEngine::kIsal, 1);
	OutputBuffer out;
	EXPECT_EQ(writer.InputBytes(), 0u);
	writer.Write("abc", 3, out);
	writer.Write("", 0, out);
	writer.Write("defgh", 5, out);
	EXPECT_EQ(writer.InputBytes(), 8u);
	writer.Finish(out);
	EXPECT_EQ(writer.InputBytes(), 8u);
	CheckGzip(std::string(out.View()), "abcdefgh");
}

} // namespace
} // namespace datavalue_export::core
