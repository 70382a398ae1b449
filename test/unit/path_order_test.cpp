/*
 * test/unit/path_order_test.cpp
 *	  Unit tests of core/path_order: the org units' order by path, proposed from their tree.
 *
 * On a consistent hierarchy, in either collation, the proposal is the sorted order of the paths
 * (ties by id), whatever order the org units came in. What it cannot know (a family ordered by
 * case alone, a stale path, a parent cycle) still gives every org unit once, so the caller's
 * check of adjacent pairs decides. Rows without a path come last by id, and collecting stops at
 * the limit.
 * SPDX-License-Identifier: PostgreSQL
 */
/* First, so the header is shown to compile on its own. */
#include "core/path_order.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace datavalue_export::core {
namespace {

struct OrgUnit {
	int64_t id;
	std::optional<int64_t> parent;
	std::optional<std::string> path;
};

std::string
RandomUid(std::mt19937 &random)
{
	static const char kChars[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	std::string uid(11, ' ');
	for (char &c : uid)
		c = kChars[random() % 62];
	return uid;
}

/* n org units under a few roots, each below an earlier one, with DHIS2's paths, shuffled. */
std::vector<OrgUnit>
RandomHierarchy(size_t n, uint32_t seed)
{
	std::mt19937 random(seed);
	std::vector<OrgUnit> units;
	for (size_t i = 0; i < n; i++) {
		OrgUnit unit{static_cast<int64_t>(1000 + i), std::nullopt, std::nullopt};
		if (i < 3) {
			unit.path = "/" + RandomUid(random);
		} else {
			/* Mostly under a recent org unit (deep chains), sometimes any earlier one (wide families). */
			const size_t parent = random() % 8 == 0 ? random() % i : i - 1 - random() % std::min<size_t>(i, 6);
			unit.parent = units[parent].id;
			unit.path = *units[parent].path + "/" + RandomUid(random);
		}
		units.push_back(unit);
	}
	std::shuffle(units.begin(), units.end(), random);
	return units;
}

PathOrder
Collect(const std::vector<OrgUnit> &units, size_t limit = SIZE_MAX)
{
	PathOrder order(limit);
	for (const OrgUnit &unit : units)
		order.Add(unit.id, unit.parent,
		          unit.path ? std::optional<std::string_view>(*unit.path) : std::optional<std::string_view>());
	return order;
}

/* ORDER BY path, id with NULLs last, as indices into units. */
std::vector<uint32_t>
Sorted(const std::vector<OrgUnit> &units, PathCollation collation)
{
	std::vector<uint32_t> order(units.size());
	std::iota(order.begin(), order.end(), 0u);
	std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
		const OrgUnit &x = units[a], &y = units[b];
		if (x.path.has_value() != y.path.has_value())
			return x.path.has_value();
		if (!x.path)
			return x.id < y.id;
		return PathLess(collation, *x.path, x.id, *y.path, y.id);
	});
	return order;
}

bool
IsPermutation(std::vector<uint32_t> order, size_t n)
{
	std::sort(order.begin(), order.end());
	for (size_t i = 0; i < order.size(); i++)
		if (order[i] != i)
			return false;
	return order.size() == n;
}

TEST(PathOrderTest, PathLessIsByteOrderOrCaseAfterTheLetters)
{
	EXPECT_TRUE(PathLess(PathCollation::kBytes, "B", 1, "a", 2));
	EXPECT_FALSE(PathLess(PathCollation::kCaseFolded, "B", 1, "a", 2));
	EXPECT_TRUE(PathLess(PathCollation::kCaseFolded, "ab", 9, "AB", 1)); /* lower case first */
	EXPECT_TRUE(PathLess(PathCollation::kCaseFolded, "AB", 9, "abc", 1));
	EXPECT_TRUE(PathLess(PathCollation::kCaseFolded, "/9z", 1, "/a0", 1)); /* digits before letters */
	for (const PathCollation collation : {PathCollation::kBytes, PathCollation::kCaseFolded}) {
		EXPECT_TRUE(PathLess(collation, "/a", 5, "/a/b", 1)); /* an ancestor first */
		EXPECT_TRUE(PathLess(collation, "/a", 1, "/a", 2));   /* then by id */
		EXPECT_FALSE(PathLess(collation, "/a", 2, "/a", 2));
	}
}

TEST(PathOrderTest, ProposesTheSortedOrderOfAConsistentHierarchy)
{
	for (const uint32_t seed : {1u, 2u, 3u}) {
		const std::vector<OrgUnit> units = RandomHierarchy(3000, seed);
		const PathOrder order = Collect(units);
		ASSERT_FALSE(order.overflowed());
		for (const PathCollation collation : {PathCollation::kBytes, PathCollation::kCaseFolded})
			EXPECT_EQ(order.Propose(collation), Sorted(units, collation)) << "seed " << seed;
	}
}

TEST(PathOrderTest, AFlatCountryAndASingleOrgUnit)
{
	std::vector<OrgUnit> units = {{1, std::nullopt, "/Root0000001"}};
	std::mt19937 random(7);
	for (int64_t i = 2; i < 5000; i++)
		units.push_back({i, 1, "/Root0000001/" + RandomUid(random)});
	std::shuffle(units.begin(), units.end(), random);
	EXPECT_EQ(Collect(units).Propose(PathCollation::kBytes), Sorted(units, PathCollation::kBytes));
	const std::vector<OrgUnit> one = {{42, 7, "/Root0000001/Leaf0000001"}};
	EXPECT_EQ(Collect(one).Propose(PathCollation::kCaseFolded), std::vector<uint32_t>{0});
	EXPECT_TRUE(Collect({}).Propose(PathCollation::kBytes).empty());
}

TEST(PathOrderTest, OrgUnitsWithoutAPathComeLastByIdAndAMissingParentMakesARoot)
{
	/* A level or a group selects org units whose parents are not selected: each is a root. */
	const std::vector<OrgUnit> units = {
	    {5, std::nullopt, std::nullopt},
	    {9, 100, "/r/x/b"},
	    {3, 100, std::nullopt},
	    {7, 200, "/r/y/a"},
	    {8, 100, "/r/x/a"},
	    {6, 9, "/r/x/b/c"},
	};
	const std::vector<uint32_t> proposed = Collect(units).Propose(PathCollation::kBytes);
	EXPECT_EQ(proposed, (std::vector<uint32_t>{4, 1, 5, 3, 2, 0}));
	EXPECT_EQ(proposed, Sorted(units, PathCollation::kBytes));
}

TEST(PathOrderTest, EqualPathsAreOrderedById)
{
	const std::vector<OrgUnit> units = {{4, 1, "/r/a"}, {1, std::nullopt, "/r"}, {2, 1, "/r/a"}, {3, 1, "/r/a"}};
	EXPECT_EQ(Collect(units).Propose(PathCollation::kBytes), (std::vector<uint32_t>{1, 2, 3, 0}));
}

TEST(PathOrderTest, WhatTheTreeCannotKnowStillGivesEveryOrgUnitOnce)
{
	/*
	 * In an English collation case counts only after every letter of the whole path: /R/aB
	 * sorts before /R/Ab, which sorts before /R/aB/c. The walk keeps a child under its parent.
	 */
	const std::vector<OrgUnit> by_case = {{1, std::nullopt, "/R"}, {2, 1, "/R/aB"}, {3, 1, "/R/Ab"}, {4, 2, "/R/aB/c"}};
	const std::vector<uint32_t> walk = Collect(by_case).Propose(PathCollation::kCaseFolded);
	EXPECT_EQ(walk, (std::vector<uint32_t>{0, 1, 3, 2}));
	EXPECT_EQ(Sorted(by_case, PathCollation::kCaseFolded), (std::vector<uint32_t>{0, 1, 2, 3}));

	/* A stale path: org unit 3 moved under 2 without its path following. */
	const std::vector<OrgUnit> stale = {{1, std::nullopt, "/r"}, {2, 1, "/r/b"}, {3, 2, "/r/a"}, {4, 1, "/r/c"}};
	const std::vector<uint32_t> proposed = Collect(stale).Propose(PathCollation::kBytes);
	EXPECT_TRUE(IsPermutation(proposed, stale.size()));
	EXPECT_NE(proposed, Sorted(stale, PathCollation::kBytes));

	/* A parent cycle (3 and 4 each other's parent) and an org unit that is its own parent. */
	const std::vector<OrgUnit> cycle = {{1, std::nullopt, "/r"}, {3, 4, "/r/c"}, {4, 3, "/r/c/d"}, {5, 5, "/r/e"}};
	const std::vector<uint32_t> with_cycle = Collect(cycle).Propose(PathCollation::kBytes);
	EXPECT_TRUE(IsPermutation(with_cycle, cycle.size()));
	EXPECT_EQ(with_cycle, (std::vector<uint32_t>{0, 3, 1, 2})); /* the roots' walk, then the cycle */
}

/* Org units in the order a country's are created: each level after the one above it. */
std::vector<OrgUnit>
BinaryCountry(int levels)
{
	std::vector<OrgUnit> units = {{1, std::nullopt, "/Country0001"}};
	std::mt19937 random(11);
	for (size_t i = 0; units.size() < (size_t{1} << levels) - 1; i++)
		for (int child = 0; child < 2; child++)
			units.push_back(
			    {static_cast<int64_t>(units.size() + 1), units[i].id, *units[i].path + "/" + RandomUid(random)});
	return units;
}

TEST(PathOrderTest, RebuildsEveryPathExactly)
{
	std::vector<OrgUnit> country = BinaryCountry(12);
	/* Parents first (kept as what they add), shuffled (children before parents, kept whole), and a stale path. */
	std::vector<OrgUnit> shuffled = country;
	std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(5));
	std::vector<OrgUnit> stale = country;
	stale[40].path = "/Country0001/MovedAway01";
	stale[81].path = *stale[40].path; /* equal to its parent's */
	for (const std::vector<OrgUnit> *units : {&country, &shuffled, &stale}) {
		const PathOrder order = Collect(*units);
		std::string path;
		for (uint32_t i = 0; i < units->size(); i++) {
			order.PathOf(i, &path);
			ASSERT_EQ(path, *(*units)[i].path) << i;
		}
	}
}

TEST(PathOrderTest, RebuildsAPathFromThePreviousOneOfAWalk)
{
	std::vector<OrgUnit> country = BinaryCountry(11);
	country[100].path = "/Country0001/Elsewhere01"; /* kept whole */
	std::shuffle(country.begin() + 1, country.end(), std::mt19937(8));
	const PathOrder order = Collect(country);
	const std::vector<uint32_t> walk = order.Propose(PathCollation::kBytes);
	std::string previous, path;
	order.PathOf(walk[0], &previous);
	for (size_t k = 1; k < walk.size(); k++) {
		order.PathOf(walk[k], &path, walk[k - 1], previous);
		ASSERT_EQ(path, *country[walk[k]].path) << k;
		/* and from rows that are not the previous one of the walk */
		order.PathOf(walk[k], &path, walk[(k * 7) % walk.size()], *country[walk[(k * 7) % walk.size()]].path);
		ASSERT_EQ(path, *country[walk[k]].path) << k;
		previous = *country[walk[k]].path;
	}
}

TEST(PathOrderTest, KeepsADeepCountryInAFractionOfItsPaths)
{
	/* 17 levels, as the probe database of bench/README: paths of 11 to 203 bytes. */
	const std::vector<OrgUnit> country = BinaryCountry(17);
	size_t path_bytes = 0;
	for (const OrgUnit &unit : country)
		path_bytes += unit.path->size();
	PathOrder order;
	order.Reserve(country.size());
	for (const OrgUnit &unit : country)
		order.Add(unit.id, unit.parent, *unit.path);
	EXPECT_LT(order.MemoryBytes(), path_bytes / 2);
	EXPECT_LE(order.MemoryBytes(), PathOrder::BytesFor(country.size()) * 3 / 2);
	EXPECT_EQ(order.Propose(PathCollation::kBytes), Sorted(country, PathCollation::kBytes));
}

TEST(PathOrderTest, IdsFoundThroughAnArrayOrAHashTable)
{
	/* RandomHierarchy's ids are 1000 .. 1000 + n - 1, shuffled. */
	const size_t n = 3000;
	const std::vector<OrgUnit> units = RandomHierarchy(n, 9);
	const std::vector<uint32_t> want = Sorted(units, PathCollation::kBytes);
	const std::pair<int64_t, int64_t> ranges[] = {
	    {1000, 1000 + n - 1}, /* the array */
	    {900, 900 + 4 * n},   /* the array, with room */
	    {1000, 1000 + n / 2}, /* the array, until an id beyond it turns it into a hash table */
	    {0, 100 * n},         /* too wide: a hash table */
	    {0, -1},              /* unknown: a hash table */
	};
	for (const auto &[low, high] : ranges) {
		PathOrder order;
		order.Reserve(n, low, high);
		for (const OrgUnit &unit : units)
			order.Add(unit.id, unit.parent, *unit.path);
		EXPECT_EQ(order.Propose(PathCollation::kBytes), want) << low << ".." << high;
		std::string path;
		for (uint32_t i = 0; i < n; i += 97) {
			order.PathOf(i, &path);
			EXPECT_EQ(path, *units[i].path);
		}
	}
}

TEST(PathOrderTest, RootsInsideAnotherRootsSubtreeAreMergedIntoIt)
{
	/*
	 * An export of few values selects the org units that have values: the country and some
	 * districts and facilities, not every chiefdom between them. A facility whose chiefdom is
	 * missing is a root of its own, yet its path sorts inside the country's subtree.
	 */
	const std::vector<OrgUnit> country = BinaryCountry(10);
	std::mt19937 random(3);
	for (const int keep_in_8 : {1, 4, 7}) {
		std::vector<OrgUnit> selected = {country[0]};
		for (size_t i = 1; i < country.size(); i++)
			if (static_cast<int>(random() % 8) < keep_in_8)
				selected.push_back(country[i]);
		std::shuffle(selected.begin(), selected.end(), random);
		const PathOrder order = Collect(selected);
		for (const PathCollation collation : {PathCollation::kBytes, PathCollation::kCaseFolded})
			EXPECT_EQ(order.Propose(collation), Sorted(selected, collation)) << keep_in_8;
	}
}

TEST(PathOrderTest, StopsCollectingPastItsLimit)
{
	const std::vector<OrgUnit> units = RandomHierarchy(1000, 4);
	const PathOrder whole = Collect(units);
	EXPECT_FALSE(whole.overflowed());
	EXPECT_EQ(whole.size(), 1000u);
	PathOrder half = Collect(units, whole.MemoryBytes() / 2);
	EXPECT_TRUE(half.overflowed());
	EXPECT_LT(half.size(), 1000u);
	EXPECT_FALSE(half.Add(1, std::nullopt, std::string_view("/x")));
	half.Release();
	EXPECT_EQ(half.size(), 0u);
	EXPECT_LT(half.MemoryBytes(), 64u); /* a string keeps its small buffer */
}

} // namespace
} // namespace datavalue_export::core
