/*
 * src/core/render_thread.cpp
 *	  Rendering the merged rows on a second core; see render_thread.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/render_thread.hpp"

#include <algorithm>

#include "core/row_sorter.hpp"
#include "core/worker_thread.hpp"

namespace datavalue_export::core {

RenderThread::RenderThread(Writer &writer, size_t flush_bytes, OutputBuffer &prefix)
    : writer_(writer), flush_bytes_(flush_bytes),
      first_text_(std::make_unique<OutputBuffer>(std::max(flush_bytes, prefix.Size()) + 64 * 1024))
{
	if (!prefix.Empty())
		first_text_->Append(prefix.Data(), prefix.Size());
	prefix.Clear();
	worker_ = StartSignalFreeThread([this] { Run(); });
}

RenderThread::~RenderThread()
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
RenderThread::RethrowLocked()
{
	if (failure_)
		std::rethrow_exception(failure_);
}

void
RenderThread::Submit(OutputBuffer &batch)
{
	if (batch.Empty())
		return;
	std::unique_lock<std::mutex> lock(mutex_);
	changed_.wait(lock, [this] { return pending_.size() < kMaxPending || failure_; });
	RethrowLocked();
	std::unique_ptr<OutputBuffer> copy;
	if (spare_batches_.empty())
		copy = std::make_unique<OutputBuffer>(batch.Size());
	else {
		copy = std::move(spare_batches_.back());
		spare_batches_.pop_back();
	}
	/* A copy, so that the batch the backend fills stays in its own core's cache. */
	copy->Clear();
	copy->Append(batch.Data(), batch.Size());
	batch.Clear();
	pending_.push_back(std::move(copy));
	lock.unlock();
	changed_.notify_all();
}

std::unique_ptr<OutputBuffer>
RenderThread::TakeRendered()
{
	std::lock_guard<std::mutex> lock(mutex_);
	RethrowLocked();
	if (rendered_.empty())
		return nullptr;
	std::unique_ptr<OutputBuffer> text = std::move(rendered_.front());
	rendered_.pop_front();
	return text;
}

void
RenderThread::Recycle(std::unique_ptr<OutputBuffer> buffer)
{
	buffer->Clear();
	std::lock_guard<std::mutex> lock(mutex_);
	spare_texts_.push_back(std::move(buffer));
}

void
RenderThread::Finish()
{
	std::unique_lock<std::mutex> lock(mutex_);
	finish_requested_ = true;
	changed_.notify_all();
	changed_.wait(lock, [this] { return finished_ || failure_; });
	RethrowLocked();
}

std::unique_ptr<OutputBuffer>
RenderThread::SpareLocked()
{
	if (spare_texts_.empty())
		return std::make_unique<OutputBuffer>(flush_bytes_ + 64 * 1024);
	std::unique_ptr<OutputBuffer> text = std::move(spare_texts_.back());
	spare_texts_.pop_back();
	return text;
}

/* Render one batch into text, handing text over (and taking a spare) each time it is full. */
void
RenderThread::RenderBatch(const OutputBuffer &batch, std::unique_ptr<OutputBuffer> &text)
{
	const char *p = batch.Data();
	const char *end = p + batch.Size();
	while (p < end) {
		writer_.WriteRow(DecodeRow(p), *text);
		p += EncodedRowSize(p);
		if (text->Size() >= flush_bytes_) {
			std::lock_guard<std::mutex> lock(mutex_);
			rendered_.push_back(std::move(text));
			text = SpareLocked();
		}
	}
}

void
RenderThread::Run() noexcept
{
	std::unique_ptr<OutputBuffer> text = std::move(first_text_);
	for (;;) {
		std::unique_ptr<OutputBuffer> batch;
		{
			std::unique_lock<std::mutex> lock(mutex_);
			changed_.wait(lock, [this] { return stop_ || !pending_.empty() || finish_requested_; });
			if (stop_)
				return;
			if (!pending_.empty()) {
				batch = std::move(pending_.front());
				pending_.pop_front();
			}
		}
		changed_.notify_all(); /* a batch slot is free */
		try {
			if (batch) {
				RenderBatch(*batch, text);
				std::lock_guard<std::mutex> lock(mutex_);
				batch->Clear();
				spare_batches_.push_back(std::move(batch));
				continue;
			}
			/* Finish requested and nothing pending: hand over the last text. */
			std::lock_guard<std::mutex> lock(mutex_);
			if (!text->Empty())
				rendered_.push_back(std::move(text));
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
