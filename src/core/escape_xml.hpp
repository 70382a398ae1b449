/*
 * src/core/escape_xml.hpp
 *	  XML attribute value escaping as DHIS2's XML writer does it (staxwax 2.0.0 over Woodstox 7.x).
 *
 * Woodstox's BufferingXmlWriter.writeAttrValue writes '&' as &amp;, '<' as &lt;, '"' as &quot;,
 * TAB, LF and CR as &#x9; &#xa; &#xd; (lowercase hex, no leading zeros), and copies everything
 * else raw: '>' and '\'', U+007F-U+009F, U+2028/2029 and characters outside the BMP (their four
 * UTF-8 bytes, never a character reference).
 *
 * Two inputs have no well-formed XML 1.0 form, not even as a character reference:
 *   - the other C0 controls (U+0001-U+0008, U+000B, U+000C, U+000E-U+001F): Woodstox throws in
 *     the middle of the document, after flushing it, so DHIS2 sends a truncated 200 response;
 *   - U+FFFE and U+FFFF: Woodstox writes &#xfffe; / &#xffff;, which no XML parser accepts.
 * Each is written as U+FFFD (the replacement character), so the document stays well-formed and
 * the export goes through, as it does in JSON and CSV (README, Differences from DHIS2).
 *
 * Clean runs are found eight bytes at a time (SWAR), as in escape.hpp: a word is clean when it
 * holds no byte below 0x20 and none of '&', '<', '"' and 0xEF (the lead byte of U+F000-U+FFFF,
 * checked exactly on the slow path). Input is the database's UTF-8.
 *
 * All writers take a raw output pointer into space the caller reserved with XmlEscapedMax.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/escape.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* Worst-case output bytes of EscapeXmlAttribute for n input bytes ('"' becomes the six bytes &quot;). */
constexpr size_t
XmlEscapedMax(size_t n) noexcept
{
	return n * 6;
}

namespace detail {

/* Per byte: 0 = copy as is; 1 = an entity or character reference; 2 = not allowed (U+FFFD); 3 = 0xEF, look ahead. */
struct XmlAttributeTable {
	uint8_t kind[256];
	const char *text[256];
	uint8_t length[256];
	constexpr XmlAttributeTable() : kind(), text(), length()
	{
		for (int c = 0; c < 0x20; c++)
			kind[c] = 2;
		const auto set = [this](unsigned char c, const char *s, uint8_t n) {
			kind[c] = 1;
			text[c] = s;
			length[c] = n;
		};
		set('&', "&amp;", 5);
		set('<', "&lt;", 4);
		set('"', "&quot;", 6);
		set('\t', "&#x9;", 5);
		set('\n', "&#xa;", 5);
		set('\r', "&#xd;", 5);
		kind[0xEF] = 3;
	}
};
inline constexpr XmlAttributeTable kXmlAttribute{};

/* Nonzero when any of the eight bytes is below 0x20, '&', '<', '"' or 0xEF. */
inline uint64_t
XmlWordNeedsAttention(uint64_t x) noexcept
{
	const uint64_t lt20 = (x - kOnes * 0x20) & ~x & kHighs;
	return lt20 | WordHasByte(x, '&') | WordHasByte(x, '<') | WordHasByte(x, '"') | WordHasByte(x, 0xEF);
}

/* True when s[0..n) starts with U+FFFE or U+FFFF (EF BF BE / EF BF BF). */
inline bool
IsXmlNonCharacter(const char *s, size_t n) noexcept
{
	return n >= 3 && static_cast<unsigned char>(s[0]) == 0xEF && static_cast<unsigned char>(s[1]) == 0xBF &&
	       (static_cast<unsigned char>(s[2]) & 0xFE) == 0xBE;
}

/* Copy three bytes. */
inline char *
Put3(char *w, const char *s) noexcept
{
	std::memcpy(w, s, 3);
	return w + 3;
}

} // namespace detail

/* The UTF-8 bytes of U+FFFD, written for a character XML 1.0 cannot carry. */
inline constexpr char kReplacementCharacter[] = "\xef\xbf\xbd";

/* Escape s[0..n) as the body of a double-quoted attribute value. Reserve XmlEscapedMax(n); returns the new end. */
inline char *
EscapeXmlAttribute(char *w, const char *s, size_t n) noexcept
{
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j + 8 <= n && !detail::XmlWordNeedsAttention(detail::LoadWord(s + j)))
			j += 8;
		while (j < n && detail::kXmlAttribute.kind[static_cast<unsigned char>(s[j])] == 0)
			j++;
		std::memcpy(w, s + i, j - i);
		w += j - i;
		if (j == n)
			break;
		const unsigned char c = static_cast<unsigned char>(s[j]);
		switch (detail::kXmlAttribute.kind[c]) {
		case 1:
			std::memcpy(w, detail::kXmlAttribute.text[c], detail::kXmlAttribute.length[c]);
			w += detail::kXmlAttribute.length[c];
			break;
		case 2:
			w = detail::Put3(w, kReplacementCharacter);
			break;
		default: /* 0xEF */
			if (detail::IsXmlNonCharacter(s + j, n - j)) {
				w = detail::Put3(w, kReplacementCharacter);
				j += 2;
			} else
				*w++ = static_cast<char>(c);
			break;
		}
		i = j + 1;
	}
	return w;
}

} // namespace datavalue_export::core
