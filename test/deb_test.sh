#!/usr/bin/env bash
# test/deb_test.sh - build the Debian package from the committed tree, install it on this
# machine's PostgreSQL, use it, purge it. Run as root on Debian 12; takes about 3 minutes.
#
#   1. `git archive HEAD` into a temporary directory (build artifacts never touch the checkout),
#      `dpkg-buildpackage -us -uc -b` there, and lintian on the result (no errors, no warnings);
#   2. `apt-get install ./postgresql-<major>-datavalue-export_<version>_<arch>.deb`, dpkg --verify;
#   3. a throwaway cluster (test/cluster.sh, under the temporary directory, port $DVE_DEB_PGPORT,
#      default 54336): CREATE EXTENSION at the package's version, datavalue_export_version()
#      equal to it, a JSON and a CSV export of test/data/fixture.sql through COPY TO STDOUT
#      (the JSON parses, both hold as many values as the fixture has);
#   4. `apt-get purge`: the package's files are gone and CREATE EXTENSION fails.
#
# The extension directory is shared with anyone who runs `make install` on this machine: files
# the package overwrites are saved first and put back when the script ends, however it ends.
# Uncommitted changes are not tested (HEAD is); the script says so when the tree is dirty.
# Needs: dpkg-dev debhelper postgresql-server-dev-all lintian (installed if missing) and the
# build dependencies in debian/control.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
	echo "deb_test: run as root (apt-get install/purge)" >&2
	exit 2
fi

started=$SECONDS
phase() { echo "deb_test: [$((SECONDS - started))s] $*"; }
fail() {
	echo "deb_test: FAIL: $*" >&2
	exit 1
}

tools=(dpkg-dev debhelper postgresql-server-dev-all lintian)
missing=()
for p in "${tools[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
	phase "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "deb_test: note: uncommitted changes are not part of the test; building HEAD $(git rev-parse --short HEAD)"
fi

work=$(mktemp -d /tmp/dve_deb_test.XXXXXX)
chmod 755 "$work" # the postgres user runs the cluster under it
src=$work/src
saved=$work/saved
export DVE_PGROOT=$work/pg
export DVE_PGPORT=${DVE_DEB_PGPORT:-54336} # its own port: test/run_all.sh's cluster may still be running
package=""
restore_list=()

cleanup() {
	local status=$?
	set +e
	if [ -f "$src/test/cluster.sh" ]; then
		"$src/test/cluster.sh" stop
	fi
	if [ -n "$package" ] && dpkg -s "$package" >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$package" >/dev/null
	fi
	# Put back what the package overwrote (someone's `make install`), exactly as it was; but a
	# file that is neither missing nor the package's copy was installed by someone meanwhile.
	local f
	for f in "${restore_list[@]}"; do
		if [ -e "$f" ] && ! grep -qxF "$(md5sum <"$f" | cut -d' ' -f1)  ${f#/}" "$work/package.md5sums"; then
			echo "deb_test: $f was replaced during the test; left as it is" >&2
			continue
		fi
		cp -a "$saved$f" "$f" || {
			echo "deb_test: could not restore $f (saved copy in $saved$f)" >&2
			status=1
			work=""
		}
	done
	((${#restore_list[@]})) && echo "deb_test: restored ${#restore_list[@]} previously installed file(s)"
	[ -n "$work" ] && rm -rf "$work"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. Build in a copy of the committed tree.
phase "building the package from HEAD $(git rev-parse --short HEAD) in $work"
mkdir -p "$src"
git archive HEAD | tar -x -C "$src"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b -j2) >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log" >&2
	fail "dpkg-buildpackage failed (log above)"
fi
version=$(cd "$src" && dpkg-parsechangelog -S Version)
upstream=${version%-*}
arch=$(dpkg --print-architecture)
major=$(cd "$src" && pg_buildext supported-versions | tail -n 1)
package=postgresql-$major-datavalue-export
deb=$work/${package}_${version}_${arch}.deb
[ -f "$deb" ] || fail "expected $(basename "$deb"); built: $(cd "$work" && ls -- *.deb)"
phase "built $(basename "$deb")"

lint=$(lintian "$work"/*.changes 2>/dev/null || true)
if grep -E '^[EW]: ' <<<"$lint"; then
	fail "lintian reports errors or warnings (above)"
fi
phase "lintian: no errors or warnings"

# 2. Install on this machine's PostgreSQL, saving the files it will overwrite.
if dpkg -s "$package" >/dev/null 2>&1; then
	echo "deb_test: $package is already installed; remove it first (this test purges what it installs)" >&2
	package="" # not ours to purge
	exit 1
fi
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./md5sums >"$work/package.md5sums"
mapfile -t files < <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {sub(/^\./, "", $6); print $6}')
((${#files[@]})) || fail "no files in $deb"
for f in "${files[@]}"; do
	if [ -e "$f" ]; then
		mkdir -p "$saved$(dirname "$f")"
		cp -a "$f" "$saved$f"
		restore_list+=("$f")
	fi
done
phase "installing (${#restore_list[@]} existing file(s) saved for restore)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$work/install.log" 2>&1 ||
	{
		cat "$work/install.log" >&2
		fail "apt-get install failed"
	}
[ "$(dpkg-query -W -f '${Status} ${Version}' "$package")" = "install ok installed $version" ] ||
	fail "dpkg does not report $package $version installed"
dpkg --verify "$package" || fail "installed files differ from the package (dpkg --verify)"
for f in "${files[@]}"; do [ -e "$f" ] || fail "$f missing after install"; done

# 3. A throwaway cluster on the machine's server binaries.
export PATH=/usr/lib/postgresql/$major/bin:$PATH
"$src/test/cluster.sh" start >/dev/null
eval "$("$src/test/cluster.sh" env)"
phase "cluster on port $PGPORT; CREATE EXTENSION and exports"
psql() { command psql -X -v ON_ERROR_STOP=1 -q "$@"; }
createdb dve_deb_test
psql -d dve_deb_test -c "CREATE EXTENSION datavalue_export"
got=$(psql -d dve_deb_test -Atc "SELECT extversion || ' ' || datavalue_export_version() FROM pg_extension
                                  WHERE extname = 'datavalue_export'")
[ "$got" = "$upstream $upstream" ] ||
	fail "extension version and library version are '$got', expected '$upstream $upstream' (debian/changelog)"

psql -d dve_deb_test -f "$src/test/data/fixture.sql" >/dev/null
# The fixture's values of data set pBOMPrpg1QX under Sierra Leone in 2020-2024, not deleted,
# counted from the tables (fixture.sql), independently of the extension.
filter="data_set => '{pBOMPrpg1QX}', org_unit => '{ImspTQPwCqd}', children => true,
        start_date => '2020-01-01', end_date => '2024-12-31'"
expected=$(psql -d dve_deb_test -Atc "SET search_path = regress_dhis2;
	SELECT count(*) FROM datavalue dv
	JOIN datasetelement dse ON dse.dataelementid = dv.dataelementid
	JOIN dataset ds ON ds.datasetid = dse.datasetid
	JOIN period p ON p.periodid = dv.periodid
	JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid
	WHERE ds.uid = 'pBOMPrpg1QX' AND NOT dv.deleted AND ou.path LIKE '/ImspTQPwCqd%'
	  AND p.startdate >= '2020-01-01' AND p.enddate <= '2024-12-31'")
((expected > 0)) || fail "the fixture has no values for the test export"
psql -d dve_deb_test -c "SET search_path = regress_dhis2, public" \
	-c "COPY (SELECT export_datavalues_json($filter)) TO STDOUT" >"$work/export.json"
psql -d dve_deb_test -c "SET search_path = regress_dhis2, public" \
	-c "COPY (SELECT export_datavalues_csv($filter)) TO STDOUT" >"$work/export.csv"
json_values=$(/usr/bin/python3 -c '
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
print(len(doc["dataValues"]))' "$work/export.json") || fail "the JSON export does not parse"
csv_values=$(/usr/bin/python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))
assert rows[0][0] == "dataelement", rows[0]
print(len(rows) - 1)' "$work/export.csv") || fail "the CSV export does not parse"
[ "$json_values" = "$expected" ] || fail "JSON export has $json_values values, the fixture $expected"
[ "$csv_values" = "$expected" ] || fail "CSV export has $csv_values values, the fixture $expected"
phase "exports: JSON and CSV hold the fixture's $expected values"

# 4. Purge: files gone, the extension no longer available.
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$package" >"$work/purge.log" 2>&1 ||
	{
		cat "$work/purge.log" >&2
		fail "apt-get purge failed"
	}
if dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -qv 'not-installed'; then
	fail "dpkg still knows $package after purge: $(dpkg-query -W -f '${Status}' "$package")"
fi
for f in "${files[@]}"; do [ ! -e "$f" ] || fail "$f still there after purge"; done
createdb dve_deb_test_after
if err=$(psql -d dve_deb_test_after -c "CREATE EXTENSION datavalue_export" 2>&1); then
	fail "CREATE EXTENSION still works after purge"
fi
grep -q 'extension control file' <<<"$err" || fail "CREATE EXTENSION failed for another reason: $err"
phase "purged: ${#files[@]} files gone, CREATE EXTENSION fails ($(head -n 1 <<<"$err"))"

phase "PASS: $(basename "$deb") builds, installs, exports and purges cleanly"
