/*
 * test/unit/escape_test.cpp
 *	  Unit tests of core/escape: JSON string escaping (Jackson rules) and CSV field quoting (javacsv rules).
 *
 * Both writers are checked against small, obviously correct reference implementations written here
 * from dhis2-export-format.md §4.1 (Jackson escaping) and §5.2 (javacsv trimming and quoting): every
 * byte value on its own, then seeded random strings of every length 0..100, so that the eight-byte
 * SWAR fast path is crossed at every offset. Output goes into heap buffers of exactly the documented
 * worst-case size and input comes from exact-size heap copies, so ASan reports any over-read or
 * over-write.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/escape.hpp"

#include "escape_reference.hpp"

#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace datavalue_export::core {
namespace {

using test_reference::RefCsvField;
using test_reference::RefJsonBody;

/* ---- Helpers that run the product code on exact-size heap buffers ---- */

/* Copy of the input in its own heap block, so that reading one byte past the end is an ASan error. */
std::unique_ptr<char[]>
HeapCopy(const std::string &s)
{
	std::unique_ptr<char[]> p(new char[s.size() == 0 ? 1 : s.size()]);
	std::memcpy(p.get(), s.data(), s.size());
	return p;
}

std::string
Escape(const std::string &s)
{
	const std::unique_ptr<char[]> in = HeapCopy(s);
	const size_t cap = JsonEscapedMax(s.size());
	std::unique_ptr<char[]> out(new char[cap == 0 ? 1 : cap]);
	char *end = EscapeJsonBody(out.get(), in.get(), s.size());
	EXPECT_LE(static_cast<size_t>(end - out.get()), cap);
	return std::string(out.get(), end);
}

std::string
JsonString(const std::string &s)
{
	const std::unique_ptr<char[]> in = HeapCopy(s);
	const size_t cap = JsonEscapedMax(s.size()) + 2;
	std::unique_ptr<char[]> out(new char[cap]);
	char *end = WriteJsonString(out.get(), in.get(), s.size());
	EXPECT_LE(static_cast<size_t>(end - out.get()), cap);
	return std::string(out.get(), end);
}

std::string
Csv(const std::string &s, bool first_column)
{
	const std::unique_ptr<char[]> in = HeapCopy(s);
	const size_t cap = CsvFieldMax(s.size());
	std::unique_ptr<char[]> out(new char[cap]);
	char *end = WriteCsvField(out.get(), in.get(), s.size(), first_column);
	EXPECT_LE(static_cast<size_t>(end - out.get()), cap);
	return std::string(out.get(), end);
}

std::string
Byte(int c)
{
	return std::string(1, static_cast<char>(c));
}

/* The bytes that escaping or quoting treats specially, plus look-alikes that must stay raw. */
const std::vector<unsigned char> kInteresting = {
    0x00,
    0x01,
    0x07,
    0x08,
    0x09,
    0x0A,
    0x0B,
    0x0C,
    0x0D,
    0x0E,
    0x1F,
    0x20,
    '"',
    '\\',
    ',',
    '#',
    '/',
    'a',
    0x7F,
    0x80,
    0xA0,
    0xA2 /* '"' | 0x80 */,
    0xDC /* '\' | 0x80 */,
    0xC3,
    0xE2,
    0xF0,
    0xFF,
};

std::string
RandomString(std::mt19937 &rng, size_t length, bool mostly_plain)
{
	std::uniform_int_distribution<int> any(0, 255);
	std::uniform_int_distribution<int> pick(0, static_cast<int>(kInteresting.size()) - 1);
	std::uniform_int_distribution<int> percent(0, 99);
	std::string s;
	for (size_t i = 0; i < length; i++) {
		const int p = percent(rng);
		if (mostly_plain && p < 90)
			s += static_cast<char>('A' + p % 26);
		else if (p % 2 == 0)
			s += static_cast<char>(kInteresting[static_cast<size_t>(pick(rng))]);
		else
			s += static_cast<char>(any(rng));
	}
	return s;
}

/* ---- JSON: the reference itself, pinned to the doc's wording ---- */

TEST(EscapeJsonTest, ReferenceAgreesWithDocExamples)
{
	EXPECT_EQ(RefJsonBody("\x01"), "\\u0001");
	EXPECT_EQ(RefJsonBody("\x1f"), "\\u001F");
	EXPECT_EQ(RefJsonBody("a/b"), "a/b");
}

/* ---- JSON: every byte value on its own ---- */

TEST(EscapeJsonTest, EveryByteValueAlone)
{
	for (int c = 0; c < 256; c++) {
		SCOPED_TRACE("byte " + std::to_string(c));
		EXPECT_EQ(Escape(Byte(c)), RefJsonBody(Byte(c)));
		EXPECT_EQ(JsonString(Byte(c)), "\"" + RefJsonBody(Byte(c)) + "\"");
	}
}

TEST(EscapeJsonTest, EveryByteValueInsideAndAroundAWord)
{
	/* The byte at each position of a 17-byte string: two SWAR words plus a scalar tail. */
	for (int c = 0; c < 256; c++)
		for (size_t pos = 0; pos < 17; pos++) {
			std::string s(17, 'x');
			s[pos] = static_cast<char>(c);
			ASSERT_EQ(Escape(s), RefJsonBody(s)) << "byte " << c << " at " << pos;
		}
}

TEST(EscapeJsonTest, ShortEscapes)
{
	EXPECT_EQ(Escape("\""), "\\\"");
	EXPECT_EQ(Escape("\\"), "\\\\");
	EXPECT_EQ(Escape("\b"), "\\b");
	EXPECT_EQ(Escape("\f"), "\\f");
	EXPECT_EQ(Escape("\n"), "\\n");
	EXPECT_EQ(Escape("\r"), "\\r");
	EXPECT_EQ(Escape("\t"), "\\t");
}

TEST(EscapeJsonTest, OtherControlBytesAreUnicodeEscapesWithUppercaseHex)
{
	EXPECT_EQ(Escape(std::string(1, '\0')), "\\u0000");
	EXPECT_EQ(Escape("\x01"), "\\u0001");
	EXPECT_EQ(Escape("\x0b"), "\\u000B");
	EXPECT_EQ(Escape("\x0e"), "\\u000E");
	EXPECT_EQ(Escape("\x1a"), "\\u001A");
	EXPECT_EQ(Escape("\x1f"), "\\u001F");
}

TEST(EscapeJsonTest, RawBytes)
{
	EXPECT_EQ(Escape("/"), "/");
	EXPECT_EQ(Escape("http://x/y"), "http://x/y");
	EXPECT_EQ(Escape("\x7f"), "\x7f");
	EXPECT_EQ(Escape(" "), " ");
	/* U+2028 and U+2029 stay raw (Jackson), unlike json-tree. */
	EXPECT_EQ(Escape("\xe2\x80\xa8"), "\xe2\x80\xa8");
	EXPECT_EQ(Escape("\xe2\x80\xa9"), "\xe2\x80\xa9");
	/* Two-, three- and four-byte UTF-8 (é, €, 😀) are raw. */
	EXPECT_EQ(Escape("\xc3\xa9"), "\xc3\xa9");
	EXPECT_EQ(Escape("\xe2\x82\xac"), "\xe2\x82\xac");
	EXPECT_EQ(Escape("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
	/* Bytes that look like '"' or '\' once the high bit is masked off are raw. */
	EXPECT_EQ(Escape("\xa2\xdc\xa2\xdc\xa2\xdc\xa2\xdc\xa2"), "\xa2\xdc\xa2\xdc\xa2\xdc\xa2\xdc\xa2");
}

TEST(EscapeJsonTest, EmptyInput)
{
	EXPECT_EQ(Escape(""), "");
	EXPECT_EQ(JsonString(""), "\"\"");
}

TEST(EscapeJsonTest, MixedExample)
{
	EXPECT_EQ(JsonString("Line1\nLine2 \"q\", x\\y\t\x01/\xc3\xa9"),
	          "\"Line1\\nLine2 \\\"q\\\", x\\\\y\\t\\u0001/\xc3\xa9\"");
}

TEST(EscapeJsonTest, WorstCaseFitsTheReservation)
{
	/* Every byte a \u00XX escape: exactly six output bytes per input byte. */
	for (size_t n : {1u, 7u, 8u, 9u, 16u, 63u, 64u, 65u, 1000u}) {
		const std::string s(n, '\x01');
		const std::string out = Escape(s);
		EXPECT_EQ(out.size(), JsonEscapedMax(n)) << n;
		EXPECT_EQ(out, RefJsonBody(s)) << n;
	}
}

/* ---- JSON: SWAR boundaries ---- */

TEST(EscapeJsonTest, OneEscapeAtEveryPositionOfEveryLength)
{
	const unsigned char specials[] = {'"', '\\', 0x00, 0x01, '\n', 0x1F, 0x20 - 1};
	for (size_t len = 1; len <= 40; len++)
		for (size_t pos = 0; pos < len; pos++)
			for (const unsigned char c : specials) {
				std::string s(len, 'a');
				s[pos] = static_cast<char>(c);
				ASSERT_EQ(Escape(s), RefJsonBody(s)) << "len " << len << " pos " << pos << " byte " << int(c);
			}
}

TEST(EscapeJsonTest, TwoEscapesAtEveryPairOfPositions)
{
	for (size_t len = 2; len <= 24; len++)
		for (size_t p = 0; p < len; p++)
			for (size_t q = p + 1; q < len; q++) {
				std::string s(len, 'z');
				s[p] = '"';
				s[q] = '\x02';
				ASSERT_EQ(Escape(s), RefJsonBody(s)) << "len " << len << " at " << p << "," << q;
			}
}

TEST(EscapeJsonTest, CleanStringsOfEveryLengthAreCopied)
{
	for (size_t len = 0; len <= 100; len++) {
		std::string s;
		for (size_t i = 0; i < len; i++)
			s += static_cast<char>(0x20 + (i * 7) % 0x60); /* printable ASCII incl. 0x7F, minus nothing */
		for (char &c : s)
			if (c == '"' || c == '\\')
				c = '.';
		ASSERT_EQ(Escape(s), s) << len;
	}
}

TEST(EscapeJsonTest, RandomStringsMatchReference)
{
	std::mt19937 rng(20240203);
	for (int round = 0; round < 40; round++)
		for (size_t len = 0; len <= 100; len++) {
			const std::string s = RandomString(rng, len, round % 2 == 0);
			ASSERT_EQ(Escape(s), RefJsonBody(s)) << "round " << round << " len " << len;
		}
}

TEST(EscapeJsonTest, WriteJsonStringAddsQuotesOnly)
{
	std::mt19937 rng(7);
	for (size_t len = 0; len <= 64; len++) {
		const std::string s = RandomString(rng, len, false);
		ASSERT_EQ(JsonString(s), "\"" + RefJsonBody(s) + "\"") << len;
	}
}

/* ---- CSV: javacsv rules (§5.2) ---- */

TEST(CsvFieldTest, ReferenceAgreesWithDocExamples)
{
	EXPECT_EQ(RefCsvField("  5 ", false), "5");
	EXPECT_EQ(RefCsvField("\x01"
	                      "abc",
	                      false),
	          "abc");
	EXPECT_EQ(RefCsvField("Line1\nLine2 \"q\", x", false), "\"Line1\nLine2 \"\"q\"\", x\"");
}

TEST(CsvFieldTest, DocExampleWithNewlineQuoteAndComma)
{
	/* §5.2: `Line1⏎Line2 "q", x` is written as `"Line1⏎Line2 ""q"", x"`. */
	EXPECT_EQ(Csv("Line1\nLine2 \"q\", x", false), "\"Line1\nLine2 \"\"q\"\", x\"");
	EXPECT_EQ(Csv("Line1\nLine2 \"q\", x", true), "\"Line1\nLine2 \"\"q\"\", x\"");
}

TEST(CsvFieldTest, TrimsBytesUpToSpaceAtBothEnds)
{
	EXPECT_EQ(Csv("  5 ", false), "5");
	EXPECT_EQ(Csv("\x01"
	              "abc",
	              false),
	          "abc");
	EXPECT_EQ(Csv("\t\r\n x \n\r\t", false), "x");
	EXPECT_EQ(Csv(std::string("\0\0y\0", 4), false), "y");
	/* A trailing newline is trimmed away, so it does not cause quoting. */
	EXPECT_EQ(Csv("abc\r\n", false), "abc");
	/* Inner whitespace and control bytes stay. */
	EXPECT_EQ(Csv(" a \t b ", false), "a \t b");
	/* 0x7F and non-ASCII are not trimmed. */
	EXPECT_EQ(Csv("\x7f"
	              "a\x7f",
	              false),
	          "\x7f"
	          "a\x7f");
	EXPECT_EQ(Csv("\xc2\xa0"
	              "a\xc2\xa0",
	              false),
	          "\xc2\xa0"
	          "a\xc2\xa0");
}

TEST(CsvFieldTest, QuotesOnQuoteCommaLfCr)
{
	EXPECT_EQ(Csv("a\"b", false), "\"a\"\"b\"");
	EXPECT_EQ(Csv("a,b", false), "\"a,b\"");
	EXPECT_EQ(Csv("a\nb", false), "\"a\nb\"");
	EXPECT_EQ(Csv("a\rb", false), "\"a\rb\"");
	EXPECT_EQ(Csv("\"", false), "\"\"\"\"");
	EXPECT_EQ(Csv("\"\"", false), "\"\"\"\"\"\"");
	EXPECT_EQ(Csv(" ,", false), "\",\"");
}

TEST(CsvFieldTest, NoQuotingForOtherBytes)
{
	EXPECT_EQ(Csv("a;b", false), "a;b");
	EXPECT_EQ(Csv("a\tb", false), "a\tb");
	EXPECT_EQ(Csv("a'b", false), "a'b");
	EXPECT_EQ(Csv("a\\b", false), "a\\b");
	EXPECT_EQ(Csv("a#b", true), "a#b");
	EXPECT_EQ(Csv("\xe2\x80\xa8", true), "\xe2\x80\xa8");
}

TEST(CsvFieldTest, FirstColumnEmptyIsQuoted)
{
	EXPECT_EQ(Csv("", true), "\"\"");
	EXPECT_EQ(Csv("   ", true), "\"\"");
	EXPECT_EQ(Csv("\t\n", true), "\"\"");
	/* Not the first column: an empty field stays empty. */
	EXPECT_EQ(Csv("", false), "");
	EXPECT_EQ(Csv("  \r\n", false), "");
}

/*
 * Regression (fixed): escape.hpp documents "A NULL field is passed as n == 0", and the CSV writer
 * passes TextField::data == nullptr for SQL NULLs, but WriteCsvField then calls memcpy(w, nullptr, 0)
 * (escape.hpp:159 and :164), which is undefined behaviour: UBSan prints "null pointer passed as
 * argument 2" here. The output itself is right, so the assertions pass; the UBSan report is the bug.
 */
TEST(CsvFieldTest, NullFieldIsEmpty)
{
	char out[2] = {'?', '?'};
	EXPECT_EQ(WriteCsvField(out, nullptr, 0, false), out);
	char *end = WriteCsvField(out, nullptr, 0, true);
	EXPECT_EQ(std::string(out, end), "\"\"");
}

TEST(CsvFieldTest, FirstColumnStartingWithHashIsQuoted)
{
	EXPECT_EQ(Csv("#x", true), "\"#x\"");
	EXPECT_EQ(Csv("#", true), "\"#\"");
	/* After trimming. */
	EXPECT_EQ(Csv("  #x", true), "\"#x\"");
	/* Other columns are not. */
	EXPECT_EQ(Csv("#x", false), "#x");
	EXPECT_EQ(Csv("#\"", true), "\"#\"\"\"");
}

TEST(CsvFieldTest, WorstCaseFitsTheReservation)
{
	for (size_t n : {1u, 2u, 8u, 9u, 100u}) {
		const std::string s(n, '"');
		const std::string out = Csv(s, true);
		EXPECT_EQ(out.size(), CsvFieldMax(n)) << n;
		EXPECT_EQ(out, RefCsvField(s, true)) << n;
	}
}

TEST(CsvFieldTest, EveryByteValueAlone)
{
	for (int c = 0; c < 256; c++)
		for (const bool first : {false, true}) {
			SCOPED_TRACE("byte " + std::to_string(c) + (first ? " first" : ""));
			EXPECT_EQ(Csv(Byte(c), first), RefCsvField(Byte(c), first));
			const std::string s = "a" + Byte(c) + "b";
			EXPECT_EQ(Csv(s, first), RefCsvField(s, first));
		}
}

TEST(CsvFieldTest, RandomStringsMatchReference)
{
	std::mt19937 rng(5);
	for (int round = 0; round < 40; round++)
		for (size_t len = 0; len <= 100; len++) {
			const std::string s = RandomString(rng, len, round % 2 == 0);
			ASSERT_EQ(Csv(s, round % 3 == 0), RefCsvField(s, round % 3 == 0)) << "round " << round << " len " << len;
		}
}

TEST(CsvFieldTest, TrimJavaAdjustsPointerAndLength)
{
	const char text[] = " \t ab c \n";
	const char *s = text;
	size_t n = sizeof text - 1;
	TrimJava(s, n);
	EXPECT_EQ(std::string(s, n), "ab c");
	EXPECT_EQ(s, text + 3);
	const char blank[] = " \x01 ";
	s = blank;
	n = sizeof blank - 1;
	TrimJava(s, n);
	EXPECT_EQ(n, 0u);
}

/* ---- Characters outside the BMP: raw in 2.43, surrogate escapes in 2.42 (Jackson UTF8JsonGenerator) ---- */

std::string
EscapeSurrogates(const std::string &s)
{
	const std::unique_ptr<char[]> in = HeapCopy(s);
	const size_t cap = JsonEscapedMax(s.size());
	std::unique_ptr<char[]> out(new char[cap == 0 ? 1 : cap]);
	char *end = EscapeJsonBody<NonBmp::kSurrogateEscapes>(out.get(), in.get(), s.size());
	EXPECT_LE(static_cast<size_t>(end - out.get()), cap);
	return std::string(out.get(), end);
}

/* The UTF-8 bytes of one code point, written from the UTF-8 definition (RFC 3629). */
std::string
Utf8(uint32_t cp)
{
	std::string out;
	if (cp < 0x80)
		out += static_cast<char>(cp);
	else if (cp < 0x800) {
		out += static_cast<char>(0xC0 | (cp >> 6));
		out += static_cast<char>(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		out += static_cast<char>(0xE0 | (cp >> 12));
		out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
		out += static_cast<char>(0x80 | (cp & 0x3F));
	} else {
		out += static_cast<char>(0xF0 | (cp >> 18));
		out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
		out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
		out += static_cast<char>(0x80 | (cp & 0x3F));
	}
	return out;
}

TEST(JsonNonBmpTest, KnownCharactersAsJacksonWritesThem)
{
	/* Java's UTF-16 of each character, each unit escaped with uppercase hex. */
	EXPECT_EQ(EscapeSurrogates(Utf8(0x10000)), "\\uD800\\uDC00");
	EXPECT_EQ(EscapeSurrogates(Utf8(0x10FFFF)), "\\uDBFF\\uDFFF");
	EXPECT_EQ(EscapeSurrogates(Utf8(0x1F600)), "\\uD83D\\uDE00");
	EXPECT_EQ(EscapeSurrogates(Utf8(0x1D11E)), "\\uD834\\uDD1E");
	EXPECT_EQ(EscapeSurrogates("\xF0\x9F\x98\x80"), "\\uD83D\\uDE00");
}

TEST(JsonNonBmpTest, Style243KeepsTheRawBytes)
{
	for (const uint32_t cp : {0x10000u, 0x10FFFFu, 0x1F600u, 0x1D11Eu})
		EXPECT_EQ(Escape(Utf8(cp)), Utf8(cp));
}

TEST(JsonNonBmpTest, MixedWithEscapesAsciiAndBmp)
{
	const std::string in = "a\"" + Utf8(0x1F600) + "\n\xc3\xa9" + Utf8(0x10000) + Utf8(0x10FFFF) + "\x01z" +
	                       Utf8(0xFFFF) + "\\" + Utf8(0x1F600);
	EXPECT_EQ(EscapeSurrogates(in), "a\\\"\\uD83D\\uDE00\\n\xc3\xa9\\uD800\\uDC00\\uDBFF\\uDFFF\\u0001z" +
	                                    Utf8(0xFFFF) + "\\\\\\uD83D\\uDE00");
	EXPECT_EQ(Escape(in), "a\\\"" + Utf8(0x1F600) + "\\n\xc3\xa9" + Utf8(0x10000) + Utf8(0x10FFFF) + "\\u0001z" +
	                          Utf8(0xFFFF) + "\\\\" + Utf8(0x1F600));
}

TEST(JsonNonBmpTest, EveryOffsetAndRandomMixesMatchReference)
{
	/* Reference: the 2.43 rules, then each 4-byte character replaced by its two escapes. */
	const auto reference = [](const std::vector<uint32_t> &cps) {
		std::string raw, want;
		for (const uint32_t cp : cps) {
			raw += Utf8(cp);
			if (cp >= 0x10000) {
				char buf[16];
				const uint32_t v = cp - 0x10000;
				std::snprintf(buf, sizeof buf, "\\u%04X\\u%04X", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
				want += buf;
			} else
				want += RefJsonBody(Utf8(cp));
		}
		return std::make_pair(raw, want);
	};
	std::mt19937 rng(2042);
	const uint32_t kinds[] = {'a', '"', 0x01, 0xE9, 0x4E2D, 0x1F600, 0x10000, 0x10FFFF, 0xFFFD, '\\'};
	for (int len = 0; len < 40; len++)
		for (int round = 0; round < 20; round++) {
			std::vector<uint32_t> cps;
			for (int i = 0; i < len; i++)
				cps.push_back(kinds[rng() % (sizeof kinds / sizeof kinds[0])]);
			const auto [raw, want] = reference(cps);
			ASSERT_EQ(EscapeSurrogates(raw), want) << "length " << len;
		}
}

TEST(JsonNonBmpTest, MalformedOrTruncatedSequencesStayRaw)
{
	/* Not UTF-8 (only possible in a non-UTF-8 database): the bytes are copied as they are. */
	EXPECT_EQ(EscapeSurrogates("\xF0\x9F\x98"), "\xF0\x9F\x98");
	EXPECT_EQ(EscapeSurrogates("\xF0"
	                           "abc"),
	          "\xF0"
	          "abc");
	EXPECT_EQ(EscapeSurrogates("\xF5\x80\x80\x80"), "\xF5\x80\x80\x80");
	EXPECT_EQ(EscapeSurrogates("\xF0\x8F\xBF\xBF"), "\xF0\x8F\xBF\xBF"); /* overlong U+FFFF */
	EXPECT_EQ(EscapeSurrogates("\xFF"), "\xFF");
}

} // namespace
} // namespace datavalue_export::core
