/*
 * src/core/timestamp.hpp
 *	  DHIS2's timestamp text, yyyy-MM-dd'T'HH:mm:ss.SSS+0000, from a PostgreSQL timestamp.
 *
 * DHIS2 reads `timestamp without time zone` columns as wall time and prints them in UTC, so
 * on a UTC server the text is the stored value with milliseconds truncated (not rounded) and
 * "+0000" added. Formatting works on the int64 microseconds directly; PostgreSQL's
 * timestamp_out costs about 0.3 us a call and would be the largest per-row cost.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstdint>
#include <cstring>

#include "core/calendar.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* Length of the formatted text for years 0..9999. */
inline constexpr size_t kTimestampLength = 28;
/* Bytes to reserve for one timestamp, any year PostgreSQL can store. */
inline constexpr size_t kTimestampMax = 40;

namespace detail {
inline char *
TwoDigits(char *w, int32_t v) noexcept
{
	w[0] = static_cast<char>('0' + v / 10);
	w[1] = static_cast<char>('0' + v % 10);
	return w + 2;
}

inline char *
YearDigits(char *w, int32_t y) noexcept
{
	if (y < 0) {
		*w++ = '-';
		y = -y;
	}
	char tmp[12];
	int n = 0;
	do {
		tmp[n++] = static_cast<char>('0' + y % 10);
		y /= 10;
	} while (y > 0);
	for (int pad = n; pad < 4; pad++)
		*w++ = '0';
	while (n > 0)
		*w++ = tmp[--n];
	return w;
}
/* "THH:mm:ss.SSS+0000" for a millisecond of the day. */
inline char *
TimeOfDay(char *w, int32_t ms_of_day) noexcept
{
	const int32_t ms = ms_of_day % 1000;
	const int32_t secs = ms_of_day / 1000;
	*w++ = 'T';
	w = TwoDigits(w, secs / 3600);
	*w++ = ':';
	w = TwoDigits(w, secs / 60 % 60);
	*w++ = ':';
	w = TwoDigits(w, secs % 60);
	*w++ = '.';
	w[0] = static_cast<char>('0' + ms / 100);
	w[1] = static_cast<char>('0' + ms / 10 % 10);
	w[2] = static_cast<char>('0' + ms % 10);
	std::memcpy(w + 3, "+0000", 5);
	return w + 8;
}
} // namespace detail

/* Write the DHIS2 text of a finite PostgreSQL timestamp. Reserve kTimestampMax bytes. */
inline char *
WriteDhis2Timestamp(char *w, int64_t pg_micros) noexcept
{
	const int64_t millis = FloorDiv(pg_micros, 1000);
	const int64_t day = FloorDiv(millis, 86400000);
	const int64_t ms_of_day = millis - day * 86400000;
	const CivilDate date = CivilFromDays(static_cast<int32_t>(day));
	w = detail::YearDigits(w, date.year);
	*w++ = '-';
	w = detail::TwoDigits(w, date.month);
	*w++ = '-';
	w = detail::TwoDigits(w, date.day);
	return detail::TimeOfDay(w, static_cast<int32_t>(ms_of_day));
}

/*
 * WriteDhis2Timestamp with the last text kept: consecutive timestamps are mostly the same
 * instant or the same day, and the calendar arithmetic is most of the cost.
 */
class TimestampFormatter {
  public:
	char *Write(char *w, int64_t pg_micros) noexcept
	{
		const int64_t millis = FloorDiv(pg_micros, 1000);
		/* created and lastupdated are often the same instant, and rows often share a day. */
		if (millis != cached_millis_) {
			const int64_t day = FloorDiv(millis, 86400000);
			if (day != cached_day_) {
				char *end = WriteDhis2Timestamp(text_, pg_micros);
				text_length_ = static_cast<size_t>(end - text_);
				cached_day_ = day;
			} else {
				/* Same day: rewrite the time of day in place; the date part keeps its length. */
				detail::TimeOfDay(text_ + text_length_ - 18, static_cast<int32_t>(millis - day * 86400000));
			}
			cached_millis_ = millis;
		}
		std::memcpy(w, text_, text_length_);
		return w + text_length_;
	}

  private:
	int64_t cached_millis_ = INT64_MIN;
	int64_t cached_day_ = INT64_MIN;
	char text_[kTimestampMax];
	size_t text_length_ = 0;
};

} // namespace datavalue_export::core
