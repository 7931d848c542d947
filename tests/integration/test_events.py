# SPDX-License-Identifier: MIT
"""Events, from hl_publish in a request to the handlers of a module, seen
through the events_probe test module: its route publishes what the test
sends (next to a write, answering the status asked for) and answers what
each hl_publish returned; its handlers write every event they get into
events_probe_seen ("thing.*" as "prefix", "thing.created" as "exact"),
fail after writing ("thing.broken"), or publish from a handler
("thing.chain" publishes "thing.chained").

Delivery is asynchronous, so the tests poll for it; to show that something
was NOT delivered they publish a marker afterwards and wait for it, since
events reach the handlers in the order they were handed over."""

import json
import re

from harness import wait_for, ADMIN, Server, agency, error_lines

EINVAL, ETOOBIG = -2, -8



def events_server(locations=("Client A",)):
    return agency(modules=("events_probe",), locations=locations)


def publish(client, location, events, **options):
    body = dict(options, events=[e if isinstance(e, dict) else {"name": e} for e in events])
    return client.post("/api/events_probe/publish", body, {"X-Location-Id": str(location)})


def seen(s, handler="prefix"):
    return s.sql("SELECT name, location_id, subject_id, data FROM events_probe_seen"
                 " WHERE handler = ? ORDER BY id", handler)


def names(s, handler="prefix"):
    return [row[0] for row in seen(s, handler)]


def settle(s, client, location, marker="thing.marker"):
    """Publish a marker and wait until the handlers have had it: every event
    handed over before it has been delivered by then."""
    r = publish(client, location, [marker])
    assert r.status == 201 and r.json() == {"rc": [0]}, r.body
    assert wait_for(lambda: marker in names(s)), names(s)


def test_committed_events_reach_handlers_with_their_fields():
    s, admin, (a, b) = events_server(("Client A", "Client B"))
    with s:
        r = publish(admin, a, [{"name": "thing.created", "subject": 7, "data": '{"x": 1}'}])
        assert r.status == 201 and r.json() == {"rc": [0]}, r.body
        r = publish(admin, b, [{"name": "thing.updated", "subject": 8}])
        assert r.status == 201, r.body
        assert wait_for(lambda: len(seen(s)) == 2), seen(s)
        assert seen(s) == [("thing.created", a, 7, '{"x": 1}'), ("thing.updated", b, 8, "{}")]
        assert wait_for(lambda: seen(s, "exact"))
        assert seen(s, "exact") == [("thing.created", a, 7, '{"x": 1}')]


def test_rolled_back_request_delivers_nothing():
    s, admin, (a,) = events_server()
    with s:
        r = publish(admin, a, ["thing.lost", "thing.created"], status=422)
        assert r.status == 422 and r.json() == {"rc": [0, 0]}, r.body
        settle(s, admin, a)
        assert names(s) == ["thing.marker"]
        assert seen(s, "exact") == []
        assert s.sql("SELECT name FROM events_probe_writes ORDER BY id") == [("thing.marker",)]


def test_request_without_a_write_delivers_after_success():
    s, admin, (a,) = events_server()
    with s:
        r = publish(admin, a, ["thing.read"], write=False, status=200)
        assert r.status == 200 and r.json() == {"rc": [0]}, r.body
        r = publish(admin, a, ["thing.refused"], write=False, status=404)
        assert r.status == 404, r.body
        settle(s, admin, a)
        assert names(s) == ["thing.read", "thing.marker"]
        assert s.sql("SELECT name FROM events_probe_writes") == [("thing.marker",)]


def test_order_is_kept_within_and_across_requests():
    s, admin, (a,) = events_server()
    with s:
        sent = []
        for request in range(5):
            batch = [{"name": "thing.n", "subject": request * 100 + i} for i in range(20)]
            assert publish(admin, a, batch).status == 201
            sent += [e["subject"] for e in batch]
        assert wait_for(lambda: len(seen(s)) == len(sent)), len(seen(s))
        assert [row[2] for row in seen(s)] == sent


def test_handlers_match_full_names_and_prefixes():
    s, admin, (a,) = events_server()
    with s:
        r = publish(admin, a, ["thing.created", "thingx.created", "other.thing",
                               "thing.deep.down", "thing.created.too"])
        assert r.json() == {"rc": [0, 0, 0, 0, 0]}, r.body
        settle(s, admin, a)
        assert names(s) == ["thing.created", "thing.deep.down", "thing.created.too",
                            "thing.marker"]
        assert names(s, "exact") == ["thing.created"]


def metrics(client):
    r = client.get("/api/admin/metrics")
    assert r.status == 200, r.body
    return r.json()["events"]


def test_failing_handler_is_rolled_back_counted_and_logged():
    s, admin, (a,) = events_server()
    with s:
        before = metrics(admin)
        assert before["handlers"] == 5 and before["failed"] == 0, before
        assert publish(admin, a, ["thing.broken"]).status == 201
        settle(s, admin, a)
        # thing.* took it (its own transaction), the failing handler's row is gone
        assert names(s) == ["thing.broken", "thing.marker"]
        assert s.sql("SELECT count(*) FROM events_probe_seen WHERE handler = 'broken'") == [(0,)]
        # broken: thing.* and the failure; the marker: thing.* (counted just
        # after its commit, so maybe after the test saw its row)
        assert wait_for(lambda: metrics(admin)["delivered"] - before["delivered"] == 2)
        after = metrics(admin)
        assert after["failed"] == 1, after
        assert after["published"] - before["published"] == 2, (before, after)
        assert after["dropped"] == 0 and after["queued"] == 0, after
        text = admin.get("/metrics").body.decode()
        assert 'hyperlevel_event_deliveries_total{result="failed"} 1\n' in text, text
        assert "hyperlevel_events_published_total " in text
        assert "hyperlevel_events_dropped_total 0\n" in text
        s.stop()
        lines = [l for l in error_lines(s.log) if "thing.broken" in l]
        assert len(lines) == 1, s.log
        assert "[event] events_probe: the handler of 'thing.broken' failed on thing.broken" \
            " (invalid argument); its writes were rolled back" in lines[0], lines


def test_handler_publishes_after_its_commit():
    s, admin, (a,) = events_server()
    with s:
        assert publish(admin, a, [{"name": "thing.chain", "subject": 5}]).status == 201
        assert wait_for(lambda: "thing.chained" in names(s)), seen(s)
        assert seen(s) == [("thing.chain", a, 5, "{}"),
                           ("thing.chained", a, 5, '{"from": "thing.chain"}')]
        # hl_job_publish refused a bad name and data that is not an object
        chain = seen(s, "chain")
        assert len(chain) == 1 and json.loads(chain[0][3]) == {"bad_name": EINVAL,
                                                               "bad_data": EINVAL}, chain


def test_publish_refuses_bad_names_and_data():
    s, admin, (a,) = events_server()
    with s:
        bad_names = ["Thing.created", "thing", ".thing.x", "thing.x.", "thing..x", "thing.cr\u00e9",
                     "", "thing x.y", "thing-x.y", "t." + "x" * 63, None]
        r = publish(admin, a, [{"name": n} if n is not None else {} for n in bad_names])
        assert r.status == 201 and r.json() == {"rc": [EINVAL] * len(bad_names)}, r.body
        bad_data = ["[1]", "not json", '{"a":', '"text"', "1", "", '{"a": 1} x', "{}{}"]
        r = publish(admin, a, [{"name": "thing.data", "data": d} for d in bad_data])
        assert r.json() == {"rc": [EINVAL] * len(bad_data)}, r.body
        big = '{"x": "%s"}' % ("y" * 70000)
        good = [{"name": "thing.ok_1", "data": ' \n{"nested": {"a": [1, 2]}}'},
                {"name": "t." + "x" * 62}, {"name": "thing.big", "data": big}]
        r = publish(admin, a, good)
        assert r.json() == {"rc": [0, 0, ETOOBIG]}, r.body
        settle(s, admin, a)
        assert names(s) == ["thing.ok_1", "thing.marker"]
        assert seen(s)[0][3] == ' \n{"nested": {"a": [1, 2]}}'


def test_bad_handler_name_refuses_the_module():
    with Server(modules=("events_probe_bad_handler",)) as s:
        line = s.refusal()
        assert re.search(r"events_probe_bad_handler\.so: refused: init failed: event handler 6:"
                         r" 'Thing\.Created' is not an event name", line), line


def test_events_wait_for_jobs_when_jobs_are_off():
    """With jobs = no, handlers cannot run: the start says so, and the
    events are not kept for them."""
    s = Server(modules=("events_probe",), env={"PGHL_JOBS": "no"})
    s.create_admin(*ADMIN)
    with s:
        s.start()
        admin = s.login(*ADMIN)
        a = admin.post("/api/admin/locations", {"name": "A"}).json()["id"]
        assert publish(admin, a, ["thing.created"]).status == 201
        m = metrics(admin)
        assert m["handlers"] == 0 and m["published"] == 1 and m["queued"] == 0, m
        s.stop()
        assert "jobs = no: 5 event handlers will not run" in s.log, s.log
