# SPDX-License-Identifier: MIT
"""The read cache as clients see it: X-Cache says hit or miss, writes
through the server drop exactly the answers they change, identical misses
run the handler once, compressed variants are kept, memory is bounded."""

import gzip
import subprocess
import threading
import time

import harness
from harness import Server

def agency(plugins=None, env=None):
    """A server with the reader test module, an admin and locations A, B."""
    s, admin, (a, b) = harness.agency(("contacts", "reader"), ("Client A", "Client B"),
                                      plugins=plugins, env=env)
    return s, admin, a, b


def items(client, location, **query):
    q = "".join("&%s=%s" % kv for kv in query.items())
    r = client.get("/api/reader/items?location_id=%d%s" % (location, q))
    assert r.status == 200, r.body
    return r


def runs(client):
    return client.get("/api/reader/runs").json()["runs"]


def test_hit_after_miss_and_miss_after_a_write_to_a_read_table():
    s, admin, a, b = agency()
    with s:
        first = items(admin, a)
        assert first.header("x-cache") == "miss"
        again = items(admin, a)
        assert again.header("x-cache") == "hit" and again.body == first.body
        assert runs(admin) == 1
        assert admin.post("/api/reader/items", {}, headers={"X-Location-Id": str(a)}).status == 201
        after = items(admin, a)
        assert after.header("x-cache") == "miss"
        assert len(after.json()["items"]) == 1
        assert items(admin, a).header("x-cache") == "hit"


def test_writes_elsewhere_keep_the_answer():
    s, admin, a, b = agency()
    with s:
        items(admin, a)
        items(admin, b)
        # Another table, and the same table in another location.
        assert admin.post("/api/reader/notes", {}, headers={"X-Location-Id": str(a)}).status == 201
        assert admin.post("/api/reader/items", {}, headers={"X-Location-Id": str(b)}).status == 201
        assert items(admin, a).header("x-cache") == "hit"
        fresh = items(admin, b)
        assert fresh.header("x-cache") == "miss" and len(fresh.json()["items"]) == 1
        # A failed write (rolled back) drops nothing.
        assert admin.post("/api/reader/fail", {}, headers={"X-Location-Id": str(a)}).status == 422
        assert items(admin, a).header("x-cache") == "hit"


def test_agency_wide_answers_die_with_a_write_in_any_location():
    s, admin, a, b = agency()
    with s:
        assert admin.get("/api/reader/all").json()["items"] == 0
        assert admin.get("/api/reader/all").header("x-cache") == "hit"
        admin.post("/api/reader/items", {}, headers={"X-Location-Id": str(b)})
        r = admin.get("/api/reader/all")
        assert r.header("x-cache") == "miss" and r.json()["items"] == 1


def test_the_key_covers_location_role_and_query():
    s, admin, a, b = agency()
    with s:
        r = admin.post("/api/admin/users", {"email": "anna@example.test", "name": "Anna",
                                            "role": "location_user", "password": "anna-pass-1",
                                            "location_ids": [a]})
        assert r.status == 201, r.body
        admin.post("/api/reader/items", {}, headers={"X-Location-Id": str(a)})
        items(admin, a)
        assert items(admin, b).header("x-cache") == "miss"
        assert items(admin, b).json()["items"] == []
        anna = s.login("anna@example.test", "anna-pass-1")
        assert items(anna, a).header("x-cache") == "miss"  # another role
        assert items(anna, a).header("x-cache") == "hit"
        # The query is normalised: order does not matter, values do.
        assert items(admin, a, size=8, x=1).header("x-cache") == "miss"
        r = admin.get("/api/reader/items?x=1&size=8&location_id=%d" % a)
        assert r.header("x-cache") == "hit"
        assert items(admin, a, size=16, x=1).header("x-cache") == "miss"


def test_an_answer_that_depends_on_the_user_is_not_shared():
    s, admin, a, b = agency()
    with s:
        admin.post("/api/admin/users", {"email": "ben@example.test", "name": "Ben",
                                        "role": "agency_admin", "password": "ben-pass-12"})
        ben = s.login("ben@example.test", "ben-pass-12")
        me = admin.get("/api/reader/mine?location_id=%d" % a).json()["user"]
        other = ben.get("/api/reader/mine?location_id=%d" % a)
        assert other.json()["user"] != me and other.header("x-cache") == "miss"


def test_concurrent_identical_misses_run_the_handler_once():
    s, admin, a, b = agency(plugins={"reader": "delay_ms = 300\n"})
    with s:
        cookie = admin.cookies
        results = []

        def fetch():
            c = s.client()
            c.cookies = dict(cookie)
            results.append(items(c, a))

        threads = [threading.Thread(target=fetch) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(results) == 8
        assert len({r.body for r in results}) == 1
        assert runs(admin) == 1
        assert sorted(r.header("x-cache") for r in results).count("miss") >= 1


def test_the_ttl_ends_an_entry():
    s, admin, a, b = agency()
    with s:
        admin.get("/api/reader/short?location_id=%d" % a)
        assert admin.get("/api/reader/short?location_id=%d" % a).header("x-cache") == "hit"
        time.sleep(0.5)
        assert admin.get("/api/reader/short?location_id=%d" % a).header("x-cache") == "miss"


def unbrotli(data):
    return subprocess.run(["brotli", "-d", "-c"], input=data, capture_output=True, check=True).stdout


def test_compressed_variants_are_kept_with_the_entry():
    s, admin, a, b = agency()
    with s:
        plain = items(admin, a, size=20000)
        assert plain.header("content-encoding") is None and plain.header("vary") == "Accept-Encoding"
        br = admin.get("/api/reader/items?location_id=%d&size=20000" % a,
                       headers={"Accept-Encoding": "br"})
        assert br.header("x-cache") == "hit" and br.header("content-encoding") == "br"
        assert br.header("vary") == "Accept-Encoding"
        assert unbrotli(br.body) == plain.body
        gz = admin.get("/api/reader/items?location_id=%d&size=20000" % a,
                       headers={"Accept-Encoding": "gzip"})
        assert gz.header("content-encoding") == "gzip" and gzip.decompress(gz.body) == plain.body
        br2 = admin.get("/api/reader/items?location_id=%d&size=20000" % a,
                        headers={"Accept-Encoding": "br"})
        assert br2.body == br.body and runs(admin) == 1


def test_memory_is_bounded_and_the_least_recent_go_first():
    s, admin, a, b = agency(env={"PGHL_CACHE_MB": "1"})
    with s:
        # 200 answers of about 20 KB: four times the bound.
        for i in range(200):
            items(admin, a, size=20000, n=i)
        assert items(admin, a, size=20000, n=199).header("x-cache") == "hit"
        assert items(admin, a, size=20000, n=0).header("x-cache") == "miss"


def test_the_cache_can_be_turned_off():
    s, admin, a, b = agency(env={"PGHL_RESULT_CACHE": "0"})
    with s:
        items(admin, a)
        r = items(admin, a)
        assert r.header("x-cache") is None
        assert runs(admin) == 2


def test_a_route_reading_an_unknown_table_stops_the_start():
    s = Server(modules=("contacts", "reader_bad_reads"))
    code, log = s.start_fails()
    assert code == 1
    assert ("module reader_bad_reads: GET /api/reader_bad_reads/items reads 'no_such_table',"
            " which is not a table or view of the database") in log


def fetch_in_background(s, admin, location, answers, name):
    """A thread reading the location's items as `admin`, on a connection of
    its own; its answer lands in answers[name]."""
    def fetch():
        c = s.client()
        c.cookies = dict(admin.cookies)
        answers[name] = items(c, location)

    t = threading.Thread(target=fetch)
    t.start()
    return t


def test_a_write_while_an_identical_miss_waits_is_not_lost():
    # The leader reads before the write; a request waiting for it (already
    # through authentication) must not keep that answer under a newer stamp.
    s, admin, a, b = agency(plugins={"reader": "delay_ms = 300\n"})
    with s:
        leader = fetch_in_background(s, admin, a, {}, "leader")
        time.sleep(0.1)
        waiter = fetch_in_background(s, admin, a, {}, "waiter")
        time.sleep(0.1)
        writer = s.client()
        writer.cookies = dict(admin.cookies)
        assert writer.post("/api/reader/items", {}, headers={"X-Location-Id": str(a)}).status == 201
        leader.join()
        waiter.join()
        assert len(items(admin, a).json()["items"]) == 1


def test_a_request_waiting_for_an_identical_miss_is_answered_by_it_despite_a_write():
    # Both requests arrive before the write, so the leader's answer, whose
    # stamp is from before it, is as right for the waiter as for the leader:
    # the waiter takes it instead of running the handler again.
    s, admin, a, b = agency(plugins={"reader": "delay_ms = 300\n"})
    with s:
        answers = {}
        leader = fetch_in_background(s, admin, a, answers, "leader")
        time.sleep(0.1)
        waiter = fetch_in_background(s, admin, a, answers, "waiter")
        time.sleep(0.1)
        assert admin.post("/api/reader/items", {}, headers={"X-Location-Id": str(a)}).status == 201
        leader.join()
        waiter.join()
        assert answers["leader"].header("x-cache") == "miss"
        assert answers["waiter"].header("x-cache") == "hit"
        assert answers["waiter"].body == answers["leader"].body
        assert runs(admin) == 1
        # A request after the write does not take that answer.
        after = items(admin, a)
        assert after.header("x-cache") == "miss" and len(after.json()["items"]) == 1


def test_a_request_after_a_write_makes_the_answer_anew_for_those_after_it():
    # The leader took its stamp before the write; a request arriving after
    # it cannot use that answer, so it makes its own and keeps it (the
    # leader's is dropped): the next request is a hit on the new one.
    s, admin, a, b = agency(plugins={"reader": "delay_ms = 300\n"})
    with s:
        answers = {}
        leader = fetch_in_background(s, admin, a, answers, "leader")
        time.sleep(0.1)
        assert admin.post("/api/reader/items", {}, headers={"X-Location-Id": str(a)}).status == 201
        late = fetch_in_background(s, admin, a, answers, "late")
        leader.join()
        late.join()
        assert answers["late"].header("x-cache") == "miss"
        assert len(answers["late"].json()["items"]) == 1
        after = items(admin, a)
        assert after.header("x-cache") == "hit" and after.body == answers["late"].body
        assert runs(admin) == 2


def test_a_contact_added_keeps_answers_that_only_look_contacts_up():
    # The task list reads contacts only for each task's contact
    # ("contacts:lookup"): a contact added cannot change it; a contact
    # changed or deleted does. The contact list reads them all.
    s, admin, (a,) = harness.agency(("contacts", "tasks"), ("Client A",))
    with s:
        h = {"X-Location-Id": str(a),
             "X-CSRF-Token": admin.get("/api/auth/me").json()["csrf_token"]}

        def contact(first):
            r = admin.post("/api/contacts", {"first_name": first, "last_name": "Test",
                                             "email": "%s@example.test" % first.lower()}, headers=h)
            assert r.status == 201, r.body
            return r.json()["id"]

        ada = contact("Ada")
        assert admin.post("/api/tasks", {"title": "Call Ada", "contact_id": ada},
                          headers=h).status == 201
        tasks = admin.get("/api/tasks", headers=h)
        contacts = admin.get("/api/contacts", headers=h)
        assert tasks.header("x-cache") == "miss" and contacts.header("x-cache") == "miss"
        contact("Bob")
        again = admin.get("/api/tasks", headers=h)
        assert again.header("x-cache") == "hit" and again.body == tasks.body
        listed = admin.get("/api/contacts", headers=h)
        assert listed.header("x-cache") == "miss" and len(listed.json()["data"]) == 2
        assert admin.patch("/api/contacts/%d" % ada, {"first_name": "Augusta"},
                           headers=h).status == 200
        renamed = admin.get("/api/tasks", headers=h)
        assert renamed.header("x-cache") == "miss" and b"Augusta" in renamed.body
        gone = admin.delete("/api/contacts/%d" % ada, headers=h)
        assert gone.status == 204, (gone.status, gone.body)
        assert admin.get("/api/tasks", headers=h).header("x-cache") == "miss"


def test_repeated_query_names_keep_their_order_in_the_key():
    s, admin, a, b = agency()
    with s:
        first = admin.get("/api/reader/items?location_id=%d&size=8&size=800" % a)
        second = admin.get("/api/reader/items?location_id=%d&size=800&size=8" % a)
        assert len(first.json()["padding"]) == 1
        assert second.header("x-cache") == "miss" and len(second.json()["padding"]) == 100


def test_the_location_is_found_after_generated_columns():
    s, admin, a, b = agency()
    with s:
        scores = "/api/reader/scores?location_id=%d"
        assert admin.get(scores % a).json()["points"] == 0
        assert admin.get(scores % b).json()["points"] == 0
        assert admin.post("/api/reader/scores", {}, headers={"X-Location-Id": str(a)}).status == 201
        r = admin.get(scores % a)
        assert r.header("x-cache") == "miss" and r.json()["points"] == 5
        assert admin.get(scores % b).header("x-cache") == "hit"


def test_a_route_reading_a_virtual_table_stops_the_start():
    code, log = Server(modules=("contacts", "reader_fts_reads")).start_fails()
    assert code == 1
    assert ("reads 'reader_search', a virtual table; name the tables it is built from") in log
