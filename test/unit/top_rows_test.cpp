/*
 * test/unit/top_rows_test.cpp
 *	  Unit tests of core/top_rows: the kept rows are exactly the first N rows of a full sort by
 *	  the same key, in order, with their texts intact, whatever the input order and N.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/top_rows.hpp"

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace datavalue_export::core {
namespace {

struct Source {
	uint32_t ids[kIdKindCount];
	int64_t created;
	std::string value;
	bool value_null;
};

DataValueRow
AsRow(const Source &s)
{
	DataValueRow row{};
	for (size_t k = 0; k < kIdKindCount; k++)
		row.ids[k] = s.ids[k];
	row.created = s.created;
	row.last_updated = s.created + 7;
	row.followup = -1;
	row.value = TextField{s.value.data(), s.value.size(), s.value_null};
	row.stored_by = TextField{"u", 1, false};
	row.comment = TextField{};
	return row;
}

/* Distinct rows (the id tuple is unique, as datavalue's primary key makes it), random order. */
std::vector<Source>
RandomRows(size_t n, uint32_t seed)
{
	std::mt19937 rng(seed);
	std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>> seen;
	std::vector<Source> rows;
	while (rows.size() < n) {
		Source s{};
		for (uint32_t &id : s.ids)
			id = rng() % 7;
		s.ids[0] = rng() % 50;
		if (!seen.insert({s.ids[0], s.ids[1], s.ids[2], s.ids[3], s.ids[4]}).second)
			continue;
		s.created = static_cast<int64_t>(rng() % 5) - 2; /* many ties on created */
		s.value = std::string(rng() % 40, static_cast<char>('a' + rng() % 26));
		s.value_null = rng() % 10 == 0;
		rows.push_back(std::move(s));
	}
	return rows;
}

TEST(TopRowsTest, KeepsExactlyTheFirstRowsOfTheFullSort)
{
	const SortKeyPlan plan = PlanSortKey({OrderKey::kPeriod, OrderKey::kCreated, OrderKey::kDataElement});
	const std::vector<Source> rows = RandomRows(3000, 7);
	std::vector<size_t> order(rows.size());
	for (size_t i = 0; i < order.size(); i++)
		order[i] = i;
	std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
		return KeyLess(MakeSortKey(plan, AsRow(rows[a])), MakeSortKey(plan, AsRow(rows[b])));
	});
	for (const size_t capacity : {size_t{1}, size_t{2}, size_t{50}, size_t{2999}, size_t{3000}, size_t{5000}}) {
		TopRows top(plan, capacity);
		for (const Source &s : rows)
			top.Add(AsRow(s));
		top.Finish();
		ASSERT_EQ(top.Size(), std::min(capacity, rows.size()));
		for (size_t i = 0; i < top.Size(); i++) {
			const DataValueRow got = top.Row(i);
			const Source &want = rows[order[i]];
			for (size_t k = 0; k < kIdKindCount; k++)
				ASSERT_EQ(got.ids[k], want.ids[k]) << "capacity " << capacity << " row " << i;
			ASSERT_EQ(got.created, want.created);
			ASSERT_EQ(got.last_updated, want.created + 7);
			ASSERT_EQ(got.value.is_null, want.value_null);
			if (!want.value_null) {
				ASSERT_EQ(std::string(got.value.data, got.value.size), want.value);
			}
			ASSERT_EQ(std::string(got.stored_by.data, got.stored_by.size), "u");
			ASSERT_TRUE(got.comment.is_null);
		}
	}
}

TEST(TopRowsTest, BytesFollowTheKeptRows)
{
	const SortKeyPlan plan = PlanSortKey({OrderKey::kPeriod});
	std::vector<Source> rows = RandomRows(200, 11);
	TopRows top(plan, 10);
	for (const Source &s : rows)
		top.Add(AsRow(s));
	top.Finish();
	size_t sum = 0;
	for (size_t i = 0; i < top.Size(); i++) {
		const DataValueRow r = top.Row(i);
		/* last_updated differs from created (8 bytes), storedBy is "u", values are short */
		sum += kCompactRowHeader + 8 + (r.value.is_null ? 0 : r.value.size) + 1;
	}
	EXPECT_EQ(top.Bytes(), sum);
}

} // namespace
} // namespace datavalue_export::core
