/*
 * test/unit/timestamp_test.cpp
 *	  Unit tests of core/timestamp: DHIS2's yyyy-MM-dd'T'HH:mm:ss.SSS+0000 text of a PostgreSQL timestamp.
 *
 * Pinned cases (dhis2-export-format.md §3.4 and §4: truncation to milliseconds, floor for
 * timestamps before 2000, leap days, four-digit year padding) use constants computed outside this
 * code base; then seeded sweeps over years 1..9999 and every day 1600..2400 compare with a reference
 * built on the C library's gmtime_r (PostgreSQL timestamps are microseconds since 2000-01-01,
 * 946684800 s after the Unix epoch).
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/timestamp.hpp"

#include <cstdio>
#include <ctime>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/calendar.hpp"

namespace datavalue_export::core {
namespace {

constexpr int64_t kUnixEpochOffsetSeconds = 946684800;
constexpr int64_t kMicrosPerSecond = 1000000;

std::string
Format(int64_t pg_micros)
{
	char buf[kTimestampMax];
	char *end = WriteDhis2Timestamp(buf, pg_micros);
	EXPECT_LE(static_cast<size_t>(end - buf), kTimestampMax);
	return std::string(buf, end);
}

/* Independent reference: floor to whole seconds and milliseconds, then gmtime_r. */
std::string
Reference(int64_t pg_micros)
{
	int64_t secs = pg_micros / kMicrosPerSecond;
	int64_t rem = pg_micros % kMicrosPerSecond;
	if (rem < 0) {
		rem += kMicrosPerSecond;
		secs -= 1;
	}
	const time_t unix_secs = static_cast<time_t>(secs + kUnixEpochOffsetSeconds);
	struct tm tm {};
	if (gmtime_r(&unix_secs, &tm) == nullptr)
		return "gmtime_r failed";
	char buf[64];
	std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03d+0000", tm.tm_year + 1900, tm.tm_mon + 1,
	              tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(rem / 1000));
	return buf;
}

/* Constants below were computed with Python's datetime (proleptic Gregorian), not with this code. */

TEST(TimestampTest, PostgresEpoch)
{
	EXPECT_EQ(Format(0), "2000-01-01T00:00:00.000+0000");
	EXPECT_EQ(Format(0).size(), kTimestampLength);
}

TEST(TimestampTest, DocExample)
{
	/* 2024-02-03 10:11:12.123 (§4.1) */
	EXPECT_EQ(Format(INT64_C(760270272123000)), "2024-02-03T10:11:12.123+0000");
}

TEST(TimestampTest, MillisecondsAreTruncatedNotRounded)
{
	/* 2024-02-03 10:11:12.123999 */
	EXPECT_EQ(Format(INT64_C(760270272123999)), "2024-02-03T10:11:12.123+0000");
	EXPECT_EQ(Format(INT64_C(760270272123500)), "2024-02-03T10:11:12.123+0000");
	EXPECT_EQ(Format(INT64_C(760270272123001)), "2024-02-03T10:11:12.123+0000");
	/* .999999 of the last second of a day stays in that day. */
	EXPECT_EQ(Format(INT64_C(86399999999)), "2000-01-01T23:59:59.999+0000");
	EXPECT_EQ(Format(INT64_C(86400000000)), "2000-01-02T00:00:00.000+0000");
	EXPECT_EQ(Format(999), "2000-01-01T00:00:00.000+0000");
	EXPECT_EQ(Format(1000), "2000-01-01T00:00:00.001+0000");
}

TEST(TimestampTest, BeforeTwoThousandFloors)
{
	EXPECT_EQ(Format(-1), "1999-12-31T23:59:59.999+0000");
	EXPECT_EQ(Format(-999), "1999-12-31T23:59:59.999+0000");
	EXPECT_EQ(Format(-1000), "1999-12-31T23:59:59.999+0000");
	EXPECT_EQ(Format(-1001), "1999-12-31T23:59:59.998+0000");
	EXPECT_EQ(Format(-INT64_C(1000000)), "1999-12-31T23:59:59.000+0000");
	EXPECT_EQ(Format(-INT64_C(86400000000)), "1999-12-31T00:00:00.000+0000");
	EXPECT_EQ(Format(-INT64_C(86400000001)), "1999-12-30T23:59:59.999+0000");
	/* The Unix epoch. */
	EXPECT_EQ(Format(-INT64_C(946684800000000)), "1970-01-01T00:00:00.000+0000");
	EXPECT_EQ(Format(-INT64_C(946684800000001)), "1969-12-31T23:59:59.999+0000");
}

TEST(TimestampTest, LeapDays)
{
	EXPECT_EQ(Format(INT64_C(762566399999999)), "2024-02-29T23:59:59.999+0000");
	EXPECT_EQ(Format(INT64_C(762566400000000)), "2024-03-01T00:00:00.000+0000");
	EXPECT_EQ(Format(INT64_C(5140800000000)), "2000-02-29T12:00:00.000+0000");
	/* 1900 is not a leap year: the day after 02-28 is 03-01. */
	EXPECT_EQ(Format(-INT64_C(3150662400000000)), "1900-02-28T00:00:00.000+0000");
	EXPECT_EQ(Format(-INT64_C(3150662400000000) + kMicrosPerDay), "1900-03-01T00:00:00.000+0000");
	EXPECT_EQ(Format(-INT64_C(3150576000000000)), "1900-03-01T00:00:00.000+0000");
	/* 2100 is not a leap year either; 1600 is. */
	EXPECT_EQ(Format(INT64_C(3160857600000000) - 1), "2100-02-28T23:59:59.999+0000");
	EXPECT_EQ(Format(-INT64_C(12617661171991000)), "1600-02-29T06:07:08.009+0000");
}

TEST(TimestampTest, YearsArePaddedToFourDigits)
{
	EXPECT_EQ(Format(-INT64_C(62956051200000000)), "0005-01-01T00:00:00.000+0000");
	EXPECT_EQ(Format(-INT64_C(63082281600000000)), "0001-01-01T00:00:00.000+0000");
	EXPECT_EQ(Format(-INT64_C(62956051200000000)).size(), kTimestampLength);
	EXPECT_EQ(Format(INT64_C(252455615999999999)), "9999-12-31T23:59:59.999+0000");
}

TEST(TimestampTest, YearsBeyondFourDigits)
{
	/* 10000-01-01: 8000 years = 20 Gregorian cycles of 146097 days after 2000-01-01. */
	EXPECT_EQ(Format(INT64_C(2921940) * kMicrosPerDay), "10000-01-01T00:00:00.000+0000");
	/* PostgreSQL's largest timestamp, 294276-12-31 23:59:59.999999. */
	EXPECT_EQ(Format(INT64_C(9223371331199999999)), "294276-12-31T23:59:59.999+0000");
}

TEST(TimestampTest, SmallestPostgresTimestampFitsTheReservation)
{
	/* 4714-11-24 BC is astronomical year -4713; the text stays within kTimestampMax (checked in Format). */
	const std::string s = Format(-INT64_C(211813488000000000));
	EXPECT_EQ(s, "-4713-11-24T00:00:00.000+0000");
}

TEST(TimestampTest, FixedFieldPositions)
{
	const std::string s = Format(INT64_C(760270272123999));
	ASSERT_EQ(s.size(), 28u);
	EXPECT_EQ(s[4], '-');
	EXPECT_EQ(s[7], '-');
	EXPECT_EQ(s[10], 'T');
	EXPECT_EQ(s[13], ':');
	EXPECT_EQ(s[16], ':');
	EXPECT_EQ(s[19], '.');
	EXPECT_EQ(s.substr(23), "+0000");
}

TEST(TimestampTest, ReferenceSelfCheck)
{
	EXPECT_EQ(Reference(0), "2000-01-01T00:00:00.000+0000");
	EXPECT_EQ(Reference(-1), "1999-12-31T23:59:59.999+0000");
}

TEST(TimestampTest, RandomSweepMatchesGmtime)
{
	std::mt19937_64 rng(946684800);
	/* 0001-01-01 .. 9999-12-31 */
	std::uniform_int_distribution<int64_t> any(-INT64_C(63082281600000000), INT64_C(252455615999999999));
	/* 1900 .. 2100, where real data lives */
	std::uniform_int_distribution<int64_t> near(-INT64_C(3155673600000000), INT64_C(3155760000000000));
	for (int i = 0; i < 200000; i++) {
		const int64_t t = i % 2 ? any(rng) : near(rng);
		ASSERT_EQ(Format(t), Reference(t)) << t;
	}
}

TEST(TimestampTest, EveryDayFrom1600To2400MatchesGmtime)
{
	const int32_t first = DaysFromCivil(1600, 1, 1);
	const int32_t last = DaysFromCivil(2400, 12, 31);
	const int64_t times[] = {0, 1, 999, 1000, INT64_C(43200000000) + 456789, kMicrosPerDay - 1};
	int checked = 0;
	for (int32_t day = first; day <= last; day++)
		for (const int64_t tod : times) {
			const int64_t t = day * kMicrosPerDay + tod;
			ASSERT_EQ(Format(t), Reference(t)) << t;
			checked++;
		}
	EXPECT_GT(checked, 290000 * 6);
}

TEST(TimestampTest, AgreesWithCivilFromDays)
{
	std::mt19937 rng(3);
	std::uniform_int_distribution<int32_t> days(DaysFromCivil(1, 1, 1), DaysFromCivil(9999, 12, 31));
	for (int i = 0; i < 50000; i++) {
		const int32_t day = days(rng);
		const CivilDate d = CivilFromDays(day);
		char want[64];
		std::snprintf(want, sizeof want, "%04d-%02d-%02dT00:00:00.000+0000", d.year, d.month, d.day);
		ASSERT_EQ(Format(day * kMicrosPerDay), want) << day;
	}
}

/* ---- TimestampFormatter: the same text, with the date part cached per day ---- */

std::string
FormatCached(TimestampFormatter &f, int64_t pg_micros)
{
	char buf[kTimestampMax];
	char *end = f.Write(buf, pg_micros);
	EXPECT_LE(static_cast<size_t>(end - buf), kTimestampMax);
	return std::string(buf, end);
}

TEST(TimestampFormatterTest, PinnedCases)
{
	TimestampFormatter f;
	EXPECT_EQ(FormatCached(f, INT64_C(760270272123999)), "2024-02-03T10:11:12.123+0000");
	EXPECT_EQ(FormatCached(f, INT64_C(760270272124000)), "2024-02-03T10:11:12.124+0000");
	EXPECT_EQ(FormatCached(f, -1), "1999-12-31T23:59:59.999+0000");
	EXPECT_EQ(FormatCached(f, 0), "2000-01-01T00:00:00.000+0000");
	EXPECT_EQ(FormatCached(f, -INT64_C(62956051200000000)), "0005-01-01T00:00:00.000+0000");
	EXPECT_EQ(FormatCached(f, INT64_C(2921940) * kMicrosPerDay), "10000-01-01T00:00:00.000+0000");
	EXPECT_EQ(FormatCached(f, INT64_C(9223371331199999999)), "294276-12-31T23:59:59.999+0000");
	EXPECT_EQ(FormatCached(f, INT64_C(762566399999999)), "2024-02-29T23:59:59.999+0000");
}

TEST(TimestampFormatterTest, SameDayDifferentTimes)
{
	TimestampFormatter f;
	const int64_t day = INT64_C(760270272123999) / kMicrosPerDay * kMicrosPerDay;
	for (const int64_t tod :
	     {INT64_C(0), INT64_C(999), INT64_C(1000), INT64_C(43200000000) + 7, kMicrosPerDay - 1, INT64_C(5)})
		ASSERT_EQ(FormatCached(f, day + tod), Format(day + tod)) << tod;
}

TEST(TimestampFormatterTest, DaysSharingACacheSlot)
{
	/* Days 1024 apart share a slot; years past 9999 and before 0 bypass the cache. */
	TimestampFormatter f;
	const int64_t base = INT64_C(760270272123999);
	const int64_t far = INT64_C(2921940) * kMicrosPerDay + INT64_C(3723004005); /* 10000-01-01 */
	const int64_t before_zero = -INT64_C(730486) * kMicrosPerDay + 1;           /* the day before year 0 */
	for (int round = 0; round < 3; round++)
		for (const int64_t t :
		     {base, base + 1024 * kMicrosPerDay, base - 1024 * kMicrosPerDay, base + 1, far,
		      base + 2048 * kMicrosPerDay, before_zero, base, far - kMicrosPerDay, -INT64_C(730485) * kMicrosPerDay})
			ASSERT_EQ(FormatCached(f, t), Format(t)) << "round " << round << " t " << t;
}

TEST(TimestampFormatterTest, RandomSequencesMatchWriteDhis2Timestamp)
{
	/* Runs of values on one day, jumps forward and backward, day boundaries, years of 4 and more digits. */
	std::mt19937_64 rng(42);
	std::uniform_int_distribution<int64_t> any(-INT64_C(211813488000000000), INT64_C(9223371331199999999));
	std::uniform_int_distribution<int64_t> within_day(0, kMicrosPerDay - 1);
	std::uniform_int_distribution<int> step(0, 9);
	TimestampFormatter f;
	int64_t t = 0;
	for (int i = 0; i < 300000; i++) {
		switch (step(rng)) {
		case 0:
			t = any(rng);
			break;
		case 1:
			t = t / kMicrosPerDay * kMicrosPerDay - 1; /* last microsecond of the previous day */
			break;
		case 2:
			t += kMicrosPerDay;
			break;
		default:
			t = FloorDiv(t, kMicrosPerDay) * kMicrosPerDay + within_day(rng);
		}
		if (t > INT64_C(9223371331199999999) || t < -INT64_C(211813488000000000))
			t = 0;
		ASSERT_EQ(FormatCached(f, t), Format(t)) << "step " << i << " t " << t;
	}
}

} // namespace
} // namespace datavalue_export::core
