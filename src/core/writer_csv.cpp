/*
 * src/core/writer_csv.cpp
 *	  DHIS2 dataValueSets CSV, in the 2.43 and 2.42 shapes; see writer.hpp.
 *
 * DHIS2 writes CSV with javacsv's CsvWriter (trimming, quoting, "\n" line ends) under a fixed
 * header; rows always carry every identifier (no hoisting). The styles differ only in the
 * followup and deleted columns; the style is a template parameter, so a row is rendered without
 * a style test.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <memory>

#include "core/escape.hpp"
#include "core/writer.hpp"

namespace datavalue_export::core {

namespace {

constexpr std::string_view kCsvHeader =
    "dataelement,period,orgunit,categoryoptioncombo,attributeoptioncombo,value,storedby,lastupdated,comment,"
    "followup,deleted\n";

/* Bytes a row needs beyond its identifiers and fields: commas, a timestamp, booleans. */
constexpr size_t kRowFixedMax = 256;

template <Style kStyle>
class CsvWriter final : public Writer {
  public:
	using Writer::Writer;

	std::unique_ptr<Writer> ForkForLaterRows() const override { return ForkOf(*this); }

	void Begin(OutputBuffer &out) override { out.Append(kCsvHeader); }

	void WriteRow(const DataValueRow &row, OutputBuffer &out) override
	{
		const size_t texts = (row.value.is_null ? 0 : row.value.size) +
		                     (row.stored_by.is_null ? 0 : row.stored_by.size) +
		                     (row.comment.is_null ? 0 : row.comment.size);
		/* Three CSV fields of n bytes in all need at most 2n + 6. */
		char *w = out.Reserve(kRowFixedMax + fragments_->MaxTotal() + 2 * texts + 6 + 1);
		out.Commit(WriteLine(w, row));
		rows_++;
	}

	void End(OutputBuffer & /* out */) override {}

  protected:
	std::string RenderIdentifier(IdKind kind, std::optional<std::string_view> text, bool is_default) const override
	{
		/* CSV rows always carry the full key; only an excluded default combo becomes an empty field. */
		const std::string_view s = (Excluded(kind, is_default) || !text) ? std::string_view() : *text;
		std::string out;
		out.resize(CsvFieldMax(s.size()) + 1);
		char *w = WriteCsvField(out.data(), s.data(), s.size(), kind == IdKind::kDataElement);
		*w++ = ',';
		out.resize(static_cast<size_t>(w - out.data()));
		return out;
	}

  private:
	char *WriteLine(char *w, const DataValueRow &row) const noexcept
	{
		w = fragments_->PutAll(w, row);
		w = WriteCsvField(w, row.value.data, row.value.is_null ? 0 : row.value.size, false);
		*w++ = ',';
		w = WriteCsvField(w, row.stored_by.data, row.stored_by.is_null ? 0 : row.stored_by.size, false);
		*w++ = ',';
		w = timestamps_.Write(w, row.last_updated);
		*w++ = ',';
		w = WriteCsvField(w, row.comment.data, row.comment.is_null ? 0 : row.comment.size, false);
		*w++ = ',';
		if constexpr (kStyle == Style::k243) {
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
};

} // namespace

std::unique_ptr<Writer>
MakeCsvWriter(const DocumentOptions &options)
{
	if (options.style == Style::k242)
		return std::make_unique<CsvWriter<Style::k242>>(options);
	return std::make_unique<CsvWriter<Style::k243>>(options);
}

} // namespace datavalue_export::core
