# SPDX-License-Identifier: MIT
"""The live channel, GET /api/live, as WebSocket and as event stream: what
a client of a location hears (and what it never hears), resuming by
sequence number, the frames a client may not send, the Origin, a slow
client, an ended session, a full server and a server that stops.

Events come from the events_probe test module, whose route publishes what
the test sends ("assigned_to" included). To show that a client did NOT
hear something, a test publishes a marker where the client listens after
it: events reach a client in the order they were published."""

import json
import time

from harness import ADMIN, Server, agency, wait_for
from live_client import BINARY, CLOSE, PING, PONG, TEXT, EventStream, Refused, WebSocket


def live_server(locations=("Client A", "Client B"), env=None):
    return agency(modules=("events_probe",), locations=locations, env=env)


def publish(client, location, *events):
    body = {"events": [e if isinstance(e, dict) else {"name": e} for e in events], "write": False}
    r = client.post("/api/events_probe/publish", body, {"X-Location-Id": str(location)})
    assert r.status == 201 and set(r.json()["rc"]) == {0}, r.body
    return r


def ws(s, client, path="/api/live", **kw):
    return WebSocket(s.port, path, client=client, **kw)


def names(messages):
    return [m["event"] for m in messages if m.get("type") == "event"]


def test_a_location_hears_its_own_events_and_nothing_else():
    s, admin, (a, b) = live_server()
    with s:
        in_a = ws(s, admin, "/api/live?location_id=%d" % a)
        stream_a = EventStream(s.port, "/api/live?location_id=%d" % a, client=admin)
        in_b = ws(s, admin, "/api/live", headers={"X-Location-Id": str(b)})
        publish(admin, a, {"name": "thing.moved", "subject": 42, "data": '{"stage_id":7}'})
        publish(admin, b, "thing.marker")
        m = in_a.message()
        assert m["type"] == "event" and m["event"] == "thing.moved" and m["id"] == 42
        assert m["location_id"] == a and m["data"] == {"stage_id": 7} and m["seq"] > 0
        e = stream_a.message()
        assert e == m and stream_a.last_id == str(m["seq"])
        assert stream_a.head["content-type"].startswith("text/event-stream")
        # B's first event is its marker: A's never reached it.
        assert names([in_b.message()]) == ["thing.marker"]
        # Data over 4 KB is left out: the client fetches the record.
        publish(admin, a, {"name": "thing.big", "data": json.dumps({"x": "y" * 5000})})
        big = in_a.message()
        assert big["event"] == "thing.big" and big["data"] is None


def test_agency_staff_may_listen_to_several_locations_or_the_agency():
    s, admin, (a, b, c) = live_server(("A", "B", "C"))
    with s:
        two = ws(s, admin, "/api/live?locations=%d,%d" % (b, a))
        every = ws(s, admin, "/api/live?scope=agency")
        hello = two.message(skip=())
        assert hello["type"] == "hello"
        for loc, name in ((a, "thing.a"), (c, "thing.c"), (b, "thing.b")):
            publish(admin, loc, name)
        assert names([two.message(), two.message()]) == ["thing.a", "thing.b"]
        assert names([every.message() for _ in range(3)]) == ["thing.a", "thing.c", "thing.b"]
        with_bad = Refused
        try:
            ws(s, admin, "/api/live?locations=%d,9999" % a)
            assert False, "a location that is not there was accepted"
        except with_bad as e:
            assert e.status == 404 and e.json()["error"]["code"] == "not_found"


def test_assigned_only_users_hear_only_their_own_records():
    s, admin, (loc,) = live_server(("Client",))
    with s:
        ids = {}
        for email, only in (("olga@example.test", True), ("pete@example.test", False)):
            r = admin.post("/api/admin/users", {"email": email, "name": email[:4],
                                                "password": "pass-word-1", "role": "location_user",
                                                "location_ids": [loc], "assigned_only": only})
            assert r.status == 201, r.body
            ids[email] = r.json()["id"]
        olga_client = s.login("olga@example.test", "pass-word-1")
        pete_client = s.login("pete@example.test", "pass-word-1")
        olga, pete = ws(s, olga_client), ws(s, pete_client)
        publish(admin, loc,
                {"name": "thing.olgas", "assigned_to": ids["olga@example.test"]},
                {"name": "thing.petes", "assigned_to": ids["pete@example.test"]},
                {"name": "thing.nobodys"},
                {"name": "thing.everyones", "assigned_to": -1})
        assert names([olga.message(), olga.message()]) == ["thing.olgas", "thing.everyones"]
        assert names([pete.message() for _ in range(4)]) == [
            "thing.olgas", "thing.petes", "thing.nobodys", "thing.everyones"]
        # Nothing else waits for Olga.
        publish(admin, loc, {"name": "thing.marker", "assigned_to": -1})
        assert names([olga.message()]) == ["thing.marker"]
        # Nor may she listen to the whole agency.
        try:
            ws(s, olga_client, "/api/live?scope=agency")
            assert False, "scope=agency was accepted for a location user"
        except Refused as e:
            assert e.status == 403


def test_a_client_that_comes_back_gets_what_it_missed():
    s, admin, (a, b) = live_server()
    with s:
        first = ws(s, admin, "/api/live?location_id=%d" % a)
        publish(admin, a, "thing.one")
        seen = first.message()["seq"]
        first.close()
        publish(admin, a, "thing.two", "thing.three")
        publish(admin, b, "thing.elsewhere")
        back = ws(s, admin, "/api/live?location_id=%d&since=%d" % (a, seen))
        # What it missed and its hello, in the order of their numbers. The
        # hello says how far the catch-up went; what the fan-out had not
        # reached yet when the client came back follows it, so read up to
        # the hello, then to quiet.
        got = [back.message(timeout=10, skip=())]
        while got[-1]["type"] != "hello" and len(got) < 10:
            got.append(back.message(timeout=10, skip=()))
        got += back.messages_until_quiet()
        assert names(got) == ["thing.two", "thing.three"], got
        assert [m["type"] for m in got].count("hello") == 1, got
        assert [m["seq"] for m in got] == sorted(m["seq"] for m in got), got
        # An event stream comes back with the Last-Event-ID it was given,
        # newer than the since of the URL it was first opened with.
        stream = EventStream(s.port, "/api/live?location_id=%d&since=%d" % (a, seen - 1),
                             client=admin, headers={"Last-Event-ID": str(seen)})
        assert [stream.message()["event"], stream.message()["event"]] == ["thing.two", "thing.three"]
        # A number from before the server's start (or from nowhere): reload.
        old = ws(s, admin, "/api/live?location_id=%d&since=%d" % (a, seen - 10**12))
        assert old.message(skip=())["type"] == "reload"
        ahead = ws(s, admin, "/api/live?location_id=%d&since=%d" % (a, seen + 10**6))
        assert ahead.message(skip=())["type"] == "reload"
        try:
            ws(s, admin, "/api/live?since=yesterday")
            assert False, "a bad since was accepted"
        except Refused as e:
            assert e.status == 400 and e.json()["error"]["code"] == "bad_request"


def test_frames_a_client_may_not_send_close_the_socket_with_a_reason():
    s, admin, (a, _) = live_server()
    with s:
        c = ws(s, admin)
        assert c.message(skip=())["type"] == "hello"
        c.send(PING, b"are you there")
        assert c.frame() == (PONG, b"are you there")
        cases = (
            (lambda w: w.send(TEXT, "hello", mask=False), 1002),      # clients must mask
            (lambda w: w.sock.sendall(bytes([0xC1, 0x80]) + b"\0\0\0\0"), 1002),  # reserved bit
            (lambda w: w.sock.sendall(bytes([0x83, 0x80]) + b"\0\0\0\0"), 1002),  # opcode 3
            (lambda w: w.send(PING, b"x" * 126), 1002),               # control frame too long
            (lambda w: w.send(TEXT, "x" * 70000), 1009),              # oversized
            (lambda w: w.send(BINARY, b"\x00\x01"), 1003),            # binary
            (lambda w: w.send(TEXT, '{"subscribe": 1}'), 1003),       # this stream only sends
            (lambda w: w.send(CLOSE, b"\x03\xe8bye"), 1000),          # echoed
            (lambda w: w.send(CLOSE, b"\x03\xed"), 1002),             # 1005 is never sent
            (lambda w: w.send(CLOSE, b"\x03"), 1002),                  # half a code
            (lambda w: w.send(0x0, b"more"), 1002),                   # continuing no message
            (lambda w: w.send(0x0, b"more", fin=False), 1002),
        )
        for send, code in cases:
            w = ws(s, admin)
            assert w.message(skip=())["type"] == "hello"
            send(w)
            assert w.close_code() == code, (code, w.closed)
            assert w.at_end()
        # The server still serves.
        assert admin.get("/api/health").status == 200


def test_a_websocket_asked_for_elsewhere_is_a_json_404():
    s, admin, (a, _) = live_server()
    with s:
        for path in ("/api/health", "/api/contacts", "/", "/app/contacts", "/api/live/x", "/nothing"):
            try:
                ws(s, admin, path)
                assert False, "a WebSocket was opened at " + path
            except Refused as e:
                assert e.status == 404 and e.json()["error"]["code"] == "not_found", (path, e)
                assert "/api/live" in e.json()["error"]["message"] or path == "/api/live/x", path
        assert ws(s, admin).message(skip=())["type"] == "hello"


def test_requests_that_may_not_listen_are_refused_with_the_error_format():
    s, admin, (a, _) = live_server()
    with s:
        cases = (
            (dict(client=admin, headers={"Origin": "https://evil.example"}), 403, "wrong_origin"),
            (dict(client=admin, headers={"Origin": "null"}), 403, "wrong_origin"),
            (dict(client=None), 401, "unauthorized"),
            (dict(client=admin, path="/api/live?scope=everything"), 400, "bad_request"),
            (dict(client=admin, path="/api/live?location_id=999"), 404, "not_found"),
            (dict(client=admin, headers={"Sec-WebSocket-Key": "c2hvcnQ="}), 400, "bad_request"),
        )
        for kw, status, code in cases:
            for open_stream in (WebSocket, EventStream):
                if "Sec-WebSocket-Key" in kw.get("headers", {}) and open_stream is EventStream:
                    continue
                try:
                    open_stream(s.port, **kw)
                    assert False, "accepted: %r" % kw
                except Refused as e:
                    assert (e.status, e.json()["error"]["code"]) == (status, code), (kw, e)
        ours = ws(s, admin, headers={"Origin": "http://127.0.0.1:%d" % s.port})
        assert ours.message(skip=())["type"] == "hello"
        plain = admin.get("/api/live")
        assert plain.status == 400 and "event stream" in plain.json()["error"]["message"]
        head = admin.request("HEAD", "/api/live", headers={"Accept": "text/event-stream"})
        assert head.status == 405


def test_a_server_without_live_updates_says_so():
    s, admin, _ = live_server(("Client",), env={"PGHL_LIVE_CONNECTIONS": "0"})
    with s:
        r = admin.get("/api/live", {"Accept": "text/event-stream"})
        assert r.status == 503 and r.error_code() == "live_off"
        publish(admin, _[0], "thing.nobody_listens")  # publishing works without it


def test_behind_a_trusted_proxy_the_origin_is_the_host_the_browser_asked_for():
    s, admin, _ = live_server(("Client",), env={"PGHL_TRUSTED_PROXIES": "127.0.0.1"})
    with s:
        proxied = {"Origin": "https://crm.example.test", "X-Forwarded-Host": "crm.example.test"}
        assert ws(s, admin, headers=proxied).message(skip=())["type"] == "hello"
        for headers in ({"Origin": "https://crm.example.test"},
                        {"Origin": "https://evil.example", "X-Forwarded-Host": "crm.example.test"}):
            try:
                ws(s, admin, headers=headers)
                assert False, "accepted: %r" % headers
            except Refused as e:
                assert e.status == 403 and e.json()["error"]["code"] == "wrong_origin"


def test_a_slow_client_is_cut_off_and_the_others_get_everything():
    s, admin, (a,) = live_server(("Client",), env={"PGHL_LIVE_BACKLOG_KB": "64"})
    with s:
        fast = ws(s, admin)
        slow = ws(s, admin, receive_buffer=4096)  # reads its handshake, then nothing
        data = json.dumps({"pad": "x" * 3000})
        ids = []
        # The fast client reads each batch before the next is published;
        # the slow one falls behind by 3.6 MB.
        for first in range(0, 1200, 10):
            publish(admin, a, *[{"name": "thing.n", "subject": first + i, "data": data}
                                for i in range(10)])
            ids += [fast.message()["id"] for _ in range(10)]
        assert ids == list(range(1200))
        assert slow.at_end(timeout=10)
        live = admin.get("/api/admin/metrics").json()["live"]
        assert live["cut_slow"] == 1 and live["connections"] == 1, live
    assert "did not keep up" in s.log


def test_a_client_that_pings_and_never_reads_is_cut_off():
    s, admin, _ = live_server(("Client",), env={"PGHL_LIVE_BACKLOG_KB": "16"})
    with s:
        flood = ws(s, admin, receive_buffer=4096)
        calm = ws(s, admin)
        try:
            for _ in range(20000):
                flood.send(PING, b"p" * 125)
        except OSError:
            pass  # cut off while still sending
        assert flood.at_end(timeout=10)
        assert calm.message(skip=())["type"] == "hello"
        live = admin.get("/api/admin/metrics").json()["live"]
        assert live["cut_slow"] == 1 and live["connections"] == 1, live


def test_an_ended_session_closes_its_streams():
    s, admin, (a, _) = live_server(env={"PGHL_LIVE_CHECK_S": "1"})
    with s:
        r = admin.post("/api/admin/users", {"email": "pete@example.test", "name": "Pete",
                                            "password": "pass-word-1", "role": "agency_user"})
        assert r.status == 201, r.body
        other = s.login("pete@example.test", "pass-word-1")
        w, e = ws(s, admin), EventStream(s.port, client=admin)
        kept = ws(s, other)
        s.sql("UPDATE sessions SET expires_at = 1 WHERE user_id ="
              " (SELECT id FROM users WHERE email = ?)", ADMIN[0])
        assert w.close_code(timeout=10) == 4401
        assert e.message(timeout=10) == {"type": "bye", "reason": "signed_out"}
        # The other session goes on.
        publish(other, a, "thing.after")
        assert names([kept.message()]) == ["thing.after"]


def test_a_user_taken_off_a_sub_account_stops_hearing_it():
    s, admin, (a, b) = live_server(env={"PGHL_LIVE_CHECK_S": "1"})
    with s:
        r = admin.post("/api/admin/users", {"email": "lou@example.test", "name": "Lou",
                                            "password": "pass-word-1", "role": "location_user",
                                            "location_ids": [a]})
        assert r.status == 201, r.body
        lou = ws(s, s.login("lou@example.test", "pass-word-1"))
        assert lou.message(skip=())["type"] == "hello"
        assert admin.patch("/api/admin/users/%d" % r.json()["id"], {"location_ids": [b]}).status == 200
        assert lou.close_code(timeout=10) == 4403  # still signed in: nothing left to hear
        # and one whose sub-account is turned off
        watching = ws(s, admin, "/api/live?location_id=%d" % b)
        assert watching.message(skip=())["type"] == "hello"
        assert admin.patch("/api/admin/locations/%d" % b, {"disabled": True}).status == 200
        assert watching.close_code(timeout=10) == 4403


def test_a_server_that_stops_closes_every_live_connection():
    s, admin, _ = live_server(("Client",))
    with s:
        sockets = [ws(s, admin) for _ in range(5)]
        streams = [EventStream(s.port, client=admin) for _ in range(2)]
        for w in sockets:
            w.message(skip=())
        assert s.stop() == 0
        for w in sockets:
            assert w.close_code() == 1001 and w.at_end()
        for e in streams:
            assert e.message() == {"type": "bye", "reason": "server_stopping"}


def test_live_clients_leave_the_workers_free_and_their_number_is_bounded():
    s, admin, (a, _) = live_server(env={"PGHL_THREADS": "4", "PGHL_LIVE_CONNECTIONS": "60",
                                        "PGHL_LIVE_PER_USER": "100"})
    with s:
        open_ = [ws(s, admin) for _ in range(40)] + [EventStream(s.port, client=admin)
                                                       for _ in range(20)]
        # Four workers, sixty clients: the API still answers at once.
        for _ in range(10):
            assert admin.get("/api/auth/me").status == 200
        try:
            ws(s, admin)
            assert False, "a 61st live connection was accepted"
        except Refused as e:
            assert e.status == 503 and e.head.get("retry-after") == "5"
        open_.pop().close()
        time.sleep(0.3)
        ws(s, admin)  # a place was given back


def test_the_modules_say_whose_record_each_event_is():
    """Olga sees only what is assigned to her: she hears of her task, her
    deal and her contact, of pipelines and invoices (everyone's), and of
    nothing of Pete's; Pete hears of everything. Each hears their own
    notifications only."""
    s = Server(modules=("contacts", "opportunities", "tasks", "conversations", "invoices"),
               env={"PGHL_JOBS": "no"})
    s.create_admin(*ADMIN)
    s.start()
    with s:
        admin = s.login(*ADMIN)
        loc = admin.post("/api/admin/locations", {"name": "Client"}).json()["id"]
        ids, here = {}, {"X-Location-Id": str(loc)}
        for name, only in (("olga", True), ("pete", False)):
            r = admin.post("/api/admin/users", {
                "email": name + "@example.test", "name": name, "password": "pass-word-1",
                "role": "location_user", "location_ids": [loc], "assigned_only": only})
            assert r.status == 201, r.body
            ids[name] = r.json()["id"]
        olga = ws(s, s.login("olga@example.test", "pass-word-1"))
        pete = ws(s, s.login("pete@example.test", "pass-word-1"))

        def made(path, body):
            r = admin.post(path, body, here)
            assert r.status == 201, r.body
            return r.json()["id"]

        pipeline = made("/api/pipelines", {"name": "Sales"})
        for name in ("pete", "olga"):
            olgas = made("/api/contacts", {"first_name": name, "owner_id": ids[name]})
            made("/api/tasks", {"title": "for " + name, "assignee_id": ids[name]})
        contact = made("/api/contacts", {"first_name": "Nobody's"})
        for billed in (contact, olgas):  # an invoice is its contact's owner's
            made("/api/invoices", {"contact_id": billed, "items": [
                {"description": "w", "quantity": 1, "unit_price_cents": 100}]})
        heard = [m for m in pete.messages_until_quiet() if m["type"] == "event"]
        # each hears of what was given to them (a contact and a task), and
        # only they: their bell's notice.created, of no sub-account
        told = {m["id"] for m in heard if m["event"] == "notice.created"}
        assert len(told) == 2 and {m["location_id"] for m in heard if m["event"] == "notice.created"} == {0}
        heard = [m for m in heard if m["event"] != "notice.created"]
        assert names(heard) == ["pipeline.created", "contact.created", "task.created",
                                "contact.created", "task.created", "contact.created",
                                "invoice.created", "invoice.created"], names(heard)
        mine = [m for m in olga.messages_until_quiet() if m["type"] == "event"]
        hers = {m["id"] for m in mine if m["event"] == "notice.created"}
        assert len(hers) == 2 and not hers & told
        mine = [m for m in mine if m["event"] != "notice.created"]
        assert names(mine) == ["pipeline.created", "contact.created", "task.created",
                               "invoice.created"], names(mine)
        assert mine[3]["id"] == heard[7]["id"]
        assert [m["id"] for m in mine[1:3]] == [m["id"] for m in heard[3:5]]
        assert pipeline == mine[0]["id"]


def test_no_one_user_or_address_takes_every_live_place():
    """With room for 100, one user holds 20 at most and one address 30
    (counted on this machine only with rate_limit_loopback); the excess
    is 429, and the others still get in."""
    s, admin, (a, _) = live_server(env={"PGHL_LIVE_CONNECTIONS": "100", "PGHL_LIVE_PER_ADDRESS": "30",
                                        "PGHL_RATE_LIMIT_LOOPBACK": "yes"})
    with s:
        def refused(client, stream=False):
            try:
                (EventStream(s.port, client=client) if stream else ws(s, client))
            except Refused as e:
                assert e.head.get("retry-after"), e.head
                return e.status, e.json()["error"]["code"], e.json()["error"]["message"]
            raise AssertionError("a live connection past the bound was accepted")
        mine = [ws(s, admin) for _ in range(12)] + [EventStream(s.port, client=admin) for _ in range(8)]
        status, code, message = refused(admin)
        assert (status, code) == (429, "too_many_streams") and "20" in message, message
        assert refused(admin, stream=True)[:2] == (429, "too_many_streams")
        r = admin.post("/api/admin/users", {"email": "eve@example.test", "name": "Eve",
                                            "password": "pass-word-1", "role": "location_user",
                                            "location_ids": [a]})
        eve = s.login("eve@example.test", "pass-word-1")
        hers = [ws(s, eve) for _ in range(10)]  # the address's 30
        status, code, message = refused(eve)
        assert (status, code) == (429, "too_many_streams") and "address" in message, message
        mine.pop().close()
        assert wait_for(lambda: opens(s, eve))  # a place given back is free again
        live = lambda: admin.get("/api/admin/metrics").json()["live"]
        assert wait_for(lambda: live()["connections"] == 29), live()  # 12 + 7 + 10
        assert live()["refused"] >= 3, live()
        for c in mine + hers:
            c.close()


def opens(s, client):
    try:
        WebSocket(s.port, "/api/live", client=client).close()
        return True
    except Refused:
        return False


def hears(stream, quiet=0.7):
    return names(stream.messages_until_quiet(quiet))


def test_a_change_of_rights_reaches_the_streams_at_once():
    """With the periodic check 30 s away, each change made through the
    server closes or narrows the streams it concerns before the next
    event goes out: a sign-out, a disabled user, a password reset and a
    revoked token close them (4401); a sub-account taken away, a role
    changed and "assigned only" set narrow them, or close them (4403)
    when nothing is left; a sub-account turned off does the same."""
    s, admin, (a, b) = live_server(env={"PGHL_LIVE_CHECK_S": "30"})
    with s:
        def user(email, role, locations=None, only=False):
            body = {"email": email, "name": email[:4], "password": "pass-word-1", "role": role,
                    "assigned_only": only}
            if locations:
                body["location_ids"] = locations
            r = admin.post("/api/admin/users", body)
            assert r.status == 201, r.body
            return r.json()["id"], s.login(email, "pass-word-1")

        def after(change, stream, code):
            assert change().status in (200, 204)
            publish(admin, a, *["thing.after"] * 5)
            assert stream.close_code(timeout=5) == code
            assert not [f for f in stream.seen if f.get("event") == "thing.after"]

        # Sign-out, a disabled user, a password reset, a revoked token.
        _, ann = user("ann@example.test", "location_user", [a])
        after(lambda: ann.post("/api/auth/logout", {}), ws(s, ann), 4401)
        dan_id, dan = user("dan@example.test", "location_user", [a])
        w = ws(s, dan)
        after(lambda: admin.patch("/api/admin/users/%d" % dan_id, {"disabled": True}), w, 4401)
        pam_id, pam = user("pam@example.test", "location_user", [a])
        w = ws(s, pam)
        after(lambda: admin.post("/api/admin/users/%d/password" % pam_id, {"password": "new-pass-12"}),
              w, 4401)
        tom_id, tom = user("tom@example.test", "location_user", [a])
        token = tom.post("/api/auth/tokens", {"name": "app"}).json()
        by_token = WebSocket(s.port, "/api/live", headers={"Authorization": "Bearer " + token["token"]})
        csrf = {"X-CSRF-Token": tom.get("/api/auth/me").json()["csrf_token"]}
        after(lambda: tom.delete("/api/auth/tokens/%d" % token["id"], headers=csrf), by_token, 4401)

        # A sub-account taken away narrows; the last one closes.
        lou_id, lou = user("lou@example.test", "location_user", [a, b])
        both = ws(s, lou, "/api/live?locations=%d,%d" % (a, b))
        only_a = ws(s, lou, "/api/live?location_id=%d" % a)
        assert admin.patch("/api/admin/users/%d" % lou_id, {"location_ids": [b]}).status == 200
        publish(admin, a, "thing.in_a")
        publish(admin, b, "thing.in_b")
        assert hears(both) == ["thing.in_b"]
        assert only_a.close_code(timeout=5) == 4403

        # A role changed: agency staff listening to the whole agency become
        # a sub-account's user, and hear that sub-account only.
        amy_id, amy = user("amy@example.test", "agency_user")
        agency = ws(s, amy, "/api/live?scope=agency")
        assert admin.patch("/api/admin/users/%d" % amy_id,
                           {"role": "location_user", "location_ids": [b]}).status == 200
        publish(admin, a, "thing.in_a")
        publish(admin, b, "thing.in_b")
        assert hears(agency) == ["thing.in_b"]

        # "Assigned only" set: only what is the user's, or everyone's.
        ola_id, ola = user("ola@example.test", "location_user", [a])
        w = ws(s, ola)
        assert admin.patch("/api/admin/users/%d" % ola_id, {"assigned_only": True}).status == 200
        publish(admin, a, {"name": "thing.others", "assigned_to": amy_id},
                {"name": "thing.hers", "assigned_to": ola_id}, {"name": "thing.all", "assigned_to": -1})
        assert hears(w) == ["thing.hers", "thing.all"]

        # A sub-account turned off.
        staff = ws(s, admin, "/api/live?locations=%d,%d" % (a, b))
        assert admin.patch("/api/admin/locations/%d" % b, {"disabled": True}).status == 200
        publish(admin, a, "thing.in_a")
        assert hears(staff) == ["thing.in_a"]
        live = admin.get("/api/admin/metrics").json()["live"]
        assert live["rechecked"] >= 5, live


def test_a_stream_ends_when_its_session_does():
    """A session's end is kept with its streams: at that second the
    stream is checked and closed, not at the next periodic check."""
    s, admin, (a, _) = live_server(env={"PGHL_LIVE_CHECK_S": "60"})
    with s:
        r = admin.post("/api/admin/users", {"email": "kim@example.test", "name": "Kim",
                                            "password": "pass-word-1", "role": "location_user",
                                            "location_ids": [a]})
        kim = s.login("kim@example.test", "pass-word-1")
        s.accounts_sql("UPDATE sessions SET expires_at = CAST(strftime('%s', 'now') AS INTEGER) + 3"
                       " WHERE user_id = ?", r.json()["id"])
        w = ws(s, kim)
        assert w.message(skip=())["type"] == "hello"
        assert w.close_code(timeout=8) == 4401


def test_an_address_is_counted_by_its_ipv6_64_however_written():
    """Behind a trusted proxy, clients of one IPv6 /64 share one address's
    places however their addresses are written; another /64 has its own."""
    s, admin, (a, _) = live_server(env={"PGHL_TRUSTED_PROXIES": "127.0.0.1",
                                        "PGHL_LIVE_PER_ADDRESS": "2"})
    with s:
        def from_(address):
            return ws(s, admin, headers={"X-Forwarded-For": address})
        held = [from_("2001:db8:0:0:1::1"), from_("2001:DB8::2:0:0:2")]
        for same in ("2001:db8::ffff:1:2:3", "2001:0db8:0000:0000:0000:0000:0000:0009"):
            try:
                from_(same)
                assert False, "a third stream of one /64 was let in: " + same
            except Refused as e:
                assert e.status == 429 and "address" in e.json()["error"]["message"], e.body
        held.append(from_("2001:db8:0:1::1"))  # the next /64
        held.append(from_("203.0.113.5"))
        for w in held:
            w.close()
