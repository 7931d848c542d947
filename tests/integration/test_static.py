# SPDX-License-Identifier: MIT
"""The browser app's files as a browser sees them: immutable hashed names,
a no-cache page that revalidates with 304, precompressed .br/.gz files
chosen by Accept-Encoding, real 404s for missing files, and no way out of
the web folder. Each test serves a web folder of its own."""

import email.utils
import gzip
import os
import re
import socket
import subprocess
import time

from harness import WebServer

IMMUTABLE = "public, max-age=31536000, immutable"
MTIME_NS = 1700000000_123456789  # a fraction of a second on purpose
INDEX = b"<!doctype html><title>HyperLevel</title>\n" + b"<p>the shell</p>\n" * 100
APP = b"export const greeting = 'hello';\n" * 150
ONLY_GZ = b"export const other = 'gz only';\n" * 150
CSS = b"body { margin: 0; padding: 0; }\n" * 100
PAGE = b"export const page = 'plain';\n" * 10
SECRET = b"TOP SECRET outside the web folder\n"


def brotli(data):
    # A small window makes these bytes differ from what the server would
    # produce itself, so a body equal to them came from the file.
    return subprocess.run(["brotli", "-c", "-q", "11", "-w", "10"], input=data,
                          capture_output=True, check=True).stdout


def unbrotli(data):
    return subprocess.run(["brotli", "-d", "-c"], input=data, capture_output=True,
                          check=True).stdout


def pregzip(data):
    return gzip.compress(data, mtime=12345)  # libdeflate writes mtime 0


class SiteServer(WebServer):
    """A server whose web folder is root/web, next to root/secret.txt and
    root/outside/, which no request may reach."""

    def __init__(self):
        super().__init__(modules=("contacts",))
        self.files = {}
        make_site(self)

    def write(self, rel, data):
        os.utime(super().write(rel, data), ns=(MTIME_NS, MTIME_NS))
        self.files[rel] = data

    def etag(self, rel, suffix=""):
        st = os.stat(os.path.join(self.web, rel))
        return '"%x-%x%s"' % (st.st_size, st.st_mtime_ns, suffix)


def make_site(s):
    s.write("index.html", INDEX)
    s.write("app.1a2b3c4d.js", APP)
    s.write("app.1a2b3c4d.js.br", brotli(APP))
    s.write("app.1a2b3c4d.js.gz", pregzip(APP))
    s.write("other.5e6f7a8b9c.js", ONLY_GZ)
    s.write("other.5e6f7a8b9c.js.gz", pregzip(ONLY_GZ))
    s.write("style.css", CSS)
    s.write("short.1a2b3c.js", PAGE)
    s.write("page.js", PAGE)
    s.write("docs/index.html", b"<p>docs</p>")
    outside = os.path.join(s.root, "outside")
    os.makedirs(outside)
    for folder in (s.root, outside):
        with open(os.path.join(folder, "secret.txt"), "wb") as f:
            f.write(SECRET)
    os.symlink(os.path.join(outside, "secret.txt"), os.path.join(s.web, "leak.txt"))
    os.symlink(os.path.join(outside, "secret.txt"), os.path.join(s.web, "leak"))
    os.symlink(outside, os.path.join(s.web, "leakdir"))
    os.symlink(os.path.join(outside, "secret.txt"), os.path.join(s.web, "page.js.br"))
    os.symlink(os.path.join(s.web, "app.1a2b3c4d.js"), os.path.join(s.web, "alias.js"))


def raw_get(port, path, headers=b""):
    """GET exactly `path`, unnormalised; returns (status, head, body)."""
    with socket.create_connection(("127.0.0.1", port)) as c:
        c.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\n" + headers +
                  b"Connection: close\r\n\r\n")
        c.settimeout(5)
        data = b""
        while True:
            chunk = c.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), head, body


def http_date(seconds):
    return email.utils.formatdate(seconds, usegmt=True)


def test_static_hashed_names_are_immutable_with_validators():
    with SiteServer().start() as s:
        r = s.get("/app.1a2b3c4d.js")
        assert r.status == 200 and r.body == APP
        assert r.header("content-type") == "text/javascript; charset=utf-8"
        assert r.header("cache-control") == IMMUTABLE
        assert r.header("etag") == s.etag("app.1a2b3c4d.js")
        assert re.fullmatch(r'"[0-9a-f]+-[0-9a-f]+"', r.header("etag"))
        assert r.header("last-modified") == http_date(MTIME_NS // 10**9)
        assert s.get("/other.5e6f7a8b9c.js").header("cache-control") == IMMUTABLE
        # Too short a hash, or no hash: the name may change meaning.
        for path in ("/short.1a2b3c.js", "/page.js", "/style.css", "/alias.js"):
            r = s.get(path)
            assert r.status == 200 and r.header("cache-control") == "no-cache", path
        r = s.get("/app.1a2b3c4d.js", headers={"If-None-Match": s.etag("app.1a2b3c4d.js")})
        assert r.status == 304 and r.body == b""
        assert r.header("cache-control") == IMMUTABLE


def test_static_page_is_no_cache_and_revalidates_with_304():
    with SiteServer().start() as s:
        r = s.get("/")
        etag = s.etag("index.html")
        assert r.status == 200 and r.body == INDEX
        assert r.header("cache-control") == "no-cache" and r.header("etag") == etag
        modified = r.header("last-modified")
        assert modified == http_date(MTIME_NS // 10**9)
        for inm in (etag, "W/" + etag, '"nope", ' + etag, '"a,b",W/' + etag, "*"):
            r = s.get("/", headers={"If-None-Match": inm})
            assert r.status == 304 and r.body == b"", inm
            assert r.header("etag") == etag and r.header("cache-control") == "no-cache"
            assert r.header("vary") == "Accept-Encoding"
            assert r.header("content-type") is None and r.header("content-length") is None
        for inm in ('"nope"', etag[:-2] + '"', etag + "x", "W/" + etag[:-1] + '-gz"'):
            r = s.get("/", headers={"If-None-Match": inm})
            assert r.status == 200 and r.body == INDEX, inm
        # If-None-Match wins over If-Modified-Since.
        r = s.get("/", headers={"If-None-Match": '"nope"', "If-Modified-Since": modified})
        assert r.status == 200
        assert s.get("/", headers={"If-Modified-Since": modified}).status == 304
        later = http_date(MTIME_NS // 10**9 + 3600)
        assert s.get("/", headers={"If-Modified-Since": later}).status == 304
        for since in (http_date(MTIME_NS // 10**9 - 1), "yesterday",
                      http_date(time.time() + 86400)):
            r = s.get("/", headers={"If-Modified-Since": since})
            assert r.status == 200 and r.body == INDEX, since


def test_static_app_pages_revalidate_like_the_index():
    with SiteServer().start() as s:
        etag = s.etag("index.html")
        for path in ("/contacts", "/contacts/42", "/settings/"):
            r = s.get(path)
            assert r.status == 200 and r.body == INDEX, path
            assert r.header("etag") == etag and r.header("cache-control") == "no-cache"
            assert s.get(path, headers={"If-None-Match": etag}).status == 304
        # A changed page has a new validator: the old one no longer matches.
        s.write("index.html", INDEX + b"<p>new</p>")
        os.utime(os.path.join(s.web, "index.html"), ns=(MTIME_NS + 5, MTIME_NS + 5))
        r = s.get("/contacts", headers={"If-None-Match": etag})
        assert r.status == 200 and r.body.endswith(b"<p>new</p>")
        assert r.header("etag") == s.etag("index.html") != etag


def test_static_precompressed_files_by_accept_encoding():
    with SiteServer().start() as s:
        name = "app.1a2b3c4d.js"
        plain = s.etag(name)
        for accept, coding, variant in (("br", "br", ".br"), ("gzip, deflate, br", "br", ".br"),
                                         ("gzip", "gzip", ".gz"), ("br;q=0, gzip", "gzip", ".gz"),
                                         ("*", "br", ".br")):
            r = s.get("/" + name, headers={"Accept-Encoding": accept})
            assert r.status == 200 and r.header("content-encoding") == coding, accept
            assert r.body == s.files[name + variant], accept
            assert int(r.header("content-length")) == len(r.body)
            assert r.header("content-type") == "text/javascript; charset=utf-8"
            assert r.header("vary") == "Accept-Encoding"
            assert r.header("cache-control") == IMMUTABLE
            assert r.header("etag") == s.etag(name + variant, "-" + variant[1:3]) != plain
        for accept in (b"br", b"gzip", b"identity"):
            _, head, _ = raw_get(s.port, "/" + name, b"Accept-Encoding: " + accept + b"\r\n")
            assert head.count(b"\r\nVary: ") == 1, accept
        assert unbrotli(s.get("/" + name, headers={"Accept-Encoding": "br"}).body) == APP
        assert gzip.decompress(s.get("/" + name, headers={"Accept-Encoding": "gzip"}).body) == APP
        for accept in (None, "identity", "br;q=0, gzip;q=0", "deflate"):
            r = s.get("/" + name, headers={"Accept-Encoding": accept} if accept else None)
            assert r.body == APP and r.header("content-encoding") is None, accept
            assert r.header("etag") == plain and r.header("vary") == "Accept-Encoding"


def test_static_gz_serves_a_client_taking_br_when_there_is_no_br():
    with SiteServer().start() as s:
        name = "other.5e6f7a8b9c.js"
        r = s.get("/" + name, headers={"Accept-Encoding": "br, gzip"})
        assert r.header("content-encoding") == "gzip" and r.body == s.files[name + ".gz"]
        assert r.header("etag") == s.etag(name + ".gz", "-gz")
        # gzip refused: the HTTP layer compresses the plain file with br.
        r = s.get("/" + name, headers={"Accept-Encoding": "br, gzip;q=0"})
        assert r.header("content-encoding") == "br" and unbrotli(r.body) == ONLY_GZ


def test_static_validators_follow_the_coding_sent():
    with SiteServer().start() as s:
        name = "app.1a2b3c4d.js"
        br = s.etag(name + ".br", "-br")
        hdrs = {"Accept-Encoding": "br", "If-None-Match": br}
        r = s.get("/" + name, headers=hdrs)
        assert r.status == 304 and r.header("etag") == br and r.header("content-encoding") is None
        assert r.header("vary") == "Accept-Encoding"
        _, head, _ = raw_get(s.port, "/" + name, b"Accept-Encoding: br\r\nIf-None-Match: " +
                             br.encode() + b"\r\n")
        assert head.startswith(b"HTTP/1.1 304") and head.count(b"\r\nVary: ") == 1
        r = s.get("/" + name, headers={"Accept-Encoding": "gzip", "If-None-Match": br})
        assert r.status == 200 and r.header("content-encoding") == "gzip"
        r = s.get("/" + name, headers={"If-None-Match": br})
        assert r.status == 200 and r.body == APP
        # A file without variants, compressed on the fly: its ETag names that too.
        plain = s.etag("style.css")
        r = s.get("/style.css", headers={"Accept-Encoding": "gzip"})
        assert r.header("content-encoding") == "gzip" and gzip.decompress(r.body) == CSS
        assert r.header("etag") == plain[:-1] + '-gz"'
        assert s.get("/style.css", headers={"Accept-Encoding": "gzip",
                                             "If-None-Match": plain}).status == 200
        r = s.get("/style.css")
        assert r.header("etag") == plain and r.body == CSS


def test_static_head_is_get_without_a_body():
    with SiteServer().start() as s:
        for path, accept in (("/", None), ("/contacts", None), ("/app.1a2b3c4d.js", "br"),
                             ("/app.1a2b3c4d.js", "gzip"), ("/style.css", "gzip"),
                             ("/page.js", None)):
            hdrs = {"Accept-Encoding": accept} if accept else None
            get = s.get(path, headers=hdrs)
            head = s.request("HEAD", path, headers=hdrs)
            assert head.status == 200 and head.body == b"", path
            assert int(head.header("content-length")) == len(get.body) > 0, path
            for name in ("content-type", "content-encoding", "etag", "last-modified",
                         "cache-control", "vary"):
                assert head.header(name) == get.header(name), (path, name)
        r = s.request("HEAD", "/", headers={"If-None-Match": s.etag("index.html")})
        assert r.status == 304 and r.body == b""
        r = s.request("HEAD", "/app.00000000.js")
        assert r.status == 404 and r.body == b""


def test_static_missing_files_are_json_404_and_pages_get_the_index():
    with SiteServer().start() as s:
        for path in ("/app.deadbeef.js", "/app.1a2b3c4d.css", "/missing.css",
                     "/docs/missing.png", "/contacts/photo.jpg", "/app.deadbeef.js.br"):
            r = s.get(path, headers={"Accept-Encoding": "br, gzip"})
            assert r.status == 404, path
            assert r.header("content-type") == "application/json; charset=utf-8", path
            assert r.error_code() == "not_found", path
            assert r.header("etag") is None, path
        for path in ("/", "/contacts", "/contacts/42/edit", "/docs/nothing"):
            r = s.get(path)
            assert r.status == 200 and r.body == INDEX, path
        assert s.get("/docs").body == b"<p>docs</p>"
        assert s.get("/docs/").body == b"<p>docs</p>"


def test_static_no_path_leaves_the_web_folder():
    with SiteServer().start() as s:
        # Each reaches root/secret.txt if the path were followed as written.
        for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2e/secret.txt",
                     "/.%2e/secret.txt", "/%2e./secret.txt", "/..%2fsecret.txt",
                     "/%2e%2e%2fsecret.txt", "/%2E%2E%2Fsecret.txt", "/docs/../../secret.txt",
                     "/docs/%2e%2e/%2e%2e/secret.txt", "/docs%2f..%2f..%2fsecret.txt",
                     "/..\\secret.txt", "/%5c..%5csecret.txt", "/..%5csecret.txt",
                     "//../secret.txt", "/./../secret.txt", "/%2e%2e/web/../secret.txt"):
            status, head, body = raw_get(s.port, path, b"Accept-Encoding: br, gzip\r\n")
            assert SECRET not in body and b"TOP SECRET" not in head, path
            assert status == 404 and b'"code":"not_found"' in body, (path, status)
        # The same file by an honest path inside the folder is served.
        s.write("secret.txt", SECRET)
        status, _, body = raw_get(s.port, "/secret.txt")
        assert status == 200 and body == SECRET


def test_static_hidden_files_are_never_served():
    """A segment that starts with a dot, in any encoding, is a hidden
    file (.env, .git): 404, as for a file that is not there, never the
    file and never the app's page."""
    with SiteServer().start() as s:
        s.write(".env", SECRET)
        s.write(".git/config", SECRET)
        s.write(".git/HEAD", SECRET)
        s.write("docs/.htpasswd", SECRET)
        os.symlink(os.path.join(s.web, ".env"), os.path.join(s.web, "env.txt"))
        os.symlink(os.path.join(s.web, ".git"), os.path.join(s.web, "git"))
        for path in ("/.env", "/%2eenv", "/%2Eenv", "/.%65nv", "/%2e%65%6e%76", "/.git/config",
                     "/%2egit/config", "/.git/HEAD", "/.git", "/.git/", "/.git/nothing",
                     "/docs/.htpasswd", "/docs/%2ehtpasswd", "/app/.env", "/env.txt",
                     "/.env.br", "//.env"):
            status, head, body = raw_get(s.port, path, b"Accept-Encoding: br, gzip\r\n")
            assert SECRET not in body and status == 404, (path, status)
            assert b'"code":"not_found"' in body, path
        # Through a link to a hidden folder, an extensionless name is a
        # page of the app, as for any name that is no file.
        for path in ("/git/config", "/git/HEAD"):
            status, _, body = raw_get(s.port, path)
            assert status == 200 and body == INDEX, path
        assert s.get("/docs/").body == b"<p>docs</p>"  # a plain segment still serves


def test_static_symlinks_out_of_the_folder_are_refused():
    with SiteServer().start() as s:
        for path in ("/leak.txt", "/leakdir/secret.txt"):
            status, _, body = raw_get(s.port, path)
            assert status == 404 and SECRET not in body, path
        # An extensionless name is an app page when it names no file inside.
        for path in ("/leak", "/leakdir/", "/leakdir"):
            status, _, body = raw_get(s.port, path)
            assert status == 200 and body == INDEX, path
        # A .br beside a file that points outside is never sent.
        for accept in ("br", "br, gzip"):
            r = s.get("/page.js", headers={"Accept-Encoding": accept})
            assert r.status == 200 and r.header("content-encoding") is None, accept
            assert r.body == PAGE and r.header("etag") == s.etag("page.js")
        # A symlink that stays inside is followed.
        r = s.get("/alias.js")
        assert r.status == 200 and r.body == APP
