/*
 * src/core/zip.cpp
 *	  ZipWriter and the zip framing; see zip.hpp for the format decisions.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/zip.hpp"

#include <cstdio>
#include <utility>

#include "core/calendar.hpp"

namespace datavalue_export::core {

namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kDataDescriptorSignature = 0x08074b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint16_t kFlags = 0x0808; /* bit 3: sizes in the data descriptor; bit 11: UTF-8 name */
constexpr uint16_t kMethodDeflate = 8;
constexpr uint16_t kVersion = 20;
constexpr uint16_t kVersionZip64 = 45;
/* A 32-bit field at or above this holds 0xFFFFFFFF and the value lives in a ZIP64 field. */
constexpr uint64_t kZip64Limit = 0xFFFFFFFFu;

/* Little-endian fields. */
class Fields {
  public:
	explicit Fields(OutputBuffer &out) : out_(out) {}
	Fields &U16(uint32_t v)
	{
		const char b[2] = {static_cast<char>(v), static_cast<char>(v >> 8)};
		out_.Append(b, 2);
		return *this;
	}
	Fields &U32(uint64_t v)
	{
		U16(static_cast<uint32_t>(v & 0xFFFF));
		return U16(static_cast<uint32_t>((v >> 16) & 0xFFFF));
	}
	Fields &U64(uint64_t v)
	{
		U32(v & 0xFFFFFFFFu);
		return U32(v >> 32);
	}
	Fields &Bytes(std::string_view s)
	{
		out_.Append(s);
		return *this;
	}

  private:
	OutputBuffer &out_;
};

/* A 32-bit size field: the value, or 0xFFFFFFFF when it lives in the ZIP64 extra field. */
uint64_t
Field32(uint64_t v)
{
	return v >= kZip64Limit ? kZip64Limit : v;
}

std::string
DashedDate(int32_t pg_days)
{
	const CivilDate d = CivilFromDays(pg_days);
	char text[32];
	std::snprintf(text, sizeof text, "%04d-%02d-%02d", static_cast<int>(d.year), static_cast<int>(d.month),
	              static_cast<int>(d.day));
	return text;
}

/* Remove every occurrence of what from s (Java String.replace with ""). */
void
RemoveAll(std::string &s, std::string_view what)
{
	for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at))
		s.erase(at, what.size());
}

bool
EndsWith(std::string_view s, std::string_view suffix)
{
	return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace

DosDateTime
MakeDosDateTime(int year, int month, int day, int hour, int minute, int second) noexcept
{
	DosDateTime t;
	if (year < 1980 || year > 2107)
		return t;
	t.date = static_cast<uint16_t>(((year - 1980) << 9) | (month << 5) | day);
	t.time = static_cast<uint16_t>((hour << 11) | (minute << 5) | (second / 2));
	return t;
}

void
AppendZipLocalHeader(OutputBuffer &out, std::string_view name, DosDateTime when)
{
	Fields(out)
	    .U32(kLocalHeaderSignature)
	    .U16(kVersion)
	    .U16(kFlags)
	    .U16(kMethodDeflate)
	    .U16(when.time)
	    .U16(when.date)
	    .U32(0) /* CRC, compressed and uncompressed size: in the data descriptor */
	    .U32(0)
	    .U32(0)
	    .U16(static_cast<uint32_t>(name.size()))
	    .U16(0)
	    .Bytes(name);
}

void
AppendZipDataDescriptor(OutputBuffer &out, const ZipEntryTotals &totals)
{
	Fields fields(out);
	fields.U32(kDataDescriptorSignature).U32(totals.crc);
	if (totals.compressed >= kZip64Limit || totals.uncompressed >= kZip64Limit)
		fields.U64(totals.compressed).U64(totals.uncompressed);
	else
		fields.U32(totals.compressed).U32(totals.uncompressed);
}

void
AppendZipDirectory(OutputBuffer &out, std::string_view name, DosDateTime when, const ZipEntryTotals &totals,
                   uint64_t directory_offset)
{
	/* The ZIP64 extra field holds, in this order, each size whose 32-bit field overflowed (the offset is 0). */
	std::string extra;
	{
		OutputBuffer values;
		Fields v(values);
		if (totals.uncompressed >= kZip64Limit)
			v.U64(totals.uncompressed);
		if (totals.compressed >= kZip64Limit)
			v.U64(totals.compressed);
		if (values.Size() > 0) {
			OutputBuffer field;
			Fields(field).U16(0x0001).U16(static_cast<uint32_t>(values.Size())).Bytes(values.View());
			extra.assign(field.View());
		}
	}
	const uint16_t version = extra.empty() ? kVersion : kVersionZip64;
	const size_t start = out.Size();
	Fields(out)
	    .U32(kCentralHeaderSignature)
	    .U16(version) /* made by: MS-DOS attributes, as Java */
	    .U16(version)
	    .U16(kFlags)
	    .U16(kMethodDeflate)
	    .U16(when.time)
	    .U16(when.date)
	    .U32(totals.crc)
	    .U32(Field32(totals.compressed))
	    .U32(Field32(totals.uncompressed))
	    .U16(static_cast<uint32_t>(name.size()))
	    .U16(static_cast<uint32_t>(extra.size()))
	    .U16(0) /* comment */
	    .U16(0) /* disk */
	    .U16(0) /* internal attributes */
	    .U32(0) /* external attributes */
	    .U32(0) /* the local header is at offset 0 */
	    .Bytes(name)
	    .Bytes(extra);
	const uint64_t directory_size = out.Size() - start;
	if (directory_offset >= kZip64Limit) {
		const uint64_t zip64_end_offset = directory_offset + directory_size;
		Fields(out)
		    .U32(kZip64EndSignature)
		    .U64(44) /* size of the rest of this record */
		    .U16(kVersionZip64)
		    .U16(kVersionZip64)
		    .U32(0)
		    .U32(0)
		    .U64(1)
		    .U64(1)
		    .U64(directory_size)
		    .U64(directory_offset)
		    .U32(kZip64LocatorSignature)
		    .U32(0)
		    .U64(zip64_end_offset)
		    .U32(1);
	}
	Fields(out)
	    .U32(kEndSignature)
	    .U16(0)
	    .U16(0)
	    .U16(1)
	    .U16(1)
	    .U32(directory_size)
	    .U32(Field32(directory_offset))
	    .U16(0);
}

ZipWriter::ZipWriter(std::string entry_name, DosDateTime when, GzipEngine engine, int level)
    : name_(std::move(entry_name)), when_(when), deflater_(engine, level)
{
}

void
ZipWriter::Write(const char *data, size_t size, OutputBuffer &out)
{
	if (!header_written_) {
		const size_t before = out.Size();
		AppendZipLocalHeader(out, name_, when_);
		header_bytes_ = out.Size() - before;
		header_written_ = true;
	}
	const size_t before = out.Size();
	deflater_.Write(data, size, out);
	compressed_bytes_ += out.Size() - before;
}

void
ZipWriter::Finish(OutputBuffer &out)
{
	Write(nullptr, 0, out);
	const size_t before = out.Size();
	deflater_.Finish(out);
	compressed_bytes_ += out.Size() - before;
	ZipEntryTotals totals;
	totals.crc = deflater_.Crc();
	totals.compressed = compressed_bytes_;
	totals.uncompressed = deflater_.InputBytes();
	const size_t descriptor_start = out.Size();
	AppendZipDataDescriptor(out, totals);
	const uint64_t directory_offset = header_bytes_ + compressed_bytes_ + (out.Size() - descriptor_start);
	AppendZipDirectory(out, name_, when_, totals, directory_offset);
}

std::string
ZipEntryName(Style style, Format format, const std::optional<std::string> &attachment,
             std::optional<int32_t> start_date, std::optional<int32_t> end_date)
{
	std::string fmt;
	switch (format) {
	case Format::kJson:
		fmt = "json";
		break;
	case Format::kCsv:
		fmt = "csv";
		break;
	case Format::kXml:
		fmt = "xml";
		break;
	case Format::kAdx:
		/* 2.42 names ADX entries .xml; 2.43 takes the format with '+' as '.': .adx.xml. */
		fmt = style == Style::k242 ? "xml" : "adx.xml";
		break;
	}
	std::string name = attachment && !attachment->empty() ? *attachment : "dataValues";
	if (style == Style::k242) {
		if (start_date && end_date) {
			name = name.substr(0, name.find('.'));
			name += "_" + DashedDate(*start_date) + "_" + DashedDate(*end_date);
		}
		RemoveAll(name, "." + fmt + ".zip");
		return name + "." + fmt;
	}
	if (EndsWith(name, ".zip"))
		name.resize(name.size() - 4);
	if (EndsWith(name, "." + fmt))
		name.resize(name.size() - fmt.size() - 1);
	if (start_date)
		name += "_" + DashedDate(*start_date);
	if (end_date)
		name += "_" + DashedDate(*end_date);
	return name + "." + fmt;
}

} // namespace datavalue_export::core
