# SPDX-License-Identifier: MIT
"""Creating and deleting contacts as a sub-account's users do: the new
record comes back whole and shows in the list and search, bad fields are
422 naming the field, a known e-mail is 409 naming its contact, and a
delete is soft, scoped to the location and seen by the cache at once."""

from harness import SEED_PASSWORD, seeded_server


def create(client, body, location=1):
    return client.post("/api/contacts", body, headers={"X-Location-Id": str(location)})


def test_a_new_contact_comes_back_and_is_found():
    s, admin = seeded_server()
    with s:
        before = admin.get("/api/contacts?location_id=1&count=1&limit=1").json()["total"]
        r = create(admin, {"first_name": "Quirin", "last_name": "Zwolinski",
                           "email": "q.zwolinski@example.test", "phone": "+1 555 010 9999",
                           "company_name": "Zwolinski Bakery", "source": "referral", "owner_id": 1})
        assert r.status == 201, r.body
        c = r.json()
        assert (c["first_name"], c["email"], c["owner_id"], c["tags"]) == \
            ("Quirin", "q.zwolinski@example.test", 1, [])
        assert s.sql("SELECT location_id FROM contacts WHERE id = ?", c["id"]) == [(1,)]
        after = admin.get("/api/contacts?location_id=1&count=1&limit=1")
        assert after.json()["total"] == before + 1 and after.json()["data"][0]["id"] == c["id"]
        found = admin.get("/api/contacts?location_id=1&q=wolinsk").json()["data"]
        assert [x["id"] for x in found] == [c["id"]]
        assert admin.get("/api/contacts/%d?location_id=1" % c["id"]).json()["company_name"] == \
            "Zwolinski Bakery"
        # Only a phone is enough.
        assert create(admin, {"phone": "+1 555 010 0000"}).status == 201


def test_bad_fields_are_422_naming_the_field():
    s, admin = seeded_server()
    with s:
        other_location_user = s.sql("SELECT id FROM users WHERE email = 'location-2@example.test'")[0][0]
        for body, field in (({}, "first_name"), ({"first_name": ""}, "first_name"),
                            ({"first_name": 7}, "first_name"), ({"first_name": "x" * 201}, "first_name"),
                            ({"first_name": "A", "email": "not-an-address"}, "email"),
                            ({"first_name": "A", "email": "a@b"}, "email"),
                            ({"first_name": "A", "owner_id": "me"}, "owner_id"),
                            ({"first_name": "A", "owner_id": 999999}, "owner_id"),
                            ({"first_name": "A", "owner_id": other_location_user}, "owner_id"),
                            (["not", "an", "object"], "object")):
            r = create(admin, body)
            assert r.status == 422 and field in r.json()["error"]["message"], (body, r.body)
        assert s.sql("SELECT count(*) FROM contacts WHERE first_name = 'A'") == [(0,)]


def test_a_known_email_is_409_naming_the_contact():
    s, admin = seeded_server()
    with s:
        first = create(admin, {"first_name": "Dup", "email": "dup@example.test"}).json()["id"]
        r = create(admin, {"first_name": "Dup 2", "email": "DUP@example.test"})
        # The field first, as a 422's, then the person by name and number.
        assert r.status == 409 and r.json()["error"] == {
            "code": "duplicate",
            "message": "email: Dup (contact %d) already has this e-mail address" % first}, r.body
        # Another location may have the same address.
        assert create(admin, {"first_name": "Dup", "email": "dup@example.test"}, location=2).status == 201
        assert s.sql("SELECT count(*) FROM contacts WHERE email LIKE 'dup@example.test'") == [(2,)]


def delete(client, cid, location=None):
    """A browser's DELETE: a cookie session sends its CSRF token."""
    headers = {"X-CSRF-Token": client.get("/api/auth/me").json()["csrf_token"]}
    if location:
        headers["X-Location-Id"] = str(location)
    return client.delete("/api/contacts/%d" % cid, headers=headers)


def test_delete_is_soft_scoped_and_seen_at_once():
    s, admin = seeded_server()
    with s:
        cid = create(admin, {"first_name": "Gone", "email": "gone@example.test"}).json()["id"]
        assert admin.get("/api/contacts/%d?location_id=1" % cid).status == 200  # now cached
        user2 = s.login("location-2@example.test", SEED_PASSWORD)
        assert delete(user2, cid).status == 404  # another location's
        r = delete(admin, cid, 1)
        assert r.status == 204 and r.body == b""
        assert admin.get("/api/contacts/%d?location_id=1" % cid).status == 404
        assert cid not in [c["id"] for c in admin.get("/api/contacts?location_id=1&limit=5").json()["data"]]
        assert s.sql("SELECT deleted_at IS NOT NULL FROM contacts WHERE id = ?", cid) == [(1,)]
        assert delete(admin, cid, 1).status == 404
        # The address is free again for a new contact.
        assert create(admin, {"first_name": "Back", "email": "gone@example.test"}).status == 201


def test_a_contact_given_to_someone_and_a_note_naming_them_ring_their_bell():
    s, admin = seeded_server()
    with s:
        them, name = s.sql("SELECT id, name FROM users WHERE email = 'location-1@example.test'")[0]
        s.sql("UPDATE users SET name = 'Zoë Ärzt' WHERE id = ?", them)
        other = s.sql("SELECT id FROM users WHERE email = 'location-2@example.test'")[0][0]
        user = s.login("location-1@example.test", SEED_PASSWORD)
        before = user.get("/api/notifications").json()["unread"]
        c = create(admin, {"first_name": "Quentin", "last_name": "Brandauer", "owner_id": them}).json()
        assert create(admin, {"first_name": "Mine", "owner_id": 1}).status == 201
        h = {"X-Location-Id": "1"}
        assert admin.patch("/api/contacts/%d" % c["id"], {"owner_id": them, "company_name": "B"},
                           headers=h).status == 200  # the same owner: not told again
        r = admin.post("/api/contacts/%d/notes" % c["id"],
                       {"body": "Ask @zoe arzt about the invoice, and @Zoë Ärztin too"}, headers=h)
        assert r.status == 201, r.body
        # a name that only begins the word mentions nobody
        assert admin.post("/api/contacts/%d/notes" % c["id"], {"body": "@Zoë Ärztin"}, headers=h).status == 201
        told = user.get("/api/notifications").json()
        assert told["unread"] == before + 2
        mention, given = told["data"][:2]
        assert (given["kind"], given["text"], given["path"]) == \
            ("assigned", "assigned you the contact Quentin Brandauer", "/contacts/%d" % c["id"])
        assert (mention["kind"], mention["text"], mention["path"]) == \
            ("mention", "mentioned you in a note on Quentin Brandauer: “Ask @zoe arzt about the invoice,"
             " and @Zoë Ärztin too”", "/contacts/%d" % c["id"])
        # one who sees only their own contacts is not told of another's
        s.sql("UPDATE users SET assigned_only = 1 WHERE id = ?", them)
        mine = create(admin, {"first_name": "Not", "last_name": "Theirs", "owner_id": 1}).json()
        assert admin.post("/api/contacts/%d/notes" % mine["id"], {"body": "@Zoë Ärzt look"}, headers=h).status == 201
        assert user.get("/api/notifications").json()["unread"] == before + 2
        s.sql("UPDATE users SET assigned_only = 0 WHERE id = ?", them)
        # someone of another sub-account is not told, even when named
        s.sql("UPDATE users SET name = 'Olaf Other' WHERE id = ?", other)
        theirs = s.login("location-2@example.test", SEED_PASSWORD)
        was = theirs.get("/api/notifications").json()["unread"]
        assert admin.post("/api/contacts/%d/notes" % c["id"], {"body": "cc @Olaf Other"}, headers=h).status == 201
        assert theirs.get("/api/notifications").json()["unread"] == was
        # a notice 90 days old goes as the next one comes, found by its age
        s.sql("INSERT INTO notifications (user_id, location_id, kind, text, path, created_at)"
              " VALUES (?, 1, 'mention', 'old', '/contacts', '2020-01-01T00:00:00.000Z')", them)
        plan = " ".join(r[3] for r in s.sql("EXPLAIN QUERY PLAN DELETE FROM notifications"
                                            " WHERE user_id = 1 AND created_at < '2026'"))
        assert "notifications_age (user_id=? AND created_at<?)" in plan, plan
        # every "@" is looked at, not only the first of the name
        assert admin.post("/api/contacts/%d/notes" % c["id"], {"body": "@Zoë Ärztin, and @Zoë Ärzt"},
                          headers=h).status == 201
        assert s.sql("SELECT count(*) FROM notifications WHERE text = 'old'") == [(0,)]
        # a contact's long name: the note is kept, the bell's line cut
        long = create(admin, {"first_name": "A" * 200, "last_name": "B" * 200, "owner_id": 1}).json()
        r = admin.post("/api/contacts/%d/notes" % long["id"], {"body": "@Zoë Ärzt " + "x" * 99}, headers=h)
        assert r.status == 201, r.body
        told = user.get("/api/notifications").json()
        assert told["unread"] == before + 4
        cut, both = told["data"][:2]
        assert both["text"] == "mentioned you in a note on Quentin Brandauer: “@Zoë Ärztin, and @Zoë Ärzt”"
        assert cut["text"].startswith("mentioned you in a note on AAA") and cut["text"].endswith("xx…")
        assert len(cut["text"]) == 500 and cut["path"] == "/contacts/%d" % long["id"]
