/*
 * src/core/escape.hpp
 *	  The product's hot text paths: JSON string escaping and CSV field quoting, DHIS2 rules.
 *
 * JSON follows Jackson's writer (DHIS2 2.42), which is valid JSON, also for the 2.43 shape
 * (json-tree writes control characters raw, which is not): '"' and '\' get a backslash;
 * 0x08 0x09 0x0A 0x0C 0x0D become \b \t \n \f \r; every other byte below 0x20 becomes
 * \u00XX with uppercase hex; everything else, 0x7F, U+2028/2029 and all non-ASCII, is copied
 * raw. Clean runs are found eight bytes at a time (SWAR) and copied whole, because data
 * values are overwhelmingly plain ASCII.
 *
 * Characters outside the BMP differ between the two DHIS2 writers. 2.43's json-tree copies
 * their four UTF-8 bytes raw (NonBmp::kRaw). 2.42's Jackson UTF8JsonGenerator sees Java's
 * UTF-16 and escapes each surrogate on its own with uppercase hex: U+1F600 is written as
 * \uD83D\uDE00 (jackson-core issue 223; COMBINE_UNICODE_SURROGATES_IN_UTF8 is off by default
 * and DHIS2 does not set it): NonBmp::kSurrogateEscapes.
 *
 * CSV follows javacsv 2.0's CsvWriter as DHIS2 configures it: trim bytes <= 0x20 at both
 * ends (Java String.trim), then quote when the field holds '"', ',', LF or CR, or when it is
 * the first column and is empty or starts with '#'; inside quotes '"' is doubled.
 *
 * All writers take a raw output pointer into space the caller reserved with the documented
 * worst case, and return the new end.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* How a JSON string writes a character outside the BMP (see the file header). */
enum class NonBmp { kRaw, kSurrogateEscapes };

/* Worst-case output bytes of EscapeJsonBody for n input bytes (every byte as \u00XX; a 4-byte
 * character as two \uXXXX is only 3 bytes per input byte). */
constexpr size_t
JsonEscapedMax(size_t n) noexcept
{
	return n * 6;
}

/* Worst-case output bytes of WriteCsvField for n input bytes (every byte a doubled quote, plus the qualifiers). */
constexpr size_t
CsvFieldMax(size_t n) noexcept
{
	return n * 2 + 2;
}

namespace detail {

/* Per byte: 0 = copy as is; otherwise the character after the backslash, or 'u' for \u00XX. */
struct JsonEscapeTable {
	char code[256];
	constexpr JsonEscapeTable() : code()
	{
		for (int c = 0; c < 0x20; c++)
			code[c] = 'u';
		code['\b'] = 'b';
		code['\t'] = 't';
		code['\n'] = 'n';
		code['\f'] = 'f';
		code['\r'] = 'r';
		code['"'] = '"';
		code['\\'] = '\\';
	}
};
inline constexpr JsonEscapeTable kJsonEscape{};

inline constexpr uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr uint64_t kHighs = 0x8080808080808080ULL;

/* Nonzero when any of the eight bytes equals c. */
inline uint64_t
WordHasByte(uint64_t x, unsigned char c) noexcept
{
	const uint64_t y = x ^ (kOnes * c);
	return (y - kOnes) & ~y & kHighs;
}

/* Nonzero when any of the eight bytes is one CSV must quote for: '"', ',', LF, CR. */
inline uint64_t
CsvWordNeedsQuote(uint64_t x) noexcept
{
	return WordHasByte(x, '"') | WordHasByte(x, ',') | WordHasByte(x, '\n') | WordHasByte(x, '\r');
}

/* Nonzero when any of the eight bytes is below 0x20, '"' or '\'. */
inline uint64_t
JsonWordNeedsEscape(uint64_t x) noexcept
{
	const uint64_t quote = x ^ (kOnes * '"');
	const uint64_t backslash = x ^ (kOnes * '\\');
	/* has-zero-byte and has-byte-less-than tricks; exact for our purpose since we only need "any". */
	const uint64_t lt20 = (x - kOnes * 0x20) & ~x;
	const uint64_t zq = (quote - kOnes) & ~quote;
	const uint64_t zb = (backslash - kOnes) & ~backslash;
	return (lt20 | zq | zb) & kHighs;
}

/* Nonzero when any of the eight bytes is >= 0xF0 (the lead byte of a 4-byte UTF-8 sequence). */
inline uint64_t
WordHasUtf8Lead4(uint64_t x) noexcept
{
	return x & (x << 1) & (x << 2) & (x << 3) & kHighs;
}

/*
 * The code point of a 4-byte UTF-8 sequence at s[0..n), or 0 when s does not start with a
 * well-formed one (PostgreSQL validates UTF-8 text, so that only happens in a database whose
 * encoding is not UTF-8, where such bytes are copied as they are).
 */
inline uint32_t
DecodeUtf8Four(const unsigned char *s, size_t n) noexcept
{
	if (n < 4 || s[0] < 0xF0 || s[0] > 0xF4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
		return 0;
	const uint32_t cp = (static_cast<uint32_t>(s[0] & 0x07) << 18) | (static_cast<uint32_t>(s[1] & 0x3F) << 12) |
	                    (static_cast<uint32_t>(s[2] & 0x3F) << 6) | static_cast<uint32_t>(s[3] & 0x3F);
	return cp >= 0x10000 && cp <= 0x10FFFF ? cp : 0;
}

inline char *
PutUnicodeEscape(char *w, uint32_t unit) noexcept
{
	static constexpr char kHex[] = "0123456789ABCDEF";
	w[0] = '\\';
	w[1] = 'u';
	w[2] = kHex[(unit >> 12) & 0xF];
	w[3] = kHex[(unit >> 8) & 0xF];
	w[4] = kHex[(unit >> 4) & 0xF];
	w[5] = kHex[unit & 0xF];
	return w + 6;
}

inline uint64_t
LoadWord(const char *p) noexcept
{
	uint64_t x;
	std::memcpy(&x, p, sizeof x);
	return x;
}

} // namespace detail

/* Escape the bytes of a JSON string body (no surrounding quotes). */
template <NonBmp kNonBmp = NonBmp::kRaw>
inline char *
EscapeJsonBody(char *w, const char *s, size_t n) noexcept
{
	constexpr bool kEscapeNonBmp = kNonBmp == NonBmp::kSurrogateEscapes;
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j + 8 <= n) {
			const uint64_t word = detail::LoadWord(s + j);
			if (detail::JsonWordNeedsEscape(word) || (kEscapeNonBmp && detail::WordHasUtf8Lead4(word)))
				break;
			j += 8;
		}
		while (j < n && detail::kJsonEscape.code[static_cast<unsigned char>(s[j])] == 0 &&
		       !(kEscapeNonBmp && static_cast<unsigned char>(s[j]) >= 0xF0))
			j++;
		std::memcpy(w, s + i, j - i);
		w += j - i;
		if (j == n)
			break;
		const unsigned char c = static_cast<unsigned char>(s[j]);
		if (kEscapeNonBmp && c >= 0xF0) {
			const uint32_t cp = detail::DecodeUtf8Four(reinterpret_cast<const unsigned char *>(s + j), n - j);
			if (cp == 0) {
				*w++ = s[j];
				i = j + 1;
				continue;
			}
			w = detail::PutUnicodeEscape(w, 0xD800 + ((cp - 0x10000) >> 10));
			w = detail::PutUnicodeEscape(w, 0xDC00 + ((cp - 0x10000) & 0x3FF));
			i = j + 4;
			continue;
		}
		const char code = detail::kJsonEscape.code[c];
		if (code == 'u')
			w = detail::PutUnicodeEscape(w, c);
		else {
			*w++ = '\\';
			*w++ = code;
		}
		i = j + 1;
	}
	return w;
}

/* A JSON string with its quotes. Reserve JsonEscapedMax(n) + 2. */
template <NonBmp kNonBmp = NonBmp::kRaw>
inline char *
WriteJsonString(char *w, const char *s, size_t n) noexcept
{
	*w++ = '"';
	w = EscapeJsonBody<kNonBmp>(w, s, n);
	*w++ = '"';
	return w;
}

/* Java String.trim(): strip bytes <= 0x20 at both ends. UTF-8 continuation and lead bytes are >= 0x80. */
inline void
TrimJava(const char *&s, size_t &n) noexcept
{
	while (n > 0 && static_cast<unsigned char>(s[0]) <= 0x20) {
		s++;
		n--;
	}
	while (n > 0 && static_cast<unsigned char>(s[n - 1]) <= 0x20)
		n--;
}

/* One CSV field, javacsv rules (see file header). A NULL field is passed as n == 0. Reserve CsvFieldMax(n). */
inline char *
WriteCsvField(char *w, const char *s, size_t n, bool first_column) noexcept
{
	TrimJava(s, n);
	bool quote = first_column && (n == 0 || s[0] == '#');
	/* Fast path: most fields hold nothing to quote; find that eight bytes at a time. */
	size_t clean = 0;
	while (clean + 8 <= n && !detail::CsvWordNeedsQuote(detail::LoadWord(s + clean)))
		clean += 8;
	size_t quotes = 0;
	for (size_t i = clean; i < n; i++) {
		const char c = s[i];
		if (c == '"') {
			quotes++;
			quote = true;
		} else if (c == ',' || c == '\n' || c == '\r')
			quote = true;
	}
	if (!quote) {
		if (n > 0) /* s may be null for a NULL field */
			std::memcpy(w, s, n);
		return w + n;
	}
	*w++ = '"';
	if (quotes == 0) {
		if (n > 0)
			std::memcpy(w, s, n);
		w += n;
	} else {
		for (size_t i = 0; i < n; i++) {
			*w++ = s[i];
			if (s[i] == '"')
				*w++ = '"';
		}
	}
	*w++ = '"';
	return w;
}

} // namespace datavalue_export::core
