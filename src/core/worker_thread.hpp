/*
 * src/core/worker_thread.hpp
 *	  Starting a worker thread inside a PostgreSQL backend.
 *
 * PostgreSQL's signal handlers (cancel, terminate, timeouts) must run on the backend's own
 * thread, so a worker starts with every signal blocked: the new thread inherits the mask,
 * and the caller's mask is restored at once. Workers run core code on plain memory only.
 *
 * May throw std::system_error (thread creation).
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <csignal>
#include <pthread.h>
#include <thread>
#include <utility>

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

template <typename Function>
std::thread
StartSignalFreeThread(Function &&function)
{
	sigset_t all, previous;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &previous);
	try {
		std::thread thread(std::forward<Function>(function));
		pthread_sigmask(SIG_SETMASK, &previous, nullptr);
		return thread;
	} catch (...) {
		pthread_sigmask(SIG_SETMASK, &previous, nullptr);
		throw;
	}
}

} // namespace datavalue_export::core
