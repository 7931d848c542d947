# SPDX-License-Identifier: MIT
"""The HTTP layer as a client sees it: routing, the error format, headers,
bodies, the write path's all-or-nothing rule, static files and shutdown."""

import json
import os
import re
import signal
import socket
import threading
import time

import harness
from harness import Server, error_lines


def probe_server(**kw):
    return Server(**kw).start()


def test_health_answers_without_login_with_security_headers():
    with probe_server() as s:
        r = s.get("/api/health")
        assert r.status == 200
        assert r.json()["status"] == "ok"
        assert r.header("content-type") == "application/json; charset=utf-8"
        assert int(r.header("content-length")) == len(r.body)
        assert r.header("x-content-type-options") == "nosniff"
        assert "frame-ancestors 'none'" in r.header("content-security-policy")
        assert r.header("referrer-policy")
        assert r.header("cache-control") == "no-store"


def test_keep_alive_serves_many_requests_on_one_connection():
    with probe_server() as s:
        s.get("/api/health")
        sock = s.conn.sock
        assert sock is not None
        for _ in range(20):
            assert s.get("/api/probe/hello").status == 200
        assert s.conn.sock is sock


def test_one_write_per_answer_headers_and_body_arrive_together():
    with probe_server() as s:
        with socket.create_connection(("127.0.0.1", s.port)) as c:
            c.sendall(b"GET /api/probe/hello HTTP/1.1\r\nHost: x\r\n\r\n")
            c.settimeout(5)
            first = c.recv(65536)
        head, _, body = first.partition(b"\r\n\r\n")
        length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
        assert len(body) == length


def test_unknown_api_path_is_json_404():
    with probe_server() as s:
        r = s.get("/api/nothing/here")
        assert r.status == 404
        assert r.error_code() == "not_found"
        assert r.json()["error"]["message"]


def test_wrong_method_is_405_with_allow():
    with probe_server() as s:
        r = s.request("PUT", "/api/probe/hello", body=b"")
        assert r.status == 405
        assert r.error_code() == "method_not_allowed"
        assert r.header("allow") == "GET, HEAD"
        r = s.request("PATCH", "/api/probe/items/1", body=b"")
        assert r.status == 405 and r.header("allow") == "GET, HEAD, DELETE"


def test_head_is_get_without_body():
    with probe_server() as s:
        get = s.get("/api/probe/big")
        head = s.request("HEAD", "/api/probe/big")
        assert head.status == 200 and head.body == b""
        assert head.header("content-length") == get.header("content-length")
        assert s.get("/api/probe/hello").json()["greeting"] == "hello"


def test_params_and_query_are_decoded():
    with probe_server() as s:
        r = s.get("/api/probe/echo/caf%C3%A9/a%2Fb?q=x+y%26z&tag=one&tag=two&n=5",
                  headers={"X-Probe": "seen"})
        assert r.status == 200
        e = r.json()
        assert e["a"] == "café"
        assert e["b"] == "a/b"
        assert e["missing"] is None
        assert e["q"] == "x y&z"
        assert e["tags"] == ["one", "two"]
        assert e["n"] == 5
        assert e["header"] == "seen"
        assert e["text"] == 'tab\tquote"nl\n-42'
        assert e["pi"] == 3.25 and e["yes"] is True


def test_bad_integer_query_is_400_naming_it():
    with probe_server() as s:
        for bad in ("abc", "101", "-1", "5x", "+5", "%205"):
            r = s.get("/api/probe/echo/a/b?n=" + bad)
            assert r.status == 400, bad
            assert "n must be an integer" in r.json()["error"]["message"]
        for bad in ("n=%00", "n=%zz", "q=%4"):
            r = s.get("/api/probe/echo/a/b?" + bad)
            assert r.status == 400 and r.error_code() == "bad_request", bad


def test_literal_segment_wins_over_param():
    with probe_server() as s:
        s.post("/api/probe/items", {"name": "only"})
        assert s.get("/api/probe/items/latest").json()["name"] == "only"
        assert s.get("/api/probe/items/notanumber").status == 404


def test_json_body_is_parsed_and_unescaped():
    with probe_server() as s:
        body = {"keys": ["s", "n", "b", "a", "absent"], "s": "é\"\\\u0001😀",
                "n": -9007199254740993, "b": False, "a": [1, "x", [True]]}
        r = s.post("/api/probe/json", body)
        assert r.status == 200
        assert r.json() == {"s": body["s"], "n": body["n"], "b": False,
                            "a": [1, "x", [True]], "absent": None}


def test_invalid_json_is_400():
    with probe_server() as s:
        for bad in (b'{"keys": [}', b'{"a":1,}', b"[1 2]", b"[1,,2]", b'{"a" 1}',
                    b'{"a":1 "b":2}', b'{"a"::1}', b'{"a":1} {"b":2}', b"nul", b"01"):
            r = s.post("/api/probe/json", bad, headers={"Content-Type": "application/json"})
            assert r.status == 400, bad
            assert r.error_code() == "invalid_json"


def test_deep_nesting_and_long_arrays_are_cheap():
    with probe_server() as s:
        deep = b"[" * 500000 + b"]" * 500000
        r = s.post("/api/probe/json", deep, headers={"Content-Type": "application/json"})
        assert r.status == 400 and r.error_code() == "invalid_json"
        long = {"keys": ["a"], "a": list(range(100000))}
        assert s.post("/api/probe/json", long).json()["a"] == long["a"]


def test_non_json_body_is_415_unless_route_takes_raw():
    with probe_server() as s:
        r = s.post("/api/probe/json", b"a,b\n1,2\n", headers={"Content-Type": "text/csv"})
        assert r.status == 415 and r.error_code() == "unsupported_media_type"
        r = s.post("/api/probe/raw", b"a,b\n1,2\n", headers={"Content-Type": "text/csv"})
        assert r.status == 200 and r.json() == {"length": 8, "first_line": "a,b"}


def test_body_over_limit_is_413():
    with Server(env={"PGHL_MAX_BODY_KB": "1"}).start() as s:
        big = b'{"keys": [], "x": "' + b"a" * 2000 + b'"}'
        r = s.post("/api/probe/json", big, headers={"Content-Type": "application/json"})
        assert r.status == 413 and r.error_code() == "too_large"
        assert s.get("/api/probe/hello").status == 200  # the server goes on


def test_write_commits_and_conflict_is_409():
    with probe_server() as s:
        r = s.post("/api/probe/items", {"name": "a"})
        assert r.status == 201 and r.json()["name"] == "a"
        r = s.post("/api/probe/items", {"name": "a"})
        assert r.status == 409 and r.error_code() == "conflict"
        assert s.sql("SELECT name FROM probe_items") == [("a",)]


def test_error_answer_after_a_write_leaves_nothing_written():
    with probe_server() as s:
        r = s.post("/api/probe/items", {"name": "half", "then_fail": True})
        assert r.status == 422 and r.error_code() == "validation"
        assert s.get("/api/probe/items/latest").status == 404
        assert s.sql("SELECT count(*) FROM probe_items") == [(0,)]


def test_validation_error_is_422():
    with probe_server() as s:
        r = s.post("/api/probe/items", {"name": ""})
        assert r.status == 422 and "name" in r.json()["error"]["message"]


def test_delete_then_404():
    with probe_server() as s:
        item = s.post("/api/probe/items", {"name": "gone"}).json()
        assert s.request("DELETE", "/api/probe/items/%d" % item["id"]).status == 204
        assert s.request("DELETE", "/api/probe/items/%d" % item["id"]).status == 404
        assert s.get("/api/probe/items/%d" % item["id"]).status == 404


def test_handler_failure_is_500_without_details():
    with probe_server() as s:
        for path in ("/api/probe/fail", "/api/probe/silent"):
            r = s.get(path)
            assert r.status == 500 and r.error_code() == "internal"
        s.stop()
        assert "module probe" in s.log


def test_route_needing_a_session_is_401():
    with probe_server() as s:
        r = s.get("/api/probe/private")
        assert r.status == 401 and r.error_code() == "unauthorized"
        assert s.get("/api/contacts").status == 401


def test_big_answer_arrives_whole():
    with probe_server() as s:
        assert s.get("/api/probe/big").json() == list(range(10000))


def test_static_files_and_app_pages():
    with open(os.path.join(harness.BUILD, "web", "manifest.json")) as f:
        built = json.load(f)  # the built web folder's hashed names
    with probe_server() as s:
        r = s.get("/")
        assert r.status == 200 and r.header("content-type").startswith("text/html")
        assert "<title>Sign in · HyperLevel</title>".encode() in r.body
        shell = s.get("/" + built["shell.js"])
        assert shell.status == 200 and shell.header("content-type").startswith("text/javascript")
        assert s.get("/contacts").body == r.body  # a page of the app
        assert s.get("/app/contacts/12").body == r.body
        assert s.get("/missing.js").status == 404
        head = s.request("HEAD", "/" + built["shell.css"])
        assert head.status == 200 and head.body == b""


def test_no_path_leaves_the_web_folder():
    with probe_server() as s:
        for path in ("/../GNUmakefile", "/%2e%2e/GNUmakefile", "/%2E%2E%2FGNUmakefile",
                     "/..%2fGNUmakefile", "/./index.html/..", "/%00index.html"):
            with socket.create_connection(("127.0.0.1", s.port)) as c:
                c.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                c.settimeout(5)
                data = b""
                while True:
                    chunk = c.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            assert b"VERSION :=" not in data, path
            assert data.startswith(b"HTTP/1.1 404") or data.startswith(b"HTTP/1.1 400"), path


def test_start_up_steps_are_timed_and_sigterm_stops_cleanly():
    s = probe_server()
    s.post("/api/probe/items", {"name": "kept"})
    code = s.stop()
    try:
        assert code == 0
        for step in ("config", "modules", "database open", "migrations", "listening"):
            assert re.search(r"^  %s +\d+\.\d ms" % step, s.log, re.M), step
        assert "stopped" in s.log
        assert not os.path.exists(s.db_path + "-wal")  # the database was closed
        assert s.sql("SELECT name FROM probe_items") == [("kept",)]
        assert not error_lines(s.log)
    finally:
        s.close()


def test_sigterm_lets_a_request_in_flight_finish():
    with probe_server() as s:
        answers = []
        t = threading.Thread(target=lambda: answers.append(s.get("/api/probe/slow")))
        t.start()
        time.sleep(0.2)
        s.proc.send_signal(signal.SIGTERM)
        t.join(30)
        assert answers and answers[0].status == 200
        assert answers[0].json()["module"] == "probe"
        assert s.proc.wait(30) == 0


def raw_exchange(port, request, then=None):
    """Send raw bytes; optionally wait for a first answer, then send more."""
    with socket.create_connection(("127.0.0.1", port)) as c:
        c.settimeout(10)
        c.sendall(request)
        first = b""
        if then is not None:
            while b"\r\n\r\n" not in first:
                first += c.recv(65536)
            c.sendall(then)
        else:
            c.shutdown(socket.SHUT_WR)
        rest = b""
        while True:
            chunk = c.recv(65536)
            if not chunk:
                break
            rest += chunk
            if b"\r\n\r\n" in rest:
                head, _, body = rest.partition(b"\r\n\r\n")
                m = re.search(rb"Content-Length: (\d+)", head)
                if m and len(body) >= int(m.group(1)):
                    break
        return first, rest


def test_cut_off_body_is_400_and_never_reaches_the_handler():
    with probe_server() as s:
        _, answer = raw_exchange(s.port, b"POST /api/probe/raw HTTP/1.1\r\nHost: x\r\n"
                                 b"Content-Type: text/csv\r\nContent-Length: 100\r\n\r\nonly 11 b..")
        assert answer.startswith(b"HTTP/1.1 400"), answer
        assert b'"incomplete_body"' in answer


def test_expect_100_continue_is_answered_before_the_body():
    with probe_server() as s:
        first, answer = raw_exchange(
            s.port, b"POST /api/probe/raw HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n"
            b"Content-Length: 4\r\nExpect: 100-continue\r\n\r\n", then=b"a,b\n")
        assert first.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), first
        assert answer.startswith(b"HTTP/1.1 200") and b'"length":4' in answer, answer
        r = s.post("/api/probe/raw", b"x", headers={"Content-Type": "text/csv", "Expect": "magic"})
        assert r.status == 417 and r.error_code() == "expectation_failed"


def test_no_content_answer_has_no_body_headers():
    with probe_server() as s:
        item = s.post("/api/probe/items", {"name": "x"}).json()
        r = s.request("DELETE", "/api/probe/items/%d" % item["id"])
        assert r.status == 204 and r.body == b""
        assert r.header("content-length") is None and r.header("content-type") is None
        assert s.get("/api/probe/hello").status == 200  # the connection goes on


def test_api_root_is_not_an_app_page():
    with probe_server() as s:
        for path in ("/api", "/api/"):
            r = s.get(path)
            assert r.status == 404 and r.error_code() == "not_found", path
