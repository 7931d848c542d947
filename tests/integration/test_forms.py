# SPDX-License-Identifier: MIT
"""Forms, on one seeded server for the file: a form made by the API (each
bad body refused naming its member), its public page opened and posted
without signing in (no cookie, its own policy, small), the spam checks
(honeypot, too fast, the same answers again), the contact upserted with
the mapped fields and the form's tags, the submission listed, the line on
the contact's timeline; another sub-account kept out; an unknown slug 404."""

import re
import time
import urllib.parse

from harness import error, headers, ids, seeded_server, wait_for

SERVER = []


def server():
    """(server, admin client, write headers of sub-account 1), made once."""
    if not SERVER:
        s, admin = seeded_server()
        import atexit
        atexit.register(s.close)
        SERVER.append((s, admin, headers(admin)))
    return SERVER[0]


FIELDS = [
    {"key": "first_name", "label": "First name", "type": "text", "required": True,
     "maps_to": "first_name"},
    {"key": "last_name", "label": "Last name", "type": "text", "maps_to": "last_name"},
    {"key": "email", "label": "E-mail", "type": "email", "required": True, "maps_to": "email"},
    {"key": "phone", "label": "Phone", "type": "phone", "maps_to": "phone"},
    {"key": "budget", "label": "Budget", "type": "choice", "options": ["Small", "Large"]},
    {"key": "message", "label": "Message", "type": "long_text"},
    {"key": "agree", "label": "Consent", "type": "consent", "required": True,
     "consent": "I agree to be contacted about my request."},
    {"key": "utm_source", "type": "hidden"},
]


def make_form(admin, h, **more):
    body = dict({"name": "Website enquiry", "fields": FIELDS, "tags": ["Web lead", "Enquiry"],
                 "thank_you": "Thanks, we will call you back."}, **more)
    r = admin.post("/api/forms", body, headers=h)
    assert r.status == 201, r.body
    return r.json()


def form_post(client, slug, values):
    return client.post("/f/" + slug, urllib.parse.urlencode(values, doseq=True).encode(),
                       headers={"Content-Type": "application/x-www-form-urlencoded"})


def token(page):
    return re.search(rb'name="_t" value="([^"]+)"', page.body).group(1).decode()


def submissions(admin, form):
    r = admin.get("/api/forms/%d/submissions?location_id=1" % form)
    assert r.status == 200, r.body
    return r.json()["data"]


def test_bad_bodies_are_refused_naming_their_member():
    s, admin, h = server()
    bad = [
        ({"fields": FIELDS}, "name"),
        ({"name": "X"}, "fields"),
        ({"name": "X", "fields": []}, "fields"),
        ({"name": "X", "fields": [{"key": "Email", "label": "E", "type": "email", "maps_to": "email"}]},
         "fields[0].key"),
        ({"name": "X", "fields": [{"key": "e", "label": "E", "type": "emial", "maps_to": "email"}]},
         "fields[0].type"),
        ({"name": "X", "fields": [FIELDS[2], {"key": "b", "label": "B", "type": "choice"}]},
         "fields[1].options"),
        ({"name": "X", "fields": [FIELDS[2], {"key": "c", "label": "C", "type": "consent"}]},
         "fields[1].consent"),
        ({"name": "X", "fields": [FIELDS[2], dict(FIELDS[2], label="Again")]}, "fields[1].key"),
        ({"name": "X", "fields": [FIELDS[2], {"key": "n", "label": "N", "type": "text", "colour": 1}]},
         "colour"),
        ({"name": "X", "fields": [FIELDS[0]]}, "fields"),
        ({"name": "X", "fields": FIELDS, "tags": ["a,b"]}, "tags"),
        ({"name": "X", "fields": FIELDS, "redirect_url": "javascript:alert(1)"}, "redirect_url"),
    ]
    before = s.sql("SELECT count(*) FROM forms")
    for body, member in bad:
        error(admin.post("/api/forms", body, headers=h), 422, member)
    assert s.sql("SELECT count(*) FROM forms") == before
    made = make_form(admin, h)
    assert re.fullmatch(r"/f/[A-Za-z0-9_-]{16}", made["url"]), made
    assert made["fields"] == FIELDS and made["tags"] == ["Web lead", "Enquiry"]
    error(admin.patch("/api/forms/%d" % made["id"], {"fields": [{"key": "x"}]}, headers=h), 422,
          "fields[0].type")
    r = admin.patch("/api/forms/%d" % made["id"], {"name": "Renamed"}, headers=h)
    assert r.status == 200 and r.json()["name"] == "Renamed" and r.json()["fields"] == FIELDS
    assert made["id"] in ids(admin.get("/api/forms?location_id=1").json()["data"])
    assert admin.delete("/api/forms/%d" % made["id"], headers=h).status == 204
    assert admin.get("/api/forms/%d?location_id=1" % made["id"]).status == 404


def test_a_visitor_fills_in_the_form_and_becomes_a_tagged_contact():
    s, admin, h = server()
    form = make_form(admin, h)
    visitor = s.client()
    page = visitor.get(form["url"] + "?utm_source=newsletter", headers={"Referer": "https://client.example/"})
    assert page.status == 200 and page.header("Set-Cookie") is None
    csp = page.header("Content-Security-Policy")
    assert "default-src 'none'" in csp and "form-action 'self'" in csp, csp
    assert len(page.body) < 14 * 1024, len(page.body)
    html = page.body.decode()
    assert '<label for="f-email">E-mail <span aria-hidden="true">*</span></label>' in html
    assert 'type="email"' in html and 'type="tel"' in html and "<textarea" in html
    assert "I agree to be contacted about my request." in html
    assert '<input type="hidden" name="utm_source" value="newsletter">' in html
    good = {"first_name": "Greta", "last_name": "Formfill", "email": "greta.form@example.test",
            "phone": "+15550109911", "budget": "Large", "message": "Call me", "agree": "yes",
            "utm_source": "newsletter", "_utm_source": "newsletter",
            "_referrer": "https://client.example/", "_t": token(page)}

    # Too fast: the page again, with why, nothing stored.
    r = form_post(visitor, form["slug"], good)
    assert r.status == 422 and b"quicker than a person" in r.body and r.header("Set-Cookie") is None
    # The honeypot filled: a success, nothing stored.
    r = form_post(visitor, form["slug"], dict(good, _website="http://spam.example"))
    assert r.status == 200 and b"Thanks, we will call you back." in r.body
    # A required field missing: the error beside it.
    time.sleep(max(0, 3.1 - (time.time() - int(good["_t"].split(".")[0]))))
    r = form_post(visitor, form["slug"], dict(good, first_name="", budget="Huge"))
    assert r.status == 422
    html = r.body.decode()
    assert re.search(r'id="f-first_name" name="first_name" required aria-invalid="true"'
                     r' aria-describedby="e-first_name" value=""><p class="e" id="e-first_name">', html), html
    assert "Please choose among the answers shown." in html
    assert 'value="greta.form@example.test"' in html
    assert submissions(admin, form["id"]) == []
    assert s.sql("SELECT count(*) FROM contacts WHERE email = 'greta.form@example.test'") == [(0,)]

    # A good one: the contact, its tags, the submission, the timeline.
    r = form_post(visitor, form["slug"], good)
    assert r.status == 200, r.body
    first = r.body
    assert b"Thanks, we will call you back." in first and r.header("Set-Cookie") is None
    (cid, first_name, last_name, phone), = s.sql(
        "SELECT id, first_name, last_name, phone FROM contacts WHERE location_id = 1"
        " AND email = 'greta.form@example.test'")
    assert (first_name, last_name, phone) == ("Greta", "Formfill", "+15550109911")
    tags = {t[0] for t in s.sql("SELECT t.name FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id"
                                " WHERE ct.contact_id = ?", cid)}
    assert tags == {"Web lead", "Enquiry"}
    (sub,) = submissions(admin, form["id"])
    assert sub["contact_id"] == cid and sub["answers"]["budget"] == "Large"
    assert sub["origin"] == {"referrer": "https://client.example/", "utm_source": "newsletter"}
    assert sub["consent"] == "I agree to be contacted about my request."
    line = "Form Website enquiry submitted"

    def lines():
        got = admin.get("/api/contacts/%d/timeline?location_id=1&limit=100" % cid).json()["data"]
        return [t["line"] for t in got]
    assert wait_for(lambda: line in lines(), 10, 0.05), lines()

    # The same answers again within a minute: a success, dropped.
    r = form_post(visitor, form["slug"], good)
    assert r.status == 200 and r.body == first
    assert len(submissions(admin, form["id"])) == 1
    # Another submission with the same e-mail: the same contact, the same answer.
    r = form_post(visitor, form["slug"], dict(good, message="Again", first_name="G."))
    assert r.status == 200 and r.body == first
    assert s.sql("SELECT count(*) FROM contacts WHERE email = 'greta.form@example.test'") == [(1,)]
    subs = submissions(admin, form["id"])
    assert [x["contact_id"] for x in subs] == [cid, cid] and subs[0]["answers"]["message"] == "Again"


def test_another_sub_account_and_strangers_are_kept_out():
    s, admin, h = server()
    form = make_form(admin, h)
    other = s.login("location-2@example.test", "perf-pass-123")
    assert other.get("/api/forms/%d" % form["id"]).status == 404
    assert other.get("/api/forms/%d/submissions" % form["id"]).status == 404
    assert form["id"] not in ids(other.get("/api/forms").json()["data"])
    h2 = headers(other, 2)
    assert other.patch("/api/forms/%d" % form["id"], {"name": "Mine"}, headers=h2).status in (403, 404)
    stranger = s.client()
    assert stranger.get("/api/forms?location_id=1").status == 401
    for slug in ("A" * 16, "nothing", form["slug"][:-1]):
        r = stranger.get("/f/" + slug)
        assert r.status == 404 and b"Form not found" in r.body
        assert form_post(stranger, slug, {"email": "x@example.test"}).status == 404
