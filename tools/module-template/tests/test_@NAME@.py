# SPDX-License-Identifier: MIT
"""@NAME@'s tests (`make check`): the module built here, loaded by the
installed server on a free port with a data folder of its own, driven over
HTTP as the web app drives it, its database read with sqlite3. The harness
comes with hyperlevel-dev; the Makefile says where to find it."""

from harness import agency, run_tests, wait_for

MODULES = ("@NAME@",)


def test_notes_are_added_and_listed_in_their_sub_account_only():
    s, admin, (a, b) = agency(modules=MODULES, locations=("Client A", "Client B"))
    with s:
        r = admin.post("/api/@NAME@/notes?location_id=%d" % a, {"body": "Call <b>Ada</b>"})
        assert r.status == 201, r.body
        listed = admin.get("/api/@NAME@/notes?location_id=%d" % a).json()["data"]
        assert listed == [r.json()] and listed[0]["body"] == "Call <b>Ada</b>"
        assert admin.get("/api/@NAME@/notes?location_id=%d" % b).json()["data"] == []
        # One note, in its own sub-account only.
        path = "/api/@NAME@/notes/%d?location_id=%%d" % r.json()["id"]
        assert admin.get(path % a).json() == r.json()
        assert admin.get(path % b).status == 404


def test_a_bad_note_is_refused_and_nothing_is_written():
    s, admin, (a,) = agency(modules=MODULES)
    with s:
        for body in ({}, {"body": ""}, {"body": "x" * 2001}, {"body": 7}, {"body": "a", "x": 1}):
            r = admin.post("/api/@NAME@/notes?location_id=%d" % a, body)
            assert r.status == 422, (body, r.status)
        assert s.sql("SELECT count(*) FROM @NAME@_notes") == [(0,)]


def test_the_job_deletes_notes_older_than_keep_days():
    s, admin, (a,) = agency(modules=MODULES, plugins={"@NAME@": "keep_days = 30\n"})
    with s:
        s.sql("INSERT INTO @NAME@_notes (location_id, body, created_at) VALUES"
              " (?, 'old', '2000-01-01T00:00:00.000Z'), (?, 'new', strftime('%Y-%m-%dT%H:%M:%fZ'))",
              a, a)
        assert wait_for(lambda: s.sql("SELECT body FROM @NAME@_notes") == [("new",)], seconds=30)


if __name__ == "__main__":
    run_tests(globals())
