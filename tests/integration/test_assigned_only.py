# SPDX-License-Identifier: MIT
"""A user who sees only what is assigned to them ("assigned only") sees
nothing of others' anywhere: no record, and no figure, count, total, chart,
widget or phone screen that others' records move.

The walk is a difference: every GET route the server reports is asked for
as Olga (a sub-account's user) and as Ada (agency staff), both assigned
only, with the ids of their own records, the answers are kept, then Pete's
records are added to the same sub-account (contacts, deals open, won and
lost, tasks, conversations with unread messages, invoices sent and paid,
notes, tags), and, on Olga's own contact, a deal, a task and a conversation
that are not hers. Asked again, every answer must be the same, byte for
byte: whatever others' records changed in it would be something of theirs
shown. Then every write route is tried on each of Pete's records, and must
be 404 (or 403) and change nothing."""

import re

from harness import Server, wait_for

MODULES = ("contacts", "opportunities", "tasks", "conversations", "invoices", "reports", "agency",
           "mobile")
ADMIN = ("admin@example.test", "admin-pass-1")
PASSWORD = "pass-word-12"
TABLES = ("contacts", "notes", "contact_tags", "opportunities", "tasks", "conversations", "messages",
          "invoices", "payments", "dashboards", "widgets")


class Agency:
    """A sub-account with Olga (its user), Ada (agency staff), both
    assigned only, and Pete; the pipeline, tags, custom field and a
    dashboard with a widget of each kind everyone shares."""

    def __init__(self, jobs=False):
        self.s = Server(modules=MODULES, env={"PGHL_JOBS": "yes" if jobs else "no"})
        self.s.create_admin(*ADMIN)
        self.s.start()
        self.admin = self.s.login(*ADMIN)
        self.loc = self.admin.post("/api/admin/locations", {"name": "Client"}).json()["id"]
        self.other = self.admin.post("/api/admin/locations", {"name": "Other"}).json()["id"]
        self.here = {"X-Location-Id": str(self.loc)}
        self.ids = {}
        for name, role, only in (("olga", "location_user", True), ("ada", "agency_user", True),
                                 ("pete", "location_user", False)):
            body = {"email": name + "@example.test", "name": name.title(), "password": PASSWORD,
                    "role": role, "assigned_only": only}
            if role == "location_user":
                body["location_ids"] = [self.loc]
            self.ids[name] = self.made("/api/admin/users", body, here=False)
        self.pipeline = self.made("/api/pipelines", {"name": "Sales"})
        self.stages = [self.made("/api/pipelines/%d/stages" % self.pipeline, {"name": n})
                       for n in ("New", "Won")]
        self.made("/api/custom-fields", {"key": "plan", "name": "Plan", "type": "text"})
        self.dashboard = self.made("/api/reports/dashboards", {"name": "Board"})
        for kind in ("contacts_new", "pipeline_value", "deals_won", "messages", "tasks_open",
                     "tasks_overdue", "invoices_due", "revenue"):
            config = {"pipeline_id": self.pipeline} if kind == "pipeline_value" else {"period": "30d"}
            self.made("/api/reports/dashboards/%d/widgets" % self.dashboard,
                      {"kind": kind, "title": kind, "config": config})
        self.own = {}

    def made(self, path, body, here=True, status=201):
        r = self.admin.post(path, body, headers=self.here if here else None)
        assert r.status == status, (path, r.body)
        return r.json().get("id") if r.body else None

    def records(self, who, name, contact=None, channel="sms"):
        """A contact of `who`, with notes, tags and an invoice sent and
        part paid (or, on `contact`, none of those), a deal open, one won
        and one lost, two tasks (one overdue) and a conversation on
        `channel` with an unread message. Returns the ids, by kind."""
        owner = self.ids[who]
        out = {}
        given = contact is not None
        if not given:
            contact = self.made("/api/contacts", {
                "first_name": name, "last_name": "Client", "email": name.lower() + "@client.test",
                "owner_id": owner, "tags": ["vip", name.lower()], "custom_fields": {"plan": "gold"}})
            self.made("/api/contacts/%d/notes" % contact, {"body": name + "'s note"})
        out["contact"] = contact
        deals = []
        for value, status in ((120000, None), (33000, "won"), (5000, "lost")):
            deal = self.made("/api/opportunities", {
                "name": name + " deal", "pipeline_id": self.pipeline, "stage_id": self.stages[0],
                "contact_id": contact, "value_cents": value, "owner_id": owner})
            if status:
                r = self.admin.patch("/api/opportunities/%d" % deal, dict(
                    {"status": status}, **({"lost_reason": "price"} if status == "lost" else {})),
                    headers=self.here)
                assert r.status == 200, r.body
            deals.append(deal)
        out["opportunity"] = deals
        out["task"] = [self.made("/api/tasks", {"title": name + " task", "assignee_id": owner,
                                                "contact_id": contact, "due_at": due})
                       for due in ("2020-01-01", "2099-01-01")]
        r = self.admin.post("/api/conversations/inbound", {"contact_id": contact, "channel": channel,
                                                           "body": name + " writes"}, headers=self.here)
        assert r.status == 201, r.body
        conversation = r.json()["conversation_id"]
        r = self.admin.patch("/api/conversations/%d" % conversation, {"assigned_to": owner},
                             headers=self.here)
        assert r.status == 200, r.body
        out["conversation"] = conversation
        if given:
            return out
        invoice = self.made("/api/invoices", {"contact_id": contact, "items": [
            {"description": name + " work", "quantity": 3, "unit_price_cents": 25000}]})
        self.made("/api/invoices/%d/send" % invoice, {}, status=200)
        self.made("/api/invoices/%d/payments" % invoice, {"amount_cents": 10000, "method": "card"}, status=201)
        out["invoice"] = invoice
        return out

    def others(self):
        """Pete's records, one nobody's contact, and on Olga's own contact a
        deal, a task and a conversation that are Pete's."""
        pete = self.records("pete", "Pete")
        nobody = self.made("/api/contacts", {"first_name": "Nobody", "tags": ["vip", "olga"]})
        on_hers = self.records("pete", "Pete", contact=self.own["olga"]["contact"], channel="webchat")
        self.made("/api/tags/bulk", {"contact_ids": [pete["contact"], nobody], "add": ["olga"]},
                  status=200)
        return pete, nobody, on_hers


PARAMS = {"contacts": "contact", "opportunities": "opportunity", "tasks": "task",
          "conversations": "conversation", "invoices": "invoice"}


def paths(routes, method, records, agency):
    """Every path of `method` routes, each :id filled with each of the
    given records' ids of the kind its path names."""
    out = []
    for r in routes:
        if r["method"] != method:
            continue
        pattern = r["pattern"]
        kind = PARAMS.get(pattern.split("/")[2]) if pattern.count("/") > 2 else None
        if pattern.startswith("/api/reports/dashboards/:id"):
            ids = [agency.dashboard]
        elif ":" in pattern and kind:
            ids = [i for rec in records for v in [rec.get(kind, [])]
                   for i in (v if isinstance(v, list) else [v])]
        elif ":" in pattern:
            ids = [1]
        else:
            ids = [None]
        for i in ids:
            path = re.sub(r":[a-z]+", str(i), pattern, count=1)
            path = re.sub(r":[a-z]+", "1", path)
            out.append(path)
            if method == "GET" and ":" not in pattern and "?" not in path:
                out.append(path + "?count=1&limit=1000")
    return out


QUERIES = ("/api/contacts?tag=vip&count=1", "/api/contacts?tag=olga&tag=vip&tag_mode=all&count=1",
           "/api/contacts?q=client&count=1", "/api/contacts?q=Cl", "/api/contacts/export.csv",
           "/api/contacts/export.csv?tag=vip", "/api/opportunities?pipeline=%(pipeline)d",
           "/api/opportunities?pipeline=%(pipeline)d&status=won", "/api/opportunities?stage=%(stage)d",
           "/api/opportunities?pipeline=%(pipeline)d&status=lost",
           "/api/opportunities?pipeline=%(pipeline)d&status=all", "/api/tasks?due=overdue",
           "/api/tasks?status=done", "/api/invoices?status=overdue", "/api/invoices?status=partially_paid",
           "/api/conversations?unread=1", "/api/conversations?sort=unread", "/api/mobile/inbox?unread=1",
           "/api/dashboard?period=7d", "/api/dashboard?period=90d", "/api/tags",
           "/api/agency/projects?location_id=%(loc)d")


def answers(client, agency, paths_):
    got = {}
    for path in paths_:
        r = client.get(path, headers=agency.here)
        got[path] = (r.status, r.body)
    return got


def differences(before, after):
    out = []
    for path, (status, body) in before.items():
        if after[path] != (status, body):
            out.append("%s: %d %s\n   became %d %s" % (path, status, body[:300], after[path][0],
                                                      after[path][1][:300]))
    return out


def test_an_assigned_only_user_sees_nothing_others_records_move():
    a = Agency()
    with a.s:
        routes = a.admin.get("/api/admin/routes").json()["data"]
        queries = [q % {"pipeline": a.pipeline, "stage": a.stages[0], "loc": a.loc} for q in QUERIES]
        walkers = {}
        for name in ("olga", "ada"):
            # Each walks before the other's records are made: they are
            # others' to each other, as Pete's are.
            a.own[name] = a.records(name, name.title())
            client = a.s.login(name + "@example.test", PASSWORD)
            walk = paths(routes, "GET", [a.own[name]], a) + queries
            walkers[name] = (client, walk, answers(client, a, walk))
            # A figure that fails is no figure: the same failure before
            # and after would show no difference.
            failed = [(p, st) for p, (st, _) in walkers[name][2].items() if st >= 500]
            assert not failed, failed
            ok = [p for p, (st, _) in walkers[name][2].items() if st == 200]
            assert {"/api/dashboard", "/api/project", "/api/mobile/summary", "/api/tags",
                    "/api/reports/dashboards/%d/data" % a.dashboard} <= set(ok), ok
            # The walk sees what is theirs: it would find nothing otherwise.
            mine = client.get("/api/contacts?count=1", headers=a.here).json()
            assert [c["id"] for c in mine["data"]] == [a.own[name]["contact"]], mine
        a.others()
        for name, (client, walk, before) in walkers.items():
            found = differences(before, answers(client, a, walk))
            assert not found, "%s sees others' records in %d answers:\n%s" % (
                name, len(found), "\n".join(found))


BODIES = {  # a body each route takes, so that only the record can be refused
    "tags": {"tags": ["x"]}, "notes": {"body": "x"}, "messages": {"body": "x"},
    "payments": {"amount_cents": 100, "method": "card"},
    ("PATCH", "contacts"): {"first_name": "x"}, ("PATCH", "opportunities"): {"status": "won"},
    ("PATCH", "conversations"): {"starred": True}, ("PATCH", "tasks"): {"title": "x"},
    ("PATCH", "invoices"): {"due_at": "2030-01-01"},
}


def body_for(method, path):
    parts = path.split("/")
    if method == "DELETE":
        return None
    return BODIES.get(parts[-1], BODIES.get((method, parts[2]), {}))


def snapshot(s):
    return {t: sorted(s.sql("SELECT * FROM " + t), key=repr) for t in TABLES}


def test_no_write_reaches_anothers_record():
    a = Agency()
    with a.s:
        routes = a.admin.get("/api/admin/routes").json()["data"]
        a.own["olga"] = a.records("olga", "Olga")
        pete, nobody, on_hers = a.others()
        olga = a.s.login("olga@example.test", PASSWORD)
        olga.headers["X-CSRF-Token"] = olga.get("/api/auth/me").json()["csrf_token"]
        theirs = [pete, {"contact": nobody}, dict(on_hers, contact=[])]
        before = snapshot(a.s)
        tried = 0
        for method in ("POST", "PATCH", "DELETE"):
            for path in paths([r for r in routes if ":id" in r["pattern"] and
                               r["pattern"].split("/")[2] in PARAMS], method, theirs, a):
                r = olga.request(method, path, body=body_for(method, path), headers=a.here)
                tried += 1
                assert r.status in (403, 404), (method, path, r.status, r.body[:200])
        assert tried > 30 and snapshot(a.s) == before


def test_the_activity_around_her_contact_is_her_own():
    """A contact's activity counts (deals, tasks, messages around it) are
    counted per user the records are assigned to: on Olga's contact,
    Pete's deal, task and conversation count for Pete and the admins,
    not for her. The counting is a job: this one runs with jobs on."""
    a = Agency(jobs=True)
    with a.s:
        olga = a.s.login("olga@example.test", PASSWORD)
        a.own["olga"] = a.records("olga", "Olga")
        path = "/api/contacts/%d" % a.own["olga"]["contact"]

        def activity(client):
            return client.get(path, headers=a.here).json()["activity"]
        assert wait_for(lambda: activity(a.admin).get("invoice.payment_recorded") == 1, 20)
        hers = activity(olga)
        assert hers["opportunity.created"] == 3 and hers["task.created"] == 2, hers
        a.others()
        assert wait_for(lambda: activity(a.admin).get("opportunity.created") == 6, 20)
        assert activity(olga) == hers


def test_the_screens_of_every_record_are_not_offered():
    """The agency's screens show every sub-account's records: agency
    staff who see only what is assigned to them get 403 there, and the
    menu does not offer them."""
    a = Agency()
    with a.s:
        ada = a.s.login("ada@example.test", PASSWORD)
        paths = lambda c: [p["path"] for p in c.get("/api/pages", headers=a.here).json()["data"]]
        assert "/agency" in paths(a.admin) and "/agency/:view" in paths(a.admin)
        assert not [p for p in paths(ada) if p.startswith("/agency")], paths(ada)
        assert "/contacts" in paths(ada) and "/today" in paths(ada)
        assert ada.get("/api/agency/overview").status == 403


def test_her_figures_count_her_records():
    """The figures an assigned-only user gets are those of her records
    (records() makes them): one contact; a deal open at 1,200.00, one won
    at 330.00 and one lost at 50.00; two open tasks, one overdue; one
    unread conversation with one message in; one invoice of 750.00 with
    100.00 paid."""
    a = Agency()
    with a.s:
        a.own["olga"] = a.records("olga", "Olga")
        a.others()
        olga = a.s.login("olga@example.test", PASSWORD)
        get = lambda path: olga.get(path, headers=a.here).json()
        d = get("/api/dashboard")
        assert (d["contacts"], d["deals"], d["conversations"], d["tasks"]) == (
            {"total": 1, "new": 1}, {"won": {"count": 1, "value_cents": 33000},
                                     "lost": {"count": 1, "value_cents": 5000}},
            {"unread": 1}, {"due_today": 0, "overdue": 1}), d
        assert d["invoices"] == {"outstanding": {"count": 1, "amount_due_cents": 65000},
                                 "overdue": {"count": 0, "amount_due_cents": 0}, "paid_cents": 10000}
        assert [(s["count"], s["value_cents"]) for s in d["pipelines"][0]["stages"]] == [(1, 120000), (0, 0)]
        assert sum(day["messages_received"] for day in d["series"]) == 1
        assert get("/api/project")["counts"]["tasks"] == {"open": 2, "overdue": 1}
        assert get("/api/mobile/summary")["deals"] == {"open": 1, "value_cents": 120000}
        widgets = {w["kind"]: w["data"] for w in get("/api/reports/dashboards/%d/data" % a.dashboard)["widgets"]}
        assert (widgets["revenue"]["value_cents"], widgets["messages"]["count"],
                widgets["tasks_open"]["count"]) == (10000, 1, 2), widgets
        assert [(t["name"], t["contacts"]) for t in get("/api/tags")["data"]] == [("olga", 1), ("vip", 1)]
