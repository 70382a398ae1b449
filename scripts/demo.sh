#!/usr/bin/env bash
# scripts/demo.sh - the main job on the built-in demo database, from a fresh Debian 12 machine.
#
# Sets up (packages, build, install, throwaway cluster), builds the Sierra Leone-shaped demo
# database (demo/create_demo_db.sh, 1M values by default; reused when it already exists),
# then exports every data set, 24 months, the whole country, the way a DHIS2 implementer
# would: JSON, CSV, gzip JSON, XML and zip CSV through `psql \copy` into files under demo/out/. Prints
# values, bytes, seconds and microseconds per value for each, next to native
# COPY (...) TO STDOUT (FORMAT csv) of the same rows, measured in the same run.
#
#   bash scripts/demo.sh [--values N]
set -euo pipefail
cd "$(dirname "$0")/.."

VALUES=1000000
while (($#)); do
	case "$1" in
	--values) VALUES=$2; shift 2 ;;
	*) echo "usage: $0 [--values N]" >&2; exit 2 ;;
	esac
done

bash scripts/setup.sh
eval "$(test/cluster.sh env)"
DB=demo_${VALUES}
OUT=demo/out
mkdir -p "$OUT"

# Reuse the database when it is complete (the generator writes its marker last).
if ! psql -d "$DB" -Atc "SELECT count(*) FROM datavalue" >/dev/null 2>&1; then
	bash demo/create_demo_db.sh --values "$VALUES" "$DB"
fi
psql -q -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS datavalue_export"

DATA_SETS=$(psql -d "$DB" -Atc "SELECT '{' || string_agg(uid, ',' ORDER BY uid) || '}' FROM dataset")
ARGS="data_set => '$DATA_SETS', start_date => '2023-01-01', end_date => '2024-12-31', org_unit => '{ImspTQPwCqd}', children => true"
ROWS=$(psql -d "$DB" -Atc "SELECT count(*) FROM datavalue dv JOIN period pe ON pe.periodid = dv.periodid
	WHERE dv.dataelementid IN (SELECT dataelementid FROM datasetelement) AND NOT dv.deleted
	AND pe.startdate >= '2023-01-01' AND pe.enddate <= '2024-12-31'")

# The baseline: DHIS2 2.43's own query (six-way join, its ORDER BY), as native COPY CSV.
NATIVE="SELECT de.uid, pe.iso, ou.uid, coc.uid, aoc.uid, dv.value, dv.storedby, dv.created, dv.lastupdated,
	dv.comment, dv.followup, dv.deleted FROM datavalue dv
	JOIN dataelement de ON de.dataelementid = dv.dataelementid JOIN period pe ON pe.periodid = dv.periodid
	JOIN organisationunit ou ON ou.organisationunitid = dv.sourceid
	JOIN categoryoptioncombo coc ON coc.categoryoptioncomboid = dv.categoryoptioncomboid
	JOIN categoryoptioncombo aoc ON aoc.categoryoptioncomboid = dv.attributeoptioncomboid
	WHERE dv.dataelementid IN (SELECT dataelementid FROM datasetelement) AND NOT dv.deleted
	AND pe.startdate >= '2023-01-01' AND pe.enddate <= '2024-12-31' AND ou.path LIKE '/ImspTQPwCqd%'
	ORDER BY pe.startdate, pe.enddate, dv.created, de.uid"

run() { # name file query
	local start end
	start=$(date +%s.%N)
	psql -q -d "$DB" -c "\\copy ($3) TO '$2'"
	end=$(date +%s.%N)
	python3 - "$1" "$2" "$start" "$end" "$ROWS" <<'PY'
import os, sys
name, path, start, end, rows = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
secs = end - start
size = os.path.getsize(path)
print(f"| {name:<28} | {rows:>10,} | {size:>14,} | {secs:>7.2f} | {secs / rows * 1e6:>8.2f} |")
PY
}

echo
echo "Demo export: $ROWS values ($DB; all data sets, 2023-01..2024-12, ImspTQPwCqd with children)"
echo "| export                       |     values |          bytes | seconds | us/value |"
echo "|------------------------------|-----------:|---------------:|--------:|---------:|"
run "JSON (datavalue_export)" "$OUT/dataValues.json" "SELECT export_datavalues_json($ARGS)"
run "CSV (datavalue_export)" "$OUT/dataValues.csv" "SELECT export_datavalues_csv($ARGS)"
run "gzip JSON (datavalue_export)" "$OUT/dataValues.json.gz" "SELECT export_datavalues_json($ARGS, compression => 'gzip')"
run "XML (datavalue_export)" "$OUT/dataValues.xml" "SELECT export_datavalues_xml($ARGS)"
run "zip CSV (datavalue_export)" "$OUT/dataValues.csv.zip" "SELECT export_datavalues_csv($ARGS, compression => 'zip')"
run "native COPY CSV (same rows)" "$OUT/native.csv" "$NATIVE"
echo
python3 -m json.tool "$OUT/dataValues.json" >/dev/null && echo "dataValues.json parses as JSON"
gzip -dc "$OUT/dataValues.json.gz" | cmp -s - "$OUT/dataValues.json" && echo "dataValues.json.gz decompresses to dataValues.json"
echo "files in $OUT/"
