/*
 * src/pg/datavalue_query.cpp
 *	  The SQL over datavalue: its filters, the result profile of non-UID exports, and the main
 *	  query whose rows stream through the writer.
 *
 * The main query reads only datavalue, filtered by the id sets resolved in metadata.cpp, and
 * runs through SPI_execute_extended with our own DestReceiver: no row is ever materialised,
 * memory stays at one output batch whatever the export's size, and parallel plans remain
 * possible. Each row's five ids are mapped to pre-rendered identifiers and the row goes to
 * ordering.cpp (ordered exports) or straight to sink.cpp. An ordered export that reads the whole
 * table anyway reads datavalue's heap itself instead (ReadWholeHeap), when the table and the role
 * allow it.
 *
 * receiveSlot runs PostgreSQL calls (detoast, CHECK_FOR_INTERRUPTS, sends) in a frame that
 * holds only plain data; the writer is reached through DVE_CORE.
 * SPDX-License-Identifier: PostgreSQL
 */
/* Core headers first: they refuse to follow PostgreSQL headers. */
#include "pg/export_session.hpp"
#include "pg/boundary.hpp"

namespace datavalue_export::pg {

ParamListInfo MakeParamList(const QueryParams *params);

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
	uint64 rows;
};

/*
 * A text column as a pointer and length, detoasting when needed; *copy is set if palloc'd. May
 * ereport. Fills the row's field in place: returning the 24-byte struct cost a stalled copy
 * (a 16-byte load of two 8-byte stores) per field, about two thirds of ReceiveSlot's own perf
 * samples.
 */
void
ReadText(Datum datum, bool isnull, core::TextField *field, struct varlena **copy)
{
	*copy = nullptr;
	if (isnull) {
		*field = core::TextField{};
		return;
	}
	struct varlena *raw = reinterpret_cast<struct varlena *>(DatumGetPointer(datum));
	struct varlena *plain = raw;
	if (VARATT_IS_EXTENDED(raw)) {
		plain = pg_detoast_datum_packed(raw);
		if (plain != raw)
			*copy = plain;
	}
	field->data = VARDATA_ANY(plain);
	field->size = VARSIZE_ANY_EXHDR(plain);
	field->is_null = false;
}

/* The row's id of this kind as its index in the document's map: IdMap::kNotFound if it has no metadata row. */
uint32_t
MapId(const ExportState *state, IdKind kind, Datum datum)
{
	return state->document.maps[static_cast<size_t>(kind)].Get(DatumGetInt64(datum));
}

int64
ReadTimestamp(Datum datum, bool isnull, const char *column)
{
	const int64 ts = isnull ? core::kNullTimestamp : DatumGetTimestamp(datum);
	DVE_CORE(core::CheckTimestamp(ts, column));
	return ts;
}

/* Whether a row's ids are in the sets of the filter the scan left to us (Ordering::staged_filter). */
bool
PassesStagedFilter(const ExportState *state, const Datum *values)
{
	static_assert(kColDataElement == 0 && kColAttributeOptionCombo == static_cast<int>(core::kIdKindCount) - 1,
	              "the id columns come first, in IdKind order");
	int64_t ids[core::kIdKindCount];
	for (size_t k = 0; k < core::kIdKindCount; k++)
		ids[k] = DatumGetInt64(values[k]);
	return state->ordering.staged_filter.Passes(ids);
}

/* A row of an unordered export into the document, counted against its page. May ereport. */
void
EmitPageRow(ExportSession *session, const core::DataValueRow &row)
{
	EmitRow(session, row);
	if (session->state->page_left > 0)
		session->state->page_left--;
}

/*
 * One row from its datums, in the main query's column order (kCol*), into the ordering or the
 * document. May ereport.
 */
void
AddRowFromDatums(ExportSession *session, const Datum *values, const bool *nulls)
{
	ExportState *state = session->state;
	const bool deleted = !nulls[kColDeleted] && DatumGetBool(values[kColDeleted]);
	/* Not live, as DHIS2's dv.deleted = false (and the query's NOT dv.deleted) sees it: NULL too. */
	if ((deleted || nulls[kColDeleted]) && state->ordering.filter_deleted)
		return;
	if (state->ordering.staged_filter.Any() && !PassesStagedFilter(state, values))
		return;
	core::DataValueRow row;
	static_assert(kColDataElement == 0 && kColAttributeOptionCombo == static_cast<int>(core::kIdKindCount) - 1,
	              "the id columns come first, in IdKind order");
	for (size_t k = 0; k < core::kIdKindCount; k++) {
		row.ids[k] = MapId(state, static_cast<IdKind>(k), values[k]);
		/* No metadata row (core::StagedDecode::kNoMetadata): DHIS2's join leaves the row out. */
		if (row.ids[k] == core::IdMap::kNotFound) {
			state->rows_without_metadata++;
			return;
		}
	}
	if (state->page_skip > 0) { /* before the page of an unordered export */
		state->page_skip--;
		return;
	}
	struct varlena *copies[3];
	ReadText(values[kColValue], nulls[kColValue], &row.value, &copies[0]);
	ReadText(values[kColStoredBy], nulls[kColStoredBy], &row.stored_by, &copies[1]);
	ReadText(values[kColComment], nulls[kColComment], &row.comment, &copies[2]);
	row.created = ReadTimestamp(values[kColCreated], nulls[kColCreated], "created");
	row.last_updated = ReadTimestamp(values[kColLastUpdated], nulls[kColLastUpdated], "lastupdated");
	row.followup = nulls[kColFollowup] ? -1 : (DatumGetBool(values[kColFollowup]) ? 1 : 0);
	row.deleted = deleted;

	if (state->ordering.sorter || state->ordering.top)
		AddToOrdering(session, row);
	else
		EmitPageRow(session, row);
	for (struct varlena *copy : copies)
		if (copy != nullptr)
			pfree(copy);
}

/* The table's column each query column reads, the stager's field for it, and the type DHIS2 gives it. */
struct ColumnSpec {
	const char *name;
	core::TupleField field;
	Oid type;
};
/* In the main query's column order (kCol*). */
constexpr ColumnSpec kColumnSpecs[kColCount] = {
    {"dataelementid", core::TupleField::kDataElement, INT8OID},
    {"periodid", core::TupleField::kPeriod, INT8OID},
    {"sourceid", core::TupleField::kOrgUnit, INT8OID},
    {"categoryoptioncomboid", core::TupleField::kCategoryOptionCombo, INT8OID},
    {"attributeoptioncomboid", core::TupleField::kAttributeOptionCombo, INT8OID},
    {"value", core::TupleField::kValue, VARCHAROID},
    {"storedby", core::TupleField::kStoredBy, VARCHAROID},
    {"created", core::TupleField::kCreated, TIMESTAMPOID},
    {"lastupdated", core::TupleField::kLastUpdated, TIMESTAMPOID},
    {"comment", core::TupleField::kComment, VARCHAROID},
    {"followup", core::TupleField::kFollowup, BOOLOID},
    {"deleted", core::TupleField::kDeleted, BOOLOID},
};

/*
 * The layout of the scan's heap tuples for the stager (core/staged_rows.hpp), from the slot's
 * descriptor: every attribute up to the last one the export reads, each of those found by name
 * with the type the decoder expects, and each query column's attribute number. False if the
 * table differs from what the decoder reads.
 */
bool
PlanTupleLayout(TupleDesc desc, core::TupleLayout *layout, int *attribute_of)
{
	static_assert(kColCount == core::kTupleFieldCount, "every query column is a stager field");
	int last = 0;
	for (int c = 0; c < kColCount; c++) {
		attribute_of[c] = 0;
		for (int i = 0; i < desc->natts; i++) {
			const Form_pg_attribute att = TupleDescAttr(desc, i);
			if (att->attisdropped || strcmp(NameStr(att->attname), kColumnSpecs[c].name) != 0)
				continue;
			const bool text_like = kColumnSpecs[c].type == VARCHAROID && att->atttypid == TEXTOID;
			if (att->atttypid != kColumnSpecs[c].type && !text_like)
				return false;
			attribute_of[c] = i + 1;
		}
		if (attribute_of[c] == 0)
			return false;
		last = Max(last, attribute_of[c]);
	}
	layout->columns.clear();
	for (int i = 0; i < last; i++) {
		const Form_pg_attribute att = TupleDescAttr(desc, i);
		if (att->attlen == -2) /* a cstring: not in a table, but the decoder could not step over it */
			return false;
		core::TupleColumn column;
		column.length = att->attlen;
		column.alignment = att->attalign == TYPALIGN_DOUBLE  ? 8
		                   : att->attalign == TYPALIGN_INT   ? 4
		                   : att->attalign == TYPALIGN_SHORT ? 2
		                                                     : 1;
		column.field = core::TupleField::kUnused;
		layout->columns.push_back(column);
	}
	for (int c = 0; c < kColCount; c++)
		layout->columns[static_cast<size_t>(attribute_of[c] - 1)].field = kColumnSpecs[c].field;
	return true;
}

/*
 * A heap tuple of the scan's descriptor, decoded by PostgreSQL (missing attributes and TOAST
 * included) into the ordering. May ereport.
 */
void
AddHeapTuple(ExportSession *session, HeapTuple tuple)
{
	Ordering *ordering = &session->state->ordering;
	const int natts = ordering->staged_desc->natts;
	Datum *values = static_cast<Datum *>(palloc(natts * sizeof(Datum)));
	bool *nulls = static_cast<bool *>(palloc(natts * sizeof(bool)));
	heap_deform_tuple(tuple, ordering->staged_desc, values, nulls);
	Datum row_values[kColCount];
	bool row_nulls[kColCount];
	for (int c = 0; c < kColCount; c++) {
		row_values[c] = values[ordering->staged_attributes[c] - 1];
		row_nulls[c] = nulls[ordering->staged_attributes[c] - 1];
	}
	AddRowFromDatums(session, row_values, row_nulls);
	pfree(values);
	pfree(nulls);
}

/*
 * A staged tuple the stager handed back (a compressed text), decoded by PostgreSQL from the
 * staged bytes: rebuilt as a heap tuple of the scan's descriptor. May ereport.
 */
void
AddDeferredTuple(ExportSession *session, const char *record)
{
	const core::StagedTuple staged = core::ReadStagedTuple(record);
	const size_t header_bytes = MAXALIGN(SizeofHeapTupleHeader + staged.bitmap_bytes);
	HeapTupleHeader header = static_cast<HeapTupleHeader>(palloc0(header_bytes + staged.data_bytes));
	HeapTupleHeaderSetNatts(header, staged.attributes);
	header->t_hoff = static_cast<uint8>(header_bytes);
	if (staged.null_bitmap != nullptr) {
		header->t_infomask |= HEAP_HASNULL;
		memcpy(header->t_bits, staged.null_bitmap, staged.bitmap_bytes);
	}
	memcpy(reinterpret_cast<char *>(header) + header_bytes, staged.data, staged.data_bytes);
	HeapTupleData tuple;
	tuple.t_len = static_cast<uint32>(header_bytes + staged.data_bytes);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = header;
	AddHeapTuple(session, &tuple);
	pfree(header);
}

/* Rows the stager made of a chunk: the encoded ones into the sorter, the deferred ones decoded here. May ereport. */
void
AddStagedRows(ExportSession *session, const core::StagedRows *rows)
{
	if (rows == nullptr)
		return;
	session->state->rows_without_metadata += rows->no_metadata;
	for (const char *p = rows->deferred.Data(), *end = p + rows->deferred.Size(); p < end; p += core::EncodedRowSize(p))
		AddDeferredTuple(session, p);
	AddEncodedToOrdering(session, rows->encoded);
}

#ifdef DVE_FAULT_INJECTION
/*
 * datavalue_export.fault_cancel_mid_decode: the first full chunk goes to the stager's thread,
 * which raises fault_worker_holds_chunk and then waits, before decoding, until the export's
 * teardown has begun (fault_teardown_begun, set by DeleteExportState) and 200 ms more; the
 * backend waits for the raise and cancels the export. So the teardown always runs while that
 * thread still has to decode with the filter sets, whatever the machine's speed: a member freed
 * before the thread is joined is a use-after-free ASan reports.
 */
std::atomic<bool> fault_worker_holds_chunk{false};

void
InjectWorkerHold(core::RowStager *stager)
{
	fault_worker_holds_chunk = false;
	fault_teardown_begun = false;
	if (fault_cancel_mid_decode)
		stager->SetWorkerHook([] {
			fault_worker_holds_chunk = true;
			for (int waited = 0; !fault_teardown_begun && waited < 60000; waited++)
				std::this_thread::sleep_for(std::chrono::milliseconds(1));
			std::this_thread::sleep_for(std::chrono::milliseconds(200));
		});
}

/* Hand the full chunk to the stager's thread, wait until it holds it, and cancel. May ereport. */
void
HandOverAndCancel(ExportSession *session)
{
	const core::StagedRows *rows;
	DVE_CORE(rows = session->state->ordering.stager->Exchange());
	AddStagedRows(session, rows);
	for (int waited = 0; !fault_worker_holds_chunk; waited++) {
		if (waited == 60000)
			elog(ERROR, "fault injection: the stager's thread never took its chunk");
		pg_usleep(1000);
	}
	QueryCancelPending = true;
	InterruptPending = true;
	CHECK_FOR_INTERRUPTS();
}
#endif

/*
 * The stager for tuples of this descriptor, or false if the table's layout cannot be staged.
 * Plain C++ (it calls no PostgreSQL function): its objects live in this frame, so it runs inside
 * DVE_CORE, and none is alive when PostgreSQL is called. May throw.
 */
bool
MakeStager(ExportSession *session, TupleDesc desc)
{
	Ordering *ordering = &session->state->ordering;
	core::TupleLayout layout;
	if (!PlanTupleLayout(desc, &layout, ordering->staged_attributes))
		return false;
	/* Chunks of at most an eighth of a run, so the encoded rows of one fit a run within its budget. */
	const size_t chunk_bytes = Min(core::RowStager::kMaxChunkBytes,
	                               Max(static_cast<size_t>(sort_run_memory_kb) * 1024 / 16, static_cast<size_t>(4096)));
	ordering->stager = std::make_unique<core::RowStager>(
	    std::move(layout), session->state->document.maps, ordering->sorter->Plan(), ordering->filter_deleted,
	    chunk_bytes, ordering->staged_filter.Any() ? &ordering->staged_filter : nullptr);
#ifdef DVE_FAULT_INJECTION
	InjectWorkerHold(ordering->stager.get());
#endif
	return true;
}

/*
 * The scan's descriptor, kept for the tuples PostgreSQL decodes (AddHeapTuple), in the export's
 * context: rows deferred to the scan's end are decoded after the query's context is gone. With
 * the constraints: a column added later with a default (ALTER TABLE ... ADD COLUMN ... DEFAULT) is
 * missing from the older tuples, and heap_deform_tuple reads its value from there. May ereport.
 */
void
KeepScanDescriptor(ExportSession *session, TupleDesc desc)
{
	const MemoryContext previous = MemoryContextSwitchTo(session->context);
	session->state->ordering.staged_desc = CreateTupleDescCopyConstr(desc);
	MemoryContextSwitchTo(previous);
}

/* The descriptor KeepScanDescriptor kept, freed. */
void
FreeScanDescriptor(Ordering *ordering)
{
	if (ordering->staged_desc != nullptr) {
		FreeTupleDesc(ordering->staged_desc);
		ordering->staged_desc = nullptr;
	}
}

/*
 * The stager for an ordered scan of tuples of this descriptor; false (and staging off) if the
 * table's layout cannot be staged. May ereport.
 */
bool
StartStaging(ExportSession *session, TupleDesc desc)
{
	Ordering *ordering = &session->state->ordering;
	bool planned = false;
	DVE_CORE(planned = MakeStager(session, desc));
	if (!planned) {
		ordering->staging = false;
		return false;
	}
	KeepScanDescriptor(session, desc);
	return true;
}

/*
 * A plain heap tuple's parts, where they lie, for the stager or the decoder of a layout of
 * `columns` attributes; false if PostgreSQL must decode the tuple (a TOAST pointer, or fewer
 * attributes than the layout reads: columns added later with a default).
 */
bool
HeapTupleParts(HeapTuple tuple, size_t columns, core::StagedTuple *parts)
{
	const HeapTupleHeader header = tuple->t_data;
	const int attributes = HeapTupleHeaderGetNatts(header);
	if (static_cast<size_t>(attributes) < columns || HeapTupleHasExternal(tuple))
		return false;
	const bool has_nulls = HeapTupleHasNulls(tuple);
	parts->attributes = static_cast<uint16_t>(attributes);
	parts->null_bitmap = has_nulls ? header->t_bits : nullptr;
	parts->bitmap_bytes = has_nulls ? static_cast<uint16_t>(BITMAPLEN(attributes)) : 0;
	parts->data = reinterpret_cast<const char *>(header) + header->t_hoff;
	parts->data_bytes = static_cast<uint32_t>(tuple->t_len - header->t_hoff);
	return true;
}

/*
 * Copy a plain heap tuple of an ordered export's scan to the stager (started); false if this row
 * must be decoded here (HeapTupleParts). The tuple is not decoded here at all. May ereport.
 */
bool
StageHeapTuple(ExportSession *session, HeapTuple tuple)
{
	Ordering *ordering = &session->state->ordering;
	core::StagedTuple parts;
	if (!HeapTupleParts(tuple, ordering->stager->Attributes(), &parts))
		return false;
	DVE_CORE(
	    ordering->stager->Stage(parts.attributes, parts.null_bitmap, parts.bitmap_bytes, parts.data, parts.data_bytes));
	if (ordering->stager->ChunkFull()) {
#ifdef DVE_FAULT_INJECTION
		if (fault_cancel_mid_decode)
			HandOverAndCancel(session);
#endif
		const core::StagedRows *rows;
		/* While the sorting thread works, leave the second core to it: decode here. */
		DVE_CORE(rows = ordering->stager->ExchangeOrDecode(ordering->sorter->SortBusy()));
		AddStagedRows(session, rows);
	}
	return true;
}

/* A buffer tuple of the executor's scan to the stager; false if it must be decoded here. May ereport. */
bool
StageTuple(ExportSession *session, TupleTableSlot *slot)
{
	if (!session->state->ordering.stager && !StartStaging(session, slot->tts_tupleDescriptor))
		return false;
	return StageHeapTuple(session, ExecFetchSlotHeapTuple(slot, false, nullptr));
}

/* After an ordered scan: the stager's last rows into the sorter, and the stager gone. May ereport. */
void
FinishStaging(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	if (ordering->stager) {
		const core::StagedRows *rows;
		DVE_CORE(rows = ordering->stager->Exchange());
		AddStagedRows(session, rows);
		DVE_CORE(rows = ordering->stager->Finish());
		AddStagedRows(session, rows);
		DVE_CORE(ordering->stager.reset());
	}
	FreeScanDescriptor(ordering);
	ordering->staging = false;
	ordering->filter_deleted = false;
	ordering->staged_filter = core::StagedFilter{};
}

/* The layout of an unordered export's direct read, or false if the table's must go through the query. May throw. */
bool
MakeHeapLayout(Ordering *ordering, TupleDesc desc)
{
	auto layout = std::make_unique<core::TupleLayout>();
	if (!PlanTupleLayout(desc, layout.get(), ordering->staged_attributes))
		return false;
	core::RecogniseDhis2Layout(*layout);
	ordering->heap_layout = std::move(layout);
	return true;
}

/*
 * An unordered export's direct read of tuples of this descriptor: each decoded in its buffer page
 * (DecodeHeapTuple); false if the table's layout cannot be read so. May ereport.
 */
bool
StartDecoding(ExportSession *session, TupleDesc desc)
{
	bool planned = false;
	DVE_CORE(planned = MakeHeapLayout(&session->state->ordering, desc));
	if (planned)
		KeepScanDescriptor(session, desc);
	return planned;
}

/*
 * One heap tuple of an unordered export's direct read into the document, decoded where it lies
 * (its texts are written before the scan moves on); a tuple the decoder cannot read (a TOAST
 * pointer, a compressed text, missing attributes) is decoded by PostgreSQL. Paged as
 * AddRowFromDatums pages. False once the page is full. May ereport.
 */
bool
DecodeHeapTuple(ExportSession *session, HeapTuple tuple)
{
	ExportState *state = session->state;
	Ordering *ordering = &state->ordering;
	const core::TupleLayout &layout = *ordering->heap_layout;
	core::StagedTuple parts;
	if (!HeapTupleParts(tuple, layout.columns.size(), &parts)) {
		AddHeapTuple(session, tuple);
		return state->page_left != 0;
	}
	const core::StagedFilter *filter = ordering->staged_filter.Any() ? &ordering->staged_filter : nullptr;
	core::DataValueRow row;
	core::StagedDecode decoded = core::StagedDecode::kRow;
	DVE_CORE(decoded = core::DecodeTuple(layout, state->document.maps, ordering->filter_deleted, parts, &row, filter));
	switch (decoded) {
	case core::StagedDecode::kRow:
		break;
	case core::StagedDecode::kDeferred: /* a compressed text */
		AddHeapTuple(session, tuple);
		return state->page_left != 0;
	case core::StagedDecode::kNoMetadata:
		state->rows_without_metadata++;
		return true;
	case core::StagedDecode::kDeleted:
	case core::StagedDecode::kFiltered:
		return true;
	}
	if (state->page_skip > 0) {
		state->page_skip--;
		return true;
	}
	EmitPageRow(session, row);
	return state->page_left != 0;
}

/* After an unordered export's direct read. May ereport. */
void
FinishDecoding(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	DVE_CORE(ordering->heap_layout.reset());
	FreeScanDescriptor(ordering);
	ordering->filter_deleted = false;
	ordering->staged_filter = core::StagedFilter{};
}

bool
ReceiveSlot(TupleTableSlot *slot, DestReceiver *self)
{
	ExportSession *session = reinterpret_cast<RowReceiver *>(self)->session;
	reinterpret_cast<RowReceiver *>(self)->rows++;

	CHECK_FOR_INTERRUPTS();
	if (session->state->ordering.staging && TTS_IS_BUFFERTUPLE(slot) && StageTuple(session, slot))
		return true;
	slot_getallattrs(slot);
	AddRowFromDatums(session, slot->tts_values, slot->tts_isnull);
	return session->state->page_left != 0; /* false: the page is full, the executor stops */
}

/* Whether the query's rows can hold a column of this type where DHIS2 has the spec's type. */
bool
ColumnTypeFits(const ColumnSpec &spec, Oid type)
{
	switch (spec.type) {
	case INT8OID: /* read with DatumGetInt64: the narrower integers are sign-extended datums too */
		return type == INT8OID || type == INT4OID || type == INT2OID;
	case VARCHAROID:
		return type == VARCHAROID || type == TEXTOID || type == BPCHAROID;
	default:
		return type == spec.type;
	}
}

/*
 * Before the first row: every column of datavalue has a type the receiver can read (a text
 * column of another type would be read as a pointer). A changed table gets a clear error.
 */
void
ReceiverStartup(DestReceiver *, int, TupleDesc typeinfo)
{
	if (typeinfo->natts != kColCount)
		elog(ERROR, "unexpected column count %d in the data value query", typeinfo->natts);
	for (int c = 0; c < kColCount; c++) {
		const Oid type = getBaseType(TupleDescAttr(typeinfo, c)->atttypid);
		if (!ColumnTypeFits(kColumnSpecs[c], type))
			ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
			                errmsg("column datavalue.%s has type %s, not the %s DHIS2 gives it", kColumnSpecs[c].name,
			                       format_type_be(type), format_type_be(kColumnSpecs[c].type)),
			                errhint("The export reads DHIS2's datavalue table as DHIS2 defines it.")));
	}
}

/*
 * The filter an export's scan can leave to the stager (core::StagedFilter), when each of its
 * filters is an id set: data elements, periods and org units (each kind's map is its set), option
 * combos (a set built here, as their maps hold every combo). False when a filter only the query
 * can apply is there: lastUpdated, ADX's per-data-set element sets. May ereport.
 */
bool
PlanStagedFilter(ExportState *state, core::StagedFilter *filter)
{
	const DataValueFilters &filters = state->filters;
	if (filters.has_last_updated_cutoff || state->ordering.grouping ||
	    (!state->plan.request.include_deleted && !state->ordering.filter_deleted))
		return false;
	const core::IdMap *maps = state->document.maps;
	*filter = core::StagedFilter{};
	const auto kind = [](IdKind k) { return static_cast<size_t>(k); };
	if (!filters.all_data_elements)
		filter->sets[kind(IdKind::kDataElement)] = &maps[kind(IdKind::kDataElement)];
	if (filters.filter_periods)
		filter->sets[kind(IdKind::kPeriod)] = &maps[kind(IdKind::kPeriod)];
	if (!filters.all_org_units)
		filter->sets[kind(IdKind::kOrgUnit)] = &maps[kind(IdKind::kOrgUnit)];
	const std::vector<int64_t> *combo_ids[2] = {
	    filters.filter_category_option_combos ? &filters.category_option_combo_ids : nullptr,
	    filters.filter_attribute_option_combos ? &filters.attribute_option_combo_ids : nullptr};
	const IdKind combo_kinds[2] = {IdKind::kCategoryOptionCombo, IdKind::kAttributeOptionCombo};
	for (int i = 0; i < 2; i++) {
		if (combo_ids[i] == nullptr)
			continue;
		core::IdMap *set = &state->ordering.option_combo_sets[i];
		DVE_CORE(*set = core::IdMap(); for (int64_t id : *combo_ids[i]) set->Put(id, 0); set->Densify());
		filter->sets[kind(combo_kinds[i])] = set;
	}
	return true;
}

/* What the planner makes of a query, before it runs. */
struct PlanSummary {
	bool whole_table; /* its plan is a sequential scan */
	double rows;      /* the rows it estimates the query returns */
};

/*
 * Plan sql (as a cursor, so not in parallel, with the bound values as constants) without
 * running it. May ereport.
 */
PlanSummary
PlanWithoutRunning(const char *sql, const QueryParams *params)
{
	SPIParseOpenOptions options;
	memset(&options, 0, sizeof options);
	options.params = MakeParamList(params);
	options.cursorOptions = CURSOR_OPT_NO_SCROLL;
	options.read_only = true;
	Portal portal = SPI_cursor_parse_open(nullptr, sql, &options);
	PlanSummary summary{false, -1};
	if (list_length(portal->stmts) == 1) {
		const PlannedStmt *stmt = linitial_node(PlannedStmt, portal->stmts);
		summary.whole_table = IsA(stmt->planTree, SeqScan);
		summary.rows = stmt->planTree->plan_rows;
	}
	SPI_cursor_close(portal);
	return summary;
}

/*
 * Whether PostgreSQL's plan for the data value query reads the whole table (a sequential scan):
 * then a direct read of the heap reads no more, and the stager filters. A selective request
 * planned through an index runs as the query. May ereport.
 */
bool
PlannerScansWholeTable(const char *sql, const QueryParams *params)
{
	return PlanWithoutRunning(sql, params).whole_table;
}

/*
 * Whether an ordered export that reads all of datavalue may read its heap directly: a plain heap
 * table, readable whole by the role, with no row security, no inheritance children (the query's
 * FROM would read them too) and no permission hook. Anything else runs the query. May ereport.
 */
bool
MayReadWholeHeap(Relation rel)
{
	const Oid relid = RelationGetRelid(rel);
	return rel->rd_rel->relkind == RELKIND_RELATION && rel->rd_tableam == GetHeapamTableAmRoutine() &&
	       !rel->rd_rel->relhassubclass && ExecutorCheckPerms_hook == nullptr &&
	       check_enable_rls(relid, InvalidOid, true) == RLS_NONE &&
	       pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
}

/*
 * An export that reads every row of datavalue (its query has no WHERE clause, or one the planner
 * answers with a sequential scan): read them here, heap page by page (heap_getnext, page-at-a-time
 * visibility, the query's snapshot); an ordered export hands each tuple straight to the stager,
 * an unordered one decodes it in its page and writes it (DecodeHeapTuple). Both drop the rows
 * outside Ordering::staged_filter's sets. Through the executor, the per-tuple work
 * around the staging (the slot store and its buffer pin bookkeeping, the scan node, the filter,
 * the receiver call) was about a third of the backend's scan (bench/README, "Reading the heap
 * directly"). False, having read nothing, when the table must go through the query
 * (MayReadWholeHeap, or a layout the stager cannot read); else *rows is how many tuples were
 * read. May ereport.
 */
bool
ReadWholeHeap(ExportSession *session, uint64 *rows)
{
	ExportState *state = session->state;
	const Oid relid = get_relname_relid("datavalue", state->dhis2_schema_oid);
	if (!OidIsValid(relid))
		return false;
	Relation rel = table_open(relid, AccessShareLock);
	const bool staged = state->ordering.staging;
	if (!MayReadWholeHeap(rel) ||
	    !(staged ? StartStaging(session, RelationGetDescr(rel)) : StartDecoding(session, RelationGetDescr(rel)))) {
		table_close(rel, AccessShareLock);
		return false;
	}
	uint64 count = 0;
	TableScanDesc scan = table_beginscan(rel, GetActiveSnapshot(), 0, nullptr);
	HeapTuple tuple;
	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != nullptr) {
		CHECK_FOR_INTERRUPTS();
		count++;
		if (!staged) {
			if (!DecodeHeapTuple(session, tuple))
				break; /* the page is full */
		} else if (!StageHeapTuple(session, tuple))
			AddHeapTuple(session, tuple);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	elog(DEBUG1,
	     "datavalue_export: read the heap of datavalue directly%s: " UINT64_FORMAT " tuples, %d id kinds filtered here",
	     staged ? "" : ", each tuple decoded in its page", count,
	     static_cast<int>(state->ordering.staged_filter.Kinds()));
	if (!staged)
		FinishDecoding(session);
	*rows = count;
	return true;
}

} // namespace

/* lastUpdated, else now() minus lastUpdatedDuration, as a wall-clock timestamp like dv.lastupdated. */
void
ResolveLastUpdatedCutoff(ExportState *state)
{
	const core::ExportPlan &plan = state->plan;
	DataValueFilters *filters = &state->filters;
	if (plan.request.last_updated) {
		filters->last_updated_cutoff = *plan.request.last_updated;
		filters->has_last_updated_cutoff = true;
	} else if (plan.last_updated_duration_us) {
		/*
		 * Stored timestamps are read as UTC wall time (they are printed as stored, with +0000, and a
		 * lastUpdated with an offset is converted to UTC), so "now" is the transaction start in UTC,
		 * whatever the session's TimeZone: a TimestampTz is that instant's UTC wall time.
		 */
		const Timestamp now = GetCurrentTransactionStartTimestamp();
		filters->last_updated_cutoff = now - *plan.last_updated_duration_us;
		filters->has_last_updated_cutoff = true;
	}
}

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

ParamListInfo
MakeParamList(const QueryParams *params)
{
	return MakeParamList(params->nargs, params->types, params->values);
}

/* Whether the data value query filters on more than data elements and the deleted flag. */
bool
HasSelectiveFilter(const DataValueFilters &filters)
{
	return !filters.all_org_units || filters.filter_periods || filters.filter_category_option_combos ||
	       filters.filter_attribute_option_combos || filters.has_last_updated_cutoff;
}

/*
 * A data element set that holds every element filters no row, and is left out where PostgreSQL
 * reads the whole table anyway (the per-row test is then pure cost). Beside another filter it is
 * still what lets datavalue's primary key (dataelementid, periodid, sourceid, ...) find the rows:
 * without it a month of one district read the whole table (10M demo, every data set: 0.46 s
 * against 0.033 s through the key). Such a query is planned with it first (ExecuteRowQuery).
 */
bool
ElementFilterMayDecidePlan(const DataValueFilters &filters)
{
	return filters.all_data_elements && HasSelectiveFilter(filters);
}

/*
 * The WHERE clause every datavalue query of an export shares (alias dv), with the data element
 * set even when it holds every element if keep_elements; false if it is empty. With
 * ids_at_once a long org unit list is tested in the form the planner estimates at once
 * (IdsAnySql). May ereport.
 */
bool
AppendDataValueFilters(ExportSession *session, StringInfo sql, QueryParams *params, bool keep_elements,
                       bool ids_at_once)
{
	ExportState *state = session->state;
	bool first = true;
	const auto clause = [&]() {
		appendStringInfoString(sql, first ? " WHERE " : " AND ");
		first = false;
	};
	/* IdsAnySql's plain form, or for a long list where at_once its form estimated at once. */
	const auto add_ids = [&](const std::vector<int64_t> &ids, const char *column, bool at_once = false) {
		const int n = AddParam(params, INT8ARRAYOID, Int8Array(ids));
		clause();
		appendStringInfoString(sql, IdsAnySql(column, n, at_once ? ids.size() : 0));
	};
	/* A set that holds every row of its table filters nothing: leave it out of the scan (but see keep_elements). */
	if (!state->filters.all_data_elements || keep_elements)
		add_ids(state->filters.data_element_ids, "dv.dataelementid");
	if (!state->filters.all_org_units)
		add_ids(state->filters.org_unit_ids, "dv.sourceid", ids_at_once);
	if (state->filters.filter_periods)
		add_ids(state->filters.period_ids, "dv.periodid");
	if (state->filters.filter_category_option_combos)
		add_ids(state->filters.category_option_combo_ids, "dv.categoryoptioncomboid");
	if (state->filters.filter_attribute_option_combos)
		add_ids(state->filters.attribute_option_combo_ids, "dv.attributeoptioncomboid");
	if (state->filters.has_last_updated_cutoff) {
		clause();
		appendStringInfo(sql, "dv.lastupdated OPERATOR(pg_catalog.>=) $%d",
		                 AddParam(params, TIMESTAMPOID, TimestampGetDatum(state->filters.last_updated_cutoff)));
	}
	if (!state->plan.request.include_deleted && !state->ordering.filter_deleted) {
		clause();
		appendStringInfoString(sql, "NOT dv.deleted");
	}
	return !first;
}

/*
 * An export of few values (an incremental export of a whole country, say) needs only the org
 * units and option combos its values use. Loading every one selected took most of its time,
 * and an ordered export also ranks them in the database's collation: 0.36-0.95 s for 329k org
 * units, 0.1 s for 100k option combos, whatever the number of values (bench/README "Org unit
 * subtrees"). When the planner estimates the values that pass the export's filters set so far
 * at under a kFewValuesShare-th of the objects that selection_sql (alias t, its parameters in
 * params) selects, the query is restricted by "<connector> t.<id_column> = ANY (SELECT
 * <value_ids> FROM datavalue dv WHERE <filters>)", whose parameters follow the selection's,
 * with the named ids too (objects the request names, which a header may show); returns whether
 * it was. The filters set so far are some of the data value query's, so the values they pass
 * include every value that query reads, and every query of an export reads one snapshot: that
 * query cannot find a value whose object this left out. what names the objects in the DEBUG1
 * message. Off with datavalue_export.metadata_in_use. When it planned selection_sql and left it
 * as it was, *selected (if given) is the planner's estimate of its rows, else -1. May ereport.
 */
bool
RestrictToObjectsInUse(ExportSession *session, StringInfo selection_sql, QueryParams *params, const char *what,
                       const char *connector, const char *id_column, const char *value_ids,
                       const std::vector<int64_t> *named, double *selected)
{
	constexpr double kFewValuesShare = 4;
	ExportState *state = session->state;
	const int selection_args = params->nargs;
	if (selected != nullptr)
		*selected = -1;
	StringInfoData values_sql;
	initStringInfo(&values_sql);
	appendStringInfo(&values_sql, "SELECT %s FROM %s dv", value_ids, Table(state, "datavalue"));
	bool only_in_use = false;
	if (!metadata_in_use)
		elog(DEBUG1,
		     "datavalue_export: datavalue_export.metadata_in_use is off: every one of the %s selected is loaded", what);
	else if (AppendDataValueFilters(session, &values_sql, params, false, true)) {
		/*
		 * A long org unit list in the filters is in the form estimated at once (IdsAnySql): estimated
		 * one by one, a region's 65k org units cost 55 ms and 350 bytes each to plan. The message
		 * says which form the query has.
		 */
		const bool long_list = strstr(values_sql.data, "COALESCE(dv.sourceid") != nullptr;
		const size_t org_units = state->filters.org_unit_ids.size();
		const double values = PlanWithoutRunning(values_sql.data, params).rows;
		const double objects = PlanWithoutRunning(selection_sql->data, params).rows;
		only_in_use = values >= 0 && values * kFewValuesShare < objects;
		if (selected != nullptr && !only_in_use)
			*selected = objects;
		elog(DEBUG1, "datavalue_export: about %.0f values%s for about %.0f %s: %s %s %s", values,
		     long_list ? psprintf(" (of %zu org units estimated at once)", org_units) : "", objects, what,
		     only_in_use ? "only the" : "every one of the", what,
		     only_in_use ? "of the values are loaded" : "selected is loaded");
	} else
		elog(DEBUG1, "datavalue_export: every value is read: every one of the %s selected is loaded", what);
	if (only_in_use) {
		/* In the subquery, not ORed with it: an OR would test every object against a hashed subplan. */
		if (named != nullptr && !named->empty())
			appendStringInfo(&values_sql, " UNION ALL SELECT pg_catalog.unnest($%d::pg_catalog.int8[])",
			                 AddParam(params, INT8ARRAYOID, Int8Array(*named)));
		appendStringInfo(selection_sql, " %s t.%s " OP("=") " ANY (%s)", connector, id_column, values_sql.data);
	} else
		params->nargs = selection_args;
	pfree(values_sql.data);
	return only_in_use;
}

/* The planner's estimate of the rows sql returns, or -1. May ereport. */
double
EstimatedRows(const char *sql, const QueryParams *params)
{
	return PlanWithoutRunning(sql, params).rows;
}

bool
NothingCanMatch(const ExportState *state)
{
	return state->filters.data_element_ids.empty() || state->filters.org_unit_ids.empty() ||
	       (state->filters.filter_periods && state->filters.period_ids.empty()) ||
	       (state->filters.filter_category_option_combos && state->filters.category_option_combo_ids.empty()) ||
	       (state->filters.filter_attribute_option_combos && state->filters.attribute_option_combo_ids.empty());
}

/*
 * A period whose identifier cannot be written (metadata.cpp ResolvePeriods) fails the export
 * when one of its values is in the export, before any output, naming the period; periods the
 * values do not use are no matter. Only runs when there is such a period. May ereport.
 */
void
RefuseUnusablePeriods(ExportSession *session)
{
	ExportState *state = session->state;
	const std::vector<MetadataScratch::UnusablePeriod> &unusable = state->scratch.unusable_periods;
	if (unusable.empty() || NothingCanMatch(state))
		return;
	std::vector<int64_t> *ids = &state->scratch.ids;
	DVE_CORE({
		ids->clear();
		for (const MetadataScratch::UnusablePeriod &period : unusable)
			ids->push_back(period.id);
	});
	QueryParams params;
	params.nargs = 0;
	StringInfoData sql;
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT dv.periodid FROM %s dv", Table(state, "datavalue"));
	const bool where = AppendDataValueFilters(session, &sql, &params, false, false);
	appendStringInfo(&sql, " %s dv.periodid " OP("=") " ANY($%d) LIMIT 1", where ? "AND" : "WHERE",
	                 AddParam(&params, INT8ARRAYOID, Int8Array(*ids)));
	ExecuteInto(sql.data, MakeParamList(&params), nullptr, "unusable period query");
	if (SPI_processed == 0)
		return;
	const int64 used = GetInt64(SPI_tuptable->vals[0], 1);
	for (const MetadataScratch::UnusablePeriod &period : unusable)
		if (period.id == used)
			ereport(ERROR, (errcode(period.sqlstate),
			                errmsg("the period with periodid %lld cannot be exported: %s",
			                       static_cast<long long>(period.id), period.why.c_str()),
			                errdetail("%s", period.detail.c_str()),
			                errhint("Correct the period row; values in other periods can be exported meanwhile.")));
}

namespace {

/*
 * The hoisting of a 2.43 header under a non-UID scheme when every object has its identifier:
 * whether the result is empty, the org unit all its values share, the AOC of a one-value result.
 * The first two values answer most of it; only two values of one org unit, among others selected,
 * call for a search for a value of another, which stops at the first it finds. (The aggregate pass
 * read every value: about a quarter of a 1M unordered export's time.) May ereport.
 */
void
DecideHeaderFromFirstValues(ExportSession *session)
{
	ExportState *state = session->state;
	elog(DEBUG1, "datavalue_export: the first values decide the header");
	QueryParams params;
	params.nargs = 0;
	StringInfoData sql;
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT dv.sourceid, dv.attributeoptioncomboid FROM %s dv", Table(state, "datavalue"));
	const bool where =
	    AppendDataValueFilters(session, &sql, &params, ElementFilterMayDecidePlan(state->filters), false);
	const int filtered_length = sql.len;
	appendStringInfoString(&sql, " LIMIT 2");
	ExecuteInto(sql.data, MakeParamList(&params), nullptr, "first values query");

	core::ResolvedMetadata &metadata = state->metadata;
	const uint64 found = SPI_processed;
	metadata.result_is_empty = found == 0;
	if (found == 0)
		return;
	const int64 org_unit = GetInt64(SPI_tuptable->vals[0], 1);
	if (found == 1) {
		metadata.detected_org_unit_id = org_unit;
		metadata.detected_attribute_option_combo_id = GetInt64(SPI_tuptable->vals[0], 2);
		return;
	}
	if (GetInt64(SPI_tuptable->vals[1], 1) != org_unit)
		return;
	/* Values of one org unit selected need no search (PostgreSQL would read every value for it). */
	const DataValueFilters &filters = state->filters;
	if (!filters.all_org_units && filters.org_unit_ids.size() == 1) {
		metadata.detected_org_unit_id = org_unit;
		return;
	}

	sql.len = filtered_length;
	sql.data[filtered_length] = '\0';
	appendStringInfo(&sql, " %s dv.sourceid " OP("<>") " $%d LIMIT 1", where ? "AND" : "WHERE",
	                 AddParam(&params, INT8OID, Int64GetDatum(org_unit)));
	ExecuteInto(sql.data, MakeParamList(&params), nullptr, "other org unit query");
	if (SPI_processed == 0)
		metadata.detected_org_unit_id = org_unit;
	pfree(sql.data);
}

} // namespace

/*
 * DHIS2 2.43 with a non-UID output scheme looks at the whole result before writing: it refuses
 * objects without a value for the property (E8201-E8203), and hoists an org unit shared by all
 * values (and the AOC of a one-value result) into the header. One aggregate pass over the
 * filtered rows answers both; UID exports run it only when some object has a NULL uid, and exports
 * without a header (CSV, ADX) or ordered without a page (their sorted rows decide the header,
 * ordering.cpp BeginSortedDocument) only when some object lacks its identifier. When none does,
 * an unordered export's first values decide the header (DecideHeaderFromFirstValues). May ereport.
 */
void
ProfileDataValues(ExportSession *session)
{
	ExportState *state = session->state;
	const core::ExportPlan &plan = state->plan;
	/* ADX checks its identifiers in both styles (2.42: only the category attributes). */
	if (plan.style != core::Style::k243 && plan.request.format != core::Format::kAdx)
		return;
	if (NothingCanMatch(state)) {
		state->metadata.result_is_empty = true;
		return;
	}
	const core::IdScheme *schemes[core::kIdKindCount] = {&plan.data_element_scheme, nullptr, &plan.org_unit_scheme,
	                                                     &plan.category_option_combo_scheme,
	                                                     &plan.attribute_option_combo_scheme};
	/*
	 * Under UIDs an object has an identifier unless its uid is NULL, which DHIS2's schema forbids:
	 * such an object is refused as an undefined property is, rather than a value written without
	 * its data element or org unit.
	 */
	bool any_non_uid = false;
	bool any_undefined = false;
	for (size_t k = 0; k < core::kIdKindCount; k++) {
		if (schemes[k] == nullptr)
			continue;
		any_non_uid |= !schemes[k]->IsUid();
		DVE_CORE({
			const core::IdentifierList &objects = state->metadata.objects[k];
			for (size_t i = 0; i < objects.size() && !any_undefined; i++)
				any_undefined |= !objects.HasText(i);
		});
	}
	if (!any_non_uid && !any_undefined)
		return;
	/* Without a header (CSV, ADX) the pass would only look for objects without an identifier. */
	if (!any_undefined && !core::CarriesHeader(plan.request.format))
		return;
	/*
	 * DHIS2 decides on the returned values. An ordered page kept in memory decides on its own
	 * (ordering.cpp BeginPage); any other page on the unpaged set.
	 */
	const bool ordered_page = plan.request.limit && !plan.unordered && plan.request.format != core::Format::kAdx;
	const bool page_decides_header = ordered_page && plan.style == core::Style::k243 &&
	                                 core::CarriesHeader(plan.request.format) &&
	                                 (!plan.org_unit_scheme.IsUid() || !plan.attribute_option_combo_scheme.IsUid());
	/*
	 * An ordered export has every row before its first byte: they decide the header then. A page
	 * kept in memory decides on its own rows (BeginPage); a longer page, and a whole export, on
	 * all of them (BeginSortedDocument). Without this pass a first page reads only its first
	 * periods' rows.
	 */
	if (!any_undefined && !plan.unordered && plan.request.format != core::Format::kAdx) {
		if (!plan.request.limit)
			state->header_after_scan = true;
		else if (page_decides_header)
			state->header_from_page = state->header_after_scan = true;
		return;
	}
	state->header_from_page = page_decides_header; /* the unpaged set: decided here */
	if (!any_undefined) {
		DecideHeaderFromFirstValues(session);
		return;
	}
	elog(DEBUG1, "datavalue_export: one pass over the values decides the header and checks their identifiers");

	static const char *const kColumns[core::kIdKindCount] = {"dv.dataelementid", "dv.periodid", "dv.sourceid",
	                                                         "dv.categoryoptioncomboid", "dv.attributeoptioncomboid"};
	QueryParams params;
	params.nargs = 0;
	StringInfoData sql;
	initStringInfo(&sql);
	appendStringInfoString(&sql,
	                       "SELECT pg_catalog.count(*), pg_catalog.min(dv.sourceid), pg_catalog.max(dv.sourceid), "
	                       "pg_catalog.min(dv.attributeoptioncomboid)");
	int kinds_checked[core::kIdKindCount];
	int checked = 0;
	for (size_t k = 0; k < core::kIdKindCount; k++) {
		if (schemes[k] == nullptr)
			continue;
		std::vector<int64_t> *undefined = &state->scratch.ids;
		DVE_CORE({
			undefined->clear();
			const core::IdentifierList &objects = state->metadata.objects[k];
			for (size_t i = 0; i < objects.size(); i++)
				if (!objects.HasText(i))
					undefined->push_back(objects.Id(i));
		});
		if (undefined->empty())
			continue;
		const int n = AddParam(&params, INT8ARRAYOID, Int8Array(*undefined));
		appendStringInfo(&sql, ", pg_catalog.array_agg(DISTINCT %s) FILTER (WHERE %s " OP("=") " ANY($%d))",
		                 kColumns[k], kColumns[k], n);
		kinds_checked[checked++] = static_cast<int>(k);
	}
	appendStringInfo(&sql, " FROM %s dv", Table(state, "datavalue"));
	AppendDataValueFilters(session, &sql, &params, ElementFilterMayDecidePlan(state->filters), false);

	ExecuteInto(sql.data, MakeParamList(&params), nullptr, "data value profile query");
	if (SPI_processed != 1)
		elog(ERROR, "data value profile query returned %llu rows", static_cast<unsigned long long>(SPI_processed));
	HeapTuple tuple = SPI_tuptable->vals[0];
	const int64 count = GetInt64(tuple, 1);
	const int64 min_ou = GetInt64(tuple, 2);
	const int64 max_ou = GetInt64(tuple, 3);
	const int64 min_aoc = GetInt64(tuple, 4);

	/* The hoisting DHIS2 does under non-UID schemes only (a UID export is here for NULL uids). */
	if (any_non_uid) {
		state->metadata.result_is_empty = count == 0;
		if (count > 0 && min_ou == max_ou)
			state->metadata.detected_org_unit_id = min_ou;
		if (count == 1)
			state->metadata.detected_attribute_option_combo_id = min_aoc;
	}

	std::vector<int64_t>(*used_undefined)[core::kIdKindCount] = &state->used_undefined;
	for (int i = 0; i < checked; i++) {
		bool isnull;
		Datum d = SPI_getbinval(tuple, SPI_tuptable->tupdesc, 5 + i, &isnull);
		if (isnull)
			continue;
		Datum *items;
		bool *nulls;
		int n;
		deconstruct_array(DatumGetArrayTypeP(d), INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &items, &nulls, &n);
		for (int j = 0; j < n; j++) {
			const int64 id = DatumGetInt64(items[j]);
			DVE_CORE((*used_undefined)[kinds_checked[i]].push_back(id));
		}
	}
	/*
	 * An ordered page checks the ids of its own rows once it has them, before any output
	 * (ordering.cpp BeginPage); E8200 for the header comes with the document (PrepareDocument).
	 */
	bool any_used_undefined = false;
	for (const std::vector<int64_t> &ids : *used_undefined)
		any_used_undefined |= !ids.empty();
	if (any_used_undefined && ordered_page)
		state->check_page_identifiers = true;
	else
		DVE_CORE(core::CheckIdentifiersDefined(plan, state->metadata, *used_undefined));
}

/*
 * The main query's text and parameters into sql and params (AppendDataValueFilters: keep_elements,
 * ids_at_once); false if it has no WHERE clause. May ereport.
 */
bool
BuildRowQuery(ExportSession *session, const std::vector<int64_t> *periods, bool keep_elements, bool ids_at_once,
              StringInfo sql, QueryParams *params)
{
	ExportState *state = session->state;
	params->nargs = 0;
	resetStringInfo(sql);
	appendStringInfo(sql,
	                 "SELECT dv.dataelementid, dv.periodid, dv.sourceid, dv.categoryoptioncomboid, "
	                 "dv.attributeoptioncomboid, dv.value, dv.storedby, dv.created, dv.lastupdated, dv.comment, "
	                 "dv.followup, dv.deleted FROM %s.datavalue dv",
	                 state->dhis2_schema);
	bool has_where = AppendDataValueFilters(session, sql, params, keep_elements, ids_at_once);
	if (periods != nullptr) {
		appendStringInfo(sql, "%s dv.periodid " OP("=") " ANY($%d)", has_where ? " AND" : " WHERE",
		                 AddParam(params, INT8ARRAYOID, Int8Array(*periods)));
		has_where = true;
	}
	return has_where;
}

/*
 * Run the main query once, streaming every row into the writer (through the ordering). With
 * periods, only those periods' rows, and the data element filter kept even when it covers
 * every element: with both, datavalue's primary key (dataelementid, periodid, ...) finds the
 * rows. Where the plan decides, the query is planned first: a filter of every data element
 * (ElementFilterMayDecidePlan) is left out when that plan reads the whole table, a long org unit
 * list is then tested in the form the planner estimates at once (IdsAnySql: no 350 bytes and
 * a microsecond of planning per org unit), and an export that reads the whole table reads the heap
 * itself (ReadWholeHeap). Unordered exports page here too. Returns how many rows the query delivered. May ereport.
 */
uint64
ExecuteRowQuery(ExportSession *session, const std::vector<int64_t> *periods)
{
	ExportState *state = session->state;
	const DataValueFilters &filters = state->filters;
	core::StagedFilter filter;
	/*
	 * An unordered export may read the heap too, decoding each tuple where it lies: the executor's
	 * per-tuple path and PostgreSQL's tuple decoding were about a third of its backend's time. Its
	 * deleted rows are then dropped here, as an ordered export's are (the query is planned without
	 * NOT dv.deleted, and gets it back if it runs after all).
	 */
	const bool unordered_read = periods == nullptr && state->plan.unordered && !state->ordering.grouping &&
	                            !state->ordering.staging && direct_heap_scan;
	if (unordered_read)
		state->ordering.filter_deleted = !state->plan.request.include_deleted;
	const bool may_read_heap = periods == nullptr && (state->ordering.staging || unordered_read) && direct_heap_scan &&
	                           PlanStagedFilter(state, &filter);
	const bool plan_with_elements = periods == nullptr && ElementFilterMayDecidePlan(filters);
	const bool long_org_unit_list = !filters.all_org_units && IdsEstimatedAtOnce(filters.org_unit_ids.size());
	const bool keep_elements = periods != nullptr || plan_with_elements;
	QueryParams params;
	StringInfoData sql;
	initStringInfo(&sql);
	/* First in the form a plan check takes: a long org unit list estimated at once. */
	const bool has_where = BuildRowQuery(session, periods, keep_elements, true, &sql, &params);
	/* Known to read the whole table: no WHERE clause, or a plan that does. */
	bool whole_table = !has_where;
	if (has_where && (plan_with_elements || may_read_heap || long_org_unit_list)) {
		whole_table = PlannerScansWholeTable(sql.data, &params);
		if (plan_with_elements)
			elog(DEBUG1, "datavalue_export: the data value query, planned with its filter of every data element, %s",
			     whole_table ? "reads the whole table: the filter is left out" : "reads through an index");
		if (whole_table && long_org_unit_list)
			elog(DEBUG1,
			     "datavalue_export: the data value query reads the whole table: its %zu org units are not estimated "
			     "one by one",
			     filters.org_unit_ids.size());
	}
	/*
	 * An unordered page is counted here, not by LIMIT/OFFSET in the query: the query has no join,
	 * so a value without metadata, which DHIS2's join leaves out, would take a place in the page.
	 */
	if (state->plan.unordered) {
		state->page_skip = state->plan.request.offset ? *state->plan.request.offset : 0;
		state->page_left = state->plan.request.limit ? *state->plan.request.limit : -1;
	}
	/* A scan of the whole table, or one PostgreSQL would read whole anyway: read the heap directly. */
	if (may_read_heap && whole_table) {
		uint64 rows_read;
		state->ordering.staged_filter = filter;
		if (ReadWholeHeap(session, &rows_read)) {
			pfree(sql.data);
			return rows_read;
		}
		state->ordering.staged_filter = core::StagedFilter{};
	}
	/* The query runs after all: an unordered one gets its NOT dv.deleted back. */
	const bool deleted_filter_back = unordered_read && state->ordering.filter_deleted;
	if (unordered_read)
		state->ordering.filter_deleted = false;
	/*
	 * The query that runs: without the element filter where the table is read whole, and through
	 * an index with the plain list, which the planner can make an index condition.
	 */
	if (whole_table && plan_with_elements)
		BuildRowQuery(session, periods, periods != nullptr, true, &sql, &params);
	else if (!whole_table && long_org_unit_list)
		BuildRowQuery(session, periods, keep_elements, false, &sql, &params);
	else if (deleted_filter_back)
		BuildRowQuery(session, periods, keep_elements, true, &sql, &params);

	RowReceiver *receiver = static_cast<RowReceiver *>(palloc0(sizeof(RowReceiver)));
	InitReceiver(&receiver->pub, ReceiveSlot, ReceiverStartup);
	receiver->session = session;

	ExecuteInto(sql.data, MakeParamList(&params), &receiver->pub, "data value query");
	const uint64 rows = receiver->rows;
	pfree(sql.data);
	pfree(receiver);
	return rows;
}

/*
 * Rows of datavalue this transaction has read so far (scanned, or fetched through an index),
 * from the backend's own statistics. May ereport.
 */
int64
RowsReadSoFar(Oid datavalue)
{
	Datum arg = ObjectIdGetDatum(datavalue);
	Oid type = OIDOID;
	const int rc = SPI_execute_with_args("SELECT pg_catalog.pg_stat_get_xact_tuples_returned($1) " OP(
	                                         "+") " pg_catalog.pg_stat_get_xact_tuples_fetched($1)",
	                                     1, &type, &arg, nullptr, true, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "statistics query failed: %s", SPI_result_code_string(rc));
	return GetInt64(SPI_tuptable->vals[0], 1);
}

/*
 * A page (limit) of an export ordered by period first, DHIS2's default order, needs only the
 * rows of its first periods. Periods are read in the order's sequence, a doubling batch at a
 * time (1, 2, 4, 8, 16 periods, then all the rest), until the kept rows fill the page: every
 * row of a later period sorts after all of them. Batches are disjoint, so through the primary
 * key (dataelementid, periodid, ...) the first pages of a large export read a few periods'
 * rows instead of the whole table, and a page deep into the export still reads each row once.
 * When a batch read far more rows than it returned (the planner scanned the table, or used the
 * index without the period), the next query takes all the remaining periods: at worst about
 * two reads of the table. May ereport.
 */
constexpr int kMaxPageQueries = 6;

void
ExecutePageByPeriods(ExportSession *session)
{
	ExportState *state = session->state;
	Ordering *ordering = &state->ordering;
	const core::IdentifierList &periods = state->metadata.objects[static_cast<size_t>(IdKind::kPeriod)];
	const Oid datavalue = get_relname_relid("datavalue", state->dhis2_schema_oid);
	std::vector<int64_t> *batch = &ordering->period_batch;
	size_t next = 0;
	size_t batch_size = 1;
	bool rest_at_once = false;
	int64 read_so_far = RowsReadSoFar(datavalue);
	for (int query = 1; next < periods.size(); query++) {
		const size_t end =
		    rest_at_once || query == kMaxPageQueries ? periods.size() : Min(periods.size(), next + batch_size);
		DVE_CORE(batch->clear(); for (size_t i = next; i < end; i++) batch->push_back(periods.Id(i)));
		const uint64 returned = ExecuteRowQuery(session, batch);
		const int64 read_before = read_so_far;
		read_so_far = RowsReadSoFar(datavalue);
		rest_at_once = read_so_far - read_before > static_cast<int64>(2 * returned + 1024);
		next = end;
		batch_size *= 2;
		/* Full page in the heap (and it did not spill into sorted runs): later periods cannot enter it. */
		if (ordering->top && ordering->top->Full())
			break;
	}
}

/* Whether the export's order starts with the period (only then can a page stop early). */
bool
PeriodLeadsTheOrder(const ExportState *state)
{
	const std::vector<core::OrderKey> &order = state->plan.order;
	return !order.empty() && order.front() == core::OrderKey::kPeriod;
}

/* Run the export's datavalue queries, streaming every row into the writer (through the ordering). May ereport. */
void
RunDataValueQuery(ExportSession *session)
{
	ExportState *state = session->state;
	/* "limit" => 0: an empty page, without reading (and sorting) every row for it. */
	if (NothingCanMatch(state) || (state->plan.request.limit && *state->plan.request.limit == 0)) {
		BeginEmptyPage(session);
		return;
	}
	/* Ordered exports sort in C++ (ordering.cpp): the queries never sort and never join. */
	if (state->plan.unordered) {
		ExecuteRowQuery(session, nullptr);
		return;
	}
	StartOrdering(session);
	const TimestampTz scan_start = GetCurrentTimestamp();
	if (state->ordering.top && !state->ordering.grouping && PeriodLeadsTheOrder(state))
		ExecutePageByPeriods(session);
	else {
		ExecuteRowQuery(session, nullptr);
		FinishStaging(session);
	}
	const TimestampTz merge_start = GetCurrentTimestamp();
	FinishOrdering(session);
	/* The two phases of an ordered export (README "Performance"): nothing is sent during the first. */
	elog(DEBUG1, "datavalue_export: ordered export: rows read and sorted in %ld ms, merged and sent in %ld ms",
	     TimestampDifferenceMilliseconds(scan_start, merge_start),
	     TimestampDifferenceMilliseconds(merge_start, GetCurrentTimestamp()));
}

/*
 * Stream the document's values. Call inside SPI. May ereport.
 *
 * ADX groups by data set first: as DHIS2 2.43 (DefaultDataExportService.exportInGroups), one
 * query per requested data set, in request order, over that data set's elements, sorted by the
 * rest of the group key. A value whose element is in two requested data sets is written in
 * both data sets' groups; limit and offset apply per data set.
 */
void
StreamDataValues(ExportSession *session)
{
	ExportState *state = session->state;
	if (state->plan.request.format != core::Format::kAdx) {
		RunDataValueQuery(session);
	} else {
		state->ordering.grouping = true;
		state->filters.all_data_elements = false;
		const size_t data_sets = state->scratch.data_set_elements.size();
		for (size_t i = 0; i < data_sets; i++) {
			DVE_CORE(state->filters.data_element_ids = state->scratch.data_set_elements[i]);
			state->ordering.data_set = static_cast<uint32_t>(i);
			RunDataValueQuery(session);
		}
	}
	/* The ids are not shown: they may belong to rows the role must not see. */
	if (state->rows_without_metadata > 0)
		ereport(WARNING,
		        (errmsg_plural("%llu data value was left out: it references a data element, period, organisation "
		                       "unit or category option combo with no row in its table",
		                       "%llu data values were left out: each references a data element, period, "
		                       "organisation unit or category option combo with no row in its table",
		                       static_cast<unsigned long>(state->rows_without_metadata),
		                       static_cast<unsigned long long>(state->rows_without_metadata)),
		         errdetail("DHIS2's export joins those tables and leaves such values out too; its foreign keys on "
		                   "datavalue normally prevent them.")));
}

} // namespace datavalue_export::pg
