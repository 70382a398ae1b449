/*
 * src/core/staged_rows.hpp
 *	  An ordered export's per-row work, moved to a second core during its scan.
 *
 * An ordered export sends nothing until its scan ends, so every nanosecond the backend spends
 * per row in that scan is waited for. Most of it went to decoding each tuple (PostgreSQL) and to
 * our own part (mapping the five ids, encoding the compact row, its sort key). Instead, src/pg
 * copies each plain heap tuple's bytes into a chunk (Stage: two memcpys), and RowStager's worker
 * thread decodes the chunk's tuples by the table's column layout, maps their ids and encodes them
 * with their sort keys while the backend scans the next chunk; a chunk that fills while the
 * worker is still busy is decoded by the backend (ExchangeOrDecode). The backend appends the
 * encoded rows to the sorted run in bulk (RowSorter::AddEncoded).
 *
 * The tuple format is PostgreSQL's on-disk heap tuple: an optional null bitmap, then the
 * attributes at offsets aligned from the (maximally aligned) start of the data, varlenas with a
 * 1-byte or 4-byte header (a 1-byte varlena is never padded). Tuples with a TOAST pointer or
 * fewer attributes than the layout reads (columns added later with a default) never reach here,
 * and tuples with a compressed text are handed back (StagedRows::deferred): src/pg decodes those
 * on its own thread with PostgreSQL's functions.
 *
 * Memory: two chunks of staged tuples and three of encoded rows (the worker's two, and one the
 * caller decodes itself when the worker is busy), a few megabytes.
 * May throw std::bad_alloc, std::system_error (thread creation) and core::Error (a decoded row
 * that cannot be exported, raised on the caller's thread).
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/id_map.hpp"
#include "core/model.hpp"
#include "core/output_buffer.hpp"
#include "core/row_sorter.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* What an attribute of the datavalue table holds for the export. */
enum class TupleField : uint8_t {
	kDataElement, /* the five ids, in IdKind order */
	kPeriod,
	kOrgUnit,
	kCategoryOptionCombo,
	kAttributeOptionCombo,
	kValue,
	kStoredBy,
	kComment,
	kCreated,
	kLastUpdated,
	kFollowup,
	kDeleted,
	kUnused, /* another or a dropped column: only its width counts */
};
inline constexpr size_t kTupleFieldCount = 12;

struct TupleColumn {
	int16_t length;    /* bytes, or -1 for a varlena */
	uint8_t alignment; /* 1, 2, 4 or 8 */
	TupleField field;
};

/*
 * The table's attributes in physical order, up to the last one the export reads. src/pg builds
 * it from the relation's descriptor and checks the types: ids int8, texts varlenas, timestamps
 * 8 bytes, flags 1 byte.
 */
struct TupleLayout {
	std::vector<TupleColumn> columns;
	/* The columns are DHIS2's datavalue table as DHIS2 creates it (RecogniseDhis2Layout). */
	bool dhis2 = false;
};

/*
 * Set layout.dhis2 when its columns are DHIS2's own datavalue table, column for column: then
 * DecodeStagedTuple reads the tuple with straight-line code (the ids at fixed offsets, each
 * later column's step known), about twice as fast as walking a column list. RowStager does this
 * for its layout; any other layout (a column added or dropped) is walked.
 */
void RecogniseDhis2Layout(TupleLayout &layout) noexcept;
/* DHIS2's own datavalue layout, recognised (what PlanTupleLayout in src/pg builds for DHIS2's table). */
TupleLayout Dhis2TupleLayout();

/*
 * The id filters a scan without a WHERE clause leaves to the stager: per kind, the export's set
 * of ids (the kind's own map when that map is the set), or nullptr when the kind is not filtered.
 * A row with an id outside a set is not in the export (StagedDecode::kFiltered).
 */
struct StagedFilter {
	const IdMap *sets[kIdKindCount] = {};

	/* How many kinds are filtered. */
	size_t Kinds() const noexcept
	{
		size_t kinds = 0;
		for (const IdMap *set : sets)
			kinds += set != nullptr;
		return kinds;
	}
	bool Any() const noexcept { return Kinds() != 0; }
	/* Whether these ids (as stored, in IdKind order) are in every set. */
	bool Passes(const int64_t *ids) const noexcept
	{
		for (size_t k = 0; k < kIdKindCount; k++)
			if (sets[k] != nullptr && !sets[k]->Contains(ids[k]))
				return false;
		return true;
	}
};

/*
 * Decode one staged tuple into row, its ids mapped through maps; texts point into the tuple.
 * kDeleted: a deleted row, with skip_deleted (nothing checked). kFiltered: an id outside its set
 * of filter (when given), so the row is not in the export (nothing else checked). kNoMetadata:
 * an id not in its map, which holds every object the export can reach, so one with no row in
 * its table (a broken foreign key): DHIS2's query joins those tables and leaves the row out.
 * kDeferred: a text is compressed, so PostgreSQL must decode the tuple. Throws core::Error.
 */
enum class StagedDecode { kRow, kDeleted, kFiltered, kNoMetadata, kDeferred };
StagedDecode DecodeStagedTuple(const TupleLayout &layout, const IdMap *maps, bool skip_deleted, const char *record,
                               DataValueRow *row, const StagedFilter *filter = nullptr);

/*
 * A heap tuple's parts: a staged record's (ReadStagedTuple, for src/pg to rebuild a tuple the
 * stager could not decode), or a tuple's in its buffer page (an unordered export's direct read).
 */
struct StagedTuple {
	uint16_t attributes;
	const uint8_t *null_bitmap; /* nullptr when no attribute is NULL */
	uint16_t bitmap_bytes;
	const char *data;
	uint32_t data_bytes;
};
StagedTuple ReadStagedTuple(const char *record) noexcept;

/* DecodeStagedTuple of a tuple's parts wherever they are; texts point into tuple.data. Throws core::Error. */
StagedDecode DecodeTuple(const TupleLayout &layout, const IdMap *maps, bool skip_deleted, const StagedTuple &tuple,
                         DataValueRow *row, const StagedFilter *filter = nullptr);

/* What the stager made of a chunk: its rows, encoded, and the records PostgreSQL must decode. */
struct StagedRows {
	EncodedRows encoded;
	uint64_t no_metadata = 0; /* rows left out as StagedDecode::kNoMetadata */
	OutputBuffer deferred;    /* staged records (ReadStagedTuple), back to back; sized like EncodedRowSize */
};

/*
 * The error of a row that cannot be exported, shared with src/pg's own decoding so both say the
 * same: a NULL (kNullTimestamp, out of PostgreSQL's range) or infinite timestamp, which DHIS2
 * never stores.
 */
inline constexpr int64_t kNullTimestamp = INT64_MIN + 1;
void CheckTimestamp(int64_t ts, const char *column);

class RowStager {
  public:
	/*
	 * maps (kIdKindCount of them) must not change while the stager lives; skip_deleted drops
	 * rows marked deleted (the scan does not filter them: that would make PostgreSQL decode
	 * every tuple up to its last column); filter (when given, and its sets) must outlive the
	 * stager too: rows outside it are dropped (the scan has no WHERE clause for it). May throw.
	 */
	RowStager(TupleLayout layout, const IdMap *maps, SortKeyPlan plan, bool skip_deleted,
	          size_t chunk_bytes = kMaxChunkBytes, const StagedFilter *filter = nullptr);

	/* The largest chunk: bigger ones gained nothing (handing one over costs a few microseconds). */
	static constexpr size_t kMaxChunkBytes = 512 * 1024;
	~RowStager();
	RowStager(const RowStager &) = delete;
	RowStager &operator=(const RowStager &) = delete;

	/* The layout's attribute count: a tuple with fewer attributes cannot be staged. */
	size_t Attributes() const noexcept { return layout_.columns.size(); }

	/*
	 * Copy one tuple: its attribute count, its null bitmap (bitmap_bytes 0 when it has no NULL)
	 * and its data. May throw std::bad_alloc.
	 */
	void Stage(uint16_t attributes, const uint8_t *null_bitmap, uint16_t bitmap_bytes, const char *data,
	           uint32_t data_bytes)
	{
		const uint32_t size = kStagedHeader + bitmap_bytes + data_bytes;
		char *w = staging_->Reserve(size);
		std::memcpy(w, &size, sizeof size);
		std::memcpy(w + 4, &attributes, sizeof attributes);
		std::memcpy(w + 6, &bitmap_bytes, sizeof bitmap_bytes);
		if (bitmap_bytes != 0) /* null_bitmap may be nullptr then */
			std::memcpy(w + kStagedHeader, null_bitmap, bitmap_bytes);
		std::memcpy(w + kStagedHeader + bitmap_bytes, data, data_bytes);
		staging_->Commit(w + size);
	}
	bool ChunkFull() const noexcept { return staging_->Size() >= chunk_bytes_; }

	/*
	 * Hand the staged chunk to the worker and start a new one. Returns the rows encoded from the
	 * chunk handed over before (waiting for them), or nullptr if there was none; they stay valid
	 * until the next call. Rethrows what decoding that chunk threw. May throw std::system_error.
	 */
	const StagedRows *Exchange();
	/*
	 * Exchange, unless the worker is still decoding the chunk before: then decode the staged chunk
	 * on this thread instead of waiting, and return its rows (valid until the next call). The two
	 * threads share the decoding however fast each one is. decode_here decodes on this thread
	 * even when the worker is free: src/pg asks for it while the run sorter's thread works, so
	 * that thread has the second core to itself and the scan does not wait for it at the next
	 * full run (a tenth of the 1M demo's scan phase).
	 */
	const StagedRows *ExchangeOrDecode(bool decode_here = false);
	/* Wait for the last chunk handed over; its rows (nullptr if none). Rethrows like Exchange. */
	const StagedRows *Finish();

	/*
	 * Test seam: hook runs on the worker thread as it takes each chunk, before decoding it. Set
	 * before the first Exchange. Fault-injection builds hold the worker there to test teardown.
	 */
	void SetWorkerHook(std::function<void()> hook) { worker_hook_ = std::move(hook); }

  private:
	static constexpr size_t kStagedHeader = 8; /* size, attribute count, bitmap bytes */

	void WorkerLoop() noexcept;
	void DecodeChunk(const OutputBuffer &chunk, StagedRows &rows);
	/* Wait for the job in flight, if any; its rows or nullptr. Call with mutex_ unlocked. */
	const StagedRows *AwaitJob();

	/*
	 * Each thread writes its buffers' sizes row by row: every buffer has cache lines of its own,
	 * else the two cores pass a shared line back and forth on every row (that made staging
	 * slower than not staging).
	 */
	struct alignas(64) Chunk {
		OutputBuffer tuples;
	};
	struct alignas(64) Encoded {
		StagedRows rows;
	};

	TupleLayout layout_;
	const IdMap *maps_;
	SortKeyPlan plan_;
	bool skip_deleted_;
	const StagedFilter *filter_;
	size_t chunk_bytes_;
	Chunk chunks_[2];      /* one staged by the caller, the other decoded by the worker */
	Encoded encoded_[2];   /* rows of chunks_[i] */
	Encoded decoded_here_; /* rows of a chunk ExchangeOrDecode decoded on the caller's thread */
	alignas(64) OutputBuffer *staging_ = &chunks_[0].tuples;
	size_t staging_index_ = 0;

	alignas(64) std::mutex mutex_;
	std::condition_variable wake_;
	size_t job_ = 0;           /* the chunk the worker decodes */
	bool job_pending_ = false; /* handed over, not yet done */
	bool job_ready_ = false;   /* for the worker to take */
	bool job_handed_ = false;  /* handed over, its rows not yet returned */
	bool stop_ = false;
	std::exception_ptr job_error_;
	std::function<void()> worker_hook_;
	std::thread worker_;
};

} // namespace datavalue_export::core
