#!/usr/bin/env bash
# test/cluster.sh - a throwaway PostgreSQL cluster for demos, tests and benchmarks.
#
#   test/cluster.sh start    initdb (once) and start; prints the env to use
#   test/cluster.sh stop     stop it
#   test/cluster.sh env      print PGHOST/PGPORT/PGUSER exports
#
# The server refuses to run as root, so it runs as the `postgres` OS user. Data and socket
# live under ${DVE_PGROOT:-/tmp/datavalue_export_pg}; port ${DVE_PGPORT:-54329}. The server is
# the one pg_config names (Debian's PostgreSQL 15), or the binaries in ${DVE_PGBIN} (test/matrix.sh
# runs other majors that way). ${DVE_SERVER_ENV} (VAR=value words) is added to the server's
# environment when it starts (test/matrix.sh --sanitize preloads the sanitizer runtimes that way).
set -euo pipefail

PGBIN=${DVE_PGBIN:-$(pg_config --bindir)}
ROOT=${DVE_PGROOT:-/tmp/datavalue_export_pg}
PORT=${DVE_PGPORT:-54329}
DATA=$ROOT/data
SOCK=$ROOT/socket
AS_PG=()
if [ "$(id -u)" = 0 ]; then AS_PG=(runuser -u postgres --); fi

print_env() {
	echo "export PGHOST=$SOCK PGPORT=$PORT PGUSER=postgres"
}

case "${1:-}" in
start)
	mkdir -p "$ROOT" "$SOCK"
	if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$ROOT" "$SOCK"; fi
	if [ ! -f "$DATA/PG_VERSION" ]; then
		"${AS_PG[@]}" "$PGBIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
		cat >>"$DATA/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$SOCK'
port = $PORT
timezone = 'UTC'
shared_buffers = 1GB
work_mem = 64MB
maintenance_work_mem = 512MB
max_wal_size = 4GB
fsync = off
synchronous_commit = off
full_page_writes = off
jit = off
shared_preload_libraries = 'datavalue_export'
CONF
	fi
	if ! "${AS_PG[@]}" "$PGBIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
		# shellcheck disable=SC2086 # DVE_SERVER_ENV is a list of words
		"${AS_PG[@]}" env ${DVE_SERVER_ENV:-} "$PGBIN/pg_ctl" -D "$DATA" -l "$ROOT/server.log" -w start >/dev/null
	fi
	print_env
	;;
stop)
	if [ -f "$DATA/PG_VERSION" ]; then
		"${AS_PG[@]}" "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1 || true
	fi
	;;
env)
	print_env
	;;
*)
	echo "usage: $0 start|stop|env" >&2
	exit 2
	;;
esac
