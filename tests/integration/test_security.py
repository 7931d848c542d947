# SPDX-License-Identifier: MIT
"""What an attacker would try, against every route the running server has:
the list comes from /api/admin/routes, so routes that modules add later are
covered without editing this file."""

import re

from harness import Server

ADMIN = ("admin@example.test", "admin-pass-1")
SECRET = "secret-of-B"


def setup():
    s = Server(modules=("contacts", "probe"))
    s.create_admin(*ADMIN)
    s.start()
    admin = s.login(*ADMIN)
    a = admin.post("/api/admin/locations", {"name": "A"}).json()["id"]
    b = admin.post("/api/admin/locations", {"name": "B"}).json()["id"]
    admin.post("/api/admin/users", {"email": "a@example.test", "name": "User A", "role": "location_admin",
                                    "password": "user-a-pass", "location_ids": [a]})
    s.sql("INSERT INTO contacts (location_id, first_name) VALUES (?, ?)", b, SECRET)
    routes = admin.get("/api/admin/routes").json()["data"]
    return s, admin, a, b, routes


def call(client, route, headers=None):
    path = re.sub(r":[a-z_]+", "1", route["pattern"])
    body = None if route["method"] in ("GET", "DELETE") else {}
    headers = dict(headers or {})
    if route["method"] == "DELETE" and client.cookies:
        # As a browser sends it: past the CSRF check, to the location's.
        me = client.get("/api/auth/me")
        if me.status == 200:
            headers["X-CSRF-Token"] = me.json()["csrf_token"]
    return client.request(route["method"], path, body=body, headers=headers)


def guarded(routes):
    return [r for r in routes if r["access"] != "public"]


def test_every_route_is_listed_with_its_access():
    s, admin, a, b, routes = setup()
    with s:
        seen = {(r["method"], r["pattern"]): r for r in routes}
        assert seen[("GET", "/api/contacts")]["access"] == "user"
        assert seen[("GET", "/api/contacts")]["owner"] == "contacts"
        assert seen[("GET", "/api/health")]["access"] == "public"
        assert seen[("GET", "/api/admin/users")]["access"] == "admin"
        assert len(guarded(routes)) >= 15


def test_no_session_is_401_everywhere():
    s, admin, a, b, routes = setup()
    with s:
        anonymous = s.client()
        for route in guarded(routes):
            r = call(anonymous, route)
            assert r.status == 401, (route, r.status)
            assert SECRET.encode() not in r.body


def test_another_locations_records_are_404_never_data():
    s, admin, a, b, routes = setup()
    with s:
        user = s.login("a@example.test", "user-a-pass")
        for route in guarded(routes):
            if route["access"] == "user" and not route["needs_location"] and route["method"] != "GET":
                continue  # the caller's own account (sign-out, tokens): no location involved
            r = call(user, route, headers={"X-Location-Id": str(b)})
            assert SECRET.encode() not in r.body, route
            if route["access"] in ("agency", "admin"):
                assert r.status == 403, (route, r.status)
            elif route["needs_location"]:
                assert r.status == 404, (route, r.status)
        # and the user's own location works
        assert user.get("/api/contacts").status == 200


def test_location_user_on_agency_routes_is_403():
    s, admin, a, b, routes = setup()
    with s:
        user = s.login("a@example.test", "user-a-pass")
        for route in guarded(routes):
            if route["access"] in ("agency", "admin"):
                r = call(user, route)
                assert r.status == 403 and r.json()["error"]["code"] == "forbidden", route


def test_expired_session_and_revoked_token_are_401_everywhere():
    s, admin, a, b, routes = setup()
    with s:
        made = admin.post("/api/auth/tokens", {"name": "ci"}).json()
        token = s.client(headers={"Authorization": "Bearer " + made["token"]})
        assert token.get("/api/contacts").status == 200
        s.sql("UPDATE api_tokens SET revoked_at = 'now'")
        s.accounts_sql("UPDATE sessions SET expires_at = 1")
        for route in guarded(routes):
            for client in (admin, token):
                r = call(client, route)
                assert r.status == 401, (route, r.status)
                assert SECRET.encode() not in r.body


def test_no_cross_origin_request_is_ever_granted():
    """A page of another site may not read our answers nor send what a
    form cannot (the CSRF rule rests on it): a CORS preflight on any
    route, and on the app's files, grants nothing, and no answer carries
    an Access-Control-Allow-* header."""
    s, admin, a, b, routes = setup()
    with s:
        evil = {"Origin": "https://evil.example", "Access-Control-Request-Method": "DELETE",
                "Access-Control-Request-Headers": "x-csrf-token, content-type"}
        paths = sorted({re.sub(r":[a-z_]+", "1", r["pattern"]) for r in routes})
        for path in paths + ["/", "/app/contacts", "/index.html", "/nothing"]:
            r = s.client().request("OPTIONS", path, headers=evil)
            assert r.status in (404, 405), (path, r.status)
            granted = [h for h in r.headers if h.startswith("access-control-")]
            assert not granted, (path, granted)
            assert r.json()["error"]["code"] in ("method_not_allowed", "not_found"), path
        for path in ("/api/contacts", "/api/auth/me", "/"):
            r = admin.get(path, headers={"Origin": "https://evil.example", "X-Location-Id": str(a)})
            assert not [h for h in r.headers if h.startswith("access-control-")], path


def test_a_location_user_opens_no_location_of_another_agency():
    """A row of user_locations across agencies (the API never writes one;
    here by hand, as a bad import or a bug might) opens nothing: the
    rule is the location_users view's, agency included, for the API, the
    caller's list and the live channel alike."""
    from live_client import Refused, WebSocket
    s, admin, a, b, routes = setup()
    with s:
        hashed = s.sql("SELECT password_hash FROM users WHERE email = 'a@example.test'")[0][0]
        other = s.sql("INSERT INTO agencies (name) VALUES ('Other') RETURNING id")[0][0]
        own = s.sql("INSERT INTO locations (agency_id, name) VALUES (?, 'Theirs') RETURNING id", other)[0][0]
        user = s.sql("INSERT INTO users (agency_id, email, name, role, password_hash) VALUES"
                     " (?, 'z@example.test', 'Zed', 'location_admin', ?) RETURNING id", other, hashed)[0][0]
        s.accounts_sql("INSERT INTO user_locations (user_id, location_id) VALUES (?, ?), (?, ?)",
                       user, own, user, b)
        zed = s.login("z@example.test", "user-a-pass")
        assert [l["id"] for l in zed.get("/api/auth/me").json()["locations"]] == [own]
        r = zed.get("/api/contacts", headers={"X-Location-Id": str(b)})
        assert r.status == 404 and SECRET.encode() not in r.body, r.body
        assert zed.get("/api/contacts", headers={"X-Location-Id": str(own)}).status == 200
        for path in ("/api/live?location_id=%d" % b, "/api/live?locations=%d,%d" % (own, b)):
            try:
                WebSocket(s.port, path, client=zed)
                assert False, "listened to another agency's location: " + path
            except Refused as e:
                assert e.status == 404, (path, e.status)


def test_passwords_get_argon2id_real_work_unless_a_test_suite_asks_for_less():
    """By default a password's hash is argon2id at libsodium's interactive
    work (64 MiB, 2 passes); password_least_work, which the test suites
    set, makes cheap ones, says so at start, and either kind signs in."""
    kinds = {}
    for least in ("no", "yes"):
        s = Server(modules=(), env={"PGHL_PASSWORD_LEAST_WORK": least})
        with s:
            s.create_admin("ada@example.test", "a-long-password")
            s.start()
            s.login("ada@example.test", "a-long-password")
            s.stop()
            kinds[least] = s.sql("SELECT password_hash FROM users")[0][0]
            warned = "password_least_work = yes: new passwords get hashes made for tests" in s.log
            assert warned == (least == "yes"), s.log
    assert kinds["no"].startswith("$argon2id$v=19$m=65536,t=2,p=1$"), kinds
    assert kinds["yes"].startswith("$argon2id$v=19$m=8,t=1,p=1$"), kinds
