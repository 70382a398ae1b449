/*
 * test/unit/id_map_test.cpp
 *	  Unit tests of core/id_map: the open-addressing map from database ids (bigint) to writer indexes.
 *
 * Put/Get/overwrite and misses on small maps, awkward keys (zero, negative, INT64_MAX, keys that
 * collide in the low hash bits), then 100k keys checked against std::unordered_map through every
 * rehash, with lookups of absent keys in between.
 * SPDX-License-Identifier: PostgreSQL
 */
/* First, so the header is shown to compile on its own. */
#include "core/id_map.hpp"

#include <iterator>
#include <random>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

namespace datavalue_export::core {
namespace {

TEST(IdMapTest, EmptyMapFindsNothing)
{
	const IdMap map;
	EXPECT_EQ(map.Size(), 0u);
	for (const int64_t id : {INT64_C(0), INT64_C(1), INT64_C(-1), INT64_C(42), INT64_MAX, INT64_MIN + 1}) {
		EXPECT_EQ(map.Get(id), IdMap::kNotFound) << id;
		EXPECT_FALSE(map.Contains(id)) << id;
	}
}

TEST(IdMapTest, PutThenGet)
{
	IdMap map;
	map.Put(17, 0);
	map.Put(4, 1);
	map.Put(123456789, 2);
	EXPECT_EQ(map.Size(), 3u);
	EXPECT_EQ(map.Get(17), 0u);
	EXPECT_EQ(map.Get(4), 1u);
	EXPECT_EQ(map.Get(123456789), 2u);
	EXPECT_TRUE(map.Contains(17));
	EXPECT_EQ(map.Get(18), IdMap::kNotFound);
	EXPECT_EQ(map.Get(-17), IdMap::kNotFound);
	EXPECT_FALSE(map.Contains(5));
}

TEST(IdMapTest, OverwriteKeepsSize)
{
	IdMap map;
	map.Put(5, 10);
	map.Put(5, 20);
	EXPECT_EQ(map.Size(), 1u);
	EXPECT_EQ(map.Get(5), 20u);
	map.Put(5, 0);
	EXPECT_EQ(map.Get(5), 0u);
	EXPECT_TRUE(map.Contains(5));
}

TEST(IdMapTest, IndexZeroAndLargeIndexes)
{
	IdMap map;
	map.Put(1, 0);
	map.Put(2, UINT32_MAX - 1);
	EXPECT_EQ(map.Get(1), 0u);
	EXPECT_EQ(map.Get(2), UINT32_MAX - 1);
	EXPECT_TRUE(map.Contains(1));
}

TEST(IdMapTest, NegativeZeroAndExtremeIds)
{
	IdMap map;
	const int64_t ids[] = {
	    0, -1, -2, INT64_MAX, INT64_MAX - 1, INT64_MIN + 1, INT64_MIN + 2, INT64_C(1) << 40, -(INT64_C(1) << 40)};
	uint32_t i = 0;
	for (const int64_t id : ids)
		map.Put(id, i++);
	EXPECT_EQ(map.Size(), std::size(ids));
	i = 0;
	for (const int64_t id : ids)
		EXPECT_EQ(map.Get(id), i++) << id;
	EXPECT_EQ(map.Get(1), IdMap::kNotFound);
	EXPECT_EQ(map.Get(INT64_MAX - 2), IdMap::kNotFound);
}

/*
 * Regression (fixed): INT64_MIN is the empty-slot marker (id_map.hpp:58), so Get(INT64_MIN) matches
 * the first empty slot on its probe path and returns that slot's stale index (0) instead of kNotFound
 * (id_map.hpp:40-41). Database ids never take that value in DHIS2, but the type is a bigint.
 */
TEST(IdMapTest, MinimumBigintIsNotFound)
{
	const IdMap map;
	EXPECT_EQ(map.Get(INT64_MIN), IdMap::kNotFound);
	EXPECT_FALSE(map.Contains(INT64_MIN));
}

TEST(IdMapTest, KeysThatShareLowBitsAndHighBits)
{
	/* Multiples of a large power of two, and keys differing only in the top bits. */
	IdMap map;
	std::vector<int64_t> ids;
	for (int64_t k = 1; k <= 2000; k++) {
		ids.push_back(k << 20);
		ids.push_back(k << 40);
		ids.push_back(static_cast<int64_t>(static_cast<uint64_t>(k) << 52) + 7);
	}
	for (size_t i = 0; i < ids.size(); i++)
		map.Put(ids[i], static_cast<uint32_t>(i));
	EXPECT_EQ(map.Size(), ids.size());
	for (size_t i = 0; i < ids.size(); i++)
		ASSERT_EQ(map.Get(ids[i]), i) << ids[i];
	EXPECT_EQ(map.Get(INT64_C(2001) << 20), IdMap::kNotFound);
}

TEST(IdMapTest, HundredThousandKeysMatchUnorderedMap)
{
	std::mt19937_64 rng(1234567);
	std::uniform_int_distribution<int64_t> wide(INT64_MIN + 1, INT64_MAX);
	std::uniform_int_distribution<int64_t> narrow(-500000, 500000);
	IdMap map;
	std::unordered_map<int64_t, uint32_t> ref;
	for (uint32_t i = 0; i < 100000; i++) {
		/* Mix of dense serial ids, small negatives and random 64-bit keys; overwrites happen. */
		int64_t id;
		switch (i % 3) {
		case 0:
			id = static_cast<int64_t>(i) + 1;
			break;
		case 1:
			id = narrow(rng);
			break;
		default:
			id = wide(rng);
		}
		map.Put(id, i);
		ref[id] = i;
		ASSERT_EQ(map.Size(), ref.size()) << "after " << i;
		/* Spot-check through each growth step, including a key that is certainly absent. */
		if ((i & (i - 1)) == 0 || i % 9973 == 0) {
			for (const auto &[k, v] : ref)
				ASSERT_EQ(map.Get(k), v) << k;
			ASSERT_EQ(map.Get(-INT64_C(1000000) - i), IdMap::kNotFound);
		}
	}
	for (const auto &[k, v] : ref)
		ASSERT_EQ(map.Get(k), v) << k;
	/* Misses against the reference. */
	int misses = 0;
	for (int i = 0; i < 100000; i++) {
		const int64_t id = wide(rng);
		if (ref.count(id) == 0) {
			ASSERT_EQ(map.Get(id), IdMap::kNotFound) << id;
			misses++;
		} else {
			ASSERT_EQ(map.Get(id), ref[id]);
		}
	}
	EXPECT_GT(misses, 99000);
	for (int64_t id = 500001; id <= 600000; id += 7)
		if (ref.count(id) == 0) {
			ASSERT_FALSE(map.Contains(id)) << id;
		}
}

TEST(IdMapTest, SequentialIdsThroughManyRehashes)
{
	IdMap map;
	for (uint32_t i = 0; i < 300000; i++)
		map.Put(static_cast<int64_t>(i) * 3, i);
	EXPECT_EQ(map.Size(), 300000u);
	for (uint32_t i = 0; i < 300000; i++) {
		ASSERT_EQ(map.Get(static_cast<int64_t>(i) * 3), i);
		ASSERT_EQ(map.Get(static_cast<int64_t>(i) * 3 + 1), IdMap::kNotFound);
	}
}

TEST(IdMapTest, CopyIsIndependent)
{
	IdMap a;
	a.Put(1, 1);
	IdMap b = a;
	b.Put(1, 2);
	b.Put(3, 3);
	EXPECT_EQ(a.Get(1), 1u);
	EXPECT_EQ(a.Get(3), IdMap::kNotFound);
	EXPECT_EQ(b.Get(1), 2u);
	EXPECT_EQ(b.Size(), 2u);
}

/* Densify must not change an answer: nearly consecutive ids (the array), sparse ids (no array), edges. */
TEST(IdMapTest, DensifyKeepsEveryAnswer)
{
	std::mt19937_64 rng(7);
	for (const int64_t base : {INT64_C(0), INT64_C(-500), INT64_C(123456789), INT64_MAX - 5000, INT64_MIN + 1}) {
		for (const int64_t stride : {INT64_C(1), INT64_C(3), INT64_C(1000)}) {
			IdMap map;
			std::unordered_map<int64_t, uint32_t> reference;
			for (uint32_t i = 0; i < 1000; i++) {
				if (rng() % 5 == 0)
					continue; /* gaps */
				const int64_t id = stride == 1000 && base > INT64_MAX - 1000000000 ? base + i : base + i * stride;
				map.Put(id, i);
				reference[id] = i;
			}
			map.Densify();
			for (int64_t k = -10; k < 1010 * stride; k++) {
				if ((k < 0 && base < INT64_MIN - k) || (k > 0 && base > INT64_MAX - k))
					continue; /* outside int64 */
				const int64_t probe = base + k;
				const auto it = reference.find(probe);
				ASSERT_EQ(map.Get(probe), it == reference.end() ? IdMap::kNotFound : it->second)
				    << base << " " << stride << " " << probe;
			}
			EXPECT_EQ(map.Get(INT64_MIN), IdMap::kNotFound);
			EXPECT_EQ(map.Get(INT64_MAX), reference.count(INT64_MAX) ? reference[INT64_MAX] : IdMap::kNotFound);
		}
	}
}

TEST(IdMapTest, PutAfterDensifyIsSeen)
{
	IdMap map;
	for (uint32_t i = 0; i < 100; i++)
		map.Put(1000 + i, i);
	map.Densify();
	EXPECT_EQ(map.Get(1050), 50u);
	map.Put(5000000000, 7); /* far outside the array */
	map.Put(1050, 99);
	EXPECT_EQ(map.Get(5000000000), 7u);
	EXPECT_EQ(map.Get(1050), 99u);
	EXPECT_EQ(map.Get(1099), 99u);
	map.Densify(); /* now sparse: stays a hash map */
	EXPECT_EQ(map.Get(5000000000), 7u);
	EXPECT_EQ(map.Get(1001), 1u);
	EXPECT_EQ(map.Get(1100), IdMap::kNotFound);
}

TEST(IdMapTest, DensifyReleasesTheTableAndPutRebuildsIt)
{
	/* A country's org units: consecutive ids. The array alone must answer, the table freed. */
	IdMap map;
	for (uint32_t i = 0; i < 100000; i++)
		map.Put(7000000 + i * 2, i);
	const size_t table = map.MemoryBytes();
	EXPECT_GE(table, size_t{200000} * 16);
	map.Densify();
	EXPECT_LE(map.MemoryBytes(), size_t{200000} * 4 + 1024);
	EXPECT_EQ(map.Size(), 100000u);
	for (uint32_t i = 0; i < 100000; i += 997) {
		EXPECT_EQ(map.Get(7000000 + i * 2), i);
		EXPECT_EQ(map.Get(7000001 + i * 2), IdMap::kNotFound);
	}
	IdMap copy = map;   /* a copy of the released table answers and rebuilds alike */
	map.Put(1, 123456); /* the table comes back with every entry */
	EXPECT_EQ(map.Size(), 100001u);
	for (uint32_t i = 0; i < 100000; i += 991)
		EXPECT_EQ(map.Get(7000000 + i * 2), i);
	EXPECT_EQ(map.Get(1), 123456u);
	EXPECT_EQ(copy.Get(7000000 + 2 * 500), 500u);
	copy.Put(2, 5);
	EXPECT_EQ(copy.Get(7000000), 0u);
	EXPECT_EQ(copy.Get(2), 5u);
	EXPECT_EQ(copy.Get(1), IdMap::kNotFound);
}

TEST(IdMapTest, AssignBuildsTheArrayWithoutATable)
{
	/* Nearly consecutive ids: straight to the array, never larger than it; later equal ids win, as with Put. */
	std::vector<int64_t> ids;
	for (int64_t i = 0; i < 100000; i++)
		ids.push_back(9000000 + i * 3);
	ids.push_back(9000000); /* again, at the last index */
	IdMap map;
	map.Put(5, 5); /* replaced whole */
	map.Assign(ids.size(), [&ids](size_t i) { return ids[i]; });
	EXPECT_LE(map.MemoryBytes(), size_t{300000} * 4 + 1024);
	EXPECT_EQ(map.Size(), 100000u);
	EXPECT_EQ(map.Get(9000000), 100000u);
	for (uint32_t i = 1; i < 100000; i += 997) {
		EXPECT_EQ(map.Get(9000000 + i * 3), i);
		EXPECT_EQ(map.Get(9000001 + i * 3), IdMap::kNotFound);
	}
	EXPECT_EQ(map.Get(5), IdMap::kNotFound);
	map.Densify(); /* already an array: keeps it */
	EXPECT_EQ(map.Get(9000000 + 3 * 7), 7u);
	map.Put(1, 77); /* the table comes back with every entry */
	EXPECT_EQ(map.Get(1), 77u);
	EXPECT_EQ(map.Get(9000000 + 3 * 7), 7u);

	/* Sparse ids, an empty list and the table's empty-slot marker: the same answers as Put. */
	const std::vector<int64_t> sparse = {INT64_MIN, 0, -4, INT64_MAX, 5000000000};
	IdMap other;
	other.Assign(sparse.size(), [&sparse](size_t i) { return sparse[i]; });
	EXPECT_EQ(other.Size(), sparse.size());
	for (uint32_t i = 0; i < sparse.size(); i++)
		EXPECT_EQ(other.Get(sparse[i]), i) << sparse[i];
	EXPECT_EQ(other.Get(1), IdMap::kNotFound);
	other.Assign(0, [](size_t) { return INT64_C(0); });
	EXPECT_EQ(other.Size(), 0u);
	EXPECT_EQ(other.Get(0), IdMap::kNotFound);
}

} // namespace
} // namespace datavalue_export::core
