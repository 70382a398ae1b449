/*
 * test/unit/adx_test.cpp
 *	  The ADX parts of core: the period notation (AdxPeriod), the XML escaping of attribute
 *	  values and annotation text, and the ADX writer's document shapes in both styles.
 *
 * Period vectors: DHIS2 2.43 AdxPeriodTest.testSerialize
 * (dhis-2/dhis-services/dhis-service-dxf2/src/test/java/org/hisp/dhis/dxf2/adx/AdxPeriodTest.java)
 * plus one example per remaining type, derived from the period rules. Escaping and document
 * examples: the bytes Woodstox 7.1.1 writes for the same call sequence as DHIS2's writers.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/adx_period.hpp"
#include "core/calendar.hpp"
#include "core/error.hpp"
#include "core/id_map.hpp"
#include "core/writer.hpp"
#include "core/xml_escape.hpp"

namespace datavalue_export::core {
namespace {

/* ---- ADX periods ---- */

struct PeriodCase {
	const char *iso;
	const char *adx;
};

const PeriodCase kPeriodCases[] = {
    {"20220107", "2022-01-07/P1D"},    {"2022W1", "2022-01-03/P7D"},    {"2022WedW1", "2021-12-29/P7D"},
    {"2022ThuW1", "2021-12-30/P7D"},   {"2024FriW1", "2023-12-29/P7D"}, {"2022SatW1", "2022-01-01/P7D"},
    {"2022SunW1", "2022-01-02/P7D"},   {"2022BiW1", "2022-01-03/P14D"}, {"2022BiW2", "2022-01-17/P14D"},
    {"202205", "2022-05-01/P1M"},      {"202202B", "2022-03-01/P2M"},   {"2022Q2", "2022-04-01/P3M"},
    {"2024NovQ1", "2023-11-01/P3M"},   {"2024NovQ2", "2024-02-01/P3M"}, {"2022S2", "2022-07-01/P6M"},
    {"2022AprilS2", "2022-10-01/P6M"}, {"2022NovS2", "2022-05-01/P6M"}, {"2025NovS1", "2024-11-01/P6M"},
    {"2022", "2022-01-01/P1Y"},        {"2022Feb", "2022-02-01/P1Y"},   {"2022April", "2022-04-01/P1Y"},
    {"2022July", "2022-07-01/P1Y"},    {"2022Aug", "2022-08-01/P1Y"},   {"2024Sep", "2024-09-01/P1Y"},
    {"2022Oct", "2022-10-01/P1Y"},     {"2022Nov", "2021-11-01/P1Y"}, /* FinancialNov: the label year is the end year */
};

TEST(AdxPeriodTest, EveryTypeAgainstDhis2Vectors)
{
	std::set<PeriodType> types;
	for (const PeriodCase &c : kPeriodCases) {
		const std::optional<Period> period = ParseIsoPeriod(c.iso);
		ASSERT_TRUE(period.has_value()) << c.iso;
		EXPECT_EQ(AdxPeriod(period->type, period->start), c.adx) << c.iso;
		types.insert(period->type);
	}
	EXPECT_EQ(types.size(), static_cast<size_t>(kPeriodTypeCount)) << "every period type has a vector";
}

TEST(AdxPeriodTest, DurationsOfEveryType)
{
	for (int t = 0; t < kPeriodTypeCount; t++) {
		const PeriodType type = static_cast<PeriodType>(t);
		const std::string_view name = PeriodTypeName(type);
		const std::string_view duration = Iso8601Duration(type);
		if (name == "Daily")
			EXPECT_EQ(duration, "P1D");
		else if (name.find("Weekly") == 0)
			EXPECT_EQ(duration, "P7D") << name;
		else if (name == "BiWeekly")
			EXPECT_EQ(duration, "P14D");
		else if (name == "Monthly")
			EXPECT_EQ(duration, "P1M");
		else if (name == "BiMonthly")
			EXPECT_EQ(duration, "P2M");
		else if (name.find("Quarterly") == 0)
			EXPECT_EQ(duration, "P3M") << name;
		else if (name.find("SixMonthly") == 0)
			EXPECT_EQ(duration, "P6M") << name;
		else
			EXPECT_EQ(duration, "P1Y") << name; /* Yearly and Financial* */
	}
}

TEST(AdxPeriodTest, YearsPaddedAndNegative)
{
	EXPECT_EQ(AdxPeriod(PeriodType::kMonthly, DaysFromCivil(987, 3, 1)), "0987-03-01/P1M");
	EXPECT_EQ(AdxPeriod(PeriodType::kDaily, DaysFromCivil(-5, 12, 31)), "-0005-12-31/P1D");
	EXPECT_EQ(AdxPeriod(PeriodType::kYearly, DaysFromCivil(10000, 1, 1)), "10000-01-01/P1Y");
}

/* ---- Escaping ---- */

std::string
Attr(const std::string &s)
{
	std::string out(kXmlEscapeFactor * s.size() + 1, '\0');
	char *end = WriteXmlAttributeValue(out.data(), s.data(), s.size());
	if (end == nullptr)
		return "<error>";
	out.resize(static_cast<size_t>(end - out.data()));
	return out;
}

std::string
Text(const std::string &s)
{
	std::string out(kXmlEscapeFactor * s.size() + 1, '\0');
	char *end = WriteXmlText(out.data(), s.data(), s.size());
	if (end == nullptr)
		return "<error>";
	out.resize(static_cast<size_t>(end - out.data()));
	return out;
}

TEST(XmlEscapeTest, AttributeValues)
{
	EXPECT_EQ(Attr("Re-checked: 5 < 6 & \"ok\"\nsee register"),
	          "Re-checked: 5 &lt; 6 &amp; &quot;ok&quot;&#xa;see register");
	EXPECT_EQ(Attr("a>b'c"), "a>b'c");
	EXPECT_EQ(Attr("\t\r"), "&#x9;&#xd;");
	EXPECT_EQ(Attr("\x7f\xc2\x85\xe2\x80\xa8"), "\x7f\xc2\x85\xe2\x80\xa8"); /* C1, U+2028 raw */
	EXPECT_EQ(Attr("\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbd"), "&#xfffe;&#xffff;\xef\xbf\xbd");
	EXPECT_EQ(Attr("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80"); /* U+1F600 raw, never a reference */
	EXPECT_EQ(Attr("a\x01"), "<error>");
	EXPECT_EQ(Attr("\x1f"), "<error>");
	EXPECT_EQ(Attr(""), "");
}

TEST(XmlEscapeTest, TextContent)
{
	EXPECT_EQ(Text("Stock-out <3 days> & resupplied"), "Stock-out &lt;3 days> &amp; resupplied");
	EXPECT_EQ(Text("\"'\t\n"), "\"'\t\n");
	EXPECT_EQ(Text("a\rb"), "a&#xd;b");
	EXPECT_EQ(Text("\x7f\xc2\x80\xc2\x9f\xc2\xa0"), "&#x7f;&#x80;&#x9f;\xc2\xa0"); /* C1 as references, U+00A0 raw */
	EXPECT_EQ(Text("\xef\xbf\xbe"), "&#xfffe;");
	EXPECT_EQ(Text("a\x0b"), "<error>");
}

TEST(XmlEscapeTest, GreaterThanByPosition)
{
	/* The contract's Woodstox runs. */
	EXPECT_EQ(Text(">start"), "&gt;start");
	EXPECT_EQ(Text("x>y"), "x>y");
	EXPECT_EQ(Text("]]>z"), "]]&gt;z");
	EXPECT_EQ(Text("short&>x"), "short&amp;>x");                                    /* String path: no restart */
	EXPECT_EQ(Text("0123456789ab>after&>x"), "0123456789ab>after&amp;&gt;x");       /* char-array path restarts */
	EXPECT_EQ(Text(std::string(512, 'x') + ">y"), std::string(512, 'x') + "&gt;y"); /* a chunk starts */
	EXPECT_EQ(Text(std::string(511, 'x') + ">y"), std::string(511, 'x') + ">y");
	EXPECT_EQ(Text(std::string(1024, 'x') + ">y"), std::string(1024, 'x') + "&gt;y");
	/* Ten characters, one of them outside the BMP: 11 UTF-16 units, still the String path. */
	EXPECT_EQ(Text("\xf0\x9f\x98\x80"
	               "abcdefg&>"),
	          "\xf0\x9f\x98\x80"
	          "abcdefg&amp;>");
	/* Eleven characters with one outside the BMP: 12 units, the char-array path. */
	EXPECT_EQ(Text("\xf0\x9f\x98\x80"
	               "abcdefgh&>"),
	          "\xf0\x9f\x98\x80"
	          "abcdefgh&amp;&gt;");
	/* A chunk boundary counted in UTF-16 units: 255 two-unit characters then one unit put '>' at 511. */
	std::string wide;
	for (int i = 0; i < 255; i++)
		wide += "\xf0\x9f\x98\x80";
	EXPECT_EQ(Text(wide + "a>"), wide + "a>");
	EXPECT_EQ(Text(wide + "ab>"), wide + "ab&gt;");
}

/* ---- The ADX writer ---- */

struct Value {
	int64_t de, pe, ou, coc, aoc;
	std::optional<std::string> value;
};

CategoryPair
Pair(const char *category, const char *option)
{
	CategoryPair p;
	if (category)
		p.category = category;
	if (option)
		p.option = option;
	p.category_name = category ? category : "Unnamed";
	return p;
}

/* The contract's example (§6.3): MAL_DS, MAL_CASES by AGE x SEX, MAL_NOTE text, AOC MECH=PEPFAR. */
struct Malaria {
	std::unique_ptr<Writer> writer;
	IdMap maps[kIdKindCount];

	explicit Malaria(const DocumentOptions &options) : writer(MakeWriter(options))
	{
		IdentifierDetail numeric, text;
		text.non_numeric = true;
		Add(IdKind::kDataElement, 1, "MAL_CASES", false, &numeric);
		Add(IdKind::kDataElement, 2, "MAL_NOTE", false, &text);
		Add(IdKind::kPeriod, 10, "2024-01-01/P1M");
		Add(IdKind::kPeriod, 11, "2024-02-01/P1M");
		Add(IdKind::kOrgUnit, 20, "OU_FAC1");
		for (IdKind kind : {IdKind::kCategoryOptionCombo, IdKind::kAttributeOptionCombo}) {
			IdentifierDetail f_u5, m_u5, def, pepfar, broken, twice, empty, value, period, prefixed, xmlns;
			f_u5.categories = {Pair("AGE", "U5"), Pair("SEX", "F")};
			m_u5.categories = {Pair("AGE", "U5"), Pair("SEX", "M")};
			def.categories = {Pair("default", "default")};
			pepfar.categories = {Pair("MECH", "PEPFAR")};
			broken.categories = {Pair("two words", "X")};
			twice.categories = {Pair("AGE", "U5"), Pair("AGE", "F")};
			empty.categories = {Pair("SEX", "")};
			/* XML Names that an ADX element cannot take as category attributes (AttributeNameProblem). */
			value.categories = {Pair("value", "V")};
			period.categories = {Pair("period", "P")};
			prefixed.categories = {Pair("AGE:GROUP", "U5")};
			xmlns.categories = {Pair("xmlns", "urn:x")};
			Add(kind, 30, "c1", false, &f_u5);
			Add(kind, 31, "c2", false, &m_u5);
			Add(kind, 32, "HllvX50cXC0", true, &def);
			Add(kind, 33, "c3", false, &pepfar);
			Add(kind, 34, "c4", false, &broken);
			Add(kind, 35, "c5", false, &twice);
			Add(kind, 36, "c6", false, &empty);
			Add(kind, 37, "c7", false, &value);
			Add(kind, 38, "c8", false, &period);
			Add(kind, 39, "c9", false, &prefixed);
			Add(kind, 40, "c10", false, &xmlns);
		}
	}

	void Add(IdKind kind, int64_t id, std::optional<std::string_view> text, bool is_default = false,
	         const IdentifierDetail *detail = nullptr)
	{
		maps[static_cast<size_t>(kind)].Put(id, writer->AddIdentifier(kind, text, is_default, detail));
	}

	DataValueRow Row(const Value &v) const
	{
		DataValueRow row{};
		const int64_t ids[kIdKindCount] = {v.de, v.pe, v.ou, v.coc, v.aoc};
		for (size_t k = 0; k < kIdKindCount; k++)
			row.ids[k] = maps[k].Get(ids[k]);
		if (v.value) {
			row.value.data = v.value->data();
			row.value.size = v.value->size();
			row.value.is_null = false;
		} else {
			row.value.data = "";
		}
		return row;
	}

	/* Values in group order; a new (pe, ou, aoc) opens a group, as src/pg/ordering.cpp does. */
	std::string Doc(const std::vector<Value> &values, uint32_t data_set = 0)
	{
		OutputBuffer out;
		writer->Begin(out);
		const Value *open = nullptr;
		for (const Value &v : values) {
			if (open == nullptr || open->pe != v.pe || open->ou != v.ou || open->aoc != v.aoc) {
				if (open != nullptr)
					writer->EndGroup(out);
				writer->BeginGroup(Row(v), data_set, out);
				open = &v;
			}
			writer->WriteRow(Row(v), out);
		}
		if (open != nullptr)
			writer->EndGroup(out);
		writer->End(out);
		return std::string(out.View());
	}
};

DocumentOptions
AdxOptions(Style style)
{
	DocumentOptions o;
	o.format = Format::kAdx;
	o.style = style;
	o.data_sets = {std::string("MAL_DS"), std::nullopt};
	return o;
}

const std::vector<Value> kMalariaValues = {
    {1, 10, 20, 30, 33, "12"},
    {1, 10, 20, 31, 33, "7"},
    {2, 10, 20, 32, 33, "Stock-out <3 days> & resupplied"},
};

TEST(AdxWriterTest, Contract243Example)
{
	Malaria adx(AdxOptions(Style::k243));
	EXPECT_EQ(adx.Doc(kMalariaValues),
	          "<adx xmlns=\"urn:ihe:qrph:adx:2015\"><group dataSet=\"MAL_DS\" period=\"2024-01-01/P1M\" "
	          "orgUnit=\"OU_FAC1\" MECH=\"PEPFAR\"><dataValue dataElement=\"MAL_CASES\" AGE=\"U5\" SEX=\"F\" "
	          "value=\"12\"/><dataValue dataElement=\"MAL_CASES\" AGE=\"U5\" SEX=\"M\" value=\"7\"/><dataValue "
	          "dataElement=\"MAL_NOTE\" default=\"default\" value=\"0\"><annotation>Stock-out &lt;3 days> &amp; "
	          "resupplied</annotation></dataValue></group></adx>");
	EXPECT_EQ(adx.writer->Rows(), 3u);
}

TEST(AdxWriterTest, Contract242ExampleInCategoryOrder)
{
	/* DHIS2 2.42 writes SEX before AGE (HashMap order); we keep the combo's category order. */
	Malaria adx(AdxOptions(Style::k242));
	EXPECT_EQ(adx.Doc(kMalariaValues),
	          "<adx xmlns=\"urn:ihe:qrph:adx:2015\"><group dataSet=\"MAL_DS\" period=\"2024-01-01/P1M\" "
	          "orgUnit=\"OU_FAC1\" MECH=\"PEPFAR\"><dataValue dataElement=\"MAL_CASES\" AGE=\"U5\" SEX=\"F\" "
	          "value=\"12\"/><dataValue dataElement=\"MAL_CASES\" AGE=\"U5\" SEX=\"M\" value=\"7\"/><dataValue "
	          "dataElement=\"MAL_NOTE\" value=\"0\"><annotation>Stock-out &lt;3 days> &amp; "
	          "resupplied</annotation></dataValue></group></adx>");
}

TEST(AdxWriterTest, EmptyDocumentAndExported)
{
	for (const Style style : {Style::k243, Style::k242}) {
		Malaria plain(AdxOptions(style));
		EXPECT_EQ(plain.Doc({}), "<adx xmlns=\"urn:ihe:qrph:adx:2015\"/>");
		DocumentOptions o = AdxOptions(style);
		o.exported = "2026-11-30T15:00:00.000Z";
		Malaria stamped(o);
		EXPECT_EQ(stamped.Doc({}), "<adx xmlns=\"urn:ihe:qrph:adx:2015\" exported=\"2026-11-30T15:00:00.000Z\"/>");
		Malaria stamped_again(o);
		EXPECT_EQ(stamped_again.Doc({{1, 10, 20, 30, 33, "1"}}),
		          "<adx xmlns=\"urn:ihe:qrph:adx:2015\" exported=\"2026-11-30T15:00:00.000Z\"><group "
		          "dataSet=\"MAL_DS\" period=\"2024-01-01/P1M\" orgUnit=\"OU_FAC1\" MECH=\"PEPFAR\"><dataValue "
		          "dataElement=\"MAL_CASES\" AGE=\"U5\" SEX=\"F\" value=\"1\"/></group></adx>");
	}
}

TEST(AdxWriterTest, DefaultAttributeOptionCombo)
{
	const std::vector<Value> values = {{1, 10, 20, 30, 32, "5"}};
	const std::string tail = "<dataValue dataElement=\"MAL_CASES\" AGE=\"U5\" SEX=\"F\" value=\"5\"/></group></adx>";
	const std::string head = "<adx xmlns=\"urn:ihe:qrph:adx:2015\"><group dataSet=\"MAL_DS\" "
	                         "period=\"2024-01-01/P1M\" orgUnit=\"OU_FAC1\"";
	/* 2.43: the default AOC's pair, unless excludeDefaultAoc. */
	Malaria with(AdxOptions(Style::k243));
	EXPECT_EQ(with.Doc(values), head + " default=\"default\">" + tail);
	DocumentOptions o = AdxOptions(Style::k243);
	o.exclude_default_aoc = true;
	o.exclude_default_coc = true; /* does not touch the COC pairs in ADX */
	Malaria without(o);
	EXPECT_EQ(without.Doc(values), head + ">" + tail);
	Malaria without_again(o);
	EXPECT_EQ(without_again.Doc({{2, 10, 20, 32, 32, "x"}}),
	          head + "><dataValue dataElement=\"MAL_NOTE\" default=\"default\" value=\"0\"><annotation>x</annotation>"
	                 "</dataValue></group></adx>");
	/* 2.42: no attributes for the default combo. */
	Malaria old(AdxOptions(Style::k242));
	EXPECT_EQ(old.Doc(values), head + ">" + tail);
}

TEST(AdxWriterTest, NullValuesAndGroups)
{
	Malaria adx(AdxOptions(Style::k243));
	/* A NULL numeric value drops the attribute; a NULL text gives an empty annotation. */
	EXPECT_EQ(adx.Doc({{1, 10, 20, 30, 33, std::nullopt}, {2, 10, 20, 30, 33, std::nullopt}}),
	          "<adx xmlns=\"urn:ihe:qrph:adx:2015\"><group dataSet=\"MAL_DS\" period=\"2024-01-01/P1M\" "
	          "orgUnit=\"OU_FAC1\" MECH=\"PEPFAR\"><dataValue dataElement=\"MAL_CASES\" AGE=\"U5\" SEX=\"F\"/>"
	          "<dataValue dataElement=\"MAL_NOTE\" AGE=\"U5\" SEX=\"F\" value=\"0\"><annotation></annotation>"
	          "</dataValue></group></adx>");
	/* A second period opens a second group; data set index 1 has no identifier: left out. */
	Malaria two(AdxOptions(Style::k242));
	EXPECT_EQ(two.Doc({{1, 10, 20, 30, 33, "1"}, {1, 11, 20, 30, 33, "2"}}, 1),
	          "<adx xmlns=\"urn:ihe:qrph:adx:2015\"><group period=\"2024-01-01/P1M\" orgUnit=\"OU_FAC1\" "
	          "MECH=\"PEPFAR\"><dataValue dataElement=\"MAL_CASES\" AGE=\"U5\" SEX=\"F\" value=\"1\"/></group>"
	          "<group period=\"2024-02-01/P1M\" orgUnit=\"OU_FAC1\" MECH=\"PEPFAR\"><dataValue "
	          "dataElement=\"MAL_CASES\" AGE=\"U5\" SEX=\"F\" value=\"2\"/></group></adx>");
}

TEST(AdxWriterTest, HostileValues)
{
	Malaria adx(AdxOptions(Style::k243));
	const std::string doc = adx.Doc({{1, 10, 20, 30, 33, "1\"<&>"}, {2, 10, 20, 30, 33, ">]]>\r\xc2\x85"}});
	EXPECT_NE(doc.find("value=\"1&quot;&lt;&amp;>\"/>"), std::string::npos) << doc;
	EXPECT_NE(doc.find("<annotation>&gt;]]&gt;&#xd;&#x85;</annotation>"), std::string::npos) << doc;
}

TEST(AdxWriterTest, ForbiddenCharactersFailCleanly)
{
	Malaria adx(AdxOptions(Style::k243));
	EXPECT_THROW(adx.Doc({{2, 10, 20, 30, 33, std::string("bell\x07")}}), Error);
	Malaria numeric(AdxOptions(Style::k243));
	try {
		numeric.Doc({{1, 10, 20, 30, 33, std::string("1\x02")}});
		FAIL() << "no error";
	} catch (const Error &e) {
		EXPECT_STREQ(e.Sqlstate(), "22021");
		EXPECT_NE(std::string(e.what()).find("U+0002"), std::string::npos) << e.what();
	}
	/* In an identifier: refused when the identifier is registered, before any output. */
	DocumentOptions o = AdxOptions(Style::k243);
	o.data_sets = {std::string("DS\x01")};
	EXPECT_THROW(MakeWriter(o), Error);
}

TEST(AdxWriterTest, CategoryIdThatIsNoXmlNameFailsWhenUsed)
{
	Malaria adx(AdxOptions(Style::k243));
	/* Combo 34's category id "two words" is no XML name: fine while unused, an error when used. */
	EXPECT_NO_THROW(adx.Doc({{1, 10, 20, 30, 33, "1"}}));
	Malaria used(AdxOptions(Style::k243));
	EXPECT_THROW(used.Doc({{1, 10, 20, 34, 33, "1"}}), Error);
	Malaria group(AdxOptions(Style::k242));
	EXPECT_THROW(group.Doc({{1, 10, 20, 30, 34, "1"}}), Error);
}

TEST(AdxWriterTest, CategoryIdsThatWouldBreakTheDocumentFailWhenUsed)
{
	/*
	 * DHIS2 writes these as given: a duplicate attribute or an undeclared prefix is not well-formed,
	 * xmlns moves the element out of ADX's namespace. Refused in both shapes, once a value uses them.
	 */
	const struct {
		uint32_t coc, aoc;
		const char *detail;
	} refused[] = {
	    {37, 33, "\"value\" of category \"value\" is an attribute <dataValue> has already"},
	    {30, 38, "\"period\" of category \"period\" is an attribute <group> has already"},
	    {39, 33, "has the prefix \"AGE\", a namespace the document does not declare"},
	    {30, 39, "has the prefix \"AGE\", a namespace the document does not declare"},
	    {40, 33, "\"xmlns\" of category \"xmlns\" would declare the element's namespace"},
	    {30, 40, "would declare the element's namespace"},
	};
	for (Style style : {Style::k243, Style::k242})
		for (const auto &c : refused) {
			Malaria used(AdxOptions(style));
			try {
				used.Doc({{1, 10, 20, c.coc, c.aoc, "1"}});
				ADD_FAILURE() << "no error for COC " << c.coc << ", AOC " << c.aoc;
			} catch (const Error &e) {
				EXPECT_STREQ(e.Sqlstate(), "22004");
				EXPECT_NE(e.Detail().find(c.detail), std::string::npos) << e.Detail();
			}
		}
	/* Another element's attribute is a category like any: `period` on a value, `value` on a group. */
	Malaria fine(AdxOptions(Style::k243));
	EXPECT_EQ(fine.Doc({{1, 10, 20, 38, 37, "1"}}),
	          "<adx xmlns=\"urn:ihe:qrph:adx:2015\"><group dataSet=\"MAL_DS\" period=\"2024-01-01/P1M\" "
	          "orgUnit=\"OU_FAC1\" value=\"V\"><dataValue dataElement=\"MAL_CASES\" period=\"P\" value=\"1\"/>"
	          "</group></adx>");
}

TEST(AdxWriterTest, TwoCategoriesWithOneIdFailWhenUsed)
{
	/* One attribute twice is not XML: refused in both shapes, once a value uses the combo. */
	for (Style style : {Style::k243, Style::k242}) {
		Malaria unused(AdxOptions(style));
		EXPECT_NO_THROW(unused.Doc({{1, 10, 20, 30, 33, "1"}}));
		Malaria used(AdxOptions(style));
		try {
			used.Doc({{1, 10, 20, 35, 33, "1"}});
			ADD_FAILURE() << "no error";
		} catch (const Error &e) {
			EXPECT_NE(e.Detail().find("have the same identifier \"AGE\""), std::string::npos) << e.Detail();
		}
	}
}

TEST(AdxWriterTest, EmptyOptionCodeWrittenBy243RefusedBy242)
{
	Malaria written(AdxOptions(Style::k243));
	EXPECT_NE(
	    written.Doc({{1, 10, 20, 36, 33, "1"}}).find("<dataValue dataElement=\"MAL_CASES\" SEX=\"\" value=\"1\"/>"),
	    std::string::npos);
	Malaria refused(AdxOptions(Style::k242));
	EXPECT_THROW(refused.Doc({{1, 10, 20, 36, 33, "1"}}), Error);
}

} // namespace
} // namespace datavalue_export::core
