#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench-idle: the server's idle footprint. For each number of sub-accounts
(0, 100 and 500 by default) it starts the server on a throwaway data
folder, creates an agency admin and the sub-accounts through the API, waits
5 s, samples the process's CPU time over an idle window and its resident
memory at the end, then sends sequential GET requests over one keep-alive
connection to each endpoint and reports p50 and p95. Last, on the full
data set (perf-seed): its first start, start-up backup and jobs' first
passes included, sampled the same way once it has run a minute (resident
memory, file pages apart, idle CPU, and the longest job slice against its
budget), then the start-up time to the first answered request; and perf-seed
itself, timed as a whole command over several runs, with its file's size
and its peak memory.

    bench-idle [--counts 0,100,500] [--seconds 60] [--requests 200]
               [--endpoints /api/health,...] [--settle 60]
               [--startup-runs 3] [--seed-runs 5] [--no-startup]
               [--json out.json]

Every figure is measured here, from /proc and the answers' timings; the
tables are printed in the shape levelrail publishes its own in."""

import argparse
import http.client
import json
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ADMIN = ("bench@example.test", "bench-pass-123")
DEMO = ("perf@example.test", "perf-pass-123")  # perf-seed's agency admin
SLICE_BUDGET_MS = 40  # a job slice's budget (hyperlevel.h)
ENDPOINTS = ["/api/health", "/api/auth/me", "/api/admin/locations", "/api/agency/projects",
             "/api/agency/overview", "/api/mobile/projects"]


class Fail(Exception):
    """A run that cannot be made: the message says why."""


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench-idle", description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.environ.get("BUILD", os.path.join(ROOT, "build")),
                   help="the build folder (default %(default)s)")
    p.add_argument("--counts", default="0,100,500", help="sub-accounts per step (default %(default)s)")
    p.add_argument("--seconds", type=float, default=60, help="idle window (default %(default)s)")
    p.add_argument("--requests", type=int, default=200, help="requests per endpoint (default %(default)s)")
    p.add_argument("--endpoints", default=",".join(ENDPOINTS), help="paths, comma-separated")
    p.add_argument("--settle", type=float, default=60,
                   help="seconds the full data set's first start runs before it is sampled"
                   " (default %(default)s)")
    p.add_argument("--startup-runs", type=int, default=3, help="start-ups timed (default %(default)s)")
    p.add_argument("--seed-runs", type=int, default=5, help="perf-seed runs timed (default %(default)s)")
    p.add_argument("--no-startup", action="store_true",
                   help="skip the full data set: its idle, start-up and seeding")
    p.add_argument("--json", help="write every figure there")
    args = p.parse_args(argv)
    try:
        args.counts = [int(n) for n in args.counts.split(",")]
    except ValueError:
        p.error("--counts takes whole numbers separated by commas, not %r" % args.counts)
    if any(n < 0 for n in args.counts) or args.seconds <= 0 or args.requests < 1 or \
            args.startup_runs < 1 or args.seed_runs < 1 or args.settle < 0:
        p.error("--counts and --settle must be 0 or more, --seconds, --requests,"
                " --startup-runs and --seed-runs above 0")
    args.endpoints = [e for e in args.endpoints.split(",") if e]
    return args


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The server on `data`, started and stopped by this tool."""

    def __init__(self, build, data, backups=False):
        self.build, self.data, self.port = build, data, free_port()
        self.backups = backups
        self.proc, self.cookie, self.log = None, None, None

    def command(self, verb):
        return [os.path.join(self.build, "hyperlevel"), verb, "--data-dir", self.data,
                "--config", "/dev/null", "--modules-dir", os.path.join(self.build, "modules"),
                "--plugins-dir", os.path.join(ROOT, "plugins.d"), "--port", str(self.port),
                "--backups", "yes" if self.backups else "no"]

    def start(self):
        """Start; the seconds until /api/health first answered. Its log
        goes to a file: a pipe nobody reads would stop it once full."""
        self.log = open(os.path.join(self.data, "server.log"), "w+")
        began = time.monotonic()
        self.proc = subprocess.Popen(self.command("serve"), stdout=subprocess.DEVNULL,
                                     stderr=self.log)
        while time.monotonic() - began < 60:
            if self.proc.poll() is not None:
                self.log.seek(0)
                raise Fail("the server stopped: " + self.log.read().strip()[-500:])
            try:
                if self.request("GET", "/api/health")[0] == 200:
                    return time.monotonic() - began
            except OSError:
                time.sleep(0.001)
        raise Fail("the server did not answer within 60 s")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)
        if self.log:
            self.log.close()

    def request(self, method, path, body=None, conn=None):
        c = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if body is not None:
            headers["Content-Type"] = "application/json"
        c.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        r = c.getresponse()
        data = r.read()
        if not conn:
            c.close()
        return r.status, r.getheader("Set-Cookie"), data

    def create_admin(self):
        p = subprocess.run(self.command("create-admin") + [ADMIN[0], "Bench Admin"],
                           input=ADMIN[1] + "\n", capture_output=True, text=True, timeout=120)
        if p.returncode:
            raise Fail("create-admin: " + p.stderr.strip()[-300:])

    def login(self, who=ADMIN):
        status, cookie, data = self.request("POST", "/api/auth/login",
                                            {"email": who[0], "password": who[1]})
        if status != 200 or not cookie:
            raise Fail("could not sign in: %d %s" % (status, data[:200]))
        self.cookie = cookie.split(";")[0]

    def thread_cpu_ns(self):
        """{thread id: its time on a CPU in nanoseconds}, from schedstat:
        /proc/PID/stat counts in clock ticks (10 ms), and over a minute one
        tick is already a third of the 0.05 % aim."""
        out = {}
        task = "/proc/%d/task" % self.proc.pid
        for tid in os.listdir(task):
            try:
                with open(os.path.join(task, tid, "schedstat")) as f:
                    out[tid] = int(f.read().split()[0])
            except FileNotFoundError:
                pass  # a thread that ended meanwhile
        return out

    def cpu_since(self, before):
        """Seconds on a CPU since `before` (a thread_cpu_ns()), thread by
        thread: a thread that ends meanwhile (the start-up backup's) takes
        its time with it, and summing the threads before and after gave a
        negative figure. A thread born meanwhile counts whole."""
        return sum(ns - before.get(tid, 0) for tid, ns in self.thread_cpu_ns().items()) / 1e9

    def rss_mb(self, field="VmRSS"):
        """Resident memory in MB: all of it, or RssAnon or RssFile."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def idle_cpu_percent(self, seconds):
        """CPU over the time that truly passed: on a busy machine a sleep
        overruns, and dividing by the time asked made two busy threads
        more than two cores."""
        began = time.monotonic()
        before = self.thread_cpu_ns()
        time.sleep(seconds)
        cpu = self.cpu_since(before)
        return 100 * cpu / (time.monotonic() - began)


def latencies(server, path, n):
    """p50 and p95 in ms of n sequential GETs on one connection, or None
    when the endpoint does not answer 200 (a module that is off)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    times = []
    for _ in range(n):
        began = time.perf_counter()
        status = server.request("GET", path, conn=conn)[0]
        times.append((time.perf_counter() - began) * 1000)
        if status != 200:
            conn.close()
            return None
    conn.close()
    times.sort()
    return {"p50": statistics.median(times), "p95": times[math.ceil(0.95 * len(times)) - 1]}


def step(args, count):
    """One number of sub-accounts: RSS, idle CPU and the latencies."""
    data = tempfile.mkdtemp(prefix="hl-idle-")
    server = Server(args.build, data)
    try:
        server.create_admin()
        server.start()
        server.login()
        for i in range(count):
            status, _, body = server.request("POST", "/api/admin/locations", {"name": "Client %d" % (i + 1)})
            if status != 201:
                raise Fail("creating a sub-account: %d %s" % (status, body[:200]))
        time.sleep(5)
        cpu = server.idle_cpu_percent(args.seconds)
        out = {"sub_accounts": count, "rss_mb": round(server.rss_mb(), 1),
               "cpu_percent": round(cpu, 3), "endpoints": {}}
        for path in args.endpoints:
            out["endpoints"][path] = latencies(server, path, args.requests)
        return out
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


SEED_TIMEOUT_S = 600


def seed(build, data, flags=()):
    """perf-seed into `data`, with its `flags`: its wall time in seconds and
    peak memory in MB (its own, from wait4)."""
    with tempfile.TemporaryFile() as err:
        began = time.monotonic()
        proc = subprocess.Popen([os.path.join(build, "perf-seed"), "--data-dir", data, *flags],
                                stdout=subprocess.DEVNULL, stderr=err)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - began > SEED_TIMEOUT_S:
                proc.kill()
                proc.wait()
                raise Fail("perf-seed did not finish within %d s" % SEED_TIMEOUT_S)
            time.sleep(0.005)
        elapsed = time.monotonic() - began
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise Fail("perf-seed: " + err.read().decode(errors="replace").strip()[-300:])
    return elapsed, usage.ru_maxrss / 1024


def seeding(args):
    """perf-seed on the full data set, each run into a fresh folder."""
    times, peaks, size = [], [], 0
    for _ in range(args.seed_runs):
        data = tempfile.mkdtemp(prefix="hl-idle-seed-")
        try:
            elapsed, peak = seed(args.build, data)
            times.append(elapsed)
            peaks.append(peak)
            size = os.path.getsize(os.path.join(data, "hyperlevel.db")) / (1024 * 1024)
        finally:
            shutil.rmtree(data, ignore_errors=True)
    return {"runs_s": [round(t, 2) for t in times], "median_s": round(statistics.median(times), 2),
            "db_mb": round(size, 1), "peak_mb": round(max(peaks), 1)}


def full_idle(args, data):
    """The full data set's first start, its start-up backup made: memory
    and idle CPU once it has settled, and its jobs' slices so far."""
    server = Server(args.build, data, backups=True)
    try:
        server.start()
        time.sleep(args.settle)
        cpu = server.idle_cpu_percent(args.seconds)
        out = {"settle_s": args.settle, "rss_mb": round(server.rss_mb(), 1),
               "rss_anon_mb": round(server.rss_mb("RssAnon"), 1),
               "rss_file_mb": round(server.rss_mb("RssFile"), 1), "cpu_percent": round(cpu, 3)}
        server.login(DEMO)
        status, _, body = server.request("GET", "/api/admin/metrics")
        if status != 200:
            raise Fail("the metrics: %d %s" % (status, body[:200]))
        jobs = json.loads(body)["jobs"]
        slowest = max(jobs, key=lambda j: j["max_ms"])
        out["jobs"] = {"max_slice_ms": slowest["max_ms"], "slowest": slowest["name"],
                       "overruns": sum(j["overruns"] for j in jobs),
                       "slices": sum(j["runs"] for j in jobs), "budget_ms": SLICE_BUDGET_MS}
        return out
    finally:
        server.stop()


def startup(args):
    """On a fresh full data set: its first start left idle (full_idle),
    then the median seconds to the first answer."""
    seeded = seeding(args)
    data = tempfile.mkdtemp(prefix="hl-idle-full-")
    try:
        seed(args.build, data)
        full = full_idle(args, data)
        times = []
        for _ in range(args.startup_runs):
            server = Server(args.build, data)
            try:
                times.append(server.start())
            finally:
                server.stop()
        return {"runs_ms": [round(t * 1000, 1) for t in times],
                "median_ms": round(statistics.median(times) * 1000, 1), "full": full,
                "seeding": seeded}
    finally:
        shutil.rmtree(data, ignore_errors=True)


def print_tables(steps, start):
    print("| Sub-accounts | RSS (MB) | CPU (%) |\n| - | - | - |")
    for s in steps:
        print("| %d | %.1f | %.3f |" % (s["sub_accounts"], s["rss_mb"], s["cpu_percent"]))
    print("\nLatency in ms, p50 / p95:\n")
    print("| Endpoint | " + " | ".join("%d sub-accounts" % s["sub_accounts"] for s in steps) + " |")
    print("| - |" + " - |" * len(steps))
    for path in steps[0]["endpoints"]:
        cells = []
        for s in steps:
            f = s["endpoints"][path]
            cells.append("%.2f / %.2f" % (f["p50"], f["p95"]) if f else "n/a")
        print("| `GET %s` | %s |" % (path, " | ".join(cells)))
    if start:
        f = start["full"]
        print("\nThe full data set, %g s after its first start (start-up backup made): %.1f MB"
              " resident (%.1f MB anonymous, %.1f MB file pages), %.3f %% CPU; the longest job"
              " slice %d ms (%s; budget %d ms), %d of %d slices over"
              % (f["settle_s"], f["rss_mb"], f["rss_anon_mb"], f["rss_file_mb"], f["cpu_percent"],
                 f["jobs"]["max_slice_ms"], f["jobs"]["slowest"], f["jobs"]["budget_ms"],
                 f["jobs"]["overruns"], f["jobs"]["slices"]))
        print("\nStart-up to the first answer on the full data set: %.1f ms (median of %s)"
              % (start["median_ms"], ", ".join("%.1f" % t for t in start["runs_ms"])))
        sd = start["seeding"]
        print("\nSeeding the full data set (perf-seed): %.2f s (median of %s), a %.1f MB database,"
              " %.1f MB peak memory" % (sd["median_s"], ", ".join("%.2f" % t for t in sd["runs_s"]),
                                       sd["db_mb"], sd["peak_mb"]))


def main(argv):
    args = parse_args(argv)
    try:
        steps = [step(args, n) for n in args.counts]
        start = None if args.no_startup else startup(args)
    except Fail as e:
        print("bench-idle: %s" % e, file=sys.stderr)
        return 2
    print_tables(steps, start)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"measured_at": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
                       "seconds": args.seconds, "requests": args.requests, "steps": steps,
                       "startup": start}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
