/*
 * src/pg/ordering.cpp
 *	  Ordered exports: rows sorted in sorted runs (core/row_sorter), spilled to temporary files
 *	  when a run is full, merged at the end, with DHIS2's paging applied while writing.
 *
 * DHIS2 orders by pe.startdate, pe.enddate, dv.created, de.uid; letting PostgreSQL sort the
 * joined rows costs about 1 us a row, so the main query never sorts (core/row_sorter.hpp).
 * The run size is the datavalue_export.sort_run_memory setting.
 *
 * Frames here hold only PODs and palloc'd memory; core objects are touched inside DVE_CORE.
 * May ereport.
 * SPDX-License-Identifier: PostgreSQL
 */
/* Core headers first: they refuse to follow PostgreSQL headers. */
#include "pg/export_session.hpp"
#include "pg/boundary.hpp"

namespace datavalue_export::pg {

namespace {

/* Sort the current run and write it to a new temporary file. May ereport. */
void
SpillRun(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	MemoryContext previous = MemoryContextSwitchTo(session->context);
	BufFile *file = BufFileCreateTemp(false);
	MemoryContextSwitchTo(previous);
	DVE_CORE(ordering->run_files.push_back(file); ordering->sorter->SortRun());
	bool more = true;
	while (more) {
		DVE_CORE(ordering->spill_buffer.Clear();
		         more = ordering->sorter->SpillChunk(ordering->spill_buffer, 1024 * 1024));
		BufFileWrite(file, ordering->spill_buffer.Data(), ordering->spill_buffer.Size());
		CHECK_FOR_INTERRUPTS();
	}
	DVE_CORE(ordering->spill_buffer.Clear());
}

/* Append one sorted row, honouring offset and limit; flushes as needed. May ereport. */
void
EmitSorted(ExportSession *session, const core::DataValueRow &row)
{
	Ordering *ordering = &session->state->ordering;
	if (ordering->rows_to_skip > 0) {
		ordering->rows_to_skip--;
		return;
	}
	if (ordering->rows_left == 0)
		return;
	if (ordering->rows_left > 0)
		ordering->rows_left--;
	if (ordering->grouping) {
		/* Rows come sorted by the group key (PE, OU, AOC): a new key closes the group. */
		const uint32_t key[3] = {row.ids[static_cast<size_t>(core::IdKind::kPeriod)],
		                         row.ids[static_cast<size_t>(core::IdKind::kOrgUnit)],
		                         row.ids[static_cast<size_t>(core::IdKind::kAttributeOptionCombo)]};
		const bool same = ordering->group_open && memcmp(key, ordering->group_key, sizeof key) == 0;
		if (!same) {
			core::Writer *writer = session->state->document.writer.get();
			core::OutputBuffer *out = &session->state->out.text;
			if (ordering->group_open)
				DVE_CORE(writer->EndGroup(*out));
			DVE_CORE(writer->BeginGroup(row, ordering->data_set, *out));
			memcpy(ordering->group_key, key, sizeof key);
			ordering->group_open = true;
		}
	}
	EmitRow(session, row);
}

/* Close the open group, if any (the end of one data set's rows). May ereport. */
void
CloseGroup(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	if (!ordering->group_open)
		return;
	DVE_CORE(session->state->document.writer->EndGroup(session->state->out.text));
	ordering->group_open = false;
}

/* Refill run r of the merge until it holds a whole record or its file is done. May ereport. */
void
RefillRun(ExportSession *session, size_t run, char *buffer, size_t buffer_size)
{
	Ordering *ordering = &session->state->ordering;
	for (;;) {
		size_t want = ordering->merger->BytesWanted(run);
		if (want == 0)
			return;
		/* Records can exceed the buffer (two 50,000-character texts): read it full, repeatedly. */
		size_t got = BufFileRead(ordering->run_files[run], buffer, buffer_size);
		if (got == 0) {
			ordering->merger->MarkExhausted(run);
			return;
		}
		DVE_CORE(ordering->merger->Feed(run, buffer, got));
	}
}

/* Write the sorted rows: straight from memory for one run, else merge the spilled runs. May ereport. */
void
EmitSortedRows(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	if (ordering->run_files.empty()) {
		DVE_CORE(ordering->sorter->SortRun());
		const size_t rows = ordering->sorter->RunRows();
		for (size_t i = 0; i < rows && ordering->rows_left != 0; i++) {
			const core::DataValueRow row = ordering->sorter->SortedRow(i);
			EmitSorted(session, row);
			if ((i & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		DVE_CORE(ordering->sorter->ClearRun());
		return;
	}
	if (!ordering->sorter->RunEmpty())
		SpillRun(session);
	const size_t runs = ordering->run_files.size();
	DVE_CORE(ordering->merger = std::make_unique<core::RunMerger>(ordering->sorter->Plan(), runs));
	/*
	 * Each run's read window grows to about one read: share the run budget among the runs
	 * (between 8 kB and 64 kB a read) so the merge of a very large export stays near it too.
	 */
	const size_t run_bytes = static_cast<size_t>(sort_run_memory_kb) * 1024;
	const size_t buffer_size =
	    Min(Max(run_bytes / runs, static_cast<size_t>(8 * 1024)), static_cast<size_t>(64 * 1024));
	char *buffer = static_cast<char *>(MemoryContextAlloc(session->context, buffer_size));
	for (size_t r = 0; r < runs; r++) {
		if (BufFileSeek(ordering->run_files[r], 0, 0, SEEK_SET) != 0)
			ereport(ERROR, (errcode_for_file_access(), errmsg("could not rewind temporary sort file")));
		RefillRun(session, r, buffer, buffer_size);
	}
	DVE_CORE(ordering->merger->Start());
	uint64 emitted = 0;
	while (!ordering->merger->Done() && ordering->rows_left != 0) {
		const core::DataValueRow row = ordering->merger->Top();
		EmitSorted(session, row);
		const size_t run = ordering->merger->TopRun();
		ordering->merger->Pop();
		RefillRun(session, run, buffer, buffer_size);
		DVE_CORE(ordering->merger->Reposition());
		if ((++emitted & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	for (BufFile *file : ordering->run_files)
		BufFileClose(file);
	DVE_CORE(ordering->run_files.clear());
	pfree(buffer);
}

} // namespace

/* Set up the sorter and the paging of an ordered export. May ereport. */
void
StartOrdering(ExportSession *session)
{
	ExportState *state = session->state;
	Ordering *ordering = &state->ordering;
	const size_t run_bytes = static_cast<size_t>(sort_run_memory_kb) * 1024;
	DVE_CORE(ordering->sorter = std::make_unique<core::RowSorter>(core::PlanSortKey(state->plan.order), run_bytes));
	ordering->rows_to_skip = state->plan.request.offset ? static_cast<uint64>(*state->plan.request.offset) : 0;
	ordering->rows_left = state->plan.request.limit ? *state->plan.request.limit : -1;
}

/* Add one row to the current run; a full run is sorted and spilled. May ereport. */
void
AddToOrdering(ExportSession *session, const core::DataValueRow &row)
{
	Ordering *ordering = &session->state->ordering;
	DVE_CORE(ordering->sorter->Add(row));
	if (ordering->sorter->RunFull())
		SpillRun(session);
}

/* Write the sorted rows into the document. May ereport. */
void
FinishOrdering(ExportSession *session)
{
	EmitSortedRows(session);
	CloseGroup(session);
}

} // namespace datavalue_export::pg
