# SPDX-License-Identifier: MIT
"""Streamed answers (exports) as clients see them: chunked, compressed
while they stream when the client accepts it, whole when decoded, never
held in memory, and cut short (an error for the client) when the handler
fails half-way."""

import gzip
import http.client
import subprocess

from harness import agency

def server():
    s, admin, _ = agency(("contacts", "reader"))
    return s, admin


def line(i):
    return "%d,contact %d,person%d@example.test,+1 555 %07d,Some Company %d\n" % (
        i, i, i, i * 7919 % 10000000, i % 977)


def expected(rows):
    return "".join(line(i) for i in range(rows)).encode()


def unbrotli(data):
    return subprocess.run(["brotli", "-d", "-c"], input=data, capture_output=True, check=True).stdout


def test_a_stream_is_chunked_and_compressed_as_it_goes():
    s, admin = server()
    with s:
        want = expected(20000)
        plain = admin.get("/api/reader/export?rows=20000")
        assert plain.status == 200 and plain.body == want
        assert plain.header("transfer-encoding") == "chunked"
        assert plain.header("content-length") is None
        assert plain.header("content-type") == "text/csv; charset=utf-8"
        br = admin.get("/api/reader/export?rows=20000", headers={"Accept-Encoding": "br"})
        assert br.header("content-encoding") == "br" and br.header("vary") == "Accept-Encoding"
        assert len(br.body) < len(want) / 4 and unbrotli(br.body) == want
        gz = admin.get("/api/reader/export?rows=20000", headers={"Accept-Encoding": "gzip"})
        assert gz.header("content-encoding") == "gzip"
        assert len(gz.body) < len(want) / 4 and gzip.decompress(gz.body) == want
        # The route asks for the cache, but a stream is never kept.
        assert plain.header("x-cache") is None
        again = admin.get("/api/reader/export?rows=20000")
        assert again.body == want
        for coding in ("br", "gzip", "identity"):
            head = admin.request("HEAD", "/api/reader/export?rows=20000",
                                 headers={"Accept-Encoding": coding})
            assert head.status == 200 and head.body == b""
        assert admin.get("/api/health").status == 200
        empty = admin.get("/api/reader/export?rows=0", headers={"Accept-Encoding": "gzip"})
        assert gzip.decompress(empty.body) == b""


def test_a_big_export_is_not_held_in_memory():
    s, admin = server()
    with s:
        admin.get("/api/reader/export?rows=1000")
        before = admin.get("/api/admin/metrics").json()["memory"]["rss_peak_bytes"]
        rows = 800000  # about 60 MB of CSV
        r = admin.get("/api/reader/export?rows=%d" % rows, headers={"Accept-Encoding": "br"})
        assert r.status == 200
        size = len(unbrotli(r.body))
        assert size > 55 << 20
        after = admin.get("/api/admin/metrics").json()
        grown = after["memory"]["rss_peak_bytes"] - before
        assert grown < 16 << 20, grown
        export = next(x for x in after["routes"] if x["pattern"] == "/api/reader/export")
        assert export["bytes_out"] >= size and export["bytes_sent"] < size / 4


def test_a_failing_handler_cuts_the_stream_short():
    s, admin = server()
    with s:
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
        cookie = "; ".join("%s=%s" % kv for kv in admin.cookies.items())
        conn.request("GET", "/api/reader/export?rows=5000&fail_at=3000", headers={"Cookie": cookie})
        r = conn.getresponse()
        assert r.status == 200
        try:
            body = r.read()
            assert False, "read %d bytes of a stream cut short" % len(body)
        except http.client.IncompleteRead as e:
            assert len(e.partial) < len(expected(3000)) + 1
        conn.close()
        s.stop()
        assert "GET /api/reader/export: module reader: input/output error; the stream was cut short" in s.log
