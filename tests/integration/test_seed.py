# SPDX-License-Identifier: MIT
"""perf-seed as benchmark authors and testers use it: the counts the scale
asks for, the same data for the same seed, references that never cross a
sub-account, a clean database, and accounts that sign in to the server."""

import atexit
import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile

import harness
from harness import Server, fold

HEADLINE = {"contacts": 100000, "opportunities": 20000, "messages": 200000, "tasks": 50000,
            "invoices": 5000}


def seed(folder, *args):
    p = subprocess.run([os.path.join(harness.BUILD, "perf-seed"), "--data-dir", folder] + list(args),
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, **harness.ONE_SHOT))
    harness.check_sanitizers(p.stderr)
    return p


def scratch():
    d = tempfile.mkdtemp(prefix="hl-seed-")
    atexit.register(shutil.rmtree, d, True)
    return d


def seeded(*args):
    d = scratch()
    p = seed(d, *args)
    assert p.returncode == 0, p.stderr
    return d, p


def query(folder, sql, *args):
    with sqlite3.connect(os.path.join(folder, "hyperlevel.db")) as db:
        return db.execute(sql, args).fetchall()


def test_counts_follow_the_scale_exactly():
    d, p = seeded("--scale", "0.01")
    for table, full in HEADLINE.items():
        assert query(d, "SELECT count(*) FROM " + table) == [(full // 100,)], table
    assert query(d, "SELECT count(*) FROM locations") == [(50,)]
    assert query(d, "SELECT count(*) FROM users") == [(51,)]
    # Location 1 is the largest: about 7.9 % of contacts, 7.5 % of deals.
    assert query(d, "SELECT count(*) FROM contacts WHERE location_id = 1") == [(79,)]
    assert query(d, "SELECT count(*) FROM opportunities WHERE location_id = 1") == [(15,)]
    biggest = query(d, "SELECT location_id FROM contacts GROUP BY location_id"
                       " ORDER BY count(*) DESC, location_id LIMIT 1")
    assert biggest == [(1,)]
    # The summary: every table's rows, the file's size and the time.
    assert "contacts" in p.stdout and "1000" in p.stdout
    assert " MB, " in p.stdout and " rows in " in p.stdout


def test_locations_spread_the_same_rows():
    d, _ = seeded("--scale", "0.01", "--locations", "7")
    assert query(d, "SELECT count(*) FROM locations") == [(7,)]
    assert query(d, "SELECT count(*) FROM contacts") == [(1000,)]
    assert query(d, "SELECT count(DISTINCT location_id) FROM contacts") == [(7,)]


def dump(folder):
    with sqlite3.connect(os.path.join(folder, "hyperlevel.db")) as db:
        lines = list(db.iterdump())
    # When each migration was applied is the one thing that is not data.
    return [l for l in lines if not l.startswith('INSERT INTO "schema_migrations"')]


def test_the_same_seed_gives_the_same_data():
    a, _ = seeded("--scale", "0.01", "--seed", "7")
    b, _ = seeded("--scale", "0.01", "--seed", "7")
    c, _ = seeded("--scale", "0.01", "--seed", "8")
    assert dump(a) == dump(b)
    assert dump(a) != dump(c)


# The benchmark's figures are comparable across versions only while its
# data set stays the same: the digest of `--scale 0.01 --locations 7`'s
# rows (the password's hash aside: its work depends on the environment).
# The schema is not in it, nor the rows that count the migrations: a new
# migration changes those, not the data. Change it only with a change to
# the data set meant for the benchmark.
# (Last changed when contacts, tasks, invoices and the agency's row gained
# columns left empty by the seed (the phone as typed, a task's deal, an
# invoice's notes, the agency's address): every row the same but for them;
# before, when the agency's row gained its time zone, currency and
# country, their defaults.)
BENCHMARK_DIGEST = "4251075719a94606205bfaa1be95d2247265f8219c22a5318f459949c9758df6"


def digest(folder):
    h = hashlib.sha256()
    for line in dump(folder):
        if line.startswith("INSERT INTO") and "schema_migrations" not in line:
            h.update(re.sub(r"\$argon2id\$[^']*", "HASH", line).encode() + b"\n")
    return h.hexdigest()


def test_the_benchmark_data_set_is_the_same_as_ever_and_demo_data_is_not_it():
    d, _ = seeded("--scale", "0.01", "--locations", "7")
    assert digest(d) == BENCHMARK_DIGEST
    # The demo's (make run's) has the same tables and headline counts.
    demo, _ = seeded("--scale", "0.01", "--locations", "7", "--demo")
    for table, full in HEADLINE.items():
        assert query(demo, "SELECT count(*) FROM " + table) == [(full // 100,)], table
    assert digest(demo) != BENCHMARK_DIGEST


def test_no_reference_crosses_a_location_and_the_file_is_clean():
    sound_file("--scale", "0.02")


def test_the_demo_data_is_as_sound():
    sound_file("--scale", "0.02", "--demo")
    counts_as_triggers_keep("--scale", "0.02", "--locations", "6", "--demo")


def sound_file(*flags):
    d, _ = seeded(*flags)
    assert query(d, "PRAGMA integrity_check") == [("ok",)]
    assert query(d, "PRAGMA foreign_key_check") == []
    query(d, "INSERT INTO contact_search (contact_search) VALUES ('integrity-check')")
    tables = [r[0] for r in query(d, "SELECT name FROM sqlite_schema WHERE type = 'table'"
                                     " AND sql NOT LIKE 'CREATE VIRTUAL%'")]
    checked = 0
    for table in tables:
        columns = [r[1] for r in query(d, "SELECT * FROM pragma_table_info(?)", table)]
        if "location_id" not in columns:
            continue
        for parent, column in query(d, 'SELECT "table", "from" FROM pragma_foreign_key_list(?)', table):
            parent_columns = [r[1] for r in query(d, "SELECT * FROM pragma_table_info(?)", parent)]
            if parent == "locations" or "location_id" not in parent_columns:
                continue
            crossing = query(d, 'SELECT count(*) FROM "%s" c JOIN "%s" p ON p.id = c."%s"'
                                ' WHERE p.location_id <> c.location_id' % (table, parent, column))
            assert crossing == [(0,)], (table, column, parent)
            checked += 1
    assert checked >= 15
    # The search index holds what the contacts module writes (the line,
    # folded), for the live contacts only.
    lines = query(d, "SELECT s.text, c.first_name || ' ' || c.last_name || ' ' ||"
                     " coalesce(c.email, '') || ' ' || coalesce(c.phone, '') || ' ' ||"
                     " coalesce(c.company_name, '') FROM contacts c JOIN contact_search s"
                     " ON s.rowid = c.id WHERE c.deleted_at IS NULL")
    assert [l for l in lines if l[0] != fold(l[1])] == []
    assert [(len(lines),)] == query(d, "SELECT count(*) FROM contacts WHERE deleted_at IS NULL") == \
        query(d, "SELECT count(*) FROM contact_search")
    assert query(d, "PRAGMA journal_mode") == [("wal",)]


def test_the_kept_counts_are_what_the_triggers_would_keep():
    counts_as_triggers_keep("--scale", "0.02", "--locations", "6")


def counts_as_triggers_keep(*flags):
    # perf-seed writes its rows with the modules' triggers set aside and
    # makes their counts afterwards. Here every row of a table with an
    # insert trigger is written again with the triggers on: the tables
    # they write must come out the same, one a future trigger writes too.
    d, _ = seeded(*flags)
    with harness.connect(os.path.join(d, "hyperlevel.db")) as db:
        fed, kept, through = set(), set(), {}
        writes = lambda sql: set(re.findall(r"(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)", sql, re.I))
        for table, sql in db.execute("SELECT tbl_name, sql FROM sqlite_schema WHERE type = 'trigger'"):
            if re.search(r"\bAFTER\s+INSERT\s+ON\b", sql, re.I):
                fed.add(table)
                kept |= writes(sql)
            if re.search(r"\bINSTEAD\s+OF\s+INSERT\s+ON\b", sql, re.I):
                through.setdefault(table, set()).update(writes(sql))  # a view's writes
        for view, tables in through.items():
            if view in kept:
                kept |= tables
        kept &= {r[0] for r in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        assert {"contact_counts", "stage_counts", "task_counts", "due_days", "received_days",
                "payment_days", "unpaid_counts", "tag_counts", "owner_open_counts"} <= kept, kept
        seeded_counts = {t: sorted(db.execute('SELECT * FROM "%s"' % t)) for t in kept}
        assert all(seeded_counts.values()), seeded_counts
        for table in kept:
            db.execute('DELETE FROM "%s"' % table)
        for table in fed:
            db.execute('CREATE TEMP TABLE again AS SELECT * FROM "%s"' % table)
            db.execute('DELETE FROM "%s"' % table)
            db.execute('INSERT INTO "%s" SELECT * FROM again' % table)
            db.execute("DROP TABLE again")
        for table in kept:
            assert sorted(db.execute('SELECT * FROM "%s"' % table)) == seeded_counts[table], table
        # What the contacts module keeps as it writes and as the other
        # modules' creations reach it: a deleted contact's tags marked, and
        # the activity counts perf-seed makes (messages, tasks, deals and
        # invoices created), as nobody's: it does not say whose.
        assert db.execute("SELECT count(*) FROM contact_tags ct JOIN contacts c"
                          " ON c.id = ct.contact_id WHERE ct.contact_deleted"
                          " <> (c.deleted_at IS NOT NULL)").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM contact_tags WHERE contact_deleted").fetchone()[0] > 0
        events = sorted(db.execute(
            "SELECT cv.contact_id, CASE m.direction WHEN 'inbound' THEN 'message.received'"
            " ELSE 'message.sent' END, 0, m.location_id, count(*), max(m.created_at)"
            " FROM messages m JOIN conversations cv ON cv.id = m.conversation_id GROUP BY 1, 2"
            " UNION ALL SELECT contact_id, 'task.created', 0, location_id, count(*), max(created_at)"
            " FROM tasks WHERE contact_id IS NOT NULL GROUP BY contact_id"
            " UNION ALL SELECT contact_id, 'opportunity.created', 0, location_id, count(*),"
            " max(created_at) FROM opportunities WHERE contact_id IS NOT NULL GROUP BY contact_id"
            " UNION ALL SELECT contact_id, 'invoice.created', 0, location_id, count(*),"
            " max(created_at) FROM invoices WHERE contact_id IS NOT NULL GROUP BY contact_id"))
        assert sorted(db.execute("SELECT * FROM contact_activity")) == events


def test_invoices_and_deals_look_real():
    d, _ = seeded("--scale", "0.05")
    statuses = {r[0] for r in query(d, "SELECT DISTINCT status FROM invoices")}
    assert statuses == {"draft", "sent", "paid", "partially_paid", "void"}
    assert query(d, "SELECT count(*) FROM invoices i WHERE total_cents <> (SELECT sum(amount_cents)"
                    " FROM invoice_items WHERE invoice_id = i.id) + tax_cents") == [(0,)]
    assert query(d, "SELECT count(*) FROM invoices WHERE status = 'paid' AND paid_cents <> total_cents") == [(0,)]
    assert {r[0] for r in query(d, "SELECT DISTINCT status FROM opportunities")} == {
        "open", "won", "lost", "abandoned"}
    overdue = query(d, "SELECT count(*) FROM tasks WHERE completed_at IS NULL AND due_at < '2026-12-01'")
    open_later = query(d, "SELECT count(*) FROM tasks WHERE completed_at IS NULL AND due_at >= '2026-12-01'")
    assert overdue[0][0] > 0 and open_later[0][0] > 0
    # Tags are skewed: the most used carries several times the tenth.
    counts = [r[0] for r in query(d, "SELECT count(*) FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id"
                                     " GROUP BY t.name ORDER BY 1 DESC")]
    assert counts[0] > 2 * counts[9]


def test_the_seeded_accounts_sign_in():
    d, _ = seeded("--scale", "0.01", "--locations", "3")
    s = Server(modules=("contacts", "opportunities", "conversations", "tasks", "invoices",
                        "reports", "agency", "mobile"), data_dir=d)
    with s.start():
        admin = s.login("perf@example.test", "perf-pass-123")
        assert admin.get("/api/auth/me").status == 200
        user = s.login("location-2@example.test", "perf-pass-123")
        me = user.get("/api/auth/me").json()
        assert [l["id"] for l in me["locations"]] == [2]
        ids = {c["id"] for c in user.get("/api/contacts?limit=1000").json()["data"]}
        assert ids and ids == {r[0] for r in query(d, "SELECT id FROM contacts WHERE location_id = 2"
                                                      " AND deleted_at IS NULL")}
        assert user.get("/api/contacts?location_id=1").status == 404


def test_bad_input_is_one_line_and_an_existing_database_is_kept():
    d, _ = seeded("--scale", "0.01")
    before = query(d, "SELECT count(*) FROM contacts")
    p = seed(d)
    assert p.returncode == 2 and "already exists" in p.stderr and len(p.stderr.splitlines()) == 1
    assert query(d, "SELECT count(*) FROM contacts") == before
    for args, words in ((["--scale", "0"], "--scale"), (["--scale", "x"], "--scale"),
                        (["--locations", "0"], "--locations"), (["--seed", "-1"], "--seed"),
                        (["--bogus", "1"], "unknown option")):
        p = seed(scratch(), *args)
        assert p.returncode == 2 and words in p.stderr and len(p.stderr.splitlines()) == 1, p.stderr
