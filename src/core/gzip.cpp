/*
 * src/core/gzip.cpp
 *	  RawDeflater over ISA-L igzip or zlib, and GzipWriter around it; see gzip.hpp for the format decisions.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/gzip.hpp"

#include <cstring>
#include <string>
#include <vector>

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include "core/error.hpp"

namespace datavalue_export::core {

namespace {
constexpr unsigned char kJavaGzipHeader[10] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff};
/* Output room asked for per engine call; deflate never needs more than this beyond the input size. */
constexpr size_t kSlack = 64 * 1024;

size_t
IsalLevelBufSize(int level)
{
	switch (level) {
	case 1:
		return ISAL_DEF_LVL1_DEFAULT;
	case 2:
		return ISAL_DEF_LVL2_DEFAULT;
	case 3:
		return ISAL_DEF_LVL3_DEFAULT;
	default:
		return 0;
	}
}
} // namespace

struct RawDeflater::Impl {
	GzipEngine engine;
	isal_zstream isal{};
	std::vector<uint8_t> isal_level_buf;
	z_stream zlib{};
	bool zlib_initialised = false;

	~Impl()
	{
		if (zlib_initialised)
			deflateEnd(&zlib);
	}
};

RawDeflater::RawDeflater(GzipEngine engine, int level) : impl_(new Impl)
{
	impl_->engine = engine;
	if (engine == GzipEngine::kIsal) {
		if (level < 0 || level > 3)
			throw Error(sqlstate::kInvalidParameterValue, "ISA-L gzip level must be between 0 and 3");
		isal_deflate_init(&impl_->isal);
		impl_->isal.level = static_cast<uint32_t>(level);
		impl_->isal.gzip_flag = IGZIP_DEFLATE;
		impl_->isal_level_buf.resize(IsalLevelBufSize(level));
		if (!impl_->isal_level_buf.empty()) {
			impl_->isal.level_buf = impl_->isal_level_buf.data();
			impl_->isal.level_buf_size = static_cast<uint32_t>(impl_->isal_level_buf.size());
		}
		impl_->isal.flush = NO_FLUSH;
	} else {
		if (level < 1 || level > 9)
			throw Error(sqlstate::kInvalidParameterValue, "compression level must be between 1 and 9");
		/* Raw deflate (negative window bits); the gzip framing is ours so that it matches Java. */
		if (deflateInit2(&impl_->zlib, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			throw std::bad_alloc();
		impl_->zlib_initialised = true;
	}
}

RawDeflater::~RawDeflater() = default;

void
RawDeflater::Write(const char *data, size_t size, OutputBuffer &out)
{
	/* The engines count input in 32 bits: feed very large inputs in pieces. */
	constexpr size_t kMaxPiece = size_t{1} << 30;
	while (size > kMaxPiece) {
		Write(data, kMaxPiece, out);
		data += kMaxPiece;
		size -= kMaxPiece;
	}
	if (size == 0)
		return;
	crc_ = crc32_gzip_refl(crc_, reinterpret_cast<const unsigned char *>(data), size);
	input_bytes_ += size;

	if (impl_->engine == GzipEngine::kIsal) {
		isal_zstream &s = impl_->isal;
		s.next_in = reinterpret_cast<uint8_t *>(const_cast<char *>(data));
		s.avail_in = static_cast<uint32_t>(size);
		s.end_of_stream = 0;
		while (s.avail_in > 0) {
			const size_t room = s.avail_in + kSlack;
			s.next_out = reinterpret_cast<uint8_t *>(out.Reserve(room));
			s.avail_out = static_cast<uint32_t>(room);
			if (isal_deflate(&s) != COMP_OK)
				throw Error(sqlstate::kInternalError, "gzip compression failed");
			out.Commit(reinterpret_cast<char *>(s.next_out));
		}
	} else {
		z_stream &s = impl_->zlib;
		s.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data));
		s.avail_in = static_cast<uInt>(size);
		while (s.avail_in > 0) {
			const size_t room = deflateBound(&s, s.avail_in) + kSlack;
			s.next_out = reinterpret_cast<Bytef *>(out.Reserve(room));
			s.avail_out = static_cast<uInt>(room);
			if (deflate(&s, Z_NO_FLUSH) == Z_STREAM_ERROR)
				throw Error(sqlstate::kInternalError, "gzip compression failed");
			out.Commit(reinterpret_cast<char *>(s.next_out));
		}
	}
}

void
RawDeflater::Finish(OutputBuffer &out)
{
	if (impl_->engine == GzipEngine::kIsal) {
		isal_zstream &s = impl_->isal;
		s.next_in = nullptr;
		s.avail_in = 0;
		s.end_of_stream = 1;
		do {
			s.next_out = reinterpret_cast<uint8_t *>(out.Reserve(kSlack));
			s.avail_out = static_cast<uint32_t>(kSlack);
			if (isal_deflate(&s) != COMP_OK)
				throw Error(sqlstate::kInternalError, "gzip compression failed");
			out.Commit(reinterpret_cast<char *>(s.next_out));
		} while (s.internal_state.state != ZSTATE_END);
	} else {
		z_stream &s = impl_->zlib;
		int rc;
		do {
			s.next_out = reinterpret_cast<Bytef *>(out.Reserve(kSlack));
			s.avail_out = static_cast<uInt>(kSlack);
			rc = deflate(&s, Z_FINISH);
			if (rc == Z_STREAM_ERROR)
				throw Error(sqlstate::kInternalError, "gzip compression failed");
			out.Commit(reinterpret_cast<char *>(s.next_out));
		} while (rc != Z_STREAM_END);
	}
}

GzipWriter::GzipWriter(GzipEngine engine, int level) : deflater_(engine, level) {}

GzipWriter::~GzipWriter() = default;

void
GzipWriter::Write(const char *data, size_t size, OutputBuffer &out)
{
	if (!header_written_) {
		out.Append(reinterpret_cast<const char *>(kJavaGzipHeader), sizeof kJavaGzipHeader);
		header_written_ = true;
	}
	deflater_.Write(data, size, out);
}

void
GzipWriter::Finish(OutputBuffer &out)
{
	if (!header_written_)
		Write(nullptr, 0, out);
	deflater_.Finish(out);
	unsigned char trailer[8];
	const uint32_t crc = deflater_.Crc();
	const uint32_t isize = static_cast<uint32_t>(deflater_.InputBytes());
	for (int i = 0; i < 4; i++) {
		trailer[i] = static_cast<unsigned char>(crc >> (8 * i));
		trailer[4 + i] = static_cast<unsigned char>(isize >> (8 * i));
	}
	out.Append(reinterpret_cast<const char *>(trailer), sizeof trailer);
}

} // namespace datavalue_export::core
