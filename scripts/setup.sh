#!/usr/bin/env bash
# scripts/setup.sh - everything the demo, the tests and the benchmarks need, from a fresh
# Debian 12 machine (as root): Debian packages, build, install, and a running throwaway
# PostgreSQL 15 cluster (test/cluster.sh). Idempotent; run from anywhere.
#
#   bash scripts/setup.sh            then: eval "$(test/cluster.sh env)"
#   bash scripts/setup.sh --packages only the Debian packages (test/matrix.sh builds and runs its own)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
	postgresql-15 postgresql-client-15 postgresql-server-dev-15 libkrb5-dev
	zlib1g-dev libisal-dev g++ make cmake libgtest-dev libbenchmark-dev clang-format
	python3 python3-psycopg2 python3-pytest python3-lxml unzip openjdk-17-jdk-headless libpostgresql-jdbc-java
	libipc-run-perl     # TAP tests (t/*.pl): PostgreSQL::Test::Cluster runs its commands with IPC::Run
	clang libclang-rt-14-dev # fuzzing (test/fuzz): clang++ -fsanitize=fuzzer links libclang-rt's libFuzzer
	libpq-dev tmux man-db strace # the datavalue-export CLI (libpq) and its tests (tmux screen, man page, a slowed copy)
)

bash scripts/ensure_packages.sh setup "${PACKAGES[@]}"
if [ "${1:-}" = --packages ]; then
	exit 0
fi

echo "setup: building and installing the extension"
make -s -j"$(nproc)" ${ERROR_ON_WARNING:+ERROR_ON_WARNING=$ERROR_ON_WARNING} >/dev/null
make -s install >/dev/null

# The cluster preloads the library (for the COPY command tag): restart it only when the
# installed library differs from the one it started with, so a running cluster is left alone.
installed="$(pg_config --pkglibdir)/datavalue_export.so"
stamp="${DVE_PGROOT:-/tmp/datavalue_export_pg}/loaded-library.md5"
want=$(md5sum "$installed" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	test/cluster.sh stop
fi
test/cluster.sh start >/dev/null
echo "$want" >"$stamp"
echo "setup: cluster running ($(test/cluster.sh env))"
