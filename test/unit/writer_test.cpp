/*
 * test/unit/writer_test.cpp
 *	  Unit tests of the format writers (core/writer_*.cpp) and core/document_plan: the exact bytes of JSON and CSV
 *	  documents in the 2.43 and 2.42 shapes, and the header/hoisting rules end to end.
 *
 * Expected documents are written out in full from dhis2-export-format.md §4.1 (2.42 JSON), §4.2
 * (2.43 JSON), §5.1-5.2 (CSV); the doc's constructed examples are reproduced byte for byte. The
 * first half drives a Writer from MakeWriter directly with DocumentOptions; the second half goes through
 * ValidateRequest and PrepareDocument with metadata shaped the way src/pg fills it, so each
 * document-level rule (which header members appear, which value members are hoisted away, the
 * ...IdScheme keys, 2.42's single-set header) is pinned from the request onwards.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/writer.hpp"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/calendar.hpp"
#include "core/document_plan.hpp"
#include "core/error.hpp"
#include "core/validate.hpp"

namespace datavalue_export::core {
namespace {

using OptString = std::optional<std::string>;

/* 2024-02-03 10:11:12.123456: the doc's example time plus sub-millisecond digits that must be dropped. */
const int64_t kCreated = DaysFromCivil(2024, 2, 3) * kMicrosPerDay + INT64_C(36672123456);
const char *const kCreatedText = "2024-02-03T10:11:12.123+0000";
/* 2024-03-04 05:06:07.089 */
const int64_t kUpdated = DaysFromCivil(2024, 3, 4) * kMicrosPerDay + INT64_C(18367089000);
const char *const kUpdatedText = "2024-03-04T05:06:07.089+0000";

const char *const kCsvHeader = "dataelement,period,orgunit,categoryoptioncombo,attributeoptioncombo,value,storedby,"
                               "lastupdated,comment,followup,deleted\n";

/* One row by database ids; texts as they come from the tuple (nullopt = SQL NULL). */
struct Row {
	int64_t de = 10, pe = 20, ou = 30, coc = 40, aoc = 40;
	OptString value = "12";
	OptString stored_by = "admin";
	OptString comment;
	int64_t created = kCreated;
	int64_t last_updated = kCreated;
	int8_t followup = -1;
	bool deleted = false;
};

/*
 * A TextField. src/pg passes data == nullptr for SQL NULL; null_data chooses between that and a
 * non-null empty pointer, because nullptr trips UBSan in escape.hpp (see CsvNullFieldsWithNullPointers).
 */
TextField
Field(const OptString &s, bool null_data = false)
{
	TextField f;
	if (s) {
		f.data = s->data();
		f.size = s->size();
		f.is_null = false;
	} else {
		f.data = null_data ? nullptr : "";
		f.size = 0;
		f.is_null = true;
	}
	return f;
}

DataValueRow
ToRow(const Row &r, const IdMap (&maps)[kIdKindCount], bool null_data = false)
{
	DataValueRow row{};
	const int64_t ids[kIdKindCount] = {r.de, r.pe, r.ou, r.coc, r.aoc};
	for (size_t k = 0; k < kIdKindCount; k++) {
		row.ids[k] = maps[k].Get(ids[k]);
		EXPECT_NE(row.ids[k], IdMap::kNotFound) << "kind " << k << " id " << ids[k];
	}
	row.value = Field(r.value, null_data);
	row.stored_by = Field(r.stored_by, null_data);
	row.comment = Field(r.comment, null_data);
	row.created = r.created;
	row.last_updated = r.last_updated;
	row.followup = r.followup;
	row.deleted = r.deleted;
	return row;
}

std::string
Render(Writer &writer, const IdMap (&maps)[kIdKindCount], const std::vector<Row> &rows, bool null_data = false)
{
	OutputBuffer out;
	writer.Begin(out);
	for (const Row &r : rows)
		writer.WriteRow(ToRow(r, maps, null_data), out);
	writer.End(out);
	EXPECT_EQ(writer.Rows(), rows.size());
	return std::string(out.View());
}

std::string
Render(PreparedDocument &doc, const std::vector<Row> &rows, bool null_data = false)
{
	return Render(*doc.writer, doc.maps, rows, null_data);
}

/* ---- Direct Writer tests: identifiers registered by hand ---- */

/* Registers the standard identifiers (ids 10.., see Row) and records their indexes. */
struct Direct {
	std::unique_ptr<Writer> writer;
	IdMap maps[kIdKindCount];

	explicit Direct(const DocumentOptions &options) : writer(MakeWriter(options)) {}

	void Add(IdKind kind, int64_t id, std::optional<std::string_view> text, bool is_default = false)
	{
		maps[static_cast<size_t>(kind)].Put(id, writer->AddIdentifier(kind, text, is_default));
	}

	void AddStandard()
	{
		Add(IdKind::kDataElement, 10, "f7n9E0hX8qk");
		Add(IdKind::kDataElement, 11, "de2");
		Add(IdKind::kPeriod, 20, "202401");
		Add(IdKind::kPeriod, 21, "202402");
		Add(IdKind::kOrgUnit, 30, "DiszpKrYNg8");
		Add(IdKind::kOrgUnit, 31, "ou2");
		Add(IdKind::kCategoryOptionCombo, 40, "HllvX50cXC0", true);
		Add(IdKind::kCategoryOptionCombo, 41, "coc2");
		Add(IdKind::kAttributeOptionCombo, 40, "HllvX50cXC0", true);
		Add(IdKind::kAttributeOptionCombo, 41, "aoc2");
	}

	std::string Doc(const std::vector<Row> &rows, bool null_data = false)
	{
		return Render(*writer, maps, rows, null_data);
	}
};

DocumentOptions
Options(Format format, Style style)
{
	DocumentOptions o;
	o.format = format;
	o.style = style;
	return o;
}

TEST(WriterTest, AForkRendersLikeItsWriterAndAnIdentifierAddedLaterStaysWithTheWriter)
{
	/* A fork shares the identifier tables (only read once added); adding to a shared table copies it first. */
	for (const Format format : {Format::kJson, Format::kCsv, Format::kXml}) {
		Direct direct(Options(format, Style::k243));
		direct.AddStandard();
		OutputBuffer first;
		direct.writer->Begin(first);
		direct.writer->WriteRow(ToRow(Row{}, direct.maps), first); /* the fork renders rows after one */
		std::unique_ptr<Writer> fork = direct.writer->ForkForLaterRows();
		ASSERT_NE(fork, nullptr);
		const IdMap before_maps[kIdKindCount] = {direct.maps[0], direct.maps[1], direct.maps[2], direct.maps[3],
		                                         direct.maps[4]};
		direct.Add(IdKind::kOrgUnit, 32, "ouAddedLate");
		EXPECT_EQ(direct.writer->IdentifierCount(IdKind::kOrgUnit), 3u);
		EXPECT_EQ(fork->IdentifierCount(IdKind::kOrgUnit), 2u) << "the fork's tables changed under it";
		Row known;
		known.ou = 31;
		OutputBuffer by_writer, by_fork;
		direct.writer->WriteRow(ToRow(known, direct.maps), by_writer);
		fork->WriteRow(ToRow(known, before_maps), by_fork);
		EXPECT_EQ(by_writer.View(), by_fork.View());
		EXPECT_NE(std::string(by_fork.View()).find("ou2"), std::string::npos);
		Row late;
		late.ou = 32;
		OutputBuffer late_row;
		direct.writer->WriteRow(ToRow(late, direct.maps), late_row);
		EXPECT_NE(std::string(late_row.View()).find("ouAddedLate"), std::string::npos);
	}
}

TEST(WriterTest, EmptyDocuments)
{
	for (const Style style : {Style::k243, Style::k242}) {
		Direct json(Options(Format::kJson, style));
		EXPECT_EQ(json.Doc({}), "{\"dataValues\":[]}");
		Direct csv(Options(Format::kCsv, style));
		EXPECT_EQ(csv.Doc({}), kCsvHeader);
	}
}

TEST(WriterTest, Json243FullValueMemberOrder)
{
	Direct d(Options(Format::kJson, Style::k243));
	d.AddStandard();
	Row r;
	r.coc = 41;
	r.aoc = 41;
	r.value = "v";
	r.stored_by = "s";
	r.comment = "c";
	r.last_updated = kUpdated;
	r.followup = 1;
	r.deleted = true;
	EXPECT_EQ(d.Doc({r}), std::string("{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\","
	                                  "\"orgUnit\":\"DiszpKrYNg8\",\"categoryOptionCombo\":\"coc2\","
	                                  "\"attributeOptionCombo\":\"aoc2\",\"value\":\"v\",\"storedBy\":\"s\","
	                                  "\"created\":\"") +
	                          kCreatedText + "\",\"lastUpdated\":\"" + kUpdatedText +
	                          "\",\"comment\":\"c\",\"followup\":true,\"deleted\":true}]}");
}

TEST(WriterTest, Json243NullsAndEmptiesLeftOut)
{
	Direct d(Options(Format::kJson, Style::k243));
	d.AddStandard();
	Row r;
	r.value.reset();
	r.stored_by = "";
	r.comment = "";
	r.followup = -1;
	EXPECT_EQ(d.Doc({r}), std::string("{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\","
	                                  "\"orgUnit\":\"DiszpKrYNg8\",\"categoryOptionCombo\":\"HllvX50cXC0\","
	                                  "\"attributeOptionCombo\":\"HllvX50cXC0\",\"created\":\"") +
	                          kCreatedText + "\",\"lastUpdated\":\"" + kCreatedText + "\"}]}");
}

TEST(WriterTest, Json243NullStoredByAndCommentLeftOut)
{
	Direct d(Options(Format::kJson, Style::k243));
	d.AddStandard();
	Row r;
	r.stored_by.reset();
	r.comment.reset();
	r.followup = 0;
	EXPECT_EQ(d.Doc({r}), std::string("{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\","
	                                  "\"orgUnit\":\"DiszpKrYNg8\",\"categoryOptionCombo\":\"HllvX50cXC0\","
	                                  "\"attributeOptionCombo\":\"HllvX50cXC0\",\"value\":\"12\",\"created\":\"") +
	                          kCreatedText + "\",\"lastUpdated\":\"" + kCreatedText + "\",\"followup\":false}]}");
}

TEST(WriterTest, Json243EmptyValueStaysEmptyString)
{
	Direct d(Options(Format::kJson, Style::k243));
	d.AddStandard();
	Row r;
	r.value = "";
	const std::string doc = d.Doc({r});
	EXPECT_NE(doc.find(",\"value\":\"\","), std::string::npos) << doc;
}

TEST(WriterTest, Json243FollowupAndDeleted)
{
	Direct d(Options(Format::kJson, Style::k243));
	d.AddStandard();
	const std::string prefix = std::string("{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\",\"orgUnit\":"
	                                       "\"DiszpKrYNg8\",\"categoryOptionCombo\":\"HllvX50cXC0\","
	                                       "\"attributeOptionCombo\":\"HllvX50cXC0\",\"value\":\"12\",\"storedBy\":"
	                                       "\"admin\",\"created\":\"") +
	                           kCreatedText + "\",\"lastUpdated\":\"" + kCreatedText + "\"";
	Row null_followup, no, yes, deleted;
	no.followup = 0;
	yes.followup = 1;
	deleted.deleted = true;
	EXPECT_EQ(d.Doc({null_followup, no, yes, deleted}), "{\"dataValues\":[" + prefix + "}," + prefix +
	                                                        ",\"followup\":false}," + prefix + ",\"followup\":true}," +
	                                                        prefix + ",\"deleted\":true}]}");
}

TEST(WriterTest, Json243HoistedMembersLeftOut)
{
	DocumentOptions o = Options(Format::kJson, Style::k243);
	o.omit_period = true;
	o.omit_org_unit = true;
	o.omit_attribute_option_combo = true;
	Direct d(o);
	d.AddStandard();
	EXPECT_EQ(d.Doc({Row{}}), std::string("{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\","
	                                      "\"categoryOptionCombo\":\"HllvX50cXC0\",\"value\":\"12\","
	                                      "\"storedBy\":\"admin\",\"created\":\"") +
	                              kCreatedText + "\",\"lastUpdated\":\"" + kCreatedText + "\"}]}");
}

TEST(WriterTest, Json243ExcludeDefaultCombos)
{
	DocumentOptions o = Options(Format::kJson, Style::k243);
	o.exclude_default_coc = true;
	o.exclude_default_aoc = true;
	Direct d(o);
	d.AddStandard();
	Row defaults;
	Row others;
	others.coc = 41;
	others.aoc = 41;
	const std::string tail = std::string("\"value\":\"12\",\"storedBy\":\"admin\",\"created\":\"") + kCreatedText +
	                         "\",\"lastUpdated\":\"" + kCreatedText + "\"}";
	EXPECT_EQ(d.Doc({defaults, others}),
	          "{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\",\"orgUnit\":\"DiszpKrYNg8\"," +
	              tail +
	              ",{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\",\"orgUnit\":\"DiszpKrYNg8\","
	              "\"categoryOptionCombo\":\"coc2\",\"attributeOptionCombo\":\"aoc2\"," +
	              tail + "]}");
	/* Only the COC excluded. */
	DocumentOptions coc_only = Options(Format::kJson, Style::k243);
	coc_only.exclude_default_coc = true;
	Direct c(coc_only);
	c.AddStandard();
	EXPECT_EQ(c.Doc({defaults}),
	          "{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\",\"orgUnit\":\"DiszpKrYNg8\","
	          "\"attributeOptionCombo\":\"HllvX50cXC0\"," +
	              tail + "]}");
}

TEST(WriterTest, Json243NullIdentifiersLeftOut)
{
	Direct d(Options(Format::kJson, Style::k243));
	d.Add(IdKind::kDataElement, 10, "de");
	d.Add(IdKind::kPeriod, 20, "202401");
	d.Add(IdKind::kOrgUnit, 30, std::nullopt);
	d.Add(IdKind::kCategoryOptionCombo, 40, std::nullopt);
	d.Add(IdKind::kAttributeOptionCombo, 40, std::nullopt);
	EXPECT_EQ(d.Doc({Row{}}), std::string("{\"dataValues\":[{\"dataElement\":\"de\",\"period\":\"202401\","
	                                      "\"value\":\"12\",\"storedBy\":\"admin\",\"created\":\"") +
	                              kCreatedText + "\",\"lastUpdated\":\"" + kCreatedText + "\"}]}");
}

TEST(WriterTest, Json242AllMembersWithNulls)
{
	Direct d(Options(Format::kJson, Style::k242));
	d.AddStandard();
	Row r;
	r.value.reset();
	r.stored_by.reset();
	r.comment.reset();
	r.followup = -1;
	r.last_updated = kUpdated;
	EXPECT_EQ(d.Doc({r}), std::string("{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\","
	                                  "\"orgUnit\":\"DiszpKrYNg8\",\"categoryOptionCombo\":\"HllvX50cXC0\","
	                                  "\"attributeOptionCombo\":\"HllvX50cXC0\",\"value\":null,\"storedBy\":null,"
	                                  "\"created\":\"") +
	                          kCreatedText + "\",\"lastUpdated\":\"" + kUpdatedText +
	                          "\",\"comment\":null,\"followup\":false}]}");
}

TEST(WriterTest, Json242EmptyStringsStay)
{
	Direct d(Options(Format::kJson, Style::k242));
	d.AddStandard();
	Row r;
	r.value = "";
	r.stored_by = "";
	r.comment = "";
	r.followup = 1;
	r.deleted = true;
	EXPECT_EQ(d.Doc({r}), std::string("{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\","
	                                  "\"orgUnit\":\"DiszpKrYNg8\",\"categoryOptionCombo\":\"HllvX50cXC0\","
	                                  "\"attributeOptionCombo\":\"HllvX50cXC0\",\"value\":\"\",\"storedBy\":\"\","
	                                  "\"created\":\"") +
	                          kCreatedText + "\",\"lastUpdated\":\"" + kCreatedText +
	                          "\",\"comment\":\"\",\"followup\":true,\"deleted\":true}]}");
}

TEST(WriterTest, Json242FollowupNullIsFalseAndDeletedOnlyWhenTrue)
{
	Direct d(Options(Format::kJson, Style::k242));
	d.AddStandard();
	Row null_followup, no, yes;
	no.followup = 0;
	yes.followup = 1;
	const std::string doc = d.Doc({null_followup, no, yes});
	const std::string end = "\"comment\":null,\"followup\":false}";
	size_t first = doc.find(end);
	ASSERT_NE(first, std::string::npos) << doc;
	EXPECT_NE(doc.find(end, first + 1), std::string::npos) << doc;
	EXPECT_NE(doc.find("\"comment\":null,\"followup\":true}]}"), std::string::npos) << doc;
	EXPECT_EQ(doc.find("deleted"), std::string::npos) << doc;
}

TEST(WriterTest, Json242NullIdentifiersAreNull)
{
	Direct d(Options(Format::kJson, Style::k242));
	d.Add(IdKind::kDataElement, 10, std::nullopt);
	d.Add(IdKind::kPeriod, 20, std::nullopt);
	d.Add(IdKind::kOrgUnit, 30, std::nullopt);
	d.Add(IdKind::kCategoryOptionCombo, 40, std::nullopt);
	d.Add(IdKind::kAttributeOptionCombo, 40, std::nullopt);
	EXPECT_EQ(d.Doc({Row{}}), std::string("{\"dataValues\":[{\"dataElement\":null,\"period\":null,\"orgUnit\":null,"
	                                      "\"categoryOptionCombo\":null,\"attributeOptionCombo\":null,"
	                                      "\"value\":\"12\",\"storedBy\":\"admin\",\"created\":\"") +
	                              kCreatedText + "\",\"lastUpdated\":\"" + kCreatedText +
	                              "\",\"comment\":null,\"followup\":false}]}");
}

TEST(WriterTest, JsonValueIsAlwaysAString)
{
	for (const Style style : {Style::k243, Style::k242}) {
		Direct d(Options(Format::kJson, style));
		d.AddStandard();
		Row number, boolean;
		number.value = "12.5";
		boolean.value = "true";
		const std::string doc = d.Doc({number, boolean});
		EXPECT_NE(doc.find("\"value\":\"12.5\""), std::string::npos) << doc;
		EXPECT_NE(doc.find("\"value\":\"true\""), std::string::npos) << doc;
	}
}

TEST(WriterTest, JsonEscapingInTextsAndIdentifiers)
{
	Direct d(Options(Format::kJson, Style::k243));
	d.Add(IdKind::kDataElement, 10, "Name \"x\"\\");
	d.Add(IdKind::kPeriod, 20, "202401");
	d.Add(IdKind::kOrgUnit, 30, "Bo/\xc3\xa9");
	d.Add(IdKind::kCategoryOptionCombo, 40, "a\tb");
	d.Add(IdKind::kAttributeOptionCombo, 40, "x");
	Row r;
	r.value = "Line1\nLine2 \"q\", x";
	r.stored_by = std::string("a\x01z");
	r.comment = "\xe2\x80\xa8\x7f";
	EXPECT_EQ(d.Doc({r}), std::string("{\"dataValues\":[{\"dataElement\":\"Name \\\"x\\\"\\\\\",\"period\":"
	                                  "\"202401\",\"orgUnit\":\"Bo/\xc3\xa9\",\"categoryOptionCombo\":\"a\\tb\","
	                                  "\"attributeOptionCombo\":\"x\",\"value\":\"Line1\\nLine2 \\\"q\\\", x\","
	                                  "\"storedBy\":\"a\\u0001z\",\"created\":\"") +
	                          kCreatedText + "\",\"lastUpdated\":\"" + kCreatedText +
	                          "\",\"comment\":\"\xe2\x80\xa8\x7f\"}]}");
}

TEST(WriterTest, CharactersOutsideTheBmpPerStyle)
{
	/* U+1F600 and U+10000 in identifiers, texts and the header: raw in 2.43, \uD83D\uDE00 in 2.42. */
	const std::string grin = "\xF0\x9F\x98\x80";
	const std::string first = "\xF0\x90\x80\x80";
	for (const Style style : {Style::k243, Style::k242}) {
		DocumentOptions o = Options(Format::kJson, style);
		o.header = {{"dataSet", OptString("ds" + grin)}};
		Direct d(o);
		d.Add(IdKind::kDataElement, 10, "de" + grin);
		d.Add(IdKind::kPeriod, 20, "202401");
		d.Add(IdKind::kOrgUnit, 30, "ou");
		d.Add(IdKind::kCategoryOptionCombo, 40, "coc");
		d.Add(IdKind::kAttributeOptionCombo, 40, "aoc");
		Row r;
		r.value = grin + "x" + first;
		r.stored_by = "u" + grin;
		r.comment = first;
		const std::string doc = d.Doc({r});
		if (style == Style::k243) {
			EXPECT_NE(doc.find("\"dataSet\":\"ds" + grin + "\""), std::string::npos) << doc;
			EXPECT_NE(doc.find("\"dataElement\":\"de" + grin + "\""), std::string::npos) << doc;
			EXPECT_NE(doc.find("\"value\":\"" + grin + "x" + first + "\""), std::string::npos) << doc;
			EXPECT_NE(doc.find("\"storedBy\":\"u" + grin + "\""), std::string::npos) << doc;
			EXPECT_NE(doc.find("\"comment\":\"" + first + "\""), std::string::npos) << doc;
		} else {
			EXPECT_EQ(doc.find('\xF0'), std::string::npos) << doc;
			EXPECT_NE(doc.find("\"dataSet\":\"ds\\uD83D\\uDE00\""), std::string::npos) << doc;
			EXPECT_NE(doc.find("\"dataElement\":\"de\\uD83D\\uDE00\""), std::string::npos) << doc;
			EXPECT_NE(doc.find("\"value\":\"\\uD83D\\uDE00x\\uD800\\uDC00\""), std::string::npos) << doc;
			EXPECT_NE(doc.find("\"storedBy\":\"u\\uD83D\\uDE00\""), std::string::npos) << doc;
			EXPECT_NE(doc.find("\"comment\":\"\\uD800\\uDC00\""), std::string::npos) << doc;
		}
	}
	/* CSV is the same in both styles: raw UTF-8. */
	for (const Style style : {Style::k243, Style::k242}) {
		Direct d(Options(Format::kCsv, style));
		d.AddStandard();
		Row r;
		r.value = grin;
		EXPECT_NE(d.Doc({r}).find("," + grin + ","), std::string::npos);
	}
}

TEST(WriterTest, JsonHeaderMembers)
{
	DocumentOptions o = Options(Format::kJson, Style::k243);
	o.header = {{"dataSet", OptString("pBOMPrpg1QX")}, {"completeDate", std::nullopt}, {"x\"y", OptString("a\nb")}};
	Direct d(o);
	EXPECT_EQ(d.Doc({}), "{\"dataSet\":\"pBOMPrpg1QX\",\"completeDate\":null,\"x\\\"y\":\"a\\nb\",\"dataValues\":[]}");
}

TEST(WriterTest, LargeTextsFitTheReservation)
{
	/* Worst-case escaping of 50000-byte value and comment columns (varchar(50000)). */
	for (const Format format : {Format::kJson, Format::kCsv})
		for (const Style style : {Style::k243, Style::k242}) {
			Direct d(Options(format, style));
			d.AddStandard();
			Row r;
			r.value = std::string(50000, format == Format::kJson ? '\x01' : '"');
			r.comment = std::string(50000, format == Format::kJson ? '\x02' : '"');
			r.stored_by = std::string(255, format == Format::kJson ? '\x03' : '"');
			const std::string doc = d.Doc({r, r});
			if (format == Format::kJson)
				EXPECT_GT(doc.size(), 2u * 6u * 100000u);
			else
				EXPECT_GT(doc.size(), 2u * 2u * 100000u);
		}
}

/* ---- CSV ---- */

TEST(WriterTest, Csv243FollowupAndDeleted)
{
	Direct d(Options(Format::kCsv, Style::k243));
	d.AddStandard();
	Row null_followup, no, yes, deleted;
	no.followup = 0;
	yes.followup = 1;
	deleted.deleted = true;
	const std::string key = "f7n9E0hX8qk,202401,DiszpKrYNg8,HllvX50cXC0,HllvX50cXC0,12,admin,";
	EXPECT_EQ(d.Doc({null_followup, no, yes, deleted}),
	          std::string(kCsvHeader) + key + kCreatedText + ",,,false\n" + key + kCreatedText + ",,false,false\n" +
	              key + kCreatedText + ",,true,false\n" + key + kCreatedText + ",,,true\n");
}

TEST(WriterTest, Csv242FollowupAndDeleted)
{
	Direct d(Options(Format::kCsv, Style::k242));
	d.AddStandard();
	Row null_followup, no, yes, deleted;
	no.followup = 0;
	yes.followup = 1;
	deleted.deleted = true;
	const std::string key = "f7n9E0hX8qk,202401,DiszpKrYNg8,HllvX50cXC0,HllvX50cXC0,12,admin,";
	EXPECT_EQ(d.Doc({null_followup, no, yes, deleted}),
	          std::string(kCsvHeader) + key + kCreatedText + ",,false,null\n" + key + kCreatedText + ",,false,null\n" +
	              key + kCreatedText + ",,true,null\n" + key + kCreatedText + ",,false,true\n");
}

TEST(WriterTest, CsvUsesLastUpdatedNotCreated)
{
	Direct d(Options(Format::kCsv, Style::k243));
	d.AddStandard();
	Row r;
	r.last_updated = kUpdated;
	const std::string doc = d.Doc({r});
	EXPECT_NE(doc.find(kUpdatedText), std::string::npos);
	EXPECT_EQ(doc.find(kCreatedText), std::string::npos);
}

TEST(WriterTest, CsvTrimmingAndQuoting)
{
	Direct d(Options(Format::kCsv, Style::k243));
	d.Add(IdKind::kDataElement, 10, "#DE_CODE");
	d.Add(IdKind::kPeriod, 20, "202401");
	d.Add(IdKind::kOrgUnit, 30, "Bo, Sierra \"Leone\"");
	d.Add(IdKind::kCategoryOptionCombo, 40, " default ");
	d.Add(IdKind::kAttributeOptionCombo, 40, "#x");
	Row r;
	r.value = "  5 ";
	r.stored_by = "a,b";
	r.comment = "Line1\nLine2 \"q\", x";
	r.followup = 0;
	EXPECT_EQ(d.Doc({r}), std::string(kCsvHeader) +
	                          "\"#DE_CODE\",202401,\"Bo, Sierra \"\"Leone\"\"\",default,#x,5,\"a,b\"," + kCreatedText +
	                          ",\"Line1\nLine2 \"\"q\"\", x\",false,false\n");
	Row s;
	s.value = "\x01"
	          "abc\r\n";
	s.stored_by = "  ";
	s.comment = "\t";
	Direct e(Options(Format::kCsv, Style::k243));
	e.Add(IdKind::kDataElement, 10, "#DE_CODE");
	e.Add(IdKind::kPeriod, 20, "202401");
	e.Add(IdKind::kOrgUnit, 30, "Bo, Sierra \"Leone\"");
	e.Add(IdKind::kCategoryOptionCombo, 40, " default ");
	e.Add(IdKind::kAttributeOptionCombo, 40, "#x");
	EXPECT_EQ(e.Doc({s}), std::string(kCsvHeader) +
	                          "\"#DE_CODE\",202401,\"Bo, Sierra \"\"Leone\"\"\",default,#x,abc,," + kCreatedText +
	                          ",,,false\n");
}

TEST(WriterTest, CsvEmptyFirstColumnIsQuoted)
{
	/* UBSan reports escape.hpp:159/164 here: null identifiers reach WriteCsvField as (nullptr, 0). */
	Direct d(Options(Format::kCsv, Style::k242));
	d.Add(IdKind::kDataElement, 10, std::nullopt);
	d.Add(IdKind::kDataElement, 11, "  ");
	d.Add(IdKind::kPeriod, 20, "202401");
	d.Add(IdKind::kOrgUnit, 30, std::nullopt);
	d.Add(IdKind::kCategoryOptionCombo, 40, "");
	d.Add(IdKind::kAttributeOptionCombo, 40, "x");
	Row r;
	Row blank;
	blank.de = 11;
	blank.value = "";
	EXPECT_EQ(d.Doc({r, blank}), std::string(kCsvHeader) + "\"\",202401,,,x,12,admin," + kCreatedText +
	                                 ",,false,null\n\"\",202401,,,x,,admin," + kCreatedText + ",,false,null\n");
}

TEST(WriterTest, CsvExcludedDefaultCombosAreEmptyFields)
{
	/* UBSan reports escape.hpp:159 here too (excluded combos are written as (nullptr, 0)). */
	DocumentOptions o = Options(Format::kCsv, Style::k243);
	o.exclude_default_coc = true;
	o.exclude_default_aoc = true;
	o.omit_period = true; /* hoisting never applies to CSV */
	o.omit_org_unit = true;
	o.omit_attribute_option_combo = true;
	Direct d(o);
	d.AddStandard();
	Row defaults, others;
	others.coc = 41;
	others.aoc = 41;
	EXPECT_EQ(d.Doc({defaults, others}), std::string(kCsvHeader) + "f7n9E0hX8qk,202401,DiszpKrYNg8,,,12,admin," +
	                                         kCreatedText +
	                                         ",,,false\nf7n9E0hX8qk,202401,DiszpKrYNg8,coc2,aoc2,12,"
	                                         "admin," +
	                                         kCreatedText + ",,,false\n");
}

/*
 * Regression (fixed): src/pg passes SQL NULL text columns as TextField{data = nullptr}; the CSV row
 * writer hands them to WriteCsvField, whose memcpy(w, nullptr, 0) is undefined behaviour
 * (escape.hpp:159). UBSan prints "null pointer passed as argument 2" for this test; the bytes are right.
 */
TEST(WriterTest, CsvNullFieldsWithNullPointers)
{
	for (const Style style : {Style::k243, Style::k242}) {
		Direct d(Options(Format::kCsv, style));
		d.AddStandard();
		Row r;
		r.value.reset();
		r.stored_by.reset();
		r.comment.reset();
		EXPECT_EQ(d.Doc({r}, true), std::string(kCsvHeader) +
		                                "f7n9E0hX8qk,202401,DiszpKrYNg8,HllvX50cXC0,HllvX50cXC0,,," + kCreatedText +
		                                (style == Style::k243 ? ",,,false\n" : ",,false,null\n"));
	}
}

TEST(WriterTest, JsonNullFieldsWithNullPointers)
{
	/* Same NULL representation through the JSON writers (nothing is copied for them). */
	Direct a(Options(Format::kJson, Style::k243));
	a.AddStandard();
	Direct b(Options(Format::kJson, Style::k242));
	b.AddStandard();
	Row r;
	r.value.reset();
	r.stored_by.reset();
	r.comment.reset();
	EXPECT_EQ(a.Doc({r}, true).find("null"), std::string::npos);
	EXPECT_NE(b.Doc({r}, true).find("\"value\":null,\"storedBy\":null"), std::string::npos);
}

/* ---- DXF2 XML (dhis2-xml-adx-format.md §2-3) ---- */

const std::string kXmlRoot =
    "<?xml version='1.0' encoding='UTF-8'?><dataValueSet xmlns=\"http://dhis2.org/schema/dxf/2.0\"";
const std::string kXmlTimes = std::string(" created=\"") + kCreatedText + "\" lastUpdated=\"" + kCreatedText + "\"";

TEST(XmlWriterTest, EmptyDocuments)
{
	for (const Style style : {Style::k243, Style::k242}) {
		Direct xml(Options(Format::kXml, style));
		EXPECT_EQ(xml.Doc({}), kXmlRoot + "/>");
	}
}

TEST(XmlWriterTest, Xml243MembersAndOmissions)
{
	Direct d(Options(Format::kXml, Style::k243));
	d.AddStandard();
	Row full;
	full.coc = full.aoc = 41;
	full.value = "v";
	full.stored_by = "s";
	full.comment = "c";
	full.last_updated = kUpdated;
	full.followup = 1;
	full.deleted = true;
	Row sparse; /* NULL value, empty storedBy and comment, followup false: all left out */
	sparse.value.reset();
	sparse.stored_by = "";
	sparse.comment = "";
	sparse.followup = 0;
	Row empty_value;
	empty_value.value = "";
	empty_value.stored_by.reset();
	EXPECT_EQ(d.Doc({full, sparse, empty_value}),
	          kXmlRoot +
	              "><dataValue dataElement=\"f7n9E0hX8qk\" period=\"202401\" orgUnit=\"DiszpKrYNg8\" "
	              "categoryOptionCombo=\"coc2\" attributeOptionCombo=\"aoc2\" value=\"v\" storedBy=\"s\" created=\"" +
	              kCreatedText + "\" lastUpdated=\"" + kUpdatedText +
	              "\" comment=\"c\" followUp=\"true\" deleted=\"true\"/>"
	              "<dataValue dataElement=\"f7n9E0hX8qk\" period=\"202401\" orgUnit=\"DiszpKrYNg8\" "
	              "categoryOptionCombo=\"HllvX50cXC0\" attributeOptionCombo=\"HllvX50cXC0\"" +
	              kXmlTimes +
	              "/><dataValue dataElement=\"f7n9E0hX8qk\" period=\"202401\" orgUnit=\"DiszpKrYNg8\" "
	              "categoryOptionCombo=\"HllvX50cXC0\" attributeOptionCombo=\"HllvX50cXC0\" value=\"\"" +
	              kXmlTimes + "/></dataValueSet>");
}

TEST(XmlWriterTest, Xml243HoistedExcludedAndNullIdentifiersLeftOut)
{
	DocumentOptions o = Options(Format::kXml, Style::k243);
	o.omit_period = o.omit_org_unit = true;
	o.exclude_default_aoc = true;
	Direct d(o);
	d.AddStandard();
	d.Add(IdKind::kCategoryOptionCombo, 42, std::nullopt);
	Row r;
	r.coc = 42;
	EXPECT_EQ(d.Doc({r}), kXmlRoot + "><dataValue dataElement=\"f7n9E0hX8qk\" value=\"12\" storedBy=\"admin\"" +
	                          kXmlTimes + "/></dataValueSet>");
}

TEST(XmlWriterTest, Xml242EveryMemberFollowUpAlways)
{
	Direct d(Options(Format::kXml, Style::k242));
	d.AddStandard();
	d.Add(IdKind::kPeriod, 22, std::nullopt); /* TwoYearly: no ISO period, attribute absent */
	Row nulls;
	nulls.value.reset();
	nulls.stored_by.reset();
	nulls.followup = -1;
	Row empties;
	empties.pe = 22;
	empties.value = "";
	empties.stored_by = "";
	empties.comment = "";
	empties.followup = 1;
	empties.deleted = true;
	Row plain;
	plain.followup = 0;
	EXPECT_EQ(d.Doc({nulls, empties, plain}),
	          kXmlRoot +
	              "><dataValue dataElement=\"f7n9E0hX8qk\" period=\"202401\" orgUnit=\"DiszpKrYNg8\" "
	              "categoryOptionCombo=\"HllvX50cXC0\" attributeOptionCombo=\"HllvX50cXC0\"" +
	              kXmlTimes +
	              " followUp=\"false\"/><dataValue dataElement=\"f7n9E0hX8qk\" orgUnit=\"DiszpKrYNg8\" "
	              "categoryOptionCombo=\"HllvX50cXC0\" attributeOptionCombo=\"HllvX50cXC0\" value=\"\" storedBy=\"\"" +
	              kXmlTimes +
	              " comment=\"\" followUp=\"true\" deleted=\"true\"/><dataValue dataElement=\"f7n9E0hX8qk\" "
	              "period=\"202401\" orgUnit=\"DiszpKrYNg8\" categoryOptionCombo=\"HllvX50cXC0\" "
	              "attributeOptionCombo=\"HllvX50cXC0\" value=\"12\" storedBy=\"admin\"" +
	              kXmlTimes + " followUp=\"false\"/></dataValueSet>");
}

TEST(XmlWriterTest, EscapingInTextsIdentifiersAndHeader)
{
	DocumentOptions o = Options(Format::kXml, Style::k243);
	o.header = {{"dataSet", std::string("a&b")}, {"completeDate", std::nullopt}, {"orgUnit", std::string("<\"'>")}};
	Direct d(o);
	d.Add(IdKind::kDataElement, 10, "x\ty");
	d.Add(IdKind::kPeriod, 20, "202401");
	d.Add(IdKind::kOrgUnit, 30, "O'Brien > \u00e9");
	d.Add(IdKind::kCategoryOptionCombo, 40, "c");
	d.Add(IdKind::kAttributeOptionCombo, 40, "a");
	Row r;
	r.value = "\xf0\x9f\x98\x80";
	r.stored_by = "\r\n";
	r.comment = "Re-checked: 5 < 6 & \"ok\"\nsee register";
	EXPECT_EQ(d.Doc({r}),
	          "<?xml version='1.0' encoding='UTF-8'?><dataValueSet "
	          "xmlns=\"http://dhis2.org/schema/dxf/2.0\" dataSet=\"a&amp;b\" orgUnit=\"&lt;&quot;'>\">"
	          "<dataValue dataElement=\"x&#x9;y\" period=\"202401\" orgUnit=\"O'Brien > \u00e9\" "
	          "categoryOptionCombo=\"c\" attributeOptionCombo=\"a\" value=\"\xf0\x9f\x98\x80\" "
	          "storedBy=\"&#xd;&#xa;\"" +
	              kXmlTimes +
	              " comment=\"Re-checked: 5 &lt; 6 &amp; &quot;ok&quot;&#xa;see register\"/></dataValueSet>");
}

TEST(XmlWriterTest, CharactersXmlCannotCarryBecomeReplacementCharacters)
{
	DocumentOptions o = Options(Format::kXml, Style::k242);
	o.header = {{"orgUnit", std::string("\xef\xbf\xbe")}};
	Direct d(o);
	d.Add(IdKind::kDataElement, 10, "bell\x07");
	d.Add(IdKind::kPeriod, 20, "202401");
	d.Add(IdKind::kOrgUnit, 30, "o");
	d.Add(IdKind::kCategoryOptionCombo, 40, "c");
	d.Add(IdKind::kAttributeOptionCombo, 40, "a");
	Row r;
	r.value = "\x01\x1f";
	r.stored_by.reset();
	EXPECT_EQ(d.Doc({r}), kXmlRoot +
	                          " orgUnit=\"\xef\xbf\xbd\"><dataValue dataElement=\"bell\xef\xbf\xbd\" "
	                          "period=\"202401\" orgUnit=\"o\" categoryOptionCombo=\"c\" "
	                          "attributeOptionCombo=\"a\" value=\"\xef\xbf\xbd\xef\xbf\xbd\"" +
	                          kXmlTimes + " followUp=\"false\"/></dataValueSet>");
}

TEST(XmlWriterTest, LargeTextsFitTheReservation)
{
	for (const Style style : {Style::k243, Style::k242}) {
		Direct d(Options(Format::kXml, style));
		d.Add(IdKind::kDataElement, 10, std::string(3000, '"'));
		d.Add(IdKind::kPeriod, 20, "202401");
		d.Add(IdKind::kOrgUnit, 30, std::string(3000, '&'));
		d.Add(IdKind::kCategoryOptionCombo, 40, "c");
		d.Add(IdKind::kAttributeOptionCombo, 40, "a");
		Row r;
		r.value = std::string(50000, '"');
		r.stored_by = std::string(50000, '\t');
		r.comment = std::string(50000, '<');
		const std::string doc = d.Doc({r, r});
		EXPECT_NE(doc.find(std::string(" comment=\"") + "&lt;&lt;"), std::string::npos);
		EXPECT_EQ(doc.size() > 2 * 50000 * 6, true);
	}
}

/* ---- PrepareDocument: header and hoisting rules, from the request ---- */

Identifier
Obj(int64_t id, OptString text, bool is_default = false)
{
	Identifier o{};
	o.id = id;
	o.text = std::move(text);
	o.is_default = is_default;
	return o;
}

/* The doc's example request: dataSet=pBOMPrpg1QX&period=202401&orgUnit=DiszpKrYNg8. */
ExportRequest
ExampleRequest()
{
	ExportRequest r;
	r.data_set = {"pBOMPrpg1QX"};
	r.period = {"202401"};
	r.org_unit = {"DiszpKrYNg8"};
	return r;
}

/* Metadata as src/pg resolves it for ExampleRequest (UID scheme), plus a second of each object. */
ResolvedMetadata
ExampleMetadata()
{
	ResolvedMetadata m;
	m.objects[static_cast<size_t>(IdKind::kDataElement)] = {Obj(10, "f7n9E0hX8qk"), Obj(11, "de2")};
	m.objects[static_cast<size_t>(IdKind::kPeriod)] = {Obj(20, "202401"), Obj(21, "202402")};
	m.objects[static_cast<size_t>(IdKind::kOrgUnit)] = {Obj(30, "DiszpKrYNg8"), Obj(31, "ou2")};
	m.objects[static_cast<size_t>(IdKind::kCategoryOptionCombo)] = {Obj(40, "HllvX50cXC0", true), Obj(41, "coc2")};
	m.objects[static_cast<size_t>(IdKind::kAttributeOptionCombo)] = {Obj(40, "HllvX50cXC0", true), Obj(41, "aoc2")};
	m.data_sets = {Obj(1, "pBOMPrpg1QX")};
	m.org_units = {Obj(30, "DiszpKrYNg8")};
	m.single_org_unit_id = 30;
	return m;
}

PreparedDocument
Prepare(ExportRequest request, const ResolvedMetadata &metadata)
{
	return PrepareDocument(ValidateRequest(std::move(request)), metadata);
}

/* The value members after the identifiers, for the default Row. */
const std::string kValueTail = std::string("\"value\":\"12\",\"storedBy\":\"admin\",\"created\":\"") + kCreatedText +
                               "\",\"lastUpdated\":\"" + kCreatedText + "\"}";

TEST(DocumentPlanTest, DocExampleJson243)
{
	/* §4.2 constructed example: NULL followup and NULL comment. */
	PreparedDocument doc = Prepare(ExampleRequest(), ExampleMetadata());
	EXPECT_EQ(Render(doc, {Row{}}),
	          "{\"dataSet\":\"pBOMPrpg1QX\",\"period\":\"202401\",\"orgUnit\":\"DiszpKrYNg8\",\"dataValues\":[{"
	          "\"dataElement\":\"f7n9E0hX8qk\",\"categoryOptionCombo\":\"HllvX50cXC0\",\"attributeOptionCombo\":"
	          "\"HllvX50cXC0\",\"value\":\"12\",\"storedBy\":\"admin\",\"created\":\"2024-02-03T10:11:12.123+0000\","
	          "\"lastUpdated\":\"2024-02-03T10:11:12.123+0000\"}]}");
}

TEST(DocumentPlanTest, DocExampleJson242)
{
	/* §4.1 constructed example (single set, NULL comment); followup NULL and false both print false. */
	ExportRequest r = ExampleRequest();
	r.style = "2.42";
	for (const int8_t followup : {int8_t{-1}, int8_t{0}}) {
		PreparedDocument doc = Prepare(r, ExampleMetadata());
		Row row;
		row.followup = followup;
		EXPECT_EQ(Render(doc, {row}),
		          "{\"dataSet\":\"pBOMPrpg1QX\",\"completeDate\":null,\"period\":\"202401\",\"orgUnit\":"
		          "\"DiszpKrYNg8\",\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\","
		          "\"orgUnit\":\"DiszpKrYNg8\",\"categoryOptionCombo\":\"HllvX50cXC0\",\"attributeOptionCombo\":"
		          "\"HllvX50cXC0\",\"value\":\"12\",\"storedBy\":\"admin\",\"created\":\"2024-02-03T10:11:12.123+"
		          "0000\",\"lastUpdated\":\"2024-02-03T10:11:12.123+0000\",\"comment\":null,\"followup\":false}]}")
		    << int(followup);
	}
}

TEST(DocumentPlanTest, DocExampleCsv)
{
	/* §5.2 constructed example: comment NULL, followup false, not deleted; hoisting never applies to CSV. */
	ExportRequest r = ExampleRequest();
	r.format = Format::kCsv;
	Row row;
	row.followup = 0;
	{
		PreparedDocument doc = Prepare(r, ExampleMetadata());
		EXPECT_EQ(Render(doc, {row}),
		          std::string(kCsvHeader) +
		              "f7n9E0hX8qk,202401,DiszpKrYNg8,HllvX50cXC0,HllvX50cXC0,12,admin,2024-02-03T10:"
		              "11:12.123+0000,,false,false\n");
	}
	r.style = "2.42";
	{
		PreparedDocument doc = Prepare(r, ExampleMetadata());
		EXPECT_EQ(Render(doc, {row}),
		          std::string(kCsvHeader) +
		              "f7n9E0hX8qk,202401,DiszpKrYNg8,HllvX50cXC0,HllvX50cXC0,12,admin,2024-02-03T10:"
		              "11:12.123+0000,,false,null\n");
	}
}

TEST(DocumentPlanTest, CsvKeepsHoistedMembersInRows)
{
	ExportRequest r = ExampleRequest();
	r.format = Format::kCsv;
	r.attribute_option_combo = {"HllvX50cXC0"};
	ResolvedMetadata m = ExampleMetadata();
	m.single_attribute_option_combo_id = 40;
	PreparedDocument doc = Prepare(r, m);
	EXPECT_EQ(Render(doc, {Row{}}), std::string(kCsvHeader) +
	                                    "f7n9E0hX8qk,202401,DiszpKrYNg8,HllvX50cXC0,HllvX50cXC0,12,admin," +
	                                    kCreatedText + ",,,false\n");
}

TEST(DocumentPlanTest, EmptyResult)
{
	ExportRequest r = ExampleRequest();
	r.data_set = {"pBOMPrpg1QX", "QX4ZTUbOt3a"};
	r.period = {"202401", "202402"};
	r.children = true;
	ResolvedMetadata m = ExampleMetadata();
	m.data_sets.push_back(Obj(2, "QX4ZTUbOt3a"));
	m.single_org_unit_id.reset();
	PreparedDocument doc = Prepare(r, m);
	EXPECT_EQ(Render(doc, {}), "{\"dataValues\":[]}");
}

TEST(DocumentPlanTest, EmptyResultLeavesNonUidOrgUnitAndAocOutOfTheHeader)
{
	/* DHIS2 2.43 encodes identifiers from the returned values: none, so a non-UID org unit / AOC
	 * has no encoding. UID schemes write the identifiers as requested. */
	ExportRequest r = ExampleRequest();
	r.attribute_option_combo = {"DonorAaoc01"};
	ResolvedMetadata m = ExampleMetadata();
	m.single_attribute_option_combo_id = 41;
	m.result_is_empty = true;
	{
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), "{\"dataSet\":\"pBOMPrpg1QX\",\"period\":\"202401\",\"orgUnit\":\"DiszpKrYNg8\","
		                           "\"attributeOptionCombo\":\"aoc2\",\"dataValues\":[]}");
	}
	r.org_unit_id_scheme = "CODE";
	r.attribute_option_combo_id_scheme = "CODE";
	{
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), "{\"dataSet\":\"pBOMPrpg1QX\",\"period\":\"202401\",\"orgUnitIdScheme\":\"CODE\","
		                           "\"attributeOptionComboIdScheme\":\"CODE\",\"dataValues\":[]}");
	}
	/* A non-empty result keeps them. */
	m.result_is_empty = false;
	{
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), "{\"dataSet\":\"pBOMPrpg1QX\",\"period\":\"202401\",\"orgUnit\":\"DiszpKrYNg8\","
		                           "\"attributeOptionCombo\":\"aoc2\",\"orgUnitIdScheme\":\"CODE\","
		                           "\"attributeOptionComboIdScheme\":\"CODE\",\"dataValues\":[]}");
	}
}

TEST(DocumentPlanTest, DataSetHeaderOnlyForOneDataSet)
{
	ExportRequest r = ExampleRequest();
	r.period = {"202401", "202402"};
	r.org_unit = {"DiszpKrYNg8", "ImspTQPwCqd"};
	ResolvedMetadata m = ExampleMetadata();
	m.single_org_unit_id.reset();
	m.org_units.push_back(Obj(31, "ImspTQPwCqd"));
	{
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), "{\"dataSet\":\"pBOMPrpg1QX\",\"dataValues\":[]}");
	}
	r.data_set.push_back("QX4ZTUbOt3a");
	m.data_sets.push_back(Obj(2, "QX4ZTUbOt3a"));
	{
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), "{\"dataValues\":[]}");
	}
	/* Data elements only: no data set header. */
	ExportRequest de = r;
	de.data_set.clear();
	de.data_element = {"f7n9E0hX8qk"};
	ResolvedMetadata dm = m;
	dm.data_sets.clear();
	{
		PreparedDocument doc = Prepare(de, dm);
		EXPECT_EQ(Render(doc, {}), "{\"dataValues\":[]}");
	}
}

TEST(DocumentPlanTest, PeriodHeaderOnlyForOnePeriod)
{
	ExportRequest r = ExampleRequest();
	r.data_set.clear();
	r.data_element = {"f7n9E0hX8qk"};
	r.children = true;
	ResolvedMetadata m = ExampleMetadata();
	m.data_sets.clear();
	m.single_org_unit_id.reset();
	{
		/* One period: header period, normalised; no period in the values. */
		r.period = {"2024-01"};
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {Row{}}), "{\"period\":\"202401\",\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\","
		                                "\"orgUnit\":\"DiszpKrYNg8\",\"categoryOptionCombo\":\"HllvX50cXC0\","
		                                "\"attributeOptionCombo\":\"HllvX50cXC0\"," +
		                                    kValueTail + "]}");
	}
	{
		/* Two periods: no header, period in every value. */
		r.period = {"202401", "202402"};
		PreparedDocument doc = Prepare(r, m);
		Row second;
		second.pe = 21;
		EXPECT_EQ(Render(doc, {Row{}, second}),
		          "{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\",\"orgUnit\":"
		          "\"DiszpKrYNg8\",\"categoryOptionCombo\":\"HllvX50cXC0\",\"attributeOptionCombo\":\"HllvX50cXC0\"," +
		              kValueTail +
		              ",{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202402\",\"orgUnit\":\"DiszpKrYNg8\","
		              "\"categoryOptionCombo\":\"HllvX50cXC0\",\"attributeOptionCombo\":\"HllvX50cXC0\"," +
		              kValueTail + "]}");
	}
	{
		/* Dates instead of periods: no period header. */
		r.period.clear();
		r.start_date = DaysFromCivil(2024, 1, 1);
		r.end_date = DaysFromCivil(2024, 12, 31);
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), "{\"dataValues\":[]}");
	}
}

TEST(DocumentPlanTest, OrgUnitHoistedOnlyWithoutChildren)
{
	ExportRequest r = ExampleRequest();
	r.data_set.clear();
	r.data_element = {"f7n9E0hX8qk"};
	r.period = {"202401", "202402"};
	ResolvedMetadata m = ExampleMetadata();
	m.data_sets.clear();
	{
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {Row{}}), "{\"orgUnit\":\"DiszpKrYNg8\",\"dataValues\":[{\"dataElement\":"
		                                "\"f7n9E0hX8qk\",\"period\":\"202401\",\"categoryOptionCombo\":"
		                                "\"HllvX50cXC0\",\"attributeOptionCombo\":\"HllvX50cXC0\"," +
		                                    kValueTail + "]}");
	}
	{
		/* children=true: src/pg leaves single_org_unit_id unset; values keep their org unit. */
		r.children = true;
		m.single_org_unit_id.reset();
		PreparedDocument doc = Prepare(r, m);
		Row child;
		child.ou = 31;
		EXPECT_EQ(Render(doc, {Row{}, child}),
		          "{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\",\"orgUnit\":"
		          "\"DiszpKrYNg8\",\"categoryOptionCombo\":\"HllvX50cXC0\",\"attributeOptionCombo\":\"HllvX50cXC0\"," +
		              kValueTail +
		              ",{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\",\"orgUnit\":\"ou2\","
		              "\"categoryOptionCombo\":\"HllvX50cXC0\",\"attributeOptionCombo\":\"HllvX50cXC0\"," +
		              kValueTail + "]}");
	}
	{
		/* A detected common org unit is ignored under the UID scheme. */
		m.detected_org_unit_id = 30;
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), "{\"dataValues\":[]}");
	}
}

TEST(DocumentPlanTest, AttributeOptionComboHoistedWhenOneRequested)
{
	ExportRequest r = ExampleRequest();
	r.attribute_option_combo = {"Prlt0C1RF0s"};
	ResolvedMetadata m = ExampleMetadata();
	m.single_attribute_option_combo_id = 41;
	PreparedDocument doc = Prepare(r, m);
	Row row;
	row.aoc = 41;
	EXPECT_EQ(Render(doc, {row}), "{\"dataSet\":\"pBOMPrpg1QX\",\"period\":\"202401\",\"orgUnit\":\"DiszpKrYNg8\","
	                              "\"attributeOptionCombo\":\"aoc2\",\"dataValues\":[{\"dataElement\":"
	                              "\"f7n9E0hX8qk\",\"categoryOptionCombo\":\"HllvX50cXC0\"," +
	                                  kValueTail + "]}");
}

TEST(DocumentPlanTest, ExcludeDefaultAocDropsHeaderAndValueMember)
{
	/* §4.2: the value-level AOC stays out even when the header AOC is suppressed by excludeDefaultAoc. */
	ExportRequest r = ExampleRequest();
	r.attribute_option_combo = {"HllvX50cXC0"};
	r.exclude_default_aoc = true;
	r.exclude_default_coc = true;
	ResolvedMetadata m = ExampleMetadata();
	m.single_attribute_option_combo_id = 40;
	PreparedDocument doc = Prepare(r, m);
	Row other_coc;
	other_coc.coc = 41;
	EXPECT_EQ(Render(doc, {Row{}, other_coc}),
	          "{\"dataSet\":\"pBOMPrpg1QX\",\"period\":\"202401\",\"orgUnit\":\"DiszpKrYNg8\",\"dataValues\":[{"
	          "\"dataElement\":\"f7n9E0hX8qk\"," +
	              kValueTail + ",{\"dataElement\":\"f7n9E0hX8qk\",\"categoryOptionCombo\":\"coc2\"," + kValueTail +
	              "]}");
}

TEST(DocumentPlanTest, ExcludeDefaultCombosWithoutHoisting)
{
	ExportRequest r = ExampleRequest();
	r.period = {"202401", "202402"};
	r.exclude_default_coc = true;
	r.exclude_default_aoc = true;
	PreparedDocument doc = Prepare(r, ExampleMetadata());
	EXPECT_EQ(Render(doc, {Row{}}), "{\"dataSet\":\"pBOMPrpg1QX\",\"orgUnit\":\"DiszpKrYNg8\",\"dataValues\":[{"
	                                "\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\"," +
	                                    kValueTail + "]}");
}

/* Metadata under a non-UID scheme: texts are codes. */
ResolvedMetadata
CodeMetadata()
{
	ResolvedMetadata m;
	m.objects[static_cast<size_t>(IdKind::kDataElement)] = {Obj(10, "DE_CODE")};
	m.objects[static_cast<size_t>(IdKind::kPeriod)] = {Obj(20, "202401")};
	m.objects[static_cast<size_t>(IdKind::kOrgUnit)] = {Obj(30, "OU_CODE")};
	m.objects[static_cast<size_t>(IdKind::kCategoryOptionCombo)] = {Obj(40, "default", true)};
	m.objects[static_cast<size_t>(IdKind::kAttributeOptionCombo)] = {Obj(40, "default", true)};
	m.data_sets = {Obj(1, "DS_CODE")};
	m.org_units = {Obj(30, "OU_CODE")};
	m.single_org_unit_id = 30;
	return m;
}

TEST(DocumentPlanTest, IdSchemeCodeAddsSevenKeys)
{
	ExportRequest r = ExampleRequest();
	r.id_scheme = "CODE";
	PreparedDocument doc = Prepare(r, CodeMetadata());
	EXPECT_EQ(Render(doc, {Row{}}),
	          "{\"dataSet\":\"DS_CODE\",\"period\":\"202401\",\"orgUnit\":\"OU_CODE\",\"dataSetIdScheme\":\"CODE\","
	          "\"dataElementIdScheme\":\"CODE\",\"orgUnitIdScheme\":\"CODE\",\"categoryOptionComboIdScheme\":"
	          "\"CODE\",\"attributeOptionComboIdScheme\":\"CODE\",\"categoryIdScheme\":\"CODE\","
	          "\"categoryOptionIdScheme\":\"CODE\",\"dataValues\":[{\"dataElement\":\"DE_CODE\","
	          "\"categoryOptionCombo\":\"default\",\"attributeOptionCombo\":\"default\"," +
	              kValueTail + "]}");
	/* Lower case in the request; the keys still say CODE. */
	r.id_scheme = "code";
	PreparedDocument lower = Prepare(r, CodeMetadata());
	EXPECT_NE(Render(lower, {}).find("\"categoryOptionIdScheme\":\"CODE\""), std::string::npos);
}

TEST(DocumentPlanTest, IdSchemeKeysOnlyForNonUidSchemes)
{
	ExportRequest r = ExampleRequest();
	r.period = {"202401", "202402"};
	r.data_element_id_scheme = "NAME";
	ResolvedMetadata m = ExampleMetadata();
	{
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), "{\"dataSet\":\"pBOMPrpg1QX\",\"orgUnit\":\"DiszpKrYNg8\",\"dataElementIdScheme\":"
		                           "\"NAME\",\"dataValues\":[]}");
	}
	/* idScheme=CODE with orgUnitIdScheme=UID: no orgUnitIdScheme key; the category keys follow idScheme. */
	r.data_element_id_scheme.reset();
	r.id_scheme = "CODE";
	r.org_unit_id_scheme = "UID";
	r.attribute_option_combo_id_scheme = "ATTRIBUTE:AbCdEfGhIj1";
	m.data_sets = {Obj(1, "DS_CODE")};
	{
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), "{\"dataSet\":\"DS_CODE\",\"orgUnit\":\"DiszpKrYNg8\",\"dataSetIdScheme\":\"CODE\","
		                           "\"dataElementIdScheme\":\"CODE\",\"categoryOptionComboIdScheme\":\"CODE\","
		                           "\"attributeOptionComboIdScheme\":\"ATTRIBUTE:AbCdEfGhIj1\",\"categoryIdScheme\":"
		                           "\"CODE\",\"categoryOptionIdScheme\":\"CODE\",\"dataValues\":[]}");
	}
}

TEST(DocumentPlanTest, NonUidSchemeHoistsDetectedOrgUnitAndAoc)
{
	/*
	 * §4.2 fixture (DataValueSetControllerTest 2.43): idScheme=name, children=true, one data value:
	 * the header has "orgUnit":"My Child Unit" and "attributeOptionCombo":"default", and the value
	 * has no attributeOptionCombo.
	 */
	ExportRequest r = ExampleRequest();
	r.children = true;
	r.id_scheme = "name";
	ResolvedMetadata m;
	m.objects[static_cast<size_t>(IdKind::kDataElement)] = {Obj(10, "My data element")};
	m.objects[static_cast<size_t>(IdKind::kPeriod)] = {Obj(20, "202401")};
	m.objects[static_cast<size_t>(IdKind::kOrgUnit)] = {Obj(30, "My Unit"), Obj(31, "My Child Unit")};
	m.objects[static_cast<size_t>(IdKind::kCategoryOptionCombo)] = {Obj(40, "default", true)};
	m.objects[static_cast<size_t>(IdKind::kAttributeOptionCombo)] = {Obj(40, "default", true)};
	m.data_sets = {Obj(1, "My data set")};
	m.org_units = {Obj(30, "My Unit")};
	m.detected_org_unit_id = 31;
	m.detected_attribute_option_combo_id = 40;
	PreparedDocument doc = Prepare(r, m);
	Row row;
	row.ou = 31;
	EXPECT_EQ(Render(doc, {row}),
	          "{\"dataSet\":\"My data set\",\"period\":\"202401\",\"orgUnit\":\"My Child Unit\","
	          "\"attributeOptionCombo\":\"default\",\"dataSetIdScheme\":\"NAME\",\"dataElementIdScheme\":\"NAME\","
	          "\"orgUnitIdScheme\":\"NAME\",\"categoryOptionComboIdScheme\":\"NAME\","
	          "\"attributeOptionComboIdScheme\":\"NAME\",\"categoryIdScheme\":\"NAME\",\"categoryOptionIdScheme\":"
	          "\"NAME\",\"dataValues\":[{\"dataElement\":\"My data element\",\"categoryOptionCombo\":\"default\"," +
	              kValueTail + "]}");
}

TEST(DocumentPlanTest, HeaderMemberOrderWithEverything)
{
	ExportRequest r = ExampleRequest();
	r.id_scheme = "CODE";
	r.attribute_option_combo = {"HllvX50cXC0"};
	ResolvedMetadata m = CodeMetadata();
	m.single_attribute_option_combo_id = 40;
	PreparedDocument doc = Prepare(r, m);
	const std::string out = Render(doc, {});
	const char *keys[] = {"\"dataSet\"",
	                      "\"period\"",
	                      "\"orgUnit\"",
	                      "\"attributeOptionCombo\"",
	                      "\"dataSetIdScheme\"",
	                      "\"dataElementIdScheme\"",
	                      "\"orgUnitIdScheme\"",
	                      "\"categoryOptionComboIdScheme\"",
	                      "\"attributeOptionComboIdScheme\"",
	                      "\"categoryIdScheme\"",
	                      "\"categoryOptionIdScheme\"",
	                      "\"dataValues\""};
	size_t last = 0;
	for (const char *key : keys) {
		const size_t at = out.find(key);
		ASSERT_NE(at, std::string::npos) << key << " in " << out;
		EXPECT_GE(at, last) << key << " in " << out;
		last = at;
	}
	EXPECT_EQ(out.find("completeDate"), std::string::npos);
}

TEST(DocumentPlanTest, UndefinedDataSetUnderNonUidSchemeIsE8200)
{
	ExportRequest r = ExampleRequest();
	r.data_set_id_scheme = "CODE";
	ResolvedMetadata m = ExampleMetadata();
	Identifier data_set = Obj(1, std::nullopt);
	data_set.uid = "pBOMPrpg1QX";
	m.data_sets = {data_set};
	try {
		Prepare(r, m);
		ADD_FAILURE() << "no error";
	} catch (const Error &e) {
		EXPECT_EQ(std::string(e.what()).rfind("E8200: Export as CODE not possible as the property is undefined for "
		                                      "data set",
		                                      0),
		          0u)
		    << e.what();
		EXPECT_NE(std::string(e.what()).find("pBOMPrpg1QX"), std::string::npos) << e.what();
	}
}

TEST(DocumentPlanTest, UndefinedDataElementsMessage)
{
	/* §2.3 step 4 example: Export as CODE not possible as the property is undefined for data element(s): `[uid1, uid2]`
	 */
	ExportRequest r = ExampleRequest();
	r.id_scheme = "CODE";
	const ExportPlan plan = ValidateRequest(r);
	ResolvedMetadata m = CodeMetadata();
	Identifier first = Obj(10, std::nullopt), second = Obj(11, std::nullopt);
	first.uid = "uid1";
	second.uid = "uid2";
	m.objects[static_cast<size_t>(IdKind::kDataElement)] = {first, second, Obj(12, "ok")};
	std::vector<int64_t> undefined[kIdKindCount];
	EXPECT_NO_THROW(CheckIdentifiersDefined(plan, m, undefined));
	undefined[static_cast<size_t>(IdKind::kDataElement)] = {10, 11};
	try {
		CheckIdentifiersDefined(plan, m, undefined);
		ADD_FAILURE() << "no error";
	} catch (const Error &e) {
		EXPECT_EQ(
		    std::string(e.what()),
		    "E8201: Export as CODE not possible as the property is undefined for data element(s): `[uid1, uid2]`");
	}
}

/* ---- 2.42 shape through PrepareDocument ---- */

TEST(DocumentPlanTest, Style242HasNoHoistingAndNoSchemeKeys)
{
	ExportRequest r = ExampleRequest();
	r.style = "2.42";
	r.id_scheme = "CODE";
	r.attribute_option_combo = {"HllvX50cXC0"};
	r.exclude_default_coc = true;
	r.exclude_default_aoc = true;
	ResolvedMetadata m = CodeMetadata();
	m.single_attribute_option_combo_id = 40;
	m.complete_date = "2024-02-05T00:00:00.000+0000";
	PreparedDocument doc = Prepare(r, m);
	Row row;
	row.deleted = true;
	EXPECT_EQ(Render(doc, {row}),
	          "{\"dataSet\":\"DS_CODE\",\"completeDate\":\"2024-02-05T00:00:00.000+0000\",\"period\":\"202401\","
	          "\"orgUnit\":\"OU_CODE\",\"dataValues\":[{\"dataElement\":\"DE_CODE\",\"period\":\"202401\","
	          "\"orgUnit\":\"OU_CODE\",\"categoryOptionCombo\":\"default\",\"attributeOptionCombo\":\"default\","
	          "\"value\":\"12\",\"storedBy\":\"admin\",\"created\":\"" +
	              std::string(kCreatedText) + "\",\"lastUpdated\":\"" + kCreatedText +
	              "\",\"comment\":null,\"followup\":false,\"deleted\":true}]}");
}

TEST(DocumentPlanTest, Style242HeaderNeedsOneSetPeriodAndOrgUnit)
{
	ExportRequest base = ExampleRequest();
	base.style = "2.42";
	const std::string single = "{\"dataSet\":\"pBOMPrpg1QX\",\"completeDate\":null,\"period\":\"202401\","
	                           "\"orgUnit\":\"DiszpKrYNg8\",\"dataValues\":[]}";
	{
		PreparedDocument doc = Prepare(base, ExampleMetadata());
		EXPECT_EQ(Render(doc, {}), single);
	}
	{
		/* Extra data elements do not disqualify. */
		ExportRequest r = base;
		r.data_element = {"f7n9E0hX8qk"};
		PreparedDocument doc = Prepare(r, ExampleMetadata());
		EXPECT_EQ(Render(doc, {}), single);
	}
	{
		/* Extra org unit groups do not disqualify either. */
		ExportRequest r = base;
		r.org_unit_group = {"RpbiCJpIYEj"};
		ResolvedMetadata m = ExampleMetadata();
		m.single_org_unit_id.reset();
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), single);
	}
	{
		/* A data element group does. */
		ExportRequest r = base;
		r.data_element_group = {"oDkJh5Ddh7d"};
		PreparedDocument doc = Prepare(r, ExampleMetadata());
		EXPECT_EQ(Render(doc, {}), "{\"dataValues\":[]}");
	}
	for (int which = 0; which < 3; which++) {
		/* Two data sets, two periods or two org units. */
		ExportRequest r = base;
		ResolvedMetadata m = ExampleMetadata();
		if (which == 0) {
			r.data_set.push_back("QX4ZTUbOt3a");
			m.data_sets.push_back(Obj(2, "QX4ZTUbOt3a"));
		} else if (which == 1)
			r.period.push_back("202402");
		else {
			r.org_unit.push_back("ImspTQPwCqd");
			m.org_units.push_back(Obj(31, "ImspTQPwCqd"));
			m.single_org_unit_id.reset();
		}
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {Row{}}).rfind("{\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":", 0), 0u)
		    << which;
	}
}

TEST(DocumentPlanTest, Style242HeaderWithChildrenNamesTheRequestedOrgUnit)
{
	/* §4.1: children does not disqualify the single-set header; orgUnit is the requested org unit. */
	ExportRequest r = ExampleRequest();
	r.style = "2.42";
	r.children = true;
	ResolvedMetadata m = ExampleMetadata();
	m.single_org_unit_id.reset(); /* as src/pg sets it with children */
	PreparedDocument doc = Prepare(r, m);
	Row child;
	child.ou = 31;
	EXPECT_EQ(Render(doc, {child}),
	          "{\"dataSet\":\"pBOMPrpg1QX\",\"completeDate\":null,\"period\":\"202401\",\"orgUnit\":\"DiszpKrYNg8\","
	          "\"dataValues\":[{\"dataElement\":\"f7n9E0hX8qk\",\"period\":\"202401\",\"orgUnit\":\"ou2\","
	          "\"categoryOptionCombo\":\"HllvX50cXC0\",\"attributeOptionCombo\":\"HllvX50cXC0\",\"value\":\"12\","
	          "\"storedBy\":\"admin\",\"created\":\"" +
	              std::string(kCreatedText) + "\",\"lastUpdated\":\"" + kCreatedText +
	              "\",\"comment\":null,\"followup\":false}]}");
}

TEST(DocumentPlanTest, Style242HeaderNullsForUnknownObjects)
{
	/* Unknown data set and org unit (2.42 drops unresolvable ids): the members are null. */
	ExportRequest r = ExampleRequest();
	r.style = "2.42";
	r.data_set_id_scheme = "CODE";
	ResolvedMetadata m = ExampleMetadata();
	m.data_sets.clear();
	m.org_units.clear();
	m.single_org_unit_id.reset();
	{
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}), "{\"dataSet\":null,\"completeDate\":null,\"period\":\"202401\",\"orgUnit\":null,"
		                           "\"dataValues\":[]}");
	}
	/* A data set without a code under CODE: null, not an error (2.42 has no E8200). */
	m.data_sets = {Obj(1, std::nullopt)};
	{
		PreparedDocument doc = Prepare(r, m);
		EXPECT_EQ(Render(doc, {}).rfind("{\"dataSet\":null,", 0), 0u);
	}
}

TEST(DocumentPlanTest, Style242PeriodHeaderIsNormalised)
{
	ExportRequest r = ExampleRequest();
	r.style = "2.42";
	r.period = {"2024-01"};
	PreparedDocument doc = Prepare(r, ExampleMetadata());
	EXPECT_NE(Render(doc, {}).find("\"period\":\"202401\""), std::string::npos);
}

TEST(DocumentPlanTest, MapsResolveEveryObject)
{
	PreparedDocument doc = Prepare(ExampleRequest(), ExampleMetadata());
	EXPECT_TRUE(doc.maps[static_cast<size_t>(IdKind::kDataElement)].Contains(10));
	EXPECT_TRUE(doc.maps[static_cast<size_t>(IdKind::kDataElement)].Contains(11));
	EXPECT_FALSE(doc.maps[static_cast<size_t>(IdKind::kDataElement)].Contains(12));
	EXPECT_TRUE(doc.maps[static_cast<size_t>(IdKind::kAttributeOptionCombo)].Contains(41));
	EXPECT_FALSE(doc.maps[static_cast<size_t>(IdKind::kPeriod)].Contains(10));
	/* Rows through the maps: second data element and second COC. */
	Row row;
	row.de = 11;
	row.coc = 41;
	const std::string out = Render(doc, {row});
	EXPECT_NE(out.find("{\"dataElement\":\"de2\",\"categoryOptionCombo\":\"coc2\","), std::string::npos) << out;
}

/* ---- DXF2 XML from the request: dhis2-xml-adx-format.md §6.1-6.2 ---- */

/* §6.1's two values: the second has a later lastUpdated, a comment and followup true. */
std::vector<Row>
XmlExampleRows(int8_t first_followup)
{
	Row a;
	a.followup = first_followup;
	Row b;
	b.de = 12;
	b.value = "14";
	b.last_updated = DaysFromCivil(2024, 2, 4) * kMicrosPerDay + INT64_C(32400000000);
	b.comment = "Re-checked: 5 < 6 & \"ok\"\nsee register";
	b.followup = 1;
	return {a, b};
}

ResolvedMetadata
XmlExampleMetadata()
{
	ResolvedMetadata m = ExampleMetadata();
	m.objects[static_cast<size_t>(IdKind::kDataElement)].push_back(Obj(12, "Ix2HsbDMLea"));
	m.complete_date = "2024-02-05T08:00:00.000+0000";
	return m;
}

TEST(DocumentPlanTest, DocExampleXml242)
{
	ExportRequest r = ExampleRequest();
	r.format = Format::kXml;
	r.style = "2.42";
	PreparedDocument doc = Prepare(r, XmlExampleMetadata());
	EXPECT_EQ(
	    Render(doc, XmlExampleRows(-1)),
	    "<?xml version='1.0' encoding='UTF-8'?><dataValueSet xmlns=\"http://dhis2.org/schema/dxf/2.0\" "
	    "dataSet=\"pBOMPrpg1QX\" completeDate=\"2024-02-05T08:00:00.000+0000\" period=\"202401\" "
	    "orgUnit=\"DiszpKrYNg8\"><dataValue dataElement=\"f7n9E0hX8qk\" period=\"202401\" orgUnit=\"DiszpKrYNg8\" "
	    "categoryOptionCombo=\"HllvX50cXC0\" attributeOptionCombo=\"HllvX50cXC0\" value=\"12\" storedBy=\"admin\" "
	    "created=\"2024-02-03T10:11:12.123+0000\" lastUpdated=\"2024-02-03T10:11:12.123+0000\" followUp=\"false\"/>"
	    "<dataValue dataElement=\"Ix2HsbDMLea\" period=\"202401\" orgUnit=\"DiszpKrYNg8\" "
	    "categoryOptionCombo=\"HllvX50cXC0\" attributeOptionCombo=\"HllvX50cXC0\" value=\"14\" storedBy=\"admin\" "
	    "created=\"2024-02-03T10:11:12.123+0000\" lastUpdated=\"2024-02-04T09:00:00.000+0000\" "
	    "comment=\"Re-checked: 5 &lt; 6 &amp; &quot;ok&quot;&#xa;see register\" followUp=\"true\"/></dataValueSet>");
}

TEST(DocumentPlanTest, DocExampleXml243KeepsTheIsoHeaderPeriod)
{
	/* DHIS2 2.43 writes period="2024-01-01/P1M" here; we keep the ISO period (README, differences). */
	ExportRequest r = ExampleRequest();
	r.format = Format::kXml;
	PreparedDocument doc = Prepare(r, XmlExampleMetadata());
	EXPECT_EQ(
	    Render(doc, XmlExampleRows(-1)),
	    "<?xml version='1.0' encoding='UTF-8'?><dataValueSet xmlns=\"http://dhis2.org/schema/dxf/2.0\" "
	    "dataSet=\"pBOMPrpg1QX\" period=\"202401\" orgUnit=\"DiszpKrYNg8\"><dataValue dataElement=\"f7n9E0hX8qk\" "
	    "categoryOptionCombo=\"HllvX50cXC0\" attributeOptionCombo=\"HllvX50cXC0\" value=\"12\" storedBy=\"admin\" "
	    "created=\"2024-02-03T10:11:12.123+0000\" lastUpdated=\"2024-02-03T10:11:12.123+0000\"/>"
	    "<dataValue dataElement=\"Ix2HsbDMLea\" categoryOptionCombo=\"HllvX50cXC0\" "
	    "attributeOptionCombo=\"HllvX50cXC0\" value=\"14\" storedBy=\"admin\" "
	    "created=\"2024-02-03T10:11:12.123+0000\" lastUpdated=\"2024-02-04T09:00:00.000+0000\" "
	    "comment=\"Re-checked: 5 &lt; 6 &amp; &quot;ok&quot;&#xa;see register\" followUp=\"true\"/></dataValueSet>");
}

TEST(DocumentPlanTest, DocExampleXmlMulti)
{
	/* §6.2: dates and children, one data set; the second row is deleted with a NULL value and empty texts. */
	ExportRequest r;
	r.format = Format::kXml;
	r.data_set = {"pBOMPrpg1QX"};
	r.start_date = DaysFromCivil(2024, 1, 1);
	r.end_date = DaysFromCivil(2024, 2, 29);
	r.org_unit = {"DiszpKrYNg8"};
	r.children = true;
	r.include_deleted = true;
	ResolvedMetadata m = ExampleMetadata();
	m.single_org_unit_id.reset();
	m.objects[static_cast<size_t>(IdKind::kOrgUnit)].push_back(Obj(32, "FNnj3jKGS7i"));
	Row a;
	a.followup = 0;
	Row b;
	b.pe = 21;
	b.ou = 32;
	b.value.reset();
	b.stored_by = "";
	b.comment = "";
	b.last_updated = DaysFromCivil(2024, 2, 4) * kMicrosPerDay + INT64_C(32400000000);
	b.deleted = true;
	const std::string second_242 =
	    "<dataValue dataElement=\"f7n9E0hX8qk\" period=\"202402\" orgUnit=\"FNnj3jKGS7i\" "
	    "categoryOptionCombo=\"HllvX50cXC0\" attributeOptionCombo=\"HllvX50cXC0\" storedBy=\"\" "
	    "created=\"2024-02-03T10:11:12.123+0000\" lastUpdated=\"2024-02-04T09:00:00.000+0000\" comment=\"\" "
	    "followUp=\"false\" deleted=\"true\"/>";
	const std::string first =
	    "<dataValue dataElement=\"f7n9E0hX8qk\" period=\"202401\" orgUnit=\"DiszpKrYNg8\" "
	    "categoryOptionCombo=\"HllvX50cXC0\" attributeOptionCombo=\"HllvX50cXC0\" value=\"12\" storedBy=\"admin\" "
	    "created=\"2024-02-03T10:11:12.123+0000\" lastUpdated=\"2024-02-03T10:11:12.123+0000\"";
	PreparedDocument d243 = Prepare(r, m);
	EXPECT_EQ(Render(d243, {a, b}),
	          "<?xml version='1.0' encoding='UTF-8'?><dataValueSet xmlns=\"http://dhis2.org/schema/dxf/2.0\" "
	          "dataSet=\"pBOMPrpg1QX\">" +
	              first +
	              "/><dataValue dataElement=\"f7n9E0hX8qk\" period=\"202402\" orgUnit=\"FNnj3jKGS7i\" "
	              "categoryOptionCombo=\"HllvX50cXC0\" attributeOptionCombo=\"HllvX50cXC0\" "
	              "created=\"2024-02-03T10:11:12.123+0000\" lastUpdated=\"2024-02-04T09:00:00.000+0000\" "
	              "deleted=\"true\"/></dataValueSet>");
	r.style = "2.42";
	PreparedDocument d242 = Prepare(r, m);
	EXPECT_EQ(Render(d242, {a, b}), "<?xml version='1.0' encoding='UTF-8'?><dataValueSet "
	                                "xmlns=\"http://dhis2.org/schema/dxf/2.0\">" +
	                                    first + " followUp=\"false\"/>" + second_242 + "</dataValueSet>");
}

TEST(DocumentPlanTest, XmlIdSchemeHeaderAttributes)
{
	ExportRequest r = ExampleRequest();
	r.format = Format::kXml;
	r.id_scheme = "code";
	ResolvedMetadata m = ExampleMetadata();
	PreparedDocument doc = Prepare(r, m);
	const std::string xml = Render(doc, {});
	EXPECT_EQ(xml, "<?xml version='1.0' encoding='UTF-8'?><dataValueSet xmlns=\"http://dhis2.org/schema/dxf/2.0\" "
	               "dataSet=\"pBOMPrpg1QX\" period=\"202401\" orgUnit=\"DiszpKrYNg8\" dataSetIdScheme=\"CODE\" "
	               "dataElementIdScheme=\"CODE\" orgUnitIdScheme=\"CODE\" categoryOptionComboIdScheme=\"CODE\" "
	               "attributeOptionComboIdScheme=\"CODE\" categoryIdScheme=\"CODE\" categoryOptionIdScheme=\"CODE\"/>");
}

} // namespace
} // namespace datavalue_export::core
