# SPDX-License-Identifier: MIT
"""The contacts module's upkeep jobs on seeded data: every contact gets a
health score from its recent activity, and a contact without a company is
linked to its location's company with its e-mail's domain. The rows are
set before the server starts, since each job's first pass begins a second
after the start."""

import time

from harness import MODULES, SEED_PASSWORD, Server, job_runs, seeded_copy


def stopped_server():
    """A server on a copy of the seeded data, not started: the test sets
    rows first."""
    return Server(modules=MODULES, data_dir=seeded_copy(), env={"PGHL_BACKUPS": "0"})


def first_pass(s, job, runs, timeout=30):
    """Wait until `job` has been through every contact once since it had
    run `runs` slices (the seeded data's jobs have run before)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        row = s.sql("SELECT runs, cursor FROM job_state WHERE name = ?", job)
        if row and row[0][0] > runs and row[0][1] == 0:
            return True
        time.sleep(0.1)
    return False


def test_every_contact_gets_a_health_score_from_its_recent_activity():
    s = stopped_server()
    busy, quiet, old = [r[0] for r in s.sql(
        "SELECT id FROM contacts WHERE location_id = 1 AND deleted_at IS NULL ORDER BY id LIMIT 3")]
    s.sql("DELETE FROM contact_activity WHERE contact_id IN (?, ?, ?)", busy, quiet, old)
    s.sql("INSERT INTO contact_activity (contact_id, kind, location_id, count, last_at) VALUES"
          " (?1, 'message.received', 1, 95, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-2 days')),"
          " (?1, 'task.completed', 1, 5, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 days')),"
          " (?2, 'message.received', 1, 3, '2020-01-01T00:00:00.000Z')", busy, old)
    updated = s.sql("SELECT updated_at FROM contacts WHERE id = ?", busy)
    runs = job_runs(s).get("contacts.health", 0)
    with s:
        s.start()
        assert first_pass(s, "contacts.health", runs)
        scores = dict(s.sql("SELECT id, health_score FROM contacts WHERE id IN (?, ?, ?)", busy, quiet, old))
        # 40 for a recent message, 10 for a recent task, 10 for 100 events.
        assert scores == {busy: 60, quiet: 0, old: 0}, scores
        assert s.sql("SELECT count(*) FROM contacts WHERE deleted_at IS NULL AND health_score IS NULL") == [(0,)]
        # A score is not a change by a user: updated_at stays.
        assert s.sql("SELECT updated_at FROM contacts WHERE id = ?", busy) == updated
        admin = s.login("perf@example.test", SEED_PASSWORD)
        assert admin.get("/api/contacts/%d?location_id=1" % busy).json()["health_score"] == 60


def test_a_contact_is_linked_to_its_locations_company_by_e_mail_domain():
    s = stopped_server()
    s.sql("INSERT INTO companies (location_id, name, domain) VALUES (1, 'Acme Upkeep', 'acme-upkeep.test')")
    company = s.sql("SELECT id FROM companies WHERE domain = 'acme-upkeep.test'")[0][0]
    s.sql("INSERT INTO contacts (location_id, first_name, email) VALUES"
          " (1, 'Linked', 'pat@ACME-upkeep.test'), (2, 'Other', 'sam@acme-upkeep.test'),"
          " (1, 'Nowhere', 'kim@no-such-company.test')")
    ids = dict(s.sql("SELECT first_name, id FROM contacts WHERE first_name IN ('Linked', 'Other', 'Nowhere')"))
    runs = job_runs(s).get("contacts.companies", 0)
    with s:
        s.start()
        assert first_pass(s, "contacts.companies", runs)
        linked = dict(s.sql("SELECT first_name, company_id FROM contacts WHERE id IN (?, ?, ?)", *ids.values()))
        # The other location's contact has no company of that domain there.
        assert linked == {"Linked": company, "Other": None, "Nowhere": None}
        assert s.sql("SELECT company_name FROM contacts WHERE id = ?", ids["Linked"]) == [(None,)]
