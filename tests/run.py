#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs every test against each build folder given (e.g. build build-asan):
the unit test binaries, then the integration tests (tests/integration/
test_*.py, every function named test_*), then, for a build without
sanitizers, the browser tests (tests/e2e/*.test.mjs); for a folder holding
fuzz targets (build-fuzz/fuzz/), each target for FUZZ_SECONDS (default 15)
instead. HL_PARTS=unit,integration,browser picks parts (all by default).
Prints a line per test and ends with "N passed, N failed"; exits 1 if
anything failed."""

import importlib.util
import os
import re
import subprocess
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_units(build):
    passed = failed = 0
    folder = os.path.join(ROOT, build, "tests", "unit")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        path = os.path.join(folder, name)
        if name.endswith(".d") or not os.access(path, os.X_OK):
            continue
        p = subprocess.run([path], capture_output=True, text=True, cwd=ROOT, timeout=600)
        m = re.search(r"checks: (\d+) passed, (\d+) failed", p.stdout)
        sanitizer = "Sanitizer" in p.stderr or "runtime error:" in p.stderr
        if p.returncode == 0 and m and int(m.group(2)) == 0 and not sanitizer:
            passed += 1
            print("ok   %s unit/%s (%s checks)" % (build, name, m.group(1)))
        else:
            failed += 1
            print("FAIL %s unit/%s (exit %d)\n%s%s" % (build, name, p.returncode,
                                                     p.stdout[-4000:], p.stderr[-4000:]))
    return passed, failed


def run_integration(build):
    os.environ["HL_BUILD"] = build
    passed = failed = 0
    folder = os.path.join(ROOT, "tests", "integration")
    sys.path.insert(0, folder)
    only = os.environ.get("HL_TEST")
    for file in sorted(os.listdir(folder)):
        if not (file.startswith("test_") and file.endswith(".py")):
            continue
        spec = importlib.util.spec_from_file_location(file[:-3] + "_" + build.replace("-", "_"),
                                                      os.path.join(folder, file))
        mod = importlib.util.module_from_spec(spec)
        import harness
        harness.BUILD = os.path.join(ROOT, build)
        harness.SANITIZED = "asan" in build
        spec.loader.exec_module(mod)
        for name in [n for n in dir(mod) if n.startswith("test_")]:
            if only and only not in file + "::" + name:
                continue
            if getattr(mod, name).__dict__.get("normal_build_only") and "asan" in build:
                continue
            start = time.time()
            try:
                getattr(mod, name)()
                passed += 1
                print("ok   %s %s::%s (%.2f s)" % (build, file, name, time.time() - start))
            except Exception:
                failed += 1
                print("FAIL %s %s::%s\n%s" % (build, file, name, traceback.format_exc()))
    return passed, failed


TAP_RESULT = re.compile(r"^( *)(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$")


def run_browser(build):
    """The browser tests: each tests/e2e/*.test.mjs under node's test
    runner (it starts its own server from this build, and Chromium), its
    tests counted one by one from the TAP it prints. Only for a build
    without sanitizers: through a browser they would find nothing the
    integration tests do not, at many times the time."""
    if "asan" in build:
        return 0, 0
    passed = failed = 0
    folder = os.path.join(ROOT, "tests", "e2e")
    only = os.environ.get("HL_TEST")
    if not os.path.isdir(os.path.join(folder, "node_modules")):
        print("FAIL %s browser: tests/e2e/node_modules is missing; `make check-browser` "
              "installs it" % build)
        return 0, 1
    env = dict(os.environ, HL_BUILD=build)
    for file in sorted(f for f in os.listdir(folder) if f.endswith(".test.mjs")):
        if only and only not in "e2e/" + file:
            continue
        p = subprocess.run(["node", "--test", "--test-reporter=tap", file], cwd=folder, env=env,
                           capture_output=True, text=True, errors="replace", timeout=1200)
        lines = p.stdout.splitlines()
        results = 0
        deeper = None
        for i, line in enumerate(lines):
            m = TAP_RESULT.match(line)
            if not m:
                continue
            indent = len(m.group(1))
            suite = deeper is not None and deeper > indent  # printed after its tests
            deeper = indent
            if suite or m.group(4):
                continue
            results += 1
            seconds = re.search(r"duration_ms: ([\d.]+)", "\n".join(lines[i + 1:i + 4]))
            took = " (%.2f s)" % (float(seconds.group(1)) / 1000) if seconds else ""
            if m.group(2) == "ok":
                passed += 1
                print("ok   %s e2e/%s::%s%s" % (build, file, m.group(3), took))
            else:
                failed += 1
                detail = []
                for d in lines[i + 1:i + 80]:
                    if TAP_RESULT.match(d):
                        break
                    detail.append(d)
                print("FAIL %s e2e/%s::%s%s\n%s" % (build, file, m.group(3), took, "\n".join(detail)))
        if p.returncode != 0 and not failed:
            failed += 1
            print("FAIL %s e2e/%s (exit %d after %d results)\n%s%s" % (
                build, file, p.returncode, results, p.stdout[-4000:], p.stderr[-4000:]))
    return passed, failed


def run_fuzz(build):
    """Each libFuzzer target on its seed corpus (only read) and the corpus
    it grew before, in BUILD/fuzz-corpus/NAME; a crash is saved in
    BUILD/fuzz-crashes/. One test per target: it passes when libFuzzer
    ends its time without finding anything."""
    passed = failed = 0
    seconds = int(os.environ.get("FUZZ_SECONDS", "15"))
    only = os.environ.get("HL_TEST")
    folder = os.path.join(ROOT, build, "fuzz")
    crashes = os.path.join(ROOT, build, "fuzz-crashes")
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.endswith(".d") or not os.access(path, os.X_OK):
            continue
        if only and only not in "fuzz/" + name:
            continue
        corpus = os.path.join(ROOT, build, "fuzz-corpus", name)
        os.makedirs(corpus, exist_ok=True)
        os.makedirs(crashes, exist_ok=True)
        cmd = [path, "-max_total_time=%d" % seconds, "-timeout=10", "-rss_limit_mb=2048",
               "-print_final_stats=1", "-artifact_prefix=%s/%s-" % (crashes, name)]
        dictionary = os.path.join(ROOT, "tests", "fuzz", name + ".dict")
        if os.path.exists(dictionary):
            cmd.append("-dict=" + dictionary)
        cmd += [corpus, os.path.join(ROOT, "tests", "fuzz", "corpus", name)]
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=ROOT,
                           timeout=seconds + 300)
        done = re.search(r"Done (\d+) runs in (\d+) second", p.stderr)
        if p.returncode == 0 and done:
            passed += 1
            print("ok   %s fuzz/%s (%s runs in %s s)" % (build, name, done.group(1), done.group(2)))
        else:
            failed += 1
            print("FAIL %s fuzz/%s (exit %d; the input is in %s)\n%s"
                  % (build, name, p.returncode, crashes, p.stderr[-6000:]))
    return passed, failed


def main():
    builds = sys.argv[1:] or ["build"]
    # The server refuses root unless told; a test run as root tells it (the
    # makefile does too), and test_cli checks the refusal without it.
    if os.geteuid() == 0:
        os.environ.setdefault("PGHL_ALLOW_ROOT", "yes")
    parts = {"unit": run_units, "integration": run_integration, "browser": run_browser}
    wanted = [parts[p] for p in os.environ.get("HL_PARTS", ",".join(parts)).split(",") if p in parts]
    total_passed = total_failed = 0
    for build in builds:
        fuzz = os.path.isdir(os.path.join(ROOT, build, "fuzz"))
        for part in (run_fuzz,) if fuzz else wanted:
            p, f = part(build)
            total_passed += p
            total_failed += f
    print("%d passed, %d failed" % (total_passed, total_failed))
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main())
