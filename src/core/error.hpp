/*
 * src/core/error.hpp
 *	  The one exception type core code throws for user-facing problems.
 *
 * It carries a SQLSTATE (five characters) plus the PostgreSQL-style message parts, so the
 * boundary in src/pg maps it one to one onto ereport. Anything else that escapes core code
 * (std::bad_alloc, a logic error) is reported as an internal error.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <stdexcept>
#include <string>

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* SQLSTATEs used by the extension; names follow PostgreSQL's errcodes.txt. */
namespace sqlstate {
inline constexpr const char *kInvalidParameterValue = "22023";
inline constexpr const char *kInvalidTextRepresentation = "22P02";
inline constexpr const char *kInvalidDatetimeFormat = "22007";
inline constexpr const char *kDatetimeValueOutOfRange = "22008";
inline constexpr const char *kInvalidRowCountInLimit = "2201W";
inline constexpr const char *kInvalidRowCountInOffset = "2201X";
inline constexpr const char *kUndefinedObject = "42704";
inline constexpr const char *kFeatureNotSupported = "0A000";
inline constexpr const char *kUndefinedParameter = "42P02";
inline constexpr const char *kSyntaxError = "42601";
inline constexpr const char *kDataException = "22000";
inline constexpr const char *kNullValueNotAllowed = "22004";
inline constexpr const char *kInternalError = "XX000";
inline constexpr const char *kOutOfMemory = "53200";
inline constexpr const char *kInsufficientResources = "53000";
inline constexpr const char *kProgramLimitExceeded = "54000";
} // namespace sqlstate

class Error : public std::runtime_error {
  public:
	Error(const char *sqlstate, std::string message, std::string detail = {}, std::string hint = {})
	    : std::runtime_error(message), sqlstate_(sqlstate), detail_(std::move(detail)), hint_(std::move(hint))
	{
	}

	const char *Sqlstate() const noexcept { return sqlstate_; }
	const std::string &Detail() const noexcept { return detail_; }
	const std::string &Hint() const noexcept { return hint_; }

  private:
	const char *sqlstate_;
	std::string detail_;
	std::string hint_;
};

} // namespace datavalue_export::core
