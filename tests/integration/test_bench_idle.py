# SPDX-License-Identifier: MIT
"""bench-idle as a user runs it: it starts real servers with the numbers of
sub-accounts asked for, reports their memory, idle CPU and latencies in
levelrail's table shape (n/a for an endpoint that does not answer), writes
the same to --json, and refuses bad options with one line. (Its figures
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


def test_bad_options_are_refused_in_one_line():
    for args in (("--counts", "a,b"), ("--seconds", "0"), ("--counts", "-1"), ("--startup-runs", "0")):
        p = idle(*args)
        assert p.returncode == 2 and p.stderr.strip().splitlines()[-1].startswith("bench-idle: error:"), \
            (args, p.stderr)
