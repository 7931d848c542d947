# SPDX-License-Identifier: MIT
"""GET /api/contacts on seeded data, as the screens and the API's users
see it: every sort order paged through with cursors, search equal to a
plain scan of the contacts' text folded (case and accents aside), phone
numbers found however they are written, tag, owner and date filters,
totals, tenancy, bad input, and no statement of the list ever scanning a
whole table."""

import re
import time
from urllib.parse import quote_plus

from harness import SEED_PASSWORD, every_page, fold, ids, seeded_server, is_plan


def searched(q):
    """What a search for `q` looks for: folded; a phone number written
    with spaces, dashes, dots or brackets (7 digits or more), as its
    digits."""
    q = fold(q)
    if re.fullmatch(r"[+0-9 ().\-/]*", q) and len(re.sub(r"[^0-9]", "", q)) >= 7:
        return ("+" if q.startswith("+") else "") + re.sub(r"[^0-9]", "", q)
    return q.replace("%", "").replace("_", "")


def live(s, where="1", *args):
    return s.sql("SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL AND " + where, *args)


SQL_ORDERS = {
    "-created": "created_at DESC, id DESC",
    "created": "created_at, id",
    "-updated": "updated_at DESC, id DESC",
    "updated": "updated_at, id",
    "name": "last_name COLLATE NOCASE, first_name COLLATE NOCASE, id",
    "-name": "last_name COLLATE NOCASE DESC, first_name COLLATE NOCASE DESC, id DESC",
}


def test_every_sort_order_pages_through_all_contacts():
    s, admin = seeded_server()
    with s:
        for sort, order in SQL_ORDERS.items():
            want = [r[0] for r in s.sql("SELECT id FROM contacts WHERE location_id = 1 AND"
                                        " deleted_at IS NULL ORDER BY " + order)]
            got = ids(every_page(admin, "/api/contacts?location_id=1&sort=" + sort))
            assert got == want, sort
        first = admin.get("/api/contacts?location_id=1&limit=1").json()
        assert set(first) == {"data", "next_cursor"}  # no total unless asked
        row = first["data"][0]
        assert set(row) == {"id", "first_name", "last_name", "email", "phone", "phone_typed",
                            "company_id", "company_name", "source", "owner_id", "created_at",
                            "updated_at", "tags"}


def test_each_row_carries_its_tags():
    s, admin = seeded_server()
    with s:
        for row in every_page(admin, "/api/contacts?location_id=1", limit=200):
            want = sorted(r[0] for r in s.sql("SELECT t.name FROM contact_tags ct JOIN tags t"
                                              " ON t.id = ct.tag_id WHERE ct.contact_id = ?", row["id"]))
            assert sorted(row["tags"]) == want


def test_search_equals_a_like_scan():
    # The ways of searching: from the index's matches first, and along the
    # list's order checking each contact against them (search_matches_first
    # = 0) or, for a text most contacts hold (".test"), by LIKE alone.
    for plugins in (None, {"contacts": "search_matches_first = 0\n"}):
        search_equals_a_like_scan(*seeded_server(plugins=plugins))


def search_equals_a_like_scan(s, admin):
    text = ("first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' ||"
            " coalesce(phone, '') || ' ' || coalesce(company_name, '')")
    with s:
        # Names as people write them, beside the seeded ones.
        h = {"X-Location-Id": "1", "X-CSRF-Token": admin.get("/api/auth/me").json()["csrf_token"]}
        for first, last in (("José", "Núñez"), ("ZOË", "Ångström"), ("Siobhán", "O’Brien")):
            assert admin.post("/api/contacts", {"first_name": first, "last_name": last}, headers=h).status == 201
        lines = {r[0]: fold(r[1]) for r in s.sql("SELECT id, " + text + " FROM contacts WHERE"
                                                 " location_id = 1 AND deleted_at IS NULL")}
        for q in ("berg", "BERG", "nna ", "realty", "555 1", "@inbox.te", "ara Sa", "zzzz", 'a"n', "o'b",
                  ".test", "jose", "JOSÉ NUÑEZ", "nunez", "Zoë", "angström", "siobhan o'brien", "O’BRI"):
            want = sorted(i for i, line in lines.items() if searched(q) in line)
            got = sorted(ids(every_page(admin, "/api/contacts?location_id=1&q=" + quote_plus(q))))
            assert got == want, q
        for q in ("jose", "JOSÉ NUÑEZ", "angström", "O’BRI"):
            assert len(ids(every_page(admin, "/api/contacts?location_id=1&q=" + quote_plus(q)))) == 1, q
        # Too short for trigrams: a prefix of a first name, last name or e-mail.
        for q in ("b", "Ka"):
            want = sorted(r[0] for r in live(s, "(first_name LIKE ? OR last_name LIKE ? OR email LIKE ?)",
                                             q + "%", q + "%", q + "%"))
            got = sorted(ids(every_page(admin, "/api/contacts?location_id=1&q=" + q, limit=500)))
            assert got == want and want, q
        # What the module publishes for other modules' searches is the line
        # its index holds, folded, for every live contact (a deleted one
        # has none).
        pairs = s.sql("SELECT t.text, f.text FROM contact_search_text t"
                      " JOIN contact_search f ON f.rowid = t.id")
        assert len(pairs) == s.sql("SELECT count(*) FROM contacts WHERE deleted_at IS NULL")[0][0]
        assert [p for p in pairs if fold(p[0]) != p[1]] == []
        assert s.sql("SELECT count(*) FROM contact_search")[0][0] < s.sql("SELECT count(*) FROM contacts")[0][0]
        # LIKE's wildcards are plain characters to a user: they are dropped.
        assert ids(every_page(admin, "/api/contacts?location_id=1&q=be%25rg")) == \
            ids(every_page(admin, "/api/contacts?location_id=1&q=berg"))


def test_a_phone_number_is_found_however_it_is_written_and_the_agency_search_folds_too():
    s, admin = seeded_server()
    with s:
        h = {"X-Location-Id": "1", "X-CSRF-Token": admin.get("/api/auth/me").json()["csrf_token"]}
        made = admin.post("/api/contacts", {"first_name": "Renée", "last_name": "Łukasiewicz",
                                            "phone": "(512) 867-5309"}, headers=h).json()
        assert made["phone"] == "+15128675309"
        for q in ("(512) 867-5309", "512-867-5309", "5128675309", "+1 512 867 5309", "867.5309", "86753"):
            assert made["id"] in ids(every_page(admin, "/api/contacts?location_id=1&q=" + quote_plus(q))), q
        # Fewer than 7 digits with punctuation is not read as a phone number.
        assert made["id"] not in ids(every_page(admin, "/api/contacts?location_id=1&q=" + quote_plus("867-53")))
        assert ids(every_page(admin, "/api/contacts?location_id=1&q=" + quote_plus("(512) 867-5308"))) == []
        # The agency's search across sub-accounts reads the same folded lines.
        for q in ("renee łukasiewicz", "RENÉE ŁUKA", "512-867-5309"):  # ł is a letter of its own
            found = every_page(admin, "/api/agency/contacts?q=" + quote_plus(q))
            assert made["id"] in ids(found), q
        bad = admin.get("/api/contacts?location_id=1&q=%FF%FE")
        assert bad.status == 400 and bad.json()["error"]["code"] == "bad_request", bad.body


def rank(c, q):
    """How well a contact answers `q`, as sort=best ranks it: its name
    starting with it, a word of its line starting with it, the rest."""
    line = fold(" ".join(c[k] or "" for k in ("first_name", "last_name", "email", "phone", "company_name")))
    if line.startswith(q):
        return 0
    return 1 if (" " + line).find(" " + q) >= 0 else 2


def short_rank(c, q):
    """sort=best for a search too short for the index: by the names'
    prefixes."""
    return 0 if c["first_name"].lower().startswith(q) else 1 if c["last_name"].lower().startswith(q) else 2


def test_sort_best_puts_the_names_that_start_with_the_search_first():
    s, admin = seeded_server()
    with s:
        h = {"X-Location-Id": "1", "X-CSRF-Token": admin.get("/api/auth/me").json()["csrf_token"]}
        made = {}
        for first, last, email in (("Zoey", "Williams", None), ("Amélie", "Liamsson", None),
                                   ("Ann", "Kiliam", None), ("Líam", "Ó Walker", None),
                                   ("Noor", "Haddad", "liam.fan@example.test"), ("Mary", "Liam", None)):
            r = admin.post("/api/contacts", {"first_name": first, "last_name": last, "email": email}, headers=h)
            assert r.status == 201, r.body
            made[first] = r.json()["id"]
        everyone = ids(every_page(admin, "/api/contacts?location_id=1&q=liam"))
        page = admin.get("/api/contacts?location_id=1&q=liam&sort=best&limit=1000").json()
        assert sorted(ids(page["data"])) == sorted(everyone) and page["next_cursor"] is None
        # The name starting with it first, then a word starting with it (a
        # last name, an e-mail), then the rest (Williams, Kiliam).
        ranks = [rank(c, "liam") for c in page["data"]]
        assert ranks == sorted(ranks) and ranks[0] == 0 and ranks[-1] == 2, ranks
        where = {c["id"]: rank(c, "liam") for c in page["data"]}
        assert [where[made[n]] for n in ("Líam", "Mary", "Amélie", "Noor", "Zoey", "Ann")] == [0, 1, 1, 1, 2, 2]
        short = admin.get("/api/contacts?location_id=1&q=li&sort=best&limit=20").json()["data"]
        ranks = [short_rank(c, "li") for c in short]
        assert short and ranks == sorted(ranks), ranks
        cursor = admin.get("/api/contacts?location_id=1&q=liam&sort=name&limit=1").json()["next_cursor"]
        for query, words in (("sort=best", "give q"), ("sort=best&q=liam&cursor=" + cursor, "no cursor")):
            r = admin.get("/api/contacts?location_id=1&" + query)
            assert r.status == 400 and words in r.json()["error"]["message"], r.body


def tag_widely(s):
    """Tags on most of location 1's contacts ("wide": all, "broad": every
    other one), written as SQL (the tag counts' triggers follow): a page
    then checks the contacts it meets rather than reading them first."""
    for name, which in (("wide", "1"), ("broad", "id % 2 = 0")):
        s.sql("INSERT INTO tags (location_id, name) VALUES (1, ?)", name)
        s.sql("INSERT INTO contact_tags (tag_id, contact_id, location_id) SELECT"
              " (SELECT id FROM tags WHERE location_id = 1 AND name = ?), id, 1 FROM contacts"
              " WHERE location_id = 1 AND deleted_at IS NULL AND " + which, name)


def test_tag_owner_and_date_filters_and_the_total():
    s, admin = seeded_server()
    with s:
        tag_widely(s)
        def tagged(*names, all_=False):
            marks = ",".join("?" * len(names))
            having = " HAVING count(*) = %d" % len(names) if all_ else ""
            return "id IN (SELECT contact_id FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id" \
                   " WHERE t.location_id = 1 AND t.name IN (%s) GROUP BY contact_id%s)" % (marks, having)
        cases = [
            ("tag=vip", tagged("vip"), ("vip",)),
            ("tag=vip&tag=hot", tagged("vip", "hot"), ("vip", "hot")),
            ("tag=vip&tag=hot&tag_mode=all", tagged("vip", "hot", all_=True), ("vip", "hot")),
            ("tag=no-such-tag", tagged("no-such-tag"), ("no-such-tag",)),
            ("tag=wide", tagged("wide"), ("wide",)),
            ("tag=broad&tag=vip", tagged("broad", "vip"), ("broad", "vip")),
            ("tag=wide&tag=broad&tag_mode=all", tagged("wide", "broad", all_=True), ("wide", "broad")),
            ("owner=2", "owner_id = 2", ()),
            ("created_after=2026-06-01&created_before=2026-09-01",
             "created_at >= '2026-06-01' AND created_at < '2026-09-01'", ()),
            ("q=berg&tag=lead", tagged("lead") + " AND (last_name LIKE '%berg%' OR first_name LIKE"
             " '%berg%' OR email LIKE '%berg%' OR company_name LIKE '%berg%')", ("lead",)),
        ]
        for query, where, args in cases:
            want = sorted(r[0] for r in live(s, where, *args))
            got = every_page(admin, "/api/contacts?location_id=1&" + query)
            assert sorted(ids(got)) == want, query
            total = admin.get("/api/contacts?location_id=1&count=1&limit=1&" + query).json()["total"]
            assert total == len(want), query


def test_a_location_user_sees_only_their_location():
    s, admin = seeded_server()
    with s:
        user = s.login("location-2@example.test", SEED_PASSWORD)
        got = ids(every_page(user, "/api/contacts", limit=500))
        want = [r[0] for r in s.sql("SELECT id FROM contacts WHERE location_id = 2 AND deleted_at"
                                    " IS NULL ORDER BY created_at DESC, id DESC")]
        assert got == want
        assert user.get("/api/contacts?location_id=1").status == 404
        # Limited to assigned records: only their own contacts.
        s.sql("UPDATE users SET assigned_only = 1 WHERE email = 'location-2@example.test'")
        user = s.login("location-2@example.test", SEED_PASSWORD)
        mine = sorted(ids(every_page(user, "/api/contacts", limit=500)))
        owner = s.sql("SELECT id FROM users WHERE email = 'location-2@example.test'")[0][0]
        assert mine == sorted(r[0] for r in s.sql("SELECT id FROM contacts WHERE location_id = 2 AND"
                                                  " deleted_at IS NULL AND owner_id = ?", owner))


def test_bad_list_input_is_400():
    s, admin = seeded_server()
    with s:
        for query, words in (("sort=age", "sort is one of"), ("tag_mode=some", "tag_mode"),
                             ("cursor=xyz", "cursor"), ("cursor=7b7d", "cursor"),
                             ("limit=0", "limit"), ("limit=1001", "limit"),
                             ("created_after=yesterday", "created_after must be a date"), ("created_before=2026-02-30", "created_before"), ("owner=abc", "owner"),
                             ("count=2", "count"), ("tag=" + "&tag=".join("t%d" % i for i in range(21)), "tags")):
            r = admin.get("/api/contacts?location_id=1&" + query)
            assert r.status == 400 and words in r.json()["error"]["message"], (query, r.body)


def exercise_every_write(s, admin, h, cid):
    """Every other statement of the module, for the plan test below."""
    assert admin.patch("/api/contacts/%d" % cid, {"last_name": "Plan"}, headers=h).status == 200
    assert admin.post("/api/contacts/upsert", {"phone": "+1 555 000 7777"}, headers=h).status == 201
    assert admin.post("/api/contacts/upsert", {"phone": "+1 555 000 7777"}, headers=h).status == 200
    assert admin.post("/api/contacts/%d/tags" % cid, {"tags": ["plan"]}, headers=h).status == 200
    assert admin.delete("/api/contacts/%d/tags/plan" % cid, headers=h).status == 204
    assert admin.post("/api/tags/bulk", {"contact_ids": [cid], "add": ["a"], "remove": ["b"]},
                      headers=h).status == 200
    field = admin.post("/api/custom-fields", {"key": "plan_tier", "name": "T", "type": "option",
                                              "options": ["x"]}, headers=h).json()["id"]
    assert admin.get("/api/custom-fields", headers=h).status == 200
    assert admin.patch("/api/contacts/%d" % cid, {"custom_fields": {"plan_tier": "x"}}, headers=h).status == 200
    assert admin.patch("/api/custom-fields/%d" % field, {"options": ["x", "y"]}, headers=h).status == 200
    note = admin.post("/api/contacts/%d/notes" % cid, {"body": "n"}, headers=h).json()["id"]
    assert admin.get("/api/contacts/%d/notes" % cid, headers=h).status == 200
    assert admin.delete("/api/contacts/%d/notes/%d" % (cid, note), headers=h).status == 204
    assert admin.get("/api/contacts/export.csv?q=berg&tag=vip", headers=h).status == 200
    small = "first_name,email,owner_id,tags,plan_tier\r\nP,p@plan.test,1,t,x\r\n"
    big = small + "P,p@plan.test,1,t,x\r\n" * 20000
    for text in (small, big):
        r = admin.request("POST", "/api/contacts/import", body=text.encode(),
                          headers=dict(h, **{"Content-Type": "text/csv"}))
        assert r.status in (200, 202), r.body
    for _ in range(400):
        if admin.get("/api/contacts/imports/%d" % r.json()["id"], headers=h).json()["status"] == "done":
            break
        time.sleep(0.05)
    assert admin.delete("/api/custom-fields/%d" % field, headers=h).status == 204


def test_no_statement_of_the_module_scans_a_whole_table():
    for plugins in (None, {"contacts": "search_matches_first = 0\n"}):
        no_statement_scans_a_whole_table(plugins)


def no_statement_scans_a_whole_table(plugins):
    s, admin = seeded_server(env={"PGHL_LOG_PLANS": "1", "PGHL_RESULT_CACHE": "0"}, plugins=plugins)
    with s:
        tag_widely(s)
        queries = ["", "sort=name", "sort=-name", "sort=updated", "sort=-updated", "sort=created",
                   "q=berg", "q=b", "q=Ka", "q=.test", "count=1&q=.test", "q=ann&sort=best", "q=an&sort=best",
                   "tag=vip", "tag=vip&tag=hot&tag_mode=all", "tag=wide",
                   "tag=wide&tag=broad&tag_mode=all", "owner=2",
                   "created_after=2026-06-01", "created_before=2026-06-01", "count=1&q=berg&tag=lead",
                   "q=berg&tag=lead&owner=1&sort=name&created_after=2025-01-01"]
        for query in queries:
            page = admin.get("/api/contacts?location_id=1&limit=5&" + query).json()
            if page["next_cursor"]:
                admin.get("/api/contacts?location_id=1&limit=5&%s&cursor=%s" % (query, page["next_cursor"]))
        first = admin.get("/api/contacts?location_id=1&limit=1").json()["data"][0]["id"]
        assert admin.get("/api/contacts/%d?location_id=1" % first).status == 200
        assert admin.get("/api/tags?location_id=1").status == 200
        made = admin.post("/api/contacts", {"first_name": "Plan", "email": "plan@example.test",
                                            "owner_id": 1}, headers={"X-Location-Id": "1"})
        assert made.status == 201
        csrf = {"X-CSRF-Token": admin.get("/api/auth/me").json()["csrf_token"], "X-Location-Id": "1"}
        exercise_every_write(s, admin, csrf, made.json()["id"])
        assert admin.delete("/api/contacts/%d" % made.json()["id"], headers=csrf).status == 204
        s.stop()
        plans = [l for l in s.log.splitlines() if is_plan(l) and
                 re.search(r"\b(contacts|tags|contact_tags|notes|custom_values|custom_fields|contact_imports)\b",
                           l.split("=>")[0])]
        assert len(plans) >= len(queries) + 5
        # The search by LIKE alone, and both ways of meeting a tag filter,
        # were taken.
        assert any("LIKE '%' || :q" in l and "MATCH" not in l for l in plans)
        # A total is counted from the set of matches, never by LIKE alone.
        assert not [l for l in plans if l.startswith("[plan] SELECT count(*) FROM contacts")
                    and "LIKE" in l and "MATCH" not in l]
        assert any("c.id IN (SELECT ct.contact_id" in l for l in plans)
        assert any("ct.contact_id = c.id AND ct.tag_id IN" in l for l in plans)
        assert any("EXISTS (SELECT 1 FROM contact_tags ct WHERE ct.contact_id = c.id" in l for l in plans)
        for line in plans:
            assert not re.search(r"SCAN (c|contacts|tags|contact_tags|ct|t|notes|custom_values"
                                 r"|custom_fields|f|contact_imports)\b(?! USING)", line), line
