/*
 * cli/test/request_target_test.cpp
 *	  Unit tests for cli/request_target: what a user types -> the query export_datavalues() gets.
 *
 * Each mapping rule (path extension, output file name, query parameters, conflicts) has a case
 * that fails if the rule breaks; conflict messages are checked for naming both sources.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <gtest/gtest.h>

#include <string>

#include "request_target.hpp"

namespace datavalue_export::cli {
namespace {

constexpr const char *kQuery = "dataSet=pBOMPrpg1QX&period=202401&orgUnit=ImspTQPwCqd";

std::string
UsageMessage(const std::string &target, const std::string &output)
{
	try {
		ResolveRequest(target, output);
	} catch (const UsageError &e) {
		return e.what();
	}
	ADD_FAILURE() << "no UsageError for " << target << " -o " << output;
	return "";
}

TEST(ResolveRequest, BareQueryStringIsPassedVerbatim)
{
	const ResolvedRequest r = ResolveRequest(kQuery, "");
	EXPECT_EQ(r.query, kQuery);
	EXPECT_EQ(r.format, "json");
	EXPECT_EQ(r.compression, "none");
}

TEST(ResolveRequest, PathExtensionsBecomeParameters)
{
	const std::string q = std::string("?") + kQuery;
	EXPECT_EQ(ResolveRequest("dataValueSets.json" + q, "").query, std::string(kQuery) + "&format=json");
	EXPECT_EQ(ResolveRequest("dataValueSets.csv" + q, "").query, std::string(kQuery) + "&format=csv");
	EXPECT_EQ(ResolveRequest("dataValueSets.json.gz" + q, "").query,
	          std::string(kQuery) + "&format=json&compression=gzip");
	EXPECT_EQ(ResolveRequest("dataValueSets.csv.zip" + q, "").query,
	          std::string(kQuery) + "&format=csv&compression=zip");
	EXPECT_EQ(ResolveRequest("dataValueSets.xml" + q, "").query, std::string(kQuery) + "&format=xml");
	/* '+' must reach the server as a plus, not a space. */
	for (const char *adx : {"dataValueSets.adx", "dataValueSets.adx+xml", "dataValueSets.adx.xml"})
		EXPECT_EQ(ResolveRequest(adx + q, "").query, std::string(kQuery) + "&format=adx%2Bxml") << adx;
	EXPECT_EQ(ResolveRequest("dataValueSets" + q, "").query, kQuery);
	EXPECT_EQ(ResolveRequest("dataValueSets.gz" + q, "").query, std::string(kQuery) + "&compression=gzip");
}

TEST(ResolveRequest, FullUrlsIgnoreSchemeHostAndApiPrefix)
{
	for (const char *url :
	     {"https://play.dhis2.org/api/dataValueSets.csv.gz?", "http://localhost:8080/api/40/dataValueSets.csv.gz?",
	      "/dhis/api/dataValueSets.csv.gz?", "api/dataValueSets.csv.gz?"}) {
		const ResolvedRequest r = ResolveRequest(url + std::string(kQuery) + "#fragment", "");
		EXPECT_EQ(r.query, std::string(kQuery) + "&format=csv&compression=gzip") << url;
		EXPECT_EQ(r.format, "csv");
		EXPECT_EQ(r.compression, "gzip");
	}
}

TEST(ResolveRequest, OnlyALeadingSchemeIsAUrl)
{
	/* The authority ends at the query too, and "://" inside a value is part of the value. */
	EXPECT_EQ(ResolveRequest("https://play.dhis2.org?" + std::string(kQuery), "").query, kQuery);
	const std::string with_url_value = std::string(kQuery) + "&attachment=a://b";
	EXPECT_EQ(ResolveRequest(with_url_value, "").query, with_url_value);
	EXPECT_EQ(ResolveRequest("dataValueSets.csv?" + with_url_value, "").query, with_url_value + "&format=csv");
}

TEST(ResolveRequest, OutputFileNameDecidesWhenNothingElseDoes)
{
	EXPECT_EQ(ResolveRequest(kQuery, "out.csv").query, std::string(kQuery) + "&format=csv");
	EXPECT_EQ(ResolveRequest(kQuery, "dir.v2/out.JSON.GZ").query,
	          std::string(kQuery) + "&format=json&compression=gzip");
	EXPECT_EQ(ResolveRequest(kQuery, "out.adx.xml").query, std::string(kQuery) + "&format=adx%2Bxml");
	EXPECT_EQ(ResolveRequest(kQuery, "out.gz").query, std::string(kQuery) + "&compression=gzip");
	/* Unknown or no extension, or stdout: the server's defaults. */
	EXPECT_EQ(ResolveRequest(kQuery, "out.txt").query, kQuery);
	EXPECT_EQ(ResolveRequest(kQuery, "export").query, kQuery);
	EXPECT_EQ(ResolveRequest(kQuery, "-").query, kQuery);
}

TEST(ResolveRequest, ExplicitParametersAreNotRepeated)
{
	/* The extension rejects a repeated format=, so an agreeing extension adds nothing. */
	const std::string query = std::string(kQuery) + "&format=CSV&compression=GZip";
	EXPECT_EQ(ResolveRequest("dataValueSets.csv.gz?" + query, "out.csv.gz").query, query);
	const ResolvedRequest r = ResolveRequest(query, "");
	EXPECT_EQ(r.format, "csv");
	EXPECT_EQ(r.compression, "gzip");
	/* An encoded plus and a decoded one (a space) both mean adx+xml. */
	EXPECT_EQ(ResolveRequest("format=adx%2Bxml&dataSet=x", "out.adx").format, "adx+xml");
	EXPECT_EQ(ResolveRequest("format=adx+xml&dataSet=x", "out.adx").format, "adx+xml");
	EXPECT_EQ(ResolveRequest("format=adx&dataSet=x", "out.adx").format, "adx+xml");
	EXPECT_EQ(ResolveRequest("dataValueSets.adx?format=ADX&dataSet=x", "h.adx.xml").query, "format=ADX&dataSet=x");
	/* A DHIS2 URL with compression= and an uncompressed path extension is ordinary DHIS2 usage. */
	EXPECT_EQ(ResolveRequest("dataValueSets.json?compression=gzip&dataSet=x", "").compression, "gzip");
}

TEST(ResolveRequest, ConflictsNameBothSources)
{
	std::string m = UsageMessage("dataValueSets.json?format=csv&dataSet=x", "");
	EXPECT_NE(m.find("conflicting format"), std::string::npos) << m;
	EXPECT_NE(m.find("\"csv\" from the query string"), std::string::npos) << m;
	EXPECT_NE(m.find("\"json\" from the URL path"), std::string::npos) << m;

	m = UsageMessage("dataValueSets.json.gz?dataSet=x", "out.json");
	EXPECT_NE(m.find("conflicting compression"), std::string::npos) << m;
	EXPECT_NE(m.find("\"none\" from the output file name \"out.json\""), std::string::npos) << m;

	m = UsageMessage("format=json&dataSet=x", "out.csv");
	EXPECT_NE(m.find("\"csv\" from the output file name \"out.csv\""), std::string::npos) << m;
	m = UsageMessage("compression=none&dataSet=x", "out.json.gz");
	EXPECT_NE(m.find("conflicting compression"), std::string::npos) << m;
}

TEST(ResolveRequest, MessagesShowControlCharacters)
{
	/* A decoded NUL used to end the printed message; the whole message now survives. */
	const std::string m = UsageMessage("dataValueSets.csv?format=c%00sv&dataSet=x", "");
	EXPECT_NE(m.find("\"c\\x00sv\" from the query string"), std::string::npos) << m;
	EXPECT_NE(m.find("from the URL path"), std::string::npos) << m;
	EXPECT_EQ(ShowControlCharacters(std::string("a\0b\x1b[2J\x7f\n\tc", 11)), "a\\x00b\\x1B[2J\\x7F\n\tc");
}

TEST(ResolveRequest, RejectsOtherEndpointsAndUnknownExtensions)
{
	EXPECT_NE(UsageMessage("https://play.dhis2.org/api/analytics.json?dimension=dx", "").find("not DHIS2's"),
	          std::string::npos);
	EXPECT_NE(UsageMessage("dataValueSets.pdf?dataSet=x", "").find("unknown extension \".pdf\""), std::string::npos);
	EXPECT_NE(UsageMessage("dataValueSets.json.tar?dataSet=x", "").find("unknown extension"), std::string::npos);
	EXPECT_NE(UsageMessage("https://play.dhis2.org/", "").find("not DHIS2's"), std::string::npos);
}

TEST(ResolveRequest, CopiedUrlPathsAreDecodedAndMayEndInASlash)
{
	const std::string q = std::string("?") + kQuery;
	/* A browser or DHIS2 log has the '+' of .adx+xml as %2B; in a path '+' is itself, never a space. */
	EXPECT_EQ(ResolveRequest("https://play.dhis2.org/api/dataValueSets.adx%2Bxml" + q, "").format, "adx+xml");
	EXPECT_EQ(ResolveRequest("/api/dataValueSets.adx%2bxml.gz" + q, "").compression, "gzip");
	EXPECT_EQ(ResolveRequest("/api/dataValueSets/" + q, "").query, kQuery);
	EXPECT_EQ(ResolveRequest("/api/dataValueSets.csv/" + q, "").format, "csv");
	EXPECT_NE(UsageMessage("https://play.dhis2.org/api/" + q, "").find("not DHIS2's"), std::string::npos);
}

TEST(ResolveRequest, EmptyFormatAndCompressionAreTheDefault)
{
	/* The extension reads format= and compression= as their defaults: they name nothing to conflict with. */
	const ResolvedRequest csv = ResolveRequest(std::string(kQuery) + "&format=&compression=", "out.csv.gz");
	EXPECT_EQ(csv.format, "csv");
	EXPECT_EQ(csv.compression, "gzip");
	EXPECT_EQ(csv.query, std::string(kQuery) + "&format=csv&compression=gzip");
	const ResolvedRequest json = ResolveRequest(std::string(kQuery) + "&compression=", "out.json");
	EXPECT_EQ(json.compression, "none");
	EXPECT_EQ(json.query, std::string(kQuery) + "&compression=&format=json");
}

TEST(SplitTarget, PathWithoutQueryAndQueryWithoutPath)
{
	FormatChoice choice;
	EXPECT_EQ(SplitTarget("dataValueSets.csv", choice), "");
	EXPECT_EQ(choice.format, "csv");
	EXPECT_EQ(SplitTarget("?dataSet=x", choice), "dataSet=x");
	EXPECT_FALSE(choice.format);
	EXPECT_FALSE(choice.compression);
}

TEST(QueryChoice, FirstOccurrenceDecodedAndLowerCased)
{
	const FormatChoice c = QueryChoice("dataSet=x&format=%20Csv%20&compression=gzip&format=json&Format=xml");
	EXPECT_EQ(c.format, "csv");
	EXPECT_EQ(c.compression, "gzip");
	EXPECT_FALSE(QueryChoice("formats=csv&xformat=csv").format);
}

TEST(PercentDecode, FormEncoding)
{
	EXPECT_EQ(PercentDecode("a+b%2Bc%41"), "a b+cA");
	EXPECT_EQ(PercentDecode("100%"), "100%");
	EXPECT_EQ(PercentDecode("%zz%4"), "%zz%4");
	EXPECT_EQ(PercentDecode("a+b%2Bc", false), "a+b+c");
}

} // namespace
} // namespace datavalue_export::cli
