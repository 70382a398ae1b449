/*
 * test/fuzz/fuzz_check.hpp
 *	  FUZZ_CHECK: the property assertion of the libFuzzer harnesses.
 *
 * A failed property prints what failed and aborts, which libFuzzer reports as a crash and saves
 * the input under build/fuzz/artifacts/ (test/fuzz/run.sh). assert() would vanish under NDEBUG.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                                               \
	do {                                                                                                               \
		if (!(cond)) {                                                                                                 \
			std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond);                           \
			std::abort();                                                                                              \
		}                                                                                                              \
	} while (0)
