# SPDX-License-Identifier: MIT
"""The email module against a real SMTP server (smtp_relay.py: aiosmtpd
with STARTTLS and AUTH required, under a test certificate): a message
leaves from the sub-account's sender as RFC 5322 and MIME say, read back
with Python's email package, header by header and part by part; replies
thread; merge fields are filled or refused; a relay's 421 is tried again
and sent once, its 550 fails in its own words and is not tried again, a
connection dropped during DATA is tried again; no header can be made by
what a user writes; and without a relay or a sender, the thread says so."""

import contextlib
import urllib.parse
import email.utils
import json
import os
import re

from harness import Server, error, headers, wait_for
from smtp_relay import Relay

ADMIN = ("admin@example.test", "admin-pass-1")
MODULES = ("contacts", "conversations", "email")
SENDER = {"from_name": "Zoë's Studio", "from_address": "hello@studio.example.test",
          "reply_to": "desk@studio.example.test"}


def server(relay, ca_file=None, password=None, public=False, outbox=""):
    """A server whose email module sends through `relay` (None: no relay
    set), trying again after a second (and the conversations module's
    `outbox` settings); its admin and sub-account A's headers."""
    plugins = {"conversations": "retry_first_s = 1\n" + outbox}
    if relay:
        plugins["email"] = "smtp_url = %s\nsmtp_user = %s\nsmtp_ca_file = %s\n" % (
            relay.url, relay.user, relay.cert if ca_file is None else ca_file)
    s = Server(modules=MODULES, plugins=plugins)
    if public:  # where links in messages lead
        s.env["PGHL_PUBLIC_URL"] = "http://127.0.0.1:%d/" % s.port
    if relay:  # the password as an operator keeps it, out of the file
        s.env["PGHL_SMTP_PASSWORD"] = relay.password if password is None else password
    s.create_admin(*ADMIN)
    s.start()
    admin = s.login(*ADMIN)
    location = admin.post("/api/admin/locations", {"name": "Client A"}).json()["id"]
    return s, admin, headers(admin, location)


@contextlib.contextmanager
def mailing(**options):
    """A relay, a server sending through it, the sub-account's sender set:
    (relay, server, admin's client, headers)."""
    with Relay() as relay:
        s, admin, h = server(relay, **options)
        with s:
            r = admin.request("PUT", "/api/email/settings", SENDER, headers=h)
            assert r.status == 200, r.body
            yield relay, s, admin, h


def thread_with(admin, h, email_address="ann.lee@example.test", first="Ann", last="Lee"):
    contact = admin.post("/api/contacts", {"first_name": first, "last_name": last,
                                           "email": email_address}, headers=h).json()
    r = admin.post("/api/conversations", {"contact_id": contact["id"], "channel": "email"}, headers=h)
    assert r.status == 201, r.body
    return r.json()["id"]


def send(admin, h, conversation, body, **more):
    r = admin.post("/api/conversations/%d/messages" % conversation, dict(more, body=body), headers=h)
    assert r.status == 201, r.body
    return r.json()


def until_status(admin, h, conversation, mid, wanted, seconds=20):
    seen = {}

    def reached():
        rows = admin.get("/api/conversations/%d/messages" % conversation, headers=h).json()["data"]
        seen.update(next(m for m in rows if m["id"] == mid))
        return seen["status"] in wanted
    assert wait_for(reached, seconds, 0.05), seen
    return seen


def parts(message):
    """The plain and HTML parts of a multipart/alternative, as text."""
    assert message.get_content_type() == "multipart/alternative", message.get_content_type()
    plain, html = message.get_payload()
    assert plain.get_content_type() == "text/plain" and html.get_content_type() == "text/html"
    for p in (plain, html):
        assert p.get_content_charset() == "utf-8"
        assert p["Content-Transfer-Encoding"] == "quoted-printable"
    return plain.get_content(), html.get_content()


def test_a_message_leaves_from_the_sender_as_rfc_5322_and_mime_say_and_replies_thread():
    with mailing() as (relay, s, admin, h):
        conversation = thread_with(admin, h)
        body = ("Hi {{contact.first_name}},\n\n**Bring** a towel — and water.\n\n- one\n- two\n\n"
                "A line of seventy-six characters or more is broken for the wire but read whole.")
        sent = send(admin, h, conversation, body, subject="Your visit on Tuesday ✔")
        assert sent["subject"] == "Your visit on Tuesday ✔" and sent["body"].startswith("Hi Ann,")
        until_status(admin, h, conversation, sent["id"], ("sent",))
        (got,) = relay.wait_for(1)
        assert got["from"] == SENDER["from_address"] and got["to"] == ["ann.lee@example.test"]
        m = got["parsed"]
        assert str(m["From"]) == "Zoë's Studio <hello@studio.example.test>", str(m["From"])
        assert str(m["To"]) == "Ann Lee <ann.lee@example.test>"
        assert str(m["Reply-To"]) == "desk@studio.example.test"
        assert str(m["Subject"]) == "Your visit on Tuesday ✔"
        assert m["MIME-Version"] == "1.0"
        when = email.utils.parsedate_to_datetime(m["Date"])
        assert when.utcoffset().total_seconds() == 0
        message_id = m["Message-ID"]
        # random, and signed by the server for the sub-account (a bounce must name one)
        assert re.fullmatch(r"<[0-9a-f]{24}\.[0-9a-f]{16}@studio\.example\.test>", message_id), message_id
        assert m["In-Reply-To"] is None and m["List-Unsubscribe"] is None
        plain, html = parts(m)
        assert plain.replace("\r\n", "\n") == sent["body"] + "\n", (plain, sent["body"])
        assert "<strong>Bring</strong> a towel — and water." in html and "<li>one</li>" in html
        assert html.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in html
        # The thread shows the same rendering as the one sent, and the inbox
        # its words as the reader sees them.
        assert sent["html"] in html.replace("\r\n", "\n"), (sent["html"], html)
        assert "<strong>Bring</strong>" in sent["html"]
        preview = admin.get("/api/conversations/%d" % conversation, headers=h).json()["last_message_preview"]
        assert preview.startswith("Hi Ann, Bring a towel — and water. one two A line of"), preview
        # Every line of the wire is short and ASCII, each header's too.
        for line in got["raw"].split(b"\r\n"):
            assert len(line) <= 998 and max(line, default=0) < 128, line
        # The Message-ID is the message's reference, which a reply names.
        assert s.sql("SELECT reference FROM messages WHERE id = ?", sent["id"]) == [(message_id,)]

        # The next message of the thread replies to it, with its subject.
        second = send(admin, h, conversation, "And a second thing.")
        assert second["subject"] == "Re: Your visit on Tuesday ✔"
        until_status(admin, h, conversation, second["id"], ("sent",))
        m2 = relay.wait_for(2)[1]["parsed"]
        assert m2["In-Reply-To"] == message_id and m2["References"] == message_id
        third = send(admin, h, conversation, "A third.")
        until_status(admin, h, conversation, third["id"], ("sent",))
        m3 = relay.wait_for(3)[2]["parsed"]
        assert m3["In-Reply-To"] == m2["Message-ID"]
        assert m3["References"].split() == [message_id, m2["Message-ID"]]


def test_merge_fields_are_filled_or_refused_when_written():
    with mailing() as (relay, s, admin, h):
        contact = admin.post("/api/contacts", {"email": "nameless@example.test"}, headers=h).json()
        r = admin.post("/api/conversations", {"contact_id": contact["id"], "channel": "email"},
                       headers=h)
        conversation = r.json()["id"]
        path = "/api/conversations/%d/messages" % conversation
        error(admin.post(path, {"body": "Hi {{contact.first_name}}", "subject": "Hello"}, headers=h),
              422, "has no first_name for {{contact.first_name}}")
        error(admin.post(path, {"body": "Hi {{contact.shoe_size}}", "subject": "Hello"}, headers=h),
              422, "{{contact.shoe_size}} is not a merge field")
        error(admin.post(path, {"body": "Hi {{contact.first_name", "subject": "Hello"}, headers=h),
              422, "not closed")
        error(admin.post(path, {"body": "Hi", "subject": "For {{contact.nickname}}"}, headers=h),
              422, "subject: {{contact.nickname}}")
        assert s.sql("SELECT count(*) FROM messages") == [(0,)]
        sent = send(admin, h, conversation, "Hi {{ contact.first_name | there }}, this is"
                    " {{contact.email}}.", subject="Hello {{contact.first_name|friend}}")
        assert sent["body"] == "Hi there, this is nameless@example.test."
        assert sent["subject"] == "Hello friend"
        until_status(admin, h, conversation, sent["id"], ("sent",))
        assert str(relay.wait_for(1)[0]["parsed"]["Subject"]) == "Hello friend"


def test_the_relays_refusals_retried_or_failed_in_its_own_words():
    with mailing() as (relay, s, admin, h):
        conversation = thread_with(admin, h)
        # 421: tried again after the back-off, and sent once.
        relay.fail("421 4.7.0 Try again later")
        first = send(admin, h, conversation, "One", subject="One")
        until_status(admin, h, conversation, first["id"], ("sent",), 30)
        assert relay.sessions == 2 and len(relay.messages) == 1
        # 550: failed in the relay's words, and never tried again by itself.
        relay.fail("550 5.1.1 <ann.lee@example.test>: Recipient address rejected")
        second = send(admin, h, conversation, "Two")
        failed = until_status(admin, h, conversation, second["id"], ("failed",))
        assert failed["status_reason"] == "550 5.1.1 <ann.lee@example.test>: Recipient address" \
            " rejected", failed
        sessions = relay.sessions
        # Dropped in the middle of DATA: not known to be taken, tried again.
        relay.fail("drop")
        third = send(admin, h, conversation, "Three")
        until_status(admin, h, conversation, third["id"], ("sent",), 30)
        assert relay.sessions == sessions + 2
        assert [str(m["parsed"]["Subject"]) for m in relay.messages] == ["One", "Re: One"]
        assert "Three" in relay.messages[1]["parsed"].get_payload()[0].get_content()


def test_no_header_can_be_written_by_a_user():
    with mailing() as (relay, s, admin, h):
        conversation = thread_with(admin, h)
        sneaky = "Hello\r\nBcc: victim@example.test\r\n\r\nInjected body"
        sent = send(admin, h, conversation, "Body", subject=sneaky)
        until_status(admin, h, conversation, sent["id"], ("sent",))
        (got,) = relay.wait_for(1)
        m = got["parsed"]
        assert m["Bcc"] is None and got["to"] == ["ann.lee@example.test"]
        assert "Bcc: victim" not in got["raw"].decode()
        assert str(m["Subject"]).startswith("Hello  Bcc: victim@example.test"), str(m["Subject"])
        # Nor can markup: the thread's rendering leaves raw HTML and unsafe links out.
        marked = send(admin, h, conversation, "<script>alert(1)</script>\n\n<b onclick=x>hi</b>"
                      " [see](javascript:alert(1)) [ok](https://example.test/)")["html"]
        assert "<script" not in marked and "onclick" not in marked and "javascript:" not in marked
        assert '<a href="https://example.test/">ok</a>' in marked, marked
        # A sender's name or an address with a line break is refused.
        put = lambda body: admin.request("PUT", "/api/email/settings", body, headers=h)
        error(put(dict(SENDER, from_name="Studio\r\nBcc: victim@example.test")), 422, "from_name")
        error(put(dict(SENDER, reply_to="a@example.test\r\nBcc: victim@example.test")), 422,
              "reply_to: not an e-mail address")
        error(put({"from_name": "Studio"}), 422, "from_address: required")
        # An address is one sub-account's: mail that arrives at it goes there.
        other = headers(admin, admin.post("/api/admin/locations", {"name": "Client B"}).json()["id"])
        r = admin.request("PUT", "/api/email/settings", {"from_address": "desk@studio.example.test"},
                          headers=other)
        error(r, 409, "another sub-account sends or takes replies at desk@studio.example.test")
        assert admin.request("PUT", "/api/email/settings", {"from_address": "b@b.example.test"},
                             headers=other).status == 200
        r = admin.post("/api/contacts", {"first_name": "X", "email": "x@example.test\r\nBcc: v@e.test"},
                       headers=h)
        error(r, 422, "email")


def test_without_a_relay_or_a_sender_the_thread_says_why_and_sends_once_set():
    with Relay() as relay:
        s, admin, h = server(None)
        with s:
            assert admin.request("PUT", "/api/email/settings", SENDER, headers=h).status == 200
            conversation = thread_with(admin, h)
            mid = send(admin, h, conversation, "Hello", subject="Hello")["id"]
            waiting = until_status(admin, h, conversation, mid, ("queued",))
            assert wait_for(lambda: (until_status(admin, h, conversation, mid, ("queued",))
                                     ["status_reason"] or "").startswith("no e-mail relay is set up"),
                            10, 0.05)
            assert admin.get("/api/email/settings", headers=h).json()["relay"] is None, waiting
            # The operator sets the relay and starts the server again: what
            # waited leaves, with nothing else asked of anyone.
            s.stop()
            with open(os.path.join(s.plugins_dir, "email.conf"), "w") as f:
                f.write("smtp_url = %s\nsmtp_user = %s\nsmtp_ca_file = %s\n" % (
                    relay.url, relay.user, relay.cert))
            s.env["PGHL_SMTP_PASSWORD"] = relay.password
            s.start()
            admin = s.login(*ADMIN)
            until_status(admin, h, conversation, mid, ("sent",))
            assert len(relay.wait_for(1)) == 1
    with Relay() as relay:
        s, admin, h = server(relay)
        with s:
            conversation = thread_with(admin, h)
            mid = send(admin, h, conversation, "Hello", subject="Hello")["id"]
            assert wait_for(lambda: (until_status(admin, h, conversation, mid, ("queued",))
                                     ["status_reason"] or "").startswith(
                "e-mail is not set up for this sub-account"), 10, 0.05)
            settings = admin.get("/api/email/settings", headers=h).json()
            assert settings["relay"] == relay.url and settings["from_address"] is None
            assert admin.request("PUT", "/api/email/settings", SENDER, headers=h).status == 200
            until_status(admin, h, conversation, mid, ("sent",))
            assert len(relay.wait_for(1)) == 1
            # The relay's password is never answered, nor written to the log.
            assert relay.password not in admin.get("/api/email/settings", headers=h).body.decode()
            assert relay.password not in s.read_log()


def test_the_relay_sees_a_few_connections_used_again_not_one_per_burst():
    """Four sub-accounts' e-mails wait for their sender, 100 each, and
    leave one sub-account's at a time: the relay is logged in to once per
    connection, and the server keeps at most as many as it sends at once
    (32, the core's default for a channel that sets no max_in_flight).
    It closed a few as each burst ended (fewer on their way), and
    opened them again, with a TLS handshake and a login each, for the
    next; a relay that limits how often a client connects refuses that."""
    with Relay() as relay:
        s, admin, h = server(relay, outbox="send_rate = 1000\n")
        with s:
            for n in range(4):
                if n:
                    h = headers(admin, admin.post("/api/admin/locations",
                                                  {"name": "Client %d" % n}).json()["id"])
                conversation = thread_with(admin, h)
                for i in range(100):
                    send(admin, h, conversation, "Offer %d" % i, subject="Offer %d" % i)
                sender = dict(SENDER, from_address="hello%d@studio.example.test" % n,
                              reply_to="desk%d@studio.example.test" % n)
                assert admin.request("PUT", "/api/email/settings", sender, headers=h).status == 200
                assert len(relay.wait_for(100 * (n + 1), 60)) == 100 * (n + 1)
            assert 1 <= relay.logins <= 32, relay.logins


def test_a_test_message_reports_the_relays_answer():
    with mailing() as (relay, s, admin, h):
        r = admin.post("/api/email/tests", {"to": "owner@example.test"}, headers=h)
        assert r.status == 202 and r.json()["status"] == "queued", r.body
        test = r.json()["id"]
        assert wait_for(lambda: admin.get("/api/email/tests/%d" % test, headers=h).json()["status"]
                        == "sent", 20, 0.05)
        (got,) = relay.wait_for(1)
        assert got["to"] == ["owner@example.test"]
        assert str(got["parsed"]["Subject"]) == "A test message from HyperLevel"
        error(admin.post("/api/email/tests", {"to": "nobody"}, headers=h), 422, "to: not an e-mail")
        assert admin.get("/api/email/tests/999", headers=h).status == 404


def test_a_relay_not_proved_or_a_wrong_password_sends_nothing():
    with Relay() as relay:
        for options, words in (({"ca_file": ""}, "certificate"), ({"password": "wrong"}, "535 5.7.8")):
            s, admin, h = server(relay, **options)
            with s:
                assert admin.request("PUT", "/api/email/settings", SENDER, headers=h).status == 200
                r = admin.post("/api/email/tests", {"to": "owner@example.test"}, headers=h)
                test = r.json()["id"]
                done = {}
                assert wait_for(lambda: done.update(admin.get("/api/email/tests/%d" % test,
                                                              headers=h).json())
                                or done["status"] == "failed", 20, 0.05), done
                assert words.lower() in done["reason"].lower(), done
        assert relay.messages == []


# ---- mail that arrives ---------------------------------------------------------

def inbound_key(admin):
    r = admin.post("/api/email/inbound-key", {})
    assert r.status == 201, r.body
    return r.json()["key"]


def deliver(s, key, raw, recipient=None):
    """POST the raw message as an MTA's pipe does: (status, JSON)."""
    import http.client
    c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
    path = "/api/email/inbound" + ("?recipient=" + recipient if recipient else "")
    c.request("POST", path, raw, {"Content-Type": "message/rfc822", "X-Inbound-Key": key})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, (json.loads(body) if body else None)


def thread_of(admin, h, contact_email):
    contacts = admin.get("/api/contacts?q=" + contact_email, headers=h).json()["data"]
    assert len(contacts) == 1, contacts
    (cv,) = admin.get("/api/conversations?contact=%d" % contacts[0]["id"], headers=h).json()["data"]
    return cv, admin.get("/api/conversations/%d/messages" % cv["id"], headers=h).json()["data"]


def test_replies_and_new_mail_arrive_as_each_mail_program_writes_them():
    import mail_samples as ms
    studio = SENDER["from_address"]
    with mailing() as (relay, s, admin, h):
        key = inbound_key(admin)
        assert admin.get("/api/email/settings", headers=h).json()["inbound_key_set"] is True
        conversation = thread_with(admin, h)
        sent = send(admin, h, conversation, "Your plan for March", subject="Your plan")
        until_status(admin, h, conversation, sent["id"], ("sent",))
        ours = relay.wait_for(1)[0]["parsed"]["Message-ID"]

        # Without the key, or with another, nothing is read or kept.
        before = s.sql("SELECT count(*) FROM messages")
        for wrong in ("", "0" * 48, key[:-1]):
            status, body = deliver(s, wrong, ms.wire(ms.gmail_reply("ann.lee@example.test", studio,
                                                                    "x", ours, "x")))
            assert status == 403, (status, body)
        assert s.sql("SELECT count(*) FROM messages") == before

        # Gmail: the reply joins Ann's thread, unread, its quote kept as she sent it.
        reply = ms.gmail_reply("ann.lee@example.test", studio, "Your plan", ours,
                               "Thanks! Can we make it 9:30 — not 9?")
        status, body = deliver(s, key, ms.wire(reply))
        assert status == 201, body
        cv, msgs = thread_of(admin, h, "ann.lee@example.test")
        assert cv["id"] == conversation and cv["unread_count"] == 1
        got = msgs[0]
        assert (got["direction"], got["status"], got["subject"]) == ("inbound", "received", "Re: Your plan")
        assert got["body"].startswith("Thanks! Can we make it 9:30 — not 9?\n\nOn Tue, 8 Dec 2026"), got
        # Our answer to it replies to the reply.
        answer = send(admin, h, conversation, "9:30 it is.")
        assert answer["subject"] == "Re: Your plan"
        until_status(admin, h, conversation, answer["id"], ("sent",))
        m = relay.wait_for(2)[1]["parsed"]
        assert m["In-Reply-To"] == "<CAF=gmail+reply0001@mail.gmail.com>"
        assert m["References"].split() == [ours, "<CAF=gmail+reply0001@mail.gmail.com>"]

        # A colleague answers from her own address: her mail names a message
        # we never saw, then ours; it joins Ann's thread, and she is no contact.
        colleague = ms.gmail_reply("kim.park@example.test", studio, "Your plan", "<elsewhere@example.test>",
                                   "Count me in too.")
        colleague = colleague.replace("reply0001@", "reply0002@").replace(
            "References: <elsewhere@example.test>", "References: %s <elsewhere@example.test>" % ours)
        status, body = deliver(s, key, ms.wire(colleague))
        assert status == 201, body
        cv, msgs = thread_of(admin, h, "ann.lee@example.test")
        assert cv["id"] == conversation and msgs[0]["body"].startswith("Count me in too."), msgs[0]
        assert admin.get("/api/contacts?q=kim.park", headers=h).json()["data"] == []

        # Outlook, base64 in ISO-8859-1, from someone new: a new contact.
        status, body = deliver(s, key, ms.wire(ms.outlook_message(
            "joerg.mueller@example.test", "Jörg Müller", studio, "Anfrage",
            "Grüße aus Köln: haben Sie am Samstag geöffnet?")), recipient=studio)
        assert status == 201, body
        cv, msgs = thread_of(admin, h, "joerg.mueller@example.test")
        assert msgs[0]["body"] == "Grüße aus Köln: haben Sie am Samstag geöffnet?", msgs[0]
        assert s.sql("SELECT source FROM contacts WHERE email = 'joerg.mueller@example.test'") == [("email",)]

        # Apple Mail, an alternative inside a mixed, with a PDF: kept, downloadable.
        pdf = b"%PDF-1.4\n" + bytes(range(256)) * 40 + b"\n%%EOF\n"
        status, body = deliver(s, key, ms.wire(ms.apple_mail_with_attachment(
            "bo.park@example.test", studio, "Signed form", "Here it is. ✍️", "form.pdf", pdf)))
        assert status == 201, body
        cv, msgs = thread_of(admin, h, "bo.park@example.test")
        assert msgs[0]["body"].startswith("Here it is. ✍️"), msgs[0]
        (aid,) = [r[0] for r in s.sql("SELECT id FROM email_attachments WHERE name = 'form.pdf'")]
        assert msgs[0]["attachments"] == [aid] and "Attachment" not in msgs[0]["body"], msgs[0]
        named = admin.get("/api/email/attachments?ids=%d,%d" % (aid, aid + 1000), headers=h).json()
        assert named["data"] == [{"id": aid, "name": "form.pdf", "bytes": len(pdf)}], named
        # Two files: both linked, in their order.
        from email.message import EmailMessage
        two = EmailMessage()
        two["From"], two["To"], two["Subject"] = "Bo Park <bo.park@example.test>", studio, "Two files"
        two.set_content("Both attached.")
        for name, data in (("a.bin", b"one"), ("b.bin", b"two!")):
            two.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
        status, body = deliver(s, key, two.as_bytes())
        assert status == 201, body
        _, msgs = thread_of(admin, h, "bo.park@example.test")
        names = dict(s.sql("SELECT id, name FROM email_attachments WHERE name IN ('a.bin', 'b.bin')"))
        assert [names.get(i) for i in msgs[0]["attachments"]] == ["a.bin", "b.bin"], (msgs[0], names)
        for wrong in ("", "1,,2", "01", "1,", ",".join(["1"] * 101)):
            r = admin.get("/api/email/attachments?ids=" + wrong, headers=h)
            assert r.status == 422 and "ids" in r.json()["error"]["message"], (wrong, r.status)
        r = admin.get("/api/email/attachments/%d" % aid, headers=h)
        assert r.status == 200 and r.body == pdf
        assert r.header("Content-Type").startswith("application/octet-stream")

        # HTML alone: read as text, its script and style left out.
        status, body = deliver(s, key, ms.wire(ms.html_only("cleo@example.test", studio)))
        assert status == 201, body
        _, msgs = thread_of(admin, h, "cleo@example.test")
        assert msgs[0]["body"] == "Yes, I'm interested & free on Friday.\nCleo", msgs[0]

        # Broken MIME is kept, never lost or crashed on.
        status, body = deliver(s, key, ms.wire(ms.BROKEN % studio))
        assert status == 201, body
        _, msgs = thread_of(admin, h, "dee@example.test")
        assert msgs[0]["direction"] == "inbound"

        # Mail to an address no sub-account has is refused, naming it.
        status, body = deliver(s, key, ms.wire(ms.html_only("cleo@example.test", "nobody@example.test")))
        assert status == 404 and "nobody@example.test" in body["error"]["message"], body


def test_a_ten_megabyte_attachment_is_kept_and_one_over_the_limit_is_named():
    import mail_samples as ms
    studio = SENDER["from_address"]
    with Relay() as relay:
        plugins_limit = "attachment_max_mb = 12\n"
        s, admin, h = server(relay)
        s.stop()
        with open(os.path.join(s.plugins_dir, "email.conf"), "a") as f:
            f.write(plugins_limit)
        s.start()
        admin = s.login(*ADMIN)
        with s:
            assert admin.request("PUT", "/api/email/settings", SENDER, headers=h).status == 200
            key = inbound_key(admin)
            big = os.urandom(10 * 1024 * 1024)
            status, body = deliver(s, key, ms.wire(ms.apple_mail_with_attachment(
                "bo.park@example.test", studio, "Video", "The clip.", "clip.mov", big)))
            assert status == 201, body
            (aid,) = [r[0] for r in s.sql("SELECT id FROM email_attachments")]
            assert admin.get("/api/email/attachments/%d" % aid, headers=h).body == big
            bigger = os.urandom(13 * 1024 * 1024)
            status, body = deliver(s, key, ms.wire(ms.apple_mail_with_attachment(
                "bo.park@example.test", studio, "Longer", "The long one.", "long.mov", bigger)))
            assert status == 201, body
            _, msgs = thread_of(admin, h, "bo.park@example.test")
            assert "[Attachment: long.mov, 13312 KB, over the size this server keeps: not kept]" \
                in msgs[0]["body"], msgs[0]["body"]
            assert s.sql("SELECT count(*) FROM email_attachments") == [(1,)]


def test_a_bounce_marks_the_message_bounced_and_the_address_undeliverable():
    import mail_samples as ms
    studio = SENDER["from_address"]
    with mailing() as (relay, s, admin, h):
        key = inbound_key(admin)
        conversation = thread_with(admin, h, "gone@example.test", "Gil", "Gone")
        sent = send(admin, h, conversation, "Your plan", subject="Your plan")
        until_status(admin, h, conversation, sent["id"], ("sent",))
        ours = relay.wait_for(1)[0]["parsed"]["Message-ID"]
        # A bounce naming a message this server did not send changes nothing.
        forged = ours[:26] + ("0" if ours[26] != "0" else "1") + ours[27:]
        for other in (forged, "<someone-else@example.test>"):
            status, body = deliver(s, key, ms.wire(ms.postfix_bounce(studio, "gone@example.test", other)))
            assert status == 200 and body == {"bounce": False}, body
        assert s.sql("SELECT count(*) FROM email_undeliverable") == [(0,)]
        assert until_status(admin, h, conversation, sent["id"], ("sent",))
        # A header's name is any case: "Message-Id", as many servers write it.
        bounce = ms.postfix_bounce(studio, "gone@example.test", ours).replace("\nMessage-ID: <", "\nMessage-Id: <")
        status, body = deliver(s, key, ms.wire(bounce))
        assert status == 200 and body == {"bounce": True}, body
        bounced = until_status(admin, h, conversation, sent["id"], ("bounced",))
        assert bounced["status_reason"] == "550 5.1.1 <gone@example.test>: Recipient address" \
            " rejected: User unknown", bounced
        # The next message to it fails at once, saying why; the relay never sees it.
        again = send(admin, h, conversation, "Are you there?")
        failed = until_status(admin, h, conversation, again["id"], ("failed",))
        assert failed["status_reason"].startswith("gone@example.test takes no mail: an earlier"
                                                  " message bounced"), failed
        assert len(relay.messages) == 1
        # The bounce is not a message from a contact.
        assert s.sql("SELECT count(*) FROM contacts WHERE email LIKE 'MAILER-DAEMON%'") == [(0,)]


def test_a_marketing_message_can_be_unsubscribed_in_one_click_and_says_how():
    import http.client
    import urllib.parse
    with Relay() as relay:
        s, admin, h = server(relay, public=True)
        with s:
            assert admin.request("PUT", "/api/email/settings", SENDER, headers=h).status == 200
            conversation = thread_with(admin, h)
            news = send(admin, h, conversation, "Spring offers **inside**.", subject="Spring",
                        marketing=True)
            until_status(admin, h, conversation, news["id"], ("sent",))
            m = relay.wait_for(1)[0]["parsed"]
            link = m["List-Unsubscribe"].strip("<>")
            assert link.startswith("http://127.0.0.1:%d/api/email/unsubscribe/" % s.port), link
            assert m["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
            plain, html = parts(m)
            assert plain.replace("\r\n", "\n").endswith("--\nUnsubscribe: %s\n" % link), plain
            assert '<a href="%s">Unsubscribe</a>' % link in html

            def call(method, url, body=None):
                u = urllib.parse.urlsplit(url)
                c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
                c.request(method, u.path, body, {"Content-Type": "application/x-www-form-urlencoded"}
                          if body is not None else {})
                r = c.getresponse()
                return r.status, r.read().decode()

            # Following the link changes nothing: its page asks.
            status, page = call("GET", link)
            assert status == 200 and "Stop marketing e-mail to ann.lee@example.test?" in page
            assert '<form method="post">' in page
            assert s.sql("SELECT count(*) FROM message_opt_outs") == [(0,)]
            # A link for another address, or signed otherwise, does nothing.
            base, token = link.rsplit("/", 1)
            address, mac = token.split(".")
            forged = "%s/%s.%s" % (base, "Ym9iQGV4YW1wbGUudGVzdA", mac)
            assert call("POST", forged, "List-Unsubscribe=One-Click")[0] == 404
            assert call("POST", link[:-2] + "AA", "List-Unsubscribe=One-Click")[0] == 404
            assert s.sql("SELECT count(*) FROM message_opt_outs") == [(0,)]
            # The mail program's one click (RFC 8058).
            status, page = call("POST", link, "List-Unsubscribe=One-Click")
            assert status == 200 and "No more marketing e-mail" in page, page
            assert s.sql("SELECT channel, source FROM message_opt_outs") == [("email", "link")]
            error(admin.post("/api/conversations/%d/messages" % conversation,
                             {"body": "More offers", "subject": "Summer"}, headers=h), 422,
                  "opted out of e-mail on")
            # A second click is as good as the first.
            assert call("POST", link, "")[0] == 200


def test_files_attached_to_an_email_leave_with_it():
    with mailing() as (relay, s, admin, h):
        conversation = thread_with(admin, h)
        pdf = b"%PDF-1.4\n" + bytes(range(256)) * 8
        up = lambda name, data, kind="application/pdf": admin.request(
            "POST", "/api/email/files?name=" + name, data, dict(h, **{"Content-Type": kind}))
        r = up("plan.pdf", pdf)
        assert r.status == 201 and r.json()["name"] == "plan.pdf" and r.json()["bytes"] == len(pdf), r.body
        first = r.json()["id"]
        second = up("Gr%C3%BC%C3%9Fe.txt", "Grüße".encode(), "text/plain; charset=utf-8").json()["id"]
        # Ids no one can count to (a user who sees only their own conversations
        # must not name another's file), and that JavaScript reads exactly.
        assert all(1 << 20 < i <= 1 << 52 for i in (first, second)) and abs(first - second) > 1, (first, second)
        error(up("", b"x"), 422, "name")
        error(up("a%2Fb.txt", b"x"), 422, "name")
        error(up("empty.txt", b""), 422, "empty")
        path = "/api/conversations/%d/messages" % conversation
        error(admin.post(path, {"body": "x", "subject": "x", "attachments": "plan.pdf"}, headers=h),
              422, "attachments")
        error(admin.post(path, {"body": "x", "channel": "sms", "attachments": [first]}, headers=h),
              422, "only an e-mail takes files")
        sent = send(admin, h, conversation, "Your plan, and a greeting.", subject="Plan",
                    attachments=[first, second])
        assert sent["attachments"] == [first, second]
        until_status(admin, h, conversation, sent["id"], ("sent",))
        m = relay.wait_for(1)[0]["parsed"]
        assert m.get_content_type() == "multipart/mixed"
        alternative, *files = m.get_payload()
        assert alternative.get_content_type() == "multipart/alternative"
        got = [(f.get_content_type(), f.get_filename(), f.get_content()) for f in files]
        assert got == [
            ("application/pdf", "plan.pdf", pdf), ("text/plain", "Grüße.txt", "Grüße")], got
        # A file no longer kept: the message fails, saying so.
        s.sql("DELETE FROM email_attachments WHERE id = ?", first)
        again = send(admin, h, conversation, "Again", attachments=[first])
        failed = until_status(admin, h, conversation, again["id"], ("failed",))
        assert failed["status_reason"] == "a file attached to it is no longer kept", failed


def link_in(message):
    """The one-time link in a mail's text."""
    text = message["parsed"].get_body(("plain",)).get_content()
    return re.search(r"https?://\S+/link/[A-Za-z0-9_-]+", text).group(0)


def choose_password(s, link, password, confirm=None, site="same-origin", origin="null"):
    """The link's page as a browser without JavaScript uses it: its form
    posted (from the page itself, under its Referrer-Policy no-referrer,
    unless `site` and `origin` say another); the fresh client and the
    answer."""
    path = link.split("/", 3)[3]
    browser = s.client()
    page = browser.get("/" + path)
    assert page.status == 200 and b'name="password"' in page.body, page.body
    form = urllib.parse.urlencode({"password": password, "confirm": confirm or password})
    r = browser.request("POST", "/" + path, body=form.encode(),
                        headers={"Content-Type": "application/x-www-form-urlencoded",
                                 "Sec-Fetch-Site": site, "Origin": origin})
    return browser, r


def mail_waits(s):
    """Every live link's e-mail recorded as waiting, as with a provider
    whose job has not run yet."""
    s.sql("UPDATE account_links SET mail_state = 'waiting', mail_link = 'http://x/'"
          " WHERE used_at IS NULL")


def no_ended_mail_waits(s):
    return s.sql("SELECT id FROM account_links WHERE used_at IS NOT NULL"
                 " AND (mail_state = 'waiting' OR mail_link IS NOT NULL)") == []


def test_accounts_without_email_an_invitation_or_reset_link_is_handed_over_once():
    s = Server(modules=("contacts",))
    s.create_admin(*ADMIN)
    s.start()
    with s:
        admin = s.login(*ADMIN)
        a = admin.post("/api/admin/locations", {"name": "Client A"}).json()["id"]
        r = admin.post("/api/admin/users", {"email": "bo@example.test", "name": "Bo <b>",
                                            "role": "location_user", "location_ids": [a]})
        assert r.status == 201, r.body
        made = r.json()
        invitation = made["invitation"]
        assert made["invited"] is True and invitation["emailed"] is False
        assert "nothing was e-mailed" in invitation["message"]
        assert s.sql("SELECT count(*) FROM account_links WHERE mail_link IS NOT NULL") == [(0,)]
        entry = admin.get("/api/admin/audit?limit=1&action=user.invited").json()["data"][0]
        assert (entry["did"], entry["kind"], entry["label"]) == ("invited", "person", "Bo <b>"), entry
        listed = admin.get("/api/admin/users").json()["data"][-1]
        assert listed["invited"] is True and listed["link"]["mail"] is None, listed
        assert listed["link"]["id"] == invitation["id"] and listed["link"]["kind"] == "invite"
        assert invitation["link"].split("/")[-1] not in json.dumps(listed)
        # Not yet a password anyone can sign in with.
        assert s.client().post("/api/auth/login", {"email": "bo@example.test", "password": "x"}).status == 401
        page = s.client().get(urllib.parse.urlparse(invitation["link"]).path)
        assert b"Bo &lt;b&gt;" in page.body and b"Bo <b>" not in page.body
        assert page.header("Content-Security-Policy").startswith("default-src 'self'")
        assert "style-src 'sha256-" in page.header("Content-Security-Policy")
        assert page.header("Cache-Control") == "no-store" and not page.header("Set-Cookie")
        # Sent again: the first link no longer works, nor is it e-mailed.
        mail_waits(s)
        again = admin.post("/api/admin/users/%d/invitation" % made["id"], {}).json()
        assert no_ended_mail_waits(s)
        _, r = choose_password(s, again["link"], "bo-pass-123", "bo-pass-124")
        assert r.status == 422 and b"differ" in r.body
        # Another site's page may not post the form (and sign the browser
        # in as someone of its choosing).
        for site, origin in (("cross-site", "null"), ("none", "http://evil.example.test")):
            _, r = choose_password(s, again["link"], "bo-evil-123", site=site, origin=origin)
            assert r.status == 403 and b"another site" in r.body and not r.header("Set-Cookie")
        assert s.client().get(urllib.parse.urlparse(invitation["link"]).path).status == 404
        bo, r = choose_password(s, again["link"], "bo-pass-123")
        assert r.status == 303 and r.header("Location") == "/", r.body
        me = bo.get("/api/auth/me").json()
        assert me["user"]["email"] == "bo@example.test" and [l["id"] for l in me["locations"]] == [a]
        assert s.client().get(urllib.parse.urlparse(again["link"]).path).status == 404, "used once"
        assert admin.get("/api/admin/users").json()["data"][-1]["invited"] is False
        error(admin.post("/api/admin/users/%d/invitation" % made["id"], {}), 409, "accepted")
        # An admin's reset link: the old password works until it is used,
        # then every session of the person ends.
        reset = admin.post("/api/admin/users/%d/reset-link" % made["id"], {}).json()
        assert reset["emailed"] is False
        s.login("bo@example.test", "bo-pass-123")
        mail_waits(s)
        _, r = choose_password(s, reset["link"], "bo-new-pass-1")
        assert r.status == 303 and no_ended_mail_waits(s)
        assert bo.get("/api/auth/me").status == 401
        assert s.client().post("/api/auth/login", {"email": "bo@example.test",
                                                    "password": "bo-pass-123"}).status == 401
        s.login("bo@example.test", "bo-new-pass-1")
        entry = admin.get("/api/admin/audit?limit=1&action=password.reset").json()["data"][0]
        assert (entry["who"], entry["did"], entry["label"]) == ("Bo <b>", "chose a new password by link", None)
        # A password the admin sets ends the links made before.
        stale = admin.post("/api/admin/users/%d/reset-link" % made["id"], {}).json()
        mail_waits(s)
        assert admin.post("/api/admin/users/%d/password" % made["id"], {"password": "bo-set-pass-1"}).status == 204
        assert no_ended_mail_waits(s)
        assert s.client().get(urllib.parse.urlparse(stale["link"]).path).status == 404
        # A revoked invitation: its link ends and the person is disabled.
        cy = admin.post("/api/admin/users", {"email": "cy@example.test", "name": "Cy",
                                             "role": "agency_user"}).json()
        csrf = {"X-CSRF-Token": admin.get("/api/auth/me").json()["csrf_token"]}
        mail_waits(s)
        assert admin.request("DELETE", "/api/admin/users/%d/invitation" % cy["id"],
                             headers=csrf).status == 204
        assert no_ended_mail_waits(s)
        assert s.client().get(urllib.parse.urlparse(cy["invitation"]["link"]).path).status == 404
        assert admin.get("/api/admin/users").json()["data"][-1]["disabled_at"]
        # Forgot password with no e-mail: the same words, nothing made.
        known = s.client().post("/api/auth/forgot", {"email": "bo@example.test"})
        unknown = s.client().post("/api/auth/forgot", {"email": "nobody@example.test"})
        assert known.status == unknown.status == 202 and known.json() == unknown.json()
        assert s.sql("SELECT count(*) FROM account_links WHERE used_at IS NULL") == [(0,)]


def test_accounts_invitations_and_forgotten_passwords_are_emailed_with_a_one_time_link():
    with mailing(public=True) as (relay, s, admin, h):
        a = admin.get("/api/admin/locations").json()["data"][0]["id"]
        made = admin.post("/api/admin/users", {"email": "di@example.test", "name": "Di Ruiz",
                                               "role": "location_admin", "location_ids": [a]}).json()
        assert made["invitation"]["emailed"] is True
        assert "being sent to di@example.test" in made["invitation"]["message"]
        (mail,) = relay.wait_for(1)
        assert mail["to"] == ["di@example.test"] and mail["from"] == SENDER["from_address"]
        assert "invited" in str(mail["parsed"]["Subject"])
        link = link_in(mail)
        assert link == made["invitation"]["link"]
        assert s.sql("SELECT count(*) FROM account_links WHERE mail_link IS NOT NULL") == [(0,)]
        assert wait_for(lambda: admin.get("/api/admin/users").json()["data"][-1]["link"]["mail"]
                        == "sent")
        di, r = choose_password(s, link, "di-pass-123")
        assert r.status == 303 and di.get("/api/auth/me").json()["user"]["name"] == "Di Ruiz"
        # Forgot password: the same answer for a known and an unknown
        # address; only the known one gets a mail, with a link for an hour.
        known = s.client().post("/api/auth/forgot", {"email": "DI@example.test"})
        unknown = s.client().post("/api/auth/forgot", {"email": "nobody@example.test"})
        assert known.status == unknown.status == 202 and known.body == unknown.body
        (_, reset) = relay.wait_for(2)
        assert reset["to"] == ["di@example.test"]
        (left,) = s.sql("SELECT expires_at - strftime('%s','now') FROM account_links"
                        " ORDER BY id DESC LIMIT 1")[0]
        assert 3500 < left <= 3600
        _, r = choose_password(s, link_in(reset), "di-new-pass-1")
        assert r.status == 303 and di.get("/api/auth/me").status == 401
        # A link ended while its mail waited (as before it was cleared) is
        # never sent, with or without its text.
        s.sql("INSERT INTO account_links (token_hash, user_id, kind, expires_at, used_at,"
              " mail_state, mail_link) SELECT randomblob(32), user_id, 'invite', expires_at,"
              " '2026-01-01T00:00:00Z', 'waiting', NULL FROM account_links LIMIT 1")
        # Three a quarter-hour per address; then the same words, no mail.
        # (Each waits for the one before to leave: a newer link ends an
        # older one whose mail still waits, and that mail never goes.)
        for mails in (3, 4, None):
            assert s.client().post("/api/auth/forgot", {"email": "di@example.test"}).status == 202
            if mails:
                relay.wait_for(mails)
        assert not any(b"(null)" in m["raw"] for m in relay.messages)
        assert s.sql("SELECT mail_state FROM account_links WHERE used_at = '2026-01-01T00:00:00Z'") \
            == [("waiting",)]
        assert s.sql("SELECT count(*) FROM account_links WHERE kind = 'reset'") == [(3,)]
