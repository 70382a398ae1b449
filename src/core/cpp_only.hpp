/*
 * src/core/cpp_only.hpp
 *	  Compile-time guard: files under src/core/ are pure C++ and never see a PostgreSQL header.
 *
 * Include this last in every core header. If postgres.h was included first, its macros
 * (elog, snprintf, Max ...) would leak into code that throws C++ exceptions, which is the
 * combination the C++/PostgreSQL boundary rule forbids.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#ifdef POSTGRES_H
static_assert(false, "src/core must not include PostgreSQL headers");
#endif
