# SPDX-License-Identifier: MIT
"""What the contacts module tells the rest of the server: every write
publishes its event once it has committed (never for a refused one), and
what other modules publish about a contact shows as its activity. A test
module's handler for "contact.*" records what it is given."""

import json
import time

from harness import headers, new_contact, seeded_server


def seen(s, count, timeout=10):
    """The contact events the test module recorded, once there are `count`."""
    deadline = time.time() + timeout
    while True:
        rows = s.sql("SELECT name, location_id, subject_id, data FROM events_probe_seen"
                     " WHERE handler = 'contact' ORDER BY id")
        if len(rows) >= count or time.time() > deadline:
            return [(n, loc, sid, json.loads(d)) for n, loc, sid, d in rows]
        time.sleep(0.02)


def test_every_write_publishes_its_event_after_commit():
    s, admin = seeded_server(extra_modules=("events_probe",))
    with s:
        h = headers(admin)
        assert admin.post("/api/contacts", {"first_name": "x", "email": "bad"}, headers=h).status == 422
        c = new_contact(admin, h, first_name="Eve", email="eve@events.test")
        cid = c["id"]
        admin.patch("/api/contacts/%d" % cid, {"last_name": "Vent", "source": None}, headers=h)
        tagged = admin.post("/api/contacts/%d/tags" % cid, {"tags": ["evt"]}, headers=h).json()
        tag_id = tagged["tags"][0]["id"]
        assert admin.delete("/api/contacts/%d/tags/evt" % cid, headers=h).status == 204
        note = admin.post("/api/contacts/%d/notes" % cid, {"body": "n"}, headers=h).json()["id"]
        assert admin.delete("/api/contacts/%d/notes/%d" % (cid, note), headers=h).status == 204
        assert admin.delete("/api/contacts/%d" % cid, headers=h).status == 204
        got = seen(s, 7)
        assert got == [("contact.created", 1, cid, {}),
                       ("contact.updated", 1, cid, {"fields": ["last_name", "source"]}),
                       ("contact.tagged", 1, cid, {"tag_ids": [tag_id]}),
                       ("contact.untagged", 1, cid, {"tag_ids": [tag_id]}),
                       ("contact.note_added", 1, cid, {"note_id": note}),
                       ("contact.note_deleted", 1, cid, {"note_id": note}),
                       ("contact.deleted", 1, cid, {})], got
        # An import publishes per row; the bad row publishes nothing.
        r = admin.request("POST", "/api/contacts/import", headers=dict(h, **{"Content-Type": "text/csv"}),
                          body=b"first_name,email\r\nIm,im@events.test\r\nBad,bad\r\n")
        assert (r.json()["created"], r.json()["skipped"]) == (1, 1)
        got = seen(s, 8)
        assert [g[0] for g in got[7:]] == ["contact.created"] and len(got) == 8


def test_what_other_modules_report_shows_as_activity():
    s, admin = seeded_server(extra_modules=("events_probe",))
    with s:
        h1, h2 = headers(admin, 1), headers(admin, 2)
        cid = new_contact(admin, h1, first_name="Busy")["id"]

        def report(h, name):
            event = {"name": name, "subject": 1, "data": json.dumps({"contact_id": cid})}
            assert admin.post("/api/events_probe/publish", {"events": [event]}, headers=h).status == 201

        for name in ("message.received", "message.received", "task.completed"):
            report(h1, name)
        report(h2, "message.received")   # another location naming our contact: not counted
        report(h1, "thing.created")      # not activity
        deadline = time.time() + 10
        while time.time() < deadline:
            activity = admin.get("/api/contacts/%d?location_id=1" % cid).json()["activity"]
            if activity.get("task.completed"):
                break
            time.sleep(0.02)
        record = admin.get("/api/contacts/%d?location_id=1" % cid).json()
        assert record["activity"] == {"message.received": 2, "task.completed": 1}
        assert record["last_activity_at"]
