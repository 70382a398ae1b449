/*
 * src/core/compression_thread.hpp
 *	  gzip on a second core: the export renders while a worker thread compresses.
 *
 * The backend renders the document into 256 kB buffers and, for a gzip export, used to
 * compress each one itself before sending it, so compression added its whole cost to the
 * export. Here a worker thread owns the GzipWriter (core/buffer_worker.hpp: Submit copies a
 * rendered buffer to it), Collect takes the compressed bytes made so far, Finish ends the one
 * gzip member. The worker runs zlib / ISA-L on plain buffers: no PostgreSQL call.
 *
 * May throw std::bad_alloc, std::system_error (thread creation) and what GzipWriter throws.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <memory>

#include "core/buffer_worker.hpp"
#include "core/gzip.hpp"
#include "core/output_buffer.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

class CompressionThread : public BufferWorker {
  public:
	explicit CompressionThread(std::unique_ptr<GzipWriter> gzip);
	~CompressionThread();

	/* Submit (BufferWorker): queue a copy of a rendered buffer's bytes and empty it. */
	/* Append the compressed bytes made so far to out, without waiting. */
	void Collect(OutputBuffer &out);
	/* Compress everything submitted, end the gzip member, append all remaining bytes to out. */
	void Finish(OutputBuffer &out);

  private:
	void Process(const OutputBuffer &input) override;
	void Complete() override;

	std::unique_ptr<GzipWriter> gzip_;
	OutputBuffer compressed_; /* the worker's, between its compression and the lock */
	OutputBuffer produced_;   /* under the lock: compressed, not yet collected */
};

} // namespace datavalue_export::core
