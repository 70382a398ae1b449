/*
 * test/unit/period_test.cpp
 *	  Unit tests of core/period: DHIS2 period normalisation, ISO labels and their parser.
 *
 * Every worked example and DHIS2 test vector of dhis2-schema-and-periods.md §2 is pinned
 * here, followed by exhaustive loops (every day 1990-2040, every type) and a cross-check of the
 * week types against independent oracles, so that any broken rule shows up as a named failure.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/period.hpp"

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/calendar.hpp"

namespace datavalue_export::core {

/* gtest finds this by ADL, so failures print dates instead of raw day numbers; static keeps it out of
 * the other test files' way in the shared unit_tests binary. */
static void
PrintTo(const Period &period, std::ostream *os)
{
	const CivilDate s = CivilFromDays(period.start);
	const CivilDate e = CivilFromDays(period.end);
	*os << PeriodTypeName(period.type) << " " << s.year << "-" << s.month << "-" << s.day << ".." << e.year << "-"
	    << e.month << "-" << e.day;
}

namespace {

using PT = PeriodType;

/* "YYYY-MM-DD" to a day number; test tables are easier to check against the doc as text. */
int32_t
Day(const std::string &ymd)
{
	return DaysFromCivil(std::stoi(ymd.substr(0, 4)), std::stoi(ymd.substr(5, 2)), std::stoi(ymd.substr(8, 2)));
}

Period
MakePeriod(PeriodType type, const std::string &start, const std::string &end)
{
	return Period{type, Day(start), Day(end)};
}

constexpr PeriodType kAllTypes[] = {
    PT::kDaily,          PT::kWeekly,       PT::kWeeklyWednesday, PT::kWeeklyThursday,  PT::kWeeklyFriday,
    PT::kWeeklySaturday, PT::kWeeklySunday, PT::kBiWeekly,        PT::kMonthly,         PT::kBiMonthly,
    PT::kQuarterly,      PT::kQuarterlyNov, PT::kSixMonthly,      PT::kSixMonthlyApril, PT::kSixMonthlyNov,
    PT::kYearly,         PT::kFinancialFeb, PT::kFinancialApril,  PT::kFinancialJuly,   PT::kFinancialAug,
    PT::kFinancialSep,   PT::kFinancialOct, PT::kFinancialNov,
};
static_assert(sizeof(kAllTypes) / sizeof(kAllTypes[0]) == kPeriodTypeCount);

/* The six week types, their first weekday and label prefix (§2.3). */
struct WeekType {
	PeriodType type;
	int32_t weekday;
	const char *prefix;
};
constexpr WeekType kWeekTypes[] = {
    {PT::kWeekly, 1, "W"},          {PT::kWeeklyWednesday, 3, "WedW"}, {PT::kWeeklyThursday, 4, "ThuW"},
    {PT::kWeeklyFriday, 5, "FriW"}, {PT::kWeeklySaturday, 6, "SatW"},  {PT::kWeeklySunday, 7, "SunW"},
};

/*
 * One worked example: the date, the period DHIS2 normalises it to and its ISO string. Checks the
 * formatter, the normaliser, the parser, and that the normalised start formats the same way.
 */
struct Example {
	PeriodType type;
	const char *date;
	const char *start;
	const char *end;
	const char *iso;
};

void
CheckExample(const Example &ex)
{
	SCOPED_TRACE(std::string(PeriodTypeName(ex.type)) + " " + ex.date + " -> " + ex.iso);
	const Period expected = MakePeriod(ex.type, ex.start, ex.end);
	EXPECT_EQ(IsoPeriod(ex.type, Day(ex.date)), ex.iso);
	EXPECT_EQ(PeriodContaining(ex.type, Day(ex.date)), expected);
	EXPECT_EQ(IsoPeriod(ex.type, expected.start), ex.iso);
	EXPECT_EQ(ParseIsoPeriod(ex.iso), std::optional<Period>(expected));
}

/* A date and its ISO string only (the doc gives no period bounds). */
void
CheckIso(PeriodType type, const char *date, const char *iso)
{
	SCOPED_TRACE(std::string(PeriodTypeName(type)) + " " + date + " -> " + iso);
	EXPECT_EQ(IsoPeriod(type, Day(date)), iso);
	const std::optional<Period> parsed = ParseIsoPeriod(iso);
	ASSERT_TRUE(parsed.has_value());
	EXPECT_EQ(*parsed, PeriodContaining(type, Day(date)));
}

/* An ISO string and the period it names. */
void
CheckParse(const char *iso, PeriodType type, const char *start, const char *end)
{
	SCOPED_TRACE(iso);
	EXPECT_EQ(ParseIsoPeriod(iso), std::optional<Period>(MakePeriod(type, start, end)));
	EXPECT_EQ(IsoPeriod(type, Day(start)), iso);
}

/* ------------------------------------------------------------------------------------------ */
/* Names (§2.1) */

TEST(PeriodTypeNameTest, AllNamesRoundTrip)
{
	const char *const names[] = {
	    "Daily",         "Weekly",          "WeeklyWednesday", "WeeklyThursday", "WeeklyFriday", "WeeklySaturday",
	    "WeeklySunday",  "BiWeekly",        "Monthly",         "BiMonthly",      "Quarterly",    "QuarterlyNov",
	    "SixMonthly",    "SixMonthlyApril", "SixMonthlyNov",   "Yearly",         "FinancialFeb", "FinancialApril",
	    "FinancialJuly", "FinancialAug",    "FinancialSep",    "FinancialOct",   "FinancialNov",
	};
	static_assert(sizeof(names) / sizeof(names[0]) == kPeriodTypeCount);
	for (int i = 0; i < kPeriodTypeCount; ++i) {
		SCOPED_TRACE(names[i]);
		EXPECT_EQ(PeriodTypeFromName(names[i]), std::optional<PeriodType>(kAllTypes[i]));
		EXPECT_EQ(PeriodTypeName(kAllTypes[i]), names[i]);
	}
}

TEST(PeriodTypeNameTest, RejectsUnknownAndNearMisses)
{
	for (const char *name :
	     {"TwoYearly", "", "monthly", "MONTHLY", "Monthly ", " Monthly", "Month", "WeeklyMonday", "WeeklyTuesday",
	      "QuarterlyApril", "SixMonthlyJuly", "FinancialJan", "FinancialApr", "FinancialJul", "FinancialSeptember",
	      "FinancialNovember", "QuarterlyNovember", "SixMonthlyNovember", "BiWeeklyy"}) {
		EXPECT_EQ(PeriodTypeFromName(name), std::nullopt) << '"' << name << '"';
	}
	/* A string_view is not NUL-terminated: no reading past its end, no match on a prefix. */
	EXPECT_EQ(PeriodTypeFromName(std::string_view("MonthlyX", 7)), std::optional<PeriodType>(PT::kMonthly));
	EXPECT_EQ(PeriodTypeFromName(std::string_view("Monthly\0", 8)), std::nullopt);
	EXPECT_EQ(PeriodTypeName(static_cast<PeriodType>(kPeriodTypeCount)), "");
	EXPECT_EQ(PeriodTypeName(static_cast<PeriodType>(255)), "");
}

/* §2.1 "example" column: each one is a valid label of its own type and prints back unchanged. */
TEST(PeriodParseTest, TypeTableExamples)
{
	const std::pair<PeriodType, const char *> examples[] = {
	    {PT::kDaily, "20240101"},
	    {PT::kWeekly, "2024W1"},
	    {PT::kWeeklyWednesday, "2024WedW1"},
	    {PT::kWeeklyThursday, "2024ThuW1"},
	    {PT::kWeeklyFriday, "2024FriW1"},
	    {PT::kWeeklySaturday, "2024SatW1"},
	    {PT::kWeeklySunday, "2024SunW1"},
	    {PT::kBiWeekly, "2024BiW1"},
	    {PT::kMonthly, "202401"},
	    {PT::kBiMonthly, "202401B"},
	    {PT::kQuarterly, "2024Q1"},
	    {PT::kQuarterlyNov, "2024NovQ1"},
	    {PT::kSixMonthly, "2024S1"},
	    {PT::kSixMonthlyApril, "2024AprilS1"},
	    {PT::kSixMonthlyNov, "2024NovS1"},
	    {PT::kYearly, "2024"},
	    {PT::kFinancialFeb, "2024Feb"},
	    {PT::kFinancialApril, "2024April"},
	    {PT::kFinancialJuly, "2024July"},
	    {PT::kFinancialAug, "2024Aug"},
	    {PT::kFinancialSep, "2024Sep"},
	    {PT::kFinancialOct, "2024Oct"},
	    {PT::kFinancialNov, "2024Nov"},
	};
	static_assert(sizeof(examples) / sizeof(examples[0]) == kPeriodTypeCount);
	for (const auto &[type, iso] : examples) {
		SCOPED_TRACE(iso);
		const std::optional<Period> parsed = ParseIsoPeriod(iso);
		ASSERT_TRUE(parsed.has_value());
		EXPECT_EQ(parsed->type, type);
		EXPECT_EQ(IsoPeriod(type, parsed->start), iso);
		EXPECT_EQ(IsoPeriod(type, parsed->end), iso) << "period must not straddle two labels";
	}
}

/* ------------------------------------------------------------------------------------------ */
/* §2.3 worked examples */

TEST(PeriodExamplesTest, Daily)
{
	const Example examples[] = {
	    {PT::kDaily, "2024-01-01", "2024-01-01", "2024-01-01", "20240101"},
	    {PT::kDaily, "2024-02-29", "2024-02-29", "2024-02-29", "20240229"},
	    {PT::kDaily, "2023-12-31", "2023-12-31", "2023-12-31", "20231231"},
	    {PT::kDaily, "2010-01-01", "2010-01-01", "2010-01-01", "20100101"}, /* StringFormatTest */
	};
	for (const Example &ex : examples)
		CheckExample(ex);
}

TEST(PeriodExamplesTest, WeeklyFamilyTable)
{
	const Example examples[] = {
	    {PT::kWeekly, "2024-01-01", "2024-01-01", "2024-01-07", "2024W1"},
	    {PT::kWeekly, "2023-01-01", "2022-12-26", "2023-01-01", "2022W52"},
	    {PT::kWeekly, "2021-01-03", "2020-12-28", "2021-01-03", "2020W53"},
	    {PT::kWeekly, "2021-01-04", "2021-01-04", "2021-01-10", "2021W1"},
	    {PT::kWeekly, "2024-12-30", "2024-12-30", "2025-01-05", "2025W1"},
	    {PT::kWeekly, "2027-01-01", "2026-12-28", "2027-01-03", "2026W53"},
	    {PT::kWeeklyWednesday, "2024-01-01", "2023-12-27", "2024-01-02", "2023WedW52"},
	    {PT::kWeeklyWednesday, "2024-01-03", "2024-01-03", "2024-01-09", "2024WedW1"},
	    {PT::kWeeklyWednesday, "2022-12-28", "2022-12-28", "2023-01-03", "2022WedW53"},
	    {PT::kWeeklyWednesday, "2025-12-31", "2025-12-31", "2026-01-06", "2026WedW1"},
	    {PT::kWeeklyThursday, "2024-01-04", "2024-01-04", "2024-01-10", "2024ThuW1"},
	    {PT::kWeeklyThursday, "2023-12-28", "2023-12-28", "2024-01-03", "2023ThuW53"},
	    {PT::kWeeklyThursday, "2021-01-01", "2020-12-31", "2021-01-06", "2021ThuW1"},
	    {PT::kWeeklyFriday, "2023-12-29", "2023-12-29", "2024-01-04", "2024FriW1"},
	    {PT::kWeeklyFriday, "2024-01-05", "2024-01-05", "2024-01-11", "2024FriW2"},
	    {PT::kWeeklySaturday, "2023-12-30", "2023-12-30", "2024-01-05", "2024SatW1"},
	    {PT::kWeeklySaturday, "2022-01-01", "2022-01-01", "2022-01-07", "2022SatW1"},
	    {PT::kWeeklySunday, "2023-12-31", "2023-12-31", "2024-01-06", "2024SunW1"},
	    {PT::kWeeklySunday, "2024-01-07", "2024-01-07", "2024-01-13", "2024SunW2"},
	    {PT::kWeeklySunday, "2025-12-28", "2025-12-28", "2026-01-03", "2025SunW53"},
	    {PT::kWeeklySunday, "2026-01-04", "2026-01-04", "2026-01-10", "2026SunW1"},
	};
	for (const Example &ex : examples)
		CheckExample(ex);
}

TEST(PeriodExamplesTest, WeekNumbersAreNotZeroPadded)
{
	EXPECT_EQ(IsoPeriod(PT::kWeekly, Day("2024-03-04")), "2024W10");
	EXPECT_EQ(IsoPeriod(PT::kWeekly, Day("2024-02-26")), "2024W9");
	EXPECT_EQ(IsoPeriod(PT::kBiWeekly, Day("2024-03-04")), "2024BiW5");
	EXPECT_EQ(IsoPeriod(PT::kBiWeekly, Day("2024-05-13")), "2024BiW10");
	EXPECT_EQ(IsoPeriod(PT::kWeeklySunday, Day("2024-03-03")), "2024SunW10");
}

/* "First day of week 1 / number of weeks in the year" (§2.3), all years and all seven week types. */
TEST(PeriodExamplesTest, FirstWeekAndWeekCountTable)
{
	struct Cell {
		const char *first;
		int count;
	};
	struct Row {
		int year;
		Cell cells[7]; /* Weekly, Wed, Thu, Fri, Sat, Sun, BiWeekly */
	};
	const Row rows[] = {
	    {2019,
	     {{"2018-12-31", 52},
	      {"2019-01-02", 52},
	      {"2019-01-03", 52},
	      {"2019-01-04", 52},
	      {"2018-12-29", 53},
	      {"2018-12-30", 52},
	      {"2018-12-31", 26}}},
	    {2020,
	     {{"2019-12-30", 53},
	      {"2020-01-01", 52},
	      {"2020-01-02", 52},
	      {"2020-01-03", 52},
	      {"2020-01-04", 52},
	      {"2019-12-29", 53},
	      {"2019-12-30", 27}}},
	    {2021,
	     {{"2021-01-04", 52},
	      {"2020-12-30", 52},
	      {"2020-12-31", 52},
	      {"2021-01-01", 52},
	      {"2021-01-02", 52},
	      {"2021-01-03", 52},
	      {"2021-01-04", 26}}},
	    {2022,
	     {{"2022-01-03", 52},
	      {"2021-12-29", 53},
	      {"2021-12-30", 52},
	      {"2021-12-31", 52},
	      {"2022-01-01", 52},
	      {"2022-01-02", 52},
	      {"2022-01-03", 26}}},
	    {2023,
	     {{"2023-01-02", 52},
	      {"2023-01-04", 52},
	      {"2022-12-29", 53},
	      {"2022-12-30", 52},
	      {"2022-12-31", 52},
	      {"2023-01-01", 52},
	      {"2023-01-02", 26}}},
	    {2024,
	     {{"2024-01-01", 52},
	      {"2024-01-03", 52},
	      {"2024-01-04", 52},
	      {"2023-12-29", 53},
	      {"2023-12-30", 53},
	      {"2023-12-31", 52},
	      {"2024-01-01", 26}}},
	    {2025,
	     {{"2024-12-30", 52},
	      {"2025-01-01", 52},
	      {"2025-01-02", 52},
	      {"2025-01-03", 52},
	      {"2025-01-04", 52},
	      {"2024-12-29", 53},
	      {"2024-12-30", 26}}},
	    {2026,
	     {{"2025-12-29", 53},
	      {"2025-12-31", 52},
	      {"2026-01-01", 52},
	      {"2026-01-02", 52},
	      {"2026-01-03", 52},
	      {"2026-01-04", 52},
	      {"2025-12-29", 27}}},
	    {2027,
	     {{"2027-01-04", 52},
	      {"2026-12-30", 52},
	      {"2026-12-31", 52},
	      {"2027-01-01", 52},
	      {"2027-01-02", 52},
	      {"2027-01-03", 52},
	      {"2027-01-04", 26}}},
	};
	const PeriodType types[7] = {PT::kWeekly,         PT::kWeeklyWednesday, PT::kWeeklyThursday, PT::kWeeklyFriday,
	                             PT::kWeeklySaturday, PT::kWeeklySunday,    PT::kBiWeekly};
	const char *const prefixes[7] = {"W", "WedW", "ThuW", "FriW", "SatW", "SunW", "BiW"};
	for (const Row &row : rows) {
		for (int c = 0; c < 7; ++c) {
			const std::string year_prefix = std::to_string(row.year) + prefixes[c];
			const int length = types[c] == PT::kBiWeekly ? 14 : 7;
			const int32_t first = Day(row.cells[c].first);
			const int count = row.cells[c].count;
			SCOPED_TRACE(year_prefix);

			EXPECT_EQ(IsoPeriod(types[c], first), year_prefix + "1");
			/* The day before belongs to the previous year's last week. */
			const std::string before = IsoPeriod(types[c], first - 1);
			EXPECT_EQ(before.substr(0, year_prefix.size()), std::to_string(row.year - 1) + prefixes[c]);
			EXPECT_EQ(ParseIsoPeriod(year_prefix + "1"),
			          std::optional<Period>(Period{types[c], first, first + length - 1}));

			const int32_t last_start = first + length * (count - 1);
			EXPECT_EQ(ParseIsoPeriod(year_prefix + std::to_string(count)),
			          std::optional<Period>(Period{types[c], last_start, last_start + length - 1}));
			EXPECT_EQ(IsoPeriod(types[c], last_start), year_prefix + std::to_string(count));
			EXPECT_EQ(ParseIsoPeriod(year_prefix + std::to_string(count + 1)), std::nullopt);
			/* The day after the year's last week(s) starts the next year's week 1. */
			EXPECT_EQ(IsoPeriod(types[c], first + length * count - (types[c] == PT::kBiWeekly && count == 27 ? 7 : 0)),
			          std::to_string(row.year + 1) + prefixes[c] + "1");
		}
	}
}

TEST(PeriodExamplesTest, BiWeeklyTable)
{
	const Example examples[] = {
	    {PT::kBiWeekly, "2024-01-10", "2024-01-01", "2024-01-14", "2024BiW1"},
	    {PT::kBiWeekly, "2024-01-15", "2024-01-15", "2024-01-28", "2024BiW2"},
	    {PT::kBiWeekly, "2024-12-30", "2024-12-30", "2025-01-12", "2025BiW1"},
	    {PT::kBiWeekly, "2020-12-28", "2020-12-28", "2021-01-10", "2020BiW27"},
	    {PT::kBiWeekly, "2021-01-05", "2021-01-04", "2021-01-17", "2021BiW1"},
	    {PT::kBiWeekly, "2017-12-29", "2017-12-18", "2017-12-31", "2017BiW26"},
	};
	for (const Example &ex : examples)
		CheckExample(ex);
}

/* 53-week ISO years: week 53 opens BiW27, which runs into the next year and overlaps its BiW1. */
TEST(PeriodExamplesTest, BiWeeklyWeek53Overlap)
{
	for (const char *year : {"2009", "2015", "2020", "2026"}) {
		SCOPED_TRACE(year);
		const std::optional<Period> biw27 = ParseIsoPeriod(std::string(year) + "BiW27");
		const std::optional<Period> week53 = ParseIsoPeriod(std::string(year) + "W53");
		const std::optional<Period> next_biw1 = ParseIsoPeriod(std::to_string(std::stoi(year) + 1) + "BiW1");
		ASSERT_TRUE(biw27 && week53 && next_biw1);
		EXPECT_EQ(biw27->start, week53->start);
		EXPECT_EQ(biw27->end, week53->end + 7);
		EXPECT_EQ(next_biw1->start, week53->end + 1);
		EXPECT_EQ(next_biw1->start, biw27->start + 7); /* the overlap: one whole week */
		for (int32_t day = biw27->start; day <= biw27->end; ++day)
			EXPECT_EQ(PeriodContaining(PT::kBiWeekly, day), day <= week53->end ? *biw27 : *next_biw1);
	}
	CheckParse("2020BiW27", PT::kBiWeekly, "2020-12-28", "2021-01-10");
	CheckParse("2009BiW27", PT::kBiWeekly, "2009-12-28", "2010-01-10");
	CheckParse("2026BiW27", PT::kBiWeekly, "2026-12-28", "2027-01-10");
	CheckParse("2015BiW27", PT::kBiWeekly, "2015-12-28", "2016-01-10");
	for (const char *iso : {"2019BiW27", "2021BiW27", "2024BiW27", "2025BiW27", "2027BiW27", "2020BiW28"})
		EXPECT_EQ(ParseIsoPeriod(iso), std::nullopt) << iso;
}

TEST(PeriodExamplesTest, Monthly)
{
	CheckExample({PT::kMonthly, "2024-01-15", "2024-01-01", "2024-01-31", "202401"});
	CheckExample({PT::kMonthly, "2024-02-29", "2024-02-01", "2024-02-29", "202402"});
	CheckExample({PT::kMonthly, "2023-12-01", "2023-12-01", "2023-12-31", "202312"});
	CheckExample({PT::kMonthly, "2023-02-15", "2023-02-01", "2023-02-28", "202302"});
	CheckExample({PT::kMonthly, "2010-01-31", "2010-01-01", "2010-01-31", "201001"}); /* StringFormatTest */
}

TEST(PeriodExamplesTest, BiMonthly)
{
	CheckExample({PT::kBiMonthly, "2024-01-15", "2024-01-01", "2024-02-29", "202401B"});
	CheckExample({PT::kBiMonthly, "2024-05-01", "2024-05-01", "2024-06-30", "202403B"});
	CheckExample({PT::kBiMonthly, "2024-12-31", "2024-11-01", "2024-12-31", "202406B"});
	CheckExample({PT::kBiMonthly, "2010-03-01", "2010-03-01", "2010-04-30", "201002B"}); /* StringFormatTest */
}

TEST(PeriodExamplesTest, Quarterly)
{
	CheckExample({PT::kQuarterly, "2024-01-01", "2024-01-01", "2024-03-31", "2024Q1"});
	CheckExample({PT::kQuarterly, "2024-05-20", "2024-04-01", "2024-06-30", "2024Q2"});
	CheckExample({PT::kQuarterly, "2024-08-31", "2024-07-01", "2024-09-30", "2024Q3"});
	CheckExample({PT::kQuarterly, "2024-12-31", "2024-10-01", "2024-12-31", "2024Q4"});
	CheckExample({PT::kQuarterly, "2010-02-14", "2010-01-01", "2010-03-31", "2010Q1"}); /* StringFormatTest */
}

/* Q1 = Nov-Jan carries the year it ends in; Q2-Q4 their own year. */
TEST(PeriodExamplesTest, QuarterlyNov)
{
	CheckExample({PT::kQuarterlyNov, "2023-11-01", "2023-11-01", "2024-01-31", "2024NovQ1"});
	CheckExample({PT::kQuarterlyNov, "2024-01-31", "2023-11-01", "2024-01-31", "2024NovQ1"});
	CheckExample({PT::kQuarterlyNov, "2024-02-01", "2024-02-01", "2024-04-30", "2024NovQ2"});
	CheckExample({PT::kQuarterlyNov, "2024-06-15", "2024-05-01", "2024-07-31", "2024NovQ3"});
	CheckExample({PT::kQuarterlyNov, "2024-10-31", "2024-08-01", "2024-10-31", "2024NovQ4"});
	CheckExample({PT::kQuarterlyNov, "2024-12-05", "2024-11-01", "2025-01-31", "2025NovQ1"});
	/* QuarterlyNovemberPeriodTypeTest (§2.6). */
	CheckExample({PT::kQuarterlyNov, "2009-03-15", "2009-02-01", "2009-04-30", "2009NovQ2"});
	CheckExample({PT::kQuarterlyNov, "2009-08-15", "2009-08-01", "2009-10-31", "2009NovQ4"});
}

TEST(PeriodExamplesTest, SixMonthly)
{
	CheckExample({PT::kSixMonthly, "2024-03-01", "2024-01-01", "2024-06-30", "2024S1"});
	CheckExample({PT::kSixMonthly, "2024-07-01", "2024-07-01", "2024-12-31", "2024S2"});
	CheckExample({PT::kSixMonthly, "2024-06-30", "2024-01-01", "2024-06-30", "2024S1"});
	CheckExample({PT::kSixMonthly, "2010-01-01", "2010-01-01", "2010-06-30", "2010S1"}); /* StringFormatTest */
}

/* Both halves carry the year they start in, so Oct-Mar is the start year's S2. */
TEST(PeriodExamplesTest, SixMonthlyApril)
{
	CheckExample({PT::kSixMonthlyApril, "2024-02-01", "2023-10-01", "2024-03-31", "2023AprilS2"});
	CheckExample({PT::kSixMonthlyApril, "2024-04-01", "2024-04-01", "2024-09-30", "2024AprilS1"});
	CheckExample({PT::kSixMonthlyApril, "2024-10-01", "2024-10-01", "2025-03-31", "2024AprilS2"});
	CheckExample({PT::kSixMonthlyApril, "2025-03-31", "2024-10-01", "2025-03-31", "2024AprilS2"});
	/* SixMonthlyAprilPeriodTypeTest and StringFormatTest (§2.6). */
	CheckExample({PT::kSixMonthlyApril, "2009-08-15", "2009-04-01", "2009-09-30", "2009AprilS1"});
	CheckExample({PT::kSixMonthlyApril, "2009-12-15", "2009-10-01", "2010-03-31", "2009AprilS2"});
	CheckExample({PT::kSixMonthlyApril, "2015-02-01", "2014-10-01", "2015-03-31", "2014AprilS2"});
	CheckExample({PT::kSixMonthlyApril, "2010-04-01", "2010-04-01", "2010-09-30", "2010AprilS1"});
}

/* S1 = Nov-Apr carries the year it ends in; S2 = May-Oct its own year. */
TEST(PeriodExamplesTest, SixMonthlyNov)
{
	CheckExample({PT::kSixMonthlyNov, "2023-11-01", "2023-11-01", "2024-04-30", "2024NovS1"});
	CheckExample({PT::kSixMonthlyNov, "2024-04-30", "2023-11-01", "2024-04-30", "2024NovS1"});
	CheckExample({PT::kSixMonthlyNov, "2024-05-01", "2024-05-01", "2024-10-31", "2024NovS2"});
	CheckExample({PT::kSixMonthlyNov, "2024-11-15", "2024-11-01", "2025-04-30", "2025NovS1"});
	/* SixMonthlyNovemberPeriodTest (§2.6). */
	CheckExample({PT::kSixMonthlyNov, "2009-08-15", "2009-05-01", "2009-10-31", "2009NovS2"});
	CheckExample({PT::kSixMonthlyNov, "2009-12-15", "2009-11-01", "2010-04-30", "2010NovS1"});
	CheckParse("2015NovS1", PT::kSixMonthlyNov, "2014-11-01", "2015-04-30");
	CheckParse("2015NovS2", PT::kSixMonthlyNov, "2015-05-01", "2015-10-31");
}

TEST(PeriodExamplesTest, Yearly)
{
	CheckExample({PT::kYearly, "2024-06-30", "2024-01-01", "2024-12-31", "2024"});
	CheckExample({PT::kYearly, "2010-01-01", "2010-01-01", "2010-12-31", "2010"}); /* StringFormatTest */
	CheckExample({PT::kYearly, "2023-12-31", "2023-01-01", "2023-12-31", "2023"});
}

/* Start year + suffix, except FinancialNov: start year + 1, the year it ends in. */
TEST(PeriodExamplesTest, FinancialTable)
{
	const Example examples[] = {
	    {PT::kFinancialFeb, "2024-01-31", "2023-02-01", "2024-01-31", "2023Feb"},
	    {PT::kFinancialFeb, "2024-02-01", "2024-02-01", "2025-01-31", "2024Feb"},
	    {PT::kFinancialApril, "2024-03-31", "2023-04-01", "2024-03-31", "2023April"},
	    {PT::kFinancialApril, "2024-04-01", "2024-04-01", "2025-03-31", "2024April"},
	    {PT::kFinancialApril, "2025-03-01", "2024-04-01", "2025-03-31", "2024April"},
	    {PT::kFinancialJuly, "2024-06-30", "2023-07-01", "2024-06-30", "2023July"},
	    {PT::kFinancialJuly, "2024-07-01", "2024-07-01", "2025-06-30", "2024July"},
	    {PT::kFinancialAug, "2024-08-01", "2024-08-01", "2025-07-31", "2024Aug"},
	    {PT::kFinancialSep, "2024-08-31", "2023-09-01", "2024-08-31", "2023Sep"},
	    {PT::kFinancialSep, "2024-09-01", "2024-09-01", "2025-08-31", "2024Sep"},
	    {PT::kFinancialOct, "2024-10-01", "2024-10-01", "2025-09-30", "2024Oct"},
	    {PT::kFinancialOct, "2025-02-01", "2024-10-01", "2025-09-30", "2024Oct"},
	    {PT::kFinancialNov, "2023-11-01", "2023-11-01", "2024-10-31", "2024Nov"},
	    {PT::kFinancialNov, "2024-10-31", "2023-11-01", "2024-10-31", "2024Nov"},
	    {PT::kFinancialNov, "2024-12-25", "2024-11-01", "2025-10-31", "2025Nov"},
	    /* FinancialNovemberPeriodTypeTest (§2.6). */
	    {PT::kFinancialNov, "2009-02-15", "2008-11-01", "2009-10-31", "2009Nov"},
	    {PT::kFinancialNov, "2009-11-12", "2009-11-01", "2010-10-31", "2010Nov"},
	    /* StringFormatTest (§2.6). */
	    {PT::kFinancialApril, "2010-04-01", "2010-04-01", "2011-03-31", "2010April"},
	    {PT::kFinancialJuly, "2010-07-01", "2010-07-01", "2011-06-30", "2010July"},
	    {PT::kFinancialOct, "2010-10-01", "2010-10-01", "2011-09-30", "2010Oct"},
	};
	for (const Example &ex : examples)
		CheckExample(ex);
}

/* §2.2: labels come from the normalised period, never from an unaligned stored start. */
TEST(PeriodExamplesTest, UnalignedStartsAreNormalisedFirst)
{
	EXPECT_EQ(IsoPeriod(PT::kQuarterly, Day("2024-02-01")), "2024Q1");
	EXPECT_EQ(IsoPeriod(PT::kBiWeekly, Day("2024-01-08")), "2024BiW1"); /* Monday of an even ISO week */
	EXPECT_EQ(IsoPeriod(PT::kMonthly, Day("2024-01-15")), "202401");
	EXPECT_EQ(IsoPeriod(PT::kWeekly, Day("2024-01-03")), "2024W1");
	EXPECT_EQ(IsoPeriod(PT::kFinancialApril, Day("2024-01-01")), "2023April");
	EXPECT_EQ(IsoPeriod(PT::kYearly, Day("2024-12-31")), "2024");
}

TEST(PeriodExamplesTest, AppendIsoPeriodAppends)
{
	std::string out = "pe=";
	AppendIsoPeriod(PT::kWeekly, Day("2024-01-01"), out);
	out += ',';
	AppendIsoPeriod(PT::kFinancialNov, Day("2024-01-01"), out);
	EXPECT_EQ(out, "pe=2024W1,2024Nov");
}

/* ------------------------------------------------------------------------------------------ */
/* §2.6 DHIS2 test vectors */

TEST(PeriodDhis2VectorsTest, WeeklyPeriodTypeTest)
{
	CheckIso(PT::kWeekly, "2011-01-03", "2011W1");
	CheckIso(PT::kWeekly, "2012-12-31", "2013W1");
	CheckIso(PT::kWeekly, "2012-12-30", "2012W52");
	CheckIso(PT::kWeekly, "2009-12-29", "2009W53");
	CheckIso(PT::kWeekly, "2010-01-04", "2010W1");
	CheckParse("2009W1", PT::kWeekly, "2008-12-29", "2009-01-04");
	CheckParse("2011W11", PT::kWeekly, "2011-03-14", "2011-03-20");

	for (const char *d : {"2017-05-03", "2017-05-04"})
		CheckIso(PT::kWeeklyWednesday, d, "2017WedW18");
	for (const char *d : {"2017-05-01", "2017-05-02"})
		CheckIso(PT::kWeeklyWednesday, d, "2017WedW17");
	for (const char *d : {"2017-05-04", "2017-05-05", "2017-05-06", "2017-05-07"})
		CheckIso(PT::kWeeklyThursday, d, "2017ThuW19");
	for (const char *d : {"2017-05-01", "2017-05-02", "2017-05-03"})
		CheckIso(PT::kWeeklyThursday, d, "2017ThuW18");
	for (const char *d : {"2017-05-06", "2017-05-07"})
		CheckIso(PT::kWeeklySaturday, d, "2017SatW19");
	for (const char *d : {"2017-05-01", "2017-05-02", "2017-05-03", "2017-05-04", "2017-05-05"})
		CheckIso(PT::kWeeklySaturday, d, "2017SatW18");
	CheckIso(PT::kWeeklySunday, "2017-05-07", "2017SunW19");
	for (const char *d : {"2017-05-01", "2017-05-02", "2017-05-03", "2017-05-04", "2017-05-05", "2017-05-06"})
		CheckIso(PT::kWeeklySunday, d, "2017SunW18");
	CheckIso(PT::kWeeklySunday, "2017-01-08", "2017SunW2");
	CheckIso(PT::kWeeklySunday, "2017-01-01", "2017SunW1");

	CheckParse("2025SunW52", PT::kWeeklySunday, "2025-12-21", "2025-12-27");
	CheckParse("2025SunW53", PT::kWeeklySunday, "2025-12-28", "2026-01-03");
	CheckParse("2026SunW1", PT::kWeeklySunday, "2026-01-04", "2026-01-10");
	EXPECT_EQ(ParseIsoPeriod("2014W53"), std::nullopt);
}

TEST(PeriodDhis2VectorsTest, BiWeeklyPeriodTypeTest)
{
	CheckExample({PT::kBiWeekly, "2018-01-08", "2018-01-01", "2018-01-14", "2018BiW1"});
	CheckExample({PT::kBiWeekly, "2017-12-29", "2017-12-18", "2017-12-31", "2017BiW26"});
	/* The labels of the rolling lists; BiW n is ISO weeks 2n-1 and 2n. */
	CheckParse("2017BiW2", PT::kBiWeekly, "2017-01-16", "2017-01-29");
	CheckParse("2018BiW1", PT::kBiWeekly, "2018-01-01", "2018-01-14");
	CheckParse("2018BiW2", PT::kBiWeekly, "2018-01-15", "2018-01-28");
	CheckParse("2019BiW1", PT::kBiWeekly, "2018-12-31", "2019-01-13");
	CheckParse("2009BiW2", PT::kBiWeekly, "2009-01-12", "2009-01-25");
	CheckParse("2009BiW27", PT::kBiWeekly, "2009-12-28", "2010-01-10");
	CheckParse("2019BiW2", PT::kBiWeekly, "2019-01-14", "2019-01-27");
	CheckParse("2020BiW1", PT::kBiWeekly, "2019-12-30", "2020-01-12");
}

TEST(PeriodDhis2VectorsTest, StringFormatTest)
{
	CheckParse("20100101", PT::kDaily, "2010-01-01", "2010-01-01");
	CheckParse("201001", PT::kMonthly, "2010-01-01", "2010-01-31");
	CheckParse("2010", PT::kYearly, "2010-01-01", "2010-12-31");
	CheckParse("2010Q1", PT::kQuarterly, "2010-01-01", "2010-03-31");
	CheckParse("2010S1", PT::kSixMonthly, "2010-01-01", "2010-06-30");
	CheckParse("2010AprilS1", PT::kSixMonthlyApril, "2010-04-01", "2010-09-30");
	CheckParse("201002B", PT::kBiMonthly, "2010-03-01", "2010-04-30");
	CheckParse("2010April", PT::kFinancialApril, "2010-04-01", "2011-03-31");
	CheckParse("2010July", PT::kFinancialJuly, "2010-07-01", "2011-06-30");
	CheckParse("2010Oct", PT::kFinancialOct, "2010-10-01", "2011-09-30");
}

/* ------------------------------------------------------------------------------------------ */
/* §2.5 parsing */

/* One valid string of every shape that §2.5 lists, by length. */
TEST(PeriodParseTest, EveryListedShape)
{
	CheckParse("2024", PT::kYearly, "2024-01-01", "2024-12-31");
	/* length 6 */
	CheckParse("202401", PT::kMonthly, "2024-01-01", "2024-01-31");
	CheckParse("2024W1", PT::kWeekly, "2024-01-01", "2024-01-07");
	CheckParse("2024Q1", PT::kQuarterly, "2024-01-01", "2024-03-31");
	CheckParse("2024S1", PT::kSixMonthly, "2024-01-01", "2024-06-30");
	/* length 7 */
	CheckParse("2024Feb", PT::kFinancialFeb, "2024-02-01", "2025-01-31");
	CheckParse("2024Aug", PT::kFinancialAug, "2024-08-01", "2025-07-31");
	CheckParse("2024Sep", PT::kFinancialSep, "2024-09-01", "2025-08-31");
	CheckParse("2024Oct", PT::kFinancialOct, "2024-10-01", "2025-09-30");
	CheckParse("2024Nov", PT::kFinancialNov, "2023-11-01", "2024-10-31");
	CheckParse("202401B", PT::kBiMonthly, "2024-01-01", "2024-02-29");
	CheckParse("202406B", PT::kBiMonthly, "2024-11-01", "2024-12-31");
	CheckParse("2024W10", PT::kWeekly, "2024-03-04", "2024-03-10");
	/* length 8 */
	CheckParse("2024July", PT::kFinancialJuly, "2024-07-01", "2025-06-30");
	CheckParse("2024BiW1", PT::kBiWeekly, "2024-01-01", "2024-01-14");
	CheckParse("20240101", PT::kDaily, "2024-01-01", "2024-01-01");
	/* length 9 */
	CheckParse("2024April", PT::kFinancialApril, "2024-04-01", "2025-03-31");
	CheckParse("2024NovQ1", PT::kQuarterlyNov, "2023-11-01", "2024-01-31");
	CheckParse("2024BiW10", PT::kBiWeekly, "2024-05-06", "2024-05-19");
	CheckParse("2024WedW1", PT::kWeeklyWednesday, "2024-01-03", "2024-01-09");
	CheckParse("2024ThuW1", PT::kWeeklyThursday, "2024-01-04", "2024-01-10");
	CheckParse("2024FriW1", PT::kWeeklyFriday, "2023-12-29", "2024-01-04");
	CheckParse("2024SatW1", PT::kWeeklySaturday, "2023-12-30", "2024-01-05");
	CheckParse("2024SunW1", PT::kWeeklySunday, "2023-12-31", "2024-01-06");
	CheckParse("2024NovS1", PT::kSixMonthlyNov, "2023-11-01", "2024-04-30");
	/* length 10 */
	CheckParse("2024WedW10", PT::kWeeklyWednesday, "2024-03-06", "2024-03-12");
	CheckParse("2024ThuW52", PT::kWeeklyThursday, "2024-12-26", "2025-01-01");
	CheckParse("2024FriW53", PT::kWeeklyFriday, "2024-12-27", "2025-01-02");
	CheckParse("2024SatW53", PT::kWeeklySaturday, "2024-12-28", "2025-01-03");
	CheckParse("2024SunW52", PT::kWeeklySunday, "2024-12-22", "2024-12-28");
	/* length 11 */
	CheckParse("2024AprilS1", PT::kSixMonthlyApril, "2024-04-01", "2024-09-30");
	CheckParse("2024AprilS2", PT::kSixMonthlyApril, "2024-10-01", "2025-03-31");
}

/* The dashed aliases and leading-zero week numbers are accepted, and print back canonical. */
TEST(PeriodParseTest, AliasesNormalise)
{
	const std::pair<const char *, const char *> cases[] = {
	    {"2022-01", "202201"},  {"2024-12", "202412"},        {"2022-01-05", "20220105"}, {"2024-02-29", "20240229"},
	    {"2024W05", "2024W5"},  {"2024W01", "2024W1"},        {"2024BiW01", "2024BiW1"},  {"2024SunW09", "2024SunW9"},
	    {"2020W53", "2020W53"}, {"2025SunW53", "2025SunW53"},
	};
	for (const auto &[text, canonical] : cases) {
		SCOPED_TRACE(text);
		const std::optional<Period> parsed = ParseIsoPeriod(text);
		ASSERT_TRUE(parsed.has_value());
		EXPECT_EQ(IsoPeriod(parsed->type, parsed->start), canonical);
		EXPECT_EQ(ParseIsoPeriod(canonical), parsed);
	}
	EXPECT_EQ(ParseIsoPeriod("2022-01")->type, PT::kMonthly);
	EXPECT_EQ(ParseIsoPeriod("2022-01-05")->type, PT::kDaily);
}

TEST(PeriodParseTest, Rejections)
{
	const char *const bad[] = {
	    /* week numbers the year does not have */
	    "2014W53",
	    "2024W53",
	    "2024SunW53",
	    "2025W53",
	    "2023WedW53",
	    "2024W54",
	    "2024W0",
	    "2024W00",
	    "2021BiW27",
	    "2009BiW28",
	    "2024BiW0",
	    "2024BiW00",
	    "2024W99",
	    /* out-of-range months, days, quarters, halves */
	    "202413",
	    "202400",
	    "2024-13",
	    "2024-00",
	    "20240132",
	    "20240230",
	    "20230229",
	    "2023-02-29",
	    "2024-04-31",
	    "20241301",
	    "20240001",
	    "20240100",
	    "2024Q0",
	    "2024Q5",
	    "2024S0",
	    "2024S3",
	    "2024NovQ5",
	    "2024NovQ0",
	    "2024NovS3",
	    "2024AprilS0",
	    "2024AprilS3",
	    "202400B",
	    "202407B",
	    "202412B",
	    /* wrong shape */
	    "",
	    "2",
	    "202",
	    "abcd",
	    "2024x",
	    "24W1",
	    "2024W",
	    "2024BiW",
	    "2024WedW",
	    "2024Q",
	    "2024S",
	    "2024NovQ",
	    "2024AprilS",
	    "2024w1",
	    "2024q1",
	    "2024W001",
	    "2024BiW001",
	    "2024Q01",
	    "2024S01",
	    "2024NovQ01",
	    "2024-1",
	    "2024-01-1",
	    "2024-1-01",
	    "2024-001",
	    "2024/01",
	    "2024.01",
	    "202401-01",
	    "2024-0101",
	    "2024-01-",
	    "2024-",
	    "2024--01",
	    "+2024",
	    "-2024",
	    "-202401",
	    " 2024",
	    "2024 ",
	    "2024W1 ",
	    "2024-W01",
	    "2024MonW1",
	    "2024TueW1",
	    "2024WeW1",
	    "2024Jan",
	    "2024Apr",
	    "2024Jul",
	    "2024September",
	    "2024October",
	    "2024November",
	    "2024nov",
	    "2024NOV",
	    "2024April1",
	    "2024Nov1",
	    "2024Feb1",
	    "2024AprilQ1",
	    "2024NovW1",
	    "2024B",
	    "20241B",
	    "2024001B",
	    "2024012",
	    "2024010",
	    "202401011",
	    "2024010B",
	    "TwoYearly",
	    "2024TwoYearly",
	    "２０２４",
	    "2024Ｗ1",
	};
	for (const char *text : bad)
		EXPECT_EQ(ParseIsoPeriod(text), std::nullopt) << '"' << text << '"';

	/* Lengths are taken from the view, never from a NUL terminator. */
	EXPECT_EQ(ParseIsoPeriod(std::string_view("2024W1", 5)), std::nullopt);
	EXPECT_EQ(ParseIsoPeriod(std::string_view("2024\0", 5)), std::nullopt);
	EXPECT_EQ(ParseIsoPeriod(std::string_view("2024W1\0", 7)), std::nullopt);
	EXPECT_EQ(ParseIsoPeriod(std::string_view("202401XX", 6)),
	          std::optional<Period>(MakePeriod(PT::kMonthly, "2024-01-01", "2024-01-31")));
	EXPECT_EQ(ParseIsoPeriod(std::string_view()), std::nullopt);
}

/* BiW n starts on the Monday of ISO week 2n-1 and exists only while 2n-1 <= the year's weeks. */
TEST(PeriodParseTest, BiWeekResolvesToOddIsoWeek)
{
	for (int year = 1990; year <= 2040; ++year) {
		const std::string y = std::to_string(year);
		const bool has_w53 = ParseIsoPeriod(y + "W53").has_value();
		for (int n = 1; n <= 28; ++n) {
			SCOPED_TRACE(y + "BiW" + std::to_string(n));
			const std::optional<Period> biweek = ParseIsoPeriod(y + "BiW" + std::to_string(n));
			const std::optional<Period> week = ParseIsoPeriod(y + "W" + std::to_string(2 * n - 1));
			const bool exists = n <= 26 || (n == 27 && has_w53);
			ASSERT_EQ(biweek.has_value(), exists);
			ASSERT_EQ(week.has_value(), exists);
			if (exists) {
				EXPECT_EQ(biweek->start, week->start);
				EXPECT_EQ(biweek->end, week->start + 13);
			}
		}
	}
}

/* Four-digit years only; the edges of that range still round-trip. */
TEST(PeriodParseTest, YearEdges)
{
	CheckParse("0000", PT::kYearly, "0000-01-01", "0000-12-31");
	CheckParse("0001", PT::kYearly, "0001-01-01", "0001-12-31");
	CheckParse("9999", PT::kYearly, "9999-01-01", "9999-12-31");
	CheckParse("99991231", PT::kDaily, "9999-12-31", "9999-12-31");
	CheckParse("00000229", PT::kDaily, "0000-02-29", "0000-02-29"); /* year 0 is a leap year */
	CheckParse("0001Nov", PT::kFinancialNov, "0000-11-01", "0001-10-31");
	EXPECT_EQ(ParseIsoPeriod("9999W52"),
	          std::optional<Period>(Period{PT::kWeekly, Day("9999-12-27"), Day("9999-12-27") + 6}));
	EXPECT_EQ(IsoPeriod(PT::kWeekly, Day("9999-12-31")), "9999W52");
	EXPECT_EQ(IsoPeriod(PT::kYearly, Day("0099-05-01")), "0099");
	/* Labels of year 10000 print, but cannot be parsed back. */
	EXPECT_EQ(IsoPeriod(PT::kWeeklyThursday, Day("9999-12-30")), "10000ThuW1");
	EXPECT_EQ(IsoPeriod(PT::kFinancialNov, Day("9999-12-01")), "10000Nov");
	EXPECT_EQ(ParseIsoPeriod("10000"), std::nullopt);
	EXPECT_EQ(ParseIsoPeriod("10000Nov"), std::nullopt);
	EXPECT_EQ(ParseIsoPeriod("00010229"), std::nullopt);
}

/* The whole PostgreSQL date range: no overflow (UBSan) and the day is always inside its period. */
TEST(PeriodRangeTest, FiniteDateExtremes)
{
	const CivilDate min = CivilFromDays(kMinPeriodDay);
	const CivilDate max = CivilFromDays(kMaxPeriodDay);
	EXPECT_EQ(std::vector<int32_t>({min.year, min.month, min.day}), std::vector<int32_t>({-4713, 11, 24}));
	EXPECT_EQ(std::vector<int32_t>({max.year, max.month, max.day}), std::vector<int32_t>({5874897, 12, 31}));
	for (const PeriodType type : kAllTypes) {
		for (const int32_t day : {kMinPeriodDay, kMinPeriodDay + 400, -1, 0, 1, kMaxPeriodDay - 400, kMaxPeriodDay}) {
			SCOPED_TRACE(std::string(PeriodTypeName(type)) + " " + std::to_string(day));
			const Period p = PeriodContaining(type, day);
			EXPECT_LE(p.start, day);
			EXPECT_GE(p.end, day);
			EXPECT_FALSE(IsoPeriod(type, day).empty());
		}
	}
	EXPECT_EQ(IsoPeriod(PT::kDaily, kMinPeriodDay), "-47131124");
	EXPECT_EQ(IsoPeriod(PT::kDaily, kMaxPeriodDay), "58748971231");
	EXPECT_EQ(IsoPeriod(PT::kMonthly, kMinPeriodDay), "-471311");
	EXPECT_EQ(IsoPeriod(PT::kFinancialNov, kMaxPeriodDay), "5874898Nov");
	EXPECT_EQ(IsoPeriod(PT::kYearly, Day("0000-01-01") - 1), "-0001");
}

/* ------------------------------------------------------------------------------------------ */
/* Exhaustive checks */

/* Which year a label carries (§2.4). */
enum class YearRule { kStartYear, kEndYear, kFourthDayYear };

/* The label shape and alignment of each type, restated from §2.1/§2.3 independently of the table in
 * period.cpp. months == 0 for day-based types. */
struct Shape {
	PeriodType type;
	const char *infix;
	const char *suffix;
	int months;     /* period length in months; 0 if day-based */
	int anchor;     /* a month a period starts in */
	int days;       /* period length in days if day-based */
	int max_number; /* largest number in a label year; 0 for Daily */
	YearRule year_rule;
};

constexpr Shape kShapes[] = {
    {PT::kDaily, "", "", 0, 0, 1, 0, YearRule::kStartYear},
    {PT::kWeekly, "W", "", 0, 0, 7, 53, YearRule::kFourthDayYear},
    {PT::kWeeklyWednesday, "WedW", "", 0, 0, 7, 53, YearRule::kFourthDayYear},
    {PT::kWeeklyThursday, "ThuW", "", 0, 0, 7, 53, YearRule::kFourthDayYear},
    {PT::kWeeklyFriday, "FriW", "", 0, 0, 7, 53, YearRule::kFourthDayYear},
    {PT::kWeeklySaturday, "SatW", "", 0, 0, 7, 53, YearRule::kFourthDayYear},
    {PT::kWeeklySunday, "SunW", "", 0, 0, 7, 53, YearRule::kFourthDayYear},
    {PT::kBiWeekly, "BiW", "", 0, 0, 14, 27, YearRule::kFourthDayYear},
    {PT::kMonthly, "", "", 1, 1, 0, 12, YearRule::kStartYear},
    {PT::kBiMonthly, "", "B", 2, 1, 0, 6, YearRule::kStartYear},
    {PT::kQuarterly, "Q", "", 3, 1, 0, 4, YearRule::kStartYear},
    {PT::kQuarterlyNov, "NovQ", "", 3, 11, 0, 4, YearRule::kEndYear},
    {PT::kSixMonthly, "S", "", 6, 1, 0, 2, YearRule::kStartYear},
    {PT::kSixMonthlyApril, "AprilS", "", 6, 4, 0, 2, YearRule::kStartYear},
    {PT::kSixMonthlyNov, "NovS", "", 6, 11, 0, 2, YearRule::kEndYear},
    {PT::kYearly, "", "", 12, 1, 0, 1, YearRule::kStartYear},
    {PT::kFinancialFeb, "", "Feb", 12, 2, 0, 1, YearRule::kStartYear},
    {PT::kFinancialApril, "", "April", 12, 4, 0, 1, YearRule::kStartYear},
    {PT::kFinancialJuly, "", "July", 12, 7, 0, 1, YearRule::kStartYear},
    {PT::kFinancialAug, "", "Aug", 12, 8, 0, 1, YearRule::kStartYear},
    {PT::kFinancialSep, "", "Sep", 12, 9, 0, 1, YearRule::kStartYear},
    {PT::kFinancialOct, "", "Oct", 12, 10, 0, 1, YearRule::kStartYear},
    {PT::kFinancialNov, "", "Nov", 12, 11, 0, 1, YearRule::kEndYear},
};
static_assert(sizeof(kShapes) / sizeof(kShapes[0]) == kPeriodTypeCount);

int32_t
DayOfYear(int32_t day)
{
	return day - DaysFromCivil(CivilFromDays(day).year, 1, 1) + 1;
}

std::string
Pad(int value, size_t width)
{
	std::string s = std::to_string(value);
	return std::string(width > s.size() ? width - s.size() : 0, '0') + s;
}

/*
 * Every day 1990-2040, every type: the day lies in its period; the label parses back to that period
 * and is the label of its start; periods tile the days with no gap and no overlap (except BiW27,
 * which overlaps the next BiW1 by one week); labels are unique and count up by one within a label
 * year and restart at 1; the label year follows §2.4; month-based periods are aligned to their
 * anchor month; a week year has 53 weeks iff its last 4th day is day 365 or 366.
 */
TEST(PeriodExhaustiveTest, EveryDayEveryType1990To2040)
{
	const int32_t first_day = Day("1990-01-01");
	const int32_t last_day = Day("2040-12-31");
	for (const Shape &shape : kShapes) {
		const PeriodType type = shape.type;
		SCOPED_TRACE(PeriodTypeName(type));
		const size_t infix_len = std::string(shape.infix).size();
		const size_t suffix_len = std::string(shape.suffix).size();
		std::set<std::string> seen;
		std::optional<Period> prev;
		int prev_year = 0;
		int prev_number = 0;
		int periods = 0;
		for (int32_t day = first_day; day <= last_day && !HasFailure(); ++day) {
			SCOPED_TRACE(day);
			const Period p = PeriodContaining(type, day);
			const std::string iso = IsoPeriod(type, day);
			ASSERT_EQ(p.type, type);
			ASSERT_LE(p.start, day);
			ASSERT_GE(p.end, day);
			ASSERT_EQ(ParseIsoPeriod(iso), std::optional<Period>(p)) << iso;
			ASSERT_EQ(IsoPeriod(type, p.start), iso);

			const CivilDate start = CivilFromDays(p.start);
			const CivilDate after = CivilFromDays(p.end + 1);
			if (shape.months == 0) {
				ASSERT_EQ(p.end - p.start + 1, shape.days);
			} else {
				ASSERT_EQ(start.day, 1);
				ASSERT_EQ(after.day, 1);
				ASSERT_EQ((after.year - start.year) * 12 + after.month - start.month, shape.months);
				ASSERT_EQ(((start.month - shape.anchor) % shape.months + shape.months) % shape.months, 0);
			}
			if (type == PT::kBiWeekly || type == PT::kWeekly) {
				ASSERT_EQ(IsoWeekday(p.start), 1);
			}

			if (prev && p == *prev)
				continue;

			/* A new period starts here (the first one may have started before the window). */
			if (prev) {
				ASSERT_EQ(p.start, day);
			}
			ASSERT_TRUE(seen.insert(iso).second) << "duplicate label " << iso;
			++periods;

			/* Split the label into year and number by the expected shape. */
			ASSERT_GE(iso.size(), 4 + infix_len + suffix_len) << iso;
			ASSERT_EQ(iso.substr(4, infix_len), shape.infix) << iso;
			ASSERT_EQ(iso.substr(iso.size() - suffix_len), shape.suffix) << iso;
			const std::string number_text = iso.substr(4 + infix_len, iso.size() - 4 - infix_len - suffix_len);
			const int year = std::stoi(iso.substr(0, 4));
			const int number = number_text.empty() ? 1 : std::stoi(number_text);
			if (type == PT::kDaily) {
				ASSERT_EQ(iso, std::to_string(start.year) + Pad(start.month, 2) + Pad(start.day, 2));
			} else if (shape.months > 0) {
				ASSERT_EQ(number_text.size(), shape.months == 1 || shape.months == 2 ? 2u
				                              : shape.months == 12                   ? 0u
				                                                                     : 1u)
				    << iso;
				ASSERT_EQ(number, ((start.month - shape.anchor + 12) % 12) / shape.months + 1) << iso;
			} else {
				ASSERT_NE(number_text[0], '0') << "week numbers are not padded: " << iso;
			}

			switch (shape.year_rule) {
			case YearRule::kStartYear:
				ASSERT_EQ(year, start.year) << iso;
				break;
			case YearRule::kEndYear:
				ASSERT_EQ(year, CivilFromDays(p.end).year) << iso;
				break;
			case YearRule::kFourthDayYear:
				ASSERT_EQ(year, CivilFromDays(p.start + 3).year) << iso;
				break;
			}

			if (prev) {
				const bool prev_is_biw27 = type == PT::kBiWeekly && prev_number == 27;
				/* Tiling: the previous period ended yesterday (BiW27 ends one week later). */
				ASSERT_EQ(prev->end, prev_is_biw27 ? day + 6 : day - 1);
				if (type != PT::kDaily) {
					if (year == prev_year) {
						ASSERT_EQ(number, prev_number + 1) << iso;
					} else {
						ASSERT_EQ(year, prev_year + 1) << iso;
						ASSERT_EQ(number, 1) << iso;
						if (shape.days == 7) {
							ASSERT_TRUE(prev_number == 52 || prev_number == 53);
							/* 53 weeks iff the last week's 4th day is day 365/366 of its year. */
							ASSERT_EQ(prev_number == 53, DayOfYear(prev->start + 3) >= 365);
						} else if (type == PT::kBiWeekly) {
							ASSERT_TRUE(prev_number == 26 || prev_number == 27);
							/* BiW27 iff the ISO year has a week 53, which it starts. */
							ASSERT_EQ(prev_number == 27,
							          IsoPeriod(PT::kWeekly, prev->start) == std::to_string(prev_year) + "W53");
						} else {
							ASSERT_EQ(prev_number, shape.max_number);
						}
					}
				}
			}
			prev = p;
			prev_year = year;
			prev_number = number;
		}
		if (shape.months > 0) {
			EXPECT_EQ(periods, 51 * 12 / shape.months + (shape.anchor == 1 ? 0 : 1));
		}
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Week types against independent oracles, 1900-01-01 .. 2200-12-31 (as in §2.3) */

/* ISO 8601 week date by the ordinal-date method: week = (doy - dow + 10) / 7, then wrap. */
struct YearWeek {
	int32_t year;
	int32_t week;
};

int32_t
IsoWeeksInYear(int32_t year)
{
	auto p = [](int32_t y) { return (y + y / 4 - y / 100 + y / 400) % 7; };
	return p(year) == 4 || p(year - 1) == 3 ? 53 : 52;
}

YearWeek
OrdinalIsoWeek(int32_t day)
{
	const int32_t year = CivilFromDays(day).year;
	const int32_t week = (DayOfYear(day) - IsoWeekday(day) + 10) / 7;
	if (week < 1)
		return YearWeek{year - 1, IsoWeeksInYear(year - 1)};
	if (week > IsoWeeksInYear(year))
		return YearWeek{year + 1, 1};
	return YearWeek{year, week};
}

/*
 * WeekFields(first day, minimalDaysInFirstWeek = 4) taken literally, by counting days: a week
 * belongs to the year that holds at least 4 of its 7 days, and week 1 is the first such week.
 */
class WeekFieldsOracle {
  public:
	explicit WeekFieldsOracle(int32_t weekday) : weekday_(weekday) {}

	YearWeek Of(int32_t week_start)
	{
		int32_t in_start_year = 0;
		const int32_t start_year = CivilFromDays(week_start).year;
		for (int32_t k = 0; k < 7; ++k)
			in_start_year += CivilFromDays(week_start + k).year == start_year;
		const int32_t year = in_start_year >= 4 ? start_year : start_year + 1;
		return YearWeek{year, (week_start - FirstWeek(year)) / 7 + 1};
	}

  private:
	int32_t FirstWeek(int32_t year)
	{
		auto it = first_week_.find(year);
		if (it != first_week_.end())
			return it->second;
		int32_t d = DaysFromCivil(year - 1, 12, 20);
		for (;; ++d) {
			if (IsoWeekday(d) != weekday_)
				continue;
			int32_t in_year = 0;
			for (int32_t k = 0; k < 7; ++k)
				in_year += CivilFromDays(d + k).year == year;
			if (in_year >= 4)
				break;
		}
		first_week_.emplace(year, d);
		return d;
	}

	int32_t weekday_;
	std::map<int32_t, int32_t> first_week_;
};

TEST(PeriodWeekCrossCheckTest, WeekFamilyMatchesClosedFormAndWeekFields1900To2200)
{
	const int32_t first_day = Day("1900-01-01");
	const int32_t last_day = Day("2200-12-31");
	int64_t comparisons = 0;
	for (const WeekType &wt : kWeekTypes) {
		SCOPED_TRACE(wt.prefix);
		WeekFieldsOracle oracle(wt.weekday);
		for (int32_t day = first_day; day <= last_day && !HasFailure(); ++day) {
			/* The doc's closed form: step back to the start day, then A = start + 3. */
			const int32_t start = day - ((IsoWeekday(day) - wt.weekday + 7) % 7);
			const int32_t a = start + 3;
			const std::string closed_form =
			    std::to_string(CivilFromDays(a).year) + wt.prefix + std::to_string((DayOfYear(a) - 1) / 7 + 1);
			const YearWeek wf = oracle.Of(start);
			const std::string week_fields = std::to_string(wf.year) + wt.prefix + std::to_string(wf.week);
			const std::string iso = IsoPeriod(wt.type, day);
			ASSERT_EQ(iso, closed_form) << day;
			ASSERT_EQ(iso, week_fields) << day;
			ASSERT_EQ(PeriodContaining(wt.type, day), (Period{wt.type, start, start + 6})) << day;
			if (wt.weekday == 1) {
				/* Weekly is plain ISO 8601 (PostgreSQL's IYYY "W" IW). */
				const YearWeek ow = OrdinalIsoWeek(day);
				ASSERT_EQ(iso, std::to_string(ow.year) + "W" + std::to_string(ow.week)) << day;
			}
			++comparisons;
		}
	}
	EXPECT_EQ(comparisons, 6 * (last_day - first_day + 1));
}

/* BiWeekly: the ISO week-year and (ISO week + 1) / 2 of the day; the period starts on the odd week's Monday. */
TEST(PeriodWeekCrossCheckTest, BiWeeklyMatchesIsoWeeks1900To2200)
{
	const int32_t first_day = Day("1900-01-01");
	const int32_t last_day = Day("2200-12-31");
	for (int32_t day = first_day; day <= last_day && !HasFailure(); ++day) {
		const YearWeek w = OrdinalIsoWeek(day);
		const int32_t monday = day - (IsoWeekday(day) - 1);
		const int32_t start = w.week % 2 == 0 ? monday - 7 : monday;
		ASSERT_EQ(IsoPeriod(PT::kBiWeekly, day), std::to_string(w.year) + "BiW" + std::to_string((w.week + 1) / 2))
		    << day;
		ASSERT_EQ(PeriodContaining(PT::kBiWeekly, day), (Period{PT::kBiWeekly, start, start + 13})) << day;
	}
}

} // namespace
} // namespace datavalue_export::core
