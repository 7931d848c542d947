# SPDX-License-Identifier: MIT
"""The module system as an operator and a module author meet it: enabling
and disabling in plugins.d, settings, dependency order, migrations, and
every refusal, each one line naming the file and the reason. The jobs
modules register are tested in test_jobs.py."""

import json
import os
import re
import shutil
import sqlite3
import subprocess
import time

import harness
from harness import Server, error_lines, wait_for


def refused(modules, plugins=None, prepare=None):
    """Start a server that must refuse; returns its error lines."""
    with Server(modules=modules, plugins=plugins) as s:
        if prepare:
            prepare(s)
        code, log = s.start_fails()
        assert code == 1, log
        assert "listening" not in log
        lines = error_lines(log)
        assert lines, log
        return lines


def test_modules_command_lists_versions_and_states():
    with Server(modules=("contacts", "probe"),
                plugins={"probe": "enabled = yes\ngreeting = hi\n"}) as s:
        code, out, _ = s.run("modules")
        assert code == 0
        assert re.search(r"^contacts +0\.1\.0 +loaded", out, re.M), out
        assert re.search(r"^probe +9\.9\.9 +loaded", out, re.M), out


def test_administrators_read_the_modules_and_their_states():
    s = Server(modules=("contacts", "tasks", "probe"), plugins={"tasks": "enabled = no\n"})
    s.create_admin(*harness.ADMIN)
    with s.start():
        admin = s.login(*harness.ADMIN)
        r = admin.get("/api/admin/modules")
        assert r.status == 200, r.body
        got = {m["name"]: m for m in r.json()["data"]}
        assert got["contacts"] == {"name": "contacts", "version": "0.1.0", "state": "loaded",
                                   "summary": got["contacts"]["summary"], "reason": None,
                                   "requires": [], "wants": []}
        assert got["contacts"]["summary"].startswith("contacts:")
        assert got["tasks"]["state"] == "disabled" and got["tasks"]["reason"], got["tasks"]
        assert got["probe"]["state"] == "loaded" and got["probe"]["version"] == "9.9.9"
        loc = admin.post("/api/admin/locations", {"name": "A"}).json()["id"]
        r = admin.post("/api/admin/users", {"email": "lu@example.test", "name": "Lu",
                                            "role": "location_admin", "password": "user-pass-123",
                                            "location_ids": [loc]})
        assert r.status == 201, r.body
        r = s.login("lu@example.test", "user-pass-123").get("/api/admin/modules")
        assert r.status == 403 and r.error_code() == "forbidden", r.body
        assert s.get("/api/admin/modules").status == 401


def test_module_settings_reach_the_module():
    with Server(plugins={"probe": "greeting = \"good day\"\n"}).start() as s:
        assert s.get("/api/probe/hello").json()["greeting"] == "good day"


def test_disabled_module_has_no_routes_jobs_or_tables():
    with Server(modules=("contacts",), plugins={"contacts": "enabled = no\n"}).start() as s:
        r = s.get("/api/contacts")
        assert r.status == 404 and r.error_code() == "not_found"
        time.sleep(1.5)  # jobs first run a second after start
        assert s.sql("SELECT name FROM job_state WHERE name LIKE 'contacts.%'") == []
        assert s.sql("SELECT name FROM sqlite_master WHERE name = 'contacts'") == []
        code, out, _ = s.run("modules")
        assert re.search(r"^contacts +- +disabled +disabled in .*contacts\.conf", out, re.M), out


def test_a_disabled_requirement_leaves_its_dependents_off_and_the_server_up():
    with Server(modules=("contacts", "probe"), plugins={"contacts": "enabled = no\n"}) as s:
        s.start()
        assert s.get("/api/probe/hello").status == 404
        s.stop()
        warnings = [line for line in s.log.splitlines() if line.startswith("warning: ")]
        assert any(re.match(r"warning: .*/probe\.so: not loaded: it requires module 'contacts',"
                            r" which is disabled in .*contacts\.conf$", w) for w in warnings), s.log
        code, out, _ = s.run("modules")
        assert re.search(r"^probe +9\.9\.9 +disabled +it requires module 'contacts'", out,
                         re.M), out


SHIPPED = sorted(os.listdir(os.path.join(harness.ROOT, "modules")))


def test_the_server_starts_with_any_shipped_module_disabled():
    for off in SHIPPED:
        with Server(modules=SHIPPED, plugins={off: "enabled = no\n"}) as s:
            s.start()
            assert s.get("/api/health").status == 200
            s.stop()
            assert not error_lines(s.log), (off, s.log)
            code, out, _ = s.run("modules")
            assert code == 0 and re.search(r"^%s +- +disabled" % off, out, re.M), out


def test_missing_dependency_is_refused():
    lines = refused(("contacts", "probe_needs_missing"))
    assert len(lines) == 1
    assert "probe_needs_missing.so: refused: it requires module 'absent_module'," \
        " which is not installed" in lines[0]


def test_newer_abi_minor_is_refused():
    lines = refused(("contacts", "probe_newer_minor"))
    assert len(lines) == 1
    assert "probe_newer_minor.so: refused: built for module ABI 1.99, newer than" in lines[0]


def test_other_abi_major_is_refused():
    lines = refused(("contacts", "probe_old_major"))
    assert len(lines) == 1
    assert "probe_old_major.so: refused: built for module ABI 0." in lines[0]


def test_function_of_a_newer_core_is_refused_in_words():
    lines = refused(("contacts", "probe_newer_symbol"))
    assert len(lines) == 1
    assert "probe_newer_symbol.so: refused: it needs a newer HyperLevel core: it uses" \
        " hl_function_from_the_future" in lines[0]


def test_missing_descriptor_is_refused():
    lines = refused(("contacts", "probe_no_descriptor"))
    assert len(lines) == 1
    assert "probe_no_descriptor.so: refused: no hl_module descriptor" in lines[0]


def test_duplicate_route_is_refused_naming_the_owner():
    lines = refused(("contacts", "probe", "probe_duplicate_route"))
    assert len(lines) == 1
    assert "probe_duplicate_route.so: refused: init failed: route GET /api/probe/hello" \
        " is already registered by module 'probe'" in lines[0]


def test_failed_registration_refuses_even_when_init_ignores_it():
    lines = refused(("contacts", "probe_ignores_errors"))
    assert len(lines) == 1
    assert "probe_ignores_errors.so: refused: init failed: route GET /api/health is already" \
        " registered by module 'core'" in lines[0]


def test_module_log_lines_name_the_module():
    with Server(plugins={"probe": "greeting = hey\n"}).start() as s:
        pass
    assert "[probe] greeting is 'hey'" in s.log


def test_failing_init_is_refused():
    lines = refused(("contacts", "probe_init_fails"))
    assert len(lines) == 1
    assert "probe_init_fails.so: refused: init failed" in lines[0]


def test_module_writable_by_others_is_refused():
    def make_writable(s):
        os.chmod(os.path.join(s.modules_dir, "probe.so"), 0o757)
    lines = refused(("contacts", "probe"), prepare=make_writable)
    assert len(lines) == 1
    assert "probe.so: refused: the file is writable by others" in lines[0]


def test_unknown_setting_is_refused_with_its_line():
    lines = refused(("contacts",), {"contacts": "enabled = yes\n# note\npurge_after_dayz = 3\n"})
    assert len(lines) == 1
    assert re.search(r"contacts\.conf:3: module contacts has no setting 'purge_after_dayz'", lines[0])


def test_bad_setting_value_is_refused():
    lines = refused(("contacts",), {"contacts": "purge_after_days = soon\n"})
    assert any("contacts.conf:1: purge_after_days: 'soon' is not an integer" in l for l in lines)


def test_conf_without_module_file_is_left_off_with_a_warning():
    """A removed module package leaves its conf (a conffile) behind: the
    server starts without the module, and says so; one that requires it
    is left off too."""
    with Server(modules=("contacts", "probe"),
                plugins={"billing": "enabled = yes\n",
                         "probe": "enabled = yes\n"}) as s:
        os.remove(os.path.join(s.modules_dir, "contacts.so"))
        with open(os.path.join(s.plugins_dir, "contacts.conf"), "w") as f:
            f.write("enabled = yes\n")
        s.start()
        s.stop()
        warnings = [l for l in s.log.splitlines() if l.startswith("warning:")]
        assert any(re.search(r"billing\.conf: not loaded: there is no billing\.so in ", l)
                   for l in warnings), s.log
        assert any("probe.so: not loaded: it requires module 'contacts'" in l
                   for l in warnings), s.log
        code, out, _ = s.run("modules")
        assert re.search(r"^billing +- +disabled +there is no billing\.so in", out, re.M), out


def test_changed_migration_stops_the_start():
    def tamper(s):
        assert s.run("migrate")[0] == 0
        s.sql("UPDATE schema_migrations SET checksum = 'x' WHERE owner = 'contacts'")
    lines = refused(("contacts",), prepare=tamper)
    assert "migration '001_contacts' of contacts was changed after it was applied" in lines[0]


def test_database_ahead_of_module_stops_the_start():
    def ahead(s):
        assert s.run("migrate")[0] == 0
        s.sql("INSERT INTO schema_migrations (owner, seq, name, checksum)"
              " SELECT 'contacts', max(seq) + 1, '999_future', 'x' FROM schema_migrations"
              " WHERE owner = 'contacts'")
    lines = refused(("contacts",), prepare=ahead)
    assert "the database has migration '999_future' of contacts, which this version does not" \
        " ship" in lines[0]


def shipped(owner, folder):
    """(owner, name) of each migration a folder of the tree ships, in order."""
    names = sorted(os.listdir(os.path.join(harness.ROOT, folder)))
    return [(owner, n[:-4]) for n in names if n.endswith(".sql")]


def test_migrations_apply_once():
    contacts = shipped("contacts", "modules/contacts/migrations")
    with Server() as s:
        code, _, err = s.run("migrate")
        assert code == 0 and "contacts: %d migrations applied" % len(contacts) in err, err
        code, _, err = s.run("migrate")
        assert code == 0 and "applied" not in err
        owners = s.sql("SELECT owner, name FROM schema_migrations ORDER BY owner, seq")
        assert owners == contacts + shipped("core", "migrations") + \
            shipped("probe", "tests/modules/probe/migrations")
        assert contacts[:2] == [("contacts", "001_contacts"), ("contacts", "002_purge_by_deletion_time")]



def test_a_module_naming_another_modules_records_is_refused():
    with Server(modules=("contacts", "probe_bad_records")) as s:
        line = s.refusal()
        assert re.match(r"error: .*/probe_bad_records\.so: refused: init failed: table 'contacts'"
                        r" is a record of module 'contacts' already", line), line


def test_an_event_line_without_the_sub_account_is_refused():
    with Server(modules=("contacts", "probe_bad_event_line")) as s:
        line = s.refusal()
        assert re.match(r"error: .*/probe_bad_event_line\.so: refused: init failed: the line of"
                        r" event 'probe.item_added' needs :location in its SQL", line), line


class GrownServer(Server):
    """The core built with one more member at the end of every table a
    module hands over (build/tests/grown), as a later minor would have it."""

    def args(self, command="serve"):
        return [os.path.join(harness.BUILD, "tests", "grown", "hyperlevel")] + \
            super().args(command)[1:]


def test_modules_built_before_a_member_was_added_load_and_work():
    s = GrownServer(modules=("contacts", "probe", "events_probe", "tasks"))
    s.create_admin(*harness.ADMIN)
    code, out, _ = s.run("modules")
    assert code == 0 and re.search(r"^probe +9\.9\.9 +loaded", out, re.M), out
    with s.start():
        admin = s.login(*harness.ADMIN)
        loc = admin.post("/api/admin/locations", {"name": "A"}).json()["id"]
        assert s.get("/api/probe/hello").status == 200  # a route
        r = s.post("/api/probe/items", {"name": "grown"})  # its migration's table
        assert r.status == 201, r.body
        assert s.get("/api/probe/items/%d" % r.json()["id"]).json()["name"] == "grown"
        # its records, read by their size: the audit log names the item
        assert s.sql("SELECT entity, label FROM audit_log WHERE action = 'insert'") == \
            [("item", "grown")]
        assert wait_for(lambda: s.sql("SELECT runs FROM job_state WHERE name = 'probe.tick'"))
        r = admin.post("/api/events_probe/publish", {"events": [{"name": "thing.created"}]},
                       {"X-Location-Id": str(loc)})
        assert r.status == 201, r.body
        assert wait_for(lambda: s.sql("SELECT 1 FROM events_probe_seen WHERE handler = 'exact'"))
        pages = admin.get("/api/pages", headers={"X-Location-Id": str(loc)}).json()["data"]
        assert {"/probe", "/contacts", "/tasks"} <= {p["path"] for p in pages}, pages
        summary = {m["name"]: m for m in admin.get("/api/admin/modules").json()["data"]}
        assert summary["contacts"]["summary"].startswith("contacts:")


def test_each_module_indexes_only_its_own_tables():
    """An index lives in the migrations of the module whose table it is
    on, so a module can be turned off or purged without another's schema
    breaking; retired steps (NAME.retired beside them) are history."""
    made = {}  # table -> module
    steps = {}
    for module in SHIPPED:
        folder = os.path.join(harness.ROOT, "modules", module, "migrations")
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
            if not name.endswith(".sql") or os.path.exists(
                    os.path.join(folder, name[:-4] + ".retired")):
                continue
            with open(os.path.join(folder, name)) as f:
                sql = re.sub(r"--[^\n]*", "", f.read())
            steps[(module, name)] = sql
            for table in re.findall(r"CREATE (?:VIRTUAL )?TABLE (?:IF NOT EXISTS )?(\w+)", sql, re.I):
                made.setdefault(table, module)
    wrong = []
    for (module, name), sql in steps.items():
        for table in re.findall(r"CREATE (?:UNIQUE )?INDEX (?:IF NOT EXISTS )?\w+\s+ON\s+(\w+)",
                                sql, re.I):
            if made.get(table, module) != module:
                wrong.append("%s/%s indexes %s of %s" % (module, name, table, made[table]))
    assert not wrong, wrong
    assert len(made) > 20


def test_a_modules_counts_are_read_by_others_only_through_the_view_it_publishes():
    """The counts a module keeps (contact_counts, task_counts, late_counts,
    stage_counts, owner_open_counts, conversation_counts, unpaid_counts,
    tag_counts) are its own to change: other modules read the views it
    publishes (contact_totals, open_task_totals, overdue_task_totals,
    deal_totals, owner_open_totals, conversation_totals,
    unpaid_invoice_totals)."""
    counts = {}  # table -> module
    for module in SHIPPED:
        folder = os.path.join(harness.ROOT, "modules", module, "migrations")
        for name in os.listdir(folder) if os.path.isdir(folder) else ():
            with open(os.path.join(folder, name)) as f:
                for table in re.findall(r"CREATE TABLE (\w+_counts)", f.read()):
                    counts[table] = module
    assert sorted(counts) == ["contact_counts", "conversation_counts", "late_counts",
                              "owner_open_counts", "stage_counts", "tag_counts", "task_counts",
                              "unpaid_counts"], counts
    wrong = []
    for module in SHIPPED:
        folder = os.path.join(harness.ROOT, "modules", module)
        for name in os.listdir(folder):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(folder, name)) as f:
                text = f.read()
            wrong += ["%s/%s reads %s of %s" % (module, name, t, counts[t])
                      for t in counts if counts[t] != module and re.search(r"\b%s\b" % t, text)]
    assert not wrong, wrong


def test_enable_and_disable_keep_the_conf_and_check_what_requires_what():
    with Server(modules=("contacts", "tasks", "probe"),
                plugins={"tasks": "# Tasks and their due dates.\nenabled = yes\n"}) as s:
        conf = os.path.join(s.plugins_dir, "tasks.conf")
        code, _, err = s.run("modules", "disable", "contacts")
        assert code == 1 and error_lines(err) == [
            "error: cannot disable contacts: probe, tasks require it (disable them first)"], err
        code, out, _ = s.run("modules", "disable", "tasks")
        assert code == 0 and "tasks disabled in %s; restart" % conf in out, out
        with open(conf) as f:
            assert f.read() == "# Tasks and their due dates.\nenabled = no\n"
        code, out, _ = s.run("modules", "disable", "tasks")
        assert code == 0 and out == "tasks is already disabled\n"
        code, out, _ = s.run("modules", "disable", "probe")
        assert code == 0
        with open(os.path.join(s.plugins_dir, "probe.conf")) as f:
            assert f.read() == "enabled = no\n"  # made, having none
        code, _, err = s.run("modules", "disable", "contacts")
        assert code == 0, err
        code, _, err = s.run("modules", "enable", "tasks")
        assert code == 1 and error_lines(err) == [
            "error: cannot enable tasks: it requires module 'contacts', which is disabled"
            " (hyperlevel modules enable contacts)"], err
        assert s.run("modules", "enable", "contacts")[0] == 0
        assert s.run("modules", "enable", "tasks")[0] == 0
        code, _, err = s.run("modules", "enable", "billing")
        assert code == 2 and "there is no module 'billing'" in err
        code, _, err = s.run("modules", "switch", "tasks")
        assert code == 2 and error_lines(err) == [
            "error: usage: hyperlevel modules [enable NAME | disable NAME | purge NAME]"], err
        s.start()
        assert s.get("/api/probe/hello").status == 404  # still off
        code, out, _ = s.run("modules")
        assert re.search(r"^tasks +\S+ +loaded", out, re.M), out


def test_a_second_modules_folder_adds_modules_and_may_not_repeat_one():
    s = Server(modules=("contacts",))
    local = os.path.join(s.root, "local")
    os.makedirs(local)
    shutil.copy(harness.module_file("probe"), os.path.join(local, "probe.so"))
    os.chmod(os.path.join(local, "probe.so"), 0o755)
    args = s.args
    s.args = lambda command="serve": [a if a != s.modules_dir else s.modules_dir + ":" + local
                                      for a in args(command)]
    with s:
        s.start()
        assert s.get("/api/probe/hello").status == 200
        s.stop()
        shutil.copy(harness.module_file("probe"), os.path.join(s.modules_dir, "probe.so"))
        os.chmod(os.path.join(s.modules_dir, "probe.so"), 0o755)
        code, log = s.start_fails()
        assert code == 1 and error_lines(log) == [
            "error: %s/probe.so: refused: it is also %s/probe.so: keep one of the two"
            % (s.modules_dir, local)], log
        # A folder of the list that does not exist is skipped, but not the first.
        os.remove(os.path.join(s.modules_dir, "probe.so"))
        shutil.rmtree(local)
        assert s.start().get("/api/health").status == 200


def test_a_module_that_wants_one_which_requires_it_loads_after_it():
    """reader_wants wants requires_reader_wants, which requires it: the
    want only orders, so both load (whatever their names' order), and to
    reader_wants the other is absent for good, as it was at its init."""
    with Server(modules=("contacts", "reader_wants", "requires_reader_wants")) as s:
        s.start()
        assert s.get("/api/requires_reader_wants/hello").status == 200
        s.stop()
        assert "[reader_wants] requires_reader_wants loaded: 0" in s.log, s.log
        code, out, _ = s.run("modules")
        assert code == 0 and len(re.findall(r" loaded ", out)) == 3, out


def test_enable_and_disable_rewrite_the_line_in_place_and_keep_the_owner():
    with Server(modules=("contacts", "tasks")) as s:
        conf = os.path.join(s.plugins_dir, "tasks.conf")
        with open(conf, "w") as f:
            f.write("# Tasks\nenabled = yes\n# the rest\n")
        os.chmod(conf, 0o640)
        os.chown(conf, 65534, 65534)
        assert s.run("modules", "disable", "tasks")[0] == 0
        with open(conf) as f:
            assert f.read() == "# Tasks\nenabled = no\n# the rest\n"
        st = os.stat(conf)
        assert (st.st_mode & 0o777, st.st_uid, st.st_gid) == (0o640, 65534, 65534)
        # A conf of comments only, without a last newline, gets a line of its own.
        with open(conf, "w") as f:
            f.write("# Tasks, off\nenabled = no\n# no newline at the end")
        assert s.run("modules", "enable", "tasks")[0] == 0
        with open(conf) as f:
            assert f.read() == "# Tasks, off\nenabled = yes\n# no newline at the end"
        with open(conf, "w") as f:
            f.write("# only a comment")
        assert s.run("modules", "disable", "tasks")[0] == 0
        with open(conf) as f:
            assert f.read() == "# only a comment\nenabled = no\n"
        # A module off because one it requires is off is still its conf's
        # to turn off, so it stays off when that one comes back.
        assert s.run("modules", "enable", "tasks")[0] == 0
        assert s.run("modules", "disable", "contacts")[0] == 1  # tasks requires it
        with open(os.path.join(s.plugins_dir, "contacts.conf"), "w") as f:
            f.write("enabled = no\n")
        code, out, _ = s.run("modules", "enable", "tasks")
        assert code == 0 and out.startswith("tasks is already enabled (but not loaded: it"
                                            " requires module 'contacts'"), out
        code, out, _ = s.run("modules", "disable", "tasks")
        assert code == 0 and out.startswith("tasks disabled in"), out
        assert s.run("modules", "enable", "contacts")[0] == 0
        code, out, _ = s.run("modules")
        assert re.search(r"^tasks +- +disabled +disabled in", out, re.M), out


def test_purge_drops_a_disabled_modules_tables_records_and_job_state_after_a_backup():
    with Server(modules=("contacts", "probe")) as s:
        s.start()
        assert wait_for(lambda: s.sql("SELECT count(*) FROM job_state WHERE name = 'probe.tick'")
                        == [(1,)])
        code, _, err = s.run("modules", "purge", "probe")
        assert code == 1 and error_lines(err) == [
            "error: probe is enabled: disable it first (hyperlevel modules disable probe)"], err
        assert s.run("modules", "disable", "probe")[0] == 0
        backups = os.path.join(s.data_dir, "backups")
        assert wait_for(lambda: os.path.isdir(backups) and os.listdir(backups))  # the daily one
        made = set(os.listdir(backups))
        code, _, err = s.run("modules", "purge", "probe")  # the server still runs
        assert code == 1 and error_lines(err) == [
            "error: %s is used by another hyperlevel process" % s.data_dir], err
        assert set(os.listdir(backups)) == made  # none for a refusal
        s.stop()
        def tables():
            return [r[0] for r in s.sql("SELECT name FROM sqlite_schema WHERE type = 'table'"
                                        " AND name LIKE 'probe%' ORDER BY name")]
        assert tables() == ["probe_item_counts", "probe_items", "probe_ticks", "probe_work"]
        contacts_tables = s.sql("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'contact%'")

        with open(os.path.join(s.plugins_dir, "contacts.conf"), "w") as f:
            f.write("enabled = no\n")
        assert s.run("modules", "enable", "probe")[0] == 1  # contacts is off
        with open(os.path.join(s.plugins_dir, "probe.conf"), "w") as f:
            f.write("enabled = yes\n")
        code, _, err = s.run("modules", "purge", "contacts")
        assert code == 1 and error_lines(err) == ["error: cannot purge contacts: probe requires it"]
        os.remove(os.path.join(s.plugins_dir, "contacts.conf"))
        code, _, err = s.run("modules", "purge", "billing")
        assert code == 2 and "there is no module 'billing'" in err, err

        assert s.run("modules", "disable", "probe")[0] == 0
        code, out, err = s.run("modules", "purge", "probe")
        assert code == 0, err
        backup = re.search(r"^backup: (\S+)$", out, re.M).group(1)
        assert os.path.dirname(backup) == backups and os.path.getsize(backup) > 0
        assert "probe purged: 5 schema objects dropped, 3 migration records and 2 job states" \
            " deleted" in out, out
        assert tables() == []
        assert s.sql("SELECT count(*) FROM schema_migrations WHERE owner = 'probe'") == [(0,)]
        assert s.sql("SELECT count(*) FROM job_state WHERE name LIKE 'probe.%'") == [(0,)]
        assert s.sql("SELECT count(*) FROM job_state WHERE name LIKE 'contacts.%'") != [(0,)]
        assert s.sql("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'contact%'") == \
            contacts_tables
        with sqlite3.connect(backup) as db:  # the backup still has them
            assert db.execute("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'probe%'"
                              ).fetchall() != [(0,)]

        # Turned on again, it starts afresh.
        assert s.run("modules", "enable", "probe")[0] == 0
        s.start()
        assert s.get("/api/probe/hello").status == 200
        assert tables() == ["probe_item_counts", "probe_items", "probe_ticks", "probe_work"]


def built_module(folder, name, steps):
    """A module made for a test: `steps` (name, SQL) as its migrations,
    compiled against the tree's header into `folder`."""
    sql = ",\n".join('{ .name = %s, .sql = %s }' % (json.dumps(n), json.dumps(q)) for n, q in steps)
    source = os.path.join(folder, name + ".c")
    with open(source, "w") as f:
        f.write('#include <hyperlevel/hyperlevel.h>\n'
                'static const struct hl_migration steps[] = {\n%s\n};\n'
                'static int init(struct hl_mod *mod) { return hl_add_migrations(mod, steps); }\n'
                'HL_MODULE(.name = "%s", .version = "1.0.0", .init = init);\n' % (sql, name))
    subprocess.run(["cc", "-std=gnu11", "-I", os.path.join(harness.ROOT, "core", "include"),
                    "-fPIC", "-shared", "-o", os.path.join(folder, name + ".so"), source],
                   check=True, timeout=120)
    os.remove(source)
    os.chmod(os.path.join(folder, name + ".so"), 0o755)


def test_purge_takes_only_what_the_modules_own_migrations_made():
    with Server(modules=("contacts",)) as s:
        built_module(s.modules_dir, "ma", [("001_ma", """
            CREATE TABLE IF NOT EXISTS shared_tags (tag TEXT);
            CREATE TABLE ma_old (id INTEGER PRIMARY KEY);
            ALTER TABLE ma_old RENAME TO ma_items;
            CREATE INDEX ma_tags ON shared_tags (tag);""")])
        built_module(s.modules_dir, "mb", [("001_mb", """
            CREATE TABLE IF NOT EXISTS SHARED_TAGS (tag TEXT);
            INSERT INTO shared_tags VALUES ('kept');""")])
        built_module(s.modules_dir, "mc", [("001_mc", """
            CREATE TABLE mc_log (id INTEGER);
            CREATE TRIGGER mc_seen AFTER INSERT ON contacts BEGIN
                INSERT INTO mc_log VALUES (new.id);
            END;""")])
        built_module(s.modules_dir, "md", [("001_md", "ALTER TABLE contacts ADD COLUMN md_flag INTEGER;")])
        assert s.run("migrate")[0] == 0
        def names():
            return {r[0] for r in s.sql("SELECT name FROM sqlite_schema")}
        assert {"shared_tags", "ma_items", "ma_tags", "mc_log", "mc_seen"} <= names()
        for name in ("ma", "mb", "mc", "md", "contacts"):  # every other one off too
            with open(os.path.join(s.plugins_dir, name + ".conf"), "w") as f:
                f.write("enabled = no\n")

        code, out, err = s.run("modules", "purge", "ma")
        assert code == 0, err
        gone = {"ma_items", "ma_tags"}
        assert not gone & names() and "shared_tags" in names(), out
        assert s.sql("SELECT tag FROM shared_tags") == [("kept",)]  # mb's, with its row

        code, out, err = s.run("modules", "purge", "mc")
        assert code == 0, err
        assert not {"mc_log", "mc_seen"} & names()  # the trigger on contacts too

        code, _, err = s.run("modules", "purge", "md")
        assert code == 1 and error_lines(err) == [
            "error: cannot purge md: its migrations change table contacts, which is not its own;"
            " nothing was changed"], err
        assert s.sql("SELECT count(*) FROM schema_migrations WHERE owner = 'md'") == [(1,)]
        assert "contacts" in names()
