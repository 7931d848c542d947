# SPDX-License-Identifier: MIT
"""perf-bench as a user runs it against a real server: it picks the
sub-account with the most contacts, measures with wrk and reports real
counts and percentiles, skips endpoints of modules that are not built,
revokes its token, stops after --requests, and says when a p95 is over
the budget. (Its figures are measured by `make bench`, not checked here.)"""

import http.server
import importlib.util
import itertools
import json
import os
import socket
import subprocess
import tempfile
import threading
import time

import harness


def bench(server, *args, out=None):
    """perf-bench's run and its --json (written to `out` when given)."""
    with tempfile.TemporaryDirectory(prefix="hl-bench-") as tmp:
        out = out or os.path.join(tmp, "out.json")
        p = subprocess.run([os.path.join(harness.BUILD, "perf-bench"),
                            "--url", "http://127.0.0.1:%d" % server.port,
                            "--user", harness.ADMIN[0], "--password", harness.ADMIN[1],
                            "--concurrency", "1", "--json", out] + list(args),
                           capture_output=True, text=True, timeout=120)
        result = json.load(open(out)) if os.path.exists(out) else None
    return p, result


def tool_module(name):
    """tools/perf-bench/NAME.py, imported, for its tables and helpers."""
    path = os.path.join(harness.ROOT, "tools", "perf-bench", name + ".py")
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
        assert run["requests"] > 100
        # Every request recorded: report.lua takes wrk's made-up samples out
        # again. Under the sanitizers a request now and then takes many
        # times the usual one, and the samples wrk adds for it can meet real
        # ones in a bin: the arithmetic is checked on the normal build.
        assert harness.SANITIZED or run["recorded"] == run["requests"], run
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


def test_against_measures_two_servers_step_by_step():
    """Each step runs on --url's server, then at once on --against's; each
    side's figures come from its own sub-account and go to its own file."""
    a, big = server_with_contacts()
    b, _, (only,) = harness.agency(locations=("Only client",))
    try:
        with tempfile.TemporaryDirectory(prefix="hl-bench-") as tmp:
            other = os.path.join(tmp, "against.json")
            p, out = bench(a, "--requests", "100", "--runs", "2", "--endpoints", "contacts,tags",
                           "--against", "http://127.0.0.1:%d" % b.port, "--against-json", other)
            assert p.returncode == 0, p.stderr
            against = json.load(open(other))
        assert out["location"]["id"] == big and out["location"]["contacts"] == 5
        assert against["location"] == {"id": only, "name": "Only client", "contacts": 0}
        for doc, url in ((out, a), (against, b)):
            assert doc["url"] == "http://127.0.0.1:%d" % url.port
            assert [(e["name"], len(e["runs"])) for e in doc["endpoints"]] == [("contacts", 2), ("tags", 2)]
            assert all(run["requests"] == 100 and run["non2xx"] == 0
                       for e in doc["endpoints"] for run in e["runs"])
        runs = [(line.split()[0], line.split()[4], line.endswith("(--against)"))
                for line in p.stderr.splitlines() if " run " in line]
        assert runs == [(name, "%d/2:" % r, side) for r in (1, 2) for name in ("contacts", "tags")
                        for side in (False, True)], p.stderr
        assert p.stdout.count("perf-bench http://127.0.0.1:") == 2
        for server in (a, b):
            assert server.sql("SELECT name, revoked_at IS NOT NULL FROM api_tokens") == [("perf-bench", 1)]
        p, _ = bench(a, "--mix", "--against", "http://127.0.0.1:%d" % b.port)
        assert p.returncode == 2 and "--against compares the read endpoints alone" in p.stderr
        p, _ = bench(a, "--against-json", os.path.join(tempfile.gettempdir(), "x.json"))
        assert p.returncode == 2 and "--against-json goes with --against" in p.stderr
    finally:
        a.close()
        b.close()


def test_compares_each_endpoint_with_the_hello_world_of_the_same_run():
    """Its throughput and, counted by strace, its system calls a request:
    a cached read makes no more than the hello-world's plus one."""
    s, big = server_with_contacts()
    port = harness.free_port()
    hello = subprocess.Popen([os.path.join(harness.BUILD, "tools", "bench-hello"), str(port)])
    try:
        wait_for(port)
        p, out = bench(s, "--requests", "200", "--concurrency", "1,10", "--endpoints", "contacts",
                       "--hello", "http://127.0.0.1:%d/" % port,
                       "--server-pid", str(s.proc.pid), "--hello-pid", str(hello.pid))
        assert p.returncode == 0, p.stderr
        first, _, contacts, _ = out["endpoints"]
        assert (first["name"], first["url"]) == ("hello", "http://127.0.0.1:%d/" % port)
        assert first["runs"][0]["requests"] == 200 and first["runs"][0]["non2xx"] == 0
        assert contacts["name"] == "contacts" and contacts["runs"][0]["requests"] == 200
        header, *rows = [line.split() for line in p.stdout.splitlines()
                         if line.split()[:1] in (["endpoint"], ["hello"], ["contacts"])]
        assert header[-3:] == ["of", "hello", "calls"] and rows[0][-3:-1] == ["100", "%"]
        share = 100 * contacts["median"]["rps"] / first["median"]["rps"]
        assert rows[2][0] == "contacts" and rows[2][-3] == "%.0f" % share
        # A request is read and answered, at least: two calls of the process.
        calls = first["syscalls"], contacts["syscalls"]
        assert 2 <= calls[0] < 20 and 2 <= calls[1] < 20, calls
        assert [row[-1] for row in rows] == ["%.1f" % calls[0]] * 2 + ["%.1f" % calls[1]] * 2
        doc = tool_module("perf-doc")
        assert "- A cached request's system calls at most the hello-world's (%s) plus 1:" \
            " 1 of 1. Over: none." % doc.fig(calls[0]) in doc.targets(out, out)
        assert out["server"]["status"] == "ok" and out["machine"]["os"]
    finally:
        hello.terminate()
        hello.wait()
        s.close()


def wait_for(port):
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("bench-hello did not listen on %d" % port)


WRITES = dict(tool_module("perf-bench").MIX_WRITES)


def server_with_one_of_everything():
    """The big sub-account has a board of two stages with a deal, a
    conversation and an open task; dashboards (reports) are not loaded."""
    s, admin, (small, big) = harness.agency(
        modules=("contacts", "opportunities", "conversations", "tasks"),
        locations=("Small client", "Big client"))
    h = {"X-Location-Id": str(big)}
    c = admin.post("/api/contacts", {"first_name": "Anna", "email": "anna@example.test"}, headers=h)
    assert c.status == 201, c.body
    pipeline = admin.post("/api/pipelines", {"name": "Sales"}, headers=h).json()["id"]
    for name in ("New", "Won over"):
        assert admin.post("/api/pipelines/%d/stages" % pipeline, {"name": name}, headers=h).status == 201
    first = s.sql("SELECT min(id) FROM stages WHERE pipeline_id = ?", pipeline)[0][0]
    assert admin.post("/api/opportunities", {"name": "Deal", "pipeline_id": pipeline,
                                             "stage_id": first}, headers=h).status == 201
    assert admin.post("/api/conversations/inbound", {"contact_id": c.json()["id"], "channel": "sms",
                                                      "body": "Hi"}, headers=h).status in (200, 201)
    assert admin.post("/api/tasks", {"title": "Call"}, headers=h).status == 201
    return s, big


def test_mix_sends_reads_and_writes_in_their_shares_and_counts_invalidations():
    s, big = server_with_one_of_everything()
    try:
        messages = s.sql("SELECT count(*) FROM messages")[0][0]
        p, out = bench(s, "--mix", "--concurrency", "2", "--requests", "600")
        assert p.returncode == 0, p.stderr
        [step] = out["mix"]
        [run] = step["runs"]
        kinds = run["kinds"]
        assert run["requests"] == 600 and kinds["all"]["answers"] == 600
        assert not any(k["non2xx"] or k["status_5xx"] for k in kinds.values()), kinds
        # Each kind in its share of the ones this server has (no dashboard,
        # invoices or agency screens: those are skipped).
        skipped = {k["name"] for k in out["skipped"]}
        assert {"dashboard", "invoices"} <= skipped and not skipped & set(WRITES)
        shares = {k: v for k, v in tool_module("perf-bench").MIX_READS + list(WRITES.items()) if k not in skipped}
        for name, share in shares.items():
            expected = 600 * share / sum(shares.values())
            assert abs(kinds[name]["answers"] - expected) <= 4, (name, kinds[name], expected)
        # The writes are real: contacts made, messages sent, tasks done.
        made = s.sql("SELECT count(*) FROM contacts WHERE last_name LIKE 'Run %'")[0][0]
        assert made == kinds["create-contact"]["answers"]
        sent = s.sql("SELECT count(*) FROM messages")[0][0] - messages
        assert sent == kinds["add-message"]["answers"]
        cache = step["cache"][0]
        assert cache["hits"] > 0 and 0 < cache["invalidated"] <= cache["misses"]
        assert step["writes"] == sum(kinds[n]["answers"] for n in WRITES)
        lines = p.stdout.splitlines()
        percent = "%g" % round(100 * WRITES["create-contact"] / sum(shares.values()), 1)
        assert any(line.split()[:3] == ["create-contact", percent, "%"] for line in lines)
        assert any(line.startswith("cache at 2 clients: %d hits" % cache["hits"]) for line in lines)
    finally:
        s.close()



def test_the_performance_page_is_written_from_the_figures_measured():
    """perf-doc puts each measured median in its cell, the reference's own
    figures beside it, and replaces only the README's marked block."""
    work = tempfile.mkdtemp(prefix="hl-doc-")
    prefix = os.path.join(work, "perf")
    uncached = lambda: harness.agency(env={"PGHL_RESULT_CACHE": "0"})[0]
    for name, start in (("on", lambda: server_with_contacts()[0]), ("off", uncached)):
        s = start()
        try:
            p, _ = bench(s, "--requests", "200", "--concurrency", "1,10", "--endpoints", "contacts",
                         out="%s-cache-%s.json" % (prefix, name))
            assert p.returncode == 0, p.stderr
        finally:
            s.close()
    idle_json = os.path.join(work, "idle.json")
    p = subprocess.run([os.path.join(harness.BUILD, "bench-idle"), "--counts", "0", "--seconds", "1",
                        "--requests", "5", "--no-startup", "--json", idle_json],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    # The full data set's figures as bench-idle writes them (measured by its own test).
    doc = json.load(open(idle_json))
    doc["startup"] = {"runs_ms": [41.0], "median_ms": 41.0, "full": {
        "settle_s": 60, "rss_mb": 17.5, "rss_anon_mb": 12.5, "rss_file_mb": 4.5, "cpu_percent": 0.031,
        "jobs": {"max_slice_ms": 34, "slowest": "contacts.purge", "overruns": 0, "slices": 129,
                 "budget_ms": 40}},
        "seeding": {"runs_s": [4.1, 4.0, 4.3], "median_s": 4.1, "db_mb": 153.4, "peak_mb": 188.2}}
    json.dump(doc, open(idle_json, "w"))
    readme = os.path.join(work, "README.md")
    with open(readme, "w") as f:
        f.write("# Title\n\n<!-- performance:begin -->\nold\n<!-- performance:end -->\n\nThe rest.\n"
                "\n<!-- seeding:begin -->\nold seeding\n<!-- seeding:end -->\n")
    page = os.path.join(work, "performance.md")
    p = perf_doc("--bench", prefix, "--idle", idle_json, "--out", page, "--readme", readme)
    assert p.returncode == 0, p.stderr
    on = json.load(open(prefix + "-cache-on.json"))
    off = json.load(open(prefix + "-cache-off.json"))
    med = {(e["clients"], state): e["median"] for state, doc in (("on", on), ("off", off))
           for e in doc["endpoints"]}
    fig = tool_module("perf-doc").fig
    row = "| `/api/contacts` | %s | %s | – | %s | 2 | 26 | 76 | 29 |" % (
        fig(med[1, "on"]["p50"]), fig(med[10, "on"]["p95"]), fig(med[10, "off"]["p95"]))
    text = open(page).read()
    assert row in text.splitlines(), text
    assert "sub-account, \"Big client\" (5 contacts)" in text
    idle = json.load(open(idle_json))["steps"][0]
    assert "| 0 | %.1f | %.3f | 67.7 | 0.03 |" % (idle["rss_mb"], idle["cpu_percent"]) in text
    assert "| the full data set, 60 s after its first start | 17.5 | 0.031 |" in text, text
    assert "12.5 MB anonymous and 4.5 MB of the database's file pages resident" in text
    assert "RSS on the full data set 17.5 MB (aim: at most 30), every job slice within its budget: yes" \
        in text
    block = open(readme).read()
    assert block.startswith("# Title\n\n<!-- performance:begin -->") and "old" not in block
    assert row in block.splitlines() and "<!-- performance:end -->\n\nThe rest.\n" in block
    assert "old seeding" not in block and block.endswith("<!-- seeding:end -->\n")
    assert "| seeding the reference data set, indexes built | 4.10 s (median of 3 runs of `perf-seed`)" \
        " | 11.4 s |" in block.splitlines()
    assert "| database file for it | 153.4 MB | 216 MB |" in block.splitlines()
    assert "Against the aims: 4.10 s (at most 3) and 153.4 MB (at most 150)." in block
    # growth.py's figures (two of the real runs above standing for 1x and
    # 10x) make the page's growth section and the README's growth block.
    growth = os.path.join(work, "growth.json")
    seeding = {"seconds": 4.2, "db_mb": 160.9, "peak_mb": 203.0}
    json.dump({"started_at": "2026-12-04T05:00:00Z", "sets": {
        "1x": {"holds": "100k contacts in 50 sub-accounts", "seeding": seeding, "bench": on},
        "10x": {"holds": "1M contacts in 500 sub-accounts", "seeding": dict(seeding, seconds=47.6),
                "bench": off}}}, open(growth, "w"))
    with open(readme, "a") as f:
        f.write("\n<!-- growth:begin -->\nold growth\n<!-- growth:end -->\n")
    p = perf_doc("--bench", prefix, "--idle", idle_json, "--growth", growth, "--out", page,
                 "--readme", readme)
    assert p.returncode == 0, p.stderr
    ratio = med[10, "off"]["p95"] / med[10, "on"]["p95"]
    growth_row = "| `/api/contacts` | %s / %s | %s / %s | %.2fx |" % (
        fig(med[10, "on"]["p50"]), fig(med[10, "on"]["p95"]), fig(med[10, "off"]["p50"]),
        fig(med[10, "off"]["p95"]), ratio)
    judged = "- A sub-account's endpoints at 10x within 1.5x of 1x (p95): %s. Over: %s." % (
        ("0 of 1", "contacts %.2fx" % ratio) if ratio > 1.5 else ("1 of 1", "none"))
    for text in (open(page).read(), open(readme).read()):
        assert growth_row in text.splitlines(), text
        assert judged in text.splitlines()
        assert "- Seeding 1M contacts: 47.60 s (aim: under 40)." in text
    assert "old growth" not in open(readme).read()
    # A README without the markers is refused, and left as it was.
    with open(readme, "w") as f:
        f.write("# No block\n")
    p = perf_doc("--bench", prefix, "--idle", idle_json, "--out", page, "--readme", readme)
    assert p.returncode == 2 and "no <!-- performance:begin -->" in p.stderr
    assert open(readme).read() == "# No block\n"
    # So is one with a place for the performance figures but none for seeding.
    half = "<!-- performance:begin -->\nold\n<!-- performance:end -->\n"
    with open(readme, "w") as f:
        f.write(half)
    p = perf_doc("--bench", prefix, "--idle", idle_json, "--out", page, "--readme", readme)
    assert p.returncode == 2 and "no <!-- seeding:begin -->" in p.stderr
    assert open(readme).read() == half


def test_growth_judges_each_endpoint_by_what_grows_under_it():
    """A screen over every sub-account is held to the agency's bound, the
    export to its cost per contact, the rest to the 1x -> 10x ratio."""
    def run(contacts, p95s):
        return {"location": {"contacts": contacts}, "endpoints": [
            {"name": n, "path": "/api/" + n, "clients": 10, "median": {"p50": v / 2, "p95": v}}
            for n, v in p95s.items()]}
    one = run(1000, {"tasks": 2.0, "dashboard": 2.0, "export": 10.0, "mobile-inbox": 2.0,
                     "agency-overview": 10.0})
    ten = run(10000, {"tasks": 2.5, "dashboard": 3.5, "export": 140.0, "mobile-inbox": 120.0,
                      "agency-overview": 90.0})
    lines = tool_module("perf-doc").growth_targets({"1x": {"bench": one},
                                                    "10x": {"bench": ten, "seeding": {"seconds": 31.5}}})
    assert lines == [
        "- A sub-account's endpoints at 10x within 1.5x of 1x (p95): 1 of 2. Over: dashboard 1.75x.",
        "- `/api/export` sends every contact of the sub-account: p95 10 ms per 1 000 contacts at 1x,"
        " 14 at 10x, 1.40x (aim: within 1.5x).",
        "- The endpoints over every sub-account (the agency's; the phone's projects and inbox) at 10x,"
        " p95 at most 100 ms: 1 of 2. Over: mobile-inbox 120 ms.",
        "- Seeding 1M contacts: 31.50 s (aim: under 40)."], lines


def test_growth_seeds_a_large_sub_account_and_measures_its_search():
    """growth.py on its smallest data set: perf-seed's 100k contacts in one
    sub-account, timed, served without the cache and measured by perf-bench;
    then perf-doc writes the README's growth block from it alone."""
    work = tempfile.mkdtemp(prefix="hl-growth-")
    out = os.path.join(work, "growth.json")
    p = subprocess.run(["python3", os.path.join(harness.ROOT, "tools", "perf-bench", "growth.py"),
                        "--build", harness.BUILD, "--sets", "one", "--runs", "1", "--duration", "1",
                        "--json", out], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    one = json.load(open(out))["sets"]["one"]
    assert one["seed_flags"] == ["--locations", "1"] and one["bench"]["sub_accounts"] == 1
    assert one["bench"]["location"]["contacts"] > 90000  # a few are deleted
    assert one["bench"]["cache"] == "none"  # no X-Cache: served without the read cache
    assert one["seeding"]["seconds"] > 0 and one["seeding"]["db_mb"] > 100
    # Measured once the server's start-up work was done, and said so.
    assert one["settled_s"] is not None and 0 < one["settled_s"] < 180, one["settled_s"]
    assert "growth: one settled after its start in %.1f s" % one["settled_s"] in p.stderr
    search = {s["name"]: s for s in one["bench"]["endpoints"]}["contacts-search"]
    assert search["clients"] == 1 and search["median"]["errors"] == 0
    assert one["bench"]["server"]["status"] == "ok"
    fig = tool_module("perf-doc").fig
    assert "one sub-account, 1 client: contacts-search p50 %.3g ms" % search["median"]["p50"] \
        in p.stdout, p.stdout
    readme = os.path.join(work, "README.md")
    with open(readme, "w") as f:
        f.write("# Title\n\n<!-- growth:begin -->\nold\n<!-- growth:end -->\nThe rest.\n")
    p = perf_doc("--growth", out, "--readme", readme)
    assert p.returncode == 0, p.stderr
    text = open(readme).read()
    assert "- The contact search in one sub-account of 100k contacts, p50 at 1 client: %s ms" \
        " (aim: at most 5)." % fig(search["median"]["p50"]) in text.splitlines(), text
    assert "\nold\n" not in text and text.endswith("<!-- growth:end -->\nThe rest.\n")
    assert "| %.1f s |" % one["settled_s"] in text
    # Alone, --growth needs a README to write to.
    p = perf_doc("--growth", out)
    assert p.returncode == 2 and "give --readme" in p.stderr


# It seeds 100,000 contacts and measures them: under the sanitizers that is minutes
# that prove nothing more of the tool, whose server paths the other tests run there.
test_growth_seeds_a_large_sub_account_and_measures_its_search.normal_build_only = True


def perf_doc(*args):
    return subprocess.run(["python3", os.path.join(harness.ROOT, "tools", "perf-bench", "perf-doc.py")]
                          + list(args), capture_output=True, text=True, timeout=60)


class Failing(http.server.BaseHTTPRequestHandler):
    """Answers 503 and 404 in turn: a server's failures and a client's."""
    protocol_version = "HTTP/1.1"
    turn = itertools.count()

    def do_GET(self):
        status = 503 if next(self.turn) % 2 == 0 else 404
        self.send_response(status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"no")

    def log_message(self, *args):
        pass


def test_5xx_answers_are_counted_apart_from_other_errors():
    s, _ = server_with_contacts()
    stub = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    try:
        p, out = bench(s, "--requests", "200", "--endpoints", "contact",
                       "--hello", "http://127.0.0.1:%d/" % stub.server_address[1])
        assert p.returncode == 0, p.stderr
        hello, contact = out["endpoints"]
        run = hello["runs"][0]
        assert run["answers"] == run["non2xx"] == 200 and run["status_5xx"] == 100, run
        assert (hello["median"]["errors"], hello["median"]["5xx"]) == (200, 100)
        assert contact["median"]["errors"] == contact["median"]["5xx"] == 0
        header, row = [line.split() for line in p.stdout.splitlines()
                       if line.split()[:1] in (["endpoint"], ["hello"])]
        at = header.index("5xx")
        assert header[at - 1] == "errors" and row[at - 1:at + 1] == ["200", "100"], row
    finally:
        stub.shutdown()
        s.close()
