/*
 * src/core/adx_period.hpp
 *	  ADX period notation: the period's start date and its type's ISO 8601 duration.
 *
 * DHIS2's AdxPeriod.serialize (2.42 dhis-services/dhis-service-dxf2 org.hisp.dhis.dxf2.adx.AdxPeriod,
 * 2.43 dhis-api org.hisp.dhis.dxf2.adx.AdxPeriod) writes `yyyy-MM-dd/<duration>`, the duration
 * being PeriodType.getIso8601Duration: P1D, P7D (every weekly type), P14D, P1M, P2M, P3M
 * (Quarterly and QuarterlyNov), P6M (every six-monthly type), P1Y (Yearly and every financial
 * year). The start is the stored period.startdate; end date and label year play no part, so
 * 2022Nov (FinancialNov, label year = end year) is 2021-11-01/P1Y.
 *
 * Never throws except std::bad_alloc.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/period.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* PeriodType.getIso8601Duration of a type ("P1M"); empty for a value outside the enum. */
std::string_view Iso8601Duration(PeriodType type) noexcept;

/* `yyyy-MM-dd/<duration>` for a period of `type` that starts on day `start` (PostgreSQL day number). */
std::string AdxPeriod(PeriodType type, int32_t start);

} // namespace datavalue_export::core
