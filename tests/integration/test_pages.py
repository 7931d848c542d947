# SPDX-License-Identifier: MIT
"""The browser pages modules offer, as the shell asks for them: which
pages /api/pages gives each role (location-admin pages by the location
the request names), in menu order, none of a disabled module's, their
scripts by hashed name when the web folder was built with manifests; a
module declaring a bad page refused; and the app's document sent with the
policy its inline parts need while every other answer keeps the default."""

import base64
import hashlib
import html
import json
import os
import re
import socket

from harness import Server, WebServer

ADMIN = ("admin@example.test", "admin-pass-1")
REPORTS = ("contacts", "opportunities", "conversations", "tasks", "invoices", "reports")
DEFAULT_CSP = ("default-src 'self'; img-src 'self' data:; object-src 'none';"
               " base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
INDEX = b"<!doctype html><title>HyperLevel</title><p>sign in</p>\n"


def started(s):
    s.create_admin(*ADMIN)
    return s.start()


def add_user(admin, email, role, locations):
    r = admin.post("/api/admin/users", {"email": email, "name": email.split("@")[0],
                                        "role": role, "password": "user-pass-123",
                                        "location_ids": locations})
    assert r.status == 201, r.body


def pages(client, headers=None, query=""):
    r = client.get("/api/pages" + query, headers=headers)
    assert r.status == 200, r.body
    return r.json()["data"]


def paths(client, headers=None, query=""):
    return [p["path"] for p in pages(client, headers, query)]


def test_each_role_sees_the_pages_it_may_open_in_menu_order():
    with started(WebServer(modules=REPORTS)) as s:
        admin = s.login(*ADMIN)
        a = admin.post("/api/admin/locations", {"name": "A"}).json()["id"]
        add_user(admin, "lu@example.test", "location_user", [a])
        add_user(admin, "staff@example.test", "agency_user", [])
        user = s.login("lu@example.test", "user-pass-123")
        assert pages(user) == [
            {"module": "reports", "path": "/dashboard", "label": "Dashboard",
             "script": "/modules/reports/dashboard.js", "order": 10},
            {"module": "contacts", "path": "/contacts", "label": "Contacts",
             "script": "/modules/contacts/contacts.js", "order": 20, "search": "/modules/contacts/search.js"},
            {"module": "contacts", "path": "/contacts/:id", "label": None,
             "script": "/modules/contacts/contacts.js", "order": 20},
            {"module": "conversations", "path": "/conversations", "label": "Conversations",
             "script": "/modules/conversations/inbox.js", "order": 25, "search": "/modules/conversations/search.js"},
            {"module": "conversations", "path": "/conversations/:id", "label": None,
             "script": "/modules/conversations/inbox.js", "order": 25},
            {"module": "conversations", "path": "/saved-replies", "label": None,
             "script": "/modules/conversations/saved-replies.js", "order": 25},
            {"module": "opportunities", "path": "/opportunities", "label": "Opportunities",
             "script": "/modules/opportunities/board.js", "order": 30, "search": "/modules/opportunities/search.js"},
            {"module": "opportunities", "path": "/opportunities/:id", "label": None,
             "script": "/modules/opportunities/board.js", "order": 30},
            {"module": "tasks", "path": "/tasks", "label": "Tasks",
             "script": "/modules/tasks/tasks.js", "order": 40, "search": "/modules/tasks/search.js"},
            {"module": "tasks", "path": "/tasks/:id", "label": None,
             "script": "/modules/tasks/tasks.js", "order": 40},
            {"module": "invoices", "path": "/invoices", "label": "Invoices",
             "script": "/modules/invoices/invoices.js", "order": 50, "search": "/modules/invoices/search.js"},
            {"module": "invoices", "path": "/invoices/:id", "label": None,
             "script": "/modules/invoices/invoices.js", "order": 50},
            {"module": "reports", "path": "/reports", "label": "Reports",
             "script": "/modules/reports/reports.js", "order": 60},
            {"module": "core", "path": "/settings", "label": "Settings",
             "script": "/settings.js", "order": 95},
        ]
        assert paths(user, {"X-Location-Id": str(a)}) == ["/dashboard", "/contacts",
                                                          "/contacts/:id", "/conversations",
                                                          "/conversations/:id", "/saved-replies",
                                                          "/opportunities",
                                                          "/opportunities/:id", "/tasks",
                                                          "/tasks/:id", "/invoices", "/invoices/:id", "/reports",
                                                          "/settings"]
        staff = s.login("staff@example.test", "user-pass-123")
        assert "/system" not in paths(staff)
        got = pages(admin)
        assert [p["path"] for p in got] == ["/dashboard", "/contacts", "/contacts/:id",
                                            "/contacts/fields", "/contacts/tags", "/conversations",
                                            "/conversations/:id", "/saved-replies",
                                            "/opportunities", "/opportunities/:id", "/tasks",
                                            "/tasks/:id", "/invoices", "/invoices/:id", "/reports", "/system",
                                            "/channels", "/settings"]
        assert got[-3] == {"module": "core", "path": "/system", "label": "System",
                           "script": "/system.js", "order": 90}


def test_the_agency_pages_are_for_agency_staff_only():
    with started(WebServer(modules=REPORTS + ("agency",))) as s:
        admin = s.login(*ADMIN)
        a = admin.post("/api/admin/locations", {"name": "A"}).json()["id"]
        add_user(admin, "lu@example.test", "location_user", [a])
        add_user(admin, "la@example.test", "location_admin", [a])
        add_user(admin, "staff@example.test", "agency_user", [])
        for email in ("lu@example.test", "la@example.test"):
            got = paths(s.login(email, "user-pass-123"), {"X-Location-Id": str(a)})
            assert "/invoices" in got and not [p for p in got if p.startswith("/agency")], got
        for who in (s.login("staff@example.test", "user-pass-123"), admin):
            got = [p for p in pages(who) if p["module"] == "agency"]
            assert got == [{"module": "agency", "path": "/agency", "label": "Agency",
                            "script": "/modules/agency/agency.js", "order": 80},
                           {"module": "agency", "path": "/agency/:view", "label": None,
                            "script": "/modules/agency/agency.js", "order": 80}], got


def test_the_phones_home_page_is_marked():
    with started(WebServer(modules=REPORTS + ("mobile",))) as s:
        got = pages(s.login(*ADMIN))
        home = [p for p in got if p.get("phone_home")]
        assert home == [{"module": "mobile", "path": "/today", "label": "Today",
                         "script": "/modules/mobile/today.js", "order": 15,
                         "phone_home": True}], got
        assert all("phone_home" not in p for p in got if p["path"] != "/today")


def test_location_admin_pages_follow_the_location_the_request_names():
    # The probe's page is for location admins, at the contacts' order.
    with started(Server(modules=("contacts", "probe"))) as s:
        admin = s.login(*ADMIN)
        a = admin.post("/api/admin/locations", {"name": "A"}).json()["id"]
        b = admin.post("/api/admin/locations", {"name": "B"}).json()["id"]
        add_user(admin, "la@example.test", "location_admin", [a])
        add_user(admin, "lu@example.test", "location_user", [a])
        add_user(admin, "staff@example.test", "agency_user", [])
        boss = s.login("la@example.test", "user-pass-123")
        assert paths(boss) == ["/contacts", "/contacts/:id", "/settings"]
        assert paths(boss, {"X-Location-Id": str(a)}) == ["/contacts", "/contacts/:id",
                                                          "/contacts/fields", "/contacts/tags", "/probe",
                                                          "/settings"]
        assert paths(boss, query="?location_id=%d" % a)[-2] == "/probe"
        assert "/probe" not in paths(boss, {"X-Location-Id": str(b)})  # not theirs
        assert "/probe" not in paths(boss, {"X-Location-Id": "x"})
        user = s.login("lu@example.test", "user-pass-123")
        assert "/probe" not in paths(user, {"X-Location-Id": str(a)})
        staff = s.login("staff@example.test", "user-pass-123")
        assert "/probe" not in paths(staff, {"X-Location-Id": str(a)})
        assert paths(admin) == ["/contacts", "/contacts/:id", "/contacts/fields", "/contacts/tags", "/probe",
                                "/system", "/settings"]


def test_a_disabled_module_leaves_no_page():
    for enabled, want in (("yes", ["/contacts", "/contacts/:id", "/contacts/fields", "/contacts/tags", "/system",
                                   "/settings"]),
                          ("no", ["/system", "/settings"])):
        with started(Server(modules=("contacts",),
                            plugins={"contacts": "enabled = %s\n" % enabled})) as s:
            assert paths(s.login(*ADMIN)) == want, enabled


def test_pages_need_a_session():
    with Server(modules=("contacts",)).start() as s:
        r = s.get("/api/pages")
        assert r.status == 401 and r.error_code() == "unauthorized"


def test_a_module_with_a_bad_page_is_refused_naming_it():
    with Server(modules=("contacts", "probe_bad_page")) as s:
        line = s.refusal()
        assert re.match(r"error: .*/probe_bad_page\.so: refused: init failed: page 2"
                        r" \(/probe_bad_page/:id\): the script must be a file name", line), line


def test_scripts_are_named_as_the_manifests_say():
    s = WebServer(modules=REPORTS)
    s.write("index.html", INDEX)
    s.write("manifest.json", json.dumps({"system.js": "system.0123456789.js"}))
    s.write("system.0123456789.js", "export default function page() {}\n")
    s.write("modules/contacts/manifest.json", json.dumps({"contacts.js": "contacts.abcdef0123.js"}))
    s.write("modules/contacts/contacts.abcdef0123.js", "export default function page() {}\n")
    # A manifest that does not name the page's script: its plain name.
    s.write("modules/reports/manifest.json", json.dumps({"other.js": "other.abcdef0123.js"}))
    with started(s):
        admin = s.login(*ADMIN)
        scripts = {p["path"]: p["script"] for p in pages(admin)}
        assert scripts == {"/system": "/system.0123456789.js", "/settings": "/settings.js",
                           "/contacts": "/modules/contacts/contacts.abcdef0123.js",
                           "/contacts/:id": "/modules/contacts/contacts.abcdef0123.js",
                           "/contacts/fields": "/modules/contacts/fields.js",
                           "/contacts/tags": "/modules/contacts/tags.js",
                           "/dashboard": "/modules/reports/dashboard.js",
                           "/opportunities": "/modules/opportunities/board.js",
                           "/opportunities/:id": "/modules/opportunities/board.js",
                           "/tasks": "/modules/tasks/tasks.js",
                           "/tasks/:id": "/modules/tasks/tasks.js",
                           "/conversations": "/modules/conversations/inbox.js",
                           "/conversations/:id": "/modules/conversations/inbox.js",
                           "/saved-replies": "/modules/conversations/saved-replies.js",
                           "/channels": "/modules/conversations/channels.js",
                           "/invoices": "/modules/invoices/invoices.js",
                           "/invoices/:id": "/modules/invoices/invoices.js",
                           "/reports": "/modules/reports/reports.js"}
        r = admin.get(scripts["/contacts"])
        assert r.status == 200 and r.header("cache-control") == "public, max-age=31536000, immutable"
    assert re.search(r"warning: .*/modules/reports/manifest\.json does not name dashboard\.js",
                     s.log), s.log


def test_a_manifest_naming_a_missing_file_gives_the_plain_name():
    s = WebServer(modules=("contacts",))
    s.write("modules/contacts/manifest.json", json.dumps({"contacts.js": "contacts.abcdef0123.js"}))
    s.write("manifest.json", "[not json")
    with started(s):
        scripts = {p["path"]: p["script"] for p in pages(s.login(*ADMIN))}
        assert scripts["/contacts"] == "/modules/contacts/contacts.js"
        assert scripts["/system"] == "/system.js"
    assert "contacts.abcdef0123.js for contacts.js, which the folder lacks" in s.log, s.log
    assert re.search(r"/manifest\.json: not valid JSON", s.log), s.log


def test_a_manifest_or_policy_that_is_no_file_is_not_waited_on():
    # A FIFO would block a plain open() until a writer came: the server
    # starts all the same, says what is wrong, uses the plain names and
    # keeps the default policy.
    s = WebServer(modules=("contacts",))
    s.write("index.html", INDEX)
    os.mkfifo(os.path.join(s.web, "manifest.json"))
    os.mkfifo(os.path.join(s.web, "index.html.csp"))
    with started(s):
        scripts = {p["path"]: p["script"] for p in pages(s.login(*ADMIN))}
        assert scripts["/system"] == "/system.js"
        assert csp_of(s.port, "/")[1] == DEFAULT_CSP
    assert re.search(r"warning: .*/manifest\.json: not a regular file", s.log), s.log
    assert re.search(r"warning: .*/index\.html\.csp: it cannot be read", s.log), s.log


def test_the_apps_document_maps_each_page_to_its_script_and_data():
    # Where it has the mark, for first.js to fetch a page's script and its
    # first data while /api/auth/me is on its way; its ETag names the map.
    s = WebServer(modules=REPORTS)
    end = "<p>%s</p>\n" % ("end " * 300)  # worth compressing
    s.write("index.html", "<!doctype html><title>t</title>\n<!--hl-pages-->\n" + end)
    s.write("modules/reports/manifest.json", json.dumps({"dashboard.js": "dashboard.abcdef0123.js",
                                                        "dashboard.css": "dashboard.0123abcdef.css"}))
    s.write("modules/reports/dashboard.abcdef0123.js", "export default function page() {}\n")
    s.write("modules/reports/dashboard.0123abcdef.css", "p {}\n")
    s.write("manifest.json", json.dumps({"chart.js": "chart.9876543210.js"}))
    s.write("chart.9876543210.js", "export const x = 1;\n")
    with started(s):
        for path in ("/", "/app/dashboard"):
            r = s.get(path, headers={"Accept-Encoding": "identity"})
            m = re.fullmatch(r'<!doctype html><title>t</title>\n<script type="application/json"'
                             r' id="hl-pages">(.*)</script>\n' + re.escape(end), r.body.decode())
            assert r.status == 200 and m, r.body
            got = {p["path"]: p for p in json.loads(m.group(1))}
            # chart.css is not in the manifest: its plain name (and a warning)
            assert got["/dashboard"] == {"path": "/dashboard", "data": "/api/dashboard",
                                         "script": "/modules/reports/dashboard.abcdef0123.js",
                                         "uses": ["/modules/reports/dashboard.0123abcdef.css",
                                                  "/chart.9876543210.js", "/chart.css"]}
            assert got["/contacts/:id"] == {"path": "/contacts/:id",
                                            "script": "/modules/contacts/contacts.js",
                                            "uses": ["/modules/contacts/contacts-list.js",
                                                     "/modules/contacts/contacts-select.js"]}
            assert set(got) == {"/dashboard", "/contacts", "/contacts/:id", "/contacts/fields", "/contacts/tags",
                                "/conversations", "/conversations/:id", "/saved-replies", "/opportunities", "/opportunities/:id",
                                "/tasks", "/tasks/:id", "/invoices", "/invoices/:id", "/reports", "/system",
                                "/channels", "/settings"}
            etag = r.header("etag")
            assert re.fullmatch(r'"[0-9a-f]+-[0-9a-f]+-m[0-9a-f]+"', etag), etag
            assert s.get(path, headers={"Accept-Encoding": "identity",
                                        "If-None-Match": etag}).status == 304
            assert s.get(path, headers={"Accept-Encoding": "identity",
                                        "If-None-Match": etag[:-1].rsplit("-m", 1)[0] + '"'}).status == 200
        r = s.get("/app/dashboard", headers={"Accept-Encoding": "br"})
        assert r.header("content-encoding") == "br" and r.header("etag").endswith('-br"')
    assert re.search(r"manifest\.json does not name chart\.css, a file used by page /dashboard of"
                     r" reports", s.log), s.log


def test_a_visitor_with_a_session_cookie_gets_the_shells_links_live():
    # The template's links are inert for a signed-out visitor (nothing of
    # the shell fetched on the way to the login form) and live for one who
    # carries a session cookie, valid or not: two documents, two ETags.
    s = WebServer(modules=REPORTS)
    links = '<link rel="modulepreload" href="/shell.js">\n'
    s.write("index.html", '<!doctype html><title>t</title>\n<template id="hl-signed-in">\n' + links +
            "</template>\n<!--hl-pages-->\n<p>end</p>\n")
    with started(s):
        plain = {"Accept-Encoding": "identity"}
        cookie = dict(plain, Cookie="theme=dark; hl_session=stale-or-not")
        out, signed = s.get("/app/dashboard", headers=plain), s.get("/app/dashboard", headers=cookie)
        assert out.status == signed.status == 200
        assert '<template id="hl-signed-in">\n' + links + "</template>\n" in out.body.decode()
        body = signed.body.decode()
        assert body.startswith("<!doctype html><title>t</title>\n\n" + links + "\n<script "), body
        assert "template" not in body and body.endswith("</script>\n<p>end</p>\n"), body
        assert out.header("etag") != signed.header("etag") and signed.header("etag").endswith('-s"')
        vary = [l for l in raw_headers(s.port, "/app/dashboard") if l.lower().startswith("vary:")]
        assert any("Cookie" in l for l in vary), vary
        assert s.get("/app/dashboard", headers=dict(cookie, **{"If-None-Match": signed.header("etag")})).status == 304
        assert s.get("/app/dashboard", headers=dict(plain, **{"If-None-Match": signed.header("etag")})).status == 200
        other = s.get("/app/dashboard", headers=dict(plain, Cookie="hl_sessionx=1; session=2"))
        assert "<template" in other.body.decode()


def carried(body):
    """The answers a document carries: {(path, where): parsed JSON}."""
    found = re.findall(r'<script type="application/json" class="hl-answer" data-path="([^"]*)"'
                       r'(?: data-where="([^"]*)")?>(.*?)</script>', body, re.S)
    return {(html.unescape(path), where or None): json.loads(text) for path, where, text in found}


def test_a_signed_in_page_carries_its_first_answers_and_styles():
    # What first.js would ask for next comes in the document: who is
    # signed in, the menu and the page's data for the location the address
    # names; the page's files are linked beside the shell's, their sheets
    # inline (inert, allowed by hash). Such a document is never kept.
    s = WebServer(modules=REPORTS)
    s.write("index.html", '<!doctype html><title>t</title>\n<template id="hl-signed-in">'
            '<link rel="modulepreload" href="/shell.js"><link rel="preload" as="style"'
            ' href="/shell.css"></template>\n<!--hl-pages-->\n<p>end</p>\n')
    s.write("index.html.csp", "script-src 'self' 'sha256-AAAA='; style-src 'self' 'sha256-BBBB='\n")
    s.write("shell.css", "body { margin: 0 }\n")
    s.write("chart.css", "svg { width: 100% }\n")
    s.write("modules/reports/dashboard.css", "h1 { color: red }\n")
    plain = {"Accept-Encoding": "identity"}
    with started(s):
        admin = s.login(*ADMIN)
        a = admin.post("/api/admin/locations", {"name": "<b>A</b>"}).json()["id"]
        b = admin.post("/api/admin/locations", {"name": "B"}).json()["id"]
        add_user(admin, "lu@example.test", "location_user", [a])
        r = admin.get("/app/dashboard?location=%d&period=7d" % a, headers=plain)
        body = r.body.decode()
        got = carried(body)
        assert set(got) == {("/api/auth/me", None), ("/api/pages", str(a)),
                            ("/api/dashboard?period=7d", str(a))}, body
        assert got[("/api/auth/me", None)] == admin.get("/api/auth/me").json()
        assert got[("/api/pages", str(a))] == admin.get("/api/pages", {"X-Location-Id": str(a)}).json()
        assert got[("/api/dashboard?period=7d", str(a))] == admin.get(
            "/api/dashboard?period=7d", {"X-Location-Id": str(a)}).json()
        assert "<b>" not in body and "\\u003cb>A\\u003c/b>" in body  # no name can end the element
        assert r.header("cache-control") == "no-store" and r.header("etag") is None, r.headers
        links = ('<link rel="modulepreload" href="/shell.js"><style media="not all" data-href="/shell.css">'
                 'body { margin: 0 }\n</style><link rel="modulepreload"'
                 ' href="/modules/reports/dashboard.js"><link rel="modulepreload" href="/chart.js">'
                 '<style media="not all" data-href="/modules/reports/dashboard.css">h1 { color: red }\n'
                 '</style><style media="not all" data-href="/chart.css">svg { width: 100% }\n</style>')
        assert body.startswith("<!doctype html><title>t</title>\n" + links + "\n"), body
        style = directives(r.header("content-security-policy"))["style-src"].split()
        assert style[:2] == ["'self'", "'sha256-BBBB='"] and len(style) == 5, style
        for sheet in (b"body { margin: 0 }\n", b"svg { width: 100% }\n", b"h1 { color: red }\n"):
            digest = base64.b64encode(hashlib.sha256(sheet).digest()).decode()
            assert "'sha256-%s'" % digest in style, (sheet, style)
        # A query of two: its '&' written as HTML wants it in an attribute.
        r = admin.get("/app/dashboard?period=7d&location=%d&lt_x=1" % a, headers=plain)
        assert 'data-path="/api/dashboard?period=7d&amp;lt_x=1"' in r.body.decode(), r.body
        # A document asked for with a body: it is not read for the answers inside.
        r = admin.request("GET", "/app/dashboard?location=%d" % a, body=b'{"x": 1}',
                          headers=dict(plain, **{"Content-Type": "text/plain"}))
        assert r.status == 200 and len(carried(r.body.decode())) == 3, r.body
        assert admin.get("/api/auth/me").status == 200
        # Without a location in the address: who is signed in, no more.
        assert set(carried(admin.get("/app/dashboard", headers=plain).body.decode())) == {
            ("/api/auth/me", None)}
        # A location the caller may not open: its data is a 404, not carried
        # (the menu is what /api/pages answers them, as on its own).
        user = s.login("lu@example.test", "user-pass-123")
        assert user.get("/api/dashboard", {"X-Location-Id": str(b)}).status == 404
        assert set(carried(user.get("/app/dashboard?location=%d" % b, headers=plain).body.decode())) == {
            ("/api/auth/me", None), ("/api/pages", str(b))}
        # A query first.js would write otherwise: no data for it.
        assert set(carried(user.get("/app/dashboard?location=%d&q=a%%20b" % a, headers=plain)
                           .body.decode())) == {("/api/auth/me", None), ("/api/pages", str(a))}
        # A stale cookie or none: the shared document, nothing carried.
        for cookie in ("hl_session=stale", None):
            r = s.get("/app/dashboard?location=%d" % a, headers=dict(plain, **({"Cookie": cookie} if cookie else {})))
            assert not carried(r.body.decode()) and r.header("etag") and r.header("cache-control") == "no-cache"
        # A session the answers inside renew is renewed for the browser too.
        s.accounts_sql("UPDATE sessions SET expires_at = strftime('%s','now') + 60,"
                       " renewed_at = strftime('%s','now') - 7200")
        r = admin.get("/app/dashboard", headers=plain)
        assert carried(r.body.decode()) and "Max-Age=%d" % (14 * 86400) in (r.header("set-cookie") or ""), r.headers
        # The sign-in page's document is the shared one even signed in.
        r = admin.get("/", headers=plain)
        assert not carried(r.body.decode()) and "data-href" not in r.body.decode()


def raw_headers(port, path):
    """The header lines of a GET, as sent: a dict would fold repeated ones."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = c.recv(65536)
            if not chunk:
                break
            data += chunk
    head = data.split(b"\r\n\r\n")[0].decode()
    return head.split("\r\n")


def csp_of(port, path):
    lines = raw_headers(port, path)
    found = [l.split(":", 1)[1].strip() for l in lines
             if l.lower().startswith("content-security-policy:")]
    assert len(found) == 1, lines
    return lines[0], found[0]


def directives(policy):
    return dict((d.strip().split(" ", 1) + [""])[:2] for d in policy.split(";") if d.strip())


def test_the_apps_document_allows_its_inline_parts_by_hash():
    s = WebServer(modules=("contacts",))
    s.write("index.html", INDEX)
    s.write("index.html.csp", "script-src 'self' 'sha256-AAAA='; style-src 'self' 'sha256-BBBB='\n")
    s.write("app.1a2b3c4d5e.js", "export const x = 1;\n")
    with s.start():
        for path in ("/", "/app", "/app/contacts/123", "/app/contacts/jane.doe", "/index.html"):
            status, policy = csp_of(s.port, path)
            assert " 200 " in status, (path, status)
            d = directives(policy)
            assert d["script-src"] == "'self' 'sha256-AAAA='", (path, policy)
            assert d["style-src"] == "'self' 'sha256-BBBB='", (path, policy)
            for name, value in directives(DEFAULT_CSP).items():
                assert d[name] == value, (path, name, policy)
        for path in ("/api/health", "/app.1a2b3c4d5e.js", "/missing.js"):
            assert csp_of(s.port, path)[1] == DEFAULT_CSP, path
        # A revalidation gets it too, and still one header.
        etag = s.get("/").header("etag")
        r = s.get("/", headers={"If-None-Match": etag})
        assert r.status == 304 and "sha256-AAAA=" in r.header("content-security-policy")


def test_a_csp_file_that_sets_more_is_left_out():
    s = WebServer(modules=("contacts",))
    s.write("index.html", INDEX)
    s.write("index.html.csp", "script-src 'self' 'sha256-AAAA='; default-src *\n")
    with s.start():
        assert csp_of(s.port, "/")[1] == DEFAULT_CSP
    assert re.search(r"warning: .*index\.html\.csp: only script-src and style-src may be set,"
                     r" not default-src \*;", s.log), s.log


def test_without_a_csp_file_the_document_keeps_the_default():
    s = WebServer(modules=("contacts",))
    s.write("index.html", INDEX)
    with s.start():
        assert csp_of(s.port, "/")[1] == DEFAULT_CSP
