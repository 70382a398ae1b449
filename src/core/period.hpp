/*
 * src/core/period.hpp
 *	  DHIS2 period types and their ISO period strings ("202401", "2024W1", "2024NovQ1"), both ways.
 *
 * DHIS2 labels a stored period row by normalising its start date to the period of its type that
 * contains it and formatting that (dhis2-schema-and-periods.md §2.2); 2.42 computes the label per
 * row, 2.43 stores it in period.iso. We reproduce that for the ISO-8601 calendar only. Parsing
 * follows 2.43's Period.Input.of, which is what the `period` request parameter goes through.
 * Days are PostgreSQL day numbers (core/calendar.hpp). None of these functions throw except
 * std::bad_alloc from the string appends.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* The 23 types of DHIS2 2.43's PeriodType.PERIOD_TYPES, in the order of the §2.1 table. TwoYearly
 * is left out on purpose: it has no ISO string, so DHIS2 cannot label or export it. */
enum class PeriodType : uint8_t {
	kDaily,
	kWeekly,
	kWeeklyWednesday,
	kWeeklyThursday,
	kWeeklyFriday,
	kWeeklySaturday,
	kWeeklySunday,
	kBiWeekly,
	kMonthly,
	kBiMonthly,
	kQuarterly,
	kQuarterlyNov,
	kSixMonthly,
	kSixMonthlyApril,
	kSixMonthlyNov,
	kYearly,
	kFinancialFeb,
	kFinancialApril,
	kFinancialJuly,
	kFinancialAug,
	kFinancialSep,
	kFinancialOct,
	kFinancialNov,
};

inline constexpr int kPeriodTypeCount = 23;

/*
 * Finite PostgreSQL dates (4714-11-24 BC .. 5874897-12-31). Every function below expects its day
 * argument in this range: callers must filter out -infinity/infinity (INT32_MIN/INT32_MAX) first.
 */
inline constexpr int32_t kMinPeriodDay = -2451545;
inline constexpr int32_t kMaxPeriodDay = 2145031948;

/* periodtype.name as DHIS2 stores it ("Monthly", "WeeklyWednesday", "FinancialNov", ...). Exact
 * and case-sensitive, like DHIS2's own lookup; nullopt for unknown names and for "TwoYearly". */
std::optional<PeriodType> PeriodTypeFromName(std::string_view name) noexcept;

/* The periodtype.name of a type; empty for a value outside the enum. */
std::string_view PeriodTypeName(PeriodType type) noexcept;

/* One period: its type and first and last day, both inclusive. */
struct Period {
	PeriodType type;
	int32_t start;
	int32_t end;
};

constexpr bool
operator==(const Period &a, const Period &b) noexcept
{
	return a.type == b.type && a.start == b.start && a.end == b.end;
}

constexpr bool
operator!=(const Period &a, const Period &b) noexcept
{
	return !(a == b);
}

/* The period of this type that contains the day (DHIS2's createPeriod(date)). */
Period PeriodContaining(PeriodType type, int32_t day) noexcept;

/*
 * Appends the ISO string of the period of `type` that contains `day`: normalise first, then
 * format from the normalised start, as DHIS2's migration and 2.42 export do. Years are printed
 * with at least four digits (a minus sign before years < 0). May throw std::bad_alloc.
 */
void AppendIsoPeriod(PeriodType type, int32_t day, std::string &out);

/* Same as AppendIsoPeriod, as a new string. May throw std::bad_alloc. */
std::string IsoPeriod(PeriodType type, int32_t day);

/*
 * Parses an ISO period string as DHIS2 2.43's Period.Input.of does: every type's format plus the
 * aliases yyyy-MM (Monthly) and yyyy-MM-dd (Daily); four-digit years only. Returns nullopt for
 * anything that is not a period: wrong shape, month 13, day 32, a week number that the year does
 * not have (2014W53), BiW27 in a 52-week year. Week numbers are one or two digits, so a leading
 * zero (2024W05) is accepted; IsoPeriod never writes one.
 */
std::optional<Period> ParseIsoPeriod(std::string_view text) noexcept;

} // namespace datavalue_export::core
