# SPDX-License-Identifier: MIT
"""Compressed answers as clients see them: brotli for those that accept
it, else gzip, for text of 1 KB and more, decoded by real decoders; and
bench-compress measuring a saved answer."""

import gzip
import os
import subprocess
import tempfile

import harness
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


def test_bench_compress_measures_a_saved_answer_at_the_quality_its_size_gets():
    """tools/bench-compress with FILE: both codings of that answer, brotli 2
    under 32 KB and 1 from there (brotli 1 makes a bigger result); a file
    that is not there is one line and exit 1."""
    tool = os.path.join(harness.BUILD, "tools", "bench-compress")
    work = tempfile.mkdtemp(prefix="hl-compress-")
    sizes = {}
    for name, rows in (("small", 640), ("big", 1280)):
        path = os.path.join(work, name + ".json")
        with open(path, "w") as f:
            f.write('{"data":[' + ",".join('{"id":%d,"name":"Deal number %d","stage_id":%d}' % (i, i * 7919 % 1000, i % 6)
                                           for i in range(rows)) + "]}")
        p = subprocess.run([tool, "1", path], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        assert [l.split()[0] for l in lines] == ["gzip", "br"], p.stdout
        sizes[name] = (os.path.getsize(path), int(lines[1].split()[3]))
        assert lines[1].split()[1] == str(sizes[name][0])
    small, big = sizes["small"], sizes["big"]
    assert small[0] < 32 * 1024 <= big[0], sizes
    # Twice the rows; at brotli 1 the result is more than twice as big.
    assert big[1] > 2 * small[1], sizes
    p = subprocess.run([tool, "1", os.path.join(work, "none.json")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and p.stderr.strip().count("\n") == 0 and "none.json" in p.stderr
