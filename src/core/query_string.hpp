/*
 * src/core/query_string.hpp
 *	  Parse a DHIS2 GET /api/dataValueSets query string into an ExportRequest.
 *
 * export_datavalues(query) takes the query string a DHIS2 client would send, verbatim, so the
 * binding rules here follow what DHIS2 (Spring) does with the same URL: repeats accumulate, a
 * single occurrence of a list parameter is split on commas, booleans take the Spring spellings,
 * dates take the DateUtils.parseDate shapes (dhis2-export-format.md §2.1). Where DHIS2 would
 * silently ignore a parameter (unknown names, repeated single values) we raise an error instead,
 * so a typo never widens an export. Values DHIS2 validates with its own rules (id schemes, order,
 * compression, style, duration) are stored raw for ValidateRequest.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/*
 * Parse the query string of a DHIS2 request, e.g.
 * "dataSet=pBOMPrpg1QX&period=202401&orgUnit=ImspTQPwCqd&children=true&format=csv".
 * One leading '?' is tolerated. The text is expected to be UTF-8; decoded names and values must
 * be valid UTF-8 without NUL bytes.
 * May throw core::Error (SQLSTATE per problem) and std::bad_alloc.
 */
ExportRequest ParseQueryString(std::string_view query);

/*
 * Spring's boolean spellings: true/false, 1/0, yes/no, on/off, case-insensitive, surrounding
 * ASCII whitespace ignored. Returns false (and leaves out alone) for anything else, including "".
 */
bool ParseDhis2Boolean(std::string_view text, bool &out) noexcept;

/*
 * DHIS2 DateUtils.parseDate shapes: yyyyMMdd, yyyy-MM-dd, yyyy-MM, yyyy,
 * yyyy-MM-ddTHH[:mm[:ss[.fff|.ffff|.ffffff|.fffffffff]]][offset] and yyyy-MM-dd HH:mm:ss<offset>,
 * where offset is Z, +HH:mm or +HHmm (or '-'). Returns a PostgreSQL timestamp (microseconds since
 * 2000-01-01 00:00): the wall time as written, or the UTC wall time when an offset is given.
 * Missing parts are zero; digits beyond microseconds are truncated. nullopt if not valid.
 */
std::optional<int64_t> ParseDhis2Timestamp(std::string_view text) noexcept;

/* Same shapes as ParseDhis2Timestamp; the date part of that timestamp as a PostgreSQL day number. */
std::optional<int32_t> ParseDhis2Date(std::string_view text) noexcept;

/*
 * The candidate closest to word by case-insensitive Levenshtein distance, if that distance is at
 * most max(2, word length / 3); the first candidate wins ties. Empty when nothing is that close.
 * May throw std::bad_alloc.
 */
std::string ClosestMatch(std::string_view word, const std::vector<std::string_view> &candidates);

} // namespace datavalue_export::core
