/*
 * test/fuzz/fuzz_period.cpp
 *	  libFuzzer target: core/period's ISO period parser and formatter, both directions.
 *
 * Input byte 0 picks the direction:
 *   even: the rest is period text. If ParseIsoPeriod accepts it, the period is well formed
 *         (start <= end, it is the period of its type containing its start), formatting it
 *         gives text that parses back to the same period, and that text is the input itself
 *         unless the input used an accepted alternative spelling (yyyy-MM, yyyy-MM-dd, a week
 *         number with a leading zero).
 *   odd:  bytes 1-5 are a period type and a day of years 1000-9998. The period containing the
 *         day contains it, and IsoPeriod of it parses back to that very period.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/calendar.hpp"
#include "core/period.hpp"
#include "fuzz_check.hpp"

namespace core = datavalue_export::core;

namespace {

/* The input with DHIS2's accepted alternative spellings turned into IsoPeriod's. */
std::string
Canonical(std::string_view text, const core::Period &p)
{
	std::string s(text);
	if (p.type == core::PeriodType::kMonthly && s.size() == 7 && s[4] == '-')
		return s.substr(0, 4) + s.substr(5);
	if (p.type == core::PeriodType::kDaily && s.size() == 10 && s[4] == '-' && s[7] == '-')
		return s.substr(0, 4) + s.substr(5, 2) + s.substr(8);
	const size_t w = s.rfind('W');
	if (w != std::string::npos && w + 2 < s.size() && s[w + 1] == '0')
		s.erase(w + 1, 1);
	return s;
}

void
CheckWellFormed(const core::Period &p)
{
	FUZZ_CHECK(p.start <= p.end);
	FUZZ_CHECK(core::PeriodContaining(p.type, p.start) == p);
	/* Not PeriodContaining(p.type, p.end): 2020BiW27 (2020-12-28 .. 2021-01-10) overlaps 2021BiW1,
	 * and DHIS2 labels a period by its start. */
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if ((data[0] & 1) == 0) {
		const std::string_view text(reinterpret_cast<const char *>(data + 1), size - 1);
		const auto parsed = core::ParseIsoPeriod(text);
		if (!parsed)
			return 0;
		CheckWellFormed(*parsed);
		const std::string formatted = core::IsoPeriod(parsed->type, parsed->start);
		const auto again = core::ParseIsoPeriod(formatted);
		FUZZ_CHECK(again && *again == *parsed);
		FUZZ_CHECK(formatted == Canonical(text, *parsed));
		return 0;
	}
	if (size < 6)
		return 0;
	const auto type = static_cast<core::PeriodType>(data[1] % core::kPeriodTypeCount);
	uint32_t raw;
	std::memcpy(&raw, data + 2, sizeof raw);
	/* Four-digit years with room for a financial year that ends in the next one. */
	const int32_t first = core::DaysFromCivil(1000, 1, 1);
	const int32_t last = core::DaysFromCivil(9998, 12, 31);
	const int32_t day = first + static_cast<int32_t>(raw % static_cast<uint32_t>(last - first + 1));
	const core::Period p = core::PeriodContaining(type, day);
	FUZZ_CHECK(p.type == type && p.start <= day && day <= p.end);
	CheckWellFormed(p);
	const std::string iso = core::IsoPeriod(type, day);
	const auto parsed = core::ParseIsoPeriod(iso);
	FUZZ_CHECK(parsed && *parsed == p);
	return 0;
}
