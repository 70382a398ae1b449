/*
 * src/core/identifier_list.hpp
 *	  The metadata objects of one kind with their identifiers, packed for a whole country.
 *
 * An export holds every org unit it selects (329k in a country with children) until it ends:
 * as one Identifier each (an id, two std::strings, an optional and the ADX detail: 120 bytes,
 * up to twice that in a growing vector) they were a third of the export's memory. Here an
 * object is 25 bytes plus its texts' bytes in one shared buffer, the uid stored once when it
 * is also the text (the UID scheme), and the ADX detail only for the lists that have one.
 *
 * May throw std::bad_alloc and std::length_error (past 4 GB of identifier text).
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* One metadata object with its identifier under the output id scheme (nullopt = no value). */
struct Identifier {
	int64_t id;
	std::optional<std::string> text;
	bool is_default = false; /* the default category option combo */
	std::string uid;         /* for messages about the object */
	IdentifierDetail detail; /* ADX: category pairs of option combos, value type of data elements */
};

/* An object of an IdentifierList, read back: the views are valid until the list changes. */
struct IdentifierRef {
	int64_t id;
	std::optional<std::string_view> text;
	bool is_default;
	std::string_view uid;
	const IdentifierDetail *detail; /* never null (an empty detail when the list has none) */
};

class IdentifierList {
  public:
	IdentifierList() = default;
	IdentifierList(std::initializer_list<Identifier> objects)
	{
		for (const Identifier &object : objects)
			push_back(object);
	}

	/*
	 * Append an object; its detail is empty. text and uid must not view this list's own bytes
	 * (appending may move them; SetText is the one that takes such a view).
	 */
	void Add(int64_t id, std::optional<std::string_view> text, bool is_default = false, std::string_view uid = {})
	{
		Slot slot{id, 0, 0, 0, 0};
		if (text) {
			slot.text_offset = Append(*text);
			slot.text_length = static_cast<uint32_t>(text->size());
		}
		if (text && uid == *text) { /* the UID scheme: the uid is the text */
			slot.uid_offset = slot.text_offset;
			slot.uid_length = slot.text_length;
		} else if (!uid.empty()) {
			slot.uid_offset = Append(uid);
			slot.uid_length = static_cast<uint32_t>(uid.size());
		}
		slots_.push_back(slot);
		flags_.push_back(static_cast<uint8_t>((text ? kHasText : 0) | (is_default ? kIsDefault : 0)));
		if (!details_.empty())
			details_.emplace_back();
	}

	void push_back(const Identifier &object)
	{
		Add(object.id, object.text ? std::optional<std::string_view>(*object.text) : std::nullopt, object.is_default,
		    object.uid);
		if (!object.detail.categories.empty() || object.detail.non_numeric)
			MutableDetail(slots_.size() - 1) = object.detail;
	}

	size_t size() const noexcept { return slots_.size(); }
	bool empty() const noexcept { return slots_.empty(); }

	int64_t Id(size_t i) const noexcept { return slots_[i].id; }
	bool HasText(size_t i) const noexcept { return (flags_[i] & kHasText) != 0; }

	IdentifierRef operator[](size_t i) const noexcept
	{
		const Slot &slot = slots_[i];
		const std::string_view bytes(bytes_);
		IdentifierRef ref{slot.id, std::nullopt, (flags_[i] & kIsDefault) != 0,
		                  bytes.substr(slot.uid_offset, slot.uid_length), &kNoDetail};
		if (HasText(i))
			ref.text = bytes.substr(slot.text_offset, slot.text_length);
		if (!details_.empty())
			ref.detail = &details_[i];
		return ref;
	}

	/* The detail of object i, to fill in (ADX); the list keeps a detail per object from then on. */
	IdentifierDetail &MutableDetail(size_t i)
	{
		if (details_.empty())
			details_.resize(slots_.size());
		return details_[i];
	}

	/* Replace the text of object i (ADX: a combo's text says only whether its categories are complete). */
	void SetText(size_t i, std::optional<std::string_view> text)
	{
		Slot &slot = slots_[i];
		flags_[i] = static_cast<uint8_t>(text ? flags_[i] | kHasText : flags_[i] & ~kHasText);
		if (!text)
			return;
		slot.text_length = static_cast<uint32_t>(text->size());
		/* A view into the list (an object's uid) is used in place: bytes_ only grows. */
		const std::less_equal<const char *> before;
		if (before(bytes_.data(), text->data()) && before(text->data() + text->size(), bytes_.data() + bytes_.size()))
			slot.text_offset = static_cast<uint32_t>(text->data() - bytes_.data());
		else
			slot.text_offset = Append(*text);
	}

	/*
	 * Put the objects in a new order: order[k] is the index of the object to be k-th, each
	 * index once. Their texts stay where they are.
	 */
	void Permute(const std::vector<uint32_t> &order)
	{
		if (order.size() != slots_.size())
			throw std::invalid_argument("a permutation of an IdentifierList must name every object");
		std::vector<Slot> slots(order.size());
		std::vector<uint8_t> flags(order.size());
		std::vector<IdentifierDetail> details(details_.empty() ? 0 : order.size());
		for (size_t k = 0; k < order.size(); k++) {
			slots[k] = slots_[order[k]];
			flags[k] = flags_[order[k]];
			if (!details.empty())
				details[k] = std::move(details_[order[k]]);
		}
		slots_.swap(slots);
		flags_.swap(flags);
		details_.swap(details);
	}

	void clear() noexcept
	{
		slots_.clear();
		flags_.clear();
		bytes_.clear();
		details_.clear();
	}

	void reserve(size_t n)
	{
		slots_.reserve(n);
		flags_.reserve(n);
	}

	class const_iterator {
	  public:
		const_iterator(const IdentifierList *list, size_t i) : list_(list), i_(i) {}
		IdentifierRef operator*() const noexcept { return (*list_)[i_]; }
		const_iterator &operator++() noexcept
		{
			i_++;
			return *this;
		}
		bool operator!=(const const_iterator &other) const noexcept { return i_ != other.i_; }

	  private:
		const IdentifierList *list_;
		size_t i_;
	};
	const_iterator begin() const noexcept { return const_iterator(this, 0); }
	const_iterator end() const noexcept { return const_iterator(this, slots_.size()); }

	/* Bytes held, for tests and measurements. */
	size_t MemoryBytes() const noexcept
	{
		return slots_.capacity() * sizeof(Slot) + flags_.capacity() + bytes_.capacity() +
		       details_.capacity() * sizeof(IdentifierDetail);
	}

  private:
	static constexpr uint8_t kHasText = 1;
	static constexpr uint8_t kIsDefault = 2;
	static inline const IdentifierDetail kNoDetail{};

	struct Slot {
		int64_t id;
		uint32_t text_offset;
		uint32_t text_length;
		uint32_t uid_offset;
		uint32_t uid_length;
	};

	uint32_t Append(std::string_view text)
	{
		if (bytes_.size() + text.size() > UINT32_MAX)
			throw std::length_error("identifier text exceeds 4 GB");
		const uint32_t offset = static_cast<uint32_t>(bytes_.size());
		bytes_.append(text);
		return offset;
	}

	std::vector<Slot> slots_;
	std::vector<uint8_t> flags_;
	std::string bytes_;                     /* every text and uid, back to back */
	std::vector<IdentifierDetail> details_; /* empty, or one per object */
};

} // namespace datavalue_export::core
