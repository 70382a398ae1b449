/*
 * cli/request_target.cpp
 *	  URL/path/query splitting and the format/compression resolution of datavalue-export.
 *
 * Extensions follow DHIS2's URLs and download names: .json, .csv, .xml (DXF2), .adx+xml (DHIS2
 * 2.43's path), .adx.xml (2.42's path and 2.43's download name) and .adx for ADX, each optionally
 * followed by .gz or .zip as in DHIS2's attachment names (DataExportParams.Input.getFilename).
 * SPDX-License-Identifier: PostgreSQL
 */
#include "request_target.hpp"

#include <cctype>
#include <utility>
#include <vector>

namespace datavalue_export::cli {

std::string
ShowControlCharacters(std::string_view message)
{
	static const char kHex[] = "0123456789ABCDEF";
	std::string shown;
	shown.reserve(message.size());
	for (const char c : message) {
		const unsigned char u = static_cast<unsigned char>(c);
		if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
			shown += "\\x";
			shown += kHex[u >> 4];
			shown += kHex[u & 0xF];
		} else {
			shown += c;
		}
	}
	return shown;
}

namespace {

constexpr std::string_view kEndpoint = "dataValueSets";

/* Longest first, so ".adx.xml" is not read as ".xml". */
const std::pair<std::string_view, std::string_view> kFormatExtensions[] = {
    {".adx+xml", "adx+xml"}, {".adx.xml", "adx+xml"}, {".json", "json"},
    {".adx", "adx+xml"},     {".csv", "csv"},         {".xml", "xml"},
};

const std::pair<std::string_view, std::string_view> kCompressionExtensions[] = {
    {".gz", "gzip"},
    {".zip", "zip"},
};

std::string
Lower(std::string_view text)
{
	std::string out(text);
	for (char &c : out)
		c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	return out;
}

std::string_view
TrimAscii(std::string_view text)
{
	while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
		text.remove_prefix(1);
	while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
		text.remove_suffix(1);
	return text;
}

bool
EndsWith(std::string_view text, std::string_view suffix)
{
	return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

/* Strips a known suffix of the table from name (lower case) and returns its meaning. */
template <size_t N>
std::optional<std::string>
StripSuffix(std::string &name, const std::pair<std::string_view, std::string_view> (&table)[N])
{
	for (const auto &[suffix, meaning] : table)
		if (EndsWith(name, suffix)) {
			name.resize(name.size() - suffix.size());
			return std::string(meaning);
		}
	return std::nullopt;
}

/* The extension after "dataValueSets" in a URL path: all of it must be known. */
FormatChoice
PathExtensionChoice(std::string_view extension)
{
	FormatChoice choice;
	std::string rest = Lower(extension);
	choice.compression = StripSuffix(rest, kCompressionExtensions);
	if (!rest.empty()) {
		choice.format = StripSuffix(rest, kFormatExtensions);
		if (!choice.format || !rest.empty())
			throw UsageError("unknown extension \"" + std::string(extension) + "\" in dataValueSets" +
			                 std::string(extension) +
			                 "; DHIS2 knows .json, .csv, .xml, .adx, .adx+xml and .adx.xml, each optionally "
			                 "followed by .gz or .zip");
	}
	return choice;
}

/* RFC 3986 scheme: a letter, then letters, digits, '+', '-' or '.'. */
bool
IsUrlScheme(std::string_view text)
{
	if (text.empty() || !std::isalpha(static_cast<unsigned char>(text.front())))
		return false;
	for (const char c : text)
		if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
			return false;
	return true;
}

std::string
Describe(const char *what, const std::string &value)
{
	return std::string(what) + " \"" + value + "\"";
}

/* The one value the sources agree on; UsageError naming two that disagree. */
std::optional<std::string>
Agree(const char *what, const std::vector<std::pair<std::string, const std::optional<std::string> *>> &sources)
{
	const std::pair<std::string, const std::optional<std::string> *> *first = nullptr;
	for (const auto &source : sources) {
		if (!*source.second)
			continue;
		if (first == nullptr)
			first = &source;
		else if (**source.second != **first->second)
			throw UsageError(std::string("conflicting ") + what + ": " + Describe(what, **first->second) + " from " +
			                 first->first + ", " + Describe(what, **source.second) + " from " + source.first);
	}
	return first ? std::optional<std::string>(**first->second) : std::nullopt;
}

/*
 * visit(pair, name, value) for each name=value pair of a query string, in order: the pair as
 * typed, its name decoded, its value decoded and trimmed.
 */
template <typename Visit>
void
ForEachParameter(std::string_view query, Visit visit)
{
	while (!query.empty()) {
		const size_t amp = query.find('&');
		const std::string_view pair = query.substr(0, amp);
		query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
		const size_t eq = pair.find('=');
		const std::string value = std::string(
		    TrimAscii(PercentDecode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1))));
		visit(pair, PercentDecode(pair.substr(0, eq)), value);
	}
}

/* query without its name= pairs whose value is empty (the default), so that one can be added. */
std::string
WithoutEmptyParameter(std::string_view query, std::string_view name)
{
	std::string out;
	ForEachParameter(query, [&](std::string_view pair, const std::string &key, const std::string &value) {
		if (value.empty() && key == name)
			return;
		if (!out.empty())
			out += '&';
		out.append(pair);
	});
	return out;
}

void
AppendParameter(std::string &query, std::string_view name, std::string_view encoded_value)
{
	if (!query.empty() && query.back() != '&')
		query += '&';
	query.append(name).append("=").append(encoded_value);
}

} // namespace

std::string
PercentDecode(std::string_view text, bool plus_is_space)
{
	auto hex = [](char c) -> int {
		if (c >= '0' && c <= '9')
			return c - '0';
		if (c >= 'a' && c <= 'f')
			return c - 'a' + 10;
		if (c >= 'A' && c <= 'F')
			return c - 'A' + 10;
		return -1;
	};
	std::string out;
	out.reserve(text.size());
	for (size_t i = 0; i < text.size(); i++) {
		if (text[i] == '+' && plus_is_space)
			out += ' ';
		else if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
			out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
			i += 2;
		} else
			out += text[i];
	}
	return out;
}

std::string
SplitTarget(std::string_view target, FormatChoice &path_choice)
{
	path_choice = FormatChoice();
	if (const size_t hash = target.find('#'); hash != std::string_view::npos)
		target = target.substr(0, hash);
	/*
	 * https://host[:port]/...: scheme and authority name a DHIS2 server; we read its database instead.
	 * Only a scheme before the path and query counts ("attachment=a://b" is a value), and the
	 * authority ends at the path or the query ("https://host?dataSet=..." keeps its query).
	 */
	if (const size_t scheme = target.find("://");
	    scheme != std::string_view::npos && IsUrlScheme(target.substr(0, scheme))) {
		const size_t end = target.find_first_of("/?", scheme + 3);
		target = end == std::string_view::npos ? std::string_view() : target.substr(end);
	}
	std::string_view path;
	std::string_view query;
	if (const size_t question = target.find('?'); question != std::string_view::npos) {
		path = target.substr(0, question);
		query = target.substr(question + 1);
	} else if (target.find('=') != std::string_view::npos)
		query = target;
	else
		path = target;

	if (!path.empty()) {
		/*
		 * Only the last segment matters: /api/, /api/40/, /dhis/api/ prefixes all reach the same
		 * resource, with or without a trailing slash. It is percent-decoded as a path (a copied
		 * URL has .adx%2Bxml), where '+' stays '+'.
		 */
		std::string_view trimmed = path;
		if (trimmed.size() > 1 && trimmed.back() == '/')
			trimmed.remove_suffix(1);
		const size_t slash = trimmed.rfind('/');
		const std::string segment =
		    PercentDecode(slash == std::string_view::npos ? trimmed : trimmed.substr(slash + 1), false);
		if (segment.compare(0, kEndpoint.size(), kEndpoint) != 0)
			throw UsageError("\"" + std::string(path) +
			                 "\" is not DHIS2's /api/dataValueSets; give a dataValueSets URL or a query string "
			                 "such as 'dataSet=pBOMPrpg1QX&period=202401&orgUnit=ImspTQPwCqd'");
		path_choice = PathExtensionChoice(std::string_view(segment).substr(kEndpoint.size()));
	}
	return std::string(query);
}

FormatChoice
QueryChoice(std::string_view query)
{
	FormatChoice choice;
	/* Parameter names are case-sensitive in DHIS2 (Spring binding) and in export_datavalues(). */
	ForEachParameter(query, [&](std::string_view, const std::string &name, const std::string &typed) {
		const std::string value = Lower(typed);
		/* An empty value is the default, as the extension reads it: it names no format or compression. */
		if (value.empty())
			return;
		if (name == "format" && !choice.format)
			/*
			 * One document, three names: an unescaped '+' arrives as a space, and the extension reads
			 * "adx xml" and "adx" as adx+xml too, so none of them conflicts with a .adx file name.
			 */
			choice.format = value == "adx xml" || value == "adx" ? "adx+xml" : value;
		else if (name == "compression" && !choice.compression)
			choice.compression = value;
	});
	return choice;
}

FormatChoice
OutputFileChoice(std::string_view path)
{
	FormatChoice choice;
	if (path.empty() || path == "-")
		return choice;
	const size_t slash = path.rfind('/');
	std::string name = Lower(slash == std::string_view::npos ? path : path.substr(slash + 1));
	choice.compression = StripSuffix(name, kCompressionExtensions);
	choice.format = StripSuffix(name, kFormatExtensions);
	if (choice.format && !choice.compression)
		choice.compression = "none";
	return choice;
}

ResolvedRequest
ResolveRequest(std::string_view target, std::string_view output_path)
{
	FormatChoice from_path;
	ResolvedRequest resolved;
	resolved.query = SplitTarget(target, from_path);
	const FormatChoice from_query = QueryChoice(resolved.query);
	const FormatChoice from_file = OutputFileChoice(output_path);
	const std::string file = "the output file name \"" + std::string(output_path) + "\"";

	const std::optional<std::string> format = Agree(
	    "format",
	    {{"the query string", &from_query.format}, {"the URL path", &from_path.format}, {file, &from_file.format}});
	const std::optional<std::string> compression = Agree("compression", {{"the query string", &from_query.compression},
	                                                                     {"the URL path", &from_path.compression},
	                                                                     {file, &from_file.compression}});

	if (format && !from_query.format) {
		resolved.query = WithoutEmptyParameter(resolved.query, "format");
		AppendParameter(resolved.query, "format", *format == "adx+xml" ? "adx%2Bxml" : *format);
	}
	if (compression && *compression != "none" && !from_query.compression) {
		resolved.query = WithoutEmptyParameter(resolved.query, "compression");
		AppendParameter(resolved.query, "compression", *compression);
	}
	resolved.format = format.value_or("json");
	resolved.compression = compression.value_or("none");
	return resolved;
}

} // namespace datavalue_export::cli
