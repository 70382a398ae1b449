/*
 * src/core/document_writer.cpp
 *	  DHIS2 dataValueSets JSON and CSV rendering; see document_writer.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/document_writer.hpp"

#include <cstring>
#include <utility>

#include "core/escape.hpp"
#include "core/timestamp.hpp"

namespace datavalue_export::core {

namespace {

constexpr std::string_view kCsvHeader =
    "dataelement,period,orgunit,categoryoptioncombo,attributeoptioncombo,value,storedby,lastupdated,comment,"
    "followup,deleted\n";

/* The JSON key of each identifier kind, with the punctuation that precedes it in a value object. */
constexpr std::string_view kJsonIdKey[kIdKindCount] = {
    "{\"dataElement\":", ",\"period\":", ",\"orgUnit\":", ",\"categoryOptionCombo\":", ",\"attributeOptionCombo\":",
};

/* Bytes a row needs beyond its identifiers and escaped texts: keys, two timestamps, booleans. */
constexpr size_t kRowFixedMax = 256;

inline char *
Put(char *w, std::string_view s) noexcept
{
	std::memcpy(w, s.data(), s.size());
	return w + s.size();
}

template <NonBmp kNonBmp = NonBmp::kRaw>
inline char *
PutJsonTextMember(char *w, std::string_view key, const TextField &f) noexcept
{
	w = Put(w, key);
	return WriteJsonString<kNonBmp>(w, f.data, f.size);
}

/* A JSON string in the style's escaping (2.42's Jackson escapes characters outside the BMP). */
inline char *
WriteStyledJsonString(Style style, char *w, std::string_view text) noexcept
{
	if (style == Style::k242)
		return WriteJsonString<NonBmp::kSurrogateEscapes>(w, text.data(), text.size());
	return WriteJsonString(w, text.data(), text.size());
}

inline char *
PutJsonTimestamps(char *w, const DataValueRow &row, TimestampFormatter &timestamps) noexcept
{
	w = Put(w, ",\"created\":\"");
	w = timestamps.Write(w, row.created);
	w = Put(w, "\",\"lastUpdated\":\"");
	w = timestamps.Write(w, row.last_updated);
	*w++ = '"';
	return w;
}

} // namespace

DocumentWriter::DocumentWriter(DocumentOptions options) : options_(std::move(options)) {}

std::string
DocumentWriter::RenderFragment(IdKind kind, std::optional<std::string_view> text, bool is_default) const
{
	const size_t k = static_cast<size_t>(kind);
	const bool omitted = (kind == IdKind::kPeriod && options_.omit_period) ||
	                     (kind == IdKind::kOrgUnit && options_.omit_org_unit) ||
	                     (kind == IdKind::kAttributeOptionCombo && options_.omit_attribute_option_combo);
	const bool excluded = is_default && ((kind == IdKind::kCategoryOptionCombo && options_.exclude_default_coc) ||
	                                     (kind == IdKind::kAttributeOptionCombo && options_.exclude_default_aoc));
	std::string out;
	if (options_.format == Format::kCsv) {
		/* CSV rows always carry the full key; only an excluded default combo becomes an empty field. */
		const std::string_view s = (excluded || !text) ? std::string_view() : *text;
		out.resize(CsvFieldMax(s.size()) + 1);
		char *w = WriteCsvField(out.data(), s.data(), s.size(), kind == IdKind::kDataElement);
		*w++ = ',';
		out.resize(static_cast<size_t>(w - out.data()));
		return out;
	}
	if (options_.style == Style::k242) {
		/* 2.42 writes every member; a missing identifier is null. */
		out.append(kJsonIdKey[k]);
		if (!text)
			out.append("null");
	} else {
		/* 2.43 leaves out hoisted, excluded and null members; the data element is always there. */
		if (kind != IdKind::kDataElement && (omitted || excluded || !text))
			return out;
		out.append(kJsonIdKey[k]);
		if (!text) {
			out.append("null");
			return out;
		}
	}
	if (text) {
		const size_t start = out.size();
		out.resize(start + JsonEscapedMax(text->size()) + 2);
		char *w = WriteStyledJsonString(options_.style, out.data() + start, *text);
		out.resize(static_cast<size_t>(w - out.data()));
	}
	return out;
}

uint32_t
DocumentWriter::AddIdentifier(IdKind kind, std::optional<std::string_view> text, bool is_default)
{
	FragmentTable &table = fragments_[static_cast<size_t>(kind)];
	const std::string fragment = RenderFragment(kind, text, is_default);
	table.bytes.append(fragment);
	table.offsets.push_back(static_cast<uint32_t>(table.bytes.size()));
	if (fragment.size() > table.max_length) {
		identifiers_max_ += fragment.size() - table.max_length;
		table.max_length = fragment.size();
	}
	return static_cast<uint32_t>(table.offsets.size() - 2);
}

void
DocumentWriter::Begin(OutputBuffer &out)
{
	if (options_.format == Format::kCsv) {
		out.Append(kCsvHeader);
		return;
	}
	out.Append('{');
	for (const HeaderMember &member : options_.header) {
		char *w = out.Reserve(member.key.size() + 8 + (member.value ? JsonEscapedMax(member.value->size()) : 0));
		w = WriteJsonString(w, member.key.data(), member.key.size());
		*w++ = ':';
		if (member.value)
			w = WriteStyledJsonString(options_.style, w, *member.value);
		else
			w = Put(w, "null");
		*w++ = ',';
		out.Commit(w);
	}
	out.Append("\"dataValues\":[");
}

void
DocumentWriter::End(OutputBuffer &out)
{
	if (options_.format == Format::kJson)
		out.Append("]}");
}

char *
DocumentWriter::WriteJsonRow243(char *w, const DataValueRow &row) const
{
	for (size_t k = 0; k < kIdKindCount; k++)
		w = Put(w, fragments_[k].Get(row.ids[k]));
	if (!row.value.is_null)
		w = PutJsonTextMember(w, ",\"value\":", row.value);
	if (!row.stored_by.is_null && row.stored_by.size > 0)
		w = PutJsonTextMember(w, ",\"storedBy\":", row.stored_by);
	w = PutJsonTimestamps(w, row, timestamps_);
	if (!row.comment.is_null && row.comment.size > 0)
		w = PutJsonTextMember(w, ",\"comment\":", row.comment);
	if (row.followup >= 0)
		w = Put(w, row.followup ? ",\"followup\":true" : ",\"followup\":false");
	if (row.deleted)
		w = Put(w, ",\"deleted\":true");
	*w++ = '}';
	return w;
}

char *
DocumentWriter::WriteJsonRow242(char *w, const DataValueRow &row) const
{
	for (size_t k = 0; k < kIdKindCount; k++)
		w = Put(w, fragments_[k].Get(row.ids[k]));
	const auto nullable = [&w](std::string_view key, const TextField &f) {
		if (f.is_null)
			w = Put(Put(w, key), "null");
		else
			w = PutJsonTextMember<NonBmp::kSurrogateEscapes>(w, key, f);
	};
	nullable(",\"value\":", row.value);
	nullable(",\"storedBy\":", row.stored_by);
	w = PutJsonTimestamps(w, row, timestamps_);
	nullable(",\"comment\":", row.comment);
	/* ResultSet.getBoolean: NULL reads as false. */
	w = Put(w, row.followup > 0 ? ",\"followup\":true" : ",\"followup\":false");
	if (row.deleted)
		w = Put(w, ",\"deleted\":true");
	*w++ = '}';
	return w;
}

char *
DocumentWriter::WriteCsvRow(char *w, const DataValueRow &row) const
{
	for (size_t k = 0; k < kIdKindCount; k++)
		w = Put(w, fragments_[k].Get(row.ids[k]));
	w = WriteCsvField(w, row.value.data, row.value.is_null ? 0 : row.value.size, false);
	*w++ = ',';
	w = WriteCsvField(w, row.stored_by.data, row.stored_by.is_null ? 0 : row.stored_by.size, false);
	*w++ = ',';
	w = timestamps_.Write(w, row.last_updated);
	*w++ = ',';
	w = WriteCsvField(w, row.comment.data, row.comment.is_null ? 0 : row.comment.size, false);
	*w++ = ',';
	if (options_.style == Style::k243) {
		/* 2.43: followup true/false/empty; deleted true/false. */
		if (row.followup >= 0)
			w = Put(w, row.followup ? "true" : "false");
		w = Put(w, row.deleted ? ",true\n" : ",false\n");
	} else {
		/* 2.42: followup NULL reads as false; deleted is a true-or-null Boolean printed with String.valueOf. */
		w = Put(w, row.followup > 0 ? "true" : "false");
		w = Put(w, row.deleted ? ",true\n" : ",null\n");
	}
	return w;
}

size_t
DocumentWriter::RowBytesMax(const DataValueRow &row) const noexcept
{
	const size_t need = kRowFixedMax + identifiers_max_;
	const size_t texts = (row.value.is_null ? 0 : row.value.size) + (row.stored_by.is_null ? 0 : row.stored_by.size) +
	                     (row.comment.is_null ? 0 : row.comment.size);
	/* Three CSV fields of n bytes in all need at most 2n + 6; JSON escaping at most 6n. */
	return need + (options_.format == Format::kCsv ? 2 * texts + 6 : JsonEscapedMax(texts) + 6);
}

char *
DocumentWriter::WriteRowBody(char *w, const DataValueRow &row) const
{
	if (options_.format == Format::kCsv)
		return WriteCsvRow(w, row);
	return options_.style == Style::k243 ? WriteJsonRow243(w, row) : WriteJsonRow242(w, row);
}

void
DocumentWriter::WriteRow(const DataValueRow &row, OutputBuffer &out)
{
	char *w = out.Reserve(RowBytesMax(row) + 1);
	if (rows_ > 0 && options_.format == Format::kJson)
		*w++ = ',';
	out.Commit(WriteRowBody(w, row));
	rows_++;
}

} // namespace datavalue_export::core
