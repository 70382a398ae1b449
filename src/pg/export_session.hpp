/*
 * src/pg/export_session.hpp
 *	  The state of one running export, split by stage, and the interface between the stages.
 *
 * The pipeline (one file a stage): entry_points.cpp (the SQL functions) -> arguments.cpp
 * (SQL arguments into an ExportRequest) -> metadata.cpp (the requested objects, the filter sets,
 * every output identifier, the writer) -> datavalue_query.cpp (the SQL over datavalue, the
 * result profile, the row receiver) -> ordering.cpp (sorted runs, spill, merge) -> sink.cpp
 * (COPY detection, CopyData or result rows, transcoding, compression, progress).
 *
 * Each stage owns one part of the state below and the others only read it. ExportState holds
 * every C++ object of an export. It is created with new and deleted by a memory-context reset
 * callback, so it is freed when the export ends and also when the query errors out or is
 * cancelled, without any C++ frame being live at that point. ExportSession is the palloc'd,
 * plain-C part that src/pg code passes around; it points at the ExportState.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/document_plan.hpp"
#include "core/gzip.hpp"
#include "core/id_map.hpp"
#include "core/model.hpp"
#include "core/output_buffer.hpp"
#include "core/path_order.hpp"
#include "core/compression_thread.hpp"
#include "core/render_thread.hpp"
#include "core/row_sorter.hpp"
#include "core/staged_rows.hpp"
#include "core/top_rows.hpp"
#include "core/validate.hpp"
#include "core/writer.hpp"
#include "core/zip.hpp"
#include "pg/pg_includes.hpp"

extern "C" {
#include "storage/fd.h"
}

namespace datavalue_export::pg {

/* datavalue_export.sort_run_memory (kB): the size of one sorted run (entry_points.cpp). */
extern int sort_run_memory_kb;
/* datavalue_export.client_send_buffer (kB; 0 = off): see sink.cpp EnlargeClientSendBuffer. */
extern int client_send_buffer_kb;
/* datavalue_export.direct_heap_scan: whole-table ordered exports read the heap without the executor. */
extern bool direct_heap_scan;
/* datavalue_export.metadata_in_use: an export of few values loads only the metadata they use. */
extern bool metadata_in_use;
/* datavalue_export.render_thread: an ordered export's final merge renders on a second core. */
enum RenderThreadSetting {
	kRenderOff,
	kRenderShared,     /* on: the thread, and the backend too while the thread is behind (byte streams) */
	kRenderThreadOnly, /* hidden: the thread alone, as before the backend shared (for measuring) */
	kRenderAlternate,  /* hidden: the backend renders every other batch, however fast the thread (for tests) */
};
extern int render_thread;
#ifdef DVE_FAULT_INJECTION
/*
 * Test builds only (make SANITIZE=1): datavalue_export.fault_cancel_mid_decode makes an ordered
 * export cancel itself while the stager's thread holds a chunk (datavalue_query.cpp MakeStager).
 */
extern bool fault_cancel_mid_decode;
/* Set as an export's state is deleted (entry_points.cpp DeleteExportState). */
extern std::atomic<bool> fault_teardown_begun;
#endif

/* Flush rendered text to the client (or to a result row) once this much has accumulated. */
inline constexpr size_t kFlushBytes = 256 * 1024;
/* The largest CopyData message sent (sink.cpp SendCopyData); a normal flush fits whole. */
inline constexpr size_t kMaxCopyMessage = 2 * kFlushBytes;

/*
 * Every SQL string the export builds is search_path-proof (see the README's Privileges
 * section): functions and operators are qualified with pg_catalog (OP("=") is
 * OPERATOR(pg_catalog.=)), DHIS2 tables with the schema resolved once per export (Table in
 * metadata.cpp), and RunExport runs all of it with search_path = pg_catalog, pg_temp on top.
 */
#define OP(op) "OPERATOR(pg_catalog." op ")"

/* The WHERE clause of every datavalue query: written by metadata.cpp, read by datavalue_query.cpp. */
struct DataValueFilters {
	/* Filter sets (database ids). */
	std::vector<int64_t> data_element_ids;
	std::vector<int64_t> org_unit_ids;
	std::vector<int64_t> period_ids;
	bool filter_periods = false;
	/* The data element / org unit set is every row of its table (the scan need not filter). */
	bool all_data_elements = false;
	bool all_org_units = false;
	std::vector<int64_t> category_option_combo_ids;
	bool filter_category_option_combos = false;
	std::vector<int64_t> attribute_option_combo_ids;
	bool filter_attribute_option_combos = false;
	/* Resolved lastUpdated / lastUpdatedDuration (datavalue_query.cpp, ResolveLastUpdatedCutoff). */
	int64_t last_updated_cutoff = 0;
	bool has_last_updated_cutoff = false;
};

/* metadata.cpp's working lists. */
struct MetadataScratch {
	std::vector<int64_t> data_set_ids;    /* requested data sets */
	std::vector<int64_t> org_unit_roots;  /* requested org units */
	std::vector<int64_t> org_unit_groups; /* requested org unit groups */
	std::vector<int64_t> ids;             /* reusable list for intermediate lookups */
	std::vector<std::string> texts;       /* idem */
	bool has_period_iso_column = true;    /* DHIS2 2.43 schema (period.iso) */
	/* Only the option combos of the export's values (and those it names) are loaded (LoadOptionCombos). */
	bool option_combos_in_use_only = false;
	/* ADX: the data elements of each requested data set (metadata.data_sets order), one query each. */
	std::vector<std::vector<int64_t>> data_set_elements;
	/*
	 * Periods whose identifier cannot be written, from metadata DHIS2 forbids (a NULL iso, an
	 * unknown period type, an infinite start where the start is needed): refused when a value
	 * of the export is in one (datavalue_query.cpp RefuseUnusablePeriods).
	 */
	struct UnusablePeriod {
		int64_t id;
		int sqlstate;
		std::string why, detail;
	};
	std::vector<UnusablePeriod> unusable_periods;
	/* An ordered export's org units with their paths, while it ranks them (LoadOrgUnitsInPathOrder). */
	core::PathOrder org_unit_paths;
	std::vector<uint32_t> path_order; /* its proposed order */
	std::string path_texts[2];        /* two adjacent paths of it, rebuilt to be compared */
};

/* Where a run to merge is: its file, or one of the sorter's two runs (a scan's last runs, kept in memory). */
enum class RunSource : uint8_t {
	kFile,
	kSortedRun,  /* RowSorter::ReadSortedRun */
	kFillingRun, /* RowSorter::ReadFillingRun */
};

/* A sorted run in a temporary file (ordering.cpp), written and read in large blocks, or in memory. */
struct RunFile {
	File file = -1;                      /* OpenTemporaryFile: removed when closed, or at transaction end */
	off_t size = 0;                      /* bytes written (or, in memory, to read) */
	off_t read_at = 0;                   /* the next byte the merge reads */
	RunSource source = RunSource::kFile; /* anything else: no file */
};

/* ordering.cpp: rows are sorted here instead of by the main query (core/row_sorter.hpp). */
struct Ordering {
	/* Paged exports keep only their first offset + limit rows (core/top_rows.hpp) while they fit. */
	std::unique_ptr<core::TopRows> top;
	std::unique_ptr<core::RowSorter> sorter; /* null for unordered exports and while top is used */
	/*
	 * The sorter's rows decoded on a second core (core/staged_rows.hpp), made at the scan's first
	 * heap tuple; staging turns false when the table's layout cannot be staged.
	 */
	std::unique_ptr<core::RowStager> stager;
	bool staging = false;
	/* The scan leaves deleted rows in (so PostgreSQL need not decode every tuple): drop them here. */
	bool filter_deleted = false;
	/*
	 * The id filters a direct heap read leaves to the stager (core::StagedFilter: no set, the
	 * query filters), and the sets of the option combo filters, whose maps hold every combo.
	 */
	core::StagedFilter staged_filter;
	core::IdMap option_combo_sets[2];
	/* For tuples the stager hands back: the scan's descriptor, and each query column's attribute. */
	TupleDesc staged_desc = nullptr;
	int staged_attributes[core::kTupleFieldCount] = {0};
	/* An unordered export's direct heap read decodes each tuple in its page by this layout. */
	std::unique_ptr<core::TupleLayout> heap_layout;
	std::unique_ptr<core::RunMerger> merger;
	/* The final merge's rows rendered on a second core: the records queued, the text taken back. */
	std::unique_ptr<core::RenderThread> renderer;
	core::OutputBuffer render_batch;
	std::unique_ptr<core::OutputBuffer> rendered;
	bool render_here_too = false;      /* the backend renders batches too while the thread is behind */
	uint64_t render_batches = 0;       /* batches queued so far (render_thread = alternate) */
	std::vector<RunFile> run_files;    /* spilled runs */
	RunFile pending_run;               /* the run the sorter's worker is writing */
	std::vector<int> run_levels;       /* per run: how many merges made it (ordering.cpp CascadeRuns) */
	std::vector<RunFile> merged_files; /* runs written by the current merge pass */
	int merge_passes = 0;              /* run groups merged before the final merge (DEBUG1) */
	std::vector<int64_t> period_batch; /* datavalue_query.cpp ExecutePageByPeriods */
	core::OutputBuffer spill_buffer;
	/* Paging applied while the sorted rows are written. */
	uint64_t rows_to_skip = 0;
	int64_t rows_left = -1; /* -1 = no limit */
	/* Grouping formats (ADX): the open group's key; rows arrive sorted by it (PE, OU, AOC). */
	bool grouping = false;
	bool group_open = false;
	uint32_t data_set = 0; /* index into the data sets of the current query */
	uint32_t group_key[3] = {0, 0, 0};

	Ordering() = default;
	Ordering(const Ordering &) = delete;
	Ordering &operator=(const Ordering &) = delete;
	/*
	 * Join the worker threads before any member is freed: the stager's thread reads
	 * option_combo_sets (declared after it, so freed first) and the document's id maps, the
	 * render thread the document's writer. A cancel or an error mid-scan tears the export down
	 * (DeleteExportState) while the stager may still be decoding a chunk.
	 */
	~Ordering()
	{
		renderer.reset();
		stager.reset();
		sorter.reset();
	}
};

/* sink.cpp: the rendered document on its way out. */
struct SinkBuffers {
	core::OutputBuffer text{kFlushBytes + 64 * 1024};
	std::unique_ptr<core::CompressionThread> gzip; /* compression=gzip, on a second core */
	core::OutputBuffer transcoded;                 /* text in the target encoding, for the compressor */
	std::unique_ptr<core::ZipWriter> zip;          /* compression=zip */
	core::OutputBuffer compressed;
};

struct ExportState {
	/* The schema of the DHIS2 tables (metadata.cpp ResolveDhis2Schema), quoted for SQL, and its OID. */
	char dhis2_schema[2 * NAMEDATALEN + 3] = {0};
	Oid dhis2_schema_oid = InvalidOid;

	core::ExportRequest request;     /* entry_points.cpp / arguments.cpp */
	core::ExportPlan plan;           /* entry_points.cpp (ValidateRequest) */
	core::ResolvedMetadata metadata; /* metadata.cpp, datavalue_query.cpp (profile) */
	core::PreparedDocument document; /* metadata.cpp: the writer and the id maps */
	DataValueFilters filters;
	MetadataScratch scratch;
	Ordering ordering; /* after document: its threads read the writer and the id maps until ~Ordering */
	SinkBuffers out;
	/* Objects rows reference whose identifier is undefined under the output scheme, per IdKind (profile). */
	std::vector<int64_t> used_undefined[core::kIdKindCount];
	/*
	 * A page ("limit") of an ordered export uses ids without a value under their scheme somewhere
	 * in the whole result (used_undefined): whether that is E8201-E8203 depends on the page's own
	 * rows, as DHIS2 encodes only what it returns. Decided in ordering.cpp before any output.
	 */
	bool check_page_identifiers = false;
	/*
	 * The same page under a non-UID org unit or AOC scheme: DHIS2 hoists the org unit common to
	 * the values it returns, and the AOC of a one-value result, so the document begins once the
	 * page is known (ordering.cpp BeginPage).
	 */
	bool header_from_page = false;
	/*
	 * The same for an ordered export whose objects all have identifiers, whole or a page too long
	 * to keep in memory: its sorted rows decide the header, instead of a pass over its values
	 * before the scan (ordering.cpp BeginSortedDocument; BeginPage clears it for a page it keeps).
	 */
	bool header_after_scan = false;
	/* Rows left out because an id has no metadata row (core::StagedDecode::kNoMetadata). */
	uint64_t rows_without_metadata = 0;
	/*
	 * An unordered query's page, counted in exported values as DHIS2's joined query counts them
	 * (values left out above do not count): values still to skip, and still to write (-1: no
	 * limit; 0 ends the scan). Set per query (ADX pages each data set).
	 */
	int64_t page_skip = 0;
	int64_t page_left = -1;
};

/* How the document leaves the function. */
enum class SinkKind { kCopyStream, kResultRows, kServerFile, kServerProgram };

/* Where the running COPY statement sends this call's rows (sink.cpp). */
enum class CopyTarget { kNone, kClient, kServerFile, kServerProgram };

/* sink.cpp's plain-C part. */
struct SinkTarget {
	SinkKind kind;
	int target_encoding; /* client (or COPY ENCODING) encoding */
	bool need_transcoding;
	Tuplestorestate *tuplestore;
	TupleDesc tupdesc;
	uint64 bytes_sent;
	/* COPY TO 'file' / TO PROGRAM: the target, its stream, the temporary file name, renamed yet. */
	char *server_target;
	FILE *server_stream;
	char *server_tmp_path;
	bool server_done;
	/* The client socket's send buffer before the export raised it (sink.cpp); 0 when untouched. */
	int original_send_buffer;
};

struct ExportSession {
	ExportState *state;
	SinkTarget sink;
	uint64 rows;           /* values written into the document */
	MemoryContext context; /* the export's own context (outlives SPI) */
};

/* arguments.cpp */
void ReadArguments(FunctionCallInfo fcinfo, core::Format format, core::ExportRequest *request);

/* metadata.cpp */
void ResolveDhis2Schema(ExportState *state);
void ResolveMetadata(ExportSession *session);
char *Table(const ExportState *state, const char *name);
Datum Int8Array(const std::vector<int64_t> &values);
int64 GetInt64(HeapTuple tuple, int column);
void RunMetadataQuery(const char *sql, int nargs, Oid *types, Datum *values);
ParamListInfo MakeParamList(int nargs, const Oid *types, const Datum *values);
void InitReceiver(DestReceiver *receiver, bool (*receive)(TupleTableSlot *, DestReceiver *),
                  void (*startup)(DestReceiver *, int, TupleDesc));
bool IdsEstimatedAtOnce(size_t count);
char *IdsAnySql(const char *column, int param, size_t count);
void ExecuteInto(const char *sql, ParamListInfo params, DestReceiver *dest, const char *what);
char *IdentifierSql(const core::IdScheme &scheme, const char *alias = "t");
void IdsOf(const core::IdentifierList &objects, std::vector<int64_t> *ids);

/* adx_metadata.cpp */
void ResolveAdxMetadata(ExportState *state);

/* Bound parameters of one datavalue query. */
inline constexpr int kMaxQueryParams = 16;
struct QueryParams {
	Oid types[kMaxQueryParams];
	Datum values[kMaxQueryParams];
	int nargs;
};

/* datavalue_query.cpp */
void ResolveLastUpdatedCutoff(ExportState *state);
int AddParam(QueryParams *params, Oid type, Datum value);
bool RestrictToObjectsInUse(ExportSession *session, StringInfo selection_sql, QueryParams *params, const char *what,
                            const char *connector, const char *id_column, const char *value_ids,
                            const std::vector<int64_t> *named = nullptr, double *selected = nullptr);
bool NothingCanMatch(const ExportState *state);
double EstimatedRows(const char *sql, const QueryParams *params);
void ProfileDataValues(ExportSession *session);
void RefuseUnusablePeriods(ExportSession *session);
void StreamDataValues(ExportSession *session);

/* ordering.cpp */
void BeginDocument(ExportSession *session);
void BeginEmptyPage(ExportSession *session);
void StartOrdering(ExportSession *session);
void AddToOrdering(ExportSession *session, const core::DataValueRow &row);
void AddEncodedToOrdering(ExportSession *session, const core::EncodedRows &rows);
void FinishOrdering(ExportSession *session);

/* sink.cpp */
void OpenSink(FunctionCallInfo fcinfo, ExportSession *session);
void CloseSink(ExportSession *session);
void EmitRow(ExportSession *session, const core::DataValueRow &row);
void FlushText(ExportSession *session, bool final);
void NoteExportedRows(uint64 rows);
void InstallCopyTagHook();

} // namespace datavalue_export::pg
