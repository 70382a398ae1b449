/*
 * src/core/adx_period.cpp
 *	  ADX period notation; see adx_period.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/adx_period.hpp"

#include "core/calendar.hpp"

namespace datavalue_export::core {

std::string_view
Iso8601Duration(PeriodType type) noexcept
{
	switch (type) {
	case PeriodType::kDaily:
		return "P1D";
	case PeriodType::kWeekly:
	case PeriodType::kWeeklyWednesday:
	case PeriodType::kWeeklyThursday:
	case PeriodType::kWeeklyFriday:
	case PeriodType::kWeeklySaturday:
	case PeriodType::kWeeklySunday:
		return "P7D";
	case PeriodType::kBiWeekly:
		return "P14D";
	case PeriodType::kMonthly:
		return "P1M";
	case PeriodType::kBiMonthly:
		return "P2M";
	case PeriodType::kQuarterly:
	case PeriodType::kQuarterlyNov:
		return "P3M";
	case PeriodType::kSixMonthly:
	case PeriodType::kSixMonthlyApril:
	case PeriodType::kSixMonthlyNov:
		return "P6M";
	case PeriodType::kYearly:
	case PeriodType::kFinancialFeb:
	case PeriodType::kFinancialApril:
	case PeriodType::kFinancialJuly:
	case PeriodType::kFinancialAug:
	case PeriodType::kFinancialSep:
	case PeriodType::kFinancialOct:
	case PeriodType::kFinancialNov:
		return "P1Y";
	}
	return "";
}

std::string
AdxPeriod(PeriodType type, int32_t start)
{
	/* Joda yyyy-MM-dd: at least four year digits, a minus sign before negative years. */
	const CivilDate date = CivilFromDays(start);
	std::string year = std::to_string(date.year < 0 ? -date.year : date.year);
	if (year.size() < 4)
		year.insert(0, 4 - year.size(), '0');
	std::string out;
	if (date.year < 0)
		out += '-';
	out += year;
	const char tail[] = {'-', static_cast<char>('0' + date.month / 10), static_cast<char>('0' + date.month % 10),
	                     '-', static_cast<char>('0' + date.day / 10),   static_cast<char>('0' + date.day % 10),
	                     '/'};
	out.append(tail, sizeof tail);
	out += Iso8601Duration(type);
	return out;
}

} // namespace datavalue_export::core
