# SPDX-License-Identifier: MIT
"""Opportunities on seeded data, as a sub-account's users see them: the
board of a pipeline equal to the same question asked in SQL (stages in
order, their deals, their totals) with every filter; creating, changing,
moving, closing, reopening and deleting deals with each bad input refused;
pipelines and stages kept; other locations' records out of reach; the
events that reach a contact's activity; the cache dropped by writes; and
no statement scanning a whole table."""

import re
import time

from harness import error, every_page, headers, ids, new_contact, seeded_server, is_plan


DEAL_KEYS = {"id", "name", "value_cents", "currency", "stage_id", "position", "contact_id",
             "contact_name", "owner_id", "created_at"}
RECORD_KEYS = {"id", "name", "value_cents", "currency", "status", "lost_reason", "pipeline_id",
               "stage_id", "stage_name", "position", "contact_id", "contact_name", "owner_id",
               "created_at", "updated_at", "closed_at"}


def first_pipeline(s, location=1):
    return s.sql("SELECT id FROM pipelines WHERE location_id = ? ORDER BY position, id LIMIT 1",
                 location)[0][0]


def want(s, pipeline, where="o.status = 'open'"):
    """The board's deals in its order, and each stage's (id, count, value)."""
    deals = [r[0] for r in s.sql(
        "SELECT o.id FROM opportunities o JOIN stages s ON s.id = o.stage_id"
        " LEFT JOIN contacts c ON c.id = o.contact_id WHERE o.pipeline_id = ? AND (%s)"
        " ORDER BY s.position, s.id, o.position, o.id" % where, pipeline)]
    stages = [tuple(r) for r in s.sql(
        "SELECT s.id, count(o.id), ifnull(sum(o.value_cents), 0) FROM stages s"
        " LEFT JOIN (SELECT o.* FROM opportunities o LEFT JOIN contacts c ON c.id = o.contact_id"
        " WHERE %s) o ON o.stage_id = s.id WHERE s.pipeline_id = ?"
        " GROUP BY s.id ORDER BY s.position, s.id" % where, pipeline)]
    return deals, stages


def got(board):
    return ids(board["data"]), [(st["id"], st["count"], st["value_cents"]) for st in board["stages"]]


def make(client, h, **fields):
    r = client.post("/api/opportunities", fields, headers=h)
    assert r.status == 201, r.body
    return r.json()


def stage_ids(s, pipeline):
    return [r[0] for r in s.sql("SELECT id FROM stages WHERE pipeline_id = ? ORDER BY position, id",
                                pipeline)]


def test_the_board_equals_its_sql():
    s, admin = seeded_server()
    with s:
        pipeline = first_pipeline(s)
        board = admin.get("/api/opportunities?location_id=1").json()
        assert board["pipeline"]["id"] == pipeline and board["next_cursor"] is None
        assert len(board["data"]) > 10 and set(board["data"][0]) == DEAL_KEYS, board["data"][0]
        assert got(board) == want(s, pipeline)
        assert [st["name"] for st in board["stages"]] == \
            [r[0] for r in s.sql("SELECT name FROM stages WHERE pipeline_id = ? ORDER BY position, id",
                                 pipeline)]
        assert admin.get("/api/opportunities?location_id=1&pipeline=%d" % pipeline).json() == board
        row = next(d for d in board["data"] if d["contact_id"])
        first, last = s.sql("SELECT first_name, last_name FROM contacts WHERE id = ?", row["contact_id"])[0]
        assert row["contact_name"] == ("%s %s" % (first, last)).strip()
        owner = s.sql("SELECT owner_id FROM opportunities WHERE pipeline_id = ? AND owner_id IS NOT NULL"
                      " GROUP BY 1 ORDER BY count(*) DESC LIMIT 1", pipeline)[0][0]
        word = row["contact_name"].split()[0][:4].lower()
        cases = [("status=won", "o.status = 'won'"), ("status=lost", "o.status = 'lost'"),
                 ("status=abandoned", "o.status = 'abandoned'"),
                 ("owner=%d" % owner, "o.status = 'open' AND o.owner_id = %d" % owner),
                 ("status=won&owner=%d" % owner, "o.status = 'won' AND o.owner_id = %d" % owner),
                 ("q=%23", "o.status = 'open' AND instr(o.name, '#')"),
                 ("q=" + word, "o.status = 'open' AND (instr(lower(o.name), '%s') OR"
                  " instr(lower(c.first_name || ' ' || c.last_name), '%s'))" % (word, word)),
                 ("q=zzqqxx", "0")]
        for query, where in cases:
            answer = admin.get("/api/opportunities?location_id=1&" + query)
            assert answer.status == 200, answer.body
            assert got(answer.json()) == want(s, pipeline, where), query
            assert answer.json()["stages"] and answer.json()["pipeline"]["id"] == pipeline
        # A location without pipelines has an empty board.
        s.sql("DELETE FROM opportunities WHERE location_id = 3")
        s.sql("DELETE FROM stages WHERE location_id = 3")
        s.sql("DELETE FROM pipelines WHERE location_id = 3")
        assert admin.get("/api/opportunities?location_id=3").json() == \
            {"pipeline": None, "data": [], "stages": [], "next_cursor": None}


def column_pages(admin, stage, per_stage, query=""):
    """Column `stage` read page by page with its cursors: the deal ids,
    and the totals every page gave."""
    deals, totals, cursor = [], set(), None
    while True:
        page = admin.get("/api/opportunities?location_id=1&stage=%d&per_stage=%d%s%s"
                         % (stage, per_stage, query, "&cursor=" + cursor if cursor else "")).json()
        assert [st["id"] for st in page["stages"]] == [stage]
        assert page["next_cursor"] == page["stages"][0]["next_cursor"]
        assert len(page["data"]) <= per_stage and all(d["stage_id"] == stage for d in page["data"])
        deals += ids(page["data"])
        totals.add((page["stages"][0]["count"], page["stages"][0]["value_cents"]))
        cursor = page["next_cursor"]
        if not cursor:
            return deals, totals


def test_each_column_is_paged_and_counts_all_its_deals():
    s, admin = seeded_server()
    with s:
        pipeline = first_pipeline(s)
        owner = s.sql("SELECT owner_id FROM opportunities WHERE pipeline_id = ? AND owner_id IS NOT NULL"
                      " GROUP BY 1 ORDER BY count(*) DESC LIMIT 1", pipeline)[0][0]
        cases = [("", "o.status = 'open'"), ("&status=won", "o.status = 'won'"),
                 ("&owner=%d" % owner, "o.status = 'open' AND o.owner_id = %d" % owner),
                 ("&q=deal", "o.status = 'open' AND (instr(lower(o.name), 'deal') OR"
                  " instr(lower(c.first_name || ' ' || c.last_name), 'deal'))")]
        longest = 0
        for query, where in cases:
            deals, stages = want(s, pipeline, where)
            order = {d: i for i, d in enumerate(deals)}
            board = admin.get("/api/opportunities?location_id=1&per_stage=2" + query).json()
            assert board["next_cursor"] is None
            assert [(st["id"], st["count"], st["value_cents"]) for st in board["stages"]] == stages, query
            for st, (stage, n, cents) in zip(board["stages"], stages):
                column = [d for d in deals if s.sql("SELECT stage_id FROM opportunities WHERE id = ?", d)[0][0]
                          == stage]
                shown = [d["id"] for d in board["data"] if d["stage_id"] == stage]
                assert shown == column[:2], (query, stage)
                assert (st["next_cursor"] is None) == (n <= 2), (query, stage)
                for per_stage in (1, 3):
                    assert column_pages(admin, stage, per_stage, query) == (column, {(n, cents)})
                longest = max(longest, n)
            assert sorted(ids(board["data"]), key=order.get) == ids(board["data"])
        assert longest > 3  # some column took several pages
        # The whole board at once, as before, when the pages are big enough.
        assert got(admin.get("/api/opportunities?location_id=1&per_stage=500").json()) == want(s, pipeline)


def test_a_columns_next_page_goes_on_after_the_last_deal_where_it_is_now():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        stage = max(stage_ids(s, first_pipeline(s)), key=lambda st: s.sql(
            "SELECT count(*) FROM opportunities WHERE stage_id = ? AND status = 'open'", st)[0][0])
        column = column_pages(admin, stage, 50)[0]
        assert len(column) >= 6
        # Numbered 0, 1, 2... by a move that changes nothing.
        assert admin.patch("/api/opportunities/%d" % column[0], {"before_id": column[1]}, headers=h).status == 200
        page = admin.get("/api/opportunities?location_id=1&stage=%d&per_stage=3" % stage).json()
        assert ids(page["data"]) == column[:3]
        # The last deal sent is moved to the top: the move renumbers the
        # stage, and the next page follows that deal where it is now.
        assert admin.patch("/api/opportunities/%d" % column[2], {"before_id": column[0]}, headers=h).status == 200
        rest = admin.get("/api/opportunities?location_id=1&stage=%d&per_stage=2&cursor=%s"
                         % (stage, page["next_cursor"])).json()
        assert ids(rest["data"]) == column[:2]
        # Once it has left the column, the page goes on from where it was.
        assert admin.patch("/api/opportunities/%d" % column[2], {"status": "won"}, headers=h).status == 200
        rest = admin.get("/api/opportunities?location_id=1&stage=%d&per_stage=2&cursor=%s"
                         % (stage, page["next_cursor"])).json()
        assert ids(rest["data"]) == column[3:5]


def test_bad_board_queries_are_400_and_others_pipelines_404():
    s, admin = seeded_server()
    with s:
        stage = stage_ids(s, first_pipeline(s))[0]
        cursor = admin.get("/api/opportunities?location_id=1&per_stage=1&stage=%d" % stage).json()["next_cursor"]
        assert cursor
        for query, words in (("status=closed", "status"), ("pipeline=x", "pipeline"),
                             ("pipeline=0", "pipeline"), ("owner=someone", "owner"), ("q=", "q"),
                             ("per_stage=0", "per_stage"), ("per_stage=501", "per_stage"),
                             ("stage=x", "stage"), ("cursor=" + cursor, "stage"),
                             ("stage=%d&cursor=5B2278225D" % stage, "cursor"),
                             ("stage=%d&cursor=zz" % stage, "cursor")):
            error(admin.get("/api/opportunities?location_id=1&" + query), 400, words)
        theirs = first_pipeline(s, 2)
        error(admin.get("/api/opportunities?location_id=1&pipeline=%d" % theirs), 404, "pipeline")
        error(admin.get("/api/opportunities?location_id=1&stage=%d" % stage_ids(s, theirs)[0]), 404, "stage")
        other = admin.post("/api/pipelines", {"name": "Second"}, headers=headers(admin)).json()
        error(admin.get("/api/opportunities?location_id=1&stage=%d&pipeline=%d" % (stage, other["id"])),
              404, "stage")
        # owner=me is the caller's id.
        me = admin.get("/api/auth/me").json()["user"]["id"]
        assert admin.get("/api/opportunities?location_id=1&owner=me").json() == \
            admin.get("/api/opportunities?location_id=1&owner=%d" % me).json()


def test_create_change_move_close_reopen_and_delete():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        pipeline = first_pipeline(s)
        stages = stage_ids(s, pipeline)
        contact = s.sql("SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL LIMIT 1")[0][0]
        me = admin.get("/api/auth/me").json()["user"]["id"]
        d = make(admin, h, name="Big deal", stage_id=stages[0], value_cents=123456, contact_id=contact,
                 owner_id=me, currency="EUR")
        assert set(d) == RECORD_KEYS
        assert (d["status"], d["pipeline_id"], d["stage_id"], d["value_cents"], d["currency"],
                d["owner_id"], d["closed_at"]) == ("open", pipeline, stages[0], 123456, "EUR", me, None)
        last = s.sql("SELECT max(position) FROM opportunities WHERE stage_id = ? AND status = 'open'"
                     " AND id <> ?", stages[0], d["id"])[0][0] or 0
        assert d["position"] >= last
        path = "/api/opportunities/%d" % d["id"]
        assert admin.get(path + "?location_id=1").json() == d
        r = admin.patch(path, {"name": "Bigger", "value_cents": 0, "contact_id": None}, headers=h)
        assert r.status == 200 and (r.json()["name"], r.json()["value_cents"], r.json()["contact_id"]) == \
            ("Bigger", 0, None)
        # A move with a position lands before the deal that held it.
        target = admin.get("/api/opportunities?location_id=1").json()
        in_second = [x for x in target["data"] if x["stage_id"] == stages[1]]
        r = admin.patch(path, {"stage_id": stages[1], "position": in_second[0]["position"]}, headers=h)
        assert r.status == 200 and r.json()["stage_id"] == stages[1]
        board = admin.get("/api/opportunities?location_id=1").json()
        assert [x["id"] for x in board["data"] if x["stage_id"] == stages[1]][:2] == [d["id"], in_second[0]["id"]]
        assert got(board) == want(s, pipeline)
        # Without a position it goes last.
        assert admin.patch(path, {"stage_id": stages[2]}, headers=h).status == 200
        board = admin.get("/api/opportunities?location_id=1").json()
        assert [x["id"] for x in board["data"] if x["stage_id"] == stages[2]][-1] == d["id"]
        r = admin.patch(path, {"status": "lost", "lost_reason": "Too dear"}, headers=h).json()
        assert (r["status"], r["lost_reason"]) == ("lost", "Too dear") and r["closed_at"]
        assert d["id"] not in ids(admin.get("/api/opportunities?location_id=1").json()["data"])
        assert d["id"] in ids(admin.get("/api/opportunities?location_id=1&status=lost").json()["data"])
        r = admin.patch(path, {"status": "won"}, headers=h).json()
        assert (r["status"], r["lost_reason"]) == ("won", "Too dear") and r["closed_at"]
        r = admin.patch(path, {"status": "open"}, headers=h).json()
        assert (r["status"], r["lost_reason"], r["closed_at"]) == ("open", None, None)
        assert admin.delete(path, headers=h).status == 204
        assert admin.get(path + "?location_id=1").status == 404
        assert admin.delete(path, headers=h).status == 404
        assert not s.sql("SELECT 1 FROM opportunities WHERE id = ?", d["id"])


def test_a_deal_moves_before_another_even_where_positions_tie():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        pipeline = first_pipeline(s)
        stages = stage_ids(s, pipeline)
        for i in range(4):
            make(admin, h, name="Tied %d" % i, stage_id=stages[1])
        # As an import leaves them: one position for all.
        s.sql("UPDATE opportunities SET position = 0 WHERE stage_id = ? AND status = 'open'", stages[1])

        def column():
            board = admin.get("/api/opportunities?location_id=1").json()
            return [x["id"] for x in board["data"] if x["stage_id"] == stages[1]]
        before = column()
        assert len(before) >= 4
        # From another stage to just before the third of the column, then
        # within the column to before the second.
        mover = make(admin, h, name="Mover", stage_id=stages[0])
        path = "/api/opportunities/%d" % mover["id"]
        r = admin.patch(path, {"stage_id": stages[1], "before_id": before[2]}, headers=h)
        assert r.status == 200, r.body
        assert column() == before[:2] + [mover["id"]] + before[2:]
        last = before[-1]
        r = admin.patch("/api/opportunities/%d" % last, {"before_id": before[1]}, headers=h)
        assert r.status == 200, r.body
        assert column() == [before[0], last, before[1], mover["id"]] + before[2:-1]
        assert got(admin.get("/api/opportunities?location_id=1").json()) == want(s, pipeline)
        # After a deal: what a drop below a column's loaded cards sends.
        r = admin.patch(path, {"after_id": before[0]}, headers=h)
        assert r.status == 200, r.body
        assert column() == [before[0], mover["id"], last, before[1]] + before[2:-1]
        assert got(admin.get("/api/opportunities?location_id=1").json()) == want(s, pipeline)
        for body in ({"after_id": before[0], "before_id": before[1]}, {"after_id": before[0], "position": 1},
                     {"stage_id": stages[2], "after_id": before[0]}, {"after_id": mover["id"]},
                     {"after_id": None}):
            error(admin.patch(path, body, headers=h), 422, "after_id")
        # Refused: both ways at once, a deal of another stage, itself, null.
        for body in ({"before_id": before[0], "position": 0},
                     {"stage_id": stages[2], "before_id": before[0]},
                     {"before_id": mover["id"]}, {"before_id": None}, {"before_id": "x"}):
            error(admin.patch(path, body, headers=h), 422, "before_id")
        assert column() == [before[0], mover["id"], last, before[1]] + before[2:-1]


def test_bad_input_is_refused_naming_the_field():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        pipeline = first_pipeline(s)
        stage = stage_ids(s, pipeline)[0]
        other_stage = s.sql("SELECT id FROM stages WHERE location_id = 2 LIMIT 1")[0][0]
        other_contact = s.sql("SELECT id FROM contacts WHERE location_id = 2 LIMIT 1")[0][0]
        gone = s.sql("SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL LIMIT 1")[0][0]
        assert admin.delete("/api/contacts/%d" % gone, headers=h).status == 204
        other_user = s.sql("SELECT id FROM users WHERE email = 'location-2@example.test'")[0][0]
        second = admin.post("/api/pipelines", {"name": "Second"}, headers=h).json()
        second_stage = admin.post("/api/pipelines/%d/stages" % second["id"], {"name": "One"}, headers=h).json()
        before = s.sql("SELECT count(*) FROM opportunities")[0][0]
        ok = {"name": "n", "stage_id": stage}
        for body, words in (
                ({"stage_id": stage}, "name: required"),
                (dict(ok, name=""), "name: required"),
                (dict(ok, name=None), "name: required"),
                (dict(ok, name="x" * 201), "name"),
                (dict(ok, name=5), "name"),
                ({"name": "n"}, "stage_id: required"),
                (dict(ok, stage_id=None), "stage_id"),
                (dict(ok, stage_id=other_stage), "stage_id: no stage of this sub-account"),
                (dict(ok, stage_id=999999), "stage_id: no stage of this sub-account"),
                (dict(ok, pipeline_id=second["id"]), "stage_id: not a stage of pipeline_id"),
                (dict(ok, value_cents=-1), "value_cents"),
                (dict(ok, value_cents=1.5), "value_cents"),
                (dict(ok, value_cents="100"), "value_cents"),
                (dict(ok, currency="usd"), "currency"),
                (dict(ok, currency="DOLLARS"), "currency"),
                (dict(ok, contact_id=other_contact), "contact_id: no contact of this sub-account"),
                (dict(ok, contact_id=gone), "contact_id: no contact of this sub-account"),
                (dict(ok, contact_id=0), "contact_id"),
                (dict(ok, owner_id=other_user), "owner_id: no user of this sub-account"),
                (dict(ok, owner_id=999999), "owner_id: no user of this sub-account"),
                (dict(ok, position=-1), "position"),
                (dict(ok, status="won"), "status: no such field"),
                (dict(ok, stage="Lead"), "stage: no such field")):
            error(admin.post("/api/opportunities", body, headers=h), 422, words)
        assert s.sql("SELECT count(*) FROM opportunities")[0][0] == before
        d = make(admin, h, name="x" * 200, stage_id=stage)
        path = "/api/opportunities/%d" % d["id"]
        for body, words in (({"name": None}, "name: required"), ({"status": "closed"}, "status"),
                            ({"status": None}, "status"), ({"value_cents": None}, "value_cents"),
                            ({"stage_id": second_stage["id"]}, "stage_id: not a stage of this deal's pipeline"),
                            ({"stage_id": other_stage}, "stage_id"), ({"lost_reason": "x" * 501}, "lost_reason"),
                            ({"pipeline_id": second["id"]}, "pipeline_id: no such field")):
            error(admin.patch(path, body, headers=h), 422, words)
        assert admin.get(path + "?location_id=1").json() == d
        for body, words in (({}, "name: required"), ({"name": "p", "position": None}, "position"),
                            ({"name": "p", "stages": []}, "stages")):
            error(admin.post("/api/pipelines", body, headers=h), 422, words)
        for body, words in (({}, "name: required"), ({"name": "s", "probability": 101}, "probability"),
                            ({"name": "s", "position": -1}, "position")):
            error(admin.post("/api/pipelines/%d/stages" % second["id"], body, headers=h), 422, words)
        error(admin.patch("/api/stages/%d" % second_stage["id"], {"probability": None}, headers=h),
              422, "probability")
        error(admin.patch("/api/pipelines/%d" % second["id"], {"name": ""}, headers=h), 422, "name")


def test_pipelines_and_stages():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        listed = admin.get("/api/pipelines?location_id=1").json()["data"]
        assert ids(listed) == [r[0] for r in s.sql(
            "SELECT id FROM pipelines WHERE location_id = 1 ORDER BY position, id")]
        assert ids(listed[0]["stages"]) == stage_ids(s, listed[0]["id"])
        p = admin.post("/api/pipelines", {"name": "Renewals"}, headers=h)
        assert p.status == 201
        p = p.json()
        assert p["stages"] == [] and p["position"] > listed[-1]["position"]
        a = admin.post("/api/pipelines/%d/stages" % p["id"], {"name": "Ask", "probability": 20}, headers=h).json()
        b = admin.post("/api/pipelines/%d/stages" % p["id"], {"name": "Sign"}, headers=h).json()
        c = admin.post("/api/pipelines/%d/stages" % p["id"], {"name": "First", "position": 0}, headers=h).json()
        assert (a["position"], b["position"], a["probability"], a["pipeline_id"]) == (0, 1, 20, p["id"])
        board = admin.get("/api/opportunities?location_id=1&pipeline=%d" % p["id"]).json()
        assert [st["id"] for st in board["stages"]] == [c["id"], a["id"], b["id"]]
        assert board["data"] == [] and all(st["count"] == 0 for st in board["stages"])
        r = admin.patch("/api/stages/%d" % b["id"], {"name": "Signed", "position": 9, "probability": 90},
                        headers=h).json()
        assert (r["name"], r["position"], r["probability"]) == ("Signed", 9, 90)
        r = admin.patch("/api/pipelines/%d" % p["id"], {"name": "Renewal", "position": 0}, headers=h).json()
        assert (r["name"], r["position"]) == ("Renewal", 0) and ids(r["stages"]) == [c["id"], a["id"], b["id"]]
        # A stage given the position of the one above goes before it, as the
        # page's "up" sends; the others make room.
        r = admin.patch("/api/stages/%d" % b["id"], {"position": 1}, headers=h).json()
        assert r["position"] == 1 and stage_ids(s, p["id"]) == [c["id"], b["id"], a["id"]]
        assert [x[0] for x in s.sql("SELECT position FROM stages WHERE pipeline_id = ?"
                                    " ORDER BY position, id", p["id"])] == [0, 1, 2]
        admin.patch("/api/stages/%d" % a["id"], {"position": 1}, headers=h)
        assert stage_ids(s, p["id"]) == [c["id"], a["id"], b["id"]]
        deal = make(admin, h, name="Renew", stage_id=a["id"], value_cents=500)
        make(admin, h, name="Renew 2", stage_id=a["id"], value_cents=700)
        error(admin.delete("/api/stages/%d" % a["id"], headers=h), 409, "2 deals")
        error(admin.delete("/api/pipelines/%d" % p["id"], headers=h), 409, "2 deals")
        board = admin.get("/api/opportunities?location_id=1&pipeline=%d" % p["id"]).json()
        assert [(st["count"], st["value_cents"]) for st in board["stages"]] == [(0, 0), (2, 1200), (0, 0)]
        assert admin.delete("/api/stages/%d" % b["id"], headers=h).status == 204
        assert admin.patch("/api/stages/%d" % b["id"], {"name": "x"}, headers=h).status == 404
        s.sql("DELETE FROM opportunities WHERE stage_id = ?", a["id"])
        assert admin.delete("/api/pipelines/%d" % p["id"], headers=h).status == 204
        assert not s.sql("SELECT 1 FROM stages WHERE pipeline_id = ?", p["id"])
        assert admin.get("/api/opportunities/%d?location_id=1" % deal["id"]).status == 404
        assert admin.delete("/api/pipelines/%d" % p["id"], headers=h).status == 404


def test_another_locations_records_are_404():
    s, admin = seeded_server()
    with s:
        h1, h2 = headers(admin, 1), headers(admin, 2)
        pipeline = first_pipeline(s, 2)
        stage = stage_ids(s, pipeline)[0]
        theirs = make(admin, h2, name="Theirs", stage_id=stage)
        path = "/api/opportunities/%d" % theirs["id"]
        assert admin.get(path + "?location_id=1").status == 404
        assert admin.patch(path, {"name": "Mine now"}, headers=h1).status == 404
        assert admin.patch(path, {"status": "won"}, headers=h1).status == 404
        assert admin.delete(path, headers=h1).status == 404
        assert admin.get(path + "?location_id=2").json() == theirs
        assert admin.patch("/api/pipelines/%d" % pipeline, {"name": "x"}, headers=h1).status == 404
        assert admin.delete("/api/pipelines/%d" % pipeline, headers=h1).status == 404
        assert admin.post("/api/pipelines/%d/stages" % pipeline, {"name": "x"}, headers=h1).status == 404
        assert admin.patch("/api/stages/%d" % stage, {"name": "x"}, headers=h1).status == 404
        assert admin.delete("/api/stages/%d" % stage, headers=h1).status == 404
        assert pipeline not in ids(admin.get("/api/pipelines?location_id=1").json()["data"])
        assert s.sql("SELECT name FROM pipelines WHERE id = ?", pipeline)[0][0] != "x"
        user = s.login("location-2@example.test", "perf-pass-123")
        assert user.get("/api/opportunities?location_id=1").status == 404
        assert theirs["id"] in ids(user.get("/api/opportunities?per_stage=500").json()["data"])


def activity(admin, contact):
    return admin.get("/api/contacts/%d?location_id=1" % contact).json()["activity"]


def test_events_reach_the_contacts_activity():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        pipeline = first_pipeline(s)
        stages = stage_ids(s, pipeline)
        contact = s.sql("SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL"
                        " ORDER BY id DESC LIMIT 1")[0][0]
        before = activity(admin, contact)
        total = s.sql("SELECT sum(count) FROM contact_activity")[0][0]
        loose = make(admin, h, name="Loose", stage_id=stages[0])["id"]
        admin.patch("/api/opportunities/%d" % loose, {"status": "won"}, headers=h)
        admin.delete("/api/opportunities/%d" % loose, headers=h)
        d = make(admin, h, name="Busy", stage_id=stages[0], contact_id=contact)["id"]
        path = "/api/opportunities/%d" % d
        for body in ({"value_cents": 5}, {"stage_id": stages[1]}, {"status": "won"}, {"status": "lost"},
                     {"status": "abandoned"}, {"status": "open"}):
            assert admin.patch(path, body, headers=h).status == 200
        error(admin.patch(path, {"status": "gone"}, headers=h), 422, "status")  # refused: none
        # The contact's timeline reads each move as a line linking to the deal,
        # newest first; a change of the value alone is no line.
        names = dict(s.sql("SELECT id, name FROM stages WHERE id IN (?, ?)", stages[0], stages[1]))
        lines = ["Deal Busy reopened", "Deal Busy abandoned", "Deal Busy lost", "Deal Busy won",
                 "Deal Busy moved from %s to %s" % (names[stages[0]], names[stages[1]]),
                 "Deal Busy created in %s" % names[stages[0]]]
        timeline = "/api/contacts/%d/timeline?location_id=1&limit=6" % contact
        deadline = time.time() + 10
        while [t["line"] for t in admin.get(timeline).json()["data"]] != lines and time.time() < deadline:
            time.sleep(0.02)
        page = admin.get(timeline).json()
        assert [t["line"] for t in page["data"]] == lines
        assert {t["link"] for t in page["data"]} == {"/opportunities/%d" % d}
        assert page["data"][4]["kind"] == "opportunity.stage_changed"
        # Another sub-account's user cannot read it.
        other = s.login("location-2@example.test", "perf-pass-123")
        assert other.get(timeline).status == 404
        assert other.get("/api/contacts/%d/timeline" % contact).status == 404
        assert admin.delete(path, headers=h).status == 204
        expected = dict(before)
        counts = {"opportunity.created": 1, "opportunity.updated": 6, "opportunity.stage_changed": 1,
                  "opportunity.won": 1, "opportunity.lost": 1, "opportunity.abandoned": 1,
                  "opportunity.reopened": 1, "opportunity.deleted": 1}
        for kind, n in counts.items():
            expected[kind] = expected.get(kind, 0) + n
        deadline = time.time() + 10
        while activity(admin, contact) != expected and time.time() < deadline:
            time.sleep(0.02)
        assert activity(admin, contact) == expected
        assert s.sql("SELECT sum(count) FROM contact_activity")[0][0] == total + sum(counts.values())


def lines_of(admin, path, want):
    """The lines of a history or timeline once they are `want` (they are
    written as the events are handled), or as they are after 10 s."""
    deadline = time.time() + 10
    while True:
        got = [x["line"] for x in admin.get(path).json()["data"]]
        if got == want or time.time() > deadline:
            return got
        time.sleep(0.02)


def test_a_deal_has_notes_and_a_history_and_its_notes_reach_its_contact():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        stages = stage_ids(s, first_pipeline(s))
        names = dict(s.sql("SELECT id, name FROM stages WHERE id IN (?, ?)", stages[0], stages[1]))
        contact = new_contact(admin, h, first_name="Noted")["id"]
        d = make(admin, h, name="Retainer", stage_id=stages[0], contact_id=contact)["id"]
        path = "/api/opportunities/%d" % d
        admin.patch(path, {"stage_id": stages[1]}, headers=h)
        admin.patch(path, {"status": "won"}, headers=h)
        history = lines_of(admin, path + "/history?location_id=1", [
            "Deal Retainer won", "Deal Retainer moved from %s to %s" % (names[stages[0]], names[stages[1]]),
            "Deal Retainer created in %s" % names[stages[0]]])
        assert history == ["Deal Retainer won",
                           "Deal Retainer moved from %s to %s" % (names[stages[0]], names[stages[1]]),
                           "Deal Retainer created in %s" % names[stages[0]]], history
        error(admin.post(path + "/notes", {"body": ""}, headers=h), 422, "body")
        error(admin.post(path + "/notes", {"text": "x"}, headers=h), 422, "text")
        note = admin.post(path + "/notes", {"body": "Signed for a year"}, headers=h)
        assert note.status == 201 and note.json()["body"] == "Signed for a year"
        second = admin.post(path + "/notes", {"body": "Invoice in March"}, headers=h).json()["id"]
        assert [n["body"] for n in every_page(admin, path + "/notes?location_id=1", limit=1)] \
            == ["Invoice in March", "Signed for a year"]
        # The contact's timeline has the deal's notes, linking to the deal; a
        # note deleted leaves it.
        timeline = "/api/contacts/%d/timeline?location_id=1" % contact
        want = ["Note on deal Retainer: Invoice in March", "Note on deal Retainer: Signed for a year"]
        assert lines_of(admin, timeline + "&limit=2", want) == want
        assert admin.get(timeline + "&limit=1").json()["data"][0]["link"] == "/opportunities/%d" % d
        assert admin.delete(path + "/notes/%d" % second, headers=h).status == 204
        assert admin.delete(path + "/notes/%d" % second, headers=h).status == 404
        assert lines_of(admin, timeline + "&limit=1", want[1:]) == want[1:]
        # Another sub-account reads and writes none of it.
        other = s.login("location-2@example.test", "perf-pass-123")
        for sub in ("/notes", "/history"):
            assert other.get(path + sub).status == 404
            assert admin.get(path + sub + "?location_id=2").status == 404
        assert other.post(path + "/notes", {"body": "x"}).status == 404
        r = other.delete(path + "/notes/%d" % note.json()["id"], headers=headers(other, 2))
        assert r.status == 404, (r.status, r.body)
        # The deal takes its notes and history with it.
        assert admin.delete(path, headers=h).status == 204
        assert s.sql("SELECT count(*) FROM deal_notes WHERE opportunity_id = ?", d)[0][0] == 0
        assert s.sql("SELECT count(*) FROM deal_history WHERE opportunity_id = ?", d)[0][0] == 0


def test_writes_drop_the_cached_board():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        stages = stage_ids(s, first_pipeline(s))
        path = "/api/opportunities?location_id=1"
        assert admin.get(path).header("x-cache") == "miss"
        assert admin.get(path).header("x-cache") == "hit"
        made = make(admin, h, name="Fresh", stage_id=stages[0])
        after = admin.get(path)
        assert after.header("x-cache") == "miss" and made["id"] in ids(after.json()["data"])
        assert admin.get(path).header("x-cache") == "hit"
        # The board shows contacts' names: renaming one drops it too.
        contact = next(r["contact_id"] for r in after.json()["data"] if r["contact_id"])
        assert admin.patch("/api/contacts/%d" % contact, {"first_name": "Renamed"}, headers=h).status == 200
        renamed = admin.get(path)
        assert renamed.header("x-cache") == "miss"
        assert any(r["contact_name"].startswith("Renamed") for r in renamed.json()["data"]
                   if r["contact_id"] == contact)
        # And stage names: renaming a stage drops it.
        assert admin.patch("/api/stages/%d" % stages[0], {"name": "Fresh leads"}, headers=h).status == 200
        board = admin.get(path)
        assert board.header("x-cache") == "miss" and board.json()["stages"][0]["name"] == "Fresh leads"
        record = "/api/opportunities/%d?location_id=1" % made["id"]
        assert admin.get(record).header("x-cache") == "miss"
        assert admin.get(record).header("x-cache") == "hit"
        admin.patch("/api/opportunities/%d" % made["id"], {"status": "won"}, headers=h)
        won = admin.get(record)
        assert won.header("x-cache") == "miss" and won.json()["status"] == "won"


def test_no_statement_of_the_module_scans_a_whole_table():
    s, admin = seeded_server(env={"PGHL_LOG_PLANS": "1", "PGHL_RESULT_CACHE": "0"})
    with s:
        h = headers(admin)
        pipeline = first_pipeline(s)
        stages = stage_ids(s, pipeline)
        contact = s.sql("SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL LIMIT 1")[0][0]
        queries = ["", "pipeline=%d" % pipeline, "status=won", "owner=2", "q=deal", "status=lost&owner=2&q=a",
                   "per_stage=1&stage=%d" % stages[0]]
        for query in queries:
            assert admin.get("/api/opportunities?location_id=1&" + query).status == 200
        cursor = admin.get("/api/opportunities?location_id=1&per_stage=1&stage=%d" % stages[0]).json()["next_cursor"]
        for query in ("", "&owner=2", "&q=a"):
            assert admin.get("/api/opportunities?location_id=1&per_stage=1&stage=%d&cursor=%s%s"
                             % (stages[0], cursor, query)).status == 200
        assert admin.get("/api/pipelines?location_id=1").status == 200
        d = make(admin, h, name="Plan", stage_id=stages[0], contact_id=contact, owner_id=1, position=0)
        path = "/api/opportunities/%d" % d["id"]
        assert admin.get(path + "?location_id=1").status == 200
        assert admin.patch(path, {"name": "Plan 2", "contact_id": None}, headers=h).status == 200
        assert admin.patch(path, {"stage_id": stages[1], "position": 1}, headers=h).status == 200
        assert admin.patch(path, {"stage_id": stages[2]}, headers=h).status == 200
        assert admin.patch(path, {"status": "won"}, headers=h).status == 200
        assert admin.delete(path, headers=h).status == 204
        p = admin.post("/api/pipelines", {"name": "P"}, headers=h).json()
        st = admin.post("/api/pipelines/%d/stages" % p["id"], {"name": "S"}, headers=h).json()
        assert admin.patch("/api/stages/%d" % st["id"], {"name": "T"}, headers=h).status == 200
        assert admin.patch("/api/pipelines/%d" % p["id"], {"name": "Q"}, headers=h).status == 200
        error(admin.delete("/api/stages/%d" % stages[0], headers=h), 409, "deal")
        assert admin.delete("/api/stages/%d" % st["id"], headers=h).status == 204
        assert admin.delete("/api/pipelines/%d" % p["id"], headers=h).status == 204
        s.stop()
        plans = [l for l in s.log.splitlines() if is_plan(l) and
                 re.search(r"\b(opportunities|stages|pipelines)\b", l.split("=>")[0])]
        assert len(plans) >= len(queries) + 15
        for line in plans:
            assert not re.search(r"SCAN (o|opportunities|s|stages|p|pipelines|c|contacts|u|users)\b"
                                 r"(?! USING)", line), line
        # Each column is a range of the index in order: no sort, and a
        # cursor is where the range starts.
        boards = [l for l in plans if "ORDER BY o.position, o.id" in l.split("=>")[0]]
        assert len(boards) >= 7  # a text per filter combination, with and without a cursor
        for line in boards:
            assert "TEMP B-TREE" not in line.split("=>", 1)[1], line


def test_a_deal_given_to_someone_rings_their_bell_and_the_board_finds_it_by_plain_letters():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        stages = stage_ids(s, first_pipeline(s))
        them = s.sql("SELECT id FROM users WHERE email = 'location-1@example.test'")[0][0]
        user = s.login("location-1@example.test", "perf-pass-123")
        before = user.get("/api/notifications").json()["unread"]
        d = make(admin, h, name="Ångström renewal", stage_id=stages[0])
        board = admin.get("/api/opportunities?location_id=1&q=ANGSTROM&per_stage=5").json()["data"]
        assert ids(board) == [d["id"]]
        path = "/api/opportunities/%d" % d["id"]
        assert admin.patch(path, {"owner_id": them}, headers=h).status == 200
        assert admin.patch(path, {"owner_id": them, "value_cents": 5}, headers=h).status == 200
        told = user.get("/api/notifications").json()
        assert told["unread"] == before + 1
        assert (told["data"][0]["text"], told["data"][0]["path"]) == \
            ("assigned you the deal “Ångström renewal”", "/opportunities/%d" % d["id"])
        make(admin, h, name="Theirs from the start", stage_id=stages[0], owner_id=them)
        assert user.get("/api/notifications").json()["unread"] == before + 2
