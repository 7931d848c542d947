# SPDX-License-Identifier: MIT
"""Conversations on seeded data, as a sub-account's users see them: the
inbox with every filter equal to the same question asked in SQL, paged
through with cursors; a thread paged backwards; messages sent and received
moving the preview and the unread count; marking read, starring and
assigning; each bad input refused; other locations' conversations out of
reach; users who see only their own; the events that reach a contact's
activity; the cache dropped by writes; and no statement scanning a whole
table."""

import re
import time

from harness import error, every_page, headers, ids, is_plan, seeded_server, wait_for


ROW_KEYS = {"id", "contact_id", "contact_name", "channel", "assigned_to", "starred", "unread_count",
            "last_message_at", "last_message_preview", "created_at", "opted_out"}
MESSAGE_KEYS = {"id", "conversation_id", "direction", "channel", "subject", "body", "status",
                "status_reason", "created_at", "attachments", "html"}
ORDER = "coalesce(last_message_at, created_at) DESC, id DESC"


def want(s, where, location=2, first=""):
    """The ids the inbox should give, in its order (`first`: an order
    before the newest first)."""
    return [r[0] for r in s.sql("SELECT id FROM conversations WHERE location_id = ? AND (%s)"
                                " ORDER BY %s%s" % (where, first, ORDER), location)]


def user_id(s, email):
    return s.sql("SELECT id FROM users WHERE email = ?", email)[0][0]


def busiest(s, column, location=2):
    return s.sql("SELECT %s FROM conversations WHERE location_id = ? AND %s IS NOT NULL"
                 " GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1" % (column, column), location)[0][0]


def star_and_assign(admin, s, h, me):
    """Star some conversations and assign some to the caller, so that the
    starred and assigned=me filters have rows."""
    for cid in want(s, "1")[3:40:4]:
        assert admin.patch("/api/conversations/%d" % cid, {"starred": True}, headers=h).status == 200
    for cid in want(s, "1")[5:60:6]:
        assert admin.patch("/api/conversations/%d" % cid, {"assigned_to": me}, headers=h).status == 200


def test_every_filter_equals_its_sql():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        me = user_id(s, "perf@example.test")
        star_and_assign(admin, s, h, me)
        channel = busiest(s, "channel")
        assignee = s.sql("SELECT assigned_to FROM conversations WHERE location_id = 2 AND assigned_to <> ?"
                         " GROUP BY 1 ORDER BY count(*) DESC LIMIT 1", me)[0][0]
        contact = s.sql("SELECT contact_id FROM conversations WHERE location_id = 2"
                        " GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1")[0][0]
        unread_assignee = s.sql("SELECT assigned_to FROM conversations WHERE location_id = 2 AND"
                                " unread_count > 0 AND assigned_to IS NOT NULL"
                                " GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")[0][0]
        cases = [
            ("", "1"),
            ("unread=1", "unread_count > 0"),
            ("unread=0", "1"),
            ("starred=1", "starred = 1"),
            ("channel=" + channel, "channel = '%s'" % channel),
            ("contact=%d" % contact, "contact_id = %d" % contact),
            ("assigned=%d" % assignee, "assigned_to = %d" % assignee),
            ("assigned=me", "assigned_to = %d" % me),
            ("unread=1&channel=" + channel, "unread_count > 0 AND channel = '%s'" % channel),
            ("starred=1&assigned=me", "starred = 1 AND assigned_to = %d" % me),
            ("unread=1&assigned=%d" % unread_assignee,
             "unread_count > 0 AND assigned_to = %d" % unread_assignee),
        ]
        for query, where in cases:
            expected = want(s, where)
            assert expected, query  # a filter that finds nothing proves little
            assert ids(every_page(admin, "/api/conversations?location_id=2&" + query)) == expected, query
            assert ids(every_page(admin, "/api/conversations?location_id=2&sort=newest&" + query)) == \
                expected, query
            # unread first: those with unread messages, then the rest, each newest first
            first = want(s, where, first="(unread_count > 0) DESC, ")
            assert ids(every_page(admin, "/api/conversations?location_id=2&sort=unread&" + query)) == \
                first, query
        mixed = want(s, "1", first="(unread_count > 0) DESC, ")
        assert mixed != want(s, "1"), "the data set has read and unread conversations to mix"
        assert not ids(every_page(admin, "/api/conversations?location_id=2&contact=999999"))


def test_rows_carry_the_contact_and_the_last_message():
    s, admin = seeded_server()
    with s:
        names = dict(s.sql("SELECT id, trim(first_name || ' ' || last_name) FROM contacts"))
        rows = every_page(admin, "/api/conversations?location_id=2", limit=1000)
        assert len(rows) == s.sql("SELECT count(*) FROM conversations WHERE location_id = 2")[0][0]
        for row in rows:
            assert set(row) == ROW_KEYS
            db = s.sql("SELECT contact_id, channel, assigned_to, starred, unread_count, last_message_at,"
                       " last_message_preview, created_at FROM conversations WHERE id = ?", row["id"])[0]
            assert (row["contact_id"], row["channel"], row["assigned_to"], row["starred"],
                    row["unread_count"], row["last_message_at"], row["last_message_preview"],
                    row["created_at"]) == db[:3] + (bool(db[3]),) + db[4:]
            assert row["contact_name"] == names[row["contact_id"]]
        # Pages of every size give the same list; the last says so.
        for limit in (1, 50, 333):
            assert ids(every_page(admin, "/api/conversations?location_id=2", limit=limit)) == want(s, "1")
        page = admin.get("/api/conversations?location_id=2").json()
        assert len(page["data"]) == min(50, len(rows)) and set(page) == {"data", "next_cursor"}
        assert admin.get("/api/conversations?location_id=2&limit=1000").json()["next_cursor"] is None


def test_a_thread_pages_backwards_from_the_newest():
    s, admin = seeded_server()
    with s:
        cid = s.sql("SELECT conversation_id FROM messages WHERE location_id = 2"
                    " GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")[0][0]
        expected = [r[0] for r in s.sql("SELECT id FROM messages WHERE conversation_id = ?"
                                         " ORDER BY id DESC", cid)]
        assert len(expected) > 3
        path = "/api/conversations/%d/messages?location_id=2" % cid
        for limit in (1, 3, 50):
            assert ids(every_page(admin, path, limit=limit)) == expected
        first = admin.get(path + "&limit=2").json()
        assert first["next_cursor"] == str(expected[1])
        assert all(set(m) == MESSAGE_KEYS and m["conversation_id"] == cid for m in first["data"])
        body, status = s.sql("SELECT body, status FROM messages WHERE id = ?", expected[0])[0]
        assert (first["data"][0]["body"], first["data"][0]["status"]) == (body, status)
        record = admin.get("/api/conversations/%d?location_id=2" % cid).json()
        assert set(record) == ROW_KEYS and record["id"] == cid


def a_contact(s, location=2):
    """A live contact of the location with an e-mail address and a phone
    number that are its own."""
    return s.sql("SELECT id, email, phone FROM contacts c WHERE location_id = ? AND deleted_at IS NULL"
                 " AND email IS NOT NULL AND length(phone) >= 3 AND NOT EXISTS (SELECT 1 FROM contacts o"
                 " WHERE o.location_id = c.location_id AND o.id <> c.id AND (o.email = c.email COLLATE NOCASE"
                 " OR o.phone = c.phone)) ORDER BY id DESC LIMIT 1", location)[0]


def test_messages_sent_and_received_move_the_preview_and_unread_count():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        contact, email, phone = a_contact(s)
        known = {r[0] for r in s.sql("SELECT id FROM conversations WHERE contact_id = ?", contact)}
        # Inbound on a channel the contact has no conversation on opens one.
        r = admin.post("/api/conversations/inbound", {"contact_id": contact, "channel": "webchat",
                                                      "body": "Hello there"}, headers=h)
        assert r.status == 201, r.body
        m = r.json()
        assert set(m) == MESSAGE_KEYS and (m["direction"], m["status"], m["channel"]) == \
            ("inbound", "received", "webchat")
        assert m["html"] is None  # only an e-mail written here is Markdown
        cid = m["conversation_id"]
        assert cid not in known
        path = "/api/conversations/%d" % cid
        c = admin.get(path + "?location_id=2").json()
        assert (c["contact_id"], c["channel"], c["unread_count"], c["last_message_preview"],
                c["last_message_at"]) == (contact, "webchat", 1, "Hello there", m["created_at"])
        # By e-mail address (any case) and by phone: the same conversation.
        for who in ({"email": email.upper()}, {"phone": phone}):
            r = admin.post("/api/conversations/inbound", dict(who, channel="webchat", body="Again"), headers=h)
            assert r.status == 201 and r.json()["conversation_id"] == cid, r.body
        first = admin.get("/api/conversations?location_id=2&limit=1").json()["data"][0]
        assert first["id"] == cid and first["unread_count"] == 3
        # Sending: queued for a provider, the preview follows, unread stays.
        long_body = "é" * 10000
        r = admin.post(path + "/messages", {"body": long_body}, headers=h)
        assert r.status == 201, r.body
        sent = r.json()
        assert (sent["direction"], sent["status"], sent["channel"], sent["body"]) == \
            ("outbound", "queued", "webchat", long_body)
        c = admin.get(path + "?location_id=2").json()
        assert c["last_message_preview"] == "é" * 200 and c["last_message_at"] == sent["created_at"]
        assert c["unread_count"] == 3
        error(admin.post(path + "/messages", {"body": "x", "subject": "Hi"}, headers=h), 422,
              "subject: only an e-mail has a subject")
        other = admin.post(path + "/messages", {"body": "By mail", "channel": "email"}, headers=h).json()
        assert (other["channel"], other["subject"]) == ("email", None)
        thread = every_page(admin, path + "/messages?location_id=2", limit=2)
        assert [t["body"] for t in thread] == ["By mail", long_body, "Again", "Again", "Hello there"]
        # Reading: unread back to 0, again harmless.
        for _ in range(2):
            read = admin.post(path + "/read", {}, headers=h)
            assert read.status == 200 and read.json()["unread_count"] == 0
        assert cid not in ids(every_page(admin, "/api/conversations?location_id=2&unread=1", limit=1000))


def test_opening_starring_and_assigning():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        contact = a_contact(s)[0]
        r = admin.post("/api/conversations", {"contact_id": contact, "channel": "instagram"}, headers=h)
        assert r.status == 201, r.body
        c = r.json()
        assert (c["contact_id"], c["channel"], c["unread_count"], c["last_message_at"], c["starred"],
                c["assigned_to"]) == (contact, "instagram", 0, None, False, None)
        # Opened without messages, it sorts by its opening: first.
        assert admin.get("/api/conversations?location_id=2&limit=1").json()["data"][0]["id"] == c["id"]
        again = admin.post("/api/conversations", {"contact_id": contact, "channel": "instagram"}, headers=h)
        assert again.status == 200 and again.json()["id"] == c["id"]
        path = "/api/conversations/%d" % c["id"]
        changed = admin.patch(path, {"starred": True, "assigned_to": 1}, headers=h).json()
        assert (changed["starred"], changed["assigned_to"]) == (True, 1)
        changed = admin.patch(path, {"assigned_to": None}, headers=h).json()
        assert (changed["starred"], changed["assigned_to"]) == (True, None)
        assert admin.patch(path, {"starred": False}, headers=h).json()["starred"] is False


def test_marking_unread_brings_a_conversation_back_to_the_unread_list():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        cid = want(s, "unread_count = 0")[0]
        path = "/api/conversations/%d" % cid
        contact = admin.get(path + "?location_id=2").json()["contact_id"]
        before = activity(admin, contact).get("conversation.unread", 0)
        unread_before = s.sql("SELECT unread FROM conversation_counts WHERE location_id = 2")[0][0]
        for _ in range(2):  # twice: still one to read, one event
            r = admin.post(path + "/unread", {}, headers=h)
            assert r.status == 200 and r.json()["unread_count"] == 1, r.body
        assert cid in ids(every_page(admin, "/api/conversations?location_id=2&unread=1", limit=1000))
        assert s.sql("SELECT unread FROM conversation_counts WHERE location_id = 2")[0][0] == unread_before + 1
        assert wait_for(lambda: activity(admin, contact).get("conversation.unread", 0) == before + 1)
        time.sleep(0.3)  # a second event would have been counted by now
        assert activity(admin, contact).get("conversation.unread", 0) == before + 1
        # A conversation with messages to read keeps their number.
        busy = want(s, "unread_count > 1")[0]
        n = s.sql("SELECT unread_count FROM conversations WHERE id = ?", busy)[0][0]
        assert admin.post("/api/conversations/%d/unread" % busy, {}, headers=h).json()["unread_count"] == n
        assert admin.post(path + "/read", {}, headers=h).json()["unread_count"] == 0
        error(admin.post("/api/conversations/999999999/unread", {}, headers=h), 404, "no such conversation")
        other = want(s, "1", location=3)[0]
        assert admin.post("/api/conversations/%d/unread" % other, {}, headers=h).status == 404


REPLY_KEYS = {"id", "name", "subject", "body", "created_at", "updated_at"}


def test_saved_replies_are_kept_by_admins_and_sent_with_their_fields_filled():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        made = admin.post("/api/saved-replies", {"name": "Confirmed", "subject": "See you soon",
                                                "body": "Hi {{contact.first_name|there}}, you are booked."},
                          headers=h)
        assert made.status == 201, made.body
        r = made.json()
        assert set(r) == REPLY_KEYS and (r["name"], r["subject"]) == ("Confirmed", "See you soon")
        path = "/api/saved-replies/%d" % r["id"]
        assert admin.post("/api/saved-replies", {"name": "address", "body": "We are at 1 Main St."},
                          headers=h).json()["subject"] is None
        listed = admin.get("/api/saved-replies?location_id=2").json()["data"]
        assert [x["name"] for x in listed] == ["address", "Confirmed"]  # by name, whatever the case
        assert admin.get("/api/saved-replies?location_id=3").json()["data"] == []
        # Refused, naming the member; nothing written.
        error(admin.post("/api/saved-replies", {"name": "CONFIRMED", "body": "x"}, headers=h), 409,
              'name: this sub-account has a saved reply called "CONFIRMED"')
        error(admin.post("/api/saved-replies", {"name": "Bad", "body": "Hi {{contact.nickname}}"}, headers=h),
              422, "body: {{contact.nickname}} is not a merge field")
        error(admin.post("/api/saved-replies", {"name": "Open", "body": "x", "subject": "Hi {{contact.name"},
                         headers=h), 422, "subject: a merge field is opened")
        error(admin.post("/api/saved-replies", {"name": "Empty", "body": "  "}, headers=h), 422, "body: required")
        error(admin.post("/api/saved-replies", {"body": "x"}, headers=h), 422, "name: required")
        error(admin.post("/api/saved-replies", {"name": "x", "body": "x", "tone": "warm"}, headers=h), 422, "tone")
        error(admin.patch(path, {"name": "Address"}, headers=h), 409, "saved reply called")
        assert len(admin.get("/api/saved-replies?location_id=2").json()["data"]) == 2
        # Changed: only what is sent; a subject taken away with null.
        changed = admin.patch(path, {"subject": None}, headers=h).json()
        assert (changed["name"], changed["subject"], changed["body"]) == ("Confirmed", None, r["body"])
        assert changed["updated_at"] >= r["updated_at"]
        assert admin.get("/api/saved-replies?location_id=2").json()["data"][1]["subject"] is None
        # Sent from a conversation: the contact's own name.
        contact = a_contact(s)[0]
        first = s.sql("SELECT first_name FROM contacts WHERE id = ?", contact)[0][0]
        cid = admin.post("/api/conversations", {"contact_id": contact, "channel": "webchat"}, headers=h).json()["id"]
        sent = admin.post("/api/conversations/%d/messages" % cid, {"body": changed["body"]}, headers=h).json()
        assert sent["body"] == "Hi %s, you are booked." % (first or "there")
        # Another sub-account's, and a user who is not an admin.
        h3 = headers(admin, 3)
        assert admin.patch(path, {"name": "Mine"}, headers=h3).status == 404
        assert admin.delete(path, headers=h3).status == 404
        user = s.login("location-2@example.test", "perf-pass-123")
        assert [x["name"] for x in user.get("/api/saved-replies").json()["data"]] == ["address", "Confirmed"]
        assert user.post("/api/saved-replies", {"name": "Mine", "body": "x"}, headers=headers(user, 2)).status == 403
        assert user.delete(path, headers=headers(user, 2)).status == 403
        assert admin.delete(path, headers=h).status == 204
        assert admin.delete(path, headers=h).status == 404
        assert [x["name"] for x in admin.get("/api/saved-replies?location_id=2").json()["data"]] == ["address"]


def test_bad_input_is_refused_naming_the_field():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        contact = a_contact(s)[0]
        other_contact = s.sql("SELECT id FROM contacts WHERE location_id = 1 LIMIT 1")[0][0]
        other_user = user_id(s, "location-1@example.test")
        cid = want(s, "1")[0]
        path = "/api/conversations/%d" % cid
        before = s.sql("SELECT count(*) FROM messages")[0][0], s.sql("SELECT count(*) FROM conversations")[0][0]
        for body, words in (({}, "body: required"), ({"body": ""}, "body: required"),
                            ({"body": None}, "body: required"), ({"body": "x" * 10001}, "body"),
                            ({"body": 5}, "body"), ({"body": "b", "channel": "pigeon"}, "channel"),
                            ({"body": "b", "to": "x"}, "to: no such field")):
            error(admin.post(path + "/messages", body, headers=h), 422, words)
        for body, words in (
                ({"channel": "sms", "body": "b"}, "contact_id: required"),
                ({"contact_id": contact, "body": "b"}, "channel: required"),
                ({"contact_id": contact, "channel": "fax", "body": "b"}, "channel"),
                ({"contact_id": contact, "channel": "sms"}, "body: required"),
                ({"contact_id": other_contact, "channel": "sms", "body": "b"}, "contact_id: no contact"),
                ({"contact_id": "1", "channel": "sms", "body": "b"}, "contact_id"),
                ({"email": "nobody@nowhere.test", "channel": "sms", "body": "b"}, "email: no contact"),
                ({"email": "not-mail", "channel": "sms", "body": "b"}, "email: not an e-mail"),
                ({"phone": "%", "channel": "sms", "body": "b"}, "phone: not a phone number"),
                ({"phone": "+1 000 000 0000 999", "channel": "sms", "body": "b"}, "phone: no contact"),
                ({"contact_id": contact, "channel": "sms", "body": "b", "from": "x"}, "from: no such field")):
            error(admin.post("/api/conversations/inbound", body, headers=h), 422, words)
        for body, words in (({"channel": "sms"}, "contact_id: required"),
                            ({"contact_id": contact}, "channel: required"),
                            ({"contact_id": other_contact, "channel": "sms"}, "contact_id: no contact"),
                            ({"contact_id": contact, "channel": "sms", "assigned_to": other_user},
                             "assigned_to: no user"),
                            ({"contact_id": contact, "channel": "sms", "topic": "x"}, "topic: no such field")):
            error(admin.post("/api/conversations", body, headers=h), 422, words)
        for body, words in (({"starred": "yes"}, "starred"), ({"starred": None}, "starred"),
                            ({"assigned_to": 999999}, "assigned_to: no user"),
                            ({"assigned_to": other_user}, "assigned_to: no user"),
                            ({"unread_count": 0}, "unread_count: no such field")):
            error(admin.patch(path, body, headers=h), 422, words)
        assert (s.sql("SELECT count(*) FROM messages")[0][0],
                s.sql("SELECT count(*) FROM conversations")[0][0]) == before
        for query, words in (("unread=2", "unread"), ("starred=yes", "starred"), ("channel=fax", "channel"),
                             ("contact=0", "contact"), ("assigned=you", "assigned"), ("cursor=xyz", "cursor"),
                             ("cursor=7b7d", "cursor"), ("limit=0", "limit"), ("limit=1001", "limit"),
                             ("sort=oldest", "sort is newest or unread")):
            error(admin.get("/api/conversations?location_id=2&" + query), 400, words)
        for query in ("cursor=0", "cursor=x", "limit=0", "limit=1001"):
            assert admin.get(path + "/messages?location_id=2&" + query).status == 400
        assert admin.get("/api/conversations/999999999/messages?location_id=2").status == 404


def test_another_locations_conversation_is_404():
    s, admin = seeded_server()
    with s:
        h2 = headers(admin, 2)
        theirs = want(s, "1", location=1)[0]
        path = "/api/conversations/%d" % theirs
        before = s.sql("SELECT unread_count, starred, last_message_at FROM conversations WHERE id = ?", theirs)
        assert admin.get(path + "?location_id=2").status == 404
        assert admin.get(path + "/messages?location_id=2").status == 404
        assert admin.post(path + "/messages", {"body": "x"}, headers=h2).status == 404
        assert admin.post(path + "/read", {}, headers=h2).status == 404
        assert admin.patch(path, {"starred": True}, headers=h2).status == 404
        assert s.sql("SELECT unread_count, starred, last_message_at FROM conversations WHERE id = ?",
                     theirs) == before
        assert admin.get(path + "?location_id=1").status == 200
        assert theirs not in ids(every_page(admin, "/api/conversations?location_id=2", limit=1000))
        user = s.login("location-2@example.test", "perf-pass-123")
        assert user.get("/api/conversations?location_id=1").status == 404
        assert user.get(path).status == 404
        assert set(ids(every_page(user, "/api/conversations", limit=1000))) == set(want(s, "1"))


def test_assigned_only_users_see_and_touch_only_their_conversations():
    s, admin = seeded_server()
    with s:
        me = user_id(s, "location-2@example.test")
        s.sql("UPDATE users SET assigned_only = 1 WHERE id = ?", me)
        user = s.login("location-2@example.test", "perf-pass-123")
        h = headers(user, 2)
        mine = ids(every_page(user, "/api/conversations", limit=100))
        assert mine and mine == want(s, "assigned_to = %d" % me, location=2)
        assert ids(every_page(user, "/api/conversations?unread=1")) == \
            want(s, "assigned_to = %d AND unread_count > 0" % me, location=2)
        others = want(s, "assigned_to IS NOT %d" % me, location=2)[0]
        path = "/api/conversations/%d" % others
        assert user.get(path).status == 404
        assert user.get(path + "/messages").status == 404
        assert user.post(path + "/messages", {"body": "x"}, headers=h).status == 404
        assert user.post(path + "/read", {}, headers=h).status == 404
        assert user.patch(path, {"starred": True}, headers=h).status == 404
        assert user.get("/api/conversations/%d/messages" % mine[0]).status == 200
        assert user.post("/api/conversations/%d/messages" % mine[0], {"body": "mine"}, headers=h).status == 201
        error(user.patch("/api/conversations/%d" % mine[0], {"assigned_to": 1}, headers=h), 422, "assigned_to")
        assert user.post("/api/conversations/inbound", {"contact_id": 1, "channel": "sms", "body": "b"},
                         headers=h).status == 403
        contact = a_contact(s, location=2)[0]
        made = user.post("/api/conversations", {"contact_id": contact, "channel": "facebook"}, headers=h)
        assert made.status == 201 and made.json()["assigned_to"] == me
        # Answers are kept per user for them: an admin's list stays whole.
        assert len(every_page(admin, "/api/conversations?location_id=2", limit=1000)) > len(mine) + 1


def activity(admin, contact):
    return admin.get("/api/contacts/%d?location_id=2" % contact).json()["activity"]


def test_events_reach_the_contacts_activity():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        contact = a_contact(s)[0]
        before = activity(admin, contact)
        total = s.sql("SELECT sum(count) FROM contact_activity")[0][0]
        cid = admin.post("/api/conversations", {"contact_id": contact, "channel": "whatsapp"},
                         headers=h).json()["id"]
        path = "/api/conversations/%d" % cid
        assert admin.post(path + "/messages", {"body": "Hi"}, headers=h).status == 201
        assert admin.post("/api/conversations/inbound", {"contact_id": contact, "channel": "whatsapp",
                                                         "body": "Hey"}, headers=h).status == 201
        for _ in range(2):  # twice: no second event
            assert admin.post(path + "/read", {}, headers=h).status == 200
        assert admin.patch(path, {"starred": True}, headers=h).status == 200
        assert admin.post(path + "/messages", {"body": ""}, headers=h).status == 422  # refused: none
        expected = dict(before)
        for kind in ("conversation.opened", "message.sent", "message.received", "conversation.read",
                     "conversation.updated"):
            expected[kind] = expected.get(kind, 0) + 1
        deadline = time.time() + 10
        while activity(admin, contact) != expected and time.time() < deadline:
            time.sleep(0.02)
        assert activity(admin, contact) == expected
        assert s.sql("SELECT sum(count) FROM contact_activity")[0][0] == total + 5


def test_writes_drop_the_cached_answers():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        path = "/api/conversations?location_id=2&limit=20"
        assert admin.get(path).header("x-cache") == "miss"
        assert admin.get(path).header("x-cache") == "hit"
        cid = admin.get(path).json()["data"][5]["id"]
        thread = "/api/conversations/%d/messages?location_id=2" % cid
        assert admin.get(thread).header("x-cache") == "miss"
        assert admin.get(thread).header("x-cache") == "hit"
        sent = admin.post("/api/conversations/%d/messages" % cid, {"body": "Fresh"}, headers=h).json()
        after = admin.get(path)
        assert after.header("x-cache") == "miss" and after.json()["data"][0]["id"] == cid
        assert after.json()["data"][0]["last_message_preview"] == "Fresh"
        fresh = admin.get(thread)
        assert fresh.header("x-cache") == "miss" and fresh.json()["data"][0]["id"] == sent["id"]
        # The list shows contacts' names: renaming one drops it too.
        contact = after.json()["data"][0]["contact_id"]
        assert admin.get(path).header("x-cache") == "hit"
        assert admin.patch("/api/contacts/%d" % contact, {"first_name": "Renamed"}, headers=h).status == 200
        renamed = admin.get(path)
        assert renamed.header("x-cache") == "miss"
        assert renamed.json()["data"][0]["contact_name"].startswith("Renamed")
        record = "/api/conversations/%d?location_id=2" % cid
        assert admin.get(record).header("x-cache") == "miss"
        assert admin.get(record).header("x-cache") == "hit"
        admin.patch("/api/conversations/%d" % cid, {"starred": True}, headers=h)
        starred = admin.get(record)
        assert starred.header("x-cache") == "miss" and starred.json()["starred"] is True


def test_no_statement_of_the_module_scans_a_whole_table():
    s, admin = seeded_server(env={"PGHL_LOG_PLANS": "1", "PGHL_RESULT_CACHE": "0"})
    with s:
        h = headers(admin, 2)
        me = user_id(s, "perf@example.test")
        contact, email, phone = a_contact(s)
        cid = want(s, "1")[0]
        admin.patch("/api/conversations/%d" % cid, {"starred": True, "assigned_to": me}, headers=h)
        queries = ["", "unread=1", "starred=1", "channel=sms", "contact=%d" % contact, "assigned=3",
                   "assigned=me", "unread=1&channel=email", "starred=1&assigned=me",
                   "unread=1&starred=1&channel=sms&contact=%d&assigned=me" % contact,
                   "sort=unread", "sort=unread&channel=sms"]
        for query in queries:
            page = admin.get("/api/conversations?location_id=2&limit=3&" + query).json()
            if page["next_cursor"]:
                admin.get("/api/conversations?location_id=2&limit=3&%s&cursor=%s" % (query, page["next_cursor"]))
        path = "/api/conversations/%d" % cid
        assert admin.get(path + "?location_id=2").status == 200
        page = admin.get(path + "/messages?location_id=2&limit=1").json()
        assert admin.get(path + "/messages?location_id=2&limit=1&cursor=" + page["next_cursor"]).status == 200
        assert admin.post(path + "/messages", {"body": "Plan"}, headers=h).status == 201
        for who in ({"contact_id": contact}, {"email": email}, {"phone": phone}):
            assert admin.post("/api/conversations/inbound", dict(who, channel="sms", body="b"),
                              headers=h).status == 201
        assert admin.post("/api/conversations", {"contact_id": contact, "channel": "phone"},
                          headers=h).status == 201
        assert admin.post(path + "/read", {}, headers=h).status == 200
        assert admin.patch(path, {"starred": False, "assigned_to": None}, headers=h).status == 200
        s.stop()
        plans = [l for l in s.log.splitlines() if is_plan(l) and
                 re.search(r"\b(conversations|messages)\b|:email|:phone", l.split("=>")[0])]
        assert len(plans) >= len(queries) + 12
        for line in plans:
            assert not re.search(r"SCAN (cv|conversations|m|messages|c|contacts|u|users)\b(?! USING)",
                                 line), line


def test_a_conversation_given_to_someone_and_its_replies_ring_their_bell():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        them = user_id(s, "location-2@example.test")
        user = s.login("location-2@example.test", "perf-pass-123")
        before = user.get("/api/notifications").json()["unread"]
        contact = admin.post("/api/contacts", {"first_name": "Zoë", "last_name": "Quillfeather"},
                             headers=h).json()["id"]
        # ?q: the contact's name, accents and case aside
        c = admin.post("/api/conversations", {"contact_id": contact, "channel": "webchat"}, headers=h).json()
        assert ids(admin.get("/api/conversations?location_id=2&q=ZOE%20QUILL").json()["data"]) == [c["id"]]
        path = "/api/conversations/%d" % c["id"]
        assert admin.patch(path, {"assigned_to": them}, headers=h).status == 200
        assert admin.patch(path, {"assigned_to": them, "starred": True}, headers=h).status == 200
        r = admin.post("/api/conversations/inbound", {"contact_id": contact, "channel": "webchat",
                                                       "body": "Thanks! " + "x" * 200}, headers=h)
        assert r.status == 201, r.body
        told = user.get("/api/notifications").json()
        assert told["unread"] == before + 2
        reply, given = told["data"][:2]
        assert (given["kind"], given["text"], given["path"], given["actor_name"]) == \
            ("assigned", "assigned you the conversation with Zoë Quillfeather", "/conversations/%d" % c["id"],
             admin.get("/api/auth/me").json()["user"]["name"])
        assert (reply["kind"], reply["path"], reply["actor_id"], reply["actor_name"]) == \
            ("reply", "/conversations/%d" % c["id"], None, None)
        assert reply["text"] == "Zoë Quillfeather replied: “Thanks! " + "x" * 112 + "…”"
        # a reply in nobody's conversation tells nobody
        other = admin.post("/api/conversations", {"contact_id": contact, "channel": "sms"}, headers=h)
        assert other.status == 201
        admin.post("/api/conversations/inbound", {"contact_id": contact, "channel": "sms", "body": "Hi"},
                   headers=h)
        assert user.get("/api/notifications").json()["unread"] == before + 2
