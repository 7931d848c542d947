#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""soak: the server under a long mixed load with hostile clients beside it.
Seeds a data set (perf-seed, --scale 0.1 by default) into a scratch folder,
starts build/hyperlevel on it (a free loopback port, default settings, read
cache on), and starts clients that make the server wait, each in a thread of
its own and each to 127.0.0.1 only:

  - 3 connections sending a request head a byte a second,
  - 3 sending a sign-in body a byte a second, with a forged session cookie,
  - 2 downloading the import's sub-account's export.csv with a 4 KB
    receive buffer, reading 16 bytes a second (each closes after a
    minute; the server cuts its side sooner, which its log counts),
  - 1 guessing passwords, 5 sign-ins a second, from 127.0.0.2 (so that the
    address it gets limited is not the one the mix signs in from): 401,
    then 429 are its expected answers,
  - 1 admin importing the same CSV of --import-rows contacts (about 3 MB)
    into another sub-account each minute, and following the job to its end
    (the second and later imports update every row).

Then it runs perf-bench --mix at --clients keep-alive clients (50) on the
largest sub-account for --minutes one-minute steps (10), and after each,
once the minute's import has ended, samples the server's resident memory
(VmRSS, RssAnon and RssFile in /proc/PID/status), the database's size,
and GET /api/admin/metrics (5xx per route; workers.slow_bodies_cut). It
prints a line per minute and the verdict:

  errors  0: the mix's non-2xx answers and socket errors, failed imports,
          and answers the hostile clients should never get (a 2xx to a
          slow head or body, a download not answered 200, a sign-in guess
          answered other than 401 or 429);
  5xx     0: in the mix and in the server's metrics (every route, every
          client, from start to end);
  RSS     flat: the anonymous resident memory (RssAnon: the heap, SQLite's
          page caches, the answer cache) of every minute from the third on
          within 5 % of the second minute's (the first is the warm-up:
          caches fill). Not VmRSS: it also counts mapped file pages,
          the database's when sqlite_mmap_mb is set (the mix and the
          imports grow the file several times over); VmRSS is
          reported beside it, unjudged;
  p99     stable: no minute's p99 (from the second on) over twice the
          median of those minutes' p99s.

RSS and p99 need 3 minutes or more; shorter runs report them unjudged.

    soak [--minutes 10] [--scale 0.1] [--clients 50] [--import-rows 30000]
         [--build build] [--json out.json] [--keep]

Exit code 1 when the verdict fails, 2 when the run could not be made."""

import argparse
import collections
import http.client
import importlib.util
import json
import os
import random
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PERF_BENCH = os.path.join(ROOT, "tools", "perf-bench", "perf-bench.py")
USER, PASSWORD = "perf@example.test", "perf-pass-123"
FORGED = "hl_session=forged-session-token-of-nobody"
STEP_S = 60
RSS_TOLERANCE = 0.05
RSS_JUDGED = "anon_mb"      # see the top: why not VmRSS
P99_FACTOR = 2.0
HAMMER_FROM = "127.0.0.2"   # a loopback address of its own: see the top
DOWNLOAD_HOLD_S = 60        # a stalled download gives up after this


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


perf_bench = load("perf_bench", PERF_BENCH)
bench_idle = load("bench_idle", os.path.join(ROOT, "tools", "bench-idle", "bench-idle.py"))
perf_doc = load("perf_doc", os.path.join(ROOT, "tools", "perf-bench", "perf-doc.py"))
Fail = perf_bench.Fail


def parse_args(argv):
    p = argparse.ArgumentParser(prog="soak", description=__doc__.split("\n\n    soak")[0],
                                epilog="make soak SOAK_FLAGS=\"--minutes 2\" for a short try",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=perf_bench.positive(int), default=10,
                   help="one-minute steps of the mix (default %(default)s)")
    p.add_argument("--scale", type=perf_bench.positive(float), default=0.1,
                   help="perf-seed's share of the reference data set (default %(default)s)")
    p.add_argument("--clients", type=perf_bench.positive(int), default=50,
                   help="the mix's keep-alive clients (default %(default)s)")
    p.add_argument("--import-rows", type=perf_bench.positive(int), default=30000,
                   help="rows of the CSV imported each minute (default %(default)s)")
    p.add_argument("--build", default=os.environ.get("BUILD", os.path.join(ROOT, "build")),
                   help="the build folder (default %(default)s)")
    p.add_argument("--json", metavar="FILE", help="write every figure there")
    p.add_argument("--keep", action="store_true", help="keep the scratch folder (data, log)")
    p.add_argument("--readme", metavar="FILE",
                   help="write the run into FILE's soak block (README.md), passed or not")
    return p.parse_args(argv)


def progress(text):
    print("soak: " + text, file=sys.stderr, flush=True)


# ---- what the clients saw -----------------------------------------------------

class Tally:
    """Outcomes counted per client kind, shared by the threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = collections.defaultdict(collections.Counter)

    def add(self, kind, outcome, n=1):
        with self.lock:
            self.counts[kind][outcome] += n

    def snapshot(self):
        with self.lock:
            return {k: dict(c) for k, c in self.counts.items()}


def since(now, before):
    """The counts of `now` minus those of `before` (two snapshots)."""
    out = {}
    for kind, counts in now.items():
        old = before.get(kind, {})
        delta = {o: n - old.get(o, 0) for o, n in counts.items() if n - old.get(o, 0)}
        if delta:
            out[kind] = delta
    return out


def unexpected(counts):
    """The outcomes no hostile client should see, and imports that failed
    or were cancelled."""
    bad = 0
    for kind, outcomes in counts.items():
        for outcome, n in outcomes.items():
            if outcome.startswith("unexpected") or outcome in ("failed", "cancelled"):
                bad += n
    return bad


def status_of(data):
    """The status of an answer's first bytes, or None."""
    parts = data.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[0].startswith(b"HTTP/") and \
        parts[1].isdigit() else None


# ---- the hostile clients -------------------------------------------------------

class Clients:
    """The background clients; each loops until `stopping` is set."""

    def __init__(self, port, token, download_location):
        self.port, self.token, self.location = port, token, download_location
        self.stopping = threading.Event()
        self.tally = Tally()
        self.threads = []

    def start(self, kind, target, count=1, *args):
        for _ in range(count):
            t = threading.Thread(target=self.loop, args=(kind, target) + args, daemon=True)
            t.start()
            self.threads.append(t)

    def loop(self, kind, target, *args):
        while not self.stopping.is_set():
            try:
                target(kind, *args)
            except (OSError, http.client.HTTPException) as e:
                self.tally.add(kind, "closed" if isinstance(e, OSError) else "broken answer")
                self.stopping.wait(0.05)

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(timeout=30)

    def connect(self, rcvbuf=None):
        sock = socket.socket()
        if rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.settimeout(30)
        sock.connect(("127.0.0.1", self.port))
        return sock

    def drip(self, kind, head, tail):
        """Sends `head`, then `tail` a byte a second, until the server
        answers or closes. Only a 4xx answer (or none) is expected."""
        with self.connect() as sock:
            sock.sendall(head)
            for byte in tail:
                if self.stopping.wait(1.0):
                    return
                if select.select([sock], [], [], 0)[0]:
                    status = status_of(sock.recv(4096))
                    if status is None:
                        self.tally.add(kind, "closed")
                    elif 400 <= status < 500:
                        self.tally.add(kind, "answered %d" % status)
                    else:
                        self.tally.add(kind, "unexpected %d" % status)
                    return
                sock.sendall(bytes([byte]))
            self.tally.add(kind, "unexpected: never stopped")

    def download(self, kind):
        """The export, read 16 bytes a second through a small buffer."""
        began = time.monotonic()
        with self.connect(rcvbuf=4096) as sock:
            sock.sendall(("GET /api/contacts/export.csv HTTP/1.1\r\nHost: soak\r\n"
                          "Authorization: Bearer %s\r\nX-Location-Id: %d\r\n\r\n"
                          % (self.token, self.location)).encode())
            status = status_of(sock.recv(64))
            if status != 200:
                self.tally.add(kind, "unexpected %s" % status)
                self.stopping.wait(1.0)
                return
            while time.monotonic() - began < DOWNLOAD_HOLD_S:
                if self.stopping.wait(1.0):
                    return
                if not sock.recv(16):
                    self.tally.add(kind, "cut by the server")
                    return
            # The server has cut its side by now (after body_timeout_s: its
            # log says "the stream was cut short"), but what it had sent
            # before, megabytes in the sockets' buffers, is still to read.
            self.tally.add(kind, "closed by the soak after %d s" % DOWNLOAD_HOLD_S)

    def hammer(self, kind):
        """Wrong passwords, 5 a second, on one kept connection from
        HAMMER_FROM: a real account's and unknown e-mails."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30,
                                          source_address=(HAMMER_FROM, 0))
        try:
            n = 0
            while not self.stopping.wait(0.2):
                n += 1
                email = "location-2@example.test" if n % 2 else "nobody-%d@soak.example.test" % n
                body = json.dumps({"email": email, "password": "wrong-%d" % n})
                conn.request("POST", "/api/auth/login", body, {"Content-Type": "application/json"})
                r = conn.getresponse()
                r.read()
                self.tally.add(kind, "answered %d" % r.status if r.status in (401, 429)
                               else "unexpected %d" % r.status)
        finally:
            conn.close()

    def start_hostile(self):
        head = b"GET /api/health HTTP/1.1\r\nHost: soak\r\n"
        self.start("slow heads", self.drip, 3, head, b"X-Slow: " + b"y" * 2000)
        body_head = ("POST /api/auth/login HTTP/1.1\r\nHost: soak\r\nCookie: %s\r\n"
                     "Content-Type: application/json\r\nContent-Length: 2000\r\n\r\n"
                     % FORGED).encode()
        self.start("slow bodies", self.drip, 3, body_head, b'{"email": "x@y.z"' + b" " * 1983)
        self.start("stalled downloads", self.download, 2)
        self.start("password guesses", self.hammer)


class Importer:
    """The same CSV imported into a sub-account each minute by an admin,
    each import followed to its end before the next."""

    def __init__(self, clients, url, token, location, rows):
        self.clients, self.url, self.token, self.location = clients, url, token, location
        self.csv = perf_bench.grow_csv(rows, random.Random(rows))
        self.rows = rows
        self.imports = []
        self.idle = threading.Event()  # no import under way
        self.idle.set()

    def run(self, kind):
        api = perf_bench.Api(self.url)
        api.auth = {"Authorization": "Bearer " + self.token}
        api.location = self.location
        began = time.monotonic()
        self.idle.clear()
        try:
            record = self.one(api)
        except Fail as e:
            record = {"status": "failed", "error": str(e)}
        finally:
            self.idle.set()
        record["seconds"] = round(time.monotonic() - began, 1)
        self.imports.append(record)
        self.clients.tally.add(kind, record["status"])
        api.close()
        self.clients.stopping.wait(max(0.0, STEP_S - (time.monotonic() - began)))

    def one(self, api):
        answer = api.json("POST", "/api/contacts/import", self.csv, want=(200, 202),
                          headers={"Content-Type": "text/csv"})
        ended = ("done", "failed", "cancelled")
        while answer["status"] not in ended and not self.clients.stopping.wait(1.0):
            answer = api.json("GET", "/api/contacts/imports/%d" % answer["id"])
        status = answer["status"] if answer["status"] in ended else "running at the end"
        return {"status": status, "bytes": len(self.csv), "rows": self.rows,
                "created": answer.get("created"), "updated": answer.get("updated"),
                "skipped": answer.get("skipped")}


# ---- the server ---------------------------------------------------------------

def seed(args, data):
    """perf-seed into `data`; its summary line."""
    p = subprocess.run([os.path.join(args.build, "perf-seed"), "--data-dir", data,
                        "--scale", "%g" % args.scale], capture_output=True, text=True, timeout=600)
    if p.returncode:
        raise Fail("perf-seed: " + (p.stdout + p.stderr).strip()[-500:])
    return next((line for line in p.stdout.splitlines() if " rows in " in line), "").strip()


def memory(pid, data):
    """The server's resident memory in MB from /proc/PID/status: all of it
    (VmRSS), its own (RssAnon: heap, SQLite's page caches, the answer
    cache) and the files it maps (RssFile: mostly the database, through
    SQLite's memory map); and the database's size with its WAL. Of three
    readings half a second apart, the one with the least RssAnon: a
    password hash being computed holds 64 MB for a moment (the guesser's
    sign-ins), memory in flight rather than memory kept."""
    readings = []
    for i in range(3):
        if i:
            time.sleep(0.5)
        got = {}
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                name, _, value = line.partition(":")
                if name in ("VmRSS", "RssAnon", "RssFile"):
                    got[name] = round(int(value.split()[0]) / 1024, 1)
        readings.append(got)
    got = min(readings, key=lambda r: r["RssAnon"])
    db = sum(os.path.getsize(os.path.join(data, n)) for n in os.listdir(data)
             if n.startswith("hyperlevel.db"))
    return {"rss_mb": got["VmRSS"], "anon_mb": got["RssAnon"], "file_mb": got["RssFile"],
            "db_mb": round(db / 2**20, 1)}


def streams_cut(server):
    """Exports the server cut short, as its log counts them."""
    server.log.flush()
    with open(server.log.name) as f:
        return sum("export.csv" in line and "stream was cut short" in line for line in f)


def metrics(api):
    """What the soak reads of GET /api/admin/metrics: the 5xx per route,
    the slow clients the guard closed or cut, the server's own RSS."""
    m = api.json("GET", "/api/admin/metrics")
    routes = {"%s %s" % (r["method"], r["pattern"]): r["status"]["5xx"]
              for r in m["routes"] if r["status"]["5xx"]}
    w = m["workers"]
    return {"5xx": sum(routes.values()), "5xx_routes": routes,
            "slow_heads_closed": w["slow_heads_closed"], "slow_bodies_cut": w["slow_bodies_cut"],
            "connections_peak": w["connections_peak"], "rss_bytes": m["memory"]["rss_bytes"]}


def mix_minute(args, url, location, scratch, minute):
    """One minute of perf-bench --mix: the figures of all its requests."""
    out = os.path.join(scratch, "mix-%02d.json" % minute)
    p = subprocess.run([sys.executable, PERF_BENCH, "--url", url, "--user", USER,
                        "--password", PASSWORD, "--mix", "--concurrency", str(args.clients),
                        "--duration", str(STEP_S), "--location", str(location), "--json", out],
                       capture_output=True, text=True, timeout=STEP_S + 300)
    if p.returncode or not os.path.exists(out):
        raise Fail("perf-bench --mix, minute %d: %s"
                   % (minute, (p.stdout + p.stderr).strip()[-800:]))
    with open(out) as f:
        step = json.load(f)["mix"][0]
    run = step["runs"][0]
    return dict(step["median"]["all"], socket_errors=run["socket_errors"],
                kinds={k: {"answers": v["answers"], "non2xx": v["non2xx"], "5xx": v["status_5xx"]}
                       for k, v in run["kinds"].items() if k != "all"})


def choose_locations(api, session):
    """The mix's sub-account (the largest) and the import's (the last
    other one)."""
    mix, _, _ = perf_bench.choose_location(api, session, None)
    others = [loc["id"] for loc in session.get("locations", []) if loc["id"] != mix]
    if not others:
        raise Fail("the data set has one sub-account; the import needs another")
    return mix, max(others)


# ---- the run ---------------------------------------------------------------------

def minute_record(minute, mix, before, after, server, seen, was):
    hostile = since(seen, was)
    return {"minute": minute, "mix": mix, "memory": memory(server.proc.pid, server.data),
            "server_5xx": after["5xx"] - before["5xx"],
            "server_5xx_routes": {r: n - before["5xx_routes"].get(r, 0)
                                  for r, n in after["5xx_routes"].items()
                                  if n - before["5xx_routes"].get(r, 0)},
            "slow_heads_closed": after["slow_heads_closed"] - before["slow_heads_closed"],
            "slow_bodies_cut": after["slow_bodies_cut"] - before["slow_bodies_cut"],
            "clients": hostile,
            "errors": mix["errors"] + unexpected(hostile)}


def soak(args, scratch, doc):
    data = os.path.join(scratch, "data")
    progress("seeding --scale %g (perf-seed)" % args.scale)
    doc["seed"] = seed(args, data)
    server = bench_idle.Server(args.build, data)
    server.start()
    url = "http://127.0.0.1:%d" % server.port
    doc["server"] = {"url": url, "pid": server.proc.pid}
    api = perf_bench.Api(url)
    clients = None
    try:
        session, token_id, session_auth = perf_bench.sign_in(
            api, argparse.Namespace(user=USER, password=PASSWORD))
        token = api.auth["Authorization"].split(" ", 1)[1]
        mix_loc, import_loc = choose_locations(api, session)
        api.location = None
        doc["locations"] = {"mix": mix_loc, "import": import_loc}
        doc["memory_start"] = memory(server.proc.pid, data)
        clients = Clients(server.port, token, import_loc)
        importer = Importer(clients, url, token, import_loc, args.import_rows)
        clients.start_hostile()
        clients.start("imports", importer.run)
        progress("server %s (pid %d); mix on sub-account %d, imports into %d; minutes: %d"
                 % (url, server.proc.pid, mix_loc, import_loc, args.minutes))
        start = metrics(api)
        before, was = start, clients.tally.snapshot()
        for minute in range(1, args.minutes + 1):
            mix = mix_minute(args, url, mix_loc, scratch, minute)
            if server.proc.poll() is not None:
                raise Fail("the server stopped (exit %d) in minute %d"
                           % (server.proc.returncode, minute))
            importer.idle.wait(STEP_S)  # its upload and job are memory in flight
            after, seen = metrics(api), clients.tally.snapshot()
            m = minute_record(minute, mix, before, after, server, seen, was)
            doc["minutes"].append(m)
            progress(row_text(m))
            before, was = after, seen
        clients.stop()
        doc["imports"] = importer.imports
        doc["clients"] = clients.tally.snapshot()
        doc["streams_cut"] = streams_cut(server)
        end = metrics(api)
        doc["server_5xx_total"], doc["server_5xx_routes"] = end["5xx"], end["5xx_routes"]
        perf_bench.revoke(api, token_id, session_auth)
    finally:
        if clients:
            clients.stop()
        api.close()
        server.stop()


# ---- the report ------------------------------------------------------------------

COLUMNS = ("minute", "req/s", "p50", "p95", "p99", "max", "errors", "5xx", "server 5xx", "RSS MB",
           "anon MB", "file MB", "DB MB", "bodies cut")


def row(m):
    x = m["mix"]
    return [str(m["minute"]), perf_bench.number(x["rps"]), perf_bench.number(x["p50"]),
            perf_bench.number(x["p95"]), perf_bench.number(x["p99"]), perf_bench.number(x["max"]),
            str(m["errors"]), str(x["5xx"]), str(m["server_5xx"])] + \
        ["%.1f" % m["memory"][k] for k in ("rss_mb", "anon_mb", "file_mb", "db_mb")] + \
        [str(m["slow_bodies_cut"])]


def row_text(m):
    return "minute %s: %s req/s, p50 %s p95 %s p99 %s max %s ms, errors %s, 5xx %s (server %s), " \
           "RSS %s MB (anon %s, file %s; database %s MB), slow bodies cut %s" % tuple(row(m))


def table(minutes):
    rows = [list(COLUMNS)] + [row(m) for m in minutes]
    width = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    return ["  ".join(c.rjust(width[i]) for i, c in enumerate(r)) for r in rows]


def verdict(doc):
    """Each criterion: passed (True, False or None when not judged) and
    what it found."""
    ms = doc["minutes"]
    errors = sum(m["mix"]["errors"] for m in ms) + unexpected(doc["clients"])
    mix_5xx = sum(m["mix"]["5xx"] for m in ms)
    out = {"errors": {"passed": errors == 0, "found": errors},
           "5xx": {"passed": mix_5xx == 0 and doc["server_5xx_total"] == 0,
                   "found": {"mix": mix_5xx, "server": doc["server_5xx_total"],
                             "routes": doc["server_5xx_routes"]}}}
    if len(ms) < 3:
        out["rss"] = out["p99"] = {"passed": None, "found": "needs 3 minutes or more"}
        return out
    out["rss"] = flat(ms, RSS_JUDGED)
    out["rss"]["vmrss"] = flat(ms, "rss_mb")["found"]
    p99 = [m["mix"]["p99"] for m in ms[1:]]
    median = statistics.median(p99)
    out["p99"] = {"passed": max(p99) <= P99_FACTOR * median,
                  "found": "median of minutes 2-%d: %s ms; highest: %s ms (%.2fx)"
                           % (len(ms), perf_bench.number(median), perf_bench.number(max(p99)),
                              max(p99) / median if median else 0)}
    return out


def flat(ms, key):
    """Whether memory[key] of every minute from the third on is within
    RSS_TOLERANCE of the second minute's."""
    base = ms[1]["memory"][key]
    worst = max(ms[2:], key=lambda m: abs(m["memory"][key] - base))
    drift = (worst["memory"][key] - base) / base
    return {"passed": abs(drift) <= RSS_TOLERANCE,
            "found": "%s: minute 2 %.1f MB; furthest: minute %d, %.1f MB (%+.1f %%)"
                     % (key, base, worst["minute"], worst["memory"][key], 100 * drift)}


def clients_lines(doc):
    lines = []
    for kind, outcomes in sorted(doc["clients"].items()):
        counts = ", ".join("%s %d" % (o, n) for o, n in sorted(outcomes.items()))
        lines.append("%s: %s" % (kind, counts))
    lines.append("exports the server cut short (its log): %d" % doc["streams_cut"])
    done = [i for i in doc["imports"] if i["status"] == "done"]
    if done:
        lines.append("imports of %d rows (%d KB): %d done, %s s each (median)"
                     % (done[0]["rows"], done[0]["bytes"] // 1024, len(done),
                        statistics.median(i["seconds"] for i in done)))
    return lines


def report(doc):
    lines = ["soak of %s: %d clients in the mix on sub-account %d, minutes: %d; %s"
             % (doc["server"]["url"], doc["clients_in_mix"], doc["locations"]["mix"],
                len(doc["minutes"]), doc["seed"]),
             "latencies in ms, of every request of the mix; memory at the end of each minute "
             "(RSS %.1f MB, anon %.1f, database %.1f before the load)"
             % tuple(doc["memory_start"][k] for k in ("rss_mb", "anon_mb", "db_mb")), ""]
    lines += table(doc["minutes"]) + [""] + clients_lines(doc) + [""]
    for name, v in doc["verdict"].items():
        state = {True: "ok", False: "FAILED", None: "not judged"}[v["passed"]]
        found = v["found"] if isinstance(v["found"], str) else json.dumps(v["found"])
        lines.append("%-6s %-10s %s" % (name, state, found))
        if "vmrss" in v:
            lines.append("%-6s %-10s %s" % ("", "(not judged)", v["vmrss"]))
    lines.append("verdict: %s" % ("passed" if doc["passed"] else "FAILED"))
    print("\n".join(lines), flush=True)


README_BEGIN, README_END = "<!-- soak:begin -->", "<!-- soak:end -->"


def readme_block(doc):
    """The run as the README shows it: where, the table, the clients
    beside the mix, the verdict."""
    m = doc["machine"]
    lines = [README_BEGIN, "",
             "Measured %s UTC on %s, %d cores (%s; load average %.1f as it began; the "
             "machine is shared, so throughput and latencies are noisy). Written by "
             "`make soak SOAK_FLAGS=\"--readme README.md\"`. Latencies in ms, of every "
             "request of the mix; memory in MB at the end of each minute (before the load: "
             "VmRSS %.1f, RssAnon %.1f, the database %.1f)."
             % (doc["started_at"][:16].replace("T", " "), m["cpu"] or "an unnamed CPU",
                m["cores"], m["os"] or "Linux", doc["load_at_start"],
                doc["memory_start"]["rss_mb"], doc["memory_start"]["anon_mb"],
                doc["memory_start"]["db_mb"]), ""]
    lines.append("| " + " | ".join(COLUMNS) + " |")
    lines.append("|" + "---|" * len(COLUMNS))
    lines += ["| " + " | ".join(row(minute)) + " |" for minute in doc["minutes"]]
    lines += [""] + ["- " + line for line in clients_lines(doc)] + [""]
    for name, v in doc["verdict"].items():
        state = {True: "ok", False: "**failed**", None: "not judged"}[v["passed"]]
        found = v["found"] if isinstance(v["found"], str) else json.dumps(v["found"])
        lines.append("- %s: %s, %s" % (name, state, found))
        if "vmrss" in v:
            lines.append("- VmRSS, not judged: %s" % v["vmrss"])
    lines += ["", "Verdict: %s." % ("passed" if doc["passed"] else "**failed**"), "",
              README_END]
    return "\n".join(lines)


def main(argv):
    args = parse_args(argv)
    if not shutil.which("wrk"):
        raise Fail("wrk is needed: apt-get install wrk")
    scratch = tempfile.mkdtemp(prefix="hl-soak-")
    doc = {"tool": "soak", "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "minutes_asked": args.minutes, "scale": args.scale, "clients_in_mix": args.clients,
           "import_rows": args.import_rows, "machine": perf_bench.machine(), "minutes": [],
           "criteria": {"rss_tolerance": RSS_TOLERANCE, "p99_factor": P99_FACTOR},
           "load_at_start": os.getloadavg()[0]}
    try:
        soak(args, scratch, doc)
    finally:
        if args.keep:
            progress("kept %s" % scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    doc["verdict"] = verdict(doc)
    doc["passed"] = all(v["passed"] is not False for v in doc["verdict"].values())
    report(doc)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    if args.readme:
        perf_doc.replace_block(args.readme, readme_block(doc), README_BEGIN, README_END)
    return 0 if doc["passed"] else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (Fail, bench_idle.Fail, perf_doc.Fail) as e:
        print("soak: %s" % e, file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
