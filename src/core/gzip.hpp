/*
 * src/core/gzip.hpp
 *	  Streaming gzip: exactly one gzip member, fed in chunks.
 *
 * One member because Java's GZIPInputStream on a socket, curl --compressed and several HTTP
 * libraries stop after the first member. Two engines share one framing:
 *   - ISA-L igzip (level 0-3; level 1 is the default "fast" mode, several times zlib's speed);
 *   - zlib raw deflate (level 1-9). With zlib's level 6 the bytes equal Java's
 *     GZIPOutputStream, which DHIS2 uses, because the header below is Java's.
 * Header: 1f 8b 08 00 00000000 00 ff (no name, mtime 0, XFL 0, OS 255), as Java writes it.
 * Trailer: CRC-32 and input size modulo 2^32, little-endian.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/output_buffer.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

enum class GzipEngine { kIsal, kZlib };

/*
 * A raw deflate stream (no framing) over either engine, with the CRC-32 and size of its input:
 * the part gzip and zip (core/zip.hpp) share.
 */
class RawDeflater {
  public:
	/* Throws core::Error for a level the engine does not support. */
	RawDeflater(GzipEngine engine, int level);
	~RawDeflater();
	RawDeflater(const RawDeflater &) = delete;
	RawDeflater &operator=(const RawDeflater &) = delete;

	/* Compress input, appending whatever compressed bytes are ready to out. May throw. */
	void Write(const char *data, size_t size, OutputBuffer &out);
	/* End the deflate stream. Call once. */
	void Finish(OutputBuffer &out);

	uint32_t Crc() const noexcept { return crc_; }
	uint64_t InputBytes() const noexcept { return input_bytes_; }

  private:
	struct Impl;
	std::unique_ptr<Impl> impl_;
	uint32_t crc_ = 0;
	uint64_t input_bytes_ = 0;
};

class GzipWriter {
  public:
	/* Throws core::Error for a level the engine does not support. */
	GzipWriter(GzipEngine engine, int level);
	~GzipWriter();
	GzipWriter(const GzipWriter &) = delete;
	GzipWriter &operator=(const GzipWriter &) = delete;

	/* Compress input, appending whatever compressed bytes are ready to out. May throw. */
	void Write(const char *data, size_t size, OutputBuffer &out);
	/* Flush the deflate stream and append the trailer. Call once. */
	void Finish(OutputBuffer &out);

	uint64_t InputBytes() const noexcept { return deflater_.InputBytes(); }

  private:
	RawDeflater deflater_;
	bool header_written_ = false;
};

} // namespace datavalue_export::core
