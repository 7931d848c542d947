#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""growth: how the server's costs grow with its data. It seeds three data
sets with perf-seed, timing each (wall time, peak memory, file size):

  1x    the reference data set: 100k contacts in 50 sub-accounts
  10x   ten times it: 1M contacts in 500 sub-accounts (--scale 10)
  one   the reference's 100k contacts in one sub-account (--locations 1)

and serves each with the read cache off, the way `make bench` serves its
own; once the server's jobs have done their first passes over the data
(settle), perf-bench sends every read endpoint 10 clients on 10x and 1x,
served side by side and measured step by step (a slow moment of the
machine then falls on both alike), and the contact list and search 1
client on the third. perf-bench measures
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


# Measured as a pair, 10x step by step against 1x: what is compared is
# their ratio.
PAIRED = ("10x", "1x")


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


def seeded(args, idle, name, data):
    """Seeds data set `name` into `data`; its figures."""
    seed_flags, holds, _ = SETS[name]
    print("growth: seeding %s (%s)" % (name, holds), file=sys.stderr, flush=True)
    seconds, peak = idle.seed(args.build, data, seed_flags)
    size = os.path.getsize(os.path.join(data, "hyperlevel.db")) / (1024 * 1024)
    # The seed's file is still being written out by the kernel (1.5 GB at
    # 10x): that is not the server's cost, so it is done first.
    flushed = time.monotonic()
    os.sync()
    print("growth: %s written out to disk in %.1f s" % (name, time.monotonic() - flushed),
          file=sys.stderr, flush=True)
    return {"holds": holds, "seed_flags": seed_flags,
            "seeding": {"seconds": round(seconds, 2), "peak_mb": round(peak, 1),
                        "db_mb": round(size, 1)}}


def served(idle, args, name, data, servers):
    """Starts a server on `data` (added to `servers`, which the caller
    stops) and waits for it to settle; its URL and seconds to settle."""
    server = idle.Server(args.build, data)
    servers.append(server)
    server.start()
    settled = settle(server)
    print("growth: %s settled after its start in %s" % (
        name, "%.1f s" % settled if settled is not None else
        "no time: still busy after %d s" % SETTLE_MAX_S), file=sys.stderr, flush=True)
    return "http://127.0.0.1:%d" % server.port, settled


def benched(idle, args, group, folders):
    """Measures the data sets of `group` (seeded in `folders`) with one
    perf-bench: a pair step by step (--against), so that a slow moment of
    the machine falls on both alike, or one alone. Their bench figures and
    seconds to settle, by name."""
    servers, out = [], {}
    try:
        urls = {n: served(idle, args, n, folders[n], servers) for n in group}
        first, *other = group
        jsons = {n: os.path.join(folders[n], "bench.json") for n in group}
        cmd = [os.path.join(args.build, "perf-bench"), "--url", urls[first][0],
               "--runs", str(args.runs), "--duration", str(args.duration),
               "--json", jsons[first]] + SETS[first][2]
        if other:
            cmd += ["--against", urls[other[0]][0], "--against-json", jsons[other[0]]]
        if subprocess.run(cmd, stdout=sys.stderr).returncode not in (0, 1):
            raise idle.Fail("perf-bench failed on %s" % " and ".join(group))
    finally:
        for server in servers:
            server.stop()
    for n in group:
        with open(jsons[n]) as f:
            out[n] = {"settled_s": urls[n][1], "bench": json.load(f)}
    return out


def measure(args, idle, names, paired):
    """Every data set of `names`: seeded, timed, served uncached and
    benchmarked, those of `paired` as a pair."""
    folders = {n: tempfile.mkdtemp(prefix="hl-growth-") for n in names}
    try:
        sets = {n: seeded(args, idle, n, folders[n]) for n in names}
        groups = ([paired] if paired else []) + [[n] for n in names if n not in paired]
        for group in groups:
            for n, figures_ in benched(idle, args, group, folders).items():
                sets[n].update(figures_)
    finally:
        for data in folders.values():
            shutil.rmtree(data, ignore_errors=True)
    return sets


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
        paired = [n for n in PAIRED if n in names]
        paired = paired if len(paired) == 2 else []
        sets = measure(args, idle, names, paired)
    except idle.Fail as e:
        print("growth: %s" % e, file=sys.stderr)
        return 2
    print_table(sets)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"started_at": started, "paired": paired, "sets": sets}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
