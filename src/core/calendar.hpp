/*
 * src/core/calendar.hpp
 *	  Proleptic Gregorian date arithmetic on PostgreSQL's own day numbers.
 *
 * Dates are int32 days since 2000-01-01 (PostgreSQL's DateADT) and timestamps are int64
 * microseconds since 2000-01-01 00:00 (PostgreSQL's Timestamp), so values read from a tuple
 * need no conversion before they reach core code. Header-only: these sit on hot paths.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstdint>

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* Day number of 2000-01-01 counted from 1970-01-01; PostgreSQL's epoch shift. */
inline constexpr int32_t kUnixToPgEpochDays = 10957;
inline constexpr int64_t kMicrosPerDay = INT64_C(86400000000);

struct CivilDate {
	int32_t year;
	int32_t month; /* 1..12 */
	int32_t day;   /* 1..31 */
};

/* Days since 2000-01-01 of a civil date (Howard Hinnant's days_from_civil, shifted). */
constexpr int32_t
DaysFromCivil(int32_t y, int32_t m, int32_t d) noexcept
{
	y -= m <= 2;
	const int32_t era = (y >= 0 ? y : y - 399) / 400;
	const int32_t yoe = y - era * 400;
	const int32_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	const int32_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468 - kUnixToPgEpochDays;
}

/* Civil date of a day number (days since 2000-01-01). */
constexpr CivilDate
CivilFromDays(int32_t pg_days) noexcept
{
	const int32_t z = pg_days + kUnixToPgEpochDays + 719468;
	const int32_t era = (z >= 0 ? z : z - 146096) / 146097;
	const int32_t doe = z - era * 146097;
	const int32_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	const int32_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	const int32_t mp = (5 * doy + 2) / 153;
	const int32_t d = doy - (153 * mp + 2) / 5 + 1;
	const int32_t m = mp < 10 ? mp + 3 : mp - 9;
	return CivilDate{yoe + era * 400 + (m <= 2), m, d};
}

/* ISO weekday, Monday = 1 ... Sunday = 7. 2000-01-01 was a Saturday. */
constexpr int32_t
IsoWeekday(int32_t pg_days) noexcept
{
	const int32_t r = ((pg_days % 7) + 7 + 5) % 7; /* 0 = Monday */
	return r + 1;
}

constexpr bool
IsLeapYear(int32_t y) noexcept
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

constexpr int32_t
DaysInMonth(int32_t y, int32_t m) noexcept
{
	constexpr int32_t kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

/* Floor division for negative timestamps (before 2000). */
constexpr int64_t
FloorDiv(int64_t a, int64_t b) noexcept
{
	return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

} // namespace datavalue_export::core
