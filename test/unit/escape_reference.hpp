/*
 * test/unit/escape_reference.hpp
 *	  Reference implementations of the escaping rules, written from DHIS2's writers' rules (Jackson
 *	  JSON strings, javacsv fields), byte by byte and obviously correct, not from src/core/escape.hpp.
 *	  Shared by the unit tests (test/unit/escape_test.cpp) and the fuzz harnesses (test/fuzz/).
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstdio>
#include <string>

namespace datavalue_export::test_reference {

/* dhis2-export-format.md §4.1, Jackson CharTypes: the body of a JSON string, without quotes. */
inline std::string
RefJsonBody(const std::string &s)
{
	std::string out;
	for (const char ch : s) {
		const unsigned char c = static_cast<unsigned char>(ch);
		switch (c) {
		case '"':
			out += "\\\"";
			break;
		case '\\':
			out += "\\\\";
			break;
		case 0x08:
			out += "\\b";
			break;
		case 0x09:
			out += "\\t";
			break;
		case 0x0A:
			out += "\\n";
			break;
		case 0x0C:
			out += "\\f";
			break;
		case 0x0D:
			out += "\\r";
			break;
		default:
			if (c < 0x20) {
				char buf[8];
				std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(c));
				out += buf;
			} else
				out += ch; /* '/', 0x7F and every byte >= 0x80 (all of UTF-8) are raw */
		}
	}
	return out;
}

/* dhis2-export-format.md §5.2, javacsv CsvWriter with DHIS2's settings. A NULL field is "". */
inline std::string
RefCsvField(const std::string &raw, bool first_column)
{
	/* Java String.trim(): strip chars <= U+0020 at both ends; UTF-8 bytes of non-ASCII are all >= 0x80. */
	size_t b = 0, e = raw.size();
	while (b < e && static_cast<unsigned char>(raw[b]) <= 0x20)
		b++;
	while (e > b && static_cast<unsigned char>(raw[e - 1]) <= 0x20)
		e--;
	const std::string s = raw.substr(b, e - b);
	const bool quote =
	    s.find_first_of("\",\n\r") != std::string::npos || (first_column && s.empty()) || (first_column && s[0] == '#');
	if (!quote)
		return s;
	std::string out = "\"";
	for (const char c : s) {
		out += c;
		if (c == '"')
			out += '"';
	}
	out += '"';
	return out;
}

} // namespace datavalue_export::test_reference
