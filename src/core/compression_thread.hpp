/*
 * src/core/compression_thread.hpp
 *	  gzip on a second core: the export renders while a worker thread compresses.
 *
 * The backend renders the document into 256 kB buffers and, for a gzip export, used to
 * compress each one itself before sending it, so compression added its whole cost to the
 * export. Here a worker thread owns the GzipWriter: Submit copies a rendered buffer into one of
 * the worker's, Collect takes the compressed bytes made so far, Finish ends the one gzip member.
 * At most kMaxPending buffers wait, so memory stays at a few buffers and the renderer waits
 * only when the worker is behind.
 *
 * Submit copies rather than swapping buffers with the worker: a buffer the other core has just
 * read makes every write into it a cross-core cache miss, and rendering into recycled buffers
 * made an ordered 1M export's merge phase take 270 ms of the backend's CPU instead of 150 ms
 * (the copy costs a few percent of that).
 *
 * The worker runs core code only (zlib / ISA-L on plain buffers): no PostgreSQL call, and all
 * signals blocked, so PostgreSQL's signal handlers keep running on the backend's own thread.
 * A failure in the worker is rethrown by the next call on the backend's thread. The destructor
 * stops and joins the worker, so a cancelled or failed export (its state deleted by a memory
 * context reset callback) frees everything.
 *
 * May throw std::bad_alloc, std::system_error (thread creation) and what GzipWriter throws.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/gzip.hpp"
#include "core/output_buffer.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

class CompressionThread {
  public:
	static constexpr size_t kMaxPending = 2;

	explicit CompressionThread(std::unique_ptr<GzipWriter> gzip);
	~CompressionThread();
	CompressionThread(const CompressionThread &) = delete;
	CompressionThread &operator=(const CompressionThread &) = delete;

	/* Queue a copy of text's bytes and empty text. Waits while kMaxPending buffers are queued. */
	void Submit(OutputBuffer &text);
	/* Append the compressed bytes made so far to out, without waiting. */
	void Collect(OutputBuffer &out);
	/* Compress everything submitted, end the gzip member, append all remaining bytes to out. */
	void Finish(OutputBuffer &out);

  private:
	void Run() noexcept;
	void RethrowLocked();

	std::unique_ptr<GzipWriter> gzip_;
	std::mutex mutex_;
	std::condition_variable changed_;
	std::deque<std::unique_ptr<OutputBuffer>> pending_;
	std::vector<std::unique_ptr<OutputBuffer>> spare_;
	OutputBuffer produced_;
	std::exception_ptr failure_;
	bool finish_requested_ = false;
	bool finished_ = false;
	bool stop_ = false;
	std::thread worker_;
};

} // namespace datavalue_export::core
