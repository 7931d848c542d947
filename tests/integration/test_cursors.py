# SPDX-License-Identifier: MIT
"""Forged cursors, on every list the running server has: the routes come
from /api/admin/routes, so a list a module adds later is walked too. A
cursor that is not one the list gave (not hex, not a JSON array, too few
or too many members, members of the wrong type, nested, huge) is 400 with
the JSON error, never a 5xx nor an error in the log; a real next_cursor
still opens the next page."""

import json
import re

from harness import answers_a_person, error_lines, seeded_server

# JSON texts, sent hex-encoded as a list writes its cursors.
FORGED_JSON = [
    "[x]", "[]", "[1", "[1] x", "[1]]", '"abc"', "{}", "1", "null",
    '["a","b","c","d","e"]', '["abc", "def"]', '["abc", 1e999]', "[1e999, 1]",
    '["2024-01-01", 99999999999999999999999]', '["2024-01-01", -1]', '["2024-01-01", 0]',
    '["2024-01-01", 1.5]', '["2024-01-01", "7"]', "[null, null]", "[[1]]", "[{}]",
    '[{"a": 1}, 1]', "[true, 1]", '["o", [1], 1]', "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]",
    '["a\\u0000b", 1]', '["\\ud800", 1]', b'["\xff", 1]',
]
TOO_FEW = "[1]"  # a real cursor's shape for a list keyed by id alone
# Sent as they are: not hex, odd length, empty, a NUL, spaces.
FORGED_RAW = ["zz", "5B785", "", "5B315D00", "5b31+5d", "%FF%FE", "5B315D%00"]

# Lists with more than one shape of cursor: their other sort orders and
# parts.
VARIANTS = ["/api/contacts?sort=name", "/api/contacts?sort=-updated",
            "/api/agency/projects?sort=-value", "/api/agency/projects?sort=activity",
            "/api/tasks?status=completed", "/api/agency/tasks?status=overdue",
            "/api/agency/opportunities?status=won"]


def hexed(text):
    return (text if isinstance(text, bytes) else text.encode()).hex().upper()


def with_query(path, query):
    return path + ("&" if "?" in path else "?") + query


def members(cursor):
    """The JSON array a real cursor holds, or None if it is not one."""
    try:
        value = json.loads(bytes.fromhex(cursor))
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, list) else None


def is_json_error(r):
    err = r.json()["error"]
    return isinstance(err["code"], str) and isinstance(err["message"], str)


def get_paths(client):
    routes = client.get("/api/admin/routes").json()["data"]
    paths = [re.sub(r":[a-z_]+", "1", r["pattern"]) for r in routes
             if r["method"] == "GET" and not answers_a_person(r)]
    return paths + VARIANTS


def test_forged_cursors_are_400_on_every_list_and_real_ones_work():
    s, admin = seeded_server()
    with s:
        h = {"X-Location-Id": "1"}
        lists = {}
        for path in get_paths(admin):
            first = admin.get(with_query(path, "limit=1"), headers=h)
            assert first.status < 500, (path, first.status)
            body = first.json() if (first.header("content-type") or "").startswith("application/json") \
                else None
            real = body.get("next_cursor") if isinstance(body, dict) else None
            if isinstance(real, str) and members(real) is not None:
                lists[path] = (first, real)
            for text in FORGED_JSON + [TOO_FEW]:
                r = admin.get(with_query(path, "cursor=" + hexed(text)), headers=h)
                assert r.status < 500, (path, text, r.status, r.body)
                if r.status >= 400:
                    assert is_json_error(r), (path, text, r.body)
            for raw in FORGED_RAW:
                r = admin.get(with_query(path, "cursor=" + raw), headers=h)
                assert r.status < 500, (path, raw, r.status, r.body)
                if r.status >= 400:
                    assert is_json_error(r), (path, raw, r.body)
        # Every keyset list of the seeded data is found and walked.
        for path in ("/api/contacts", "/api/conversations", "/api/tasks", "/api/invoices",
                     "/api/agency/projects", "/api/agency/contacts", "/api/agency/opportunities",
                     "/api/agency/tasks", "/api/mobile/inbox") + tuple(VARIANTS):
            assert path in lists, path
        for path, (first, real) in lists.items():
            for text in FORGED_JSON + ([TOO_FEW] if len(members(real)) > 1 else []):
                r = admin.get(with_query(path, "cursor=" + hexed(text)), headers=h)
                assert r.status == 400, (path, text, r.status, r.body)
                assert r.error_code() == "bad_request" and "cursor" in r.json()["error"]["message"]
            for raw in FORGED_RAW:
                r = admin.get(with_query(path, "cursor=" + raw), headers=h)
                assert r.status == 400, (path, raw, r.status, r.body)
            # The real cursor opens the next page, which starts after the first.
            r = admin.get(with_query(path, "limit=1&cursor=" + real), headers=h)
            assert r.status == 200, (path, r.status, r.body)
            assert r.body != first.body, path
        # The dashboards' list, keyed by id alone: seeded here, two of them.
        for name in ("One", "Two"):
            csrf = admin.get("/api/auth/me").json()["csrf_token"]
            assert admin.post("/api/reports/dashboards", {"name": name},
                              headers=dict(h, **{"X-CSRF-Token": csrf})).status == 201
        first = admin.get("/api/reports/dashboards?limit=1", headers=h).json()
        assert members(first["next_cursor"]) == [first["data"][0]["id"]]
        second = admin.get("/api/reports/dashboards?limit=1&cursor=" + first["next_cursor"],
                           headers=h).json()
        assert second["data"][0]["name"] != first["data"][0]["name"]
        for text in FORGED_JSON:
            r = admin.get("/api/reports/dashboards?cursor=" + hexed(text), headers=h)
            assert r.status == 400, (text, r.status, r.body)
    assert error_lines(s.log) == [], error_lines(s.log)
