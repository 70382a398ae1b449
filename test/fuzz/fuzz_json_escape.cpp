/*
 * test/fuzz/fuzz_json_escape.cpp
 *	  libFuzzer target: core/escape.hpp's JSON string writer on arbitrary bytes.
 *
 * Properties: the output fits the documented worst case; it is a valid JSON string (no raw byte
 * below 0x20, no bare quote or backslash); parsed back by the strict decoder below it gives the
 * input bytes; and it equals a byte-at-a-time model of the escaping rules, so the eight-bytes-at-
 * a-time fast path cannot drift from them.
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

int
Hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

void
AppendUtf8(std::string &out, uint32_t cp)
{
	if (cp < 0x80) {
		out += static_cast<char>(cp);
	} else if (cp < 0x800) {
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
}

/* RFC 8259 string grammar; false if `json` is not exactly one JSON string. Bytes >= 0x80 pass
 * through (the escaper copies them raw, valid UTF-8 or not). */
bool
DecodeJsonString(const std::string &json, std::string &out)
{
	if (json.size() < 2 || json.front() != '"' || json.back() != '"')
		return false;
	for (size_t i = 1; i + 1 < json.size(); i++) {
		const unsigned char c = static_cast<unsigned char>(json[i]);
		if (c < 0x20 || c == '"')
			return false;
		if (c != '\\') {
			out += static_cast<char>(c);
			continue;
		}
		if (++i + 1 >= json.size())
			return false;
		switch (json[i]) {
		case '"':
			out += '"';
			break;
		case '\\':
			out += '\\';
			break;
		case '/':
			out += '/';
			break;
		case 'b':
			out += '\b';
			break;
		case 'f':
			out += '\f';
			break;
		case 'n':
			out += '\n';
			break;
		case 'r':
			out += '\r';
			break;
		case 't':
			out += '\t';
			break;
		case 'u': {
			auto unit = [&](size_t at) -> int32_t {
				if (at + 4 >= json.size())
					return -1;
				int32_t v = 0;
				for (size_t k = 0; k < 4; k++) {
					const int h = Hex(json[at + k]);
					if (h < 0)
						return -1;
					v = v * 16 + h;
				}
				return v;
			};
			int32_t cp = unit(i + 1);
			if (cp < 0)
				return false;
			i += 4;
			if (cp >= 0xD800 && cp < 0xDC00) { /* a high surrogate must be followed by a low one */
				if (i + 2 >= json.size() || json[i + 1] != '\\' || json[i + 2] != 'u')
					return false;
				const int32_t low = unit(i + 3);
				if (low < 0xDC00 || low > 0xDFFF)
					return false;
				cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
				i += 6;
			} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
				return false;
			}
			AppendUtf8(out, static_cast<uint32_t>(cp));
			break;
		}
		default:
			return false;
		}
	}
	return true;
}

/* The escaping rules, one byte at a time (test/unit/escape_reference.hpp). */
std::string
ModelJsonString(const uint8_t *s, size_t n)
{
	return "\"" + test_reference::RefJsonBody(std::string(reinterpret_cast<const char *>(s), n)) + "\"";
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = reinterpret_cast<const char *>(data);
	const size_t reserved = core::JsonEscapedMax(size) + 2;
	std::vector<char> buffer(reserved);
	const char *end = core::WriteJsonString(buffer.data(), text, size);
	const size_t written = static_cast<size_t>(end - buffer.data());
	FUZZ_CHECK(written <= reserved);
	const std::string json(buffer.data(), written);

	std::string decoded;
	FUZZ_CHECK(DecodeJsonString(json, decoded));
	FUZZ_CHECK(decoded == std::string(text, size));
	FUZZ_CHECK(json == ModelJsonString(data, size));
	return 0;
}
