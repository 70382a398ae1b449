/*
 * src/core/period.cpp
 *	  DHIS2 period normalisation, ISO period labels and their parser (ISO-8601 calendar).
 *
 * Every ISO string is <year><infix><number><suffix>, so one table row per type drives both
 * directions. A label is the pair (year, number); parsing builds the period that the pair names
 * and then labels it again, and only accepts the text when the pair comes back unchanged. That one
 * check rejects the week numbers a year does not have (2014W53, BiW27 in a 52-week year) without a
 * separate week-count rule, and it makes parse(format(p)) == p hold by construction.
 * Rules: dhis2-schema-and-periods.md §2.3-2.5.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/period.hpp"

#include "core/calendar.hpp"

namespace datavalue_export::core {

namespace {

enum class Kind : uint8_t {
	kDaily,
	kWeek,   /* 7 days from a fixed weekday, WeekFields(start, 4) numbering */
	kBiWeek, /* 14 days from the Monday of an odd ISO week */
	kMonths, /* whole months, aligned to an anchor month */
};

struct TypeSpec {
	std::string_view name; /* periodtype.name */
	Kind kind;
	int8_t week_start;       /* kWeek: ISO weekday of the first day */
	int8_t anchor_month;     /* kMonths: first month (1-12) of the cycle */
	int8_t months;           /* kMonths: period length in months */
	int8_t year_shift;       /* kMonths: 1 for the Nov types, labelled with the year they end in */
	std::string_view infix;  /* between the year and the number */
	int8_t min_digits;       /* number width: zero-padded to min_digits, at most max_digits */
	int8_t max_digits;       /* 0: no number in the label */
	std::string_view suffix; /* after the number */
};

/* Indexed by PeriodType. */
constexpr TypeSpec kSpecs[kPeriodTypeCount] = {
    {"Daily", Kind::kDaily, 0, 0, 0, 0, "", 4, 4, ""},
    {"Weekly", Kind::kWeek, 1, 0, 0, 0, "W", 1, 2, ""},
    {"WeeklyWednesday", Kind::kWeek, 3, 0, 0, 0, "WedW", 1, 2, ""},
    {"WeeklyThursday", Kind::kWeek, 4, 0, 0, 0, "ThuW", 1, 2, ""},
    {"WeeklyFriday", Kind::kWeek, 5, 0, 0, 0, "FriW", 1, 2, ""},
    {"WeeklySaturday", Kind::kWeek, 6, 0, 0, 0, "SatW", 1, 2, ""},
    {"WeeklySunday", Kind::kWeek, 7, 0, 0, 0, "SunW", 1, 2, ""},
    {"BiWeekly", Kind::kBiWeek, 1, 0, 0, 0, "BiW", 1, 2, ""},
    {"Monthly", Kind::kMonths, 0, 1, 1, 0, "", 2, 2, ""},
    /* The number is the bi-month index 01-06, not the month. */
    {"BiMonthly", Kind::kMonths, 0, 1, 2, 0, "", 2, 2, "B"},
    {"Quarterly", Kind::kMonths, 0, 1, 3, 0, "Q", 1, 1, ""},
    {"QuarterlyNov", Kind::kMonths, 0, 11, 3, 1, "NovQ", 1, 1, ""},
    {"SixMonthly", Kind::kMonths, 0, 1, 6, 0, "S", 1, 1, ""},
    /* Oct-Mar is S2 of the year it starts in (no shift), unlike the Nov types. */
    {"SixMonthlyApril", Kind::kMonths, 0, 4, 6, 0, "AprilS", 1, 1, ""},
    {"SixMonthlyNov", Kind::kMonths, 0, 11, 6, 1, "NovS", 1, 1, ""},
    {"Yearly", Kind::kMonths, 0, 1, 12, 0, "", 0, 0, ""},
    {"FinancialFeb", Kind::kMonths, 0, 2, 12, 0, "", 0, 0, "Feb"},
    {"FinancialApril", Kind::kMonths, 0, 4, 12, 0, "", 0, 0, "April"},
    {"FinancialJuly", Kind::kMonths, 0, 7, 12, 0, "", 0, 0, "July"},
    {"FinancialAug", Kind::kMonths, 0, 8, 12, 0, "", 0, 0, "Aug"},
    {"FinancialSep", Kind::kMonths, 0, 9, 12, 0, "", 0, 0, "Sep"},
    {"FinancialOct", Kind::kMonths, 0, 10, 12, 0, "", 0, 0, "Oct"},
    /* The only financial year labelled with its end year, in DHIS2's formatter and parser alike. */
    {"FinancialNov", Kind::kMonths, 0, 11, 12, 1, "", 0, 0, "Nov"},
};

const TypeSpec &
Spec(PeriodType type) noexcept
{
	return kSpecs[static_cast<int>(type)];
}

/* (year, number) of a label; number is MMDD for Daily and 1 for types printed without one. */
struct Label {
	int32_t year;
	int32_t number;
};

int32_t
FloorDiv32(int32_t a, int32_t b) noexcept
{
	return static_cast<int32_t>(FloorDiv(a, b));
}

/* Most recent day (the day itself included) whose ISO weekday is `weekday`. */
int32_t
WeekStart(int32_t day, int32_t weekday) noexcept
{
	return day - (IsoWeekday(day) - weekday + 7) % 7;
}

/*
 * WeekFields(start day, minimalDaysInFirstWeek = 4): a week belongs to the year that holds at
 * least four of its days, i.e. the year of its 4th day, and week 1 is the one whose 4th day falls
 * in 1-7 January.
 */
Label
WeekLabel(int32_t week_start) noexcept
{
	const int32_t fourth = week_start + 3;
	const int32_t year = CivilFromDays(fourth).year;
	return Label{year, (fourth - DaysFromCivil(year, 1, 1)) / 7 + 1};
}

/* First day of week 1 of `year`: the week holding 4 January. */
int32_t
FirstWeekStart(int32_t year, int32_t weekday) noexcept
{
	return WeekStart(DaysFromCivil(year, 1, 4), weekday);
}

/* Months counted from January of year 0, so month arithmetic is plain integer arithmetic. */
int32_t
MonthIndex(int32_t day) noexcept
{
	const CivilDate c = CivilFromDays(day);
	return c.year * 12 + (c.month - 1);
}

int32_t
FirstDayOfMonthIndex(int32_t month_index) noexcept
{
	const int32_t year = FloorDiv32(month_index, 12);
	return DaysFromCivil(year, month_index - year * 12 + 1, 1);
}

/* Start of the period that holds month_index, as a month index. */
int32_t
PeriodStartMonth(const TypeSpec &spec, int32_t month_index) noexcept
{
	const int32_t anchor = spec.anchor_month - 1;
	return anchor + FloorDiv32(month_index - anchor, spec.months) * spec.months;
}

/* Label of a normalised period. */
Label
LabelOf(const TypeSpec &spec, const Period &period) noexcept
{
	switch (spec.kind) {
	case Kind::kDaily: {
		const CivilDate c = CivilFromDays(period.start);
		return Label{c.year, c.month * 100 + c.day};
	}
	case Kind::kWeek:
		return WeekLabel(period.start);
	case Kind::kBiWeek: {
		/* The start is always the Monday of an odd ISO week: BiW n = ISO weeks 2n-1 and 2n. */
		const Label week = WeekLabel(period.start);
		return Label{week.year, (week.number + 1) / 2};
	}
	case Kind::kMonths:
		break;
	}
	/* Count months from the anchor: the cycle year is the start year for Jan/Apr/... anchors
	 * and, via year_shift, the end year for the Nov ones. */
	const int32_t from_anchor = MonthIndex(period.start) - (spec.anchor_month - 1);
	const int32_t cycle_year = FloorDiv32(from_anchor, 12);
	return Label{cycle_year + spec.year_shift, (from_anchor - cycle_year * 12) / spec.months + 1};
}

void
AppendNumber(std::string &out, int32_t value, int min_digits)
{
	char buf[12];
	int len = 0;
	uint32_t v = value < 0 ? 0u - static_cast<uint32_t>(value) : static_cast<uint32_t>(value);
	do {
		buf[len++] = static_cast<char>('0' + v % 10);
		v /= 10;
	} while (v != 0 || len < min_digits);
	if (value < 0)
		out += '-';
	while (len > 0)
		out += buf[--len];
}

/* Parses exactly `text.size()` ASCII digits (1-9 of them). */
std::optional<int32_t>
ParseDigits(std::string_view text) noexcept
{
	if (text.empty() || text.size() > 9)
		return std::nullopt;
	int32_t value = 0;
	for (const char ch : text) {
		if (ch < '0' || ch > '9')
			return std::nullopt;
		value = value * 10 + (ch - '0');
	}
	return value;
}

size_t
CountLeadingDigits(std::string_view text) noexcept
{
	size_t n = 0;
	while (n < text.size() && text[n] >= '0' && text[n] <= '9')
		++n;
	return n;
}

/* The period a label names, or nullopt if the label is out of range for its type. */
std::optional<Period>
PeriodFromLabel(PeriodType type, Label label) noexcept
{
	const TypeSpec &spec = Spec(type);
	int32_t start = 0;
	switch (spec.kind) {
	case Kind::kDaily: {
		const int32_t month = label.number / 100;
		const int32_t day = label.number % 100;
		if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(label.year, month))
			return std::nullopt;
		start = DaysFromCivil(label.year, month, day);
		break;
	}
	case Kind::kWeek:
		if (label.number < 1 || label.number > 53)
			return std::nullopt;
		start = FirstWeekStart(label.year, spec.week_start) + 7 * (label.number - 1);
		break;
	case Kind::kBiWeek:
		if (label.number < 1 || label.number > 27)
			return std::nullopt;
		start = FirstWeekStart(label.year, 1) + 14 * (label.number - 1);
		break;
	case Kind::kMonths:
		if (label.number < 1 || label.number > 12 / spec.months)
			return std::nullopt;
		start = FirstDayOfMonthIndex((label.year - spec.year_shift) * 12 + (spec.anchor_month - 1) +
		                             (label.number - 1) * spec.months);
		break;
	}
	const Period period = PeriodContaining(type, start);
	/* A week number past the year's last week lands in the next year and labels differently. */
	const Label again = LabelOf(spec, period);
	if (period.start != start || again.year != label.year || again.number != label.number)
		return std::nullopt;
	return period;
}

} // namespace

std::optional<PeriodType>
PeriodTypeFromName(std::string_view name) noexcept
{
	for (int i = 0; i < kPeriodTypeCount; ++i) {
		if (kSpecs[i].name == name)
			return static_cast<PeriodType>(i);
	}
	return std::nullopt;
}

std::string_view
PeriodTypeName(PeriodType type) noexcept
{
	const int index = static_cast<int>(type);
	return index < kPeriodTypeCount ? kSpecs[index].name : std::string_view();
}

Period
PeriodContaining(PeriodType type, int32_t day) noexcept
{
	const TypeSpec &spec = Spec(type);
	switch (spec.kind) {
	case Kind::kDaily:
		return Period{type, day, day};
	case Kind::kWeek: {
		const int32_t start = WeekStart(day, spec.week_start);
		return Period{type, start, start + 6};
	}
	case Kind::kBiWeek: {
		/* Back to the ISO week's Monday, and one more week if that week is even. In 53-week
		 * years this makes BiW27 (week 53 + next year's week 1) overlap next year's BiW1. */
		int32_t start = WeekStart(day, 1);
		if (WeekLabel(start).number % 2 == 0)
			start -= 7;
		return Period{type, start, start + 13};
	}
	case Kind::kMonths:
		break;
	}
	const int32_t first_month = PeriodStartMonth(spec, MonthIndex(day));
	return Period{type, FirstDayOfMonthIndex(first_month), FirstDayOfMonthIndex(first_month + spec.months) - 1};
}

void
AppendIsoPeriod(PeriodType type, int32_t day, std::string &out)
{
	const TypeSpec &spec = Spec(type);
	const Label label = LabelOf(spec, PeriodContaining(type, day));
	AppendNumber(out, label.year, 4);
	out += spec.infix;
	if (spec.max_digits > 0)
		AppendNumber(out, label.number, spec.min_digits);
	out += spec.suffix;
}

std::string
IsoPeriod(PeriodType type, int32_t day)
{
	std::string out;
	AppendIsoPeriod(type, day, out);
	return out;
}

std::optional<Period>
ParseIsoPeriod(std::string_view text) noexcept
{
	if (text.size() < 4)
		return std::nullopt;
	const std::optional<int32_t> year = ParseDigits(text.substr(0, 4));
	if (!year)
		return std::nullopt;
	const std::string_view rest = text.substr(4);

	/* The dashed aliases yyyy-MM and yyyy-MM-dd. */
	if (!rest.empty() && rest[0] == '-') {
		if (rest.size() == 3) {
			if (const auto month = ParseDigits(rest.substr(1, 2)))
				return PeriodFromLabel(PeriodType::kMonthly, Label{*year, *month});
		} else if (rest.size() == 6 && rest[3] == '-') {
			const auto month = ParseDigits(rest.substr(1, 2));
			const auto day = ParseDigits(rest.substr(4, 2));
			if (month && day)
				return PeriodFromLabel(PeriodType::kDaily, Label{*year, *month * 100 + *day});
		}
		return std::nullopt;
	}

	/* The infixes and suffixes are such that at most one type matches the whole text. */
	for (int i = 0; i < kPeriodTypeCount; ++i) {
		const TypeSpec &spec = kSpecs[i];
		if (rest.substr(0, spec.infix.size()) != spec.infix)
			continue;
		const std::string_view tail = rest.substr(spec.infix.size());
		const size_t digits = CountLeadingDigits(tail);
		if (digits < static_cast<size_t>(spec.min_digits) || digits > static_cast<size_t>(spec.max_digits) ||
		    tail.substr(digits) != spec.suffix)
			continue;
		const int32_t number = digits == 0 ? 1 : *ParseDigits(tail.substr(0, digits));
		return PeriodFromLabel(static_cast<PeriodType>(i), Label{*year, number});
	}
	return std::nullopt;
}

} // namespace datavalue_export::core
