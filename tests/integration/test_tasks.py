# SPDX-License-Identifier: MIT
"""Tasks on seeded data, as a sub-account's users see them: the list with
every filter equal to the same question asked in SQL, paged through with
cursors; creating, changing, completing, reopening and deleting tasks
with each bad input refused; other locations' tasks out of reach; users
who see only their own tasks; a deal's own tasks; the events that reach
a contact's activity;
the cache dropped by writes; and no statement scanning a whole table."""

import datetime
import re
import time

import harness
from harness import error, every_page, headers, ids, new_contact, seeded_server, is_plan


ROW_KEYS = {"id", "title", "body", "due_at", "completed_at", "status", "contact_id", "contact_name",
            "assignee_id", "opportunity_id", "created_at", "updated_at"}
OPEN_ORDER = "ifnull(due_at, 'z'), id"
DONE_ORDER = "completed_at DESC, id DESC"


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def due_where(s, due, location=1):
    """The SQL of a due filter, with the times worked out here, by the days
    of the sub-account's time zone."""
    zone = s.sql("SELECT timezone FROM locations WHERE id = ?", location)[0][0]
    now = datetime.datetime.now(datetime.timezone.utc)
    today = harness.local_day(int(now.timestamp()), zone)
    midnight = lambda n: iso(datetime.datetime.fromtimestamp(harness.day_start(today + n, zone),
                                                              datetime.timezone.utc))
    return {"overdue": "due_at < '%s' AND completed_at IS NULL" % iso(now),
            "today": "due_at >= '%s' AND due_at < '%s'" % (midnight(0), midnight(1)),
            "week": "due_at >= '%s' AND due_at < '%s'" % (midnight(0), midnight(7))}[due]


def want(s, where, location=1):
    """The ids the list should give, in its order: open, then completed."""
    base = "SELECT id FROM tasks WHERE location_id = %d AND (%s) AND completed_at IS " % (location, where)
    return [r[0] for r in s.sql(base + "NULL ORDER BY " + OPEN_ORDER)] + \
        [r[0] for r in s.sql(base + "NOT NULL ORDER BY " + DONE_ORDER)]


def user_id(s, email):
    return s.sql("SELECT id FROM users WHERE email = ?", email)[0][0]


def make(client, h, **fields):
    r = client.post("/api/tasks", fields, headers=h)
    assert r.status == 201, r.body
    return r.json()


def add_dated_tasks(admin, h):
    """Tasks (the caller's) due today (UTC), in four days, and without a
    date, so that every due filter has rows whatever the day."""
    me = admin.get("/api/auth/me").json()["user"]["id"]
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    soon = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=4)).strftime("%Y-%m-%d")
    made = [make(admin, h, title="Today %d" % i, due_at=today + "T12:00:00Z", assignee_id=me) for i in range(3)]
    made.append(make(admin, h, title="Soon", due_at=soon, assignee_id=me))
    made.append(make(admin, h, title="Someday"))
    done = make(admin, h, title="Done today", due_at=today)
    assert admin.post("/api/tasks/%d/complete" % done["id"], {}, headers=h).status == 200
    return made


def test_every_filter_equals_its_sql():
    s, admin = seeded_server()
    with s:
        add_dated_tasks(admin, headers(admin))
        me = user_id(s, "perf@example.test")
        assignee = s.sql("SELECT assignee_id FROM tasks WHERE location_id = 1 AND assignee_id <> ?"
                         " GROUP BY 1 ORDER BY count(*) DESC LIMIT 1", me)[0][0]
        # The busiest contact that has both open and completed tasks.
        contact = s.sql("SELECT contact_id FROM tasks WHERE location_id = 1 AND contact_id IS NOT NULL"
                        " GROUP BY 1 HAVING min(completed_at IS NULL) = 0 AND max(completed_at IS NULL) = 1"
                        " ORDER BY count(*) DESC, contact_id LIMIT 1")[0][0]
        cases = [
            ("", "1"),
            ("status=open", "completed_at IS NULL"),
            ("status=completed", "completed_at IS NOT NULL"),
            ("due=overdue", due_where(s, "overdue")),
            ("due=today", due_where(s, "today")),
            ("due=week", due_where(s, "week")),
            ("status=completed&due=week", "completed_at IS NOT NULL AND " + due_where(s, "week")),
            ("assignee=%d" % assignee, "assignee_id = %d" % assignee),
            ("assignee=me", "assignee_id = %d" % me),
            ("contact=%d" % contact, "contact_id = %d" % contact),
            ("contact=%d&status=completed" % contact, "contact_id = %d AND completed_at IS NOT NULL" % contact),
            ("status=open&due=week&assignee=me", "completed_at IS NULL AND assignee_id = %d AND %s"
             % (me, due_where(s, "week"))),
        ]
        for query, where in cases:
            expected = want(s, where)
            assert expected, query  # a filter that finds nothing proves little
            assert ids(every_page(admin, "/api/tasks?location_id=1&" + query)) == expected, query
        assert not ids(every_page(admin, "/api/tasks?location_id=1&contact=999999"))


def test_rows_carry_the_task_and_its_contacts_name():
    s, admin = seeded_server()
    with s:
        names = dict(s.sql("SELECT id, first_name || ' ' || last_name FROM contacts"))
        rows = every_page(admin, "/api/tasks?location_id=1", limit=1000)
        assert len(rows) == s.sql("SELECT count(*) FROM tasks WHERE location_id = 1")[0][0]
        for row in rows:
            assert set(row) == ROW_KEYS
            title, due, done, contact, assignee = s.sql(
                "SELECT title, due_at, completed_at, contact_id, assignee_id FROM tasks WHERE id = ?",
                row["id"])[0]
            assert (row["title"], row["due_at"], row["completed_at"], row["contact_id"],
                    row["assignee_id"]) == (title, due, done, contact, assignee)
            assert row["contact_name"] == (names[contact].strip() if contact else None)
            assert row["status"] == ("completed" if done else "open")


def test_pages_cross_from_open_to_completed_tasks():
    s, admin = seeded_server()
    with s:
        open_count = s.sql("SELECT count(*) FROM tasks WHERE location_id = 1 AND completed_at IS NULL")[0][0]
        # A page that ends the open tasks exactly still says more follow.
        first = admin.get("/api/tasks?location_id=1&limit=%d" % open_count).json()
        assert all(r["status"] == "open" for r in first["data"]) and first["next_cursor"]
        second = admin.get("/api/tasks?location_id=1&limit=5&cursor=" + first["next_cursor"]).json()
        assert ids(second["data"]) == want(s, "completed_at IS NOT NULL")[:5]
        # Pages of every size give the same list; the last says so.
        for limit in (1, 50, 333):
            assert ids(every_page(admin, "/api/tasks?location_id=1", limit=limit)) == want(s, "1")
        page = admin.get("/api/tasks?location_id=1").json()
        assert len(page["data"]) == 50 and set(page) == {"data", "next_cursor"}
        assert admin.get("/api/tasks?location_id=1&limit=1000").json()["next_cursor"] is None


def test_create_change_complete_reopen_and_delete():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        contact = s.sql("SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL LIMIT 1")[0][0]
        t = make(admin, h, title="Call Ann", body="About the quote", due_at="2026-12-01T09:30:00+02:00",
                 contact_id=contact, assignee_id=1)
        assert t["due_at"] == "2026-12-01T07:30:00.000Z" and t["status"] == "open"
        assert t["contact_id"] == contact and t["contact_name"] and t["assignee_id"] == 1
        path = "/api/tasks/%d" % t["id"]
        assert admin.get(path + "?location_id=1").json() == t
        changed = admin.patch(path, {"title": "Call Ann back", "due_at": None, "contact_id": None},
                              headers=h).json()
        assert (changed["title"], changed["body"], changed["due_at"], changed["contact_id"],
                changed["contact_name"]) == ("Call Ann back", "About the quote", None, None, None)
        # A date is the sub-account's midnight (location 1 keeps Chicago's time).
        assert admin.patch(path, {"due_at": "2026-12-24"}, headers=h).json()["due_at"] == \
            "2026-12-24T06:00:00.000Z"
        done = admin.post(path + "/complete", {}, headers=h).json()
        assert done["status"] == "completed" and done["completed_at"]
        again = admin.post(path + "/complete", {}, headers=h)
        assert again.status == 200 and again.json()["completed_at"] == done["completed_at"]
        reopened = admin.post(path + "/reopen", {}, headers=h).json()
        assert reopened["status"] == "open" and reopened["completed_at"] is None
        assert admin.post(path + "/reopen", {}, headers=h).status == 200
        assert admin.delete(path, headers=h).status == 204
        assert admin.get(path + "?location_id=1").status == 404
        assert admin.delete(path, headers=h).status == 404
        assert admin.post(path + "/complete", {}, headers=h).status == 404
        assert not s.sql("SELECT 1 FROM tasks WHERE id = ?", t["id"])


def test_bad_input_is_refused_naming_the_field():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        other_contact = s.sql("SELECT id FROM contacts WHERE location_id = 2 LIMIT 1")[0][0]
        gone = s.sql("SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL LIMIT 1")[0][0]
        assert admin.delete("/api/contacts/%d" % gone, headers=h).status == 204
        other_user = user_id(s, "location-2@example.test")
        before = s.sql("SELECT count(*), max(updated_at) FROM tasks")
        for body, words in (
                ({}, "title: required"),
                ({"title": ""}, "title: required"),
                ({"title": None}, "title: required"),
                ({"title": "x" * 201}, "title"),
                ({"title": 5}, "title"),
                ({"title": "t", "body": "x" * 10001}, "body"),
                ({"title": "t", "due_at": "tomorrow"}, "due_at"),
                ({"title": "t", "due_at": "2026-02-30"}, "due_at"),
                ({"title": "t", "due_at": "2026-12-01T25:00"}, "due_at"),
                ({"title": "t", "due_at": 20261201}, "due_at"),
                ({"title": "t", "assignee_id": 999999}, "assignee_id: no user of this sub-account"),
                ({"title": "t", "assignee_id": other_user}, "assignee_id: no user of this sub-account"),
                ({"title": "t", "assignee_id": "1"}, "assignee_id"),
                ({"title": "t", "contact_id": other_contact}, "contact_id: no contact of this sub-account"),
                ({"title": "t", "contact_id": gone}, "contact_id: no contact of this sub-account"),
                ({"title": "t", "contact_id": 0}, "contact_id"),
                ({"title": "t", "priority": "high"}, "priority: no such field")):
            error(admin.post("/api/tasks", body, headers=h), 422, words)
        assert admin.post("/api/tasks", {"title": "x" * 200, "body": "é" * 10000}, headers=h).status == 201
        task = s.sql("SELECT max(id) FROM tasks")[0][0]
        path = "/api/tasks/%d" % task
        for body, words in (({"title": None}, "title: required"), ({"due_at": "soon"}, "due_at"),
                            ({"contact_id": other_contact}, "contact_id"), ({"done": True}, "done")):
            error(admin.patch(path, body, headers=h), 422, words)
        assert s.sql("SELECT count(*) FROM tasks")[0][0] == before[0][0] + 1
        assert s.sql("SELECT title FROM tasks WHERE id = ?", task)[0][0] == "x" * 200
        for query, words in (("status=done", "status"), ("due=tomorrow", "due"),
                             ("status=completed&due=overdue", "overdue"), ("assignee=you", "assignee"),
                             ("contact=0", "contact"), ("cursor=xyz", "cursor"), ("cursor=7b7d", "cursor"),
                             ("limit=0", "limit"), ("limit=1001", "limit")):
            error(admin.get("/api/tasks?location_id=1&" + query), 400, words)
        # A cursor of the open tasks does not fit the completed ones.
        cursor = admin.get("/api/tasks?location_id=1&status=open&limit=1").json()["next_cursor"]
        error(admin.get("/api/tasks?location_id=1&status=completed&cursor=" + cursor), 400, "cursor")


def test_another_locations_task_is_404():
    s, admin = seeded_server()
    with s:
        h1, h2 = headers(admin, 1), headers(admin, 2)
        theirs = make(admin, h2, title="Theirs")
        path = "/api/tasks/%d" % theirs["id"]
        assert admin.get(path + "?location_id=1").status == 404
        assert admin.patch(path, {"title": "Mine now"}, headers=h1).status == 404
        assert admin.post(path + "/complete", {}, headers=h1).status == 404
        assert admin.post(path + "/reopen", {}, headers=h1).status == 404
        assert admin.delete(path, headers=h1).status == 404
        assert admin.get(path + "?location_id=2").json() == theirs
        assert theirs["id"] not in ids(every_page(admin, "/api/tasks?location_id=1", limit=1000))
        user = s.login("location-2@example.test", "perf-pass-123")
        assert user.get("/api/tasks?location_id=1").status == 404
        assert theirs["id"] in ids(every_page(user, "/api/tasks", limit=1000))


def test_assigned_only_users_see_and_touch_only_their_tasks():
    s, admin = seeded_server()
    with s:
        me = user_id(s, "location-2@example.test")
        s.sql("UPDATE users SET assigned_only = 1 WHERE id = ?", me)
        user = s.login("location-2@example.test", "perf-pass-123")
        h = headers(user, 2)
        mine = ids(every_page(user, "/api/tasks", limit=100))
        assert mine and mine == want(s, "assignee_id = %d" % me, location=2)
        assert ids(every_page(user, "/api/tasks?status=open&due=week")) == \
            want(s, "assignee_id = %d AND completed_at IS NULL AND %s" % (me, due_where(s, "week", 2)), 2)
        others = s.sql("SELECT id FROM tasks WHERE location_id = 2 AND assignee_id IS NOT ? LIMIT 1", me)[0][0]
        path = "/api/tasks/%d" % others
        assert user.get(path).status == 404
        assert user.patch(path, {"title": "x"}, headers=h).status == 404
        assert user.post(path + "/complete", {}, headers=h).status == 404
        assert user.delete(path, headers=h).status == 404
        assert user.get("/api/tasks/%d" % mine[0]).status == 200
        made = make(user, h, title="Mine")
        assert made["assignee_id"] == me and made["id"] in ids(every_page(user, "/api/tasks", limit=1000))
        # Answers are kept per user for them: an admin's list stays whole.
        assert len(every_page(admin, "/api/tasks?location_id=2", limit=1000)) > len(mine) + 1
        # On their contact's timeline they read the lines of their own tasks only.
        ha = headers(admin, 2)
        contact = new_contact(admin, ha, first_name="Hers", owner_id=me)["id"]
        make(admin, ha, title="Nobody's", contact_id=contact)
        make(user, h, title="Hers", contact_id=contact)
        timeline = "/api/contacts/%d/timeline" % contact
        lines = ["Task Hers created", "Task Nobody's created"]
        deadline = time.time() + 10
        while [x["line"] for x in admin.get(timeline + "?location_id=2").json()["data"]] != lines \
                and time.time() < deadline:
            time.sleep(0.02)
        assert [x["line"] for x in admin.get(timeline + "?location_id=2").json()["data"]] == lines
        assert [x["line"] for x in user.get(timeline).json()["data"]] == lines[:1]


def new_deal(s, admin, h, **fields):
    stage = s.sql("SELECT s.id FROM stages s JOIN pipelines p ON p.id = s.pipeline_id"
                  " WHERE p.location_id = ? LIMIT 1", int(h["X-Location-Id"]))[0][0]
    r = admin.post("/api/opportunities", dict({"name": "Retainer", "stage_id": stage}, **fields), headers=h)
    assert r.status == 201, r.body
    return r.json()


def test_a_deal_has_its_own_tasks():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        contact = new_contact(admin, h, first_name="Dee")["id"]
        deal = new_deal(s, admin, h, contact_id=contact)
        theirs = new_deal(s, admin, headers(admin, 2))
        before = s.sql("SELECT count(*) FROM tasks")[0][0]
        for body, words in (({"title": "t", "opportunity_id": theirs["id"]}, "opportunity_id: no deal of"),
                            ({"title": "t", "opportunity_id": 999999}, "opportunity_id: no deal of"),
                            ({"title": "t", "opportunity_id": "1"}, "opportunity_id")):
            error(admin.post("/api/tasks", body, headers=h), 422, words)
        assert s.sql("SELECT count(*) FROM tasks")[0][0] == before
        # Given a deal and no contact, a task takes the deal's contact.
        call = make(admin, h, title="Call Dee", opportunity_id=deal["id"])
        assert (call["opportunity_id"], call["contact_id"], call["contact_name"]) == (deal["id"], contact, "Dee")
        other = new_contact(admin, h, first_name="Other")["id"]
        mail = make(admin, h, title="Mail", opportunity_id=deal["id"], contact_id=other)
        assert mail["contact_id"] == other
        loose = make(admin, h, title="Loose")
        moved = admin.patch("/api/tasks/%d" % loose["id"], {"opportunity_id": deal["id"]}, headers=h).json()
        assert (moved["opportunity_id"], moved["contact_id"]) == (deal["id"], contact)
        error(admin.patch("/api/tasks/%d" % loose["id"], {"opportunity_id": theirs["id"]}, headers=h),
              422, "opportunity_id")
        admin.post("/api/tasks/%d/complete" % mail["id"], {}, headers=h)
        # Its list: open first, then done; another sub-account's deal lists none of them.
        path = "/api/tasks?location_id=1&opportunity=%d" % deal["id"]
        assert ids(admin.get(path).json()["data"]) == [call["id"], loose["id"], mail["id"]]
        assert ids(every_page(admin, path, limit=1)) == [call["id"], loose["id"], mail["id"]]
        assert ids(admin.get(path + "&status=open").json()["data"]) == [call["id"], loose["id"]]
        assert admin.get("/api/tasks?location_id=2&opportunity=%d" % deal["id"]).json()["data"] == []
        error(admin.get("/api/tasks?location_id=1&opportunity=x"), 400, "opportunity")
        # The contact's timeline says which deal a task is for.
        timeline = "/api/contacts/%d/timeline?location_id=1" % contact
        line = "Task Call Dee created for deal Retainer"
        deadline = time.time() + 10
        while line not in [x["line"] for x in admin.get(timeline).json()["data"]] and time.time() < deadline:
            time.sleep(0.02)
        assert line in [x["line"] for x in admin.get(timeline).json()["data"]]
        # The deal deleted, its tasks live on about no deal.
        assert admin.delete("/api/opportunities/%d" % deal["id"], headers=h).status == 204
        deadline = time.time() + 10
        while admin.get(path).json()["data"] and time.time() < deadline:
            time.sleep(0.02)
        assert admin.get(path).json()["data"] == []
        after = admin.get("/api/tasks/%d?location_id=1" % call["id"]).json()
        assert (after["opportunity_id"], after["contact_id"]) == (None, contact)


def test_without_the_deals_module_a_task_takes_no_deal():
    s = harness.Server(modules=("contacts", "tasks"))
    s.create_admin(*harness.ADMIN)
    with s.start():
        admin = s.login(*harness.ADMIN)
        loc = admin.post("/api/admin/locations", {"name": "Client A"}).json()["id"]
        h = headers(admin, loc)
        error(admin.post("/api/tasks", {"title": "t", "opportunity_id": 1}, headers=h), 422,
              "opportunity_id: deals are turned off")
        assert make(admin, h, title="Still fine")["opportunity_id"] is None


def activity(admin, contact):
    return admin.get("/api/contacts/%d?location_id=1" % contact).json()["activity"]


def test_events_reach_the_contacts_activity():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        contact = s.sql("SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL"
                        " ORDER BY id DESC LIMIT 1")[0][0]
        before = activity(admin, contact)
        total = s.sql("SELECT sum(count) FROM contact_activity")[0][0]
        # Tasks without a contact say so: nobody's activity changes.
        loose = make(admin, h, title="Loose")["id"]
        admin.post("/api/tasks/%d/complete" % loose, {}, headers=h)
        admin.delete("/api/tasks/%d" % loose, headers=h)
        t = make(admin, h, title="Busy", contact_id=contact)["id"]
        admin.patch("/api/tasks/%d" % t, {"body": "b"}, headers=h)
        for step in ("complete", "complete", "reopen", "reopen"):  # twice: no second event
            assert admin.post("/api/tasks/%d/%s" % (t, step), {}, headers=h).status == 200
        assert admin.post("/api/tasks", {"title": ""}, headers=h).status == 422  # refused: none
        # The contact's timeline: made, done, reopened, each linking to the contact's tasks.
        lines = ["Task Busy reopened", "Task Busy done", "Task Busy created"]
        timeline = "/api/contacts/%d/timeline?location_id=1&limit=3" % contact
        deadline = time.time() + 10
        while [x["line"] for x in admin.get(timeline).json()["data"]] != lines and time.time() < deadline:
            time.sleep(0.02)
        page = admin.get(timeline).json()["data"]
        assert [x["line"] for x in page] == lines
        assert {x["link"] for x in page} == {"/tasks?contact=%d" % contact}
        assert admin.delete("/api/tasks/%d" % t, headers=h).status == 204
        expected = dict(before)
        for kind in ("task.created", "task.updated", "task.completed", "task.reopened", "task.deleted"):
            expected[kind] = expected.get(kind, 0) + 1
        deadline = time.time() + 10
        while activity(admin, contact) != expected and time.time() < deadline:
            time.sleep(0.02)
        assert activity(admin, contact) == expected
        assert s.sql("SELECT sum(count) FROM contact_activity")[0][0] == total + 5


def test_writes_drop_the_cached_list():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        path = "/api/tasks?location_id=1&status=open&limit=1000"
        assert admin.get(path).header("x-cache") == "miss"
        first = admin.get(path)
        assert first.header("x-cache") == "hit"
        made = make(admin, h, title="Fresh")
        after = admin.get(path)
        assert after.header("x-cache") == "miss" and made["id"] in ids(after.json()["data"])
        assert admin.get(path).header("x-cache") == "hit"
        # The list shows contacts' names: renaming one drops it too.
        contact = next(r["contact_id"] for r in after.json()["data"] if r["contact_id"])
        assert admin.patch("/api/contacts/%d" % contact, {"first_name": "Renamed"}, headers=h).status == 200
        renamed = admin.get(path)
        assert renamed.header("x-cache") == "miss"
        assert any(r["contact_name"].startswith("Renamed") for r in renamed.json()["data"]
                   if r["contact_id"] == contact)
        record = "/api/tasks/%d?location_id=1" % made["id"]
        assert admin.get(record).header("x-cache") == "miss"
        assert admin.get(record).header("x-cache") == "hit"
        admin.post("/api/tasks/%d/complete" % made["id"], {}, headers=h)
        done = admin.get(record)
        assert done.header("x-cache") == "miss" and done.json()["status"] == "completed"


def test_no_statement_of_the_module_scans_a_whole_table():
    s, admin = seeded_server(env={"PGHL_LOG_PLANS": "1", "PGHL_RESULT_CACHE": "0"})
    with s:
        h = headers(admin)
        add_dated_tasks(admin, h)
        contact = s.sql("SELECT contact_id FROM tasks WHERE location_id = 1 AND contact_id IS NOT NULL"
                        " LIMIT 1")[0][0]
        queries = ["", "status=open", "status=completed", "due=overdue", "due=today", "due=week",
                   "assignee=2", "assignee=me", "contact=%d" % contact, "status=completed&assignee=2",
                   "status=open&due=week&assignee=me&contact=%d" % contact, "due=today&status=completed",
                   "opportunity=1", "status=completed&opportunity=1"]
        for query in queries:
            page = admin.get("/api/tasks?location_id=1&limit=3&" + query).json()
            if page["next_cursor"]:
                admin.get("/api/tasks?location_id=1&limit=3&%s&cursor=%s" % (query, page["next_cursor"]))
        t = make(admin, h, title="Plan", contact_id=contact, assignee_id=1, due_at="2026-12-01")
        path = "/api/tasks/%d" % t["id"]
        assert admin.get(path + "?location_id=1").status == 200
        assert admin.patch(path, {"title": "Plan 2", "contact_id": None}, headers=h).status == 200
        assert admin.post(path + "/complete", {}, headers=h).status == 200
        assert admin.post(path + "/reopen", {}, headers=h).status == 200
        assert admin.delete(path, headers=h).status == 204
        s.stop()
        plans = [l for l in s.log.splitlines() if is_plan(l) and
                 re.search(r"\btasks\b", l.split("=>")[0])]
        assert len(plans) >= len(queries) + 6
        for line in plans:
            assert not re.search(r"SCAN (t|tasks|c|contacts|u|users)\b(?! USING)", line), line


def test_the_header_search_and_the_bell_of_a_task_given_to_someone():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 1)
        me = admin.get("/api/auth/me").json()["user"]
        them = user_id(s, "location-1@example.test")
        user = s.login("location-1@example.test", "perf-pass-123")
        before = user.get("/api/notifications").json()
        # ?q: the title's words, accents and case aside; no match is empty
        made = make(admin, h, title="Rückruf bei Ångström")
        assert [t["id"] for t in admin.get("/api/tasks?location_id=1&q=ANGSTROM&limit=5").json()["data"]] \
            == [made["id"]]
        assert admin.get("/api/tasks?location_id=1&q=zzqx-none").json()["data"] == []
        error(admin.get("/api/tasks?location_id=1&q=" + "x" * 201), 400, "q is 1 to 200")
        # given to them: one notification, theirs only; not for one's own
        changed = admin.patch("/api/tasks/%d" % made["id"], {"assignee_id": them}, headers=h)
        assert changed.status == 200, changed.body
        mine = make(admin, h, title="For me", assignee_id=me["id"])
        assert admin.patch("/api/tasks/%d" % made["id"], {"assignee_id": them, "title": "Rückruf"},
                           headers=h).status == 200  # the same assignee: not told again
        told = user.get("/api/notifications").json()
        assert told["unread"] == before["unread"] + 1
        n = told["data"][0]
        assert (n["kind"], n["text"], n["path"], n["location_id"], n["actor_id"], n["actor_name"],
                n["read_at"]) == ("assigned", "assigned you the task “Rückruf bei Ångström”",
                                  "/tasks/%d" % made["id"], 1, me["id"], me["name"], None)
        assert all(x["path"] != "/tasks/%d" % mine["id"] for x in admin.get("/api/notifications").json()["data"])
        # read: by its owner only; then all at once
        error(admin.post("/api/notifications/%d/read" % n["id"], {}, headers=h), 404, "no such notification")
        uh = headers(user, 1)
        assert user.post("/api/notifications/%d/read" % n["id"], {}, headers=uh).status == 204
        after = user.get("/api/notifications").json()
        assert after["unread"] == before["unread"] and after["data"][0]["read_at"]
        assert user.post("/api/notifications/read", {}, headers=uh).status == 204
        assert user.get("/api/notifications").json()["unread"] == 0
        # made for them at once
        make(admin, h, title="Second", assignee_id=them)
        assert user.get("/api/notifications?limit=1").json()["unread"] == 1
