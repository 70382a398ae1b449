/*
 * src/core/writer_json.cpp
 *	  DHIS2 dataValueSets JSON, in the 2.43 and 2.42 shapes; see writer.hpp.
 *
 * 2.43 (dhis2-core 2.43 DataValueSetJsonWriter): null members and empty storedBy/comment left
 * out, members hoisted into the header left out of each value. 2.42 (the Jackson-serialised
 * DataValueSet of 2.42): every member, null when empty. The style is a template parameter, so
 * a row is rendered without a style test.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <memory>

#include "core/escape.hpp"
#include "core/writer.hpp"

namespace datavalue_export::core {

namespace {

/* The JSON key of each identifier kind, with the punctuation that precedes it in a value object. */
constexpr std::string_view kJsonIdKey[kIdKindCount] = {
    "{\"dataElement\":", ",\"period\":", ",\"orgUnit\":", ",\"categoryOptionCombo\":", ",\"attributeOptionCombo\":",
};

/* Bytes a row needs beyond its identifiers and escaped texts: keys, two timestamps, booleans. */
constexpr size_t kRowFixedMax = 256;

template <NonBmp kNonBmp = NonBmp::kRaw>
inline char *
PutJsonTextMember(char *w, std::string_view key, const TextField &f) noexcept
{
	w = Put(w, key);
	return WriteJsonString<kNonBmp>(w, f.data, f.size);
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

template <Style kStyle>
class JsonWriter final : public Writer {
	/* 2.42's Jackson escapes characters outside the BMP as surrogate pairs; 2.43 writes them raw (escape.hpp). */
	static constexpr NonBmp kNonBmp = kStyle == Style::k242 ? NonBmp::kSurrogateEscapes : NonBmp::kRaw;

  public:
	using Writer::Writer;

	std::unique_ptr<Writer> ForkForLaterRows() const override { return ForkOf(*this); }

	void Begin(OutputBuffer &out) override
	{
		out.Append('{');
		for (const HeaderMember &member : options_.header) {
			char *w = out.Reserve(member.key.size() + 8 + (member.value ? JsonEscapedMax(member.value->size()) : 0));
			w = WriteJsonString(w, member.key.data(), member.key.size());
			*w++ = ':';
			if (member.value)
				w = WriteJsonString<kNonBmp>(w, member.value->data(), member.value->size());
			else
				w = Put(w, "null");
			*w++ = ',';
			out.Commit(w);
		}
		out.Append("\"dataValues\":[");
	}

	void WriteRow(const DataValueRow &row, OutputBuffer &out) override
	{
		const size_t texts = (row.value.is_null ? 0 : row.value.size) +
		                     (row.stored_by.is_null ? 0 : row.stored_by.size) +
		                     (row.comment.is_null ? 0 : row.comment.size);
		char *w = out.Reserve(kRowFixedMax + fragments_->MaxTotal() + JsonEscapedMax(texts) + 6 + 1);
		if (rows_ > 0)
			*w++ = ',';
		out.Commit(WriteValue(w, row));
		rows_++;
	}

	void End(OutputBuffer &out) override { out.Append("]}"); }

  protected:
	std::string RenderIdentifier(IdKind kind, std::optional<std::string_view> text, bool is_default) const override
	{
		const size_t k = static_cast<size_t>(kind);
		std::string out;
		if constexpr (kStyle == Style::k242) {
			/* 2.42 writes every member; a missing identifier is null. */
			out.append(kJsonIdKey[k]);
			if (!text)
				out.append("null");
		} else {
			/* 2.43 leaves out hoisted, excluded and null members; the data element is always there. */
			if (kind != IdKind::kDataElement && (Omitted(kind) || Excluded(kind, is_default) || !text))
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
			char *w = WriteJsonString<kNonBmp>(out.data() + start, text->data(), text->size());
			out.resize(static_cast<size_t>(w - out.data()));
		}
		return out;
	}

  private:
	/* One value object, without the separating comma. */
	char *WriteValue(char *w, const DataValueRow &row) const noexcept
	{
		w = fragments_->PutAll(w, row);
		if constexpr (kStyle == Style::k243) {
			if (!row.value.is_null)
				w = PutJsonTextMember(w, ",\"value\":", row.value);
			if (!row.stored_by.is_null && row.stored_by.size > 0)
				w = PutJsonTextMember(w, ",\"storedBy\":", row.stored_by);
			w = PutJsonTimestamps(w, row, timestamps_);
			if (!row.comment.is_null && row.comment.size > 0)
				w = PutJsonTextMember(w, ",\"comment\":", row.comment);
			if (row.followup >= 0)
				w = Put(w, row.followup ? ",\"followup\":true" : ",\"followup\":false");
		} else {
			const auto nullable = [&w](std::string_view key, const TextField &f) {
				if (f.is_null)
					w = Put(Put(w, key), "null");
				else
					w = PutJsonTextMember<kNonBmp>(w, key, f);
			};
			nullable(",\"value\":", row.value);
			nullable(",\"storedBy\":", row.stored_by);
			w = PutJsonTimestamps(w, row, timestamps_);
			nullable(",\"comment\":", row.comment);
			/* ResultSet.getBoolean: NULL reads as false. */
			w = Put(w, row.followup > 0 ? ",\"followup\":true" : ",\"followup\":false");
		}
		if (row.deleted)
			w = Put(w, ",\"deleted\":true");
		*w++ = '}';
		return w;
	}
};

} // namespace

std::unique_ptr<Writer>
MakeJsonWriter(const DocumentOptions &options)
{
	if (options.style == Style::k242)
		return std::make_unique<JsonWriter<Style::k242>>(options);
	return std::make_unique<JsonWriter<Style::k243>>(options);
}

} // namespace datavalue_export::core
