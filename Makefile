# Makefile - PGXS build of datavalue_export: the supported build, install and test path.
#
#   make && make install            build and install into the server pg_config names
#   make installcheck               pg_regress suite (sql/ + expected/) against a running server
#   make installcheck REGRESS=json  one test
#   make prove_installcheck         TAP tests (t/*.pl, PostgreSQL::Test::Cluster); PROVE_TESTS=t/003_standby.pl for one
#   make unit                       C++ unit tests of src/core under ASan/UBSan (CMake + ctest)
#   make check-all                  everything the README's test command runs (see test/run_all.sh)
#   make dist                       source tarball of HEAD: datavalue_export-<version>.tar.gz (git archive)

EXTENSION = datavalue_export
# The version has one source: default_version in datavalue_export.control, where PostgreSQL
# reads it. EXTVERSION, the library's version (src/core/version.cpp), the install script's name
# and debian/changelog follow it; test/version_check.sh fails when any of them drifts.
EXTVERSION := $(shell sed -n "s/^default_version = '\(.*\)'$$/\1/p" $(dir $(firstword $(MAKEFILE_LIST)))$(EXTENSION).control)
ifeq ($(EXTVERSION),)
$(error no default_version = '...' line in $(EXTENSION).control)
endif
MODULE_big = datavalue_export

CORE_SOURCES = $(sort $(wildcard src/core/*.cpp))
PG_SOURCES = $(sort $(wildcard src/pg/*.cpp))
OBJS = $(CORE_SOURCES:.cpp=.o) $(PG_SOURCES:.cpp=.o)

DATA = $(wildcard datavalue_export--*.sql)

REGRESS = $(sort $(patsubst sql/%.sql,%,$(wildcard sql/*.sql)))
REGRESS_OPTS = --load-extension=$(EXTENSION)

# TAP tests: t/*.pl start their own clusters with the installed server (Debian ships
# PostgreSQL::Test::Cluster in postgresql-client-15 under pgxs/src/test/perl; they need
# libipc-run-perl). `make installcheck` runs them after pg_regress. initdb refuses to run as
# root, so as root they are left out here: test/run_all.sh runs them as the postgres user.
ifneq ($(shell id -u),0)
TAP_TESTS = 1
endif

PG_CONFIG ?= pg_config

PG_CPPFLAGS = -I$(srcdir)/src -DDATAVALUE_EXPORT_VERSION='"$(EXTVERSION)"'
# -Wno-register: PostgreSQL 14 and 15 headers use `register`, which C++17 removed.
PG_CXXFLAGS = -std=c++17 -Wall -Wextra -Wno-register -Wno-unused-parameter -Wno-missing-field-initializers -fno-strict-aliasing
ifeq ($(ERROR_ON_WARNING),1)
PG_CXXFLAGS += -Werror
endif
SHLIB_LINK = -lstdc++ -lz -lisal
# SANITIZE=1: the library with AddressSanitizer and UndefinedBehaviorSanitizer, for a server started
# with their runtimes preloaded (test/matrix.sh --sanitize). For testing only: slower, larger, and
# with the fault-injection settings (DVE_FAULT_INJECTION: datavalue_export.fault_*).
ifeq ($(SANITIZE),1)
PG_CXXFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -DDVE_FAULT_INJECTION
SHLIB_LINK += -fsanitize=address,undefined
endif

# The server's LLVM bitcode rule does not get PG_CXXFLAGS (no -std=c++17); JIT inlining of
# this module's code is not worth a second compiler, so build no bitcode.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Supported majors: 14 to 18 (src/pg/compat.hpp; README "Supported PostgreSQL versions").
PG_MAJOR := $(shell $(PG_CONFIG) --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
ifeq ($(filter $(PG_MAJOR),14 15 16 17 18),)
$(error datavalue_export supports PostgreSQL 14 to 18; pg_config reports $(PG_MAJOR))
endif

# Only version.o is compiled with the version (pg_duckdb's trick), so a bump rebuilds one
# object; it depends on the control file because make does not notice a changed flag.
src/core/version.o: override CPPFLAGS += -DDVE_VERSION='"$(EXTVERSION)"'
src/core/version.o: $(EXTENSION).control

# Header dependencies for C++ (core headers are inline-heavy).
override CXXFLAGS += -MMD -MP
-include $(OBJS:.o=.d)
EXTRA_CLEAN = $(OBJS:.o=.d)

.PHONY: unit check-all prove_installcheck dist
# pgxs's prove_installcheck recipe with the scratch directory (tmp_check/: clusters, logs)
# movable, so a user who cannot write to the source tree can run the tests.
TAP_TESTDIR ?= $(CURDIR)
prove_installcheck:
	rm -rf '$(TAP_TESTDIR)'/tmp_check
	$(MKDIR_P) '$(TAP_TESTDIR)'/tmp_check
	cd $(srcdir) && TESTDIR='$(TAP_TESTDIR)' PATH="$(bindir):$$PATH" \
	    PG_REGRESS='$(top_builddir)/src/test/regress/pg_regress' \
	    $(PROVE) $(PG_PROVE_FLAGS) $(PROVE_FLAGS) $(if $(PROVE_TESTS),$(PROVE_TESTS),t/*.pl)

unit:
	cmake -S . -B build -DDVE_SANITIZE=ON -DDVE_BENCH=OFF >/dev/null
	cmake --build build -j2
	ctest --test-dir build --output-on-failure

check-all:
	test/run_all.sh

# The committed tree only (not the working copy): what a packager builds from.
dist:
	git archive --format=tar.gz --prefix=$(EXTENSION)-$(EXTVERSION)/ -o $(EXTENSION)-$(EXTVERSION).tar.gz HEAD

# The command-line exporter (cli/): its own small Makefile, built and installed with the extension.
# It is a libpq client, the same for every server major: WITHOUT_CLI=1 leaves it out (test/matrix.sh).
ifneq ($(WITHOUT_CLI),1)
all: cli
install: install-cli
clean: clean-cli
uninstall: uninstall-cli
endif
.PHONY: cli install-cli clean-cli uninstall-cli
cli:
	$(MAKE) -C cli PG_CONFIG=$(PG_CONFIG)
install-cli:
	$(MAKE) -C cli install PG_CONFIG=$(PG_CONFIG)
clean-cli:
	$(MAKE) -C cli clean
uninstall-cli:
	$(MAKE) -C cli uninstall PG_CONFIG=$(PG_CONFIG)
