# SPDX-License-Identifier: MIT
"""The agency screens on seeded data: every sub-account's counts equal to
the same counts asked one sub-account at a time (in SQL, and from the
server's own /api/project), after writes through every path that changes
them; the overview equal to their sum and to its series in SQL; the lists
across sub-accounts equal to plain SQL in every order and filter; another
agency's data out of reach; roles; a number of statements per request that
does not grow with the number of sub-accounts; no full scan of a big
table; and a write in any sub-account dropping the cached answers."""

import datetime
import functools
import re
import time

from harness import is_plan
from harness import (cache_checks, connect, error, every_page, headers, iso, local_date, now_iso, one,
                     seeded_server)


def locations(s, agency=1):
    return [r[0] for r in s.sql("SELECT id FROM locations WHERE agency_id = ? AND disabled_at IS NULL"
                                " ORDER BY id", agency)]


def expected_counts(s, L):
    """One sub-account's counts, asked of its own rows only."""
    now = now_iso()
    q = lambda sql: list(s.sql(sql, L)[0])
    deals = q("SELECT count(*), coalesce(sum(value_cents), 0) FROM opportunities"
              " WHERE location_id = ? AND status = 'open'")
    unpaid = "FROM invoices WHERE location_id = ? AND status IN ('sent', 'partially_paid')"
    out = q("SELECT count(*), coalesce(sum(total_cents - paid_cents), 0) " + unpaid)
    late = q("SELECT count(*), coalesce(sum(total_cents - paid_cents), 0) " + unpaid +
             " AND due_at < '%s'" % now)
    return {
        "contacts": one(s, "SELECT count(*) FROM contacts WHERE location_id = ? AND deleted_at IS NULL", L),
        "deals": {"open": deals[0], "open_value_cents": deals[1]},
        "conversations": {"unread": one(s, "SELECT count(*) FROM conversations WHERE location_id = ?"
                                        " AND unread_count > 0", L)},
        "tasks": {"open": one(s, "SELECT count(*) FROM tasks WHERE location_id = ? AND completed_at IS NULL", L),
                  "overdue": one(s, "SELECT count(*) FROM tasks WHERE location_id = ? AND completed_at IS NULL"
                                 " AND due_at < '%s'" % now, L)},
        "invoices": {"outstanding": {"count": out[0], "amount_due_cents": out[1]},
                     "overdue": {"count": late[0], "amount_due_cents": late[1]}},
    }


def scores(s, L):
    return [r[0] for r in s.sql("SELECT health_score FROM contacts WHERE location_id = ?"
                                " AND deleted_at IS NULL AND health_score IS NOT NULL", L)]


def mean(values):
    """Rounded half up, as SQLite's round() does for scores."""
    return int(sum(values) / len(values) + 0.5) if values else None


def expected_project(s, L):
    name, tz, currency = s.sql("SELECT name, timezone, currency FROM locations WHERE id = ?", L)[0]
    times = [t for (t,) in s.sql("SELECT last_message_at FROM conversations WHERE location_id = ?"
                                 " UNION ALL SELECT updated_at FROM contacts WHERE location_id = ?"
                                 " AND deleted_at IS NULL", L, L) if t]
    return {"id": L, "name": name, "timezone": tz, "currency": currency, "counts": expected_counts(s, L),
            "health_score": mean(scores(s, L)), "last_activity_at": max(times) if times else None}


def change_everything(s, admin):
    """Writes through every path that changes a count, in two locations."""
    for L in (1, 2):
        h = headers(admin, L)
        c = admin.post("/api/contacts", {"first_name": "Agency %d" % L}, headers=h).json()
        gone = one(s, "SELECT id FROM contacts WHERE location_id = ? AND deleted_at IS NULL"
                   " ORDER BY id LIMIT 1", L)
        assert admin.delete("/api/contacts/%d" % gone, headers=h).status == 204
        stage, pipeline = s.sql("SELECT id, pipeline_id FROM stages WHERE location_id = ? LIMIT 1", L)[0]
        r = admin.post("/api/opportunities", {"name": "New", "pipeline_id": pipeline, "stage_id": stage,
                                              "value_cents": 777, "contact_id": c["id"]}, headers=h)
        assert r.status == 201, r.body
        won = one(s, "SELECT id FROM opportunities WHERE location_id = ? AND status = 'open'"
                  " ORDER BY id LIMIT 1", L)
        assert admin.patch("/api/opportunities/%d" % won, {"status": "won"}, headers=h).status == 200
        moved = one(s, "SELECT id FROM opportunities WHERE location_id = ? AND status = 'open'"
                    " ORDER BY id DESC LIMIT 1", L)
        assert admin.patch("/api/opportunities/%d" % moved, {"value_cents": 123456}, headers=h).status == 200
        # Owned open deals given to someone else, to no one, moved to
        # another stage, and deleted.
        owned = s.sql("SELECT id, owner_id, stage_id FROM opportunities WHERE location_id = ?"
                      " AND status = 'open' AND owner_id IS NOT NULL ORDER BY id LIMIT 4", L)
        assert len(owned) == 4, owned
        new_owner = one(s, "SELECT user_id FROM user_locations WHERE location_id = ? AND user_id <> ?"
                        " LIMIT 1", L, owned[0][1])
        elsewhere = one(s, "SELECT id FROM stages WHERE pipeline_id = (SELECT pipeline_id FROM stages"
                        " WHERE id = ?) AND id <> ? LIMIT 1", owned[2][2], owned[2][2])
        for deal, change in ((owned[0][0], {"owner_id": new_owner}), (owned[1][0], {"owner_id": None}),
                             (owned[2][0], {"stage_id": elsewhere})):
            r = admin.patch("/api/opportunities/%d" % deal, change, headers=h)
            assert r.status == 200, r.body
        assert admin.delete("/api/opportunities/%d" % owned[3][0], headers=h).status == 204
        assert admin.post("/api/tasks", {"title": "Late", "due_at": "2020-01-01"}, headers=h).status == 201
        # Due today: a minute ago (overdue), in an hour (not yet, or tomorrow).
        now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
        for due in (now - datetime.timedelta(minutes=1), now + datetime.timedelta(hours=1)):
            r = admin.post("/api/tasks", {"title": "Today", "due_at": iso(due)}, headers=h)
            assert r.status == 201, r.body
        done = one(s, "SELECT id FROM tasks WHERE location_id = ? AND completed_at IS NULL LIMIT 1", L)
        assert admin.post("/api/tasks/%d/complete" % done, {}, headers=h).status == 200
        assert admin.post("/api/tasks/%d/reopen" % done, {}, headers=h).status == 200
        done = one(s, "SELECT id FROM tasks WHERE location_id = ? AND completed_at IS NULL"
                   " ORDER BY id DESC LIMIT 1", L)
        assert admin.post("/api/tasks/%d/complete" % done, {}, headers=h).status == 200
        # A won deal's value changed, then the deal reopened; a task given
        # to someone else; an upsert and an import.
        assert admin.patch("/api/opportunities/%d" % won, {"value_cents": 999}, headers=h).status == 200
        assert admin.patch("/api/opportunities/%d" % won, {"status": "open"}, headers=h).status == 200
        other = one(s, "SELECT id FROM tasks WHERE location_id = ? AND completed_at IS NULL"
                    " AND assignee_id IS NOT NULL ORDER BY id LIMIT 1", L)
        assert admin.patch("/api/tasks/%d" % other, {"assignee_id": None}, headers=h).status == 200
        assert admin.post("/api/contacts/upsert", {"email": "upsert%d@example.test" % L,
                                                   "first_name": "Up"}, headers=h).status in (200, 201)
        r = admin.request("POST", "/api/contacts/import", body=b"first_name,email\nImp,imp%d@example.test\n" % L,
                          headers=dict(h, **{"Content-Type": "text/csv"}))
        assert r.status == 200 and r.json()["created"] == 1, r.body
        # Invoices sent (one overdue, one due next month, one undated),
        # paid in part, paid in full and voided.
        sent = []
        for due in ("2020-02-01", "2099-01-01", None):
            r = admin.post("/api/invoices", {"items": [{"description": "Work", "quantity": 2,
                           "unit_price_cents": 1500}], "due_at": due}, headers=h)
            assert r.status == 201, r.body
            assert admin.post("/api/invoices/%d/send" % r.json()["id"], {}, headers=h).status == 200
            sent.append(r.json()["id"])
        pay = lambda i, cents: admin.post("/api/invoices/%d/payments" % i,
                                          {"amount_cents": cents, "method": "cash"}, headers=h)
        assert pay(sent[0], 1000).status == 201 and pay(sent[1], 3000).status == 201
        assert admin.post("/api/invoices/%d/void" % sent[2], {}, headers=h).status == 200
        r = admin.post("/api/invoices", {"items": [{"description": "Open", "quantity": 1,
                       "unit_price_cents": 700}]}, headers=h)
        assert admin.post("/api/invoices/%d/send" % r.json()["id"], {}, headers=h).status == 200
    # Scores as the hourly job writes them, a purge of deleted contacts, a
    # restore, rows moved to another location and REPLACEd, as raw SQL
    # does on the server's connections (recursive triggers on).
    s.sql("UPDATE contacts SET health_score = (id * 37) % 101 WHERE location_id IN (1, 2, 3) AND id % 3 = 0")
    s.sql("UPDATE contacts SET health_score = NULL WHERE location_id = 1 AND id % 9 = 0")
    s.sql("DELETE FROM contacts WHERE location_id = 2 AND deleted_at IS NOT NULL")
    s.sql("UPDATE contacts SET deleted_at = NULL WHERE location_id = 1 AND deleted_at IS NOT NULL")
    s.sql("DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE location_id = 3 LIMIT 5)")
    s.sql("DELETE FROM opportunities WHERE id IN (SELECT id FROM opportunities WHERE location_id = 3"
          " AND status = 'open' LIMIT 3)")
    s.sql("UPDATE tasks SET location_id = 4 WHERE id IN (SELECT id FROM tasks WHERE location_id = 3"
          " AND completed_at IS NULL LIMIT 4)")
    s.sql("UPDATE contacts SET location_id = 4 WHERE id IN (SELECT id FROM contacts WHERE location_id = 3"
          " AND deleted_at IS NULL AND health_score IS NOT NULL LIMIT 4)")
    # The days figures are kept by: times moved, rows deleted, turned and
    # added, in the last 30 days.
    ago = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-{} days')".format
    s.sql("UPDATE contacts SET created_at = " + ago(3) + " WHERE id IN (SELECT id FROM contacts"
          " WHERE location_id = 2 AND deleted_at IS NULL ORDER BY id DESC LIMIT 4)")
    s.sql("UPDATE opportunities SET closed_at = " + ago(2) + " WHERE id IN (SELECT id FROM opportunities"
          " WHERE location_id = 1 AND status = 'won' ORDER BY closed_at DESC LIMIT 3)")
    s.sql("UPDATE messages SET created_at = " + ago(1) + " WHERE id IN (SELECT id FROM messages"
          " WHERE location_id = 1 AND direction = 'inbound' ORDER BY id DESC LIMIT 5)")
    s.sql("DELETE FROM messages WHERE id IN (SELECT id FROM messages WHERE location_id = 2"
          " AND direction = 'inbound' ORDER BY id DESC LIMIT 5)")
    s.sql("UPDATE messages SET direction = 'outbound' WHERE id IN (SELECT id FROM messages"
          " WHERE location_id = 3 AND direction = 'inbound' ORDER BY id DESC LIMIT 3)")
    s.sql("INSERT INTO messages (location_id, conversation_id, direction, channel, body, status)"
          " SELECT location_id, id, 'inbound', 'sms', 'Hi', 'received' FROM conversations"
          " WHERE location_id = 4 LIMIT 2")
    s.sql("UPDATE payments SET paid_at = " + ago(2) + " WHERE id IN (SELECT id FROM payments"
          " WHERE location_id = 1 ORDER BY paid_at DESC LIMIT 3)")
    s.sql("UPDATE payments SET amount_cents = amount_cents + 1 WHERE id IN (SELECT id FROM payments"
          " WHERE location_id = 3 ORDER BY paid_at DESC LIMIT 3)")
    s.sql("DELETE FROM payments WHERE id IN (SELECT id FROM payments WHERE location_id = 2"
          " ORDER BY paid_at DESC LIMIT 2)")
    # A task due before 1970, for someone with none there yet.
    s.sql("INSERT INTO tasks (location_id, title, due_at, assignee_id) VALUES (4, 'Moon',"
          " '1969-07-20T20:17:00.000Z', (SELECT id FROM users WHERE id NOT IN"
          " (SELECT coalesce(assignee_id, 0) FROM tasks WHERE location_id = 4) ORDER BY id LIMIT 1))")
    s.sql("DELETE FROM invoices WHERE id IN (SELECT id FROM invoices WHERE location_id = 3"
          " AND status = 'sent' LIMIT 2)")
    s.sql("UPDATE invoices SET location_id = 4, number = 'MOVED-' || id WHERE id IN (SELECT id"
          " FROM invoices WHERE location_id = 3 AND status = 'partially_paid' LIMIT 2)")
    s.sql("UPDATE invoices SET total_cents = total_cents + 5 WHERE id IN (SELECT id FROM invoices"
          " WHERE location_id = 4 AND status = 'sent' LIMIT 2)")
    with connect(s.db_path) as db:
        db.execute("PRAGMA recursive_triggers = ON")
        db.execute("INSERT OR REPLACE INTO tasks (id, location_id, title) SELECT id, 2, 'Replaced'"
                   " FROM tasks WHERE location_id = 4 AND completed_at IS NULL LIMIT 3")
        db.execute("INSERT OR REPLACE INTO opportunities (id, location_id, pipeline_id, stage_id, name,"
                   " value_cents, status) SELECT id, location_id, pipeline_id, stage_id, name, 5, 'lost'"
                   " FROM opportunities WHERE location_id = 4 AND status = 'open' LIMIT 3")


PROJECT_SORTS = {
    "name": lambda p: (p["name"].lower(), p["id"]),
    "contacts": lambda p: (p["counts"]["contacts"], p["id"]),
    "value": lambda p: (p["counts"]["deals"]["open_value_cents"], p["id"]),
    "overdue": lambda p: (p["counts"]["tasks"]["overdue"], p["id"]),
    "health": lambda p: (-1 if p["health_score"] is None else p["health_score"], p["id"]),
    "activity": lambda p: (p["last_activity_at"] or "", p["id"]),
}


def test_projects_equal_each_sub_account_asked_alone():
    s, admin = seeded_server()
    with s:
        change_everything(s, admin)
        got = admin.get("/api/agency/projects?count=1")
        assert got.status == 200, got.body
        got = got.json()
        assert got["total"] == 4 and got["next_cursor"] is None
        want = [expected_project(s, L) for L in locations(s)]
        assert sorted(got["data"], key=lambda p: p["id"]) == want
        assert any(p["health_score"] is not None for p in want)
        assert all(p["counts"]["contacts"] and p["counts"]["tasks"]["overdue"] for p in want)
        # The server's own count of one sub-account says the same.
        for p in got["data"]:
            project = admin.get("/api/project?location_id=%d" % p["id"]).json()
            assert project["counts"] == p["counts"] and project["health_score"] == p["health_score"]
        # Every order, both ways, page by page.
        for name, key in PROJECT_SORTS.items():
            for desc in (False, True):
                rows = every_page(admin, "/api/agency/projects?sort=%s%s" % ("-" if desc else "", name),
                                  limit=3)
                assert rows == sorted(want, key=key, reverse=desc), name
        # A search by name.
        named = want[1]["name"].split()[0]
        rows = admin.get("/api/agency/projects?q=%s&count=1" % named.lower()).json()
        assert [p["id"] for p in rows["data"]] == [p["id"] for p in want if named in p["name"]]
        assert rows["total"] == len(rows["data"])
        error(admin.get("/api/agency/projects?sort=size"), 400, "sort is")
        error(admin.get("/api/agency/projects?limit=0"), 400, "limit")
        error(admin.get("/api/agency/projects?cursor=zz"), 400, "cursor")


def test_kept_counts_follow_every_write():
    """The counts the modules keep per sub-account equal a count of the rows."""
    s, admin = seeded_server()
    with s:
        change_everything(s, admin)
        assert s.sql("SELECT location_id, live, scored, health_sum FROM contact_counts ORDER BY 1") == \
            s.sql("SELECT location_id, count(*), count(health_score), coalesce(sum(health_score), 0)"
                  " FROM contacts WHERE deleted_at IS NULL GROUP BY location_id ORDER BY 1")
        assert s.sql("SELECT location_id, assignee, open FROM task_counts WHERE open > 0 ORDER BY 1, 2") == \
            s.sql("SELECT location_id, coalesce(assignee_id, 0), count(*) FROM tasks WHERE completed_at IS NULL"
                  " GROUP BY 1, 2 ORDER BY 1, 2")
        assert s.sql("SELECT stage_id, status, location_id, deals, cents FROM stage_counts WHERE deals > 0"
                     " ORDER BY 1, 2") == \
            s.sql("SELECT stage_id, status, location_id, count(*), sum(value_cents) FROM opportunities"
                  " GROUP BY 1, 2 ORDER BY 1, 2")
        assert s.sql("SELECT owner_id, stage_id, deals, cents FROM owner_open_counts WHERE deals > 0"
                     " ORDER BY 1, 2") == \
            s.sql("SELECT owner_id, stage_id, count(*), sum(value_cents) FROM opportunities"
                  " WHERE status = 'open' AND owner_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2")
        # Each sub-account's day, in its time zone.
        day = "local_day(unixepoch({}), (SELECT timezone FROM locations z WHERE z.id = location_id))"
        for keys, kept, counted in (
                (2, "SELECT location_id, day, created FROM contact_days",
                 "SELECT location_id, " + day.format("created_at") + ", count(*) FROM contacts"
                 " WHERE deleted_at IS NULL"),
                (3, "SELECT location_id, status, day, deals, cents FROM closed_days",
                 "SELECT location_id, status, " + day.format("closed_at") + ", count(*),"
                 " sum(value_cents) FROM opportunities WHERE status IN ('won', 'lost')"
                 " AND closed_at IS NOT NULL"),
                (2, "SELECT location_id, day, received FROM received_days",
                 "SELECT location_id, " + day.format("created_at") + ", count(*) FROM messages"
                 " WHERE direction = 'inbound'"),
                (3, "SELECT location_id, assignee, day, open FROM due_days",
                 "SELECT location_id, coalesce(assignee_id, 0), coalesce(" + day.format("due_at") +
                 ", 2147483647), count(*) FROM tasks WHERE completed_at IS NULL"),
                (2, "SELECT location_id, day, payments, cents FROM payment_days",
                 "SELECT location_id, " + day.format("paid_at") + ", count(*), sum(amount_cents)"
                 " FROM payments WHERE 1")):
            first = kept.split(", ")[keys].split()[0]
            by = ", ".join(str(k + 1) for k in range(keys))
            assert s.sql(kept + " WHERE " + first + " > 0 ORDER BY " + by) == \
                s.sql(counted + " GROUP BY " + by + " ORDER BY " + by), kept
        assert s.sql("SELECT location_id, unpaid, due_cents FROM unpaid_counts WHERE unpaid > 0"
                     " ORDER BY 1") == \
            s.sql("SELECT location_id, count(*), sum(total_cents - paid_cents) FROM invoices"
                  " WHERE status IN ('sent', 'partially_paid') GROUP BY 1 ORDER BY 1")
        # The open tasks due before each row's day, whatever that day is.
        assert s.sql("SELECT location_id, assignee, day, late FROM late_counts ORDER BY 1, 2") == \
            s.sql("SELECT l.location_id, l.assignee, l.day, (SELECT count(*) FROM tasks t"
                  " WHERE t.location_id = l.location_id AND coalesce(t.assignee_id, 0) = l.assignee"
                  " AND t.completed_at IS NULL AND " + LOCAL_DUE_DAY + " < l.day)"
                  " FROM late_counts l ORDER BY 1, 2")
        assert s.sql("SELECT DISTINCT location_id, assignee FROM due_days ORDER BY 1, 2") == \
            s.sql("SELECT location_id, assignee FROM late_counts ORDER BY 1, 2")
        assert s.sql("SELECT count(*) FROM tasks WHERE title = 'Replaced'")[0][0] == 3
        # The server's connections REPLACE the same way.
        assert admin.get("/api/admin/metrics").json()["sqlite"]["recursive_triggers"] == 1


# An open task's due day in its sub-account's time zone, for tasks t.
LOCAL_DUE_DAY = "local_day(unixepoch(t.due_at), (SELECT timezone FROM locations z" \
    " WHERE z.id = t.location_id))"


def expected_series(s, since):
    """The agency's 30 days by date, each sub-account counting on the
    dates of its own time zone."""
    zones = dict(s.sql("SELECT id, timezone FROM locations"))
    dates = [(since + datetime.timedelta(days=d)).strftime("%Y-%m-%d") for d in range(30)]
    out = {d: {"date": d, "contacts_new": 0, "deals_won": 0, "deals_won_cents": 0,
               "messages_received": 0, "payments_cents": 0} for d in dates}

    def add(sql, count_key, cents_key=None):
        for location, t, cents in s.sql(sql):
            d = local_date(t, zones[location])
            if d in out:
                out[d][count_key] += 1
                if cents_key:
                    out[d][cents_key] += cents
    add("SELECT location_id, created_at, 0 FROM contacts WHERE deleted_at IS NULL", "contacts_new")
    add("SELECT location_id, closed_at, value_cents FROM opportunities WHERE status = 'won'",
        "deals_won", "deals_won_cents")
    add("SELECT location_id, created_at, 0 FROM messages WHERE direction = 'inbound'", "messages_received")
    for location, t, cents in s.sql("SELECT location_id, paid_at, amount_cents FROM payments"
                                    " WHERE paid_at IS NOT NULL"):
        d = local_date(t, zones[location])
        if d in out:
            out[d]["payments_cents"] += cents
    return [out[d] for d in dates]


def test_overview_adds_up_the_sub_accounts():
    s, admin = seeded_server()
    with s:
        change_everything(s, admin)
        got = admin.get("/api/agency/overview")
        assert got.status == 200, got.body
        got = got.json()
        each = [expected_counts(s, L) for L in locations(s)]

        def total(*keys):
            return sum(functools.reduce(lambda c, k: c[k], keys, c) for c in each)
        assert got["sub_accounts"] == 4
        assert got["counts"]["contacts"] == total("contacts")
        assert got["counts"]["deals"] == {"open": total("deals", "open"),
                                          "open_value_cents": total("deals", "open_value_cents")}
        assert got["counts"]["conversations"]["unread"] == total("conversations", "unread")
        assert got["counts"]["tasks"] == {"open": total("tasks", "open"),
                                          "overdue": total("tasks", "overdue")}
        for k in ("outstanding", "overdue"):
            assert got["counts"]["invoices"][k] == {
                "count": total("invoices", k, "count"),
                "amount_due_cents": total("invoices", k, "amount_due_cents")}
        assert got["health_score"] == mean([x for L in locations(s) for x in scores(s, L)])
        today = datetime.datetime.now(datetime.timezone.utc).date()
        since = datetime.datetime.combine(today - datetime.timedelta(days=29), datetime.time())
        assert got["since"] == iso(since)
        assert got["series"] == expected_series(s, since)
        assert sum(d["messages_received"] for d in got["series"]) and \
            sum(d["contacts_new"] for d in got["series"]) and sum(d["deals_won"] for d in got["series"])


def another_agency(s):
    """A second agency with a location, a contact and a task, and its admin
    (other@elsewhere.test, with the perf user's password)."""
    s.sql("INSERT INTO agencies (id, name) VALUES (2, 'Other agency')")
    s.sql("INSERT INTO locations (id, agency_id, name) VALUES (99, 2, 'Not yours')")
    s.sql("INSERT INTO contacts (location_id, first_name, email) VALUES (99, 'Hidden', 'hidden@elsewhere.test')")
    s.sql("INSERT INTO tasks (location_id, title) VALUES (99, 'Hidden task')")
    s.sql("INSERT INTO users (agency_id, email, name, role, password_hash) SELECT 2, 'other@elsewhere.test',"
          " 'Other', 'agency_admin', password_hash FROM users WHERE email = 'perf@example.test'")
    return 99


def contacts_sql(s, where="1", *args):
    return [r[0] for r in s.sql(
        "SELECT c.id FROM contacts c JOIN locations l ON l.id = c.location_id WHERE l.agency_id = 1"
        " AND l.disabled_at IS NULL AND c.deleted_at IS NULL AND " + where +
        " ORDER BY c.created_at DESC, c.id DESC", *args)]


def test_contacts_across_sub_accounts():
    s, admin = seeded_server()
    with s:
        hidden = another_agency(s)
        assert admin.patch("/api/admin/locations/4", {"disabled": True}).status == 200
        rows = every_page(admin, "/api/agency/contacts", limit=200)
        assert [r["id"] for r in rows] == contacts_sql(s)
        assert one(s, "SELECT count(*) FROM contacts WHERE location_id = 4") > 0
        names = dict(s.sql("SELECT id, name FROM locations"))
        assert all(r["location_name"] == names[r["location_id"]] for r in rows)
        assert {r["location_id"] for r in rows} == {1, 2, 3}
        first = rows[0]
        assert set(first) == {"id", "location_id", "location_name", "first_name", "last_name", "email",
                              "phone", "company_name", "owner_id", "created_at"}
        # One sub-account; another agency's is not found.
        rows = every_page(admin, "/api/agency/contacts?location_id=3", limit=50)
        assert [r["id"] for r in rows] == contacts_sql(s, "c.location_id = 3")
        assert admin.get("/api/agency/contacts?location_id=%d" % hidden).status == 404
        # Searches, long and short, as plain LIKE scans find them.
        text = "c.first_name || ' ' || c.last_name || ' ' || coalesce(c.email, '') || ' ' ||" \
               " coalesce(c.phone, '') || ' ' || coalesce(c.company_name, '')"
        for q in ("ann", "inbox", "ta"):
            rows = every_page(admin, "/api/agency/contacts?q=" + q, limit=40)
            if len(q) >= 3:
                want = contacts_sql(s, text + " LIKE ?", "%" + q + "%")
            else:
                want = contacts_sql(s, "(c.first_name LIKE ?1 OR c.last_name LIKE ?1 OR c.email LIKE ?1)",
                                    q + "%")
            assert [r["id"] for r in rows] == want and want, q
        assert admin.get("/api/agency/contacts?q=hidden").json()["data"] == []
        # LIKE's wildcards are dropped, as the contact list drops them.
        assert every_page(admin, "/api/agency/contacts?q=an%25n_", limit=40) == \
            every_page(admin, "/api/agency/contacts?q=ann", limit=40)
        assert len(every_page(admin, "/api/agency/contacts?q=%25", limit=100)) == \
            len(contacts_sql(s, "1"))
        # A tag, by its name in any sub-account.
        tag = one(s, "SELECT name FROM tags t JOIN contact_tags ct ON ct.tag_id = t.id"
                  " GROUP BY name ORDER BY count(DISTINCT t.location_id) DESC, count(*) DESC LIMIT 1")
        rows = every_page(admin, "/api/agency/contacts?tag=" + tag, limit=25)
        want = contacts_sql(s, "c.id IN (SELECT contact_id FROM contact_tags ct JOIN tags t"
                            " ON t.id = ct.tag_id WHERE t.name = ?)", tag)
        assert [r["id"] for r in rows] == want and len({r["location_id"] for r in rows}) > 1


def test_deals_by_status_and_stage():
    s, admin = seeded_server()
    with s:
        another_agency(s)
        # A sub-account without deals is on the screen too.
        admin.post("/api/admin/locations", {"name": "Empty"})
        for status in ("open", "won", "lost", "abandoned"):
            path = "/api/agency/opportunities" + ("?status=" + status if status != "open" else "")
            rows = every_page(admin, path, limit=2, key="sub_accounts")
            got = admin.get(path).json()
            assert got["status"] == status
            want = []
            for L, name, currency in s.sql("SELECT id, name, currency FROM locations WHERE agency_id = 1"
                                           " ORDER BY name COLLATE NOCASE, id"):
                stages = [{"id": sid, "name": sname, "pipeline_id": pid, "pipeline_name": pname,
                           "count": n, "value_cents": v}
                          for sid, sname, pid, pname, n, v in s.sql(
                              "SELECT s.id, s.name, p.id, p.name, count(*), sum(o.value_cents)"
                              " FROM opportunities o JOIN stages s ON s.id = o.stage_id"
                              " JOIN pipelines p ON p.id = s.pipeline_id WHERE o.location_id = ?"
                              " AND o.status = ? GROUP BY s.id ORDER BY p.position, p.id, s.position, s.id",
                              L, status)]
                want.append({"id": L, "name": name, "currency": currency, "stages": stages,
                             "count": sum(x["count"] for x in stages),
                             "value_cents": sum(x["value_cents"] for x in stages)})
            assert rows == want and len(want) == 5 and want[0]["stages"], status
            assert any(r["name"] == "Empty" and r["stages"] == [] for r in rows)
        totals = got["totals"]
        for status, (n, v) in {st: s.sql("SELECT count(*), coalesce(sum(o.value_cents), 0) FROM opportunities o"
                                         " JOIN locations l ON l.id = o.location_id WHERE l.agency_id = 1"
                                         " AND o.status = ?", st)[0]
                               for st in ("open", "won", "lost", "abandoned")}.items():
            assert totals[status] == {"count": n, "value_cents": v}, status
        one_page = admin.get("/api/agency/opportunities?location_id=2").json()
        assert [r["id"] for r in one_page["sub_accounts"]] == [2] and one_page["next_cursor"] is None
        error(admin.get("/api/agency/opportunities?status=closed"), 400, "status is")
        error(admin.get("/api/agency/opportunities?cursor=nothex"), 400, "cursor")


def test_tasks_by_assignee():
    s, admin = seeded_server()
    with s:
        another_agency(s)
        got = admin.get("/api/agency/tasks")
        assert got.status == 200, got.body
        now = now_iso()
        mine = "FROM tasks t JOIN locations l ON l.id = t.location_id WHERE l.agency_id = 1" \
               " AND t.completed_at IS NULL"
        want = [{"id": a, "name": n, "open": o, "overdue": d} for a, n, o, d in s.sql(
            "SELECT t.assignee_id, u.name, count(*), count(*) FILTER (WHERE t.due_at < ?) " + mine.replace(
                "FROM tasks t", "FROM tasks t LEFT JOIN users u ON u.id = t.assignee_id") +
            " GROUP BY t.assignee_id ORDER BY u.name COLLATE NOCASE, t.assignee_id", now)]
        assert got.json()["assignees"] == want and len(want) > 2
        order = " ORDER BY ifnull(t.due_at, 'z'), t.id"
        for query, where, args in (("", "", ()),
                                   ("status=overdue", " AND t.due_at < ?", (now,)),
                                   ("assignee=%d" % want[1]["id"], " AND t.assignee_id = ?", (want[1]["id"],)),
                                   ("assignee=me&status=overdue", " AND t.assignee_id = 1 AND t.due_at < ?",
                                    (now,)),
                                   ("location_id=2", " AND t.location_id = 2", ())):
            rows = every_page(admin, "/api/agency/tasks?" + query, limit=100)
            assert [r["id"] for r in rows] == [r[0] for r in s.sql("SELECT t.id " + mine + where + order,
                                                                   *args)], query
        row = rows[0]
        assert set(row) == {"id", "location_id", "location_name", "title", "due_at", "assignee_id",
                            "contact_id"}
        error(admin.get("/api/agency/tasks?status=done"), 400, "status is")
        error(admin.get("/api/agency/tasks?assignee=someone"), 400, "assignee")


def test_overdue_tasks_whatever_day_their_counts_are_kept_to():
    """The tasks module counts each assignee's open tasks due before a day,
    which its job moves to today after midnight: before it has run, or
    after the clock went back, the screens still count every overdue task."""
    s, admin = seeded_server(env={"PGHL_RESULT_CACHE": "0"})
    with s:
        # The job runs a second after start and moves every row to today.
        today_of = "local_day(unixepoch(), (SELECT timezone FROM locations z" \
            " WHERE z.id = late_counts.location_id))"
        for _ in range(100):
            behind = s.sql("SELECT count(*) FROM late_counts WHERE day <> " + today_of)[0][0]
            if not behind:
                break
            time.sleep(0.1)
        assert behind == 0 and s.sql("SELECT count(*) FROM late_counts")[0][0] > 3
        change_everything(s, admin)
        today = int(time.time() // 86400)
        for day in (0, today - 3, today, today + 2):
            s.sql("UPDATE late_counts SET day = ?, late = (SELECT count(*) FROM tasks t"
                  " WHERE t.location_id = late_counts.location_id"
                  " AND coalesce(t.assignee_id, 0) = late_counts.assignee AND t.completed_at IS NULL"
                  " AND " + LOCAL_DUE_DAY + " < ?)", day, day)
            now = now_iso()
            projects = {p["id"]: p["counts"]["tasks"]["overdue"]
                        for p in every_page(admin, "/api/agency/projects")}
            assert projects == {L: expected_counts(s, L)["tasks"]["overdue"] for L in locations(s)}, day
            overview = admin.get("/api/agency/overview").json()["counts"]["tasks"]["overdue"]
            assert overview == sum(projects.values())
            assignees = admin.get("/api/agency/tasks").json()["assignees"]
            assert {a["id"]: a["overdue"] for a in assignees} == dict(s.sql(
                "SELECT t.assignee_id, count(*) FROM tasks t JOIN locations l ON l.id = t.location_id"
                " WHERE l.agency_id = 1 AND t.completed_at IS NULL AND t.due_at < ?"
                " GROUP BY 1", now)), day


AGENCY = ("/api/agency/projects", "/api/agency/overview", "/api/agency/contacts",
          "/api/agency/opportunities", "/api/agency/tasks")


def test_only_agency_staff_may_look_across():
    s, admin = seeded_server()
    with s:
        hidden = another_agency(s)
        user = s.login("location-2@example.test", "perf-pass-123")
        r = admin.post("/api/admin/users", {"email": "staff@example.test", "name": "Staff", "role": "agency_user",
                                            "password": "staff-pass-12"})
        assert r.status == 201, r.body
        staff = s.login("staff@example.test", "staff-pass-12")
        nobody = s.client()
        for path in AGENCY:
            assert admin.get(path).status == 200, path
            assert staff.get(path).status == 200, path
            error(user.get(path), 403, "role")
            assert nobody.get(path).status == 401, path
            assert admin.get(path + "?location_id=%d" % hidden).status == 404, path
        assert staff.get("/api/agency/projects").json() == admin.get("/api/agency/projects").json()
        assert hidden not in [p["id"] for p in admin.get("/api/agency/projects?limit=1000").json()["data"]]
        # Another agency's admin, asking the same cached screens, sees theirs.
        other = s.login("other@elsewhere.test", "perf-pass-123")
        for path in AGENCY:
            assert admin.get(path).status == 200
        got = other.get("/api/agency/projects").json()["data"]
        assert [p["id"] for p in got] == [hidden] and got[0]["counts"]["contacts"] == 1
        assert [t["title"] for t in other.get("/api/agency/tasks").json()["data"]] == ["Hidden task"]
        assert [c["first_name"] for c in other.get("/api/agency/contacts").json()["data"]] == ["Hidden"]
        assert other.get("/api/agency/overview").json()["sub_accounts"] == 1
        assert other.get("/api/agency/projects?location_id=1").status == 404
        # An "assigned only" agency user sees only what is theirs: not these.
        r = admin.post("/api/admin/users", {"email": "own@example.test", "name": "Own", "role": "agency_user",
                                            "password": "own-pass-1234", "assigned_only": True})
        assert r.status == 201, r.body
        own = s.login("own@example.test", "own-pass-1234")
        for path in AGENCY:
            error(own.get(path), 403, "assigned to you")
        # A disabled sub-account leaves the screens.
        assert admin.patch("/api/admin/locations/4", {"disabled": True}).status == 200
        assert [p["id"] for p in admin.get("/api/agency/projects").json()["data"]] == \
            [L for (L,) in s.sql("SELECT id FROM locations WHERE agency_id = 1 AND id != 4"
                                 " ORDER BY name COLLATE NOCASE, id")]
        assert admin.get("/api/agency/overview").json()["sub_accounts"] == 3
        assert admin.get("/api/agency/contacts?location_id=4").status == 404


def statements_per_request(s, admin, paths):
    """How many statements one request of each path runs, from the metrics
    read before and after each request (paths of one route share its
    counters): the least of three, since a request that finds its session
    read over a second ago reads it again (README, "Sessions")."""
    def statements(pattern):
        routes = admin.get("/api/admin/metrics").json()["routes"]
        return next((r["statements"] for r in routes if r["pattern"] == pattern), 0)
    out = {}
    for path in paths:
        pattern = path.split("?")[0]
        runs = []
        for _ in range(3):
            before = statements(pattern)
            assert admin.get(path).status == 200, path
            runs.append(statements(pattern) - before)
        out[path] = min(runs)
    return out


MANY = AGENCY + ("/api/agency/contacts?q=ann", "/api/agency/contacts?tag=vip",
                 "/api/agency/tasks?status=overdue", "/api/mobile/inbox", "/api/mobile/projects")


def test_statements_do_not_grow_with_the_sub_accounts():
    s, admin = seeded_server(env={"PGHL_RESULT_CACHE": "0"})
    with s:
        few = statements_per_request(s, admin, MANY)
        assert all(1 <= n <= 6 for n in few.values()), few
        # Eight more sub-accounts, each with rows in every table read.
        for i in range(8):
            L = admin.post("/api/admin/locations", {"name": "Extra %d" % i}).json()["id"]
            h = headers(admin, L)
            c = admin.post("/api/contacts", {"first_name": "Extra", "email": "x%d@example.test" % i},
                           headers=h).json()
            assert admin.post("/api/tasks", {"title": "Late", "due_at": "2020-01-01"}, headers=h).status == 201
            p = admin.post("/api/pipelines", {"name": "P"}, headers=h).json()["id"]
            r = admin.post("/api/pipelines/%d/stages" % p, {"name": "A"}, headers=h)
            assert r.status == 201, r.body
            stage = one(s, "SELECT id FROM stages WHERE pipeline_id = ?", p)
            assert admin.post("/api/opportunities", {"name": "D", "pipeline_id": p, "stage_id": stage},
                              headers=h).status == 201
            assert admin.post("/api/conversations/inbound", {"contact_id": c["id"], "channel": "sms",
                                                              "body": "Hi"}, headers=h).status in (200, 201)
        assert admin.get("/api/agency/projects").json()["data"].__len__() == 12
        many = statements_per_request(s, admin, MANY)
        assert many == few, (few, many)


BIG = r"(contacts|opportunities|conversations|messages|tasks|invoices|payments|contact_tags|tags" \
      r"|contact_search|users|user_locations|c|o|t|k|ct|u|ul|lu)"


def test_no_statement_scans_a_big_table():
    # locations are not counted as big: one row per sub-account, all of
    # them wanted by an agency's screens.
    s, admin = seeded_server(env={"PGHL_LOG_PLANS": "1", "PGHL_RESULT_CACHE": "0"})
    with s:
        user = s.login("location-2@example.test", "perf-pass-123")
        cursor = admin.get("/api/agency/projects?sort=-health&limit=1").json()["next_cursor"]
        for path in AGENCY + ("/api/agency/projects?sort=-health&count=1&q=a&cursor=" + cursor,
                              "/api/agency/contacts?q=ann", "/api/agency/contacts?q=ta&tag=vip",
                              "/api/agency/contacts?location_id=2&cursor=" +
                              admin.get("/api/agency/contacts?limit=1").json()["next_cursor"],
                              "/api/agency/tasks?status=overdue&assignee=me",
                              "/api/agency/opportunities?status=won"):
            assert admin.get(path).status == 200, path
        for client in (admin, user):
            for path in ("/api/mobile/summary", "/api/mobile/inbox?unread=1", "/api/mobile/deals",
                         "/api/mobile/projects"):
                assert client.get(path).status == 200, path
            page = client.get("/api/mobile/inbox?limit=2").json()
            assert client.get("/api/mobile/inbox?cursor=" + page["next_cursor"]).status == 200
        s.stop()
        plans = [l for l in s.log.splitlines() if is_plan(l) and
                 re.search(r":agency\b|:user\b|WITH loc AS", l.split("=>")[0])]
        assert len(plans) >= 16, plans
        assert any("stage_counts" in l for l in plans) and any(":per_stage" in l for l in plans)
        for line in plans:
            # Not even a walk of a whole index; a trigram MATCH is the
            # index's own search. With ANALYZE's figures SQLite may walk
            # users_agency_staff, which holds only the agencies' staff
            # (location users, the many, are not in it).
            plan = line.split("=>", 1)[-1].replace("SCAN u USING INDEX users_agency_staff", "")
            assert not re.search(r"SCAN %s\b(?! VIRTUAL TABLE INDEX \d+:M)" % BIG, plan), line


def test_a_write_in_any_sub_account_drops_the_answers():
    # Without the tick jobs: a slice of the health job writes contacts of
    # every sub-account, which drops every answer whenever it lands.
    s, admin = seeded_server(env={"PGHL_JOBS": "no"})
    with s:
        for path in ("/api/agency/projects", "/api/agency/overview"):
            cached, dropped = cache_checks(admin, path)
            cached()
            before = admin.get(path).json()
            total = lambda got: sum(p["counts"]["contacts"] for p in got["data"]) if "data" in got \
                else got["counts"]["contacts"]
            for L in (2, 4):
                assert admin.post("/api/contacts", {"first_name": "Any"}, headers=headers(admin, L)).status == 201
                got = dropped()
                assert total(got) == total(before) + 1, path
                before = got
                cached()
        cached, dropped = cache_checks(admin, "/api/agency/tasks")
        cached()
        n = admin.get("/api/agency/tasks").json()["assignees"]
        assert admin.post("/api/tasks", {"title": "New"}, headers=headers(admin, 3)).status == 201
        assert sum(a["open"] for a in dropped()["assignees"]) == sum(a["open"] for a in n) + 1
        cached, dropped = cache_checks(admin, "/api/agency/opportunities")
        cached()
        deal = one(s, "SELECT id FROM opportunities WHERE location_id = 4 AND status = 'open' LIMIT 1")
        # A change to nothing the screen counts keeps its answer.
        assert admin.patch("/api/opportunities/%d" % deal, {"name": "Renamed"},
                           headers=headers(admin, 4)).status == 200
        assert admin.get("/api/agency/opportunities").header("X-Cache") == "hit"
        assert admin.patch("/api/opportunities/%d" % deal, {"status": "lost"}, headers=headers(admin, 4)).status == 200
        assert dropped()["totals"]["lost"]["count"] == one(
            s, "SELECT count(*) FROM opportunities WHERE status = 'lost'")
        cached, dropped = cache_checks(admin, "/api/agency/contacts?limit=1")
        cached()
        c = admin.post("/api/contacts", {"first_name": "Newest"}, headers=headers(admin, 3)).json()
        assert dropped()["data"][0]["id"] == c["id"]
