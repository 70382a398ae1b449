/*
 * src/core/version.cpp
 *	  The version compiled into the library (see version.hpp).
 * SPDX-License-Identifier: PostgreSQL
 */
#include "core/version.hpp"

#ifndef DVE_VERSION
#error "DVE_VERSION must be defined by the build (Makefile or CMakeLists.txt, from datavalue_export.control)"
#endif

namespace datavalue_export::core {

const char *
LibraryVersion() noexcept
{
	return DVE_VERSION;
}

} // namespace datavalue_export::core
