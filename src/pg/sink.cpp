/*
 * src/pg/sink.cpp
 *	  Where the document goes: straight into a running COPY ... TO STDOUT, or text result rows;
 *	  converted to the client encoding (XML: always UTF-8), gzip- or zip-compressed if asked, with
 *	  COPY progress reporting.
 *
 * When the export function runs inside `COPY (SELECT ...) TO STDOUT`, PostgreSQL has already
 * sent CopyOutResponse before the query starts and will send CopyDone and the command tag
 * after it. In between, the function sends the document itself as CopyData messages and
 * returns no rows, so the client (psql \copy, PgJDBC CopyManager) receives the bytes exactly,
 * without COPY's text or CSV escaping. Detection is strict: anything but a plain COPY of a
 * query to the client either falls back to result rows or is a clear error.
 *
 * The command tag would then say "COPY 0"; a ProcessUtility hook, active once the library is
 * loaded (preload it to cover the first statement of a session), patches in the number of
 * exported values.
 *
 * The rendered text accumulates in ExportState::out.text and leaves every kFlushBytes (at a
 * row boundary, so it holds whole characters and converts cleanly).
 * SPDX-License-Identifier: PostgreSQL
 */
#include "pg/export_session.hpp"
#include "pg/boundary.hpp"

namespace datavalue_export::pg {

namespace {

ProcessUtility_hook_type previous_process_utility = nullptr;
/* Values exported by the current COPY statement; -1 when no export ran in it. */
int64 exported_rows_in_statement = -1;

/* The CopyStmt of the portal this function runs in, or NULL when it is not a COPY. */
CopyStmt *
ActiveCopyStatement()
{
	Portal portal = ActivePortal;
	if (portal == nullptr || portal->commandTag != CMDTAG_COPY || list_length(portal->stmts) != 1)
		return nullptr;
	PlannedStmt *planned = linitial_node(PlannedStmt, portal->stmts);
	if (planned->commandType != CMD_UTILITY || planned->utilityStmt == nullptr || !IsA(planned->utilityStmt, CopyStmt))
		return nullptr;
	return castNode(CopyStmt, planned->utilityStmt);
}

/*
 * The call is to this very function: a plain call whose name, as the parser would resolve it
 * (schema qualification and search_path), names only this function. A same-named wrapper in
 * another schema that calls the export inside a COPY therefore does not hand it the stream.
 */
bool
IsCallOf(Node *node, Oid fn_oid, const char *function_name)
{
	if (node == nullptr || !IsA(node, FuncCall))
		return false;
	FuncCall *call = castNode(FuncCall, node);
	if (call->agg_order != NIL || call->agg_filter != nullptr || call->over != nullptr || call->agg_star ||
	    call->agg_distinct || call->func_variadic || strcmp(strVal(llast(call->funcname)), function_name) != 0)
		return false;
	FuncCandidateList candidates = FuncnameGetCandidates(call->funcname, -1, NIL, false, false, false, true);
	if (candidates == nullptr)
		return false;
	for (FuncCandidateList c = candidates; c != nullptr; c = c->next)
		if (c->oid != fn_oid)
			return false;
	return true;
}

/*
 * True when the COPY's query is exactly `SELECT f(...)` or `SELECT * | c FROM f(...) [c]` for
 * this function: only then are the function's rows the COPY's rows, so that writing the
 * document instead is the same as returning it. Anything else (an aggregate over the chunks,
 * a UNION, a wrapper function, LIMIT) gets ordinary result rows.
 */
bool
IsDirectExportQuery(Node *query, Oid fn_oid, const char *function_name)
{
	if (query == nullptr || !IsA(query, SelectStmt))
		return false;
	SelectStmt *select = castNode(SelectStmt, query);
	if (select->op != SETOP_NONE || select->distinctClause != NIL || select->intoClause != nullptr ||
	    select->whereClause != nullptr || select->groupClause != NIL || select->havingClause != nullptr ||
	    select->windowClause != NIL || select->valuesLists != NIL || select->sortClause != NIL ||
	    select->limitOffset != nullptr || select->limitCount != nullptr || select->lockingClause != NIL ||
	    select->withClause != nullptr || list_length(select->targetList) != 1)
		return false;
	ResTarget *target = linitial_node(ResTarget, select->targetList);
	if (select->fromClause == NIL)
		return IsCallOf(target->val, fn_oid, function_name);
	if (list_length(select->fromClause) != 1 || target->val == nullptr || !IsA(target->val, ColumnRef))
		return false;
	Node *from = static_cast<Node *>(linitial(select->fromClause));
	if (!IsA(from, RangeFunction))
		return false;
	RangeFunction *range = castNode(RangeFunction, from);
	if (range->lateral || range->ordinality || range->is_rowsfrom || range->coldeflist != NIL ||
	    list_length(range->functions) != 1)
		return false;
	/* The target is `*` or the function's one column, named after the alias or the function. */
	ColumnRef *column = castNode(ColumnRef, target->val);
	if (list_length(column->fields) != 1)
		return false;
	Node *field = static_cast<Node *>(linitial(column->fields));
	const char *column_name = range->alias != nullptr ? range->alias->aliasname : function_name;
	if (!IsA(field, A_Star) && !(IsA(field, String) && strcmp(strVal(field), column_name) == 0))
		return false;
	List *item = static_cast<List *>(linitial(range->functions));
	return IsCallOf(static_cast<Node *>(linitial(item)), fn_oid, function_name);
}

void
CopyTagHook(PlannedStmt *pstmt, const char *query_string, bool read_only_tree, ProcessUtilityContext context,
            ParamListInfo params, QueryEnvironment *query_env, DestReceiver *dest, QueryCompletion *qc)
{
	const bool is_copy = IsA(pstmt->utilityStmt, CopyStmt);
	if (is_copy)
		exported_rows_in_statement = -1;
	if (previous_process_utility)
		previous_process_utility(pstmt, query_string, read_only_tree, context, params, query_env, dest, qc);
	else
		standard_ProcessUtility(pstmt, query_string, read_only_tree, context, params, query_env, dest, qc);
	if (is_copy && exported_rows_in_statement >= 0 && qc != nullptr && qc->commandTag == CMDTAG_COPY)
		qc->nprocessed = static_cast<uint64>(exported_rows_in_statement);
	if (is_copy)
		exported_rows_in_statement = -1;
}

} // namespace

/*
 * True when the current statement is `COPY (SELECT f(...)) TO STDOUT` for a client, f being
 * the calling function (fn_oid), so we may write CopyData ourselves; sets the target
 * encoding. Raises an error for COPY forms of such a query we cannot serve (to a file or
 * program, binary, with a header line). May ereport.
 */
bool
DetectCopyToStdout(Oid fn_oid, int *target_encoding)
{
	CopyStmt *copy = ActiveCopyStatement();
	if (copy == nullptr || copy->is_from)
		return false;
	const char *function_name = get_func_name(fn_oid);
	if (function_name == nullptr || !IsDirectExportQuery(copy->query, fn_oid, function_name))
		return false;
	if (copy->filename != nullptr || copy->is_program)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("datavalue_export can stream only into COPY ... TO STDOUT"),
		                errhint("Use COPY (SELECT export_datavalues_json(...)) TO STDOUT, or psql's \\copy to write a "
		                        "client-side file.")));
	if (whereToSendOutput != DestRemote || IsParallelWorker())
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("COPY TO STDOUT of an export needs a client connection")));
	*target_encoding = pg_get_client_encoding();
	ListCell *lc;
	foreach (lc, copy->options) {
		DefElem *option = lfirst_node(DefElem, lc);
		if (strcmp(option->defname, "format") == 0 && strcmp(defGetString(option), "binary") == 0)
			ereport(ERROR,
			        (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("an export cannot be copied in binary format"),
			         errhint("Leave out FORMAT binary: the export writes its own JSON or CSV bytes.")));
		else if (strcmp(option->defname, "header") == 0 && defGetBoolean(option))
			ereport(ERROR,
			        (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("an export cannot be copied with a HEADER line"),
			         errhint("Leave out HEADER: CSV exports carry DHIS2's header line themselves.")));
		else if (strcmp(option->defname, "encoding") == 0) {
			*target_encoding = pg_char_to_encoding(defGetString(option));
			if (*target_encoding < 0)
				ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				                errmsg("argument to option \"%s\" must be a valid encoding name", option->defname)));
		}
	}
	return true;
}

/*
 * One CopyData message. pq_putmessage copies a message through libpq's 8 kB send buffer and
 * flushes it every 8 kB: a 256 kB message became 32 send() calls. The noblock variant grows
 * the buffer to hold the whole message instead, and the flush right after writes it with as
 * few calls as the socket allows, so the buffer never holds more than one message.
 * Transport errors surface at the next CHECK_FOR_INTERRUPTS, as with pq_putmessage.
 */
void
SendCopyData(const char *data, size_t size)
{
	if (size == 0)
		return;
	pq_putmessage_noblock('d', data, size);
	(void)pq_flush();
}

void
NoteExportedRows(uint64 rows)
{
	exported_rows_in_statement = static_cast<int64>(rows);
}

void
InstallCopyTagHook()
{
	previous_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = CopyTagHook;
}

/* The zip entry's DOS date and time: now, in the session time zone (Java uses the JVM's). May ereport. */
core::DosDateTime
ZipEntryTime()
{
	struct pg_tm tm;
	fsec_t fsec;
	int tz;
	if (timestamp2tm(GetCurrentTimestamp(), &tz, &tm, &fsec, nullptr, nullptr) != 0)
		return core::DosDateTime{};
	return core::MakeDosDateTime(tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* Decide where the document goes and set up compression. May ereport. */
void
OpenSink(FunctionCallInfo fcinfo, ExportSession *session)
{
	ExportState *state = session->state;
	SinkTarget *sink = &session->sink;
	const core::ExportPlan &plan = state->plan;
	int target_encoding = GetDatabaseEncoding();
	if (DetectCopyToStdout(fcinfo->flinfo->fn_oid, &target_encoding)) {
		sink->kind = SinkKind::kCopyStream;
		/* An XML document declares encoding='UTF-8', so its bytes are UTF-8 whatever the client encoding. */
		if (plan.request.format == core::Format::kXml)
			target_encoding = PG_UTF8;
		sink->target_encoding = target_encoding;
		sink->need_transcoding = target_encoding != GetDatabaseEncoding() && GetDatabaseEncoding() != PG_SQL_ASCII &&
		                         target_encoding != PG_SQL_ASCII;
	} else {
		sink->kind = SinkKind::kResultRows;
		if (plan.gzip || plan.zip)
			ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			                errmsg("compressed exports can only be written into COPY ... TO STDOUT"),
			                errdetail("A plain SELECT returns text rows, which cannot carry compressed bytes."),
			                errhint("Run it as COPY (SELECT export_datavalues_json(..., compression => 'gzip')) TO "
			                        "STDOUT, or psql's \\copy.")));
	}
	if (plan.gzip)
		DVE_CORE(state->out.gzip = std::make_unique<core::GzipWriter>(plan.gzip_engine, plan.gzip_level));
	if (plan.zip) {
		const core::DosDateTime when = ZipEntryTime();
		DVE_CORE(state->out.zip = std::make_unique<core::ZipWriter>(
		             core::ZipEntryName(plan.style, plan.request.format, plan.request.attachment,
		                                plan.request.start_date, plan.request.end_date),
		             when, plan.gzip_engine, plan.gzip_level));
	}
}

/* Render one data value into the document; flushes as needed. May ereport. */
void
EmitRow(ExportSession *session, const core::DataValueRow &row)
{
	ExportState *state = session->state;
	DVE_CORE(state->document.writer->WriteRow(row, state->out.text));
	session->rows++;
	if (state->out.text.Size() >= kFlushBytes)
		FlushText(session, false);
}

/*
 * Send (or store) the rendered text. final also ends the gzip member or the zip archive. May ereport.
 */
void
FlushText(ExportSession *session, bool final)
{
	ExportState *state = session->state;
	SinkTarget *sink = &session->sink;
	SinkBuffers *out = &state->out;
	const char *data = out->text.Data();
	size_t size = out->text.Size();
	char *converted = nullptr;

	/* The buffer always ends at a row boundary, so it holds whole characters and converts cleanly. */
	if (size > 0 && sink->need_transcoding) {
		converted = pg_server_to_any(data, static_cast<int>(size), sink->target_encoding);
		if (converted != data) {
			data = converted;
			size = strlen(converted);
		} else
			converted = nullptr;
	}

	if (sink->kind == SinkKind::kCopyStream) {
		if (out->gzip || out->zip) {
			DVE_CORE({
				if (out->gzip) {
					out->gzip->Write(data, size, out->compressed);
					if (final)
						out->gzip->Finish(out->compressed);
				} else {
					out->zip->Write(data, size, out->compressed);
					if (final)
						out->zip->Finish(out->compressed);
				}
			});
			if (final || out->compressed.Size() >= kFlushBytes) {
				SendCopyData(out->compressed.Data(), out->compressed.Size());
				sink->bytes_sent += out->compressed.Size();
				out->compressed.Clear();
			}
		} else {
			SendCopyData(data, size);
			sink->bytes_sent += size;
		}
		const int params[2] = {PROGRESS_COPY_TUPLES_PROCESSED, PROGRESS_COPY_BYTES_PROCESSED};
		const int64 progress[2] = {static_cast<int64>(session->rows), static_cast<int64>(sink->bytes_sent)};
		pgstat_progress_update_multi_param(2, params, progress);
	} else if (size > 0) {
		Datum chunk = PointerGetDatum(cstring_to_text_with_len(data, static_cast<int>(size)));
		bool isnull = false;
		tuplestore_putvalues(sink->tuplestore, sink->tupdesc, &chunk, &isnull);
		pfree(DatumGetPointer(chunk));
		sink->bytes_sent += size;
	}
	if (converted != nullptr)
		pfree(converted);
	out->text.Clear();
}

} // namespace datavalue_export::pg
