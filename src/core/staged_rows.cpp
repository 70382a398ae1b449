/*
 * src/core/staged_rows.cpp
 *	  Decoding staged heap tuples on a worker thread; see staged_rows.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/staged_rows.hpp"

#include "core/error.hpp"
#include "core/worker_thread.hpp"

#include <algorithm>
#include <iterator>
#include <string>

namespace datavalue_export::core {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "varlena headers are decoded in little-endian layout");

template <typename T>
T
LoadAt(const char *p) noexcept
{
	T v;
	std::memcpy(&v, p, sizeof v);
	return v;
}

size_t
AlignUp(size_t offset, size_t alignment) noexcept
{
	return (offset + alignment - 1) & ~(alignment - 1);
}

/*
 * A varlena at data + *offset: its bytes (after the header) and the offset after it; false if
 * it is compressed. A 1-byte header is never padded; any other starts at the column's
 * alignment, and pad bytes are zero.
 */
bool
ReadVarlena(const char *data, size_t *offset, size_t alignment, TextField *field)
{
	if (data[*offset] == 0)
		*offset = AlignUp(*offset, alignment);
	const char *p = data + *offset;
	const uint8_t first = static_cast<uint8_t>(p[0]);
	field->is_null = false;
	if ((first & 0x01) != 0) {
		if (first == 0x01) /* a TOAST pointer: src/pg keeps these rows */
			throw Error(sqlstate::kInternalError, "staged data value holds a TOAST pointer");
		const size_t size = first >> 1;
		field->data = p + 1;
		field->size = size - 1;
		*offset += size;
		return true;
	}
	const uint32_t header = LoadAt<uint32_t>(p);
	if ((header & 0x03) != 0)
		return false;
	const size_t size = header >> 2;
	field->data = p + 4;
	field->size = size - 4;
	*offset += size;
	return true;
}

} // namespace

void
CheckTimestamp(int64_t ts, const char *column)
{
	if (ts == kNullTimestamp)
		throw Error(sqlstate::kNullValueNotAllowed, std::string("data value has a NULL \"") + column + "\" timestamp",
		            "DHIS2 declares datavalue.created and datavalue.lastupdated NOT NULL.");
	/* PostgreSQL's DT_NOBEGIN and DT_NOEND: -infinity and infinity. */
	if (ts == INT64_MIN || ts == INT64_MAX)
		throw Error(sqlstate::kDatetimeValueOutOfRange,
		            std::string("data value has an infinite \"") + column + "\" timestamp",
		            "DHIS2 timestamps are always finite.");
}

/*
 * Where a column's value goes: fixed-width values into a table of int64 by field (unused columns
 * into its last slot), texts into one of four (the last for unused ones), so that the loop over
 * the columns writes without branching on the field, and needs no zeroing beforehand: every
 * field is in the layout, so each slot is written, by its value or by its NULL.
 */
constexpr size_t kUnusedSlot = kTupleFieldCount;
constexpr size_t kTextSlots = 4;

constexpr size_t
TextSlot(TupleField field) noexcept
{
	return field == TupleField::kValue ? 0 : field == TupleField::kStoredBy ? 1 : field == TupleField::kComment ? 2 : 3;
}

namespace {
/* Whether attribute i (from 0) has a value: a set bit in the null bitmap, or no bitmap at all. */
inline bool
AttributePresent(const uint8_t *bitmap, size_t i) noexcept
{
	return bitmap == nullptr || (bitmap[i >> 3] & (1u << (i & 7))) != 0;
}

/* DHIS2's datavalue table (2.42 and 2.43), in its column order. */
constexpr TupleColumn kDhis2Columns[] = {{8, 8, TupleField::kDataElement},
                                         {8, 8, TupleField::kPeriod},
                                         {8, 8, TupleField::kOrgUnit},
                                         {8, 8, TupleField::kCategoryOptionCombo},
                                         {8, 8, TupleField::kAttributeOptionCombo},
                                         {-1, 4, TupleField::kValue},
                                         {-1, 4, TupleField::kStoredBy},
                                         {8, 8, TupleField::kCreated},
                                         {8, 8, TupleField::kLastUpdated},
                                         {-1, 4, TupleField::kComment},
                                         {1, 1, TupleField::kFollowup},
                                         {1, 1, TupleField::kDeleted}};
} // namespace

TupleLayout
Dhis2TupleLayout()
{
	TupleLayout layout{std::vector<TupleColumn>(std::begin(kDhis2Columns), std::end(kDhis2Columns))};
	RecogniseDhis2Layout(layout);
	return layout;
}

void
RecogniseDhis2Layout(TupleLayout &layout) noexcept
{
	const std::vector<TupleColumn> &c = layout.columns;
	layout.dhis2 = c.size() == std::size(kDhis2Columns) &&
	               std::equal(c.begin(), c.end(), kDhis2Columns, [](const TupleColumn &a, const TupleColumn &b) {
		               return a.length == b.length && a.alignment == b.alignment && a.field == b.field;
	               });
}

StagedTuple
ReadStagedTuple(const char *record) noexcept
{
	StagedTuple tuple;
	tuple.attributes = LoadAt<uint16_t>(record + 4);
	tuple.bitmap_bytes = LoadAt<uint16_t>(record + 6);
	tuple.null_bitmap = tuple.bitmap_bytes != 0 ? reinterpret_cast<const uint8_t *>(record + 8) : nullptr;
	tuple.data = record + 8 + tuple.bitmap_bytes;
	tuple.data_bytes = LoadAt<uint32_t>(record) - 8 - tuple.bitmap_bytes;
	return tuple;
}

namespace {

/*
 * The end of a decode: a row not live (deleted, or its flag NULL: DHIS2's dv.deleted = false
 * leaves both out) returns first when skip_deleted (nothing checked), then a row outside the
 * filter, else the ids (as stored) are mapped into row->ids (a row with an id not in its map
 * returns there) and the timestamps the caller set are checked.
 */
[[gnu::always_inline]] inline StagedDecode
FinishRow(const IdMap *maps, bool skip_deleted, bool live, const StagedFilter *filter, const int64_t *ids,
          DataValueRow *row)
{
	if (skip_deleted && !live)
		return StagedDecode::kDeleted;
	if (filter != nullptr && !filter->Passes(ids))
		return StagedDecode::kFiltered;
	for (size_t k = 0; k < kIdKindCount; k++) {
		row->ids[k] = maps[k].Get(ids[k]);
		if (row->ids[k] == IdMap::kNotFound)
			return StagedDecode::kNoMetadata;
	}
	CheckTimestamp(row->created, "created");
	CheckTimestamp(row->last_updated, "lastupdated");
	return StagedDecode::kRow;
}

/*
 * A NULL fixed-width column as the column walk stores it: the flags and the timestamps keep NULL
 * apart from every value (-1, kNullTimestamp), as ReadDhis2Columns reads them.
 */
constexpr int64_t
NullFixedValue(TupleField field) noexcept
{
	switch (field) {
	case TupleField::kFollowup:
	case TupleField::kDeleted:
		return -1;
	case TupleField::kCreated:
	case TupleField::kLastUpdated:
		return kNullTimestamp;
	default:
		return 0;
	}
}

/*
 * kDhis2Columns straight through, as the column walk reads them: the five ids at offsets 0-32
 * (the caller checked they are not NULL), then each column's own step; false if a text is
 * compressed. A NULL timestamp reads as kNullTimestamp, a NULL followup as -1; *live is whether
 * the deleted flag is false.
 */
bool
ReadDhis2Columns(const StagedTuple &tuple, int64_t *ids, DataValueRow *row, bool *live)
{
	const uint8_t *bitmap = tuple.null_bitmap;
	const auto present = [bitmap](size_t i) { return AttributePresent(bitmap, i); };
	const char *data = tuple.data;
	for (size_t k = 0; k < kIdKindCount; k++)
		ids[k] = LoadAt<int64_t>(data + 8 * k);
	size_t offset = 8 * kIdKindCount;
	const auto text = [data, &offset, &present](size_t i, TextField *field) {
		if (!present(i)) {
			*field = TextField{};
			return true;
		}
		return ReadVarlena(data, &offset, 4, field);
	};
	const auto timestamp = [data, &offset, &present](size_t i) -> int64_t {
		if (!present(i))
			return kNullTimestamp;
		offset = AlignUp(offset, 8) + 8;
		return LoadAt<int64_t>(data + offset - 8);
	};
	if (!text(5, &row->value) || !text(6, &row->stored_by))
		return false;
	row->created = timestamp(7);
	row->last_updated = timestamp(8);
	if (!text(9, &row->comment))
		return false;
	row->followup = present(10) ? (data[offset++] != 0 ? 1 : 0) : -1;
	row->deleted = present(11) && data[offset] != 0;
	*live = present(11) && data[offset] == 0;
	return true;
}

} // namespace

StagedDecode
DecodeStagedTuple(const TupleLayout &layout, const IdMap *maps, bool skip_deleted, const char *record,
                  DataValueRow *row, const StagedFilter *filter)
{
	return DecodeTuple(layout, maps, skip_deleted, ReadStagedTuple(record), row, filter);
}

StagedDecode
DecodeTuple(const TupleLayout &layout, const IdMap *maps, bool skip_deleted, const StagedTuple &tuple,
            DataValueRow *row, const StagedFilter *filter)
{
	const uint8_t *bitmap = tuple.null_bitmap;
	/*
	 * The ids are the first attributes, the low bits of the bitmap's first byte. A NULL id cannot
	 * be in DHIS2's table, but a table could allow one: the walk reads it as 0 (and the map has
	 * no 0: the row is left out, as DHIS2's join leaves it out).
	 */
	static_assert(kIdKindCount <= 8, "the ids' bits are in the bitmap's first byte");
	constexpr uint8_t kIdBits = (1u << kIdKindCount) - 1;
	if (layout.dhis2 && (bitmap == nullptr || (bitmap[0] & kIdBits) == kIdBits)) {
		int64_t ids[kIdKindCount];
		bool live;
		if (!ReadDhis2Columns(tuple, ids, row, &live))
			return StagedDecode::kDeferred;
		return FinishRow(maps, skip_deleted, live, filter, ids, row);
	}
	/* Any other layout: column by column. */
	const char *data = tuple.data;
	int64_t fixed[kTupleFieldCount + 1]; /* by TupleField: the ids first */
	TextField texts[kTextSlots];
	size_t offset = 0;
	const size_t columns = layout.columns.size();
	for (size_t i = 0; i < columns; i++) {
		const TupleColumn column = layout.columns[i];
		const bool is_null = !AttributePresent(bitmap, i);
		if (column.length < 0) {
			TextField *text = &texts[TextSlot(column.field)];
			if (is_null)
				*text = TextField{};
			else if (!ReadVarlena(data, &offset, column.alignment, text))
				return StagedDecode::kDeferred;
			continue;
		}
		const size_t slot = column.field == TupleField::kUnused ? kUnusedSlot : static_cast<size_t>(column.field);
		if (is_null) { /* takes no space */
			fixed[slot] = NullFixedValue(column.field);
			continue;
		}
		offset = AlignUp(offset, column.alignment);
		const char *p = data + offset;
		offset += static_cast<size_t>(column.length);
		fixed[slot] = column.length == 8 ? LoadAt<int64_t>(p) : (*p != 0 ? 1 : 0);
	}
	row->deleted = fixed[static_cast<size_t>(TupleField::kDeleted)] == 1;
	const bool live = fixed[static_cast<size_t>(TupleField::kDeleted)] == 0;
	row->value = texts[0];
	row->stored_by = texts[1];
	row->comment = texts[2];
	row->created = fixed[static_cast<size_t>(TupleField::kCreated)];
	row->last_updated = fixed[static_cast<size_t>(TupleField::kLastUpdated)];
	row->followup = static_cast<int8_t>(fixed[static_cast<size_t>(TupleField::kFollowup)]);
	return FinishRow(maps, skip_deleted, live, filter, fixed, row);
}

RowStager::RowStager(TupleLayout layout, const IdMap *maps, SortKeyPlan plan, bool skip_deleted, size_t chunk_bytes,
                     const StagedFilter *filter)
    : layout_(std::move(layout)), maps_(maps), plan_(std::move(plan)), skip_deleted_(skip_deleted), filter_(filter),
      chunk_bytes_(chunk_bytes)
{
	RecogniseDhis2Layout(layout_);
	for (Chunk &chunk : chunks_)
		chunk.tuples.Reserve(chunk_bytes_ + 8 * 1024);
}

RowStager::~RowStager()
{
	{
		std::lock_guard<std::mutex> lock(mutex_);
		stop_ = true;
	}
	wake_.notify_all();
	if (worker_.joinable())
		worker_.join();
}

void
RowStager::WorkerLoop() noexcept
{
	std::unique_lock<std::mutex> lock(mutex_);
	while (true) {
		wake_.wait(lock, [this] { return job_ready_ || stop_; });
		if (stop_)
			return;
		job_ready_ = false;
		const OutputBuffer &chunk = chunks_[job_].tuples;
		StagedRows &rows = encoded_[job_].rows;
		lock.unlock();
		std::exception_ptr error;
		try {
			if (worker_hook_)
				worker_hook_();
			DecodeChunk(chunk, rows);
		} catch (...) {
			error = std::current_exception();
		}
		lock.lock();
		job_error_ = error;
		job_pending_ = false;
		wake_.notify_all();
	}
}

void
RowStager::DecodeChunk(const OutputBuffer &chunk, StagedRows &rows)
{
	rows.encoded.Clear();
	rows.deferred.Clear();
	rows.no_metadata = 0;
	DataValueRow row;
	for (const char *p = chunk.Data(), *end = p + chunk.Size(); p < end; p += EncodedRowSize(p)) {
		const StagedDecode decoded = DecodeStagedTuple(layout_, maps_, skip_deleted_, p, &row, filter_);
		if (decoded == StagedDecode::kRow)
			rows.encoded.Add(plan_, row);
		else if (decoded == StagedDecode::kDeferred)
			rows.deferred.Append(p, EncodedRowSize(p));
		else if (decoded == StagedDecode::kNoMetadata)
			rows.no_metadata++;
	}
}

const StagedRows *
RowStager::ExchangeOrDecode(bool decode_here)
{
	bool busy = decode_here;
	if (!busy) {
		std::lock_guard<std::mutex> lock(mutex_);
		busy = job_pending_;
	}
	if (!busy)
		return Exchange();
	DecodeChunk(*staging_, decoded_here_.rows);
	staging_->Clear();
	return &decoded_here_.rows;
}

const StagedRows *
RowStager::AwaitJob()
{
	std::unique_lock<std::mutex> lock(mutex_);
	if (!job_handed_)
		return nullptr;
	wake_.wait(lock, [this] { return !job_pending_; });
	job_handed_ = false;
	if (job_error_) {
		std::exception_ptr error = job_error_;
		job_error_ = nullptr;
		std::rethrow_exception(error);
	}
	return &encoded_[job_].rows;
}

const StagedRows *
RowStager::Exchange()
{
	const StagedRows *done = AwaitJob();
	if (!worker_.joinable())
		worker_ = StartSignalFreeThread([this] { WorkerLoop(); });
	{
		std::lock_guard<std::mutex> lock(mutex_);
		job_ = staging_index_;
		job_pending_ = true;
		job_ready_ = true;
		job_handed_ = true;
	}
	wake_.notify_all();
	staging_index_ ^= 1;
	staging_ = &chunks_[staging_index_].tuples;
	staging_->Clear();
	return done;
}

const StagedRows *
RowStager::Finish()
{
	return AwaitJob();
}

} // namespace datavalue_export::core
