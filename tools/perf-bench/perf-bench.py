#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perf-bench: the reference's read benchmark. Signs in (perf@example.test
by default), takes an API token, picks the sub-account with the most
contacts, then runs wrk against every read endpoint in ENDPOINTS at each
concurrency level, with keep-alive connections, and prints requests/s, p50,
p95, p99, max and errors per endpoint and level.

    perf-bench [--url URL] [--concurrency 1,10,50] [--duration S | --requests N]
               [--runs R] [--endpoints a,b] [--location ID] [--grow N]
               [--budget-ms N] [--json out.json] [--no-compress]

Percentiles come from every recorded request (report.lua reads wrk's
histogram); nothing here averages latencies. Endpoints of modules that are
not built yet answer 404 and are reported as skipped. The token is revoked
at the end. Exit code 1 when a p95 is over --budget-ms, 2 when the run
could not be made."""

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
import time
import urllib.parse

HERE = os.path.dirname(os.path.realpath(__file__))
REPORT_LUA = os.path.join(HERE, "report.lua")
WRK_TIMEOUT_S = 10      # a slower answer counts as a socket error (timeout)
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

FIGURES = ("rps", "p50", "p95", "p99", "max", "errors")

DESCRIPTION = """The reference's read benchmark: signs in, picks the sub-account with the
most contacts and runs wrk against each read endpoint at each number of
parallel keep-alive clients. Reports requests/s, p50, p95, p99 and max (ms,
of every request) and errors (non-2xx answers and socket errors)."""

EXAMPLES = """examples:
  build/perf-seed --data-dir perf-data          # the data set (make seed)
  build/hyperlevel serve --data-dir perf-data --modules-dir build/modules ...
  perf-bench --concurrency 1,10,50 --json out.json
  perf-bench --concurrency 10 --budget-ms 20    # exit code 1 if a p95 is over
  perf-bench --endpoints contacts,export --runs 3 --duration 2
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
    how.add_argument("--duration", type=positive(float), default=5.0, metavar="S",
                     help="seconds per step (default 5)")
    how.add_argument("--requests", type=positive(int), metavar="N", help="requests per step instead")
    p.add_argument("--runs", type=positive(int), default=1, metavar="R",
                   help="repeat each step R times; each figure is the median (default 1)")
    p.add_argument("--endpoints", type=name_list, metavar="NAMES", help="only these, by name (see --list)")
    p.add_argument("--list", action="store_true", help="list the endpoints and exit")
    p.add_argument("--location", type=positive(int), metavar="ID", help="this sub-account, not the largest")
    p.add_argument("--grow", type=positive(int), metavar="N",
                   help="first import N generated contacts into the sub-account (a CSV upload)")
    p.add_argument("--budget-ms", type=positive(float), metavar="MS", help="exit 1 when a p95 is over it")
    p.add_argument("--json", metavar="FILE", help="write every figure of every run there")
    p.add_argument("--no-compress", action="store_true",
                   help="do not send Accept-Encoding: br, gzip (as a browser does)")
    args = p.parse_args(argv)
    known = {e["name"] for e in ENDPOINTS}
    for name in args.endpoints or []:
        if name not in known:
            p.error("no endpoint named %r (see --list)" % name)
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


def plan(api, args, wrk_headers):
    """The endpoints to measure (name, path, first status) and those skipped."""
    chosen = [e for e in ENDPOINTS if not args.endpoints or e["name"] in args.endpoints]
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


def wrk_command(args, api, path, connections, threads):
    cmd = ["wrk", "-t%d" % threads, "-c%d" % connections, "--timeout", "%ds" % WRK_TIMEOUT_S,
           "-d", "%ds" % REQUESTS_MAX_S if args.requests else "%gs" % args.duration,
           "-s", REPORT_LUA]
    for name, value in api.headers().items():
        cmd += ["-H", "%s: %s" % (name, value)]
    if not args.no_compress:
        cmd += ["-H", "Accept-Encoding: br, gzip"]
    cmd.append(api.base + path)
    if args.requests:
        cmd += ["--", str(-(-args.requests // threads))]
    return cmd


def run_wrk(cmd, connections, threads, stop_early):
    """Runs wrk; returns report.lua's figures. With `stop_early` each thread
    stops itself after its requests, but wrk's main thread sleeps for the
    whole -d: it is interrupted once every thread has said so."""
    env = dict(os.environ, PERF_BENCH_CONNECTIONS=str(connections))
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
        if line.startswith("perf-bench-result "):
            return json.loads(line.split(" ", 1)[1])
    raise Fail("wrk gave no result (exit %d): %s" % (proc.returncode, ("".join(err) + rest).strip()[-500:]))


def figures(result):
    """The table's figures of one wrk run."""
    ms, sock = result["ms"], result["socket_errors"]
    return {"rps": result["rps"], "p50": ms["p50"], "p95": ms["p95"], "p99": ms["p99"],
            "max": ms["max"], "errors": result["non2xx"] + sum(sock.values())}


def measure(args, api, endpoints):
    """Every endpoint at every level, `runs` times (rounds outermost, so a
    slow moment of the machine does not fall on one step's every run)."""
    steps = [{"name": e["name"], "path": e["path"], "clients": c, "threads": wrk_threads(c),
              "runs": []} for e in endpoints for c in args.concurrency]
    for r in range(args.runs):
        for s in steps:
            cmd = wrk_command(args, api, s["path"], s["clients"], s["threads"])
            result = run_wrk(cmd, s["clients"], s["threads"], bool(args.requests))
            s["runs"].append(result)
            f = figures(result)
            progress("%-20s %3d clients  run %d/%d: %8.0f req/s  p95 %7.2f ms  errors %d"
                     % (s["name"], s["clients"], r + 1, args.runs, f["rps"], f["p95"], f["errors"]))
    for s in steps:
        runs = [figures(r) for r in s["runs"]]
        s["median"] = {k: statistics.median(f[k] for f in runs) for k in FIGURES}
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


def table(steps):
    cols = ("endpoint", "path", "clients", "req/s", "p50", "p95", "p99", "max", "errors")
    rows = [cols]
    for s in steps:
        m = s["median"]
        rows.append((s["name"], s["path"], str(s["clients"]), number(m["rps"]), number(m["p50"]),
                     number(m["p95"]), number(m["p99"]), number(m["max"]), "%g" % m["errors"]))
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


def report(info, steps, skipped, budget):
    lines = header(info) + [""] + table(steps)
    lines += skipped_lines(skipped)
    for s in over_budget(steps, budget):
        lines.append("over budget: %s at %d clients, p95 %s ms > %g ms"
                     % (s["name"], s["clients"], number(s["median"]["p95"]), budget))
    print("\n".join(lines), flush=True)


def write_json(path, info, steps, skipped, budget):
    doc = dict(info, endpoints=steps, skipped=skipped, budget_ms=budget,
               over_budget=[{"name": s["name"], "clients": s["clients"]}
                            for s in over_budget(steps, budget)])
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


# ---- main -----------------------------------------------------------------------

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
            "wrk": wrk_version(), "wrk_timeout_s": WRK_TIMEOUT_S}
    if args.grow:
        progress("importing %d contacts into sub-account %d ..." % (args.grow, loc_id))
        info["grow"] = grow(api, args.grow)
        contacts = contact_count(api, loc_id)
    info["location"] = {"id": loc_id, "name": loc_name, "contacts": contacts}
    return info


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
    api = Api(args.url)
    session, token_id, session_auth = sign_in(api, args)
    try:
        info = describe(args, api, session)
        enc = {} if args.no_compress else {"Accept-Encoding": "br, gzip"}
        endpoints, skipped = plan(api, args, enc)
        steps = measure(args, api, endpoints)
    finally:
        revoke(api, token_id, session_auth)
    report(info, steps, skipped, args.budget_ms)
    if args.json:
        write_json(args.json, info, steps, skipped, args.budget_ms)
    return 1 if over_budget(steps, args.budget_ms) else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Fail as e:
        print("perf-bench: %s" % e, file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
