/*
 * cli/progress.hpp
 *	  The text of datavalue-export's progress display: a one-line bar for terminals, a plain line
 *	  for logs, and the closing summary. Pure functions of a snapshot, so tests pin every field.
 *
 * Where the numbers come from (filled in by the caller):
 *   bytes     counted by the client as it writes them: exact;
 *   values    tuples_processed of the export's row in pg_stat_progress_copy (the extension
 *             updates it with every CopyData message it sends), scaled to the bytes that have
 *             arrived (ValuesReceived); absent when not readable;
 *   estimate  pg_class.reltuples of datavalue, the planner's row count of the whole table. No
 *             export has more values than the table has rows, so the bar and the ETA are upper
 *             bounds that are close for full exports and pessimistic for selective ones; shown
 *             with "~" for that reason.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace datavalue_export::cli {

struct ProgressSnapshot {
	double elapsed_seconds = 0; /* since the export was sent */
	uint64_t bytes = 0;
	std::optional<int64_t> values;
	std::optional<int64_t> estimate;
};

/*
 * The values that have reached this client: the server counts what it has sent, and megabytes of
 * it may still sit in socket buffers (a slow reader of the output holds them there), so its count
 * is scaled by the share of its sent bytes (bytes_processed) that arrived. Sent bytes carry sent
 * values in proportion closely enough for a progress bar.
 */
int64_t ValuesReceived(int64_t values_sent, int64_t bytes_sent, uint64_t bytes_received);

/* 1234567 -> "1,234,567". */
std::string FormatCount(int64_t count);

/* Decimal units: "999 B", "1.0 kB", "12.3 MB", "1.23 GB". */
std::string FormatBytes(double bytes);

/* "0:07", "12:34", "1:02:03" (whole seconds, truncated like a clock). */
std::string FormatDuration(double seconds);

/* Seconds left at the average rate so far, or nullopt when there is no basis for one. */
std::optional<double> EstimateSecondsLeft(const ProgressSnapshot &snapshot);

/*
 * The terminal line, at most width - 1 columns (no wrap), e.g.
 *   [#####.........] 12,345 / ~989,965 values  2.3 MB  1.2 MB/s  ETA ~0:21
 * The bar is left out when the line would be narrower than 10 columns of bar.
 */
std::string RenderBar(const ProgressSnapshot &snapshot, int width);

/* One log line for --progress=plain (no escape sequences). */
std::string RenderPlainLine(const ProgressSnapshot &snapshot);

/*
 * The closing line: values (with "~" unless values_exact), exact bytes, elapsed time and rate:
 *   done: 12,345 values, 2,345,678 bytes (2.3 MB) in 5.0 s, 469.1 kB/s
 */
std::string RenderSummary(const ProgressSnapshot &snapshot, bool values_exact);

} // namespace datavalue_export::cli
