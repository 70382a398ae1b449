#!/usr/bin/env bash
# test/fuzz/run.sh - build the libFuzzer harnesses of src/core and run each for a bounded time.
#
#   bash test/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     (default 15 s, every target)
#   bash test/fuzz/run.sh 600 gzip                            a longer run of one target
#
# Builds with clang -fsanitize=fuzzer,address,undefined into build/fuzz/ (test/fuzz/Makefile,
# -j2), then runs each target on its seed corpus test/fuzz/corpus/<target>/ (read only) plus a
# working corpus build/fuzz/corpus/<target>/ that keeps what earlier runs found, so repeated
# runs go deeper. A crash or a failed property stops that target and leaves the input in
# build/fuzz/artifacts/; reproduce it with `build/fuzz/<target> <artifact>`.
# Prints one line per target (executions, coverage, corpus) and exits non-zero if any failed.
#
# Adding a target (the XML escaper, the zip writer): write test/fuzz/fuzz_<target>.cpp and a
# few seeds in test/fuzz/corpus/<target>/; an optional test/fuzz/<target>.dict is used too.
# SPDX-License-Identifier: PostgreSQL
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-15}
shift || true
[[ "$seconds" =~ ^[0-9]+$ ]] || {
	echo "usage: $0 [SECONDS_PER_TARGET] [TARGET...]" >&2
	exit 2
}

if ! command -v clang++ >/dev/null; then
	echo "fuzz: clang++ is missing (Debian: clang libclang-rt-14-dev)" >&2
	exit 1
fi
make -s -f test/fuzz/Makefile -j2 || exit 1

targets=("$@")
if ((${#targets[@]} == 0)); then
	for harness in test/fuzz/fuzz_*.cpp; do
		name=${harness#test/fuzz/fuzz_}
		targets+=("${name%.cpp}")
	done
fi

failed=0
mkdir -p build/fuzz/artifacts
for target in "${targets[@]}"; do
	binary=build/fuzz/$target
	[ -x "$binary" ] || {
		echo "fuzz: no target '$target'" >&2
		failed=1
		continue
	}
	corpus=build/fuzz/corpus/$target
	mkdir -p "$corpus"
	options=(-max_total_time="$seconds" -artifact_prefix="build/fuzz/artifacts/$target-" -print_final_stats=1)
	[ -f "test/fuzz/$target.dict" ] && options+=(-dict="test/fuzz/$target.dict")
	# gzip: long inputs reach past the engines' internal buffers
	[ "$target" = gzip ] && options+=(-max_len=16384)
	log=build/fuzz/$target.log
	if "$binary" "${options[@]}" "$corpus" "test/fuzz/corpus/$target" >"$log" 2>&1; then
		status=ok
	else
		status=FAILED
		failed=1
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	echo "fuzz $target: $status, ${runs:-?} executions in ${seconds}s, ${cov:-cov: ?}, corpus $(find "$corpus" -type f | wc -l) files"
	if [ "$status" = FAILED ]; then
		grep -E 'property failed|ERROR: |SUMMARY: |runtime error|Test unit written' "$log" | head -n 8
	fi
done
exit "$failed"
