/*
 * src/pg/row_stream.cpp
 *	  The row path: datavalue rows from SPI, through the writer, out as CopyData or result rows.
 *
 * The main query reads only datavalue, filtered by the id sets resolved in lookups.cpp, and
 * runs through SPI_execute_extended with our own DestReceiver: no row is ever materialised,
 * memory stays at one output batch whatever the export's size, and parallel plans remain
 * possible. Each row's five ids are mapped to pre-rendered identifiers, its texts are
 * escaped straight into the output buffer, and every kFlushBytes the buffer is converted to
 * the client encoding if needed, compressed if asked, and sent.
 *
 * receiveSlot runs PostgreSQL calls (detoast, CHECK_FOR_INTERRUPTS, sends) in a frame that
 * holds only plain data; the writer is reached through DVE_CORE.
 * SPDX-License-Identifier: PostgreSQL
 */
/* Core headers first: they refuse to follow PostgreSQL headers. */
#include "pg/export_session.hpp"
#include "pg/boundary.hpp"

namespace datavalue_export::pg {

namespace {

using core::IdKind;

/* Main query columns, in order. */
enum Column {
	kColDataElement,
	kColPeriod,
	kColOrgUnit,
	kColCategoryOptionCombo,
	kColAttributeOptionCombo,
	kColValue,
	kColStoredBy,
	kColCreated,
	kColLastUpdated,
	kColComment,
	kColFollowup,
	kColDeleted,
	kColCount
};

struct RowReceiver {
	DestReceiver pub; /* must be first */
	ExportSession *session;
};

/* A text column as a pointer and length, detoasting when needed; *copy is set if palloc'd. May ereport. */
core::TextField
ReadText(Datum datum, bool isnull, struct varlena **copy)
{
	core::TextField field;
	*copy = nullptr;
	if (isnull)
		return field;
	struct varlena *raw = reinterpret_cast<struct varlena *>(DatumGetPointer(datum));
	struct varlena *plain = raw;
	if (VARATT_IS_EXTENDED(raw)) {
		plain = pg_detoast_datum_packed(raw);
		if (plain != raw)
			*copy = plain;
	}
	field.data = VARDATA_ANY(plain);
	field.size = VARSIZE_ANY_EXHDR(plain);
	field.is_null = false;
	return field;
}

uint32_t
MapId(const ExportState *state, IdKind kind, Datum datum)
{
	const int64 id = DatumGetInt64(datum);
	const uint32_t index = state->document.maps[static_cast<size_t>(kind)].Get(id);
	/* The main query filters on the resolved sets, so this is a bug; the id is not shown, as
	 * it may belong to a row the role must not see. */
	if (index == core::IdMap::kNotFound)
		elog(ERROR, "data value references a %s outside the resolved metadata",
		     kind == IdKind::kDataElement ? "data element"
		     : kind == IdKind::kPeriod    ? "period"
		     : kind == IdKind::kOrgUnit   ? "organisation unit"
		                                  : "category option combo");
	return index;
}

int64
ReadTimestamp(Datum datum, const char *column)
{
	const Timestamp ts = DatumGetTimestamp(datum);
	if (TIMESTAMP_NOT_FINITE(ts))
		ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
		                errmsg("data value has an infinite \"%s\" timestamp", column),
		                errdetail("DHIS2 timestamps are always finite.")));
	return ts;
}

/* Sort the current run and write it to a new temporary file. May ereport. */
void
SpillRun(ExportSession *session)
{
	ExportState *state = session->state;
	MemoryContext previous = MemoryContextSwitchTo(session->context);
	BufFile *file = BufFileCreateTemp(false);
	MemoryContextSwitchTo(previous);
	DVE_CORE(state->run_files.push_back(file); state->sorter->SortRun());
	bool more = true;
	while (more) {
		DVE_CORE(state->spill_buffer.Clear(); more = state->sorter->SpillChunk(state->spill_buffer, 1024 * 1024));
		BufFileWrite(file, state->spill_buffer.Data(), state->spill_buffer.Size());
		CHECK_FOR_INTERRUPTS();
	}
	DVE_CORE(state->spill_buffer.Clear());
}

/* Append one sorted row, honouring offset and limit; flushes as needed. May ereport. */
void
EmitSorted(ExportSession *session, const core::DataValueRow &row)
{
	ExportState *state = session->state;
	if (session->rows_to_skip > 0) {
		session->rows_to_skip--;
		return;
	}
	if (session->rows_left == 0)
		return;
	if (session->rows_left > 0)
		session->rows_left--;
	DVE_CORE(state->document.writer->WriteRow(row, state->text));
	session->rows++;
	if (state->text.Size() >= kFlushBytes)
		FlushText(session, false);
}

/* Refill run r of the merge until it holds a whole record or its file is done. May ereport. */
void
RefillRun(ExportSession *session, BufFile *file, size_t run, char *buffer, size_t buffer_size)
{
	ExportState *state = session->state;
	for (;;) {
		size_t want = state->merger->BytesWanted(run);
		if (want == 0)
			return;
		/* Records can exceed the buffer (two 50,000-character texts): read it full, repeatedly. */
		size_t got = BufFileRead(file, buffer, buffer_size);
		if (got == 0) {
			state->merger->MarkExhausted(run);
			return;
		}
		DVE_CORE(state->merger->Feed(run, buffer, got));
	}
}

/*
 * How many runs one merge reads at once. A run being merged costs a read window plus a
 * BufFile buffer, about 32 kB at the smallest read size, so merging at most budget / 32 kB
 * runs keeps the merge near datavalue_export.sort_run_memory whatever the export's size;
 * more runs are first merged into fewer, longer ones (MergeRuns with an output file).
 */
size_t
MergeFanIn()
{
	const size_t run_bytes = static_cast<size_t>(sort_run_memory_kb) * 1024;
	return Max(run_bytes / (32 * 1024), static_cast<size_t>(4));
}

/*
 * Merge count sorted run files: into out as one longer run, or, when out is NULL, into the
 * document (offset and limit apply). May ereport.
 */
void
MergeRuns(ExportSession *session, BufFile **files, size_t count, BufFile *out)
{
	ExportState *state = session->state;
	DVE_CORE(state->merger = std::make_unique<core::RunMerger>(state->sorter->Plan(), count));
	/*
	 * Each run's read window grows to about one read: share the run budget among the runs
	 * (between 8 kB and 64 kB a read) so the merge stays near it too.
	 */
	const size_t run_bytes = static_cast<size_t>(sort_run_memory_kb) * 1024;
	const size_t buffer_size =
	    Min(Max(run_bytes / count, static_cast<size_t>(8 * 1024)), static_cast<size_t>(64 * 1024));
	char *buffer = static_cast<char *>(MemoryContextAlloc(session->context, buffer_size));
	for (size_t r = 0; r < count; r++) {
		if (BufFileSeek(files[r], 0, 0, SEEK_SET) != 0)
			ereport(ERROR, (errcode_for_file_access(), errmsg("could not rewind temporary sort file")));
		RefillRun(session, files[r], r, buffer, buffer_size);
	}
	DVE_CORE(state->merger->Start(); state->spill_buffer.Clear());
	uint64 merged = 0;
	while (!state->merger->Done() && (out != nullptr || session->rows_left != 0)) {
		if (out != nullptr) {
			DVE_CORE(core::EncodeRow(state->merger->Top(), state->spill_buffer));
			if (state->spill_buffer.Size() >= 64 * 1024) {
				BufFileWrite(out, state->spill_buffer.Data(), state->spill_buffer.Size());
				DVE_CORE(state->spill_buffer.Clear());
			}
		} else {
			const core::DataValueRow row = state->merger->Top();
			EmitSorted(session, row);
		}
		const size_t run = state->merger->TopRun();
		state->merger->Pop();
		RefillRun(session, files[run], run, buffer, buffer_size);
		DVE_CORE(state->merger->Reposition());
		if ((++merged & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (out != nullptr && state->spill_buffer.Size() > 0)
		BufFileWrite(out, state->spill_buffer.Data(), state->spill_buffer.Size());
	DVE_CORE(state->spill_buffer.Clear(); state->merger.reset());
	pfree(buffer);
}

/* Write the sorted rows: straight from memory for one run, else merge the spilled runs. May ereport. */
void
EmitSortedRows(ExportSession *session)
{
	ExportState *state = session->state;
	if (state->run_files.empty()) {
		DVE_CORE(state->sorter->SortRun());
		const size_t rows = state->sorter->RunRows();
		for (size_t i = 0; i < rows && session->rows_left != 0; i++) {
			const core::DataValueRow row = state->sorter->SortedRow(i);
			EmitSorted(session, row);
			if ((i & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		DVE_CORE(state->sorter->ClearRun());
		return;
	}
	if (!state->sorter->RunEmpty())
		SpillRun(session);
	/* Too many runs to merge at once within the budget: merge groups of them into longer runs first. */
	const size_t fan_in = MergeFanIn();
	while (state->run_files.size() > fan_in) {
		const size_t runs = state->run_files.size();
		for (size_t first = 0; first < runs; first += fan_in) {
			const size_t count = Min(fan_in, runs - first);
			MemoryContext previous = MemoryContextSwitchTo(session->context);
			BufFile *out = BufFileCreateTemp(false);
			MemoryContextSwitchTo(previous);
			DVE_CORE(state->merged_files.push_back(out));
			MergeRuns(session, state->run_files.data() + first, count, out);
			for (size_t r = first; r < first + count; r++) {
				BufFileClose(state->run_files[r]);
				state->run_files[r] = nullptr;
			}
		}
		DVE_CORE(state->run_files.swap(state->merged_files); state->merged_files.clear());
		state->merge_passes++;
	}
	MergeRuns(session, state->run_files.data(), state->run_files.size(), nullptr);
	for (BufFile *file : state->run_files)
		BufFileClose(file);
	DVE_CORE(state->run_files.clear());
	elog(DEBUG1, "datavalue_export: merged %d extra pass(es), fan-in %d", state->merge_passes,
	     static_cast<int>(fan_in));
}

bool
ReceiveSlot(TupleTableSlot *slot, DestReceiver *self)
{
	ExportSession *session = reinterpret_cast<RowReceiver *>(self)->session;
	ExportState *state = session->state;

	CHECK_FOR_INTERRUPTS();
	slot_getallattrs(slot);
	const Datum *values = slot->tts_values;
	const bool *nulls = slot->tts_isnull;

	core::DataValueRow row;
	row.ids[static_cast<size_t>(IdKind::kDataElement)] = MapId(state, IdKind::kDataElement, values[kColDataElement]);
	row.ids[static_cast<size_t>(IdKind::kPeriod)] = MapId(state, IdKind::kPeriod, values[kColPeriod]);
	row.ids[static_cast<size_t>(IdKind::kOrgUnit)] = MapId(state, IdKind::kOrgUnit, values[kColOrgUnit]);
	row.ids[static_cast<size_t>(IdKind::kCategoryOptionCombo)] =
	    MapId(state, IdKind::kCategoryOptionCombo, values[kColCategoryOptionCombo]);
	row.ids[static_cast<size_t>(IdKind::kAttributeOptionCombo)] =
	    MapId(state, IdKind::kAttributeOptionCombo, values[kColAttributeOptionCombo]);
	struct varlena *copies[3];
	row.value = ReadText(values[kColValue], nulls[kColValue], &copies[0]);
	row.stored_by = ReadText(values[kColStoredBy], nulls[kColStoredBy], &copies[1]);
	row.comment = ReadText(values[kColComment], nulls[kColComment], &copies[2]);
	row.created = ReadTimestamp(values[kColCreated], "created");
	row.last_updated = ReadTimestamp(values[kColLastUpdated], "lastupdated");
	row.followup = nulls[kColFollowup] ? -1 : (DatumGetBool(values[kColFollowup]) ? 1 : 0);
	row.deleted = !nulls[kColDeleted] && DatumGetBool(values[kColDeleted]);

	if (state->sorter)
		DVE_CORE(state->sorter->Add(row));
	else {
		DVE_CORE(state->document.writer->WriteRow(row, state->text));
		session->rows++;
	}
	for (struct varlena *copy : copies)
		if (copy != nullptr)
			pfree(copy);
	if (state->sorter ? state->sorter->RunFull() : state->text.Size() >= kFlushBytes) {
		if (state->sorter)
			SpillRun(session);
		else
			FlushText(session, false);
	}
	return true;
}

void
ReceiverStartup(DestReceiver *, int, TupleDesc typeinfo)
{
	if (typeinfo->natts != kColCount)
		elog(ERROR, "unexpected column count %d in the data value query", typeinfo->natts);
}

void
ReceiverShutdown(DestReceiver *)
{
}

void
ReceiverDestroy(DestReceiver *)
{
}

} // namespace

/* Add a bound parameter; returns its number ($n). */
int
AddParam(QueryParams *params, Oid type, Datum value)
{
	if (params->nargs >= kMaxQueryParams)
		elog(ERROR, "too many query parameters");
	params->types[params->nargs] = type;
	params->values[params->nargs] = value;
	return ++params->nargs;
}

/* Bound values become constants in the one-shot plan: hashed ANY lists, index use when selective. */
ParamListInfo
MakeParamList(const QueryParams *params)
{
	ParamListInfo list = makeParamList(params->nargs);
	for (int i = 0; i < params->nargs; i++) {
		list->params[i].value = params->values[i];
		list->params[i].isnull = false;
		list->params[i].pflags = PARAM_FLAG_CONST;
		list->params[i].ptype = params->types[i];
	}
	return list;
}

/* The WHERE clause every datavalue query of an export shares (alias dv). May ereport. */
void
AppendDataValueFilters(ExportSession *session, StringInfo sql, QueryParams *params)
{
	ExportState *state = session->state;
	bool first = true;
	const auto clause = [&]() {
		appendStringInfoString(sql, first ? " WHERE " : " AND ");
		first = false;
	};
	const auto add_ids = [&](const std::vector<int64_t> &ids, const char *column) {
		Datum *items = static_cast<Datum *>(palloc(sizeof(Datum) * (ids.size() + 1)));
		for (size_t i = 0; i < ids.size(); i++)
			items[i] = Int64GetDatum(ids[i]);
		const Datum array = PointerGetDatum(
		    construct_array(items, static_cast<int>(ids.size()), INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		const int n = AddParam(params, INT8ARRAYOID, array);
		clause();
		appendStringInfo(sql, "%s OPERATOR(pg_catalog.=) ANY($%d)", column, n);
	};
	/* A set that holds every row of its table filters nothing: leave it out of the scan. */
	if (!state->all_data_elements)
		add_ids(state->data_element_ids, "dv.dataelementid");
	if (!state->all_org_units)
		add_ids(state->org_unit_ids, "dv.sourceid");
	if (state->filter_periods)
		add_ids(state->period_ids, "dv.periodid");
	if (state->filter_category_option_combos)
		add_ids(state->category_option_combo_ids, "dv.categoryoptioncomboid");
	if (state->filter_attribute_option_combos)
		add_ids(state->attribute_option_combo_ids, "dv.attributeoptioncomboid");
	if (session->has_last_updated_cutoff) {
		clause();
		appendStringInfo(sql, "dv.lastupdated OPERATOR(pg_catalog.>=) $%d",
		                 AddParam(params, TIMESTAMPOID, TimestampGetDatum(session->last_updated_cutoff)));
	}
	if (!state->plan.request.include_deleted) {
		clause();
		appendStringInfoString(sql, "NOT dv.deleted");
	}
}

bool
NothingCanMatch(const ExportState *state)
{
	return state->data_element_ids.empty() || state->org_unit_ids.empty() ||
	       (state->filter_periods && state->period_ids.empty()) ||
	       (state->filter_category_option_combos && state->category_option_combo_ids.empty()) ||
	       (state->filter_attribute_option_combos && state->attribute_option_combo_ids.empty());
}

/*
 * Send (or store) the rendered text. final also ends the gzip member. May ereport.
 */
void
FlushText(ExportSession *session, bool final)
{
	ExportState *state = session->state;
	const char *data = state->text.Data();
	size_t size = state->text.Size();
	char *converted = nullptr;

	/* The buffer always ends at a row boundary, so it holds whole characters and converts cleanly. */
	if (size > 0 && session->need_transcoding) {
		converted = pg_server_to_any(data, static_cast<int>(size), session->target_encoding);
		if (converted != data) {
			data = converted;
			size = strlen(converted);
		} else
			converted = nullptr;
	}

	if (session->sink != Sink::kResultRows) {
		/* Inside COPY: to the client as CopyData, or to the server file or program. */
		const auto send = [session](const char *bytes, size_t n) {
			if (session->sink == Sink::kCopyStream)
				SendCopyData(bytes, n);
			else
				WriteServerTarget(session, bytes, n);
			session->bytes_sent += n;
		};
		if (state->gzip) {
			DVE_CORE({
				state->gzip->Write(data, size, state->compressed);
				if (final)
					state->gzip->Finish(state->compressed);
			});
			if (final || state->compressed.Size() >= kFlushBytes) {
				send(state->compressed.Data(), state->compressed.Size());
				state->compressed.Clear();
			}
		} else
			send(data, size);
		const int params[2] = {PROGRESS_COPY_TUPLES_PROCESSED, PROGRESS_COPY_BYTES_PROCESSED};
		const int64 progress[2] = {static_cast<int64>(session->rows), static_cast<int64>(session->bytes_sent)};
		pgstat_progress_update_multi_param(2, params, progress);
	} else if (size > 0) {
		Datum chunk = PointerGetDatum(cstring_to_text_with_len(data, static_cast<int>(size)));
		bool isnull = false;
		tuplestore_putvalues(session->tuplestore, session->tupdesc, &chunk, &isnull);
		pfree(DatumGetPointer(chunk));
		session->bytes_sent += size;
	}
	if (converted != nullptr)
		pfree(converted);
	state->text.Clear();
}

/* Run the main query, streaming every row into the writer. Call inside SPI. May ereport. */
void
StreamDataValues(ExportSession *session)
{
	ExportState *state = session->state;
	if (NothingCanMatch(state))
		return;

	QueryParams params;
	params.nargs = 0;
	StringInfoData sql;
	initStringInfo(&sql);
	appendStringInfo(&sql,
	                 "SELECT dv.dataelementid, dv.periodid, dv.sourceid, dv.categoryoptioncomboid, "
	                 "dv.attributeoptioncomboid, dv.value, dv.storedby, dv.created, dv.lastupdated, dv.comment, "
	                 "dv.followup, dv.deleted FROM %s.datavalue dv",
	                 state->dhis2_schema);
	AppendDataValueFilters(session, &sql, &params);

	/* Ordered exports sort in C++ (row_sorter.hpp): the query never sorts and never joins. */
	const bool ordered = !state->plan.unordered;
	if (ordered) {
		const size_t run_bytes = static_cast<size_t>(sort_run_memory_kb) * 1024;
		DVE_CORE(state->sorter = std::make_unique<core::RowSorter>(core::PlanSortKey(state->plan.order), run_bytes));
		session->rows_to_skip = state->plan.request.offset ? static_cast<uint64>(*state->plan.request.offset) : 0;
		session->rows_left = state->plan.request.limit ? *state->plan.request.limit : -1;
	} else {
		if (state->plan.request.limit)
			appendStringInfo(&sql, " LIMIT $%d", AddParam(&params, INT8OID, Int64GetDatum(*state->plan.request.limit)));
		if (state->plan.request.offset)
			appendStringInfo(&sql, " OFFSET $%d",
			                 AddParam(&params, INT8OID, Int64GetDatum(*state->plan.request.offset)));
	}

	RowReceiver *receiver = static_cast<RowReceiver *>(palloc0(sizeof(RowReceiver)));
	receiver->pub.receiveSlot = ReceiveSlot;
	receiver->pub.rStartup = ReceiverStartup;
	receiver->pub.rShutdown = ReceiverShutdown;
	receiver->pub.rDestroy = ReceiverDestroy;
	receiver->pub.mydest = DestNone;
	receiver->session = session;

	SPIExecuteOptions options;
	memset(&options, 0, sizeof options);
	options.params = MakeParamList(&params);
	options.read_only = true;
	options.tcount = 0;
	options.dest = &receiver->pub;
	const int rc = SPI_execute_extended(sql.data, &options);
	/* With a receiver of kind DestNone, SPI reports a SELECT as SPI_OK_UTILITY. */
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "data value query failed: %s", SPI_result_code_string(rc));
	if (ordered)
		EmitSortedRows(session);
}

} // namespace datavalue_export::pg
