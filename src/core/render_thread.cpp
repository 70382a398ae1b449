/*
 * src/core/render_thread.cpp
 *	  Rendering the merged rows on a second core; see render_thread.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/render_thread.hpp"

#include <algorithm>

#include "core/row_sorter.hpp"

namespace datavalue_export::core {

RenderThread::RenderThread(Writer &writer, size_t flush_bytes, OutputBuffer &prefix, bool render_here_too)
    : writer_(writer), fork_(render_here_too ? writer.ForkForLaterRows() : nullptr), flush_bytes_(flush_bytes),
      text_(std::make_unique<OutputBuffer>(std::max(flush_bytes, prefix.Size()) + 64 * 1024))
{
	if (!prefix.Empty())
		text_->Append(prefix.Data(), prefix.Size());
	prefix.Clear();
	Start();
}

RenderThread::~RenderThread()
{
	Stop();
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
	std::lock_guard<std::mutex> lock(mutex_);
	spare_texts_.push_back(std::move(buffer));
}

void
RenderThread::RenderHere(OutputBuffer &batch)
{
	if (batch.Empty())
		return;
	if (!submitted_rows_ || fork_ == nullptr) {
		Submit(batch);
		return;
	}
	/* Cut like the worker's text, so every buffer in circulation stays about flush_bytes. */
	std::vector<std::unique_ptr<OutputBuffer>> texts;
	std::unique_ptr<OutputBuffer> text;
	const auto take_spare = [this, &text] {
		std::lock_guard<std::mutex> lock(mutex_);
		RethrowLocked();
		text = TakeSpareText();
	};
	take_spare();
	for (const char *p = batch.Data(), *end = p + batch.Size(); p < end; p += EncodedRowSize(p)) {
		fork_->WriteRow(DecodeRow(p), *text);
		if (text->Size() >= flush_bytes_) {
			texts.push_back(std::move(text));
			take_spare();
		}
	}
	batch.Clear();
	{
		std::lock_guard<std::mutex> lock(mutex_);
		/*
		 * A batch whose last row filled a text leaves the spare taken after it unused: back to
		 * the pool. Dropped, it was made again and grown again row by row, and with long rows
		 * (each text some hundreds of kB) that churn fragmented the two threads' heaps: 340 MB
		 * for the merge of 3,000 rows of two 50,000-character texts, 55 MB without the thread.
		 */
		if (text->Empty())
			spare_texts_.push_back(std::move(text));
		else
			texts.push_back(std::move(text));
		rendered_here_.push_back(std::move(texts));
	}
	QueuePlace(); /* ProcessPlace takes the texts when the worker gets there */
}

void
RenderThread::Finish()
{
	std::unique_lock<std::mutex> lock;
	BufferWorker::Finish(lock);
	if (fork_)
		writer_.CountForkRows(*fork_);
}

size_t
RenderThread::TextsMade()
{
	std::lock_guard<std::mutex> lock(mutex_);
	return texts_made_;
}

std::unique_ptr<OutputBuffer>
RenderThread::TakeSpareText()
{
	texts_made_ += spare_texts_.empty();
	return TakeSpare(spare_texts_, flush_bytes_ + 64 * 1024);
}

void
RenderThread::HandOverText()
{
	rendered_.push_back(std::move(text_));
	text_ = TakeSpareText();
}

/* Render one batch, handing the text over (and taking a spare) each time it is full. */
void
RenderThread::Process(const OutputBuffer &batch)
{
	const char *p = batch.Data();
	const char *end = p + batch.Size();
	while (p < end) {
		writer_.WriteRow(DecodeRow(p), *text_);
		p += EncodedRowSize(p);
		if (text_->Size() >= flush_bytes_) {
			std::lock_guard<std::mutex> lock(mutex_);
			HandOverText();
		}
	}
}

/* A batch the caller rendered (RenderHere), in its place: the text so far goes first, then that batch's. */
void
RenderThread::ProcessPlace()
{
	std::lock_guard<std::mutex> lock(mutex_);
	if (!text_->Empty())
		HandOverText();
	for (std::unique_ptr<OutputBuffer> &text : rendered_here_.front())
		rendered_.push_back(std::move(text));
	rendered_here_.pop_front();
}

/* After the last batch: hand over the last, short text. */
void
RenderThread::Complete()
{
	std::lock_guard<std::mutex> lock(mutex_);
	if (!text_->Empty())
		rendered_.push_back(std::move(text_));
}

} // namespace datavalue_export::core
