# SPDX-License-Identifier: MIT
"""GET /api/admin/doctor as an administrator reads it: who may ask, what
each check says, and that a problem shows at once, never hidden behind a
remembered good answer."""

import os
import re
import shutil
import time

from harness import Server, backup_folder, backups, fill, temporaries, wait_for

ADMIN = ("admin@example.test", "admin-pass-1")
GB = 1024 ** 3
BACKUP_NAME = r"\(hyperlevel-\d{8}T\d{6}Z\.db\)"


def admin_server(**kw):
    s = Server(modules=kw.pop("modules", ("contacts",)), **kw)
    s.create_admin(*ADMIN)
    return s.start()


def checks(r):
    """The checks by name, after checking the answer's shape."""
    assert r.status == 200, r.body
    body = r.json()
    assert [c["name"] for c in body["checks"]] == ["database", "disk", "backups", "modules"]
    for c in body["checks"]:
        assert set(c) == {"name", "ok", "detail"} and isinstance(c["ok"], bool) and c["detail"]
    assert body["ok"] == all(c["ok"] for c in body["checks"])
    return {c["name"]: c for c in body["checks"]}


def test_doctor_is_for_admins_only():
    with admin_server() as s:
        r = s.get("/api/admin/doctor")
        assert r.status == 401 and r.error_code() == "unauthorized"
        admin = s.login(*ADMIN)
        a = admin.post("/api/admin/locations", {"name": "Client A"}).json()["id"]
        for email, role in (("anna@example.test", "location_user"),
                            ("ben@example.test", "agency_user")):
            r = admin.post("/api/admin/users", {"email": email, "name": "X", "role": role,
                                                "password": "user-pass-1", "location_ids": [a]})
            assert r.status == 201, r.body
            r = s.login(email, "user-pass-1").get("/api/admin/doctor")
            assert r.status == 403 and r.error_code() == "forbidden", role
        c = checks(admin.get("/api/admin/doctor"))
        assert c["database"] == {"name": "database", "ok": True, "detail": "quick_check ok"}


def test_a_damaged_database_shows_at_once_and_so_does_its_repair():
    with admin_server() as s:
        admin = s.login(*ADMIN)
        # A byte of the agencies table's page (in the database file, not the
        # WAL: nothing writes that table once the server runs): its count of
        # fragmented bytes, which quick_check verifies.
        (root,), = s.sql("SELECT rootpage FROM sqlite_schema WHERE name = 'agencies'")
        (page_size,), = s.sql("PRAGMA page_size")
        where = (root - 1) * page_size + 7

        def poke(value):
            with open(s.db_path, "r+b") as f:
                f.seek(where)
                old = f.read(1)
                f.seek(where)
                f.write(value)
            return old

        good = poke(b"\x05")
        r = admin.get("/api/admin/doctor")
        c = checks(r)["database"]
        assert not c["ok"] and not r.json()["ok"]
        assert re.match(r"^quick_check found 1 problem, the first: Fragmentation of 0 bytes"
                        r" reported as 5 on page %d$" % root, c["detail"]), c
        assert checks(admin.get("/api/admin/doctor"))["database"] == c  # still damaged
        poke(good)
        # The failure was not remembered: the next request checks again.
        c = checks(admin.get("/api/admin/doctor"))["database"]
        assert c == {"name": "database", "ok": True, "detail": "quick_check ok"}


def test_doctor_names_each_module_and_its_state():
    with admin_server(modules=("contacts", "probe"), plugins={"probe": "enabled = no\n"}) as s:
        c = checks(s.login(*ADMIN).get("/api/admin/doctor"))
        assert c["modules"] == {"name": "modules", "ok": True,
                                "detail": "contacts loaded, probe disabled"}


def test_doctor_disk_is_what_statvfs_says():
    with admin_server() as s:
        disk = checks(s.login(*ADMIN).get("/api/admin/doctor"))["disk"]
        m = re.match(r"^(\d+\.\d) GB free of (\d+\.\d) GB(: under 1 GB|: under 5 %)?$",
                     disk["detail"])
        assert m, disk
        fs = os.statvfs(s.data_dir)
        free, total = fs.f_bavail * fs.f_frsize / GB, fs.f_blocks * fs.f_frsize / GB
        assert abs(float(m.group(1)) - free) < 0.2 and abs(float(m.group(2)) - total) < 0.1
        assert disk["ok"] == (free >= 1 and free >= total * 0.05) == (m.group(3) is None)


def test_an_old_backup_shows_at_once_and_so_does_a_new_one():
    with admin_server() as s:
        assert wait_for(lambda: backups(s), 60)
        admin = s.login(*ADMIN)
        c = checks(admin.get("/api/admin/doctor"))["backups"]
        assert c["ok"] and re.match(r"^newest backup under a minute old %s$" % BACKUP_NAME,
                                    c["detail"]), c
        path = os.path.join(backup_folder(s), backups(s)[0])
        # Half a minute to spare: the server's time() runs on a coarser
        # clock than Python's and may still be in the previous second.
        then = time.time() - 30 * 3600 - 30
        os.utime(path, (then, then))
        r = admin.get("/api/admin/doctor")
        c = checks(r)["backups"]
        assert not c["ok"] and not r.json()["ok"]
        assert re.match(r"^newest backup 30 h old %s; one is due every 24 h" % BACKUP_NAME,
                        c["detail"]), c
        # A copy made beside the server (a cron job's) counts at once.
        code, _, err = s.run("backup")
        assert code == 0, err
        c = checks(admin.get("/api/admin/doctor"))["backups"]
        assert c["ok"] and c["detail"].startswith("newest backup under a minute old"), c


def test_a_backup_that_fails_is_reported_until_one_succeeds():
    with Server(modules=("contacts",)) as s:
        s.create_admin(*ADMIN)
        with open(backup_folder(s), "w") as f:
            f.write("a file where the backups folder should be\n")
        s.start()
        admin = s.login(*ADMIN)
        c = checks(admin.get("/api/admin/doctor"))["backups"]
        assert c == {"name": "backups", "ok": False,
                     "detail": "cannot read %s/backups: Not a directory" % s.data_dir}
        os.remove(backup_folder(s))
        os.mkdir(backup_folder(s))
        c = checks(admin.get("/api/admin/doctor"))["backups"]
        assert not c["ok"] and re.match(
            r"^the last backup failed at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(the log's \[backup\]"
            r" lines say why\); there is none yet; the next try is at ", c["detail"]), c
        code, _, err = s.run("backup")
        assert code == 0, err
        c = checks(admin.get("/api/admin/doctor"))["backups"]
        assert c["ok"] and c["detail"].startswith("newest backup under a minute old"), c
        assert s.stop() == 0
        failures = [l for l in s.log.splitlines() if l.startswith("error: ")]
        assert failures == ["error: [backup] %s/backups is not a folder" % s.data_dir], s.log


def test_a_fresh_install_is_not_alarmed_while_its_first_backup_is_made():
    s = Server(modules=("contacts",))
    with s:
        s.create_admin(*ADMIN)
        s.start()
        admin = s.login(*ADMIN)  # the session outlives the restart
        admin.close()
        assert s.stop() == 0
        shutil.rmtree(backup_folder(s))
        fill(s, 300)
        s.start()
        seen = None
        while seen is None and wait_for(lambda: temporaries(s) or backups(s), 60):
            if backups(s):
                break
            c = checks(admin.get("/api/admin/doctor"))["backups"]
            if temporaries(s) and not backups(s):
                seen = c
        assert seen == {"name": "backups", "ok": True,
                        "detail": "no backup yet; the first is being made"}, seen
