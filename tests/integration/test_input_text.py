# SPDX-License-Identifier: MIT
"""Text that is not UTF-8 never gets in: a JSON body holding such bytes
(raw, overlong, a surrogate, cut short) or an escape with no UTF-8 form
(a lone surrogate, NUL) is refused with 400 invalid_json naming the byte,
and a query string that decodes to such bytes with 400, whatever module
the route belongs to. Nothing is stored: the tests read the SQLite file."""

from harness import agency, headers


# The body's text before and after the bad bytes; the byte offset the
# error must name is len(PREFIX).
PREFIX = b'{"first_name": "Ann", "last_name": "'
BAD = [
    b"\xff\xfe",               # bytes that are never UTF-8
    b"\xc0\xaf",               # overlong '/'
    b"\xe0\x80\xaf",           # overlong, three bytes
    b"\xed\xa0\x80",           # the surrogate U+D800 written as UTF-8
    b"\xf4\x90\x80\x80",       # past U+10FFFF
    b"\xe2\x82",               # cut short
    b"\\ud800",                # a lone high surrogate, escaped
    b"\\udc00",                # a lone low surrogate, escaped
    b"\\ud800\\u0041",         # a high surrogate and no low one
    b"\\u0000",                # NUL, which would cut the name short
]


def post_raw(client, h, path, body):
    return client.request("POST", path, body=body,
                          headers=dict(h, **{"Content-Type": "application/json"}))


def test_a_body_that_is_not_utf8_is_refused_and_nothing_is_stored():
    s, admin, (loc,) = agency(modules=("contacts", "tasks"))
    with s:
        h = headers(admin, loc)
        for bad in BAD:
            body = PREFIX + b"x" + bad + b'y", "email": "bad@example.test"}'
            r = post_raw(admin, h, "/api/contacts", body)
            assert r.status == 400, (bad, r.status, r.body)
            err = r.json()["error"]
            assert err["code"] == "invalid_json", (bad, err)
            assert "at byte %d" % (len(PREFIX) + 1) in err["message"], (bad, err)
            # In a key too, and in another module's body.
            r = post_raw(admin, h, "/api/contacts", b'{"first_name": "Ann", "x' + bad + b'": 1}')
            assert (r.status, r.error_code()) == (400, "invalid_json"), (bad, r.body)
            r = post_raw(admin, h, "/api/tasks", b'{"title": "' + bad + b'"}')
            assert (r.status, r.error_code()) == (400, "invalid_json"), (bad, r.body)
        assert s.sql("SELECT count(*) FROM contacts") == [(0,)]
        assert s.sql("SELECT count(*) FROM tasks") == [(0,)]
        # Good text of every length, and an escaped pair, still go in as sent.
        good = "Zoë Łukasiewicz 東京 😀"
        body = b'{"first_name": "' + good.encode() + b'", "last_name": "\\ud83d\\ude00"}'
        r = post_raw(admin, h, "/api/contacts", body)
        assert r.status == 201, r.body
        assert s.sql("SELECT first_name, last_name FROM contacts") == [(good, "😀")]
        # Every stored text is UTF-8 (SQLite would not decode it otherwise).
        rows = s.sql("SELECT CAST(first_name AS BLOB), CAST(last_name AS BLOB) FROM contacts")
        for row in rows:
            for value in row:
                bytes(value).decode("utf-8")


def test_a_query_that_is_not_utf8_is_refused():
    s, admin, (loc,) = agency(modules=("contacts", "tasks"))
    with s:
        h = {"X-Location-Id": str(loc)}
        for query in ("q=%FF", "q=%C0%AF", "tag=%ED%A0%80", "tag=a%E2%82", "sort=%FE",
                      "%FF=1"):
            r = admin.get("/api/contacts?" + query, headers=h)
            assert r.status == 400, (query, r.status, r.body)
            assert r.error_code() == "bad_request", (query, r.body)
        # An encoded accent is fine.
        r = admin.get("/api/contacts?q=Zo%C3%AB", headers=h)
        assert r.status == 200, r.body
