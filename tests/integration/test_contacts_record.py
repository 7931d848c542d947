# SPDX-License-Identifier: MIT
"""GET /api/contacts/:id and GET /api/tags on seeded data: one contact
whole (tags, typed custom fields, recent notes), and the tags with their
counts, never another sub-account's."""

import time

from harness import SEED_PASSWORD, every_page, headers, new_contact, seeded_server


def test_a_contact_comes_whole():
    s, admin = seeded_server()
    with s:
        cid = s.sql("SELECT c.id FROM contacts c WHERE c.location_id = 1 AND c.deleted_at IS NULL"
                    " AND EXISTS (SELECT 1 FROM notes WHERE contact_id = c.id)"
                    " AND (SELECT count(*) FROM custom_values WHERE contact_id = c.id) >= 2"
                    " AND EXISTS (SELECT 1 FROM contact_tags WHERE contact_id = c.id) LIMIT 1")[0][0]
        r = admin.get("/api/contacts/%d?location_id=1" % cid)
        assert r.status == 200, r.body
        c = r.json()
        row = s.sql("SELECT first_name, last_name, email, owner_id FROM contacts WHERE id = ?", cid)[0]
        assert (c["first_name"], c["last_name"], c["email"], c["owner_id"]) == row
        tags = s.sql("SELECT t.id, t.name FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id"
                     " WHERE ct.contact_id = ?", cid)
        assert sorted((t["id"], t["name"]) for t in c["tags"]) == sorted(tags)
        values = dict(s.sql("SELECT f.key, v.value FROM custom_values v JOIN custom_fields f"
                            " ON f.id = v.field_id WHERE v.contact_id = ?", cid))
        assert set(c["custom_fields"]) == set(values)
        for key, value in c["custom_fields"].items():
            if key == "budget":
                assert value == int(values[key])          # a number field is a number
            elif key == "newsletter":
                assert value is (values[key] == "true")   # a checkbox is a boolean
            else:
                assert value == values[key]
        notes = s.sql("SELECT id FROM notes WHERE contact_id = ? ORDER BY id DESC LIMIT 5", cid)
        assert [n["id"] for n in c["recent_notes"]] == [n[0] for n in notes]
        assert c["notes_count"] == s.sql("SELECT count(*) FROM notes WHERE contact_id = ?", cid)[0][0]
        # Activity: what the other modules' rows say happened around the contact.
        busy = s.sql("SELECT cv.contact_id FROM conversations cv JOIN contacts c ON c.id = cv.contact_id"
                     " WHERE c.location_id = 1 AND c.deleted_at IS NULL AND EXISTS (SELECT 1 FROM tasks"
                     " WHERE contact_id = c.id) LIMIT 1")[0][0]
        activity = admin.get("/api/contacts/%d?location_id=1" % busy).json()["activity"]
        received = s.sql("SELECT count(*) FROM messages m JOIN conversations cv ON cv.id = m.conversation_id"
                         " WHERE cv.contact_id = ? AND m.direction = 'inbound'", busy)[0][0]
        tasks = s.sql("SELECT count(*) FROM tasks WHERE contact_id = ?", busy)[0][0]
        assert activity.get("message.received", 0) == received and activity["task.created"] == tasks


def test_a_contact_of_another_location_or_deleted_is_404():
    s, admin = seeded_server()
    with s:
        other = s.sql("SELECT id FROM contacts WHERE location_id = 2 AND deleted_at IS NULL LIMIT 1")[0][0]
        deleted = s.sql("SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NOT NULL LIMIT 1")
        assert admin.get("/api/contacts/%d?location_id=1" % other).status == 404
        assert admin.get("/api/contacts/%d?location_id=2" % other).status == 200
        assert deleted, "the seeded data has deleted contacts"
        assert admin.get("/api/contacts/%d?location_id=1" % deleted[0][0]).status == 404
        for bad in ("0", "-1", "abc", "99999999999999999999"):
            assert admin.get("/api/contacts/%s?location_id=1" % bad).status == 404
        user = s.login("location-1@example.test", SEED_PASSWORD)
        assert user.get("/api/contacts/%d" % other).status == 404
        assert user.get("/api/contacts/%d/timeline" % other).status == 404


def timeline_lines(admin, path, want):
    deadline = time.time() + 10
    while True:
        got = [t["line"] for t in every_page(admin, path, limit=2)]
        if got == want or time.time() > deadline:
            return got
        time.sleep(0.02)


def test_notes_show_on_the_timeline_newest_first_a_page_at_a_time():
    # With the deals module off, the timeline holds what the others say.
    s, admin = seeded_server(plugins={"opportunities": "enabled = no\n"})
    with s:
        h = headers(admin)
        assert admin.get("/api/opportunities", headers=h).status == 404
        cid = new_contact(admin, h, first_name="Tim", email="tim@timeline.test")["id"]
        path = "/api/contacts/%d/timeline" % cid
        assert admin.get(path, headers=h).json() == {"data": [], "next_cursor": None}
        notes = [admin.post(path[:-8] + "notes", {"body": "Note %d" % i}, headers=h).json()["id"]
                 for i in range(3)]
        assert timeline_lines(admin, path + "?location_id=1", ["Note: Note 2", "Note: Note 1",
                                                               "Note: Note 0"]) \
            == ["Note: Note 2", "Note: Note 1", "Note: Note 0"]
        assert admin.delete(path[:-8] + "notes/%d" % notes[1], headers=h).status == 204
        assert timeline_lines(admin, path + "?location_id=1", ["Note: Note 2", "Note: Note 0"]) \
            == ["Note: Note 2", "Note: Note 0"]
        assert admin.post("/api/tasks", {"title": "Call Tim", "contact_id": cid}, headers=h).status == 201
        want = ["Task Call Tim created", "Note: Note 2", "Note: Note 0"]
        assert timeline_lines(admin, path + "?location_id=1", want) == want
        for bad in ("cursor=abc", "limit=0", "limit=1001"):
            assert admin.get(path + "?" + bad, headers=h).status == 400
        # Another sub-account's user, and the admin looking from it, read nothing.
        assert admin.get(path + "?location_id=2").status == 404
        other = s.login("location-2@example.test", SEED_PASSWORD)
        assert other.get(path).status == 404


def test_tags_come_with_their_live_contacts():
    s, admin = seeded_server()
    with s:
        tags = admin.get("/api/tags?location_id=1").json()["data"]
        want = s.sql("SELECT t.name, (SELECT count(*) FROM contact_tags ct JOIN contacts c ON"
                     " c.id = ct.contact_id WHERE ct.tag_id = t.id AND c.deleted_at IS NULL)"
                     " FROM tags t WHERE t.location_id = 1 ORDER BY t.name COLLATE NOCASE")
        assert [(t["name"], t["contacts"]) for t in tags] == want
        assert len(tags) == 20 and any(t["contacts"] for t in tags)
        ids_2 = {t["id"] for t in admin.get("/api/tags?location_id=2").json()["data"]}
        assert not ids_2 & {t["id"] for t in tags}
