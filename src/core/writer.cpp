/*
 * src/core/writer.cpp
 *	  The writer base class and the format factory; see writer.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/writer.hpp"

#include <utility>

namespace datavalue_export::core {

Writer::Writer(DocumentOptions options) : options_(std::move(options)) {}

uint32_t
Writer::AddIdentifier(IdKind kind, std::optional<std::string_view> text, bool is_default,
                      const IdentifierDetail *detail)
{
	if (fragments_.use_count() > 1)
		fragments_ = std::make_shared<IdentifierFragments>(*fragments_);
	return fragments_->Add(kind, RenderDetailed(kind, text, is_default, detail));
}

bool
Writer::Omitted(IdKind kind) const noexcept
{
	return (kind == IdKind::kPeriod && options_.omit_period) || (kind == IdKind::kOrgUnit && options_.omit_org_unit) ||
	       (kind == IdKind::kAttributeOptionCombo && options_.omit_attribute_option_combo);
}

bool
Writer::Excluded(IdKind kind, bool is_default) const noexcept
{
	return is_default && ((kind == IdKind::kCategoryOptionCombo && options_.exclude_default_coc) ||
	                      (kind == IdKind::kAttributeOptionCombo && options_.exclude_default_aoc));
}

std::unique_ptr<Writer>
MakeWriter(const DocumentOptions &options)
{
	switch (options.format) {
	case Format::kJson:
		return MakeJsonWriter(options);
	case Format::kCsv:
		return MakeCsvWriter(options);
	case Format::kXml:
		return MakeXmlWriter(options);
	case Format::kAdx:
		return MakeAdxWriter(options);
	}
	return nullptr; /* unreachable: every Format has a case */
}

bool
CarriesHeader(Format format) noexcept
{
	switch (format) {
	case Format::kJson:
		return true;
	case Format::kCsv:
	case Format::kAdx:
		return false;
	case Format::kXml:
		return true;
	}
	return false;
}

bool
GroupsValues(Format format) noexcept
{
	return format == Format::kAdx;
}

} // namespace datavalue_export::core
