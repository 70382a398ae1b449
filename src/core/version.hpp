/*
 * src/core/version.hpp
 *	  The version of datavalue_export this library was built as.
 *
 * The one source of the version is default_version in datavalue_export.control; the Makefile
 * and CMakeLists.txt read it and compile it into version.cpp only (-DDVE_VERSION), so a version
 * bump rebuilds one object. The SQL function datavalue_export_version() returns it, which is how
 * a test tells a library from an older build apart from the SQL scripts it is used with.
 * SPDX-License-Identifier: PostgreSQL
 */
#pragma once

#include "core/cpp_only.hpp"

namespace datavalue_export::core {

/* A static string such as "1.1". Never throws. */
const char *LibraryVersion() noexcept;

} // namespace datavalue_export::core
