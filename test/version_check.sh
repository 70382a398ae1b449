#!/usr/bin/env bash
# test/version_check.sh - one version, everywhere; no server needed.
#
# The one source is default_version in datavalue_export.control. This fails when anything that
# must follow it drifts:
#   - the Makefile derives EXTVERSION from the control file (no literal of its own);
#   - datavalue_export--<version>.sql exists and names itself in its first line;
#   - the upgrade scripts form one chain from the oldest base script to <version>, each with its
#     path comment and \echo guard, and sql/upgrade.sql walks every step of it;
#   - debian/changelog's latest entry is <version>-<debian revision>.
# The library's compiled-in version is checked against the control file by pg_regress
# (sql/version.sql: datavalue_export_version() vs default_version) and by test/deb_test.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

ext=datavalue_export
errors=0
fail() {
	echo "version_check: $*" >&2
	errors=$((errors + 1))
}

version=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" $ext.control)
[ -n "$version" ] || {
	echo "version_check: no default_version = '...' in $ext.control" >&2
	exit 1
}

grep -Eq '^EXTVERSION *:?= *[0-9]' Makefile && fail "Makefile sets EXTVERSION itself; it must read $ext.control"

[ -f "$ext--$version.sql" ] || fail "no install script $ext--$version.sql for default_version $version"
for script in "$ext"--*.sql; do
	head -n 1 "$script" | grep -qxF "/* $script */" || fail "$script: first line is not /* $script */"
done

# The chain: from the oldest full script (the base), one upgrade script per step.
base=""
for script in "$ext"--*.sql; do
	v=${script#"$ext"--}
	v=${v%.sql}
	[[ $v == *--* ]] && continue
	if [ -z "$base" ] || [ "$(printf '%s\n' "$v" "$base" | sort -V | head -n 1)" = "$v" ]; then base=$v; fi
done
current=$base
chain=$base
while [ "$current" != "$version" ]; do
	nexts=()
	for script in "$ext--$current"--*.sql; do
		[ -e "$script" ] || continue
		v=${script#"$ext--$current"--}
		nexts+=("${v%.sql}")
	done
	if [ "${#nexts[@]}" != 1 ]; then
		fail "expected one upgrade script $ext--$current--*.sql on the way from $base to $version, found ${#nexts[@]}"
		break
	fi
	next=${nexts[0]}
	grep -qF "\\echo Use \"ALTER EXTENSION $ext UPDATE TO '$next'\"" "$ext--$current--$next.sql" ||
		fail "$ext--$current--$next.sql: no \\echo guard naming UPDATE TO '$next'"
	grep -qF "ALTER EXTENSION $ext UPDATE TO '$next';" sql/upgrade.sql ||
		fail "sql/upgrade.sql does not walk the step to $next"
	chain="$chain -> $next"
	current=$next
done
grep -qF "CREATE EXTENSION $ext VERSION '$base'" sql/upgrade.sql ||
	fail "sql/upgrade.sql does not start from the base version $base"

# debian/changelog: upstream part of the newest entry's version.
changelog=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' debian/changelog)
[ "${changelog%-*}" = "$version" ] ||
	fail "debian/changelog's latest version is $changelog; expected $version-<revision> (dch -v $version-1)"

# The command-line exporter's manual page names the version in its footer.
grep -qF "\"datavalue_export $version\"" cli/datavalue-export.1 ||
	fail "cli/datavalue-export.1's .TH line does not name datavalue_export $version"

if ((errors)); then
	exit 1
fi
echo "version $version: Makefile, control file, install script, upgrade chain $chain, debian/changelog and the manual page agree"
