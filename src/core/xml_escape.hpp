/*
 * src/core/xml_escape.hpp
 *	  XML attribute-value and text-content escaping as DHIS2's writer stack does it
 *	  (staxwax 2.0.0 over Woodstox 7.x, BufferingXmlWriter.writeAttrValue / writeCharacters).
 *
 * Written for the ADX writer; to be merged with the DXF2 XML writer's escaper when both land
 * (one escaper for both XML formats).
 *
 * Attribute values: & < " become &amp; &lt; &quot;; TAB LF CR become &#x9; &#xa; &#xd;; U+FFFE
 * and U+FFFF become &#xfffe; &#xffff;; > and ' and everything else (C1 controls, U+2028/2029,
 * characters outside the BMP) are copied raw.
 *
 * Text content (ADX <annotation> only): & < become &amp; &lt;; CR becomes &#xd;; U+007F..U+009F
 * become &#x7f;..&#x9f;; U+FFFE/FFFF as above; TAB, LF, " and ' raw. '>' depends on its
 * position, because Woodstox only escapes it where it might close "]]>": in a text shorter
 * than 12 UTF-16 units (Woodstox's String path) when it is the first character or follows ']';
 * in a longer text (the char-array path, fed in 512-unit chunks, scanning restarting after
 * every reference) also when it starts a chunk or directly follows a reference.
 *
 * Both refuse the C0 controls other than TAB, LF, CR (Woodstox throws "Invalid white space
 * character (0x1) in text to output" there, after part of the document was sent): they
 * return nullptr and the caller raises the error. Input is UTF-8 (NUL cannot occur in
 * PostgreSQL text). Output goes to space reserved for the worst case, kXmlEscapeFactor bytes
 * per input byte.
 *
 * Never throws.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* Worst case: one byte as "&quot;" (6 bytes); two bytes (U+0080) as "&#x80;" is less. */
inline constexpr size_t kXmlEscapeFactor = 6;

/* SQLSTATE of a character XML 1.0 cannot carry (PostgreSQL's character_not_in_repertoire). */
inline constexpr const char *kSqlstateCharacterNotInRepertoire = "22021";

namespace xml_detail {

inline char *
PutLiteral(char *w, const char *s, size_t n) noexcept
{
	std::memcpy(w, s, n);
	return w + n;
}

/* A C0 control XML 1.0 cannot hold (everything below 0x20 except TAB, LF, CR). */
inline bool
IsForbiddenControl(unsigned char c) noexcept
{
	return c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D;
}

/* U+FFFE / U+FFFF at p (EF BF BE / EF BF BF), given at least 3 bytes left. */
inline const char *
NonCharacterReference(const unsigned char *p, size_t left) noexcept
{
	if (left >= 3 && p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
		return p[2] == 0xBE ? "&#xfffe;" : "&#xffff;";
	return nullptr;
}

} // namespace xml_detail

/* The first C0 control XML cannot hold, if any (for the error message). */
inline std::optional<unsigned char>
FindForbiddenXmlControl(const char *s, size_t n) noexcept
{
	for (size_t i = 0; i < n; i++)
		if (xml_detail::IsForbiddenControl(static_cast<unsigned char>(s[i])))
			return static_cast<unsigned char>(s[i]);
	return std::nullopt;
}

/* Escape an attribute value (without the quotes); nullptr on a forbidden control. */
inline char *
WriteXmlAttributeValue(char *w, const char *s, size_t n) noexcept
{
	const unsigned char *p = reinterpret_cast<const unsigned char *>(s);
	for (size_t i = 0; i < n; i++) {
		const unsigned char c = p[i];
		switch (c) {
		case '&':
			w = xml_detail::PutLiteral(w, "&amp;", 5);
			continue;
		case '<':
			w = xml_detail::PutLiteral(w, "&lt;", 4);
			continue;
		case '"':
			w = xml_detail::PutLiteral(w, "&quot;", 6);
			continue;
		case 0x09:
			w = xml_detail::PutLiteral(w, "&#x9;", 5);
			continue;
		case 0x0A:
			w = xml_detail::PutLiteral(w, "&#xa;", 5);
			continue;
		case 0x0D:
			w = xml_detail::PutLiteral(w, "&#xd;", 5);
			continue;
		default:
			break;
		}
		if (xml_detail::IsForbiddenControl(c))
			return nullptr;
		if (c == 0xEF) {
			if (const char *ref = xml_detail::NonCharacterReference(p + i, n - i)) {
				w = xml_detail::PutLiteral(w, ref, 8);
				i += 2;
				continue;
			}
		}
		*w++ = static_cast<char>(c);
	}
	return w;
}

/* Escape text content (see the file header for '>'); nullptr on a forbidden control. */
inline char *
WriteXmlText(char *w, const char *s, size_t n) noexcept
{
	constexpr size_t kChunkUnits = 512;   /* Woodstox BaseStreamWriter.DEFAULT_COPYBUFFER_LEN */
	constexpr size_t kStringPathMax = 11; /* shorter texts take the String path */
	const unsigned char *p = reinterpret_cast<const unsigned char *>(s);

	/* Length in UTF-16 units decides the path: a 4-byte UTF-8 sequence is two units. */
	size_t units = 0;
	for (size_t i = 0; i < n; i++)
		units += (p[i] & 0xC0) != 0x80 ? (p[i] >= 0xF0 ? 2 : 1) : 0;
	const bool char_array_path = units > kStringPathMax;

	size_t unit = 0;           /* UTF-16 position of p[i] */
	bool segment_start = true; /* at the text start, a chunk start, or (char-array path) after a reference */
	unsigned char previous = 0;
	char c1[7] = "&#x80;"; /* U+0080..U+009F as a reference */
	for (size_t i = 0; i < n;) {
		const unsigned char c = p[i];
		if (char_array_path && unit % kChunkUnits == 0 && (c & 0xC0) != 0x80)
			segment_start = true;
		const char *ref = nullptr;
		size_t ref_size = 0;
		size_t consumed = 1;
		size_t width = 1; /* UTF-16 units of this character */
		if (c == '&') {
			ref = "&amp;", ref_size = 5;
		} else if (c == '<') {
			ref = "&lt;", ref_size = 4;
		} else if (c == '>') {
			if (segment_start || previous == ']')
				ref = "&gt;", ref_size = 4;
		} else if (c == 0x0D) {
			ref = "&#xd;", ref_size = 5;
		} else if (xml_detail::IsForbiddenControl(c)) {
			return nullptr;
		} else if (c == 0x7F) {
			ref = "&#x7f;", ref_size = 6;
		} else if (c == 0xC2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F) {
			/* U+0080..U+009F: C2 80..C2 9F */
			static const char kHex[] = "0123456789abcdef";
			c1[3] = kHex[p[i + 1] >> 4];
			c1[4] = kHex[p[i + 1] & 0xF];
			ref = c1, ref_size = 6, consumed = 2;
		} else if (c == 0xEF && (ref = xml_detail::NonCharacterReference(p + i, n - i)) != nullptr) {
			ref_size = 8, consumed = 3;
		} else {
			/* A plain character: copy its whole UTF-8 sequence. */
			consumed = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
			if (consumed > n - i)
				consumed = n - i;
			width = c >= 0xF0 ? 2 : 1;
			w = xml_detail::PutLiteral(w, s + i, consumed);
			previous = c;
			segment_start = false;
			i += consumed;
			unit += width;
			continue;
		}
		if (ref != nullptr) {
			w = xml_detail::PutLiteral(w, ref, ref_size);
			/* The char-array path restarts its scan after a reference; the String path does not. */
			segment_start = char_array_path;
		} else {
			w = xml_detail::PutLiteral(w, s + i, consumed);
			segment_start = false;
		}
		previous = c;
		i += consumed;
		unit += width;
	}
	return w;
}

} // namespace datavalue_export::core
