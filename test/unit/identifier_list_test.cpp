/*
 * test/unit/identifier_list_test.cpp
 *	  Unit tests of core/identifier_list: the packed metadata objects of one kind.
 *
 * Texts, uids and flags read back as added (null and empty texts apart, the uid shared with the
 * text under the UID scheme), details only once asked for, texts replaced (ADX), and the size
 * of a country's worth of org units.
 * SPDX-License-Identifier: PostgreSQL
 */
/* First, so the header is shown to compile on its own. */
#include "core/identifier_list.hpp"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace datavalue_export::core {
namespace {

TEST(IdentifierListTest, ReadsBackWhatWasAdded)
{
	IdentifierList list;
	EXPECT_TRUE(list.empty());
	list.Add(7, std::string_view("DiszpKrYNg8"), false, "DiszpKrYNg8");
	list.Add(8, std::nullopt, true, "HllvX50cXC0");
	list.Add(9, std::string_view(""), false, "");
	list.Add(-1, std::string_view("Ngelehun CHC"), false, "");
	ASSERT_EQ(list.size(), 4u);
	EXPECT_EQ(list[0].id, 7);
	EXPECT_EQ(list[0].text, std::optional<std::string_view>("DiszpKrYNg8"));
	EXPECT_EQ(list[0].uid, "DiszpKrYNg8");
	EXPECT_FALSE(list[0].is_default);
	EXPECT_FALSE(list[1].text.has_value());
	EXPECT_FALSE(list.HasText(1));
	EXPECT_TRUE(list[1].is_default);
	EXPECT_EQ(list[1].uid, "HllvX50cXC0");
	EXPECT_EQ(list[2].text, std::optional<std::string_view>(""));
	EXPECT_TRUE(list.HasText(2));
	EXPECT_EQ(list[3].id, -1);
	EXPECT_EQ(list.Id(3), -1);
	EXPECT_EQ(list[3].uid, "");
	ASSERT_NE(list[0].detail, nullptr);
	EXPECT_TRUE(list[0].detail->categories.empty());
	size_t n = 0;
	for (const IdentifierRef object : list)
		EXPECT_EQ(object.id, list.Id(n++));
	EXPECT_EQ(n, 4u);
}

TEST(IdentifierListTest, FromIdentifiersWithDetailAndCopies)
{
	Identifier combo{40, std::string("coc"), true, "uidOfCombo1", {}};
	combo.detail.categories.push_back(CategoryPair{std::string("c"), std::string("o"), "Sex"});
	IdentifierList list = {Identifier{1, std::nullopt, false, "a", {}}, combo};
	const IdentifierList copy = list;
	for (const IdentifierList *l : {static_cast<const IdentifierList *>(&list), &copy}) {
		ASSERT_EQ(l->size(), 2u);
		EXPECT_TRUE((*l)[0].detail->categories.empty());
		ASSERT_EQ((*l)[1].detail->categories.size(), 1u);
		EXPECT_EQ((*l)[1].detail->categories[0].category_name, "Sex");
		EXPECT_EQ((*l)[1].text, std::optional<std::string_view>("coc"));
		EXPECT_EQ((*l)[1].uid, "uidOfCombo1");
	}
	list.MutableDetail(0).non_numeric = true;
	list.Add(2, std::string_view("x"));
	EXPECT_TRUE(list[0].detail->non_numeric);
	EXPECT_FALSE(list[2].detail->non_numeric);
	EXPECT_FALSE(copy[0].detail->non_numeric);
}

TEST(IdentifierListTest, SetText)
{
	IdentifierList list;
	list.Add(1, std::string_view("code1"), false, "uidNumber01");
	list.Add(2, std::nullopt, false, "uidNumber02");
	/* To its own uid (ADX), to nothing, and to a text from elsewhere. */
	list.SetText(0, list[0].uid);
	list.SetText(1, list[1].uid);
	EXPECT_EQ(list[0].text, std::optional<std::string_view>("uidNumber01"));
	EXPECT_EQ(list[1].text, std::optional<std::string_view>("uidNumber02"));
	list.SetText(0, std::nullopt);
	EXPECT_FALSE(list[0].text.has_value());
	EXPECT_EQ(list[0].uid, "uidNumber01");
	const std::string other = "another text";
	list.SetText(0, std::string_view(other));
	EXPECT_EQ(list[0].text, std::optional<std::string_view>("another text"));
	EXPECT_EQ(list[1].text, std::optional<std::string_view>("uidNumber02"));
}

TEST(IdentifierListTest, PermuteReordersObjectsTheirTextsAndDetails)
{
	IdentifierList list;
	list.Add(1, std::string_view("one"), false, "uidOne");
	list.Add(2, std::nullopt, true, "uidTwo");
	list.Add(3, std::string_view("three"), false, "uidThree");
	list.MutableDetail(2).categories.push_back(CategoryPair{std::string("c"), std::string("o"), "Sex"});
	list.Permute({2, 0, 1});
	ASSERT_EQ(list.size(), 3u);
	EXPECT_EQ(list.Id(0), 3);
	EXPECT_EQ(list[0].text, std::optional<std::string_view>("three"));
	EXPECT_EQ(list[0].uid, "uidThree");
	ASSERT_EQ(list[0].detail->categories.size(), 1u);
	EXPECT_EQ(list[1].id, 1);
	EXPECT_EQ(list[1].text, std::optional<std::string_view>("one"));
	EXPECT_TRUE(list[1].detail->categories.empty());
	EXPECT_EQ(list[2].id, 2);
	EXPECT_FALSE(list[2].text.has_value());
	EXPECT_TRUE(list[2].is_default);
	EXPECT_EQ(list[2].uid, "uidTwo");
	EXPECT_THROW(list.Permute({0, 1}), std::invalid_argument);
}

TEST(IdentifierListTest, CountryOfOrgUnitsUnderTheUidScheme)
{
	/* 329k org units by UID: the uid is stored once, well under the 120 bytes an Identifier took. */
	IdentifierList list;
	char uid[12];
	for (int i = 0; i < 329007; i++) {
		snprintf(uid, sizeof uid, "Q%010d", i);
		list.Add(1000 + i, std::string_view(uid), false, uid);
	}
	EXPECT_LE(list.MemoryBytes(), size_t{329007} * 64); /* capacity included */
	EXPECT_EQ(list[123456].text, std::optional<std::string_view>("Q0000123456"));
	EXPECT_EQ(list[123456].uid, "Q0000123456");
	EXPECT_EQ(list.Id(329006), 1000 + 329006);
}

} // namespace
} // namespace datavalue_export::core
