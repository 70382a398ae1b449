/*
 * src/core/writer_xml.cpp
 *	  DHIS2 dataValueSets DXF2 XML, in the 2.43 and 2.42 shapes; see writer.hpp.
 *
 * The bytes are those of staxwax 2.0.0 over Woodstox (escaping in core/escape_xml.hpp): the
 * declaration <?xml version='1.0' encoding='UTF-8'?> with single quotes, no whitespace or
 * newline anywhere, attributes in call order, empty elements as <name .../>.
 *
 * 2.42 (dhis2-core 2.42 XmlDataValueSetWriter): every non-null attribute, empty strings kept,
 * followUp always ("false" for NULL), deleted="true" only for deleted values; header dataSet,
 * completeDate, period, orgUnit for a single data value set.
 * 2.43 (dhis2-core 2.43 DataExportOutput.toXml): the JSON group's hoisting and id-scheme header
 * attributes; storedBy and comment left out when empty, followUp only when true. 2.43 writes the
 * header period in ADX notation (2024-01-01/P1M), which its own DXF2 reader does not accept;
 * this writer keeps the ISO period there (README, Differences from DHIS2).
 *
 * Characters XML 1.0 cannot carry are written as U+FFFD (escape_xml.hpp). The style is a
 * template parameter, so a row is rendered without a style test.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <memory>

#include "core/escape_xml.hpp"
#include "core/writer.hpp"

namespace datavalue_export::core {

namespace {

constexpr std::string_view kXmlDeclaration = "<?xml version='1.0' encoding='UTF-8'?>";
constexpr std::string_view kRootOpen = "<dataValueSet xmlns=\"http://dhis2.org/schema/dxf/2.0\"";

/* The attribute name of each identifier kind, with the space before it and the opening quote. */
constexpr std::string_view kXmlIdAttribute[kIdKindCount] = {
    " dataElement=\"", " period=\"", " orgUnit=\"", " categoryOptionCombo=\"", " attributeOptionCombo=\"",
};

/* Bytes a row needs beyond its identifiers and escaped texts: the element, names, two timestamps, flags. */
constexpr size_t kRowFixedMax = 256;

/* One attribute ` name="escaped"`. Reserve name.size() + XmlEscapedMax(n) + 4. */
inline char *
PutXmlAttribute(char *w, std::string_view name, const char *s, size_t n) noexcept
{
	*w++ = ' ';
	w = Put(w, name);
	*w++ = '=';
	*w++ = '"';
	w = EscapeXmlAttribute(w, s, n);
	*w++ = '"';
	return w;
}

template <Style kStyle>
class XmlWriter final : public Writer {
  public:
	using Writer::Writer;

	std::unique_ptr<Writer> ForkForLaterRows() const override { return ForkOf(*this); }

	void Begin(OutputBuffer &out) override
	{
		out.Append(kXmlDeclaration);
		out.Append(kRootOpen);
		for (const HeaderMember &member : options_.header) {
			/* staxwax skips an attribute whose value is null. */
			if (!member.value)
				continue;
			char *w = out.Reserve(member.key.size() + XmlEscapedMax(member.value->size()) + 4);
			out.Commit(PutXmlAttribute(w, member.key, member.value->data(), member.value->size()));
		}
	}

	void WriteRow(const DataValueRow &row, OutputBuffer &out) override
	{
		const size_t texts = (row.value.is_null ? 0 : row.value.size) +
		                     (row.stored_by.is_null ? 0 : row.stored_by.size) +
		                     (row.comment.is_null ? 0 : row.comment.size);
		char *w = out.Reserve(kRowFixedMax + fragments_->MaxTotal() + XmlEscapedMax(texts));
		if (rows_ == 0)
			*w++ = '>'; /* the root start tag stays open until the first value (empty root: />) */
		out.Commit(WriteValue(w, row));
		rows_++;
	}

	void End(OutputBuffer &out) override { out.Append(rows_ == 0 ? std::string_view("/>") : "</dataValueSet>"); }

  protected:
	std::string RenderIdentifier(IdKind kind, std::optional<std::string_view> text, bool is_default) const override
	{
		/* A null identifier is skipped like any null attribute; 2.42 never hoists or excludes (PrepareDocument). */
		if (!text || Omitted(kind) || Excluded(kind, is_default))
			return {};
		const std::string_view name = kXmlIdAttribute[static_cast<size_t>(kind)];
		std::string out;
		out.resize(name.size() + XmlEscapedMax(text->size()) + 1);
		char *end = EscapeXmlAttribute(Put(out.data(), name), text->data(), text->size());
		*end++ = '"';
		out.resize(static_cast<size_t>(end - out.data()));
		return out;
	}

  private:
	char *PutTimestamps(char *w, const DataValueRow &row) const noexcept
	{
		w = Put(w, " created=\"");
		w = timestamps_.Write(w, row.created);
		w = Put(w, "\" lastUpdated=\"");
		w = timestamps_.Write(w, row.last_updated);
		*w++ = '"';
		return w;
	}

	/* One <dataValue .../> element. */
	char *WriteValue(char *w, const DataValueRow &row) const noexcept
	{
		w = Put(w, "<dataValue");
		w = fragments_->PutAll(w, row);
		if (!row.value.is_null)
			w = PutXmlAttribute(w, "value", row.value.data, row.value.size);
		if constexpr (kStyle == Style::k243) {
			if (!row.stored_by.is_null && row.stored_by.size > 0)
				w = PutXmlAttribute(w, "storedBy", row.stored_by.data, row.stored_by.size);
			w = PutTimestamps(w, row);
			if (!row.comment.is_null && row.comment.size > 0)
				w = PutXmlAttribute(w, "comment", row.comment.data, row.comment.size);
			if (row.followup > 0)
				w = Put(w, " followUp=\"true\"");
		} else {
			if (!row.stored_by.is_null)
				w = PutXmlAttribute(w, "storedBy", row.stored_by.data, row.stored_by.size);
			w = PutTimestamps(w, row);
			if (!row.comment.is_null)
				w = PutXmlAttribute(w, "comment", row.comment.data, row.comment.size);
			/* ResultSet.getBoolean: NULL reads as false, and 2.42 always writes the attribute. */
			w = Put(w, row.followup > 0 ? " followUp=\"true\"" : " followUp=\"false\"");
		}
		if (row.deleted)
			w = Put(w, " deleted=\"true\"");
		return Put(w, "/>");
	}
};

} // namespace

std::unique_ptr<Writer>
MakeXmlWriter(const DocumentOptions &options)
{
	if (options.style == Style::k242)
		return std::make_unique<XmlWriter<Style::k242>>(options);
	return std::make_unique<XmlWriter<Style::k243>>(options);
}

} // namespace datavalue_export::core
