/*
 * src/core/zip.hpp
 *	  Streaming zip: one deflated entry written front to back, never seeking back.
 *
 * DHIS2's compression=zip is java.util.zip.ZipOutputStream with one entry, and this writes the
 * same framing (PKWARE APPNOTE 6.3):
 *   local header   version 20, flags 0x0808 (data descriptor follows + UTF-8 name), method 8,
 *                  DOS time/date, CRC and sizes 0, the name, no extra field;
 *   data           raw deflate (core/gzip.hpp's RawDeflater: ISA-L or zlib);
 *   descriptor     PK 07 08, CRC-32, compressed and uncompressed size: 4 bytes each, or 8
 *                  each when either size reaches 0xFFFFFFFF (what Java writes and reads);
 *   central dir    one entry; sizes of 0xFFFFFFFF or more go to a ZIP64 extra field (id 1)
 *                  and the entry then says version 45;
 *   end records    a ZIP64 end record and locator when the directory starts at 0xFFFFFFFF
 *                  or beyond, then the classic end record.
 * The framing functions are free functions of the sizes, so unit tests can drive the ZIP64
 * paths with sizes no test could stream.
 * Libraries: libzip and minizip 1.x seek back to patch the local header; libarchive streams,
 * but marks every entry of unknown size ZIP64 (or, told not to, refuses entries over 4 GB).
 *
 * May throw core::Error and std::bad_alloc.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/gzip.hpp"
#include "core/model.hpp"
#include "core/output_buffer.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* MS-DOS date and time of a local wall-clock time (years 1980-2107; earlier ones give 1980-01-01). */
struct DosDateTime {
	uint16_t time = 0;
	uint16_t date = 0x21; /* 1980-01-01 */
};
DosDateTime MakeDosDateTime(int year, int month, int day, int hour, int minute, int second) noexcept;

/* The sizes and checksum of the one entry, known at its end. */
struct ZipEntryTotals {
	uint32_t crc = 0;
	uint64_t compressed = 0;
	uint64_t uncompressed = 0;
};

/* The framing pieces (see the file header); each appends to out. */
void AppendZipLocalHeader(OutputBuffer &out, std::string_view name, DosDateTime when);
void AppendZipDataDescriptor(OutputBuffer &out, const ZipEntryTotals &totals);
/* Central directory, ZIP64 end records when needed, end record. directory_offset: bytes written before it. */
void AppendZipDirectory(OutputBuffer &out, std::string_view name, DosDateTime when, const ZipEntryTotals &totals,
                        uint64_t directory_offset);

class ZipWriter {
  public:
	ZipWriter(std::string entry_name, DosDateTime when, GzipEngine engine, int level);

	/* Compress input into the entry, appending ready bytes to out. May throw. */
	void Write(const char *data, size_t size, OutputBuffer &out);
	/* End the entry and the archive. Call once. */
	void Finish(OutputBuffer &out);

  private:
	std::string name_;
	DosDateTime when_;
	RawDeflater deflater_;
	uint64_t header_bytes_ = 0;     /* the local header, for the directory's offset */
	uint64_t compressed_bytes_ = 0; /* what the deflater appended, counted per call */
	bool header_written_ = false;
};

/*
 * The entry name DHIS2 gives the document of a compression=zip export (dhis2-core 2.42
 * ContextUtils / DataValueSetController, 2.43 DataExportParams.Input.getFilename):
 *   2.42: attachment (else dataValues); with both dates, cut at its first '.' and add
 *         _<start>_<end>; every ".<fmt>.zip" removed; then ".<fmt>";
 *   2.43: attachment (else dataValues) less a trailing ".zip", then a trailing ".<fmt>";
 *         "_<start>" and "_<end>" for each date given; then ".<fmt>".
 * Dates are PostgreSQL day numbers.
 */
std::string ZipEntryName(Style style, Format format, const std::optional<std::string> &attachment,
                         std::optional<int32_t> start_date, std::optional<int32_t> end_date);
/* The longest entry name a zip header can hold: its length is a 16-bit field (ValidateRequest checks it). */
inline constexpr size_t kZipMaxNameBytes = 0xFFFF;

} // namespace datavalue_export::core
