# SPDX-License-Identifier: MIT
"""Texts really leave: a message written in a conversation goes out
through the sms module to a local double of Twilio's API, with the
sub-account's own account, and its status moves from queued to sent, with
Twilio's id of it. Until the sub-account has an account the text waits
and says why; without a provider at all, the thread says that. Twilio's
temporary failures (5xx, 429) are tried again and the text is sent once;
its refusals fail at once, with its words, and a person may retry. A text
on its way when the server is killed is shown as unknown, never sent
again blindly. The auth token is never answered back."""

import contextlib
import time

from harness import ADMIN, Server, error, headers, wait_for
from twilio_double import INVALID_NUMBER, TwilioDouble, post_signed

SID = "AC" + "0123456789abcdef" * 2
TOKEN = "f" * 32
FROM = "+15550100000"
MODULES = ("contacts", "conversations", "sms")


def server(double, modules=MODULES, outbox=""):
    """A server whose sms module talks to `double`, trying again after a
    second (and the conversations module's `outbox` settings), reached at
    its public_url by the double's callbacks; its admin's client, the
    headers of sub-account A's writes."""
    plugins = {"conversations": "retry_first_s = 1\n" + outbox}
    if double:
        plugins["sms"] = "twilio_base_url = %s\n" % double.url
    s = Server(modules=modules, plugins=plugins)
    s.env["PGHL_PUBLIC_URL"] = "http://127.0.0.1:%d/" % s.port
    s.create_admin(*ADMIN)
    s.start()
    admin = s.login(*ADMIN)
    location = admin.post("/api/admin/locations", {"name": "Client A"}).json()["id"]
    return s, admin, headers(admin, location)


def hook(s, h, kind):
    return "http://127.0.0.1:%d/api/sms/twilio/%s/%s" % (s.port, h["X-Location-Id"], kind)


def set_up_account(admin, h, **change):
    body = dict({"account_sid": SID, "auth_token": TOKEN, "from_number": FROM}, **change)
    r = admin.request("PUT", "/api/sms/settings", body, headers=h)
    assert r.status == 200, r.body
    return r.json()


@contextlib.contextmanager
def texting():
    """A server, its double and the sub-account's Twilio account set:
    (double, server, admin's client, headers)."""
    with TwilioDouble({SID: TOKEN}) as double:
        s, admin, h = server(double)
        with s:
            set_up_account(admin, h)
            yield double, s, admin, h


def thread_with(admin, h, phone="+1 (555) 010-2000"):
    contact = admin.post("/api/contacts", {"first_name": "Wren", "phone": phone}, headers=h).json()
    r = admin.post("/api/conversations", {"contact_id": contact["id"], "channel": "sms"}, headers=h)
    assert r.status == 201, r.body
    return r.json()["id"]


def send(admin, h, conversation, body):
    r = admin.post("/api/conversations/%d/messages" % conversation, {"body": body}, headers=h)
    assert r.status == 201, r.body
    assert r.json()["status"] == "queued"
    return r.json()["id"]


def message(admin, h, conversation, mid):
    rows = admin.get("/api/conversations/%d/messages" % conversation, headers=h).json()["data"]
    return next(m for m in rows if m["id"] == mid)


# A text Twilio took: its delivery report may already have come back.
LEFT = ("sent", "delivered")


def until_status(admin, h, conversation, mid, status, seconds=20):
    """Waits for the message to reach `status`, a word or a tuple of them."""
    wanted = (status,) if isinstance(status, str) else status
    seen = {}

    def reached():
        seen.update(message(admin, h, conversation, mid))
        return seen["status"] in wanted
    assert wait_for(reached, seconds, 0.05), seen
    return seen


def test_a_text_leaves_with_the_sub_accounts_account_once_it_has_one():
    with TwilioDouble({SID: TOKEN}) as double:
        s, admin, h = server(double)
        with s:
            conversation = thread_with(admin, h)
            mid = send(admin, h, conversation, "Your visit is on Tuesday at 3 — reply C to confirm")
            waiting = until_status(admin, h, conversation, mid, "queued")
            assert wait_for(lambda: (message(admin, h, conversation, mid)["status_reason"] or "")
                            .startswith("SMS is not set up for this sub-account"), 10, 0.05)
            assert double.requests == 0, waiting

            assert channels(admin, h)["sms"] == ("SMS", "sms")
            assert channels(admin, h)["email"] == ("e-mail", None)
            settings = set_up_account(admin, h)
            assert settings["auth_token_set"] is True and settings["from_number"] == FROM
            sent = until_status(admin, h, conversation, mid, LEFT)
            assert sent["status_reason"] is None
            (text,) = double.wait_for(1)
            assert text["account_sid"] == SID
            assert text["form"] == {"To": "+15550102000", "From": FROM,
                                    "Body": "Your visit is on Tuesday at 3 — reply C to confirm",
                                    "StatusCallback": hook(s, h, "status")}
            # Twilio's delivery report, signed, moves it on.
            until_status(admin, h, conversation, mid, "delivered")
            assert text["callbacks"] == [("sent", 204), ("delivered", 204)]
            # Twilio's id of it is kept, for its status callbacks.
            assert s.sql("SELECT reference FROM messages WHERE id = ?", mid)[0][0] == text["sid"]

            # The token is never answered back, nor written to the log.
            got = admin.get("/api/sms/settings", headers=h)
            assert got.status == 200 and TOKEN not in got.body.decode()
            assert got.json()["auth_token_set"] is True
            assert got.json()["inbound_url"] == hook(s, h, "inbound")
            assert TOKEN not in s.read_log()


def test_settings_are_checked_and_kept_from_other_users():
    with TwilioDouble({SID: TOKEN}) as double:
        s, admin, h = server(double)
        with s:
            put = lambda body: admin.request("PUT", "/api/sms/settings", body, headers=h)
            error(put({"auth_token": TOKEN, "from_number": FROM}), 422, "account SID")
            error(put({"account_sid": SID, "auth_token": TOKEN}), 422, "either the number")
            error(put({"account_sid": SID, "auth_token": TOKEN, "from_number": FROM,
                       "messaging_service_sid": "MG" + "0" * 32}), 422, "one of the two")
            error(put({"account_sid": SID, "auth_token": TOKEN, "from_number": "call me"}), 422,
                  "not a phone number")
            error(put({"account_sid": SID, "from_number": FROM}), 422, "required the first time")
            error(put({"account_sid": "AC/../x", "auth_token": TOKEN, "from_number": FROM}), 422,
                  "account SID")
            assert admin.get("/api/sms/settings", headers=h).json()["account_sid"] is None
            set_up_account(admin, h)
            # A change without the token keeps it.
            changed = set_up_account(admin, h, auth_token=None, from_number=None,
                                     messaging_service_sid="MG" + "1" * 32)
            assert changed["messaging_service_sid"] == "MG" + "1" * 32 and changed["from_number"] is None
            assert s.sql("SELECT auth_token FROM sms_accounts")[0][0] == TOKEN
            user = {"email": "sam@example.test", "name": "Sam", "password": "sam-pass-123",
                    "role": "location_user", "location_ids": [int(h["X-Location-Id"])]}
            assert admin.post("/api/admin/users", user).status == 201
            sam = s.login(user["email"], user["password"])
            assert sam.get("/api/sms/settings", headers=headers(sam, int(h["X-Location-Id"]))).status == 403


def test_temporary_failures_are_tried_again_and_the_text_sent_once():
    with texting() as (double, s, admin, h):
        conversation = thread_with(admin, h)
        double.fail(503, message="Service Unavailable")
        double.fail(429, 20429, "Too Many Requests", retry_after=1)
        mid = send(admin, h, conversation, "Running ten minutes late")
        sent = until_status(admin, h, conversation, mid, LEFT, 30)
        assert double.requests == 3, double.requests
        assert len(double.wait_for(1)) == 1
        assert s.sql("SELECT count(*) FROM outbox")[0][0] == 0, sent


def test_a_refused_text_fails_with_twilios_words_and_a_retry_sends_it_again():
    with texting() as (double, s, admin, h):
        conversation = thread_with(admin, h, phone=INVALID_NUMBER)
        mid = send(admin, h, conversation, "Hello")
        failed = until_status(admin, h, conversation, mid, "failed")
        assert "21211" in failed["status_reason"] and "not a valid phone number" in \
            failed["status_reason"], failed
        time.sleep(1.5)  # past the first back-off: nothing is tried again by itself
        assert double.requests == 1
        r = admin.post("/api/conversations/%d/messages/%d/retry" % (conversation, mid), {},
                       headers=h)
        assert r.status == 200 and r.json()["status"] == "queued", r.body
        until_status(admin, h, conversation, mid, "failed")
        assert double.requests == 2
        # Only a failed or unknown text can be sent again.
        other = thread_with(admin, h)
        ok = send(admin, h, other, "Fine")
        until_status(admin, h, other, ok, LEFT)
        error(admin.post("/api/conversations/%d/messages/%d/retry" % (other, ok), {}, headers=h),
              409, "only a message that failed")
        error(admin.post("/api/conversations/%d/messages/%d/retry" % (other, mid), {}, headers=h),
              404, "no such message")


def test_wrong_credentials_fail_with_twilios_answer():
    with TwilioDouble({SID: TOKEN}) as double:
        s, admin, h = server(double)
        with s:
            set_up_account(admin, h, auth_token="0" * 32)
            conversation = thread_with(admin, h)
            mid = send(admin, h, conversation, "Hello")
            failed = until_status(admin, h, conversation, mid, "failed")
            assert failed["status_reason"] == "Twilio error 20003: Authenticate", failed


def test_a_test_text_reports_the_providers_answer():
    with texting() as (double, s, admin, h):
        def tried(to):
            r = admin.post("/api/sms/tests", {"to": to}, headers=h)
            assert r.status == 202 and r.json()["status"] == "queued", r.body
            path = "/api/sms/tests/%d" % r.json()["id"]
            assert wait_for(lambda: admin.get(path, headers=h).json()["status"] in ("sent", "failed"), 20, 0.05)
            return admin.get(path, headers=h).json()

        got = tried("(555) 010-2000")  # read as the sub-account's country writes it
        assert (got["status"], got["to"], got["reason"]) == ("sent", "+15550102000", None), got
        (text,) = double.wait_for(1)
        assert text["form"]["To"] == "+15550102000" and text["form"]["From"] == FROM
        assert text["form"]["Body"].startswith("A test text from HyperLevel"), text
        got = tried(INVALID_NUMBER)
        assert got["status"] == "failed" and "is not a valid phone number" in got["reason"], got
        for wrong in ({"to": "12"}, {"to": ""}, {}, {"to": "+15550102000", "body": "x"}):
            r = admin.post("/api/sms/tests", wrong, headers=h)
            assert r.status == 422, (wrong, r.status, r.body)
        assert s.sql("SELECT count(*) FROM messages") == [(0,)]


def channels(admin, h):
    r = admin.get("/api/channels", headers=h)
    assert r.status == 200, r.body
    return {c["channel"]: (c["label"], c["provider"]) for c in r.json()["data"]}


def test_each_sub_account_sends_at_its_rate_and_one_clients_blast_does_not_hold_up_another():
    rate, blast = 10, 40
    with TwilioDouble({SID: TOKEN}) as double:
        s, admin, a = server(double, outbox="send_rate = %d\n" % rate)
        with s:
            b = headers(admin, admin.post("/api/admin/locations", {"name": "Client B"}).json()["id"])
            set_up_account(admin, b)
            b_thread = thread_with(admin, b)
            # A's blast waits for its account, then goes at once.
            a_thread = thread_with(admin, a)
            for i in range(blast):
                send(admin, a, a_thread, "Spring sale %d" % i)
            set_up_account(admin, a)
            double.wait_for(1)
            b_mid = send(admin, b, b_thread, "Your table is ready")
            until_status(admin, b, b_thread, b_mid, LEFT)
            texts = double.wait_for(blast + 1, 60)
            a_times = sorted(t["at"] for t in texts if t["form"]["Body"].startswith("Spring sale"))
            b_at = next(t["at"] for t in texts if t["form"]["Body"] == "Your table is ready")
            # B's text did not wait for A's blast to be gone ...
            assert b_at < a_times[-1], (b_at, a_times)
            # ... which left at A's rate: a second's worth at once, then
            # `rate` a second, never faster.
            assert a_times[-1] - a_times[0] >= (blast - 2 * rate) / rate, a_times
            assert max(sum(1 for t in a_times if t0 <= t < t0 + 1) for t0 in a_times) <= 2 * rate


def test_without_a_provider_the_thread_says_so():
    s, admin, h = server(None, modules=("contacts", "conversations"))
    with s:
        assert channels(admin, h)["sms"] == ("SMS", None)
        conversation = thread_with(admin, h)
        mid = send(admin, h, conversation, "Hello")
        assert wait_for(lambda: message(admin, h, conversation, mid)["status_reason"] ==
                        "no SMS provider is set up", 10, 0.05)
        assert message(admin, h, conversation, mid)["status"] == "queued"


def test_a_text_on_its_way_at_a_crash_is_shown_unknown_and_never_sent_again_by_itself():
    with texting() as (double, s, admin, h):
        conversation = thread_with(admin, h)
        double.hold()
        mid = send(admin, h, conversation, "Are you free on Friday?")
        assert double.arrived.wait(20)
        assert s.sql("SELECT status FROM messages WHERE id = ?", mid)[0][0] == "sending"
        s.kill()
        double.release()
        s.start()
        admin = s.login("admin@example.test", "admin-pass-1")
        h = headers(admin, int(h["X-Location-Id"]))
        unknown = until_status(admin, h, conversation, mid, "unknown")
        assert "may or may not have left" in unknown["status_reason"]
        time.sleep(1.5)
        assert double.requests == 1
        r = admin.post("/api/conversations/%d/messages/%d/retry" % (conversation, mid), {},
                       headers=h)
        assert r.status == 200, r.body
        until_status(admin, h, conversation, mid, LEFT)
        assert double.requests == 2


def inbound(s, h, body, sender="+15550102000", token=TOKEN, **change):
    params = dict({"MessageSid": "SM" + "ab" * 16, "AccountSid": SID, "From": sender, "To": FROM,
                   "Body": body, "NumMedia": "0"}, **change)
    return post_signed(hook(s, h, "inbound"), params, token)


def test_a_text_received_joins_the_senders_thread_and_a_new_sender_becomes_a_contact():
    with texting() as (double, s, admin, h):
        # Typed as people at home write it; Twilio gives it in E.164.
        conversation = thread_with(admin, h, phone="(555) 010-2000")
        status, body = inbound(s, h, "Can we move it to 4?")
        assert status == 200 and body.endswith("<Response></Response>"), body
        assert s.sql("SELECT phone FROM contacts") == [("+15550102000",)]
        got = admin.get("/api/conversations/%d/messages" % conversation, headers=h).json()["data"][0]
        assert (got["direction"], got["status"], got["body"]) == ("inbound", "received",
                                                                  "Can we move it to 4?")
        record = admin.get("/api/conversations/%d" % conversation, headers=h).json()
        assert record["unread_count"] == 1 and record["last_message_preview"] == "Can we move it to 4?"

        status, _ = inbound(s, h, "Hi, is this the dentist?", sender="+1 555 010 9999")
        assert status == 200
        (new,) = s.sql("SELECT id, phone, source FROM contacts WHERE phone = '+15550109999'")
        assert new[2] == "sms"
        (opened,) = admin.get("/api/conversations?contact=%d" % new[0], headers=h).json()["data"]
        assert (opened["channel"], opened["last_message_preview"]) == ("sms", "Hi, is this the dentist?")
        # found by search, as any contact added
        found = admin.get("/api/contacts?q=5550109999", headers=h).json()["data"]
        assert [c["id"] for c in found] == [new[0]]


def test_hooks_without_twilios_signature_are_refused_and_change_nothing():
    with texting() as (double, s, admin, h):
        before = s.sql("SELECT count(*) FROM messages")[0][0]
        url = hook(s, h, "inbound")
        params = {"MessageSid": "SM1", "From": "+15550102000", "To": FROM, "Body": "hello"}
        for status, _ in (inbound(s, h, "hello", token="0" * 32),
                          post_signed(url, params, TOKEN, sign=False),
                          post_signed(url.replace("/%s/" % h["X-Location-Id"], "/999/"), params, TOKEN)):
            assert status in (403, 404), status
        # signed, then changed on the way
        from twilio_double import signature
        import urllib.parse
        import urllib.request
        bad = urllib.request.Request(url, urllib.parse.urlencode(dict(params, Body="STOP")).encode(),
                                     {"X-Twilio-Signature": signature(TOKEN, url, params),
                                      "Content-Type": "application/x-www-form-urlencoded"})
        try:
            urllib.request.urlopen(bad, timeout=10)
            raise AssertionError("a changed form was taken")
        except urllib.error.HTTPError as e:
            assert e.code == 403
        status, _ = post_signed(hook(s, h, "status"), {"MessageSid": "SM1", "MessageStatus": "delivered"},
                                "0" * 32)
        assert status == 403
        assert s.sql("SELECT count(*) FROM messages")[0][0] == before
        assert s.sql("SELECT count(*) FROM message_opt_outs")[0][0] == 0


def test_stop_opts_the_contact_out_of_texts_and_start_back_in():
    with texting() as (double, s, admin, h):
        conversation = thread_with(admin, h, phone="+15550102000")
        contact = admin.get("/api/conversations/%d" % conversation, headers=h).json()["contact_id"]
        assert inbound(s, h, "Please stop by the office tomorrow")[0] == 200
        assert admin.get("/api/conversations/%d" % conversation, headers=h).json()["opted_out"] is False
        assert inbound(s, h, "  stop ")[0] == 200
        assert admin.get("/api/conversations/%d" % conversation, headers=h).json()["opted_out"] is True
        r = admin.post("/api/conversations/%d/messages" % conversation, {"body": "Last chance!"}, headers=h)
        error(r, 422, "the contact opted out of SMS on")
        assert r.json()["error"]["message"].startswith("channel:") and "replying STOP" in r.body.decode()
        assert [o["channel"] for o in admin.get("/api/opt-outs?contact=%d" % contact,
                                                headers=h).json()["data"]] == ["sms"]
        assert inbound(s, h, "START")[0] == 200
        send(admin, h, conversation, "Welcome back")
        # a person's note of it, and taken back
        r = admin.post("/api/opt-outs", {"contact_id": contact, "channel": "sms"}, headers=h)
        assert r.status == 204, r.body
        error(admin.post("/api/conversations/%d/messages" % conversation, {"body": "x"}, headers=h),
              422, "opted out of SMS")
        error(admin.post("/api/opt-outs", {"contact_id": contact, "channel": "fax"}, headers=h), 422,
              "channel")
        assert admin.delete("/api/opt-outs/%d/sms" % contact, headers=h).status == 204
        send(admin, h, conversation, "Hello again")


def test_a_delivery_report_before_the_send_is_answered_is_kept_for_it():
    with texting() as (double, s, admin, h):
        conversation = thread_with(admin, h)
        double.report_first = True  # Twilio's callbacks race its own answer
        mid = send(admin, h, conversation, "See you at noon")
        (text,) = double.wait_for(1)
        until_status(admin, h, conversation, mid, "delivered")
        assert text["callbacks"] == [("sent", 204), ("delivered", 204)]
        assert s.sql("SELECT count(*) FROM message_early_reports")[0][0] == 0


def test_marketing_texts_wait_for_the_quiet_hours_and_replies_do_not():
    with texting() as (double, s, admin, h):
        assert admin.get("/api/quiet-hours", headers=h).json() == {"from": "21:00", "until": "08:00"}
        # Quiet from an hour ago to an hour from now, in the
        # sub-account's zone (UTC here).
        now = time.gmtime()
        minute = now.tm_hour * 60 + now.tm_min
        at = lambda m: "%02d:%02d" % ((m % 1440) // 60, m % 60)
        quiet = {"from": at(minute - 60), "until": at(minute + 60)}
        r = admin.request("PUT", "/api/quiet-hours", quiet, headers=h)
        assert r.status == 200 and r.json() == quiet, r.body
        conversation = thread_with(admin, h)
        r = admin.post("/api/conversations/%d/messages" % conversation,
                       {"body": "20% off this weekend", "marketing": True}, headers=h)
        assert r.status == 201, r.body
        held = r.json()["id"]
        reply = send(admin, h, conversation, "Yes, we open at 9")
        until_status(admin, h, conversation, reply, LEFT)
        assert wait_for(lambda: message(admin, h, conversation, held)["status_reason"] ==
                        "a marketing text, held for the quiet hours until " + quiet["until"], 10, 0.05)
        assert [m["form"]["Body"] for m in double.messages] == ["Yes, we open at 9"]
        # No quiet hours: it goes.
        r = admin.request("PUT", "/api/quiet-hours", {"from": None, "until": None}, headers=h)
        assert r.status == 200 and r.json() == {"from": None, "until": None}, r.body
        until_status(admin, h, conversation, held, LEFT)
        error(admin.request("PUT", "/api/quiet-hours", {"from": "25:00", "until": "08:00"}, headers=h),
              422, "a time of day")
        error(admin.request("PUT", "/api/quiet-hours", {"from": "21:00"}, headers=h), 422, "both times")


def test_an_undelivered_text_retried_is_not_touched_by_reports_on_its_first_try():
    with texting() as (double, s, admin, h):
        conversation = thread_with(admin, h)
        double.callbacks = False  # this test says what Twilio reports
        mid = send(admin, h, conversation, "Your code is 4711")
        until_status(admin, h, conversation, mid, "sent")
        first = double.wait_for(1)[0]["sid"]
        # The carrier gives up after all: Twilio says so.
        report = lambda status, sid: post_signed(hook(s, h, "status"), {
            "MessageSid": sid, "MessageStatus": status, "ErrorCode": "30003", "AccountSid": SID}, TOKEN)
        assert report("undelivered", first)[0] == 204
        failed = until_status(admin, h, conversation, mid, "failed")
        assert failed["status_reason"] == "Twilio: undelivered, error 30003", failed
        r = admin.post("/api/conversations/%d/messages/%d/retry" % (conversation, mid), {}, headers=h)
        assert r.status == 200, r.body
        until_status(admin, h, conversation, mid, "sent")
        second = double.wait_for(2)[1]["sid"]
        assert second != first
        # A late word on the first try reaches nothing; the second's does.
        assert report("failed", first)[0] == 204
        assert message(admin, h, conversation, mid)["status"] == "sent"
        assert report("delivered", second)[0] == 204
        until_status(admin, h, conversation, mid, "delivered")
        assert report("undelivered", second)[0] == 204  # never undone
        assert message(admin, h, conversation, mid)["status"] == "delivered"
