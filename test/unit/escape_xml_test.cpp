/*
 * test/unit/escape_xml_test.cpp
 *	  Unit tests of core/escape_xml.hpp: the SWAR attribute escaper against a byte-at-a-time
 *	  reference written from Woodstox's rules (dhis2-xml-adx-format.md §2.3; U+FFFD for what
 *	  XML 1.0 cannot carry), over every byte at every offset around the eight-byte words, every
 *	  byte pair, and random strings.
 *
 * Inputs and outputs live in exactly sized heap blocks, so ASan reports any read or write
 * beyond them.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/escape_xml.hpp"

#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace datavalue_export::core {
namespace {

/* The reference: one byte at a time; U+FFFD for what XML 1.0 cannot carry. */
std::string
Reference(const std::string &s)
{
	std::string out;
	for (size_t i = 0; i < s.size(); i++) {
		const unsigned char c = static_cast<unsigned char>(s[i]);
		if (c == '&')
			out += "&amp;";
		else if (c == '<')
			out += "&lt;";
		else if (c == '"')
			out += "&quot;";
		else if (c == '\t')
			out += "&#x9;";
		else if (c == '\n')
			out += "&#xa;";
		else if (c == '\r')
			out += "&#xd;";
		else if (c < 0x20)
			out += "\xef\xbf\xbd";
		else if (c == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
		         (static_cast<unsigned char>(s[i + 2]) == 0xBE || static_cast<unsigned char>(s[i + 2]) == 0xBF)) {
			out += "\xef\xbf\xbd";
			i += 2;
		} else
			out += static_cast<char>(c);
	}
	return out;
}

/* The escaper on an exactly sized copy of s, into an exactly sized output block. */
std::string
Escape(const std::string &s)
{
	std::unique_ptr<char[]> in(new char[s.size() + 1]);
	std::memcpy(in.get(), s.data(), s.size());
	const size_t room = XmlEscapedMax(s.size());
	std::unique_ptr<char[]> out(new char[room + 1]);
	char *end = EscapeXmlAttribute(out.get(), in.get(), s.size());
	EXPECT_LE(static_cast<size_t>(end - out.get()), room);
	return std::string(out.get(), end);
}

void
Check(const std::string &s)
{
	EXPECT_EQ(Escape(s), Reference(s)) << testing::PrintToString(s);
}

TEST(EscapeXmlTest, ContractTable)
{
	EXPECT_EQ(Escape("&<>\"'"), "&amp;&lt;>&quot;'");
	EXPECT_EQ(Escape("\t\n\r"), "&#x9;&#xa;&#xd;");
	EXPECT_EQ(Escape("Re-checked: 5 < 6 & \"ok\"\nsee register"),
	          "Re-checked: 5 &lt; 6 &amp; &quot;ok&quot;&#xa;see register");
	/* U+007F-U+009F, U+00A0, U+2028/2029, U+FFFD and U+1F600 stay raw. */
	const std::string raw = "\x7f\xc2\x80\xc2\x9f\xc2\xa0\xe2\x80\xa8\xe2\x80\xa9\xef\xbf\xbd\xf0\x9f\x98\x80";
	EXPECT_EQ(Escape(raw), raw);
	EXPECT_EQ(Escape(""), "");
}

TEST(EscapeXmlTest, CharactersXmlCannotCarryBecomeReplacementCharacters)
{
	for (int c = 1; c < 0x20; c++) {
		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		EXPECT_EQ(Escape("abcdefghij" + std::string(1, static_cast<char>(c)) + "k"), "abcdefghij\xef\xbf\xbdk") << c;
	}
	EXPECT_EQ(Escape("x\xef\xbf\xbe"), "x\xef\xbf\xbd");
	EXPECT_EQ(Escape("x\xef\xbf\xbfy\xef\xbf\xbd"), "x\xef\xbf\xbdy\xef\xbf\xbd");
	/* A cut-off EF BF at the end is not U+FFFE (PostgreSQL text is whole characters anyway). */
	EXPECT_EQ(Escape("\xef\xbf"), std::string("\xef\xbf"));
	/* The worst case: every byte a quote. */
	EXPECT_EQ(Escape(std::string(100, '"')).size(), XmlEscapedMax(100));
}

TEST(EscapeXmlTest, EveryByteAtEveryOffset)
{
	for (int c = 0; c < 256; c++)
		for (size_t before = 0; before < 18; before++)
			for (size_t after : {0, 1, 7, 9}) {
				const std::string s = std::string(before, 'a') + static_cast<char>(c) + std::string(after, 'z');
				Check(s);
			}
}

TEST(EscapeXmlTest, EveryBytePair)
{
	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++) {
			const std::string pair = {static_cast<char>(a), static_cast<char>(b)};
			Check(pair);
			Check("0123456" + pair + "x");
		}
}

TEST(EscapeXmlTest, RandomStrings)
{
	std::mt19937 rng(20261130);
	const std::string alphabet[] = {"a",
	                                "Z",
	                                "&",
	                                "<",
	                                ">",
	                                "\"",
	                                "'",
	                                "\t",
	                                "\n",
	                                "\r",
	                                "\x01",
	                                "\x1f",
	                                "\x7f",
	                                "\xc3\xa9",
	                                "\xe2\x80\xa8",
	                                "\xef\xbf\xbd",
	                                "\xef\xbf\xbe",
	                                "\xef\xbf\xbf",
	                                "\xef\xbc\x81",
	                                "\xf0\x9f\x98\x80",
	                                "0123456789abcdef"};
	std::uniform_int_distribution<size_t> pick(0, std::size(alphabet) - 1);
	std::uniform_int_distribution<int> length(0, 60);
	std::uniform_int_distribution<int> clean(0, 3);
	for (int i = 0; i < 20000; i++) {
		std::string s;
		const int n = length(rng);
		const bool mostly_clean = clean(rng) != 0;
		for (int j = 0; j < n; j++) {
			const size_t k = pick(rng);
			/* Mostly clean strings exercise the eight-byte runs; the rest the slow path. */
			s += mostly_clean && k > 1 && k != 20 && j % 5 != 0 ? alphabet[0] : alphabet[k];
		}
		Check(s);
	}
}

} // namespace
} // namespace datavalue_export::core
