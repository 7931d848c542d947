# SPDX-License-Identifier: MIT
"""Bad input, sent to every route the running server reports (GET
/api/admin/routes), on the seeded data: wrong types, missing and unknown
members, huge numbers, negative and huge limits, forged cursors, invalid
UTF-8, 1 MB strings, duplicate keys, deep nesting, bad ids in the path.
Every answer must be below 500, every refusal the JSON error format, and
no refusal may leave a write behind: with the jobs off, nothing else
commits, so SQLite's data_version must not move across a 4xx answer."""

import glob
import json
import os
import re

import harness
from harness import MODULES, SEED_PASSWORD, Server, seeded_copy

BAD_IDS = ("0", "-1", "99999999999999999999", "abc", "%FF", "1.5", "1e3")
BAD_QUERY_VALUES = ("%FF", "-1", "99999999999999999999", "x" * 3000, "%00", "")
FORGED_CURSORS = ("5B785D", "5B5D", "5B", "zz", "5B312C325D", "5B22612229", "5B5B315D5D",
                  "5B7B7D5D", "5B3939393939393939393939393939393939393939395D",
                  "5B2261222C2262222C2263222C2264222C2265225D", "")
BAD_LIMITS = ("-1", "0", "1001", "99999999999999999999", "abc", "1.5")
WRONG_TYPES = ({}, [], True, None, -1, 123456789012345678901234567890, 1.5e308, "\udcff")


def words_in_sources(pattern):
    """The member or parameter names the modules' and core's C sources
    name, so that routes added later are probed with their own names."""
    names = set()
    for path in glob.glob(os.path.join(harness.ROOT, "modules", "*", "*.c")) + \
            glob.glob(os.path.join(harness.ROOT, "core", "*.c")):
        with open(path) as f:
            names.update(re.findall(pattern, f.read()))
    return sorted(names)


def body_members():
    # Names checked by the field helpers, or listed as a body's allowed keys.
    found = words_in_sources(r'hl_(?:body_find|field_[a-z]+)\([^;]*?"([a-z_]+)"')
    found += words_in_sources(r'"([a-z][a-z_]{1,30})",?\s*(?:NULL|"[a-z_]+",)')
    return sorted(set(found))


def query_names():
    return words_in_sources(r'hl_query[a-z_]*\(\w+, "([a-z_]+)"')


class Checker:
    def __init__(self, s, client, location):
        self.s, self.client, self.location = s, client, location
        self.db = harness.connect(s.db_path)
        self.csrf = client.get("/api/auth/me").json()["csrf_token"]
        self.failures = []
        self.sent = 0
        self.page = False  # whether the route walked is a public page

    def version(self):
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    def send(self, method, path, body=None, raw=None, what="", refused=False):
        """Send it; note an answer of 500 or more, a refusal not in the
        JSON error format or that wrote something, and, when `refused`,
        an answer that is not a refusal."""
        before = self.version()
        headers = {"X-Location-Id": str(self.location), "X-CSRF-Token": self.csrf}
        if raw is not None:
            headers["Content-Type"] = "application/json"
            body = raw
        r = self.client.request(method, path, body=body, headers=headers)
        self.sent += 1
        where = "%s %s %s" % (method, path[:120], what)
        if refused and r.status < 400:
            self.failures.append("%s -> %d, accepted" % (where, r.status))
        if r.status >= 500:
            self.failures.append("%s -> %d %s" % (where, r.status, r.body[:200]))
        elif r.status >= 400 and self.page and (r.header("Content-Type") or "").startswith("text/html"):
            pass  # a public page (an invoice's, a one-time link's) answers a person, in HTML
        elif r.status >= 400:
            try:
                err = r.json()["error"]
                assert err["code"] and err["message"]
            except Exception:
                self.failures.append("%s -> %d without the JSON error: %r" % (where, r.status,
                                                                             r.body[:200]))
            if self.version() != before:
                self.failures.append("%s -> %d but something was written" % (where, r.status))
        return r


def path_of(pattern, value="1"):
    return re.sub(r":[a-z_]+", value, pattern)


def setup():
    s = Server(modules=MODULES, data_dir=seeded_copy(),
               env={"PGHL_BACKUPS": "0", "PGHL_JOBS": "no"}).start()
    admin = s.login("perf@example.test", SEED_PASSWORD)
    routes = admin.get("/api/admin/routes").json()["data"]
    location = s.sql("SELECT min(id) FROM locations")[0][0]
    return s, admin, routes, Checker(s, admin, location)


def finish(s, check):
    """Stop the server; no answer failed, and nothing was logged as an
    error (a refusal is the client's mistake, not the server's)."""
    s.stop()
    assert not check.failures, "%d of %d requests:\n%s" % (
        len(check.failures), check.sent, "\n".join(check.failures[:40]))
    errors = harness.error_lines(s.log)
    assert not errors, "\n".join(errors[:20])


def test_bad_ids_and_queries_on_every_route():
    s, admin, routes, check = setup()
    with s:
        names = query_names()
        for route in routes:
            method, pattern = route["method"], route["pattern"]
            check.page = harness.answers_a_person(route)
            if pattern in ("/api/auth/logout",):
                continue  # it would end the session the walk runs in
            if ":" in pattern:
                for bad in BAD_IDS:
                    check.send(method, path_of(pattern, bad), {} if method in ("POST", "PATCH", "PUT") else None,
                               what="id=" + bad)
            if method != "GET":
                continue
            path = path_of(pattern)
            for bad in BAD_LIMITS:
                check.send("GET", path + "?limit=" + bad)
            for bad in FORGED_CURSORS:
                check.send("GET", path + "?cursor=" + bad)
            for name in names:
                for bad in BAD_QUERY_VALUES:
                    check.send("GET", "%s?%s=%s" % (path, name, bad), what=name)
        finish(s, check)


def test_bad_bodies_on_every_route_that_takes_one():
    s, admin, routes, check = setup()
    with s:
        members = body_members()
        for route in routes:
            method, pattern = route["method"], route["pattern"]
            check.page = harness.answers_a_person(route)
            if method not in ("POST", "PATCH", "PUT") or pattern.endswith(("/import", "/imports")) \
                    or pattern in ("/api/auth/logout", "/api/auth/login"):
                continue  # a CSV file's routes take any bytes as its text
            path = path_of(pattern)
            # Refused by every route, whatever it reads: the body is not JSON
            # that a reader may take one way while another takes it another.
            never = [
                b'{"name": "a", "name": "b", "email": "x@y.z", "email": 5}',   # duplicate keys
                b"[" * 100000 + b"]" * 100000,                                  # deep nesting
                b'{"a": ' * 5000 + b"1" + b"}" * 5000,
                b'{"name": "\xff\xfe"}',                                      # invalid UTF-8
                b'{"first_name": "\xc0\xaf"}',                                # overlong
                b'{"title": "\xed\xa0\x80"}',                                # a surrogate
                b'{"name": "\\ud800"}',                                       # a lone one
            ]
            for body in never:
                check.send(method, path, raw=body, what=body[:40], refused=True)
            raw = [
                b'{"title": "a\\u0000b"}',
                json.dumps({m: "x" * (1000 * 1000 - 100) for m in members[:1]}).encode(),
                b'{"zz_unknown_member": 1}',
                b"{}",
                b"[]",
                b"null",
                b"123",
            ]
            for body in raw:
                check.send(method, path, raw=body, what=body[:40])
            for wrong in WRONG_TYPES:
                body = json.dumps({m: wrong for m in members}, ensure_ascii=False)
                check.send(method, path, raw=body.encode("utf-8", "surrogateescape"),
                           what="all members %r" % (wrong,))
            for m in members:
                for wrong in ({}, [1, [2]], 123456789012345678901234567890, -1, "x" * 5000):
                    check.send(method, path, body={m: wrong}, what="%s=%r" % (m, wrong)[:60])
        finish(s, check)


SMUGGLED = b"GET /api/health?smuggled=1 HTTP/1.1\r\nHost: x\r\n\r\n"
IN_DOUBT = {  # heads that frame their body two ways, or lose its length
    "70 headers": b"".join(b"X-Hn: v\r\n" for _ in range(70)) + b"Content-Length: 48\r\n",
    "two lengths": b"Content-Length: 0\r\nContent-Length: 48\r\n",
    "not a number": b"Content-Length: 48x\r\n",
    "a length and a coding": b"Content-Length: 48\r\nTransfer-Encoding: chunked\r\n",
    "a coding": b"Transfer-Encoding: chunked\r\n",
}


def test_heads_framing_a_body_in_doubt_on_every_route():
    """Every route, signed in, with each head that frames its body in
    doubt and a request of its own as the body: one JSON refusal, the
    connection closed, the body never answered, nothing written."""
    s, admin, routes, check = setup()
    with s:
        import test_hostile
        cookie = "; ".join("%s=%s" % kv for kv in admin.cookies.items())
        signed = ("Cookie: %s\r\nX-CSRF-Token: %s\r\nX-Location-Id: %d\r\n"
                  "Content-Type: application/json\r\n" % (cookie, check.csrf, check.location)).encode()
        for route in routes:
            path = path_of(route["pattern"]).encode()
            for what, framing in IN_DOUBT.items():
                before = check.version()
                head = b"%s %s HTTP/1.1\r\nHost: x\r\n" % (route["method"].encode(), path)
                got, closed = test_hostile.all_answers(s.port, head + signed + framing + b"\r\n" + SMUGGLED)
                check.sent += 1
                where = "%s %s, %s" % (route["method"], route["pattern"], what)
                status = int(got.split(b" ")[1]) if got.startswith(b"HTTP/1.1 ") else 0
                body = got.partition(b"\r\n\r\n")[2]
                if status not in (400, 411, 431) or b'"error"' not in body:
                    check.failures.append("%s -> %r" % (where, got[:120]))
                if got.count(b"HTTP/1.1 ") != 1 or b"smuggled" in got or not closed:
                    check.failures.append("%s: the body was read as a request" % where)
                if check.version() != before:
                    check.failures.append("%s: something was written" % where)
        finish(s, check)
