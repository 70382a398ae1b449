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
inline constexpr size_t kTimeOfDayLength = 18;

/* "THH:mm:ss.SSS+0000" (kTimeOfDayLength bytes) for a millisecond of the day. */
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
 * WriteDhis2Timestamp with the last text kept, and the date text of recent days: consecutive
 * timestamps are often the same instant (created and lastupdated), an export's timestamps fall
 * on a few hundred days, and the calendar arithmetic of the date is most of the cost.
 */
class TimestampFormatter {
  public:
	char *Write(char *w, int64_t pg_micros) noexcept
	{
		const int64_t millis = FloorDiv(pg_micros, 1000);
		if (millis != cached_millis_) {
			const int64_t day = FloorDiv(millis, 86400000);
			const DayText &date = Date(day);
			std::memcpy(text_, date.text, sizeof date.text);
			detail::TimeOfDay(text_ + date.length, static_cast<int32_t>(millis - day * 86400000));
			text_length_ = date.length + detail::kTimeOfDayLength;
			cached_millis_ = millis;
		}
		/* A fixed-size copy is a few moves; years 0-9999 are all kTimestampLength long. */
		if (text_length_ == kTimestampLength)
			std::memcpy(w, text_, kTimestampLength);
		else
			std::memcpy(w, text_, text_length_);
		return w + text_length_;
	}

  private:
	struct DayText {
		int64_t day = INT64_MIN;
		char text[kTimestampMax - detail::kTimeOfDayLength]; /* "yyyy-MM-dd", longer for years past 9999 */
		size_t length = 0;
	};
	/* Direct-mapped: 1024 consecutive days (almost three years) never evict each other. */
	static constexpr size_t kDays = 1024;

	const DayText &Date(int64_t day) noexcept
	{
		DayText &slot = days_[static_cast<uint64_t>(day) % kDays];
		if (slot.day != day) {
			char full[kTimestampMax];
			char *end = WriteDhis2Timestamp(full, day * INT64_C(86400000000));
			slot.length = static_cast<size_t>(end - full) - detail::kTimeOfDayLength;
			std::memcpy(slot.text, full, slot.length);
			slot.day = day;
		}
		return slot;
	}

	int64_t cached_millis_ = INT64_MIN;
	char text_[kTimestampMax];
	size_t text_length_ = 0;
	DayText days_[kDays];
};

} // namespace datavalue_export::core
