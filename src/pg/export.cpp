/*
 * src/pg/export.cpp
 *	  SQL entry points: export_datavalues_json, export_datavalues_csv, export_datavalues.
 *
 * Each call: read the arguments into a core ExportRequest, validate it (core), find out where
 * the document goes (into a running COPY TO STDOUT, or as text rows), resolve the metadata,
 * stream the data values, and finish the document. All three functions share RunExport.
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

extern "C" {
DATAVALUE_EXPORT_MODULE_MAGIC;
void _PG_init(void);
}

namespace datavalue_export::pg {

int sort_run_memory_kb = 16 * 1024;

namespace {

/* Positions of the named parameters of export_datavalues_json/_csv (datavalue_export--1.0.sql). */
enum Argument {
	kArgDataSet,
	kArgDataElement,
	kArgDataElementGroup,
	kArgPeriod,
	kArgStartDate,
	kArgEndDate,
	kArgOrgUnit,
	kArgChildren,
	kArgOrgUnitGroup,
	kArgLevel,
	kArgIncludeDeleted,
	kArgLastUpdated,
	kArgLastUpdatedDuration,
	kArgAttributeOptionCombo,
	kArgCategoryOptionCombo,
	kArgAttributeCombo,
	kArgAttributeOptions,
	kArgLimit,
	kArgOffset,
	kArgOrder,
	kArgOrderByPeriod,
	kArgExcludeDefaultCoc,
	kArgExcludeDefaultAoc,
	kArgIdScheme,
	kArgDataElementIdScheme,
	kArgOrgUnitIdScheme,
	kArgCategoryOptionComboIdScheme,
	kArgAttributeOptionComboIdScheme,
	kArgDataSetIdScheme,
	kArgInputIdScheme,
	kArgInputOrgUnitIdScheme,
	kArgInputDataElementIdScheme,
	kArgInputDataSetIdScheme,
	kArgInputDataElementGroupIdScheme,
	kArgInputUseCodeFallback,
	kArgStyle,
	kArgCompression,
	kArgCompressionLevel,
	kArgCount
};

void
DeleteExportState(void *arg)
{
	ExportSession *session = static_cast<ExportSession *>(arg);
	/* Runs at normal end and on abort; destructors here never call PostgreSQL. */
	delete session->state;
	session->state = nullptr;
}

void
ReadTextArray(FunctionCallInfo fcinfo, int arg, std::vector<std::string> *out)
{
	if (PG_ARGISNULL(arg))
		return;
	ArrayType *array = PG_GETARG_ARRAYTYPE_P(arg);
	Datum *items;
	bool *nulls;
	int count;
	deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &count);
	for (int i = 0; i < count; i++) {
		if (nulls[i])
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			                errmsg("identifier lists must not contain NULL elements")));
		text *t = DatumGetTextPP(items[i]);
		const char *data = VARDATA_ANY(t);
		const size_t size = VARSIZE_ANY_EXHDR(t);
		DVE_CORE(out->emplace_back(data, size));
	}
}

void
ReadText(FunctionCallInfo fcinfo, int arg, std::optional<std::string> *out)
{
	if (PG_ARGISNULL(arg))
		return;
	text *t = PG_GETARG_TEXT_PP(arg);
	const char *data = VARDATA_ANY(t);
	const size_t size = VARSIZE_ANY_EXHDR(t);
	DVE_CORE(out->emplace(data, size));
}

bool
ReadBool(FunctionCallInfo fcinfo, int arg)
{
	return !PG_ARGISNULL(arg) && PG_GETARG_BOOL(arg);
}

void
ReadArguments(FunctionCallInfo fcinfo, core::ExportRequest *request)
{
	if (PG_NARGS() != kArgCount)
		elog(ERROR, "export function called with %d arguments, expected %d", PG_NARGS(), kArgCount);
	ReadTextArray(fcinfo, kArgDataSet, &request->data_set);
	ReadTextArray(fcinfo, kArgDataElement, &request->data_element);
	ReadTextArray(fcinfo, kArgDataElementGroup, &request->data_element_group);
	ReadTextArray(fcinfo, kArgPeriod, &request->period);
	if (!PG_ARGISNULL(kArgStartDate)) {
		const DateADT d = PG_GETARG_DATEADT(kArgStartDate);
		if (DATE_NOT_FINITE(d))
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("start_date must be finite")));
		request->start_date = d;
	}
	if (!PG_ARGISNULL(kArgEndDate)) {
		const DateADT d = PG_GETARG_DATEADT(kArgEndDate);
		if (DATE_NOT_FINITE(d))
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("end_date must be finite")));
		request->end_date = d;
	}
	ReadTextArray(fcinfo, kArgOrgUnit, &request->org_unit);
	request->children = ReadBool(fcinfo, kArgChildren);
	ReadTextArray(fcinfo, kArgOrgUnitGroup, &request->org_unit_group);
	if (!PG_ARGISNULL(kArgLevel))
		request->level = PG_GETARG_INT32(kArgLevel);
	request->include_deleted = ReadBool(fcinfo, kArgIncludeDeleted);
	if (!PG_ARGISNULL(kArgLastUpdated)) {
		const Timestamp ts = PG_GETARG_TIMESTAMP(kArgLastUpdated);
		if (TIMESTAMP_NOT_FINITE(ts))
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("last_updated must be finite")));
		request->last_updated = ts;
	}
	ReadText(fcinfo, kArgLastUpdatedDuration, &request->last_updated_duration);
	ReadTextArray(fcinfo, kArgAttributeOptionCombo, &request->attribute_option_combo);
	ReadTextArray(fcinfo, kArgCategoryOptionCombo, &request->category_option_combo);
	ReadText(fcinfo, kArgAttributeCombo, &request->attribute_combo);
	ReadTextArray(fcinfo, kArgAttributeOptions, &request->attribute_options);
	if (!PG_ARGISNULL(kArgLimit))
		request->limit = PG_GETARG_INT64(kArgLimit);
	if (!PG_ARGISNULL(kArgOffset))
		request->offset = PG_GETARG_INT64(kArgOffset);
	ReadText(fcinfo, kArgOrder, &request->order);
	request->order_by_period = ReadBool(fcinfo, kArgOrderByPeriod);
	request->exclude_default_coc = ReadBool(fcinfo, kArgExcludeDefaultCoc);
	request->exclude_default_aoc = ReadBool(fcinfo, kArgExcludeDefaultAoc);
	ReadText(fcinfo, kArgIdScheme, &request->id_scheme);
	ReadText(fcinfo, kArgDataElementIdScheme, &request->data_element_id_scheme);
	ReadText(fcinfo, kArgOrgUnitIdScheme, &request->org_unit_id_scheme);
	ReadText(fcinfo, kArgCategoryOptionComboIdScheme, &request->category_option_combo_id_scheme);
	ReadText(fcinfo, kArgAttributeOptionComboIdScheme, &request->attribute_option_combo_id_scheme);
	ReadText(fcinfo, kArgDataSetIdScheme, &request->data_set_id_scheme);
	ReadText(fcinfo, kArgInputIdScheme, &request->input_id_scheme);
	ReadText(fcinfo, kArgInputOrgUnitIdScheme, &request->input_org_unit_id_scheme);
	ReadText(fcinfo, kArgInputDataElementIdScheme, &request->input_data_element_id_scheme);
	ReadText(fcinfo, kArgInputDataSetIdScheme, &request->input_data_set_id_scheme);
	ReadText(fcinfo, kArgInputDataElementGroupIdScheme, &request->input_data_element_group_id_scheme);
	request->input_use_code_fallback = ReadBool(fcinfo, kArgInputUseCodeFallback);
	ReadText(fcinfo, kArgStyle, &request->style);
	ReadText(fcinfo, kArgCompression, &request->compression);
	if (!PG_ARGISNULL(kArgCompressionLevel))
		request->compression_level = PG_GETARG_INT32(kArgCompressionLevel);
}

/* lastUpdated, else now() minus lastUpdatedDuration, as a wall-clock timestamp like dv.lastupdated. */
void
ResolveLastUpdatedCutoff(ExportSession *session)
{
	const core::ExportPlan &plan = session->state->plan;
	if (plan.request.last_updated) {
		session->last_updated_cutoff = *plan.request.last_updated;
		session->has_last_updated_cutoff = true;
	} else if (plan.last_updated_duration_us) {
		const Timestamp now = DatumGetTimestamp(
		    DirectFunctionCall1(timestamptz_timestamp, TimestampTzGetDatum(GetCurrentTransactionStartTimestamp())));
		session->last_updated_cutoff = now - *plan.last_updated_duration_us;
		session->has_last_updated_cutoff = true;
	}
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

	/* Where the document goes: raw CopyData inside COPY TO STDOUT, else text rows. */
	int target_encoding = GetDatabaseEncoding();
	if (DetectCopyToStdout(fcinfo->flinfo->fn_oid, &target_encoding)) {
		session->sink = Sink::kCopyStream;
		session->target_encoding = target_encoding;
		session->need_transcoding = target_encoding != GetDatabaseEncoding() && GetDatabaseEncoding() != PG_SQL_ASCII &&
		                            target_encoding != PG_SQL_ASCII;
	} else {
		session->sink = Sink::kResultRows;
		if (state->plan.gzip)
			ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			                errmsg("compressed exports can only be written into COPY ... TO STDOUT"),
			                errdetail("A plain SELECT returns text rows, which cannot carry gzip bytes."),
			                errhint("Run it as COPY (SELECT export_datavalues_json(..., compression => 'gzip')) TO "
			                        "STDOUT, or psql's \\copy.")));
	}
	if (state->plan.gzip)
		DVE_CORE(state->gzip = std::make_unique<core::GzipWriter>(state->plan.gzip_engine, state->plan.gzip_level));

	ResolveLastUpdatedCutoff(session);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ResolveMetadata(session);
	DVE_CORE(state->document.writer->Begin(state->text));
	StreamDataValues(session);
	DVE_CORE(state->document.writer->End(state->text));
	FlushText(session, true);
	SPI_finish();

	if (session->sink == Sink::kCopyStream)
		NoteExportedRows(session->rows);
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
	session->tuplestore = rsinfo->setResult;
	session->tupdesc = rsinfo->setDesc;
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
	ReadArguments(fcinfo, &session->state->request);
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
	    "Memory for one sorted run of an ordered export; larger exports spill runs to temporary files.",
	    "Smaller runs also sort faster; memory use of an export stays near this size.", &pg::sort_run_memory_kb,
	    16 * 1024, 64, 1024 * 1024, PGC_USERSET, GUC_UNIT_KB, nullptr, nullptr, nullptr);
	pg::ReserveSettingPrefix("datavalue_export");
	pg::InstallCopyTagHook();
}
