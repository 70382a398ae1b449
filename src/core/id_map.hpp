/*
 * src/core/id_map.hpp
 *	  Open-addressing map from a DHIS2 surrogate id (bigint) to a dense index.
 *
 * Every exported row carries five ids (data element, period, org unit, two option combos);
 * each is resolved through one of these maps instead of a SQL join, which is what makes the
 * row path close to a bare scan. Linear probing on a power-of-two table at most half full;
 * Densify adds a plain array indexed by id - min when the ids are nearly consecutive (DHIS2's
 * come from one sequence), so a lookup is one load instead of a hash and a probe.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

class IdMap {
  public:
	static constexpr uint32_t kNotFound = UINT32_MAX;

	IdMap() { slots_.assign(16, Slot{kEmpty, 0}); }

	/* Insert or overwrite. May throw std::bad_alloc. */
	void Put(int64_t id, uint32_t index)
	{
		if (slots_.empty())
			RestoreSlots(); /* Densify released the table */
		dense_.clear();     /* Densify again after changes */
		if (id == kEmpty) { /* the empty-slot marker is kept aside */
			has_min_ = true;
			min_index_ = index;
			return;
		}
		if ((size_ + 1) * 2 > slots_.size())
			Rehash(slots_.size() * 2);
		Slot &slot = Probe(id);
		if (slot.id == kEmpty) {
			slot.id = id;
			size_++;
		}
		slot.index = index;
	}

	uint32_t Get(int64_t id) const noexcept
	{
		if (!dense_.empty()) {
			const uint64_t offset = static_cast<uint64_t>(id) - static_cast<uint64_t>(dense_min_);
			return offset < dense_.size() ? dense_[offset] : kNotFound;
		}
		if (id == kEmpty)
			return has_min_ ? min_index_ : kNotFound;
		const size_t mask = slots_.size() - 1;
		for (size_t i = Hash(id) & mask;; i = (i + 1) & mask) {
			const Slot &slot = slots_[i];
			if (slot.id == id)
				return slot.index;
			if (slot.id == kEmpty)
				return kNotFound;
		}
	}

	bool Contains(int64_t id) const noexcept { return Get(id) != kNotFound; }

	/*
	 * Build the array lookup when the ids span at most four slots per entry (and 16M slots):
	 * call once the map is complete. Costs nothing otherwise. May throw std::bad_alloc.
	 */
	void Densify()
	{
		if (slots_.empty())
			return; /* already an array (Densify or Assign) */
		dense_.clear();
		if (size_ == 0 || has_min_)
			return;
		int64_t low = INT64_MAX, high = INT64_MIN;
		for (const Slot &slot : slots_)
			if (slot.id != kEmpty) {
				low = slot.id < low ? slot.id : low;
				high = slot.id > high ? slot.id : high;
			}
		const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) + 1;
		if (span > 4 * static_cast<uint64_t>(size_) + 64 || span > (UINT64_C(1) << 24))
			return;
		std::vector<uint32_t> dense(static_cast<size_t>(span), kNotFound);
		for (const Slot &slot : slots_)
			if (slot.id != kEmpty)
				dense[static_cast<size_t>(static_cast<uint64_t>(slot.id) - static_cast<uint64_t>(low))] = slot.index;
		dense_min_ = low;
		dense_.swap(dense);
		/*
		 * The array answers every Get: release the table (16 bytes a slot, at most half full),
		 * which for a country's 329k org units is 16 MB against the array's 1.3 MB. A later Put
		 * rebuilds it.
		 */
		std::vector<Slot>().swap(slots_);
	}
	/*
	 * The map of id_at(i) -> i for i < n (a later equal id wins, as with Put), as Densify would
	 * leave it, but without the table in between when the ids are nearly consecutive: for 329k
	 * org units the table grew to 16 MB (24 MB while rehashing) only to be released for a 1.3 MB
	 * array. May throw std::bad_alloc.
	 */
	template <typename IdAt>
	void Assign(size_t n, IdAt id_at)
	{
		*this = IdMap();
		int64_t low = INT64_MAX, high = INT64_MIN;
		for (size_t i = 0; i < n; i++) {
			const int64_t id = id_at(i);
			low = id < low ? id : low;
			high = id > high ? id : high;
		}
		const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) + 1;
		if (n == 0 || low == kEmpty || span > 4 * static_cast<uint64_t>(n) + 64 || span > (UINT64_C(1) << 24)) {
			for (size_t i = 0; i < n; i++)
				Put(id_at(i), static_cast<uint32_t>(i));
			Densify();
			return;
		}
		dense_.assign(static_cast<size_t>(span), kNotFound);
		for (size_t i = 0; i < n; i++) {
			uint32_t &slot = dense_[static_cast<size_t>(static_cast<uint64_t>(id_at(i)) - static_cast<uint64_t>(low))];
			size_ += slot == kNotFound ? 1 : 0;
			slot = static_cast<uint32_t>(i);
		}
		dense_min_ = low;
		std::vector<Slot>().swap(slots_);
	}

	/* Bytes held by the table and the array. */
	size_t MemoryBytes() const noexcept
	{
		return slots_.capacity() * sizeof(Slot) + dense_.capacity() * sizeof(uint32_t);
	}
	size_t Size() const noexcept { return size_ + (has_min_ ? 1 : 0); }

  private:
	static constexpr int64_t kEmpty = INT64_MIN;
	struct Slot {
		int64_t id;
		uint32_t index;
	};

	static size_t Hash(int64_t id) noexcept
	{
		return static_cast<size_t>((static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ULL) >> 20);
	}

	Slot &Probe(int64_t id) noexcept
	{
		const size_t mask = slots_.size() - 1;
		for (size_t i = Hash(id) & mask;; i = (i + 1) & mask)
			if (slots_[i].id == id || slots_[i].id == kEmpty)
				return slots_[i];
	}

	/* The table again from the array (Densify released it), for a Put. */
	void RestoreSlots()
	{
		std::vector<uint32_t> dense;
		dense.swap(dense_);
		slots_.assign(16, Slot{kEmpty, 0});
		size_ = 0;
		for (size_t offset = 0; offset < dense.size(); offset++)
			if (dense[offset] != kNotFound)
				Put(static_cast<int64_t>(static_cast<uint64_t>(dense_min_) + offset), dense[offset]);
	}

	void Rehash(size_t capacity)
	{
		std::vector<Slot> old(capacity, Slot{kEmpty, 0});
		old.swap(slots_);
		size_ = 0;
		for (const Slot &slot : old)
			if (slot.id != kEmpty) {
				Probe(slot.id) = slot;
				size_++;
			}
	}

	std::vector<Slot> slots_;
	std::vector<uint32_t> dense_; /* empty unless Densify found the ids nearly consecutive */
	int64_t dense_min_ = 0;
	size_t size_ = 0;
	bool has_min_ = false;
	uint32_t min_index_ = 0;
};

} // namespace datavalue_export::core
