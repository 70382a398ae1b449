#!/usr/bin/env bash
# bench/java/build.sh - compile the DHIS2 2.42 Java peer of the benchmark (Dhis242JsonExport).
#
#   bench/java/build.sh            prints the classpath to run it with:
#   java -Duser.timezone=UTC -cp "$(bench/java/build.sh)" Dhis242JsonExport --help-less options...
#
# Only Debian's jars (no Maven): PgJDBC (libpostgresql-jdbc-java), Jackson core
# (libjackson2-core-java) and junixsocket (libjunixsocket-java, for the cluster's Unix socket;
# the throwaway cluster listens on no TCP port). Missing packages are installed when run as root.
# Classes go to build/bench-java/ and are rebuilt only when the source is newer.
set -euo pipefail
cd "$(dirname "$0")/../.."

PACKAGES=(openjdk-17-jdk-headless libpostgresql-jdbc-java libjackson2-core-java libjunixsocket-java)
JARS=(postgresql.jar jackson-core.jar junixsocket-common.jar)

bash scripts/ensure_packages.sh bench/java/build.sh "${PACKAGES[@]}"

classpath=""
for jar in "${JARS[@]}"; do
	classpath+="/usr/share/java/$jar:"
done
OUT=build/bench-java
SRC=bench/java/Dhis242JsonExport.java
if [ ! -f "$OUT/Dhis242JsonExport.class" ] || [ "$SRC" -nt "$OUT/Dhis242JsonExport.class" ]; then
	mkdir -p "$OUT"
	javac -Xlint:all -cp "$classpath" -d "$OUT" "$SRC" >&2
fi
echo "$(pwd)/$OUT:$classpath"
