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
#include <algorithm>

/* Core headers first: they refuse to follow PostgreSQL headers. */
#include "pg/export_session.hpp"
#include "pg/boundary.hpp"

namespace datavalue_export::pg {

namespace {

/* Records queued for the render thread at a time: about 2,600 DHIS2 rows. */
constexpr size_t kRenderBatchBytes = 128 * 1024;

/*
 * Sorted runs live in plain temporary files (fd.c) rather than BufFiles: a BufFile moves its
 * bytes through one 8 kB block at a time, a system call each, where runs are written and read
 * here in blocks of 64 kB to 1 MB (a quarter of the spill's time on the 1M demo). The files
 * count against temp_file_limit, and are removed when closed or at transaction end.
 */
RunFile
NewRunFile()
{
	RunFile run;
	/* temp_tablespaces is read per transaction: a SET outside one is seen only after this (as in tuplesort). */
	PrepareTempTablespaces();
	run.file = OpenTemporaryFile(false);
	return run;
}

/* A failed write of a run file, by fd.c here or by core code through the descriptor. */
void
ReportRunWriteError(int error)
{
	errno = error;
	ereport(ERROR, (errcode_for_file_access(), errmsg("could not write to temporary sort file: %m")));
}

void
WriteRunFile(RunFile *run, const char *data, size_t size)
{
	errno = 0;
	const ssize_t written = WriteTemporaryFile(run->file, data, size, run->size);
	if (written != static_cast<ssize_t>(size))
		ReportRunWriteError(written >= 0 && errno == 0 ? ENOSPC : errno); /* short, no error: a full disk */
	run->size += static_cast<off_t>(size);
}

/* Read up to size bytes from where the merge left off; 0 at the end. May ereport. */
size_t
ReadRunFile(Ordering *ordering, RunFile *run, char *buffer, size_t size)
{
	const size_t left = static_cast<size_t>(run->size - run->read_at);
	if (left == 0)
		return 0;
	ssize_t got;
	if (run->source != RunSource::kFile) {
		core::RowSorter *sorter = ordering->sorter.get();
		const size_t want = Min(size, left);
		got = static_cast<ssize_t>(run->source == RunSource::kSortedRun ? sorter->ReadSortedRun(buffer, want)
		                                                                : sorter->ReadFillingRun(buffer, want));
		if (got == 0)
			elog(ERROR, "sorted run in memory ended %zu bytes early", left);
	} else {
		got = ReadTemporaryFile(run->file, buffer, Min(size, left), run->read_at);
		if (got <= 0)
			ereport(ERROR, (errcode_for_file_access(), errmsg("could not read temporary sort file: %m")));
	}
	run->read_at += got;
	return static_cast<size_t>(got);
}

void
CloseRunFile(RunFile *run)
{
	if (run->source == RunSource::kFile)
		FileClose(run->file);
	run->file = -1;
	run->source = RunSource::kFile;
}

/*
 * A new run file of size bytes for a sorted run that core code writes through its descriptor.
 * Writing its last byte first goes through fd.c, so the run counts against temp_file_limit
 * (and fails here, on the backend's thread, when it would exceed it). May ereport.
 */
RunFile
NewSizedRunFile(size_t size)
{
	RunFile run = NewRunFile();
	if (size > 0) {
		const char placeholder = 0; /* overwritten by the run's last byte */
		run.size = static_cast<off_t>(size - 1);
		WriteRunFile(&run, &placeholder, 1);
	}
	return run;
}

/* A complete run (in its file, or the last one in memory) joins the runs to merge, as a run of level 0. May ereport. */
void
AddWrittenRun(Ordering *ordering, const RunFile &file)
{
	DVE_CORE(ordering->run_files.push_back(file); ordering->run_levels.push_back(0));
}

/* Write the run sorted on this thread to a new temporary file. May ereport. */
void
SpillSortedRun(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	const RunFile file = NewSizedRunFile(ordering->sorter->SortedBytes());
	/* No fd.c call until the write ends, so the descriptor stays open (fd.c closes idle ones). */
	if (const int error = ordering->sorter->WriteSortedRun(FileGetRawDesc(file.file)))
		ReportRunWriteError(error);
	AddWrittenRun(ordering, file);
	DVE_CORE(ordering->sorter->ClearSortedRun());
}

/* Paging: whether the next sorted row goes into the document (offset and limit counted). */
bool
TakeNextSorted(Ordering *ordering)
{
	if (ordering->rows_to_skip > 0) {
		ordering->rows_to_skip--;
		return false;
	}
	if (ordering->rows_left == 0)
		return false;
	if (ordering->rows_left > 0)
		ordering->rows_left--;
	return true;
}

/* The rows of a finished page kept in memory that the document writes: [first, last) of top. */
void
PageRange(const Ordering *ordering, const core::TopRows &top, size_t *first, size_t *last)
{
	*first = static_cast<size_t>(Min(ordering->rows_to_skip, static_cast<uint64_t>(top.Size())));
	*last = ordering->rows_left < 0 ? top.Size() : Min(top.Size(), *first + static_cast<size_t>(ordering->rows_left));
}

/*
 * A page that is not kept in memory (an offset + limit too large for it) streams its rows as it
 * merges: it is checked (E8201-E8203) and begins its document as the whole result decides,
 * before any output. May ereport.
 */
void
BeginUnpagedDocument(ExportSession *session)
{
	ExportState *state = session->state;
	if (state->check_page_identifiers) {
		state->check_page_identifiers = false;
		DVE_CORE(core::CheckIdentifiersDefined(state->plan, state->metadata, state->used_undefined));
	}
	if (state->header_from_page) {
		state->header_from_page = false;
		/* Without the pass over the values, the sorted rows decide (BeginSortedDocument). */
		if (!state->header_after_scan)
			DVE_CORE(state->document.writer->Begin(state->out.text));
	}
}

/*
 * A finished page kept in memory (top; none for an empty one), before any of it is written: its
 * own values decide E8201-E8203 (only the ids it writes count) and the hoisted org unit and AOC,
 * as DHIS2 encodes only what it returns. The header is rebuilt with the page's detection; the id
 * maps stay (the same objects in the same order). May ereport.
 */
void
BeginPage(ExportSession *session, const core::TopRows *top)
{
	ExportState *state = session->state;
	if (!state->check_page_identifiers && !state->header_from_page)
		return;
	size_t first = 0, last = 0;
	if (top != nullptr)
		PageRange(&state->ordering, *top, &first, &last);
	DVE_CORE({
		std::vector<int64_t> used[core::kIdKindCount];
		std::optional<int64_t> org_unit, attribute_option_combo;
		bool one_org_unit = true;
		for (size_t i = first; i < last; i++) {
			const core::DataValueRow row = core::DecodeRow(top->Record(i).data());
			/* The metadata object of a row's id of one kind (the writer's index is its place there). */
			const auto object = [&](size_t k) { return state->metadata.objects[k][row.ids[k]]; };
			for (size_t k = 0; k < core::kIdKindCount; k++)
				if (static_cast<core::IdKind>(k) != core::IdKind::kPeriod && !object(k).text) /* periods: never */
					used[k].push_back(object(k).id);
			const int64_t ou = object(static_cast<size_t>(core::IdKind::kOrgUnit)).id;
			one_org_unit = one_org_unit && (!org_unit || *org_unit == ou);
			org_unit = ou;
			attribute_option_combo = object(static_cast<size_t>(core::IdKind::kAttributeOptionCombo)).id;
		}
		if (state->check_page_identifiers) {
			state->check_page_identifiers = false;
			for (std::vector<int64_t> &ids : used) {
				std::sort(ids.begin(), ids.end());
				ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
			}
			core::CheckIdentifiersDefined(state->plan, state->metadata, used);
		}
		if (state->header_from_page) {
			state->header_from_page = state->header_after_scan = false;
			core::ResolvedMetadata &metadata = state->metadata;
			metadata.result_is_empty = last == first;
			metadata.detected_org_unit_id = one_org_unit ? org_unit : std::nullopt;
			metadata.detected_attribute_option_combo_id =
			    last - first == 1 ? attribute_option_combo : std::optional<int64_t>();
			state->document.writer = core::PrepareDocument(state->plan, metadata).writer;
			state->document.writer->Begin(state->out.text);
		}
	});
}

/*
 * A whole ordered export under a non-UID org unit or AOC scheme, whose objects all have
 * identifiers (ProfileDataValues: header_after_scan), begins its document once every row is
 * sorted, before any output: its rows decide the header as DHIS2's values do (the org unit they
 * all share, the AOC of a one-value result), read from the runs' key spread, instead of a pass
 * over the values before the scan (64-100 ms at 1M). May ereport.
 */
void
BeginSortedDocument(ExportSession *session)
{
	ExportState *state = session->state;
	if (!state->header_after_scan)
		return;
	state->header_after_scan = false;
	const core::RowSorter *sorter = state->ordering.sorter.get();
	DVE_CORE({
		core::ResolvedMetadata &metadata = state->metadata;
		const auto shared = [&](core::IdKind kind) -> std::optional<int64_t> {
			const std::optional<uint32_t> at = core::SharedId(sorter->Plan(), sorter->Spread(), kind);
			if (!at)
				return std::nullopt;
			return metadata.objects[static_cast<size_t>(kind)][*at].id;
		};
		metadata.result_is_empty = sorter->RowsAdded() == 0;
		metadata.detected_org_unit_id = shared(core::IdKind::kOrgUnit);
		metadata.detected_attribute_option_combo_id =
		    sorter->RowsAdded() == 1 ? shared(core::IdKind::kAttributeOptionCombo) : std::nullopt;
		state->document.writer = core::PrepareDocument(state->plan, metadata).writer;
		state->document.writer->Begin(state->out.text);
	});
}

/* Append one sorted row, honouring offset and limit; flushes as needed. May ereport. */
void
EmitSorted(ExportSession *session, const core::DataValueRow &row)
{
	Ordering *ordering = &session->state->ordering;
	if (!TakeNextSorted(ordering))
		return;
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

/*
 * The final merge renders on a second core (core/render_thread.hpp): the backend queues each
 * row's record and sends the text that comes back. Grouping formats (ADX) keep rendering here,
 * since a group's start depends on the row before it. The export's text so far, not yet sent,
 * starts the thread's first buffer. May ereport.
 */
void
StartRendering(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	/*
	 * A gzip export already compresses on a second core: a third thread there slowed the 1M
	 * demo's merge phase from about 360 to 450 ms. zip compresses on the backend, and gains.
	 */
	if (render_thread == kRenderOff || ordering->grouping || ordering->rows_left == 0 || session->state->out.gzip)
		return;
	/*
	 * The backend renders a share too where the text's cut points do not show: a byte stream
	 * (not a SELECT's rows) that is not compressed (zip's deflate is fed the cuts as they come).
	 */
	ordering->render_here_too =
	    render_thread != kRenderThreadOnly && session->sink.kind != SinkKind::kResultRows && !session->state->out.zip;
	ordering->render_batches = 0;
	DVE_CORE(ordering->render_batch.Reserve(kRenderBatchBytes + 64 * 1024);
	         ordering->renderer = std::make_unique<core::RenderThread>(
	             *session->state->document.writer, kFlushBytes, session->state->out.text, ordering->render_here_too));
	elog(DEBUG1, "datavalue_export: the merged rows are rendered on a second thread%s",
	     ordering->render_here_too ? ", and on this one while it is behind" : "");
}

/*
 * Send every buffer of text the render thread has finished, in order. At the end (last), a
 * last buffer short of kFlushBytes stays in out.text for the document's end: the text is then
 * flushed at the same places as when the backend renders (a plain SELECT's rows are those
 * pieces). May ereport.
 */
void
SendRendered(ExportSession *session, bool last)
{
	Ordering *ordering = &session->state->ordering;
	core::OutputBuffer *text = &session->state->out.text;
	for (;;) {
		DVE_CORE(ordering->rendered = ordering->renderer->TakeRendered());
		if (!ordering->rendered)
			return;
		/* FlushText sends out.text: lend it the rendered storage, and take it back empty. */
		text->Swap(*ordering->rendered);
		if (last && text->Size() < kFlushBytes && !ordering->render_here_too)
			return; /* only the thread's last buffer is short: out.text keeps it */
		FlushText(session, false);
		text->Swap(*ordering->rendered);
		DVE_CORE(ordering->renderer->Recycle(std::move(ordering->rendered)));
	}
}

/* Hand the queued records to the render thread and send what it has finished. May ereport. */
void
SubmitRenderBatch(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	core::RenderThread *renderer = ordering->renderer.get();
	const bool alternate = ordering->render_here_too && render_thread == kRenderAlternate;
	const bool alternate_here = ordering->render_batches % 2 == 1;
	ordering->render_batches++;
	/* ShouldRenderHere takes the thread's lock, which can throw: inside the block too. */
	DVE_CORE(if (alternate ? alternate_here : renderer->ShouldRenderHere())
	             renderer->RenderHere(ordering->render_batch);
	         else renderer->Submit(ordering->render_batch));
	SendRendered(session, false);
}

/* Queue one sorted row's record for the render thread, honouring offset and limit. May ereport. */
void
QueueSorted(ExportSession *session, std::string_view record)
{
	Ordering *ordering = &session->state->ordering;
	if (!TakeNextSorted(ordering))
		return;
	session->rows++;
	DVE_CORE(ordering->render_batch.Append(record));
	if (ordering->render_batch.Size() >= kRenderBatchBytes)
		SubmitRenderBatch(session);
}

/* After the last row: wait for the render thread, send the rest, and give the writer back. May ereport. */
void
FinishRendering(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	if (!ordering->renderer)
		return;
	SubmitRenderBatch(session);
	DVE_CORE(ordering->renderer->Finish());
	SendRendered(session, true);
	DVE_CORE(ordering->renderer.reset(); ordering->rendered.reset());
}

/* The next sorted row, by its encoded record: to the render thread if there is one, else rendered here. May ereport. */
void
EmitSortedRecord(ExportSession *session, std::string_view record)
{
	if (session->state->ordering.renderer)
		QueueSorted(session, record);
	else
		EmitSorted(session, core::DecodeRow(record.data()));
}

/*
 * Emit rows already sorted in memory (one run, or a page's heap): record(i) for i below rows,
 * honouring the limit. record is a noexcept core accessor. May ereport.
 */
template <typename RecordAt>
void
EmitInMemory(ExportSession *session, size_t rows, RecordAt record)
{
	for (size_t i = 0; i < rows && session->state->ordering.rows_left != 0; i++) {
		EmitSortedRecord(session, record(i));
		/* Every row: a thousand rows of DHIS2's longest texts (2 x 50,000 characters) are hundreds of megabytes. */
		CHECK_FOR_INTERRUPTS();
	}
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

/*
 * Refill run r of the merge until it holds a whole record or its file is done, reading straight
 * into its window, read_size bytes at a time. May ereport.
 */
void
RefillRun(ExportSession *session, RunFile *file, size_t run, size_t read_size)
{
	Ordering *ordering = &session->state->ordering;
	/* Records can exceed a read (two 50,000-character texts): read again until one is whole. */
	while (ordering->merger->BytesWanted(run) > 0) {
		char *space;
		DVE_CORE(space = ordering->merger->FeedSpace(run, read_size));
		const size_t got = ReadRunFile(ordering, file, space, read_size);
		if (got == 0) {
			ordering->merger->MarkExhausted(run);
			return;
		}
		ordering->merger->Fed(run, got);
	}
}

/* datavalue_export.sort_run_memory in bytes: the budget of the sorter's runs and of a merge. */
size_t
SortRunBudget()
{
	return static_cast<size_t>(sort_run_memory_kb) * 1024;
}

/*
 * How many runs one merge reads at once. A run being merged costs its read window: a read plus
 * what is left of a record, so up to its longest record (a DHIS2 row with two 50,000-character
 * texts is 100-400 kB). Merging at most budget / (32 kB + the longest record) runs keeps the
 * merge within datavalue_export.sort_run_memory whatever the export's size and rows; more runs
 * are first merged into fewer, longer ones (MergeRuns with an output file). Without the record
 * term, an ordered export of 12,000 rows of two 50,000-character texts (400 kB each) grew the
 * backend by 151 MB, with it by 86 MB.
 */
size_t
MergeFanIn(const Ordering *ordering)
{
	const size_t per_run = 32 * 1024 + ordering->sorter->MaxRecordBytes();
	return Max(SortRunBudget() / per_run, static_cast<size_t>(4));
}

/*
 * Each run's read window grows to about one read: share the run budget among the runs being
 * merged (between 8 kB and 64 kB a read) so the merge stays near it too.
 */
size_t
MergeReadSize(size_t runs)
{
	return Min(Max(SortRunBudget() / runs, static_cast<size_t>(8 * 1024)), static_cast<size_t>(64 * 1024));
}

/*
 * Merge count sorted run files: into out as one longer run, or, when out is NULL, into the
 * document (offset and limit apply). May ereport.
 */
void
MergeRuns(ExportSession *session, RunFile *files, size_t count, RunFile *out)
{
	Ordering *ordering = &session->state->ordering;
	DVE_CORE(ordering->merger =
	             std::make_unique<core::RunMerger>(ordering->sorter->Plan(), count, ordering->sorter->Spread()));
	const size_t read_size = MergeReadSize(count);
	for (size_t r = 0; r < count; r++) {
		files[r].read_at = 0;
		if (files[r].source == RunSource::kSortedRun)
			ordering->sorter->RewindSortedRun();
		else if (files[r].source == RunSource::kFillingRun)
			ordering->sorter->RewindFillingRun();
		RefillRun(session, &files[r], r, read_size);
	}
	DVE_CORE(ordering->merger->Start(); ordering->spill_buffer.Clear());
	while (!ordering->merger->Done() && (out != nullptr || ordering->rows_left != 0)) {
		if (out != nullptr) {
			DVE_CORE(ordering->spill_buffer.Append(ordering->merger->TopRecord()));
			if (ordering->spill_buffer.Size() >= 256 * 1024) {
				WriteRunFile(out, ordering->spill_buffer.Data(), ordering->spill_buffer.Size());
				DVE_CORE(ordering->spill_buffer.Clear());
			}
		} else
			EmitSortedRecord(session, ordering->merger->TopRecord());
		const size_t run = ordering->merger->TopRun();
		ordering->merger->Pop();
		RefillRun(session, &files[run], run, read_size);
		ordering->merger->Reposition();
		CHECK_FOR_INTERRUPTS(); /* every row, as in EmitInMemory */
	}
	if (out != nullptr && ordering->spill_buffer.Size() > 0)
		WriteRunFile(out, ordering->spill_buffer.Data(), ordering->spill_buffer.Size());
	DVE_CORE(ordering->spill_buffer.Clear(); ordering->merger.reset());
}

/* Merge count runs into one new run; the inputs are closed. May ereport. */
RunFile
MergeIntoNewRun(ExportSession *session, RunFile *files, size_t count)
{
	RunFile out = NewRunFile();
	MergeRuns(session, files, count, &out);
	for (size_t r = 0; r < count; r++)
		CloseRunFile(&files[r]);
	session->state->ordering.merge_passes++;
	return out;
}

/*
 * Keep the number of open runs small while the scan still spills: whenever the newest fan-in
 * runs are of the same level, merge them into one run of the next level (like carrying in a
 * counter). Each spilled run holds a read window in the merge, so without this the open runs of
 * a large export with small runs would grow with the export; with it they stay below fan-in times the
 * number of levels (log of the run count), and each row is rewritten once per level. May ereport.
 */
void
CascadeRuns(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	const size_t fan_in = MergeFanIn(ordering);
	while (ordering->run_files.size() >= fan_in) {
		const size_t first = ordering->run_files.size() - fan_in;
		const int level = ordering->run_levels[first];
		if (ordering->run_levels.back() != level)
			return;
		const RunFile out = MergeIntoNewRun(session, ordering->run_files.data() + first, fan_in);
		DVE_CORE(ordering->run_files.resize(first); ordering->run_levels.resize(first);
		         ordering->run_files.push_back(out); ordering->run_levels.push_back(level + 1));
	}
}

/*
 * Wait for the run the worker thread sorts and writes, if any, and add its file to the runs. With
 * keep (the scan's end), the worker is asked to leave the run in memory instead, skipping what is
 * left of its write; returns whether it did (its file, and what it holds, are dropped). May ereport.
 */
bool
WaitForPendingRun(ExportSession *session, bool keep)
{
	Ordering *ordering = &session->state->ordering;
	if (!ordering->sorter->SortPending())
		return false;
	if (keep)
		ordering->sorter->KeepSortedRunInMemory();
	if (const int error = ordering->sorter->WaitForSortedRun())
		ReportRunWriteError(error);
	if (!ordering->sorter->SortedRunWritten()) {
		CloseRunFile(&ordering->pending_run);
		return true;
	}
	AddWrittenRun(ordering, ordering->pending_run);
	CascadeRuns(session);
	return false;
}

/*
 * A full run: wait for the previous one, and hand this one to the worker thread, which sorts it
 * and writes it to a new temporary file while the scan goes on. The worker writes through a
 * duplicate of the file's descriptor: fd.c may close the original to stay under its limit of
 * open files while the scan opens others. May ereport.
 */
void
RunFull(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	WaitForPendingRun(session, false);
	ordering->pending_run = NewSizedRunFile(ordering->sorter->FillingBytes());
	const int fd = dup(FileGetRawDesc(ordering->pending_run.file));
	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not duplicate temporary sort file descriptor: %m")));
	DVE_CORE(ordering->sorter->SortRunInBackground(fd));
}

/* The worker's run stayed in memory (WaitForPendingRun): it and the last run are merged from there. May ereport. */
void
AddRunsInMemory(Ordering *ordering)
{
	RunFile kept;
	kept.source = RunSource::kSortedRun;
	kept.size = static_cast<off_t>(ordering->sorter->SortedBytes());
	AddWrittenRun(ordering, kept);
	const int spilled = static_cast<int>(ordering->run_files.size()) - 1;
	if (!ordering->sorter->RunEmpty()) {
		RunFile last;
		last.source = RunSource::kFillingRun;
		last.size = static_cast<off_t>(ordering->sorter->FillingBytes());
		AddWrittenRun(ordering, last);
	}
	ordering->sorter->ReleaseWriteBuffer();
	elog(DEBUG1, "datavalue_export: merging %d spilled runs and the scan's last %d runs, from memory", spilled,
	     static_cast<int>(ordering->run_files.size()) - spilled);
}

/* Write the sorted rows: straight from memory for one run, else merge the spilled runs. May ereport. */
void
EmitSortedRows(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	if (ordering->run_files.empty() && !ordering->sorter->SortPending()) {
		DVE_CORE(ordering->sorter->SortRun());
		const core::RowSorter *sorter = ordering->sorter.get();
		BeginSortedDocument(session);
		StartRendering(session);
		EmitInMemory(session, sorter->SortedRows(), [sorter](size_t i) { return sorter->SortedRecord(i); });
		FinishRendering(session);
		DVE_CORE(ordering->sorter->ClearSortedRun());
		return;
	}
	/* The last run sorts on this thread while the worker still sorts and writes the one before it. */
	ordering->sorter->SortFillingRun();
	const size_t fan_in = MergeFanIn(ordering);
	/*
	 * When one merge can read both, the worker's run stays in memory beside the last one, unless
	 * its write has ended: the scan's end then waits for its sort alone. On the 1M demo the wait
	 * here was 7-18 ms of a 0.17 s scan, most of it the run's write. The two runs then stay
	 * through the merge, so only while the spilled runs' read windows (a read and about as much
	 * again each) fit in the megabyte the sorter's write buffer frees: the merge then stays
	 * within the scan's memory. At 10M values (53 spilled runs) keeping both added 4.9 MB.
	 */
	const size_t spilled = ordering->run_files.size();
	const bool keep = spilled + 2 <= fan_in && spilled * 2 * MergeReadSize(spilled + 2) <= core::kSpillWriteBytes;
	if (WaitForPendingRun(session, keep))
		AddRunsInMemory(ordering);
	else {
		ordering->sorter->AdoptSortedRun(); /* the worker's run is in its file: the last one takes its place */
		if (ordering->sorter->SortedRows() == 0)
			ordering->sorter->ReleaseRuns();
		else if (ordering->run_files.size() < fan_in) {
			/*
			 * One merge will read every run: it reads the last one from memory, which it would
			 * otherwise write to a file and read back (memory stays within the scan's two runs).
			 */
			RunFile last;
			last.source = RunSource::kSortedRun;
			last.size = static_cast<off_t>(ordering->sorter->SortedBytes());
			ordering->sorter->ReleaseAllButSortedRun();
			elog(DEBUG1, "datavalue_export: merging %d spilled runs and the last run, %zu rows, from memory",
			     static_cast<int>(ordering->run_files.size()), ordering->sorter->SortedRows());
			AddWrittenRun(ordering, last);
		} else {
			SpillSortedRun(session);
			ordering->sorter->ReleaseRuns();
			elog(DEBUG1, "datavalue_export: merging %d spilled runs, the last one included",
			     static_cast<int>(ordering->run_files.size()));
		}
	}
	/* Every run is sorted: their keys' spread is complete. */
	BeginSortedDocument(session);
	/* Too many runs to merge at once within the budget: merge groups of them into longer runs first. */
	while (ordering->run_files.size() > fan_in) {
		const size_t runs = ordering->run_files.size();
		for (size_t first = 0; first < runs; first += fan_in) {
			const size_t count = Min(fan_in, runs - first);
			const RunFile out = MergeIntoNewRun(session, ordering->run_files.data() + first, count);
			DVE_CORE(ordering->merged_files.push_back(out));
		}
		DVE_CORE(ordering->run_files.swap(ordering->merged_files); ordering->merged_files.clear();
		         ordering->run_levels.assign(ordering->run_files.size(), 0));
	}
	StartRendering(session);
	MergeRuns(session, ordering->run_files.data(), ordering->run_files.size(), nullptr);
	FinishRendering(session);
	for (RunFile &file : ordering->run_files)
		CloseRunFile(&file);
	ordering->sorter->ReleaseRuns();
	DVE_CORE(ordering->run_files.clear());
	elog(DEBUG1, "datavalue_export: merged %d run groups in extra passes, fan-in %d", ordering->merge_passes,
	     static_cast<int>(fan_in));
}

} // namespace

/*
 * The document's start, unless a page kept in memory decides its header (BeginPage), or the
 * sorted rows of a whole ordered export (BeginSortedDocument). May ereport.
 */
void
BeginDocument(ExportSession *session)
{
	if (!session->state->header_from_page && !session->state->header_after_scan)
		DVE_CORE(session->state->document.writer->Begin(session->state->out.text));
}

/* A page known to be empty without reading ("limit" => 0). May ereport. */
void
BeginEmptyPage(ExportSession *session)
{
	BeginPage(session, nullptr);
}

/* Set up the sorter and the paging of an ordered export. May ereport. */
void
StartOrdering(ExportSession *session)
{
	ExportState *state = session->state;
	Ordering *ordering = &state->ordering;
	const core::ExportRequest &request = state->plan.request;
	ordering->staging = false;
	ordering->filter_deleted = false;
	ordering->staged_filter = core::StagedFilter{};
	ordering->rows_to_skip = request.offset ? static_cast<uint64>(*request.offset) : 0;
	ordering->rows_left = request.limit ? *request.limit : -1;
	/*
	 * A page (limit, e.g. DHIS2's paging) needs only its first offset + limit rows: keep those
	 * in a bounded heap instead of sorting everything, when they are few enough to be kept in
	 * a fraction of the run budget.
	 */
	const size_t run_bytes = SortRunBudget();
	if (request.limit) {
		const uint64 wanted = ordering->rows_to_skip + static_cast<uint64>(*request.limit);
		if (wanted > 0 && wanted <= run_bytes / 256) {
			DVE_CORE(ordering->top = std::make_unique<core::TopRows>(core::PlanSortKey(state->plan.order),
			                                                         static_cast<size_t>(wanted)));
			return;
		}
	}
	BeginUnpagedDocument(session);
	DVE_CORE(ordering->sorter = std::make_unique<core::RowSorter>(core::PlanSortKey(state->plan.order), run_bytes));
	/* A full ordered scan hands its tuples to the stager undecoded, deleted ones too (datavalue_query.cpp). */
	ordering->staging = true;
	ordering->filter_deleted = !request.include_deleted;
}

/* Add one row to the current run; a full run is sorted and spilled. May ereport. */
void
AddToOrdering(ExportSession *session, const core::DataValueRow &row)
{
	Ordering *ordering = &session->state->ordering;
	if (ordering->top) {
		DVE_CORE(ordering->top->Add(row));
		const size_t run_bytes = SortRunBudget();
		if (ordering->top->Bytes() <= run_bytes)
			return;
		/* Very large rows: the kept rows outgrew the budget; sort them with the rest in runs. */
		BeginUnpagedDocument(session);
		DVE_CORE(ordering->sorter = std::make_unique<core::RowSorter>(ordering->top->Plan(), run_bytes));
		for (size_t i = 0; i < ordering->top->Size(); i++) {
			DVE_CORE(ordering->sorter->Add(ordering->top->Row(i)));
			if (ordering->sorter->RunFull())
				RunFull(session);
		}
		DVE_CORE(ordering->top.reset());
		return;
	}
	DVE_CORE(ordering->sorter->Add(row));
	if (ordering->sorter->RunFull())
		RunFull(session);
}

/* Add rows encoded on the stager's thread; full runs are sorted and spilled as with AddToOrdering. May ereport. */
void
AddEncodedToOrdering(ExportSession *session, const core::EncodedRows &rows)
{
	Ordering *ordering = &session->state->ordering;
	size_t next = 0;
	while (next < rows.entries.size()) {
		DVE_CORE(next = ordering->sorter->AddEncoded(rows, next));
		if (ordering->sorter->RunFull())
			RunFull(session);
	}
}

/* Write the sorted rows into the document. May ereport. */
void
FinishOrdering(ExportSession *session)
{
	Ordering *ordering = &session->state->ordering;
	if (ordering->top) {
		DVE_CORE(ordering->top->Finish());
		const core::TopRows *top = ordering->top.get();
		BeginPage(session, top);
		EmitInMemory(session, top->Size(), [top](size_t i) { return top->Record(i); });
		DVE_CORE(ordering->top.reset());
	} else
		EmitSortedRows(session);
	/* A page's rows close their group too: ADX with "limit" otherwise ended without its last </group>. */
	CloseGroup(session);
}

} // namespace datavalue_export::pg
