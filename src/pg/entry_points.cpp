/*
 * src/pg/entry_points.cpp
 *	  SQL entry points: export_datavalues_json, _csv, _xml, _adx, export_datavalues, and
 *	  _PG_init (the datavalue_export.* settings, the COPY command tag hook).
 *
 * Each call runs the pipeline of export_session.hpp: read the arguments into a core
 * ExportRequest (arguments.cpp, or the query string in core), validate it (core), find out where
 * the document goes (sink.cpp), resolve the metadata (metadata.cpp), stream the data values
 * (datavalue_query.cpp, ordering.cpp), and finish the document. All three functions share
 * RunExport.
 *
 * The C++ state of an export (ExportState) is heap-allocated and owned by a reset callback
 * on the export's memory context, so an error or a cancel anywhere frees it: no C++ object
 * lives on the stack of a frame that calls PostgreSQL.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/query_string.hpp"
/* Core headers first: they refuse to follow PostgreSQL headers. */
#include "pg/export_session.hpp"
#include "pg/boundary.hpp"

#include <malloc.h> /* malloc_trim */

extern "C" {
DATAVALUE_EXPORT_MODULE_MAGIC;
void _PG_init(void);
}

namespace datavalue_export::pg {

int sort_run_memory_kb = 32 * 1024;
int client_send_buffer_kb = 2 * 1024;
bool direct_heap_scan = true;
bool metadata_in_use = true;
int render_thread = kRenderShared;
#ifdef DVE_FAULT_INJECTION
bool fault_cancel_mid_decode = false;
std::atomic<bool> fault_teardown_begun{false};
#endif

namespace {

/*
 * datavalue_export.render_thread: on and off for users (with PostgreSQL's boolean spellings);
 * thread_only and alternate are hidden, for measuring and testing the backend's share.
 */
const config_enum_entry kRenderThreadOptions[] = {
    {"on", kRenderShared, false},
    {"off", kRenderOff, false},
    {"true", kRenderShared, true},
    {"false", kRenderOff, true},
    {"yes", kRenderShared, true},
    {"no", kRenderOff, true},
    {"1", kRenderShared, true},
    {"0", kRenderOff, true},
    {"thread_only", kRenderThreadOnly, true},
    {"alternate", kRenderAlternate, true},
    {nullptr, 0, false},
};

void
DeleteExportState(void *arg)
{
	ExportSession *session = static_cast<ExportSession *>(arg);
	/* Runs at normal end and on abort; destructors here never call PostgreSQL. */
#ifdef DVE_FAULT_INJECTION
	fault_teardown_begun = true;
#endif
	delete session->state;
	session->state = nullptr;
#ifdef __GLIBC__
	/*
	 * glibc keeps what the export freed (its threads' arenas, the runs' buffers) for reuse: a
	 * pooled backend held 200-400 MB after a few ordered or gzip exports of 1M values. Give it
	 * back, so the backend returns to its size between exports.
	 */
	malloc_trim(0);
#endif
}

/*
 * The shared body of every entry point: request -> document. The request is already in
 * session->state->request. May ereport.
 */
Datum
RunExport(FunctionCallInfo fcinfo, ExportSession *session)
{
	ExportState *state = session->state;
	DVE_CORE(state->plan = core::ValidateRequest(std::move(state->request)));
	OpenSink(fcinfo, session);
	ResolveLastUpdatedCutoff(state);
	ResolveDhis2Schema(state);
	/*
	 * The export's own SQL is schema-qualified throughout; on top of that it runs with
	 * search_path = pg_catalog, pg_temp, as a SECURITY DEFINER function with SET would, so no
	 * schema another role can write to takes part in resolving a name. An error unwinds the
	 * setting with the transaction.
	 */
	const int guc_level = NewGUCNestLevel();
	(void)set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0,
	                        false);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ResolveMetadata(session);
	BeginDocument(session); /* or, for a page that decides its header, once the page is known */
	StreamDataValues(session);
	DVE_CORE(state->document.writer->End(state->out.text));
	FlushText(session, true);
	SPI_finish();
	AtEOXact_GUC(true, guc_level);
	CloseSink(session);
	return (Datum)0;
}

/* Set up the result, the memory context and the C++ state; returns the session. May ereport. */
ExportSession *
BeginSession(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
	if (rsinfo == nullptr || !IsA(rsinfo, ReturnSetInfo) || (rsinfo->allowedModes & SFRM_Materialize) == 0)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("set-valued function called in context that cannot accept a set")));
	/* The result (text chunks; none inside COPY) lives as long as the query. */
	MemoryContext previous = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	TupleDesc tupdesc = CreateTemplateTupleDesc(1);
	TupleDescInitEntry(tupdesc, 1, "chunk", TEXTOID, -1, 0);
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = tuplestore_begin_heap((rsinfo->allowedModes & SFRM_Materialize_Random) != 0, false, work_mem);
	rsinfo->setDesc = tupdesc;
	MemoryContextSwitchTo(previous);

	MemoryContext export_context =
	    AllocSetContextCreate(CurrentMemoryContext, "datavalue_export", ALLOCSET_DEFAULT_SIZES);
	ExportSession *session =
	    static_cast<ExportSession *>(MemoryContextAllocZero(export_context, sizeof(ExportSession)));
	session->context = export_context;
	session->sink.tuplestore = rsinfo->setResult;
	session->sink.tupdesc = rsinfo->setDesc;
	MemoryContextCallback *callback =
	    static_cast<MemoryContextCallback *>(MemoryContextAllocZero(export_context, sizeof(MemoryContextCallback)));
	DVE_CORE(session->state = new ExportState());
	callback->func = DeleteExportState;
	callback->arg = session;
	MemoryContextRegisterResetCallback(export_context, callback);
	return session;
}

void
EndSession(ExportSession *session)
{
	MemoryContextDelete(GetMemoryChunkContext(session));
}

Datum
ExportWithArguments(FunctionCallInfo fcinfo, core::Format format)
{
	ExportSession *session = BeginSession(fcinfo);
	ReadArguments(fcinfo, format, &session->state->request);
	session->state->request.format = format;
	RunExport(fcinfo, session);
	EndSession(session);
	return (Datum)0;
}

} // namespace

} // namespace datavalue_export::pg

using namespace datavalue_export;

DVE_PG_FUNCTION(datavalue_export_json)
{
	return pg::ExportWithArguments(fcinfo, core::Format::kJson);
}

DVE_PG_FUNCTION(datavalue_export_csv)
{
	return pg::ExportWithArguments(fcinfo, core::Format::kCsv);
}

DVE_PG_FUNCTION(datavalue_export_xml)
{
	return pg::ExportWithArguments(fcinfo, core::Format::kXml);
}

DVE_PG_FUNCTION(datavalue_export_adx)
{
	return pg::ExportWithArguments(fcinfo, core::Format::kAdx);
}

/* export_datavalues(query text): a DHIS2 request's query string, verbatim. */
DVE_PG_FUNCTION(datavalue_export_query)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("query string must not be NULL")));
	text *query = PG_GETARG_TEXT_PP(0);
	const char *data = VARDATA_ANY(query);
	const size_t size = VARSIZE_ANY_EXHDR(query);
	pg::ExportSession *session = pg::BeginSession(fcinfo);
	DVE_CORE(session->state->request = core::ParseQueryString(std::string_view(data, size)));
	pg::RunExport(fcinfo, session);
	pg::EndSession(session);
	return (Datum)0;
}

void
_PG_init(void)
{
	DefineCustomIntVariable(
	    "datavalue_export.sort_run_memory",
	    "Memory for the sorted runs of an ordered export; larger exports spill runs to temporary files.",
	    "Smaller runs also sort faster; an export's memory stays near this size (plus about 10 MB).",
	    &pg::sort_run_memory_kb, 32 * 1024, 64, 1024 * 1024, PGC_USERSET, GUC_UNIT_KB, nullptr, nullptr, nullptr);
	DefineCustomIntVariable(
	    "datavalue_export.client_send_buffer",
	    "Send buffer a COPY export asks for on a client's Unix socket while it runs; 0 leaves the socket as it is.",
	    "The kernel caps it at net.core.wmem_max and doubles it. A larger buffer lets the backend render while a "
	    "local client is still writing what it received.",
	    &pg::client_send_buffer_kb, 2 * 1024, 0, 256 * 1024, PGC_USERSET, GUC_UNIT_KB, nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
	    "datavalue_export.direct_heap_scan",
	    "Ordered exports that read all of datavalue read its heap pages directly instead of through a query.",
	    "Only for a plain heap table the role may read whole, without row security or inheritance children. Off "
	    "runs the query, e.g. for an extension that must see it.",
	    &pg::direct_heap_scan, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
	    "datavalue_export.metadata_in_use",
	    "An export the planner expects to have few values loads only the org units and option combos they use.",
	    "Few: under a quarter of the objects selected. The document is the same either way; off loads every one "
	    "selected.",
	    &pg::metadata_in_use, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
	DefineCustomEnumVariable(
	    "datavalue_export.render_thread",
	    "Ordered exports render the merged rows on a second core while the backend merges and sends.",
	    "The backend renders a share too whenever that thread is behind. Off renders them on the backend, as "
	    "unordered exports do.",
	    &pg::render_thread, pg::kRenderShared, pg::kRenderThreadOptions, PGC_USERSET, 0, nullptr, nullptr, nullptr);
#ifdef DVE_FAULT_INJECTION
	DefineCustomBoolVariable(
	    "datavalue_export.fault_cancel_mid_decode",
	    "Test builds only: an ordered export cancels itself while the stager's thread holds a chunk.", nullptr,
	    &pg::fault_cancel_mid_decode, false, PGC_USERSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, nullptr, nullptr,
	    nullptr);
#endif
	pg::ReserveSettingPrefix("datavalue_export");
	pg::InstallCopyTagHook();
}
