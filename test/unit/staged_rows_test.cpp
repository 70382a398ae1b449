/*
 * test/unit/staged_rows_test.cpp
 *	  Staged heap tuples decoded by layout (nulls, alignment, both varlena headers, columns the
 *	  export does not read), rows handed back to PostgreSQL, errors, and RowStager's two threads.
 *
 * Tuples are built here by PostgreSQL's on-disk rules (attributes aligned from the start of the
 * data, a NULL taking no space, a 1-byte varlena header unpadded, a 4-byte one aligned after
 * zero padding), independently of the decoder.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/staged_rows.hpp"

using namespace datavalue_export::core;

namespace {

/* One attribute's value for the tuple builder. */
struct Value {
	enum Kind { kNull, kInt8, kInt4, kInt2, kBool, kText, kLongText, kCompressed } kind;
	int64_t number = 0;
	std::string text;
};

Value
Null()
{
	return {Value::kNull, 0, {}};
}
Value
Int8(int64_t v)
{
	return {Value::kInt8, v, {}};
}
Value
Int4(int32_t v)
{
	return {Value::kInt4, v, {}};
}
Value
Int2(int16_t v)
{
	return {Value::kInt2, v, {}};
}
Value
Bool(bool v)
{
	return {Value::kBool, v ? 1 : 0, {}};
}
/* A text stored with a 1-byte header (up to 126 bytes), or a 4-byte one after alignment. */
Value
Text(std::string s)
{
	return {Value::kText, 0, std::move(s)};
}
Value
LongText(std::string s)
{
	return {Value::kLongText, 0, std::move(s)};
}
/* A 4-byte header marked compressed: the decoder must hand the tuple back. */
Value
Compressed()
{
	return {Value::kCompressed, 0, "compressed bytes"};
}

/* A staged record (RowStager::Stage's format) of the values, by PostgreSQL's tuple layout rules. */
struct StagedRecord {
	std::vector<char> bytes;

	StagedRecord(const std::vector<Value> &values, bool force_bitmap = false)
	{
		std::vector<char> data;
		std::vector<uint8_t> bitmap((values.size() + 7) / 8, 0);
		bool any_null = false;
		const auto align = [&data](size_t a) {
			while (data.size() % a != 0)
				data.push_back(0);
		};
		const auto put = [&data](const void *p, size_t n) {
			const char *c = static_cast<const char *>(p);
			data.insert(data.end(), c, c + n);
		};
		for (size_t i = 0; i < values.size(); i++) {
			const Value &v = values[i];
			if (v.kind == Value::kNull) {
				any_null = true;
				continue;
			}
			bitmap[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
			switch (v.kind) {
			case Value::kInt8:
				align(8);
				put(&v.number, 8);
				break;
			case Value::kInt4: {
				align(4);
				const int32_t n = static_cast<int32_t>(v.number);
				put(&n, 4);
				break;
			}
			case Value::kInt2: {
				align(2);
				const int16_t n = static_cast<int16_t>(v.number);
				put(&n, 2);
				break;
			}
			case Value::kBool:
				data.push_back(static_cast<char>(v.number));
				break;
			case Value::kText: {
				const uint8_t header = static_cast<uint8_t>(((v.text.size() + 1) << 1) | 1);
				data.push_back(static_cast<char>(header));
				put(v.text.data(), v.text.size());
				break;
			}
			case Value::kLongText:
			case Value::kCompressed: {
				align(4);
				const uint32_t header =
				    (static_cast<uint32_t>(v.text.size() + 4) << 2) | (v.kind == Value::kCompressed ? 2u : 0u);
				put(&header, 4);
				put(v.text.data(), v.text.size());
				break;
			}
			default:
				break;
			}
		}
		const uint16_t attributes = static_cast<uint16_t>(values.size());
		const uint16_t bitmap_bytes = any_null || force_bitmap ? static_cast<uint16_t>(bitmap.size()) : 0;
		const uint32_t size = static_cast<uint32_t>(8 + bitmap_bytes + data.size());
		bytes.resize(size);
		std::memcpy(bytes.data(), &size, 4);
		std::memcpy(bytes.data() + 4, &attributes, 2);
		std::memcpy(bytes.data() + 6, &bitmap_bytes, 2);
		std::memcpy(bytes.data() + 8, bitmap.data(), bitmap_bytes);
		std::memcpy(bytes.data() + 8 + bitmap_bytes, data.data(), data.size());
	}
};

/* DHIS2's datavalue table, in its column order. */
TupleLayout
Dhis2Layout()
{
	return TupleLayout{{{8, 8, TupleField::kDataElement},
	                    {8, 8, TupleField::kPeriod},
	                    {8, 8, TupleField::kOrgUnit},
	                    {8, 8, TupleField::kCategoryOptionCombo},
	                    {8, 8, TupleField::kAttributeOptionCombo},
	                    {-1, 4, TupleField::kValue},
	                    {-1, 4, TupleField::kStoredBy},
	                    {8, 8, TupleField::kCreated},
	                    {8, 8, TupleField::kLastUpdated},
	                    {-1, 4, TupleField::kComment},
	                    {1, 1, TupleField::kFollowup},
	                    {1, 1, TupleField::kDeleted}}};
}

/* Dhis2Layout as the stager reads it: straight through (layout.dhis2). */
TupleLayout
RecognisedDhis2Layout()
{
	TupleLayout layout = Dhis2Layout();
	RecogniseDhis2Layout(layout);
	return layout;
}

/* Ids 100.. of every kind map to indexes 0..n-1. */
struct Maps {
	IdMap maps[kIdKindCount];
	explicit Maps(int n = 50)
	{
		for (IdMap &map : maps)
			for (int i = 0; i < n; i++)
				map.Put(100 + i, static_cast<uint32_t>(i));
	}
};

std::vector<Value>
Dhis2Values(int64_t id, std::optional<std::string> value, std::optional<std::string> stored_by, int64_t created,
            std::optional<std::string> comment, std::optional<bool> followup, bool deleted)
{
	const auto text = [](const std::optional<std::string> &s) {
		return !s ? Null() : s->size() <= 126 ? Text(*s) : LongText(*s);
	};
	return {Int8(100 + id % 50),
	        Int8(101),
	        Int8(102),
	        Int8(103),
	        Int8(104),
	        text(value),
	        text(stored_by),
	        Int8(created),
	        Int8(created + 7),
	        text(comment),
	        followup ? Bool(*followup) : Null(),
	        Bool(deleted)};
}

std::string
Str(const TextField &f)
{
	return f.is_null ? std::string("<null>") : std::string(f.data, f.size);
}

TEST(DecodeStagedTupleTest, ReadsEveryFieldOfDhis2Layout)
{
	Maps maps;
	const StagedRecord record(Dhis2Values(7, std::string("42"), std::string("admin"), 1000, std::nullopt, true, false));
	DataValueRow row;
	ASSERT_EQ(DecodeStagedTuple(Dhis2Layout(), maps.maps, true, record.bytes.data(), &row), StagedDecode::kRow);
	EXPECT_EQ(row.ids[0], 7u);
	EXPECT_EQ(row.ids[1], 1u);
	EXPECT_EQ(row.ids[2], 2u);
	EXPECT_EQ(row.ids[3], 3u);
	EXPECT_EQ(row.ids[4], 4u);
	EXPECT_EQ(Str(row.value), "42");
	EXPECT_EQ(Str(row.stored_by), "admin");
	EXPECT_TRUE(row.comment.is_null);
	EXPECT_EQ(row.created, 1000);
	EXPECT_EQ(row.last_updated, 1007);
	EXPECT_EQ(row.followup, 1);
	EXPECT_FALSE(row.deleted);
}

/*
 * An unordered export decodes each tuple where it lies in its buffer page: the same parts, in
 * other places (bitmap and data apart, the data at a maximally aligned address as in a page),
 * decode to the same row as the staged record, in either layout reading.
 */
TEST(DecodeTupleTest, PartsWhereverTheyAreDecodeAsTheStagedRecord)
{
	Maps maps;
	const std::string long_comment(700, 'c');
	const StagedRecord record(Dhis2Values(9, std::string("5"), std::nullopt, 77, long_comment, false, false));
	const StagedTuple staged = ReadStagedTuple(record.bytes.data());
	ASSERT_NE(staged.null_bitmap, nullptr); /* stored_by is NULL */
	const std::vector<uint8_t> bitmap(staged.null_bitmap, staged.null_bitmap + staged.bitmap_bytes);
	alignas(8) char page[2048];
	ASSERT_LE(staged.data_bytes, sizeof page);
	std::memcpy(page, staged.data, staged.data_bytes);
	const StagedTuple parts{staged.attributes, bitmap.data(), staged.bitmap_bytes, page, staged.data_bytes};
	for (const TupleLayout &layout : {Dhis2Layout(), RecognisedDhis2Layout()}) {
		DataValueRow from_record;
		DataValueRow from_parts;
		ASSERT_EQ(DecodeStagedTuple(layout, maps.maps, true, record.bytes.data(), &from_record), StagedDecode::kRow);
		ASSERT_EQ(DecodeTuple(layout, maps.maps, true, parts, &from_parts), StagedDecode::kRow);
		EXPECT_EQ(std::vector<uint32_t>(from_parts.ids, from_parts.ids + kIdKindCount),
		          std::vector<uint32_t>(from_record.ids, from_record.ids + kIdKindCount));
		EXPECT_EQ(Str(from_parts.value), "5");
		EXPECT_TRUE(from_parts.stored_by.is_null);
		EXPECT_EQ(Str(from_parts.comment), long_comment);
		EXPECT_EQ(from_parts.comment.data, page + (from_record.comment.data - staged.data)); /* read in place */
		EXPECT_EQ(from_parts.created, 77);
		EXPECT_EQ(from_parts.followup, 0);
	}
}

TEST(DecodeStagedTupleTest, NullsLongTextsAndAlignmentAfterThem)
{
	Maps maps;
	const std::string long_value(300, 'v');    /* 4-byte header, aligned after the ids */
	const std::string long_comment(5000, 'c'); /* 4-byte header after a timestamp */
	const std::string odd = "abc";             /* leaves created at an odd offset before alignment */
	const StagedRecord record(Dhis2Values(3, long_value, odd, -5, long_comment, std::nullopt, true));
	DataValueRow row;
	ASSERT_EQ(DecodeStagedTuple(Dhis2Layout(), maps.maps, false, record.bytes.data(), &row), StagedDecode::kRow);
	EXPECT_EQ(Str(row.value), long_value);
	EXPECT_EQ(Str(row.stored_by), odd);
	EXPECT_EQ(row.created, -5);
	EXPECT_EQ(row.last_updated, 2);
	EXPECT_EQ(Str(row.comment), long_comment);
	EXPECT_EQ(row.followup, -1);
	EXPECT_TRUE(row.deleted);

	const StagedRecord all_null(Dhis2Values(3, std::nullopt, std::nullopt, 9, std::nullopt, false, false));
	ASSERT_EQ(DecodeStagedTuple(Dhis2Layout(), maps.maps, false, all_null.bytes.data(), &row), StagedDecode::kRow);
	EXPECT_TRUE(row.value.is_null);
	EXPECT_TRUE(row.stored_by.is_null);
	EXPECT_TRUE(row.comment.is_null);
	EXPECT_EQ(row.created, 9);
	EXPECT_EQ(row.followup, 0);
}

TEST(DecodeStagedTupleTest, EmptyTextIsNotNull)
{
	Maps maps;
	const StagedRecord record(Dhis2Values(1, std::string(), std::string(), 0, std::string(), false, false));
	DataValueRow row;
	ASSERT_EQ(DecodeStagedTuple(Dhis2Layout(), maps.maps, false, record.bytes.data(), &row), StagedDecode::kRow);
	EXPECT_FALSE(row.value.is_null);
	EXPECT_EQ(row.value.size, 0u);
	EXPECT_FALSE(row.comment.is_null);
}

TEST(DecodeStagedTupleTest, StepsOverColumnsItDoesNotRead)
{
	/* A table DBAs changed: an int2 and a dropped text early, an int4 between the timestamps. */
	TupleLayout layout = Dhis2Layout();
	std::vector<TupleColumn> &c = layout.columns;
	c.insert(c.begin() + 8, TupleColumn{4, 4, TupleField::kUnused});  /* before lastupdated */
	c.insert(c.begin() + 2, TupleColumn{-1, 4, TupleField::kUnused}); /* before sourceid */
	c.insert(c.begin() + 1, TupleColumn{2, 2, TupleField::kUnused});  /* before periodid */
	Maps maps;
	for (const Value &dropped : {Null(), Text("old"), LongText(std::string(200, 'x'))}) {
		const StagedRecord record({Int8(110), Int2(-3), Int8(111), dropped, Int8(112), Int8(113), Int8(114), Text("v"),
		                           Null(), Int8(77), Int4(5), Int8(78), Text("note"), Bool(true), Bool(false)});
		DataValueRow row;
		ASSERT_EQ(DecodeStagedTuple(layout, maps.maps, false, record.bytes.data(), &row), StagedDecode::kRow);
		EXPECT_EQ(row.ids[0], 10u);
		EXPECT_EQ(row.ids[1], 11u);
		EXPECT_EQ(row.ids[2], 12u);
		EXPECT_EQ(row.ids[4], 14u);
		EXPECT_EQ(Str(row.value), "v");
		EXPECT_TRUE(row.stored_by.is_null);
		EXPECT_EQ(row.created, 77);
		EXPECT_EQ(row.last_updated, 78);
		EXPECT_EQ(Str(row.comment), "note");
		EXPECT_EQ(row.followup, 1);
	}
}

TEST(DecodeStagedTupleTest, ABitmapWithoutNullsReadsTheSame)
{
	Maps maps;
	const StagedRecord plain(Dhis2Values(2, std::string("1"), std::string("u"), 5, std::string("c"), true, false));
	const StagedRecord with_bitmap(Dhis2Values(2, std::string("1"), std::string("u"), 5, std::string("c"), true, false),
	                               true);
	DataValueRow a, b;
	ASSERT_EQ(DecodeStagedTuple(Dhis2Layout(), maps.maps, false, plain.bytes.data(), &a), StagedDecode::kRow);
	ASSERT_EQ(DecodeStagedTuple(Dhis2Layout(), maps.maps, false, with_bitmap.bytes.data(), &b), StagedDecode::kRow);
	EXPECT_EQ(Str(a.comment), Str(b.comment));
	EXPECT_EQ(a.created, b.created);
	EXPECT_EQ(a.followup, b.followup);
}

TEST(DecodeStagedTupleTest, CompressedTextIsHandedBack)
{
	Maps maps;
	std::vector<Value> values = Dhis2Values(1, std::string("x"), std::string("u"), 0, std::string("c"), false, false);
	values[9] = Compressed(); /* comment */
	const StagedRecord record(values);
	DataValueRow row;
	EXPECT_EQ(DecodeStagedTuple(Dhis2Layout(), maps.maps, false, record.bytes.data(), &row), StagedDecode::kDeferred);
	const StagedTuple parts = ReadStagedTuple(record.bytes.data());
	EXPECT_EQ(parts.attributes, 12);
	EXPECT_EQ(parts.null_bitmap, nullptr) << "no NULL in this tuple";
	EXPECT_EQ(8u + parts.data_bytes, record.bytes.size());
}

TEST(DecodeStagedTupleTest, DeletedRowsAreSkippedBeforeAnyCheck)
{
	Maps maps;
	std::vector<Value> values = Dhis2Values(1, std::string("x"), std::nullopt, 0, std::nullopt, false, true);
	values[2] = Int8(999);       /* an org unit outside the maps */
	values[7] = Int8(INT64_MAX); /* created: infinity */
	const StagedRecord record(values);
	DataValueRow row;
	EXPECT_EQ(DecodeStagedTuple(Dhis2Layout(), maps.maps, true, record.bytes.data(), &row), StagedDecode::kDeleted);
	EXPECT_EQ(DecodeStagedTuple(Dhis2Layout(), maps.maps, false, record.bytes.data(), &row), StagedDecode::kNoMetadata);
	values[2] = Int8(102);
	EXPECT_THROW(DecodeStagedTuple(Dhis2Layout(), maps.maps, false, StagedRecord(values).bytes.data(), &row), Error);
}

TEST(DecodeStagedTupleTest, IdWithoutMetadataLeavesTheRowOutAndInfiniteTimestampIsAnError)
{
	Maps maps;
	std::vector<Value> values = Dhis2Values(1, std::nullopt, std::nullopt, 0, std::nullopt, false, false);
	DataValueRow row;
	for (size_t kind = 0; kind < kIdKindCount; kind++) {
		values = Dhis2Values(1, std::nullopt, std::nullopt, 0, std::nullopt, false, false);
		values[kind] = Int8(5); /* an id with no metadata row: outside its map */
		for (const TupleLayout &layout : {Dhis2Layout(), RecognisedDhis2Layout()})
			EXPECT_EQ(DecodeStagedTuple(layout, maps.maps, false, StagedRecord(values).bytes.data(), &row),
			          StagedDecode::kNoMetadata)
			    << kind;
	}
	for (int64_t infinite : {INT64_MIN, INT64_MAX}) {
		values = Dhis2Values(1, std::nullopt, std::nullopt, 0, std::nullopt, false, false);
		values[8] = Int8(infinite); /* lastupdated */
		try {
			DecodeStagedTuple(Dhis2Layout(), maps.maps, false, StagedRecord(values).bytes.data(), &row);
			FAIL() << "no error";
		} catch (const Error &e) {
			EXPECT_STREQ(e.Sqlstate(), sqlstate::kDatetimeValueOutOfRange);
			EXPECT_EQ(std::string(e.what()), "data value has an infinite \"lastupdated\" timestamp");
		}
	}
}

TEST(DecodeStagedTupleTest, IdsOutsideTheFilterDropTheRowBeforeAnyCheck)
{
	Maps maps;
	IdMap combos; /* an option combo filter: a set of its own, smaller than the combos' map */
	combos.Put(104, 0);
	StagedFilter filter; /* periods by their map, org units by theirs, attribute option combos by the set */
	filter.sets[static_cast<size_t>(IdKind::kPeriod)] = &maps.maps[static_cast<size_t>(IdKind::kPeriod)];
	filter.sets[static_cast<size_t>(IdKind::kOrgUnit)] = &maps.maps[static_cast<size_t>(IdKind::kOrgUnit)];
	filter.sets[static_cast<size_t>(IdKind::kAttributeOptionCombo)] = &combos;
	EXPECT_TRUE(filter.Any());
	EXPECT_FALSE(StagedFilter{}.Any());
	DataValueRow row;
	for (const bool dhis2 : {true, false}) {
		TupleLayout layout = Dhis2Layout();
		if (dhis2)
			RecogniseDhis2Layout(layout);
		/* An org unit outside its map, and an infinite created that is then never looked at. */
		std::vector<Value> values = Dhis2Values(1, std::string("x"), std::nullopt, 0, std::nullopt, false, false);
		values[2] = Int8(999);
		values[7] = Int8(INT64_MAX);
		const StagedRecord outside(values);
		EXPECT_EQ(DecodeStagedTuple(layout, maps.maps, false, outside.bytes.data(), &row, &filter),
		          StagedDecode::kFiltered);
		/* Without the filter the same id has no metadata row: left out too, nothing else checked. */
		EXPECT_EQ(DecodeStagedTuple(layout, maps.maps, false, outside.bytes.data(), &row), StagedDecode::kNoMetadata);
		/* A row inside every set decodes, with the same checks as before. */
		values[2] = Int8(102);
		EXPECT_THROW(DecodeStagedTuple(layout, maps.maps, false, StagedRecord(values).bytes.data(), &row, &filter),
		             Error);
		values[7] = Int8(5);
		EXPECT_EQ(DecodeStagedTuple(layout, maps.maps, false, StagedRecord(values).bytes.data(), &row, &filter),
		          StagedDecode::kRow);
		EXPECT_EQ(row.ids[2], 2u);
		/* An attribute option combo in its map but not in the filter's set. */
		values[4] = Int8(105);
		EXPECT_EQ(DecodeStagedTuple(layout, maps.maps, false, StagedRecord(values).bytes.data(), &row, &filter),
		          StagedDecode::kFiltered);
		EXPECT_EQ(DecodeStagedTuple(layout, maps.maps, false, StagedRecord(values).bytes.data(), &row),
		          StagedDecode::kRow);
		/* A deleted row outside a set is still a deleted row when those are skipped. */
		values[2] = Int8(999);
		values[11] = Bool(true);
		EXPECT_EQ(DecodeStagedTuple(layout, maps.maps, true, StagedRecord(values).bytes.data(), &row, &filter),
		          StagedDecode::kDeleted);
	}
}

TEST(DecodeStagedTupleTest, RecognisesOnlyDhis2sOwnLayout)
{
	TupleLayout layout = Dhis2Layout();
	RecogniseDhis2Layout(layout);
	EXPECT_TRUE(layout.dhis2);

	/* Core's own copy of the layout is this file's independent one, recognised. */
	const TupleLayout core_layout = Dhis2TupleLayout();
	EXPECT_TRUE(core_layout.dhis2);
	ASSERT_EQ(core_layout.columns.size(), layout.columns.size());
	for (size_t i = 0; i < layout.columns.size(); i++) {
		EXPECT_EQ(core_layout.columns[i].length, layout.columns[i].length) << i;
		EXPECT_EQ(core_layout.columns[i].alignment, layout.columns[i].alignment) << i;
		EXPECT_EQ(core_layout.columns[i].field, layout.columns[i].field) << i;
	}

	TupleLayout added = Dhis2Layout(); /* a column a DBA added at the end */
	added.columns.push_back(TupleColumn{4, 4, TupleField::kUnused});
	RecogniseDhis2Layout(added);
	EXPECT_FALSE(added.dhis2);

	TupleLayout swapped = Dhis2Layout(); /* the same types, two fields in another order */
	std::swap(swapped.columns[10].field, swapped.columns[11].field);
	RecogniseDhis2Layout(swapped);
	EXPECT_FALSE(swapped.dhis2);

	TupleLayout text_type = Dhis2Layout(); /* a timestamp where DHIS2 has a text */
	text_type.columns[5] = TupleColumn{8, 8, TupleField::kValue};
	RecogniseDhis2Layout(text_type);
	EXPECT_FALSE(text_type.dhis2);
}

/* A decode's whole outcome: its result or error, and the row's fields as text. */
std::string
Outcome(const TupleLayout &layout, const Maps &maps, bool skip_deleted, const StagedRecord &record)
{
	DataValueRow row;
	StagedDecode decoded;
	try {
		decoded = DecodeStagedTuple(layout, maps.maps, skip_deleted, record.bytes.data(), &row);
	} catch (const Error &e) {
		return std::string("error ") + e.Sqlstate() + " " + e.what();
	}
	if (decoded == StagedDecode::kDeferred)
		return "deferred";
	if (decoded == StagedDecode::kDeleted)
		return "deleted";
	if (decoded == StagedDecode::kNoMetadata)
		return "no-metadata";
	std::string out = "row";
	for (uint32_t id : row.ids)
		out += " " + std::to_string(id);
	out += " " + Str(row.value) + "|" + Str(row.stored_by) + "|" + Str(row.comment);
	out += " " + std::to_string(row.created) + " " + std::to_string(row.last_updated);
	out += " " + std::to_string(row.followup) + " " + std::to_string(row.deleted);
	return out;
}

TEST(DecodeStagedTupleTest, NullDeletedFlagIsNotLiveAndNullTimestampIsAnError)
{
	Maps maps;
	for (const TupleLayout &layout : {Dhis2Layout(), RecognisedDhis2Layout()}) {
		std::vector<Value> values = Dhis2Values(1, std::string("x"), std::nullopt, 0, std::nullopt, false, false);
		values[11] = Null(); /* deleted: DHIS2's dv.deleted = false leaves the row out */
		DataValueRow row;
		EXPECT_EQ(DecodeStagedTuple(layout, maps.maps, true, StagedRecord(values).bytes.data(), &row),
		          StagedDecode::kDeleted);
		ASSERT_EQ(DecodeStagedTuple(layout, maps.maps, false, StagedRecord(values).bytes.data(), &row),
		          StagedDecode::kRow);
		EXPECT_FALSE(row.deleted); /* with includeDeleted: exported, not marked deleted */
		for (size_t column : {7u, 8u}) {
			values = Dhis2Values(1, std::nullopt, std::nullopt, 0, std::nullopt, false, false);
			values[column] = Null();
			try {
				DecodeStagedTuple(layout, maps.maps, false, StagedRecord(values).bytes.data(), &row);
				FAIL() << "no error";
			} catch (const Error &e) {
				EXPECT_STREQ(e.Sqlstate(), sqlstate::kNullValueNotAllowed);
				EXPECT_EQ(std::string(e.what()), std::string("data value has a NULL \"") +
				                                     (column == 7 ? "created" : "lastupdated") + "\" timestamp");
			}
		}
	}
}

TEST(DecodeStagedTupleTest, Dhis2LayoutReadStraightThroughAsTheWalkReadsIt)
{
	const TupleLayout walked = Dhis2Layout();
	TupleLayout straight = Dhis2Layout();
	RecogniseDhis2Layout(straight);
	ASSERT_TRUE(straight.dhis2);
	Maps maps;
	std::mt19937 rng(43);
	const auto chance = [&rng](unsigned in) { return rng() % in == 0; };
	/* NULL, empty, short (1-byte header, odd lengths move the later alignment) or long (4-byte header). */
	const auto text = [&]() -> std::optional<std::string> {
		switch (rng() % 4) {
		case 0:
			return std::nullopt;
		case 1:
			return std::string();
		case 2:
			return std::string(1 + rng() % 20, 't');
		default:
			return std::string(127 + rng() % 300, 'L');
		}
	};
	std::map<std::string, int> kinds; /* how often each outcome came up */
	for (int i = 0; i < 4000; i++) {
		const std::optional<bool> followup = chance(3) ? std::nullopt : std::optional<bool>(chance(2));
		std::vector<Value> values =
		    Dhis2Values(static_cast<int64_t>(rng() % 50), text(), text(), static_cast<int64_t>(rng() % 1000000) - 500,
		                text(), followup, chance(4));
		if (chance(25))
			values[rng() % 5] = Null(); /* a NULL id: walked, and left out */
		if (chance(25))
			values[rng() % 5] = Int8(99); /* an id outside the maps */
		if (chance(25))
			values[7 + rng() % 2] = chance(2) ? Null() : Int8(chance(2) ? INT64_MIN : INT64_MAX);
		if (chance(25))
			values[std::vector<size_t>{5, 6, 9}[rng() % 3]] = Compressed();
		if (chance(25))
			values[11] = Null();                      /* a NULL deleted flag: not live */
		const StagedRecord record(values, chance(3)); /* sometimes a bitmap without NULLs */
		const bool skip_deleted = chance(2);
		const std::string expected = Outcome(walked, maps, skip_deleted, record);
		ASSERT_EQ(Outcome(straight, maps, skip_deleted, record), expected) << "tuple " << i;
		kinds[expected.substr(0, expected.find(' '))]++;
	}
	/* Every path was taken, many times. */
	for (const char *kind : {"row", "deleted", "no-metadata", "deferred", "error"})
		EXPECT_GT(kinds[kind], 50) << kind;
}

/* What a stager made of everything staged: encoded records (decoded back) and deferred records. */
struct Collected {
	std::vector<std::string> rows; /* "id|value|created" per encoded row */
	size_t deferred = 0;
	void Add(const StagedRows *staged)
	{
		if (staged == nullptr)
			return;
		for (const SortEntry &e : staged->encoded.entries) {
			const DataValueRow row = DecodeRow(staged->encoded.arena.Data() + e.offset);
			rows.push_back(std::to_string(row.ids[0]) + "|" + Str(row.value) + "|" + std::to_string(row.created));
		}
		for (const char *p = staged->deferred.Data(), *end = p + staged->deferred.Size(); p < end;
		     p += EncodedRowSize(p))
			deferred++;
	}
};

void
StageRecord(RowStager &stager, const StagedRecord &record)
{
	const StagedTuple t = ReadStagedTuple(record.bytes.data());
	stager.Stage(t.attributes, t.null_bitmap, t.bitmap_bytes, t.data, t.data_bytes);
}

/* How StageMany hands over a full chunk. */
enum class Handover {
	kExchange,         /* always to the worker */
	kExchangeOrDecode, /* to the worker unless it is busy */
	kSometimesHere,    /* every other chunk decoded here, as while the sorting thread works */
};

/* Stage n rows (every 97th compressed, every 13th deleted), handing chunks over as they fill. */
Collected
StageMany(RowStager &stager, int n, Handover handover, std::vector<std::string> *expected)
{
	Collected got;
	int chunks = 0;
	for (int i = 0; i < n; i++) {
		const bool deleted = i % 13 == 0;
		std::vector<Value> values =
		    Dhis2Values(i, "value " + std::to_string(i) + std::string(static_cast<size_t>(i % 300), '.'),
		                std::string("u"), i, std::nullopt, std::nullopt, deleted);
		if (i % 97 == 0)
			values[6] = Compressed();
		else if (!deleted)
			expected->push_back(std::to_string(i % 50) + "|value " + std::to_string(i) +
			                    std::string(static_cast<size_t>(i % 300), '.') + "|" + std::to_string(i));
		StageRecord(stager, StagedRecord(values));
		if (stager.ChunkFull())
			got.Add(handover == Handover::kExchange           ? stager.Exchange()
			        : handover == Handover::kExchangeOrDecode ? stager.ExchangeOrDecode()
			                                                  : stager.ExchangeOrDecode(++chunks % 2 == 0));
	}
	got.Add(stager.Exchange());
	got.Add(stager.Finish());
	return got;
}

TEST(RowStagerTest, EveryRowComesBackOnceWhicheverThreadDecodesIt)
{
	Maps maps;
	for (Handover handover : {Handover::kExchange, Handover::kExchangeOrDecode, Handover::kSometimesHere}) {
		RowStager stager(Dhis2Layout(), maps.maps, PlanSortKey({OrderKey::kPeriod}), true);
		std::vector<std::string> expected;
		const int n = 20000; /* several 512 kB chunks */
		Collected got = StageMany(stager, n, handover, &expected);
		std::sort(expected.begin(), expected.end());
		std::sort(got.rows.begin(), got.rows.end());
		EXPECT_EQ(got.rows, expected);
		EXPECT_EQ(got.deferred, static_cast<size_t>((n + 96) / 97));
	}
}

TEST(RowStagerTest, RowsOutsideTheFilterAreDroppedOnEitherThread)
{
	Maps maps;
	maps.maps[0] = IdMap(); /* data elements 100..124 only: the export's filter set */
	for (int i = 0; i < 25; i++)
		maps.maps[0].Put(100 + i, static_cast<uint32_t>(i));
	for (Handover handover : {Handover::kExchange, Handover::kSometimesHere}) {
		StagedFilter filter;
		filter.sets[static_cast<size_t>(IdKind::kDataElement)] = &maps.maps[0];
		RowStager stager(Dhis2Layout(), maps.maps, PlanSortKey({OrderKey::kPeriod}), true, RowStager::kMaxChunkBytes,
		                 &filter);
		std::vector<std::string> staged;
		const int n = 20000;
		Collected got = StageMany(stager, n, handover, &staged);
		std::vector<std::string> expected;
		for (const std::string &row : staged)
			if (std::stoi(row.substr(0, row.find('|'))) < 25)
				expected.push_back(row);
		ASSERT_LT(expected.size(), staged.size());
		ASSERT_GT(expected.size(), staged.size() / 3);
		std::sort(expected.begin(), expected.end());
		std::sort(got.rows.begin(), got.rows.end());
		EXPECT_EQ(got.rows, expected);
		EXPECT_EQ(got.deferred, static_cast<size_t>((n + 96) / 97)) << "compressed rows still go back to PostgreSQL";
	}
}

TEST(RowStagerTest, DecodeHereReturnsTheStagedChunkAtOnce)
{
	Maps maps;
	RowStager stager(Dhis2Layout(), maps.maps, PlanSortKey({OrderKey::kPeriod}), true);
	StageRecord(stager,
	            StagedRecord(Dhis2Values(7, std::string("here"), std::nullopt, 70, std::nullopt, false, false)));
	Collected here;
	here.Add(stager.ExchangeOrDecode(true)); /* not handed over: decoded on this thread, returned now */
	EXPECT_EQ(here.rows, std::vector<std::string>{"7|here|70"});

	StageRecord(stager,
	            StagedRecord(Dhis2Values(8, std::string("there"), std::nullopt, 80, std::nullopt, false, false)));
	EXPECT_EQ(stager.ExchangeOrDecode(false), nullptr) << "a free worker takes the chunk; nothing was handed before";
	Collected there;
	there.Add(stager.Finish());
	EXPECT_EQ(there.rows, std::vector<std::string>{"8|there|80"});
}

TEST(RowStagerTest, KeysAreTheSorterKeys)
{
	Maps maps;
	const SortKeyPlan plan = PlanSortKey({OrderKey::kPeriod, OrderKey::kCreated, OrderKey::kDataElement});
	RowStager stager(Dhis2Layout(), maps.maps, plan, false);
	StageRecord(stager, StagedRecord(Dhis2Values(4, std::string("1"), std::nullopt, 55, std::nullopt, false, false)));
	ASSERT_EQ(stager.Exchange(), nullptr);
	const StagedRows *rows = stager.Finish();
	ASSERT_NE(rows, nullptr);
	ASSERT_EQ(rows->encoded.entries.size(), 1u);
	const SortEntry &e = rows->encoded.entries[0];
	const SortKey expected = RecordSortKey(plan, rows->encoded.arena.Data() + e.offset);
	EXPECT_FALSE(KeyLess(e.key, expected));
	EXPECT_FALSE(KeyLess(expected, e.key));
}

TEST(RowStagerTest, WorkerErrorIsRethrownOnTheCallersThread)
{
	Maps maps;
	RowStager stager(Dhis2Layout(), maps.maps, PlanSortKey({OrderKey::kPeriod}), false);
	std::vector<Value> values = Dhis2Values(1, std::nullopt, std::nullopt, 0, std::nullopt, false, false);
	values[7] = Int8(INT64_MIN); /* created: -infinity */
	StageRecord(stager, StagedRecord(values));
	EXPECT_EQ(stager.Exchange(), nullptr);
	try {
		stager.Finish();
		FAIL() << "no error";
	} catch (const Error &e) {
		EXPECT_STREQ(e.Sqlstate(), sqlstate::kDatetimeValueOutOfRange);
	}
	/* The error is reported once; the stager can still be finished and destroyed. */
	EXPECT_EQ(stager.Finish(), nullptr);
}

TEST(RowStagerTest, WorkerHookRunsOnTheWorkerBeforeEachChunkItDecodes)
{
	/* The fault-injection builds hold the worker in this hook (src/pg datavalue_query.cpp InjectWorkerHold). */
	Maps maps;
	RowStager stager(Dhis2Layout(), maps.maps, PlanSortKey({OrderKey::kPeriod}), true);
	const std::thread::id caller = std::this_thread::get_id();
	std::atomic<int> calls{0};
	std::atomic<int> on_caller{0};
	stager.SetWorkerHook([&] {
		calls++;
		if (std::this_thread::get_id() == caller)
			on_caller++;
		std::this_thread::sleep_for(std::chrono::milliseconds(2));
	});
	std::vector<std::string> expected;
	Collected got = StageMany(stager, 20000, Handover::kExchange, &expected);
	std::sort(expected.begin(), expected.end());
	std::sort(got.rows.begin(), got.rows.end());
	EXPECT_EQ(got.rows, expected) << "a worker held in the hook still decodes every row";
	EXPECT_GT(calls.load(), 2) << "20,000 rows fill several chunks, each handed to the worker";
	EXPECT_EQ(on_caller.load(), 0);
}

TEST(RowStagerTest, DestroyedWhileTheWorkerDecodes)
{
	Maps maps;
	auto stager = std::make_unique<RowStager>(Dhis2Layout(), maps.maps, PlanSortKey({OrderKey::kPeriod}), false);
	const StagedRecord record(Dhis2Values(2, std::string(100, 'x'), std::nullopt, 1, std::nullopt, false, false));
	while (!stager->ChunkFull())
		StageRecord(*stager, record);
	stager->Exchange();
	stager.reset(); /* joins the worker; ASan reports anything left behind */
}

/* Rows of varied sizes, each added one by one to a and in batches (AddEncoded) to b. */
void
FillBothWays(RowSorter &a, RowSorter &b, const SortKeyPlan &plan, int n, size_t batch_rows, std::vector<size_t> *runs_a,
             std::vector<size_t> *runs_b)
{
	std::vector<std::string> texts;
	for (int i = 0; i < n; i++)
		texts.push_back("t" + std::to_string(i * 7919 % 1000) + std::string(static_cast<size_t>(i % 40), '-'));
	EncodedRows batch;
	const auto take_run = [](RowSorter &sorter, std::vector<size_t> *runs) {
		sorter.SortRun();
		runs->push_back(sorter.SortedRows());
		sorter.ClearSortedRun();
	};
	for (int i = 0; i < n; i++) {
		DataValueRow row{};
		for (uint32_t &id : row.ids)
			id = static_cast<uint32_t>((i * 31) % 17);
		row.created = (i * 7919) % 1000;
		const std::string &text = texts[static_cast<size_t>(i)];
		row.value = TextField{text.data(), text.size(), false};
		a.Add(row);
		if (a.RunFull())
			take_run(a, runs_a);
		batch.Add(plan, row);
		if (batch.entries.size() == batch_rows || i == n - 1) {
			for (size_t next = 0; next < batch.entries.size();) {
				next = b.AddEncoded(batch, next);
				if (b.RunFull())
					take_run(b, runs_b);
			}
			batch.Clear();
		}
	}
}

TEST(RowSorterTest, EncodedRowsAddedInBulkSortLikeRowsAddedOneByOne)
{
	const SortKeyPlan plan = PlanSortKey({OrderKey::kPeriod, OrderKey::kCreated});
	RowSorter one_by_one(plan, 1 << 20), in_bulk(plan, 1 << 20);
	std::vector<size_t> runs_a, runs_b;
	FillBothWays(one_by_one, in_bulk, plan, 500, 64, &runs_a, &runs_b);
	ASSERT_TRUE(runs_a.empty() && runs_b.empty()) << "all in one run";
	one_by_one.SortRun();
	in_bulk.SortRun();
	ASSERT_EQ(one_by_one.SortedRows(), in_bulk.SortedRows());
	for (size_t i = 0; i < one_by_one.SortedRows(); i++) {
		EXPECT_EQ(Str(one_by_one.SortedRow(i).value), Str(in_bulk.SortedRow(i).value)) << i;
		EXPECT_EQ(one_by_one.SortedRow(i).created, in_bulk.SortedRow(i).created) << i;
	}
}

TEST(RowSorterTest, EncodedRowsEndEachRunWhereAddWould)
{
	const SortKeyPlan plan = PlanSortKey({OrderKey::kPeriod});
	for (size_t batch_rows : {1, 7, 64, 1000}) {
		RowSorter one_by_one(plan, 2 * 4096), in_bulk(plan, 2 * 4096); /* runs of 4 kB */
		std::vector<size_t> runs_a, runs_b;
		FillBothWays(one_by_one, in_bulk, plan, 3000, batch_rows, &runs_a, &runs_b);
		EXPECT_GT(runs_a.size(), 10u);
		EXPECT_EQ(runs_a, runs_b) << "batches of " << batch_rows;
		EXPECT_EQ(one_by_one.FillingBytes(), in_bulk.FillingBytes());
	}
}

} // namespace
