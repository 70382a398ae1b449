#!/usr/bin/env bash
# scripts/ensure_packages.sh - install the Debian packages given that are not installed yet.
#
#   bash scripts/ensure_packages.sh WHO PACKAGE...
#
# WHO names the caller in messages. Runs apt-get update + install (no recommends) only when
# something is missing; without root it lists what is missing and fails. Used by
# scripts/setup.sh, bench/run.sh and bench/java/build.sh.
set -euo pipefail

who=${1:?usage: ensure_packages.sh WHO PACKAGE...}
shift
missing=()
for p in "$@"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
	if [ "$(id -u)" != 0 ]; then
		echo "$who: missing packages (${missing[*]}); run as root or install them" >&2
		exit 1
	fi
	echo "$who: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
