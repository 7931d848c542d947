# SPDX-License-Identifier: MIT
"""Modules that want another and work without it: the agency, reports and
phone screens on a fresh server whose invoices module is turned off. Their
invoice figures are null and each answer says which module is absent;
with invoices on, the same answers carry the figures and say nothing."""

from harness import agency

WANTERS = ("contacts", "opportunities", "conversations", "tasks", "invoices", "agency",
           "reports", "mobile")


def answers(admin, loc):
    h = {"X-Location-Id": str(loc)}
    got = {path: admin.get(path, h) for path in ("/api/dashboard", "/api/project",
                                                 "/api/agency/overview", "/api/agency/projects",
                                                 "/api/mobile/summary")}
    for path, r in got.items():
        assert r.status == 200, (path, r.body)
    return {path: r.json() for path, r in got.items()}


def test_screens_without_invoices_answer_and_say_so():
    s, admin, (loc,) = agency(modules=WANTERS, plugins={"invoices": "enabled = no\n"})
    with s:
        h = {"X-Location-Id": str(loc)}
        assert admin.get("/api/invoices", h).status == 404
        got = answers(admin, loc)
        dash, project = got["/api/dashboard"], got["/api/project"]
        overview, projects = got["/api/agency/overview"], got["/api/agency/projects"]
        for answer in (dash, project, overview, projects):
            assert answer["absent_modules"] == ["invoices"], answer
        assert dash["invoices"] is None and dash["contacts"]["total"] == 0
        assert dash["series"] and all(d["payments_cents"] is None for d in dash["series"])
        assert project["counts"]["invoices"] is None and "tasks" in project["counts"]
        assert overview["counts"]["invoices"] is None and overview["sub_accounts"] == 1
        assert all(d["payments_cents"] is None for d in overview["series"])
        assert projects["data"][0]["counts"]["invoices"] is None

        board = admin.post("/api/reports/dashboards", {"name": "Plans"}, h).json()["id"]
        widgets = "/api/reports/dashboards/%d/widgets" % board
        r = admin.post(widgets, {"kind": "invoices_due", "title": "Due"}, h)
        assert r.status == 422 and "needs the invoices module" in r.json()["error"]["message"], r.body
        assert admin.post(widgets, {"kind": "contacts_new", "title": "New"}, h).status == 201
        data = admin.get("/api/reports/dashboards/%d/data" % board, h).json()
        assert data["absent_modules"] == ["invoices"]
        assert [w["kind"] for w in data["widgets"]] == ["contacts_new"]
        assert data["widgets"][0]["data"]["series"]


def test_with_invoices_the_figures_are_there_and_nothing_is_said():
    s, admin, (loc,) = agency(modules=WANTERS)
    with s:
        got = answers(admin, loc)
        for answer in got.values():
            assert "absent_modules" not in answer, answer
        assert got["/api/dashboard"]["invoices"]["outstanding"]["count"] == 0
        assert got["/api/dashboard"]["series"][0]["payments_cents"] == 0
        assert got["/api/agency/overview"]["counts"]["invoices"]["overdue"]["count"] == 0
