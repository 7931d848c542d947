# SPDX-License-Identifier: MIT
"""bench-idle as a user runs it: it starts real servers with the numbers of
sub-accounts asked for, reports their memory, idle CPU and latencies in
levelrail's table shape (n/a for an endpoint that does not answer), samples
the full data set after its first start and times perf-seed, writes the
same to --json, and refuses bad options with one line. (Its figures
are measured by `make bench-idle`, not checked here.)"""

import json
import os
import subprocess
import tempfile

import harness


def idle(*args):
    return subprocess.run([os.path.join(harness.BUILD, "bench-idle")] + list(args),
                          capture_output=True, text=True, timeout=300)


def test_reports_each_step_measured_on_a_real_server():
    out = os.path.join(tempfile.mkdtemp(prefix="hl-idle-test-"), "out.json")
    p = idle("--counts", "0,3", "--seconds", "1", "--requests", "7", "--no-startup",
             "--endpoints", "/api/health,/api/agency/projects,/api/no/such", "--json", out)
    assert p.returncode == 0, p.stderr
    result = json.load(open(out))
    steps = result["steps"]
    assert [s["sub_accounts"] for s in steps] == [0, 3]
    for s in steps:
        assert 1 < s["rss_mb"] < 1000 and 0 <= s["cpu_percent"] < 100
        for path in ("/api/health", "/api/agency/projects"):
            f = s["endpoints"][path]
            assert 0 < f["p50"] <= f["p95"], (path, f)
        assert s["endpoints"]["/api/no/such"] is None
    assert result["startup"] is None and result["requests"] == 7
    lines = p.stdout.splitlines()
    assert "| Sub-accounts | RSS (MB) | CPU (%) |" in lines
    assert any(l.startswith("| 3 | %.1f |" % steps[1]["rss_mb"]) for l in lines), p.stdout
    assert "| `GET /api/no/such` | n/a | n/a |" in lines


def test_the_full_data_set_is_sampled_after_its_first_start():
    out = os.path.join(tempfile.mkdtemp(prefix="hl-idle-test-"), "out.json")
    p = idle("--counts", "0", "--seconds", "1", "--requests", "3", "--settle", "1",
             "--startup-runs", "1", "--seed-runs", "2", "--endpoints", "/api/health", "--json", out)
    assert p.returncode == 0, p.stderr
    start = json.load(open(out))["startup"]
    sd = start["seeding"]
    assert len(sd["runs_s"]) == 2 and min(sd["runs_s"]) <= sd["median_s"] <= max(sd["runs_s"])
    assert 50 < sd["db_mb"] < 1000 and 10 < sd["peak_mb"] < 2000, sd
    assert "Seeding the full data set (perf-seed): %.2f s (median of " % sd["median_s"] in p.stdout
    full = start["full"]
    # A second after the start the backup may still be running on every core.
    assert full["settle_s"] == 1 and 0 <= full["cpu_percent"] <= 100 * os.cpu_count()
    assert 1 < full["rss_anon_mb"] < full["rss_mb"] and 0 < full["rss_file_mb"] < full["rss_mb"]
    jobs = full["jobs"]
    # The first start has run jobs by then.
    assert jobs["slices"] >= 1 and jobs["budget_ms"] == 40 and 0 <= jobs["overruns"] <= jobs["slices"]
    assert jobs["slowest"].count(".") == 1 and jobs["max_slice_ms"] >= 0
    line = next(l for l in p.stdout.splitlines() if l.startswith("The full data set, 1 s after"))
    assert "(start-up backup made): %.1f MB resident" % full["rss_mb"] in line, line
    assert "the longest job slice %d ms (%s; budget 40 ms)" % (jobs["max_slice_ms"], jobs["slowest"]) in line


# It seeds the full data set and times it: under the sanitizers that is minutes of
# seeding that prove nothing more of the tool, whose server paths the other tests run there.
test_the_full_data_set_is_sampled_after_its_first_start.normal_build_only = True


def test_bad_options_are_refused_in_one_line():
    for args in (("--counts", "a,b"), ("--seconds", "0"), ("--counts", "-1"), ("--startup-runs", "0"),
                 ("--settle", "-1"), ("--seed-runs", "0")):
        p = idle(*args)
        assert p.returncode == 2 and p.stderr.strip().splitlines()[-1].startswith("bench-idle: error:"), \
            (args, p.stderr)
