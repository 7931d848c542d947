# SPDX-License-Identifier: MIT
"""Clients that make the server wait: heads and bodies sent a byte at a
time, downloads nobody reads, and heads that framing attacks use. None may
keep the server from answering others, and none may pass unseen."""

import json
import socket
import threading
import time

import harness
from harness import Server, agency

FORGED = "hl_session=forged-session-token-of-nobody"


def connect(port, rcvbuf=None):
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(60)
    sock.connect(("127.0.0.1", port))
    return sock


class Dripper:
    """Clients that send `head` and then `tail` one byte every `every` s,
    reconnecting whenever the server closes on them, until stopped."""

    def __init__(self, port, head, tail, every, count):
        self.port, self.head, self.tail, self.every = port, head, tail, every
        self.stopping = threading.Event()
        self.closed = 0  # connections the server closed on a dripper
        self.threads = [threading.Thread(target=self.run, daemon=True) for _ in range(count)]
        for t in self.threads:
            t.start()

    def run(self):
        while not self.stopping.is_set():
            try:
                sock = connect(self.port)
                sock.sendall(self.head)
                for byte in self.tail:
                    if self.stopping.wait(self.every):
                        break
                    sock.sendall(bytes([byte]))
                    if self.answered(sock):
                        break
                sock.close()
            except OSError:
                self.closed += 1
                self.stopping.wait(0.05)

    def answered(self, sock):
        """Whether the server answered or closed the connection."""
        try:
            sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return False
        self.closed += 1
        return True

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(timeout=10)


def answer_of(sock, limit):
    """The status and JSON body of the answer on `sock`, read within
    `limit` seconds, or None when none came."""
    sock.settimeout(limit)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            more = sock.recv(4096)
            if not more:
                break
            data += more
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(next((line.split(b":")[1] for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), b"0"))
        while len(body) < length:
            more = sock.recv(4096)
            if not more:
                break
            body += more
    except socket.timeout:
        return None
    if not head:
        return None
    return int(head.split(b" ")[1]), head, json.loads(body) if body else None


def within(seconds, fn):
    """fn() run on a thread of its own: its result, or an AssertionError
    when it has not returned within `seconds`."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except Exception as e:  # re-raised below
            out["error"] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "no answer within %d s" % seconds
    if "error" in out:
        raise out["error"]
    return out["value"]


def login_head(length):
    return ("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nCookie: %s\r\n"
            "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % (FORGED, length)).encode()


def test_slow_bodies_hold_no_read_connection():
    # Four sign-ins with a forged cookie, their bodies a byte a second:
    # the cookie is checked with a read connection, which must be given
    # back before the body is waited for (two readers here).
    s, admin, (loc,) = agency(env={"PGHL_READ_CONNECTIONS": "2", "PGHL_BODY_TIMEOUT_S": "120"})
    with s:
        drips = Dripper(s.port, login_head(200), b'{"email": "x@y.z"' + b" " * 180, 1.0, 4)
        try:
            time.sleep(1.5)
            fresh = s.client()
            assert within(10, lambda: fresh.get("/api/health")).status == 200
            r = within(10, lambda: admin.get("/api/contacts", headers={"X-Location-Id": str(loc)}))
            assert r.status == 200, r.body
        finally:
            drips.stop()


def test_a_body_slower_than_the_least_rate_is_cut_with_408():
    s = Server(env={"PGHL_BODY_TIMEOUT_S": "1", "PGHL_MIN_RATE_KB": "1"}).start()
    with s:
        sock = connect(s.port)
        sock.sendall(login_head(5000))
        started = time.time()
        answer = None
        for i in range(300):  # 60 s of a byte every 0.2 s, far from 5000 bytes
            try:
                sock.sendall(b" ")
            except OSError:
                break
            answer = answer_of(sock, 0.2)
            if answer:
                break
        assert answer, "the body was still read after %.0f s" % (time.time() - started)
        status, head, body = answer
        assert status == 408 and body["error"]["code"] == "request_timeout", answer
        assert answer_of(sock, 5) is None  # and the connection is closed
        # A body that keeps the rate is read whole, however long it takes.
        sock = connect(s.port)
        body = b'{"email": "a@b.c", "password": "nope", "pad": "' + b"x" * 6000 + b'"}'
        sock.sendall(login_head(len(body)))
        for at in range(0, len(body), 1000):
            sock.sendall(body[at:at + 1000])
            time.sleep(0.3)  # about 3 KB a second, over the 1 KB/s minimum
        status, _, answer = answer_of(sock, 10)
        assert status == 401 and answer["error"]["code"] != "request_timeout", answer


def test_workers_held_by_slow_clients_are_taken_back_for_others():
    # Eight workers, all taken by clients that send their heads or bodies a
    # byte at a time and reconnect when closed; a real client still gets in.
    s, admin, _ = agency(env={"PGHL_THREADS": "8", "PGHL_HEADER_TIMEOUT_S": "120",
                              "PGHL_KEEP_ALIVE_S": "120", "PGHL_BODY_TIMEOUT_S": "120"})
    admin.close()
    with s:
        heads = Dripper(s.port, b"GET /api/health HTTP/1.1\r\n", b"X-Slow: " + b"y" * 500, 0.5, 5)
        bodies = Dripper(s.port, login_head(500), b" " * 500, 0.5, 5)
        try:
            time.sleep(2)
            for _ in range(3):
                fresh = s.client()
                assert within(15, lambda: fresh.get("/api/health")).status == 200
                fresh.close()
            assert heads.closed + bodies.closed > 0
        finally:
            heads.stop()
            bodies.stop()
        workers = within(15, lambda: admin.get("/api/admin/metrics")).json()["workers"]
        assert workers["slow_heads_closed"] > 0 and workers["slow_bodies_cut"] > 0, workers


def test_a_flood_of_slow_heads_keeps_no_health_check_waiting_a_second():
    """Two hundred clients that send a head a byte every half second
    (and come back when closed) against the default 128 workers: from
    the flood's first moment a health check, each on a connection of its
    own, is answered within a second, as the rule for a server under
    pressure closes the slow heads (a quarter of a second) before then."""
    s = Server(env={"PGHL_THREADS": "128"}).start()  # the default, in every build
    with s:
        flood = Dripper(s.port, b"GET /api/health HTTP/1.1\r\n", b"X-Slow: " + b"y" * 500, 0.5, 200)
        waits, failed = [], []

        def check():
            started = time.monotonic()
            try:
                sock = connect(s.port)
                sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                answer = answer_of(sock, 10)
                sock.close()
                if not answer or answer[0] != 200:
                    failed.append(answer)
            except OSError as e:
                failed.append(e)
            waits.append(time.monotonic() - started)
        try:
            checks = []
            for _ in range(80):
                t = threading.Thread(target=check, daemon=True)
                t.start()
                checks.append(t)
                time.sleep(0.025)
            for t in checks:
                t.join(20)
        finally:
            flood.stop()
        assert not failed and len(waits) == 80, failed[:5]
        assert flood.closed > 100, flood.closed  # the flood was there, and was closed
        # A second; two under the sanitizers, which run the server several
        # times slower on a machine the rest of the suite shares.
        limit = 2.0 if harness.SANITIZED else 1.0
        slow = sorted(w for w in waits if w > limit)
        assert not slow, "%d of %d health checks waited over %g s: %s" % (
            len(slow), len(waits), limit, ["%.2f" % w for w in slow])


def test_stalled_downloads_hold_no_read_connection():
    s, admin, (loc,) = agency(env={"PGHL_READ_CONNECTIONS": "2", "PGHL_BODY_TIMEOUT_S": "2",
                                   "PGHL_HEADER_TIMEOUT_S": "4"})
    with s:
        # About 9 MB of CSV: more than the sockets between us hold.
        with harness.connect(s.db_path) as db:
            db.executemany("INSERT INTO contacts (location_id, first_name, company_name)"
                           " VALUES (?, ?, ?)",
                           ((loc, "Name %d" % i, "C" * 200) for i in range(40000)))
        cookie = "; ".join("%s=%s" % kv for kv in admin.cookies.items())
        stalled = []
        for _ in range(4):
            sock = connect(s.port, rcvbuf=4096)
            sock.sendall(("GET /api/contacts/export.csv HTTP/1.1\r\nHost: x\r\nCookie: %s\r\n"
                          "X-Location-Id: %d\r\n\r\n" % (cookie, loc)).encode())
            stalled.append(sock)
        time.sleep(2)
        assert stalled[0].recv(100).startswith(b"HTTP/1.1 200")
        started = time.time()
        fresh = s.client()
        r = within(10, lambda: fresh.get("/api/health"))
        assert r.status == 200, r.body
        r = within(10, lambda: admin.get("/api/contacts?limit=5", headers={"X-Location-Id": str(loc)}))
        assert r.status == 200 and len(r.json()["data"]) == 5, r.body
        # And none holds its worker for ever: each is cut short and closed
        # once it has read nothing for header_timeout_s (4 s), counted from
        # when the kernel's buffers are full, which on a busy machine takes
        # a while: wait five times that.
        time.sleep(max(0, started + 20 - time.time()))
        for sock in stalled:
            sock.settimeout(60)
            got = b""
            while True:
                more = sock.recv(1 << 16)
                if not more:
                    break
                got += more
            assert len(got) < 9 << 20 and not got.endswith(b"\r\n0\r\n\r\n")
            sock.close()


def raw_answer(port, head):
    sock = connect(port)
    sock.sendall(head)
    answer = answer_of(sock, 10)
    sock.close()
    return answer


def test_heads_that_frame_a_body_two_ways_are_refused():
    s = Server().start()
    with s:
        two_lengths = (b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       b"Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}")
        status, _, body = raw_answer(s.port, two_lengths)
        assert status == 400 and "Content-Length" in body["error"]["message"], body
        not_a_number = two_lengths.replace(b"Content-Length: 40\r\n", b"").replace(
            b"Content-Length: 2", b"Content-Length: 2abc")
        assert raw_answer(s.port, not_a_number)[0] == 400
        both = (b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 7\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
        status, _, body = raw_answer(s.port, both)
        assert status == 400 and "Transfer-Encoding" in body["error"]["message"], body
        chunked = both.replace(b"Content-Length: 7\r\n", b"")
        status, _, body = raw_answer(s.port, chunked)
        assert status == 411 and body["error"]["code"] == "length_required", body
        # The same length twice is one length.
        same = two_lengths.replace(b"Content-Length: 40", b"Content-Length: 2")
        assert raw_answer(s.port, same)[0] in (400, 401, 422)
        assert raw_answer(s.port, same)[2]["error"]["code"] != "bad_request"


def test_a_head_with_too_many_headers_is_431():
    s = Server().start()
    with s:
        def head(n):
            extra = b"".join(b"X-H%d: v\r\n" % i for i in range(n))
            return b"GET /api/health HTTP/1.1\r\nHost: x\r\n" + extra + b"\r\n"
        assert raw_answer(s.port, head(62))[0] == 200  # 63 with Host
        status, _, body = raw_answer(s.port, head(70))
        assert status == 431 and body["error"]["code"] == "too_many_headers", body


def all_answers(port, data, limit=3):
    """Every byte the server sends back for `data` until it closes the
    connection (or `limit` seconds pass), and whether it closed."""
    sock = connect(port)
    sock.sendall(data)
    sock.settimeout(limit)
    got, closed = b"", False
    try:
        while True:
            more = sock.recv(65536)
            if not more:
                closed = True
                break
            got += more
    except (socket.timeout, ConnectionResetError):
        pass
    sock.close()
    return got, closed


SMUGGLED = b"GET /api/health?smuggled=1 HTTP/1.1\r\nHost: x\r\n\r\n"


def test_a_body_after_a_refused_head_is_never_run_as_a_request():
    """A head refused before its body is read (431 where the Content-Length
    came after the 63rd header, 400 for lengths in doubt, 405, 413, 401)
    closes the connection: the body, a request of its own here, is never
    answered, so no proxy that reuses connections can run one client's
    request as another's."""
    s = Server().start()
    with s:
        extra = b"".join(b"X-Hn: v\r\n" for _ in range(70))
        exact = (b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\n" + extra +
                 b"Content-Length: 49\r\n\r\n" + SMUGGLED)
        got, closed = all_answers(s.port, exact)
        assert got.startswith(b"HTTP/1.1 431 "), got[:200]
        assert got.count(b"HTTP/1.1 ") == 1 and b"smuggled" not in got, got
        assert b"\r\nConnection: close\r\n" in got and closed, got
        n = len(SMUGGLED)
        heads = {
            "two lengths": b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                           b"Content-Length: %d\r\n\r\n" % n,
            "not a number": b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\n"
                            b"Content-Length: %dx\r\n\r\n" % n,
            "a wrong method": b"PUT /api/health HTTP/1.1\r\nHost: x\r\n"
                              b"Content-Length: %d\r\n\r\n" % n,
            "no session": b"POST /api/contacts HTTP/1.1\r\nHost: x\r\n"
                          b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % n,
            "no route": b"POST /api/nothing HTTP/1.1\r\nHost: x\r\n"
                        b"Content-Length: %d\r\n\r\n" % n,
        }
        for what, head in heads.items():
            got, closed = all_answers(s.port, head + SMUGGLED)
            status = int(got.split(b" ")[1]) if got.startswith(b"HTTP/1.1 ") else None
            assert status and 400 <= status < 500, (what, got[:200])
            assert got.count(b"HTTP/1.1 ") == 1 and b"smuggled" not in got, (what, got)
            assert closed, what
        too_large = (b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % (2 << 20))
        got, closed = all_answers(s.port, too_large + SMUGGLED)
        assert got.startswith(b"HTTP/1.1 413 ") and got.count(b"HTTP/1.1 ") == 1, got[:200]
        assert closed
        # A refusal after the body was read keeps the connection, and the
        # next request on it is answered in turn.
        login = b'{"email": "nobody@example.test", "password": "x"}'
        kept = (b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % len(login) + login +
                b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        got, closed = all_answers(s.port, kept)
        assert got.startswith(b"HTTP/1.1 401 ") and got.count(b"HTTP/1.1 200 ") == 1, got[:400]


def test_sql_that_runs_too_long_is_stopped_with_503():
    s, admin, (loc,) = agency(modules=("contacts", "reader"), env={"PGHL_QUERY_TIMEOUT_MS": "20"})
    with s:
        r = admin.get("/api/reader/slow-sql")  # two million rows: far over 20 ms
        assert r.status == 503 and r.error_code() == "too_slow", r.body
        assert admin.get("/api/contacts?limit=1", headers={"X-Location-Id": str(loc)}).status == 200
    s2, admin2, _ = agency(modules=("contacts", "reader"))
    with s2:
        assert admin2.get("/api/reader/slow-sql").json()["rows"] == 1999995


def test_a_caller_waiting_in_vain_for_a_reader_is_told_to_retry():
    """Identifying a caller, or checking a location it has not asked for
    lately, may need a reader (a caller known from memory borrows its first
    one there). With none free the server is busy: 503 with Retry-After,
    never "no such sub-account" (404)."""
    s, admin, (a, b) = agency(modules=("contacts", "reader"), locations=("A", "B"),
                              env={"PGHL_READ_CONNECTIONS": "1", "PGHL_READER_WAIT_MS": "50"})
    with s:
        assert admin.get("/api/contacts").status == 200  # known, with its first location
        other = s.client(headers={"Cookie": "hl_session=" + admin.cookies["hl_session"]})
        seen = []
        for attempt in range(5):
            slow = threading.Thread(target=lambda: other.get("/api/reader/slow-sql"))
            slow.start()
            time.sleep(0.1)
            r = admin.get("/api/contacts", headers={"X-Location-Id": str(b)})
            seen.append(r.status)
            assert r.status in (200, 503), r.body  # never "no such sub-account"
            if r.status == 503:
                assert r.header("retry-after") == "1" and r.error_code() == "unavailable", r.body
            slow.join()
        assert 503 in seen, seen
        assert admin.get("/api/contacts", headers={"X-Location-Id": str(b)}).status == 200


def test_no_more_than_four_large_uploads_are_received_at_once():
    s, admin, (loc,) = agency(env={"PGHL_BODY_TIMEOUT_S": "60"})
    with s:
        csrf = admin.get("/api/auth/me").json()["csrf_token"]
        cookie = "; ".join("%s=%s" % kv for kv in admin.cookies.items())
        head = ("POST /api/contacts/import HTTP/1.1\r\nHost: x\r\nCookie: %s\r\n"
                "X-CSRF-Token: %s\r\nX-Location-Id: %d\r\nContent-Type: text/csv\r\n"
                "Content-Length: %d\r\n\r\nfirst_name\r\n" % (cookie, csrf, loc, 3 << 20)).encode()
        uploading = []
        for _ in range(4):
            sock = connect(s.port)
            sock.sendall(head)
            uploading.append(sock)
        time.sleep(1)
        fifth = connect(s.port)
        fifth.sendall(head)
        status, head5, body = answer_of(fifth, 10)
        assert status == 503 and b"Retry-After" in head5, body
        # A small body is not kept waiting by them.
        r = admin.post("/api/contacts", {"first_name": "Small"}, headers={"X-Location-Id": str(loc)})
        assert r.status == 201, r.body
        for sock in uploading:
            sock.close()
        # Their places are given back once they end.
        for _ in range(100):
            sock = connect(s.port)
            sock.sendall(head)
            answer = answer_of(sock, 0.3)
            sock.close()
            if answer is None:
                break
            time.sleep(0.1)
        assert answer is None, answer  # it was let in, and is waiting for its body
