/*
 * src/core/row_sorter.cpp
 *	  Sort keys, compact rows, sorted runs and their merge; see row_sorter.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/row_sorter.hpp"

#include "core/worker_thread.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include <unistd.h>

namespace datavalue_export::core {

namespace {

template <typename T>
inline char *
Store(char *w, T v) noexcept
{
	std::memcpy(w, &v, sizeof v);
	return w + sizeof v;
}

template <typename T>
inline T
Load(const char *&p) noexcept
{
	T v;
	std::memcpy(&v, p, sizeof v);
	p += sizeof v;
	return v;
}

/* The flags byte of a compact record. */
constexpr uint8_t kDeletedFlag = 1;
constexpr uint8_t kFollowupShift = 1; /* followup + 1 (-1, 0 or 1) in two bits */
constexpr uint8_t kLastUpdatedFlag = 1 << 3;
constexpr uint8_t kNullTextShift = 4; /* value, stored_by, comment: one bit each */
constexpr uint8_t kLongText = 0xFF;   /* a length byte saying four bytes of length follow */

inline size_t
TextSize(const TextField &f) noexcept
{
	return f.is_null ? 0 : f.size;
}

inline size_t
LengthBytes(size_t size) noexcept
{
	return size < kLongText ? 1 : 1 + sizeof(uint32_t);
}

/* A text's length as LengthBytes counts it: one byte, or kLongText and four more. */
inline char *
StoreLength(char *w, size_t size) noexcept
{
	if (__builtin_expect(size < kLongText, 1))
		return Store<uint8_t>(w, static_cast<uint8_t>(size));
	w = Store<uint8_t>(w, kLongText);
	return Store<uint32_t>(w, static_cast<uint32_t>(size));
}

inline size_t
LoadLength(const char *&p) noexcept
{
	const size_t size = Load<uint8_t>(p);
	return size == kLongText ? Load<uint32_t>(p) : size;
}

/*
 * A text's bytes, if any. Without a branch on NULL (whether comment and storedBy are NULL varies
 * from row to row, and mispredicting it was a third of EncodeRow's time).
 */
inline char *
StoreText(char *w, const TextField &f) noexcept
{
	static const char kNothing = 0;
	const size_t size = f.is_null ? 0 : f.size;
	std::memcpy(w, f.is_null ? &kNothing : f.data, size);
	return w + size;
}

} // namespace

/* Identifier indexes are ranks because src/pg/metadata.cpp registers identifiers in DHIS2's sort order. */
SortKeyPlan
PlanSortKey(const std::vector<OrderKey> &order)
{
	std::vector<SortComponent> components;
	const auto add = [&components](SortComponent c) {
		if (std::find(components.begin(), components.end(), c) == components.end())
			components.push_back(c);
	};
	for (OrderKey o : order)
		switch (o) {
		case OrderKey::kPeriod:
			add(SortComponent::kPeriod);
			break;
		case OrderKey::kCreated:
			add(SortComponent::kCreated);
			break;
		case OrderKey::kDataElement:
			add(SortComponent::kDataElement);
			break;
		case OrderKey::kOrgUnit:
			add(SortComponent::kOrgUnit);
			break;
		case OrderKey::kAttributeOptionCombo:
			add(SortComponent::kAttributeOptionCombo);
			break;
		}
	for (SortComponent c : {SortComponent::kDataElement, SortComponent::kPeriod, SortComponent::kOrgUnit,
	                        SortComponent::kCategoryOptionCombo, SortComponent::kAttributeOptionCombo})
		add(c);
	return SortKeyPlan(std::move(components));
}

namespace {
/* The identifier kind whose rank a 32-bit component holds. */
IdKind
RankedKind(SortComponent c) noexcept
{
	switch (c) {
	case SortComponent::kDataElement:
		return IdKind::kDataElement;
	case SortComponent::kPeriod:
		return IdKind::kPeriod;
	case SortComponent::kOrgUnit:
		return IdKind::kOrgUnit;
	case SortComponent::kCategoryOptionCombo:
		return IdKind::kCategoryOptionCombo;
	default:
		return IdKind::kAttributeOptionCombo;
	}
}

constexpr uint8_t kCreatedHigh = kIdKindCount;
constexpr uint8_t kCreatedLow = kIdKindCount + 1;
constexpr uint8_t kZero = kIdKindCount + 2;
} // namespace

/* Components are 32-bit ranks or the 64-bit timestamp: lay them out as 32-bit halves. */
SortKeyPlan::SortKeyPlan(std::vector<SortComponent> order) : components(std::move(order))
{
	size_t n = 0;
	for (SortComponent c : components) {
		if (n + 2 > 2 * kSortKeyWords)
			break; /* cannot happen: at most one 64-bit and five 32-bit components */
		if (c == SortComponent::kCreated) {
			half_source[n++] = kCreatedHigh;
			half_source[n++] = kCreatedLow;
		} else
			half_source[n++] = static_cast<uint8_t>(RankedKind(c));
	}
	while (n < 2 * kSortKeyWords)
		half_source[n++] = kZero;
}

namespace {
/* The 32-bit values a key's halves come from, indexed by SortKeyPlan::half_source. */
[[gnu::always_inline]] inline void
KeySources(const uint32_t *ids, int64_t created_signed, uint32_t *source) noexcept
{
	static_assert(kZero < 8, "the half sources must fit in eight");
	/* Flip the sign bit: signed order as unsigned. */
	const uint64_t created = static_cast<uint64_t>(created_signed) ^ (UINT64_C(1) << 63);
	for (size_t k = 0; k < kIdKindCount; k++)
		source[k] = ids[k];
	source[kCreatedHigh] = static_cast<uint32_t>(created >> 32);
	source[kCreatedLow] = static_cast<uint32_t>(created);
	source[kZero] = 0;
}

/*
 * Writes the key in place. Returned by value, the 32-byte key was stored as 8-byte words and
 * copied on with 16-byte loads, which cannot be forwarded from those stores and stall: half of
 * RowSorter::Add's own perf samples were on that copy.
 */
[[gnu::always_inline]] inline void
ComposeKey(const SortKeyPlan &plan, const uint32_t *source, SortKey *key) noexcept
{
	for (size_t i = 0; i < kSortKeyWords; i++)
		key->words[i] =
		    (static_cast<uint64_t>(source[plan.half_source[2 * i]]) << 32) | source[plan.half_source[2 * i + 1]];
}

[[gnu::always_inline]] inline void
FillKey(const SortKeyPlan &plan, const uint32_t *ids, int64_t created_signed, SortKey *key) noexcept
{
	uint32_t source[8];
	KeySources(ids, created_signed, source);
	ComposeKey(plan, source, key);
}

/* KeySources of an encoded record (EncodeRow), from its ids and created timestamp. */
[[gnu::always_inline]] inline void
RecordKeySources(const char *record, uint32_t *source) noexcept
{
	const char *p = record + sizeof(uint32_t); /* after the record size: the ids, then created */
	uint32_t ids[kIdKindCount];
	for (uint32_t &id : ids)
		id = Load<uint32_t>(p);
	KeySources(ids, Load<int64_t>(p), source);
}

[[gnu::always_inline]] inline void
FillRecordKey(const SortKeyPlan &plan, const char *record, SortKey *key) noexcept
{
	uint32_t source[8];
	RecordKeySources(record, source);
	ComposeKey(plan, source, key);
}
} // namespace

SortKey
MakeSortKey(const SortKeyPlan &plan, const DataValueRow &row) noexcept
{
	SortKey key;
	FillKey(plan, row.ids, row.created, &key);
	return key;
}

SortKey
RecordSortKey(const SortKeyPlan &plan, const char *record) noexcept
{
	SortKey key;
	FillRecordKey(plan, record, &key);
	return key;
}

size_t
EncodedRowBytes(const DataValueRow &row) noexcept
{
	const size_t value = TextSize(row.value), stored_by = TextSize(row.stored_by), comment = TextSize(row.comment);
	size_t size =
	    kCompactRowHeader + (row.last_updated != row.created ? sizeof(int64_t) : 0) + value + stored_by + comment;
	if (__builtin_expect((value | stored_by | comment) >= kLongText, 0))
		size += LengthBytes(value) + LengthBytes(stored_by) + LengthBytes(comment) - 3;
	return size;
}

void
EncodeRow(const DataValueRow &row, OutputBuffer &out)
{
	const size_t size = EncodedRowBytes(row);
	char *w = out.Reserve(size);
	w = Store<uint32_t>(w, static_cast<uint32_t>(size));
	for (size_t k = 0; k < kIdKindCount; k++)
		w = Store<uint32_t>(w, row.ids[k]);
	w = Store<int64_t>(w, row.created);
	const bool last_updated_differs = row.last_updated != row.created;
	const unsigned flags =
	    (row.deleted ? kDeletedFlag : 0u) | static_cast<unsigned>((row.followup + 1) & 3) << kFollowupShift |
	    (last_updated_differs ? kLastUpdatedFlag : 0u) | (row.value.is_null ? 1u : 0u) << kNullTextShift |
	    (row.stored_by.is_null ? 2u : 0u) << kNullTextShift | (row.comment.is_null ? 4u : 0u) << kNullTextShift;
	w = Store<uint8_t>(w, static_cast<uint8_t>(flags));
	if (last_updated_differs)
		w = Store<int64_t>(w, row.last_updated);
	w = StoreLength(w, TextSize(row.value));
	w = StoreLength(w, TextSize(row.stored_by));
	w = StoreLength(w, TextSize(row.comment));
	w = StoreText(w, row.value);
	w = StoreText(w, row.stored_by);
	w = StoreText(w, row.comment);
	out.Commit(w);
}

DataValueRow
DecodeRow(const char *p) noexcept
{
	DataValueRow row;
	p += sizeof(uint32_t); /* the record size */
	for (size_t k = 0; k < kIdKindCount; k++)
		row.ids[k] = Load<uint32_t>(p);
	row.created = Load<int64_t>(p);
	const uint8_t flags = Load<uint8_t>(p);
	row.deleted = (flags & kDeletedFlag) != 0;
	row.followup = static_cast<int8_t>(((flags >> kFollowupShift) & 3) - 1);
	row.last_updated = (flags & kLastUpdatedFlag) != 0 ? Load<int64_t>(p) : row.created;
	TextField *fields[3] = {&row.value, &row.stored_by, &row.comment};
	for (size_t i = 0; i < 3; i++) {
		fields[i]->size = LoadLength(p);
		fields[i]->is_null = ((flags >> (kNullTextShift + i)) & 1) != 0;
	}
	for (TextField *f : fields) {
		f->data = p;
		p += f->size;
	}
	return row;
}

namespace {
/* What WriteSorted returns when it stopped because the run stays in memory (errno values are positive). */
constexpr int kKeptInMemory = -1;

/* Write all of data at offset; 0 or errno (a short write without one is a full disk). */
int
WriteFully(int fd, const char *data, size_t size, off_t offset) noexcept
{
	while (size > 0) {
		const ssize_t n = pwrite(fd, data, size, offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : ENOSPC;
		data += n;
		size -= static_cast<size_t>(n);
		offset += n;
	}
	return 0;
}
} // namespace

RowSorter::RowSorter(SortKeyPlan plan, size_t run_budget) : plan_(std::move(plan)), run_budget_(run_budget / 2)
{
	/* Rows are at least a header; entries take their share of the budget as the run fills. */
	for (Run *run : {&filling_, &sorted_}) {
		run->arena.Reserve(run_budget_);
		run->entries.reserve(run_budget_ / (kCompactRowHeader + sizeof(Entry)));
	}
	gather_.Reserve(kSpillWriteBytes);
}

RowSorter::~RowSorter()
{
	/* A cancelled export needs no file: the worker stops at its next write instead of writing the run out. */
	KeepSortedRunInMemory();
	WaitForSortedRun();
}

void
EncodedRows::Add(const SortKeyPlan &plan, const DataValueRow &row)
{
	const size_t offset = arena.Size();
	EncodeRow(row, arena);
	SortEntry &entry = entries.emplace_back();
	FillKey(plan, row.ids, row.created, &entry.key);
	entry.offset = offset;
}

size_t
RowSorter::AddEncoded(const EncodedRows &rows, size_t from)
{
	const size_t count = rows.entries.size();
	if (from >= count)
		return count;
	/* As many rows as Add would take before RunFull: up to and including the one that fills the run. */
	const size_t first_offset = rows.entries[from].offset;
	size_t bytes = filling_.Bytes();
	size_t end = from;
	while (end < count && bytes < run_budget_) {
		const size_t record_end = end + 1 < count ? rows.entries[end + 1].offset : rows.arena.Size();
		const size_t record = record_end - rows.entries[end].offset;
		max_record_ = std::max(max_record_, record);
		bytes += record + sizeof(Entry);
		end++;
	}
	const size_t last_offset = end < count ? rows.entries[end].offset : rows.arena.Size();
	const size_t base = filling_.arena.Size();
	filling_.arena.Append(rows.arena.Data() + first_offset, last_offset - first_offset);
	const size_t first_entry = filling_.entries.size();
	filling_.entries.insert(filling_.entries.end(), rows.entries.begin() + static_cast<std::ptrdiff_t>(from),
	                        rows.entries.begin() + static_cast<std::ptrdiff_t>(end));
	for (size_t i = first_entry; i < filling_.entries.size(); i++)
		filling_.entries[i].offset = filling_.entries[i].offset - first_offset + base;
	rows_added_ += end - from;
	return end;
}

namespace {
constexpr int kDigitBits = 8;
constexpr size_t kBuckets = size_t{1} << kDigitBits;
constexpr size_t kSmallRange = 64; /* std::sort below this */

/*
 * A sort entry whose key is packed into 96 bits (KeyPacking): 16 bytes where a SortEntry takes
 * 40, so the sort moves less than half as much and compares two words instead of four. A run's
 * keys vary in few of their 256 bits: the demo's in about 80 (the period and created times it
 * spans, the ranks of its identifiers).
 */
struct PackedEntry {
	uint64_t high; /* the packed key's first 64 bits */
	uint32_t low;  /* and its last 32 */
	uint32_t offset;
};
static_assert(sizeof(PackedEntry) == 16 && sizeof(PackedEntry) <= sizeof(SortEntry),
              "packed entries are written over the entries they come from");

inline uint64_t
KeyWord(const SortEntry &e, size_t word) noexcept
{
	return e.key.words[word];
}
inline uint64_t
KeyWord(const PackedEntry &e, size_t word) noexcept
{
	return word == 0 ? e.high : e.low;
}
template <typename Entry>
constexpr size_t kKeyWordsOf = kSortKeyWords;
template <>
constexpr size_t kKeyWordsOf<PackedEntry> = 2;

/*
 * An MSD radix sort of entries on their key words, most significant first. Each pass takes the
 * top eight of the bits that vary in the current word over the range, so the digits adapt to
 * what the run holds (a run's periods and created times span a small part of their words), and
 * distributes the range in place (an American flag sort); buckets larger than kSmallRange are
 * sorted again on the next bits. The bucket is monotonic in the word, so the order is less's.
 */
template <typename Entry, typename Less>
void
RadixSort(Entry *first, Entry *last, size_t word, Less less) noexcept
{
	constexpr size_t kWords = kKeyWordsOf<Entry>;
	while (true) {
		const size_t n = static_cast<size_t>(last - first);
		if (n <= kSmallRange) {
			std::sort(first, last, less);
			return;
		}
		uint64_t low = UINT64_MAX, high = 0;
		for (const Entry *e = first; e != last; e++) {
			low = std::min(low, KeyWord(*e, word));
			high = std::max(high, KeyWord(*e, word));
		}
		if (low == high) {
			if (++word == kWords)
				return; /* equal keys */
			continue;
		}
		const int width = 64 - __builtin_clzll(high - low);
		const int shift = width > kDigitBits ? width - kDigitBits : 0;
		const auto bucket = [low, shift, word](const Entry &e) {
			return static_cast<size_t>((KeyWord(e, word) - low) >> shift);
		};
		size_t start[kBuckets + 1] = {0};
		for (const Entry *e = first; e != last; e++)
			start[bucket(*e) + 1]++;
		for (size_t b = 0; b < kBuckets; b++)
			start[b + 1] += start[b];
		size_t next[kBuckets];
		std::copy(start, start + kBuckets, next);
		for (size_t b = 0; b < kBuckets; b++)
			while (next[b] < start[b + 1]) {
				Entry e = first[next[b]];
				for (size_t to = bucket(e); to != b; to = bucket(e))
					std::swap(e, first[next[to]++]);
				first[next[b]++] = e;
			}
		/* A bucket of one word value continues on the next word; others on this word's lower bits. */
		const size_t bucket_word = shift == 0 ? word + 1 : word;
		for (size_t b = 0; b < kBuckets; b++)
			if (start[b + 1] - start[b] > 1 && bucket_word < kWords)
				RadixSort(first + start[b], first + start[b + 1], bucket_word, less);
		return;
	}
}

/* 32-bit half h of a key's words, most significant first. */
inline uint32_t
Half(const uint64_t *words, size_t h) noexcept
{
	return static_cast<uint32_t>(words[h / 2] >> (h % 2 == 0 ? 32 : 0));
}

/* The bits of half h below its highest varying one (all of them from there down), or 0. */
inline uint32_t
VaryingMask(const KeySpread &spread, size_t h) noexcept
{
	const uint32_t bits = Half(spread.varying, h);
	return bits == 0 ? 0 : UINT32_MAX >> __builtin_clz(bits);
}

/*
 * How a run's keys pack into 96 bits: each 32-bit half of the key cut to the bits that vary over
 * the run (above its highest varying bit a half is the same in every entry), the halves in key
 * order, into the first 64 bits while they fit, then into the last 32. Only constant bits are
 * dropped, so the packed keys order as the keys do.
 */
class KeyPacking {
  public:
	static constexpr size_t kHalves = 2 * kSortKeyWords;

	explicit KeyPacking(const KeySpread &spread) noexcept
	{
		int free_bits = 64; /* left in the first 64 bits, then (once first_low_ is set) in the last 32 */
		for (size_t h = 0; h < kHalves; h++) {
			mask_[h] = VaryingMask(spread, h);
			const int width = __builtin_popcount(mask_[h]);
			if (first_low_ == kHalves && width > free_bits) {
				free_bits = 32;
				first_low_ = h;
			}
			if (width > free_bits) {
				fits_ = false;
				return;
			}
			free_bits -= width;
			shift_[h] = width == 0 ? 0 : free_bits; /* a constant half packs as 0 bits: no shift by 64 */
		}
	}

	bool Fits() const noexcept { return fits_; }

	PackedEntry Pack(const SortEntry &e) const noexcept
	{
		uint64_t high = 0, low = 0;
		for (size_t h = 0; h < first_low_; h++)
			high |= static_cast<uint64_t>(Half(e.key.words, h) & mask_[h]) << shift_[h];
		for (size_t h = first_low_; h < kHalves; h++)
			low |= static_cast<uint64_t>(Half(e.key.words, h) & mask_[h]) << shift_[h];
		return PackedEntry{high, static_cast<uint32_t>(low), static_cast<uint32_t>(e.offset)};
	}

  private:
	uint32_t mask_[kHalves] = {0};
	int shift_[kHalves] = {0};
	size_t first_low_ = kHalves;
	bool fits_ = true;
};
} // namespace

std::optional<uint32_t>
SharedId(const SortKeyPlan &plan, const KeySpread &spread, IdKind kind) noexcept
{
	if (spread.empty)
		return std::nullopt;
	for (size_t h = 0; h < 2 * kSortKeyWords; h++)
		if (plan.half_source[h] == static_cast<uint8_t>(kind))
			return Half(spread.varying, h) == 0 ? std::optional<uint32_t>(Half(spread.first.words, h)) : std::nullopt;
	return std::nullopt;
}

/*
 * Runs whose keys pack into 96 bits (KeyPacking; all but the most scattered) are sorted as
 * 16-byte entries written over the front of the entries array, and each entry's offset is then
 * put back in place, last first. Every write lands on bytes already read: packed entry i ends at
 * 16(i+1) <= 40i for i >= 1, and entry i put back covers packed entries i and later only. The
 * keys are not put back: after a sort only the offsets' order is read (WriteSorted, Read,
 * SortedRow).
 */
void
RowSorter::Run::Sort() noexcept
{
	SortEntry *const first = entries.data();
	const size_t count = entries.size();
	spread = KeySpread{};
	for (size_t i = 0; i < count; i++)
		spread.Add(first[i].key);
	const KeyPacking packing(spread);
	if (!packing.Fits() || arena.Size() > UINT32_MAX) {
		RadixSort(first, first + count, 0, [](const Entry &a, const Entry &b) { return KeyLess(a.key, b.key); });
		return;
	}
	auto *const bytes = reinterpret_cast<unsigned char *>(first);
	for (size_t i = 0; i < count; i++) {
		const PackedEntry packed = packing.Pack(first[i]);
		new (bytes + i * sizeof(PackedEntry)) PackedEntry(packed);
	}
	PackedEntry *const packed = std::launder(reinterpret_cast<PackedEntry *>(bytes));
	RadixSort(packed, packed + count, 0, [](const PackedEntry &a, const PackedEntry &b) {
		return a.high != b.high ? a.high < b.high : a.low < b.low;
	});
	for (size_t i = count; i-- > 0;) {
		const size_t offset = packed[i].offset;
		new (bytes + i * sizeof(SortEntry)) SortEntry{SortKey{}, offset};
	}
}

void
RowSorter::SortRunInBackground(int spill_fd)
{
	filling_.Swap(sorted_); /* sorted_ was written: its storage is reused for the next run */
	filling_.Clear();
	worker_error_ = 0;
	sorted_written_ = false;
	sorting_.store(true, std::memory_order_relaxed);
	try {
		worker_ = StartSignalFreeThread([this, spill_fd] {
			sorted_.Sort();
			const int result = WriteSorted(spill_fd, true);
			close(spill_fd);
			sorted_written_ = result == 0;
			worker_error_ = result == kKeptInMemory ? 0 : result;
			if (result != kKeptInMemory)
				sorted_.Clear();
			sorting_.store(false, std::memory_order_relaxed);
		});
	} catch (...) {
		sorting_.store(false, std::memory_order_relaxed);
		close(spill_fd);
		throw;
	}
}

int
RowSorter::WaitForSortedRun() noexcept
{
	if (worker_.joinable()) {
		worker_.join();
		spread_.Merge(sorted_.spread);
	}
	keep_in_memory_.store(false, std::memory_order_relaxed);
	return worker_error_;
}

void
RowSorter::SortRun() noexcept
{
	SortFillingRun();
	AdoptSortedRun();
}

void
RowSorter::SortFillingRun() noexcept
{
	filling_.Sort();
	spread_.Merge(filling_.spread);
}

void
RowSorter::AdoptSortedRun() noexcept
{
	filling_.Swap(sorted_);
	filling_.Clear();
	RewindSortedRun();
}

namespace {
/*
 * A sorted run's records lie all over its arena: reading them in order misses the cache on each
 * one. Asking for the record a few entries ahead overlaps those misses (a record may span two
 * lines). How far ahead: about the misses a core keeps in flight.
 */
constexpr size_t kPrefetchAhead = 16;

inline void
PrefetchRecord(const EncodedRows &run, size_t entry) noexcept
{
	if (entry >= run.entries.size())
		return;
	const char *record = run.arena.Data() + run.entries[entry].offset;
	__builtin_prefetch(record);
	__builtin_prefetch(record + 63);
}
} // namespace

/*
 * Gathering records in order and writing them are both copies of the run: on the worker they
 * cost the scan's thread nothing. A record larger than the gather buffer is written from the arena.
 */
int
RowSorter::WriteSortedRun(int fd) noexcept
{
	return WriteSorted(fd, false);
}

int
RowSorter::WriteSorted(int fd, bool unless_kept) noexcept
{
	off_t offset = 0;
	gather_.Clear();
	const auto flush = [&]() noexcept {
		if (unless_kept && keep_in_memory_.load(std::memory_order_relaxed))
			return kKeptInMemory;
		const int error = WriteFully(fd, gather_.Data(), gather_.Size(), offset);
		offset += static_cast<off_t>(gather_.Size());
		gather_.Clear();
		return error;
	};
	const size_t count = sorted_.entries.size();
	for (size_t i = 0; i < count; i++) {
		PrefetchRecord(sorted_, i + kPrefetchAhead);
		const char *record = sorted_.arena.Data() + sorted_.entries[i].offset;
		const size_t size = EncodedRowSize(record);
		if (gather_.Size() + size > kSpillWriteBytes) {
			if (const int error = flush())
				return error;
			if (size > kSpillWriteBytes) {
				if (const int error = WriteFully(fd, record, size, offset))
					return error;
				offset += static_cast<off_t>(size);
				continue;
			}
		}
		/* The constructor reserved kSpillWriteBytes, so this allocates nothing. */
		char *w = gather_.Reserve(size);
		std::memcpy(w, record, size);
		gather_.Commit(w + size);
	}
	return flush();
}

size_t
RowSorter::Run::Read(char *destination, size_t size) noexcept
{
	size_t copied = 0;
	while (copied < size && read_entry < entries.size()) {
		if (read_offset == 0)
			PrefetchRecord(*this, read_entry + kPrefetchAhead);
		const char *record = arena.Data() + entries[read_entry].offset;
		const size_t record_size = EncodedRowSize(record);
		const size_t n = std::min(record_size - read_offset, size - copied);
		std::memcpy(destination + copied, record + read_offset, n);
		copied += n;
		read_offset += n;
		if (read_offset == record_size) {
			read_entry++;
			read_offset = 0;
		}
	}
	return copied;
}

void
RowSorter::ClearSortedRun() noexcept
{
	sorted_.Clear();
	RewindSortedRun();
}

void
RowSorter::ReleaseAllButSortedRun() noexcept
{
	WaitForSortedRun();
	Run empty;
	filling_.Swap(empty); /* empty's destructor frees the storage */
	ReleaseWriteBuffer();
}

void
RowSorter::ReleaseWriteBuffer() noexcept
{
	OutputBuffer no_gather;
	gather_.Swap(no_gather);
}

void
RowSorter::ReleaseRuns() noexcept
{
	ReleaseAllButSortedRun();
	Run empty;
	sorted_.Swap(empty);
	RewindSortedRun();
}

RunMerger::RunMerger(SortKeyPlan plan, size_t runs, const KeySpread &spread)
    : plan_(std::move(plan)), packing_(PlanPacking(plan_, spread, runs)), cursors_(runs)
{
}

/* The halves from the least significant up, each above the bits of the ones before it and the run's. */
RunMerger::Packing
RunMerger::PlanPacking(const SortKeyPlan &plan, const KeySpread &spread, size_t runs) noexcept
{
	Packing packing;
	packing.run_bits = static_cast<uint8_t>(runs < 2 ? 0 : 64 - __builtin_clzll(runs - 1));
	int used = packing.run_bits;
	for (size_t h = 2 * kSortKeyWords; h-- > 0;) {
		const uint32_t mask = VaryingMask(spread, h);
		if (mask == 0)
			continue; /* the same in every key */
		packing.source[packing.halves] = plan.half_source[h];
		packing.mask[packing.halves] = mask;
		packing.shift[packing.halves] = static_cast<uint8_t>(std::min(used, 127));
		packing.halves++;
		used += __builtin_popcount(mask);
	}
	/* Real keys stay below 2^127, so a run without a head (all ones above its number) loses to each. */
	packing.fits = used <= 127;
	return packing;
}

bool
RunMerger::Cursor::HasRecord() const noexcept
{
	return Available() >= sizeof(uint32_t) && Available() >= EncodedRowSize(window.Data() + position);
}

size_t
RunMerger::BytesWanted(size_t run) const noexcept
{
	const Cursor &c = cursors_[run];
	if (c.exhausted)
		return 0;
	if (c.Available() < sizeof(uint32_t))
		return sizeof(uint32_t) - c.Available();
	const size_t need = EncodedRowSize(c.window.Data() + c.position);
	return c.Available() < need ? need - c.Available() : 0;
}

char *
RunMerger::FeedSpace(size_t run, size_t size)
{
	Cursor &c = cursors_[run];
	/* Drop consumed bytes first (less than a record is left when a refill is due), so a window holds about one read. */
	if (c.position > 0) {
		const size_t left = c.Available();
		std::memmove(c.window.Data(), c.window.Data() + c.position, left);
		c.window.Resize(left);
		c.position = 0;
	}
	return c.window.Reserve(size);
}

void
RunMerger::Fed(size_t run, size_t size) noexcept
{
	Cursor &c = cursors_[run];
	c.window.Resize(c.window.Size() + size);
}

namespace {
/*
 * The key of a run without a head record: above every real key, so such a run loses every match
 * without a test of its own. No row has this key: a key's 256 bits hold five 32-bit ranks and
 * the 64-bit timestamp at most, and the halves left over are zero (PlanSortKey).
 */
constexpr SortKey kNoHead = {{UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX}};
static_assert(kIdKindCount + 2 < 2 * kSortKeyWords, "a real key must keep a zero half");

/*
 * Whether a comes before b, branching only on a tie of the first two words (the period, created
 * and data element for DHIS2's order): rare, so well predicted, where a branch on the outcome
 * would be mispredicted at every other match of the tree.
 */
[[gnu::always_inline]] inline bool
KeyLessForMerge(const SortKey &a, const SortKey &b) noexcept
{
	using Pair = unsigned __int128;
	const Pair a_high = (static_cast<Pair>(a.words[0]) << 64) | a.words[1];
	const Pair b_high = (static_cast<Pair>(b.words[0]) << 64) | b.words[1];
	if (__builtin_expect(a_high != b_high, 1))
		return a_high < b_high;
	return KeyLess(a, b);
}
} // namespace

void
RunMerger::LoadHead(size_t run) noexcept
{
	Cursor &c = cursors_[run];
	c.has_head = c.HasRecord();
	if (c.has_head)
		FillRecordKey(plan_, c.window.Data() + c.position, &c.key);
	else
		c.key = kNoHead;
}

/*
 * The tree is the implicit complete binary tree of a heap with the runs as leaves runs..2*runs-1;
 * inner node n keeps the loser of the match between its children's winners.
 */
void
RunMerger::Start()
{
	if (packing_.fits && !cursors_.empty()) {
		StartPacked();
		return;
	}
	const size_t k = cursors_.size();
	for (size_t r = 0; r < k; r++)
		LoadHead(r);
	tree_.assign(k, Node{kNoHead, 0});
	winner_ = 0;
	if (k < 2)
		return;
	std::vector<size_t> winners(2 * k);
	for (size_t r = 0; r < k; r++)
		winners[k + r] = r;
	for (size_t n = k - 1; n >= 1; n--) {
		const size_t a = winners[2 * n], b = winners[2 * n + 1];
		const bool a_wins = !KeyLess(cursors_[b].key, cursors_[a].key);
		winners[n] = a_wins ? a : b;
		tree_[n] = Node{cursors_[a_wins ? b : a].key, a_wins ? b : a};
	}
	winner_ = winners[1];
}

void
RunMerger::Replay(size_t run) noexcept
{
	/* The winner so far travels up in registers; where a node's loser beats it, the two swap. */
	SortKey key = cursors_[run].key;
	size_t winner = run;
	for (size_t n = (run + cursors_.size()) / 2; n >= 1; n /= 2) {
		Node &node = tree_[n];
		const uint64_t swap = UINT64_C(0) - static_cast<uint64_t>(KeyLessForMerge(node.key, key));
		for (size_t i = 0; i < kSortKeyWords; i++) {
			const uint64_t differ = (node.key.words[i] ^ key.words[i]) & swap;
			node.key.words[i] ^= differ;
			key.words[i] ^= differ;
		}
		const size_t differ = (node.run ^ winner) & swap;
		node.run ^= differ;
		winner ^= differ;
	}
	winner_ = winner;
}

RunMerger::PackedKey
RunMerger::LoadPackedHead(size_t run) noexcept
{
	Cursor &c = cursors_[run];
	c.has_head = c.HasRecord();
	if (!c.has_head)
		return (~PackedKey{0} << packing_.run_bits) | run;
	uint32_t source[8];
	RecordKeySources(c.window.Data() + c.position, source);
	PackedKey key = run;
	for (size_t i = 0; i < packing_.halves; i++)
		key |= static_cast<PackedKey>(source[packing_.source[i]] & packing_.mask[i]) << packing_.shift[i];
	return key;
}

/* As Start, the node keeping the larger packed key (the loser) of its children's winners. */
void
RunMerger::StartPacked()
{
	const size_t k = cursors_.size();
	std::vector<PackedKey> winners(2 * k);
	for (size_t r = 0; r < k; r++)
		winners[k + r] = LoadPackedHead(r);
	packed_tree_.assign(k, 0);
	for (size_t n = k - 1; n >= 1; n--) {
		winners[n] = std::min(winners[2 * n], winners[2 * n + 1]);
		packed_tree_[n] = std::max(winners[2 * n], winners[2 * n + 1]);
	}
	winner_ = static_cast<size_t>(winners[1]) & ((size_t{1} << packing_.run_bits) - 1);
}

/* Replay with packed keys: the run's number travels in the key's low bits. */
void
RunMerger::ReplayPacked(PackedKey key) noexcept
{
	const size_t run_mask = (size_t{1} << packing_.run_bits) - 1;
	for (size_t n = ((static_cast<size_t>(key) & run_mask) + cursors_.size()) / 2; n >= 1; n /= 2) {
		PackedKey &node = packed_tree_[n];
		/* node < key on the two words with & and |: GCC compiles a 128-bit < to a branch. */
		const uint64_t node_high = static_cast<uint64_t>(node >> 64), key_high = static_cast<uint64_t>(key >> 64);
		const uint64_t node_less = static_cast<uint64_t>(node_high < key_high) |
		                           (static_cast<uint64_t>(node_high == key_high) &
		                            static_cast<uint64_t>(static_cast<uint64_t>(node) < static_cast<uint64_t>(key)));
		const PackedKey swap = PackedKey{0} - node_less;
		const PackedKey differ = (node ^ key) & swap;
		node ^= differ;
		key ^= differ;
	}
	winner_ = static_cast<size_t>(key) & run_mask;
}

DataValueRow
RunMerger::Top() const noexcept
{
	const Cursor &c = cursors_[winner_];
	return DecodeRow(c.window.Data() + c.position);
}

std::string_view
RunMerger::TopRecord() const noexcept
{
	const Cursor &c = cursors_[winner_];
	const char *record = c.window.Data() + c.position;
	return {record, EncodedRowSize(record)};
}

void
RunMerger::Pop() noexcept
{
	Cursor &c = cursors_[winner_];
	c.position += EncodedRowSize(c.window.Data() + c.position);
	c.has_head = false;
}

void
RunMerger::Reposition() noexcept
{
	if (packing_.fits) {
		ReplayPacked(LoadPackedHead(winner_));
		return;
	}
	LoadHead(winner_);
	Replay(winner_);
}

} // namespace datavalue_export::core
