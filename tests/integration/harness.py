# SPDX-License-Identifier: MIT
"""The integration tests' harness: a real server process on a free port,
with its own temporary data, modules and plugins folders, and an HTTP
client for it. Nothing is mocked: the tests talk HTTP to the binary and
read the SQLite file it wrote.

The same file is installed with the module headers, for the tests of a
module built outside the tree (`hyperlevel new-module` writes one). There
the environment says where things are: HL_SERVER the server binary,
HL_WEB_DIR its web folder and HL_MODULE_PATH the folders (':'-separated)
where Server(modules=...) finds each NAME.so, the module's own build
folder first; run_tests() runs a test file's test_* functions."""

import atexit
import datetime
import http.client
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
import unicodedata
import zoneinfo

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, os.environ.get("HL_BUILD", "build"))
SANITIZED = "asan" in os.path.basename(BUILD)


def answers_a_person(route):
    """Whether a route of GET /api/admin/routes is a public page a person
    opens (an invoice's, a one-time link's): outside /api, it answers in
    HTML, its refusals too."""
    return route["access"] == "public" and not route["pattern"].startswith("/api/")
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")
# A one-shot command (migrate, modules, create-admin, perf-seed's migrate)
# of a sanitizer build looks for leaks without the threads' TLS as roots:
# GCC 12's LeakSanitizer dies at its exit reading a dynamic TLS block of
# the e-mail module's libraries ("Tracer caught signal 11"); valgrind
# finds nothing wrong with them. tests/lsan.supp says what that leaves.
ONE_SHOT = {"LSAN_OPTIONS": "use_tls=0:suppressions=" + os.path.join(ROOT, "tests", "lsan.supp")} \
    if SANITIZED else {}


_next_port = [int(os.environ.get("HL_PORT_BASE", "0"))]


def free_port():
    """A port nobody listens on. Under tests/run.py each job has a range
    of its own (HL_PORT_BASE, 500 ports, below the kernel's ephemeral
    ones): a port the kernel picked, free when asked, could be taken by
    another job's server before this one binds it."""
    base = int(os.environ.get("HL_PORT_BASE", "0"))
    for _ in range(500 if base else 0):
        port = _next_port[0]
        _next_port[0] = port + 1 if port + 1 < base + 500 else base
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_install(dest, target="install"):
    """`make install PREFIX=/usr DESTDIR=dest` (or `target`), as a package
    is built, from a build folder of its own, build-usr: the paths a /usr
    build compiles in must not reach the build the other tests are running
    beside it. The first caller builds it, under a lock. Returns make's
    output."""
    import fcntl
    os.makedirs(os.path.join(ROOT, "build-usr"), exist_ok=True)
    with open(os.path.join(ROOT, "build-usr", ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = subprocess.run(["make", "-s", "--no-print-directory", "-j%d" % (os.cpu_count() or 1),
                            target, "BUILD=build-usr", "PREFIX=/usr", "DESTDIR=" + dest],
                           cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def wait_for(predicate, seconds=10, step=0.02):
    """Whether `predicate()` came true within `seconds`, asked every `step`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


def module_file(name):
    """The built .so of a real module or a test probe."""
    folders = [f for f in os.environ.get("HL_MODULE_PATH", "").split(":") if f]
    folders += [os.path.join(BUILD, "modules"), os.path.join(BUILD, "tests", "modules")]
    for folder in folders:
        path = os.path.join(folder, name + ".so")
        if os.path.exists(path):
            return path
    raise FileNotFoundError(name + ".so in " + ":".join(folders))


def run_tests(namespace):
    """Run every test_* function of a test file (pass globals()), printing
    a line each and "N passed, N failed"; exit 1 when any failed."""
    import traceback
    passed = failed = 0
    for name in sorted(n for n in namespace if n.startswith("test_")):
        try:
            namespace[name]()
            passed += 1
            print("ok   " + name, flush=True)
        except Exception:
            failed += 1
            print("FAIL " + name + "\n" + traceback.format_exc(), flush=True)
    print("%d passed, %d failed" % (passed, failed))
    raise SystemExit(1 if failed else 0)



# The server's SQL functions for a sub-account's days (core/db/zone_sql.c),
# which its triggers call: a test that writes the database itself brings
# them, from Python's own reading of the system's tz database.
def local_day(t, zone):
    if t is None:
        return None
    moment = datetime.datetime.fromtimestamp(t, zoneinfo.ZoneInfo(zone or "UTC"))
    return (t + int(moment.utcoffset().total_seconds())) // 86400


def day_start(day, zone):
    date = datetime.date(1970, 1, 1) + datetime.timedelta(days=day)
    midnight = datetime.datetime.combine(date, datetime.time(0), zoneinfo.ZoneInfo(zone or "UTC"))
    return int(midnight.timestamp())


def zone_of(s, location):
    """The time zone of sub-account `location`."""
    return s.sql("SELECT timezone FROM locations WHERE id = ?", location)[0][0]


def local_bounds(zone, days):
    """The first midnight of the `days` days ending today in `zone`,
    tomorrow's, today's and now, as UTC datetimes."""
    tz = zoneinfo.ZoneInfo(zone)
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    today = now.astimezone(tz).date()
    midnight = lambda d: datetime.datetime.combine(d, datetime.time(0), tz).astimezone(
        datetime.timezone.utc)
    return (midnight(today - datetime.timedelta(days=days - 1)),
            midnight(today + datetime.timedelta(days=1)), midnight(today), now)


def local_date(t, zone):
    """The date ("2026-12-06") a time as the tables keep it falls on in `zone`."""
    moment = datetime.datetime.fromisoformat(t.replace("Z", "+00:00"))
    return moment.astimezone(zoneinfo.ZoneInfo(zone)).strftime("%Y-%m-%d")


def connect(path, **options):
    """sqlite3.connect, with the server's SQL functions."""
    db = sqlite3.connect(path, **options)
    db.create_function("local_day", 2, local_day, deterministic=True)
    db.create_function("day_start", 2, day_start, deterministic=True)
    return db

class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def header(self, name):
        return self.headers.get(name.lower())

    def json(self):
        return json.loads(self.body)

    def error_code(self):
        return self.json()["error"]["code"]


class Server:
    """One server process. `modules` are copied into its modules folder;
    `plugins` maps a module name to the text of its NAME.conf."""

    def __init__(self, modules=("contacts", "probe"), plugins=None, env=None, data_dir=None):
        self.root = tempfile.mkdtemp(prefix="hl-test-")
        self.data_dir = data_dir or os.path.join(self.root, "data")
        self.modules_dir = os.path.join(self.root, "modules")
        self.plugins_dir = os.path.join(self.root, "plugins.d")
        os.makedirs(self.modules_dir)
        os.makedirs(self.plugins_dir)
        for name in modules:
            dest = os.path.join(self.modules_dir, name + ".so")
            shutil.copy(module_file(name), dest)
            os.chmod(dest, 0o755)
        for name, text in (plugins or {}).items():
            with open(os.path.join(self.plugins_dir, name + ".conf"), "w") as f:
                f.write(text)
        self.port = free_port()
        self.env = dict(os.environ, **(env or {}))
        self.env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        if SANITIZED:  # what fontconfig keeps for the process's life (tests/lsan.supp)
            self.env.setdefault("LSAN_OPTIONS", "suppressions=" + os.path.join(ROOT, "tests", "lsan.supp"))
        # A test signs in hundreds of times: argon2id's least work, not 64 MB
        # and a fifth of a second of CPU a password (test_accounts: 115 s).
        self.env.setdefault("PGHL_PASSWORD_LEAST_WORK", "yes")
        # Under the sanitizers each worker thread costs milliseconds to
        # start and stop (a third of a server's life in a short test): 32
        # workers there; the normal build runs the default 128.
        if SANITIZED:
            self.env.setdefault("PGHL_THREADS", "32")
        self.proc = None
        self.log = ""
        self.log_file = None
        self.conn = None
        self.clients = []

    @property
    def db_path(self):
        return os.path.join(self.data_dir, "hyperlevel.db")

    def args(self, command="serve"):
        return [os.environ.get("HL_SERVER") or os.path.join(BUILD, "hyperlevel"), command,
                "--data-dir", self.data_dir, "--port", str(self.port),
                "--modules-dir", self.modules_dir, "--plugins-dir", self.plugins_dir,
                "--web-dir", os.environ.get("HL_WEB_DIR") or os.path.join(BUILD, "web"),
                "--config", "/dev/null"]

    def run(self, command, *extra):
        """Run a one-shot subcommand; returns (exit code, stdout, stderr)."""
        p = subprocess.run(self.args(command) + list(extra), env=dict(self.env, **ONE_SHOT),
                           capture_output=True, text=True, timeout=60)
        check_sanitizers(p.stderr)
        return p.returncode, p.stdout, p.stderr

    def start(self):
        """Start and wait until /api/health answers. Returns self."""
        # The log goes to a file, not a pipe: a pipe nobody reads until
        # the stop fills at 64 KB, and the server's next log line blocks
        # it, whatever lock the writing thread holds.
        self.log += self.read_log()  # of a process that ended by itself
        self.log_file = open(os.path.join(self.root, "server.log"), "w+")
        self.proc = subprocess.Popen(self.args(), env=self.env, stdout=self.log_file,
                                     stderr=subprocess.STDOUT, text=True)
        # A restart after kill -9 under the sanitizers, beside the rest of
        # the suite, has taken over 30 s.
        wait = 90 if SANITIZED else 30
        deadline = time.time() + wait
        while time.time() < deadline:
            if self.proc.poll() is not None:
                self.log = self.read_log()
                raise StartFailed(self.proc.returncode, self.log)
            try:
                if self.get("/api/health").status == 200:
                    return self
            except OSError:
                time.sleep(0.02)
        raise StartFailed(None, "no answer within %d s" % wait)

    def start_fails(self):
        """Start, expecting a refusal: returns (exit code, log)."""
        try:
            self.start()
        except StartFailed as e:
            check_sanitizers(e.log)
            return e.code, e.log
        self.stop()
        raise AssertionError("the server started")

    def refusal(self):
        """Start, expecting the server to refuse with exit code 1 and one
        error line: returns that line."""
        code, log = self.start_fails()
        assert code == 1, log
        lines = error_lines(log)
        assert len(lines) == 1, log
        return lines[0]

    def client(self, headers=None):
        """A client of its own: its own connection, cookies and headers.
        stop() closes it, as a browser's tab would be closed."""
        c = Client(self.port, headers)
        self.clients.append(c)
        return c

    def request(self, method, path, body=None, headers=None):
        if self.conn is None:
            self.conn = Client(self.port)
        return self.conn.request(method, path, body, headers)

    def get(self, path, headers=None):
        return self.request("GET", path, headers=headers)

    def post(self, path, body, headers=None):
        return self.request("POST", path, body=body, headers=headers)

    def create_admin(self, email="admin@example.test", password="admin-pass-1", name="Ada Admin"):
        p = subprocess.run(self.args("create-admin") + [email, name], input=password + "\n",
                           env=dict(self.env, **ONE_SHOT), capture_output=True, text=True, timeout=120)
        check_sanitizers(p.stderr)
        assert p.returncode == 0, p.stderr
        return email, password

    def login(self, email, password, headers=None):
        """A client signed in with a session cookie."""
        c = self.client(headers)
        r = c.post("/api/auth/login", {"email": email, "password": password})
        assert r.status == 200, r.body
        return c

    def sql(self, query, *args):
        with connect(self.db_path) as db:
            return db.execute(query, args).fetchall()

    # The server keeps the sessions and tokens it read for up to a second
    # (README, "Sessions"): a change made to them, or to their users and
    # locations, from outside takes effect after that.
    CALLERS_FRESH_S = 1.0

    def accounts_sql(self, query, *args):
        """sql() on sessions, api_tokens, users, locations or
        user_locations, then waits until the server reads them again."""
        rows = self.sql(query, *args)
        time.sleep(self.CALLERS_FRESH_S + 0.1)
        return rows

    def stop(self):
        """SIGTERM, wait; returns the exit code and keeps the log."""
        self.close_clients()
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log += self.read_log()
        check_sanitizers(self.log)
        return self.proc.returncode if self.proc else None

    def kill(self):
        """SIGKILL, as a crash or the OOM killer would: nothing of the
        server's runs after it. The data folder stays for start(). Its
        clients are left as they are: their connections just drop."""
        if self.conn:
            self.conn.close()
            self.conn = None
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=60)
        self.log += self.read_log()
        return self.proc.returncode if self.proc else None

    def read_log(self):
        """What the process started last wrote, once (it has ended)."""
        if not getattr(self, "log_file", None):
            return ""
        self.log_file.seek(0)
        text = self.log_file.read()
        self.log_file.close()
        self.log_file = None
        return text

    def close_clients(self):
        """Close every connection its clients hold; a client used again
        opens a new one."""
        for c in self.clients + [self.conn]:
            if c:
                c.close()
        self.conn = None

    def close(self):
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Client:
    """An HTTP/1.1 keep-alive client that keeps the cookies it is given."""

    def __init__(self, port, headers=None):
        self.port = port
        self.headers = dict(headers or {})
        self.cookies = {}
        self.http = None

    @property
    def sock(self):
        return self.http.sock if self.http else None

    def request(self, method, path, body=None, headers=None):
        reused = self.http is not None and self.http.sock is not None
        sent = body
        if self.http is None:
            self.http = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        hdrs = dict(self.headers, **(headers or {}))
        if self.cookies:
            hdrs.setdefault("Cookie", "; ".join("%s=%s" % kv for kv in self.cookies.items()))
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        try:
            self.http.request(method, path, body=body, headers=hdrs)
            r = self.http.getresponse()
            data = r.read()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            self.close()
            if not reused:
                raise
            # The server closed the idle connection before reading this
            # request (keep_alive_s, or workers short): as browsers do,
            # send it again on a new one.
            return self.request(method, path, sent, headers)
        except (http.client.HTTPException, OSError):
            self.close()
            raise
        for value in r.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            token = rest.split(";")[0]
            if "Max-Age=0" in value:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = token
        if r.getheader("Connection", "").lower() == "close":
            self.close()
        return Response(r.status, {k.lower(): v for k, v in r.getheaders()}, data)

    def get(self, path, headers=None):
        return self.request("GET", path, headers=headers)

    def post(self, path, body, headers=None):
        return self.request("POST", path, body=body, headers=headers)

    def patch(self, path, body, headers=None):
        return self.request("PATCH", path, body=body, headers=headers)

    def delete(self, path, headers=None):
        return self.request("DELETE", path, headers=headers)

    def close(self):
        if self.http:
            self.http.close()
            self.http = None


class StartFailed(Exception):
    def __init__(self, code, log):
        super().__init__("server did not start (exit %s):\n%s" % (code, log))
        self.code = code
        self.log = log


def check_sanitizers(text):
    for mark in SANITIZER_MARKS:
        if mark in text:
            raise AssertionError("sanitizer report:\n" + text)


def error_lines(log):
    return [line for line in log.splitlines() if line.startswith("error: ")]


ADMIN = ("admin@example.test", "admin-pass-1")


def agency(modules=("contacts",), locations=("Client A",), plugins=None, env=None):
    """A running server with an agency admin (made before it starts: one
    process per data folder), signed in, and the named locations. Returns
    the server, the admin's client and the locations' ids."""
    s = Server(modules=modules, plugins=plugins, env=env)
    s.create_admin(*ADMIN)
    s.start()
    admin = s.login(*ADMIN)
    ids = [admin.post("/api/admin/locations", {"name": n}).json()["id"] for n in locations]
    return s, admin, ids


class WebServer(Server):
    """A server whose web folder is root/web, made by the test with write()."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.web = os.path.join(self.root, "web")
        os.makedirs(self.web, exist_ok=True)

    def args(self, command="serve"):
        a = super().args(command)
        a[a.index("--web-dir") + 1] = self.web
        return a

    def write(self, rel, data):
        path = os.path.join(self.web, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return path


# ---- the seeded data set ---------------------------------------------------------
#
# Most tests of the shipped modules run on a copy of one data set made by
# perf-seed at a small scale (4 sub-accounts), signed in as its agency admin.

MODULES = ("contacts", "opportunities", "conversations", "tasks", "invoices", "reports",
           "agency", "mobile", "forms")
SEED_PASSWORD = "perf-pass-123"


def seeded_copy():
    """A fresh copy of the seeded data folder, BUILD/test-seed: seeded
    once (the first test file to ask, under a lock; again when the build
    is newer) and settled, its jobs' first run done, so that a copy's jobs
    at start find nothing left to do."""
    import fcntl
    seed = os.path.join(BUILD, "test-seed")
    db = os.path.join(seed, "hyperlevel.db")
    with open(seed + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = [os.path.join(BUILD, "perf-seed"), os.path.join(BUILD, "hyperlevel")] + \
            [module_file(m) for m in MODULES]
        if not os.path.exists(db) or os.path.getmtime(db) < max(map(os.path.getmtime, made)):
            shutil.rmtree(seed, ignore_errors=True)
            p = subprocess.run([made[0], "--data-dir", seed, "--scale", "0.02", "--locations", "4"],
                               capture_output=True, text=True, timeout=300,
                               env=dict(os.environ, PGHL_PASSWORD_LEAST_WORK="yes", **ONE_SHOT))
            assert p.returncode == 0, p.stderr
            settle(seed)
    copy = tempfile.mkdtemp(prefix="hl-seeded-")
    atexit.register(shutil.rmtree, copy, True)
    shutil.copy(db, copy)
    return copy


def settle(data_dir):
    """Serve `data_dir` until every job has run and none is due, then stop."""
    s = Server(modules=MODULES, data_dir=data_dir, env={"PGHL_BACKUPS": "0"})
    try:
        admin = s.start().login("perf@example.test", SEED_PASSWORD)

        def settled():
            # A job that runs every few seconds (the outbox) is settled
            # once it has run; the others once none is due soon.
            jobs = admin.get("/api/admin/metrics").json()["jobs"]
            return all(j["runs"] > 0 and (j["next_in_ms"] > 5000 or j["period_ms"] <= 5000)
                       for j in jobs)
        assert wait_for(settled, 120, 0.05), admin.get("/api/admin/metrics").body
        assert s.stop() == 0, s.log
    finally:
        s.close()


def job_runs(s):
    """{job: slices it has run} from the server's file."""
    return dict(s.sql("SELECT name, runs FROM job_state"))


def seeded_server(env=None, plugins=None, extra_modules=()):
    """A server on a copy of the seeded data with every shipped module,
    once each job has run at start (as the data is settled, one slice
    each), and its agency admin signed in: (server, client)."""
    s = Server(modules=MODULES + tuple(extra_modules), data_dir=seeded_copy(), plugins=plugins,
               env=dict({"PGHL_BACKUPS": "0"}, **(env or {})))
    before = job_runs(s) if (env or {}).get("PGHL_JOBS") != "no" else {}
    s.start()
    assert wait_for(lambda: all(n > before[k] for k, n in job_runs(s).items() if k in before),
                    60, 0.05), (before, job_runs(s))
    return s, s.login("perf@example.test", SEED_PASSWORD)


def is_plan(line):
    """Whether a log line is a query plan (PGHL_LOG_PLANS), leaving out the
    audit log's reading of a deleted record's name: its table stands for
    a CTE of one row, the old values, whose SCAN reads that row only."""
    return line.startswith("[plan]") and "AS (VALUES (:c0" not in line


# ---- helpers of the API's conventions -----------------------------------------------

def fold(text):
    """Text as a search compares it (hl_fold), as Unicode has it:
    compatibility forms, case and marks aside. The server's utf8proc
    agrees with it on what the tests hold."""
    text = unicodedata.normalize("NFKD", text.casefold().replace("\u2019", "'"))
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


def ids(rows):
    return [r["id"] for r in rows]


def every_page(client, path, limit=37, key="data"):
    """All rows of a list (its member `key`), page by page; checks the
    cursor's contract."""
    rows, cursor, sep = [], None, "&" if "?" in path else "?"
    for _ in range(1000):
        r = client.get(path + sep + "limit=%d" % limit + ("&cursor=" + cursor if cursor else ""))
        assert r.status == 200, r.body
        page = r.json()
        assert len(page[key]) <= limit
        rows += page[key]
        cursor = page["next_cursor"]
        if not cursor:
            return rows
        assert len(page[key]) == limit
    raise AssertionError("no last page")


def headers(client, location=1):
    """The headers of a browser's write in sub-account `location`."""
    csrf = client.get("/api/auth/me").json()["csrf_token"]
    return {"X-Location-Id": str(location), "X-CSRF-Token": csrf}


def error(r, status, words):
    """`r` is the JSON error `status`, its message holding `words`."""
    assert r.status == status, (r.status, r.body)
    message = r.json()["error"]["message"]
    assert words in message, message


def new_contact(client, h, **fields):
    r = client.post("/api/contacts", fields, headers=h)
    assert r.status == 201, r.body
    return r.json()


def one(s, sql, *args):
    """The first column of the first row."""
    return s.sql(sql, *args)[0][0]


def iso(t):
    """A time as the API writes it."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def now_iso():
    return iso(datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0))


def cache_checks(client, path):
    """cached(): asked twice, the answer at `path` comes from the cache;
    dropped(): asked once, it did not (a write dropped it), and its JSON."""
    def cached():
        client.get(path)
        assert client.get(path).header("X-Cache") == "hit"

    def dropped():
        r = client.get(path)
        assert r.header("X-Cache") == "miss"
        return r.json()
    return cached, dropped


# ---- backups -------------------------------------------------------------------------

BACKUP_NAME = re.compile(r"^hyperlevel-\d{8}T\d{6}Z\.db$")


def backup_folder(s):
    return os.path.join(s.data_dir, "backups")


def backups(s):
    """The backups' names, oldest first."""
    if not os.path.isdir(backup_folder(s)):
        return []
    return sorted(n for n in os.listdir(backup_folder(s)) if BACKUP_NAME.match(n))


def temporaries(s):
    if not os.path.isdir(backup_folder(s)):
        return []
    return [n for n in os.listdir(backup_folder(s)) if ".tmp-" in n]


def fill(s, megabytes):
    """Enough data that a copy takes a while (the server is not running)."""
    with connect(s.db_path) as db:
        db.execute("CREATE TABLE filler (b BLOB)")
        db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
                   " INSERT INTO filler SELECT randomblob(1048576) FROM n", (megabytes,))
    db.close()
