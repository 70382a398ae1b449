/*
 * cli/request_target.hpp
 *	  What a datavalue-export user types, turned into the query string export_datavalues() gets.
 *
 * A user types what they would give curl: a DHIS2 URL ("https://host/api/dataValueSets.json.gz?..."),
 * a path ("dataValueSets.csv?...") or a bare query string ("dataSet=...&period=..."). Format and
 * compression come from, in this order of authority:
 *   1. format= / compression= in the query string (DHIS2: the format parameter beats the path);
 *   2. the URL path extension: .json .csv .xml .adx .adx+xml .adx.xml, then .gz or .zip;
 *   3. the output file name, e.g. out.csv.gz (a known format extension without .gz/.zip means
 *      uncompressed).
 * DHIS2 silently prefers (1) over (2); like the extension, which refuses what DHIS2 would ignore,
 * we refuse any disagreement between the sources instead (UsageError), so out.csv never holds
 * JSON. Values we do not know (format=foo) are passed through for the server to judge.
 * Pure C++, no libpq.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace datavalue_export::cli {

/*
 * A message that echoes user input, made printable: control characters other than newline and
 * tab as \xNN (a NUL would end the printed message, an escape sequence would drive the terminal).
 */
std::string ShowControlCharacters(std::string_view message);

/* A mistake in what the user typed: exit status 2, the message printed as is. */
class UsageError : public std::runtime_error {
  public:
	explicit UsageError(const std::string &message) : std::runtime_error(ShowControlCharacters(message)) {}
};

/* One source's opinion; unset members mean "this source says nothing". */
struct FormatChoice {
	std::optional<std::string> format;      /* json, csv, xml, adx+xml */
	std::optional<std::string> compression; /* none, gzip, zip */
};

struct ResolvedRequest {
	std::string query;  /* what export_datavalues() receives */
	std::string format; /* the resolved format, "json" when nobody said */
	std::string compression;
};

/*
 * Split a URL, path or query string. Returns the query string (without '?') and stores the path
 * extension's choice in path_choice. Throws UsageError for a path that is not dataValueSets or an
 * extension DHIS2 does not have.
 */
std::string SplitTarget(std::string_view target, FormatChoice &path_choice);

/* format/compression named in a query string (decoded, lower case); repeated names: the first. */
FormatChoice QueryChoice(std::string_view query);

/* What an output file name says (nothing for "-" or an unknown extension). */
FormatChoice OutputFileChoice(std::string_view path);

/*
 * The whole resolution: target as typed, output path ("" or "-" for stdout). Appends
 * format=/compression= to the query when only an extension named them. Throws UsageError on a
 * conflict, naming both sources.
 */
ResolvedRequest ResolveRequest(std::string_view target, std::string_view output_path);

/*
 * application/x-www-form-urlencoded decoding ('+' is a space; plus_is_space false for a URL path,
 * where it is a '+'); malformed escapes are kept as typed.
 */
std::string PercentDecode(std::string_view text, bool plus_is_space = true);

} // namespace datavalue_export::cli
