# SPDX-License-Identifier: MIT
"""Backups as an operator meets them: `hyperlevel backup` (also beside a
running server), the daily thread's first copy at start while requests go
on, pruning to backup_keep, and a stop that is prompt and never leaves a
half-written copy under a backup's name. Each copy is opened with Python's
sqlite3 and checked."""

import os
import re
import sqlite3
import shutil
import subprocess
import time

import harness

from harness import BACKUP_NAME, Server, backup_folder, backups, fill, temporaries, wait_for

ADMIN = ("admin@example.test", "admin-pass-1")
WROTE = re.compile(r"^\[backup\] wrote (\S+) \((\d+\.\d) MB, quick_check ok, (\d+) ms\)$", re.M)


def open_copy(path):
    """The copy, read-only, after it passed quick_check."""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    return db


def backup_now(s):
    """`hyperlevel backup`: the path it names, after checking its one line."""
    code, out, err = s.run("backup")
    assert code == 0, err
    m = re.match(r"^(\S+) \((\d+) bytes\)\n$", out)
    assert m, out
    path = m.group(1)
    assert os.path.dirname(path) == backup_folder(s) and BACKUP_NAME.match(os.path.basename(path)), path
    assert os.path.getsize(path) == int(m.group(2))
    wrote = r"\[backup\] wrote %s \(\d+\.\d MB, quick_check ok, \d+ ms\)" % re.escape(path)
    assert re.search(wrote, err), err
    return path


def test_backup_command_copies_the_database():
    with Server(modules=("contacts",)) as s:
        s.create_admin(*ADMIN)
        path = backup_now(s)
        db = open_copy(path)
        assert db.execute("SELECT email FROM users").fetchall() == [(ADMIN[0],)]
        assert backups(s) == [os.path.basename(path)] and temporaries(s) == []
        # The copy stands alone: no WAL or shared-memory file beside it.
        assert sorted(os.listdir(backup_folder(s))) == [os.path.basename(path)]


def test_backup_command_works_beside_a_running_server():
    with Server(modules=("contacts",)) as s:
        s.create_admin(*ADMIN)
        s.start()
        admin = s.login(*ADMIN)
        r = admin.post("/api/admin/locations", {"name": "Written before the backup"})
        assert r.status == 201, r.body
        path = backup_now(s)
        names = open_copy(path).execute("SELECT name FROM locations").fetchall()
        assert ("Written before the backup",) in names
        # The server goes on reading and writing afterwards.
        assert admin.post("/api/admin/locations", {"name": "After"}).status == 201
        assert s.stop() == 0


def test_backup_command_without_a_database_is_one_line_and_exit_1():
    with Server(modules=("contacts",)) as s:
        os.makedirs(s.data_dir)
        code, out, err = s.run("backup")
        lines = [l for l in err.splitlines() if l.startswith("error: ")]
        assert code == 1 and out == ""
        assert lines == ["error: [backup] %s: there is no database to back up" % s.db_path], err


def test_pruning_keeps_backup_keep_copies_and_only_touches_backups():
    with Server(modules=("contacts",)) as s:
        s.create_admin(*ADMIN)
        os.makedirs(backup_folder(s))
        old = ["hyperlevel-2020010%dT000000Z.db" % d for d in range(1, 6)]
        others = ["notes.txt", "hyperlevel-20200101.db", "hyperlevel-20200101T000000Z.db.bak",
                  "Hyperlevel-20200101T000000Z.db"]
        dead = subprocess.Popen(["true"])
        dead.wait()
        stale = "hyperlevel-20200101T000000Z.db.tmp-%d" % dead.pid
        running = "hyperlevel-20200102T000000Z.db.tmp-%d" % os.getpid()
        for name in old + others + [stale, running]:
            with open(os.path.join(backup_folder(s), name), "w") as f:
                f.write("pruning goes by the name only\n")
        s.env["PGHL_BACKUP_KEEP"] = "3"
        path = backup_now(s)
        assert backups(s) == old[-2:] + [os.path.basename(path)]
        left = set(os.listdir(backup_folder(s)))
        assert set(others) <= left, left
        assert stale not in left and running in left  # only a dead process's copy goes


def test_server_backs_up_at_start_while_answering():
    with Server(modules=("contacts",)) as s:
        s.create_admin(*ADMIN)
        fill(s, 150)
        s.start()
        during = 0
        # Requests made while the temporary copy exists (before and after
        # the answer) were answered during the backup.
        while not backups(s) and wait_for(lambda: temporaries(s) or backups(s), 60):
            if temporaries(s):
                ok = s.get("/api/health").status == 200
                during += ok and bool(temporaries(s))
        assert during > 0, "no request was answered while the copy was made"
        assert len(backups(s)) == 1 and temporaries(s) == []
        path = os.path.join(backup_folder(s), backups(s)[0])
        db = open_copy(path)
        assert db.execute("SELECT count(*) FROM filler").fetchall() == [(150,)]
        assert db.execute("SELECT email FROM users").fetchall() == [(ADMIN[0],)]
        assert s.stop() == 0
        assert [m.group(1) for m in WROTE.finditer(s.log)] == [path], s.log


def test_no_backup_at_start_when_the_newest_is_recent():
    with Server(modules=("contacts",)) as s:
        s.create_admin(*ADMIN)
        older = backup_now_renamed(s, "hyperlevel-20200101T000000Z.db", hours_old=25)
        recent = backup_now(s)
        s.start()
        time.sleep(1)
        assert s.stop() == 0
        assert WROTE.search(s.log) is None, s.log
        assert backups(s) == [os.path.basename(older), os.path.basename(recent)]


def test_backup_at_start_when_the_newest_is_a_day_old():
    with Server(modules=("contacts",)) as s:
        s.create_admin(*ADMIN)
        older = backup_now_renamed(s, "hyperlevel-20200101T000000Z.db", hours_old=25)
        s.start()
        assert wait_for(lambda: len(backups(s)) == 2, 60), os.listdir(backup_folder(s))
        assert s.stop() == 0
        assert len(WROTE.findall(s.log)) == 1, s.log
        assert backups(s)[0] == os.path.basename(older)


def backup_now_renamed(s, name, hours_old):
    """A real backup given an older name and mtime."""
    path = os.path.join(backup_folder(s), name)
    os.rename(backup_now(s), path)
    then = time.time() - hours_old * 3600
    os.utime(path, (then, then))
    return path


def test_stop_while_idle_is_quick():
    with Server(modules=("contacts",)) as s:
        s.start()
        assert wait_for(lambda: backups(s), 60)
        time.sleep(0.2)  # the thread is now waiting for tomorrow
        start = time.time()
        assert s.stop() == 0
        assert time.time() - start < 5, "stopping took %.1f s" % (time.time() - start)
        assert "stopped" in s.log


def test_stop_during_a_backup_interrupts_it_and_leaves_no_half_copy():
    with Server(modules=("contacts",)) as s:
        s.create_admin(*ADMIN)
        fill(s, 300)
        s.start()

        def partway():
            """The copy has begun and is far from done."""
            for name in temporaries(s):
                try:
                    size = os.path.getsize(os.path.join(backup_folder(s), name))
                except FileNotFoundError:
                    continue
                if not name.endswith("-journal") and 1 << 20 <= size <= 100 << 20:
                    return True
            return False

        assert wait_for(partway, 60, 0.01), os.listdir(backup_folder(s))
        start = time.time()
        assert s.stop() == 0
        assert time.time() - start < 5, "stopping took %.1f s" % (time.time() - start)
        assert re.search(r"^\[backup\] stopped before %s/hyperlevel-\d{8}T\d{6}Z\.db was"
                         r" finished; it was removed$" % re.escape(backup_folder(s)), s.log, re.M), s.log
        assert os.listdir(backup_folder(s)) == []  # neither the copy nor its journal is left


def test_migrations_on_a_database_in_use_are_preceded_by_a_backup():
    s = Server(modules=("contacts",))
    try:
        s.create_admin(*ADMIN)  # a new database: nothing to keep
        assert backups(s) == []
        code, _, err = s.run("migrate")
        assert code == 0 and backups(s) == [], err  # nothing pending
        # The next version (here: a module more) brings three migrations.
        shutil.copy(harness.module_file("probe"), os.path.join(s.modules_dir, "probe.so"))
        code, _, err = s.run("migrate")
        assert code == 0, err
        [copy] = backups(s)
        assert re.search(r"^  backup +[\d.]+ ms  %s, before 3 migrations$"
                         % re.escape(os.path.join(backup_folder(s), copy)), err, re.M), err
        with sqlite3.connect(os.path.join(backup_folder(s), copy)) as db:  # the schema before
            assert db.execute("SELECT count(*) FROM schema_migrations WHERE owner = 'probe'"
                              ).fetchall() == [(0,)]
        assert s.sql("SELECT count(*) FROM schema_migrations WHERE owner = 'probe'") == [(3,)]
        # A start that fails after its copy (here: a step whose table is
        # in the way) copies once, not on every retry.
        time.sleep(1.1)
        s.sql("DELETE FROM schema_migrations WHERE owner = 'probe' AND seq = 3")
        for attempt in range(2):
            code, _, err = s.run("migrate")
            assert code == 1 and "table probe_item_counts already exists" in err, err
        assert len(backups(s)) == 2, (backups(s), err)
        assert "backup" in err and "the newest is newer than the database" in err, err
        # With backups turned off, the administrator is told none is made.
        s.sql("DROP TRIGGER probe_items_counted")
        s.sql("DROP TABLE probe_item_counts")
        time.sleep(1.1)
        code, _, err = s.run("migrate", "--backups", "no")
        assert code == 0 and len(backups(s)) == 2, err
        assert "warning: 1 migration to apply and backups = no: no copy is made first" in err, err
    finally:
        s.close()
