/*
 * src/core/validate.hpp
 *	  Turns a raw ExportRequest into a checked, typed ExportPlan, in DHIS2 2.43's order.
 *
 * DHIS2 2.43 checks a request in three stages and the first failure wins:
 *   1. parameter binding: id schemes, enums, numbers (HTTP 400 in DHIS2);
 *   2. decoding: UID format of every identifier, ISO periods, lastUpdatedDuration (E2005);
 *   3. validateFilters: E2001, E2002, E2006, E2003, E2004, E2007, E2009.
 * Our own options (style, compression) are checked with the binding stage. Existence of the
 * named objects needs the database and is checked later by src/pg.
 *
 * May throw core::Error and std::bad_alloc.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/gzip.hpp"
#include "core/period.hpp"
#include "core/model.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* DHIS2 UID: 11 characters, a letter then letters or digits. */
bool IsValidUid(std::string_view text) noexcept;

enum class IdSchemeType { kUid, kCode, kName, kAttribute };

struct IdScheme {
	IdSchemeType type = IdSchemeType::kUid;
	std::string attribute; /* the attribute UID for kAttribute */
	/*
	 * An input scheme only: UID by default under inputUseCodeFallback, so identifiers that are not
	 * UIDs are looked up as codes. DHIS2 does so only where no input scheme was given.
	 */
	bool code_fallback = false;

	bool IsUid() const noexcept { return type == IdSchemeType::kUid; }
	/* DHIS2's spelling in the ...IdScheme header keys: CODE, NAME, ATTRIBUTE:<uid>. */
	std::string Label() const;
};

/* Parse an output id scheme as 2.43 does (UID|ID, CODE, NAME, ATTRIBUTE:<uid>; case-insensitive). */
IdScheme ParseOutputIdScheme(std::string_view text);
/*
 * Parse an input id scheme as DHIS2 binds its IdentifiableProperty enum (UID|ID, CODE, NAME;
 * ATTRIBUTE and UUID bind but are refused, as in 2.43); parameter names it in the error.
 */
IdScheme ParseInputIdScheme(std::string_view text, std::string_view parameter = "inputIdScheme");

enum class OrderKey { kDataElement, kOrgUnit, kPeriod, kCreated, kAttributeOptionCombo };

struct ExportPlan {
	ExportRequest request; /* the request as given, lists de-duplicated */
	Style style = Style::k243;

	bool gzip = false;
	bool zip = false;           /* compression=zip: one entry, deflated like gzip (gzip_engine, gzip_level) */
	std::string zip_entry_name; /* that entry's name (ZipEntryName), checked to fit the zip header */
	GzipEngine gzip_engine = GzipEngine::kIsal;
	int gzip_level = 1;

	/* Normalised ISO text and dates of each requested period, in request order. */
	std::vector<Period> periods;
	std::vector<std::string> period_iso;

	/* Output id schemes after fallbacks (per-type scheme, else idScheme, else UID). */
	IdScheme data_element_scheme;
	IdScheme org_unit_scheme;
	IdScheme category_option_combo_scheme;
	IdScheme attribute_option_combo_scheme;
	IdScheme data_set_scheme;
	/* ADX: category attribute names and values (categoryIdScheme, categoryOptionIdScheme). */
	IdScheme category_scheme;
	IdScheme category_option_scheme;

	/* Input id schemes after fallbacks (per-type scheme, else inputIdScheme, else UID). */
	IdScheme input_data_element_scheme;
	IdScheme input_data_set_scheme;
	IdScheme input_data_element_group_scheme;
	IdScheme input_org_unit_scheme;
	IdScheme input_other_scheme; /* org unit groups, option combos: inputIdScheme */

	/* lastUpdatedDuration in microseconds; the cutoff is now() minus this. */
	std::optional<int64_t> last_updated_duration_us;

	/* Sort keys; empty with unordered = true means no ORDER BY at all. */
	std::vector<OrderKey> order;
	bool unordered = false;
};

ExportPlan ValidateRequest(ExportRequest request);

/*
 * Drop repeats, keeping each value's first place: a filter's identifiers as given, and the
 * objects they resolve to (one data set named by its UID and by its code is one data set).
 */
template <typename T>
void
DeduplicateKeepingFirst(std::vector<T> &values)
{
	std::unordered_set<T> seen;
	std::vector<T> out;
	for (T &v : values)
		if (seen.insert(v).second)
			out.push_back(std::move(v));
	values.swap(out);
}

/* Format a DHIS2 ErrorCode message: "E2001: At least one ...". */
std::string Dhis2Message(std::string_view code, std::string_view text);

} // namespace datavalue_export::core
