/*
 * src/core/writer_fragments.hpp
 *	  What every format writer shares on its hot path: the table of pre-rendered identifier
 *	  fragments and the unchecked byte copy into reserved output.
 *
 * A fragment is the exact bytes one identifier adds to a row in one format (for JSON the key,
 * the punctuation before it and the escaped string; for CSV the quoted field and its comma),
 * rendered once per export by the writer. The table also tracks the longest fragment of each
 * kind, so a writer can bound a row's size before reserving space for it.
 *
 * Never throws except std::bad_alloc from Add.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* Copy s to w (which has room for it); returns the end. */
inline char *
Put(char *w, std::string_view s) noexcept
{
	std::memcpy(w, s.data(), s.size());
	return w + s.size();
}

class IdentifierFragments {
  public:
	/* Append the fragment of the next identifier of kind; returns its index. */
	uint32_t Add(IdKind kind, std::string_view fragment)
	{
		Table &table = tables_[static_cast<size_t>(kind)];
		table.bytes.resize(table.offsets.back()); /* drop the padding */
		table.bytes.append(fragment);
		table.offsets.push_back(static_cast<uint32_t>(table.bytes.size()));
		table.bytes.append(kChunk, '\0');
		if (fragment.size() > table.max_length) {
			max_total_ += fragment.size() - table.max_length;
			table.max_length = fragment.size();
		}
		return static_cast<uint32_t>(table.offsets.size() - 2);
	}

	/*
	 * The fragments of a row's identifiers, in IdKind order. Each is copied in whole 16-byte
	 * chunks (fragments are a few dozen bytes; fixed-size copies are plain moves, where a
	 * memcpy of a variable length is a call): up to 15 bytes past a fragment are read (the
	 * tables end in padding) and written, so w needs MaxTotal() + kChunk bytes of room; the
	 * next bytes written overwrite the excess.
	 */
	char *PutAll(char *w, const DataValueRow &row) const noexcept
	{
		for (size_t k = 0; k < kIdKindCount; k++) {
			const Table &table = tables_[k];
			const uint32_t start = table.offsets[row.ids[k]];
			const uint32_t length = table.offsets[row.ids[k] + 1] - start;
			const char *from = table.bytes.data() + start;
			for (uint32_t i = 0; i < length; i += kChunk)
				std::memcpy(w + i, from + i, kChunk);
			w += length;
		}
		return w;
	}

	/* The fragment of one identifier (formats that place identifiers apart, ADX). */
	std::string_view Get(IdKind kind, uint32_t index) const noexcept
	{
		return tables_[static_cast<size_t>(kind)].Get(index);
	}

	/* How many identifiers of kind were added. */
	size_t Count(IdKind kind) const noexcept { return tables_[static_cast<size_t>(kind)].offsets.size() - 1; }

	/* Sum of the longest fragment of each kind: what a row's identifiers need at most. */
	size_t MaxTotal() const noexcept { return max_total_; }

	/* Extra room PutAll needs after the fragments (see there). */
	static constexpr size_t kChunk = 16;

  private:
	struct Table {
		std::string bytes;                /* the fragments, then kChunk bytes of padding */
		std::vector<uint32_t> offsets{0}; /* fragment i is bytes[offsets[i], offsets[i+1]) */
		size_t max_length = 0;
		std::string_view Get(uint32_t i) const noexcept
		{
			return std::string_view(bytes).substr(offsets[i], offsets[i + 1] - offsets[i]);
		}
	};

	Table tables_[kIdKindCount];
	size_t max_total_ = 0;
};

} // namespace datavalue_export::core
