# SPDX-License-Identifier: MIT
"""The WAL copied back into the database as the server runs: under a
steady stream of writes from several clients at once (messages queued
in four conversations while the outbox puts each aside to wait for its
channel) the WAL file stays near its restart size, however much is
written. Before the checkpointer read the database as it opened, its
checkpoints did nothing here, and the file held every page written since
the start: 247 MB after these 4,000 messages."""

import os
import threading

from harness import ADMIN, agency, headers

MESSAGES = 4000
WORKERS = 4
# The checkpointer lets the WAL reach 4,000 pages (16 MB) before it copies
# the rest between two writes; a commit or two more may follow, and the
# jobs write beside the requests (a line on the contact's timeline for
# each message), so on a loaded machine the copy may start a little late.
MOST_MB = 32


def test_the_wal_stays_small_under_steady_writes():
    s, admin, (location,) = agency(modules=("contacts", "conversations"), env={"PGHL_BACKUPS": "0"})
    with s:
        h = headers(admin, location)
        conversations = []
        for i in range(WORKERS):
            contact = admin.post("/api/contacts", {"first_name": "Kai %d" % i,
                                                   "email": "kai%d@example.test" % i},
                                 headers=h).json()["id"]
            conversations.append(admin.post("/api/conversations", {
                "contact_id": contact, "channel": "email"}, headers=h).json()["id"])
        failures = []

        def write(k):
            client = s.login(*ADMIN)
            for i in range(k, MESSAGES, WORKERS):
                r = client.post("/api/conversations/%d/messages" % conversations[k],
                                {"subject": "Offer %d" % i, "body": "20% off, *this* weekend"},
                                headers=h)
                if r.status != 201:
                    failures.append((i, r.status))
        threads = [threading.Thread(target=write, args=(k,)) for k in range(WORKERS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not failures, failures[:5]
        wal_mb = os.path.getsize(s.db_path + "-wal") / 1e6
        assert wal_mb < MOST_MB, "the WAL holds %.0f MB after %d messages" % (wal_mb, MESSAGES)
        assert s.sql("SELECT count(*) FROM messages")[0][0] == MESSAGES
