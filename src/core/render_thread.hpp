/*
 * src/core/render_thread.hpp
 *	  The final merge of an ordered export renders on a second core.
 *
 * While an ordered export merges its sorted runs into the document, the backend did all of it
 * on one core: the merge itself, decoding each row, rendering it (a third of that phase) and
 * sending the bytes, while the second core ran only the client. Here the backend merges and
 * sends; it appends each winning row's encoded record (row_sorter.hpp) to a batch and Submits
 * it, and a worker thread decodes the batch's rows and renders them with the document's
 * Writer into text buffers, which the backend takes with TakeRendered and sends.
 *
 * The Writer belongs to the worker from the first Submit until Finish returns: the backend must
 * not touch it in between. Memory stays bounded: at most BufferWorker::kMaxPending batches wait
 * (core/buffer_worker.hpp, which also runs and stops the worker), and the backend takes what is
 * rendered after each Submit, so rendered text waiting never exceeds what kMaxPending + 1
 * batches make. Rendered buffers travel back to the worker (Recycle), so the phase allocates a
 * handful of buffers, not one per flush.
 *
 * Rendering is most of the phase's work, so the worker is its slower side: on the 1M demo it
 * rendered at 100% of a core while the backend merged and sent at about 55% and a quarter of the
 * machine stood idle. With render_here_too, the backend renders a batch itself (RenderHere, with
 * a fork of the writer) whenever a batch still waits for the worker, and the text takes that batch's place
 * among the worker's: the two share the rendering in whatever proportion their speeds give.
 * The worker then ends its text short before each such batch, so the text's cut points vary
 * from run to run (not its bytes): only for a byte stream, not for a SELECT's rows.
 *
 * May throw std::bad_alloc, std::system_error (thread creation) and what Writer::WriteRow throws.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "core/buffer_worker.hpp"
#include "core/output_buffer.hpp"
#include "core/writer.hpp"
#include "core/cpp_only.hpp"

namespace datavalue_export::core {

class RenderThread : public BufferWorker {
  public:
	/*
	 * Rendered text is handed over in buffers of about flush_bytes, each ending at a row. The
	 * first one starts with prefix's bytes (the document so far, not yet sent), which are taken.
	 */
	RenderThread(Writer &writer, size_t flush_bytes, OutputBuffer &prefix, bool render_here_too = false);
	~RenderThread();

	/* Queue a batch of encoded records (EncodeRow's form, back to back) for the worker; empties it. */
	void Submit(OutputBuffer &batch)
	{
		submitted_rows_ = submitted_rows_ || !batch.Empty();
		BufferWorker::Submit(batch);
	}
	/*
	 * Whether the caller should render its next batch itself: the thread was made
	 * render_here_too and the worker has not caught up (a batch still waits for it). Waiting
	 * for a full queue instead left the backend a smaller share and was slower (bench/README.md).
	 */
	bool ShouldRenderHere() { return fork_ != nullptr && Queued() > 0; }
	/*
	 * Render a batch of records on the caller's thread (render_here_too), its text queued in its
	 * place among the submitted batches'; empties it. Before any row was submitted it submits
	 * instead: the fork renders rows that follow others.
	 */
	void RenderHere(OutputBuffer &batch);
	/* A buffer of rendered text, in row order, or null when none is ready; does not wait. */
	std::unique_ptr<OutputBuffer> TakeRendered();
	/* Hand a taken buffer back for reuse. */
	void Recycle(std::unique_ptr<OutputBuffer> buffer);
	/* Wait until every submitted row is rendered; TakeRendered then returns the rest. */
	void Finish();
	/* How many text buffers were made: the pool's size, as buffers are recycled, not remade. */
	size_t TextsMade();

  private:
	void Process(const OutputBuffer &batch) override;
	void Complete() override;
	void ProcessPlace() override;
	/* Under the lock: the worker's text so far goes out, and it starts a new one. */
	void HandOverText();
	/* Under the lock: an empty text buffer, from the pool if it has one. */
	std::unique_ptr<OutputBuffer> TakeSpareText();

	Writer &writer_;
	std::unique_ptr<Writer> fork_; /* the caller's, for RenderHere (render_here_too) */
	bool submitted_rows_ = false;  /* the caller's: a row was submitted */
	const size_t flush_bytes_;
	std::unique_ptr<OutputBuffer> text_; /* the worker's: being rendered into */
	/* Under the lock. */
	std::deque<std::unique_ptr<OutputBuffer>> rendered_; /* text to send */
	/* The texts of each batch RenderHere rendered, until the worker reaches its place. */
	std::deque<std::vector<std::unique_ptr<OutputBuffer>>> rendered_here_;
	std::vector<std::unique_ptr<OutputBuffer>> spare_texts_;
	size_t texts_made_ = 1; /* under the lock; text_ is the first */
};

} // namespace datavalue_export::core
