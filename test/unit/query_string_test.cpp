/*
 * test/unit/query_string_test.cpp
 *	  Unit tests for core/query_string: DHIS2 query-string binding into ExportRequest.
 *
 * Every rule in ParseQueryString has at least one test that fails if the rule breaks, and every
 * error path pins its SQLSTATE and message, because those reach users verbatim via ereport.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/calendar.hpp"
#include "core/error.hpp"
#include "core/query_string.hpp"

namespace datavalue_export::core {
namespace {

using Strings = std::vector<std::string>;

constexpr int64_t kMicrosPerSecond = INT64_C(1000000);

int64_t
Micros(int32_t y, int32_t mo, int32_t d, int32_t h = 0, int32_t mi = 0, int32_t s = 0, int64_t us = 0)
{
	return DaysFromCivil(y, mo, d) * kMicrosPerDay + ((h * INT64_C(60) + mi) * 60 + s) * kMicrosPerSecond + us;
}

/* Runs ParseQueryString and returns the error it throws; fails the test if it does not throw. */
Error
ErrorOf(const std::string &query)
{
	try {
		ParseQueryString(query);
	} catch (const Error &e) {
		return e;
	}
	ADD_FAILURE() << "no error for query: " << query;
	return Error("00000", "");
}

void
ExpectError(const std::string &query, const std::string &sqlstate, const std::string &message,
            const std::string &hint = "<any>")
{
	const Error e = ErrorOf(query);
	EXPECT_EQ(e.Sqlstate(), sqlstate) << query;
	EXPECT_EQ(e.what(), message) << query;
	if (hint != "<any>") {
		EXPECT_EQ(e.Hint(), hint) << query;
	}
}

/* ---- Basic shape ---- */

TEST(QueryStringTest, EmptyQueryGivesDefaults)
{
	for (const char *query : {"", "?", "&", "&&&", "?&"}) {
		const ExportRequest r = ParseQueryString(query);
		EXPECT_EQ(r.format, Format::kJson) << query;
		EXPECT_TRUE(r.data_set.empty()) << query;
		EXPECT_FALSE(r.children) << query;
		EXPECT_FALSE(r.start_date.has_value()) << query;
		EXPECT_FALSE(r.limit.has_value()) << query;
		EXPECT_FALSE(r.id_scheme.has_value()) << query;
	}
}

TEST(QueryStringTest, BriefExample)
{
	const ExportRequest r = ParseQueryString(
	    "dataSet=pBOMPrpg1QX&period=202401&orgUnit=ImspTQPwCqd&children=true&format=csv&compression=gzip");
	EXPECT_EQ(r.data_set, Strings{"pBOMPrpg1QX"});
	EXPECT_EQ(r.period, Strings{"202401"});
	EXPECT_EQ(r.org_unit, Strings{"ImspTQPwCqd"});
	EXPECT_TRUE(r.children);
	EXPECT_EQ(r.format, Format::kCsv);
	EXPECT_EQ(r.compression, "gzip");
}

TEST(QueryStringTest, OneLeadingQuestionMarkIsTolerated)
{
	EXPECT_EQ(ParseQueryString("?dataSet=a").data_set, Strings{"a"});
	/* A second '?' is part of the name. */
	ExpectError("??dataSet=a", sqlstate::kUndefinedParameter, "unknown parameter \"?dataSet\"",
	            "Perhaps you meant \"dataSet\".");
}

TEST(QueryStringTest, EmptyPiecesAreSkipped)
{
	const ExportRequest r = ParseQueryString("&&dataSet=a&&period=202401&");
	EXPECT_EQ(r.data_set, Strings{"a"});
	EXPECT_EQ(r.period, Strings{"202401"});
}

TEST(QueryStringTest, NameWithoutEqualsSignHasEmptyValue)
{
	const ExportRequest r = ParseQueryString("children&dataSet&idScheme");
	EXPECT_FALSE(r.children);
	EXPECT_TRUE(r.data_set.empty());
	EXPECT_FALSE(r.id_scheme.has_value());
}

TEST(QueryStringTest, ValueMayContainEqualsSign)
{
	EXPECT_EQ(ParseQueryString("attributeCombo=a=b").attribute_combo, "a=b");
}

TEST(QueryStringTest, EmptyNameIsASyntaxError)
{
	ExpectError("=x", sqlstate::kSyntaxError, "empty parameter name in query string");
	ExpectError("dataSet=a&=", sqlstate::kSyntaxError, "empty parameter name in query string");
}

/* ---- Every parameter maps to its field ---- */

TEST(QueryStringTest, EveryParameterMapsToItsField)
{
	const ExportRequest r = ParseQueryString("dataSet=ds1"
	                                         "&dataElement=de1"
	                                         "&dataElementGroup=deg1"
	                                         "&period=202401"
	                                         "&startDate=2024-01-01"
	                                         "&endDate=2024-01-31"
	                                         "&orgUnit=ou1"
	                                         "&children=true"
	                                         "&orgUnitGroup=oug1"
	                                         "&level=3"
	                                         "&attributeOptionCombo=aoc1"
	                                         "&attributeCombo=ac1"
	                                         "&attributeOptions=ao1"
	                                         "&categoryOptionCombo=coc1"
	                                         "&includeDeleted=true"
	                                         "&lastUpdated=2024-02-03"
	                                         "&lastUpdatedDuration=10d"
	                                         "&limit=100"
	                                         "&offset=20"
	                                         "&order=PE,DE"
	                                         "&orderByPeriod=true"
	                                         "&idScheme=CODE"
	                                         "&dataElementIdScheme=NAME"
	                                         "&orgUnitIdScheme=UID"
	                                         "&categoryOptionComboIdScheme=code"
	                                         "&attributeOptionComboIdScheme=name"
	                                         "&dataSetIdScheme=ATTRIBUTE:abcdefghijk"
	                                         "&inputIdScheme=CODE"
	                                         "&inputOrgUnitIdScheme=NAME"
	                                         "&inputDataElementIdScheme=UID"
	                                         "&inputDataSetIdScheme=code"
	                                         "&inputDataElementGroupIdScheme=name"
	                                         "&inputUseCodeFallback=true"
	                                         "&excludeDefaultCoc=true"
	                                         "&excludeDefaultAoc=true"
	                                         "&format=csv"
	                                         "&compression=gzip"
	                                         "&attachment=export.csv"
	                                         "&style=2.42"
	                                         "&compressionLevel=6");
	EXPECT_EQ(r.data_set, Strings{"ds1"});
	EXPECT_EQ(r.data_element, Strings{"de1"});
	EXPECT_EQ(r.data_element_group, Strings{"deg1"});
	EXPECT_EQ(r.period, Strings{"202401"});
	EXPECT_EQ(r.start_date, 8766);
	EXPECT_EQ(r.end_date, 8766 + 30);
	EXPECT_EQ(r.org_unit, Strings{"ou1"});
	EXPECT_TRUE(r.children);
	EXPECT_EQ(r.org_unit_group, Strings{"oug1"});
	EXPECT_EQ(r.level, 3);
	EXPECT_EQ(r.attribute_option_combo, Strings{"aoc1"});
	EXPECT_EQ(r.attribute_combo, "ac1");
	EXPECT_EQ(r.attribute_options, Strings{"ao1"});
	EXPECT_EQ(r.category_option_combo, Strings{"coc1"});
	EXPECT_TRUE(r.include_deleted);
	EXPECT_EQ(r.last_updated, Micros(2024, 2, 3));
	EXPECT_EQ(r.last_updated_duration, "10d");
	EXPECT_EQ(r.limit, 100);
	EXPECT_EQ(r.offset, 20);
	EXPECT_EQ(r.order, "PE,DE");
	EXPECT_TRUE(r.order_by_period);
	EXPECT_EQ(r.id_scheme, "CODE");
	EXPECT_EQ(r.data_element_id_scheme, "NAME");
	EXPECT_EQ(r.org_unit_id_scheme, "UID");
	EXPECT_EQ(r.category_option_combo_id_scheme, "code");
	EXPECT_EQ(r.attribute_option_combo_id_scheme, "name");
	EXPECT_EQ(r.data_set_id_scheme, "ATTRIBUTE:abcdefghijk");
	EXPECT_EQ(r.input_id_scheme, "CODE");
	EXPECT_EQ(r.input_org_unit_id_scheme, "NAME");
	EXPECT_EQ(r.input_data_element_id_scheme, "UID");
	EXPECT_EQ(r.input_data_set_id_scheme, "code");
	EXPECT_EQ(r.input_data_element_group_id_scheme, "name");
	EXPECT_TRUE(r.input_use_code_fallback);
	EXPECT_TRUE(r.exclude_default_coc);
	EXPECT_TRUE(r.exclude_default_aoc);
	EXPECT_EQ(r.format, Format::kCsv);
	EXPECT_EQ(r.compression, "gzip");
	EXPECT_EQ(r.style, "2.42");
	EXPECT_EQ(r.compression_level, 6);
}

/* Each boolean parameter sets only its own field. */
TEST(QueryStringTest, EachBooleanParameterSetsItsOwnField)
{
	const std::vector<std::pair<std::string, bool ExportRequest::*>> flags = {
	    {"children", &ExportRequest::children},
	    {"includeDeleted", &ExportRequest::include_deleted},
	    {"orderByPeriod", &ExportRequest::order_by_period},
	    {"inputUseCodeFallback", &ExportRequest::input_use_code_fallback},
	    {"excludeDefaultCoc", &ExportRequest::exclude_default_coc},
	    {"excludeDefaultAoc", &ExportRequest::exclude_default_aoc},
	};
	for (const auto &[name, member] : flags) {
		const ExportRequest r = ParseQueryString(name + "=true");
		for (const auto &[other_name, other_member] : flags)
			EXPECT_EQ(r.*other_member, other_name == name) << name << " vs " << other_name;
	}
}

/* Each list parameter fills only its own vector. */
TEST(QueryStringTest, EachListParameterFillsItsOwnField)
{
	const std::vector<std::pair<std::string, std::vector<std::string> ExportRequest::*>> lists = {
	    {"dataSet", &ExportRequest::data_set},
	    {"dataElement", &ExportRequest::data_element},
	    {"dataElementGroup", &ExportRequest::data_element_group},
	    {"period", &ExportRequest::period},
	    {"orgUnit", &ExportRequest::org_unit},
	    {"orgUnitGroup", &ExportRequest::org_unit_group},
	    {"attributeOptionCombo", &ExportRequest::attribute_option_combo},
	    {"attributeOptions", &ExportRequest::attribute_options},
	    {"categoryOptionCombo", &ExportRequest::category_option_combo},
	};
	for (const auto &[name, member] : lists) {
		const ExportRequest r = ParseQueryString(name + "=x,y&" + name + "=z");
		for (const auto &[other_name, other_member] : lists)
			EXPECT_EQ(r.*other_member, other_name == name ? (Strings{"x,y", "z"}) : Strings())
			    << name << " vs " << other_name;
	}
}

TEST(QueryStringTest, AttachmentRepeatsJoinWithCommas)
{
	const ExportRequest r = ParseQueryString("attachment=a.json&attachment=b.json&dataSet=x");
	EXPECT_EQ(r.attachment, "a.json,b.json");
	EXPECT_EQ(r.data_set, Strings{"x"});
	EXPECT_EQ(r.format, Format::kJson);
	EXPECT_FALSE(r.compression.has_value());
}

/* ---- Multi-valued binding: repeats vs comma lists (doc §2.1) ---- */

TEST(QueryStringTest, SingleOccurrenceSplitsOnCommas)
{
	EXPECT_EQ(ParseQueryString("dataSet=a,b,c").data_set, (Strings{"a", "b", "c"}));
	EXPECT_EQ(ParseQueryString("period=202401,202402").period, (Strings{"202401", "202402"}));
}

TEST(QueryStringTest, RepeatsAccumulateInOrder)
{
	EXPECT_EQ(ParseQueryString("dataSet=b&dataSet=a&dataSet=c").data_set, (Strings{"b", "a", "c"}));
	/* Interleaved with other parameters. */
	const ExportRequest r = ParseQueryString("orgUnit=o1&dataSet=a&orgUnit=o2");
	EXPECT_EQ(r.org_unit, (Strings{"o1", "o2"}));
	EXPECT_EQ(r.data_set, Strings{"a"});
}

TEST(QueryStringTest, RepeatedValuesAreTakenWholeCommasIncluded)
{
	EXPECT_EQ(ParseQueryString("dataSet=a,b&dataSet=c").data_set, (Strings{"a,b", "c"}));
	/* An encoded comma inside a repeated value stays in it. */
	EXPECT_EQ(ParseQueryString("dataSet=a%2Cb&dataSet=c").data_set, (Strings{"a,b", "c"}));
	/* An empty repeat still switches to whole-value binding. */
	EXPECT_EQ(ParseQueryString("dataSet=a,b&dataSet=").data_set, Strings{"a,b"});
}

TEST(QueryStringTest, EncodedCommaInASingleValueStillSplits)
{
	/* Decoding happens before binding, as in the servlet container. */
	EXPECT_EQ(ParseQueryString("dataSet=a%2Cb").data_set, (Strings{"a", "b"}));
	EXPECT_EQ(ParseQueryString("dataSet=a%2cb").data_set, (Strings{"a", "b"}));
}

TEST(QueryStringTest, EmptyListValuesAddNothing)
{
	EXPECT_TRUE(ParseQueryString("dataSet=").data_set.empty());
	EXPECT_TRUE(ParseQueryString("dataSet=&dataSet=").data_set.empty());
	EXPECT_TRUE(ParseQueryString("dataSet=,,").data_set.empty());
	EXPECT_EQ(ParseQueryString("dataSet=a,,b,").data_set, (Strings{"a", "b"}));
	EXPECT_EQ(ParseQueryString("dataSet=&dataSet=a").data_set, Strings{"a"});
}

TEST(QueryStringTest, CommaListElementsAreTrimmedButRepeatsAreNot)
{
	EXPECT_EQ(ParseQueryString("dataSet=a,+b+,%20c").data_set, (Strings{"a", "b", "c"}));
	EXPECT_EQ(ParseQueryString("dataSet=+a&dataSet=b+").data_set, (Strings{" a", "b "}));
}

TEST(QueryStringTest, OrderRepeatsJoinIntoOneList)
{
	EXPECT_EQ(ParseQueryString("order=DE,OU").order, "DE,OU");
	EXPECT_EQ(ParseQueryString("order=DE&order=PE&order=").order, "DE,PE");
	EXPECT_FALSE(ParseQueryString("order=").order.has_value());
}

/* ---- Percent-decoding ---- */

TEST(QueryStringTest, PercentDecodingOfValues)
{
	EXPECT_EQ(ParseQueryString("attributeCombo=a%20b").attribute_combo, "a b");
	EXPECT_EQ(ParseQueryString("attributeCombo=100%25").attribute_combo, "100%");
	EXPECT_EQ(ParseQueryString("attributeCombo=%26%3D%2B").attribute_combo, "&=+");
	EXPECT_EQ(ParseQueryString("attributeCombo=%4a%4A").attribute_combo, "JJ");
}

TEST(QueryStringTest, PercentDecodingOfUtf8)
{
	/* "é" (2 bytes), "€" (3 bytes), U+1F600 (4 bytes). */
	EXPECT_EQ(ParseQueryString("dataSet=caf%C3%A9").data_set, Strings{"caf\xC3\xA9"});
	EXPECT_EQ(ParseQueryString("dataSet=%E2%82%AC").data_set, Strings{"\xE2\x82\xAC"});
	EXPECT_EQ(ParseQueryString("dataSet=%F0%9F%98%80").data_set, Strings{"\xF0\x9F\x98\x80"});
	/* Raw (unencoded) UTF-8 passes through. */
	EXPECT_EQ(ParseQueryString("dataSet=caf\xC3\xA9").data_set, Strings{"caf\xC3\xA9"});
}

TEST(QueryStringTest, PercentDecodingOfNames)
{
	EXPECT_EQ(ParseQueryString("data%53et=a").data_set, Strings{"a"});
	EXPECT_EQ(ParseQueryString("%64ataSet=a&dataSet=b").data_set, (Strings{"a", "b"}));
}

TEST(QueryStringTest, PlusMeansSpace)
{
	EXPECT_EQ(ParseQueryString("attributeCombo=a+b").attribute_combo, "a b");
	EXPECT_EQ(ParseQueryString("attributeCombo=a%2Bb").attribute_combo, "a+b");
}

TEST(QueryStringTest, MalformedPercentEscape)
{
	for (const char *query :
	     {"dataSet=%", "dataSet=%2", "dataSet=%zz", "dataSet=%2g", "dataSet=a%", "data%Set=a", "dataSet=%%41"})
		ExpectError(query, sqlstate::kInvalidParameterValue, "invalid percent-encoding in query string",
		            "Write a literal percent sign as %25.");
	/* The detail points at the byte offset in the query as given (leading '?' counted). */
	EXPECT_EQ(ErrorOf("?a=b&dataSet=%zz").Detail(),
	          "The percent sign at byte offset 13 is not followed by two hexadecimal digits.");
}

TEST(QueryStringTest, InvalidUtf8AndNulAreRejected)
{
	for (const char *value : {"%FF", "%C3", "%C3%28", "%C0%AF", "%ED%A0%80", "%F4%90%80%80", "%E2%82", "a%00b"})
		ExpectError(std::string("dataSet=") + value, sqlstate::kInvalidParameterValue,
		            "invalid UTF-8 in the value of parameter \"dataSet\"");
	ExpectError("data%FFSet=a", sqlstate::kInvalidParameterValue, "invalid UTF-8 in a query string parameter name");
}

TEST(QueryStringTest, EncodingErrorsComeBeforeBindingErrors)
{
	/* The unknown parameter comes first, but the whole query is decoded before anything is bound. */
	ExpectError("bogus=1&dataSet=%zz", sqlstate::kInvalidParameterValue, "invalid percent-encoding in query string");
}

/* ---- Booleans ---- */

TEST(QueryStringTest, BooleanSpellings)
{
	for (const char *text : {"true", "TRUE", "True", "1", "yes", "YES", "on", "On", "+true+", "%09yes"})
		EXPECT_TRUE(ParseQueryString(std::string("children=") + text).children) << text;
	for (const char *text : {"false", "FALSE", "0", "no", "No", "off", "OFF"})
		EXPECT_FALSE(ParseQueryString(std::string("children=") + text).children) << text;
}

TEST(QueryStringTest, ParseDhis2BooleanHelper)
{
	bool out = false;
	EXPECT_TRUE(ParseDhis2Boolean("oN", out));
	EXPECT_TRUE(out);
	EXPECT_TRUE(ParseDhis2Boolean(" 0 ", out));
	EXPECT_FALSE(out);
	out = true;
	for (const char *text : {"", " ", "t", "f", "y", "n", "2", "-1", "truee", "yes please", "tru"})
		EXPECT_FALSE(ParseDhis2Boolean(text, out)) << text;
	EXPECT_TRUE(out) << "out must be left alone on failure";
}

TEST(QueryStringTest, RejectedBoolean)
{
	const Error e = ErrorOf("children=maybe");
	EXPECT_STREQ(e.Sqlstate(), sqlstate::kInvalidParameterValue);
	EXPECT_STREQ(e.what(), "Value 'maybe' is not valid for parameter children.");
	EXPECT_EQ(e.Detail(), "Valid values are: true, false, 1, 0, yes, no, on, off.");
	ExpectError("includeDeleted=t", sqlstate::kInvalidParameterValue,
	            "Value 't' is not valid for parameter includeDeleted.");
}

TEST(QueryStringTest, EmptyBooleanMeansNotGiven)
{
	EXPECT_FALSE(ParseQueryString("children=").children);
	EXPECT_FALSE(ParseQueryString("children=+").children);
}

/* ---- Integers ---- */

TEST(QueryStringTest, Integers)
{
	EXPECT_EQ(ParseQueryString("level=4").level, 4);
	EXPECT_EQ(ParseQueryString("level=%2B4").level, 4);
	EXPECT_EQ(ParseQueryString("level=-4").level, -4);
	EXPECT_EQ(ParseQueryString("level=007").level, 7);
	EXPECT_EQ(ParseQueryString("level=2147483647").level, 2147483647);
	EXPECT_EQ(ParseQueryString("level=-2147483648").level, -2147483647 - 1);
	/* Negative limits are stored; ValidateRequest reports E2009. */
	EXPECT_EQ(ParseQueryString("limit=-1").limit, -1);
	EXPECT_EQ(ParseQueryString("limit=9223372036854775807").limit, INT64_MAX);
	EXPECT_EQ(ParseQueryString("offset=-9223372036854775808").offset, INT64_MIN);
	EXPECT_EQ(ParseQueryString("compressionLevel=9").compression_level, 9);
	/* Spring trims numbers; an empty or blank value is "not given". */
	EXPECT_EQ(ParseQueryString("limit=+10+").limit, 10);
	EXPECT_FALSE(ParseQueryString("limit=").limit.has_value());
	EXPECT_FALSE(ParseQueryString("limit=+").limit.has_value());
}

TEST(QueryStringTest, InvalidIntegers)
{
	for (const char *query : {"level=abc", "level=1.5", "level=1e3", "level=0x10", "level=-", "level=%2B", "level=1+2",
	                          "limit=--1", "offset=12a", "compressionLevel=six"})
		EXPECT_STREQ(ErrorOf(query).Sqlstate(), sqlstate::kInvalidParameterValue) << query;
	ExpectError("level=abc", sqlstate::kInvalidParameterValue, "Value 'abc' is not valid for parameter level.");
	EXPECT_EQ(ErrorOf("level=abc").Detail(), "The value must be an integer.");
}

TEST(QueryStringTest, IntegerRanges)
{
	for (const char *query :
	     {"level=2147483648", "level=-2147483649", "compressionLevel=99999999999", "limit=9223372036854775808",
	      "offset=-9223372036854775809", "limit=99999999999999999999999"}) {
		const Error e = ErrorOf(query);
		EXPECT_STREQ(e.Sqlstate(), sqlstate::kInvalidParameterValue) << query;
		EXPECT_NE(e.Detail().find("out of range"), std::string::npos) << query;
	}
	/* A huge number with junk after it is a format error, not a range error. */
	EXPECT_EQ(ErrorOf("limit=99999999999999999999999x").Detail(), "The value must be an integer.");
}

/* ---- Dates and timestamps ---- */

TEST(QueryStringTest, DateFormats)
{
	EXPECT_EQ(ParseDhis2Date("2000-01-01"), 0);
	EXPECT_EQ(ParseDhis2Date("2024-01-01"), 8766);
	EXPECT_EQ(ParseDhis2Date("20240101"), 8766);
	EXPECT_EQ(ParseDhis2Date("2024-01"), 8766);
	EXPECT_EQ(ParseDhis2Date("2024"), 8766);
	EXPECT_EQ(ParseDhis2Date("2024-03"), 8766 + 31 + 29);
	EXPECT_EQ(ParseDhis2Date("2024-02-29"), 8766 + 31 + 28);
	EXPECT_EQ(ParseDhis2Date("1999-12-31"), -1);
	EXPECT_EQ(ParseDhis2Date("1999-12-31T12:00"), -1);
	EXPECT_EQ(ParseDhis2Date("0000-01-01"), -730485);
	EXPECT_EQ(ParseDhis2Date("9999-12-31"), 2921939);
	EXPECT_EQ(ParseDhis2Date("2000-02-29"), 59);
	/* A date-time takes its date; the time of day is dropped. */
	EXPECT_EQ(ParseDhis2Date("2024-01-01T23:59:59.999Z"), 8766);
	EXPECT_EQ(ParseDhis2Date("2024-01-01 23:59:59+0000"), 8766);
	/* With an offset, the UTC date counts. */
	EXPECT_EQ(ParseDhis2Date("2024-01-01T00:30:00+01:00"), 8765);
	EXPECT_EQ(ParseDhis2Date("2024-01-01T23:30:00-01:00"), 8767);
}

TEST(QueryStringTest, TimestampFormats)
{
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T00:00:00.001Z"), 1000);
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01"), 0);
	EXPECT_EQ(ParseDhis2Timestamp("1999-12-31T23:59:59Z"), -kMicrosPerSecond);
	EXPECT_EQ(ParseDhis2Timestamp("2024-01-15"), Micros(2024, 1, 15));
	EXPECT_EQ(ParseDhis2Timestamp("2024-01-15T10"), Micros(2024, 1, 15, 10));
	EXPECT_EQ(ParseDhis2Timestamp("2024-01-15T10Z"), Micros(2024, 1, 15, 10));
	EXPECT_EQ(ParseDhis2Timestamp("2024-01-15T10:30"), Micros(2024, 1, 15, 10, 30));
	EXPECT_EQ(ParseDhis2Timestamp("2024-01-15T10:30:45"), Micros(2024, 1, 15, 10, 30, 45));
	EXPECT_EQ(ParseDhis2Timestamp("2024-01-15T10:30:45Z"), Micros(2024, 1, 15, 10, 30, 45));
	EXPECT_EQ(ParseDhis2Timestamp("2024-01-15 10:30:45Z"), Micros(2024, 1, 15, 10, 30, 45));
	EXPECT_EQ(ParseDhis2Timestamp("2024-01-15 10:30:45+0200"), Micros(2024, 1, 15, 8, 30, 45));
	EXPECT_EQ(ParseDhis2Timestamp("2024-01-15"), 8780 * kMicrosPerDay);
}

TEST(QueryStringTest, TimestampFractions)
{
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T00:00:00.123"), 123000);
	/* A java.util.Date holds milliseconds: longer fractions are truncated to them, not rounded. */
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T00:00:00.1234"), 123000);
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T00:00:00.0001"), 0);
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T00:00:00.123456"), 123000);
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T00:00:00.123456789"), 123000);
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T00:00:00.999999999Z"), 999000);
	EXPECT_EQ(ParseDhis2Timestamp("2024-01-15T10:30:45.500+01:00"), Micros(2024, 1, 15, 9, 30, 45, 500000));
	for (const char *text :
	     {"2000-01-01T00:00:00.", "2000-01-01T00:00:00.1", "2000-01-01T00:00:00.12", "2000-01-01T00:00:00.12345",
	      "2000-01-01T00:00:00.1234567", "2000-01-01T00:00:00.1234567890"})
		EXPECT_FALSE(ParseDhis2Timestamp(text).has_value()) << text;
}

TEST(QueryStringTest, TimestampOffsets)
{
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T01:00:00+01:00"), 0);
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T01:00:00+0100"), 0);
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T00:00:00-00:30"), 1800 * kMicrosPerSecond);
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T05:30+05:30"), 0);
	EXPECT_EQ(ParseDhis2Timestamp("2000-01-01T00:00:00+0000"), 0);
	EXPECT_EQ(ParseDhis2Timestamp("2024-03-01T00:00:00+01:00"), Micros(2024, 2, 29, 23));
	/* Offsets must have minutes; hours and minutes are range-checked. */
	for (const char *text : {"2000-01-01T00:00:00+01", "2000-01-01T00:00:00+1:00", "2000-01-01T00:00:00+24:00",
	                         "2000-01-01T00:00:00+01:60", "2000-01-01T00:00:00z", "2000-01-01T00:00:00 01:00",
	                         "2000-01-01T00:00:00+01:00Z", "2000-01-01T00:00:00UTC"})
		EXPECT_FALSE(ParseDhis2Timestamp(text).has_value()) << text;
}

TEST(QueryStringTest, InvalidDates)
{
	for (const char *text : {"",
	                         "2023-02-29",
	                         "2024-13-01",
	                         "2024-00-10",
	                         "2024-01-00",
	                         "2024-04-31",
	                         "2024-01-32",
	                         "2024-13",
	                         "20241301",
	                         "20230229",
	                         "2024-01-01T24:00",
	                         "2024-01-01T23:60",
	                         "2024-01-01T23:59:60",
	                         "2024-1-5",
	                         "24-01-01",
	                         "2024/01/01",
	                         "2024-01-01T",
	                         "2024-01-01T1",
	                         "2024-01-01T10:",
	                         "2024-01-01T10:00:",
	                         "2024-01-01 10:00:00",
	                         "2024-01-01 10:00",
	                         "2024-01-01x",
	                         " 2024-01-01",
	                         "2024-01-01 ",
	                         "202401",
	                         "2024011",
	                         "202401011",
	                         "12345",
	                         "2024-01-01T10:00:00.123 Z",
	                         "abcd",
	                         "2024-W01"})
		EXPECT_FALSE(ParseDhis2Date(text).has_value()) << text;
}

TEST(QueryStringTest, DateParametersInTheQuery)
{
	const ExportRequest r = ParseQueryString(
	    "startDate=2024-01-01T10:00:00.000Z&endDate=20240131&lastUpdated=2024-01-15T10:30:45.123%2B01:00");
	EXPECT_EQ(r.start_date, 8766);
	EXPECT_EQ(r.end_date, 8766 + 30);
	EXPECT_EQ(r.last_updated, Micros(2024, 1, 15, 9, 30, 45, 123000));
	/* Before 2000 the day is floored, not truncated toward zero. */
	EXPECT_EQ(ParseQueryString("startDate=1999-12-31T12:00").start_date, -1);
	/* The instant keeps the time of day, for E2004. */
	EXPECT_EQ(ParseQueryString("startDate=1999-12-31T12:00").start_instant, -12 * INT64_C(3600000000));
	EXPECT_EQ(ParseQueryString("endDate=2000-01-02").end_instant, INT64_C(86400000000));
	/* Empty means not given. */
	const ExportRequest empty = ParseQueryString("startDate=&endDate=&lastUpdated=");
	EXPECT_FALSE(empty.start_date.has_value());
	EXPECT_FALSE(empty.end_date.has_value());
	EXPECT_FALSE(empty.last_updated.has_value());
}

TEST(QueryStringTest, InvalidDateParameters)
{
	ExpectError("startDate=2023-02-29", sqlstate::kInvalidDatetimeFormat,
	            "Value '2023-02-29' is not valid for parameter startDate.", "");
	EXPECT_EQ(ErrorOf("startDate=2023-02-29").Detail(), "The month, day, time of day or offset is out of range.");
	ExpectError("endDate=2024-13-01", sqlstate::kInvalidDatetimeFormat,
	            "Value '2024-13-01' is not valid for parameter endDate.");
	ExpectError("lastUpdated=yesterday", sqlstate::kInvalidDatetimeFormat,
	            "Value 'yesterday' is not valid for parameter lastUpdated.", "");
	EXPECT_EQ(ErrorOf("lastUpdated=yesterday").Detail().rfind("Accepted forms are ", 0), 0u);
	/* An unencoded '+' in the offset arrives as a space; the hint says how to fix it. */
	ExpectError("lastUpdated=2024-01-15T10:30:45+01:00", sqlstate::kInvalidDatetimeFormat,
	            "Value '2024-01-15T10:30:45 01:00' is not valid for parameter lastUpdated.",
	            "A \"+\" in a query string means a space; write a literal plus sign as %2B.");
}

/* ---- Strings stored raw ---- */

TEST(QueryStringTest, TextParametersAreStoredRaw)
{
	const ExportRequest r = ParseQueryString("idScheme=bogus&compression=ZIP&style=9.99&order=nonsense");
	EXPECT_EQ(r.id_scheme, "bogus");
	EXPECT_EQ(r.compression, "ZIP");
	EXPECT_EQ(r.style, "9.99");
	EXPECT_EQ(r.order, "nonsense");
	/* Whitespace is kept for ValidateRequest to judge. */
	EXPECT_EQ(ParseQueryString("idScheme=+code").id_scheme, " code");
	/* Empty means not given. */
	const ExportRequest empty = ParseQueryString("idScheme=&compression=&style=&attributeCombo=");
	EXPECT_FALSE(empty.id_scheme.has_value());
	EXPECT_FALSE(empty.compression.has_value());
	EXPECT_FALSE(empty.style.has_value());
	EXPECT_FALSE(empty.attribute_combo.has_value());
}

TEST(QueryStringTest, BlankDurationIsIgnored)
{
	EXPECT_FALSE(ParseQueryString("lastUpdatedDuration=").last_updated_duration.has_value());
	EXPECT_FALSE(ParseQueryString("lastUpdatedDuration=+").last_updated_duration.has_value());
	EXPECT_FALSE(ParseQueryString("lastUpdatedDuration=%20%09").last_updated_duration.has_value());
	EXPECT_EQ(ParseQueryString("lastUpdatedDuration=0d").last_updated_duration, "0d");
	EXPECT_EQ(ParseQueryString("lastUpdatedDuration=-5d").last_updated_duration, "-5d");
	EXPECT_EQ(ParseQueryString("lastUpdatedDuration=abc").last_updated_duration, "abc");
}

/* ---- format ---- */

TEST(QueryStringTest, Format)
{
	EXPECT_EQ(ParseQueryString("format=json").format, Format::kJson);
	EXPECT_EQ(ParseQueryString("format=JSON").format, Format::kJson);
	EXPECT_EQ(ParseQueryString("format=csv").format, Format::kCsv);
	EXPECT_EQ(ParseQueryString("format=CsV").format, Format::kCsv);
	EXPECT_EQ(ParseQueryString("format=").format, Format::kJson);
	EXPECT_EQ(ParseQueryString("format=xml").format, Format::kXml);
	EXPECT_EQ(ParseQueryString("format=XML").format, Format::kXml);
	/* ADX: adx+xml as DHIS2 spells it (sent as adx%2Bxml; a raw '+' decodes to a space), and plain adx. */
	for (const char *query : {"format=adx%2Bxml", "format=ADX%2BXML", "format=adx+xml", "format=adx", "format=Adx"})
		EXPECT_EQ(ParseQueryString(query).format, Format::kAdx) << query;
}

TEST(QueryStringTest, GenericWebApiParametersAreIgnored)
{
	/* DHIS2's paging and field-filter parameters have no effect on /api/dataValueSets. */
	const ExportRequest r =
	    ParseQueryString("dataSet=a&paging=false&page=2&pageSize=50&skipPaging=true&fields=*&paging=true");
	EXPECT_EQ(r.data_set, std::vector<std::string>{"a"});
	EXPECT_FALSE(r.limit);
	EXPECT_FALSE(r.offset);
	/* Near misses still get the closest-match hint. */
	ExpectError("pagin=false", sqlstate::kUndefinedParameter, "unknown parameter \"pagin\"");
	EXPECT_EQ(ErrorOf("pagesize=1").Hint(), "Perhaps you meant \"pageSize\".");
}

TEST(QueryStringTest, AttachmentNamesTheZipEntry)
{
	EXPECT_EQ(ParseQueryString("attachment=report.json").attachment, "report.json");
	EXPECT_FALSE(ParseQueryString("attachment=").attachment);
}

TEST(QueryStringTest, InvalidFormat)
{
	ExpectError("format=pdf", sqlstate::kInvalidParameterValue, "Value 'pdf' is not valid for parameter format.");
	EXPECT_EQ(ErrorOf("format=pdf").Detail(), "Valid values are: json, csv, xml, adx.");
	EXPECT_STREQ(ErrorOf("format=+json").Sqlstate(), sqlstate::kInvalidParameterValue);
}

/* ---- Unknown and unsupported parameters ---- */

TEST(QueryStringTest, UnknownParameterSuggestsClosestName)
{
	ExpectError("dataset=x", sqlstate::kUndefinedParameter, "unknown parameter \"dataset\"",
	            "Perhaps you meant \"dataSet\".");
	EXPECT_EQ(ErrorOf("dataset=x").Detail(), "");
	ExpectError("orgunit=x", sqlstate::kUndefinedParameter, "unknown parameter \"orgunit\"",
	            "Perhaps you meant \"orgUnit\".");
	ExpectError("childrn=true", sqlstate::kUndefinedParameter, "unknown parameter \"childrn\"",
	            "Perhaps you meant \"children\".");
	ExpectError("dataElements=x", sqlstate::kUndefinedParameter, "unknown parameter \"dataElements\"",
	            "Perhaps you meant \"dataElement\".");
	ExpectError("start_date=2024", sqlstate::kUndefinedParameter, "unknown parameter \"start_date\"",
	            "Perhaps you meant \"startDate\".");
	ExpectError("compresion=gzip", sqlstate::kUndefinedParameter, "unknown parameter \"compresion\"",
	            "Perhaps you meant \"compression\".");
}

TEST(QueryStringTest, UnknownParameterFarFromEverything)
{
	ExpectError("xyzzy=1", sqlstate::kUndefinedParameter, "unknown parameter \"xyzzy\"",
	            "See the README's parameter reference.");
	ExpectError("programIdScheme=UID", sqlstate::kUndefinedParameter, "unknown parameter \"programIdScheme\"");
	/* Unsupported names are suggested too, so the user learns about them. */
	ExpectError("unfoldOptionCombo=true", sqlstate::kUndefinedParameter, "unknown parameter \"unfoldOptionCombo\"",
	            "Perhaps you meant \"unfoldOptionCombos\".");
}

TEST(QueryStringTest, UnknownParameterEvenWithEmptyValue)
{
	ExpectError("pagingg=", sqlstate::kUndefinedParameter, "unknown parameter \"pagingg\"");
	ExpectError("fieldz", sqlstate::kUndefinedParameter, "unknown parameter \"fieldz\"");
}

TEST(QueryStringTest, ClosestMatchHelper)
{
	const std::vector<std::string_view> names = {"dataSet", "dataElement", "orgUnit", "period"};
	EXPECT_EQ(ClosestMatch("DATASET", names), "dataSet");
	EXPECT_EQ(ClosestMatch("dataSets", names), "dataSet");
	EXPECT_EQ(ClosestMatch("perod", names), "period");
	EXPECT_EQ(ClosestMatch("dataElemnt", names), "dataElement");
	EXPECT_EQ(ClosestMatch("zzzzzzz", names), "");
	EXPECT_EQ(ClosestMatch("", names), "");
	EXPECT_EQ(ClosestMatch("dataSet", {}), "");
	EXPECT_EQ(ClosestMatch(std::string(100000, 'a'), names), "");
	/* Threshold max(2, len/3): "orgUnitXYZ" (10 chars, distance 3) is close enough; "ou" is not. */
	EXPECT_EQ(ClosestMatch("orgUnitXYZ", names), "orgUnit");
	EXPECT_EQ(ClosestMatch("ou", names), "");
	EXPECT_EQ(ClosestMatch("dataSetWXYZ", names), ""); /* 11 chars, distance 4 */
	/* Ties go to the first candidate. */
	EXPECT_EQ(ClosestMatch("ab", {"aa", "bb"}), "aa");
}

TEST(QueryStringTest, UnsupportedParameters)
{
	const Error e = ErrorOf("unfoldOptionCombos=true");
	EXPECT_STREQ(e.Sqlstate(), sqlstate::kFeatureNotSupported);
	EXPECT_STREQ(e.what(), "parameter \"unfoldOptionCombos\" is not supported");
	EXPECT_FALSE(e.Detail().empty());
}

TEST(QueryStringTest, CategorySchemesBindForAdx)
{
	/* Bound as given; ValidateRequest refuses them for JSON and CSV (validate_test.cpp). */
	const ExportRequest r = ParseQueryString("categoryIdScheme=NAME&categoryOptionIdScheme=attribute:abcdefghijk");
	EXPECT_EQ(r.category_id_scheme, "NAME");
	EXPECT_EQ(r.category_option_id_scheme, "attribute:abcdefghijk");
	EXPECT_FALSE(ParseQueryString("categoryIdScheme=").category_id_scheme.has_value());
}

TEST(QueryStringTest, UnsupportedParametersThatAskForNothing)
{
	/* unfoldOptionCombos=false asks for the default shape; empty values are "not given". */
	EXPECT_NO_THROW(ParseQueryString("unfoldOptionCombos=false"));
	/* ADX always unfolds: true is its default, false is refused. */
	EXPECT_NO_THROW(ParseQueryString("unfoldOptionCombos=true&format=adx"));
	EXPECT_NO_THROW(ParseQueryString("format=adx%2Bxml&unfoldOptionCombos=1"));
	ExpectError("format=adx&unfoldOptionCombos=false", sqlstate::kFeatureNotSupported,
	            "unfoldOptionCombos=false is not supported for ADX");
	ExpectError("unfoldOptionCombos=true&format=csv", sqlstate::kFeatureNotSupported,
	            "parameter \"unfoldOptionCombos\" is not supported");
	EXPECT_NO_THROW(ParseQueryString("unfoldOptionCombos="));
	EXPECT_NO_THROW(ParseQueryString("categoryIdScheme="));
	ExpectError("unfoldOptionCombos=maybe", sqlstate::kInvalidParameterValue,
	            "Value 'maybe' is not valid for parameter unfoldOptionCombos.");
}

/* ---- Duplicates of single-valued parameters ---- */

TEST(QueryStringTest, DuplicateSingleValuedParameter)
{
	for (const char *name : {"children", "level", "limit", "startDate", "lastUpdated", "idScheme", "format",
	                         "compression", "style", "compressionLevel", "attributeCombo", "lastUpdatedDuration"})
		ExpectError(std::string(name) + "=1&dataSet=a&" + name + "=1", sqlstate::kInvalidParameterValue,
		            std::string("parameter \"") + name + "\" specified more than once");
	/* Even when one of the occurrences is empty. */
	ExpectError("children=&children=true", sqlstate::kInvalidParameterValue,
	            "parameter \"children\" specified more than once");
	/* An encoded name is the same parameter. */
	ExpectError("limit=1&l%69mit=2", sqlstate::kInvalidParameterValue, "parameter \"limit\" specified more than once");
}

TEST(QueryStringTest, FirstProblemInQueryOrderWins)
{
	ExpectError("bogus=1&children=maybe", sqlstate::kUndefinedParameter, "unknown parameter \"bogus\"");
	ExpectError("children=maybe&bogus=1", sqlstate::kInvalidParameterValue,
	            "Value 'maybe' is not valid for parameter children.");
	/* Groups are processed at their first appearance. */
	ExpectError("limit=1&bogus=1&limit=2", sqlstate::kInvalidParameterValue,
	            "parameter \"limit\" specified more than once");
}

/* ---- SQLSTATE summary ---- */

TEST(QueryStringTest, SqlstateOfEachError)
{
	const std::vector<std::pair<std::string, const char *>> cases = {
	    {"dataSet=%zz", "22023"},     {"dataSet=%FF", "22023"},          {"=x", "42601"},
	    {"dataset=a", "42P02"},       {"unfoldOptionCombos=1", "0A000"}, {"format=adx&limit=x", "22023"},
	    {"format=txt", "22023"},      {"children=2", "22023"},           {"level=x", "22023"},
	    {"limit=1&limit=2", "22023"}, {"startDate=2023-02-29", "22007"}, {"endDate=2024-13", "22007"},
	    {"lastUpdated=now", "22007"},
	};
	for (const auto &[query, expected] : cases)
		EXPECT_STREQ(ErrorOf(query).Sqlstate(), expected) << query;
}

} // namespace
} // namespace datavalue_export::core
