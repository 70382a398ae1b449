/*
 * src/core/writer.hpp
 *	  The document writer interface: one implementation per output format, made by MakeWriter.
 *
 * A writer renders a DHIS2 dataValueSets document row by row. Identifiers (data element, period,
 * org unit, option combos) are registered once per export and pre-rendered by the format as the
 * exact bytes they contribute to a row, key and escaping included (core/writer_fragments.hpp), so
 * the per-row work is a handful of memcpy calls plus escaping of value, storedBy and comment.
 * The export calls Begin, then WriteRow per value (BeginGroup/EndGroup around each group for
 * formats that group values), then End. WriteRow is the one virtual call per row; the row body is
 * non-virtual code of the final format class.
 *
 * Adding a format: a writer_<format>.cpp with a Make<Format>Writer, an enum value in
 * core/model.hpp, a line in MakeWriter and CarriesHeader (writer.cpp).
 *
 * The shape rules (which members appear, nulls, hoisting, CSV columns) follow DHIS2's
 * DataValueSetService writers (dhis2-core dhis-services/dhis-service-dxf2, 2.42 and 2.43).
 *
 * May throw std::bad_alloc only.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.hpp"
#include "core/output_buffer.hpp"
#include "core/timestamp.hpp"
#include "core/writer_fragments.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* One top-level document member before the values; a nullopt value is written as null. */
struct HeaderMember {
	std::string key;
	std::optional<std::string> value;
};

struct DocumentOptions {
	Format format = Format::kJson;
	Style style = Style::k243;
	std::vector<HeaderMember> header; /* formats with CarriesHeader only, in output order */
	/* 2.43: members hoisted into the header are left out of every value. */
	bool omit_period = false;
	bool omit_org_unit = false;
	bool omit_attribute_option_combo = false;
	/* excludeDefaultCoc / excludeDefaultAoc: the default combo is left out (empty CSV field). */
	bool exclude_default_coc = false;
	bool exclude_default_aoc = false;
	/* Grouping formats (ADX): the data set identifier of each group, by BeginGroup's data_set index. */
	std::vector<std::optional<std::string>> data_sets;
	/* ADX: the root's exported attribute (xs:dateTime), written when non-empty. */
	std::string exported;
};

class Writer {
  public:
	explicit Writer(DocumentOptions options);
	virtual ~Writer() = default;
	Writer &operator=(const Writer &) = delete;

	/*
	 * A writer for rows that follow others, made once every identifier is added: it renders a
	 * row exactly as this one would after at least one row, with its own per-row state (the
	 * timestamp cache), so a second thread can render a part of the rows while this one renders
	 * another (core/render_thread.hpp). nullptr for formats whose rows depend on the rows before
	 * them (ADX's groups).
	 */
	virtual std::unique_ptr<Writer> ForkForLaterRows() const { return nullptr; }
	/* Count the rows a fork rendered as this writer's (End depends on whether there were any). */
	void CountForkRows(const Writer &fork) noexcept { rows_ += fork.rows_ - 1; }

	/*
	 * Register one identifier of a kind; returns its index for DataValueRow::ids. A nullopt
	 * text is an object without a value under the output id scheme (2.42 writes null).
	 * is_default marks the default category option combo (excludeDefault*).
	 */
	uint32_t AddIdentifier(IdKind kind, std::optional<std::string_view> text, bool is_default = false,
	                       const IdentifierDetail *detail = nullptr);

	virtual void Begin(OutputBuffer &out) = 0;
	/*
	 * Hooks for formats that group values (ADX groups by data set, period, org unit and
	 * attribute option combo): called before the first and after the last row of a group; first
	 * is the group's first row, which carries its key, and data_set indexes
	 * DocumentOptions::data_sets. JSON and CSV do not group.
	 */
	virtual void BeginGroup(const DataValueRow & /* first */, uint32_t /* data_set */, OutputBuffer & /* out */) {}
	virtual void EndGroup(OutputBuffer & /* out */) {}
	virtual void WriteRow(const DataValueRow &row, OutputBuffer &out) = 0;
	virtual void End(OutputBuffer &out) = 0;

	uint64_t Rows() const noexcept { return rows_; }
	/* How many identifiers of kind this writer renders (AddIdentifier). */
	size_t IdentifierCount(IdKind kind) const noexcept { return fragments_->Count(kind); }

  protected:
	/* For ForkOf only: a writer is copied whole; the copy shares the identifier fragments. */
	Writer(const Writer &) = default;

	/* ForkForLaterRows of a format whose rows stand alone: a copy that has written one row. */
	template <typename Format>
	static std::unique_ptr<Writer> ForkOf(const Format &writer)
	{
		std::unique_ptr<Format> fork(new Format(writer));
		fork->rows_ = 1;
		return fork;
	}

	/* The bytes one identifier contributes to every row that references it. */
	virtual std::string RenderIdentifier(IdKind kind, std::optional<std::string_view> text, bool is_default) const = 0;
	/* Formats that need more than the text (ADX) override this; the default ignores detail. */
	virtual std::string RenderDetailed(IdKind kind, std::optional<std::string_view> text, bool is_default,
	                                   const IdentifierDetail * /* detail */)
	{
		return RenderIdentifier(kind, text, is_default);
	}

	/* Hoisted into the header (2.43), so left out of each value. */
	bool Omitted(IdKind kind) const noexcept;
	/* The default combo under excludeDefaultCoc / excludeDefaultAoc. */
	bool Excluded(IdKind kind, bool is_default) const noexcept;

	const DocumentOptions options_;
	/*
	 * Shared by a writer and its forks (ForkForLaterRows): only read once the identifiers are
	 * added, so the render thread's fork does not copy a country's tables (about 10 MB for 329k
	 * org units). AddIdentifier on a shared table copies it first.
	 */
	std::shared_ptr<IdentifierFragments> fragments_ = std::make_shared<IdentifierFragments>();
	mutable TimestampFormatter timestamps_;
	uint64_t rows_ = 0;
};

/* The writer of options.format. */
std::unique_ptr<Writer> MakeWriter(const DocumentOptions &options);

/* Whether a format writes DocumentOptions::header (DHIS2's top-level members; JSON does, CSV not). */
bool CarriesHeader(Format format) noexcept;

/* One per format, in writer_<format>.cpp; callers use MakeWriter. */
std::unique_ptr<Writer> MakeJsonWriter(const DocumentOptions &options);
std::unique_ptr<Writer> MakeCsvWriter(const DocumentOptions &options);
std::unique_ptr<Writer> MakeXmlWriter(const DocumentOptions &options);
std::unique_ptr<Writer> MakeAdxWriter(const DocumentOptions &options);

/* Whether a format groups values (BeginGroup/EndGroup; ADX). */
bool GroupsValues(Format format) noexcept;

} // namespace datavalue_export::core
