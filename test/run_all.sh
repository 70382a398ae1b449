#!/usr/bin/env bash
# test/run_all.sh - every test of the project, from a fresh Debian 12 machine (as root).
#
# Sets up (scripts/setup.sh: packages, build, install, throwaway cluster), then runs:
#   1. the C++ unit tests of src/core and cli/ under AddressSanitizer + UBSan (ctest);
#   2. the clang-format check of every C++ file;
#   3. the pg_regress suite (sql/ + expected/) against the cluster;
#   4. the end-to-end tests (test/integration, pytest): COPY vs SELECT bytes, the demo
#      database, 2.42 vs 2.43 schemas, gzip, encodings, cancel, JDBC, the datavalue-export CLI;
#   5. the TAP tests (t/*.pl, clusters of their own): cancel, terminate and client loss
#      mid-export, crash recovery, a streaming standby, exports beside a writer;
#   6. the fuzz targets of src/core (test/fuzz/run.sh), ~15 s each (DVE_FUZZ_SECONDS).
# Prints one closing line "N passed, N failed" (suites) and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || exit 1
eval "$(test/cluster.sh env)"

passed=0
failed=0
failures=()
run_suite() {
	local name=$1
	shift
	echo
	echo "=== $name"
	if "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("$name")
	fi
}

unit_tests() {
	cmake -S . -B build/unit -DDVE_SANITIZE=ON -DDVE_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
		cmake --build build/unit -j"$(nproc)" >/dev/null &&
		ctest --test-dir build/unit --output-on-failure -j"$(nproc)" | tail -n 3
}

format_check() {
	local files
	files=$(git ls-files '*.cpp' '*.hpp' '*.h' 2>/dev/null || find src test bench -name '*.[ch]pp')
	# shellcheck disable=SC2086
	clang-format --dry-run --Werror $files && echo "clang-format: $(echo "$files" | wc -w) files clean"
}

version_check() {
	# One version, everywhere (the control file is the source); the library's own version is
	# checked by pg_regress (sql/version.sql).
	test/version_check.sh
}

regression_tests() {
	if make -s installcheck TAP_TESTS=; then
		return 0
	fi
	[ -f regression.diffs ] && cat regression.diffs
	return 1
}

integration_tests() {
	/usr/bin/python3 -m pytest -q -p no:cacheprovider test/integration
}

tap_tests() {
	# initdb refuses root: as root, run them as postgres in a scratch directory it owns.
	local testdir=$PWD/build/tap
	if [ "$(id -u)" = 0 ]; then
		mkdir -p "$testdir" && chown postgres: "$testdir" &&
			runuser -u postgres -- make -s prove_installcheck TAP_TESTDIR="$testdir"
	else
		mkdir -p "$testdir" && make -s prove_installcheck TAP_TESTDIR="$testdir"
	fi
}

fuzz_tests() {
	bash test/fuzz/run.sh "${DVE_FUZZ_SECONDS:-15}"
}

run_suite "unit tests (ASan/UBSan)" unit_tests
run_suite "clang-format" format_check
run_suite "version" version_check
run_suite "pg_regress" regression_tests
run_suite "integration tests" integration_tests
run_suite "TAP tests" tap_tests
run_suite "fuzzing" fuzz_tests

echo
if ((failed)); then
	echo "failed suites: ${failures[*]}"
fi
echo "suites: $passed passed, $failed failed"
((failed == 0))
