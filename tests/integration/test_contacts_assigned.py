# SPDX-License-Identifier: MIT
"""Users who see only what is assigned to them ("assigned only"), against
the contacts of their sub-account: someone else's contact is 404 on every
route that takes a contact's id, as another sub-account's would be, and
nothing of it changes; other modules do not take it as a contact of
theirs, nor show its invoices; their own contacts work as usual."""

from harness import Server

ADMIN = ("admin@example.test", "admin-pass-1")
OLGA = ("olga@example.test", "olga-pass-1")
PETE = ("pete@example.test", "pete-pass-1")
MODULES = ("contacts", "opportunities", "tasks", "conversations", "invoices")
TABLES = ("contacts", "notes", "contact_tags", "tags", "custom_values", "opportunities", "tasks",
          "conversations", "invoices", "contact_imports")


def setup():
    """A location with Olga (assigned only) and Pete; a contact of each,
    one of nobody's, and a pipeline with a stage."""
    # Jobs off: the contacts' upkeep rewrites health scores when it runs
    # (the notes below count), which the snapshots would take for a write
    # that got through; it ran between them once, under AddressSanitizer.
    s = Server(modules=MODULES, env={"PGHL_JOBS": "no"})
    s.create_admin(*ADMIN)
    s.start()
    admin = s.login(*ADMIN)
    loc = admin.post("/api/admin/locations", {"name": "Client"}).json()["id"]
    users = {}
    for (email, password), only in ((OLGA, True), (PETE, False)):
        r = admin.post("/api/admin/users", {"email": email, "name": email[:4], "password": password,
                                            "role": "location_user", "location_ids": [loc],
                                            "assigned_only": only})
        assert r.status == 201, r.body
        users[email] = r.json()["id"]
    olga, pete = users[OLGA[0]], users[PETE[0]]
    s.sql("INSERT INTO contacts (location_id, first_name, email, owner_id) VALUES"
          " (?1, 'Mine', 'mine@example.test', ?2), (?1, 'Secret', 'secret@example.test', ?3),"
          " (?1, 'Nobody', 'nobody@example.test', NULL)", loc, olga, pete)
    ids = dict(s.sql("SELECT first_name, id FROM contacts"))
    for name in ("Mine", "Secret"):
        r = admin.post("/api/contacts/%d/notes" % ids[name], {"body": "note on " + name},
                       headers={"X-Location-Id": str(loc)})
        assert r.status == 201, r.body
        r = admin.post("/api/contacts/%d/tags" % ids[name], {"tags": ["vip"]},
                       headers={"X-Location-Id": str(loc)})
        assert r.status == 200, r.body
    r = admin.post("/api/invoices", {"contact_id": ids["Secret"], "items": [
        {"description": "w", "quantity": 1, "unit_price_cents": 100}]}, headers={"X-Location-Id": str(loc)})
    assert r.status == 201, r.body
    s.sql("INSERT INTO pipelines (location_id, name) VALUES (?, 'Sales')", loc)
    s.sql("INSERT INTO stages (location_id, pipeline_id, name, position) VALUES (?, 1, 'New', 0)", loc)
    client = s.login(*OLGA)
    client.headers["X-CSRF-Token"] = client.get("/api/auth/me").json()["csrf_token"]
    return s, client, ids, olga


def snapshot(s):
    return {t: sorted(s.sql("SELECT * FROM " + t), key=repr) for t in TABLES}


def test_someone_elses_contact_is_404_and_unchanged():
    s, olga, ids, me = setup()
    with s:
        theirs, nobodys = ids["Secret"], ids["Nobody"]
        note = s.sql("SELECT id FROM notes WHERE contact_id = ?", theirs)[0][0]
        before = snapshot(s)
        wrong = []  # every route that gets it wrong, not just the first

        def expect(what, r, status, ok=True):
            if r.status != status or not ok or b"Secret" in r.body or b"secret@" in r.body:
                wrong.append((what, r.status, r.body[:200]))

        for cid in (theirs, nobodys):
            path = "/api/contacts/%d" % cid
            expect("GET", olga.get(path), 404)
            expect("PATCH", olga.patch(path, {"first_name": "Changed"}), 404)
            expect("GET notes", olga.get(path + "/notes"), 404)
            expect("POST notes", olga.post(path + "/notes", {"body": "hello"}), 404)
            expect("DELETE note", olga.request("DELETE", path + "/notes/%d" % note), 404)
            expect("POST tags", olga.post(path + "/tags", {"tags": ["mine-now"]}), 404)
            expect("DELETE tag", olga.request("DELETE", path + "/tags/vip"), 404)
            r = olga.post("/api/tags/bulk", {"contact_ids": [cid], "add": ["x"], "remove": ["vip"]})
            expect("bulk tags", r, 200, r.status == 200 and
                   r.json() == {"added": 0, "removed": 0, "not_found": [cid]})
        # An upsert or a new contact that matches theirs changes nothing, and
        # says nothing of it but that the e-mail is taken.
        for path in ("/api/contacts/upsert", "/api/contacts"):
            r = olga.post(path, {"email": "secret@example.test", "first_name": "Hijack"})
            expect(path, r, 409, str(theirs).encode() not in r.body)
        r = olga.patch("/api/contacts/%d" % ids["Mine"], {"email": "secret@example.test"})
        expect("PATCH e-mail", r, 409, str(theirs).encode() not in r.body)
        # An import matches contacts by e-mail across the sub-account: not
        # for a user who sees only their own.
        r = olga.request("POST", "/api/contacts/import", b"email,first_name\nsecret@example.test,Hijack\n",
                         headers={"Content-Type": "text/csv"})
        expect("import", r, 403)
        r = olga.request("POST", "/api/contacts/imports", b"email,first_name\nsecret@example.test,Hijack\n",
                         {"Content-Type": "text/csv"})
        expect("upload", r, 403)
        # Tags are the sub-account's: renamed, merged and deleted by its admins.
        expect("rename a tag", olga.request("PATCH", "/api/tags/1", {"name": "Mine"}), 403)
        expect("delete a tag", olga.request("DELETE", "/api/tags/1"), 403)
        # The export has theirs only.
        r = olga.get("/api/contacts/export.csv")
        expect("export", r, 200, b"mine@example.test" in r.body and b"nobody@" not in r.body)
        # Other modules do not take it as a contact to attach to (their
        # answers would show its name).
        for path, body in (("/api/tasks", {"title": "t", "contact_id": theirs}),
                           ("/api/opportunities", {"name": "d", "stage_id": 1, "contact_id": theirs}),
                           ("/api/conversations", {"contact_id": theirs, "channel": "sms"}),
                           ("/api/invoices", {"contact_id": theirs, "items": [
                               {"description": "w", "quantity": 1, "unit_price_cents": 100}]})):
            r = olga.post(path, body)
            expect(path, r, 422, b"contact_id" in r.body)
        # An invoice is its contact's owner's: theirs is neither listed
        # nor found, nor is one without a contact, which they may not make.
        r = olga.get("/api/invoices?count=1")
        expect("invoices", r, 200, r.json()["data"] == [] and r.json()["total"] == 0)
        expect("invoice", olga.get("/api/invoices/1"), 404)
        r = olga.post("/api/invoices", {"items": [{"description": "w", "quantity": 1,
                                                   "unit_price_cents": 100}]})
        expect("invoice without a contact", r, 422, b"contact_id" in r.body)
        for cid in (theirs, nobodys):  # last, so that the rest met a live contact
            expect("DELETE", olga.request("DELETE", "/api/contacts/%d" % cid), 404)
        assert not wrong, "\n".join(map(repr, wrong))
        assert snapshot(s) == before


def test_their_own_contacts_work():
    s, olga, ids, me = setup()
    with s:
        mine = ids["Mine"]
        path = "/api/contacts/%d" % mine
        assert olga.get(path).json()["first_name"] == "Mine"
        assert olga.patch(path, {"last_name": "Own"}).json()["last_name"] == "Own"
        assert olga.post(path + "/notes", {"body": "mine"}).status == 201
        assert len(olga.get(path + "/notes").json()["data"]) == 2
        assert olga.post(path + "/tags", {"tags": ["gold"]}).status == 200
        r = olga.request("DELETE", path + "/tags/gold")
        assert r.status == 204, r.body
        r = olga.post("/api/tags/bulk", {"contact_ids": [mine], "add": ["silver"]})
        assert r.json() == {"added": 1, "removed": 0, "not_found": []}
        r = olga.post("/api/contacts/upsert", {"email": "mine@example.test", "phone": "+15550100"})
        assert r.status == 200 and r.json()["id"] == mine and r.json()["phone"] == "+15550100"
        # What they make is theirs, and they may not give it away.
        r = olga.post("/api/contacts", {"first_name": "New", "email": "new@example.test"})
        assert r.status == 201 and r.json()["owner_id"] == me
        new = r.json()["id"]
        assert olga.get("/api/contacts/%d" % new).status == 200
        pete = s.sql("SELECT id FROM users WHERE email = ?", PETE[0])[0][0]
        for body in ({"owner_id": pete}, {"owner_id": None}):
            r = olga.patch("/api/contacts/%d" % new, body)
            assert r.status == 422 and b"owner_id" in r.body
        r = olga.post("/api/contacts", {"first_name": "Given", "owner_id": pete})
        assert r.status == 422 and b"owner_id" in r.body
        r = olga.post("/api/tasks", {"title": "call", "contact_id": mine})
        assert r.status == 201 and r.json()["contact_name"].startswith("Mine")
        assert olga.request("DELETE", "/api/contacts/%d" % new).status == 204
        assert s.sql("SELECT deleted_at IS NOT NULL FROM contacts WHERE id = ?", new) == [(1,)]
