# SPDX-License-Identifier: MIT
"""The dashboard, the project and the reports' dashboards on seeded data:
every figure equal to the same question asked in SQL over the seeded
rows, for each period; a write to each table they read drops the cached
answer; dashboards and widgets created, changed and deleted with each bad
input refused; each widget's data equal to its SQL; other locations'
dashboards and projects out of reach; and no statement of the reports
module scanning a whole big table."""

import datetime
import json
import re

from harness import cache_checks, error, headers, iso, local_bounds, local_date, one, seeded_server, zone_of
from harness import is_plan


def bounds(s, days, location=1):
    """The period's first midnight, tomorrow's, today's and now, by the
    sub-account's days."""
    return local_bounds(zone_of(s, location), days)


def dates(s, days, location=1):
    """The period's dates, by the sub-account's days."""
    zone = zone_of(s, location)
    since = bounds(s, days, location)[0]
    return [local_date(iso(since + datetime.timedelta(days=d, hours=12)), zone) for d in range(days)]


def per_day(s, sql, since, days, location):
    """{date: figure} from `sql`, whose rows are (time, figure), each on
    the sub-account's date."""
    zone, got = zone_of(s, location), {}
    for t, v in s.sql(sql, location):
        if t >= iso(since):
            got[local_date(t, zone)] = got.get(local_date(t, zone), 0) + v
    return [got.get(d, 0) for d in dates(s, days, location)]


def expected_series(s, days, location=1):
    since, end, _, _ = bounds(s, days, location)
    cut = " < '%s' AND location_id = ?" % iso(end)
    return {
        "contacts_new": per_day(s, "SELECT created_at, 1 FROM contacts WHERE deleted_at IS NULL"
                                " AND created_at" + cut, since, days, location),
        "deals_won": per_day(s, "SELECT closed_at, 1 FROM opportunities WHERE status = 'won'"
                             " AND closed_at" + cut, since, days, location),
        "deals_won_cents": per_day(s, "SELECT closed_at, value_cents FROM opportunities"
                                   " WHERE status = 'won' AND closed_at" + cut, since, days, location),
        "messages_received": per_day(s, "SELECT created_at, 1 FROM messages WHERE direction = 'inbound'"
                                     " AND created_at" + cut, since, days, location),
        "payments_cents": per_day(s, "SELECT paid_at, amount_cents FROM payments WHERE paid_at" + cut,
                                  since, days, location),
    }


def expected_pipelines(s, location=1):
    out = []
    for pid, name in s.sql("SELECT id, name FROM pipelines WHERE location_id = ?"
                           " AND id IN (SELECT pipeline_id FROM stages) ORDER BY position, id", location):
        stages = [{"id": sid, "name": sname,
                   "count": one(s, "SELECT count(*) FROM opportunities WHERE stage_id = ? AND status = 'open'", sid),
                   "value_cents": one(s, "SELECT coalesce(sum(value_cents), 0) FROM opportunities"
                                      " WHERE stage_id = ? AND status = 'open'", sid)}
                  for sid, sname in s.sql("SELECT id, name FROM stages WHERE pipeline_id = ?"
                                          " ORDER BY position, id", pid)]
        out.append({"id": pid, "name": name, "stages": stages,
                    "count": sum(x["count"] for x in stages),
                    "value_cents": sum(x["value_cents"] for x in stages)})
    return out


def expected_dashboard(s, days, location=1):
    since, end, today, now = bounds(s, days, location)
    period = (iso(since), iso(end))
    L = location
    closed = lambda status: list(s.sql(
        "SELECT count(*), coalesce(sum(value_cents), 0) FROM opportunities WHERE location_id = ?"
        " AND status = ? AND closed_at >= ? AND closed_at < ?", L, status, *period)[0])
    unpaid = "SELECT count(*), coalesce(sum(total_cents - paid_cents), 0) FROM invoices" \
             " WHERE location_id = ? AND status IN ('sent', 'partially_paid')"
    open_tasks = "SELECT count(*) FROM tasks WHERE location_id = ? AND completed_at IS NULL AND "
    return {
        "contacts": {"total": one(s, "SELECT count(*) FROM contacts WHERE location_id = ? AND deleted_at IS NULL", L),
                     "new": one(s, "SELECT count(*) FROM contacts WHERE location_id = ? AND deleted_at IS NULL"
                                " AND created_at >= ? AND created_at < ?", L, *period)},
        "deals": {k: dict(zip(("count", "value_cents"), closed(k))) for k in ("won", "lost")},
        "conversations": {"unread": one(s, "SELECT count(*) FROM conversations WHERE location_id = ?"
                                        " AND unread_count > 0", L)},
        "tasks": {"due_today": one(s, open_tasks + "due_at >= ? AND due_at < ?", L, iso(today), iso(end)),
                  "overdue": one(s, open_tasks + "due_at < ?", L, iso(now))},
        "invoices": {
            "outstanding": dict(zip(("count", "amount_due_cents"), s.sql(unpaid, L)[0])),
            "overdue": dict(zip(("count", "amount_due_cents"), s.sql(unpaid + " AND due_at < ?", L, iso(now))[0])),
            "paid_cents": one(s, "SELECT coalesce(sum(amount_cents), 0) FROM payments WHERE location_id = ?"
                              " AND paid_at >= ? AND paid_at < ?", L, *period)},
        "pipelines": expected_pipelines(s, L),
    }


def check_dashboard(s, client, days, location=1, query=None):
    got = client.get("/api/dashboard?location_id=%d%s" % (location, query or "&period=%dd" % days))
    assert got.status == 200, got.body
    got = got.json()
    want = expected_dashboard(s, days, location)
    for key, value in want.items():
        assert got[key] == value, key
    series = expected_series(s, days, location)
    assert len(got["series"]) == days
    assert [d["date"] for d in got["series"]] == dates(s, days, location)
    for key, values in series.items():
        assert [d[key] for d in got["series"]] == values, key
    assert got["contacts"]["new"] == sum(series["contacts_new"])
    return got


def test_every_figure_equals_its_sql():
    s, admin = seeded_server()
    with s:
        got = check_dashboard(s, admin, 30, query="")  # 30 days by default
        assert got["period"] == "30d"
        # The seeded data gives every figure something to count.
        for days in (7, 90):
            check_dashboard(s, admin, days)
        # The seeded data gives every figure something to count.
        got = check_dashboard(s, admin, 90, location=2)
        assert got["contacts"]["new"] and got["deals"]["won"]["count"] and got["deals"]["lost"]["count"]
        assert got["conversations"]["unread"] and got["tasks"]["overdue"]
        assert got["invoices"]["outstanding"]["count"] and got["invoices"]["paid_cents"]
        assert any(p["count"] for p in got["pipelines"])
        assert any(d["messages_received"] for d in got["series"])
        user = s.login("location-2@example.test", "perf-pass-123")
        assert user.get("/api/dashboard").json()["contacts"] == \
            expected_dashboard(s, 30, 2)["contacts"]
        assert user.get("/api/dashboard?location_id=1").status == 404
        for bad in ("1d", "30", "", "week"):
            error(admin.get("/api/dashboard?location_id=1&period=" + bad), 400, "period")


def test_a_write_to_each_table_drops_the_dashboard():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        path = "/api/dashboard?location_id=1&period=7d"
        cached, dropped = cache_checks(admin, path)

        cached()
        before = admin.get(path).json()
        contact = admin.post("/api/contacts", {"first_name": "Dash", "email": "dash@example.test"},
                             headers=h).json()
        assert dropped()["contacts"]["total"] == before["contacts"]["total"] + 1
        cached()
        opp = s.sql("SELECT id, value_cents FROM opportunities WHERE location_id = 1 AND status = 'open' LIMIT 1")[0]
        r = admin.patch("/api/opportunities/%d" % opp[0], {"status": "won"}, headers=h)
        assert r.status == 200, r.body
        got = dropped()
        assert got["deals"]["won"]["count"] == before["deals"]["won"]["count"] + 1
        assert got["deals"]["won"]["value_cents"] == before["deals"]["won"]["value_cents"] + opp[1]
        cached()
        r = admin.post("/api/conversations/inbound", {"contact_id": contact["id"], "channel": "sms",
                                                       "body": "Hello"}, headers=h)
        assert r.status in (200, 201), r.body
        got = dropped()
        assert got["series"][-1]["messages_received"] == before["series"][-1]["messages_received"] + 1
        cached()
        assert admin.post("/api/tasks", {"title": "Late", "due_at": "2020-01-01"}, headers=h).status == 201
        assert dropped()["tasks"]["overdue"] == before["tasks"]["overdue"] + 1
        cached()
        inv = admin.post("/api/invoices", {"items": [{"description": "Work", "quantity": 1,
                                                      "unit_price_cents": 5000}]}, headers=h).json()
        assert admin.post("/api/invoices/%d/send" % inv["id"], {}, headers=h).status == 200
        got = dropped()
        assert got["invoices"]["outstanding"]["count"] == before["invoices"]["outstanding"]["count"] + 1
        cached()
        assert admin.post("/api/invoices/%d/payments" % inv["id"], {"amount_cents": 1200, "method": "cash"},
                          headers=h).status == 201
        assert dropped()["invoices"]["paid_cents"] == before["invoices"]["paid_cents"] + 1200
        # Another location's write leaves this location's answer cached.
        cached()
        assert admin.post("/api/contacts", {"first_name": "Elsewhere"}, headers=headers(admin, 2)).status == 201
        assert admin.get(path).header("X-Cache") == "hit"
        check_dashboard(s, admin, 7)


BIG = r"(contacts|opportunities|conversations|messages|tasks|invoices|payments|dashboards|widgets|d|w" \
      r"|users|user_locations|locations|u|ul|l)"


def reports_plans(s):
    """The plan lines of the statements the reports module prepared."""
    return [l for l in s.log.splitlines() if is_plan(l) and
            re.search(r"julianday|conversation_totals|GROUP BY stage_id|location_users|timezone"
                      r"|\bdashboards\b|\bwidgets\b",
                      l.split("=>")[0])]


def test_no_statement_scans_a_big_table():
    s, admin = seeded_server(env={"PGHL_LOG_PLANS": "1", "PGHL_RESULT_CACHE": "0"})
    with s:
        h = headers(admin)
        for period in ("7d", "30d", "90d"):
            assert admin.get("/api/dashboard?location_id=1&period=" + period).status == 200
        assert admin.get("/api/project?location_id=1").status == 200
        d = admin.post("/api/reports/dashboards", {"name": "Plans"}, headers=h).json()["id"]
        pipeline = one(s, "SELECT id FROM pipelines WHERE location_id = 1 LIMIT 1")
        w = admin.post("/api/reports/dashboards/%d/widgets" % d, {"kind": "pipeline_value", "title": "P",
                       "config": {"pipeline_id": pipeline}}, headers=h).json()["id"]
        assert admin.post("/api/reports/dashboards/%d/widgets" % d, {"kind": "revenue", "title": "R"},
                          headers=h).status == 201
        assert admin.patch("/api/reports/widgets/%d" % w, {"kind": "messages"}, headers=h).status == 200
        for path in ("", "/data"):
            assert admin.get("/api/reports/dashboards/%d%s?location_id=1" % (d, path)).status == 200
        page = admin.get("/api/reports/dashboards?location_id=1&limit=1").json()
        assert admin.get("/api/reports/dashboards?location_id=1&cursor=" + page["next_cursor"]).status == 200
        assert admin.patch("/api/reports/dashboards/%d" % d, {"name": "P2"}, headers=h).status == 200
        assert admin.delete("/api/reports/widgets/%d" % w, headers=h).status == 204
        assert admin.delete("/api/reports/dashboards/%d" % d, headers=h).status == 204
        s.stop()
        plans = reports_plans(s)
        assert len(plans) >= 14, plans
        assert any("location_users" in l for l in plans), plans
        assert any("health_sum" in l for l in plans), plans
        for line in plans:
            assert not re.search(r"SCAN %s\b(?! USING)" % BIG, line.split("=>", 1)[-1]), line


# ---- dashboards and widgets ------------------------------------------------------

KINDS = ("contacts_new", "pipeline_value", "deals_won", "messages", "tasks_open", "tasks_overdue",
         "invoices_due", "revenue")


def test_dashboards_and_widgets_crud_with_validation():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        seeded = s.sql("SELECT id, name FROM dashboards WHERE location_id = 1")
        page = admin.get("/api/reports/dashboards?location_id=1").json()
        assert [(d["id"], d["name"]) for d in page["data"]] == seeded and page["next_cursor"] is None
        assert page["data"][0]["widgets"] == one(s, "SELECT count(*) FROM widgets WHERE dashboard_id = ?",
                                                 seeded[0][0])
        r = admin.post("/api/reports/dashboards", {"name": "Sales"}, headers=h)
        assert r.status == 201, r.body
        d = r.json()
        assert d["name"] == "Sales" and d["widgets"] == [] and d["created_by"]
        path = "/api/reports/dashboards/%d" % d["id"]
        w = "/api/reports/dashboards/%d/widgets" % d["id"]
        made = [admin.post(w, {"kind": k, "title": k.title()}, headers=h) for k in ("revenue", "messages")]
        assert [m.status for m in made] == [201, 201], made[0].body
        made = [m.json() for m in made]
        assert [m["position"] for m in made] == [0, 1]
        assert made[0]["config"] == {"period": "30d", "group": "day"}
        pipeline = one(s, "SELECT id FROM pipelines WHERE location_id = 1 LIMIT 1")
        first = admin.post(w, {"kind": "pipeline_value", "title": "Board", "position": 0,
                               "config": {"pipeline_id": pipeline, "period": "7d", "group": "week"}},
                           headers=h).json()
        assert first["config"] == {"period": "7d", "group": "week", "pipeline_id": pipeline}
        got = admin.get(path + "?location_id=1").json()
        # Position order, ties by id.
        assert [x["id"] for x in got["widgets"]] == [made[0]["id"], first["id"], made[1]["id"]]
        assert admin.get("/api/reports/dashboards?location_id=1").json()["data"][-1]["widgets"] == 3
        changed = admin.patch("/api/reports/widgets/%d" % first["id"], {"kind": "deals_won", "title": "Won"},
                              headers=h).json()
        assert (changed["kind"], changed["title"], changed["config"]) == \
            ("deals_won", "Won", {"period": "7d", "group": "week"})
        changed = admin.patch("/api/reports/widgets/%d" % first["id"], {"position": 9, "config": {}},
                              headers=h).json()
        assert (changed["position"], changed["config"]) == (9, {"period": "30d", "group": "day"})
        assert admin.patch(path, {"name": "Renamed"}, headers=h).json()["name"] == "Renamed"
        bad_dash = [({}, "name: required"), ({"name": ""}, "name: required"), ({"name": "x" * 201}, "name"),
                    ({"name": "A", "colour": 1}, "colour"), ({"name": 5}, "name")]
        for body, words in bad_dash:
            error(admin.post("/api/reports/dashboards", body, headers=h), 422, words)
        error(admin.patch(path, {"name": None}, headers=h), 422, "name")
        bad_widget = [({"title": "T"}, "kind"), ({"kind": "pie", "title": "T"}, "kind"),
                      ({"kind": "revenue"}, "title"), ({"kind": "revenue", "title": ""}, "title"),
                      ({"kind": "revenue", "title": "T", "size": 2}, "size"),
                      ({"kind": "revenue", "title": "T", "position": -1}, "position"),
                      ({"kind": "revenue", "title": "T", "config": []}, "config"),
                      ({"kind": "revenue", "title": "T", "config": {"period": "1y"}}, "config.period"),
                      ({"kind": "revenue", "title": "T", "config": {"group": "month"}}, "config.group"),
                      ({"kind": "revenue", "title": "T", "config": {"colour": "red"}}, "colour"),
                      ({"kind": "revenue", "title": "T", "config": {"pipeline_id": pipeline}}, "pipeline_id"),
                      ({"kind": "pipeline_value", "title": "T", "config": {"pipeline_id": 999999}},
                       "config.pipeline_id")]
        for body, words in bad_widget:
            error(admin.post(w, body, headers=h), 422, words)
        error(admin.patch("/api/reports/widgets/%d" % made[0]["id"], {"kind": "bar"}, headers=h), 422, "kind")
        assert one(s, "SELECT count(*) FROM widgets WHERE dashboard_id = ?", d["id"]) == 3
        assert admin.delete("/api/reports/widgets/%d" % made[1]["id"], headers=h).status == 204
        assert admin.delete("/api/reports/widgets/%d" % made[1]["id"], headers=h).status == 404
        assert admin.delete(path, headers=h).status == 204
        assert admin.get(path + "?location_id=1").status == 404
        assert one(s, "SELECT count(*) FROM widgets WHERE dashboard_id = ?", d["id"]) == 0
        # Pages by cursor.
        for i in range(3):
            admin.post("/api/reports/dashboards", {"name": "P%d" % i}, headers=h)
        want = [r[0] for r in s.sql("SELECT id FROM dashboards WHERE location_id = 1 ORDER BY id")]
        assert [x["id"] for x in every(admin, "/api/reports/dashboards?location_id=1")] == want


def every(client, path, limit=2):
    rows, cursor = [], None
    while True:
        page = client.get(path + "&limit=%d" % limit + ("&cursor=" + cursor if cursor else "")).json()
        rows += page["data"]
        cursor = page["next_cursor"]
        if not cursor:
            return rows


def expected_widget(s, kind, days, week, pipeline=0, location=1):
    series = expected_series(s, days, location)
    key = {"contacts_new": ("contacts_new", None), "deals_won": ("deals_won", "deals_won_cents"),
           "messages": ("messages_received", None), "revenue": ("payments_count", "payments_cents")}
    want = expected_dashboard(s, days, location)
    if kind in key:
        since, end, _, _ = bounds(s, days, location)
        day_dates = dates(s, days, location)
        if kind == "revenue":
            series["payments_count"] = per_day(s, "SELECT paid_at, 1 FROM payments WHERE paid_at < '%s'"
                                               " AND location_id = ?" % iso(end), since, days, location)
        counts, cents = series[key[kind][0]], series[key[kind][1]] if key[kind][1] else None
        size = (days % 7 or 7) if week else 1
        buckets, d = [], 0
        while d < days:
            b = {"date": day_dates[d],
                 "count": sum(counts[d:d + size])}
            if cents:
                b["value_cents"] = sum(cents[d:d + size])
            buckets.append(b)
            d += size
            size = 7 if week else 1
        out = {"count": sum(counts), "series": buckets}
        if cents:
            out["value_cents"] = sum(cents)
        return out
    if kind == "tasks_open":
        return {"count": one(s, "SELECT count(*) FROM tasks WHERE location_id = ? AND completed_at IS NULL",
                             location)}
    if kind == "tasks_overdue":
        return {"count": want["tasks"]["overdue"]}
    if kind == "invoices_due":
        return dict(want["invoices"]["outstanding"], overdue=want["invoices"]["overdue"])
    return {"pipelines": [p for p in want["pipelines"] if not pipeline or p["id"] == pipeline]}


def test_widget_data_equals_the_sql():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        d = admin.post("/api/reports/dashboards", {"name": "All"}, headers=h).json()["id"]
        pipeline = one(s, "SELECT id FROM pipelines WHERE location_id = 2 ORDER BY id DESC LIMIT 1")
        configs = [(k, {"period": p, "group": g}) for k in KINDS for p in ("7d", "30d", "90d")
                   for g in ("day", "week")]
        configs.append(("pipeline_value", {"pipeline_id": pipeline}))
        for i, (kind, config) in enumerate(configs):
            r = admin.post("/api/reports/dashboards/%d/widgets" % d,
                           {"kind": kind, "title": "W%d" % i, "config": config}, headers=h)
            assert r.status == 201, r.body
        got = admin.get("/api/reports/dashboards/%d/data?location_id=2" % d)
        assert got.status == 200, got.body
        got = got.json()
        assert got["dashboard_id"] == d and len(got["widgets"]) == len(configs)
        stored = {i: (pos, config) for i, pos, config in
                  s.sql("SELECT id, position, json(config) FROM widgets WHERE dashboard_id = ?", d)}
        for w, (kind, config) in zip(got["widgets"], configs):
            assert w["kind"] == kind and w["title"] == "W%d" % configs.index((kind, config))
            # as a widget's own answer gives them, so a page can arrange them
            assert w["position"] == stored[w["id"]][0]
            assert w["config"] == dict({"period": "30d", "group": "day"}, **json.loads(stored[w["id"]][1]))
            days = int(config.get("period", "30d")[:-1])
            want = expected_widget(s, kind, days, config.get("group") == "week", config.get("pipeline_id", 0), 2)
            assert w["data"] == want, (kind, config)
        assert len(got["widgets"][-1]["data"]["pipelines"]) == 1
        # The seeded dashboard of location 1 answers too, cached until a write.
        seeded = one(s, "SELECT id FROM dashboards WHERE location_id = 1")
        path = "/api/reports/dashboards/%d/data?location_id=1" % seeded
        assert admin.get(path).status == 200
        assert admin.get(path).header("X-Cache") == "hit"
        wid = one(s, "SELECT id FROM widgets WHERE dashboard_id = ? LIMIT 1", seeded)
        assert admin.patch("/api/reports/widgets/%d" % wid, {"title": "New"}, headers=headers(admin)).status == 200
        assert admin.get(path).header("X-Cache") == "miss"
        assert admin.get(path).header("X-Cache") == "hit"
        assert admin.post("/api/tasks", {"title": "x"}, headers=headers(admin)).status == 201
        assert admin.get(path).header("X-Cache") == "miss"


def test_another_locations_dashboard_is_404():
    s, admin = seeded_server()
    with s:
        h1 = headers(admin, 1)
        theirs = one(s, "SELECT id FROM dashboards WHERE location_id = 2")
        widget = one(s, "SELECT id FROM widgets WHERE location_id = 2 LIMIT 1")
        for method, path, body in (("GET", "/api/reports/dashboards/%d?location_id=1" % theirs, None),
                                   ("GET", "/api/reports/dashboards/%d/data?location_id=1" % theirs, None),
                                   ("PATCH", "/api/reports/dashboards/%d" % theirs, {"name": "X"}),
                                   ("DELETE", "/api/reports/dashboards/%d" % theirs, None),
                                   ("POST", "/api/reports/dashboards/%d/widgets" % theirs,
                                    {"kind": "revenue", "title": "T"}),
                                   ("PATCH", "/api/reports/widgets/%d" % widget, {"title": "X"}),
                                   ("DELETE", "/api/reports/widgets/%d" % widget, None)):
            r = admin.request(method, path, body=body, headers=h1)
            assert r.status == 404, (method, path, r.body)
        assert s.sql("SELECT name FROM dashboards WHERE id = ?", theirs) == [("Overview",)]
        # A pipeline of another location is not one of this one.
        theirs_pipeline = one(s, "SELECT id FROM pipelines WHERE location_id = 2 LIMIT 1")
        mine = one(s, "SELECT id FROM dashboards WHERE location_id = 1")
        error(admin.post("/api/reports/dashboards/%d/widgets" % mine,
                         {"kind": "pipeline_value", "title": "T", "config": {"pipeline_id": theirs_pipeline}},
                         headers=h1), 422, "config.pipeline_id")
        user = s.login("location-2@example.test", "perf-pass-123")
        assert [d["id"] for d in user.get("/api/reports/dashboards").json()["data"]] == [theirs]
        assert user.get("/api/reports/dashboards/%d" % mine).status == 404


# ---- the project -----------------------------------------------------------------

def expected_users(s, location):
    """Who may open the location, worked out from the tables as the README
    says: agency staff of its agency and the people given it, if active."""
    agency = one(s, "SELECT agency_id FROM locations WHERE id = ?", location)
    given = {r[0] for r in s.sql("SELECT user_id FROM user_locations WHERE location_id = ?", location)}
    people = []
    for uid, name, email, role, only, disabled in s.sql(
            "SELECT id, name, email, role, assigned_only, disabled_at FROM users WHERE agency_id = ?", agency):
        if disabled is None and (role.startswith("agency_") or uid in given):
            people.append({"id": uid, "name": name, "email": email, "role": role,
                           "assigned_only": bool(only)})
    return sorted(people, key=lambda p: (p["name"].lower(), p["id"]))


def expected_project(s, location):
    L = location
    want = expected_dashboard(s, 1, L)
    scores = [r[0] for r in s.sql("SELECT health_score FROM contacts WHERE location_id = ?"
                                  " AND deleted_at IS NULL AND health_score IS NOT NULL", L)]
    deals = s.sql("SELECT count(*), coalesce(sum(value_cents), 0) FROM opportunities"
                  " WHERE location_id = ? AND status = 'open'", L)[0]
    return {
        "location": dict(zip(("id", "name", "timezone", "created_at", "updated_at"), s.sql(
            "SELECT id, name, timezone, created_at, updated_at FROM locations WHERE id = ?", L)[0])),
        "users": expected_users(s, L),
        "counts": {
            "contacts": want["contacts"]["total"],
            "deals": {"open": deals[0], "open_value_cents": deals[1]},
            "conversations": want["conversations"],
            "tasks": {"open": one(s, "SELECT count(*) FROM tasks WHERE location_id = ?"
                                  " AND completed_at IS NULL", L),
                      "overdue": want["tasks"]["overdue"]},
            "invoices": {k: want["invoices"][k] for k in ("outstanding", "overdue")},
        },
        # The mean, rounded half up as SQLite's round() does for scores.
        "health_score": int(sum(scores) / len(scores) + 0.5) if scores else None,
    }


def test_project_is_the_sub_account_at_a_glance():
    s, admin = seeded_server(plugins={"mobile": "enabled = no\n"})
    with s:
        # Scores for some contacts (the hourly job would give them).
        s.sql("UPDATE contacts SET health_score = (id * 37) % 101 WHERE location_id IN (1, 2) AND id % 3 = 0")
        assert expected_project(s, 1)["health_score"] is not None
        for location in (1, 2):
            got = admin.get("/api/project?location_id=%d" % location)
            assert got.status == 200, got.body
            got = got.json()
            want = expected_project(s, location)
            for key, value in want.items():
                assert got[key] == value, (location, key, got[key], value)
        users = [u["role"] for u in got["users"]]
        assert "agency_admin" in users and "location_user" in users
        modules = {m["name"]: m for m in got["modules"]}
        assert [m["name"] for m in got["modules"]] == sorted(modules)
        assert set(modules) >= {"contacts", "opportunities", "conversations", "tasks", "invoices",
                                "reports", "agency", "mobile"}
        assert modules.pop("mobile") == {"name": "mobile", "state": "disabled"}
        assert all(m["state"] == "loaded" for m in modules.values()), modules
        # A location's own user sees theirs, and no other.
        user = s.login("location-2@example.test", "perf-pass-123")
        assert user.get("/api/project").json()["counts"] == expected_project(s, 2)["counts"]
        assert user.get("/api/project?location_id=1").status == 404
        # Without any scored contact there is no score.
        s.sql("UPDATE contacts SET health_score = NULL WHERE location_id = 3")
        assert admin.get("/api/project?location_id=3").json()["health_score"] is None


def test_a_write_to_what_it_shows_drops_the_project():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        path = "/api/project?location_id=1"
        cached, dropped = cache_checks(admin, path)

        cached()
        before = admin.get(path).json()
        assert admin.post("/api/contacts", {"first_name": "Proj"}, headers=h).status == 201
        assert dropped()["counts"]["contacts"] == before["counts"]["contacts"] + 1
        cached()
        stage = s.sql("SELECT id, pipeline_id FROM stages WHERE location_id = 1 LIMIT 1")[0]
        r = admin.post("/api/opportunities", {"name": "Proj deal", "pipeline_id": stage[1], "stage_id": stage[0],
                                              "value_cents": 1234}, headers=h)
        assert r.status == 201, r.body
        got = dropped()["counts"]["deals"]
        assert got == {"open": before["counts"]["deals"]["open"] + 1,
                       "open_value_cents": before["counts"]["deals"]["open_value_cents"] + 1234}
        cached()
        assert admin.post("/api/tasks", {"title": "Proj task"}, headers=h).status == 201
        assert dropped()["counts"]["tasks"]["open"] == before["counts"]["tasks"]["open"] + 1
        # A person who can no longer sign in leaves the list.
        cached()
        gone = next(u for u in before["users"] if u["role"] == "location_user")
        assert admin.patch("/api/admin/users/%d" % gone["id"], {"disabled": True}).status == 200
        assert dropped()["users"] == expected_users(s, 1)
        assert gone["id"] not in [u["id"] for u in expected_users(s, 1)]
        # Another location's write leaves this one's answer cached.
        cached()
        assert admin.post("/api/contacts", {"first_name": "Elsewhere"}, headers=headers(admin, 2)).status == 201
        assert admin.get(path).header("X-Cache") == "hit"
        # So does a contact renamed, which leaves every count as it was; a
        # conversation read takes one from the unread ones.
        contact = one(s, "SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL LIMIT 1")
        assert admin.patch("/api/contacts/%d" % contact, {"first_name": "Renamed"}, headers=h).status == 200
        assert admin.get(path).header("X-Cache") == "hit"
        conversation = one(s, "SELECT id FROM conversations WHERE location_id = 1 AND unread_count > 0")
        assert admin.post("/api/conversations/%d/read" % conversation, {}, headers=h).status == 200
        unread = before["counts"]["conversations"]["unread"]
        assert dropped()["counts"]["conversations"]["unread"] == unread - 1
