/*
 * cli/progress.cpp
 *	  Formatting of the progress bar, plain progress lines and the summary (see progress.hpp).
 * SPDX-License-Identifier: PostgreSQL
 */
#include "progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace datavalue_export::cli {
namespace {

constexpr int kMinBarWidth = 10;

std::string
Printf(const char *format, double value)
{
	char buffer[64];
	std::snprintf(buffer, sizeof buffer, format, value);
	return buffer;
}

double
Rate(double amount, double seconds)
{
	return seconds > 0 ? amount / seconds : 0;
}

/* "12,345 / ~989,965 values", "12,345 values", or "" when the count is not readable. */
std::string
ValuesField(const ProgressSnapshot &snapshot, const char *separator)
{
	if (!snapshot.values)
		return "";
	std::string text = FormatCount(*snapshot.values);
	if (snapshot.estimate && *snapshot.estimate >= *snapshot.values)
		text += separator + ("~" + FormatCount(*snapshot.estimate));
	return text + " values";
}

std::string
EtaField(const ProgressSnapshot &snapshot)
{
	const std::optional<double> left = EstimateSecondsLeft(snapshot);
	/* Rounded up, so an ETA never reads 0:00 while work is left. */
	return left ? "ETA ~" + FormatDuration(std::ceil(*left)) : "ETA --";
}

} // namespace

int64_t
ValuesReceived(int64_t values_sent, int64_t bytes_sent, uint64_t bytes_received)
{
	if (values_sent <= 0 || bytes_sent <= 0 || bytes_received >= static_cast<uint64_t>(bytes_sent))
		return values_sent;
	return static_cast<int64_t>(static_cast<double>(values_sent) * static_cast<double>(bytes_received) /
	                            static_cast<double>(bytes_sent));
}

std::string
FormatCount(int64_t count)
{
	const bool negative = count < 0;
	/* Through unsigned, so the most negative count has a magnitude too. */
	const std::string digits =
	    std::to_string(negative ? 0 - static_cast<uint64_t>(count) : static_cast<uint64_t>(count));
	std::string out;
	for (size_t i = 0; i < digits.size(); i++) {
		if (i > 0 && (digits.size() - i) % 3 == 0)
			out += ',';
		out += digits[i];
	}
	return negative ? "-" + out : out;
}

std::string
FormatBytes(double bytes)
{
	if (bytes < 1000)
		return Printf("%.0f B", bytes);
	static const char *const kUnits[] = {"kB", "MB", "GB", "TB"};
	int unit = -1;
	do {
		bytes /= 1000;
		unit++;
	} while (bytes >= 1000 && unit < 3);
	/* Three significant digits, enough to see movement. */
	return Printf(bytes < 10 && unit >= 2 ? "%.2f " : "%.1f ", bytes) + kUnits[unit];
}

std::string
FormatDuration(double seconds)
{
	const long long total = seconds <= 0 ? 0 : static_cast<long long>(seconds);
	char buffer[32];
	if (total >= 3600)
		std::snprintf(buffer, sizeof buffer, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
	else
		std::snprintf(buffer, sizeof buffer, "%lld:%02lld", total / 60, total % 60);
	return buffer;
}

std::optional<double>
EstimateSecondsLeft(const ProgressSnapshot &snapshot)
{
	if (!snapshot.values || !snapshot.estimate || *snapshot.values <= 0 || snapshot.elapsed_seconds <= 0 ||
	    *snapshot.estimate < *snapshot.values)
		return std::nullopt;
	const double per_second = *snapshot.values / snapshot.elapsed_seconds;
	return (*snapshot.estimate - *snapshot.values) / per_second;
}

std::string
RenderBar(const ProgressSnapshot &snapshot, int width)
{
	std::string text;
	const std::string values = ValuesField(snapshot, " / ");
	if (!values.empty())
		text += values + "  ";
	text += FormatBytes(static_cast<double>(snapshot.bytes)) + "  " +
	        FormatBytes(Rate(static_cast<double>(snapshot.bytes), snapshot.elapsed_seconds)) + "/s  " +
	        EtaField(snapshot);

	const int room = width - 1 - static_cast<int>(text.size()) - 3; /* "[" "]" " " */
	if (room >= kMinBarWidth) {
		double fraction = 0;
		if (snapshot.values && snapshot.estimate && *snapshot.estimate > 0)
			fraction = std::min(1.0, static_cast<double>(*snapshot.values) / static_cast<double>(*snapshot.estimate));
		const int filled = static_cast<int>(fraction * room);
		text = "[" + std::string(filled, '#') + std::string(room - filled, '.') + "] " + text;
	}
	if (width > 1 && static_cast<int>(text.size()) > width - 1)
		text.resize(width - 1);
	return text;
}

std::string
RenderPlainLine(const ProgressSnapshot &snapshot)
{
	std::string text = "progress: ";
	const std::string values = ValuesField(snapshot, " of ");
	if (!values.empty())
		text += values + ", ";
	return text + FormatBytes(static_cast<double>(snapshot.bytes)) + ", " +
	       FormatBytes(Rate(static_cast<double>(snapshot.bytes), snapshot.elapsed_seconds)) + "/s, " +
	       EtaField(snapshot) + ", elapsed " + FormatDuration(snapshot.elapsed_seconds);
}

std::string
RenderSummary(const ProgressSnapshot &snapshot, bool values_exact)
{
	std::string text = "done: ";
	if (snapshot.values)
		text += (values_exact ? "" : "~") + FormatCount(*snapshot.values) + " values, ";
	/* Most exports take seconds: tenths say more than 0:00. */
	const std::string elapsed = snapshot.elapsed_seconds < 60 ? Printf("%.1f s", snapshot.elapsed_seconds)
	                                                          : FormatDuration(snapshot.elapsed_seconds);
	return text + FormatCount(static_cast<int64_t>(snapshot.bytes)) + " bytes (" +
	       FormatBytes(static_cast<double>(snapshot.bytes)) + ") in " + elapsed + ", " +
	       FormatBytes(Rate(static_cast<double>(snapshot.bytes), snapshot.elapsed_seconds)) + "/s";
}

} // namespace datavalue_export::cli
