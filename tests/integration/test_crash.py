# SPDX-License-Identifier: MIT
"""Crash consistency: a write-heavy load (contacts created, tagged and
deleted, deals moved and closed, messages sent, tasks opened and
completed, a CSV import running as a job) is cut by SIGKILL at a random
moment, ten times, on one seeded data folder. After each restart the file passes SQLite's
integrity and foreign key checks, every count a trigger keeps equals the
same count made from the rows, every write the server answered 2xx is
there as answered (a write cut before its answer may or may not be), and
each import goes on where it stopped, without a row written twice, to
the end. The random choices come from one seed, printed, and taken from
HL_CRASH_SEED to replay a failure."""

import http.client
import os
import random
import sqlite3
import threading
import time

import harness
from harness import headers, seeded_server


CYCLES = 10
# About 700 KB: a job of many slices. A quarter under the sanitizers,
# which import several times slower: still many slices, and the imports
# end within finish()'s five minutes beside the rest of the suite.
IMPORT_ROWS = 5000 if harness.SANITIZED else 20000
LOST = (OSError, http.client.HTTPException)  # the server went away mid-request

# Every table of counts the modules' triggers keep (a name ending in
# _counts), and the same figures made from the rows: (kept, made). Rows
# of zeros are left in place when the last row they counted goes.
COUNTS = {
    "contact_counts": (
        "SELECT location_id, live, scored, health_sum FROM contact_counts"
        " WHERE live <> 0 OR scored <> 0 OR health_sum <> 0",
        "SELECT location_id, count(*), count(health_score), coalesce(sum(health_score), 0)"
        " FROM contacts WHERE deleted_at IS NULL GROUP BY location_id"),
    "stage_counts": (
        "SELECT stage_id, status, location_id, deals, cents FROM stage_counts"
        " WHERE deals <> 0 OR cents <> 0",
        "SELECT stage_id, status, location_id, count(*), sum(value_cents) FROM opportunities"
        " GROUP BY stage_id, status"),
    "owner_open_counts": (
        "SELECT owner_id, stage_id, deals, cents FROM owner_open_counts"
        " WHERE deals <> 0 OR cents <> 0",
        "SELECT owner_id, stage_id, count(*), sum(value_cents) FROM opportunities"
        " WHERE status = 'open' AND owner_id IS NOT NULL GROUP BY 1, 2"),
    "task_counts": (
        "SELECT location_id, assignee, open FROM task_counts WHERE open <> 0",
        "SELECT location_id, coalesce(assignee_id, 0), count(*) FROM tasks"
        " WHERE completed_at IS NULL GROUP BY 1, 2"),
    "conversation_counts": (
        "SELECT location_id, unread FROM conversation_counts WHERE unread <> 0",
        "SELECT location_id, count(*) FROM conversations WHERE unread_count > 0 GROUP BY 1"),
    "late_counts": (
        "SELECT location_id, assignee, day, late FROM late_counts",
        "SELECT l.location_id, l.assignee, l.day, (SELECT count(*) FROM tasks t"
        " WHERE t.location_id = l.location_id AND coalesce(t.assignee_id, 0) = l.assignee"
        " AND t.completed_at IS NULL AND local_day(unixepoch(t.due_at),"
        " (SELECT timezone FROM locations WHERE id = t.location_id)) < l.day) FROM late_counts l"),
    "tag_counts": (
        "SELECT tag_id, location_id, contacts FROM tag_counts WHERE contacts <> 0",
        "SELECT tag_id, location_id, count(*) FROM contact_tags WHERE contact_deleted = 0"
        " GROUP BY tag_id"),
    "unpaid_counts": (
        "SELECT location_id, unpaid, due_cents FROM unpaid_counts WHERE unpaid <> 0 OR due_cents <> 0",
        "SELECT location_id, count(*), sum(total_cents - paid_cents) FROM invoices"
        " WHERE status IN ('sent', 'partially_paid') GROUP BY 1"),
}


class Ledger:
    """What the server answered 2xx, and what was asked but not answered
    when it died (that may or may not have been saved)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.contacts = {}       # id: (location, email, deleted)
        self.contacts_maybe = set()  # contacts whose deletion was cut short
        self.deals = {}          # id: (stage, status, cents), as last answered
        self.deals_maybe = {}    # id: the state of a change cut short
        self.messages = {}       # id: (conversation, body)
        self.tasks = {}          # id: (completed,), as last answered
        self.tasks_maybe = set()  # tasks whose completion was cut short
        self.imports = {}        # id: (location, email prefix, rows)
        self.imports_maybe = []  # (location, prefix, rows, bytes) cut short
        self.answered = 0        # 2xx answers in this cycle
        self.cut = 0             # requests the kill cut short in this cycle
        self.wrong = []          # answers other than the one expected

    def check(self, r, status, what):
        """True if `r` is the success expected; otherwise keeps it."""
        with self.lock:
            if r.status == status:
                self.answered += 1
                return True
            self.wrong.append((what, r.status, r.body[:300]))
            return False


class World:
    """The seeded records the load works on: the deals of locations 1 and
    2 in two halves (one mover each, so a deal's last answered state is
    well defined), their pipelines' stages, and the conversations of live
    contacts (the purge job takes those of long-deleted ones away)."""

    def __init__(self, s, ledger):
        stages = {}
        for stage, pipeline in s.sql("SELECT id, pipeline_id FROM stages ORDER BY id"):
            stages.setdefault(pipeline, []).append(stage)
        self.deals = ({}, {})
        rows = s.sql("SELECT id, location_id, pipeline_id, stage_id, status, value_cents"
                     " FROM opportunities WHERE location_id IN (1, 2) ORDER BY id")
        for i, (deal, location, pipeline, stage, status, cents) in enumerate(rows):
            self.deals[i % 2][deal] = (location, stages[pipeline])
            ledger.deals[deal] = (stage, status, cents)
        self.conversations = s.sql("SELECT v.id, v.location_id FROM conversations v"
                                   " JOIN contacts c ON c.id = v.contact_id"
                                   " WHERE c.deleted_at IS NULL ORDER BY v.id")
        assert all(self.deals) and self.conversations, "the seeded data has no deals to move"


def at(location):
    return {"X-Location-Id": str(location)}


def add_contacts(c, rnd, ledger, tag, stop):
    """Creates tagged contacts, and deletes some of those it created."""
    mine = []
    for n in range(1 << 30):
        if stop.is_set():
            return
        if mine and rnd.random() < 0.2:
            contact, location, email = mine.pop(rnd.randrange(len(mine)))
            with ledger.lock:
                ledger.contacts_maybe.add(contact)
            r = c.delete("/api/contacts/%d" % contact, headers=at(location))
            ok = ledger.check(r, 204, "DELETE /api/contacts/:id")
            with ledger.lock:
                ledger.contacts_maybe.discard(contact)
                if ok:
                    ledger.contacts[contact] = (location, email, 1)
            continue
        location, email = rnd.randint(1, 4), "crash-%s-%d@example.test" % (tag, n)
        r = c.post("/api/contacts", {"first_name": "Crash", "last_name": tag, "email": email,
                                     "tags": ["crash", tag]}, headers=at(location))
        if ledger.check(r, 201, "POST /api/contacts"):
            contact = r.json()["id"]
            mine.append((contact, location, email))
            with ledger.lock:
                ledger.contacts[contact] = (location, email, 0)


def move_deals(c, rnd, ledger, deals, stop):
    """Moves, revalues, closes and reopens its own deals: each change
    names the whole state it sets."""
    ids = sorted(deals)
    while not stop.is_set():
        deal = rnd.choice(ids)
        location, stages = deals[deal]
        state = (rnd.choice(stages), rnd.choice(("open", "open", "won", "lost", "abandoned")),
                 rnd.randrange(10 ** 7))
        with ledger.lock:
            ledger.deals_maybe[deal] = state
        r = c.patch("/api/opportunities/%d" % deal,
                    {"stage_id": state[0], "status": state[1], "value_cents": state[2]},
                    headers=at(location))
        ok = ledger.check(r, 200, "PATCH /api/opportunities/:id")
        with ledger.lock:
            del ledger.deals_maybe[deal]
            if ok:
                ledger.deals[deal] = state


def send_messages(c, rnd, ledger, tag, conversations, stop):
    for n in range(1 << 30):
        if stop.is_set():
            return
        conversation, location = rnd.choice(conversations)
        body = "crash %s message %d" % (tag, n)
        r = c.post("/api/conversations/%d/messages" % conversation, {"body": body},
                   headers=at(location))
        if ledger.check(r, 201, "POST /api/conversations/:id/messages"):
            with ledger.lock:
                ledger.messages[r.json()["id"]] = (conversation, body)


def work_tasks(c, rnd, ledger, tag, stop):
    """Opens tasks, and completes some of those it opened."""
    mine = []
    for n in range(1 << 30):
        if stop.is_set():
            return
        if mine and rnd.random() < 0.4:
            task, location = mine.pop(rnd.randrange(len(mine)))
            with ledger.lock:
                ledger.tasks_maybe.add(task)
            r = c.post("/api/tasks/%d/complete" % task, {}, headers=at(location))
            ok = ledger.check(r, 200, "POST /api/tasks/:id/complete")
            with ledger.lock:
                ledger.tasks_maybe.discard(task)
                if ok:
                    ledger.tasks[task] = (1,)
            continue
        location = rnd.randint(1, 4)
        r = c.post("/api/tasks", {"title": "crash %s task %d" % (tag, n)}, headers=at(location))
        if ledger.check(r, 201, "POST /api/tasks"):
            task = r.json()["id"]
            mine.append((task, location))
            with ledger.lock:
                ledger.tasks[task] = (0,)


def post_import(c, rnd, ledger, cycle, stop):
    """One CSV upload large enough to run as a job, after a while, every
    other cycle. Its size, one of its own, tells it apart if its answer is
    lost."""
    if cycle % 2 or stop.wait(rnd.uniform(0, 0.6)):
        return
    location, prefix, rows = 1 + cycle % 4, "imp%d-" % cycle, IMPORT_ROWS + cycle
    body = ("first_name,last_name,email\r\n" + "".join(
        "Imp%d,Crash,%s%d@import.test\r\n" % (i, prefix, i) for i in range(rows))).encode()
    assert len(body) > 64 * 1024
    with ledger.lock:
        ledger.imports_maybe.append((location, prefix, rows, len(body)))
    r = c.request("POST", "/api/contacts/import", body=body,
                  headers=dict(at(location), **{"Content-Type": "text/csv"}))
    ok = ledger.check(r, 202, "POST /api/contacts/import")
    with ledger.lock:
        ledger.imports_maybe.pop()
        if ok:
            ledger.imports[r.json()["id"]] = (location, prefix, rows)


def until_lost(ledger, fn, *args):
    try:
        fn(*args)
    except ConnectionRefusedError:
        pass  # the server was gone before the request
    except LOST:
        with ledger.lock:
            ledger.cut += 1  # the server went during the request
    except Exception as e:  # a writer's own failure fails the next check
        with ledger.lock:
            ledger.wrong.append((fn.__name__, "raised", repr(e)))


def wait_into_the_import(s, session, ledger, cycle, share):
    """Returns once this cycle's import has written `share` of its rows
    (or ended): the job takes well under a second, too short a while for
    a kill at a random moment to fall in it often enough."""
    c = s.client(session["headers"])
    c.cookies = dict(session["cookies"])
    prefix, deadline = "imp%d-" % cycle, time.time() + 30
    try:
        while time.time() < deadline:
            with ledger.lock:
                job = next(((id, location, rows) for id, (location, p, rows)
                            in ledger.imports.items() if p == prefix), None)
            if job:
                state = c.get("/api/contacts/imports/%d" % job[0], headers=at(job[1])).json()
                if state["status"] not in ("queued", "running") or state["created"] >= share * job[2]:
                    return
            time.sleep(0.005)
    finally:
        c.close()


def load_and_kill(s, session, rnd, ledger, world, cycle):
    """Every writer on a connection of its own, and SIGKILL after a random
    while, or on a cycle with an import once it has written a random share
    of its rows; returns how long the load ran, once each writer has seen
    the server go."""
    stop, tag = threading.Event(), "c%d" % cycle
    writers = [(add_contacts, tag + "a"), (add_contacts, tag + "b"),
               (move_deals, world.deals[0]), (move_deals, world.deals[1]),
               (send_messages, tag, world.conversations), (work_tasks, tag),
               (post_import, cycle)]
    threads = []
    for fn, *args in writers:
        c = s.client(session["headers"])
        c.cookies = dict(session["cookies"])
        t = threading.Thread(target=until_lost,
                             args=(ledger, fn, c, random.Random(rnd.random()), ledger, *args, stop))
        threads.append((t, c))
    # The import goes slowly beside writers that never pause (requests
    # go first at the writer): a share up to 0.4 kills it in its course
    # without waiting most of a minute for it.
    delay, share = rnd.uniform(0.3, 2.5), rnd.uniform(0.05, 0.4)
    started = time.time()
    for t, _ in threads:
        t.start()
    # The kill falls in the load: after the first write answered (under
    # the sanitizers, beside the suite, that can take longer than the
    # shortest delay).
    harness.wait_for(lambda: ledger.answered > 0, 60, 0.01)
    if cycle % 2:
        time.sleep(delay)
    else:
        wait_into_the_import(s, session, ledger, cycle, share)
    s.kill()
    delay = time.time() - started
    stop.set()
    for t, c in threads:
        t.join(60)
        assert not t.is_alive(), "a writer still waits on the killed server"
        c.close()
    return delay


# Rows the modules' own code keeps beside the ones written, in the same
# transaction: each query counts those out of step.
KEPT_BESIDE = {
    "live contacts without their search row": "SELECT count(*) FROM contacts c"
        " WHERE c.deleted_at IS NULL"
        " AND NOT EXISTS (SELECT 1 FROM contact_search s WHERE s.rowid = c.id)",
    "search rows without their live contact": "SELECT count(*) FROM contact_search s"
        " WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = s.rowid AND c.deleted_at IS NULL)",
    "tag links not marked as their contact": "SELECT count(*) FROM contact_tags t"
        " JOIN contacts c ON c.id = t.contact_id"
        " WHERE t.contact_deleted IS NOT (c.deleted_at IS NOT NULL)",
    "conversations behind their last message": "SELECT count(*) FROM conversations v"
        " WHERE v.last_message_at < (SELECT max(created_at) FROM messages m"
        " WHERE m.conversation_id = v.id)",
}


def by_id(db, sql, ids):
    """{id: the rest of the row} for the rows of `sql` (which selects
    the id first and ends with `IN` of a json_each) with those ids."""
    rows = db.execute(sql + " (SELECT value FROM json_each(?))", (json_list(ids),))
    return {r[0]: tuple(r[1:]) for r in rows}


def json_list(ids):
    return "[" + ",".join(str(i) for i in ids) + "]"


def check_counts(db):
    tables = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                       " AND name LIKE '%\\_counts' ESCAPE '\\'")}
    assert tables == set(COUNTS), "tables of counts without their check here: %s" % tables
    for name, (kept, made) in COUNTS.items():
        k, m = set(db.execute(kept).fetchall()), set(db.execute(made).fetchall())
        assert k == m, "%s: kept %s, made from the rows %s" % (name, sorted(k - m),
                                                                sorted(m - k))
    for what, sql in KEPT_BESIDE.items():
        assert db.execute(sql).fetchone() == (0,), what


def check_answered(db, ledger):
    """Every write answered 2xx is there; one cut short may be or not, and
    what the file holds becomes what the next cycle starts from."""
    got = by_id(db, "SELECT id, location_id, email, deleted_at IS NOT NULL FROM contacts"
                " WHERE id IN", ledger.contacts)
    lost = [(i, v, got.get(i)) for i, v in ledger.contacts.items() if got.get(i) != v
            and not (i in ledger.contacts_maybe and got.get(i) == v[:2] + (1,))]
    assert not lost, "contacts not as answered (id, answered, found): %s" % lost[:10]
    ledger.contacts.update(got)
    ledger.contacts_maybe.clear()
    got = by_id(db, "SELECT id, conversation_id, body FROM messages WHERE id IN", ledger.messages)
    lost = [(i, v) for i, v in ledger.messages.items() if got.get(i) != v]
    assert not lost, "answered messages missing: %s" % lost[:10]
    got = by_id(db, "SELECT id, stage_id, status, value_cents FROM opportunities WHERE id IN",
                ledger.deals)
    lost = [(i, v, got.get(i)) for i, v in ledger.deals.items()
            if got.get(i) not in (v, ledger.deals_maybe.get(i))]
    assert not lost, "deals not as last answered (id, answered, found): %s" % lost[:10]
    ledger.deals.update(got)
    ledger.deals_maybe.clear()
    got = by_id(db, "SELECT id, completed_at IS NOT NULL FROM tasks WHERE id IN", ledger.tasks)
    lost = [(i, v, got.get(i)) for i, v in ledger.tasks.items()
            if got.get(i) != v and not (i in ledger.tasks_maybe and got.get(i) == (1,))]
    assert not lost, "tasks not as answered (id, completed, found): %s" % lost[:10]
    ledger.tasks.update(got)
    ledger.tasks_maybe.clear()


def imported(db, location, prefix):
    """How many contacts an import wrote, and how many distinct e-mails."""
    return db.execute("SELECT count(*), count(DISTINCT lower(email)) FROM contacts"
                      " WHERE location_id = ? AND email LIKE ?",
                      (location, prefix + "%")).fetchone()


def check_imports(db, ledger):
    """An import's contacts and its progress are written together, so the
    rows found are the rows it says it created, each once; an upload
    whose answer was lost is found by its size, or wrote nothing."""
    for location, prefix, rows, size in ledger.imports_maybe:
        found = db.execute("SELECT id FROM contact_imports WHERE location_id = ? AND bytes = ?",
                           (location, size)).fetchall()
        if found:
            ledger.imports[found[0][0]] = (location, prefix, rows)
        else:
            assert imported(db, location, prefix) == (0, 0), "an upload never saved wrote rows"
    ledger.imports_maybe.clear()
    for job, (location, prefix, rows) in ledger.imports.items():
        status, created, updated, skipped, errors = db.execute(
            "SELECT status, created, updated, skipped, errors FROM contact_imports WHERE id = ?",
            (job,)).fetchone()
        assert status in ("queued", "running", "done") and errors == "[]", (job, status, errors)
        assert (updated, skipped) == (0, 0), "import %d wrote rows again: %s" % (job, updated)
        found = imported(db, location, prefix)
        assert found == (created, created), \
            "import %d: %s rows found, %d said created" % (job, found, created)
        assert status != "done" or created == rows, \
            "import %d done after %d of %d rows" % (job, created, rows)


def check(s, ledger):
    """The file as the restarted server has it, in one read snapshot."""
    db = harness.connect(s.db_path, timeout=30, isolation_level=None)
    try:
        db.execute("BEGIN")
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        check_counts(db)
        with ledger.lock:
            assert not ledger.wrong, "answers other than expected: %s" % ledger.wrong[:5]
            check_answered(db, ledger)
            check_imports(db, ledger)
        db.execute("COMMIT")
        # FTS5's own check of the search index (written as an INSERT).
        db.execute("INSERT INTO contact_search (contact_search) VALUES ('integrity-check')")
    finally:
        db.close()


def imports_left(s):
    return s.sql("SELECT count(*) FROM contact_imports WHERE status IN ('queued', 'running')")[0][0]


def imports_cut(s):
    """The rows written by each import the kill left unfinished, read
    from the stopped server's file without changing it: a read-only
    connection neither checkpoints nor deletes the WAL, which the server
    must recover itself."""
    db = sqlite3.connect("file:%s?mode=ro" % s.db_path, uri=True)
    try:
        return [n for (n,) in db.execute("SELECT created FROM contact_imports"
                                         " WHERE status IN ('queued', 'running') ORDER BY id")]
    finally:
        db.close()


def cycle(s, session, rnd, ledger, world, n):
    """One load cut by SIGKILL, a restart and the checks; prints what
    happened, so that a run shows the kills fell mid-write. Returns the
    number of imports the kill cut after some of their rows."""
    ledger.answered = ledger.cut = 0
    delay = load_and_kill(s, session, rnd, ledger, world, n)
    cut = imports_cut(s)
    s.start()
    try:
        check(s, ledger)
    except AssertionError as e:
        raise AssertionError("cycle %d: %s" % (n, e)) from None
    print("     cycle %d: killed after %.2f s; %d writes answered, %d cut short;"
          " imports cut after %s rows" % (n, delay, ledger.answered, ledger.cut, cut or "no"),
          flush=True)
    assert ledger.answered > 0, "no write was answered before the kill"
    return len([rows for rows in cut if rows])


def crash_often(seed):
    """The cycles, then each import to its end; on a failure, what the
    server last logged."""
    rnd, ledger = random.Random(seed), Ledger()
    s, admin = seeded_server()
    with s:
        try:
            session = {"cookies": dict(admin.cookies),
                       "headers": {"X-CSRF-Token": headers(admin)["X-CSRF-Token"]}}
            world = World(s, ledger)
            cut = sum(cycle(s, session, rnd, ledger, world, n) for n in range(CYCLES))
            assert cut, "no kill fell in the middle of an import: the load is too short"
            finish(s, ledger)
        except AssertionError as e:
            s.stop()
            said = [x for x in s.log.splitlines() if x.startswith(("error", "warning"))]
            raise AssertionError("%s\nthe server's last errors and warnings:\n%s"
                                 % (e, "\n".join(said[-20:]))) from None


def finish(s, ledger):
    """After the last restart, each import goes on to its end."""
    deadline = time.time() + 300
    while imports_left(s) and time.time() < deadline:
        time.sleep(0.1)
    check(s, ledger)
    done = s.sql("SELECT count(*) FROM contact_imports WHERE status = 'done'")[0][0]
    assert done == len(ledger.imports) and not imports_left(s), (done, len(ledger.imports))
    assert all((ledger.contacts, ledger.messages, ledger.tasks, ledger.imports)), \
        "a kind of write was never answered"


def test_kill_9_under_load_keeps_every_answered_write_and_every_count():
    seed = int(os.environ.get("HL_CRASH_SEED") or random.SystemRandom().randrange(1 << 32))
    print("     crash seed %d" % seed, flush=True)
    try:
        crash_often(seed)
    except AssertionError as e:
        raise AssertionError("HL_CRASH_SEED=%d replays its choices: %s" % (seed, e)) from None
