# SPDX-License-Identifier: MIT
"""The CRM's tables as an operator's SQL sees them: the names the docs use,
a location on every tenant row, money in cents, and the contact search
index kept in step with the contacts by triggers."""

import hashlib
import os

from harness import ROOT, Server, connect

MODULES = ("contacts", "opportunities", "conversations", "tasks", "invoices", "reports",
           "agency", "mobile")
TENANT_TABLES = {
    "contacts": ["contacts", "companies", "tags", "contact_tags", "custom_fields",
                 "custom_values", "notes"],
    "opportunities": ["pipelines", "stages", "opportunities"],
    "conversations": ["conversations", "messages"],
    "tasks": ["tasks"],
    "invoices": ["invoices", "invoice_items", "payments"],
    "reports": ["dashboards", "widgets"],
}


def migrated(modules=MODULES, plugins=None):
    s = Server(modules=modules, plugins=plugins)
    code, _, err = s.run("migrate")
    assert code == 0, err
    return s


def test_every_tenant_table_carries_its_location():
    with migrated() as s:
        for module, tables in TENANT_TABLES.items():
            for table in tables:
                cols = {r[1]: r for r in s.sql("SELECT * FROM pragma_table_info(?)", table)}
                assert "location_id" in cols, table
                assert cols["location_id"][3] == 1, table + ".location_id may be NULL"
                fks = s.sql("SELECT \"table\", \"from\" FROM pragma_foreign_key_list(?)", table)
                assert ("locations", "location_id") in fks, table


def test_money_is_integer_cents():
    with migrated() as s:
        for table in ("opportunities", "invoices", "invoice_items", "payments"):
            for name, kind in s.sql("SELECT name, type FROM pragma_table_info(?)", table):
                if name.endswith("_cents"):
                    assert kind == "INTEGER", (table, name)


def test_agency_and_mobile_need_the_modules_they_read():
    s = Server(modules=("agency",))
    code, log = s.start_fails()
    assert code == 1 and "agency" in log and "contacts" in log
    with migrated(plugins={"agency": "enabled = no\n", "mobile": "enabled = no\n",
                           "reports": "enabled = no\n", "invoices": "enabled = no\n"}) as s:
        names = {r[0] for r in s.sql("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        assert "opportunities" in names and "invoices" not in names and "dashboards" not in names


def search(s, text):
    return [r[0] for r in s.sql("SELECT id FROM contacts WHERE id IN (SELECT rowid FROM"
                                " contact_search WHERE text LIKE ?) ORDER BY id", "%" + text + "%")]


def test_a_deleted_contact_leaves_the_search_index():
    # The module writes each contact's line itself (test_contacts_write and
    # _edit search what they create and change); a live contact deleted by
    # anyone, softly or for good, takes its line along through a trigger,
    # and a restored one brings it back.
    with migrated() as s:
        s.sql("INSERT INTO agencies (id, name) VALUES (1, 'A')")
        s.sql("INSERT INTO locations (id, agency_id, name) VALUES (1, 1, 'L')")
        s.sql("INSERT INTO contacts (id, location_id, first_name, last_name, email)"
              " VALUES (1, 1, 'Anna', 'Berg', 'anna@berg.test'), (2, 1, 'Ben', 'Okafor', NULL)")
        s.sql("INSERT INTO contact_search (rowid, text) VALUES (1, 'Anna Berg anna@berg.test  '),"
              " (2, 'Ben Okafor   ')")
        assert search(s, "okaf") == [2] and search(s, "nna be") == [1]
        s.sql("DELETE FROM contacts WHERE id = 2")
        assert search(s, "okaf") == [] and search(s, "nna be") == [1]
        s.sql("UPDATE contacts SET deleted_at = '2026-01-01T00:00:00.000Z' WHERE id = 1")
        assert search(s, "nna be") == []
        s.sql("UPDATE contacts SET deleted_at = NULL WHERE id = 1")
        assert search(s, "nna be") == [1]
        plan = " ".join(r[3] for r in s.sql(
            "EXPLAIN QUERY PLAN SELECT id FROM contacts WHERE location_id = 1 AND id IN"
            " (SELECT rowid FROM contact_search WHERE text LIKE '%anna%')"))
        assert "VIRTUAL TABLE INDEX" in plan and "SCAN contacts" not in plan, plan


def test_existing_contacts_survive_the_rebuild_into_the_full_record():
    # A database from before the full record: the core's tables and the
    # contacts module's first two steps, recorded as the server records them.
    s = Server(modules=("contacts",))
    folder = os.path.join(ROOT, "modules", "contacts", "migrations")
    with s:
        code, _, err = s.run("migrate", "--modules-dir", s.root)  # the core's steps only
        assert code == 0, err
        with connect(s.db_path) as db:
            for seq, name in ((1, "001_contacts"), (2, "002_purge_by_deletion_time")):
                sql = open(os.path.join(folder, name + ".sql")).read()
                db.executescript(sql)
                db.execute("INSERT INTO schema_migrations (owner, seq, name, checksum)"
                           " VALUES ('contacts', ?, ?, ?)",
                           (seq, name, hashlib.sha256(sql.encode()).hexdigest()))
            db.execute("INSERT INTO agencies (id, name) VALUES (1, 'A')")
            db.execute("INSERT INTO locations (id, agency_id, name) VALUES (1, 1, 'L')")
            db.execute("INSERT INTO contacts (id, location_id, first_name, email, deleted_at)"
                       " VALUES (7, 1, 'Kept', 'kept@x.test', NULL), (8, 1, 'Gone', NULL, '2026-01-01')")
        code, _, err = s.run("migrate")
        rest = len([n for n in os.listdir(folder) if n.endswith(".sql")]) - 2
        assert code == 0 and "contacts: %d migrations applied" % rest in err, err
        assert s.sql("SELECT id, first_name, email, deleted_at FROM contacts ORDER BY id") == [
            (7, "Kept", "kept@x.test", None), (8, "Gone", None, "2026-01-01")]
        # The live contacts are counted from the rows there were.
        assert s.sql("SELECT location_id, live, scored, health_sum FROM contact_counts") == [(1, 1, 0, 0)]
        assert search(s, "kept@") == [7]
        assert s.sql("PRAGMA foreign_key_check") == []
