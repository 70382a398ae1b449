/*
 * src/pg/metadata.cpp
 *	  Resolve the request against the DHIS2 metadata tables, once per export.
 *
 * Everything the row path needs besides the datavalue table is read here through SPI:
 * the requested objects by their input id scheme (unknown ones are an error), the filter
 * sets of database ids pushed into the main query (ExportState::filters), and the output
 * identifier of every object a row may reference (data elements, periods, org units, option
 * combos). The main query (datavalue_query.cpp) then reads datavalue alone and never joins
 * these tables for output. Ends by preparing the writer (core/document_plan).
 *
 * Frames here hold only PODs and palloc'd memory; core objects are touched inside DVE_CORE.
 * SPDX-License-Identifier: PostgreSQL
 */
#include <algorithm>

#include "core/adx_period.hpp"
#include "core/period.hpp"
#include "core/timestamp.hpp"
/* Core headers first: they refuse to follow PostgreSQL headers. */
#include "pg/export_session.hpp"
#include "pg/boundary.hpp"

namespace datavalue_export::pg {

using core::IdKind;
using core::IdScheme;
using core::IdSchemeType;

/* SQL expression of an object's identifier under an id scheme, for a table alias (t by default). */
char *
IdentifierSql(const IdScheme &scheme, const char *alias)
{
	switch (scheme.type) {
	case IdSchemeType::kUid:
		return psprintf("%s.uid", alias);
	case IdSchemeType::kCode:
		return psprintf("%s.code", alias);
	case IdSchemeType::kName:
		return psprintf("%s.name::pg_catalog.text", alias);
	case IdSchemeType::kAttribute:
		/* The attribute UID was checked to be 11 alphanumerics, so it is safe as a literal. */
		return psprintf("pg_catalog.jsonb_extract_path_text(%s.attributevalues, '%s', 'value')", alias,
		                scheme.attribute.c_str());
	}
	return psprintf("%s.uid", alias);
}

namespace {

Datum
TextArray(const std::vector<std::string> &values)
{
	Datum *items = static_cast<Datum *>(palloc(sizeof(Datum) * (values.size() + 1)));
	for (size_t i = 0; i < values.size(); i++)
		items[i] = PointerGetDatum(cstring_to_text_with_len(values[i].data(), static_cast<int>(values[i].size())));
	ArrayType *array = construct_array(items, static_cast<int>(values.size()), TEXTOID, -1, false, TYPALIGN_INT);
	/* The array holds copies: the texts would live until SPI_finish (12 MB for 300k org unit keys). */
	for (size_t i = 0; i < values.size(); i++)
		pfree(DatumGetPointer(items[i]));
	pfree(items);
	return PointerGetDatum(array);
}

} // namespace

/* A DHIS2 table, qualified with the export's DHIS2 schema; palloc'd (also for datavalue_query.cpp). */
char *
Table(const ExportState *state, const char *name)
{
	return psprintf("%s.%s", state->dhis2_schema, name);
}

/* An int8[] of the ids, palloc'd (also the filter sets of datavalue_query.cpp). */
Datum
Int8Array(const std::vector<int64_t> &values)
{
	Datum *items = static_cast<Datum *>(palloc(sizeof(Datum) * (values.size() + 1)));
	for (size_t i = 0; i < values.size(); i++)
		items[i] = Int64GetDatum(values[i]);
	ArrayType *array =
	    construct_array(items, static_cast<int>(values.size()), INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	pfree(items);
	return PointerGetDatum(array);
}

/* Free the previous metadata query's result (each caller reads its result before the next query). */
void
FreeLastResult()
{
	if (SPI_tuptable != nullptr) {
		SPI_freetuptable(SPI_tuptable);
		SPI_tuptable = nullptr;
	}
}

/*
 * Run a read-only metadata query; the result is in SPI_tuptable. The previous query's result is
 * freed first: each caller reads its result before the next query, and an export's metadata
 * (329k org units with their identifiers) kept every result until the end. May ereport.
 */
void
RunMetadataQuery(const char *sql, int nargs, Oid *types, Datum *values)
{
	FreeLastResult();
	int rc = SPI_execute_with_args(sql, nargs, types, values, nullptr, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "metadata query failed: %s", SPI_result_code_string(rc));
}

/* Bound values become constants in the one-shot plan: hashed ANY lists, index use when selective. */
ParamListInfo
MakeParamList(int nargs, const Oid *types, const Datum *values)
{
	ParamListInfo list = makeParamList(nargs);
	for (int i = 0; i < nargs; i++) {
		list->params[i].value = values[i];
		list->params[i].isnull = false;
		list->params[i].pflags = PARAM_FLAG_CONST;
		list->params[i].ptype = types[i];
	}
	return list;
}

namespace {

void
ReceiverDone(DestReceiver *)
{
}

} // namespace

/* A receiver of rows (palloc'd, freed by its caller): nothing to do at shutdown or destroy. */
void
InitReceiver(DestReceiver *receiver, bool (*receive)(TupleTableSlot *, DestReceiver *),
             void (*startup)(DestReceiver *, int, TupleDesc))
{
	receiver->receiveSlot = receive;
	receiver->rStartup = startup;
	receiver->rShutdown = ReceiverDone;
	receiver->rDestroy = ReceiverDone;
	receiver->mydest = DestNone;
}

/*
 * "column = ANY($param)" for a bound int8[] of count ids. The planner estimates an ANY of a
 * constant array element by element and keeps some 350 bytes for each until the query ends
 * (100 MB for 300k org units, and 0.2 s). Past kMaxEstimatedIds the test is wrapped in a
 * COALESCE, which the planner estimates at once (a fixed selectivity); its executor still
 * hashes the array. The ids are never NULL, so the result is the same. For the roots of
 * ResolveOrgUnits, a scan of organisationunit either way, and for the data value query where its
 * plan reads the whole table (ExecuteRowQuery): one that goes through an index keeps the plain
 * form, in which sourceid can be one of the primary key's index conditions.
 */
bool
IdsEstimatedAtOnce(size_t count)
{
	constexpr size_t kMaxEstimatedIds = 10000;
	return count > kMaxEstimatedIds;
}

char *
IdsAnySql(const char *column, int param, size_t count)
{
	if (IdsEstimatedAtOnce(count))
		return psprintf("COALESCE(%s " OP("=") " ANY($%d), false)", column, param);
	return psprintf("%s " OP("=") " ANY($%d)", column, param);
}

/* Run a read-only SELECT whose rows go to dest as the executor makes them. May ereport. */
void
ExecuteInto(const char *sql, ParamListInfo params, DestReceiver *dest, const char *what)
{
	SPIExecuteOptions options;
	memset(&options, 0, sizeof options);
	options.params = params;
	options.read_only = true;
	options.dest = dest;
	const int rc = SPI_execute_extended(sql, &options);
	/* With a receiver of kind DestNone, SPI reports a SELECT as SPI_OK_UTILITY. */
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "%s failed: %s", what, SPI_result_code_string(rc));
}

/* A bigint column of the current SPI result; NULL reads as -1. */
int64
GetInt64(HeapTuple tuple, int column)
{
	bool isnull;
	Datum d = SPI_getbinval(tuple, SPI_tuptable->tupdesc, column, &isnull);
	return isnull ? -1 : DatumGetInt64(d);
}

/* The ids of objects, in order. May throw std::bad_alloc. */
void
IdsOf(const core::IdentifierList &objects, std::vector<int64_t> *ids)
{
	ids->clear();
	for (size_t i = 0; i < objects.size(); i++)
		ids->push_back(objects.Id(i));
}

namespace {

/* Text of a column, or NULL; palloc'd in the SPI context. */
char *
GetText(HeapTuple tuple, int column)
{
	return SPI_getvalue(tuple, SPI_tuptable->tupdesc, column);
}

/*
 * Receives the (id, output identifier, uid) rows of a metadata query into an IdentifierList as
 * the executor produces them. Through SPI's tuple table the rows of a country's 329k org units
 * were all held at once (53 MB, a third of the export's peak) before being copied. A query of
 * org units to rank also has (parent id, path), collected into a PathOrder.
 */
struct IdentifierReceiver {
	DestReceiver pub; /* must be first */
	core::IdentifierList *objects;
	core::PathOrder *paths; /* null, or where the parent ids and paths go */
	Oid path_collation;     /* the path column's, when paths is set */
	/* Per text column (by index: 1, 2, and 4 with paths): read as a varlena, or through its type's output function. */
	bool varlena[5];
	Oid output[5];
};

/* The text of column c (0-based) of the slot as a view; *copy is set when palloc'd. May ereport. */
std::string_view
ColumnText(const IdentifierReceiver *receiver, TupleTableSlot *slot, int c, bool *isnull, char **copy)
{
	*copy = nullptr;
	*isnull = slot->tts_isnull[c];
	if (*isnull)
		return std::string_view();
	const Datum datum = slot->tts_values[c];
	if (!receiver->varlena[c]) {
		*copy = OidOutputFunctionCall(receiver->output[c], datum);
		return std::string_view(*copy);
	}
	struct varlena *value = pg_detoast_datum_packed(reinterpret_cast<struct varlena *>(DatumGetPointer(datum)));
	if (value != reinterpret_cast<struct varlena *>(DatumGetPointer(datum)))
		*copy = reinterpret_cast<char *>(value);
	return std::string_view(VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value));
}

bool
ReceiveIdentifier(TupleTableSlot *slot, DestReceiver *self)
{
	const IdentifierReceiver *receiver = reinterpret_cast<IdentifierReceiver *>(self);
	slot_getallattrs(slot);
	const int64 id = slot->tts_isnull[0] ? -1 : DatumGetInt64(slot->tts_values[0]);
	bool text_null, uid_null;
	char *text_copy, *uid_copy;
	const std::string_view text = ColumnText(receiver, slot, 1, &text_null, &text_copy);
	const std::string_view uid = ColumnText(receiver, slot, 2, &uid_null, &uid_copy);
	core::IdentifierList *objects = receiver->objects;
	DVE_CORE(objects->Add(id, text_null ? std::nullopt : std::optional<std::string_view>(text), false, uid));
	if (text_copy != nullptr)
		pfree(text_copy);
	if (uid_copy != nullptr)
		pfree(uid_copy);
	if (receiver->paths != nullptr && !receiver->paths->overflowed()) {
		bool path_null;
		char *path_copy;
		const std::string_view path = ColumnText(receiver, slot, 4, &path_null, &path_copy);
		const std::optional<int64_t> parent =
		    slot->tts_isnull[3] ? std::nullopt : std::optional<int64_t>(DatumGetInt64(slot->tts_values[3]));
		DVE_CORE(receiver->paths->Add(id, parent, path_null ? std::nullopt : std::optional<std::string_view>(path)));
		if (path_copy != nullptr)
			pfree(path_copy);
	}
	return true;
}

/* Before the first row: how to read each text column (DHIS2's are text and varchar). */
void
IdentifierReceiverStartup(DestReceiver *self, int, TupleDesc typeinfo)
{
	IdentifierReceiver *receiver = reinterpret_cast<IdentifierReceiver *>(self);
	/* An org unit query run again with its ORDER BY still has the path columns: they are not read. */
	const int columns = receiver->paths != nullptr ? 5 : 3;
	if (typeinfo->natts != 5 && typeinfo->natts != columns)
		elog(ERROR, "unexpected column count %d in an identifier query", typeinfo->natts);
	if (receiver->paths != nullptr) {
		if (TupleDescAttr(typeinfo, 3)->atttypid != INT8OID)
			elog(ERROR, "unexpected parent id type in an org unit query");
		receiver->path_collation = TupleDescAttr(typeinfo, 4)->attcollation;
	}
	for (int c = 1; c < columns; c++) {
		if (c == 3)
			continue; /* the parent id */
		const Oid type = TupleDescAttr(typeinfo, c)->atttypid;
		const Oid base = getBaseType(type);
		receiver->varlena[c] = base == TEXTOID || base == VARCHAROID || base == BPCHAROID;
		if (!receiver->varlena[c]) {
			bool is_varlena;
			getTypeOutputInfo(type, &receiver->output[c], &is_varlena);
		}
	}
}

/*
 * Append (id, output identifier, uid) of every row of sql to objects, in the query's order.
 * With paths, the query's rows also have (parent id, path), collected there, and the path
 * column's collation is set in *path_collation. Bound values become constants, as in
 * SPI_execute_with_args. May ereport.
 */
void
LoadIdentifiers(const char *sql, int nargs, const Oid *types, const Datum *values, core::IdentifierList *objects,
                core::PathOrder *paths = nullptr, Oid *path_collation = nullptr)
{
	FreeLastResult();
	IdentifierReceiver *receiver = static_cast<IdentifierReceiver *>(palloc0(sizeof(IdentifierReceiver)));
	InitReceiver(&receiver->pub, ReceiveIdentifier, IdentifierReceiverStartup);
	receiver->objects = objects;
	receiver->paths = paths;
	ParamListInfo params = MakeParamList(nargs, types, values);
	ExecuteInto(sql, params, &receiver->pub, "metadata query");
	if (path_collation != nullptr)
		*path_collation = receiver->path_collation;
	pfree(params);
	pfree(receiver);
}

/* LoadIdentifiers for a query whose one parameter is an int8[] of ids. */
void
LoadIdentifiers(const char *sql, const std::vector<int64_t> &ids, core::IdentifierList *objects)
{
	const Oid types[1] = {INT8ARRAYOID};
	const Datum values[1] = {Int8Array(ids)};
	LoadIdentifiers(sql, 1, types, values, objects);
}

/* A key DHIS2's code fallback reads as a UID (CodeGenerator's shape); any other is a code. */
constexpr const char *kUidShape = OP("~") " '^[A-Za-z][A-Za-z0-9]{10}$'";

struct ObjectTable {
	const char *table;
	const char *id_column;
	const char *label; /* for messages */
};

constexpr ObjectTable kDataSet = {"dataset", "datasetid", "data set"};
constexpr ObjectTable kDataElement = {"dataelement", "dataelementid", "data element"};
constexpr ObjectTable kDataElementGroup = {"dataelementgroup", "dataelementgroupid", "data element group"};
constexpr ObjectTable kOrgUnit = {"organisationunit", "organisationunitid", "organisation unit"};
constexpr ObjectTable kOrgUnitGroup = {"orgunitgroup", "orgunitgroupid", "organisation unit group"};
constexpr ObjectTable kOptionCombo = {"categoryoptioncombo", "categoryoptioncomboid", "category option combo"};

/*
 * Database ids of the given identifiers, in request order and each once, looked up by the input id scheme
 * (with its code_fallback: UIDs by uid, anything else by code). An identifier that matches
 * nothing is an error. May ereport.
 */
void
ResolveKeys(const ExportState *state, const ObjectTable &object, const IdScheme &scheme,
            const std::vector<std::string> &keys, std::vector<int64_t> *ids)
{
	if (keys.empty())
		return;
	const char *column = scheme.type == IdSchemeType::kCode   ? "code"
	                     : scheme.type == IdSchemeType::kName ? "name"
	                                                          : "uid";
	char *sql;
	if (scheme.code_fallback && scheme.IsUid())
		/*
		 * A key shaped like a UID is looked up by uid, any other by code: two joins, each on one
		 * unique column, so each can use its index or a hash. One join on a CASE of the two
		 * columns could only be a nested loop: 20 s for 100 keys among 329k org units.
		 */
		sql = psprintf(
		    "SELECT COALESCE(u.%s, c.%s), k.key FROM pg_catalog.unnest($1::text[]) WITH ORDINALITY AS k(key, n) "
		    "LEFT JOIN %s u ON k.key %s AND u.uid %s k.key "
		    "LEFT JOIN %s c ON NOT (k.key %s) AND c.code %s k.key ORDER BY k.n",
		    object.id_column, object.id_column, Table(state, object.table), kUidShape, OP("="),
		    Table(state, object.table), kUidShape, OP("="));
	else
		sql = psprintf("SELECT t.%s, k.key FROM pg_catalog.unnest($1::text[]) WITH ORDINALITY AS k(key, n) "
		               "LEFT JOIN %s t ON t.%s " OP("=") " k.key ORDER BY k.n",
		               object.id_column, Table(state, object.table), column);
	Oid types[1] = {TEXTARRAYOID};
	Datum values[1] = {TextArray(keys)};
	RunMetadataQuery(sql, 1, types, values);
	for (uint64 i = 0; i < SPI_processed; i++) {
		HeapTuple tuple = SPI_tuptable->vals[i];
		int64 id = GetInt64(tuple, 1);
		if (id < 0) {
			/*
			 * The label is copied out of C++ first: ereport must not jump over a live std::string.
			 * snprintf, not strlcpy: PostgreSQL 17+ headers built on glibc 2.38+ leave strlcpy to libc.
			 */
			char label[32];
			DVE_CORE(snprintf(label, sizeof label, "%s", scheme.Label().c_str()));
			ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
			                errmsg("%s \"%s\" does not exist", object.label, GetText(tuple, 2)),
			                errhint("Identifiers are read as %s; set the input id scheme to match.", label)));
		}
		DVE_CORE(ids->push_back(id));
	}
	/* An object named twice (its UID and its code) counts once: ADX would write its data twice. */
	DVE_CORE(core::DeduplicateKeepingFirst(*ids));
}

/* Append the first column of every row of sql ($1 = int8[] of owner ids) to ids. May ereport. */
void
AppendMemberIds(const char *sql, const std::vector<int64_t> &owners, std::vector<int64_t> *ids)
{
	Oid types[1] = {INT8ARRAYOID};
	Datum values[1] = {Int8Array(owners)};
	RunMetadataQuery(sql, 1, types, values);
	for (uint64 i = 0; i < SPI_processed; i++) {
		int64 id = GetInt64(SPI_tuptable->vals[i], 1);
		DVE_CORE(ids->push_back(id));
	}
}

void
ResolveDataSetsAndElements(ExportState *state)
{
	const core::ExportPlan &plan = state->plan;
	const core::ExportRequest &request = plan.request;

	std::vector<int64_t> *data_set_ids = &state->scratch.data_set_ids;
	ResolveKeys(state, kDataSet, plan.input_data_set_scheme, request.data_set, data_set_ids);
	char *ident = IdentifierSql(plan.data_set_scheme);
	LoadIdentifiers(
	    psprintf("SELECT t.datasetid, %s, t.uid FROM %s t JOIN pg_catalog.unnest($1::int8[]) WITH ORDINALITY AS "
	             "k(id, n) ON t.datasetid " OP("=") " k.id ORDER BY k.n",
	             ident, Table(state, "dataset")),
	    *data_set_ids, &state->metadata.data_sets);

	std::vector<int64_t> *element_ids = &state->filters.data_element_ids;
	ResolveKeys(state, kDataElement, plan.input_data_element_scheme, request.data_element, element_ids);
	if (state->plan.request.format == core::Format::kAdx) {
		/*
		 * ADX exports data sets only (2.43 validates dataElement and dataElementGroup, then
		 * ignores them): each data set's elements, queried one data set at a time.
		 */
		DVE_CORE(element_ids->clear(); state->scratch.data_set_elements.clear());
		std::vector<int64_t> *one = &state->scratch.ids;
		for (const core::IdentifierRef data_set : state->metadata.data_sets) {
			DVE_CORE(state->scratch.data_set_elements.emplace_back(); one->assign(1, data_set.id));
			AppendMemberIds(
			    psprintf("SELECT DISTINCT dse.dataelementid FROM %s dse WHERE dse.datasetid " OP("=") " ANY($1)",
			             Table(state, "datasetelement")),
			    *one, &state->scratch.data_set_elements.back());
			DVE_CORE(element_ids->insert(element_ids->end(), state->scratch.data_set_elements.back().begin(),
			                             state->scratch.data_set_elements.back().end()));
		}
	} else if (!data_set_ids->empty()) {
		AppendMemberIds(psprintf("SELECT DISTINCT dataelementid FROM %s WHERE datasetid " OP("=") " ANY($1)",
		                         Table(state, "datasetelement")),
		                *data_set_ids, element_ids);
	}

	if (!request.data_element_group.empty() && state->plan.request.format != core::Format::kAdx) {
		std::vector<int64_t> *group_ids = &state->scratch.ids;
		DVE_CORE(group_ids->clear());
		ResolveKeys(state, kDataElementGroup, plan.input_data_element_group_scheme, request.data_element_group,
		            group_ids);
		AppendMemberIds(psprintf("SELECT DISTINCT dataelementid FROM %s WHERE dataelementgroupid " OP("=") " ANY($1)",
		                         Table(state, "dataelementgroupmembers")),
		                *group_ids, element_ids);
	}

	/* Union without duplicates, then the output identifier of each, in uid order (the sort rank). */
	DVE_CORE({
		std::sort(element_ids->begin(), element_ids->end());
		element_ids->erase(std::unique(element_ids->begin(), element_ids->end()), element_ids->end());
	});
	ident = IdentifierSql(plan.data_element_scheme);
	LoadIdentifiers(
	    psprintf("SELECT t.dataelementid, %s, t.uid FROM %s t WHERE t.dataelementid " OP("=") " ANY($1) ORDER BY "
	                                                                                          "t.uid, t.dataelementid",
	             ident, Table(state, "dataelement")),
	    *element_ids, &state->metadata.objects[static_cast<size_t>(IdKind::kDataElement)]);
}

/*
 * The org units and groups requested, by their keys (one that matches nothing is an error), and
 * the roots' identifiers for the header; the selection is loaded later (LoadOrgUnitSelection).
 * May ereport.
 */
void
ResolveOrgUnits(ExportState *state)
{
	const core::ExportPlan &plan = state->plan;
	const core::ExportRequest &request = plan.request;

	std::vector<int64_t> *roots = &state->scratch.org_unit_roots;
	std::vector<int64_t> *groups = &state->scratch.org_unit_groups;
	ResolveKeys(state, kOrgUnit, plan.input_org_unit_scheme, request.org_unit, roots);
	ResolveKeys(state, kOrgUnitGroup, plan.input_other_scheme, request.org_unit_group, groups);
	/*
	 * One org unit requested, by one name: DHIS2 decodes the names into a list it does not
	 * deduplicate, so a UID and a code of the same org unit are two entries and no header.
	 */
	if (roots->size() == 1 && request.org_unit.size() == 1 && !request.children && request.org_unit_group.empty())
		state->metadata.single_org_unit_id = (*roots)[0];

	char *ident = IdentifierSql(plan.org_unit_scheme);
	LoadIdentifiers(psprintf("SELECT t.organisationunitid, %s, t.uid FROM %s t JOIN pg_catalog.unnest($1::int8[]) "
	                         "WITH ORDINALITY AS k(id, n) ON t.organisationunitid " OP("=") " k.id ORDER BY k.n",
	                         ident, Table(state, "organisationunit")),
	                *roots, &state->metadata.org_units);
}

bool HoldsEveryRow(const ExportState *state, const char *table, size_t count);
bool RowSecurityActive(const ExportState *state, const char *table);
Oid DhisTableOid(const ExportState *state, const char *name);

/*
 * The columns an org unit query adds for LoadOrgUnitsInPathOrder: the parent id (NULL in a table
 * without one: every org unit is then a root of its own) and the path.
 */
const char *
PathColumnsSql(const ExportState *state)
{
	const Oid table = DhisTableOid(state, "organisationunit");
	const bool has_parent = OidIsValid(table) && get_attnum(table, "parentid") != InvalidAttrNumber;
	return has_parent ? ", t.parentid::pg_catalog.int8, t.path" : ", NULL::pg_catalog.int8, t.path";
}

/*
 * Whether the proposed order of the org units collected (scratch) is ORDER BY path, id in
 * collation, NULL paths last: each adjacent pair compared by PostgreSQL's own text comparison.
 * May ereport (the collation's errors).
 */
bool
InPathOrder(MetadataScratch *scratch, Oid collation)
{
	const core::PathOrder &paths = scratch->org_unit_paths;
	const std::vector<uint32_t> &order = scratch->path_order;
	std::string *before = &scratch->path_texts[0], *after = &scratch->path_texts[1];
	if (!order.empty() && paths.HasPath(order[0]))
		DVE_CORE(paths.PathOf(order[0], before));
	for (size_t k = 1; k < order.size(); k++) {
		const uint32_t a = order[k - 1], b = order[k];
		if ((k & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!paths.HasPath(a) || !paths.HasPath(b)) {
			if (paths.HasPath(a) || (!paths.HasPath(b) && paths.Id(a) < paths.Id(b)))
				continue;
			return false;
		}
		DVE_CORE(paths.PathOf(b, after, a, *before));
		const int c = varstr_cmp(before->data(), static_cast<int>(before->size()), after->data(),
		                         static_cast<int>(after->size()), collation);
		if (c > 0 || (c == 0 && paths.Id(a) >= paths.Id(b)))
			return false;
		std::swap(before, after);
	}
	return true;
}

/* Which way LoadOrgUnitsInPathOrder ranks, when it cannot from the tree. */
enum class PathRanking {
	kFromTree,
	kTooLarge, /* estimated, or found, to take more than the budget */
	kNoCollation,
	kOutOfOrder, /* the proposal failed the check */
};

/*
 * Load the org units of sql (alias t; id, identifier, uid, then PathColumnsSql's) in the order of
 * ORDER BY t.path, t.organisationunitid, into objects (empty). Sorting a country's paths in the
 * database took 0.35-0.95 s for 329k org units, by collation (bench/README "Org units ranked
 * from their tree"). Instead the paths are read unsorted and core::PathOrder proposes their order from
 * the tree (parent ids), which PostgreSQL's comparison then checks pair by pair; the query runs
 * again with its ORDER BY when the check fails, or when the paths would take more than
 * datavalue_export.sort_run_memory (the memory the export's sort takes later). selected is the
 * planner's estimate of the org units, when RestrictToObjectsInUse made one for this query, else
 * -1. May ereport.
 */
void
LoadOrgUnitsInPathOrder(ExportState *state, StringInfo sql, QueryParams *params, core::IdentifierList *objects,
                        double selected)
{
	MetadataScratch *scratch = &state->scratch;
	core::PathOrder *paths = &scratch->org_unit_paths;
	const size_t budget = static_cast<size_t>(sort_run_memory_kb) * 1024;
	const double rows = selected >= 0 ? selected : EstimatedRows(sql->data, params);
	PathRanking ranking = PathRanking::kTooLarge;
	size_t bytes = 0;
	if (objects->empty() && rows >= 0 && core::PathOrder::BytesFor(static_cast<size_t>(rows)) <= budget) {
		/* The ends of the ids (from the primary key), so that PathOrder can index them by an array. */
		RunMetadataQuery(psprintf("SELECT pg_catalog.min(t.organisationunitid)::pg_catalog.int8, "
		                          "pg_catalog.max(t.organisationunitid)::pg_catalog.int8 FROM %s t",
		                          Table(state, "organisationunit")),
		                 0, nullptr, nullptr);
		const int64 min_id = GetInt64(SPI_tuptable->vals[0], 1), max_id = GetInt64(SPI_tuptable->vals[0], 2);
		Oid collation = InvalidOid;
		DVE_CORE(*paths = core::PathOrder(budget); paths->Reserve(static_cast<size_t>(rows), min_id, max_id));
		LoadIdentifiers(sql->data, params->nargs, params->types, params->values, objects, paths, &collation);
		bytes = paths->MemoryBytes();
		if (paths->overflowed())
			ranking = PathRanking::kTooLarge;
		else if (!OidIsValid(collation))
			ranking = PathRanking::kNoCollation;
		else {
			/* English-like collations put "a" before "B"; byte order (C, C.UTF-8) does not. */
			const bool case_folded = varstr_cmp("a", 1, "B", 1, collation) < 0;
			DVE_CORE(scratch->path_order =
			             paths->Propose(case_folded ? core::PathCollation::kCaseFolded : core::PathCollation::kBytes));
			ranking = InPathOrder(scratch, collation) ? PathRanking::kFromTree : PathRanking::kOutOfOrder;
		}
		DVE_CORE({
			if (ranking == PathRanking::kFromTree)
				objects->Permute(scratch->path_order);
			else
				objects->clear();
			paths->Release();
			std::vector<uint32_t>().swap(scratch->path_order);
			for (std::string &text : scratch->path_texts)
				std::string().swap(text);
		});
	}
	if (ranking == PathRanking::kFromTree) {
		elog(DEBUG1, "datavalue_export: %zu org units ranked by path from their tree, in %zu kB", objects->size(),
		     bytes / 1024);
		return;
	}
	elog(DEBUG1, "datavalue_export: org units ranked by path by PostgreSQL: %s",
	     ranking == PathRanking::kNoCollation  ? "their paths have no collation"
	     : ranking == PathRanking::kOutOfOrder ? "their paths are not in the order of their tree"
	                                           : "their paths would take more than datavalue_export.sort_run_memory");
	appendStringInfoString(sql, " ORDER BY t.path, t.organisationunitid");
	LoadIdentifiers(sql->data, params->nargs, params->types, params->values, objects);
}

/*
 * The org units the export selects: the roots, with children their subtrees, the groups'
 * members, at a level. Loaded once the other filters are known, so that an export of few values
 * loads only the org units those values use (RestrictToObjectsInUse). Sets the org unit filter.
 * May ereport.
 */
void
LoadOrgUnitSelection(ExportSession *session)
{
	ExportState *state = session->state;
	const core::ExportPlan &plan = state->plan;
	const core::ExportRequest &request = plan.request;
	const std::vector<int64_t> &roots = state->scratch.org_unit_roots;
	const std::vector<int64_t> &groups = state->scratch.org_unit_groups;

	/*
	 * A subtree is the org units whose path starts with the root's (DHIS2's own test). Each root's
	 * prefix is a bound constant, so with DHIS2's in_organisationunit_path index the query reads
	 * only the subtrees; a correlated EXISTS over the roots made it test every org unit of the
	 * table with an index scan each (3-4 ms of an export's fixed cost at 1,332 org units).
	 * Beyond kMaxPathPrefixes roots one LIKE ANY tests each org unit against all of them.
	 */
	constexpr uint64 kMaxPathPrefixes = 8;
	QueryParams params;
	params.nargs = 0;
	AddParam(&params, INT8ARRAYOID, Int8Array(roots));
	AddParam(&params, INT8ARRAYOID, Int8Array(groups));
	StringInfoData sql;
	initStringInfo(&sql);
	/*
	 * With children a root is in its subtree only through its own path, as in DHIS2's join: a
	 * root whose path is NULL matches nothing, itself included.
	 */
	/* An ordered export ranks them by path, from their tree when it can (LoadOrgUnitsInPathOrder). */
	appendStringInfo(&sql, "SELECT t.organisationunitid, %s, t.uid%s FROM %s t WHERE ((%s%s)",
	                 IdentifierSql(plan.org_unit_scheme), plan.unordered ? "" : PathColumnsSql(state),
	                 Table(state, "organisationunit"), IdsAnySql("t.organisationunitid", 1, roots.size()),
	                 request.children ? " AND t.path IS NOT NULL" : "");
	if (request.children && !roots.empty()) {
		Oid path_types[1] = {INT8ARRAYOID};
		Datum path_values[1] = {params.values[0]};
		RunMetadataQuery(psprintf("SELECT DISTINCT r.path " OP("||") " '%%' FROM %s r WHERE r.organisationunitid " OP(
		                              "=") " ANY($1) AND r.path IS NOT NULL",
		                          Table(state, "organisationunit")),
		                 1, path_types, path_values);
		SPITupleTable *prefixes = SPI_tuptable;
		const uint64 count = SPI_processed;
		if (count <= kMaxPathPrefixes) {
			for (uint64 i = 0; i < count; i++) {
				const Datum prefix = CStringGetTextDatum(SPI_getvalue(prefixes->vals[i], prefixes->tupdesc, 1));
				appendStringInfo(&sql, " OR t.path " OP("~~") " $%d", AddParam(&params, TEXTOID, prefix));
			}
		} else {
			Datum *items = static_cast<Datum *>(palloc(sizeof(Datum) * count));
			for (uint64 i = 0; i < count; i++)
				items[i] = CStringGetTextDatum(SPI_getvalue(prefixes->vals[i], prefixes->tupdesc, 1));
			const Datum array =
			    PointerGetDatum(construct_array(items, static_cast<int>(count), TEXTOID, -1, false, TYPALIGN_INT));
			appendStringInfo(&sql, " OR t.path " OP("~~") " ANY($%d)", AddParam(&params, TEXTARRAYOID, array));
		}
	}
	if (!groups.empty())
		appendStringInfo(&sql,
		                 " OR t.organisationunitid " OP("=") " ANY (SELECT organisationunitid FROM %s "
		                                                     "WHERE orgunitgroupid " OP("=") " ANY($2))",
		                 Table(state, "orgunitgroupmembers"));
	appendStringInfoChar(&sql, ')');
	if (request.level)
		appendStringInfo(&sql, " AND t.hierarchylevel " OP("=") " %d", *request.level);
	/* No org unit filter until the selection is loaded. */
	state->filters.all_org_units = true;
	double selected = -1;
	RestrictToObjectsInUse(session, &sql, &params, "org units", "AND", "organisationunitid", "dv.sourceid", nullptr,
	                       &selected);
	/*
	 * Registration order is sort rank (row_sorter.hpp): DHIS2's OU order is by path. An unordered
	 * export ranks nothing, and sorting a country's paths (long, sharing their first levels,
	 * compared in the database's collation) took most of its time: 0.71 s against 0.23 s for
	 * the whole export of 329k org units.
	 */
	core::IdentifierList *objects = &state->metadata.objects[static_cast<size_t>(IdKind::kOrgUnit)];
	if (plan.unordered)
		LoadIdentifiers(sql.data, params.nargs, params.types, params.values, objects);
	else
		LoadOrgUnitsInPathOrder(state, &sql, &params, objects, selected);
	pfree(sql.data);
	std::vector<int64_t> *ids = &state->filters.org_unit_ids;
	DVE_CORE(ids->reserve(objects->size()); IdsOf(*objects, ids));
	state->filters.all_org_units = HoldsEveryRow(state, "organisationunit", ids->size());
}

/* The DHIS2 table's OID in the export's schema, or InvalidOid. */
Oid
DhisTableOid(const ExportState *state, const char *name)
{
	return get_relname_relid(name, state->dhis2_schema_oid);
}

/* 2.43 has period.iso; 2.42 computes it from the period type. */
bool
PeriodIsoColumnExists(const ExportState *state)
{
	const Oid period = DhisTableOid(state, "period");
	return OidIsValid(period) && get_attnum(period, "iso") != InvalidAttrNumber;
}

void
ResolvePeriods(ExportState *state)
{
	const core::ExportPlan &plan = state->plan;
	const core::ExportRequest &request = plan.request;
	state->scratch.has_period_iso_column = PeriodIsoColumnExists(state);

	StringInfoData sql;
	initStringInfo(&sql);
	/*
	 * Columns: id, iso (2.43) or type name (2.42), start as a day number (NULL when infinite:
	 * DHIS2 has no such date, and one such row must not fail the query for every period).
	 */
	const char *start_day =
	    "(CASE WHEN pg_catalog.isfinite(pe.startdate) THEN (pe.startdate " OP("-") " DATE '2000-01-01')::int8 END)";
	const char *end_day =
	    "(CASE WHEN pg_catalog.isfinite(pe.enddate) THEN (pe.enddate " OP("-") " DATE '2000-01-01')::int8 END)";
	appendStringInfo(
	    &sql, "SELECT pe.periodid, %s, %s FROM %s pe LEFT JOIN %s pt ON pt.periodtypeid " OP("=") " pe.periodtypeid",
	    state->scratch.has_period_iso_column ? "pe.iso" : "pt.name", start_day, Table(state, "period"),
	    Table(state, "periodtype"));
	Oid types[3] = {TEXTARRAYOID, DATEOID, DATEOID};
	Datum values[3] = {0, 0, 0};
	int nargs = 0;
	if (!plan.periods.empty()) {
		/* By ISO text on 2.43; by type, start and end on 2.42, which has no iso column. */
		std::vector<std::string> *names = &state->scratch.texts;
		DVE_CORE(names->clear());
		for (size_t i = 0; i < plan.periods.size(); i++) {
			const core::Period &p = plan.periods[i];
			DVE_CORE(names->push_back(state->scratch.has_period_iso_column
			                              ? plan.period_iso[i]
			                              : std::string(core::PeriodTypeName(p.type)) + "|" + std::to_string(p.start) +
			                                    "|" + std::to_string(p.end)));
		}
		values[0] = TextArray(*names);
		nargs = 1;
		if (state->scratch.has_period_iso_column)
			appendStringInfoString(&sql, " WHERE pe.iso " OP("=") " ANY($1)");
		else
			appendStringInfo(&sql,
			                 " WHERE pt.name::text " OP("||") " '|' " OP("||") " %s::text " OP("||") " '|' " OP(
			                     "||") " %s::text " OP("=") " ANY($1)",
			                 start_day, end_day);
		state->filters.filter_periods = true;
	} else if (request.start_date && request.end_date) {
		types[0] = DATEOID;
		types[1] = DATEOID;
		values[0] = DateADTGetDatum(*request.start_date);
		values[1] = DateADTGetDatum(*request.end_date);
		nargs = 2;
		appendStringInfoString(&sql, " WHERE pe.startdate " OP(">=") " $1 AND pe.enddate " OP("<=") " $2");
		state->filters.filter_periods = true;
	}
	appendStringInfoString(&sql, " ORDER BY pe.startdate, pe.enddate, pe.periodid");
	RunMetadataQuery(sql.data, nargs, types, values);

	core::IdentifierList *objects = &state->metadata.objects[static_cast<size_t>(IdKind::kPeriod)];
	const bool computed = !state->scratch.has_period_iso_column;
	const bool adx = state->plan.request.format == core::Format::kAdx;
	constexpr const char *kAdxNotation = "ADX writes a period as its start date and its type's duration.";
	for (uint64 i = 0; i < SPI_processed; i++) {
		HeapTuple tuple = SPI_tuptable->vals[i];
		int64 id = GetInt64(tuple, 1);
		const char *label = GetText(tuple, 2);
		bool infinite;
		const Datum start_datum = SPI_getbinval(tuple, SPI_tuptable->tupdesc, 3, &infinite);
		const int32 start = infinite ? 0 : static_cast<int32>(DatumGetInt64(start_datum));
		DVE_CORE({
			std::optional<std::string> iso;
			MetadataScratch::UnusablePeriod unusable{id, ERRCODE_NULL_VALUE_NOT_ALLOWED, {}, {}};
			/* The type: 2.42 names it; ADX reads it from 2.43's ISO text (its notation is start and duration). */
			std::optional<core::PeriodType> type;
			if (label == nullptr) {
				unusable.why = computed ? "it has no period type" : "its iso is NULL";
				unusable.detail = computed ? "DHIS2 2.42 derives the ISO period from period.periodtypeid, declared NOT "
				                             "NULL."
				                           : "DHIS2 declares period.iso NOT NULL.";
			} else if (computed || adx) {
				if (computed)
					type = core::PeriodTypeFromName(label);
				else if (const auto period = core::ParseIsoPeriod(label))
					type = period->type;
				/* DHIS2 2.42 has the type, with no ISO period: written as null, as DHIS2 writes it. */
				const bool two_yearly = computed && std::string_view(label) == "TwoYearly";
				if (two_yearly && adx) {
					unusable.sqlstate = ERRCODE_INVALID_PARAMETER_VALUE;
					unusable.why = "its type TwoYearly has no ISO period";
					unusable.detail = kAdxNotation;
				} else if (!type && !two_yearly) {
					unusable.sqlstate = ERRCODE_INVALID_PARAMETER_VALUE;
					unusable.why = std::string(computed ? "its period type \"" : "its iso \"") + label +
					               (computed ? "\" is not one DHIS2 has" : "\" is not an ISO period");
					unusable.detail =
					    computed ? "DHIS2 2.42 derives the ISO period from the period type's name." : kAdxNotation;
				} else if (type && infinite) {
					unusable.sqlstate = ERRCODE_DATETIME_FIELD_OVERFLOW;
					unusable.why = "its start date is infinite";
					unusable.detail =
					    computed ? "DHIS2 2.42 derives the ISO period from the start date." : kAdxNotation;
				}
			}
			if (!unusable.why.empty())
				state->scratch.unusable_periods.push_back(std::move(unusable));
			else if (adx)
				iso = core::AdxPeriod(*type, start);
			else if (!computed)
				iso = label;
			else if (type)
				iso = core::IsoPeriod(*type, start);
			objects->Add(id, iso ? std::optional<std::string_view>(*iso) : std::nullopt);
			if (state->filters.filter_periods)
				state->filters.period_ids.push_back(id);
		});
	}
}

/*
 * An attributeCombo or an attributeOptions member that names nothing is DHIS2 2.42's E1110 or
 * E1111 (the first unknown one, combo first), not "no matching AOC" (E2041). May ereport.
 */
void
RefuseUnknownComboOrOption(const ExportState *state, const char *column)
{
	const core::ExportRequest &request = state->plan.request;
	Oid types[2] = {TEXTOID, TEXTARRAYOID};
	Datum values[2] = {request.attribute_combo ? CStringGetTextDatum(request.attribute_combo->c_str()) : (Datum)0,
	                   TextArray(request.attribute_options)};
	char nulls[3] = {request.attribute_combo ? ' ' : 'n', ' ', '\0'};
	const char *sql =
	    psprintf("SELECT 1::int8, $1 WHERE $1 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM %s cb WHERE cb.%s::text " OP(
	                 "=") " $1) "
	                      "UNION ALL (SELECT 2::int8, o FROM pg_catalog.unnest($2::text[]) WITH ORDINALITY AS u(o, n) "
	                      "WHERE NOT EXISTS "
	                      "(SELECT 1 FROM %s co WHERE co.%s::text " OP("=") " u.o) ORDER BY u.n) LIMIT 1",
	             Table(state, "categorycombo"), column, Table(state, "categoryoption"), column);
	const int rc = SPI_execute_with_args(sql, 2, types, values, nulls, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "category combo lookup failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return;
	const bool combo = GetInt64(SPI_tuptable->vals[0], 1) == 1;
	ereport(ERROR,
	        (errcode(ERRCODE_UNDEFINED_OBJECT),
	         errmsg("%s not found or not accessible: `%s`", combo ? "E1110: Category combo" : "E1111: Category option",
	                GetText(SPI_tuptable->vals[0], 2))));
}

/*
 * The option combos the request names: its COC and AOC filters, and the AOC of attributeCombo
 * with attributeOptions. The combos' lists are loaded later (LoadOptionCombos). May ereport.
 */
void
ResolveOptionCombos(ExportState *state)
{
	const core::ExportPlan &plan = state->plan;
	const core::ExportRequest &request = plan.request;

	ResolveKeys(state, kOptionCombo, plan.input_other_scheme, request.category_option_combo,
	            &state->filters.category_option_combo_ids);
	state->filters.filter_category_option_combos = !state->filters.category_option_combo_ids.empty();
	ResolveKeys(state, kOptionCombo, plan.input_other_scheme, request.attribute_option_combo,
	            &state->filters.attribute_option_combo_ids);
	state->filters.filter_attribute_option_combos = !state->filters.attribute_option_combo_ids.empty();

	/*
	 * attributeCombo + attributeOptions name one attribute option combo: the one of that combo
	 * (the combo named "default" when absent) whose options are exactly the given ones. Only
	 * without attributeOptionCombo, which names the combos itself (2.43 decodeParams); a combo
	 * without options was refused in validation (E2040).
	 */
	if (request.attribute_option_combo.empty() && !request.attribute_options.empty()) {
		const IdScheme &scheme = plan.input_other_scheme;
		const char *column = scheme.type == IdSchemeType::kCode   ? "code"
		                     : scheme.type == IdSchemeType::kName ? "name"
		                                                          : "uid";
		RefuseUnknownComboOrOption(state, column);
		char *sql = psprintf(
		    "SELECT coc.categoryoptioncomboid FROM %s coc "
		    "JOIN %s cc ON cc.categoryoptioncomboid " OP(
		        "=") " coc.categoryoptioncomboid "
		             "JOIN %s cb ON cb.categorycomboid " OP(
		                 "=") " cc.categorycomboid "
		                      "WHERE %s AND (SELECT coalesce(pg_catalog.array_agg(co.%s::text ORDER BY co.%s::text), "
		                      "'{}') FROM "
		                      "%s x JOIN %s co ON co.categoryoptionid " OP(
		                          "=") " x.categoryoptionid "
		                               "WHERE x.categoryoptioncomboid " OP("=") " coc.categoryoptioncomboid) " OP(
		                                   "=") " "
		                                        "(SELECT coalesce(pg_catalog.array_agg(o ORDER BY o), '{}') FROM "
		                                        "pg_catalog.unnest($2::text[]) o)",
		    Table(state, "categoryoptioncombo"), Table(state, "categorycombos_optioncombos"),
		    Table(state, "categorycombo"),
		    request.attribute_combo ? psprintf("cb.%s::text " OP("=") " $1", column)
		                            : "cb.name::text " OP("=") " 'default' AND $1 IS NULL",
		    column, column, Table(state, "categoryoptioncombos_categoryoptions"), Table(state, "categoryoption"));
		Oid types[2] = {TEXTOID, TEXTARRAYOID};
		Datum values[2] = {request.attribute_combo ? CStringGetTextDatum(request.attribute_combo->c_str())
		                                           : CStringGetTextDatum(""),
		                   TextArray(request.attribute_options)};
		char nulls[3] = {request.attribute_combo ? ' ' : 'n', ' ', '\0'};
		int rc = SPI_execute_with_args(sql, 2, types, values, nulls, true, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "attribute option combo lookup failed: %s", SPI_result_code_string(rc));
		if (SPI_processed == 0)
			ereport(ERROR,
			        (errcode(ERRCODE_UNDEFINED_OBJECT),
			         errmsg("E2041: Attribute option combo does not exist for given attribute combo and options"),
			         errdetail("DHIS2 2.43 silently drops the filter in this case; the extension refuses, as "
			                   "DHIS2 2.42 did.")));
		int64 id = GetInt64(SPI_tuptable->vals[0], 1);
		/* The same AOC may also have been named directly: keep each once (header hoisting counts them). */
		DVE_CORE({
			std::vector<int64_t> &ids = state->filters.attribute_option_combo_ids;
			if (std::find(ids.begin(), ids.end(), id) == ids.end())
				ids.push_back(id);
		});
		state->filters.filter_attribute_option_combos = true;
	}
	/* As for the org unit: two names of one AOC are two entries in DHIS2's decoded list. */
	if (state->filters.attribute_option_combo_ids.size() == 1 && request.attribute_option_combo.size() <= 1)
		state->metadata.single_attribute_option_combo_id = state->filters.attribute_option_combo_ids[0];
}

/*
 * Every option combo (both lists: an id can be a COC or an AOC) in (uid, id) order, its sort rank.
 * An export of few values loads only the combos they use (RestrictToObjectsInUse), and the ones
 * the request names (a header may show one). With row security the combos visible are filters of
 * the data value query. Call after the org unit selection is loaded. May ereport.
 */
void
LoadOptionCombos(ExportSession *session)
{
	ExportState *state = session->state;
	const core::ExportPlan &plan = state->plan;
	QueryParams params;
	params.nargs = 0;
	StringInfoData sql;
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT t.categoryoptioncomboid, %s, %s, t.uid " OP("=") " 'HllvX50cXC0', t.uid FROM %s t",
	                 IdentifierSql(plan.category_option_combo_scheme),
	                 IdentifierSql(plan.attribute_option_combo_scheme), Table(state, "categoryoptioncombo"));
	std::vector<int64_t> *named = &state->scratch.ids;
	DVE_CORE({
		named->assign(state->filters.category_option_combo_ids.begin(), state->filters.category_option_combo_ids.end());
		named->insert(named->end(), state->filters.attribute_option_combo_ids.begin(),
		              state->filters.attribute_option_combo_ids.end());
	});
	state->scratch.option_combos_in_use_only =
	    RestrictToObjectsInUse(session, &sql, &params, "option combos", "WHERE", "categoryoptioncomboid",
	                           "pg_catalog.unnest(ARRAY[dv.categoryoptioncomboid, dv.attributeoptioncomboid])", named);
	appendStringInfoString(&sql, " ORDER BY t.uid, t.categoryoptioncomboid");
	RunMetadataQuery(sql.data, params.nargs, params.types, params.values);
	pfree(sql.data);
	core::IdentifierList *cocs = &state->metadata.objects[static_cast<size_t>(IdKind::kCategoryOptionCombo)];
	core::IdentifierList *aocs = &state->metadata.objects[static_cast<size_t>(IdKind::kAttributeOptionCombo)];
	for (uint64 i = 0; i < SPI_processed; i++) {
		HeapTuple tuple = SPI_tuptable->vals[i];
		int64 id = GetInt64(tuple, 1);
		const char *coc_text = GetText(tuple, 2);
		const char *aoc_text = GetText(tuple, 3);
		const char *is_default = GetText(tuple, 4);
		const bool def = is_default && is_default[0] == 't';
		const char *uid_text = GetText(tuple, 5);
		const char *uid = uid_text ? uid_text : "";
		DVE_CORE({
			cocs->Add(id, coc_text ? std::optional<std::string_view>(coc_text) : std::nullopt, def, uid);
			aocs->Add(id, aoc_text ? std::optional<std::string_view>(aoc_text) : std::nullopt, def, uid);
		});
	}
	if (RowSecurityActive(state, "categoryoptioncombo")) {
		if (!state->filters.filter_category_option_combos) {
			std::vector<int64_t> *ids = &state->filters.category_option_combo_ids;
			DVE_CORE(IdsOf(*cocs, ids));
			state->filters.filter_category_option_combos = true;
		}
		if (!state->filters.filter_attribute_option_combos) {
			std::vector<int64_t> *ids = &state->filters.attribute_option_combo_ids;
			DVE_CORE(IdsOf(*aocs, ids));
			state->filters.filter_attribute_option_combos = true;
		}
	}
}

/* 2.42's completeDate: the registration of the single set, period and org unit, default AOC. */
void
ResolveCompleteDate(ExportState *state)
{
	const core::ExportRequest &request = state->plan.request;
	if (state->plan.style != core::Style::k242 || request.data_set.size() != 1 || request.period.size() != 1 ||
	    request.org_unit.size() != 1 || state->metadata.data_sets.empty() || state->metadata.org_units.empty() ||
	    state->filters.period_ids.size() != 1)
		return;
	if (!OidIsValid(DhisTableOid(state, "completedatasetregistration")))
		return;
	Oid types[3] = {INT8OID, INT8OID, INT8OID};
	Datum values[3] = {Int64GetDatum(state->metadata.data_sets[0].id), Int64GetDatum(state->filters.period_ids[0]),
	                   Int64GetDatum(state->metadata.org_units[0].id)};
	RunMetadataQuery(psprintf("SELECT (EXTRACT(EPOCH FROM r.date::timestamp " OP("-") " TIMESTAMP '2000-01-01') " OP(
	                              "*") " 1000000)::"
	                                   "int8 FROM %s "
	                                   "r JOIN %s aoc "
	                                   "ON "
	                                   "aoc."
	                                   "categoryoption"
	                                   "comboid " OP("=") " r.attributeoptioncomboid WHERE r.datasetid " OP(
	                                       "=") " $1 AND r.periodid " OP("=") " $2 "
	                                                                          "AND "
	                                                                          "r."
	                                                                          "sourc"
	                                                                          "eid"
	                                                                          " " OP("=") " $3 AND aoc.uid " OP(
	                                                                              "=") " 'HllvX50cXC0' AND r.date IS "
	                                                                                   "NOT NULL",
	                          Table(state, "completedatasetregistration"), Table(state, "categoryoptioncombo")),
	                 3, types, values);
	if (SPI_processed == 0)
		return;
	int64 micros = GetInt64(SPI_tuptable->vals[0], 1);
	DVE_CORE({
		char buffer[core::kTimestampMax];
		char *end = core::WriteDhis2Timestamp(buffer, micros);
		state->metadata.complete_date = std::string(buffer, end);
	});
}

/* Number of rows of a metadata table the role can see. May ereport. */
int64
CountRows(const ExportState *state, const char *table)
{
	RunMetadataQuery(psprintf("SELECT pg_catalog.count(*) FROM %s", Table(state, table)), 0, nullptr, nullptr);
	return GetInt64(SPI_tuptable->vals[0], 1);
}

/* Row-level security filters this DHIS2 table for the current role. */
bool
RowSecurityActive(const ExportState *state, const char *table)
{
	const Oid relid = DhisTableOid(state, table);
	return OidIsValid(relid) && check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED;
}

/* The planner's estimate of a DHIS2 table's rows (pg_class.reltuples); -1 when there is none. */
double
EstimatedRows(const ExportState *state, const char *table)
{
	const Oid relid = DhisTableOid(state, table);
	if (!OidIsValid(relid))
		return -1;
	HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return -1;
	const double rows = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->reltuples;
	ReleaseSysCache(tuple);
	return rows;
}

/*
 * Whether count distinct ids of a DHIS2 table are every row of it the role can see. Counting
 * scans the table: 23 ms for 329k org units, paid by every export of a district, whose own
 * queries read a few rows through indexes. A set under half the planner's estimate of the table
 * is partial without counting; an estimate gone stale can only keep a filter that passes every
 * row (slower, never wrong). May ereport.
 */
bool
HoldsEveryRow(const ExportState *state, const char *table, size_t count)
{
	if (RowSecurityActive(state, table))
		return false;
	const double estimate = EstimatedRows(state, table);
	if (estimate > 0 && static_cast<double>(count) < estimate / 2)
		return false;
	return static_cast<int64>(count) == CountRows(state, table);
}

/*
 * The filter sets of the main query follow what the role may see: values whose data element,
 * period, org unit or option combo is hidden by row-level security are left out, exactly as
 * the SQL join of datavalue with those tables would leave them out for that role. Membership
 * tables (datasetelement ...) are not what the policies filter, so the sets are the ids the
 * metadata queries returned. Here data elements and periods; org units and option combos are
 * set when they are loaded (LoadOrgUnitSelection, LoadOptionCombos), after these.
 *
 * Filter sets that cover a whole table are left out of the main query: the hashed ANY test
 * per row is then pure cost (the common "whole country, all data sets" export). With
 * row-level security a count only covers the visible rows, so the filter always stays.
 */
void
ApplyFilterSets(ExportState *state)
{
	const auto &objects = state->metadata.objects;
	std::vector<int64_t> *element_ids = &state->filters.data_element_ids;
	DVE_CORE(IdsOf(objects[static_cast<size_t>(IdKind::kDataElement)], element_ids));
	state->filters.all_data_elements = HoldsEveryRow(state, "dataelement", element_ids->size());
	if (RowSecurityActive(state, "period")) {
		std::vector<int64_t> *period_ids = &state->filters.period_ids;
		DVE_CORE(IdsOf(objects[static_cast<size_t>(IdKind::kPeriod)], period_ids));
		state->filters.filter_periods = true;
	} else if (state->filters.filter_periods && HoldsEveryRow(state, "period", state->filters.period_ids.size()))
		state->filters.filter_periods = false;
}

} // namespace

/*
 * The DHIS2 tables are those of the first schema on the caller's search_path that has DHIS2's
 * core relations (tables, or views over them): a schema with only a datavalue of its own (a
 * per-role view in "$user", say) is passed over instead of failing later on its missing
 * dataset. Temporary schemas are never taken, even when listed, so a temporary table cannot
 * stand in for DHIS2's. Everything after this uses the schema by name. May ereport.
 */
void
ResolveDhis2Schema(ExportState *state)
{
	static const char *const kCoreRelations[] = {"datavalue",        "dataelement", "dataset",
	                                             "organisationunit", "period",      "categoryoptioncombo"};
	List *path = fetch_search_path(false);
	ListCell *lc;
	foreach (lc, path) {
		const Oid namespace_oid = lfirst_oid(lc);
		if (isAnyTempNamespace(namespace_oid))
			continue;
		bool complete = true;
		for (const char *relation : kCoreRelations)
			complete = complete && OidIsValid(get_relname_relid(relation, namespace_oid));
		if (!complete)
			continue;
		const char *name = get_namespace_name(namespace_oid);
		const char *quoted = quote_identifier(name);
		snprintf(state->dhis2_schema, sizeof state->dhis2_schema, "%s", quoted);
		state->dhis2_schema_oid = namespace_oid;
		list_free(path);
		return;
	}
	ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
	                errmsg("no DHIS2 database found: no schema on the search_path has DHIS2's tables"),
	                errdetail("The search_path was %s; the export looks for datavalue, dataelement, dataset, "
	                          "organisationunit, period and categoryoptioncombo in one schema.",
	                          namespace_search_path),
	                errhint("Run the export in the DHIS2 database, with the schema of its tables (usually public) on "
	                        "the search_path; temporary tables are never used. A view refreshed or restored by "
	                        "pg_dump, pg_restore or REFRESH MATERIALIZED VIEW runs under a restricted search_path: "
	                        "call the export there from a function with SET search_path = public.")));
}

/* Resolve every lookup of the export and prepare the writer. Call inside SPI. May ereport. */
void
ResolveMetadata(ExportSession *session)
{
	ExportState *state = session->state;
	ResolveDataSetsAndElements(state);
	ResolveOrgUnits(state);
	ResolvePeriods(state);
	ResolveOptionCombos(state);
	ResolveCompleteDate(state);
	ApplyFilterSets(state);
	LoadOrgUnitSelection(session);
	LoadOptionCombos(session);
	if (state->plan.request.format == core::Format::kAdx)
		ResolveAdxMetadata(state);
	RefuseUnusablePeriods(session);
	ProfileDataValues(session);
	DVE_CORE(state->document = core::PrepareDocument(state->plan, state->metadata));
	/* What the export holds for its metadata until it ends (lists and id maps; README, first screen). */
	size_t objects = 0, bytes = 0;
	DVE_CORE({
		const core::ResolvedMetadata &metadata = state->metadata;
		for (size_t k = 0; k < core::kIdKindCount; k++) {
			objects += metadata.objects[k].size();
			bytes += metadata.objects[k].MemoryBytes() + state->document.maps[k].MemoryBytes();
		}
		bytes += metadata.data_sets.MemoryBytes() + metadata.org_units.MemoryBytes();
	});
	elog(DEBUG1, "datavalue_export: metadata: %zu objects (%zu org units) in %zu kB of lists and id maps", objects,
	     state->metadata.objects[static_cast<size_t>(IdKind::kOrgUnit)].size(), bytes / 1024);
}

} // namespace datavalue_export::pg
