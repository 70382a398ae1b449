/*
 * test/unit/large_allocation_test.cpp
 *	  Unit tests of core/large_allocation: blocks from 2 MB up are 2 MB-aligned, whole and
 *	  writable, small ones are plain malloc; std::free releases both (ASan checks the pairing);
 *	  vectors with LargeAllocator and OutputBuffer grow across the threshold keeping their bytes.
 *
 * Whether the kernel really maps huge pages is its choice (the advice is a hint), so it is not
 * asserted here; bench/README.md "Huge pages" has the measurement.
 * SPDX-License-Identifier: PostgreSQL
 */
/* First, so the header is shown to compile on its own. */
#include "core/large_allocation.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/output_buffer.hpp"

namespace datavalue_export::core {
namespace {

TEST(LargeAllocationTest, LargeBlocksAreAlignedAndWritable)
{
	for (const size_t bytes : {kHugePageBytes, kHugePageBytes + 1, 3 * kHugePageBytes - 7, 8 * kHugePageBytes}) {
		char *p = static_cast<char *>(AllocateLarge(bytes));
		ASSERT_NE(p, nullptr) << bytes;
		EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePageBytes, 0u) << bytes;
		std::memset(p, 0xab, bytes);
		EXPECT_EQ(static_cast<unsigned char>(p[bytes - 1]), 0xabu);
		std::free(p);
	}
}

TEST(LargeAllocationTest, SmallBlocksAndImpossibleSizes)
{
	void *small = AllocateLarge(100);
	ASSERT_NE(small, nullptr);
	std::memset(small, 1, 100);
	std::free(small);
	EXPECT_EQ(AllocateLarge(SIZE_MAX - 5), nullptr);
}

TEST(LargeAllocationTest, VectorGrowsAcrossTheThreshold)
{
	std::vector<uint64_t, LargeAllocator<uint64_t>> values;
	for (uint64_t i = 0; i < 3 * kHugePageBytes / sizeof(uint64_t); i++)
		values.push_back(i * 7);
	EXPECT_EQ(reinterpret_cast<uintptr_t>(values.data()) % kHugePageBytes, 0u);
	for (uint64_t i = 0; i < values.size(); i++)
		ASSERT_EQ(values[i], i * 7);
}

TEST(LargeAllocationTest, OutputBufferKeepsItsBytesWhenItMovesToLargeMemory)
{
	OutputBuffer buffer;
	std::string expected;
	for (int i = 0; expected.size() < 3 * kHugePageBytes; i++) {
		const std::string piece = "row " + std::to_string(i) + ";";
		buffer.Append(piece);
		expected += piece;
	}
	EXPECT_EQ(buffer.View(), expected);
	EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.Data()) % kHugePageBytes, 0u);
}

} // namespace
} // namespace datavalue_export::core
