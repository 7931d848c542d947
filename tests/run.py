#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs every test against each build folder given (e.g. build build-asan):
the unit test binaries, the integration tests (tests/integration/test_*.py,
every function named test_*) and, for a build without sanitizers, the
browser tests (tests/e2e/*.test.mjs); for a folder holding fuzz targets
(build-fuzz/fuzz/), each target for FUZZ_SECONDS (default 15) instead.
With --package, the package test (make check-package) runs beside them.

The tests mostly wait (for a server, a browser, a disk), so they run side
by side: each unit binary, test file, browser file and fuzz target is a job
of its own, HL_JOBS at a time (default: two per CPU), the longest first
(as the last run in the first build folder measured them; in a fresh
tree, as tests/times.json has them, seconds a full run took on a 2-core
machine, from a BUILD/test-times.json (which keeps milliseconds); else by their
size, twice for a sanitized build), beside two lanes where the browser
files and fuzz targets, which keep a CPU busy, take turns. A job's lines are printed whole
when it ends. HL_PARTS=unit,integration,browser picks parts (all by
default); HL_TEST=text picks tests whose file::name holds the text.

Prints a line per test, then the time each part took and the slowest
tests, and ends with "N passed, N failed"; exits 1 if anything failed.

`run.py --file BUILD FILE` runs one integration test file (a job's own
process, so that the files share nothing)."""

import concurrent.futures
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INTEGRATION = os.path.join(ROOT, "tests", "integration")
E2E = os.path.join(ROOT, "tests", "e2e")
PORTS = 20000  # the jobs' port ranges begin here, 500 each (harness.free_port)
LANES = 2      # browser files and fuzz targets at once
RESULT = re.compile(r"^(ok|FAIL) +(\S+) (.+?)(?: \((?:[^()]*; )?([\d.]+) s\))?$")


class Job:
    """One process to run: `cmd` in `cwd`, its output read by `parse`
    into result lines "ok   BUILD NAME (S s)" / "FAIL BUILD NAME ...".
    `cpu`: it keeps a CPU busy all along (a fuzz target, a browser)."""

    def __init__(self, part, build, name, cmd, parse, cwd=ROOT, env=None, timeout=1800,
                 cpu=False, weight=0.0):
        self.part, self.build, self.name = part, build, name
        self.cmd, self.parse, self.cwd, self.env = cmd, parse, cwd, env
        self.timeout, self.cpu, self.weight = timeout, cpu, weight
        self.seconds = self.cpu_seconds = 0.0
        self.started = None
        self.lines = []

    @property
    def key(self):
        return "%s %s" % (self.build, self.name)

    def seconds_now(self):
        return time.time() - self.started

    def run(self):
        """Runs the command, its output read by threads; reaped with wait4
        for the CPU time it and every child it reaped used."""
        self.started = time.time()
        p = subprocess.Popen(self.cmd, cwd=self.cwd, env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, errors="replace")
        out, err = [], []
        readers = [threading.Thread(target=lambda f=f, into=into: into.append(f.read()))
                   for f, into in ((p.stdout, out), (p.stderr, err))]
        for r in readers:
            r.start()
        late = []
        timer = threading.Timer(self.timeout, lambda: (late.append(True), p.kill()))
        timer.start()
        _, status, usage = os.wait4(p.pid, 0)
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        for r in readers:
            r.join()
        p.stdout.close()
        p.stderr.close()
        self.cpu_seconds = usage.ru_utime + usage.ru_stime
        if late:
            self.lines = ["FAIL %s %s (no end within %d s)\n%s" % (
                self.build, self.name, self.timeout, "".join(out)[-4000:])]
        else:
            self.lines = self.parse(self, p.returncode, "".join(out), "".join(err))
        self.seconds = self.seconds_now()
        return self


# ---- the parts ---------------------------------------------------------------

def parse_unit(job, code, out, err):
    m = re.search(r"checks: (\d+) passed, (\d+) failed", out)
    sanitizer = "Sanitizer" in err or "runtime error:" in err
    if code == 0 and m and int(m.group(2)) == 0 and not sanitizer:
        return ["ok   %s %s (%s checks; %.2f s)" % (job.build, job.name, m.group(1), job.seconds_now())]
    return ["FAIL %s %s (exit %d)\n%s%s" % (job.build, job.name, code, out[-4000:], err[-4000:])]


def unit_jobs(build):
    folder = os.path.join(ROOT, build, "tests", "unit")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        path = os.path.join(folder, name)
        if not name.endswith(".d") and os.access(path, os.X_OK):
            yield Job("unit", build, "unit/" + name, [path], parse_unit, timeout=600)


def parse_lines(job, code, out, err):
    """A child that prints result lines itself (run.py --file)."""
    lines = [chunk for chunk in re.split(r"\n(?=ok   |FAIL )", out.strip()) if chunk]
    lines = [l for l in lines if RESULT.match(l.split("\n", 1)[0])]
    if code != 0 and not any(l.startswith("FAIL") for l in lines):
        lines.append("FAIL %s %s (exit %d)\n%s%s" % (job.build, job.name, code, out[-4000:],
                                                     err[-4000:]))
    return lines


def integration_jobs(build):
    for file in sorted(os.listdir(INTEGRATION)):
        if file.startswith("test_") and file.endswith(".py"):
            yield Job("integration", build, file,
                      [sys.executable, os.path.abspath(__file__), "--file", build, file],
                      parse_lines, weight=os.path.getsize(os.path.join(INTEGRATION, file)))


def run_file(build, file):
    """Every test_* of one integration file, a line each."""
    os.environ["HL_BUILD"] = build
    sys.path.insert(0, INTEGRATION)
    import harness
    harness.BUILD = os.path.join(ROOT, build)
    harness.SANITIZED = "asan" in build
    spec = importlib.util.spec_from_file_location(file[:-3], os.path.join(INTEGRATION, file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    only = os.environ.get("HL_TEST")
    failed = 0
    for name in [n for n in dir(mod) if n.startswith("test_")]:
        if only and only not in file + "::" + name:
            continue
        if getattr(mod, name).__dict__.get("normal_build_only") and "asan" in build:
            continue
        start = time.time()
        try:
            getattr(mod, name)()
            print("ok   %s %s::%s (%.2f s)" % (build, file, name, time.time() - start), flush=True)
        except Exception:
            failed += 1
            print("FAIL %s %s::%s\n%s" % (build, file, name, traceback.format_exc()), flush=True)
    return 1 if failed else 0


TAP_RESULT = re.compile(r"^( *)(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$")


def parse_tap(job, code, out, err):
    """node's test runner's TAP, its tests counted one by one (a suite's
    line, printed after its tests, is not one)."""
    lines = out.splitlines()
    results = []
    deeper = None
    for i, line in enumerate(lines):
        m = TAP_RESULT.match(line)
        if not m:
            continue
        indent = len(m.group(1))
        suite = deeper is not None and deeper > indent
        deeper = indent
        if suite or m.group(4):
            continue
        seconds = re.search(r"duration_ms: ([\d.]+)", "\n".join(lines[i + 1:i + 4]))
        took = " (%.2f s)" % (float(seconds.group(1)) / 1000) if seconds else ""
        name = "%s::%s" % (job.name, m.group(3))
        if m.group(2) == "ok":
            results.append("ok   %s %s%s" % (job.build, name, took))
            continue
        detail = []
        for d in lines[i + 1:i + 80]:
            if TAP_RESULT.match(d):
                break
            detail.append(d)
        results.append("FAIL %s %s%s\n%s" % (job.build, name, took, "\n".join(detail)))
    if code != 0 and not any(r.startswith("FAIL") for r in results):
        results.append("FAIL %s %s (exit %d after %d results)\n%s%s" % (
            job.build, job.name, code, len(results), out[-4000:], err[-4000:]))
    return results


def browser_jobs(build):
    """Through a browser a sanitized build would find nothing the
    integration tests do not, at many times the time: normal builds only."""
    if "asan" in build:
        return
    if not os.path.isdir(os.path.join(E2E, "node_modules")):
        yield Job("browser", build, "e2e", ["false"], lambda job, *_: [
            "FAIL %s browser: tests/e2e/node_modules is missing; `make check-browser` "
            "installs it" % build])
        return
    only = os.environ.get("HL_TEST")
    env = dict(os.environ, HL_BUILD=build)
    for file in sorted(f for f in os.listdir(E2E) if f.endswith(".test.mjs")):
        if not only or only in "e2e/" + file:
            yield Job("browser", build, "e2e/" + file,
                      ["node", "--test", "--test-reporter=tap", file], parse_tap, cwd=E2E, env=env,
                      timeout=1200, cpu=True, weight=4 * os.path.getsize(os.path.join(E2E, file)))


def fuzz_jobs(build):
    """Each libFuzzer target on its seed corpus (only read) and the corpus
    it grew before, in BUILD/fuzz-corpus/NAME; a crash is saved in
    BUILD/fuzz-crashes/. It passes when libFuzzer ends its time without
    finding anything."""
    seconds = int(os.environ.get("FUZZ_SECONDS", "15"))
    only = os.environ.get("HL_TEST")
    folder = os.path.join(ROOT, build, "fuzz")
    crashes = os.path.join(ROOT, build, "fuzz-crashes")
    os.makedirs(crashes, exist_ok=True)
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.endswith(".d") or not os.access(path, os.X_OK) or (only and only not in "fuzz/" + name):
            continue
        corpus = os.path.join(ROOT, build, "fuzz-corpus", name)
        os.makedirs(corpus, exist_ok=True)
        cmd = [path, "-max_total_time=%d" % seconds, "-timeout=10", "-rss_limit_mb=2048",
               "-print_final_stats=1", "-artifact_prefix=%s/%s-" % (crashes, name)]
        dictionary = os.path.join(ROOT, "tests", "fuzz", name + ".dict")
        if os.path.exists(dictionary):
            cmd.append("-dict=" + dictionary)
        cmd += [corpus, os.path.join(ROOT, "tests", "fuzz", "corpus", name)]
        yield Job("fuzz", build, "fuzz/" + name, cmd, parse_fuzz, timeout=seconds + 300,
                  cpu=True, weight=seconds * 1000)


def parse_fuzz(job, code, out, err):
    done = re.search(r"Done (\d+) runs in (\d+) second", err)
    if code == 0 and done:
        return ["ok   %s %s (%s runs; %s s)" % (job.build, job.name, done.group(1), done.group(2))]
    return ["FAIL %s %s (exit %d; the input is in %s/fuzz-crashes)\n%s"
            % (job.build, job.name, code, job.build, err[-6000:])]


def package_job(build):
    """The Debian packages installed in a Debian 12 root (it builds them
    from a clean copy of the tree first)."""
    return Job("package", build, "package", ["make", "--no-print-directory", "check-package"],
               parse_package, timeout=3600, weight=1e9)


def parse_package(job, code, out, err):
    if code == 0:
        return ["ok   %s package (%.2f s)" % (job.build, job.seconds_now())]
    return ["FAIL %s package (exit %d)\n%s%s" % (job.build, code, out[-6000:], err[-6000:])]


# ---- running them side by side ----------------------------------------------

def load_times(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def run_all(jobs, width):
    """Runs `jobs`, longest first: the browser files and fuzz targets in
    LANES lanes of their own (a browser or a fuzzer keeps a CPU busy, and a
    page that waits 10 s for an answer must get one), the rest `width` at
    a time beside them. Prints each job's lines as it ends."""
    lock = threading.Lock()
    jobs.sort(key=lambda j: -j.weight)

    slots = list(range(width + LANES))

    def one(job):
        with lock:
            slot = slots.pop()
        job.env = dict(job.env or os.environ, HL_PORT_BASE=str(PORTS + 500 * slot))
        job.run()
        with lock:
            slots.append(slot)
        with lock:
            for line in job.lines:
                print(line, flush=True)
        return job

    solo = [j for j in jobs if j.cpu]

    def lane():
        done = []
        while True:
            with lock:
                if not solo:
                    return done
                job = solo.pop(0)
            done.append(one(job))

    with concurrent.futures.ThreadPoolExecutor(max_workers=width + LANES) as pool:
        lanes = [pool.submit(lane) for _ in range(LANES)]
        rest = [pool.submit(one, j) for j in jobs if not j.cpu]
        return [j for f in lanes for j in f.result()] + [f.result() for f in rest]


def summary(jobs, elapsed):
    """Time per part (the jobs' own, the CPU they used, and the span they
    ran in) and the ten slowest tests."""
    parts = {}
    tests = []
    for job in jobs:
        k = (job.part, job.build)
        wall, cpu = parts.get(k, (0.0, 0.0))
        parts[k] = (wall + job.seconds, cpu + job.cpu_seconds)
        for line in job.lines:
            m = RESULT.match(line.split("\n", 1)[0])
            if m and m.group(4):
                tests.append((float(m.group(4)), m.group(2), m.group(3)))
    print("\ntime per part (the sum of its jobs' times, side by side; the CPU they used):")
    for (part, build), (wall, cpu) in sorted(parts.items(), key=lambda kv: -kv[1][0]):
        print("  %8.1f s  %8.1f s CPU  %s %s" % (wall, cpu, part, build))
    print("  %8.1f s  %8.1f s CPU  in all, from first to last"
          % (elapsed, sum(cpu for _, cpu in parts.values())))
    print("the slowest tests:")
    for s, build, name in sorted(tests, reverse=True)[:10]:
        print("  %8.2f s  %s %s" % (s, build, name))


def main():
    if sys.argv[1:2] == ["--file"]:
        return run_file(sys.argv[2], sys.argv[3])
    package = "--package" in sys.argv
    builds = [a for a in sys.argv[1:] if a != "--package"] or ["build"]
    # The server refuses root unless told; a test run as root tells it (the
    # makefile does too), and test_cli checks the refusal without it.
    if os.geteuid() == 0:
        os.environ.setdefault("PGHL_ALLOW_ROOT", "yes")
    parts = {"unit": unit_jobs, "integration": integration_jobs, "browser": browser_jobs}
    wanted = [parts[p] for p in os.environ.get("HL_PARTS", ",".join(parts)).split(",") if p in parts]
    jobs = []
    for build in builds:
        fuzz = os.path.isdir(os.path.join(ROOT, build, "fuzz"))
        for part in (fuzz_jobs,) if fuzz else wanted:
            jobs += list(part(build))
    if package:
        jobs.append(package_job(builds[0]))
    times_path = os.path.join(ROOT, builds[0], "test-times.json")
    times = load_times(times_path)
    known = {k: s * 1000 for k, s in load_times(os.path.join(ROOT, "tests", "times.json")).items()}
    for job in jobs:
        job.weight = times.get(job.key) or known.get(job.key) or \
            job.weight * (2 if "asan" in job.build else 1)
    width = int(os.environ.get("HL_JOBS") or 2 * (os.cpu_count() or 1))
    start = time.time()
    done = run_all(jobs, width)
    elapsed = time.time() - start
    if not os.environ.get("HL_TEST"):
        times.update({j.key: j.seconds * 1000 for j in done})
        with open(times_path, "w") as f:
            json.dump(times, f, indent=0, sort_keys=True)
    summary(done, elapsed)
    passed = sum(l.startswith("ok") for j in done for l in j.lines)
    failed = sum(l.startswith("FAIL") for j in done for l in j.lines)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
