# SPDX-License-Identifier: MIT
"""Accounts, sessions, API tokens and tenancy, as users and attackers meet
them: who may sign in, what each role may open, and that a sub-account
never sees another's records."""

import datetime
import hashlib
import re
import subprocess
import time

from harness import Server

ADMIN = ("admin@example.test", "admin-pass-1")


def admin_server(**kw):
    """A running server with an agency admin (made before it starts: one
    process per data folder)."""
    s = Server(modules=("contacts",), **kw)
    s.create_admin(*ADMIN)
    return s.start()


def agency(**kw):
    """A server with an admin, two locations (A, B) and a user of A."""
    s = admin_server(**kw)
    admin = s.login(*ADMIN)
    a = admin.post("/api/admin/locations", {"name": "Client A"}).json()["id"]
    b = admin.post("/api/admin/locations", {"name": "Client B", "timezone": "Europe/Berlin"}).json()["id"]
    r = admin.post("/api/admin/users", {"email": "anna@example.test", "name": "Anna",
                                        "role": "location_user", "password": "anna-pass-1",
                                        "location_ids": [a]})
    assert r.status == 201, r.body
    s.sql("INSERT INTO contacts (location_id, first_name) VALUES (?, 'in A'), (?, 'in B')", a, b)
    return s, admin, a, b


def names(r):
    assert r.status == 200, r.body
    return [c["first_name"] for c in r.json()["data"]]


def test_login_sets_a_safe_cookie_and_stores_only_its_hash():
    with admin_server() as s:
        c = s.client()
        r = c.post("/api/auth/login", {"email": "ADMIN@example.test", "password": ADMIN[1]})
        assert r.status == 200
        cookie = r.header("set-cookie")
        assert re.match(r"hl_session=[A-Za-z0-9_-]{43}; Path=/; Max-Age=\d+; HttpOnly; SameSite=Lax$", cookie)
        me = r.json()
        assert me["user"]["email"] == "admin@example.test" and me["user"]["role"] == "agency_admin"
        token = c.cookies["hl_session"]
        stored = s.sql("SELECT token_hash FROM sessions")
        assert stored == [(hashlib.sha256(token.encode()).digest(),)]
        assert c.get("/api/auth/me").json()["user"]["name"] == "Ada Admin"


def test_wrong_password_and_unknown_email_get_the_same_answer():
    with admin_server() as s:
        wrong = s.post("/api/auth/login", {"email": ADMIN[0], "password": "nope-nope"})
        unknown = s.post("/api/auth/login", {"email": "ghost@example.test", "password": "nope-nope"})
        assert wrong.status == unknown.status == 401
        assert wrong.json() == unknown.json()
        assert wrong.error_code() == "invalid_credentials"
        assert "set-cookie" not in wrong.headers
        failed = s.sql("SELECT user_id FROM audit_log WHERE action = 'login.failed' ORDER BY id")
        assert failed == [(1,), (None,)]
        assert s.post("/api/auth/login", {"email": ADMIN[0]}).status == 422


def test_logout_ends_the_session():
    with admin_server() as s:
        c = s.login(*ADMIN)
        token = c.cookies["hl_session"]
        r = c.post("/api/auth/logout", b"", headers={"Content-Type": "application/json"})
        assert r.status == 204 and "Max-Age=0" in r.header("set-cookie")
        stale = s.client(headers={"Cookie": "hl_session=" + token})
        assert stale.get("/api/auth/me").status == 401
        # Without credentials, signed out is an answer, not an error.
        nobody = s.client().get("/api/auth/me")
        assert nobody.status == 200 and nobody.json() == {
            "user": None, "agency": None, "csrf_token": None, "locations": []}
        assert s.client(headers={"Authorization": "Bearer nonsense"}).get("/api/auth/me").status == 401
        assert s.sql("SELECT count(*) FROM sessions") == [(0,)]


def test_expired_session_is_401():
    with admin_server() as s:
        c = s.login(*ADMIN)
        s.accounts_sql("UPDATE sessions SET expires_at = 1")
        r = c.get("/api/auth/me")
        assert r.status == 401 and r.error_code() == "unauthorized"


def test_location_user_sees_only_their_location():
    s, admin, a, b = agency()
    with s:
        anna = s.login("anna@example.test", "anna-pass-1")
        assert names(anna.get("/api/contacts")) == ["in A"]
        r = anna.get("/api/contacts", headers={"X-Location-Id": str(b)})
        assert r.status == 404 and b"in B" not in r.body
        assert anna.get("/api/contacts?location_id=%d" % b).status == 404
        assert anna.get("/api/contacts?location_id=999").status == 404
        me = anna.get("/api/auth/me").json()
        assert [l["id"] for l in me["locations"]] == [a]


def test_people_of_a_location_by_name_for_those_who_may_open_it():
    s, admin, a, b = agency()
    with s:
        r = admin.post("/api/admin/users", {"email": "bea@example.test", "name": "Bea",
                                            "role": "location_admin", "password": "bea-pass-12",
                                            "location_ids": [b]})
        assert r.status == 201, r.body
        anna = s.login("anna@example.test", "anna-pass-1")
        people = anna.get("/api/users").json()["data"]
        assert [(p["name"], p["role"]) for p in people] == [
            ("Ada Admin", "agency_admin"), ("Anna", "location_user")]
        assert all(set(p) == {"id", "name", "role"} for p in people)  # no e-mail
        names_b = [p["name"] for p in admin.get("/api/users?location_id=%d" % b).json()["data"]]
        assert names_b == ["Ada Admin", "Bea"]
        assert anna.get("/api/users?location_id=%d" % b).status == 404
        assert s.get("/api/users").status == 401
        admin.patch("/api/admin/users/2", {"disabled": True})
        assert [p["name"] for p in admin.get("/api/users?location_id=%d" % a).json()["data"]] == ["Ada Admin"]


def test_agency_staff_choose_the_location_per_request():
    s, admin, a, b = agency()
    with s:
        assert names(admin.get("/api/contacts")) == ["in A"]  # the first location
        assert names(admin.get("/api/contacts", headers={"X-Location-Id": str(b)})) == ["in B"]
        assert names(admin.get("/api/contacts?location_id=%d" % b)) == ["in B"]
        r = admin.get("/api/contacts", headers={"X-Location-Id": "abc"})
        assert r.status == 400 and r.error_code() == "bad_request"


def test_roles_are_enforced():
    s, admin, a, b = agency()
    with s:
        anna = s.login("anna@example.test", "anna-pass-1")
        for method, path in (("GET", "/api/admin/users"), ("POST", "/api/admin/locations")):
            r = anna.request(method, path, body={"name": "x"} if method == "POST" else None)
            assert r.status == 403 and r.error_code() == "forbidden", path
            assert s.request(method, path, body={"name": "x"} if method == "POST" else None).status == 401
        assert s.sql("SELECT count(*) FROM locations") == [(2,)]


def test_disabled_location_is_closed():
    s, admin, a, b = agency()
    with s:
        anna = s.login("anna@example.test", "anna-pass-1")
        assert admin.patch("/api/admin/locations/%d" % a, {"disabled": True}).status == 200
        r = anna.get("/api/contacts")
        assert r.status == 404 and r.error_code() == "no_location"
        assert names(admin.get("/api/contacts")) == ["in B"]


def test_api_token_scoped_to_a_location():
    s, admin, a, b = agency()
    with s:
        r = admin.post("/api/auth/tokens", {"name": "phone", "location_id": a})
        assert r.status == 201
        token = r.json()["token"]
        assert token.startswith("hlt_")
        bearer = s.client(headers={"Authorization": "Bearer " + token})
        assert names(bearer.get("/api/contacts")) == ["in A"]
        assert bearer.get("/api/contacts", headers={"X-Location-Id": str(b)}).status == 404
        listed = admin.get("/api/auth/tokens").json()["data"]
        assert [t["name"] for t in listed] == ["phone"] and "token" not in listed[0]
        assert s.sql("SELECT count(*) FROM api_tokens WHERE token_hash = ?",
                     hashlib.sha256(token.encode()).digest()) == [(1,)]
        csrf = {"X-CSRF-Token": admin.get("/api/auth/me").json()["csrf_token"]}
        assert admin.delete("/api/auth/tokens/%d" % r.json()["id"], headers=csrf).status == 204
        r = bearer.get("/api/contacts")
        assert r.status == 401 and r.error_code() == "unauthorized"
        actions = [a for (a,) in s.sql("SELECT action FROM audit_log WHERE entity = 'api_token'")]
        assert actions == ["token.created", "token.revoked"]


def test_expired_and_foreign_tokens_are_refused():
    s, admin, a, b = agency()
    with s:
        anna = s.login("anna@example.test", "anna-pass-1")
        assert anna.post("/api/auth/tokens", {"name": "x", "location_id": b}).status == 404
        made = anna.post("/api/auth/tokens", {"name": "x", "expires_days": 1}).json()
        # Its end is a time as every other is: a day from now (it was
        # answered in seconds, which the page read as milliseconds: 1970).
        ends = datetime.datetime.strptime(made["expires_at"], "%Y-%m-%dT%H:%M:%SZ")
        left = ends.replace(tzinfo=datetime.timezone.utc).timestamp() - time.time()
        assert 86400 - 120 < left <= 86400, made
        assert [t["expires_at"] for t in anna.get("/api/auth/tokens").json()["data"]] == \
            [made["expires_at"]]
        token = made["token"]
        bearer = s.client(headers={"Authorization": "Bearer " + token})
        assert names(bearer.get("/api/contacts")) == ["in A"]
        s.accounts_sql("UPDATE api_tokens SET expires_at = 1")
        assert bearer.get("/api/contacts").status == 401
        garbage = s.client(headers={"Authorization": "Bearer hlt_not-a-token"})
        assert garbage.get("/api/contacts").status == 401
        assert garbage.get("/api/health").status == 200  # public routes ignore it


def test_disabling_a_user_signs_them_out():
    s, admin, a, b = agency()
    with s:
        anna = s.login("anna@example.test", "anna-pass-1")
        r = admin.patch("/api/admin/users/2", {"disabled": True})
        assert r.status == 200 and r.json()["disabled_at"]
        assert anna.get("/api/contacts").status == 401
        r = s.post("/api/auth/login", {"email": "anna@example.test", "password": "anna-pass-1"})
        assert r.status == 401
        assert admin.patch("/api/admin/users/1", {"disabled": True}).status == 422  # not yourself


def test_password_reset_ends_old_sessions():
    s, admin, a, b = agency()
    with s:
        anna = s.login("anna@example.test", "anna-pass-1")
        assert admin.post("/api/admin/users/2/password", {"password": "short"}).status == 422
        assert admin.post("/api/admin/users/2/password", {"password": "new-anna-pass"}).status == 204
        assert anna.get("/api/contacts").status == 401
        s.login("anna@example.test", "new-anna-pass")


def test_a_user_changes_their_own_password_and_their_other_sessions_end():
    s, admin, a, b = agency(env={"PGHL_LOGIN_ATTEMPTS": "3"})
    with s:
        here = s.login("anna@example.test", "anna-pass-1", headers={"User-Agent": "Laptop browser"})
        there = s.login("anna@example.test", "anna-pass-1", headers={"User-Agent": "Phone browser"})
        path = "/api/auth/password"
        for body, member in (({"current_password": "anna-pass-1", "new_password": "short"}, "new_password"),
                             ({"new_password": "a-new-pass-1"}, "current_password"),
                             ({"current_password": "anna-pass-1", "new_password": "a-new-pass-1", "x": 1}, "x")):
            r = here.post(path, body)
            assert r.status == 422 and r.json()["error"]["message"].startswith(member), r.body
        r = here.post(path, {"current_password": "not-it-1", "new_password": "a-new-pass-1"})
        assert r.status == 422 and r.json()["error"]["message"] == "current_password: not your current password"
        assert s.sql("SELECT count(*) FROM audit_log WHERE action = 'password.change_failed'")[0][0] == 1
        assert there.get("/api/contacts").status == 200  # nothing changed
        assert here.post(path, {"current_password": "anna-pass-1", "new_password": "a-new-pass-1"}).status == 204
        assert here.get("/api/contacts").status == 200  # this one stays signed in
        assert there.get("/api/contacts").status == 401  # the other is signed out
        assert s.post("/api/auth/login", {"email": "anna@example.test", "password": "anna-pass-1"}).status == 401
        s.login("anna@example.test", "a-new-pass-1")
        assert s.sql("SELECT count(*) FROM audit_log WHERE action = 'password.changed'")[0][0] == 1
        # Guesses of the current password count as failed sign-ins.
        # (one wrong above, one sign-in with the old password: the third is the last)
        assert here.post(path, {"current_password": "guess-1234", "new_password": "b-new-pass-1"}).status == 422
        r = here.post(path, {"current_password": "a-new-pass-1", "new_password": "b-new-pass-1"})
        assert r.status == 429, r.body
        # An API token cannot change it.
        token = admin.post("/api/auth/tokens", {"name": "script"}).json()["token"]
        bearer = s.client({"Authorization": "Bearer " + token})
        assert bearer.post(path, {"current_password": ADMIN[1], "new_password": "c-new-pass-1"}).status == 403


def csrf(client):
    return {"X-CSRF-Token": client.get("/api/auth/me").json()["csrf_token"]}


def test_a_user_lists_their_sessions_and_signs_one_or_the_others_out():
    s, admin, a, b = agency()
    with s:
        laptop = s.login("anna@example.test", "anna-pass-1", headers={"User-Agent": "Laptop browser"})
        phone = s.login("anna@example.test", "anna-pass-1", headers={"User-Agent": "Phone browser"})
        tablet = s.login("anna@example.test", "anna-pass-1", headers={"User-Agent": "Tablet " + "x" * 300})
        r = laptop.get("/api/auth/sessions")
        assert r.status == 200, r.body
        rows = r.json()["data"]
        assert len(rows) == 3 and set(rows[0]) == {"id", "current", "client", "user_agent", "created_at",
                                                   "active_at", "expires_at"}
        assert [x["current"] for x in rows] == [True, False, False]
        assert rows[0]["user_agent"] == "Laptop browser" and rows[0]["client"] == "127.0.0.1"
        assert {x["user_agent"][:6] for x in rows[1:]} == {"Phone ", "Tablet"}
        assert max(len(x["user_agent"]) for x in rows) == 200
        assert all(re.fullmatch(r"[0-9a-f]{16}", x["id"]) for x in rows)
        # Another user's list holds none of them, nor can they end one.
        others = admin.get("/api/auth/sessions").json()["data"]
        assert not {x["id"] for x in others} & {x["id"] for x in rows}
        phone_id = next(x["id"] for x in rows if x["user_agent"] == "Phone browser")
        r = admin.delete("/api/auth/sessions/" + phone_id, headers=csrf(admin))
        assert r.status == 404, r.body
        assert phone.get("/api/contacts").status == 200
        for bad in ("nothex", "ABCDEF0123456789", phone_id + "00"):
            assert laptop.delete("/api/auth/sessions/" + bad, headers=csrf(laptop)).status == 404
        assert laptop.delete("/api/auth/sessions/" + phone_id, headers=csrf(laptop)).status == 204
        assert phone.get("/api/contacts").status == 401
        assert laptop.delete("/api/auth/sessions/" + phone_id, headers=csrf(laptop)).status == 404
        assert len(laptop.get("/api/auth/sessions").json()["data"]) == 2
        assert laptop.delete("/api/auth/sessions", headers=csrf(laptop)).status == 204  # every other one
        assert tablet.get("/api/contacts").status == 401
        assert [x["current"] for x in laptop.get("/api/auth/sessions").json()["data"]] == [True]
        # Not for an API token: it neither sees them nor signs them out.
        token = laptop.post("/api/auth/tokens", {"name": "script"}, headers=csrf(laptop)).json()["token"]
        bearer = s.client({"Authorization": "Bearer " + token})
        assert bearer.get("/api/auth/sessions").status == 403
        assert bearer.delete("/api/auth/sessions").status == 403
        assert bearer.delete("/api/auth/sessions/" + laptop.get("/api/auth/sessions").json()["data"][0]["id"]).status == 403
        assert len(laptop.get("/api/auth/sessions").json()["data"]) == 1
        # Its own: a sign-out, the cookie cleared.
        me = laptop.get("/api/auth/sessions").json()["data"][0]["id"]
        r = laptop.delete("/api/auth/sessions/" + me, headers=csrf(laptop))
        assert r.status == 204 and "Max-Age=0" in r.header("set-cookie"), r.headers
        assert laptop.get("/api/contacts").status == 401


def test_the_agency_sets_its_name_and_what_new_sub_accounts_start_with():
    s, admin, a, b = agency()
    with s:
        got = admin.get("/api/admin/agency").json()
        assert (got["timezone"], got["currency"], got["country"]) == ("UTC", "USD", "US")
        for body, words in (({"timezone": "Mars/Olympus"}, "timezone:"), ({"currency": "EURO"}, "currency"),
                            ({"country": "XX"}, "country:"), ({"name": ""}, "name:"), ({"logo": 1}, "logo")):
            r = admin.patch("/api/admin/agency", body)
            assert r.status == 422 and words in r.json()["error"]["message"], (body, r.body)
        r = admin.patch("/api/admin/agency", {"name": "Ruiz & Co.", "timezone": "Europe/Berlin",
                                              "currency": "EUR", "country": "DE"})
        assert r.status == 200, r.body
        assert (r.json()["name"], r.json()["currency"]) == ("Ruiz & Co.", "EUR")
        assert admin.get("/api/auth/me").json()["agency"]["name"] == "Ruiz & Co."
        made = admin.post("/api/admin/locations", {"name": "Client C"}).json()
        assert (made["timezone"], made["currency"], made["country"]) == ("Europe/Berlin", "EUR", "DE")
        own = admin.post("/api/admin/locations", {"name": "Client D", "currency": "GBP"}).json()
        assert (own["timezone"], own["currency"]) == ("Europe/Berlin", "GBP")
        # The sub-accounts there were keep their own.
        assert s.sql("SELECT currency FROM locations WHERE id = ?", a) == [("USD",)]
        anna = s.login("anna@example.test", "anna-pass-1")
        assert anna.get("/api/admin/agency").status == 403
        assert anna.patch("/api/admin/agency", {"name": "Mine"}, headers=csrf(anna)).status == 403
        entry = admin.get("/api/admin/audit?limit=1&action=agency.updated").json()["data"][0]
        assert (entry["did"], entry["kind"], entry["label"]) == ("changed", "agency", "Ruiz & Co.")


def test_user_management_validates_input():
    s, admin, a, b = agency()
    with s:
        base = {"email": "bob@example.test", "name": "Bob", "role": "location_admin",
                "password": "bob-pass-12"}
        for change, status in (({"email": "not-an-email"}, 422), ({"role": "king"}, 422),
                               ({"password": "short"}, 422), ({"location_ids": [99]}, 422),
                               ({"location_ids": "1"}, 422), ({"email": "anna@example.test"}, 409)):
            r = admin.post("/api/admin/users", dict(base, **change))
            assert r.status == status, (change, r.body)
        assert s.sql("SELECT count(*) FROM users") == [(2,)]  # nothing half-written
        r = admin.post("/api/admin/users", dict(base, location_ids=[a, b, a]))
        assert r.status == 201 and r.json()["location_ids"] == [a, b]
        r = admin.patch("/api/admin/users/%d" % r.json()["id"], {"location_ids": [b], "assigned_only": True})
        assert r.json()["location_ids"] == [b] and r.json()["assigned_only"] is True
        assert admin.patch("/api/admin/users/999", {"name": "x"}).status == 404


def test_an_unknown_member_is_422_naming_it_and_changes_nothing():
    s, admin, a, b = agency()
    with s:
        anna = s.sql("SELECT id FROM users WHERE email = 'anna@example.test'")[0][0]
        before = s.sql("SELECT name, role, assigned_only, disabled_at FROM users ORDER BY id")
        places = s.sql("SELECT name, timezone FROM locations ORDER BY id")
        cases = (
            ("PATCH", "/api/admin/users/%d" % anna, {"nmae": "Typo", "role": "location_admin"}),
            ("PATCH", "/api/admin/users/%d" % anna, {"assigned": True}),
            ("POST", "/api/admin/users", {"email": "c@example.test", "name": "C", "password": "c-pass-123",
                                          "role": "location_user", "locations": [a]}),
            ("POST", "/api/admin/users/%d/password" % anna, {"password": "new-pass-123", "x": 1}),
            ("POST", "/api/admin/locations", {"name": "New", "time_zone": "UTC"}),
            ("PATCH", "/api/admin/locations/%d" % a, {"name": "Renamed", "disable": True}),
            ("POST", "/api/auth/tokens", {"name": "ci", "expires": 3}),
        )
        for method, path, body in cases:
            r = admin.request(method, path, body=body)
            unknown = [k for k in body if k not in ("name", "role", "email", "password")][0]
            assert r.status == 422 and unknown in r.json()["error"]["message"], (path, r.body)
        assert s.sql("SELECT name, role, assigned_only, disabled_at FROM users ORDER BY id") == before
        assert s.sql("SELECT name, timezone FROM locations ORDER BY id") == places
        assert s.sql("SELECT count(*) FROM api_tokens") == [(0,)]
        assert s.login("anna@example.test", "anna-pass-1")  # the password stayed


def test_secure_cookie_only_behind_a_trusted_proxy():
    with admin_server(env={"PGHL_TRUSTED_PROXIES": "127.0.0.1"}) as s:
        body = {"email": ADMIN[0], "password": ADMIN[1]}
        r = s.post("/api/auth/login", body, headers={"X-Forwarded-Proto": "https"})
        assert r.header("set-cookie").endswith("; Secure")
    with admin_server() as s:
        r = s.post("/api/auth/login", {"email": ADMIN[0], "password": ADMIN[1]},
                   headers={"X-Forwarded-Proto": "https"})
        assert not r.header("set-cookie").endswith("; Secure")


def test_create_admin_refuses_bad_input_in_one_line():
    with Server(modules=("contacts",)) as s:
        p = subprocess.run(s.args("create-admin") + ["admin@example.test", "Ada"], input="short\n",
                           capture_output=True, text=True, timeout=120)
        errors = [l for l in p.stderr.splitlines() if l.startswith("error: ")]
        assert p.returncode == 2 and len(errors) == 1 and "at least 8 characters" in errors[0]
        s.create_admin(*ADMIN)
        p = subprocess.run(s.args("create-admin") + [ADMIN[0], "Ada"], input=ADMIN[1] + "\n",
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 1 and "exists" in p.stderr


def test_cookie_requests_that_change_things_need_json_or_the_csrf_token():
    with admin_server() as s:
        c = s.login(*ADMIN)
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        r = c.post("/api/auth/logout", b"a=1", headers=form)
        assert r.status == 403 and r.error_code() == "csrf"
        r = c.post("/api/auth/logout", b"a=1", headers=dict(form, **{"X-CSRF-Token": "0" * 32}))
        assert r.status == 403
        token = c.get("/api/auth/me").json()["csrf_token"]
        assert re.fullmatch(r"[0-9a-f]{32}", token)
        assert c.post("/api/auth/logout", b"").status == 403  # no type, no token
        r = c.post("/api/auth/logout", b"", headers={"X-CSRF-Token": token})
        assert r.status == 204


def test_module_writes_are_audited_with_the_caller():
    s = Server(modules=("contacts", "probe"))
    s.create_admin(*ADMIN)
    with s.start():
        admin = s.login(*ADMIN)
        item = admin.post("/api/probe/items", {"name": "audited"}).json()
        assert admin.post("/api/probe/items", {"name": "undone", "then_fail": True}).status == 422
        page = admin.get("/api/admin/audit?limit=1").json()
        assert len(page["data"]) == 1 and page["next_cursor"]
        first = page["data"][0]
        assert (first["action"], first["entity"], first["entity_id"], first["user_id"]) == \
            ("insert", "item", item["id"], 1)
        rest = admin.get("/api/admin/audit?cursor=" + page["next_cursor"]).json()["data"]
        assert [e["action"] for e in rest] == ["login", "user.created"]
        assert rest[1]["client"] == "command line"
        assert s.sql("SELECT count(*) FROM audit_log WHERE entity = 'item'") == [(1,)]
        # filtered by person, action and kind of record
        actions = lambda q: [e["action"] for e in admin.get("/api/admin/audit?" + q).json()["data"]]
        assert actions("action=login") == ["login"], admin.get("/api/admin/audit?action=login").body
        assert actions("entity=item") == ["insert"]
        assert actions("user=1&action=insert") == ["insert"]
        assert actions("user=999") == []
        assert actions("location=999") == []
        assert actions("action=login&location_id=999") == ["login"]  # not the current one's
        assert admin.get("/api/admin/audit?user=x").status == 400


def read(entries):
    """Each entry as the page reads it: who, did, kind, label."""
    return [(e["who"], e["did"], e["kind"], e["label"]) for e in entries]


def test_the_audit_log_names_records_as_people_know_them():
    s = Server(modules=("contacts", "probe"))
    s.create_admin(*ADMIN)
    with s.start():
        admin = s.login(*ADMIN)
        loc = admin.post("/api/admin/locations", {"name": "Quarry Yoga"}).json()["id"]
        item = admin.post("/api/probe/items", {"name": "Blue kettle"}).json()
        assert admin.delete("/api/probe/items/%d" % item["id"]).status == 204
        log = admin.get("/api/admin/audit").json()["data"]
        # The deleted item keeps its name; the trigger's count is not noted;
        # no raw table name is left in what a person reads.
        assert read(log) == [
            ("Ada Admin", "deleted", "item", "Blue kettle"),
            ("Ada Admin", "created", "item", "Blue kettle"),
            ("Ada Admin", "created", "sub-account", "Quarry Yoga"),
            ("Ada Admin", "signed in", None, None),
            ("Ada Admin", "created", "person", "Ada Admin")], log
        assert s.sql("SELECT n FROM probe_item_counts") == [(1,)]
        assert not any("probe_" in str(v) for e in log for v in e.values())
        # The name was read then: renaming the sub-account leaves it.
        r = admin.patch("/api/admin/locations/%d" % loc, {"name": "Quarry Yoga Dover"},
                        {"X-Location-Id": str(loc)})
        assert r.status == 200, r.body
        log = admin.get("/api/admin/audit?entity=sub-account").json()["data"]
        assert [(e["did"], e["label"]) for e in log] == \
            [("changed", "Quarry Yoga Dover"), ("created", "Quarry Yoga")]
        # The filters are lists: actions and kinds as read, people, sub-accounts.
        choices = admin.get("/api/admin/audit/choices").json()
        names = lambda k: [c["name"] for c in choices[k]]
        assert {"created", "changed", "deleted", "signed in"} <= set(names("actions"))
        assert "" not in names("actions") and len(set(names("actions"))) == len(names("actions"))
        assert [e["action"] for e in admin.get("/api/admin/audit?action=created").json()["data"]] \
            == ["insert", "location.created", "user.created"]
        assert {"item", "person", "sub-account", "API token"} <= set(names("kinds"))
        assert not any("_" in k for k in names("kinds"))
        assert choices["people"] == [{"id": 1, "name": "Ada Admin"}]
        assert choices["locations"] == [{"id": loc, "name": "Quarry Yoga Dover"}]
        assert read(admin.get("/api/admin/audit?action=deleted").json()["data"]) == \
            [("Ada Admin", "deleted", "item", "Blue kettle")]
        assert [e["label"] for e in admin.get("/api/admin/audit?entity=item").json()["data"]] == \
            ["Blue kettle", "Blue kettle"]
        assert admin.get("/api/admin/audit/choices", headers={}).status == 200


def test_old_audit_entries_still_read_sensibly():
    s = Server(modules=("contacts", "probe"))
    s.create_admin(*ADMIN)
    with s.start():
        admin = s.login(*ADMIN)
        item = admin.post("/api/probe/items", {"name": "Old kettle"}).json()
        # As entries were written before labels: the table, no name.
        s.accounts_sql("UPDATE audit_log SET label = NULL")
        s.accounts_sql("UPDATE audit_log SET entity = 'probe_items' WHERE entity = 'item'")
        s.accounts_sql("INSERT INTO audit_log (agency_id, user_id, action, entity, entity_id)"
                       " VALUES (1, 1, 'update', 'unpaid_counts', 11)")
        log = admin.get("/api/admin/audit").json()["data"]
        assert read(log) == [
            ("Ada Admin", "changed", "unpaid counts", None),
            ("Ada Admin", "created", "item", None),
            ("Ada Admin", "signed in", None, None),
            ("Ada Admin", "created", "person", "Ada Admin")], log
        assert log[1]["entity_id"] == item["id"]
        assert [e["entity_id"] for e in admin.get("/api/admin/audit?entity=item").json()["data"]] \
            == [item["id"]]


def test_failed_sign_ins_are_limited_per_account():
    with admin_server(env={"PGHL_LOGIN_ATTEMPTS": "3"}) as s:
        wrong = {"email": ADMIN[0], "password": "wrong-pass"}
        for _ in range(3):
            assert s.post("/api/auth/login", wrong).status == 401
        r = s.post("/api/auth/login", {"email": ADMIN[0].upper(), "password": ADMIN[1]})
        assert r.status == 429 and r.error_code() == "rate_limited"
        assert 0 < int(r.header("retry-after")) <= 900
        r = s.post("/api/auth/login", {"email": "someone@example.test", "password": "x" * 8})
        assert r.status == 401  # another account is not blocked


def test_api_requests_are_limited_per_caller():
    env = {"PGHL_RATE_LIMIT": "5", "PGHL_RATE_LIMIT_LOOPBACK": "yes"}
    with Server(modules=("contacts", "probe"), env=env).start() as s:
        remaining = []
        r = s.get("/api/probe/hello")
        while r.status == 200 and len(remaining) < 10:
            assert r.header("ratelimit-limit") == "5"
            remaining.append(int(r.header("ratelimit-remaining")))
            r = s.get("/api/probe/hello")
        # start-up's health check counted too, so the page saw 4 or 5 of them
        assert remaining == list(range(remaining[0], -1, -1)) and remaining[0] >= 3
        assert r.status == 429 and r.error_code() == "rate_limited"
        assert int(r.header("retry-after")) >= 1
    with Server(modules=("contacts", "probe")).start() as s:  # loopback is free by default
        for _ in range(20):
            r = s.get("/api/probe/hello")
            assert r.status == 200 and r.header("ratelimit-limit") is None


def test_session_expiry_slides_forward_when_used():
    with admin_server() as s:
        c = s.login(*ADMIN)
        s.accounts_sql("UPDATE sessions SET expires_at = strftime('%s','now') + 60,"
                       " renewed_at = strftime('%s','now') - 7200")
        r = c.get("/api/auth/me")
        assert r.status == 200 and "Max-Age=%d" % (14 * 86400) in r.header("set-cookie")
        (left,) = s.sql("SELECT expires_at - strftime('%s','now') FROM sessions")[0]
        assert 14 * 86400 - 60 <= left <= 14 * 86400


def test_a_query_without_its_location_scope_is_refused():
    s = Server(modules=("contacts", "probe"))
    s.create_admin(*ADMIN)
    with s.start():
        admin = s.login(*ADMIN)
        admin.post("/api/admin/locations", {"name": "A"})
        r = admin.get("/api/probe/unscoped")
        assert r.status == 500 and r.error_code() == "internal"
        s.stop()
        assert "a scoped statement needs a :location parameter" in s.log


def test_a_location_token_stays_inside_its_location():
    s, admin, a, b = agency()
    with s:
        token = admin.post("/api/auth/tokens", {"name": "site", "location_id": a}).json()["token"]
        bearer = s.client(headers={"Authorization": "Bearer " + token})
        assert names(bearer.get("/api/contacts")) == ["in A"]
        for method, path, body in (("POST", "/api/auth/tokens", {"name": "wider"}),
                                   ("POST", "/api/admin/users", {"email": "x@example.test"}),
                                   ("GET", "/api/admin/users", None), ("GET", "/api/auth/me", None)):
            r = bearer.request(method, path, body=body)
            assert r.status == 403 and r.error_code() == "forbidden", path
        assert s.sql("SELECT count(*) FROM api_tokens") == [(1,)]
        assert s.sql("SELECT count(*) FROM users") == [(2,)]


def test_a_change_made_through_the_server_reaches_a_caller_it_knows_at_once():
    """The server keeps callers it read in memory (README, "Sessions"); each
    change below follows requests that put the caller there, and is seen by
    the very next request."""
    s, admin, a, b = agency()
    with s:
        anna = s.login("anna@example.test", "anna-pass-1")
        session = anna.cookies["hl_session"]
        token = anna.post("/api/auth/tokens", {"name": "phone"}).json()["token"]
        bearer = s.client(headers={"Authorization": "Bearer " + token})
        for _ in range(3):
            assert names(anna.get("/api/contacts")) == ["in A"]
            assert names(bearer.get("/api/contacts")) == ["in A"]
            assert anna.get("/api/contacts", headers={"X-Location-Id": str(b)}).status == 404
        # Her locations: B given, A taken away.
        assert admin.patch("/api/admin/users/2", {"location_ids": [b]}).status == 200
        assert names(anna.get("/api/contacts")) == ["in B"]
        assert anna.get("/api/contacts", headers={"X-Location-Id": str(a)}).status == 404
        # Her role.
        assert anna.get("/api/custom-fields").status == 200
        assert anna.post("/api/custom-fields", {"key": "k", "name": "K", "type": "text"}).status == 403
        assert admin.patch("/api/admin/users/2", {"role": "location_admin"}).status == 200
        assert anna.post("/api/custom-fields", {"key": "k", "name": "K", "type": "text"}).status == 201
        # The location closed.
        assert admin.patch("/api/admin/locations/%d" % b, {"disabled": True}).status == 200
        assert anna.get("/api/contacts").status == 404
        assert admin.patch("/api/admin/locations/%d" % b, {"disabled": False}).status == 200
        assert names(anna.get("/api/contacts")) == ["in B"]
        # The token revoked, then the session ended.
        assert names(bearer.get("/api/contacts")) == ["in B"]
        listed = anna.get("/api/auth/tokens").json()["data"]
        csrf = {"X-CSRF-Token": anna.get("/api/auth/me").json()["csrf_token"]}
        assert anna.delete("/api/auth/tokens/%d" % listed[0]["id"], headers=csrf).status == 204
        assert bearer.get("/api/contacts").status == 401
        assert anna.post("/api/auth/logout", {}).status == 204
        stale = s.client(headers={"Cookie": "hl_session=" + session})
        assert stale.get("/api/contacts").status == 401


def test_a_change_made_from_outside_takes_effect_within_a_second():
    s, admin, a, b = agency()
    with s:
        anna = s.login("anna@example.test", "anna-pass-1")
        assert names(anna.get("/api/contacts")) == ["in A"]
        s.accounts_sql("UPDATE user_locations SET location_id = ? WHERE location_id = ?", b, a)
        assert names(anna.get("/api/contacts")) == ["in B"]
        s.accounts_sql("UPDATE users SET disabled_at = 'now' WHERE email = 'anna@example.test'")
        assert anna.get("/api/contacts").status == 401


def test_tokens_do_not_make_tokens_and_logout_revokes_them():
    s, admin, a, b = agency()
    with s:
        token = admin.post("/api/auth/tokens", {"name": "cli"}).json()["token"]
        bearer = s.client(headers={"Authorization": "Bearer " + token})
        r = bearer.post("/api/auth/tokens", {"name": "child"})
        assert r.status == 403
        assert bearer.post("/api/auth/logout", {}).status == 204
        assert bearer.get("/api/contacts").status == 401
        assert admin.get("/api/contacts").status == 200  # the session is untouched


def test_password_reset_and_disable_revoke_tokens_for_good():
    s, admin, a, b = agency()
    with s:
        anna = s.login("anna@example.test", "anna-pass-1")
        token = anna.post("/api/auth/tokens", {"name": "phone"}).json()["token"]
        bearer = s.client(headers={"Authorization": "Bearer " + token})
        assert bearer.get("/api/contacts").status == 200
        assert admin.post("/api/admin/users/2/password", {"password": "new-anna-pass"}).status == 204
        assert bearer.get("/api/contacts").status == 401
        anna = s.login("anna@example.test", "new-anna-pass")
        token = anna.post("/api/auth/tokens", {"name": "phone2"}).json()["token"]
        bearer = s.client(headers={"Authorization": "Bearer " + token})
        admin.patch("/api/admin/users/2", {"disabled": True})
        admin.patch("/api/admin/users/2", {"disabled": False})
        assert bearer.get("/api/contacts").status == 401  # re-enabling revives nothing


def test_failed_sign_in_is_audited_against_the_account_tried():
    s, admin, a, b = agency()
    with s:
        anna = s.login("anna@example.test", "anna-pass-1")
        r = anna.post("/api/auth/login", {"email": ADMIN[0], "password": "guess-guess"})
        assert r.status == 401
        row = s.sql("SELECT user_id, entity_id FROM audit_log WHERE action = 'login.failed'")
        assert row == [(1, 1)]


def test_the_csrf_token_given_at_sign_in_works():
    with admin_server() as s:
        c = s.client()
        token = c.post("/api/auth/login", {"email": ADMIN[0], "password": ADMIN[1]}).json()["csrf_token"]
        assert token == c.get("/api/auth/me").json()["csrf_token"]
        assert c.post("/api/auth/logout", b"", headers={"X-CSRF-Token": token}).status == 204


def test_long_e_mails_are_counted_too():
    with admin_server(env={"PGHL_LOGIN_ATTEMPTS": "3"}) as s:
        long = "x" * 70 + "@example.test"
        statuses = [s.post("/api/auth/login", {"email": long, "password": "guess-guess"}).status
                    for _ in range(4)]
        assert statuses == [401, 401, 401, 429]


def test_a_get_request_cannot_write():
    with Server(modules=("contacts", "probe")).start() as s:
        r = s.get("/api/probe/get-writes")
        assert r.status == 500
        assert s.sql("SELECT count(*) FROM probe_items") == [(0,)]


def pipelined_sign_ins(s, emails, headers):
    """Sign in with each e-mail and a wrong password, the requests sent
    back to back on one connection (as fast as an attacker's script); the
    statuses, in order."""
    import socket
    extra = "".join("%s: %s\r\n" % kv for kv in headers.items())
    statuses = []
    with socket.create_connection(("127.0.0.1", s.port), timeout=60) as sock:
        f = sock.makefile("rb")
        for start in range(0, len(emails), 200):
            batch = emails[start:start + 200]
            out = b""
            for email in batch:
                body = ('{"email":"%s","password":"wrong-guess"}' % email).encode()
                out += ("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        "Content-Length: %d\r\n%s\r\n" % (len(body), extra)).encode() + body
            sock.sendall(out)
            for _ in batch:
                status = int(f.readline().split()[1])
                length = 0
                while True:
                    line = f.readline()
                    if line in (b"\r\n", b""):
                        break
                    name, _, value = line.decode().partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                f.read(length)
                statuses.append(status)
    return statuses


def test_failed_sign_ins_from_one_address_lock_out_no_one_else():
    # Addresses come from a trusted proxy; the API limit is off, so what
    # refuses is the sign-in limiter alone.
    env = {"PGHL_TRUSTED_PROXIES": "127.0.0.1", "PGHL_LOGIN_ATTEMPTS_PER_CLIENT": "5",
           "PGHL_LOGIN_ATTEMPTS": "3", "PGHL_RATE_LIMIT": "0"}
    with admin_server(env=env) as s:
        attacker = {"X-Forwarded-For": "203.0.113.9"}
        emails = ["nobody-%d@example.test" % i for i in range(12000)]
        statuses = pipelined_sign_ins(s, emails, attacker)
        assert statuses[:5] == [401] * 5  # then the address is over its limit
        assert set(statuses[5:]) == {429}
        # The address is rightly limited, for every account ...
        r = s.post("/api/auth/login", {"email": ADMIN[0], "password": ADMIN[1]}, headers=attacker)
        assert r.status == 429
        # ... but everyone else still signs in, and still has their own budget.
        s.login(*ADMIN, headers={"X-Forwarded-For": "198.51.100.7"})
        other = s.client({"X-Forwarded-For": "198.51.100.8"})
        for i in range(5):
            r = other.post("/api/auth/login", {"email": "ghost-%d@example.test" % i, "password": "x" * 8})
            assert r.status == 401
        # An account's own limit still holds, whatever addresses guess at it.
        for i in range(3):
            r = s.post("/api/auth/login", {"email": ADMIN[0], "password": "guess-%d" % i},
                       headers={"X-Forwarded-For": "192.0.2.%d" % (i + 1)})
            assert r.status == 401
        r = s.post("/api/auth/login", {"email": ADMIN[0], "password": ADMIN[1]},
                   headers={"X-Forwarded-For": "192.0.2.99"})
        assert r.status == 429
