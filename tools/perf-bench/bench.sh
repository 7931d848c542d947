#!/bin/sh
# SPDX-License-Identifier: MIT
# bench.sh: what `make bench` runs. Installs wrk when it is missing, seeds
# the reference data set into a scratch folder, then serves it twice, with
# the read cache on (PGHL_RESULT_CACHE=1) and off (=0), and runs
# build/perf-bench against each, printing both tables.
#
#   sh tools/perf-bench/bench.sh BUILD [perf-bench options...]
#
# SEED_FLAGS (e.g. "--scale 0.1") go to perf-seed; BENCH_JSON=NAME writes
# NAME-cache-on.json and NAME-cache-off.json. Exit code: the worse of the
# two perf-bench runs (1: a p95 over --budget-ms).
set -eu
BUILD=$1
shift

need_wrk() {
	command -v wrk >/dev/null && return 0
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || { echo "bench: wrk is needed: apt-get install wrk (as root)" >&2; exit 2; }
		sudo=sudo
	fi
	echo "bench: installing wrk"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# serve CACHE: starts the server on the seeded data, sets $server and $url.
serve() {
	port=$(free_port)
	url=http://127.0.0.1:$port
	PGHL_RESULT_CACHE=$1 "$BUILD/hyperlevel" serve --data-dir "$dir/data" --config /dev/null \
		--modules-dir "$BUILD/modules" --plugins-dir plugins.d --web-dir webui \
		--port "$port" --backups no >"$dir/log" 2>&1 &
	server=$!
	for _ in $(seq 100); do
		curl -fs "$url/api/health" >/dev/null 2>&1 && return 0
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	echo "bench: the server did not start:" >&2
	cat "$dir/log" >&2
	exit 2
}

stop() {
	if [ -n "$server" ] && kill "$server" 2>/dev/null; then
		wait "$server" 2>/dev/null || true
	fi
	server=""
}

need_wrk
dir=$(mktemp -d)
server=""
trap 'stop; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
echo "bench: seeding ${SEED_FLAGS:-the full data set} (perf-seed)"
# shellcheck disable=SC2086
if ! "$BUILD/perf-seed" --data-dir "$dir/data" ${SEED_FLAGS:-} >"$dir/seed.log" 2>&1; then
	cat "$dir/seed.log" >&2
	exit 2
fi
grep ' rows in ' "$dir/seed.log"
worst=0
for cache in 1 0; do
	serve $cache
	name=$([ $cache = 1 ] && echo on || echo off)
	echo
	echo "== read cache $name (PGHL_RESULT_CACHE=$cache) =="
	rc=0
	if [ -n "${BENCH_JSON:-}" ]; then
		"$BUILD/perf-bench" --url "$url" --json "$BENCH_JSON-cache-$name.json" "$@" || rc=$?
	else
		"$BUILD/perf-bench" --url "$url" "$@" || rc=$?
	fi
	if [ $rc -gt $worst ]; then worst=$rc; fi
	stop
done
exit $worst
