#!/usr/bin/env bash
# demo/create_demo_db.sh - (re)create the datavalue_export demo database.
#
# Drops DBNAME if it exists, creates it (UTF8, from template0), loads the DHIS2-shaped schema and
# a deterministic Sierra Leone-like data set, then prints row counts and the elapsed time.
# Connects with the usual libpq environment (PGHOST, PGPORT, PGUSER, PGPASSWORD, ...); the role
# needs CREATEDB. Works from any directory. See demo/README.md.
# SPDX-License-Identifier: PostgreSQL

set -euo pipefail

usage() {
	cat <<'EOF'
usage: create_demo_db.sh [--values N] [--schema 2.43|2.42] [--icu-locale L] [--check] DBNAME

  --values N     number of datavalue rows (default 1000000; 500 .. about 15000000;
                 the 2.42 variant has 24 rows fewer)
  --schema V     DHIS2 schema shape: 2.43 (default) or 2.42
  --icu-locale L the database's collation is ICU's L (e.g. en-US, as on many DHIS2 servers)
                 instead of the cluster's default (PostgreSQL 15 or later)
  --check        run demo/check.sql on the result
  -h, --help     this text

DBNAME is dropped and recreated. Connection settings come from PGHOST, PGPORT, PGUSER, ...
EOF
}

die() {
	echo "create_demo_db.sh: $*" >&2
	exit 2
}

values=1000000
schema=2.43
check=0
icu_locale=
dbname=

while [ $# -gt 0 ]; do
	case "$1" in
		--values) [ $# -ge 2 ] || die "--values needs an argument"; values=$2; shift 2 ;;
		--values=*) values=${1#*=}; shift ;;
		--schema) [ $# -ge 2 ] || die "--schema needs an argument"; schema=$2; shift 2 ;;
		--schema=*) schema=${1#*=}; shift ;;
		--icu-locale) [ $# -ge 2 ] || die "--icu-locale needs an argument"; icu_locale=$2; shift 2 ;;
		--icu-locale=*) icu_locale=${1#*=}; shift ;;
		--check) check=1; shift ;;
		-h | --help) usage; exit 0 ;;
		--) shift; break ;;
		-*) usage >&2; die "unknown option: $1" ;;
		*) [ -z "$dbname" ] || die "only one DBNAME, got '$dbname' and '$1'"; dbname=$1; shift ;;
	esac
done
if [ $# -gt 0 ]; then
	if [ -n "$dbname" ] || [ $# -ne 1 ]; then
		die "only one DBNAME"
	fi
	dbname=$1
fi

[ -n "$dbname" ] || { usage >&2; exit 2; }
[[ "$values" =~ ^[0-9]+$ ]] || die "--values must be a number, got '$values'"
[ "$values" -ge 500 ] || die "--values must be at least 500"
case "$schema" in 2.42 | 2.43) ;; *) die "--schema must be 2.42 or 2.43, got '$schema'" ;; esac
case "$dbname" in
	postgres | template0 | template1) die "refusing to drop '$dbname'" ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
psql_cmd=(psql -X -q -v ON_ERROR_STOP=1)

start_ms=$(($(date +%s%N) / 1000000))
echo "Recreating database '$dbname' (${PGHOST:-default host}:${PGPORT:-default port})"
PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" dropdb --if-exists "$dbname"
locale_args=()
if [ -n "$icu_locale" ]; then locale_args=(--locale-provider=icu --icu-locale="$icu_locale"); fi
createdb -E UTF8 -T template0 "${locale_args[@]}" "$dbname"

"${psql_cmd[@]}" -d "$dbname" -v values="$values" -v schema="$schema" -f "$here/generate.sql"

if [ "$check" -eq 1 ]; then
	echo
	echo "Checks"
	"${psql_cmd[@]}" -d "$dbname" -f "$here/check.sql"
fi

elapsed_ms=$(($(date +%s%N) / 1000000 - start_ms))
echo
printf 'Done: %s (DHIS2 %s, %s values) in %d.%d s\n' "$dbname" "$schema" "$values" \
	$((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 100))
