# SPDX-License-Identifier: MIT
"""Compressed answers as clients see them: brotli for those that accept
it, else gzip, for text of 1 KB and more, decoded by real decoders."""

import gzip
import subprocess

from harness import Server


def unbrotli(data):
    return subprocess.run(["brotli", "-d", "-c"], input=data, capture_output=True, check=True).stdout


def test_brotli_then_gzip_then_plain_by_accept_encoding():
    with Server().start() as s:
        plain = s.get("/api/probe/big")
        assert plain.header("content-encoding") is None
        assert plain.header("vary") == "Accept-Encoding"
        br = s.get("/api/probe/big", headers={"Accept-Encoding": "gzip, deflate, br"})
        assert br.header("content-encoding") == "br"
        assert int(br.header("content-length")) == len(br.body) < len(plain.body) / 2
        assert unbrotli(br.body) == plain.body
        gz = s.get("/api/probe/big", headers={"Accept-Encoding": "gzip"})
        assert gz.header("content-encoding") == "gzip"
        assert gzip.decompress(gz.body) == plain.body


def test_q_values_are_honoured():
    with Server().start() as s:
        for header, want in (("br;q=0, gzip", "gzip"), ("*", "br"), ("gzip;q=0", None),
                             ("identity", None), ("br;q=0.5, gzip;q=1", "br"),
                             ("BR", "br"), ("x-compress, gzip ; q=0.2", "gzip")):
            r = s.get("/api/probe/big", headers={"Accept-Encoding": header})
            assert r.header("content-encoding") == want, header


def test_small_answers_are_sent_as_they_are():
    with Server().start() as s:
        r = s.get("/api/probe/hello", headers={"Accept-Encoding": "br, gzip"})
        assert r.header("content-encoding") is None and r.json()["module"] == "probe"
        assert r.header("vary") == "Accept-Encoding"


def test_head_gives_the_compressed_length_without_a_body():
    with Server().start() as s:
        enc = {"Accept-Encoding": "br"}
        get = s.get("/api/probe/big", headers=enc)
        head = s.request("HEAD", "/api/probe/big", headers=enc)
        assert head.body == b"" and head.header("content-encoding") == "br"
        assert head.header("content-length") == get.header("content-length")


def test_only_text_is_compressed_and_never_an_event_stream():
    with Server(modules=("contacts", "reader")).start() as s:
        enc = {"Accept-Encoding": "br, gzip"}
        for kind, compressed in ((0, True), (3, True), (1, False), (2, False)):
            r = s.get("/api/reader/typed?type=%d&size=20000" % kind, headers=enc)
            assert r.status == 200
            assert (r.header("content-encoding") == "br") == compressed, r.header("content-type")
            assert (len(r.body) < 5000) == compressed
        # Vary is there for every compressible answer, even one too small.
        small = s.get("/api/reader/typed?type=0&size=100", headers=enc)
        assert small.header("content-encoding") is None and small.header("vary") == "Accept-Encoding"
        assert s.get("/api/reader/typed?type=1&size=20000").header("vary") is None


def test_a_range_request_gets_the_whole_answer():
    with Server().start() as s:
        r = s.get("/api/probe/big", headers={"Range": "bytes=0-99", "Accept-Encoding": "gzip"})
        assert r.status == 200 and r.header("content-range") is None
        assert gzip.decompress(r.body) == s.get("/api/probe/big").body
