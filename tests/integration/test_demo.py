# SPDX-License-Identifier: MIT
"""The demo data of `make run` (perf-seed --demo) as a prospect sees it
through the server: an agency that is doing well, today. Few overdue
tasks, contact health spread over the range, deals in every stage with
recent wins and losses, invoices of every state in every sub-account,
and the last 30 days full. The benchmark's data set is test_seed.py's."""

import atexit
import os
import shutil
import subprocess
import tempfile

import harness
from harness import MODULES, SEED_PASSWORD, Server

# As `make run` seeds ./data.
FLAGS = ("--scale", "0.05", "--locations", "10")
LOCATIONS = 10
_seeded = []


def demo_copy():
    """A copy of demo data seeded once for this file."""
    if not _seeded:
        d = tempfile.mkdtemp(prefix="hl-demo-")
        atexit.register(shutil.rmtree, d, True)
        p = subprocess.run([os.path.join(harness.BUILD, "perf-seed"), "--demo", "--data-dir", d]
                           + list(FLAGS), capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, PGHL_PASSWORD_LEAST_WORK="yes", **harness.ONE_SHOT))
        harness.check_sanitizers(p.stderr)
        assert p.returncode == 0, p.stderr
        _seeded.append(d)
    copy = tempfile.mkdtemp(prefix="hl-demo-")
    atexit.register(shutil.rmtree, copy, True)
    shutil.copy(os.path.join(_seeded[0], "hyperlevel.db"), copy)
    return copy


def demo_server():
    """A server on the demo data once every contact has a health score
    (the contacts module's job scores them a second after the start), and
    its agency admin signed in: (server, client)."""
    s = Server(modules=MODULES, data_dir=demo_copy(), env={"PGHL_BACKUPS": "0"})
    s.start()
    assert harness.wait_for(lambda: s.sql("SELECT count(*) FROM contacts WHERE deleted_at IS NULL"
                                          " AND health_score IS NULL") == [(0,)], 60, 0.1)
    return s, s.login("perf@example.test", SEED_PASSWORD)


def in_location(location):
    return {"X-Location-Id": str(location)}


def test_the_demo_agency_looks_healthy():
    s, admin = demo_server()
    with s:
        projects = admin.get("/api/agency/projects").json()["data"]
        assert len(projects) == LOCATIONS
        for p in projects:
            tasks = p["counts"]["tasks"]
            # A few late tasks, not most: about one open task in twenty.
            assert 0 < tasks["overdue"] <= tasks["open"] // 8, (p["name"], tasks)
            assert 25 <= p["health_score"] <= 75, (p["name"], p["health_score"])
        overview = admin.get("/api/agency/overview").json()
        assert 30 <= overview["health_score"] <= 70, overview["health_score"]


def test_contact_health_is_spread_over_the_range():
    s, admin = demo_server()
    with s:
        # As each contact's page shows it (the list does not).
        contacts = harness.every_page(admin, "/api/contacts?location_id=1", limit=1000)
        scores = [admin.get("/api/contacts/%d?location_id=1" % c["id"]).json()["health_score"]
                  for c in contacts]
        assert scores and None not in scores
        bands = [sum(1 for h in scores if lo <= h < lo + 20) for lo in (0, 20, 40, 60, 80)]
        bands[4] += scores.count(100)
        # Every fifth of the range holds some contacts, none nearly all.
        assert all(n >= len(scores) // 50 for n in bands), bands
        assert max(bands) < len(scores) * 0.6, bands


def test_every_invoice_state_is_there_in_every_sub_account():
    s, admin = demo_server()
    with s:
        for location in range(1, LOCATIONS + 1):
            total = {}
            for status in ("draft", "sent", "paid", "partially_paid", "overdue", "void"):
                r = admin.get("/api/invoices?status=%s&count=1&limit=1" % status,
                              headers=in_location(location))
                assert r.status == 200, r.body
                total[status] = r.json()["total"]
            assert all(total.values()), (location, total)
            # Most are paid; a few are late.
            assert total["paid"] > total["overdue"] + total["void"], (location, total)


def test_the_dashboard_is_alive_today():
    s, admin = demo_server()
    with s:
        d = admin.get("/api/dashboard", headers=in_location(1)).json()
        assert d["contacts"]["new"] > 0
        assert d["deals"]["won"]["count"] > 0 and d["deals"]["lost"]["count"] > 0
        assert d["deals"]["won"]["count"] > d["deals"]["lost"]["count"]
        assert d["invoices"]["paid_cents"] > 0
        # Open deals in every stage, more in the first than the last.
        stages = d["pipelines"][0]["stages"]
        assert all(st["count"] > 0 for st in stages), stages
        assert stages[0]["count"] > stages[-1]["count"], stages
        # Messages came in over the last week, not only months ago.
        week = d["series"][-7:]
        assert sum(day["messages_received"] for day in week) > 0, week



def test_a_contact_with_a_deal_tells_what_happened_newest_first():
    s, admin = demo_server()
    with s:
        ((deal, name, contact),) = s.sql("SELECT id, name, contact_id FROM opportunities o"
                                         " WHERE location_id = 1 AND status = 'won' AND EXISTS"
                                         " (SELECT 1 FROM conversations c WHERE c.contact_id = o.contact_id)"
                                         " ORDER BY id LIMIT 1")
        lines = harness.every_page(admin, "/api/contacts/%d/timeline?location_id=1" % contact, limit=100)
        said = {t["line"]: t for t in lines}
        assert "Deal %s won" % name in said, sorted(said)
        assert [l for l in said if l.startswith("Deal %s created in " % name)], sorted(said)
        assert said["Deal %s won" % name]["link"] == "/opportunities/%d" % deal
        # What else happened around them: their messages, at least.
        assert [l for l in said if " sent: " in l or " received: " in l], sorted(said)
        ats = [t["at"] for t in lines]
        assert ats == sorted(ats, reverse=True), ats
