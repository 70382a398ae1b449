/*
 * test/fuzz/fuzz_query_string.cpp
 *	  libFuzzer target: core/query_string's ParseQueryString and its helpers on arbitrary text.
 *
 * Properties: any input either parses or throws core::Error (never another exception, a crash
 * or undefined behaviour) with a specific SQLSTATE and valid UTF-8 message, detail and hint;
 * parsing is deterministic; and a round trip: the input split in two values, percent-encoded
 * byte by byte and sent as two repeated dataElement parameters, comes back as exactly those
 * values (empty ones dropped), or is refused only when a value is not valid UTF-8 text
 * (invalid sequences or NUL).
 * SPDX-License-Identifier: PostgreSQL
 */
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/query_string.hpp"
#include "fuzz_check.hpp"

namespace core = datavalue_export::core;

namespace {

std::string
PercentEncode(std::string_view s)
{
	static const char kHex[] = "0123456789ABCDEF";
	std::string out;
	for (unsigned char c : s) {
		out += '%';
		out += kHex[c >> 4];
		out += kHex[c & 0xF];
	}
	return out;
}

/* Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF) without NUL. */
bool
IsUtf8Text(std::string_view s)
{
	size_t i = 0;
	while (i < s.size()) {
		const unsigned char c = static_cast<unsigned char>(s[i]);
		if (c == 0)
			return false;
		size_t len;
		uint32_t cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			len = 2, cp = c & 0x1F;
		} else if ((c & 0xF0) == 0xE0) {
			len = 3, cp = c & 0x0F;
		} else if ((c & 0xF8) == 0xF0) {
			len = 4, cp = c & 0x07;
		} else {
			return false;
		}
		if (i + len > s.size())
			return false;
		for (size_t k = 1; k < len; k++) {
			const unsigned char cc = static_cast<unsigned char>(s[i + k]);
			if ((cc & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (cc & 0x3F);
		}
		static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += len;
	}
	return true;
}

/* A SQLSTATE PostgreSQL accepts: five digits or uppercase letters, not the success class 00. */
bool
IsErrorSqlstate(const char *code)
{
	if (code == nullptr || std::strlen(code) != 5 || std::strncmp(code, "00", 2) == 0)
		return false;
	for (size_t i = 0; i < 5; i++)
		if (!((code[i] >= '0' && code[i] <= '9') || (code[i] >= 'A' && code[i] <= 'Z')))
			return false;
	return true;
}

/*
 * Parses, or returns false for a core::Error, which must be reportable as it is: a specific
 * SQLSTATE and message parts that are valid UTF-8 text (they may quote the query). Any other
 * exception escapes and fails the run.
 */
bool
TryParse(std::string_view query, core::ExportRequest &out)
{
	try {
		out = core::ParseQueryString(query);
		return true;
	} catch (const core::Error &e) {
		FUZZ_CHECK(IsErrorSqlstate(e.Sqlstate()));
		FUZZ_CHECK(std::strlen(e.what()) > 0 && IsUtf8Text(e.what()));
		FUZZ_CHECK(IsUtf8Text(e.Detail()) && IsUtf8Text(e.Hint()));
		return false;
	}
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const std::string_view text(reinterpret_cast<const char *>(data), size);

	core::ExportRequest first, second;
	const bool ok = TryParse(text, first);
	FUZZ_CHECK(TryParse(text, second) == ok);
	if (ok)
		FUZZ_CHECK(first.data_set == second.data_set && first.org_unit == second.org_unit &&
		           first.period == second.period && first.data_element == second.data_element);

	/* The helpers on the same bytes: no crash, and Spring's boolean spellings are stable. */
	bool flag = false;
	if (core::ParseDhis2Boolean(text, flag)) {
		bool again = !flag;
		FUZZ_CHECK(core::ParseDhis2Boolean(text, again) && again == flag);
	}
	(void)core::ParseDhis2Timestamp(text);
	(void)core::ParseDhis2Date(text);
	if (size <= 64)
		(void)core::ClosestMatch(text, {"dataSet", "orgUnit", "period", "startDate", "endDate"});

	const std::string_view a = text.substr(0, size / 2), b = text.substr(size / 2);
	const std::string query = "dataElement=" + PercentEncode(a) + "&dataElement=" + PercentEncode(b);
	core::ExportRequest request;
	if (TryParse(query, request)) {
		std::vector<std::string> expected;
		for (std::string_view v : {a, b})
			if (!v.empty())
				expected.emplace_back(v);
		FUZZ_CHECK(request.data_element == expected);
	} else {
		FUZZ_CHECK(!IsUtf8Text(a) || !IsUtf8Text(b));
	}
	return 0;
}
