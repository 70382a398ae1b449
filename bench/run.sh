#!/usr/bin/env bash
# bench/run.sh - the datavalue_export benchmark, end to end, in one command.
#
#   bench/run.sh [--values N] [--reps K] [--scaling] [--micro | --micro-only]
#                [--no-setup] [--no-huge-pages] [--keep-shared-buffers]
#                [--keep-page-reporting] [--recreate] [--only a,b,...]
#
#   --values N     demo database size (default 1000000; 10000000 on request)
#   --reps K       timed repetitions per variant, interleaved (default 5)
#   --scaling      run N and 10*N values and judge "time linear, memory flat"
#   --micro        also build and run the Google Benchmark micro-benchmarks (bench/micro)
#   --micro-only   only the micro-benchmarks (no database)
#   --no-setup     skip scripts/setup.sh (it rebuilds, reinstalls and RESTARTS the cluster);
#                  measures whatever library the running cluster has loaded
#   --no-huge-pages  do not reserve huge pages for the cluster (as root, run.sh reserves them
#                  and restarts the cluster once; see bench/README.md "Huge pages")
#   --keep-shared-buffers  leave shared_buffers as it is (as root, run.sh raises it to hold the
#                  largest datavalue table four times over; see bench/README.md "Hardware note")
#   --keep-page-reporting  leave a VM's free page reporting on (as root, run.sh pauses it for the
#                  run and touches the free memory once; see bench/README.md "Free page reporting")
#   --recreate     rebuild the demo database even if a matching one exists
#   --only LIST    comma-separated variant names (development; see bench/README.md)
#
# Steps: scripts/setup.sh; create or reuse the demo database bench_<N> (demo/create_demo_db.sh;
# reused when its marker, a database comment, says N values and the value count still matches);
# (re)create the extension in it; VACUUM ANALYZE; as root, shared_buffers sized to the largest
# table and huge pages reserved (each restarts the cluster when it changes something); then
# bench/bench.py warms up and measures every variant and prints the report, also written to
# bench/results/<UTC timestamp>.md; then bench/plot.py draws it (bench/results/<stamp>.png,
# and docs/bench.png unless --only was given).
# Method, variants and how to read the targets: bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

VALUES=1000000
REPS=5
SCALING=0
MICRO=0
MICRO_ONLY=0
SETUP=1
RECREATE=0
HUGE=1
SHARED_BUFFERS=1
PAGE_REPORTING=1
ONLY=""

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while (($#)); do
	case "$1" in
	--values) VALUES=${2:?}; shift 2 ;;
	--values=*) VALUES=${1#*=}; shift ;;
	--reps) REPS=${2:?}; shift 2 ;;
	--reps=*) REPS=${1#*=}; shift ;;
	--scaling) SCALING=1; shift ;;
	--micro) MICRO=1; shift ;;
	--micro-only) MICRO=1; MICRO_ONLY=1; shift ;;
	--no-setup) SETUP=0; shift ;;
	--no-huge-pages) HUGE=0; shift ;;
	--keep-shared-buffers) SHARED_BUFFERS=0; shift ;;
	--keep-page-reporting) PAGE_REPORTING=0; shift ;;
	--recreate) RECREATE=1; shift ;;
	--only) ONLY=${2:?}; shift 2 ;;
	--only=*) ONLY=${1#*=}; shift ;;
	-h | --help) usage ;;
	*) echo "run.sh: unknown argument $1" >&2; usage ;;
	esac
done
[[ $VALUES =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --values must be a positive integer" >&2; exit 2; }
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --reps must be a positive integer" >&2; exit 2; }

log() { echo "bench: $*" >&2; }

if ((SETUP)); then
	bash scripts/setup.sh >&2
	# The bench's own packages: the chart (bench/plot.py). The Java peer's are installed by
	# bench/java/build.sh, which bench.py runs when that variant is selected.
	bash scripts/ensure_packages.sh bench python3-matplotlib
fi
eval "$(test/cluster.sh env)"
export PGHOST PGPORT PGUSER

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
PSQL=(psql -X -A -t -q -v ON_ERROR_STOP=1)

# create_or_reuse N: make sure database bench_N holds the demo with N values; prints its name.
create_or_reuse() {
	local n=$1 db="bench_$1" marker count want generator
	if [ ! -x demo/create_demo_db.sh ] && [ ! -f demo/create_demo_db.sh ]; then
		echo "run.sh: demo/create_demo_db.sh is missing" >&2
		exit 1
	fi
	generator=$(cat demo/create_demo_db.sh demo/*.sql 2>/dev/null | sha1sum | cut -c1-12)
	marker=$("${PSQL[@]}" -d postgres -c \
		"SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = '$db'")
	if ((!RECREATE)) && [[ $marker =~ ^datavalue_export\ bench:\ values=$n\ count=([0-9]+)\ generator=([0-9a-f]+) ]]; then
		want=${BASH_REMATCH[1]}
		count=$("${PSQL[@]}" -d "$db" -c "SELECT count(*) FROM datavalue")
		if [ "$count" = "$want" ]; then
			if [ "${BASH_REMATCH[2]}" != "$generator" ]; then
				log "$db: reusing it, but demo/ changed since it was generated (--recreate to rebuild)"
			else
				log "$db: reusing it ($count values)"
			fi
			echo "$db"
			return
		fi
		log "$db: holds $count values, its marker says $want; rebuilding"
	fi
	log "$db: generating the demo database with $n values (demo/create_demo_db.sh)"
	"${PSQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >&2
	bash demo/create_demo_db.sh --values "$n" --schema 2.43 "$db" >&2
	count=$("${PSQL[@]}" -d "$db" -c "SELECT count(*) FROM datavalue")
	"${PSQL[@]}" -d postgres -c \
		"COMMENT ON DATABASE $db IS 'datavalue_export bench: values=$n count=$count generator=$generator'" >&2
	log "$db: generated ($count values)"
	echo "$db"
}

# prepare DB: current extension SQL, fresh statistics and visibility map.
prepare() {
	local db=$1
	"${PSQL[@]}" -d "$db" -c "DROP EXTENSION IF EXISTS datavalue_export" >&2
	"${PSQL[@]}" -d "$db" -c "CREATE EXTENSION datavalue_export" >&2
	log "$db: VACUUM ANALYZE"
	"${PSQL[@]}" -d "$db" -c "VACUUM ANALYZE" >&2
}

ARGS=(--reps "$REPS" --stamp "$STAMP")
[ -n "$ONLY" ] && ARGS+=(--only "$ONLY")

if ((!MICRO_ONLY)); then
	SIZES=("$VALUES")
	((SCALING)) && SIZES+=($((VALUES * 10)))
	for n in "${SIZES[@]}"; do
		db=$(create_or_reuse "$n")
		prepare "$db"
		ARGS+=(--db "$n=$db")
	done
fi

# Warm cache at every size: PostgreSQL reads a table larger than a quarter of shared_buffers
# through a 256 kB ring of buffers (a BULKREAD strategy), so every scan copies it again from the
# OS page cache; with the cluster's 1GB that made the 10M demo's read floor cost twice as much per
# value as the 1M one's, and "time linear" measured PostgreSQL's buffer strategy rather than the
# exports (bench/README.md "Hardware note"). As root, raise shared_buffers to hold the largest
# datavalue table four times over (whole GB, at most half the machine's memory) and
# restart the cluster (once more for huge pages, below); the report's header prints the setting.
if ((!MICRO_ONLY)) && ((SHARED_BUFFERS)) && [ "$(id -u)" = 0 ]; then
	largest=0
	for arg in "${ARGS[@]}"; do
		[[ $arg == *=bench_* ]] || continue
		size=$("${PSQL[@]}" -d "${arg#*=}" -c "SELECT pg_relation_size('datavalue')")
		((size > largest)) && largest=$size
	done
	gb=$((1024 * 1024 * 1024))
	want=$(((4 * largest + largest / 10 + gb - 1) / gb))
	have=$("${PSQL[@]}" -d postgres -c "SELECT setting::bigint * 8192 / $gb FROM pg_settings WHERE name = 'shared_buffers'")
	cap=$(awk '/^MemTotal/ {print int($2 / 1024 / 1024 / 2)}' /proc/meminfo)
	if ((want > cap)); then
		log "the largest datavalue table ($((largest / 1024 / 1024)) MB) needs shared_buffers = ${want}GB to be read without the ring; capped at ${cap}GB (half the memory)"
		want=$cap
	fi
	if ((want > have)); then
		log "shared_buffers ${have}GB -> ${want}GB, so the largest datavalue table ($((largest / 1024 / 1024)) MB) is read from shared buffers"
		"${PSQL[@]}" -d postgres -c "ALTER SYSTEM SET shared_buffers = '${want}GB'" >&2
		test/cluster.sh stop
		test/cluster.sh start >/dev/null
	fi
fi

# Huge pages for the cluster's shared memory. A new backend maps shared_buffers 4 kB page by
# page as it first touches them; in a paravirtualised VM like the reference machine each of
# those faults costs microseconds, and a fresh session's first scan of the 1M demo paid about
# 0.3-0.7 s of them (bench/README.md "Huge pages"). With 2 MB pages the fault count drops 512
# times. As root, reserve what the cluster needs (shared_memory_size_in_huge_pages) and restart
# it so it takes them (huge_pages = try, PostgreSQL's default); the report says which it used.
if ((HUGE)) && [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/nr_hugepages ]; then
	need=$(psql -X -A -t -d postgres -c "SHOW shared_memory_size_in_huge_pages" 2>/dev/null || echo 0)
	have=$(awk '/^HugePages_Total/ {print $2}' /proc/meminfo)
	if [[ $need =~ ^[0-9]+$ ]] && ((need > 0 && have < need + 16)); then
		echo $((need + 16)) >/proc/sys/vm/nr_hugepages
		log "reserved $(awk '/^HugePages_Total/ {print $2}' /proc/meminfo) huge pages of 2 MB; restarting the cluster"
		test/cluster.sh stop
		test/cluster.sh start >/dev/null
	fi
fi

# Free page reporting. A VM whose virtio balloon reports free pages (feature bit 5) hands the
# memory its guest frees back to the host after a few seconds, and the guest's next first touch
# of it faults into the host. On the reference machine that made writing a 2.9 GB output to
# tmpfs take 2.9-5.7 s after a short idle and 1.3-1.7 s with the memory kept, so every timed run
# paid a random host cost, the most on the variants that write the most (bench/README.md "Free
# page reporting"). As root, pause the reporting for the run (unbind the balloon's driver; bound
# again at exit) and touch the free memory once, so every run finds it backed.
# Where the driver's unbind is refused (seen: "Permission denied" on a VM whose sysfs is partly
# read-only), raising the page_reporting module's order past the largest free block the kernel
# keeps (order 10) stops the reporting too; its old value comes back at exit.
BALLOON_DRIVER=/sys/bus/virtio/drivers/virtio_balloon
REPORTING_ORDER=/sys/module/page_reporting/parameters/page_reporting_order
PAUSED_BALLOONS=()
SAVED_REPORTING_ORDER=
TOUCH_FILE=/dev/shm/datavalue_export_bench_touch.$$
resume_page_reporting() {
	local dev
	rm -f "$TOUCH_FILE" # a run stopped while touching the memory must not leave gigabytes in tmpfs
	for dev in "${PAUSED_BALLOONS[@]}"; do
		echo "$dev" >"$BALLOON_DRIVER/bind" || log "could not bind $dev to virtio_balloon again"
	done
	if [ -n "$SAVED_REPORTING_ORDER" ]; then
		echo "$SAVED_REPORTING_ORDER" >"$REPORTING_ORDER" || log "could not set page_reporting_order back to $SAVED_REPORTING_ORDER"
	fi
}
if ((!MICRO_ONLY)) && ((PAGE_REPORTING)) && [ "$(id -u)" = 0 ] && [ -d "$BALLOON_DRIVER" ]; then
	for dev_path in "$BALLOON_DRIVER"/virtio*; do
		[ -e "$dev_path/features" ] || continue
		features=$(cat "$dev_path/features")
		[ "${features:5:1}" = 1 ] || continue
		dev=$(basename "$dev_path")
		echo "$dev" 2>/dev/null >"$BALLOON_DRIVER/unbind" && PAUSED_BALLOONS+=("$dev")
	done
	if ((!${#PAUSED_BALLOONS[@]})) && [ -w "$REPORTING_ORDER" ]; then
		order=$(cat "$REPORTING_ORDER")
		if ((order <= 10)) && echo 11 >"$REPORTING_ORDER" 2>/dev/null && [ "$(cat "$REPORTING_ORDER")" = 11 ]; then
			SAVED_REPORTING_ORDER=$order
		fi
	fi
	paused_how="${PAUSED_BALLOONS[*]}"
	[ -n "$SAVED_REPORTING_ORDER" ] && paused_how="page_reporting_order $SAVED_REPORTING_ORDER -> 11"
	if [ -n "$paused_how" ]; then
		trap resume_page_reporting EXIT
		# All but 3 GB of the available memory, within the tmpfs's free space.
		avail_mb=$(awk '/^MemAvailable/ {print int($2 / 1024)}' /proc/meminfo)
		shm_mb=$(df -Pm /dev/shm | awk 'NR == 2 {print $4}')
		touch_mb=$((avail_mb - 3072))
		((touch_mb > shm_mb - 1024)) && touch_mb=$((shm_mb - 1024))
		log "paused free page reporting ($paused_how) until the run ends; touching ${touch_mb} MB of free memory once"
		if ((touch_mb > 0)); then
			fallocate -l "${touch_mb}M" "$TOUCH_FILE" || log "could not touch the free memory (fallocate failed)"
			rm -f "$TOUCH_FILE"
		fi
	fi
fi

if ((MICRO)); then
	log "building the micro-benchmarks (build/bench, Release)"
	cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DDVE_BENCH=ON >/dev/null
	cmake --build build/bench --target micro_bench -j"$(nproc)" >/dev/null
fi

# The micro-benchmarks run before the database benchmark, never at the same time; bench.py puts
# their summary into the one report.
if ((MICRO)); then
	mkdir -p bench/results
	MICRO_JSON="bench/results/$STAMP-micro.json"
	log "running the micro-benchmarks"
	build/bench/micro_bench --benchmark_out="$MICRO_JSON" --benchmark_out_format=json >&2
	ARGS+=(--micro-json "$MICRO_JSON")
fi

status=0
python3 bench/bench.py "${ARGS[@]}" || status=$?

# The chart: bench/results/<stamp>.png, and docs/bench.png (the README's) after a run of every
# variant. Debian's matplotlib belongs to /usr/bin/python3, which may not be the python3 on PATH.
if ((!MICRO_ONLY)) && [ -f "bench/results/$STAMP.json" ]; then
	plotter=""
	for py in python3 /usr/bin/python3; do
		if "$py" -c 'import matplotlib' 2>/dev/null; then plotter=$py; break; fi
	done
	if [ -z "$plotter" ]; then
		log "no chart: matplotlib is missing (apt-get install python3-matplotlib)"
	else
		"$plotter" bench/plot.py "bench/results/$STAMP.json" -o "bench/results/$STAMP.png" || status=1
		if [ -z "$ONLY" ]; then
			"$plotter" bench/plot.py "bench/results/$STAMP.json" -o docs/bench.png || status=1
		fi
	fi
fi
exit "$status"
