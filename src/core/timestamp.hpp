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

/* "00" to "99": a two-digit field is one table read instead of a division and a remainder. */
inline constexpr struct DigitPairs {
	char text[200];
	constexpr DigitPairs() : text()
	{
		for (int i = 0; i < 100; i++) {
			text[2 * i] = static_cast<char>('0' + i / 10);
			text[2 * i + 1] = static_cast<char>('0' + i % 10);
		}
	}
} kDigitPairs{};

/* v in 0..99 as two digits. */
inline char *
TwoDigits(char *w, uint32_t v) noexcept
{
	std::memcpy(w, kDigitPairs.text + 2 * v, 2);
	return w + 2;
}

/* "THH:mm:ss.SSS+0000" (kTimeOfDayLength bytes) for a millisecond of the day. */
inline char *
TimeOfDay(char *w, uint32_t ms_of_day) noexcept
{
	const uint32_t ms = ms_of_day % 1000;
	const uint32_t secs = ms_of_day / 1000;
	const uint32_t minutes = secs / 60;
	*w++ = 'T';
	w = TwoDigits(w, minutes / 60);
	*w++ = ':';
	w = TwoDigits(w, minutes % 60);
	*w++ = ':';
	w = TwoDigits(w, secs % 60);
	*w++ = '.';
	*w++ = static_cast<char>('0' + ms / 100);
	w = TwoDigits(w, ms % 100);
	std::memcpy(w, "+0000", 5);
	return w + 5;
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
	w = detail::TwoDigits(w, static_cast<uint32_t>(date.month));
	*w++ = '-';
	w = detail::TwoDigits(w, static_cast<uint32_t>(date.day));
	return detail::TimeOfDay(w, static_cast<uint32_t>(ms_of_day));
}

/*
 * WriteDhis2Timestamp with the last text kept, and the date text of recent days: consecutive
 * timestamps are often the same instant (created and lastupdated), an export's timestamps fall
 * on a few hundred days, and the calendar arithmetic of the date is most of the cost. Only
 * years 0-9999 (every text kTimestampLength long) are cached; others take the full path.
 */
class TimestampFormatter {
  public:
	char *Write(char *w, int64_t pg_micros) noexcept
	{
		const int64_t millis = FloorDiv(pg_micros, 1000);
		if (millis != cached_millis_)
			Format(pg_micros, millis);
		/* A fixed-size copy is a few moves. */
		if (text_length_ == kTimestampLength)
			std::memcpy(w, text_, kTimestampLength);
		else
			std::memcpy(w, text_, text_length_);
		return w + text_length_;
	}

  private:
	static constexpr size_t kDateLength = kTimestampLength - detail::kTimeOfDayLength; /* "yyyy-MM-dd" */
	/* 16 bytes, so the cache is 16 kB: it stays in the first-level cache beside the row's data. */
	struct DaySlot {
		int32_t day = INT32_MIN; /* any int64 microsecond count is within int32 days */
		char text[12];           /* kDateLength bytes used */
	};
	/* Direct-mapped: 1024 consecutive days (almost three years) never evict each other. */
	static constexpr size_t kDays = 1024;

	void Format(int64_t pg_micros, int64_t millis) noexcept
	{
		cached_millis_ = millis;
		const int64_t day = FloorDiv(millis, 86400000);
		const uint32_t ms_of_day = static_cast<uint32_t>(millis - day * 86400000);
		/* Year 0 starts on day -730485 and year 10000 on day 2921940 (PostgreSQL days, from 2000-01-01). */
		if (day < -730485 || day >= 2921940) {
			text_length_ = static_cast<size_t>(WriteDhis2Timestamp(text_, pg_micros) - text_);
			return;
		}
		DaySlot &slot = days_[static_cast<uint64_t>(day) % kDays];
		if (slot.day != static_cast<int32_t>(day)) {
			char full[kTimestampMax];
			WriteDhis2Timestamp(full, day * INT64_C(86400000000));
			std::memcpy(slot.text, full, kDateLength);
			slot.day = static_cast<int32_t>(day);
		}
		std::memcpy(text_, slot.text, kDateLength);
		detail::TimeOfDay(text_ + kDateLength, ms_of_day);
		text_length_ = kTimestampLength;
	}

	int64_t cached_millis_ = INT64_MIN;
	char text_[kTimestampMax];
	size_t text_length_ = 0;
	DaySlot days_[kDays];
};

} // namespace datavalue_export::core
