/*
 * src/core/compression_thread.cpp
 *	  gzip on a second core; see compression_thread.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/compression_thread.hpp"

#include "core/worker_thread.hpp"

namespace datavalue_export::core {

CompressionThread::CompressionThread(std::unique_ptr<GzipWriter> gzip) : gzip_(std::move(gzip))
{
	worker_ = StartSignalFreeThread([this] { Run(); });
}

CompressionThread::~CompressionThread()
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
CompressionThread::RethrowLocked()
{
	if (failure_)
		std::rethrow_exception(failure_);
}

void
CompressionThread::Submit(OutputBuffer &text)
{
	if (text.Empty())
		return;
	std::unique_lock<std::mutex> lock(mutex_);
	changed_.wait(lock, [this] { return pending_.size() < kMaxPending || failure_; });
	RethrowLocked();
	std::unique_ptr<OutputBuffer> buffer;
	if (spare_.empty())
		buffer = std::make_unique<OutputBuffer>();
	else {
		buffer = std::move(spare_.back());
		spare_.pop_back();
	}
	buffer->Clear();
	buffer->Append(text.Data(), text.Size()); /* text's storage stays with this core (see the header) */
	text.Clear();
	pending_.push_back(std::move(buffer));
	lock.unlock();
	changed_.notify_all();
}

void
CompressionThread::Collect(OutputBuffer &out)
{
	std::lock_guard<std::mutex> lock(mutex_);
	RethrowLocked();
	if (!produced_.Empty()) {
		out.Append(produced_.View());
		produced_.Clear();
	}
}

void
CompressionThread::Finish(OutputBuffer &out)
{
	std::unique_lock<std::mutex> lock(mutex_);
	finish_requested_ = true;
	changed_.notify_all();
	changed_.wait(lock, [this] { return finished_ || failure_; });
	RethrowLocked();
	out.Append(produced_.View());
	produced_.Clear();
}

void
CompressionThread::Run() noexcept
{
	OutputBuffer compressed;
	for (;;) {
		std::unique_ptr<OutputBuffer> input;
		bool finish = false;
		{
			std::unique_lock<std::mutex> lock(mutex_);
			changed_.wait(lock, [this] { return stop_ || !pending_.empty() || finish_requested_; });
			if (stop_)
				return;
			if (!pending_.empty()) {
				input = std::move(pending_.front());
				pending_.pop_front();
			} else
				finish = true;
		}
		try {
			compressed.Clear();
			if (finish)
				gzip_->Finish(compressed);
			else
				gzip_->Write(input->Data(), input->Size(), compressed);
			std::lock_guard<std::mutex> lock(mutex_);
			produced_.Append(compressed.View());
			if (input) {
				input->Clear();
				spare_.push_back(std::move(input));
			}
			if (finish)
				finished_ = true;
		} catch (...) {
			std::lock_guard<std::mutex> lock(mutex_);
			failure_ = std::current_exception();
		}
		changed_.notify_all();
		if (finish || failure_)
			return;
	}
}

} // namespace datavalue_export::core
