#!/bin/sh
# SPDX-License-Identifier: MIT
# bench.sh: what `make bench` runs. Installs wrk when it is missing, seeds
# the reference data set into a scratch folder, starts bench-hello (the
# HTTP floor), then serves the data twice, with the read cache on
# (PGHL_RESULT_CACHE=1) and off (=0), and runs build/perf-bench against
# each, printing both tables (with each read's system calls, counted by
# strace). Then the mixed load (perf-bench --mix), cache
# on and off, last because it writes.
#
#   sh tools/perf-bench/bench.sh BUILD [perf-bench options...]
#
# SEED_FLAGS (e.g. "--scale 0.1") go to perf-seed; MIX_FLAGS to the mixed
# runs (MIX_FLAGS=no skips them); BENCH_JSON=NAME writes NAME-cache-on.json,
# NAME-cache-off.json, NAME-mix-on.json and NAME-mix-off.json. Exit code:
# the worst of the perf-bench runs (1: a p95 over --budget-ms).
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
		--modules-dir "$BUILD/modules" --plugins-dir plugins.d --web-dir "$BUILD/web" \
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

# bench CACHE NAME OPTIONS...: serves with the cache on (1) or off (0) and
# runs perf-bench with OPTIONS; NAME names the JSON file.
bench() {
	cache=$1
	name=$2
	shift 2
	serve "$cache"
	state=$([ "$cache" = 1 ] && echo on || echo off)
	echo
	echo "== $name, read cache $state (PGHL_RESULT_CACHE=$cache) =="
	rc=0
	# The reads' system calls are counted too; the mix sends no single read.
	[ "$name" = mix ] || set -- --server-pid "$server" "$@"
	if [ -n "${BENCH_JSON:-}" ]; then
		"$BUILD/perf-bench" --url "$url" --json "$BENCH_JSON-$name-$state.json" "$@" || rc=$?
	else
		"$BUILD/perf-bench" --url "$url" "$@" || rc=$?
	fi
	if [ $rc -gt $worst ]; then worst=$rc; fi
	stop
}

hello_start() {
	hello_port=$(free_port)
	"$BUILD/tools/bench-hello" "$hello_port" &
	hello=$!
	for _ in $(seq 50); do
		curl -fs "http://127.0.0.1:$hello_port/" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "bench: bench-hello did not start" >&2
	exit 2
}

need_wrk
dir=$(mktemp -d)
server=""
hello=""
trap 'stop; [ -z "$hello" ] || kill "$hello" 2>/dev/null; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
echo "bench: seeding ${SEED_FLAGS:-the full data set} (perf-seed)"
# shellcheck disable=SC2086
if ! "$BUILD/perf-seed" --data-dir "$dir/data" ${SEED_FLAGS:-} >"$dir/seed.log" 2>&1; then
	cat "$dir/seed.log" >&2
	exit 2
fi
grep ' rows in ' "$dir/seed.log"
worst=0
hello_start
for cache in 1 0; do
	bench $cache cache --hello "http://127.0.0.1:$hello_port/" --hello-pid "$hello" "$@"
done
kill "$hello" 2>/dev/null
hello=""
if [ "${MIX_FLAGS:-}" != no ]; then
	for cache in 1 0; do
		# shellcheck disable=SC2086
		bench $cache mix --mix ${MIX_FLAGS:-}
	done
fi
exit $worst
