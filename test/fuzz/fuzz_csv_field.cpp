/*
 * test/fuzz/fuzz_csv_field.cpp
 *	  libFuzzer target: core/escape.hpp's CSV field writer (javacsv rules) on arbitrary bytes.
 *
 * Input: one byte choosing the column (first or not), then the field. Properties: the output
 * fits the documented worst case; read back as one RFC 4180 field it gives the Java-trimmed
 * input; an unquoted field holds nothing that would split or start a comment line; and it equals
 * a byte-at-a-time model of the rules (so the eight-bytes-at-a-time fast path cannot drift).
 * SPDX-License-Identifier: PostgreSQL
 */
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/escape.hpp"
#include "fuzz_check.hpp"
#include "../unit/escape_reference.hpp"

namespace core = datavalue_export::core;
namespace test_reference = datavalue_export::test_reference;

namespace {

std::string
JavaTrim(std::string s)
{
	size_t b = 0, e = s.size();
	while (b < e && static_cast<unsigned char>(s[b]) <= 0x20)
		b++;
	while (e > b && static_cast<unsigned char>(s[e - 1]) <= 0x20)
		e--;
	return s.substr(b, e - b);
}

/* One field as a CSV reader sees it: quoted ("" is a quote) or taken as is. */
bool
ReadField(const std::string &csv, std::string &out)
{
	if (csv.empty() || csv.front() != '"') {
		out = csv;
		return true;
	}
	if (csv.size() < 2 || csv.back() != '"')
		return false;
	for (size_t i = 1; i + 1 < csv.size(); i++) {
		if (csv[i] == '"') {
			if (i + 2 >= csv.size() || csv[i + 1] != '"')
				return false; /* a lone quote inside quotes */
			i++;
		}
		out += csv[i];
	}
	return true;
}

std::string
ModelCsvField(const std::string &raw, bool first_column)
{
	return test_reference::RefCsvField(raw, first_column);
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const bool first_column = data[0] & 1;
	/* A copy of exactly the field's size, so ASan sees any read past its end. */
	std::vector<char> field(data + 1, data + size);
	const size_t n = field.size();
	const std::string raw(field.begin(), field.end());

	const size_t reserved = core::CsvFieldMax(n);
	std::vector<char> buffer(reserved + 1);
	const char *end = core::WriteCsvField(buffer.data(), n ? field.data() : nullptr, n, first_column);
	const size_t written = static_cast<size_t>(end - buffer.data());
	FUZZ_CHECK(written <= reserved);
	const std::string csv(buffer.data(), written);

	std::string back;
	FUZZ_CHECK(ReadField(csv, back));
	FUZZ_CHECK(back == JavaTrim(raw));
	if (csv.empty() || csv.front() != '"') {
		FUZZ_CHECK(csv.find_first_of(",\"\r\n") == std::string::npos);
		FUZZ_CHECK(!first_column || (!csv.empty() && csv[0] != '#'));
	}
	FUZZ_CHECK(csv == ModelCsvField(raw, first_column));
	return 0;
}
