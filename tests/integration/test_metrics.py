# SPDX-License-Identifier: MIT
"""Metrics and slow logs as an operator sees them: the numbers match the
requests made, the Prometheus text is served to admins and to the
configured scraper token only, slow requests and statements are logged by
pattern and fingerprint, never with ids, queries or literals."""

import os
import re

import harness
from harness import agency, job_runs, wait_for

def server(env=None, plugins=None):
    s, admin, (loc,) = agency(("contacts", "reader"), env=env, plugins=plugins)
    return s, admin, loc


def route(metrics, method, pattern):
    return next(r for r in metrics["routes"] if r["method"] == method and r["pattern"] == pattern)


def test_metrics_match_the_requests_made():
    s, admin, loc = server()
    with s:
        for _ in range(5):
            assert admin.get("/api/reader/items?location_id=%d&size=4000" % loc,
                             headers={"Accept-Encoding": "gzip"}).status == 200
        for _ in range(3):
            assert admin.get("/api/reader/items?location_id=%d&size=nope" % loc).status == 400
        for _ in range(2):
            assert admin.post("/api/reader/items", {"x": 1},
                              headers={"X-Location-Id": str(loc)}).status == 201
        assert admin.get("/api/no/such/thing").status == 404
        m = admin.get("/api/admin/metrics").json()
        items = route(m, "GET", "/api/reader/items")
        assert items["count"] == 8
        assert items["status"] == {"1xx": 0, "2xx": 5, "3xx": 0, "4xx": 3, "5xx": 0}
        assert items["cache_misses"] == 4 and items["cache_hits"] == 4  # the 400s too
        assert 0 < items["p50_ms"] <= items["p95_ms"] <= items["p99_ms"]
        assert items["bytes_sent"] < items["bytes_out"]  # gzip
        posts = route(m, "POST", "/api/reader/items")
        assert posts["count"] == 2 and posts["status"]["2xx"] == 2
        assert posts["bytes_in"] == 2 * len('{"x": 1}')
        assert route(m, "*", "(no route)")["status"]["4xx"] == 1
        assert m["tables"]["reader_items"] == 2
        assert m["sqlite"]["journal_mode"] == "wal" and m["sqlite"]["synchronous"] == 1
        # No memory map by default: each write would make every reader map
        # the file anew (sqlite_mmap_mb in hyperlevel.conf).
        assert m["sqlite"]["mmap_size"] == 0
        mem = m["memory"]
        assert mem["rss_bytes"] > 1 << 20 and 0 < mem["anon_bytes"] < mem["rss_bytes"]
        # A reader has read pages of the database by now, and kept them.
        assert mem["sqlite_page_cache_bytes"] >= 4096
        # ... and freed small blocks, kept for the next request: at most
        # 1 MB for each connection (the default pool: twice the cores and
        # the writer).
        assert 0 < mem["sqlite_block_cache_bytes"] <= (2 * os.cpu_count() + 1) << 20
        # glibc's count of its heap (its free part holds at least the top
        # of the heap); under AddressSanitizer, whose allocator serves
        # malloc, glibc's heap stays empty.
        assert (mem["heap_used_bytes"] > 0) != harness.SANITIZED
        assert (mem["heap_free_bytes"] > 0) != harness.SANITIZED
        # The default, or what the harness chose for a sanitized build.
        threads = int(s.env.get("PGHL_THREADS", 128))
        assert m["workers"]["threads"] == threads and m["workers"]["busy"] >= 1
        assert m["cache"]["enabled"] and m["cache"]["entries"] >= 1
        assert any(j["name"] == "contacts.purge" for j in m["jobs"])


def test_statements_are_counted_per_run():
    """Each run of a statement counts, a statement stepped in a loop as often
    as it ran: what the agency screens' test relies on."""
    s, admin, loc = server()
    with s:
        # After the start's PRAGMA optimize: an ANALYZE changes the schema,
        # and a statement stepped across that runs once more, re-prepared.
        assert wait_for(lambda: job_runs(s).get("core.optimize", 0) >= 1, 30, 0.05)
        anyone = s.client()
        for n in (0, 1, 7, 7):
            assert anyone.get("/api/reader/repeat?n=%d" % n).status == 200
        # A request is counted as its answer has gone: the last one may be
        # a moment behind the client.
        def repeat():
            return route(admin.get("/api/admin/metrics").json(), "GET", "/api/reader/repeat")
        assert wait_for(lambda: repeat()["count"] == 4, 10, 0.05), repeat()
        m = repeat()
        assert (m["count"], m["statements"]) == (4, 15), m
        text = admin.get("/metrics").body.decode()
        assert 'hyperlevel_sql_statements_total{method="GET",route="/api/reader/repeat"} 15' in text


def test_invalidations_count_the_kept_answers_a_write_outdated():
    """A miss that finds the answer kept but out of date is an invalidation;
    a first miss, or a write no read follows, is not."""
    s, admin, loc = server()
    with s:
        h = {"X-Location-Id": str(loc)}
        reads = ["/api/reader/items?size=%d" % n for n in (1, 2)]
        for path in reads + reads:
            assert admin.get(path, headers=h).status == 200
        assert admin.post("/api/reader/items", {"x": 1}, headers=h).status == 201
        for _ in range(3):
            assert admin.get(reads[0], headers=h).status == 200
        assert admin.post("/api/reader/items", {"x": 2}, headers=h).status == 201
        items = route(admin.get("/api/admin/metrics").json(), "GET", "/api/reader/items")
        assert (items["cache_misses"], items["cache_hits"], items["cache_invalidated"]) == (3, 4, 1)
        samples = parse_prometheus(admin.get("/metrics").body.decode())
        key = '{method="GET",route="/api/reader/items"}'
        assert samples["hyperlevel_cache_invalidations_total" + key] == 1


def test_row_counts_are_kept_30_seconds():
    s, admin, loc = server()
    with s:
        assert admin.get("/api/admin/metrics").json()["tables"]["reader_items"] == 0
        admin.post("/api/reader/items", {}, headers={"X-Location-Id": str(loc)})
        assert admin.get("/api/admin/metrics").json()["tables"]["reader_items"] == 0
        assert route(admin.get("/api/admin/metrics").json(), "POST", "/api/reader/items")["count"] == 1


def parse_prometheus(text):
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r'([a-z_]+)(\{[^}]*\})? (\S+)', line)
        assert m, line
        samples[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return samples


def test_prometheus_text_for_admins_and_the_scraper_token():
    s, admin, loc = server(env={"PGHL_METRICS_TOKEN": "scrape-secret-1"})
    with s:
        for _ in range(3):
            admin.get("/api/reader/items?location_id=%d" % loc)
        r = admin.get("/metrics")
        assert r.status == 200 and r.header("content-type").startswith("text/plain; version=0.0.4")
        samples = parse_prometheus(r.body.decode())
        key = '{method="GET",route="/api/reader/items"'
        assert samples['hyperlevel_requests_total%s,status="2xx"}' % key] == 3
        assert samples['hyperlevel_cache_requests_total%s,result="hit"}' % key] == 2
        assert samples['hyperlevel_request_duration_seconds_count%s}' % key] == 3
        assert samples['hyperlevel_table_rows{table="reader_items"}'] == 0
        assert samples["hyperlevel_resident_memory_bytes"] > 0
        assert samples["hyperlevel_sqlite_page_cache_bytes"] > 0
        assert samples["hyperlevel_sqlite_block_cache_bytes"] > 0
        scraper = s.client()
        assert scraper.get("/metrics").status == 401
        assert scraper.get("/metrics", headers={"Authorization": "Bearer wrong"}).status == 401
        r = scraper.get("/metrics", headers={"Authorization": "Bearer scrape-secret-1"})
        assert r.status == 200 and b"hyperlevel_requests_total" in r.body
        assert scraper.get("/api/admin/metrics",
                           headers={"Authorization": "Bearer scrape-secret-1"}).status == 401
        # An admin's API token limited to one location sees no agency figures.
        token = admin.post("/api/auth/tokens", {"name": "one", "location_id": loc}).json()["token"]
        one = s.client(headers={"Authorization": "Bearer " + token})
        assert one.get("/metrics").status == 403


def test_metrics_are_for_administrators_only():
    s, admin, loc = server()
    with s:
        admin.post("/api/admin/users", {"email": "lu@example.test", "name": "Lu",
                                        "role": "location_user", "password": "lu-pass-123",
                                        "location_ids": [loc]})
        lu = s.login("lu@example.test", "lu-pass-123")
        assert lu.get("/api/admin/metrics").status == 403
        assert lu.get("/metrics").status == 403
        assert s.client().get("/api/admin/metrics").status == 401
        assert s.client().get("/metrics").status == 401


def test_slow_requests_are_logged_by_pattern_only():
    s, admin, loc = server(env={"PGHL_SLOW_REQUEST_MS": "100"}, plugins={"reader": "delay_ms = 150\n"})
    with s:
        assert admin.get("/api/reader/items?location_id=%d&size=8" % loc).status == 200
        s.stop()
        lines = [l for l in s.log.splitlines() if "[slow]" in l]
        assert any(re.search(r"\[slow\] \d+ ms GET /api/reader/items -> 200$", l) for l in lines), lines
        assert not any("size=" in l or "location_id" in l for l in lines)


def test_slow_statements_are_logged_as_fingerprints():
    s, admin, loc = server(env={"PGHL_SLOW_QUERY_MS": "5"})
    with s:
        assert admin.get("/api/reader/slow-sql").json()["rows"] == 1999995
        s.stop()
        want = ("WITH RECURSIVE n(x) AS (SELECT ? UNION ALL SELECT x + ? FROM n WHERE x < ?)"
                " SELECT count(*) AS rows FROM n WHERE x > ? AND ? <> ?")
        lines = [l for l in s.log.splitlines() if "[slow-sql]" in l]
        assert any(re.search(r"\[slow-sql\] \d+ ms " + re.escape(want) + "$", l) for l in lines), lines
        assert "secret" not in s.log
