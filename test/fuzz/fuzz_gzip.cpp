/*
 * test/fuzz/fuzz_gzip.cpp
 *	  libFuzzer target: core/gzip's streaming writer, every engine and level, any chunking.
 *
 * Input: byte 0 picks the engine and level (ISA-L 0-3, zlib 1-9), byte 1 how often the payload
 * is repeated, up to 16 times (to reach past the engines' internal buffers), byte 2 seeds the chunk sizes of
 * the Write calls; the rest is the payload. Properties: the output is exactly one gzip member
 * with Java's header; zlib inflates it back to the input, CRC and size checked, with no byte
 * left over.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/gzip.hpp"
#include "core/output_buffer.hpp"
#include "fuzz_check.hpp"

namespace core = datavalue_export::core;

namespace {

/* zlib's gzip reader; true only when one whole member (CRC and ISIZE checked) is all of `gz`. */
bool
InflateOneMember(const core::OutputBuffer &gz, std::string &out)
{
	z_stream zs{};
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return false;
	zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(gz.Data()));
	zs.avail_in = static_cast<uInt>(gz.Size());
	char buf[16384];
	int rc;
	do {
		zs.next_out = reinterpret_cast<Bytef *>(buf);
		zs.avail_out = sizeof buf;
		rc = inflate(&zs, Z_NO_FLUSH);
		out.append(buf, sizeof buf - zs.avail_out);
	} while (rc == Z_OK);
	const bool whole = rc == Z_STREAM_END && zs.avail_in == 0;
	inflateEnd(&zs);
	return whole;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	const int choice = data[0] % 13; /* 0-3 ISA-L levels 0-3, 4-12 zlib levels 1-9 */
	const core::GzipEngine engine = choice < 4 ? core::GzipEngine::kIsal : core::GzipEngine::kZlib;
	const int level = choice < 4 ? choice : choice - 3;
	const int repeats = 1 + data[1] % 16;
	uint32_t chunk_seed = data[2] | 1u;
	const std::string payload(reinterpret_cast<const char *>(data + 3), size - 3);
	std::string input;
	for (int i = 0; i < repeats; i++)
		input += payload;

	core::GzipWriter writer(engine, level);
	core::OutputBuffer out;
	size_t at = 0;
	while (at < input.size()) {
		chunk_seed = chunk_seed * 1103515245u + 12345u;
		const size_t chunk = std::min<size_t>(input.size() - at, (chunk_seed >> 16) % 70000);
		writer.Write(input.data() + at, chunk, out); /* zero-sized writes included */
		at += chunk;
	}
	writer.Finish(out);
	FUZZ_CHECK(writer.InputBytes() == input.size());

	static const unsigned char kJavaHeader[10] = {0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff};
	FUZZ_CHECK(out.Size() >= 18 && std::memcmp(out.Data(), kJavaHeader, sizeof kJavaHeader) == 0);
	std::string back;
	FUZZ_CHECK(InflateOneMember(out, back));
	FUZZ_CHECK(back == input);
	return 0;
}
