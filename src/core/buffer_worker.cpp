/*
 * src/core/buffer_worker.cpp
 *	  A worker thread fed with copies of the backend's buffers; see buffer_worker.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/buffer_worker.hpp"

#include "core/worker_thread.hpp"

namespace datavalue_export::core {

std::unique_ptr<OutputBuffer>
BufferWorker::TakeSpare(std::vector<std::unique_ptr<OutputBuffer>> &spares, size_t capacity)
{
	if (spares.empty())
		return std::make_unique<OutputBuffer>(capacity);
	std::unique_ptr<OutputBuffer> buffer = std::move(spares.back());
	spares.pop_back();
	buffer->Clear();
	return buffer;
}

void
BufferWorker::Start()
{
	worker_ = StartSignalFreeThread([this] { Run(); });
}

void
BufferWorker::Stop() noexcept
{
	{
		std::lock_guard<std::mutex> lock(mutex_);
		stop_ = true;
	}
	changed_.notify_all();
	if (worker_.joinable())
		worker_.join();
}

void
BufferWorker::RethrowLocked()
{
	if (failure_)
		std::rethrow_exception(failure_);
}

void
BufferWorker::Submit(OutputBuffer &input)
{
	if (input.Empty())
		return;
	std::unique_lock<std::mutex> lock(mutex_);
	changed_.wait(lock, [this] { return pending_.size() < kMaxPending || failure_; });
	RethrowLocked();
	std::unique_ptr<OutputBuffer> copy = TakeSpare(spare_, input.Size());
	copy->Append(input.Data(), input.Size()); /* input's storage stays with this core (see the header) */
	input.Clear();
	pending_.push_back(Pending{std::move(copy), false});
	lock.unlock();
	changed_.notify_all();
}

size_t
BufferWorker::Queued()
{
	std::lock_guard<std::mutex> lock(mutex_);
	return pending_.size();
}

void
BufferWorker::QueuePlace()
{
	std::unique_lock<std::mutex> lock(mutex_);
	changed_.wait(lock, [this] { return pending_.size() < 2 * kMaxPending || failure_; });
	RethrowLocked();
	pending_.push_back(Pending{nullptr, true});
	lock.unlock();
	changed_.notify_all();
}

void
BufferWorker::Finish(std::unique_lock<std::mutex> &lock)
{
	lock = std::unique_lock<std::mutex>(mutex_);
	finish_requested_ = true;
	changed_.notify_all();
	changed_.wait(lock, [this] { return finished_ || failure_; });
	RethrowLocked();
}

void
BufferWorker::Run() noexcept
{
	for (;;) {
		Pending input{nullptr, false};
		{
			std::unique_lock<std::mutex> lock(mutex_);
			changed_.wait(lock, [this] { return stop_ || !pending_.empty() || finish_requested_; });
			if (stop_)
				return;
			if (!pending_.empty()) {
				input = std::move(pending_.front());
				pending_.pop_front();
			}
		}
		changed_.notify_all(); /* a slot is free for Submit */
		try {
			if (input.place) {
				ProcessPlace();
				continue;
			}
			if (input.buffer) {
				Process(*input.buffer);
				input.buffer->Clear();
				std::lock_guard<std::mutex> lock(mutex_);
				spare_.push_back(std::move(input.buffer));
				continue;
			}
			Complete();
			std::lock_guard<std::mutex> lock(mutex_);
			finished_ = true;
		} catch (...) {
			std::lock_guard<std::mutex> lock(mutex_);
			failure_ = std::current_exception();
		}
		changed_.notify_all();
		return;
	}
}

} // namespace datavalue_export::core
