#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perf-bench: the reference's read benchmark. Signs in (perf@example.test
by default), takes an API token, picks the sub-account with the most
contacts, then runs wrk against every read endpoint in ENDPOINTS at each
concurrency level, with keep-alive connections, and prints requests/s, p50,
p95, p99, max and errors (the 5xx among them apart) per endpoint and
level. With --hello it measures a hello-world server first, the HTTP floor
each endpoint is compared with. With --mix it sends reads and writes
together instead (mix.lua), and counts the cached answers the writes made
out of date. With --server-pid (and --hello-pid) it also counts the
system calls each endpoint's request costs that process (strace). With
--against it measures a second server step by step with the first (the same
build on other data, or another build on the same), so that a slow moment
of the machine falls on both alike.

    perf-bench [--url URL] [--concurrency 1,10,50] [--duration S | --requests N]
               [--runs R] [--endpoints a,b] [--location ID] [--grow N]
               [--hello URL] [--mix] [--budget-ms N] [--json out.json]
               [--no-compress] [--server-pid PID] [--hello-pid PID]
               [--against URL [--against-json out.json]]

Percentiles come from every recorded request (report.lua reads wrk's
histogram, mix.lua keeps its own); nothing here averages latencies.
Endpoints of modules that are not built yet answer 404 and are reported as
skipped. The token is revoked at the end. Exit code 1 when a p95 is over
--budget-ms, 2 when the run could not be made."""

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.realpath(__file__))
REPORT_LUA = os.path.join(HERE, "report.lua")
MIX_LUA = os.path.join(HERE, "mix.lua")
WRK_TIMEOUT_S = 10      # a slower answer counts as a socket error (timeout)
SYSCALL_REQUESTS = 200  # --server-pid: requests counted per endpoint
REQUESTS_MAX_S = 600    # --requests: a step stops after this long regardless

# The read endpoints, as the reference lists them. {name} in a path is the
# first id in the answer of IDS[name]. `later`: of a module not built yet,
# skipped while the server answers 404.
ENDPOINTS = [
    {"name": "contacts", "path": "/api/contacts"},
    {"name": "contacts-search", "path": "/api/contacts?q=ann"},
    {"name": "contacts-tag", "path": "/api/contacts?tag=vip"},
    {"name": "contact", "path": "/api/contacts/{contact}"},
    {"name": "contact-notes", "path": "/api/contacts/{contact}/notes"},
    {"name": "tags", "path": "/api/tags"},
    {"name": "custom-fields", "path": "/api/custom-fields"},
    {"name": "export", "path": "/api/contacts/export.csv"},
    {"name": "dashboard", "path": "/api/dashboard", "later": True},
    {"name": "conversations", "path": "/api/conversations", "later": True},
    {"name": "conversation", "path": "/api/conversations/{conversation}", "later": True},
    {"name": "conversation-messages", "path": "/api/conversations/{conversation}/messages",
     "later": True},
    {"name": "opportunities", "path": "/api/opportunities", "later": True},
    {"name": "opportunity", "path": "/api/opportunities/{opportunity}", "later": True},
    {"name": "pipelines", "path": "/api/pipelines", "later": True},
    {"name": "tasks", "path": "/api/tasks", "later": True},
    {"name": "task", "path": "/api/tasks/{task}", "later": True},
    {"name": "invoices", "path": "/api/invoices", "later": True},
    {"name": "invoice", "path": "/api/invoices/{invoice}", "later": True},
    {"name": "project", "path": "/api/project", "later": True},
    {"name": "agency-projects", "path": "/api/agency/projects", "later": True},
    {"name": "agency-overview", "path": "/api/agency/overview", "later": True},
    {"name": "agency-contacts", "path": "/api/agency/contacts", "later": True},
    {"name": "agency-opportunities", "path": "/api/agency/opportunities", "later": True},
    {"name": "agency-tasks", "path": "/api/agency/tasks", "later": True},
    {"name": "mobile-summary", "path": "/api/mobile/summary", "later": True},
    {"name": "mobile-inbox", "path": "/api/mobile/inbox", "later": True},
    {"name": "mobile-deals", "path": "/api/mobile/deals", "later": True},
    {"name": "mobile-projects", "path": "/api/mobile/projects", "later": True},
    {"name": "report-dashboards", "path": "/api/reports/dashboards", "later": True},
    {"name": "report-data", "path": "/api/reports/dashboards/{dashboard}/data", "later": True},
]

IDS = {
    "contact": "/api/contacts?limit=1",
    "conversation": "/api/conversations?limit=1",
    "opportunity": "/api/opportunities?limit=1",
    "task": "/api/tasks?limit=1",
    "invoice": "/api/invoices?limit=1",
    "dashboard": "/api/reports/dashboards?limit=1",
}

# --mix: a working day's requests, as shares of 100. Nine in ten are reads of
# the screens people keep open; the writes are the ones that change those
# screens: a new contact, a deal moved on the board, a message sent, a task
# done (and, a round later, reopened).
MIX_READS = [("contacts", 16), ("contacts-search", 6), ("contact", 8), ("conversations", 10),
             ("conversation-messages", 10), ("opportunities", 8), ("tasks", 8), ("dashboard", 6),
             ("project", 4), ("agency-projects", 4), ("mobile-summary", 4), ("mobile-inbox", 4),
             ("invoices", 2)]
MIX_WRITES = [("create-contact", 3), ("move-deal", 3), ("add-message", 3), ("complete-task", 1)]

FIGURES = ("rps", "p50", "p95", "p99", "max", "errors", "5xx")

DESCRIPTION = """The reference's read benchmark: signs in, picks the sub-account with the
most contacts and runs wrk against each read endpoint at each number of
parallel keep-alive clients. Reports requests/s, p50, p95, p99 and max (ms,
of every request), errors (non-2xx answers and socket errors) and, of those,
the 5xx answers: the server's own failures."""

EXAMPLES = """examples:
  build/perf-seed --data-dir perf-data          # the data set (make seed)
  build/hyperlevel serve --data-dir perf-data --modules-dir build/modules ...
  perf-bench --concurrency 1,10,50 --json out.json
  perf-bench --concurrency 10 --budget-ms 20    # exit code 1 if a p95 is over
  perf-bench --endpoints contacts,export --runs 3 --duration 2
  perf-bench --hello http://127.0.0.1:4701/  # each endpoint against bench-hello
  perf-bench --mix --concurrency 1,10,50     # reads and writes together
  perf-bench --server-pid $(pgrep -x hyperlevel)  # and each request's system calls
  perf-bench --url http://127.0.0.1:4700 --against http://127.0.0.1:4800  # step by step
  make bench                                    # all of it, read cache on and off"""


class Fail(Exception):
    """A run that cannot be made: the message says why."""


# ---- options ------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(prog="perf-bench", description=DESCRIPTION, epilog=EXAMPLES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default="http://127.0.0.1:4700", help="the server (default %(default)s)")
    p.add_argument("--user", default="perf@example.test", help="who signs in (default %(default)s)")
    p.add_argument("--password", default="perf-pass-123", help="their password (default %(default)s)")
    p.add_argument("--concurrency", default="1,10", type=int_list, metavar="LIST",
                   help="parallel keep-alive clients per step, e.g. 1,10,50 (default 1,10)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--duration", type=positive(int), default=5, metavar="S",
                     help="whole seconds per step, as wrk takes them (default 5)")
    how.add_argument("--requests", type=positive(int), metavar="N", help="requests per step instead")
    p.add_argument("--runs", type=positive(int), default=1, metavar="R",
                   help="repeat each step R times; each figure is the median (default 1)")
    p.add_argument("--endpoints", type=name_list, metavar="NAMES", help="only these, by name (see --list)")
    p.add_argument("--list", action="store_true", help="list the endpoints and exit")
    p.add_argument("--location", type=positive(int), metavar="ID", help="this sub-account, not the largest")
    p.add_argument("--grow", type=positive(int), metavar="N",
                   help="first import N generated contacts into the sub-account (a CSV upload)")
    p.add_argument("--hello", metavar="URL",
                   help="first measure this hello-world server (tools/bench-hello) at each level")
    p.add_argument("--mix", action="store_true",
                   help="reads and writes together, in the shares of MIX_READS and MIX_WRITES"
                        " (it writes to the data)")
    p.add_argument("--budget-ms", type=positive(float), metavar="MS", help="exit 1 when a p95 is over it")
    p.add_argument("--json", metavar="FILE", help="write every figure of every run there")
    p.add_argument("--no-compress", action="store_true",
                   help="do not send Accept-Encoding: br, gzip (as a browser does)")
    p.add_argument("--server-pid", type=positive(int), metavar="PID",
                   help="the server's process: count its system calls per request to each"
                        " endpoint (strace, %d requests on one keep-alive connection)"
                        % SYSCALL_REQUESTS)
    p.add_argument("--hello-pid", type=positive(int), metavar="PID",
                   help="the hello-world's process, counted the same way (with --hello)")
    p.add_argument("--against", metavar="URL",
                   help="measure this server too, each step right after the same step on --url")
    p.add_argument("--against-json", metavar="FILE", help="write --against's figures there")
    args = p.parse_args(argv)
    known = {e["name"] for e in ENDPOINTS}
    for name in args.endpoints or []:
        if name not in known:
            p.error("no endpoint named %r (see --list)" % name)
    if args.mix and (args.endpoints or args.hello):
        p.error("--mix sends its own endpoints: leave out --endpoints and --hello")
    if args.hello and urllib.parse.urlsplit(args.hello).scheme != "http":
        p.error("--hello must be http://HOST:PORT/PATH, not %r" % args.hello)
    if args.mix and args.server_pid:
        p.error("--server-pid counts the reads of each endpoint: leave out --mix")
    if args.hello_pid and not (args.hello and args.server_pid):
        p.error("--hello-pid goes with --hello and --server-pid")
    if args.against and (args.mix or args.hello or args.grow or args.server_pid):
        p.error("--against compares the read endpoints alone: leave out --mix, --hello, --grow"
                " and --server-pid")
    if args.against_json and not args.against:
        p.error("--against-json goes with --against")
    return args


def int_list(text):
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("a list of whole numbers above 0, like 1,10,50")
    return values


def name_list(text):
    return [v.strip() for v in text.split(",") if v.strip()]


def positive(kind):
    def check(text):
        try:
            v = kind(text)
        except ValueError:
            v = 0
        if v <= 0:
            raise argparse.ArgumentTypeError("a number above 0, not %r" % text)
        return v
    return check


# ---- talking to the server ----------------------------------------------------

class Api:
    """One keep-alive connection; `auth` and `location` go on every request."""

    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        if u.scheme != "http" or not u.hostname:
            raise Fail("--url must be http://HOST[:PORT], not %r" % url)
        self.host, self.port = u.hostname, u.port or 80
        self.base = "http://%s:%d" % (self.host, self.port)
        self.auth = {}
        self.location = None
        self.conn = None

    def headers(self, extra=None):
        h = dict(self.auth)
        if self.location:
            h["X-Location-Id"] = str(self.location)
        h.update(extra or {})
        return h

    def request(self, method, path, body=None, headers=None):
        """(status, headers as a dict with lower-case names, body bytes)."""
        if isinstance(body, dict):
            body = json.dumps(body).encode()
            headers = dict(headers or {}, **{"Content-Type": "application/json"})
        tries = 2 if method == "GET" else 1  # a GET again when a kept-alive connection had closed
        for attempt in range(1, tries + 1):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
                self.conn.request(method, path, body=body, headers=self.headers(headers))
                r = self.conn.getresponse()
                return r.status, header_dict(r.getheaders()), r.read()
            except (OSError, http.client.HTTPException) as e:
                self.close()
                if attempt == tries:
                    raise Fail("%s %s%s: %s" % (method, self.base, path, e))

    def json(self, method, path, body=None, want=(200,), headers=None):
        status, _, data = self.request(method, path, body, headers)
        if status not in want:
            raise Fail("%s %s answered %d: %s" % (method, path, status, data[:300].decode("utf-8", "replace")))
        return json.loads(data) if data else None

    def close(self):
        if self.conn:
            self.conn.close()
            self.conn = None


def header_dict(pairs):
    """Lower-case names; a repeated header's values one a line."""
    out = {}
    for name, value in pairs:
        name = name.lower()
        out[name] = out[name] + "\n" + value if name in out else value
    return out


def sign_in(api, args):
    """Signs in with a session, makes a token for wrk to send; returns the
    session's answer (its user and locations) and the token's id."""
    api.auth = {}
    status, headers, data = api.request("POST", "/api/auth/login",
                                        {"email": args.user, "password": args.password})
    if status != 200:
        raise Fail("signing in as %s answered %d (is the data seeded? see perf-seed)" % (args.user, status))
    session = json.loads(data)
    cookie = "; ".join(c.split(";")[0] for c in headers.get("set-cookie", "").split("\n") if "=" in c)
    api.auth = {"Cookie": cookie, "X-CSRF-Token": session.get("csrf_token", "")}
    session_auth = api.auth
    token = api.json("POST", "/api/auth/tokens", {"name": "perf-bench", "expires_days": 1},
                     want=(200, 201))
    api.auth = {"Authorization": "Bearer " + token["token"]}
    return session, token["id"], session_auth


def revoke(api, token_id, session_auth):
    api.auth, api.location = session_auth, None
    try:
        api.request("DELETE", "/api/auth/tokens/%d" % token_id)
    except Fail:
        pass


def contact_count(api, location):
    api.location = location
    return api.json("GET", "/api/contacts?limit=1&count=1")["total"]


def choose_location(api, session, wanted):
    """(id, name, contacts) of `wanted`, or of the location with the most
    contacts among those the user may open."""
    names = {loc["id"]: loc["name"] for loc in session.get("locations", [])}
    if wanted:
        return wanted, names.get(wanted, "?"), contact_count(api, wanted)
    if not names:
        raise Fail("%s may open no location" % session["user"]["email"])
    counts = {loc: contact_count(api, loc) for loc in names}
    best = max(counts, key=lambda loc: (counts[loc], -loc))
    return best, names[best], counts[best]


def cache_state(api):
    """The X-Cache header of a second identical read: hit when the server's
    read cache is on."""
    for _ in (1, 2):
        status, headers, _ = api.request("GET", "/api/contacts")
    return headers.get("x-cache", "none") if status == 200 else "unknown"


# ---- --grow: a CSV import -------------------------------------------------------

FIRST = ("Alma Ana Andrea Anneliese Annika Arne Astrid Beatriz Bruno Camila Carlos Dana Diego "
         "Elif Emeka Erik Fatima Flora Freya Gustavo Hanna Henrik Hiro Ingrid Isabel Jakob "
         "Joanna Jonas Kamala Kenji Lars Leila Linnea Lucia Magnus Manon Mariana Mehmet Mira "
         "Nadia Niamh Oskar Paulo Petra Rania Rohan Ruth Selin Simone Soren Tamar Theo Ursula "
         "Valentina Wanda Xavier Yasmin Yuki Zainab Zofia").split()
LAST = ("Aalto Achebe Andersen Baptiste Barros Bjork Brennan Calloway Castillo Dubois Eriksen "
        "Esposito Fagerlund Fontaine Gallagher Haddad Hakimi Ishikawa Jaramillo Johansson Kaur "
        "Kovacs Lachance Lindgren Mancini Marchetti Mbeki Nakashima Navarro Nielsen Oduya "
        "Pacheco Quintana Rasmussen Salazar Sorensen Takahashi Udeh Valdez Vasquez Whitaker "
        "Wojcik Yamamoto Zapata Zielinski").split()
COMPANY = ("Alder Brook Copper Dune Elm Flint Glen Heath Indigo Jasper Kestrel Linden "
           "Marble Nova Opal Pebble Quill Rowan Slate Thistle").split()
KIND = "Dental Fitness Roofing Realty Law Bakery Auto Spa Clinic Plumbing Studio Salon".split()
TAGS = ["lead", "customer", "newsletter", "hot", "vip", "webinar", "referral", "trial"]


def csv_cell(text):
    return '"%s"' % text.replace('"', '""') if any(c in text for c in ',"\n') else text


def grow_csv(n, rng):
    """N contacts with varied names and e-mails no one else has."""
    run = "%x" % int(time.time() * 1000)
    lines = ["first_name,last_name,email,phone,company_name,tags"]
    for i in range(n):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        tags = ",".join(rng.sample(TAGS, rng.choice((0, 1, 1, 2, 3))))
        row = [first, last, "%s.%s.%s.%d@grow.example.test" % (first.lower(), last.lower(), run, i),
               "+1 555 %03d %04d" % (rng.randrange(1000), rng.randrange(10000)),
               "%s %s" % (rng.choice(COMPANY), rng.choice(KIND)), tags]
        lines.append(",".join(csv_cell(c) for c in row))
    return ("\n".join(lines) + "\n").encode()


def grow(api, n):
    """Import N contacts; returns what the import reported and its times."""
    body = grow_csv(n, random.Random(n))
    start = time.monotonic()
    answer = api.json("POST", "/api/contacts/import", body, want=(200, 202),
                      headers={"Content-Type": "text/csv"})
    while answer["status"] not in ("done", "failed"):
        time.sleep(0.1)
        answer = api.json("GET", "/api/contacts/imports/%d" % answer["id"])
    seconds = time.monotonic() - start
    return {"rows": n, "bytes": len(body), "seconds": round(seconds, 3),
            "rows_per_s": round(n / seconds), "status": answer["status"],
            "created": answer.get("created"), "updated": answer.get("updated"),
            "skipped": answer.get("skipped")}


# ---- the endpoints --------------------------------------------------------------

def first_id(api, path):
    """(the id of the first row of a list or None, the list's status)."""
    status, _, data = api.request("GET", path)
    rows = (json.loads(data).get("data") or []) if status == 200 else []
    return (rows[0].get("id") if rows else None), status


def resolve(api, endpoint, ids):
    """The endpoint's path with its ids filled in, and the status of the
    first answer of an id list that has none."""
    path = endpoint["path"]
    for key, list_path in IDS.items():
        if "{%s}" % key in path:
            if key not in ids:
                ids[key] = first_id(api, list_path)
            value, status = ids[key]
            if value is None:
                return None, status, "%s: %s" % (list_path, "no rows" if status == 200 else status)
            path = path.replace("{%s}" % key, str(value))
    return path, None, None


def plan(api, names, wrk_headers):
    """The endpoints to measure (name, path, first status) and those skipped:
    those of `names`, or all."""
    chosen = [e for e in ENDPOINTS if not names or e["name"] in names]
    ids, todo, skipped = {}, [], []
    for e in chosen:
        path, status, why = resolve(api, e, ids)
        if path:
            status = api.request("GET", path, headers=wrk_headers)[0]
        if status == 404 and e.get("later"):
            why = "404: their modules are not built yet"
        if why:
            skipped.append({"name": e["name"], "path": e["path"], "reason": why})
        else:
            todo.append({"name": e["name"], "path": path, "first_status": status})
    return todo, skipped


# ---- wrk ------------------------------------------------------------------------

def wrk_threads(connections):
    """About one thread per 10 connections; wrk needs a divisor of them."""
    want = max(1, round(connections / 10))
    return min((d for d in range(1, connections + 1) if connections % d == 0),
               key=lambda d: (abs(d - want), d))


def wrk_command(args, url, headers, connections, threads, script, script_args=()):
    cmd = ["wrk", "-t%d" % threads, "-c%d" % connections, "--timeout", "%ds" % WRK_TIMEOUT_S,
           "-d", "%ds" % REQUESTS_MAX_S if args.requests else "%gs" % args.duration,
           "-s", script]
    for name, value in headers.items():
        cmd += ["-H", "%s: %s" % (name, value)]
    cmd.append(url)
    quota = str(-(-args.requests // threads)) if args.requests else "0"
    return cmd + ["--"] + list(script_args) + [quota]


def run_wrk(cmd, connections, threads, stop_early, prefix="perf-bench-result "):
    """Runs wrk; returns the script's figures, the line after `prefix`. With
    `stop_early` each thread stops itself after its requests, but wrk's main
    thread sleeps for the whole -d: it is interrupted once every thread has
    said so."""
    env = dict(os.environ, PERF_BENCH_CONNECTIONS=str(connections), PERF_BENCH_LUA=HERE)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    err = []
    if stop_early:
        stopped = 0
        for line in proc.stderr:
            err.append(line)
            stopped += line.strip() == "perf-bench-stopped"
            if stopped == threads:
                proc.send_signal(signal.SIGINT)
                break
    out, rest = proc.communicate()
    for line in out.splitlines():
        if line.startswith(prefix):
            return json.loads(line[len(prefix):])
    raise Fail("wrk gave no result (exit %d): %s" % (proc.returncode, ("".join(err) + rest).strip()[-500:]))


def figures(result):
    """The table's figures of one wrk run."""
    ms, sock = result["ms"], result["socket_errors"]
    return {"rps": result["rps"], "p50": ms["p50"], "p95": ms["p95"], "p99": ms["p99"],
            "max": ms["max"], "errors": result["non2xx"] + sum(sock.values()),
            "5xx": result["status_5xx"]}


def measure(args, sides, enc):
    """Every step of each side (--url's server, then --against's) `runs`
    times: rounds outermost, so that a slow moment of the machine does not
    fall on one step's every run, and each step on the sides in turn, so
    that it falls on both alike. A step with a `url` is another server's
    (the hello-world): it gets no sign-in."""
    for side in sides:
        side.steps = [{"name": e["name"], "path": e["path"], "clients": c,
                       "threads": wrk_threads(c), "url": e.get("url"), "runs": []}
                      for e in side.endpoints for c in args.concurrency]
    for r in range(args.runs):
        for i in range(len(sides[0].steps)):
            for side in sides:
                s, api = side.steps[i], side.api
                url, headers = (s["url"], enc) if s["url"] else (api.base + s["path"], api.headers(enc))
                cmd = wrk_command(args, url, headers, s["clients"], s["threads"], REPORT_LUA)
                result = run_wrk(cmd, s["clients"], s["threads"], bool(args.requests))
                s["runs"].append(result)
                f = figures(result)
                progress("%-20s %3d clients  run %d/%d: %8.0f req/s  p95 %7.2f ms  errors %d%s"
                         % (s["name"], s["clients"], r + 1, args.runs, f["rps"], f["p95"],
                            f["errors"], side.label))
    for side in sides:
        for s in side.steps:
            runs = [figures(r) for r in s["runs"]]
            s["median"] = {k: statistics.median(f[k] for f in runs) for k in FIGURES}


def measured_on_every_side(sides):
    """Keeps each side to the endpoints every side can measure, so that
    their steps pair up; the others join its skipped ones."""
    common = set.intersection(*({e["name"] for e in side.endpoints} for side in sides))
    for side in sides:
        side.skipped += [{"name": e["name"], "path": e["path"], "reason": "skipped on the other server"}
                         for e in side.endpoints if e["name"] not in common]
        side.endpoints = [e for e in side.endpoints if e["name"] in common]


# ---- system calls -----------------------------------------------------------------

def count_syscalls(pid, api, path, headers):
    """The system calls process `pid` makes for one GET of `path`: strace
    counts all of its threads' over SYSCALL_REQUESTS requests on `api`'s
    kept-alive connection, which gets one answer first, so that neither the
    connection's accept nor a first, uncached answer is counted. Raises
    Fail when strace is missing or may not trace the process."""
    def get():
        status = api.request("GET", path, headers=headers)[0]
        if status != 200:
            raise Fail("GET %s answered %d while its system calls were counted" % (path, status))

    get()
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as out:
        try:
            tracer = subprocess.Popen(["strace", "-f", "-c", "-q", "-o", out.name, "-p", str(pid)],
                                      stderr=subprocess.PIPE, text=True)
        except FileNotFoundError:
            raise Fail("strace is needed: apt-get install strace (make bench installs it)")
        try:
            attached = wait_traced(pid, tracer)
            for _ in range(SYSCALL_REQUESTS if attached else 0):
                get()
        finally:
            if tracer.poll() is None:
                tracer.send_signal(signal.SIGINT)
            err = tracer.communicate()[1]
        total = [line.split() for line in out.read().splitlines() if line.endswith(" total")]
    if not attached:
        raise Fail("strace could not trace process %d: %s" % (pid, err.strip() or "timed out"))
    if not total:  # strace ends by the SIGINT it was sent: its exit code says nothing
        raise Fail("strace -p %d: no summary" % pid)
    return int(total[0][3]) / SYSCALL_REQUESTS


def wait_traced(pid, tracer):
    """Whether `tracer` came to trace every thread of `pid` (their
    TracerPid) within 10 s; False when it ended first."""
    deadline = time.time() + 10
    while time.time() < deadline and tracer.poll() is None:
        tasks = "/proc/%d/task" % pid
        try:
            tracers = [status_field("%s/%s/status" % (tasks, t), "TracerPid") for t in os.listdir(tasks)]
        except OSError:
            raise Fail("no process %d to count the system calls of" % pid)
        if tracers and all(t == str(tracer.pid) for t in tracers):
            return True
        time.sleep(0.01)
    return False


def status_field(path, name):
    with open(path) as f:
        return next((line.split(":", 1)[1].strip() for line in f if line.startswith(name + ":")), None)


def measure_syscalls(args, api, steps, enc):
    """Each endpoint's system calls a request, on each of its steps; none
    when strace cannot count them here (the other figures stand)."""
    counted = {}
    try:
        for s in steps:
            if s["name"] in counted or (s["url"] and not args.hello_pid):
                continue
            if s["url"]:  # the hello-world's, without the sign-in
                hello = Api(s["url"])
                try:
                    path = urllib.parse.urlsplit(s["url"]).path or "/"
                    counted[s["name"]] = count_syscalls(args.hello_pid, hello, path, enc)
                finally:
                    hello.close()
            else:
                counted[s["name"]] = count_syscalls(args.server_pid, api, s["path"], enc)
            progress("%-20s %.2f system calls a request" % (s["name"], counted[s["name"]]))
    except Fail as e:
        progress("system calls not counted: %s" % e)
        counted = {}
    for s in steps:
        s["syscalls"] = counted.get(s["name"])


# ---- --mix ----------------------------------------------------------------------

def listed(api, path):
    """The rows of a list, or [] when its module is not loaded."""
    status, _, data = api.request("GET", path)
    return (json.loads(data).get("data") or []) if status == 200 else []


def board_moves(api):
    """Each of the board's first 100 deals to the next stage, then back."""
    status, _, data = api.request("GET", "/api/opportunities?limit=100")
    if status != 200:
        return []
    board = json.loads(data)
    pipeline = next((p for p in listed(api, "/api/pipelines")
                     if p["id"] == board["pipeline"]["id"]), None)
    stages = [st["id"] for st in pipeline["stages"]] if pipeline else []
    if len(stages) < 2:
        return []
    onward = {st: stages[(i + 1) % len(stages)] for i, st in enumerate(stages)}
    deals = board["data"]
    return ([("PATCH", "/api/opportunities/%d" % d["id"], {"stage_id": onward[d["stage_id"]]})
             for d in deals] +
            [("PATCH", "/api/opportunities/%d" % d["id"], {"stage_id": d["stage_id"]})
             for d in deals])


def mix_writes(api):
    """{kind: [(method, path, body)]} for MIX_WRITES, on the sub-account's
    own rows; a kind whose rows or module are missing has no requests."""
    conversations = [c["id"] for c in listed(api, "/api/conversations?limit=50")]
    tasks = [t["id"] for t in listed(api, "/api/tasks?status=open&limit=100")]
    return {
        "create-contact": [("POST", "/api/contacts",
                            {"first_name": "Mix", "last_name": "Run {u}",
                             "email": "mix-{u}@bench.example.test"})],
        "move-deal": board_moves(api),
        "add-message": [("POST", "/api/conversations/%d/messages" % c,
                         {"body": "Following up on our call ({u})."}) for c in conversations],
        "complete-task": ([("POST", "/api/tasks/%d/complete" % t, {}) for t in tasks] +
                          [("POST", "/api/tasks/%d/reopen" % t, {}) for t in tasks]),
    }


def mix_plan(api, enc):
    """The kinds of the mix with their weights, their percent of the
    requests (of the kinds this server has), their requests, and the kinds
    skipped."""
    reads, skipped = plan(api, [name for name, _ in MIX_READS], enc)
    share = dict(MIX_READS + MIX_WRITES)
    kinds = [{"name": e["name"], "share": share[e["name"]], "write": False,
              "requests": [("GET", e["path"], None)]} for e in reads]
    for name, requests in mix_writes(api).items():
        if requests:
            kinds.append({"name": name, "share": share[name], "write": True, "requests": requests})
        else:
            skipped.append({"name": name, "path": "", "reason": "no rows to write to"})
    total = sum(k["share"] for k in kinds)
    for k in kinds:
        k["percent"] = round(100 * k["share"] / total, 1)
    return kinds, skipped


def plan_file(kinds, path):
    """The plan as mix.lua reads it."""
    with open(path, "w") as f:
        for k in kinds:
            f.write("kind\t%s\t%d\n" % (k["name"], k["share"]))
            for method, target, body in k["requests"]:
                f.write("request\t%s\t%s\t%s\t%s\n" % (k["name"], method, target,
                                                        "-" if body is None else json.dumps(body)))


def cache_counts(api):
    """The read cache's hits, misses and invalidations over every route, or
    None when the user may not read the metrics."""
    status, _, data = api.request("GET", "/api/admin/metrics")
    if status != 200:
        return None
    routes = json.loads(data)["routes"]
    return {k: sum(r.get("cache_" + k, 0) for r in routes) for k in ("hits", "misses", "invalidated")}


def mix_figures(result, kind):
    k = result["kinds"][kind]
    return {"rps": k["rps"], "p50": k["ms"]["p50"], "p95": k["ms"]["p95"], "p99": k["ms"]["p99"],
            "max": k["ms"]["max"],
            "errors": k["non2xx"] + (sum(result["socket_errors"].values()) if kind == "all" else 0),
            "5xx": k["status_5xx"]}


def measure_mix(args, api, kinds, enc):
    """The mix at every level, `runs` times; each run's figures by kind and
    the cache's counts over it."""
    names = [k["name"] for k in kinds] + ["all"]
    writes = [k["name"] for k in kinds if k["write"]]
    percents = {k["name"]: k["percent"] for k in kinds}
    steps = [{"clients": c, "percents": percents, "runs": [], "cache": []} for c in args.concurrency]
    path = os.path.join(tempfile.mkdtemp(prefix="perf-bench-"), "mix.plan")
    plan_file(kinds, path)
    try:
        for r in range(args.runs):
            for s in steps:
                before = cache_counts(api)
                run_tag = "%x" % int(time.time() * 1000)  # new contacts' e-mails differ by run
                cmd = wrk_command(args, api.base + "/", api.headers(enc), s["clients"], s["clients"],
                                  MIX_LUA, [path, run_tag])
                result = run_wrk(cmd, s["clients"], s["clients"], bool(args.requests),
                                 "perf-bench-mix ")
                after = cache_counts(api)
                s["runs"].append(result)
                s["cache"].append({k: after[k] - before[k] for k in after}
                                  if before and after else None)
                all_ = mix_figures(result, "all")
                progress("mix %3d clients  run %d/%d: %8.0f req/s  p95 %7.2f ms  errors %d"
                         % (s["clients"], r + 1, args.runs, all_["rps"], all_["p95"], all_["errors"]))
    finally:
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)
    for s in steps:
        s["median"] = {n: {f: statistics.median(mix_figures(run, n)[f] for run in s["runs"])
                           for f in FIGURES} for n in names}
        s["writes"] = statistics.median(sum(run["kinds"][w]["answers"] for w in writes)
                                        for run in s["runs"])
        counted = [c for c in s["cache"] if c]
        s["cache_median"] = ({k: statistics.median(c[k] for c in counted) for k in counted[0]}
                             if counted else None)
    return steps


def progress(text):
    print(text, file=sys.stderr, flush=True)


# ---- the report -----------------------------------------------------------------

def number(v):
    """Figures as a reader wants them: 12 300, 41.2, 3.07, 0.412."""
    if v >= 1000:
        return "{:,.0f}".format(v).replace(",", " ")
    return "%.3g" % v if v < 100 else "%.0f" % v


def header(info):
    how = "%d requests" % info["requests"] if info["requests"] else "%g s" % info["duration_s"]
    runs = "the median of %d runs" % info["runs"] if info["runs"] > 1 else "one run"
    loc = info["location"]
    lines = ["perf-bench %s, sub-account %d \"%s\" (%s contacts)"
             % (info["url"], loc["id"], loc["name"], number(loc["contacts"])),
             "read cache: %s (X-Cache on a repeated read: %s); Accept-Encoding: %s"
             % ({"hit": "on", "none": "off"}.get(info["cache"], "?"), info["cache"],
                info["accept_encoding"] or "none"),
             "%s per step, each figure %s; wrk, keep-alive, a thread per 10 clients; "
             "latencies in ms, of every request" % (how, runs)]
    if info.get("grow"):
        g = info["grow"]
        lines.append("grown by an import of %d rows (%s KB of CSV; %s: %s created, %s updated,"
                     " %s skipped): %.2f s from upload to done, %s rows/s"
                     % (g["rows"], number(g["bytes"] / 1024), g["status"], g["created"],
                        g["updated"], g["skipped"], g["seconds"], number(g["rows_per_s"])))
    return lines


def hello_share(steps):
    """{clients: requests/s of the hello-world}, when it was measured."""
    return {s["clients"]: s["median"]["rps"] for s in steps if s.get("url")}


def table(steps, head=("endpoint", "path")):
    hello = hello_share(steps)
    calls = any(s.get("syscalls") is not None for s in steps)
    cols = head + ("clients", "req/s", "p50", "p95", "p99", "max", "errors", "5xx") + \
        (("of hello",) if hello else ()) + (("calls",) if calls else ())
    rows = [cols]
    for s in steps:
        m = s["median"]
        row = (s["name"], s["path"], str(s["clients"]), number(m["rps"]), number(m["p50"]),
               number(m["p95"]), number(m["p99"]), number(m["max"]), "%g" % m["errors"],
               "%g" % m["5xx"])
        if hello:
            h = hello.get(s["clients"])
            row += ("%.0f %%" % (100 * m["rps"] / h) if h else "",)
        if calls:
            row += ("%.1f" % s["syscalls"] if s.get("syscalls") is not None else "",)
        rows.append(row)
    width = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    return ["  ".join(c.ljust(width[i]) if i < 2 else c.rjust(width[i]) for i, c in enumerate(r))
            for r in rows]


def over_budget(steps, budget):
    return [s for s in steps if budget and s["median"]["p95"] > budget]


def skipped_lines(skipped):
    """One line per reason, naming the endpoints skipped for it."""
    reasons = {}
    for s in skipped:
        reasons.setdefault(s["reason"], []).append(s["name"])
    return ["skipped (%s): %s" % (why, ", ".join(names)) for why, names in reasons.items()]


def mix_rows(mix, kinds):
    """The mix as the table's rows: each kind, then all, at each level."""
    rows = []
    for s in mix:
        for k in kinds + [{"name": "all", "percent": 100, "write": False}]:
            what = "%g %% of requests%s" % (k["percent"], ", a write" if k["write"] else "")
            rows.append({"name": k["name"], "path": what, "clients": s["clients"],
                         "median": s["median"][k["name"]]})
    return rows


def mix_lines(mix):
    lines = []
    for s in mix:
        c = s["cache_median"]
        if c is None:
            lines.append("cache at %d clients: not counted (the user may not read /api/admin/metrics)"
                         % s["clients"])
            continue
        if not c["hits"] + c["misses"]:
            lines.append("cache at %d clients: not in use" % s["clients"])
            continue
        lines.append("cache at %d clients: %s hits, %s misses, %s of them answers a write had made"
                     " out of date (%.2f a write, %s writes)"
                     % (s["clients"], number(c["hits"]), number(c["misses"]), number(c["invalidated"]),
                        c["invalidated"] / s["writes"] if s["writes"] else 0, number(s["writes"])))
    return lines


def report(info, steps, skipped, budget, mix=None):
    lines = header(info) + [""]
    if mix:
        lines += table(steps, ("kind", "share")) + mix_lines(mix)
    else:
        lines += table(steps)
        if any(s.get("syscalls") is not None for s in steps):
            lines.append("calls: system calls a request, counted by strace over %d requests"
                         % SYSCALL_REQUESTS)
    lines += skipped_lines(skipped)
    for s in over_budget(steps, budget):
        lines.append("over budget: %s at %d clients, p95 %s ms > %g ms"
                     % (s["name"], s["clients"], number(s["median"]["p95"]), budget))
    print("\n".join(lines), flush=True)


def write_json(path, info, steps, skipped, budget, mix=None):
    doc = dict(info, skipped=skipped, budget_ms=budget,
               over_budget=[{"name": s["name"], "clients": s["clients"]}
                            for s in over_budget(steps, budget)])
    if mix:
        doc["mix"] = mix
    else:
        doc["endpoints"] = steps
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


# ---- main -----------------------------------------------------------------------

class Side:
    """A server measured: its connection, signed in with a token for wrk to
    send, and what perf-bench found there and measured."""

    def __init__(self, args, url, label=""):
        self.api = Api(url)
        self.label = label  # on its progress lines
        self.session, self.token_id, self.session_auth = sign_in(self.api, args)
        self.info, self.endpoints, self.skipped, self.steps = None, [], [], []

    def close(self):
        revoke(self.api, self.token_id, self.session_auth)


def describe(args, api, session):
    """Chooses the sub-account (after growing it, with --grow); returns the
    run's description."""
    loc_id, loc_name, contacts = choose_location(api, session, args.location)
    api.location = loc_id
    info = {"tool": "perf-bench", "url": api.base, "user": args.user,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "concurrency": args.concurrency, "duration_s": None if args.requests else args.duration,
            "requests": args.requests, "runs": args.runs, "cache": cache_state(api),
            "accept_encoding": None if args.no_compress else "br, gzip",
            "wrk": wrk_version(), "wrk_timeout_s": WRK_TIMEOUT_S, "hello": args.hello,
            "machine": machine(), "server": api.json("GET", "/api/health")}
    if args.grow:
        progress("importing %d contacts into sub-account %d ..." % (args.grow, loc_id))
        info["grow"] = grow(api, args.grow)
        contacts = contact_count(api, loc_id)
    info["location"] = {"id": loc_id, "name": loc_name, "contacts": contacts}
    info["sub_accounts"] = len(session.get("locations", []))
    return info


def machine():
    """What the figures were measured on."""
    def first(path, name, sep=":"):
        try:
            with open(path) as f:
                return next((line.split(sep, 1)[1].strip() for line in f
                             if line.split(sep, 1)[0].strip() == name), None)
        except OSError:
            return None
    mem = first("/proc/meminfo", "MemTotal")
    system = first("/etc/os-release", "PRETTY_NAME", "=") or ""
    return {"cpu": first("/proc/cpuinfo", "model name"), "cores": os.cpu_count(),
            "memory_gb": round(int(mem.split()[0]) / 2**20, 1) if mem else None,
            "os": system.strip('"') or None,
            "kernel": os.uname().release}


def wrk_version():
    p = subprocess.run(["wrk", "-v"], capture_output=True, text=True)
    return (p.stdout + p.stderr).split("[")[0].strip()


def main(argv):
    args = parse_args(argv)
    if args.list:
        for e in ENDPOINTS:
            print("%-22s %s%s" % (e["name"], e["path"], "  (a later module)" if e.get("later") else ""))
        return 0
    if not shutil.which("wrk"):
        raise Fail("wrk is needed: apt-get install wrk (make bench installs it)")
    sides = []
    try:
        sides.append(Side(args, args.url))
        if args.against:
            sides.append(Side(args, args.against, "  (--against)"))
        for side in sides:
            side.info = describe(args, side.api, side.session)
        enc = {} if args.no_compress else {"Accept-Encoding": "br, gzip"}
        first, mix = sides[0], None
        if args.mix:
            kinds, first.skipped = mix_plan(first.api, enc)
            mix = measure_mix(args, first.api, kinds, enc)
            first.steps = mix_rows(mix, kinds)
        else:
            for side in sides:
                side.endpoints, side.skipped = plan(side.api, args.endpoints, enc)
            measured_on_every_side(sides)
            if args.hello:
                first.endpoints.insert(0, {"name": "hello", "path": args.hello, "url": args.hello})
            measure(args, sides, enc)
            if args.server_pid:
                measure_syscalls(args, first.api, first.steps, enc)
    finally:
        for side in sides:
            side.close()
    for side, path in zip(sides, (args.json, args.against_json)):
        report(side.info, side.steps, side.skipped, args.budget_ms, mix)
        if path:
            write_json(path, side.info, side.steps, side.skipped, args.budget_ms, mix)
    return 1 if any(over_budget(side.steps, args.budget_ms) for side in sides) else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Fail as e:
        print("perf-bench: %s" % e, file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
