#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""growth: how the server's costs grow with its data. It seeds three data
sets with perf-seed, timing each (wall time, peak memory, file size):

  1x    the reference data set: 100k contacts in 50 sub-accounts
  10x   ten times it: 1M contacts in 500 sub-accounts (--scale 10)
  one   the reference's 100k contacts in one sub-account (--locations 1)

and serves each with the read cache off, the way `make bench` serves its
own; once the server's jobs have done their first passes over the data
(settle), perf-bench sends every read endpoint 10 clients on 1x and 10x, and
the contact list and search 1 client on the third. perf-bench measures
the largest sub-account, which grows tenfold too (7 750 contacts at 1x,
77k at 10x): its lists are paged and read from indexes, so their figures
should stay where they are; the screens over every sub-account grow with
the sub-accounts, and the export with the contacts (perf-doc judges
each kind by its own aim). It prints the figures side by side and, with
--json, keeps them for perf-doc (make bench-doc GROWTH=yes).

    growth [--build build] [--runs 3] [--duration 2] [--sets 1x,10x,one]
           [--json out.json]

About 10 minutes on two cores: seeding 10x takes most of a minute, and
each data set's benchmark a few."""

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name: (perf-seed flags, what it holds, perf-bench flags)
SETS = {
    "1x": ([], "100k contacts in 50 sub-accounts", ["--concurrency", "10"]),
    "10x": (["--scale", "10", "--locations", "500"], "1M contacts in 500 sub-accounts",
            ["--concurrency", "10"]),
    "one": (["--locations", "1"], "100k contacts in one sub-account",
            ["--concurrency", "1", "--endpoints", "contacts,contacts-search"]),
}


def bench_idle():
    """tools/bench-idle/bench-idle.py as a module: its Server and seed()."""
    path = os.path.join(ROOT, "tools", "bench-idle", "bench-idle.py")
    spec = importlib.util.spec_from_file_location("bench_idle", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# A fresh data set keeps the server's jobs busy after its start (their
# first passes over it: about 20 s at 0.75 of a core at 10x, 2 s at 1x),
# which the first endpoints measured would share two cores with. The jobs
# begin a second after the start, so the benchmark waits until the server
# has used under SETTLED_PERCENT of a core in each of QUIET_S seconds in
# a row, for at most SETTLE_MAX_S, and says how long it waited.
SETTLED_PERCENT = 5
QUIET_S = 3
SETTLE_MAX_S = 180


def settle(server):
    """Seconds until the server had been quiet for QUIET_S seconds after
    its start, or None when it never was within SETTLE_MAX_S (then it is
    measured anyway)."""
    began, quiet = time.monotonic(), 0
    while time.monotonic() - began < SETTLE_MAX_S:
        quiet = quiet + 1 if server.idle_cpu_percent(1.0) < SETTLED_PERCENT else 0
        if quiet == QUIET_S:
            return round(time.monotonic() - began, 1)
    return None


def measure(args, idle, name):
    """One data set: seeded, timed, served uncached and benchmarked."""
    seed_flags, holds, bench_flags = SETS[name]
    data = tempfile.mkdtemp(prefix="hl-growth-")
    try:
        print("growth: seeding %s (%s)" % (name, holds), file=sys.stderr, flush=True)
        seconds, peak = idle.seed(args.build, data, seed_flags)
        size = os.path.getsize(os.path.join(data, "hyperlevel.db")) / (1024 * 1024)
        # The seed's file is still being written out by the kernel (1.5 GB
        # at 10x): that is not the server's cost, so it is done first.
        flushed = time.monotonic()
        os.sync()
        print("growth: %s written out to disk in %.1f s" % (name, time.monotonic() - flushed),
              file=sys.stderr, flush=True)
        server = idle.Server(args.build, data)
        out = os.path.join(data, "bench.json")
        try:
            server.start()
            settled = settle(server)
            print("growth: %s settled after its start in %s" % (
                name, "%.1f s" % settled if settled is not None else
                "no time: still busy after %d s" % SETTLE_MAX_S), file=sys.stderr, flush=True)
            cmd = [os.path.join(args.build, "perf-bench"), "--url",
                   "http://127.0.0.1:%d" % server.port, "--runs", str(args.runs),
                   "--duration", str(args.duration), "--json", out] + bench_flags
            if subprocess.run(cmd, stdout=sys.stderr).returncode not in (0, 1):
                raise idle.Fail("perf-bench failed on %s" % name)
        finally:
            server.stop()
        with open(out) as f:
            bench = json.load(f)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    return {"holds": holds, "seed_flags": seed_flags,
            "seeding": {"seconds": round(seconds, 2), "peak_mb": round(peak, 1),
                        "db_mb": round(size, 1)},
            "settled_s": settled,
            "bench": bench}


def figures(bench):
    """{endpoint: median figures} at the run's one level of clients."""
    return {s["name"]: s["median"] for s in bench["endpoints"]}


def print_table(sets):
    for name, s in sets.items():
        sd = s["seeding"]
        print("%-4s %s: seeded in %.2f s, %.1f MB, peak %.1f MB"
              % (name, s["holds"], sd["seconds"], sd["db_mb"], sd["peak_mb"]))
    if "1x" in sets and "10x" in sets:
        a, b = figures(sets["1x"]["bench"]), figures(sets["10x"]["bench"])
        print("\nwithout the cache, 10 clients: p50 / p95 in ms")
        print("%-22s %16s %16s %8s" % ("endpoint", "1x", "10x", "p95 x"))
        for n in a:
            if n in b:
                print("%-22s %7.3g / %6.3g %7.3g / %6.3g %7.2fx" % (
                    n, a[n]["p50"], a[n]["p95"], b[n]["p50"], b[n]["p95"],
                    b[n]["p95"] / a[n]["p95"] if a[n]["p95"] else 0))
    if "one" in sets:
        for n, m in figures(sets["one"]["bench"]).items():
            print("one sub-account, 1 client: %s p50 %.3g ms, p95 %.3g ms" % (n, m["p50"], m["p95"]))


def main(argv):
    p = argparse.ArgumentParser(prog="growth", description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build folder")
    p.add_argument("--runs", type=int, default=3, help="perf-bench runs per step (default 3)")
    p.add_argument("--duration", type=int, default=2, help="seconds per run (default 2)")
    p.add_argument("--sets", default=",".join(SETS), help="data sets, of %s" % ", ".join(SETS))
    p.add_argument("--json", metavar="FILE", help="write every figure there")
    args = p.parse_args(argv)
    names = args.sets.split(",")
    for n in names:
        if n not in SETS:
            p.error("--sets: '%s' is not one of %s" % (n, ", ".join(SETS)))
    if args.runs < 1 or args.duration < 1:
        p.error("--runs and --duration must be at least 1")
    idle = bench_idle()
    os.environ["PGHL_RESULT_CACHE"] = "0"  # every server it starts: the cache off
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        sets = {n: measure(args, idle, n) for n in names}
    except idle.Fail as e:
        print("growth: %s" % e, file=sys.stderr)
        return 2
    print_table(sets)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"started_at": started, "sets": sets}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
