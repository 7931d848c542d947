# SPDX-License-Identifier: MIT
"""Changing contacts as a sub-account's users and integrations do: PATCH
changes only what it names, upsert finds the contact by e-mail and then
by phone, tags go on and off one contact or a thousand at a time, custom
fields are defined and their values checked by type, and notes are
written and deleted, all within the caller's location."""

from harness import error, headers, new_contact, seeded_server


def test_patch_changes_only_what_it_names():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        c = new_contact(admin, h, first_name="Pia", last_name="Olsen", email="pia@example.test",
                 phone="+1 555 000 1111", source="webinar")
        r = admin.patch("/api/contacts/%d" % c["id"], {"last_name": "Olsen-Berg", "phone": None},
                        headers=h)
        assert r.status == 200, r.body
        got = r.json()
        assert (got["first_name"], got["last_name"], got["email"], got["phone"], got["source"]) == \
            ("Pia", "Olsen-Berg", "pia@example.test", None, "webinar")
        assert got["updated_at"] > c["updated_at"]
        # The search index follows the change.
        found = admin.get("/api/contacts?location_id=1&q=olsen-berg").json()["data"]
        assert [x["id"] for x in found] == [c["id"]]
        # Nothing named, nothing changed but the time.
        assert admin.patch("/api/contacts/%d" % c["id"], {}, headers=h).json()["last_name"] == "Olsen-Berg"


def test_patch_refuses_bad_input_and_writes_nothing():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        a = new_contact(admin, h, first_name="A", email="a-patch@example.test")
        b = new_contact(admin, h, first_name="B", email="b-patch@example.test")
        path = "/api/contacts/%d" % b["id"]
        error(admin.patch(path, {"email": "A-PATCH@example.test"}, headers=h), 409, str(a["id"]))
        error(admin.patch(path, {"email": "nope"}, headers=h), 422, "email")
        error(admin.patch(path, {"nickname": "x"}, headers=h), 422, "nickname: no such field")
        error(admin.patch(path, {"first_name": None, "email": None}, headers=h), 422,
              "a name, an e-mail or a phone")
        error(admin.patch(path, {"owner_id": 0}, headers=h), 422, "owner_id")
        error(admin.patch(path, {"custom_fields": {"no_such": 1}}, headers=h), 422, "no_such")
        assert s.sql("SELECT first_name, email FROM contacts WHERE id = ?", b["id"]) == \
            [("B", "b-patch@example.test")]
        assert admin.patch("/api/contacts/99999999", {"first_name": "x"}, headers=h).status == 404


def test_upsert_matches_by_email_then_phone():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        by_mail = new_contact(admin, h, first_name="Mail", email="upsert@example.test", phone="+1 555 000 2221")
        by_phone = new_contact(admin, h, first_name="Phone", phone="+1 555 000 2222")
        r = admin.post("/api/contacts/upsert", {"email": "UPSERT@example.test", "source": "fair"}, headers=h)
        assert r.status == 200 and r.json()["id"] == by_mail["id"] and r.json()["source"] == "fair"
        r = admin.post("/api/contacts/upsert", {"phone": "+1 555 000 2222", "last_name": "Found"},
                       headers=h)
        assert r.status == 200 and r.json()["id"] == by_phone["id"]
        assert r.json()["first_name"] == "Phone" and r.json()["last_name"] == "Found"
        r = admin.post("/api/contacts/upsert", {"first_name": "New", "email": "new-upsert@example.test"},
                       headers=h)
        assert r.status == 201
        error(admin.post("/api/contacts/upsert", {"source": "x"}, headers=h), 422, "first_name")
        # Without upsert, the same phone is a duplicate naming the contact.
        error(admin.post("/api/contacts", {"phone": "+1 555 000 2222"}, headers=h), 409,
              str(by_phone["id"]))


def test_tags_on_and_off_one_contact():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        c = new_contact(admin, h, first_name="Tagged", tags=["Spring Fair"])
        r = admin.post("/api/contacts/%d/tags" % c["id"], {"tags": ["spring fair", "VIP", "hot"]},
                       headers=h)
        assert r.status == 200, r.body
        assert sorted(t["name"].lower() for t in r.json()["tags"]) == ["hot", "spring fair", "vip"]
        counts = {t["name"]: t["contacts"] for t in admin.get("/api/tags?location_id=1").json()["data"]}
        assert counts["Spring Fair"] == 1
        listed = admin.get("/api/contacts?location_id=1&tag=Spring+Fair").json()["data"]
        assert [x["id"] for x in listed] == [c["id"]]
        assert admin.delete("/api/contacts/%d/tags/spring%%20fair" % c["id"], headers=h).status == 204
        hot = [t for t in r.json()["tags"] if t["name"] == "hot"][0]["id"]
        assert admin.delete("/api/contacts/%d/tags/%d" % (c["id"], hot), headers=h).status == 204
        left = admin.get("/api/contacts/%d?location_id=1" % c["id"]).json()["tags"]
        assert [t["name"].lower() for t in left] == ["vip"]
        assert admin.delete("/api/contacts/%d/tags/hot" % c["id"], headers=h).status == 404
        assert admin.delete("/api/contacts/%d/tags/never-made" % c["id"], headers=h).status == 404
        for body in ({"tags": "vip"}, {"tags": [""]}, {"tags": ["a,b"]}, {"tags": ["x" * 65]},
                     {"tags": [7]}, {}):
            error(admin.post("/api/contacts/%d/tags" % c["id"], body, headers=h), 422, "tags")
        # A deleted contact no longer counts for its tags.
        def vip_count():
            return {t["name"].lower(): t["contacts"]
                    for t in admin.get("/api/tags?location_id=1").json()["data"]}["vip"]
        before = vip_count()
        assert admin.delete("/api/contacts/%d" % c["id"], headers=h).status == 204
        assert vip_count() == before - 1


def test_bulk_tags_for_a_thousand_contacts_in_one_request():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        mine = [r[0] for r in s.sql("SELECT id FROM contacts WHERE location_id = 1"
                                    " AND deleted_at IS NULL ORDER BY id LIMIT 999")]
        other = s.sql("SELECT id FROM contacts WHERE location_id = 2 LIMIT 1")[0][0]
        r = admin.post("/api/tags/bulk", {"contact_ids": mine + [other], "add": ["bulk-a", "bulk-b"]},
                       headers=h)
        assert r.status == 200, r.body
        assert r.json() == {"added": 2 * len(mine), "removed": 0, "not_found": [other]}
        assert admin.get("/api/contacts?location_id=1&tag=bulk-a&count=1&limit=1").json()["total"] == len(mine)
        r = admin.post("/api/tags/bulk", {"contact_ids": mine[:10], "remove": ["bulk-a"]}, headers=h)
        assert r.json() == {"added": 0, "removed": 10, "not_found": []}
        # Each tag's count of contacts follows, and a deleted contact leaves it.
        assert admin.delete("/api/contacts/%d" % mine[-1], headers=h).status == 204
        counts = {t["name"]: t["contacts"] for t in admin.get("/api/tags?location_id=1").json()["data"]}
        assert (counts["bulk-a"], counts["bulk-b"]) == (len(mine) - 11, len(mine) - 1)
        # The other location's contact was not touched.
        assert s.sql("SELECT count(*) FROM contact_tags WHERE contact_id = ?", other)[0][0] == \
            s.sql("SELECT count(*) FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id"
                  " WHERE ct.contact_id = ? AND t.name NOT LIKE 'bulk-%'", other)[0][0]
        error(admin.post("/api/tags/bulk", {"contact_ids": list(range(1, 1002)), "add": ["x"]},
                         headers=h), 422, "1000")
        error(admin.post("/api/tags/bulk", {"contact_ids": [mine[0]]}, headers=h), 422, "add")
        error(admin.post("/api/tags/bulk", {"contact_ids": ["one"], "add": ["x"]}, headers=h), 422,
              "contact_ids")


def test_custom_fields_are_defined_and_values_checked_by_type():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        made = {}
        for key, kind, extra in (("budget_eur", "number", {}), ("met_on", "date", {}),
                                 ("tier", "option", {"options": ["gold", "silver"]}),
                                 ("opted_in", "checkbox", {}), ("remark", "text", {})):
            r = admin.post("/api/custom-fields", dict({"key": key, "name": key.title(), "type": kind},
                                                      **extra), headers=h)
            assert r.status == 201, r.body
            made[key] = r.json()
        assert made["tier"]["type"] == "select" and made["tier"]["options"] == ["gold", "silver"]
        keys = [f["key"] for f in admin.get("/api/custom-fields?location_id=1").json()["data"]]
        assert set(made) <= set(keys)
        c = new_contact(admin, h, first_name="Custom", custom_fields={
            "budget_eur": 1250.5, "met_on": "2024-02-29", "tier": "gold", "opted_in": True,
            "remark": "prefers mornings"})
        assert {k: c["custom_fields"][k] for k in made} == {
            "budget_eur": 1250.5, "met_on": "2024-02-29", "tier": "gold", "opted_in": True,
            "remark": "prefers mornings"}
        path = "/api/contacts/%d" % c["id"]
        for value, key in (("lots", "budget_eur"), ("2023-02-29", "met_on"), ("29.02.2024", "met_on"),
                           ("bronze", "tier"), ("maybe", "opted_in"), ("x" * 1001, "remark"),
                           ([1], "budget_eur")):
            error(admin.patch(path, {"custom_fields": {key: value}}, headers=h), 422,
                  "custom_fields." + key)
        r = admin.patch(path, {"custom_fields": {"remark": None, "budget_eur": "99"}}, headers=h)
        assert "remark" not in r.json()["custom_fields"] and r.json()["custom_fields"]["budget_eur"] == 99
        # Renaming keeps values; the key and type stay; deleting takes the values along.
        fid = made["budget_eur"]["id"]
        r = admin.patch("/api/custom-fields/%d" % fid, {"name": "Budget (EUR)", "position": 3}, headers=h)
        assert (r.json()["name"], r.json()["position"]) == ("Budget (EUR)", 3)
        error(admin.patch("/api/custom-fields/%d" % fid, {"type": "text"}, headers=h), 422, "type")
        assert admin.delete("/api/custom-fields/%d" % fid, headers=h).status == 204
        assert "budget_eur" not in admin.get(path + "?location_id=1").json()["custom_fields"]
        assert s.sql("SELECT count(*) FROM custom_values WHERE field_id = ?", fid) == [(0,)]
        for body, words in (({"key": "tier", "name": "T", "type": "text"}, "tier"),
                            ({"key": "email", "name": "E", "type": "text"}, "key"),
                            ({"key": "Bad Key", "name": "B", "type": "text"}, "key"),
                            ({"key": "k1", "name": "K", "type": "color"}, "type"),
                            ({"key": "k2", "name": "K", "type": "option"}, "options"),
                            ({"key": "k3", "name": "K", "type": "option", "options": ["a", "a"]}, "options"),
                            ({"key": "k4", "name": "K", "type": "text", "options": ["a"]}, "options"),
                            ({"key": "k5", "type": "text"}, "name")):
            r = admin.post("/api/custom-fields", body, headers=h)
            assert r.status in (409, 422) and words in r.json()["error"]["message"], (body, r.body)
        # Another location has its own fields: this one's id is not found there.
        h2 = headers(admin, 2)
        assert admin.patch("/api/custom-fields/%d" % made["tier"]["id"], {"name": "x"}, headers=h2).status == 404


def test_a_custom_field_goes_last_unless_placed():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        most = s.sql("SELECT ifnull(max(position), -1) FROM custom_fields WHERE location_id = 1")[0][0]
        a, b = (admin.post("/api/custom-fields", {"key": k, "name": k, "type": "text"}, headers=h).json()
                for k in ("zone_a", "zone_b"))
        assert (a["position"], b["position"]) == (most + 1, most + 2)
        # A position is a sort key the page renumbers: the others stay.
        r = admin.patch("/api/custom-fields/%d" % b["id"], {"position": most + 1}, headers=h).json()
        assert r["position"] == most + 1
        assert s.sql("SELECT position FROM custom_fields WHERE id = ?", a["id"]) == [(most + 1,)]
        c = admin.post("/api/custom-fields", {"key": "zone_c", "name": "c", "type": "text", "position": 0},
                       headers=h).json()
        assert c["position"] == 0


def test_custom_fields_are_for_location_admins_to_define():
    s, admin = seeded_server()
    with s:
        # perf-seed's location-N users are location users, not admins.
        user = s.login("location-1@example.test", "perf-pass-123")
        h = headers(user)
        r = user.post("/api/custom-fields", {"key": "k", "name": "K", "type": "text"}, headers=h)
        assert r.status == 403, r.body
        assert user.get("/api/custom-fields?location_id=1").status == 200
        s.accounts_sql("UPDATE users SET role = 'location_admin' WHERE email = 'location-1@example.test'")
        r = user.post("/api/custom-fields", {"key": "k", "name": "K", "type": "text"}, headers=h)
        assert r.status == 201, r.body


def test_notes_are_listed_added_and_deleted():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        c = new_contact(admin, h, first_name="Noted")
        path = "/api/contacts/%d/notes" % c["id"]
        added = []
        for i in range(7):
            r = admin.post(path, {"body": "note %d: ünïcode, \"quotes\"" % i}, headers=h)
            assert r.status == 201, r.body
            added.append(r.json())
        assert added[0]["author_id"] == s.sql("SELECT id FROM users WHERE email = 'perf@example.test'")[0][0]
        page = admin.get(path + "?location_id=1&limit=5").json()
        assert [n["id"] for n in page["data"]] == [n["id"] for n in reversed(added)][:5]
        rest = admin.get(path + "?location_id=1&limit=5&cursor=" + page["next_cursor"]).json()
        assert [n["id"] for n in rest["data"]] == [added[1]["id"], added[0]["id"]] and not rest["next_cursor"]
        record = admin.get("/api/contacts/%d?location_id=1" % c["id"]).json()
        assert record["notes_count"] == 7 and len(record["recent_notes"]) == 5
        assert admin.delete(path + "/%d" % added[3]["id"], headers=h).status == 204
        assert admin.delete(path + "/%d" % added[3]["id"], headers=h).status == 404
        assert len(admin.get(path + "?location_id=1").json()["data"]) == 6
        error(admin.post(path, {"body": ""}, headers=h), 422, "body")
        error(admin.post(path, {"text": "x"}, headers=h), 422, "text")
        assert admin.post("/api/contacts/99999999/notes", {"body": "x"}, headers=h).status == 404


def test_another_locations_contact_is_not_found_by_any_route():
    s, admin = seeded_server()
    with s:
        h2 = headers(admin, 2)
        c = new_contact(admin, headers(admin), first_name="Mine", tags=["t1"])
        note = admin.post("/api/contacts/%d/notes" % c["id"], {"body": "x"}, headers=headers(admin)).json()
        cid = c["id"]
        for method, path, body in (
                ("GET", "/api/contacts/%d" % cid, None),
                ("PATCH", "/api/contacts/%d" % cid, {"first_name": "Theirs"}),
                ("DELETE", "/api/contacts/%d" % cid, None),
                ("POST", "/api/contacts/%d/tags" % cid, {"tags": ["x"]}),
                ("DELETE", "/api/contacts/%d/tags/t1" % cid, None),
                ("GET", "/api/contacts/%d/notes" % cid, None),
                ("POST", "/api/contacts/%d/notes" % cid, {"body": "x"}),
                ("DELETE", "/api/contacts/%d/notes/%d" % (cid, note["id"]), None)):
            r = admin.request(method, path, body=body, headers=h2)
            assert r.status == 404, (method, path, r.body)
        assert s.sql("SELECT first_name, deleted_at FROM contacts WHERE id = ?", cid) == [("Mine", None)]
        assert s.sql("SELECT count(*) FROM notes WHERE contact_id = ?", cid) == [(1,)]
