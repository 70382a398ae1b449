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
/*
 * The start of the client message during which the hook was installed (0 when preloaded). Only a
 * statement of that message can run a COPY the hook did not see.
 */
TimestampTz hook_installed_in_statement = 0;

/*
 * A COPY the hook is running, innermost first: a COPY run from a function (EXECUTE in PL/pgSQL)
 * is nested in the statement that called the function, and the portal there is not a COPY.
 */
struct RunningCopy {
	CopyStmt *stmt;
	/* The statement's text, the very pointer its query's executor keeps as es_sourceText. */
	const char *query_string;
	/*
	 * `COPY (SELECT export(...)) TO PROGRAM 'cmd'`: the hook runs the COPY with a program that
	 * reads nothing, and the export runs cmd itself (see CopyTagHook). NULL otherwise.
	 */
	const char *program;
	/* The export function the COPY's query is a bare call of, resolved as the parser does; else InvalidOid. */
	Oid export_oid;
	/* Values the export in this COPY wrote; -1 when none ran. */
	int64 exported_rows;
	RunningCopy *outer;
};
RunningCopy *running_copy = nullptr;

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

/* A `::text` cast, which leaves the function's text rows as they are: the node under it, else the node. */
Node *
WithoutTextCast(Node *node)
{
	if (node == nullptr || !IsA(node, TypeCast))
		return node;
	TypeCast *cast = castNode(TypeCast, node);
	const TypeName *type = cast->typeName;
	if (type == nullptr || type->typmods != NIL || type->arrayBounds != NIL || type->setof ||
	    strcmp(strVal(llast(type->names)), "text") != 0 ||
	    (list_length(type->names) == 2 && strcmp(strVal(linitial(type->names)), "pg_catalog") != 0) ||
	    list_length(type->names) > 2)
		return node;
	return cast->arg;
}

/*
 * The call f(...) when the COPY's query is exactly `SELECT f(...)` or `SELECT * | c | t.* | t.c
 * FROM f(...) [t [(c)]]`, each optionally cast to text, else NULL: only then are the function's
 * rows the COPY's rows, so that writing the document instead is the same as returning it.
 * Anything else (an aggregate over the chunks, a UNION, a wrapper function, LIMIT) gets
 * ordinary result rows, and a warning (WarnRowsIntoCopy).
 */
FuncCall *
DirectCall(Node *query)
{
	if (query == nullptr || !IsA(query, SelectStmt))
		return nullptr;
	SelectStmt *select = castNode(SelectStmt, query);
	if (select->op != SETOP_NONE || select->distinctClause != NIL || select->intoClause != nullptr ||
	    select->whereClause != nullptr || select->groupClause != NIL || select->havingClause != nullptr ||
	    select->windowClause != NIL || select->valuesLists != NIL || select->sortClause != NIL ||
	    select->limitOffset != nullptr || select->limitCount != nullptr || select->lockingClause != NIL ||
	    select->withClause != nullptr || list_length(select->targetList) != 1)
		return nullptr;
	ResTarget *target = linitial_node(ResTarget, select->targetList);
	Node *value = WithoutTextCast(target->val);
	if (select->fromClause == NIL)
		return value != nullptr && IsA(value, FuncCall) ? castNode(FuncCall, value) : nullptr;
	if (list_length(select->fromClause) != 1 || value == nullptr || !IsA(value, ColumnRef))
		return nullptr;
	Node *from = static_cast<Node *>(linitial(select->fromClause));
	if (!IsA(from, RangeFunction))
		return nullptr;
	RangeFunction *range = castNode(RangeFunction, from);
	if (range->lateral || range->ordinality || range->is_rowsfrom || range->coldeflist != NIL ||
	    list_length(range->functions) != 1)
		return nullptr;
	List *item = static_cast<List *>(linitial(range->functions));
	Node *call = static_cast<Node *>(linitial(item));
	if (call == nullptr || !IsA(call, FuncCall))
		return nullptr;
	FuncCall *func = castNode(FuncCall, call);
	/*
	 * The target is `*` or the function's one column, named after the alias, its column alias or
	 * the function, and may be qualified by the range's name.
	 */
	const char *range_name = range->alias != nullptr ? range->alias->aliasname : strVal(llast(func->funcname));
	const char *column_name = range->alias != nullptr && list_length(range->alias->colnames) == 1
	                              ? strVal(linitial(range->alias->colnames))
	                              : range_name;
	List *fields = castNode(ColumnRef, value)->fields;
	if (list_length(fields) == 2) {
		Node *qualifier = static_cast<Node *>(linitial(fields));
		if (!IsA(qualifier, String) || strcmp(strVal(qualifier), range_name) != 0)
			return nullptr;
	} else if (list_length(fields) != 1)
		return nullptr;
	Node *field = static_cast<Node *>(llast(fields));
	if (!IsA(field, A_Star) && !(IsA(field, String) && strcmp(strVal(field), column_name) == 0))
		return nullptr;
	return func;
}

/* Whether a function is one of this extension's exports: a C function of this library with an export's symbol. */
bool
IsExportFunction(Oid fn_oid)
{
	static const char *const kExportSymbols[] = {"datavalue_export_json", "datavalue_export_csv",
	                                             "datavalue_export_xml", "datavalue_export_adx",
	                                             "datavalue_export_query"};
	HeapTuple tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
	if (!HeapTupleIsValid(tuple))
		return false;
	bool ours = false;
	bool isnull;
	const Datum src = SysCacheGetAttr(PROCOID, tuple, Anum_pg_proc_prosrc, &isnull);
	if (!isnull && reinterpret_cast<Form_pg_proc>(GETSTRUCT(tuple))->prolang == ClanguageId) {
		const char *symbol = TextDatumGetCString(src);
		for (const char *export_symbol : kExportSymbols)
			ours = ours || strcmp(symbol, export_symbol) == 0;
	}
	ReleaseSysCache(tuple);
	return ours;
}

/*
 * The export function a call resolves to, as the parser resolves it under the current
 * search_path: every function of its name that takes its argument count and named arguments
 * (another function of the same name with other parameters does not count); InvalidOid when
 * that is not exactly one of this extension's exports. May ereport.
 */
Oid
ResolveExportCall(FuncCall *call)
{
	if (call == nullptr || call->agg_order != NIL || call->agg_filter != nullptr || call->over != nullptr ||
	    call->agg_star || call->agg_distinct || call->func_variadic)
		return InvalidOid;
	List *argnames = NIL;
	ListCell *lc;
	foreach (lc, call->args) {
		Node *arg = static_cast<Node *>(lfirst(lc));
		if (IsA(arg, NamedArgExpr))
			argnames = lappend(argnames, castNode(NamedArgExpr, arg)->name); /* C strings, as the parser passes them */
	}
	FuncCandidateList candidates =
	    FuncnameGetCandidates(call->funcname, list_length(call->args), argnames, false, true, false, true);
	if (candidates == nullptr)
		return InvalidOid;
	for (FuncCandidateList c = candidates->next; c != nullptr; c = c->next)
		if (c->oid != candidates->oid)
			return InvalidOid;
	return IsExportFunction(candidates->oid) ? candidates->oid : InvalidOid;
}

/* The executor of the query this call is part of, or NULL. */
EState *
CallerEState(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
	if (rsinfo == nullptr || !IsA(rsinfo, ReturnSetInfo) || rsinfo->econtext == nullptr)
		return nullptr;
	return rsinfo->econtext->ecxt_estate;
}

/*
 * True when this invocation is the top-level call of the query being run: the function
 * expression of the plan's top node (`SELECT f(...)`'s ProjectSet target, or the function of
 * `SELECT * FROM f(...)`'s FunctionScan), compared by identity with the expression this call
 * was initialised from. A call of the same function elsewhere in that query, for example
 * inside a subquery in the arguments (an InitPlan, run before the outer call), is a different
 * node and gets result rows, so it cannot take over the stream.
 */
bool
IsTopLevelInvocation(FunctionCallInfo fcinfo)
{
	Node *expr = fcinfo->flinfo->fn_expr;
	EState *estate = CallerEState(fcinfo);
	if (expr == nullptr || estate == nullptr || estate->es_plannedstmt == nullptr ||
	    estate->es_plannedstmt->planTree == nullptr)
		return false;
	Plan *top = estate->es_plannedstmt->planTree;
	if (IsA(top, FunctionScan)) {
		ListCell *lc;
		foreach (lc, castNode(FunctionScan, top)->functions)
			if (lfirst_node(RangeTblFunction, lc)->funcexpr == expr)
				return true;
		return false;
	}
	if (!IsA(top, ProjectSet))
		return false;
	ListCell *lc;
	foreach (lc, top->targetlist)
		if (reinterpret_cast<Node *>(lfirst_node(TargetEntry, lc)->expr) == expr)
			return true;
	return false;
}

/*
 * COPY options an export cannot honour, refused before COPY sends anything: from the hook, so
 * that no binary signature or header line reaches the client first, and again when the export
 * starts (the library may have been loaded after the statement began). May ereport.
 */
void
RejectUnsupportedCopyOptions(List *options)
{
	ListCell *lc;
	foreach (lc, options) {
		DefElem *option = lfirst_node(DefElem, lc);
		if (strcmp(option->defname, "format") == 0 && strcmp(defGetString(option), "binary") == 0)
			ereport(ERROR,
			        (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("an export cannot be copied in binary format"),
			         errhint("Leave out FORMAT binary: the export writes its own document bytes.")));
		else if (strcmp(option->defname, "header") == 0 &&
		         !(option->arg != nullptr && IsA(option->arg, String) &&
		           pg_strcasecmp(strVal(option->arg), "match") == 0) &&
		         defGetBoolean(option))
			ereport(ERROR,
			        (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("an export cannot be copied with a HEADER line"),
			         errhint("Leave out HEADER: CSV exports carry DHIS2's header line themselves.")));
	}
}

void
RunUtility(PlannedStmt *pstmt, const char *query_string, bool read_only_tree, ProcessUtilityContext context,
           ParamListInfo params, QueryEnvironment *query_env, DestReceiver *dest, QueryCompletion *qc)
{
	if (previous_process_utility)
		previous_process_utility(pstmt, query_string, read_only_tree, context, params, query_env, dest, qc);
	else
		standard_ProcessUtility(pstmt, query_string, read_only_tree, context, params, query_env, dest, qc);
}

/* Run a COPY with its entry innermost in running_copy, taken out again however it ends. */
void
RunCopy(RunningCopy *entry, PlannedStmt *pstmt, const char *query_string, bool read_only_tree,
        ProcessUtilityContext context, ParamListInfo params, QueryEnvironment *query_env, DestReceiver *dest,
        QueryCompletion *qc)
{
	running_copy = entry;
	PG_TRY();
	{
		RunUtility(pstmt, query_string, read_only_tree, context, params, query_env, dest, qc);
	}
	PG_FINALLY();
	{
		running_copy = entry->outer;
	}
	PG_END_TRY();
}

void
CopyTagHook(PlannedStmt *pstmt, const char *query_string, bool read_only_tree, ProcessUtilityContext context,
            ParamListInfo params, QueryEnvironment *query_env, DestReceiver *dest, QueryCompletion *qc)
{
	if (!IsA(pstmt->utilityStmt, CopyStmt)) {
		RunUtility(pstmt, query_string, read_only_tree, context, params, query_env, dest, qc);
		return;
	}
	CopyStmt *copy = castNode(CopyStmt, pstmt->utilityStmt);
	RunningCopy entry = {copy, query_string, nullptr, InvalidOid, -1, running_copy};
	/*
	 * COPY TO PROGRAM starts the program before the query runs, and the export could not reach
	 * its pipe: run the COPY with a program that reads nothing instead (the same privilege,
	 * pg_execute_server_program, is checked by COPY itself), and let the export start the
	 * user's program and write to it.
	 */
	PlannedStmt *run = pstmt;
	/* Resolved here, under the statement's search_path (the function may run under its own). */
	entry.export_oid = copy->is_from ? InvalidOid : ResolveExportCall(DirectCall(copy->query));
	const bool exports = OidIsValid(entry.export_oid);
	if (exports)
		RejectUnsupportedCopyOptions(copy->options);
	if (exports && copy->is_program && copy->filename != nullptr) {
		run = static_cast<PlannedStmt *>(copyObjectImpl(pstmt));
		castNode(CopyStmt, run->utilityStmt)->filename = pstrdup("true");
		read_only_tree = false;
		entry.program = copy->filename;
	}
	RunCopy(&entry, run, query_string, read_only_tree, context, params, query_env, dest, qc);
	if (entry.exported_rows >= 0 && qc != nullptr && qc->commandTag == CMDTAG_COPY)
		qc->nprocessed = static_cast<uint64>(entry.exported_rows);
}

/*
 * What makes the hook see the next COPY: the library loaded before the statement. Calling one of
 * its functions is the way every role has; LOAD and session_preload_libraries need a superuser.
 */
constexpr const char *kLoadLibraryHint =
    "Add datavalue_export to shared_preload_libraries, or call one of its functions earlier in the session "
    "(SELECT datavalue_export_version()).";

/* Whether text contains "copy" in any case: a cheap test before parsing it. */
bool
MentionsCopy(const char *text)
{
	for (; *text != '\0'; text++)
		if (pg_strncasecmp(text, "copy", 4) == 0)
			return true;
	return false;
}

/*
 * With the library loaded during this statement, the hook saw no COPY: a COPY run from a
 * function (EXECUTE in PL/pgSQL, a SQL function's body) would write the document's chunks with
 * COPY's escaping into a file that looks complete. Its text is the executor's, which may hold
 * comments and several statements (a SQL function's body): refuse if any of them is a COPY of an
 * export. May ereport.
 */
void
RefuseUnseenCopy(EState *estate)
{
	/* Any later statement's COPY went through the hook: this call is not in one. */
	if (GetCurrentStatementStartTimestamp() != hook_installed_in_statement)
		return;
	if (estate == nullptr || estate->es_sourceText == nullptr || !MentionsCopy(estate->es_sourceText))
		return;
	List *parsed = raw_parser(estate->es_sourceText, RAW_PARSE_DEFAULT);
	ListCell *lc;
	foreach (lc, parsed) {
		Node *statement = lfirst_node(RawStmt, lc)->stmt;
		if (!IsA(statement, CopyStmt))
			continue;
		CopyStmt *copy = castNode(CopyStmt, statement);
		if (!copy->is_from && OidIsValid(ResolveExportCall(DirectCall(copy->query))))
			ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			                errmsg("COPY of an export run from a function needs the datavalue_export library loaded "
			                       "before the statement starts"),
			                errhint("%s", kLoadLibraryHint)));
	}
}

/*
 * An export in a COPY TO's query that is not the bare call returns its document as rows: where
 * they reach the COPY's output, COPY escapes backslashes, tabs and line breaks in them and ends
 * each chunk with a line break, so the file differs from the document and may still parse (a
 * SECURITY DEFINER wrapper does this). The query may only count or measure the rows, so this
 * warns instead of refusing.
 */
void
WarnRowsIntoCopy(Oid fn_oid)
{
	const char *name = get_func_name(fn_oid);
	ereport(
	    WARNING,
	    (errcode(ERRCODE_WARNING),
	     errmsg("%s is not the bare call of this COPY: it returns its document as rows instead of writing it",
	            name != nullptr ? name : "the export"),
	     errdetail("Where those rows reach the COPY's output, COPY escapes their backslashes, tabs and line breaks "
	               "and ends each chunk with a line break, so a file written that way differs from the document."),
	     errhint("Write COPY (SELECT %s(...)) TO ..., with no cast, column list or wrapper function around the "
	             "call; a role that may not read the DHIS2 tables cannot stream through a SECURITY DEFINER wrapper.",
	             name != nullptr ? name : "export_datavalues_json")));
}

} // namespace

/*
 * Where the current statement's COPY sends this call's rows, when the statement is
 * `COPY (SELECT f(...)) TO STDOUT | 'file' | PROGRAM 'cmd'` and this is its top-level call of f,
 * the calling function, so we may write the document ourselves; sets the target encoding and,
 * for a file or program, *target. Raises an error for COPY forms we cannot serve (binary, with
 * a header line). May ereport.
 */
CopyTarget
DetectCopyTarget(FunctionCallInfo fcinfo, int *target_encoding, const char **target)
{
	const Oid fn_oid = fcinfo->flinfo->fn_oid;
	EState *estate = CallerEState(fcinfo);
	CopyStmt *copy;
	const char *program = nullptr;
	Oid export_oid;
	if (running_copy != nullptr) {
		/* The innermost COPY running, if this call is in its query (at any depth of functions). */
		if (estate == nullptr || estate->es_sourceText != running_copy->query_string) {
			/* A function called by the COPY's query (a wrapper): its rows may reach the COPY. */
			if (!running_copy->stmt->is_from)
				WarnRowsIntoCopy(fn_oid);
			return CopyTarget::kNone;
		}
		copy = running_copy->stmt;
		program = running_copy->program;
		export_oid = running_copy->export_oid;
	} else {
		/*
		 * No COPY the hook runs: a plain SELECT, or a COPY that started before the library was
		 * loaded, of which only the portal's can be seen.
		 */
		copy = ActiveCopyStatement();
		if (copy == nullptr)
			RefuseUnseenCopy(estate);
		export_oid = copy == nullptr || copy->is_from ? InvalidOid : ResolveExportCall(DirectCall(copy->query));
	}
	/* The COPY's query is a bare call of this function, and this is that call (not one in its arguments). */
	if (copy == nullptr || copy->is_from)
		return CopyTarget::kNone;
	if (export_oid != fn_oid) {
		WarnRowsIntoCopy(fn_oid);
		return CopyTarget::kNone;
	}
	if (!IsTopLevelInvocation(fcinfo))
		return CopyTarget::kNone; /* a call in the bare call's arguments */
	CopyTarget kind = CopyTarget::kClient;
	if (copy->is_program) {
		/* Only the hook can take over a program (it is loaded with the library: preload it). */
		if (program == nullptr)
			ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			                errmsg("COPY TO PROGRAM of an export needs the datavalue_export library loaded before the "
			                       "statement starts"),
			                errhint("%s", kLoadLibraryHint)));
		kind = CopyTarget::kServerProgram;
		*target = program;
	} else if (copy->filename != nullptr) {
		/* COPY itself checked the privilege (pg_write_server_files) and the absolute path. */
		kind = CopyTarget::kServerFile;
		*target = copy->filename;
	} else if (whereToSendOutput != DestRemote || IsParallelWorker())
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("COPY TO STDOUT of an export needs a client connection")));
	*target_encoding = pg_get_client_encoding();
	RejectUnsupportedCopyOptions(copy->options);
	ListCell *lc;
	foreach (lc, copy->options) {
		DefElem *option = lfirst_node(DefElem, lc);
		if (strcmp(option->defname, "encoding") == 0) {
			*target_encoding = pg_char_to_encoding(defGetString(option));
			if (*target_encoding < 0)
				ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				                errmsg("argument to option \"%s\" must be a valid encoding name", option->defname)));
		}
	}
	return kind;
}

namespace {

/* Removes an unfinished temporary file when the export ends without renaming it (error, cancel). */
void
RemoveUnfinishedFile(void *arg)
{
	ExportSession *session = static_cast<ExportSession *>(arg);
	if (session->sink.server_tmp_path != nullptr && !session->sink.server_done)
		(void)unlink(session->sink.server_tmp_path);
}

/*
 * The file a server target names, its symbolic links resolved (COPY opened it, so it exists):
 * the temporary file goes beside the file itself and is renamed over it, where renaming over
 * the link would replace the link and leave the file COPY truncated empty. palloc'd; NULL when
 * it cannot be resolved (a resolved name longer than PATH_MAX): the target is then written in
 * place, never renamed over.
 */
char *
ResolvedServerFile(const char *target)
{
	char *resolved = realpath(target, nullptr);
	if (resolved == nullptr)
		return nullptr;
	char *copy = pstrdup(resolved);
	free(resolved);
	return copy;
}

/*
 * Whether st is a file the server's own standard output or error writes: COPY TO '/dev/stderr'
 * (or /proc/self/fd/2, ...) names the server log, which a rename would replace while the server
 * goes on logging into the unlinked file.
 */
bool
IsServerStandardStream(const struct stat &st)
{
	for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
		struct stat open_st;
		if (fstat(fd, &open_st) == 0 && open_st.st_dev == st.st_dev && open_st.st_ino == st.st_ino)
			return true;
	}
	return false;
}

/* Whether path is on another file system than its directory: a mount point (a bind-mounted file). */
bool
IsMountPoint(const char *path, const struct stat &st)
{
	char *directory = pstrdup(path);
	get_parent_directory(directory);
	struct stat parent;
	const bool other = stat(directory[0] != '\0' ? directory : "/", &parent) == 0 && parent.st_dev != st.st_dev;
	pfree(directory);
	return other;
}

/*
 * The temporary file's name: beside the target, unpredictable (another user of a sticky
 * directory cannot put a file there first), within a 255-byte file name.
 */
char *
TemporaryNameBeside(const char *target)
{
	const char *slash = strrchr(target, '/');
	const int directory_length = slash == nullptr ? 0 : static_cast<int>(slash - target + 1);
	uint64 nonce = 0;
	if (!pg_strong_random(&nonce, sizeof nonce))
		nonce = static_cast<uint64>(GetCurrentTimestamp()) ^ static_cast<uint64>(MyProcPid);
	return psprintf("%.*s%.200s.%d.%016llx.partial", directory_length, target, target + directory_length, MyProcPid,
	                static_cast<unsigned long long>(nonce));
}

/* Open the target itself for writing (a device, a FIFO, or a file whose directory we cannot write). May ereport. */
void
OpenServerFileInPlace(ExportSession *session)
{
	session->sink.server_stream = AllocateFile(session->sink.server_target, PG_BINARY_W);
	if (session->sink.server_stream == nullptr)
		ereport(ERROR, (errcode_for_file_access(),
		                errmsg("could not open file \"%s\" for writing: %m", session->sink.server_target)));
}

/*
 * A new temporary file for the document, created exclusively (a file or link already at that
 * name is not followed) with the target's permissions. NULL with errno set if it cannot be.
 */
FILE *
CreateTemporaryBeside(const char *path, mode_t mode)
{
	const mode_t old_umask = umask(S_IRWXG | S_IRWXO);
	FILE *stream = AllocateFile(path, "wx");
	const int error = errno;
	umask(old_umask);
	if (stream != nullptr && fchmod(fileno(stream), mode & 07777) != 0) {
		const int chmod_error = errno;
		FreeFile(stream);
		(void)unlink(path);
		errno = chmod_error;
		return nullptr;
	}
	errno = error;
	return stream;
}

/*
 * A server file: written under a temporary name beside it and renamed over it when complete,
 * when renaming leaves the file as it was (a regular file of the server's own user and group,
 * with one link); else written in place, as COPY writes it: a device or FIFO, a file of another
 * owner or group (a rename would change them, and in a sticky directory is refused), a file with
 * hard links (they would keep the old, empty file), the server's own log (COPY TO '/dev/stderr'),
 * a mount point on another file system than its directory (where the temporary file would go),
 * or a directory the server cannot create files in. May ereport.
 */
void
OpenServerFile(ExportSession *session)
{
	struct stat st;
	if (stat(session->sink.server_target, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_gid != getegid() || st.st_nlink != 1 || IsServerStandardStream(st) ||
	    IsMountPoint(session->sink.server_target, st)) {
		OpenServerFileInPlace(session);
		return;
	}
	session->sink.server_tmp_path = TemporaryNameBeside(session->sink.server_target);
	MemoryContextCallback *callback = static_cast<MemoryContextCallback *>(palloc0(sizeof(MemoryContextCallback)));
	callback->func = RemoveUnfinishedFile;
	callback->arg = session;
	MemoryContextRegisterResetCallback(session->context, callback);
	session->sink.server_stream = CreateTemporaryBeside(session->sink.server_tmp_path, st.st_mode);
	if (session->sink.server_stream == nullptr && errno == EEXIST) {
		/* Taken, against all odds: another name (a file or link there is never written through). */
		pfree(session->sink.server_tmp_path);
		session->sink.server_tmp_path = TemporaryNameBeside(session->sink.server_target);
		session->sink.server_stream = CreateTemporaryBeside(session->sink.server_tmp_path, st.st_mode);
	}
	if (session->sink.server_stream != nullptr)
		return;
	const int error = errno;
	if (error == EACCES || error == EPERM || error == ENAMETOOLONG || error == EROFS) {
		/* COPY could open (and truncate) the file, but no file can be made beside it: write the file itself. */
		pfree(session->sink.server_tmp_path);
		session->sink.server_tmp_path = nullptr;
		OpenServerFileInPlace(session);
		return;
	}
	errno = error;
	ereport(ERROR, (errcode_for_file_access(),
	                errmsg("could not open file \"%s\" for writing: %m", session->sink.server_tmp_path)));
}

/* Close the pipe to the program, which must have exited with 0. May ereport. */
void
CloseProgram(ExportSession *session)
{
	FILE *stream = session->sink.server_stream;
	session->sink.server_stream = nullptr;
	const int rc = ClosePipeStream(stream);
	if (rc == -1)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not close pipe to external command: %m")));
	if (rc != 0)
		ereport(ERROR, (errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
		                errmsg("program \"%s\" failed", session->sink.server_target),
		                errdetail_internal("%s", wait_result_to_str(rc))));
}

/*
 * Write the complete document at from into the file to itself, in place, and sync it: what
 * native COPY would have written there, only later. May ereport.
 */
void
CopyIntoTarget(const char *from, const char *to)
{
	const int source = OpenTransientFile(from, O_RDONLY | PG_BINARY);
	if (source < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not open file \"%s\": %m", from)));
	const int target = OpenTransientFile(to, O_WRONLY | O_TRUNC | PG_BINARY);
	if (target < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not open file \"%s\" for writing: %m", to)));
	constexpr size_t kCopyBytes = 1024 * 1024;
	char *buffer = static_cast<char *>(palloc(kCopyBytes));
	while (true) {
		CHECK_FOR_INTERRUPTS();
		const ssize_t got = read(source, buffer, kCopyBytes);
		if (got < 0)
			ereport(ERROR, (errcode_for_file_access(), errmsg("could not read file \"%s\": %m", from)));
		if (got == 0)
			break;
		for (ssize_t done = 0; done < got;) {
			const ssize_t wrote = write(target, buffer + done, static_cast<size_t>(got - done));
			if (wrote < 0)
				ereport(ERROR, (errcode_for_file_access(), errmsg("could not write file \"%s\": %m", to)));
			done += wrote;
		}
	}
	pfree(buffer);
	if (pg_fsync(target) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not fsync file \"%s\": %m", to)));
	if (CloseTransientFile(target) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not close file \"%s\": %m", to)));
	(void)CloseTransientFile(source);
}

} // namespace

/*
 * Open the server-side target of a COPY TO 'file' or TO PROGRAM. A file is written under a
 * temporary name in the same directory and renamed over the target when the document is
 * complete, so a failed or cancelled export never leaves a file that looks complete; in a
 * directory the server cannot write, the file itself is written. May ereport.
 */
void
OpenServerTarget(ExportSession *session, CopyTarget kind, const char *target)
{
	MemoryContext previous = MemoryContextSwitchTo(session->context);
	char *resolved = kind == CopyTarget::kServerFile ? ResolvedServerFile(target) : nullptr;
	session->sink.server_target = resolved != nullptr ? resolved : pstrdup(target);
	if (kind == CopyTarget::kServerProgram) {
		session->sink.server_stream = OpenPipeStream(session->sink.server_target, PG_BINARY_W);
		if (session->sink.server_stream == nullptr)
			ereport(ERROR, (errcode_for_file_access(),
			                errmsg("could not execute command \"%s\": %m", session->sink.server_target)));
	} else if (resolved == nullptr) {
		OpenServerFileInPlace(session); /* through the link, as COPY opened it: the link stays */
	} else {
		OpenServerFile(session);
	}
	MemoryContextSwitchTo(previous);
}

/* Write document bytes to the server-side target. May ereport. */
void
WriteServerTarget(ExportSession *session, const char *data, size_t size)
{
	if (size == 0 || fwrite(data, 1, size, session->sink.server_stream) == size)
		return;
	if (session->sink.kind == SinkKind::kServerProgram) {
		/*
		 * A program that stopped reading: its exit status says more than "Broken pipe" (as COPY
		 * does), unless a cancel, which the program's process group got too, ended it.
		 */
		if (errno == EPIPE) {
			CHECK_FOR_INTERRUPTS();
			CloseProgram(session);
			errno = EPIPE;
		}
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not write to COPY program: %m")));
	}
	ereport(ERROR, (errcode_for_file_access(), errmsg("could not write to COPY file: %m")));
}

/* Close the target: the program must succeed; the file is synced and renamed into place. May ereport. */
void
FinishServerTarget(ExportSession *session)
{
	if (session->sink.kind == SinkKind::kServerProgram) {
		CHECK_FOR_INTERRUPTS();
		CloseProgram(session);
		return;
	}
	FILE *stream = session->sink.server_stream;
	session->sink.server_stream = nullptr;
	if (session->sink.server_tmp_path == nullptr) {
		if (FreeFile(stream) != 0)
			ereport(ERROR, (errcode_for_file_access(),
			                errmsg("could not close file \"%s\": %m", session->sink.server_target)));
		return;
	}
	if (fflush(stream) != 0 || pg_fsync(fileno(stream)) != 0)
		ereport(ERROR,
		        (errcode_for_file_access(), errmsg("could not write file \"%s\": %m", session->sink.server_tmp_path)));
	if (FreeFile(stream) != 0)
		ereport(ERROR,
		        (errcode_for_file_access(), errmsg("could not close file \"%s\": %m", session->sink.server_tmp_path)));
	/* A cancel that came while the file was written and synced ends the export before the file replaces the target. */
	CHECK_FOR_INTERRUPTS();
	if (rename(session->sink.server_tmp_path, session->sink.server_target) == 0) {
		/* What durable_rename does after its rename, at ERROR (fsync_fname would PANIC). */
		(void)fsync_fname_ext(session->sink.server_target, false, false, ERROR);
		char *directory = pstrdup(session->sink.server_target);
		get_parent_directory(directory);
		(void)fsync_fname_ext(directory[0] != '\0' ? directory : ".", true, false, ERROR);
		pfree(directory);
	} else if (errno == EBUSY || errno == EXDEV) {
		/* The target is a mount point (a file bind-mounted into a container, say): nothing can replace it. */
		CopyIntoTarget(session->sink.server_tmp_path, session->sink.server_target);
		(void)unlink(session->sink.server_tmp_path);
	} else
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not rename file \"%s\" to \"%s\": %m",
		                                                  session->sink.server_tmp_path, session->sink.server_target)));
	session->sink.server_done = true;
}

namespace {

/*
 * Write all of data to the client, as pqcomm.c's flush writes its buffer: secure_write handles
 * TLS and GSS encryption, waits while the socket is full, and lets a terminate through while
 * blocked (PostgreSQL then sends the client nothing more, as in the middle of its own flush).
 * A failed write is handled as that flush handles one: reported to the log only, the connection
 * counts as lost, and the next CHECK_FOR_INTERRUPTS ends the session. False once it is lost.
 */
bool
WriteToClient(const char *data, size_t size)
{
	while (size > 0) {
		const ssize_t n = secure_write(MyProcPort, const_cast<char *>(data), size);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			ereport(COMMERROR, (errcode_for_socket_access(), errmsg("could not send data to client: %m")));
			ClientConnectionLost = 1;
			InterruptPending = 1;
			return false;
		}
		data += n;
		size -= static_cast<size_t>(n);
	}
	return true;
}

} // namespace

/*
 * CopyData messages, written straight from data. pq_putmessage copies a message through
 * libpq's 8 kB send buffer and flushes it every 8 kB (a 256 kB message became 32 send()
 * calls); pq_putmessage_noblock copies the whole message into that buffer first, a memcpy of
 * the whole document (12 ms of a 1M ordered export's 0.26 s merge phase, perf). Here libpq's
 * buffer is flushed first, so whatever it holds (a notice) keeps its place, and then each
 * message's 5-byte header and its data go to the socket as they are. Messages are capped at
 * kMaxCopyMessage, so a client never needs a buffer for a 60 MB row in one message; COPY data
 * may be split anywhere. Transport errors surface at the next CHECK_FOR_INTERRUPTS, as with
 * pq_putmessage.
 */
void
SendCopyData(const char *data, size_t size)
{
	if (ClientConnectionLost || pq_flush() != 0)
		return;
	while (size > 0) {
		const size_t piece = size < kMaxCopyMessage ? size : kMaxCopyMessage;
		char header[5];
		header[0] = 'd';                                                 /* CopyData */
		const uint32 length = pg_hton32(static_cast<uint32>(piece + 4)); /* the length counts itself */
		memcpy(header + 1, &length, sizeof length);
		if (!WriteToClient(header, sizeof header) || !WriteToClient(data, piece))
			return;
		data += piece;
		size -= piece;
	}
}

void
NoteExportedRows(uint64 rows)
{
	if (running_copy != nullptr)
		running_copy->exported_rows = static_cast<int64>(rows);
}

void
InstallCopyTagHook()
{
	previous_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = CopyTagHook;
	hook_installed_in_statement = GetCurrentStatementStartTimestamp();
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

/*
 * A client on the database server (psql's \copy, a cron job) reads the document over a Unix
 * socket while the backend renders what follows. Linux gives such a socket a send buffer of
 * net.core.wmem_default (208 kB), less than one 256 kB CopyData message, so every message held
 * the backend until the client had read it, and the two took turns instead of overlapping: an
 * ordered 10M export spent 3.35 s (p25) merging and sending with the default, 1.78 s with 4 MB.
 * The export asks for datavalue_export.client_send_buffer (2 MB; the kernel caps the request at
 * net.core.wmem_max and doubles it) and puts the old size back when its memory context goes,
 * after the last message or on an error. TCP is left alone: setting SO_SNDBUF there turns off
 * the kernel's own sizing of the buffer, which already grows it (net.ipv4.tcp_wmem).
 */
namespace {

void
RestoreClientSendBuffer(void *arg)
{
	const ExportSession *session = static_cast<const ExportSession *>(arg);
	/* The kernel reports the doubled size: ask for half of it to get it back. */
	const int size = session->sink.original_send_buffer / 2;
	(void)setsockopt(MyProcPort->sock, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
}

void
EnlargeClientSendBuffer(ExportSession *session)
{
	const int wanted = client_send_buffer_kb * 1024; /* at most 256 MB: fits an int */
	if (wanted == 0 || MyProcPort == nullptr || MyProcPort->laddr.addr.ss_family != AF_UNIX)
		return;
	int before = 0, after = 0;
	socklen_t length = sizeof before;
	if (getsockopt(MyProcPort->sock, SOL_SOCKET, SO_SNDBUF, &before, &length) != 0 || before >= 2 * wanted)
		return;
	MemoryContextCallback *callback =
	    static_cast<MemoryContextCallback *>(MemoryContextAllocZero(session->context, sizeof(MemoryContextCallback)));
	if (setsockopt(MyProcPort->sock, SOL_SOCKET, SO_SNDBUF, &wanted, sizeof wanted) != 0)
		return;
	session->sink.original_send_buffer = before;
	callback->func = RestoreClientSendBuffer;
	callback->arg = session;
	MemoryContextRegisterResetCallback(session->context, callback);
	length = sizeof after;
	(void)getsockopt(MyProcPort->sock, SOL_SOCKET, SO_SNDBUF, &after, &length);
	elog(DEBUG1, "datavalue_export: client socket send buffer raised from %d to %d bytes", before, after);
}

} // namespace

/* Decide where the document goes and set up compression. May ereport. */
void
OpenSink(FunctionCallInfo fcinfo, ExportSession *session)
{
	ExportState *state = session->state;
	SinkTarget *sink = &session->sink;
	const core::ExportPlan &plan = state->plan;
	/* Raw CopyData inside COPY TO STDOUT, a server file or program, else text rows. */
	int target_encoding = GetDatabaseEncoding();
	const char *target = nullptr;
	const CopyTarget copy_target = DetectCopyTarget(fcinfo, &target_encoding, &target);
	if (copy_target != CopyTarget::kNone) {
		if (copy_target == CopyTarget::kClient)
			EnlargeClientSendBuffer(session);
		sink->kind = copy_target == CopyTarget::kClient       ? SinkKind::kCopyStream
		             : copy_target == CopyTarget::kServerFile ? SinkKind::kServerFile
		                                                      : SinkKind::kServerProgram;
		/*
		 * An XML document declares encoding='UTF-8' (ADX has no declaration, which XML reads as
		 * UTF-8), so its bytes are UTF-8 whatever the client encoding.
		 */
		if (plan.request.format == core::Format::kXml || plan.request.format == core::Format::kAdx)
			target_encoding = PG_UTF8;
		sink->target_encoding = target_encoding;
		sink->need_transcoding = target_encoding != GetDatabaseEncoding() && GetDatabaseEncoding() != PG_SQL_ASCII &&
		                         target_encoding != PG_SQL_ASCII;
	} else {
		sink->kind = SinkKind::kResultRows;
		/* A COPY TO whose query runs this call (a COPY FROM's trigger is a plain call). */
		const CopyStmt *active = running_copy != nullptr ? running_copy->stmt : ActiveCopyStatement();
		if (plan.gzip || plan.zip)
			ereport(ERROR,
			        (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("compressed exports can only be written by COPY"),
			         active != nullptr && !active->is_from
			             ? errdetail("The export writes its bytes only when the COPY's query is the bare call "
			                         "SELECT export_...(...); any other query gets text rows, which cannot carry "
			                         "compressed bytes.")
			             : errdetail("A plain SELECT returns text rows, which cannot carry compressed bytes."),
			         errhint("Run it as COPY (SELECT export_datavalues_json(..., compression => '%s')) TO "
			                 "STDOUT, or psql's \\copy.",
			                 plan.zip ? "zip" : "gzip")));
	}
	if (plan.gzip)
		DVE_CORE(state->out.gzip = std::make_unique<core::CompressionThread>(
		             std::make_unique<core::GzipWriter>(plan.gzip_engine, plan.gzip_level)));
	if (plan.zip) {
		const core::DosDateTime when = ZipEntryTime();
		DVE_CORE(state->out.zip =
		             std::make_unique<core::ZipWriter>(plan.zip_entry_name, when, plan.gzip_engine, plan.gzip_level));
	}
	if (sink->kind == SinkKind::kServerFile || sink->kind == SinkKind::kServerProgram)
		OpenServerTarget(session, copy_target, target);
}

/* After the last flush: complete a server file or program, report the COPY row count. May ereport. */
void
CloseSink(ExportSession *session)
{
	if (session->sink.kind == SinkKind::kServerFile || session->sink.kind == SinkKind::kServerProgram)
		FinishServerTarget(session);
	if (session->sink.kind != SinkKind::kResultRows)
		NoteExportedRows(session->rows);
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
	/* Each flush is a point where a cancel lands, whatever the row loop feeding it checks. */
	CHECK_FOR_INTERRUPTS();
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

	if (sink->kind != SinkKind::kResultRows) {
		/* Inside COPY: to the client as CopyData, or to the server file or program. */
		const auto send = [session, sink](const char *bytes, size_t n) {
			if (sink->kind == SinkKind::kCopyStream)
				SendCopyData(bytes, n);
			else
				WriteServerTarget(session, bytes, n);
			sink->bytes_sent += n;
		};
		if (out->gzip) {
			/* The worker compresses this buffer while the next one is rendered. */
			core::OutputBuffer *input = &out->text;
			if (converted != nullptr) {
				input = &out->transcoded;
				DVE_CORE(input->Clear(); input->Append(data, size));
			}
			DVE_CORE({
				out->gzip->Submit(*input);
				if (final)
					out->gzip->Finish(out->compressed);
				else
					out->gzip->Collect(out->compressed);
			});
		} else if (out->zip) {
			DVE_CORE({
				out->zip->Write(data, size, out->compressed);
				if (final)
					out->zip->Finish(out->compressed);
			});
		}
		if (out->gzip || out->zip) {
			if (final || out->compressed.Size() >= kFlushBytes) {
				send(out->compressed.Data(), out->compressed.Size());
				out->compressed.Clear();
			}
		} else
			send(data, size);
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
