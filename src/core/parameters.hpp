/*
 * src/core/parameters.hpp
 *	  The one table of export request parameters.
 *
 * Each row is one parameter: its SQL name (a named parameter of export_datavalues_json,
 * export_datavalues_csv and export_datavalues_adx, in argument order; the ADX-only ones last), its DHIS2 query-string
 *name, its type, its SQL default, a one-line doc, and the ExportRequest field it binds to. It drives the query-string
 * binding (core/query_string.cpp) and the reading of SQL arguments (src/pg/arguments.cpp). The
 * SQL install script and the README's parameter reference are written by hand; unit tests
 * (test/unit/parameters_test.cpp) and pg_regress (sql/parameters.sql) compare them with this
 * table, so drift fails a test.
 *
 * Never throws.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* A parameter's type, and with it how a query-string value binds (see BindParameter). */
enum class ParamType {
	kTextList,        /* text[] -> vector; in a query string repeats accumulate, one occurrence splits on commas */
	kBool,            /* boolean -> bool */
	kInt32,           /* integer -> optional<int32_t> */
	kInt64,           /* bigint -> optional<int64_t> */
	kDate,            /* date -> optional<int32_t> day number */
	kTimestamp,       /* timestamp -> optional<int64_t> microseconds */
	kText,            /* text -> optional<string>, raw */
	kDuration,        /* text -> optional<string>, raw; a blank query-string value means not given */
	kOrder,           /* text -> optional<string>: a comma list; query-string repeats are joined */
	kFormat,          /* query string only: Format */
	kIgnored,         /* query string only: accepted, no effect */
	kUnsupported,     /* query string only: any non-empty value is an error */
	kUnsupportedFlag, /* query string only: a boolean; only true is an error */
};

struct Parameter {
	std::string_view sql_name;   /* empty: not an SQL parameter (query string only) */
	std::string_view query_name; /* the name in a DHIS2 query string */
	bool in_dhis2;               /* false: an extension-only parameter (DHIS2 has no such name) */
	ParamType type;
	std::string_view sql_default; /* the DEFAULT in the SQL signature, as pg_get_function_arguments shows it */
	std::string_view doc_default; /* the effective default, for the README ("" = none) */
	std::string_view doc;         /* one line, for the README's parameter reference */
	/* The ExportRequest field the value binds to; the one matching type is set. */
	std::vector<std::string> ExportRequest::*list = nullptr;
	bool ExportRequest::*flag = nullptr;
	std::optional<int32_t> ExportRequest::*int32 = nullptr;
	std::optional<int64_t> ExportRequest::*int64 = nullptr;
	std::optional<std::string> ExportRequest::*text = nullptr;
	const char *why_unsupported = nullptr; /* detail for kUnsupported / kUnsupportedFlag */
	/* An SQL parameter of export_datavalues_adx only (after the shared ones); a query-string
	 * parameter that only ADX accepts. */
	bool adx_only = false;
};

/* A view of the table, for range-for. */
struct ParameterRange {
	const Parameter *first;
	const Parameter *last;
	const Parameter *begin() const noexcept { return first; }
	const Parameter *end() const noexcept { return last; }
	size_t size() const noexcept { return static_cast<size_t>(last - first); }
	const Parameter &operator[](size_t i) const noexcept { return first[i]; }
};

/* Every parameter, the SQL ones first in SQL argument order. A constant table: no allocation. */
ParameterRange Parameters() noexcept;

/* How many parameters export_datavalues_json/_csv take (the leading rows of Parameters()). */
size_t SqlParameterCount() noexcept;

/* How many parameters the export function of a format takes (ADX: the shared ones, then its own). */
size_t SqlParameterCount(Format format) noexcept;

/* The row whose query_name is name, or nullptr. */
const Parameter *FindQueryParameter(std::string_view name) noexcept;

/* The SQL type name of an SQL parameter, as format_type prints it (text[], date, ...). */
std::string_view SqlTypeName(ParamType type) noexcept;

} // namespace datavalue_export::core
