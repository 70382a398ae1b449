/*
 * src/core/validate.cpp
 *	  Request validation in DHIS2 2.43's order; see validate.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/validate.hpp"

#include <algorithm>
#include <cctype>

#include "core/error.hpp"
#include "core/zip.hpp"

namespace datavalue_export::core {

namespace {

std::string
Upper(std::string_view s)
{
	std::string out(s);
	for (char &c : out)
		c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
	return out;
}

std::string_view
Trim(std::string_view s)
{
	while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
		s.remove_prefix(1);
	while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
		s.remove_suffix(1);
	return s;
}

/* The message is DHIS2's; the detail names the parameter, which DHIS2's message does not. */
void
CheckUids(const std::vector<std::string> &values, const IdScheme &scheme, const char *sql_name, const char *query_name)
{
	if (!scheme.IsUid() || scheme.code_fallback)
		return;
	for (const std::string &v : values)
		if (!IsValidUid(v))
			throw Error(sqlstate::kInvalidTextRepresentation,
			            "UID must be an alphanumeric string of 11 characters starting with a letter, but was: " + v,
			            std::string(v.empty() ? "An empty value was" : "The value was") + " given in " + sql_name +
			                " (" + query_name + " in a query string).");
}

IdScheme
ChooseOutputScheme(const std::optional<std::string> &specific, const IdScheme &fallback)
{
	return specific ? ParseOutputIdScheme(*specific) : fallback;
}

IdScheme
ChooseInputScheme(const std::optional<std::string> &specific, const IdScheme &fallback, std::string_view parameter)
{
	return specific ? ParseInputIdScheme(*specific, parameter) : fallback;
}

/* The schemes both directions share, from upper-cased text: UID (ID is the same), CODE, NAME. */
std::optional<IdSchemeType>
PlainSchemeType(const std::string &text)
{
	if (text == "UID" || text == "ID")
		return IdSchemeType::kUid;
	if (text == "CODE")
		return IdSchemeType::kCode;
	if (text == "NAME")
		return IdSchemeType::kName;
	return std::nullopt;
}

[[noreturn]] void
ThrowInvalidIdScheme(std::string_view text)
{
	throw Error(sqlstate::kInvalidParameterValue, "Invalid ID scheme: " + std::string(text), "",
	            "Use UID, CODE, NAME, ATTRIBUTE:<uid>.");
}

Style
ParseStyle(const std::optional<std::string> &style)
{
	if (!style || Trim(*style) == "2.43")
		return Style::k243;
	if (Trim(*style) == "2.42")
		return Style::k242;
	throw Error(sqlstate::kInvalidParameterValue, "invalid style \"" + *style + "\"", "",
	            "Use '2.43' (the default) or '2.42'.");
}

void
ParseCompression(const ExportRequest &request, ExportPlan &plan)
{
	const std::string value = request.compression ? Upper(Trim(*request.compression)) : "NONE";
	if (value == "GZIP")
		plan.gzip = true;
	else if (value == "ZIP")
		plan.zip = true;
	else if (value != "NONE" && !value.empty())
		throw Error(sqlstate::kInvalidParameterValue,
		            "Value '" + *request.compression +
		                "' is not valid for parameter compression. Valid values are: [NONE, GZIP, ZIP]");
	if (request.compression_level) {
		if (!plan.gzip && !plan.zip)
			throw Error(sqlstate::kInvalidParameterValue, "compression_level requires compression => 'gzip' or 'zip'");
		if (*request.compression_level < 1 || *request.compression_level > 9)
			throw Error(sqlstate::kInvalidParameterValue, "compression level must be between 1 and 9", "",
			            "Level 6 gives the same bytes as DHIS2; leave it out for the fast ISA-L mode.");
		plan.gzip_engine = GzipEngine::kZlib;
		plan.gzip_level = *request.compression_level;
	}
}

void
ParseOrder(const ExportRequest &request, ExportPlan &plan)
{
	if (request.order && Upper(Trim(*request.order)) == "NONE") {
		plan.unordered = true;
		return;
	}
	if (request.order && !Trim(*request.order).empty()) {
		std::string_view rest = *request.order;
		while (!rest.empty()) {
			const size_t comma = rest.find(',');
			const std::string_view given = Trim(rest.substr(0, comma));
			const std::string key = Upper(given);
			rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
			OrderKey k;
			if (key == "DE")
				k = OrderKey::kDataElement;
			else if (key == "OU")
				k = OrderKey::kOrgUnit;
			else if (key == "PE")
				k = OrderKey::kPeriod;
			else if (key == "CREATED")
				k = OrderKey::kCreated;
			else if (key == "AOC")
				k = OrderKey::kAttributeOptionCombo;
			else
				throw Error(sqlstate::kInvalidParameterValue,
				            given.empty() ? "empty order key in \"" + *request.order + "\""
				                          : "invalid order key \"" + std::string(given) + "\"",
				            "", "Use a comma-separated list of DE, OU, PE, CREATED, AOC, or 'none'.");
			if (std::find(plan.order.begin(), plan.order.end(), k) == plan.order.end())
				plan.order.push_back(k);
		}
	} else
		plan.order = {OrderKey::kPeriod, OrderKey::kCreated, OrderKey::kDataElement};
	if (request.order_by_period &&
	    std::find(plan.order.begin(), plan.order.end(), OrderKey::kPeriod) == plan.order.end())
		plan.order.insert(plan.order.begin(), OrderKey::kPeriod);
}

std::optional<int64_t>
ParseDuration(const std::optional<std::string> &raw)
{
	if (!raw || Trim(*raw).empty())
		return std::nullopt; /* 2.43 ignores a blank duration */
	const std::string_view s = *raw;
	const auto bad = [&]() {
		return Error(sqlstate::kInvalidParameterValue, Dhis2Message("E2005", "Duration is not valid: `" + *raw + "`"));
	};
	if (s.size() < 2)
		throw bad();
	/* Any number of digits (Long.valueOf reads leading zeros); a count past int64 saturates. */
	int64_t n = 0;
	bool saturated = false;
	for (size_t i = 0; i + 1 < s.size(); i++) {
		if (!std::isdigit(static_cast<unsigned char>(s[i])))
			throw bad();
		if (n > (INT64_MAX - 9) / 10)
			saturated = true;
		else
			n = n * 10 + (s[i] - '0');
	}
	int64_t unit;
	switch (s.back()) {
	case 'd':
		unit = INT64_C(86400000000);
		break;
	case 'h':
		unit = INT64_C(3600000000);
		break;
	case 'm':
		unit = INT64_C(60000000);
		break;
	case 's':
		unit = INT64_C(1000000);
		break;
	default:
		throw bad();
	}
	/* Clamp absurd durations to "since the beginning of time" instead of overflowing. */
	return saturated || n > INT64_MAX / unit ? INT64_MAX / 2 : n * unit;
}

} // namespace

bool
IsValidUid(std::string_view text) noexcept
{
	if (text.size() != 11 || !std::isalpha(static_cast<unsigned char>(text[0])))
		return false;
	for (char c : text)
		if (!std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80)
			return false;
	return true;
}

std::string
IdScheme::Label() const
{
	switch (type) {
	case IdSchemeType::kUid:
		return "UID";
	case IdSchemeType::kCode:
		return "CODE";
	case IdSchemeType::kName:
		return "NAME";
	case IdSchemeType::kAttribute:
		return "ATTRIBUTE:" + attribute;
	}
	return "UID";
}

IdScheme
ParseOutputIdScheme(std::string_view raw)
{
	const std::string text = Upper(Trim(raw));
	IdScheme scheme;
	if (const auto type = PlainSchemeType(text))
		scheme.type = *type;
	else if (text.rfind("ATTRIBUTE:", 0) == 0 && text.size() == 21) {
		/* The prefix is case-insensitive; the UID keeps the case it was given in. */
		scheme.type = IdSchemeType::kAttribute;
		scheme.attribute = std::string(Trim(raw).substr(10));
		if (!IsValidUid(scheme.attribute))
			ThrowInvalidIdScheme(raw);
	} else
		ThrowInvalidIdScheme(raw);
	return scheme;
}

IdScheme
ParseInputIdScheme(std::string_view raw, std::string_view parameter)
{
	/* DHIS2 binds input schemes to its IdentifiableProperty enum: upper-cased, then looked up. */
	const std::string text = Upper(Trim(raw));
	IdScheme scheme;
	if (const auto type = PlainSchemeType(text))
		scheme.type = *type;
	else if (text == "ATTRIBUTE" || text == "UUID")
		/* Values of the enum that 2.43 binds, then refuses (ATTRIBUTE) or cannot look up (UUID). */
		throw Error(sqlstate::kFeatureNotSupported, "input ID scheme " + text + " is not supported", "",
		            "Use UID, CODE or NAME.");
	else
		throw Error(sqlstate::kInvalidParameterValue, "Value '" + std::string(raw) + "' is not valid for parameter " +
		                                                  std::string(parameter) +
		                                                  ". Valid values are: [ID, UID, UUID, NAME, CODE, ATTRIBUTE]");
	return scheme;
}

std::string
Dhis2Message(std::string_view code, std::string_view text)
{
	std::string out(code);
	out.append(": ");
	out.append(text);
	return out;
}

ExportPlan
ValidateRequest(ExportRequest request)
{
	ExportPlan plan;
	for (auto *list : {&request.data_set, &request.data_element, &request.data_element_group, &request.period,
	                   &request.org_unit, &request.org_unit_group, &request.attribute_option_combo,
	                   &request.category_option_combo, &request.attribute_options})
		DeduplicateKeepingFirst(*list); /* DHIS2 takes these parameters as sets */
	/* An empty id scheme is not given, in SQL as in the query string (idScheme=). */
	for (auto *scheme :
	     {&request.id_scheme, &request.data_element_id_scheme, &request.org_unit_id_scheme,
	      &request.category_option_combo_id_scheme, &request.attribute_option_combo_id_scheme,
	      &request.data_set_id_scheme, &request.category_id_scheme, &request.category_option_id_scheme,
	      &request.input_id_scheme, &request.input_org_unit_id_scheme, &request.input_data_element_id_scheme,
	      &request.input_data_set_id_scheme, &request.input_data_element_group_id_scheme})
		if (*scheme && Trim(**scheme).empty())
			scheme->reset();

	/* 1. Binding: every option whose text has a fixed vocabulary. */
	plan.style = ParseStyle(request.style);
	ParseCompression(request, plan);
	/* ADX defaults idScheme to CODE (DHIS2 2.42 AdxDataService.getFromUrl, 2.43 exportInGroups). */
	const bool adx = request.format == Format::kAdx;
	const IdScheme id_scheme = request.id_scheme ? ParseOutputIdScheme(*request.id_scheme)
	                           : adx             ? IdScheme{IdSchemeType::kCode, {}}
	                                             : IdScheme{};
	plan.data_element_scheme = ChooseOutputScheme(request.data_element_id_scheme, id_scheme);
	plan.org_unit_scheme = ChooseOutputScheme(request.org_unit_id_scheme, id_scheme);
	plan.category_option_combo_scheme = ChooseOutputScheme(request.category_option_combo_id_scheme, id_scheme);
	plan.attribute_option_combo_scheme = ChooseOutputScheme(request.attribute_option_combo_id_scheme, id_scheme);
	plan.data_set_scheme = ChooseOutputScheme(request.data_set_id_scheme, id_scheme);
	if (!adx && (request.category_id_scheme || request.category_option_id_scheme))
		throw Error(sqlstate::kFeatureNotSupported,
		            std::string(request.category_id_scheme ? "categoryIdScheme" : "categoryOptionIdScheme") +
		                " is only supported for ADX",
		            "DHIS2 uses it for ADX output and unfolded option combos; the other formats here write option "
		            "combo ids.",
		            "Use format=adx, or leave the parameter out.");
	plan.category_scheme = ChooseOutputScheme(request.category_id_scheme, id_scheme);
	plan.category_option_scheme = ChooseOutputScheme(request.category_option_id_scheme, id_scheme);
	if (adx) {
		/*
		 * ADX writes option combos as category attributes, never as combo ids: the combo schemes
		 * stand for the category schemes (which ids must exist, E8204).
		 */
		const IdScheme &combo = !plan.category_scheme.IsUid() ? plan.category_scheme : plan.category_option_scheme;
		plan.category_option_combo_scheme = combo;
		plan.attribute_option_combo_scheme = combo;
		/* Identifiers that are not UIDs are read as codes (2.42 always, 2.43 by default). */
		request.input_use_code_fallback = true;
	}
	const IdScheme input_scheme =
	    request.input_id_scheme ? ParseInputIdScheme(*request.input_id_scheme, "inputIdScheme") : IdScheme{};
	plan.input_data_element_scheme =
	    ChooseInputScheme(request.input_data_element_id_scheme, input_scheme, "inputDataElementIdScheme");
	plan.input_data_set_scheme =
	    ChooseInputScheme(request.input_data_set_id_scheme, input_scheme, "inputDataSetIdScheme");
	plan.input_data_element_group_scheme =
	    ChooseInputScheme(request.input_data_element_group_id_scheme, input_scheme, "inputDataElementGroupIdScheme");
	plan.input_org_unit_scheme =
	    ChooseInputScheme(request.input_org_unit_id_scheme, input_scheme, "inputOrgUnitIdScheme");
	plan.input_other_scheme = input_scheme;
	if (request.input_use_code_fallback) {
		/* Only where no input scheme was given, the kind's own or inputIdScheme (2.43 decodeParams). */
		const bool any = request.input_id_scheme.has_value();
		plan.input_data_element_scheme.code_fallback = !any && !request.input_data_element_id_scheme;
		plan.input_data_set_scheme.code_fallback = !any && !request.input_data_set_id_scheme;
		plan.input_data_element_group_scheme.code_fallback = !any && !request.input_data_element_group_id_scheme;
		plan.input_org_unit_scheme.code_fallback = !any && !request.input_org_unit_id_scheme;
		plan.input_other_scheme.code_fallback = !any;
	}
	ParseOrder(request, plan);
	if (adx) {
		/* Groups: per data set, by period, org unit path and AOC uid (DHIS2 2.43's ORDER BY). */
		plan.order = {OrderKey::kPeriod, OrderKey::kOrgUnit, OrderKey::kAttributeOptionCombo};
		plan.unordered = false;
	}

	/*
	 * 2. Decoding, in DHIS2's order. Under a scheme with code_fallback, values that are not UIDs
	 * are looked up as codes, so the UID format check is skipped for them.
	 */
	CheckUids(request.data_set, plan.input_data_set_scheme, "data_set", "dataSet");
	CheckUids(request.data_element_group, plan.input_data_element_group_scheme, "data_element_group",
	          "dataElementGroup");
	CheckUids(request.data_element, plan.input_data_element_scheme, "data_element", "dataElement");
	CheckUids(request.org_unit, plan.input_org_unit_scheme, "org_unit", "orgUnit");
	CheckUids(request.org_unit_group, plan.input_other_scheme, "org_unit_group", "orgUnitGroup");
	CheckUids(request.category_option_combo, plan.input_other_scheme, "category_option_combo", "categoryOptionCombo");
	CheckUids(request.attribute_option_combo, plan.input_other_scheme, "attribute_option_combo",
	          "attributeOptionCombo");
	CheckUids(request.attribute_options, plan.input_other_scheme, "attribute_options", "attributeOptions");
	if (request.attribute_combo)
		CheckUids({*request.attribute_combo}, plan.input_other_scheme, "attribute_combo", "attributeCombo");
	for (const std::string &text : request.period) {
		const std::optional<Period> period = ParseIsoPeriod(Trim(text));
		if (!period)
			throw Error(sqlstate::kInvalidDatetimeFormat,
			            "Invalid Period `" + text + "`, failed to create date interval");
		plan.periods.push_back(*period);
		plan.period_iso.push_back(IsoPeriod(period->type, period->start));
	}
	plan.last_updated_duration_us = ParseDuration(request.last_updated_duration);

	/* 3. validateFilters: the first failure wins. */
	const bool has_dates = request.start_date && request.end_date;
	if (request.data_set.empty() && request.data_element.empty() && request.data_element_group.empty())
		throw Error(
		    sqlstate::kInvalidParameterValue,
		    Dhis2Message("E2001", "At least one data element, data set or data element group must be specified"));
	if (request.period.empty() && !has_dates && !request.last_updated && !plan.last_updated_duration_us)
		throw Error(sqlstate::kInvalidParameterValue,
		            Dhis2Message("E2002", "At least one period, start/end dates, last updated or last updated "
		                                  "duration must be specified"));
	if (request.org_unit.empty() && request.org_unit_group.empty())
		throw Error(
		    sqlstate::kInvalidParameterValue,
		    Dhis2Message("E2006", "At least one organisation unit or organisation unit group must be specified"));
	/* Periods with both dates; one date alone is ignored, with periods or without (2.43 validateFilters). */
	if (!request.period.empty() && has_dates)
		throw Error(sqlstate::kInvalidParameterValue,
		            Dhis2Message("E2003", "Both periods and start/end date cannot be specified"));
	/* Start strictly after end, to the time of day when a query string gave one (2.43 compares instants). */
	const bool start_after_end = request.start_instant && request.end_instant
	                                 ? *request.start_instant > *request.end_instant
	                                 : has_dates && *request.start_date > *request.end_date;
	if (has_dates && start_after_end)
		throw Error(sqlstate::kInvalidParameterValue, Dhis2Message("E2004", "Start date must be before end date"));
	if (request.children && !request.org_unit_group.empty())
		throw Error(
		    sqlstate::kInvalidParameterValue,
		    Dhis2Message("E2007", "Organisation unit children cannot be included for organisation unit groups"));
	if (request.limit && *request.limit < 0)
		throw Error(sqlstate::kInvalidRowCountInLimit,
		            Dhis2Message("E2009", "Limit cannot be less than zero: `" + std::to_string(*request.limit) + "`"));
	if (request.offset && *request.offset < 0)
		/* DHIS2 takes the absolute value; the most negative bigint has none, so it skips everything. */
		request.offset = *request.offset == INT64_MIN ? INT64_MAX : -*request.offset;
	/* A combo without options: 2.42's E2040 (2.43 drops the combo without a word). */
	if (request.attribute_combo && request.attribute_options.empty() && request.attribute_option_combo.empty())
		throw Error(sqlstate::kInvalidParameterValue,
		            Dhis2Message("E2040", "Both category combination and category options must be specified"),
		            "attribute_combo (attributeCombo) was given without attribute_options (attributeOptions).");

	/* A zip entry's name has a 16-bit length: a longer attachment would wrap it and corrupt the archive. */
	if (plan.zip) {
		plan.zip_entry_name =
		    ZipEntryName(plan.style, request.format, request.attachment, request.start_date, request.end_date);
		if (plan.zip_entry_name.size() > kZipMaxNameBytes)
			throw Error(sqlstate::kProgramLimitExceeded,
			            "zip entry name is too long: " + std::to_string(plan.zip_entry_name.size()) + " bytes",
			            "A zip entry name holds at most " + std::to_string(kZipMaxNameBytes) +
			                " bytes; the name comes from the attachment parameter.",
			            "Shorten attachment.");
	}

	plan.request = std::move(request);
	return plan;
}

} // namespace datavalue_export::core
