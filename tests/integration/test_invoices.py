# SPDX-License-Identifier: MIT
"""The invoices module on seeded data, as a sub-account's users see it:
the server's money arithmetic (rounding, discounts, taxes, totals,
overflow), the status transitions it allows and refuses, gap-free numbers,
the list's filters against the equivalent SQL and its pages, validation
naming the member, tenancy, the read cache, the contact's activity, and no
statement of the module scanning a whole table."""

import base64
import re
import threading
import time

from harness import error, every_page, headers, ids, seeded_server, is_plan, wait_for


ROW_KEYS = {"id", "number", "contact_id", "contact_name", "status", "currency", "subtotal_cents",
            "tax_cents", "total_cents", "paid_cents", "issued_at", "due_at", "paid_at",
            "created_at", "updated_at"}


def item(description="Work", quantity=1, price=1000, **more):
    return dict({"description": description, "quantity": quantity, "unit_price_cents": price}, **more)


def create(client, h, items=None, **fields):
    r = client.post("/api/invoices", dict({"items": items or [item()]}, **fields), headers=h)
    assert r.status == 201, r.body
    return r.json()


def a_contact(s, location=1):
    return s.sql("SELECT id FROM contacts WHERE location_id = ? AND deleted_at IS NULL"
                 " ORDER BY id LIMIT 1", location)[0][0]


def test_the_server_computes_every_amount_in_cents():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        inv = create(admin, h, [
            item("half down", 3, 335, tax_rate_bp=500),      # 1005 at 5 %: 50.25 -> 50
            item("half up", 1, 1010, tax_rate_bp=500),       # 1010 at 5 %: 50.5 -> 51
            item("discounted", 2, 1000, tax_rate_bp=1000, discount_cents=150),  # 1850, 185
            item("half a cent", 1, 5, tax_rate_bp=1000),     # 0.5 -> 1
            item("free", 4, 0),
            item("all off", 2, 300, discount_cents=600, tax_rate_bp=10000),
        ])
        lines = [(l["amount_cents"], l["tax_cents"]) for l in inv["items"]]
        assert lines == [(1005, 50), (1010, 51), (1850, 185), (5, 1), (0, 0), (0, 0)], lines
        assert [l["position"] for l in inv["items"]] == list(range(6))
        assert (inv["subtotal_cents"], inv["tax_cents"], inv["total_cents"]) == (3870, 287, 4157)
        # A draft is owed nothing until it is sent.
        assert inv["currency"] == "USD" and inv["status"] == "draft" and inv["balance_cents"] == 0
        # What was stored is what was answered.
        assert s.sql("SELECT subtotal_cents, tax_cents, total_cents FROM invoices WHERE id = ?",
                     inv["id"]) == [(3870, 287, 4157)]
        # A quantity with decimals, to three: the amount rounded half up.
        part = create(admin, h, [item("hours", 1.5, 9599), item("grams", 0.125, 4),
                                 item("third", 0.333, 300, tax_rate_bp=1000), item("ten", 10, 10)])
        assert [(l["quantity"], l["amount_cents"], l["tax_cents"]) for l in part["items"]] == \
            [(1.5, 14399, 0), (0.125, 1, 0), (0.333, 100, 10), (10, 100, 0)]
        assert part["total_cents"] == 14399 + 1 + 110 + 100
        assert admin.get("/api/invoices/%d" % part["id"], headers=h).json()["items"][0]["quantity"] == 1.5
        # The largest amount allowed, and one cent more.
        big = create(admin, h, [item("max", 1, 10 ** 13)])
        assert big["total_cents"] == 10 ** 13
        for items, words in (
            ([item("x", 10 ** 7, 10 ** 7)], "items[0]: quantity × unit_price_cents is over"),
            ([item("x", 1, 10 ** 13 + 1)], "items[0].unit_price_cents: an integer from 0 to"),
            ([item("x", 2 ** 62, 2 ** 62)], "items[0].quantity"),
            ([item("a", 1, 6 * 10 ** 12), item("b", 1, 6 * 10 ** 12)], "items: the total is over"),
            ([item("a", 1, 9 * 10 ** 12, tax_rate_bp=2000)], "items: the total is over"),
            ([item("x", 2, 100, discount_cents=201)], "items[0]: discount_cents is more than"),
        ):
            error(admin.post("/api/invoices", {"items": items}, headers=h), 422, words)


def test_statuses_move_as_allowed_and_no_further():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        path = "/api/invoices/%d"
        inv = create(admin, h, [item("a", 2, 5000, tax_rate_bp=1000)])  # total 11000
        i = inv["id"]
        pay = lambda amount, **more: admin.post(path % i + "/payments",
                                                dict({"amount_cents": amount, "method": "card"}, **more), headers=h)
        error(pay(100), 409, "the invoice is draft")
        sent = admin.post(path % i + "/send", {}, headers=h)
        assert sent.status == 200 and sent.json()["status"] == "sent" and sent.json()["issued_at"]
        error(admin.post(path % i + "/send", {}, headers=h), 409, "only a draft can be sent")
        error(admin.patch(path % i, {"due_at": "2027-01-01"}, headers=h), 409, "only a draft can be changed")
        error(admin.delete(path % i, headers=h), 409, "only a draft can be deleted")
        part = pay(4000, paid_at="2026-11-20")
        assert part.status == 201, part.body
        got = part.json()
        assert (got["status"], got["paid_cents"], got["balance_cents"], got["paid_at"]) == \
            ("partially_paid", 4000, 7000, None)
        # The sub-account's midnight: it keeps Chicago's time.
        assert got["payments"][0]["paid_at"] == "2026-11-20T06:00:00.000Z"
        error(pay(7001), 422, "amount_cents: more than the balance due, 7000")
        paid = pay(7000, method="bank_transfer").json()
        assert (paid["status"], paid["paid_cents"], paid["balance_cents"]) == ("paid", 11000, 0)
        assert paid["paid_at"] == paid["payments"][1]["paid_at"]
        assert [p["amount_cents"] for p in paid["payments"]] == [4000, 7000]
        error(pay(1), 409, "the invoice is paid")
        error(admin.post(path % i + "/void", {}, headers=h), 409, "the invoice is paid")
        # A partially paid one and a draft can be voided; a void one takes nothing more.
        other = create(admin, h)["id"]
        assert admin.post(path % other + "/send", {}, headers=h).status == 200
        assert admin.post("/api/invoices/%d/payments" % other, {"amount_cents": 1, "method": "cash"},
                          headers=h).json()["status"] == "partially_paid"
        voided = admin.post(path % other + "/void", {}, headers=h).json()
        assert (voided["status"], voided["paid_cents"], voided["balance_cents"]) == ("void", 1, 0)  # nothing due
        error(admin.post("/api/invoices/%d/payments" % other, {"amount_cents": 1, "method": "cash"},
                         headers=h), 409, "the invoice is void")
        error(admin.post(path % other + "/void", {}, headers=h), 409, "the invoice is void")
        error(admin.post(path % other + "/send", {}, headers=h), 409, "the invoice is void")
        draft = create(admin, h)["id"]
        assert admin.post(path % draft + "/void", {}, headers=h).json()["status"] == "void"
        # A draft changes (its lines replaced whole) and is deleted.
        draft = create(admin, h, [item("a"), item("b")])["id"]
        cid = a_contact(s)
        changed = admin.patch(path % draft, {"items": [item("c", 3, 100, tax_rate_bp=2000)],
                                             "due_at": "2027-01-31", "contact_id": cid}, headers=h)
        assert changed.status == 200, changed.body
        got = changed.json()
        assert [l["description"] for l in got["items"]] == ["c"]
        assert (got["total_cents"], got["due_at"], got["contact_id"]) == (360, "2027-01-31T06:00:00.000Z", cid)
        got = admin.patch(path % draft, {"contact_id": None}, headers=h).json()
        assert got["contact_id"] is None and got["total_cents"] == 360
        assert admin.delete(path % draft, headers=h).status == 204
        assert admin.get(path % draft + "?location_id=1").status == 404
        assert s.sql("SELECT count(*) FROM invoice_items WHERE invoice_id = ?", draft) == [(0,)]


def numbers(s, location=1):
    return sorted(int(n[4:]) for (n,) in s.sql("SELECT number FROM invoices WHERE location_id = ?", location))


def test_numbers_are_unique_per_location_and_gap_free():
    s, admin = seeded_server()
    with s:
        h1, h2 = headers(admin, 1), headers(admin, 2)
        seeded = numbers(s)
        assert seeded == list(range(1, len(seeded) + 1))
        first = create(admin, h1)
        assert first["number"] == "INV-%05d" % (len(seeded) + 1)
        # Refused creates take no number.
        error(admin.post("/api/invoices", {"items": []}, headers=h1), 422, "items")
        error(admin.post("/api/invoices", {"items": [item()], "contact_id": 10 ** 9}, headers=h1),
              422, "contact_id")
        assert create(admin, h1)["number"] == "INV-%05d" % (len(seeded) + 2)
        # Another location counts on its own.
        other = numbers(s, 2)
        assert create(admin, h2)["number"] == "INV-%05d" % (len(other) + 1)
        # Two clients at once: two numbers, the next two.
        got, clients = [], [s.login("perf@example.test", "perf-pass-123") for _ in range(2)]
        hs = [headers(c) for c in clients]

        def make(k):
            for _ in range(5):
                got.append(create(clients[k], hs[k])["number"])

        threads = [threading.Thread(target=make, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(got) == ["INV-%05d" % n for n in range(len(seeded) + 3, len(seeded) + 13)], got
        assert numbers(s) == list(range(1, len(seeded) + 13))


def sql_ids(s, where="1", *args):
    return [r[0] for r in s.sql("SELECT id FROM invoices WHERE location_id = 2 AND " + where +
                                " ORDER BY created_at DESC, id DESC", *args)]


def every_status(client, h):
    """One new invoice in each status, next to the seeded ones."""
    made = [create(client, h, due_at="2026-01-01")["id"] for _ in range(4)]
    for i in made[1:]:
        assert client.post("/api/invoices/%d/send" % i, {}, headers=h).status == 200
    pay = {"amount_cents": 1, "method": "cash"}
    assert client.post("/api/invoices/%d/payments" % made[2], pay, headers=h).status == 201
    assert client.post("/api/invoices/%d/void" % made[3], {}, headers=h).status == 200
    return made


def test_filters_equal_the_sql_and_pages_cover_everything():
    s, admin = seeded_server()
    with s:
        every_status(admin, headers(admin, 2))
        now = s.sql("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")[0][0]
        cases = [("", "1", ())]
        for st in ("draft", "sent", "paid", "partially_paid", "void"):
            cases.append(("status=" + st, "status = ?", (st,)))
        cases += [
            ("status=overdue", "status IN ('sent', 'partially_paid') AND due_at < ?", (now,)),
            ("issued_after=2026-06-01", "issued_at >= '2026-06-01'", ()),
            ("issued_before=2026-06-01", "issued_at < '2026-06-01'", ()),
            ("status=paid&issued_after=2026-03-01&issued_before=2026-09-01",
             "status = 'paid' AND issued_at >= '2026-03-01' AND issued_at < '2026-09-01'", ()),
        ]
        for query, where, args in cases:
            want = sql_ids(s, where, *args)
            assert want, query
            for limit in (7, 1000):
                got = ids(every_page(admin, "/api/invoices?location_id=2&" + query, limit=limit))
                assert got == want, (query, limit)
            total = admin.get("/api/invoices?location_id=2&count=1&limit=1&" + query).json()["total"]
            assert total == len(want), query
        assert sql_ids(s, "status IN ('sent', 'partially_paid') AND due_at < ?", now)
        first = admin.get("/api/invoices?location_id=2&limit=1").json()
        assert set(first) == {"data", "next_cursor"}
        assert set(first["data"][0]) == ROW_KEYS
        names = dict(s.sql("SELECT id, trim(first_name || ' ' || last_name) FROM contacts WHERE location_id = 2"))
        rows = every_page(admin, "/api/invoices?location_id=2", limit=1000)
        assert [r["contact_name"] for r in rows] == [names.get(r["contact_id"]) for r in rows]
        assert sum(1 for r in rows if r["contact_name"]) > 10
        # Default 50, at most 1000; bad input is 400.
        assert len(admin.get("/api/invoices?location_id=2").json()["data"]) == min(50, len(sql_ids(s)))
        for query, words in (("limit=0", "limit"), ("limit=1001", "limit"), ("status=late", "status is one of"),
                             ("issued_after=soon", "issued_after must be a date"), ("cursor=xyz", "cursor"), ("cursor=7b7d", "cursor"),
                             ("count=2", "count")):
            r = admin.get("/api/invoices?location_id=1&" + query)
            assert r.status == 400 and words in r.json()["error"]["message"], (query, r.body)


def test_one_invoice_has_its_lines_in_order_and_its_payments():
    s, admin = seeded_server()
    with s:
        i = s.sql("SELECT invoice_id FROM payments WHERE location_id = 1 ORDER BY id LIMIT 1")[0][0]
        got = admin.get("/api/invoices/%d?location_id=1" % i).json()
        want = s.sql("SELECT id, description, quantity, unit_price_cents, amount_cents FROM invoice_items"
                     " WHERE invoice_id = ? ORDER BY position", i)
        assert [(l["id"], l["description"], l["quantity"], l["unit_price_cents"], l["amount_cents"])
                for l in got["items"]] == [tuple(w) for w in want]
        pays = s.sql("SELECT id, amount_cents, method FROM payments WHERE invoice_id = ? ORDER BY paid_at, id", i)
        assert [(p["id"], p["amount_cents"], p["method"]) for p in got["payments"]] == [tuple(p) for p in pays]
        owed = got["status"] in ("sent", "partially_paid")
        assert got["balance_cents"] == (got["total_cents"] - got["paid_cents"] if owed else 0)


def test_each_validation_error_names_the_member():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        other_location_contact = a_contact(s, 2)
        for body, words in (
            ([], "send a JSON object"),
            ({"items": [item()], "colour": "red"}, "colour: no such field"),
            ({}, "items: an array of 1 to 200 lines"),
            ({"items": "x"}, "items: an array"),
            ({"items": [item()] * 201}, "items: an array of 1 to 200 lines"),
            ({"items": [5]}, "items[0]: an object"),
            ({"items": [item(), {"quantity": 1, "unit_price_cents": 1}]}, "items[1].description"),
            ({"items": [item("x" * 501)]}, "items[0].description: text of 1 to 500"),
            ({"items": [item("")]}, "items[0].description"),
            ({"items": [item(quantity=0)]}, "items[0].quantity: a number from 0.001 to 1000000000,"
                                              " with at most 3 decimals"),
            ({"items": [item(quantity=1.2345)]}, "items[0].quantity: a number from 0.001"),
            ({"items": [item(quantity=-1.5)]}, "items[0].quantity"),
            ({"items": [item(quantity="1.5")]}, "items[0].quantity"),
            ({"items": [item(quantity=10 ** 9 + 0.001)]}, "items[0].quantity"),
            ({"items": [item(price=-1)]}, "items[0].unit_price_cents"),
            ({"items": [item(price="10")]}, "items[0].unit_price_cents"),
            ({"items": [{"description": "x", "quantity": 1}]}, "items[0].unit_price_cents"),
            ({"items": [item(tax_rate_bp=10001)]}, "items[0].tax_rate_bp: an integer from 0 to 10000"),
            ({"items": [item(discount_cents=-1)]}, "items[0].discount_cents"),
            ({"items": [item(colour=1)]}, "items[0]: only description"),
            ({"items": [item()], "currency": "usd"}, "currency: three capital letters"),
            ({"items": [item()], "currency": "EURO"}, "currency"),
            ({"items": [item()], "due_at": "next week"}, "due_at: a date"),
            ({"items": [item()], "due_at": "2026-02-30x"}, "due_at"),
            ({"items": [item()], "contact_id": "1"}, "contact_id"),
            ({"items": [item()], "contact_id": other_location_contact}, "contact_id: no contact of this sub-account"),
        ):
            error(admin.post("/api/invoices", body, headers=h), 422, words)
        inv = create(admin, h)
        assert admin.post("/api/invoices/%d/send" % inv["id"], {}, headers=h).status == 200
        pay = "/api/invoices/%d/payments" % inv["id"]
        for body, words in (
            ({"method": "card"}, "amount_cents: an integer from 1"),
            ({"amount_cents": 0, "method": "card"}, "amount_cents: an integer from 1"),
            ({"amount_cents": None, "method": "card"}, "amount_cents: an integer from 1"),
            ({"amount_cents": "5", "method": "card"}, "amount_cents: an integer from 1"),
            ({"amount_cents": 1, "method": None}, "method: one of"),
            ({"amount_cents": 1}, "method: one of card, bank_transfer, cash, check, other"),
            ({"amount_cents": 1, "method": "bitcoin"}, "method: one of"),
            ({"amount_cents": 1, "method": "card", "paid_at": "yesterday"}, "paid_at: a date"),
            ({"amount_cents": 1, "method": "card", "tip": 1}, "tip: no such field"),
        ):
            error(admin.post(pay, body, headers=h), 422, words)
        draft = create(admin, h)["id"]
        error(admin.patch("/api/invoices/%d" % draft, {"items": []}, headers=h), 422, "items")
        error(admin.patch("/api/invoices/%d" % draft, {"number": "INV-1"}, headers=h), 422, "number: no such field")
        # Nothing of the refused bodies was written.
        assert admin.get(pay.replace("/payments", "") + "?location_id=1").json()["payments"] == []


def test_another_locations_invoice_is_404():
    s, admin = seeded_server()
    with s:
        h1 = headers(admin, 1)
        theirs = create(admin, headers(admin, 2))["id"]
        sent = s.sql("SELECT id FROM invoices WHERE location_id = 2 AND status = 'sent' LIMIT 1")[0][0]
        assert admin.get("/api/invoices/%d?location_id=1" % theirs).status == 404
        for method, path, body in (("PATCH", "", {"due_at": "2027-01-01"}), ("DELETE", "", None),
                                   ("POST", "/send", {}), ("POST", "/void", {}),
                                   ("POST", "/payments", {"amount_cents": 1, "method": "card"})):
            for i in (theirs, sent):
                r = admin.request(method, "/api/invoices/%d%s" % (i, path), body=body, headers=h1)
                assert r.status == 404, (method, path, r.body)
        assert s.sql("SELECT status FROM invoices WHERE id = ?", theirs) == [("draft",)]
        user = s.login("location-2@example.test", "perf-pass-123")
        mine = ids(every_page(user, "/api/invoices", limit=1000))
        assert mine == [r[0] for r in s.sql("SELECT id FROM invoices WHERE location_id = 2"
                                            " ORDER BY created_at DESC, id DESC")]
        assert user.get("/api/invoices?location_id=1").status == 404
        ours = s.sql("SELECT id FROM invoices WHERE location_id = 1 LIMIT 1")[0][0]
        assert user.get("/api/invoices/%d" % ours).status == 404


def test_a_write_drops_the_cached_answers():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        for path in ("/api/invoices?location_id=1&limit=5", "/api/invoices?location_id=1&status=draft"):
            assert admin.get(path).header("X-Cache") == "miss"
            assert admin.get(path).header("X-Cache") == "hit"
        made = create(admin, h)
        r = admin.get("/api/invoices?location_id=1&limit=5")
        assert r.header("X-Cache") == "miss" and made["id"] in ids(r.json()["data"])
        one = "/api/invoices/%d?location_id=1" % made["id"]
        assert admin.get(one).header("X-Cache") == "miss"
        assert admin.get(one).header("X-Cache") == "hit"
        assert admin.post("/api/invoices/%d/send" % made["id"], {}, headers=h).status == 200
        r = admin.get(one)
        assert r.header("X-Cache") == "miss" and r.json()["status"] == "sent"
        # A contact's new name shows in the list: the list reads contacts too.
        cid = s.sql("SELECT contact_id FROM invoices WHERE location_id = 1 AND contact_id IS NOT NULL")[0][0]
        path = "/api/invoices?location_id=1&limit=1000"
        admin.get(path)
        assert admin.get(path).header("X-Cache") == "hit"
        assert admin.patch("/api/contacts/%d" % cid, {"first_name": "Renamed", "last_name": "Person"},
                           headers=h).status == 200
        rows = [r for r in admin.get(path).json()["data"] if r["contact_id"] == cid]
        assert rows and all(r["contact_name"] == "Renamed Person" for r in rows)


def activity(admin, cid):
    got = admin.get("/api/contacts/%d?location_id=1" % cid).json()["activity"]
    return {k: v for k, v in got.items() if k.startswith("invoice.")}


def test_events_reach_the_contacts_activity():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        cid = s.sql("SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL"
                    " AND id NOT IN (SELECT contact_id FROM invoices WHERE contact_id IS NOT NULL) LIMIT 1")[0][0]
        assert activity(admin, cid) == {}
        a = create(admin, h, contact_id=cid)["id"]
        assert admin.patch("/api/invoices/%d" % a, {"due_at": "2027-01-01"}, headers=h).status == 200
        assert admin.post("/api/invoices/%d/send" % a, {}, headers=h).status == 200
        for amount in (400, 600):
            r = admin.post("/api/invoices/%d/payments" % a, {"amount_cents": amount, "method": "cash"}, headers=h)
            assert r.status == 201
        b = create(admin, h, contact_id=cid)["id"]
        assert admin.post("/api/invoices/%d/void" % b, {}, headers=h).status == 200
        c = create(admin, h, contact_id=cid)["id"]
        assert admin.delete("/api/invoices/%d" % c, headers=h).status == 204
        create(admin, h)  # no contact: counted nowhere
        error(admin.post("/api/invoices", {"contact_id": cid, "items": []}, headers=h), 422, "items")
        want = {"invoice.created": 3, "invoice.updated": 1, "invoice.sent": 1,
                "invoice.payment_recorded": 2, "invoice.paid": 1, "invoice.voided": 1,
                "invoice.deleted": 1}
        deadline = time.time() + 10
        while activity(admin, cid) != want and time.time() < deadline:
            time.sleep(0.05)
        assert activity(admin, cid) == want
        # The line says the total as the invoice does: yen have no cents.
        yen = create(admin, h, [item(price=1500, quantity=3)], contact_id=cid, currency="JPY")
        assert admin.post("/api/invoices/%d/send" % yen["id"], {}, headers=h).status == 200
        lines = {"Invoice %s sent, 4500 JPY" % yen["number"], "Invoice %s sent, 10.00 USD" % numbers_of(s, a)}
        assert wait_for(lambda: lines <= set(timeline(admin, cid)), 10, 0.05), timeline(admin, cid)


def numbers_of(s, invoice):
    return s.sql("SELECT number FROM invoices WHERE id = ?", invoice)[0][0]


def timeline(admin, cid):
    return [t["line"] for t in admin.get("/api/contacts/%d/timeline?location_id=1&limit=100" % cid).json()["data"]]


def test_no_statement_of_the_module_scans_a_whole_table():
    s, admin = seeded_server(env={"PGHL_LOG_PLANS": "1", "PGHL_RESULT_CACHE": "0"})
    with s:
        h = headers(admin)
        queries = ["", "status=draft", "status=overdue", "issued_after=2026-06-01",
                   "issued_before=2026-06-01", "status=paid&issued_after=2026-03-01&issued_before=2026-09-01",
                   "count=1&status=sent"]
        for query in queries:
            page = admin.get("/api/invoices?location_id=1&limit=5&" + query).json()
            if page["next_cursor"]:
                admin.get("/api/invoices?location_id=1&limit=5&%s&cursor=%s" % (query, page["next_cursor"]))
        cid = a_contact(s)
        inv = create(admin, h, contact_id=cid, due_at="2027-01-01")["id"]
        assert admin.get("/api/invoices/%d?location_id=1" % inv).status == 200
        assert admin.patch("/api/invoices/%d" % inv, {"items": [item(), item()], "contact_id": cid},
                           headers=h).status == 200
        assert admin.post("/api/invoices/%d/send" % inv, {}, headers=h).status == 200
        assert admin.post("/api/invoices/%d/payments" % inv, {"amount_cents": 2000, "method": "card"},
                          headers=h).status == 201
        other = create(admin, h)["id"]
        assert admin.post("/api/invoices/%d/void" % other, {}, headers=h).status == 200
        assert admin.delete("/api/invoices/%d" % create(admin, h)["id"], headers=h).status == 204
        s.stop()
        plans = [l for l in s.log.splitlines() if is_plan(l) and
                 re.search(r"\b(invoices|invoice_items|payments|invoice_counters)\b", l.split("=>")[0])]
        assert len(plans) >= len(queries) + 10, plans
        for line in plans:
            assert not re.search(r"SCAN (i|c|invoices|invoice_items|payments|contacts)\b(?! USING)",
                                 line), line


def test_the_audit_log_names_an_invoice_by_its_number_even_once_deleted():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        inv = create(admin, h, [item("Website audit"), item("Hosting")], contact_id=a_contact(s))
        r = admin.patch("/api/invoices/%d" % inv["id"], {"due_at": "2031-01-31"}, headers=h)
        assert r.status == 200, r.body
        assert admin.delete("/api/invoices/%d" % inv["id"], headers=h).status == 204
        log = admin.get("/api/admin/audit?limit=3").json()["data"]
        # Its lines, counters and the location's unpaid count are not noted:
        # one entry a step, the invoice by its number.
        assert [(e["who"], e["did"], e["kind"], e["label"]) for e in log] == [
            (log[0]["who"], "deleted", "invoice", inv["number"]),
            (log[0]["who"], "changed", "invoice", inv["number"]),
            (log[0]["who"], "created", "invoice", inv["number"])], log
        assert log[0]["who"] and log[0]["location"] and log[0]["entity_id"] == inv["id"]
    # Every shipped module's records can be named, deleted or not.
    assert "audit log cannot name" not in s.log, s.log


def pdf_text(data):
    """The text of a PDF, as poppler's pdftotext reads it."""
    import subprocess
    return subprocess.run(["pdftotext", "-layout", "-", "-"], input=data, capture_output=True,
                          check=True).stdout.decode()


def pdf_images(data):
    """The images of a PDF: (encoding, width, height), as pdfimages lists them."""
    import subprocess
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(data)
        f.flush()
        out = subprocess.run(["pdfimages", "-list", f.name], capture_output=True, check=True).stdout.decode()
    rows = [l.split() for l in out.splitlines()[2:]]
    return [(r[8], int(r[3]), int(r[4])) for r in rows]


# An 8 x 4 blue JPEG, as Chromium's canvas writes one.
JPEG = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABh"
    "Y3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    "AAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAAB"
    "UAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAA"
    "AAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9Y"
    "WVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAM"
    "ZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0o"
    "OjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2Nj"
    "Y2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAEAAgDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/"
    "xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABAb/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIR"
    "AxEAPwCNAXgr/9k=")


def png(width=2, height=1):
    """A real PNG image of `width` x `height` red pixels."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + b"\xff\0\0" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def webp(width, height):
    """The head of an extended WebP (VP8X) of `width` x `height`: what an
    upload's size is read from."""
    import struct
    chunk = b"VP8X" + struct.pack("<I", 10) + b"\0" * 4 + struct.pack("<I", width - 1)[:3] \
        + struct.pack("<I", height - 1)[:3]
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def jpeg(height):
    """JPEG, its frame header saying it is `height` pixels high."""
    sof = b"\xff\xc0\x00\x11\x08\x00\x04\x00\x08"
    assert JPEG.count(sof) == 1
    return JPEG.replace(sof, sof[:5] + height.to_bytes(2, "big") + sof[7:])


AGENCY_DETAILS = {"name": "Northwind Agency", "address": "1 Main St\nAustin, TX 78701",
                  "email": "billing@northwind.example.test", "phone": "+1 512 555 0100",
                  "tax_id": "US-12-3456789"}


def test_the_printout_names_the_business_the_client_and_the_terms():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        # The agency's details and logo, in Settings → Agency.
        r = admin.patch("/api/admin/agency", AGENCY_DETAILS)
        assert r.status == 200, r.body
        assert {k: r.json()[k] for k in AGENCY_DETAILS} == AGENCY_DETAILS and r.json()["logo_url"] is None
        error(admin.patch("/api/admin/agency", {"email": "not an address"}), 422, "email")
        error(admin.request("PUT", "/api/admin/agency/logo", b"<svg xmlns='http://www.w3.org/2000/svg'>"
                            b"<script>alert(1)</script></svg>", headers=dict(h, **{"Content-Type": "image/svg+xml"})),
              415, "PNG, JPEG or WebP")
        # The type is what the bytes say, not what the upload calls itself.
        r = admin.request("PUT", "/api/admin/agency/logo", png(), headers=dict(h, **{"Content-Type": "image/gif"}))
        assert r.status == 200, r.body
        logo = r.json()["logo_url"]
        assert re.fullmatch(r"/api/logos/[0-9a-f]{32}", logo), logo
        assert admin.get("/api/admin/agency").json()["logo_url"] == logo
        r = s.client().get(logo)  # no session: a client's mail program fetches it
        assert r.status == 200 and r.body == png() and r.header("Content-Type") == "image/png"
        assert "immutable" in r.header("Cache-Control") and "max-age=31536000" in r.header("Cache-Control")
        assert s.client().get("/api/logos/" + "0" * 32).status == 404
        r = admin.request("PUT", "/api/admin/agency/logo", b"\0" * 600 * 1024, headers=h)
        assert r.status == 413, (r.status, r.body)
        # A small file may hold a huge image: its pixels are counted too.
        error(admin.request("PUT", "/api/admin/agency/logo", png(4097, 1), headers=h), 422,
              "at most 4096 x 4096 pixels (this one is 4097 x 1)")
        assert admin.get("/api/admin/agency").json()["logo_url"] == logo

        # The sub-account's defaults: a new invoice starts with its notes
        # and terms; the client's address is the one its last invoice had.
        r = admin.request("PUT", "/api/invoice-settings", {"notes": "Thank you for your business!",
                                                          "terms": "Net 30. Late fee 1.5 % a month."},
                          headers=h)
        assert r.status == 200, r.body
        assert r.json()["agency"]["name"] == "Northwind Agency" and r.json()["business_name"] == ""
        error(admin.request("PUT", "/api/invoice-settings", {"address": "Somewhere"}, headers=h),
              422, "business_name")
        cid = a_contact(s)
        first = create(admin, h, [item("Consulting", 1.5, 12000)], contact_id=cid,
                       client_address="Dr. Ann Lee\n22 Elm Rd\nAustin <TX>")
        assert first["notes"] == "Thank you for your business!"
        assert first["terms"] == "Net 30. Late fee 1.5 % a month."
        assert first["business"] == dict({k: AGENCY_DETAILS[k] for k in AGENCY_DETAILS}, logo_url=logo)
        second = create(admin, h, contact_id=cid, notes="", terms="Due on receipt")
        assert second["client_address"] == "Dr. Ann Lee\n22 Elm Rd\nAustin <TX>"
        assert (second["notes"], second["terms"]) == ("", "Due on receipt")
        r = admin.patch("/api/invoices/%d" % second["id"], {"client_address": None}, headers=h)
        assert r.status == 200 and r.json()["client_address"] == ""
        error(admin.patch("/api/invoices/%d" % second["id"], {"notes": "x" * 2001}, headers=h), 422, "notes")

        # The public page: no session, the same printout, text escaped,
        # a policy of its own that lets nothing run.
        key = first["view_url"]
        assert re.fullmatch(r"/i/[0-9a-f]{32}", key), key
        r = s.client().get(key)
        assert r.status == 200 and r.header("Content-Type").startswith("text/html"), r.status
        page = r.body.decode()
        for words in ("Northwind Agency", "1 Main St\nAustin, TX 78701", "billing@northwind.example.test",
                      "US-12-3456789", 'src="%s"' % logo, "Austin &lt;TX&gt;", "Consulting", "1.5",
                      "$180.00", "Thank you for your business!", "Late fee 1.5 % a month",
                      first["number"], "Download PDF"):
            assert words in page, (words, page)
        assert "<script" not in page and "Set-Cookie" not in r.headers
        csp = r.header("Content-Security-Policy")
        assert "default-src 'none'" in csp and "style-src 'sha256-" in csp and "script-src" not in csp
        # The PDF: the same printout, a download named by the number, for
        # the app and for the client's page.
        r = admin.get("/api/invoices/%d/pdf" % first["id"], headers=h)
        assert r.status == 200 and r.header("Content-Type") == "application/pdf", r.status
        assert r.header("Content-Disposition") == 'attachment; filename="%s.pdf"' % first["number"]
        text = pdf_text(r.body)
        for words in ("Northwind Agency", "Austin, TX 78701", "Tax ID: US-12-3456789", "Invoice " + first["number"],
                      "Dr. Ann Lee", "Austin <TX>", "Consulting", "1.5", "$120.00", "$180.00",
                      "Thank you for your business!", "Late fee 1.5 % a month"):
            assert words in text, (words, text)
        assert [i[1:] for i in pdf_images(r.body)] == [(2, 1)], "the agency's logo"
        public = s.client().get(key + "/pdf")
        assert public.status == 200 and pdf_text(public.body) == text
        assert s.client().get("/i/" + "f" * 32 + "/pdf").status == 404
        # A number a file may not be named by names it with "_" instead.
        s.sql("UPDATE invoices SET number = 'INV/2026 7é' WHERE id = ?", second["id"])
        for r in (admin.get("/api/invoices/%d/pdf" % second["id"], headers=h),
                  s.client().get(admin.get("/api/invoices/%d" % second["id"], headers=h).json()["view_url"] + "/pdf")):
            assert r.status == 200 and "Invoice INV/2026 7é" in pdf_text(r.body), (r.status, r.body[:200])
            assert r.header("Content-Disposition") == 'attachment; filename="INV_2026_7_.pdf"'
        assert admin.get("/api/invoices/%d/pdf" % first["id"], headers=headers(admin, 2)).status == 404
        gone = s.client().get("/i/" + "f" * 32)
        assert gone.status == 404 and b"not found" in gone.body
        assert s.client().get("/i/nothing").status == 404

        # A sub-account with a business of its own prints it instead, whole.
        r = admin.request("PUT", "/api/invoice-settings", {"business_name": "Smile Dental",
                                                          "address": "9 Oak Ave", "terms": "Net 15"},
                          headers=h)
        assert r.status == 200, r.body
        got = admin.get("/api/invoices/%d" % first["id"], headers=h).json()["business"]
        assert got == {"name": "Smile Dental", "address": "9 Oak Ave", "email": "", "phone": "",
                       "tax_id": "", "logo_url": None}, got
        page = s.client().get(key).body.decode()
        assert "Smile Dental" in page and "Northwind" not in page and "/api/logos/" not in page
        # with a logo of its own
        r = admin.request("PUT", "/api/location/logo", png(3, 3), headers=h)
        assert r.status == 200, r.body
        own = r.json()["logo_url"]
        assert own != logo and s.client().get(own).body == png(3, 3)
        assert admin.get("/api/invoice-settings", headers=h).json()["logo_url"] == own
        assert admin.get("/api/invoices/%d" % first["id"], headers=h).json()["business"]["logo_url"] == own
        assert 'src="%s"' % own in s.client().get(key).body.decode()
        # Its pixels are counted as the agency's are, whatever the format.
        for big, size in ((webp(5000, 20), "5000 x 20"), (jpeg(5120), "8 x 5120")):
            error(admin.request("PUT", "/api/location/logo", big, headers=h), 422, "(this one is %s)" % size)
        assert admin.request("PUT", "/api/location/logo", webp(300, 100), headers=h).status == 200
        error(admin.request("PUT", "/api/location/logo", png()[:20], headers=h), 422, "cannot be read")
        # The PDF draws it, a JPEG as its own bytes.
        assert admin.request("PUT", "/api/location/logo", JPEG, headers=h).status == 200
        assert pdf_images(admin.get("/api/invoices/%d/pdf" % first["id"], headers=h).body) == [("jpeg", 8, 4)]
        # Without an e-mail provider nothing is queued, and the answer says so.
        error(admin.post("/api/invoices/%d/email" % first["id"], {"to": "ann@example.test"}, headers=h),
              409, "nothing was e-mailed")
        assert admin.get("/api/invoices/%d" % first["id"], headers=h).json()["status"] == "draft"
        assert admin.request("DELETE", "/api/admin/agency/logo", headers=h).json() == {"logo_url": None}
        # The audit log says it as people read it.
        log = [(e["did"], e["kind"], e["label"]) for e in admin.get("/api/admin/audit?limit=20").json()["data"]]
        place = admin.get("/api/admin/locations").json()["data"][0]["name"]
        for entry in (("removed the logo of", "agency", "Northwind Agency"),
                      ("changed the logo of", "sub-account", place),
                      ("changed", "invoice settings", "of " + place),
                      ("created", "invoice settings", "of " + place)):
            assert entry in log, (entry, log)
        assert s.client().get(logo).status == 404


def test_send_e_mails_the_invoice_with_its_link_and_it_is_sent_once_the_mail_left():
    from smtp_relay import Relay
    with Relay() as relay:
        s, admin = seeded_server(extra_modules=("email",), env={"PGHL_SMTP_PASSWORD": relay.password},
                                 plugins={"email": "smtp_url = %s\nsmtp_user = %s\nsmtp_ca_file = %s\n"
                                          % (relay.url, relay.user, relay.cert)})
        with s:
            site = "http://127.0.0.1:%d" % s.port
            h = dict(headers(admin), Origin=site)  # no public_url: links lead where the app was opened
            cid = a_contact(s)
            admin.patch("/api/contacts/%d" % cid, {"email": "ann.lee@example.test"}, headers=h)
            inv = create(admin, h, [item("Consulting", 1.5, 12000)], contact_id=cid, notes="See you soon",
                         due_at="2027-01-15")
            url = "/api/invoices/%d" % inv["id"]

            def agency_due():  # what the agency's view says sub-account 1 is owed
                (mine,) = [p for p in admin.get("/api/agency/projects?limit=100").json()["data"] if p["id"] == 1]
                return mine["counts"]["invoices"]["outstanding"]["amount_due_cents"]
            owed = agency_due()

            def mail_state(*states):
                seen = {}

                def reached():
                    seen.update(admin.get(url, headers=h).json())
                    return (seen["mail"] or {}).get("state") in states
                assert wait_for(reached, 20, 0.05), seen
                return seen
            # The provider is there, the sub-account has no sender yet:
            # nothing leaves, the mail says why, the invoice stays a draft.
            r = admin.post(url + "/email", {}, headers=h)
            assert r.status == 202 and r.json()["mail"]["to"] == "ann.lee@example.test", r.body
            got = mail_state("failed")
            assert got["status"] == "draft" and got["mail"]["reason"], got
            error(admin.post(url + "/email", {"to": "not an address"}, headers=h), 422, "to")
            r = admin.request("PUT", "/api/email/settings", {"from_name": "Northwind",
                                                            "from_address": "hello@northwind.example.test"},
                              headers=h)
            assert r.status == 200, r.body
            assert admin.post(url + "/email", {}, headers=h).status == 202
            got = mail_state("sent")
            assert got["status"] == "sent" and got["issued_at"] and got["balance_cents"] == 18000, got
            # Sent by the job, it is owed on every screen: the agency's too.
            assert agency_due() == owed + 18000
            (mail,) = relay.wait_for(1)
            assert mail["to"] == ["ann.lee@example.test"]
            m = mail["parsed"]
            assert str(m["Subject"]).startswith("Invoice %s from " % inv["number"]), str(m["Subject"])
            body = m.get_body(("plain",)).get_content()
            link = site + got["view_url"]
            assert "<%s>" % link in body and "$180.00, due Jan 15, 2027" in body, body
            assert '<a href="%s">' % link in m.get_body(("html",)).get_content()
            page = s.client().get(got["view_url"]).body.decode()
            assert "See you soon" in page and "Awaiting payment" in page and "$180.00" in page
            # Sent by its mail, it says so on the contact's timeline, as Send does.
            line = "Invoice %s sent, 180.00 USD" % inv["number"]
            assert wait_for(lambda: line in timeline(admin, cid), 10, 0.05), timeline(admin, cid)
            # A link is made only to this server: not to whatever Origin a caller names.
            error(admin.post(url + "/email", {}, headers=dict(h, Origin="http://elsewhere.example.test")),
                  409, "the server's address is not known")
            assert admin.get(url, headers=h).json()["mail"]["state"] == "sent"  # nothing queued
            # A void invoice is not sent.
            assert admin.post(url + "/void", {}, headers=h).status == 200
            assert agency_due() == owed
            error(admin.post(url + "/email", {}, headers=h), 409, "void")
            # A draft whose mail is on its way keeps what the mail says, and a
            # mail queued for an invoice voided meanwhile never leaves.
            draft = create(admin, h, contact_id=cid)["id"]
            s.sql("INSERT INTO invoice_mails (location_id, invoice_id, to_address, subject, body, due_at)"
                  " VALUES (1, ?, 'ann.lee@example.test', 'Invoice', 'Hello', '2099-01-01T00:00:00.000Z')", draft)
            error(admin.patch("/api/invoices/%d" % draft, {"notes": "Changed"}, headers=h), 409,
                  "being e-mailed")
            assert admin.post("/api/invoices/%d/void" % draft, {}, headers=h).status == 200
            s.sql("UPDATE invoice_mails SET due_at = '2000-01-01T00:00:00.000Z' WHERE invoice_id = ?", draft)
            url = "/api/invoices/%d" % draft
            got = mail_state("sent", "failed")
            assert got["mail"]["state"] == "failed" and got["mail"]["reason"] == "the invoice was voided", got


def test_the_header_search_finds_an_invoice_by_its_number_or_its_contacts_name():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        c = admin.post("/api/contacts", {"first_name": "Zoë", "last_name": "Ödegård"}, headers=h).json()
        inv = create(admin, h, contact_id=c["id"])
        assert ids(admin.get("/api/invoices?location_id=1&q=ODEGARD&limit=5").json()["data"]) == [inv["id"]]
        by_number = ids(admin.get("/api/invoices?location_id=1&q=" + inv["number"]).json()["data"])
        assert inv["id"] in by_number
        assert admin.get("/api/invoices?location_id=1&q=zzqx-nobody").json()["data"] == []
        error(admin.get("/api/invoices?location_id=1&q=" + "x" * 201), 400, "q is 1 to 200")
