/*
 * src/core/document_writer.hpp
 *	  Renders a DHIS2 dataValueSets document (JSON or CSV, 2.43 or 2.42 shape) row by row.
 *
 * Identifiers (data element, period, org unit, option combos) are registered once per export
 * and pre-rendered as the exact bytes they contribute to a row, key and escaping included, so
 * the per-row work is a handful of memcpy calls plus escaping of value, storedBy and comment.
 * The shape rules (which members appear, nulls, hoisting, CSV columns) are in
 * docs of the project README and ../shared/docs/dhis2-export-format.md §4-5.
 *
 * May throw std::bad_alloc only.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/output_buffer.hpp"
#include "core/request.hpp"
#include "core/timestamp.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

enum class Style { k243, k242 };

enum class IdKind : uint8_t {
	kDataElement,
	kPeriod,
	kOrgUnit,
	kCategoryOptionCombo,
	kAttributeOptionCombo,
};
inline constexpr size_t kIdKindCount = 5;

/* A possibly NULL text column of the current row; points into tuple memory for one row only. */
struct TextField {
	const char *data = nullptr;
	size_t size = 0;
	bool is_null = true;
};

/* One data value, with identifiers already resolved to the indexes AddIdentifier returned. */
struct DataValueRow {
	uint32_t ids[kIdKindCount];
	TextField value;
	TextField stored_by;
	TextField comment;
	int64_t created;      /* PostgreSQL timestamp (microseconds since 2000-01-01) */
	int64_t last_updated; /* idem */
	int8_t followup;      /* -1 = NULL, 0 = false, 1 = true */
	bool deleted;
};

/* One top-level JSON member before "dataValues"; a nullopt value is written as JSON null. */
struct HeaderMember {
	std::string key;
	std::optional<std::string> value;
};

struct DocumentOptions {
	Format format = Format::kJson;
	Style style = Style::k243;
	std::vector<HeaderMember> header; /* JSON only, in output order */
	/* JSON 2.43: members hoisted into the header are left out of every value. */
	bool omit_period = false;
	bool omit_org_unit = false;
	bool omit_attribute_option_combo = false;
	/* excludeDefaultCoc / excludeDefaultAoc: the default combo is left out (empty CSV field). */
	bool exclude_default_coc = false;
	bool exclude_default_aoc = false;
};

class DocumentWriter {
  public:
	explicit DocumentWriter(DocumentOptions options);

	/*
	 * Register one identifier of a kind; returns its index for DataValueRow::ids. A nullopt
	 * text is an object without a value under the output id scheme (2.42 writes null).
	 * is_default marks the default category option combo (excludeDefault*).
	 */
	uint32_t AddIdentifier(IdKind kind, std::optional<std::string_view> text, bool is_default = false);

	void Begin(OutputBuffer &out);
	void WriteRow(const DataValueRow &row, OutputBuffer &out);
	void End(OutputBuffer &out);

	uint64_t Rows() const noexcept { return rows_; }

  private:
	struct FragmentTable {
		std::string bytes;
		std::vector<uint32_t> offsets{0}; /* fragment i is bytes[offsets[i], offsets[i+1]) */
		size_t max_length = 0;
		std::string_view Get(uint32_t i) const noexcept
		{
			return std::string_view(bytes).substr(offsets[i], offsets[i + 1] - offsets[i]);
		}
	};

	std::string RenderFragment(IdKind kind, std::optional<std::string_view> text, bool is_default) const;
	char *WriteJsonRow243(char *w, const DataValueRow &row) const;
	char *WriteJsonRow242(char *w, const DataValueRow &row) const;
	char *WriteCsvRow(char *w, const DataValueRow &row) const;
	char *WriteRowBody(char *w, const DataValueRow &row) const;
	size_t RowBytesMax(const DataValueRow &row) const noexcept;

	DocumentOptions options_;
	FragmentTable fragments_[kIdKindCount];
	size_t identifiers_max_ = 0; /* sum of the longest fragment of each kind */
	mutable TimestampFormatter timestamps_;
	uint64_t rows_ = 0;
};

} // namespace datavalue_export::core
