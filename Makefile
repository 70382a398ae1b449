# Makefile - PGXS build of datavalue_export: the supported build, install and test path.
#
#   make && make install            build and install into the server pg_config names
#   make installcheck               pg_regress suite (sql/ + expected/) against a running server
#   make installcheck REGRESS=json  one test
#   make unit                       C++ unit tests of src/core under ASan/UBSan (CMake + ctest)
#   make check-all                  everything the README's test command runs (see test/run_all.sh)

EXTENSION = datavalue_export
EXTVERSION = 1.1
MODULE_big = datavalue_export

CORE_SOURCES = $(sort $(wildcard src/core/*.cpp))
PG_SOURCES = $(sort $(wildcard src/pg/*.cpp))
OBJS = $(CORE_SOURCES:.cpp=.o) $(PG_SOURCES:.cpp=.o)

DATA = $(wildcard datavalue_export--*.sql)

REGRESS = $(sort $(patsubst sql/%.sql,%,$(wildcard sql/*.sql)))
REGRESS_OPTS = --load-extension=$(EXTENSION)

PG_CONFIG ?= pg_config

PG_CPPFLAGS = -I$(srcdir)/src
# -Wno-register: PostgreSQL 15 headers use `register`, which C++17 removed.
PG_CXXFLAGS = -std=c++17 -Wall -Wextra -Wno-register -Wno-unused-parameter -Wno-missing-field-initializers -fno-strict-aliasing
ifeq ($(ERROR_ON_WARNING),1)
PG_CXXFLAGS += -Werror
endif
SHLIB_LINK = -lstdc++ -lz -lisal

# The server's LLVM bitcode rule does not get PG_CXXFLAGS (no -std=c++17); JIT inlining of
# this module's code is not worth a second compiler, so build no bitcode.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

PG_MAJOR := $(shell $(PG_CONFIG) --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
ifneq ($(PG_MAJOR),15)
$(error datavalue_export supports PostgreSQL 15; pg_config reports $(PG_MAJOR))
endif

# Header dependencies for C++ (core headers are inline-heavy).
override CXXFLAGS += -MMD -MP
-include $(OBJS:.o=.d)
EXTRA_CLEAN = $(OBJS:.o=.d)

.PHONY: unit check-all
unit:
	cmake -S . -B build -DDVE_SANITIZE=ON -DDVE_BENCH=OFF >/dev/null
	cmake --build build -j2
	ctest --test-dir build --output-on-failure

check-all:
	test/run_all.sh
