# SPDX-License-Identifier: MIT
"""The outbox's promise under kill -9: 2,000 texts queued, then the server
killed at random moments while it sends them, ten times, and started
again each time. Twilio's double must hold each text at most once, and
in the end every text is sent (or delivered), or shown as unknown, for a
person to look at: none lost, none still queued, none sent twice."""

import collections
import random
import time

from harness import ADMIN, Server, headers, wait_for
from twilio_double import TwilioDouble

SID = "AC" + "5" * 32
TOKEN = "9" * 32
TEXTS = 2000
KILLS = 10


def test_kill_9_while_sending_never_sends_a_text_twice_nor_loses_one():
    rng = random.Random(46)
    with TwilioDouble({SID: TOKEN}) as double:
        s = Server(modules=("contacts", "conversations", "sms"),
                   plugins={"conversations": "send_rate = 100000\nretry_first_s = 1\n",
                            "sms": "twilio_base_url = %s\n" % double.url},
                   env={"PGHL_BACKUPS": "0"})
        with s:
            s.create_admin(*ADMIN)
            s.start()
            admin = s.login(*ADMIN)
            location = admin.post("/api/admin/locations", {"name": "Client A"}).json()["id"]
            h = headers(admin, location)
            contact = admin.post("/api/contacts", {"first_name": "Kai", "phone": "+15550102000"},
                                 headers=h).json()["id"]
            conversation = admin.post("/api/conversations", {"contact_id": contact, "channel": "sms"},
                                      headers=h).json()["id"]
            # Queued while the sub-account has no account: they wait, then
            # go all at once when it is set.
            for i in range(TEXTS):
                r = admin.post("/api/conversations/%d/messages" % conversation,
                               {"body": "text %d" % i}, headers=h)
                assert r.status == 201, r.body
            r = admin.request("PUT", "/api/sms/settings", {"account_sid": SID, "auth_token": TOKEN,
                                                           "from_number": "+15550100000"}, headers=h)
            assert r.status == 200, r.body

            kills = 0
            for _ in range(KILLS):
                # a moment while texts are on their way (a start sends from its
                # first slices, a second in)
                time.sleep(rng.uniform(0.9, 1.6))
                s.kill()
                kills += 1
                s.start()
            assert kills == KILLS

            def settled():
                left = s.sql("SELECT count(*) FROM messages WHERE direction = 'outbound'"
                             " AND status IN ('queued', 'sending')")[0][0]
                return left == 0
            assert wait_for(settled, 120, 0.2), s.sql("SELECT status, count(*) FROM messages"
                                                      " GROUP BY 1")
            statuses = dict(s.sql("SELECT status, count(*) FROM messages GROUP BY 1"))
            kept = collections.Counter(m["form"]["Body"] for m in double.messages)
            twice = [body for body, n in kept.items() if n > 1]
            assert not twice, twice[:10]
            assert sum(statuses.values()) == TEXTS
            assert set(statuses) <= {"sent", "delivered", "unknown"}, statuses
            # Every text Twilio holds is one the server wrote, and every
            # text it does not hold is one the server says it may not have
            # sent.
            sent = {r[0] for r in s.sql("SELECT body FROM messages WHERE status IN ('sent', 'delivered')")}
            assert sent <= set(kept), sorted(sent - set(kept))[:10]
            unknown = statuses.get("unknown", 0)
            assert len(kept) >= TEXTS - unknown
            print("   %d texts, %d kills: %d sent once, %d shown unknown (%d of those had left)"
                  % (TEXTS, KILLS, len(sent), unknown, len(kept) - len(sent)))
