/*
 * src/core/buffer_worker.hpp
 *	  A worker thread fed with copies of the backend's buffers: what the compression thread and
 *	  the render thread share.
 *
 * Submit copies the caller's buffer into one of the worker's and empties it; the worker hands
 * each to Process, in order, and after Finish calls Complete once. At most kMaxPending buffers
 * wait, so memory stays at a few buffers and the caller waits only when the worker is behind.
 *
 * Submit copies rather than swapping buffers with the worker: a buffer the other core has just
 * read makes every write into it a cross-core cache miss, and rendering into recycled buffers
 * made an ordered 1M export's merge phase take 270 ms of the backend's CPU instead of 150 ms
 * (the copy costs a few percent of that).
 *
 * The worker runs core code only, with every signal blocked (worker_thread.hpp), so PostgreSQL's
 * signal handlers keep running on the backend's own thread. A failure in it is rethrown by the
 * next call on the caller's thread. A derived class starts the worker at the end of its
 * constructor (Start) and stops it first thing in its destructor (Stop): the worker calls its
 * Process and Complete, so it must be joined before the derived members go. A cancelled or
 * failed export (its state deleted by a memory context reset callback) so frees everything.
 *
 * May throw std::bad_alloc, std::system_error (thread creation) and what Process and Complete throw.
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

#include "core/output_buffer.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

class BufferWorker {
  public:
	static constexpr size_t kMaxPending = 2;

	BufferWorker(const BufferWorker &) = delete;
	BufferWorker &operator=(const BufferWorker &) = delete;

	/* Queue a copy of input's bytes and empty input. Waits while kMaxPending buffers are queued. */
	void Submit(OutputBuffer &input);
	/* How many buffers wait for the worker (Submit waits at kMaxPending). */
	size_t Queued();

  protected:
	BufferWorker() = default;
	~BufferWorker() { Stop(); }

	/* On the worker, without the lock: one submitted buffer, in order. */
	virtual void Process(const OutputBuffer &input) = 0;
	/* On the worker, without the lock: after the last buffer, once Finish was asked for. */
	virtual void Complete() = 0;
	/* On the worker, without the lock: a place queued with QueuePlace, reached in order. */
	virtual void ProcessPlace() {}

	/*
	 * Queue a place among the submitted buffers, for work the caller did itself (ProcessPlace
	 * runs when the worker reaches it). Waits while 2 * kMaxPending are queued, so a caller that
	 * queues places while the worker is behind stays bounded.
	 */
	void QueuePlace();

	/* An emptied buffer from spares, or a new one of the given capacity. */
	static std::unique_ptr<OutputBuffer> TakeSpare(std::vector<std::unique_ptr<OutputBuffer>> &spares, size_t capacity);

	void Start();
	/* Stop and join the worker; what is still queued is dropped. */
	void Stop() noexcept;
	/* Wait until Complete has run. Takes the lock (held on return): the caller may then read results. */
	void Finish(std::unique_lock<std::mutex> &lock);
	/* With the lock held: rethrow the worker's failure, if any. */
	void RethrowLocked();

	std::mutex mutex_; /* guards everything the two threads share, the derived class's results too */

  private:
	void Run() noexcept;

	std::condition_variable changed_;
	struct Pending {
		std::unique_ptr<OutputBuffer> buffer; /* a submitted copy, or nullptr for a place */
		bool place;                           /* by QueuePlace: for ProcessPlace */
	};
	std::deque<Pending> pending_;
	std::vector<std::unique_ptr<OutputBuffer>> spare_;
	std::exception_ptr failure_;
	bool finish_requested_ = false;
	bool finished_ = false;
	bool stop_ = false;
	std::thread worker_;
};

} // namespace datavalue_export::core
