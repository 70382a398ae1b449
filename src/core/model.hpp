/*
 * src/core/model.hpp
 *	  The vocabulary every stage of an export shares: formats, styles, identifier kinds, one
 *	  data value row, and the export request as the user gave it.
 *
 * ExportRequest: both entry points fill it, the named SQL parameters of export_datavalues_json/_csv
 * (src/pg/arguments.cpp) and the DHIS2 query string of export_datavalues(query)
 * (core/query_string), both through the one parameter table (core/parameters). Fields that DHIS2
 * validates with its own rules (id schemes, order, compression, style) are kept as the raw text
 * here and checked by ValidateRequest (core/validate), so both paths give the same errors in the
 * same order.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* Output document format; each has one writer (core/writer_<format>.cpp, MakeWriter). */
enum class Format { kJson, kCsv, kXml, kAdx };

/* The DHIS2 version whose output shape is reproduced. */
enum class Style { k243, k242 };

/* The identifier columns of a data value, in output order. */
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

/* One data value, with identifiers already resolved to the indexes Writer::AddIdentifier returned. */
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

/* ADX: one category -> option pair of an option combo, each under its output id scheme (nullopt = none). */
struct CategoryPair {
	std::optional<std::string> category;
	std::optional<std::string> option;
	std::string category_name; /* for messages */
};

/* What a format may need about an identifier beyond its text (ADX: category pairs, value type). */
struct IdentifierDetail {
	std::vector<CategoryPair> categories; /* option combos, in the combo's category order */
	bool non_numeric = false;             /* data elements: value type outside ValueType.NUMERIC_TYPES */
};

struct ExportRequest {
	Format format = Format::kJson;

	/* Data selection (DHIS2: dataSet, dataElement, dataElementGroup). */
	std::vector<std::string> data_set;
	std::vector<std::string> data_element;
	std::vector<std::string> data_element_group;

	/* Time selection. Dates are PostgreSQL day numbers (days since 2000-01-01). */
	std::vector<std::string> period;
	std::optional<int32_t> start_date;
	std::optional<int32_t> end_date;
	/*
	 * The instants a query string's startDate and endDate name, with their time of day (the same
	 * microseconds as last_updated): DHIS2 compares these for E2004. Unset from SQL (a date).
	 */
	std::optional<int64_t> start_instant;
	std::optional<int64_t> end_instant;
	/* PostgreSQL timestamp: microseconds since 2000-01-01 00:00, wall time. */
	std::optional<int64_t> last_updated;
	std::optional<std::string> last_updated_duration;

	/* Org unit selection. */
	std::vector<std::string> org_unit;
	std::vector<std::string> org_unit_group;
	bool children = false;
	std::optional<int32_t> level;

	/* Option combos. */
	std::vector<std::string> attribute_option_combo;
	std::vector<std::string> category_option_combo;
	std::optional<std::string> attribute_combo;
	std::vector<std::string> attribute_options;

	bool include_deleted = false;

	/* Paging and order. */
	std::optional<int64_t> limit;
	std::optional<int64_t> offset;
	std::optional<std::string> order; /* "DE,OU,PE,CREATED,AOC" list, or "none" */
	bool order_by_period = false;

	bool exclude_default_coc = false;
	bool exclude_default_aoc = false;
	/* unfoldOptionCombos, query string only: ADX needs true (its default), JSON and CSV false. */
	std::optional<bool> unfold_option_combos;

	/* Output id schemes, raw text: UID, CODE, NAME, ATTRIBUTE:<uid> (case-insensitive). */
	std::optional<std::string> id_scheme;
	std::optional<std::string> data_element_id_scheme;
	std::optional<std::string> org_unit_id_scheme;
	std::optional<std::string> category_option_combo_id_scheme;
	std::optional<std::string> attribute_option_combo_id_scheme;
	std::optional<std::string> data_set_id_scheme;
	std::optional<std::string> category_id_scheme;        /* ADX only */
	std::optional<std::string> category_option_id_scheme; /* ADX only */

	/* Input id schemes, raw text: UID, CODE, NAME (case-insensitive). */
	std::optional<std::string> input_id_scheme;
	std::optional<std::string> input_org_unit_id_scheme;
	std::optional<std::string> input_data_element_id_scheme;
	std::optional<std::string> input_data_set_id_scheme;
	std::optional<std::string> input_data_element_group_id_scheme;
	bool input_use_code_fallback = false;

	/* Output shape and transport. */
	std::optional<std::string> style;       /* "2.43" (default) or "2.42" */
	std::optional<std::string> compression; /* "none" (default), "gzip" or "zip" */
	std::optional<int32_t> compression_level;
	/* Query string only: DHIS2's download name, which also names the zip entry. */
	std::optional<std::string> attachment;
};

} // namespace datavalue_export::core
