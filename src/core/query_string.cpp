/*
 * src/core/query_string.cpp
 *	  Parse a DHIS2 GET /api/dataValueSets query string into an ExportRequest.
 *
 * Three passes: split on '&' and percent-decode every pair (so an encoding error is reported
 * before anything else), group the pairs by name in order of first appearance (a list parameter
 * needs its occurrence count to know whether to split on commas), then bind each group through
 * the parameter table (core/parameters), whose type says how a value binds. Empty values mean "not given", as Spring's
 *converters return null for an empty string; for a list, "dataSet=" adds nothing. SPDX-License-Identifier: PostgreSQL
 */
#include "core/query_string.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

#include "core/calendar.hpp"
#include "core/error.hpp"
#include "core/parameters.hpp"

namespace datavalue_export::core {

namespace {

constexpr const char *kReadmeHint = "See the README's parameter reference.";
constexpr const char *kPlusHint = "A \"+\" in a query string means a space; write a literal plus sign as %2B.";

bool
IsAsciiSpace(char c) noexcept
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool
IsDigit(char c) noexcept
{
	return c >= '0' && c <= '9';
}

char
AsciiLower(char c) noexcept
{
	return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string_view
TrimAscii(std::string_view text) noexcept
{
	while (!text.empty() && IsAsciiSpace(text.front()))
		text.remove_prefix(1);
	while (!text.empty() && IsAsciiSpace(text.back()))
		text.remove_suffix(1);
	return text;
}

bool
EqualsIgnoreCase(std::string_view a, std::string_view b) noexcept
{
	if (a.size() != b.size())
		return false;
	for (size_t i = 0; i < a.size(); i++)
		if (AsciiLower(a[i]) != AsciiLower(b[i]))
			return false;
	return true;
}

int
HexValue(char c) noexcept
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF) and no NUL: the values
 * end up in PostgreSQL text, which can hold neither invalid sequences nor NUL bytes.
 */
bool
IsValidUtf8Text(std::string_view text) noexcept
{
	size_t i = 0;
	while (i < text.size()) {
		const auto b0 = static_cast<unsigned char>(text[i]);
		if (b0 == 0)
			return false;
		if (b0 < 0x80) {
			i++;
			continue;
		}
		size_t len;
		unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
		if (b0 >= 0xC2 && b0 <= 0xDF)
			len = 2;
		else if (b0 >= 0xE0 && b0 <= 0xEF) {
			len = 3;
			if (b0 == 0xE0)
				lo = 0xA0;
			else if (b0 == 0xED)
				hi = 0x9F;
		} else if (b0 >= 0xF0 && b0 <= 0xF4) {
			len = 4;
			if (b0 == 0xF0)
				lo = 0x90;
			else if (b0 == 0xF4)
				hi = 0x8F;
		} else
			return false;
		if (text.size() - i < len)
			return false;
		const auto b1 = static_cast<unsigned char>(text[i + 1]);
		if (b1 < lo || b1 > hi)
			return false;
		for (size_t k = 2; k < len; k++) {
			const auto bk = static_cast<unsigned char>(text[i + k]);
			if (bk < 0x80 || bk > 0xBF)
				return false;
		}
		i += len;
	}
	return true;
}

/*
 * Form decoding of one name or value: %XX is a byte, '+' is a space. base_offset is where text
 * starts in the caller's query, so the error can point at the bad escape without quoting bytes
 * that may not be valid UTF-8. May throw core::Error and std::bad_alloc.
 */
std::string
DecodeComponent(std::string_view text, size_t base_offset)
{
	std::string out;
	out.reserve(text.size());
	for (size_t i = 0; i < text.size(); i++) {
		const char c = text[i];
		if (c == '+') {
			out.push_back(' ');
		} else if (c != '%') {
			out.push_back(c);
		} else {
			const int hi = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
			const int lo = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
			if (hi < 0 || lo < 0)
				throw Error(sqlstate::kInvalidParameterValue, "invalid percent-encoding in query string",
				            "The percent sign at byte offset " + std::to_string(base_offset + i) +
				                " is not followed by two hexadecimal digits.",
				            "Write a literal percent sign as %25.");
			out.push_back(static_cast<char>(hi * 16 + lo));
			i += 2;
		}
	}
	return out;
}

struct Pair {
	std::string name;
	std::string value;
};

/* Split on '&' and decode; empty pieces ("a=1&&b=2", a trailing '&') are skipped. */
std::vector<Pair>
SplitAndDecode(std::string_view query, size_t base_offset)
{
	std::vector<Pair> pairs;
	size_t start = 0;
	while (start <= query.size()) {
		size_t end = query.find('&', start);
		if (end == std::string_view::npos)
			end = query.size();
		const std::string_view piece = query.substr(start, end - start);
		if (!piece.empty()) {
			const size_t eq = piece.find('=');
			const std::string_view raw_name = piece.substr(0, eq);
			const std::string_view raw_value = eq == std::string_view::npos ? std::string_view() : piece.substr(eq + 1);
			Pair pair{DecodeComponent(raw_name, base_offset + start),
			          DecodeComponent(raw_value, base_offset + start + raw_name.size() + 1)};
			if (!IsValidUtf8Text(pair.name))
				throw Error(sqlstate::kInvalidParameterValue, "invalid UTF-8 in a query string parameter name",
				            "Percent-encoded bytes must form valid UTF-8 sequences and must not be %00.");
			if (pair.name.empty())
				throw Error(sqlstate::kSyntaxError, "empty parameter name in query string",
				            "Every \"&\"-separated part must have the form name=value.");
			if (!IsValidUtf8Text(pair.value))
				throw Error(sqlstate::kInvalidParameterValue,
				            "invalid UTF-8 in the value of parameter \"" + pair.name + "\"",
				            "Percent-encoded bytes must form valid UTF-8 sequences and must not be %00.");
			pairs.push_back(std::move(pair));
		}
		start = end + 1;
	}
	return pairs;
}

/* ---- Scalar parsers ---- */

enum class ParseStatus { kOk, kBadFormat, kOutOfRange };

struct IntResult {
	ParseStatus status;
	int64_t value;
};

/* Optional sign and decimal digits, surrounding ASCII whitespace ignored (Spring trims numbers). */
IntResult
ParseInteger(std::string_view text, int64_t min, int64_t max) noexcept
{
	text = TrimAscii(text);
	bool negative = false;
	if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
		negative = text.front() == '-';
		text.remove_prefix(1);
	}
	if (text.empty())
		return {ParseStatus::kBadFormat, 0};
	constexpr uint64_t kLimit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1;
	uint64_t magnitude = 0;
	bool overflow = false;
	for (const char c : text) {
		if (!IsDigit(c))
			return {ParseStatus::kBadFormat, 0};
		/* Keep scanning after an overflow so "99999999999999999999x" is a format error. */
		if (!overflow) {
			magnitude = magnitude * 10 + static_cast<uint64_t>(c - '0');
			overflow = magnitude > kLimit;
		}
	}
	if (overflow || (!negative && magnitude == kLimit))
		return {ParseStatus::kOutOfRange, 0};
	const int64_t value =
	    negative ? (magnitude == kLimit ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(magnitude))
	             : static_cast<int64_t>(magnitude);
	if (value < min || value > max)
		return {ParseStatus::kOutOfRange, 0};
	return {ParseStatus::kOk, value};
}

struct TimestampResult {
	ParseStatus status;
	int64_t micros;
};

/* Cursor over a date-time string; every reader returns false without consuming on a mismatch. */
class Cursor {
  public:
	explicit Cursor(std::string_view text) noexcept : text_(text) {}

	bool AtEnd() const noexcept { return pos_ == text_.size(); }

	bool Literal(char c) noexcept
	{
		if (pos_ < text_.size() && text_[pos_] == c) {
			pos_++;
			return true;
		}
		return false;
	}

	/* Exactly n decimal digits. */
	bool Digits(size_t n, int32_t &out) noexcept
	{
		if (text_.size() - pos_ < n)
			return false;
		int32_t value = 0;
		for (size_t k = 0; k < n; k++) {
			const char c = text_[pos_ + k];
			if (!IsDigit(c))
				return false;
			value = value * 10 + (c - '0');
		}
		pos_ += n;
		out = value;
		return true;
	}

	/* A run of decimal digits of any length (the fraction of a second). */
	std::string_view DigitRun() noexcept
	{
		const size_t start = pos_;
		while (pos_ < text_.size() && IsDigit(text_[pos_]))
			pos_++;
		return text_.substr(start, pos_ - start);
	}

	size_t Remaining() const noexcept { return text_.size() - pos_; }

  private:
	std::string_view text_;
	size_t pos_ = 0;
};

/* Z, +HH:mm or +HHmm (or '-'); offset_minutes is east of UTC. */
ParseStatus
ParseOffset(Cursor &cur, int32_t &offset_minutes) noexcept
{
	if (cur.Literal('Z')) {
		offset_minutes = 0;
		return ParseStatus::kOk;
	}
	int32_t sign;
	if (cur.Literal('+'))
		sign = 1;
	else if (cur.Literal('-'))
		sign = -1;
	else
		return ParseStatus::kBadFormat;
	int32_t hours, minutes;
	if (!cur.Digits(2, hours))
		return ParseStatus::kBadFormat;
	cur.Literal(':');
	if (!cur.Digits(2, minutes))
		return ParseStatus::kBadFormat;
	if (hours > 23 || minutes > 59)
		return ParseStatus::kOutOfRange;
	offset_minutes = sign * (hours * 60 + minutes);
	return ParseStatus::kOk;
}

TimestampResult
ParseTimestampImpl(std::string_view text) noexcept
{
	constexpr TimestampResult kBad{ParseStatus::kBadFormat, 0};
	Cursor cur(text);
	int32_t year, month = 1, day = 1, hour = 0, minute = 0, second = 0, offset_minutes = 0;
	int64_t fraction_micros = 0;

	if (!cur.Digits(4, year))
		return kBad;
	if (cur.AtEnd()) {
		/* yyyy */
	} else if (cur.Remaining() == 4) {
		/* yyyyMMdd */
		if (!cur.Digits(2, month) || !cur.Digits(2, day))
			return kBad;
	} else {
		if (!cur.Literal('-') || !cur.Digits(2, month))
			return kBad;
		if (!cur.AtEnd()) {
			if (!cur.Literal('-') || !cur.Digits(2, day))
				return kBad;
			if (cur.Literal('T')) {
				/* yyyy-MM-ddTHH[:mm[:ss[.fraction]]][offset] */
				if (!cur.Digits(2, hour))
					return kBad;
				if (cur.Literal(':')) {
					if (!cur.Digits(2, minute))
						return kBad;
					if (cur.Literal(':')) {
						if (!cur.Digits(2, second))
							return kBad;
						if (cur.Literal('.')) {
							const std::string_view digits = cur.DigitRun();
							const size_t n = digits.size();
							if (n != 3 && n != 4 && n != 6 && n != 9)
								return kBad;
							int64_t value = 0;
							for (const char c : digits)
								value = value * 10 + (c - '0');
							/*
							 * DHIS2 parses into a java.util.Date: milliseconds, the rest
							 * truncated (.0001 is 12:00:00.000, which a value stored at
							 * 12:00:00 passes).
							 */
							const int64_t millis = n == 3   ? value
							                       : n == 4 ? value / 10
							                       : n == 6 ? value / 1000
							                                : value / 1000000;
							fraction_micros = millis * 1000;
						}
					}
				}
				if (!cur.AtEnd()) {
					const ParseStatus status = ParseOffset(cur, offset_minutes);
					if (status != ParseStatus::kOk)
						return {status, 0};
				}
			} else if (cur.Literal(' ')) {
				/* yyyy-MM-dd HH:mm:ss<offset>; the offset is required in this form. */
				if (!cur.Digits(2, hour) || !cur.Literal(':') || !cur.Digits(2, minute) || !cur.Literal(':') ||
				    !cur.Digits(2, second))
					return kBad;
				const ParseStatus status = ParseOffset(cur, offset_minutes);
				if (status != ParseStatus::kOk)
					return {status, 0};
			}
		}
	}
	if (!cur.AtEnd())
		return kBad;

	if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) || hour > 23 || minute > 59 || second > 59)
		return {ParseStatus::kOutOfRange, 0};

	const int64_t days = DaysFromCivil(year, month, day);
	const int64_t seconds_of_day = (static_cast<int64_t>(hour) * 60 + minute) * 60 + second;
	const int64_t micros = days * kMicrosPerDay + seconds_of_day * INT64_C(1000000) + fraction_micros -
	                       static_cast<int64_t>(offset_minutes) * 60 * INT64_C(1000000);
	return {ParseStatus::kOk, micros};
}

/* Day number of a timestamp; floor division, as an explicit offset can move the instant across midnight. */
int32_t
DayOf(int64_t micros) noexcept
{
	return static_cast<int32_t>(FloorDiv(micros, kMicrosPerDay));
}

/* ---- Binding through the parameter table (core/parameters) ---- */

[[noreturn]] void
ThrowUnknown(const std::string &name)
{
	/* Unsupported names are candidates too: a near miss of one deserves its "not supported" error next. */
	std::vector<std::string_view> candidates;
	for (const Parameter &spec : Parameters())
		candidates.push_back(spec.query_name);
	const std::string closest = ClosestMatch(name, candidates);
	throw Error(sqlstate::kUndefinedParameter, "unknown parameter \"" + name + "\"", "",
	            closest.empty() ? std::string(kReadmeHint) : "Perhaps you meant \"" + closest + "\".");
}

[[noreturn]] void
ThrowInvalidValue(const char *sqlstate, std::string_view name, const std::string &value, std::string detail,
                  std::string hint = {})
{
	throw Error(sqlstate, "Value '" + value + "' is not valid for parameter " + std::string(name) + ".",
	            std::move(detail), std::move(hint));
}

/* One comma-split element is trimmed like Spring's String-to-collection conversion; empty ones are dropped. */
void
AppendCommaList(std::vector<std::string> &out, std::string_view value)
{
	size_t start = 0;
	while (start <= value.size()) {
		size_t end = value.find(',', start);
		if (end == std::string_view::npos)
			end = value.size();
		const std::string_view item = TrimAscii(value.substr(start, end - start));
		if (!item.empty())
			out.emplace_back(item);
		start = end + 1;
	}
}

void
BindFormat(ExportRequest &request, const std::string &value)
{
	if (EqualsIgnoreCase(value, "json"))
		request.format = Format::kJson;
	else if (EqualsIgnoreCase(value, "csv"))
		request.format = Format::kCsv;
	else if (EqualsIgnoreCase(value, "xml"))
		request.format = Format::kXml;
	/* ADX: DHIS2's adx+xml (sent as adx%2Bxml), "adx xml" (the '+' decoded as a space) and plain adx. */
	else if (EqualsIgnoreCase(value, "adx") || EqualsIgnoreCase(value, "adx+xml") || EqualsIgnoreCase(value, "adx xml"))
		request.format = Format::kAdx;
	else
		ThrowInvalidValue(sqlstate::kInvalidParameterValue, "format", value, "Valid values are: json, csv, xml, adx.");
}

void
BindDateTime(ExportRequest &request, const Parameter &spec, const std::string &value)
{
	const TimestampResult result = ParseTimestampImpl(value);
	if (result.status != ParseStatus::kOk) {
		std::string detail =
		    result.status == ParseStatus::kOutOfRange
		        ? "The month, day, time of day or offset is out of range."
		        : "Accepted forms are yyyy-MM-dd, yyyyMMdd, yyyy-MM, yyyy, yyyy-MM-ddTHH[:mm[:ss[.SSS]]][Z|+HH:mm] "
		          "and yyyy-MM-dd HH:mm:ss followed by an offset.";
		ThrowInvalidValue(sqlstate::kInvalidDatetimeFormat, spec.query_name, value, std::move(detail),
		                  value.find(' ') != std::string::npos ? kPlusHint : "");
	}
	if (spec.type == ParamType::kDate) {
		request.*spec.int32 = DayOf(result.micros);
		if (spec.int32 == &ExportRequest::start_date)
			request.start_instant = result.micros;
		else if (spec.int32 == &ExportRequest::end_date)
			request.end_instant = result.micros;
	} else
		request.*spec.int64 = result.micros;
}

void
BindInteger(ExportRequest &request, const Parameter &spec, const std::string &value)
{
	const bool is32 = spec.type == ParamType::kInt32;
	const IntResult result =
	    is32 ? ParseInteger(value, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())
	         : ParseInteger(value, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
	if (result.status == ParseStatus::kBadFormat)
		ThrowInvalidValue(sqlstate::kInvalidParameterValue, spec.query_name, value, "The value must be an integer.");
	if (result.status == ParseStatus::kOutOfRange)
		ThrowInvalidValue(sqlstate::kInvalidParameterValue, spec.query_name, value,
		                  is32 ? "The value is out of range for a 32-bit integer."
		                       : "The value is out of range for a 64-bit integer.");
	if (is32)
		request.*spec.int32 = static_cast<int32_t>(result.value);
	else
		request.*spec.int64 = result.value;
}

bool
ParseBooleanOrThrow(std::string_view name, const std::string &value)
{
	bool flag = false;
	if (!ParseDhis2Boolean(value, flag))
		ThrowInvalidValue(sqlstate::kInvalidParameterValue, name, value,
		                  "Valid values are: true, false, 1, 0, yes, no, on, off.");
	return flag;
}

/* Bind every occurrence of one parameter name; values are in query order. */
void
BindParameter(ExportRequest &request, const std::string &name, const std::vector<std::string> &values)
{
	const Parameter *spec = FindQueryParameter(name);
	if (spec == nullptr)
		ThrowUnknown(name);

	switch (spec->type) {
	case ParamType::kTextList:
		/* Spring binding: a lone value is a comma list; repeated values are each taken whole. */
		if (values.size() == 1)
			AppendCommaList(request.*spec->list, values.front());
		else
			for (const std::string &value : values)
				if (!value.empty())
					(request.*spec->list).push_back(value);
		return;
	case ParamType::kOrder: {
		/* The field holds the comma-list text, so repeats join into one list. */
		std::string joined;
		for (const std::string &value : values) {
			if (value.empty())
				continue;
			if (!joined.empty())
				joined.push_back(',');
			joined += value;
		}
		if (!joined.empty())
			request.*spec->text = std::move(joined);
		return;
	}
	case ParamType::kIgnored:
		return;
	default:
		break;
	}

	if (values.size() > 1)
		throw Error(sqlstate::kInvalidParameterValue, "parameter \"" + name + "\" specified more than once",
		            "Only list parameters such as dataSet or orgUnit may be repeated.");
	const std::string &value = values.front();
	/* Spring's converters turn an empty string into null, i.e. "not given"; booleans and numbers are trimmed first. */
	const bool trimmed_type = spec->type == ParamType::kBool || spec->type == ParamType::kInt32 ||
	                          spec->type == ParamType::kInt64 || spec->type == ParamType::kUnsupportedFlag ||
	                          spec->type == ParamType::kDuration;
	if (value.empty() || (trimmed_type && TrimAscii(value).empty()))
		return;

	switch (spec->type) {
	case ParamType::kBool:
		request.*spec->flag = ParseBooleanOrThrow(spec->query_name, value);
		return;
	case ParamType::kInt32:
	case ParamType::kInt64:
		BindInteger(request, *spec, value);
		return;
	case ParamType::kDate:
	case ParamType::kTimestamp:
		BindDateTime(request, *spec, value);
		return;
	case ParamType::kText:
	case ParamType::kDuration:
		request.*spec->text = value;
		return;
	case ParamType::kFormat:
		BindFormat(request, value);
		return;
	case ParamType::kUnsupportedFlag:
		/* unfoldOptionCombos: decided once the whole query is bound, as ADX always unfolds (ParseQueryString). */
		request.unfold_option_combos = ParseBooleanOrThrow(spec->query_name, value);
		return;
	case ParamType::kUnsupported:
		throw Error(sqlstate::kFeatureNotSupported, "parameter \"" + name + "\" is not supported",
		            spec->why_unsupported);
	case ParamType::kTextList:
	case ParamType::kOrder:
	case ParamType::kIgnored:
		break;
	}
}

} // namespace

bool
ParseDhis2Boolean(std::string_view text, bool &out) noexcept
{
	text = TrimAscii(text);
	for (const std::string_view spelling : {"true", "1", "yes", "on"})
		if (EqualsIgnoreCase(text, spelling)) {
			out = true;
			return true;
		}
	for (const std::string_view spelling : {"false", "0", "no", "off"})
		if (EqualsIgnoreCase(text, spelling)) {
			out = false;
			return true;
		}
	return false;
}

std::optional<int64_t>
ParseDhis2Timestamp(std::string_view text) noexcept
{
	const TimestampResult result = ParseTimestampImpl(text);
	if (result.status != ParseStatus::kOk)
		return std::nullopt;
	return result.micros;
}

std::optional<int32_t>
ParseDhis2Date(std::string_view text) noexcept
{
	const std::optional<int64_t> micros = ParseDhis2Timestamp(text);
	if (!micros)
		return std::nullopt;
	return DayOf(*micros);
}

std::string
ClosestMatch(std::string_view word, const std::vector<std::string_view> &candidates)
{
	const size_t threshold = std::max<size_t>(2, word.size() / 3);
	std::string best;
	size_t best_distance = threshold + 1;
	std::vector<size_t> previous, current;
	for (const std::string_view candidate : candidates) {
		/* The length difference bounds the distance from below; this also caps work on huge names. */
		const size_t gap =
		    word.size() > candidate.size() ? word.size() - candidate.size() : candidate.size() - word.size();
		if (gap >= best_distance)
			continue;
		previous.resize(candidate.size() + 1);
		current.resize(candidate.size() + 1);
		for (size_t j = 0; j <= candidate.size(); j++)
			previous[j] = j;
		for (size_t i = 1; i <= word.size(); i++) {
			current[0] = i;
			for (size_t j = 1; j <= candidate.size(); j++) {
				const size_t substitution =
				    previous[j - 1] + (AsciiLower(word[i - 1]) == AsciiLower(candidate[j - 1]) ? 0 : 1);
				current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
			}
			std::swap(previous, current);
		}
		const size_t distance = previous[candidate.size()];
		if (distance < best_distance) {
			best_distance = distance;
			best.assign(candidate);
		}
	}
	return best;
}

ExportRequest
ParseQueryString(std::string_view query)
{
	size_t base_offset = 0;
	if (!query.empty() && query.front() == '?') {
		query.remove_prefix(1);
		base_offset = 1;
	}
	const std::vector<Pair> pairs = SplitAndDecode(query, base_offset);

	/* Group by name in order of first appearance; the views point into pairs, which no longer changes. */
	struct Group {
		const std::string *name;
		std::vector<std::string> values;
	};
	std::vector<Group> groups;
	std::unordered_map<std::string_view, size_t> index;
	for (const Pair &pair : pairs) {
		const auto [it, inserted] = index.try_emplace(pair.name, groups.size());
		if (inserted)
			groups.push_back(Group{&pair.name, {}});
		groups[it->second].values.push_back(pair.value);
	}

	ExportRequest request;
	for (const Group &group : groups)
		BindParameter(request, *group.name, group.values);
	/*
	 * unfoldOptionCombos: ADX writes option combos as category attributes, which is what true
	 * asks for (and 2.43's ADX default); JSON and CSV write combo ids only, and ADX with false
	 * (combo ids as group and value attributes in 2.43) is not written.
	 */
	if (request.unfold_option_combos && *request.unfold_option_combos != (request.format == Format::kAdx)) {
		const Parameter *spec = FindQueryParameter("unfoldOptionCombos");
		if (request.format == Format::kAdx)
			throw Error(sqlstate::kFeatureNotSupported, "unfoldOptionCombos=false is not supported for ADX",
			            "ADX is written with option combos unfolded into category attributes.",
			            "Leave unfoldOptionCombos out, or set it to true.");
		throw Error(sqlstate::kFeatureNotSupported, "parameter \"unfoldOptionCombos\" is not supported",
		            spec->why_unsupported);
	}
	return request;
}

} // namespace datavalue_export::core
