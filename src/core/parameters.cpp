/*
 * src/core/parameters.cpp
 *	  The table of request parameters; see parameters.hpp.
 *
 * The DHIS2 names and meanings follow DHIS2 2.43's DataValueSetQueryParams
 * (dhis2-core dhis-services/dhis-service-dxf2, org.hisp.dhis.dxf2.datavalueset) and the
 * /api/dataValueSets documentation. The SQL parameters are the same in snake_case.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/parameters.hpp"

#include <iterator>

namespace datavalue_export::core {

namespace {

using R = ExportRequest;
using T = ParamType;

/* One constructor per bound field type keeps the table to one line a parameter. */
constexpr Parameter
List(std::string_view sql, std::string_view query, std::vector<std::string> R::*member, std::string_view doc)
{
	Parameter p{sql, query, true, T::kTextList, "NULL", "", doc};
	p.list = member;
	return p;
}

constexpr Parameter
Flag(std::string_view sql, std::string_view query, bool R::*member, std::string_view doc)
{
	Parameter p{sql, query, true, T::kBool, "false", "false", doc};
	p.flag = member;
	return p;
}

constexpr Parameter
Int32(std::string_view sql, std::string_view query, ParamType type, std::optional<int32_t> R::*member,
      std::string_view doc, bool in_dhis2 = true)
{
	Parameter p{sql, query, in_dhis2, type, "NULL", "", doc};
	p.int32 = member;
	return p;
}

constexpr Parameter
Int64(std::string_view sql, std::string_view query, ParamType type, std::optional<int64_t> R::*member,
      std::string_view doc)
{
	Parameter p{sql, query, true, type, "NULL", "", doc};
	p.int64 = member;
	return p;
}

constexpr Parameter
Text(std::string_view sql, std::string_view query, ParamType type, std::optional<std::string> R::*member,
     std::string_view doc_default, std::string_view doc, std::string_view sql_default = "NULL", bool in_dhis2 = true)
{
	Parameter p{sql, query, in_dhis2, type, sql_default, doc_default, doc};
	p.text = member;
	return p;
}

constexpr Parameter
QueryOnly(std::string_view query, ParamType type, const char *why = nullptr,
          std::optional<std::string> R::*text = nullptr)
{
	Parameter p{"", query, true, type, "", "", ""};
	p.why_unsupported = why;
	p.text = text;
	return p;
}

constexpr const char *kUnfoldWhy = "DHIS2 writes option combos as category-to-option objects with it; this extension "
                                   "writes option combo ids only, except in ADX, which always unfolds.";

/* An ADX-only SQL parameter: the category attribute schemes (DHIS2 uses them for ADX and unfolded combos). */
constexpr Parameter
AdxText(std::string_view sql, std::string_view query, std::optional<std::string> R::*member,
        std::string_view doc_default, std::string_view doc)
{
	Parameter p = Text(sql, query, T::kText, member, doc_default, doc);
	p.adx_only = true;
	return p;
}

constexpr Parameter kTable[] = {
    List("data_set", "dataSet", &R::data_set, "Data sets; exports their data elements"),
    List("data_element", "dataElement", &R::data_element, "Data elements (OR-ed with data sets and groups)"),
    List("data_element_group", "dataElementGroup", &R::data_element_group, "Data element groups' members"),
    List("period", "period", &R::period, "ISO periods (`202401`, `2024W1`, `2024-01` normalised to `202401`, ...)"),
    Int32("start_date", "startDate", T::kDate, &R::start_date,
          "Start of the range: periods **contained** in it (needs `end_date`)"),
    Int32("end_date", "endDate", T::kDate, &R::end_date, "End of the range (needs `start_date`)"),
    List("org_unit", "orgUnit", &R::org_unit, "Org units"),
    Flag("children", "children", &R::children, "Add all descendants (`path LIKE root.path || '%'`)"),
    List("org_unit_group", "orgUnitGroup", &R::org_unit_group, "Members of these groups (OR-ed with `org_unit`)"),
    Int32("level", "level", T::kInt32, &R::level, "Only org units at this hierarchy level"),
    Flag("include_deleted", "includeDeleted", &R::include_deleted, "Include soft-deleted values (`\"deleted\":true`)"),
    Int64("last_updated", "lastUpdated", T::kTimestamp, &R::last_updated,
          "`lastupdated >=` this (wall time, as stored)"),
    Text("last_updated_duration", "lastUpdatedDuration", T::kDuration, &R::last_updated_duration, "",
         "`^\\d+[dhms]$`: updated within this long before now (the transaction start in UTC, as stored "
         "timestamps are read)"),
    List("attribute_option_combo", "attributeOptionCombo", &R::attribute_option_combo, "Attribute option combos"),
    List("category_option_combo", "categoryOptionCombo", &R::category_option_combo, "Category option combos"),
    Text("attribute_combo", "attributeCombo", T::kText, &R::attribute_combo, "",
         "With `attribute_options`: the one AOC of this combo (`default` when absent)"),
    List("attribute_options", "attributeOptions", &R::attribute_options,
         "With `attribute_combo`: the AOC with exactly these options"),
    Int64("limit", "limit", T::kInt64, &R::limit, "Paging after ordering"),
    Int64("offset", "offset", T::kInt64, &R::offset, "Paging after ordering (negative: absolute value)"),
    Text("order", "order", T::kOrder, &R::order, "`PE,CREATED,DE`", "Comma list of `DE,OU,PE,CREATED,AOC`, or `none`"),
    Flag("order_by_period", "orderByPeriod", &R::order_by_period, "Put `PE` first in the order"),
    Flag("exclude_default_coc", "excludeDefaultCoc", &R::exclude_default_coc,
         "Leave the default category option combo out of values"),
    Flag("exclude_default_aoc", "excludeDefaultAoc", &R::exclude_default_aoc,
         "Leave the default attribute option combo out of values"),
    Text("id_scheme", "idScheme", T::kText, &R::id_scheme, "UID",
         "Output ids of every type: `UID`, `CODE`, `NAME`, `ATTRIBUTE:<uid>`"),
    Text("data_element_id_scheme", "dataElementIdScheme", T::kText, &R::data_element_id_scheme, "`id_scheme`",
         "Output ids of data elements"),
    Text("org_unit_id_scheme", "orgUnitIdScheme", T::kText, &R::org_unit_id_scheme, "`id_scheme`",
         "Output ids of org units"),
    Text("category_option_combo_id_scheme", "categoryOptionComboIdScheme", T::kText,
         &R::category_option_combo_id_scheme, "`id_scheme`", "Output ids of category option combos"),
    Text("attribute_option_combo_id_scheme", "attributeOptionComboIdScheme", T::kText,
         &R::attribute_option_combo_id_scheme, "`id_scheme`", "Output ids of attribute option combos"),
    Text("data_set_id_scheme", "dataSetIdScheme", T::kText, &R::data_set_id_scheme, "`id_scheme`",
         "Output ids of data sets (the header)"),
    Text("input_id_scheme", "inputIdScheme", T::kText, &R::input_id_scheme, "UID",
         "How identifiers in the filters are read: `UID`, `CODE`, `NAME`"),
    Text("input_org_unit_id_scheme", "inputOrgUnitIdScheme", T::kText, &R::input_org_unit_id_scheme,
         "`input_id_scheme`", "How org unit filters are read"),
    Text("input_data_element_id_scheme", "inputDataElementIdScheme", T::kText, &R::input_data_element_id_scheme,
         "`input_id_scheme`", "How data element filters are read"),
    Text("input_data_set_id_scheme", "inputDataSetIdScheme", T::kText, &R::input_data_set_id_scheme,
         "`input_id_scheme`", "How data set filters are read"),
    Text("input_data_element_group_id_scheme", "inputDataElementGroupIdScheme", T::kText,
         &R::input_data_element_group_id_scheme, "`input_id_scheme`", "How data element group filters are read"),
    Flag("input_use_code_fallback", "inputUseCodeFallback", &R::input_use_code_fallback,
         "Identifiers that are not UIDs are read as codes"),
    Text("style", "style", T::kText, &R::style, "`2.43`", "`2.43` or `2.42` output shape (extension only)",
         "'2.43'::text", false),
    Text("compression", "compression", T::kText, &R::compression, "`none`", "`none`, `gzip` or `zip` (COPY only)",
         "'none'::text"),
    Int32("compression_level", "compressionLevel", T::kInt32, &R::compression_level,
          "zlib level 1-9 instead of the ISA-L fast mode; 6 = DHIS2's bytes (extension only)", false),
    /* export_datavalues_adx only. */
    AdxText("category_id_scheme", "categoryIdScheme", &R::category_id_scheme, "`id_scheme`",
            "ADX: category attribute names (`UID`, `CODE`, `NAME`, `ATTRIBUTE:<uid>`)"),
    AdxText("category_option_id_scheme", "categoryOptionIdScheme", &R::category_option_id_scheme, "`id_scheme`",
            "ADX: category attribute values"),
    /* Query string only. */
    QueryOnly("format", T::kFormat),
    /* The download name; only the zip entry name uses it. Repeats join with commas, as Spring binds them. */
    QueryOnly("attachment", T::kOrder, nullptr, &R::attachment),
    /*
     * DHIS2's generic web-API paging and field-filter parameters. /api/dataValueSets binds its
     * request into DataValueSetQueryParams (2.42) / DataExportParams.Input (2.43), which have no
     * such fields, so Spring ignores them and the whole set is returned; scripts copied from
     * metadata requests carry them. Accepted here with the same (no) effect.
     */
    QueryOnly("paging", T::kIgnored),
    QueryOnly("page", T::kIgnored),
    QueryOnly("pageSize", T::kIgnored),
    QueryOnly("skipPaging", T::kIgnored),
    QueryOnly("fields", T::kIgnored),
    /* DHIS2 accepts these; we refuse them rather than silently export something else. */
    QueryOnly("unfoldOptionCombos", T::kUnsupportedFlag, kUnfoldWhy),
};

} // namespace

ParameterRange
Parameters() noexcept
{
	return {std::begin(kTable), std::end(kTable)};
}

size_t
SqlParameterCount() noexcept
{
	size_t n = 0;
	for (const Parameter &p : Parameters())
		if (!p.sql_name.empty() && !p.adx_only)
			n++;
	return n;
}

size_t
SqlParameterCount(Format format) noexcept
{
	size_t n = 0;
	for (const Parameter &p : Parameters())
		if (!p.sql_name.empty() && (!p.adx_only || format == Format::kAdx))
			n++;
	return n;
}

const Parameter *
FindQueryParameter(std::string_view name) noexcept
{
	for (const Parameter &p : Parameters())
		if (p.query_name == name)
			return &p;
	return nullptr;
}

std::string_view
SqlTypeName(ParamType type) noexcept
{
	switch (type) {
	case ParamType::kTextList:
		return "text[]";
	case ParamType::kBool:
		return "boolean";
	case ParamType::kInt32:
		return "integer";
	case ParamType::kInt64:
		return "bigint";
	case ParamType::kDate:
		return "date";
	case ParamType::kTimestamp:
		return "timestamp without time zone";
	case ParamType::kText:
	case ParamType::kDuration:
	case ParamType::kOrder:
		return "text";
	case ParamType::kFormat:
	case ParamType::kIgnored:
	case ParamType::kUnsupported:
	case ParamType::kUnsupportedFlag:
		break;
	}
	return "";
}

} // namespace datavalue_export::core
