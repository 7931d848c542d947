# SPDX-License-Identifier: MIT
"""perf-bench as a user runs it against a real server: it picks the
sub-account with the most contacts, measures with wrk and reports real
counts and percentiles, skips endpoints of modules that are not built,
revokes its token, stops after --requests, and says when a p95 is over
the budget. (Its figures are measured by `make bench`, not checked here.)"""

import json
import os
import subprocess
import tempfile

import harness


def bench(server, *args):
    out = os.path.join(tempfile.mkdtemp(prefix="hl-bench-"), "out.json")
    p = subprocess.run([os.path.join(harness.BUILD, "perf-bench"),
                        "--url", "http://127.0.0.1:%d" % server.port,
                        "--user", harness.ADMIN[0], "--password", harness.ADMIN[1],
                        "--concurrency", "1", "--json", out] + list(args),
                       capture_output=True, text=True, timeout=120)
    result = json.load(open(out)) if os.path.exists(out) else None
    return p, result


def server_with_contacts():
    """Two sub-accounts; the second holds more contacts."""
    s, admin, (small, big) = harness.agency(locations=("Small client", "Big client"))
    for location, n in ((small, 2), (big, 5)):
        for i in range(n):
            r = admin.post("/api/contacts", {"first_name": "Anna", "last_name": "Berg%d" % i,
                                             "email": "anna%d.%d@example.test" % (location, i)},
                           headers={"X-Location-Id": str(location)})
            assert r.status == 201, r.body
    return s, big


def test_measures_the_largest_sub_account_with_every_request_counted():
    s, big = server_with_contacts()
    try:
        p, out = bench(s, "--duration", "1", "--endpoints", "contacts,dashboard")
        assert p.returncode == 0, p.stderr
        assert out["location"] == {"id": big, "name": "Big client", "contacts": 5}
        assert out["cache"] == "hit"
        [step] = out["endpoints"]
        assert (step["name"], step["clients"], step["threads"]) == ("contacts", 1, 1)
        [run] = step["runs"]
        assert run["requests"] > 100 and run["recorded"] == run["requests"]
        assert run["non2xx"] == 0 and not any(run["socket_errors"].values())
        assert run["undo_checked"] is True
        ms = run["ms"]
        assert 0 < ms["min"] <= ms["p50"] <= ms["p95"] <= ms["p99"] <= ms["max"] < 1000
        assert step["median"]["p50"] == ms["p50"] and step["median"]["rps"] > 100
        assert out["skipped"] == [{"name": "dashboard", "path": "/api/dashboard",
                                   "reason": "404: their modules are not built yet"}]
        table = p.stdout.splitlines()
        assert any(line.split()[:3] == ["contacts", "/api/contacts", "1"] for line in table)
        assert "skipped (404: their modules are not built yet): dashboard" in table
        # The token it made for wrk is revoked.
        assert s.sql("SELECT name, revoked_at IS NOT NULL FROM api_tokens") == [("perf-bench", 1)]
    finally:
        s.close()


def test_stops_after_the_requests_and_exits_1_over_the_budget():
    s, _ = server_with_contacts()
    try:
        p, out = bench(s, "--requests", "300", "--endpoints", "contact", "--budget-ms", "0.001")
        assert p.returncode == 1, p.stderr
        run = out["endpoints"][0]["runs"][0]
        assert run["requests"] == 300 and run["duration_s"] < 30
        assert out["over_budget"] == [{"name": "contact", "clients": 1}]
        assert "over budget: contact at 1 clients" in p.stdout
    finally:
        s.close()
