# SPDX-License-Identifier: MIT
"""The phone app's API on seeded data: the home screen's counters of one
location and of every location a user may open, equal to the same counts
asked one location at a time; the inbox merged across locations equal to
plain SQL, page by page, for agency staff, a location's own user and an
"assigned only" user; a user's open deals by stage; each user seeing only
their own; and a write dropping the cached answers."""

from harness import cache_checks, every_page, headers, iso, local_bounds, now_iso, one, seeded_server, zone_of


def day_bounds(s, L):
    """Today's midnight and tomorrow's in the sub-account's time zone."""
    _, end, today, _ = local_bounds(zone_of(s, L), 1)
    return iso(today), iso(end)


def expected_counters(s, L):
    today, end = day_bounds(s, L)
    now = now_iso()
    open_tasks = "FROM tasks WHERE location_id = ? AND completed_at IS NULL"
    deals = s.sql("SELECT count(*), coalesce(sum(value_cents), 0) FROM opportunities"
                  " WHERE location_id = ? AND status = 'open'", L)[0]
    return {
        "id": L,
        "name": one(s, "SELECT name FROM locations WHERE id = ?", L),
        "currency": one(s, "SELECT currency FROM locations WHERE id = ?", L),
        "unread": one(s, "SELECT count(*) FROM conversations WHERE location_id = ? AND unread_count > 0", L),
        "tasks": {"due_today": one(s, "SELECT count(*) " + open_tasks + " AND due_at >= ? AND due_at < ?",
                                   L, today, end),
                  "overdue": one(s, "SELECT count(*) " + open_tasks + " AND due_at < ?", L, now)},
        "deals": {"open": deals[0], "value_cents": deals[1]},
    }


def test_counters_of_a_location_and_of_all_a_user_may_open():
    s, admin = seeded_server()
    with s:
        # Due at the last second of the sub-account's today.
        s.sql("UPDATE tasks SET due_at = strftime('%Y-%m-%dT%H:%M:%fZ', day_start(local_day(unixepoch(),"
              " z.timezone) + 1, z.timezone) - 1, 'unixepoch') FROM locations z WHERE z.id = 2"
              " AND location_id = 2 AND completed_at IS NULL AND tasks.id % 5 = 0")
        for L in (1, 2):
            got = admin.get("/api/mobile/summary?location_id=%d" % L)
            assert got.status == 200, got.body
            assert got.json() == expected_counters(s, L)
        assert expected_counters(s, 2)["tasks"]["due_today"] > 0
        names = s.sql("SELECT id FROM locations ORDER BY name COLLATE NOCASE, id")
        got = admin.get("/api/mobile/projects").json()
        assert got == {"data": [expected_counters(s, L) for (L,) in names], "next_cursor": None}
        # A location's own user: theirs only, and only theirs to ask for.
        user = s.login("location-2@example.test", "perf-pass-123")
        assert user.get("/api/mobile/summary").json() == expected_counters(s, 2)
        assert user.get("/api/mobile/summary?location_id=1").status == 404
        assert user.get("/api/mobile/projects").json()["data"] == [expected_counters(s, 2)]
        # A disabled location leaves the list.
        assert admin.patch("/api/admin/locations/3", {"disabled": True}).status == 200
        assert 3 not in [p["id"] for p in admin.get("/api/mobile/projects").json()["data"]]
        assert s.client().get("/api/mobile/summary").status == 401


def inbox_sql(s, where, *args):
    return [r[0] for r in s.sql(
        "SELECT c.id FROM conversations c JOIN locations l ON l.id = c.location_id WHERE l.disabled_at IS NULL"
        " AND c.last_message_at IS NOT NULL AND " + where + " ORDER BY c.last_message_at DESC, c.id", *args)]


def test_inbox_merges_every_location_newest_first():
    s, admin = seeded_server()
    with s:
        # Two conversations at the same moment, to page through a tie.
        a, b = [r[0] for r in s.sql("SELECT id FROM conversations WHERE location_id IN (1, 3)"
                                    " GROUP BY location_id ORDER BY location_id")]
        s.sql("UPDATE conversations SET last_message_at = '2026-01-05T10:00:00.000Z' WHERE id IN (?, ?)", a, b)
        rows = every_page(admin, "/api/mobile/inbox", limit=23)
        assert [r["id"] for r in rows] == inbox_sql(s, "1")
        assert len({r["location_id"] for r in rows}) == 4
        first = rows[0]
        assert set(first) == {"id", "location_id", "location_name", "channel", "contact_name", "preview",
                              "last_message_at", "unread_count"}
        want = s.sql("SELECT trim(k.first_name || ' ' || k.last_name), l.name, substr(c.last_message_preview, 1, 80)"
                     " FROM conversations c JOIN contacts k ON k.id = c.contact_id JOIN locations l"
                     " ON l.id = c.location_id WHERE c.id = ?", first["id"])[0]
        assert (first["contact_name"], first["location_name"], first["preview"]) == tuple(want)
        rows = every_page(admin, "/api/mobile/inbox?unread=1", limit=17)
        assert [r["id"] for r in rows] == inbox_sql(s, "c.unread_count > 0") and rows
        # A location's own user sees that location's.
        user = s.login("location-3@example.test", "perf-pass-123")
        rows = every_page(user, "/api/mobile/inbox", limit=30)
        assert [r["id"] for r in rows] == inbox_sql(s, "c.location_id = 3") and rows
        # An "assigned only" user sees what is assigned to them.
        uid = admin.post("/api/admin/users", {"email": "mine@example.test", "name": "Mine", "role": "location_user",
                                              "password": "mine-pass-123", "location_ids": [1, 4],
                                              "assigned_only": True}).json()["id"]
        s.sql("UPDATE conversations SET assigned_to = ? WHERE location_id IN (1, 2, 4) AND id % 4 = 0", uid)
        mine = s.login("mine@example.test", "mine-pass-123")
        rows = every_page(mine, "/api/mobile/inbox", limit=10)
        assert [r["id"] for r in rows] == inbox_sql(s, "c.location_id IN (1, 4) AND c.assigned_to = ?", uid)
        assert rows and {r["location_id"] for r in rows} == {1, 4}
        assert admin.get("/api/mobile/inbox?limit=101").status == 400
        assert admin.get("/api/mobile/inbox?unread=2").status == 400


def test_deals_are_the_users_own_by_stage():
    s, admin = seeded_server()
    with s:
        user = s.login("location-2@example.test", "perf-pass-123")
        uid = user.get("/api/auth/me").json()["user"]["id"]
        # More deals in one stage than the phone shows.
        stage, pipeline = s.sql("SELECT id, pipeline_id FROM stages WHERE location_id = 2"
                                " ORDER BY position DESC LIMIT 1")[0]
        for i in range(25):
            s.sql("INSERT INTO opportunities (location_id, pipeline_id, stage_id, name, value_cents, owner_id,"
                  " position) VALUES (2, ?, ?, ?, ?, ?, ?)", pipeline, stage, "Many %d" % i, 100 + i, uid, i)
        for client, who, L in ((user, uid, 2), (admin, 1, 1)):
            got = client.get("/api/mobile/deals?location_id=%d" % L)
            assert got.status == 200, got.body
            want = []
            for sid, sname, pid, pname in s.sql(
                    "SELECT s.id, s.name, p.id, p.name FROM stages s JOIN pipelines p ON p.id = s.pipeline_id"
                    " WHERE s.location_id = ? ORDER BY p.position, p.id, s.position, s.id", L):
                deals = s.sql("SELECT o.id, o.name, o.value_cents, o.currency, trim(k.first_name || ' ' || k.last_name)"
                              " FROM opportunities o LEFT JOIN contacts k ON k.id = o.contact_id"
                              " WHERE o.stage_id = ? AND o.owner_id = ? AND o.status = 'open'"
                              " ORDER BY o.position, o.id", sid, who)
                if deals:
                    want.append({"id": sid, "name": sname, "pipeline_id": pid, "pipeline_name": pname,
                                 "count": len(deals),
                                 "value_cents": sum(d[2] for d in deals),
                                 "deals": [dict(zip(("id", "name", "value_cents", "currency", "contact_name"), d))
                                           for d in deals[:20]]})
            assert got.json() == {"stages": want} and want
        crowded = next(st for st in user.get("/api/mobile/deals").json()["stages"] if st["id"] == stage)
        assert crowded["count"] >= 25 and len(crowded["deals"]) == 20


def test_a_write_drops_the_phones_answers():
    s, admin = seeded_server()
    with s:
        user = s.login("location-2@example.test", "perf-pass-123")
        h = headers(user, 2)
        for path in ("/api/mobile/summary", "/api/mobile/projects", "/api/mobile/inbox", "/api/mobile/deals"):
            cached, _ = cache_checks(user, path)
            cached()
        # Each user's own answers are kept apart, whatever their role.
        other = s.login("location-3@example.test", "perf-pass-123")
        for path in ("/api/mobile/projects", "/api/mobile/inbox"):
            r = other.get(path)
            assert r.header("X-Cache") == "miss", path
            assert {p["location_id" if "inbox" in path else "id"] for p in r.json()["data"]} == {3}, path
            assert user.get(path).header("X-Cache") == "hit"
        before = user.get("/api/mobile/summary").json()
        assert user.post("/api/tasks", {"title": "Now", "due_at": "2020-01-01"}, headers=h).status == 201
        for path in ("/api/mobile/summary", "/api/mobile/projects"):
            r = user.get(path)
            assert r.header("X-Cache") == "miss", path
        assert user.get("/api/mobile/summary").json()["tasks"]["overdue"] == before["tasks"]["overdue"] + 1
        contact = one(s, "SELECT id FROM contacts WHERE location_id = 2 LIMIT 1")
        r = user.post("/api/conversations/inbound", {"contact_id": contact, "channel": "sms", "body": "New!"},
                      headers=h)
        assert r.status in (200, 201), r.body
        r = user.get("/api/mobile/inbox")
        assert r.header("X-Cache") == "miss" and r.json()["data"][0]["preview"] == "New!"
        # The unread count follows a conversation read, and a message that
        # leaves the count as it was leaves the counters cached.
        unread = lambda: one(s, "SELECT count(*) FROM conversations WHERE location_id = 2"
                                " AND unread_count > 0")
        before = user.get("/api/mobile/summary").json()["unread"]
        assert before == unread() > 0
        conversation = one(s, "SELECT id FROM conversations WHERE location_id = 2 AND unread_count > 0")
        assert user.post("/api/conversations/%d/messages" % conversation, {"body": "On it"},
                         headers=h).status == 201
        assert user.get("/api/mobile/summary").header("X-Cache") == "hit"
        assert user.post("/api/conversations/%d/read" % conversation, {}, headers=h).status == 200
        r = user.get("/api/mobile/summary")
        assert r.header("X-Cache") == "miss" and r.json()["unread"] == unread() == before - 1
        stage, pipeline = s.sql("SELECT id, pipeline_id FROM stages WHERE location_id = 2 LIMIT 1")[0]
        uid = user.get("/api/auth/me").json()["user"]["id"]
        counted = lambda got: next((st["count"] for st in got["stages"] if st["id"] == stage), 0)
        before = counted(user.get("/api/mobile/deals").json())
        assert user.post("/api/opportunities", {"name": "Mine", "pipeline_id": pipeline, "stage_id": stage,
                                                "owner_id": uid}, headers=h).status == 201
        r = user.get("/api/mobile/deals")
        assert r.header("X-Cache") == "miss"
        assert counted(r.json()) == before + 1
        # An owned deal opened in another sub-account leaves it cached.
        assert user.get("/api/mobile/deals").header("X-Cache") == "hit"
        stage3, pipeline3 = s.sql("SELECT id, pipeline_id FROM stages WHERE location_id = 3 LIMIT 1")[0]
        owner3 = other.get("/api/auth/me").json()["user"]["id"]
        r = other.post("/api/opportunities", {"name": "Theirs", "pipeline_id": pipeline3, "stage_id": stage3,
                                              "owner_id": owner3}, headers=headers(other, 3))
        assert r.status == 201, r.body
        assert user.get("/api/mobile/deals").header("X-Cache") == "hit"
        assert other.get("/api/mobile/deals").header("X-Cache") == "miss"
