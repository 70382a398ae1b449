/*
 * src/pg/export_session.hpp
 *	  The state of one running export, split by the boundary rule.
 *
 * ExportState holds every C++ object of an export (plan, writer, buffers, id maps). It is
 * created with new and deleted by a memory-context reset callback, so it is freed when the
 * export ends and also when the query errors out or is cancelled, without any C++ frame
 * being live at that point. ExportSession is the palloc'd, plain-C part that src/pg code
 * passes around; it points at the ExportState.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/document_plan.hpp"
#include "core/writer.hpp"
#include "core/gzip.hpp"
#include "core/id_map.hpp"
#include "core/output_buffer.hpp"
#include "core/row_sorter.hpp"
#include "core/validate.hpp"
#include "pg/pg_includes.hpp"

extern "C" {
#include "storage/buffile.h"
}

namespace datavalue_export::pg {

/* datavalue_export.sort_run_memory (kB): the size of one sorted run (export.cpp). */
extern int sort_run_memory_kb;

/* Flush rendered text to the client (or to a result row) once this much has accumulated. */
inline constexpr size_t kFlushBytes = 256 * 1024;

struct ExportState {
	core::ExportRequest request;
	core::ExportPlan plan;
	core::ResolvedMetadata metadata;
	core::PreparedDocument document;
	std::unique_ptr<core::GzipWriter> gzip;
	core::OutputBuffer text{kFlushBytes + 64 * 1024};
	core::OutputBuffer compressed;

	/* Requested objects, resolved to database ids. */
	std::vector<int64_t> data_set_ids;
	std::vector<int64_t> org_unit_roots;
	/* Reusable lists for intermediate lookups. */
	std::vector<int64_t> scratch_ids;
	std::vector<std::string> scratch_texts;

	/* Filter sets pushed into the main query (database ids). */
	std::vector<int64_t> data_element_ids;
	std::vector<int64_t> org_unit_ids;
	std::vector<int64_t> period_ids;
	bool filter_periods = false;
	/* The data element / org unit set is every row of its table (the scan need not filter). */
	bool all_data_elements = false;
	bool all_org_units = false;
	std::vector<int64_t> category_option_combo_ids;
	std::vector<int64_t> attribute_option_combo_ids;
	bool filter_attribute_option_combos = false;

	bool has_period_iso_column = true;

	/* Ordered exports: rows are sorted here instead of by the main query (row_sorter.hpp). */
	std::unique_ptr<core::RowSorter> sorter;
	std::unique_ptr<core::RunMerger> merger;
	std::vector<BufFile *> run_files; /* spilled runs; temporary files, removed at transaction end */
	core::OutputBuffer spill_buffer;

	/* Objects rows reference whose identifier is undefined under the output scheme, per IdKind. */
	std::vector<int64_t> used_undefined[core::kIdKindCount];
};

/* How the document leaves the function. */
enum class Sink { kCopyStream, kResultRows };

struct ExportSession {
	ExportState *state;
	Sink sink;
	int target_encoding; /* client (or COPY ENCODING) encoding */
	bool need_transcoding;
	Tuplestorestate *tuplestore;
	TupleDesc tupdesc;
	uint64 rows;
	uint64 bytes_sent;
	int64 last_updated_cutoff; /* resolved lastUpdated / lastUpdatedDuration, or DT_NOBEGIN */
	bool has_last_updated_cutoff;
	MemoryContext context; /* the export's own context (outlives SPI) */
	/* Ordered exports: paging applied while the sorted rows are written. */
	uint64 rows_to_skip;
	int64 rows_left; /* -1 = no limit */
};

/* copy_stream.cpp */
bool DetectCopyToStdout(Oid fn_oid, int *target_encoding);
void SendCopyData(const char *data, size_t size);
void NoteExportedRows(uint64 rows);
void InstallCopyTagHook();

/* lookups.cpp */
void ResolveMetadata(ExportSession *session);

/* Bound parameters of one datavalue query. */
inline constexpr int kMaxQueryParams = 12;
struct QueryParams {
	Oid types[kMaxQueryParams];
	Datum values[kMaxQueryParams];
	int nargs;
};

/* row_stream.cpp */
int AddParam(QueryParams *params, Oid type, Datum value);
ParamListInfo MakeParamList(const QueryParams *params);
void AppendDataValueFilters(ExportSession *session, StringInfo sql, QueryParams *params);
bool NothingCanMatch(const ExportState *state);
void StreamDataValues(ExportSession *session);
void FlushText(ExportSession *session, bool final);

} // namespace datavalue_export::pg
