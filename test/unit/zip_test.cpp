/*
 * test/unit/zip_test.cpp
 *	  Unit tests of core/zip: the streamed one-entry archive read back field by field (local
 *	  header, raw deflate inflated by zlib, CRC-32 by zlib, data descriptor, central directory,
 *	  end record), the ZIP64 fields with synthetic sizes beyond 4 GB, DOS time, and DHIS2's entry
 *	  names (dhis2-xml-adx-format.md §1.3; the e2e DataValueSetTest names).
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/zip.hpp"

#include <random>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <zlib.h>

#include "core/calendar.hpp"

namespace datavalue_export::core {
namespace {

uint64_t
Le(std::string_view s, size_t at, size_t bytes)
{
	EXPECT_LE(at + bytes, s.size());
	EXPECT_LE(bytes, 8u);
	uint64_t v = 0;
	for (size_t i = 0; i < bytes && at + i < s.size(); i++)
		v |= static_cast<uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
	return v;
}

std::string
InflateRaw(std::string_view data, size_t *consumed)
{
	z_stream z{};
	EXPECT_EQ(inflateInit2(&z, -15), Z_OK);
	std::string out;
	z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
	z.avail_in = static_cast<uInt>(data.size());
	int rc;
	do {
		char buf[65536];
		z.next_out = reinterpret_cast<Bytef *>(buf);
		z.avail_out = sizeof buf;
		rc = inflate(&z, Z_NO_FLUSH);
		EXPECT_TRUE(rc == Z_OK || rc == Z_STREAM_END) << rc;
		out.append(buf, sizeof buf - z.avail_out);
	} while (rc == Z_OK);
	*consumed = data.size() - z.avail_in;
	inflateEnd(&z);
	return out;
}

const DosDateTime kWhen = MakeDosDateTime(2026, 11, 30, 14, 57, 43);

/* Zip input in the given chunk sizes; check every field of the archive and return it. */
std::string
ZipAndCheck(const std::string &input, GzipEngine engine, int level, size_t chunk)
{
	ZipWriter writer("dataValues.xml", kWhen, engine, level);
	OutputBuffer out;
	for (size_t at = 0; at < input.size(); at += chunk)
		writer.Write(input.data() + at, std::min(chunk, input.size() - at), out);
	writer.Finish(out);
	const std::string zip(out.View());
	const std::string_view name = "dataValues.xml";

	/* Local header: Java's fields, sizes deferred to the descriptor. */
	EXPECT_EQ(Le(zip, 0, 4), 0x04034b50u);
	EXPECT_EQ(Le(zip, 4, 2), 20u);
	EXPECT_EQ(Le(zip, 6, 2), 0x0808u);
	EXPECT_EQ(Le(zip, 8, 2), 8u);
	EXPECT_EQ(Le(zip, 10, 2), kWhen.time);
	EXPECT_EQ(Le(zip, 12, 2), kWhen.date);
	EXPECT_EQ(Le(zip, 14, 4), 0u); /* CRC */
	EXPECT_EQ(Le(zip, 18, 4), 0u); /* compressed size */
	EXPECT_EQ(Le(zip, 22, 4), 0u); /* uncompressed size */
	EXPECT_EQ(Le(zip, 26, 2), name.size());
	EXPECT_EQ(Le(zip, 28, 2), 0u);
	EXPECT_EQ(zip.substr(30, name.size()), name);
	const size_t data_at = 30 + name.size();

	size_t consumed = 0;
	EXPECT_EQ(InflateRaw(std::string_view(zip).substr(data_at), &consumed), input);
	const uint32_t crc = static_cast<uint32_t>(
	    crc32(crc32(0, nullptr, 0), reinterpret_cast<const Bytef *>(input.data()), static_cast<uInt>(input.size())));

	/* Data descriptor, 32-bit sizes. */
	const size_t dd = data_at + consumed;
	EXPECT_EQ(Le(zip, dd, 4), 0x08074b50u);
	EXPECT_EQ(Le(zip, dd + 4, 4), crc);
	EXPECT_EQ(Le(zip, dd + 8, 4), consumed);
	EXPECT_EQ(Le(zip, dd + 12, 4), input.size());

	/* Central directory. */
	const size_t cd = dd + 16;
	EXPECT_EQ(Le(zip, cd, 4), 0x02014b50u);
	EXPECT_EQ(Le(zip, cd + 4, 2), 20u);
	EXPECT_EQ(Le(zip, cd + 6, 2), 20u);
	EXPECT_EQ(Le(zip, cd + 8, 2), 0x0808u);
	EXPECT_EQ(Le(zip, cd + 10, 2), 8u);
	EXPECT_EQ(Le(zip, cd + 12, 2), kWhen.time);
	EXPECT_EQ(Le(zip, cd + 14, 2), kWhen.date);
	EXPECT_EQ(Le(zip, cd + 16, 4), crc);
	EXPECT_EQ(Le(zip, cd + 20, 4), consumed);
	EXPECT_EQ(Le(zip, cd + 24, 4), input.size());
	EXPECT_EQ(Le(zip, cd + 28, 2), name.size());
	EXPECT_EQ(Le(zip, cd + 30, 2), 0u); /* no extra field below 4 GB */
	EXPECT_EQ(Le(zip, cd + 42, 4), 0u); /* local header offset */
	EXPECT_EQ(zip.substr(cd + 46, name.size()), name);

	/* End record, and nothing after it. */
	const size_t end = cd + 46 + name.size();
	EXPECT_EQ(Le(zip, end, 4), 0x06054b50u);
	EXPECT_EQ(Le(zip, end + 8, 2), 1u);
	EXPECT_EQ(Le(zip, end + 10, 2), 1u);
	EXPECT_EQ(Le(zip, end + 12, 4), end - cd);
	EXPECT_EQ(Le(zip, end + 16, 4), cd);
	EXPECT_EQ(zip.size(), end + 22);
	return zip;
}

TEST(ZipTest, RoundTripEveryEngineAndChunking)
{
	std::mt19937 rng(7);
	std::string input;
	for (int i = 0; i < 200000; i++)
		input += static_cast<char>("<dataValue a=\"1\"/>\xc3\xa9"[rng() % 20]);
	for (const auto &[engine, level] :
	     {std::pair{GzipEngine::kIsal, 1}, std::pair{GzipEngine::kZlib, 6}, std::pair{GzipEngine::kZlib, 1}})
		for (size_t chunk : {size_t{1} << 30, size_t{4096}, size_t{7}})
			ZipAndCheck(chunk == 7 ? input.substr(0, 5000) : input, engine, level, chunk);
}

TEST(ZipTest, EmptyEntry)
{
	ZipAndCheck("", GzipEngine::kIsal, 1, 1);
	ZipAndCheck("", GzipEngine::kZlib, 6, 1);
}

TEST(ZipTest, DataDescriptorSwitchesToEightByteSizesAt4GB)
{
	ZipEntryTotals small{0x12345678, 1000, 0xFFFFFFFEu};
	OutputBuffer a;
	AppendZipDataDescriptor(a, small);
	ASSERT_EQ(a.Size(), 16u);
	EXPECT_EQ(Le(a.View(), 12, 4), 0xFFFFFFFEu);

	for (const ZipEntryTotals &big : {ZipEntryTotals{0x12345678, 1000, 0xFFFFFFFFu},
	                                  ZipEntryTotals{0x12345678, UINT64_C(5000000000), UINT64_C(6000000000)}}) {
		OutputBuffer b;
		AppendZipDataDescriptor(b, big);
		ASSERT_EQ(b.Size(), 24u);
		EXPECT_EQ(Le(b.View(), 0, 4), 0x08074b50u);
		EXPECT_EQ(Le(b.View(), 4, 4), 0x12345678u);
		EXPECT_EQ(Le(b.View(), 8, 8), big.compressed);
		EXPECT_EQ(Le(b.View(), 16, 8), big.uncompressed);
	}
}

TEST(ZipTest, Zip64DirectoryAndEndRecords)
{
	/* A 6 GB document deflated to 4.5 GB: both sizes and the directory offset pass 4 GB. */
	const ZipEntryTotals totals{0xCAFEBABE, UINT64_C(4500000000), UINT64_C(6000000000)};
	const uint64_t offset = 44 + totals.compressed + 24;
	OutputBuffer out;
	AppendZipDirectory(out, "dataValues.json", kWhen, totals, offset);
	const std::string_view z = out.View();
	EXPECT_EQ(Le(z, 0, 4), 0x02014b50u);
	EXPECT_EQ(Le(z, 4, 2), 45u);
	EXPECT_EQ(Le(z, 6, 2), 45u);
	EXPECT_EQ(Le(z, 16, 4), 0xCAFEBABEu);
	EXPECT_EQ(Le(z, 20, 4), 0xFFFFFFFFu);
	EXPECT_EQ(Le(z, 24, 4), 0xFFFFFFFFu);
	EXPECT_EQ(Le(z, 30, 2), 20u); /* extra: id, size, two 8-byte values */
	EXPECT_EQ(Le(z, 42, 4), 0u);
	const size_t extra = 46 + 15;
	EXPECT_EQ(Le(z, extra, 2), 1u);
	EXPECT_EQ(Le(z, extra + 2, 2), 16u);
	EXPECT_EQ(Le(z, extra + 4, 8), totals.uncompressed); /* uncompressed first, as APPNOTE 4.5.3 */
	EXPECT_EQ(Le(z, extra + 12, 8), totals.compressed);
	const size_t cd_size = extra + 20;
	/* ZIP64 end of central directory record. */
	EXPECT_EQ(Le(z, cd_size, 4), 0x06064b50u);
	EXPECT_EQ(Le(z, cd_size + 4, 8), 44u);
	EXPECT_EQ(Le(z, cd_size + 12, 2), 45u);
	EXPECT_EQ(Le(z, cd_size + 24, 8), 1u);
	EXPECT_EQ(Le(z, cd_size + 32, 8), 1u);
	EXPECT_EQ(Le(z, cd_size + 40, 8), cd_size);
	EXPECT_EQ(Le(z, cd_size + 48, 8), offset);
	/* Locator: where the ZIP64 end record starts. */
	const size_t locator = cd_size + 56;
	EXPECT_EQ(Le(z, locator, 4), 0x07064b50u);
	EXPECT_EQ(Le(z, locator + 8, 8), offset + cd_size);
	EXPECT_EQ(Le(z, locator + 16, 4), 1u);
	/* Classic end record points at the ZIP64 one by its 0xFFFFFFFF offset. */
	const size_t end = locator + 20;
	EXPECT_EQ(Le(z, end, 4), 0x06054b50u);
	EXPECT_EQ(Le(z, end + 12, 4), cd_size);
	EXPECT_EQ(Le(z, end + 16, 4), 0xFFFFFFFFu);
	EXPECT_EQ(z.size(), end + 22);
}

TEST(ZipTest, Zip64OnlyForTheFieldThatOverflows)
{
	/* 5 GB of repetitive XML deflated to 100 MB: only the uncompressed size needs ZIP64. */
	const ZipEntryTotals totals{1, UINT64_C(100000000), UINT64_C(5000000000)};
	OutputBuffer out;
	AppendZipDirectory(out, "d.xml", kWhen, totals, 100000100);
	const std::string_view z = out.View();
	EXPECT_EQ(Le(z, 20, 4), 100000000u);
	EXPECT_EQ(Le(z, 24, 4), 0xFFFFFFFFu);
	EXPECT_EQ(Le(z, 30, 2), 12u);
	EXPECT_EQ(Le(z, 46 + 5 + 2, 2), 8u);
	EXPECT_EQ(Le(z, 46 + 5 + 4, 8), totals.uncompressed);
	const size_t end = 46 + 5 + 12;
	EXPECT_EQ(Le(z, end, 4), 0x06054b50u); /* no ZIP64 end record: the offset fits */
	EXPECT_EQ(Le(z, end + 16, 4), 100000100u);
	EXPECT_EQ(z.size(), end + 22);
}

TEST(ZipTest, DosDateTime)
{
	const DosDateTime t = MakeDosDateTime(2026, 11, 30, 14, 57, 43);
	EXPECT_EQ(t.date, ((2026 - 1980) << 9) | (11 << 5) | 30);
	EXPECT_EQ(t.time, (14 << 11) | (57 << 5) | 21);
	const DosDateTime early = MakeDosDateTime(1970, 1, 1, 0, 0, 0);
	EXPECT_EQ(early.date, (0 << 9) | (1 << 5) | 1);
	EXPECT_EQ(early.time, 0);
}

TEST(ZipTest, EntryNames)
{
	const int32_t start = DaysFromCivil(2024, 1, 1);
	const int32_t end = DaysFromCivil(2050, 1, 30);
	/* DHIS2's e2e DataValueSetTest, format=xml / adx+xml with both dates. */
	EXPECT_EQ(ZipEntryName(Style::k242, Format::kXml, std::nullopt, start, end),
	          "dataValues_2024-01-01_2050-01-30.xml");
	EXPECT_EQ(ZipEntryName(Style::k243, Format::kXml, std::nullopt, start, end),
	          "dataValues_2024-01-01_2050-01-30.xml");
	EXPECT_EQ(ZipEntryName(Style::k243, Format::kJson, std::nullopt, std::nullopt, std::nullopt), "dataValues.json");
	EXPECT_EQ(ZipEntryName(Style::k242, Format::kCsv, std::string(""), std::nullopt, std::nullopt), "dataValues.csv");
	/* 2.43: a trailing .zip, then a trailing .<fmt>, come off; each date on its own. */
	EXPECT_EQ(ZipEntryName(Style::k243, Format::kJson, std::string("report.json.zip"), std::nullopt, std::nullopt),
	          "report.json");
	EXPECT_EQ(ZipEntryName(Style::k243, Format::kCsv, std::string("a.b"), start, std::nullopt), "a.b_2024-01-01.csv");
	EXPECT_EQ(ZipEntryName(Style::k243, Format::kCsv, std::string("a.zip.csv"), std::nullopt, end),
	          "a.zip_2050-01-30.csv");
	/* 2.42: with both dates the name is cut at its first '.'; every ".<fmt>.zip" is removed. */
	EXPECT_EQ(ZipEntryName(Style::k242, Format::kXml, std::string("a.b.c"), start, end), "a_2024-01-01_2050-01-30.xml");
	EXPECT_EQ(ZipEntryName(Style::k242, Format::kXml, std::string("x.xml.zipy.xml.zip"), std::nullopt, std::nullopt),
	          "xy.xml");
	EXPECT_EQ(ZipEntryName(Style::k242, Format::kJson, std::string("a.b"), start, std::nullopt), "a.b.json");
}

} // namespace
} // namespace datavalue_export::core
