/*
 * src/core/compression_thread.cpp
 *	  gzip on a second core; see compression_thread.hpp.
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/compression_thread.hpp"

namespace datavalue_export::core {

CompressionThread::CompressionThread(std::unique_ptr<GzipWriter> gzip) : gzip_(std::move(gzip))
{
	Start();
}

CompressionThread::~CompressionThread()
{
	Stop();
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
	std::unique_lock<std::mutex> lock;
	BufferWorker::Finish(lock);
	out.Append(produced_.View());
	produced_.Clear();
}

void
CompressionThread::Process(const OutputBuffer &input)
{
	compressed_.Clear();
	gzip_->Write(input.Data(), input.Size(), compressed_);
	std::lock_guard<std::mutex> lock(mutex_);
	produced_.Append(compressed_.View());
}

void
CompressionThread::Complete()
{
	compressed_.Clear();
	gzip_->Finish(compressed_);
	std::lock_guard<std::mutex> lock(mutex_);
	produced_.Append(compressed_.View());
}

} // namespace datavalue_export::core
