# SPDX-License-Identifier: MIT
"""Contacts in and out as CSV, the way an agency moves a client's list
between tools: the export holds every contact the list's filters pass,
quoted so spreadsheets read it back; the import maps columns by header,
creates or updates by e-mail, reports each rejected row by line, runs
large files as a job whose progress can be read, and round-trips the
export exactly."""

import csv
import gzip
import io
import re
import socket
import time

from harness import error, headers, new_contact, seeded_server


TRICKY = [
    {"first_name": "Comma, Inc", "last_name": "O'Brien", "email": "comma@example.test"},
    {"first_name": 'Say "hi"', "last_name": "Quote", "email": "quote@example.test"},
    {"first_name": "Two\nLines", "last_name": "Break\r\nHere", "email": "lines@example.test"},
    {"first_name": "Zoë", "last_name": "Łukasiewicz-Øberg 東京", "email": "utf8@example.test"},
    {"first_name": " spaced ", "last_name": "", "email": "spaced@example.test",
     "company_name": "=1+2"},
]


def export(client, location=1, query="", encoding=None):
    h = {"X-Location-Id": str(location)}
    if encoding:
        h["Accept-Encoding"] = encoding
    r = client.get("/api/contacts/export.csv" + query, headers=h)
    assert r.status == 200, r.body
    assert r.header("content-type") == "text/csv; charset=utf-8"
    body = r.body
    if r.header("content-encoding") == "gzip":
        body = gzip.decompress(body)
    return r, list(csv.DictReader(io.StringIO(body.decode("utf-8"), newline="")))


def upload(client, h, text, encoding="utf-8"):
    data = text.encode(encoding) if isinstance(text, str) else text
    return client.request("POST", "/api/contacts/import", body=data,
                          headers=dict(h, **{"Content-Type": "text/csv"}))


def test_the_export_holds_every_contact_the_filters_pass():
    s, admin = seeded_server()
    with s:
        # More than one page of a thousand, and a deleted contact left out.
        more = ["first_name,email"] + ["Paged%d,paged%d@example.test" % (i, i) for i in range(1500)]
        assert upload(admin, headers(admin), "\n".join(more)).json()["created"] == 1500
        gone = s.sql("SELECT id FROM contacts WHERE location_id = 1 ORDER BY id LIMIT 1")[0][0]
        assert admin.delete("/api/contacts/%d" % gone, headers=headers(admin)).status == 204
        r, rows = export(admin)
        assert r.header("transfer-encoding") == "chunked"
        live = [x[0] for x in s.sql("SELECT id FROM contacts WHERE location_id = 1"
                                    " AND deleted_at IS NULL ORDER BY id")]
        assert [int(x["id"]) for x in rows] == live, (len(rows), len(live))
        assert len(live) > 1500 and gone not in live, len(live)
        assert list(rows[0])[:11] == ["id", "first_name", "last_name", "email", "phone", "company_name",
                                      "source", "owner_id", "tags", "created_at", "updated_at"]
        # Every custom value in its field's column, every tag in the tags.
        keys = [k for (k,) in s.sql("SELECT key FROM custom_fields WHERE location_id = 1 ORDER BY id")]
        assert list(rows[0])[11:] == keys and keys
        values = {(c, k): v for c, k, v in s.sql(
            "SELECT v.contact_id, f.key, v.value FROM custom_values v JOIN custom_fields f"
            " ON f.id = v.field_id WHERE v.location_id = 1")}
        assert {(int(r["id"]), k): r[k] for r in rows for k in keys if r[k]} == \
            {ck: v for ck, v in values.items() if ck[0] in set(live)}
        tags = {}
        for c, name in s.sql("SELECT ct.contact_id, t.name FROM contact_tags ct JOIN tags t"
                             " ON t.id = ct.tag_id WHERE ct.location_id = 1"):
            tags.setdefault(c, set()).add(name)
        assert {int(r["id"]): set(r["tags"].split(", ")) for r in rows if r["tags"]} == \
            {c: t for c, t in tags.items() if c in set(live)}
        # The same contacts as the list, for a search and a tag.
        for query in ("q=berg", "tag=vip", "q=an&tag=lead&tag=vip&tag_mode=any"):
            listed = admin.get("/api/contacts?location_id=1&limit=1000&" + query).json()["data"]
            _, got = export(admin, query="?" + query)
            assert sorted(int(x["id"]) for x in got) == sorted(x["id"] for x in listed), query
            assert all(set(x["tags"]) == set(g["tags"].split(", ") if g["tags"] else [])
                       for x, g in zip(sorted(listed, key=lambda x: x["id"]),
                                       sorted(got, key=lambda g: int(g["id"]))))
        # Compressed as it streams, and the same rows.
        zipped, again = export(admin, encoding="gzip")
        assert zipped.header("content-encoding") == "gzip" and again == rows
        error(admin.get("/api/contacts/export.csv?location_id=1&sort=nope"), 400, "sort")


def test_tricky_values_survive_export_and_import():
    s, admin = seeded_server()
    with s:
        h1, h3 = headers(admin, 1), headers(admin, 3)
        admin.post("/api/custom-fields", {"key": "note_field", "name": "N", "type": "text"}, headers=h1)
        admin.post("/api/custom-fields", {"key": "note_field", "name": "N", "type": "text"}, headers=h3)
        made = [new_contact(admin, h1, tags=["csv-test", "ünï"],
                     custom_fields={"note_field": 'a "b", c\nd'}, **fields) for fields in TRICKY]
        raw = admin.get("/api/contacts/export.csv?q=example.test&tag=csv-test",
                        headers={"X-Location-Id": "1"}).body.decode()
        # RFC 4180: fields with commas, quotes or line breaks are quoted,
        # quotes doubled, lines end in CRLF.
        assert '"Comma, Inc"' in raw and '"Say ""hi"""' in raw and '"Two\nLines"' in raw
        assert raw.endswith("\r\n") and raw.count("\r\n") >= len(TRICKY) + 1
        r = upload(admin, h3, raw)
        assert r.status == 200, r.body
        report = r.json()
        assert (report["created"], report["updated"], report["skipped"]) == (len(TRICKY), 0, 0)
        assert set(report["ignored_columns"]) >= {"id", "created_at", "updated_at"}
        for original in made:
            got = admin.get("/api/contacts?location_id=3&q=" + original["email"]).json()["data"]
            assert len(got) == 1, original["email"]
            back = admin.get("/api/contacts/%d?location_id=3" % got[0]["id"]).json()
            for key in ("first_name", "last_name", "email", "company_name"):
                assert back[key] == original[key], (key, back[key], original[key])
            assert sorted(t["name"] for t in back["tags"]) == ["csv-test", "ünï"]
            assert back["custom_fields"]["note_field"] == 'a "b", c\nd'
        # Importing the same file again updates instead of duplicating.
        again = upload(admin, h3, raw).json()
        assert (again["created"], again["updated"]) == (0, len(TRICKY))
        # Each line merged is named, with the contact and why.
        assert len(again["merged"]) == len(TRICKY)
        assert again["merged"][0]["reason"].startswith("merged into a contact already here"
                                                       " (the same e-mail, ")


def test_import_maps_headers_and_reports_each_rejected_row():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        admin.post("/api/custom-fields", {"key": "tier", "name": "Tier", "type": "option",
                                          "options": ["gold", "silver"]}, headers=h)
        known = new_contact(admin, h, first_name="Known", last_name="Person", email="known@example.test",
                     source="fair")
        text = ("\ufeffFirst Name,E-mail,Phone Number,Tier,Tags,Favourite Colour\r\n"
                "Ada,ada-import@example.test,,gold,\"a, b;patient; new-2026\",blue\r\n"
                ",KNOWN@example.test,+1 555 000 3333,,,\r\n"       # updates; empty cells keep
                "Bad,not-an-address,,,,\r\n"                          # line 4
                "\"Multi\nline\",ml@example.test,,bronze,,\r\n"      # line 5-6: bad option
                ",,,,,\r\n"                                           # line 7: nothing to call it
                "Too,many@example.test,,,,,extra\r\n"                 # line 8: too many fields
                "\"Open,quote@example.test\r\n")                      # line 9: a quote left open
        r = upload(admin, h, text)
        assert r.status == 200, r.body
        rep = r.json()
        assert (rep["status"], rep["created"], rep["updated"], rep["skipped"]) == ("done", 1, 1, 5)
        assert rep["ignored_columns"] == ["Favourite Colour"] and rep["progress"] == 1
        lines = {e["line"]: e["reason"] for e in rep["errors"]}
        assert sorted(lines) == [4, 5, 7, 8, 9], rep["errors"]
        assert "email" in lines[4] and "tier" in lines[5] and "name" in lines[7]
        # A rejected row writes nothing, not even its half that was fine.
        assert s.sql("SELECT count(*) FROM contacts WHERE email = 'ml@example.test'") == [(0,)]
        ada = admin.get("/api/contacts?location_id=1&q=ada-import").json()["data"][0]
        # Tags split on semicolons as on commas ("patient;new-2026" was one).
        assert sorted(ada["tags"]) == ["a", "b", "new-2026", "patient"]
        assert admin.get("/api/contacts/%d?location_id=1" % ada["id"]).json()["custom_fields"] == \
            {"tier": "gold"}
        after = admin.get("/api/contacts/%d?location_id=1" % known["id"]).json()
        assert (after["first_name"], after["last_name"], after["source"], after["phone"]) == \
            ("Known", "Person", "fair", "+15550003333")
        # The report can be read again later.
        assert admin.get("/api/contacts/imports/%d?location_id=1" % rep["id"]).json() == rep
        assert admin.get("/api/contacts/imports/%d?location_id=2" % rep["id"]).status == 404


def upload_for_mapping(client, h, text):
    r = client.request("POST", "/api/contacts/imports", body=text.encode(),
                       headers=dict(h, **{"Content-Type": "text/csv"}))
    assert r.status == 201, r.body
    return r.json()


def test_an_upload_is_mapped_previewed_and_run_with_a_choice_for_duplicates():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 3)
        admin.post("/api/custom-fields", {"key": "plan", "name": "Plan", "type": "text"}, headers=h)
        new_contact(admin, h, first_name="Old", email="old-map@example.test")
        # A HubSpot export: its headers are guessed; "Notes" is left out.
        text = ("First Name,Last Name,Email,Mobile Phone Number,Company Name,Lead Status,Notes\r\n"
                "Ann,Lee,ann-map@example.test,(512) 555-0199,Acme,gold,hi\r\n"      # line 2
                "Bob,Ray,not-mail,,,,\r\n"                                          # line 3
                "Ann,Again,ANN-map@example.test,,,silver,\r\n"                      # line 4
                "Old,Timer,old-map@example.test,,,,\r\n")                           # line 5
        up = upload_for_mapping(admin, h, text)
        assert up["status"] == "uploaded" and up["saved"] is False
        assert up["headers"][3] == "Mobile Phone Number"
        assert up["mapping"] == ["first_name", "last_name", "email", "phone", "company_name",
                                 None, None]
        assert up["rows"][0] == {"line": 2, "cells": ["Ann", "Lee", "ann-map@example.test",
                                                      "(512) 555-0199", "Acme", "gold", "hi"]}
        assert {"key": "plan", "name": "Plan"} in up["fields"]
        # Nothing is imported before it runs; the job leaves it alone.
        assert s.sql("SELECT count(*) FROM contacts WHERE email = 'ann-map@example.test'") == [(0,)]
        assert admin.get("/api/contacts/imports/%d?location_id=3" % up["id"]).json()["status"] \
            == "uploaded"

        # The person puts "Lead Status" in the custom field and previews.
        mapping = up["mapping"][:5] + ["plan", None]
        url = "/api/contacts/imports/%d/" % up["id"]
        r = admin.post(url + "preview", {"mapping": mapping, "duplicates": "skip"}, headers=h)
        assert r.status == 200, r.body
        rows = {row["line"]: row for row in r.json()["rows"]}
        assert rows[2]["action"] == "create"
        # The phone as stored (E.164), the custom value under its key.
        assert rows[2]["values"] == {"first_name": "Ann", "last_name": "Lee",
                                     "email": "ann-map@example.test", "phone": "+15125550199",
                                     "company_name": "Acme", "plan": "gold"}
        assert rows[3]["action"] == "skip" and "email" in rows[3]["reason"]
        assert rows[4]["action"] == "skip" and "line 2" in rows[4]["reason"]
        assert rows[5]["action"] == "skip" and "already here" in rows[5]["reason"]
        assert s.sql("SELECT count(*) FROM contacts WHERE email = 'ann-map@example.test'") == [(0,)]

        # A mapping that does not fit is refused, and nothing is imported.
        for bad, words in (([None] * 7, "no column"), (mapping[:3], "names 3 columns"),
                           (["email"] * 2 + [None] * 5, "both go to"),
                           (mapping[:6] + ["colour"], "no field 'colour'")):
            error(admin.post(url + "run", {"mapping": bad}, headers=h), 422, words)
        error(admin.post(url + "run", {"mapping": mapping, "duplicates": "merge"}, headers=h),
              422, "skip, update or create")
        assert s.sql("SELECT count(*) FROM contacts WHERE email = 'ann-map@example.test'") == [(0,)]

        r = admin.post(url + "run", {"mapping": mapping, "duplicates": "skip"}, headers=h)
        assert r.status == 200, r.body
        rep = r.json()
        assert (rep["status"], rep["created"], rep["updated"], rep["skipped"]) == ("done", 1, 0, 3)
        lines = {e["line"]: e["reason"] for e in rep["errors"]}
        assert lines[4] == "a duplicate of line 2's contact (the same e-mail, ANN-map@example.test)"
        assert "a contact already here" in lines[5] and "email" in lines[3]
        assert rep["duplicates"] == "skip" and rep["merged"] == []
        # The phone is kept in E.164 and shown as it was typed.
        ann = s.sql("SELECT id, last_name, phone FROM contacts WHERE email = 'ann-map@example.test'")
        assert ann[0][1:] == ("Lee", "+15125550199")
        back = admin.get("/api/contacts/%d?location_id=3" % ann[0][0]).json()
        assert (back["phone"], back["phone_typed"]) == ("+15125550199", "(512) 555-0199")
        error(admin.post(url + "run", {"mapping": mapping}, headers=h), 409, "already run")
        # Phones are searched by their digits however they were typed.
        for q in ("5125550199", "512-555-0199", "(512)%20555-01", "555-0199"):
            found = admin.get("/api/contacts?location_id=3&q=" + q).json()["data"]
            assert [c["email"] for c in found] == ["ann-map@example.test"], q

        # The same shape (columns in another order) maps itself as saved;
        # "update" merges, and the report names each merged line.
        text2 = ("Lead Status,Notes,Email,First Name,Last Name,Mobile Phone Number,Company Name\r\n"
                 "platinum,,ann-map@example.test,Ann,Lee-Smith,,\r\n"
                 "bronze,,ann-map@example.test,,,,Acme Two\r\n")
        up2 = upload_for_mapping(admin, h, text2)
        assert up2["saved"] is True
        assert up2["mapping"] == ["plan", None, "email", "first_name", "last_name", "phone",
                                  "company_name"]
        r = admin.post("/api/contacts/imports/%d/run" % up2["id"],
                       {"mapping": up2["mapping"], "duplicates": "update"}, headers=h)
        rep = r.json()
        assert (rep["created"], rep["updated"], rep["skipped"]) == (0, 2, 0), rep
        assert [(m["line"], m["reason"]) for m in rep["merged"]] == [
            (2, "merged into a contact already here (the same e-mail, ann-map@example.test)"),
            (3, "merged into a contact already here (the same e-mail, ann-map@example.test)")]
        ann = s.sql("SELECT last_name, company_name FROM contacts"
                    " WHERE email = 'ann-map@example.test'")
        assert ann == [("Lee-Smith", "Acme Two")]
        # "create" adds a row that matches anyway.
        r = upload(admin, h, "email,first_name\nann-map@example.test,Twin\n")
        assert r.json()["updated"] == 1
        r = admin.request("POST", "/api/contacts/import?duplicates=create",
                          body=b"email,first_name\nann-map@example.test,Twin\n",
                          headers=dict(h, **{"Content-Type": "text/csv"}))
        assert r.json()["created"] == 1, r.body
        assert s.sql("SELECT count(*) FROM contacts WHERE email = 'ann-map@example.test'"
                     " AND deleted_at IS NULL") == [(2,)]
        # Another sub-account neither sees nor runs the upload.
        assert admin.post(url + "preview", {"mapping": mapping}, headers=headers(admin, 1)).status \
            == 404

        # A Pipedrive export: a full name is split in first and last.
        up4 = upload_for_mapping(admin, h, "Person - Name,Person - Email - Work,"
                                 "Organization - Name\nMary Ann Lee,mal@example.test,Lee & Co\n")
        assert up4["mapping"] == ["full_name", "email", "company_name"]
        r = admin.post("/api/contacts/imports/%d/preview" % up4["id"], {"mapping": up4["mapping"]},
                       headers=h)
        assert r.json()["rows"][0]["values"] == {"first_name": "Mary", "last_name": "Ann Lee",
                                                 "email": "mal@example.test",
                                                 "company_name": "Lee & Co"}, r.body
        # An upload not wanted is dropped, and cannot run after.
        r = admin.request("DELETE", "/api/contacts/imports/%d" % up4["id"], headers=h)
        assert r.json()["status"] == "cancelled", r.body
        error(admin.post("/api/contacts/imports/%d/run" % up4["id"], {"mapping": up4["mapping"]},
                         headers=h), 409, "cancelled")
        assert s.sql("SELECT count(*) FROM contact_import_parts WHERE import_id = ?",
                     up4["id"]) == [(0,)]

        # A large file runs in the job with its mapping and its choice:
        # a duplicate far down names the line that added the contact.
        rows = ["Correo,Nombre"] + ["big-map%d@example.test,Row%d" % (i, i) for i in range(3000)]
        rows.append("BIG-MAP7@example.test,Again")
        up3 = upload_for_mapping(admin, h, "\r\n".join(rows) + "\r\n")
        assert up3["mapping"] == [None, None]
        r = admin.post("/api/contacts/imports/%d/run" % up3["id"],
                       {"mapping": ["email", "first_name"], "duplicates": "skip"}, headers=h)
        assert r.status == 202, r.body
        done = wait_import(admin, 3, up3["id"])
        assert (done["status"], done["created"], done["skipped"]) == ("done", 3000, 1), done
        assert done["errors"] == [{"line": 3002, "reason": "a duplicate of line 9's contact"
                                   " (the same e-mail, BIG-MAP7@example.test)"}]

        # A sub-account keeps three uploads waiting for their mapping: a
        # fourth drops the oldest (the person left it and uploaded again).
        ups = [upload_for_mapping(admin, h, "email\nwait%d@example.test\n" % i) for i in range(4)]
        waiting = "SELECT import_id FROM contact_import_parts JOIN contact_imports i" \
                  " ON i.id = import_id WHERE i.location_id = 3 ORDER BY import_id"
        assert s.sql(waiting) == [(u["id"],) for u in ups[1:]]
        error(admin.post("/api/contacts/imports/%d/run" % ups[0]["id"], {"mapping": ["email"]},
                         headers=h), 409, "cancelled")
        r = admin.post("/api/contacts/imports/%d/run" % ups[1]["id"], {"mapping": ["email"]},
                       headers=h)
        assert r.status == 200 and r.json()["created"] == 1, r.body
        # Each sub-account has its own three.
        other = upload_for_mapping(admin, headers(admin, 1), "email\nelse@example.test\n")
        assert s.sql(waiting) == [(u["id"],) for u in ups[2:]]
        assert s.sql("SELECT count(*) FROM contact_import_parts WHERE import_id = ?",
                     other["id"]) == [(1,)]


def test_tags_split_on_both_separators_and_can_be_renamed_merged_and_deleted():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 3)
        r = upload(admin, h, "email,tags\nt1@tags.test,\"patient;new-2026, Patients\"\n"
                             "t2@tags.test,patients;vip\n")
        assert r.json()["created"] == 2, r.body
        tags = {t["name"]: t for t in admin.get("/api/tags?location_id=3").json()["data"]}
        # Names are unique regardless of case: "patients" is "Patients".
        assert {"patient", "new-2026", "Patients", "vip"} <= set(tags), tags
        assert tags["Patients"]["contacts"] == 2
        patient, patients, vip = tags["patient"]["id"], tags["Patients"]["id"], tags["vip"]["id"]

        r = admin.request("PATCH", "/api/tags/%d" % vip, {"name": "VIP client"}, headers=h)
        assert r.status == 200 and r.json()["name"] == "VIP client", r.body
        error(admin.request("PATCH", "/api/tags/%d" % patient, {"name": "PATIENTS"}, headers=h),
              409, "merge")
        error(admin.request("PATCH", "/api/tags/%d" % patient, {"name": "a;b"}, headers=h),
              422, "semicolons")
        # Merging: t1 carried both, t2 only the second; each keeps one.
        r = admin.post("/api/tags/%d/merge" % patient, {"into": patients}, headers=h)
        assert r.status == 200 and r.json()["contacts"] == 2, r.body
        error(admin.post("/api/tags/%d/merge" % patients, {"into": patients}, headers=h),
              422, "another tag")
        assert admin.post("/api/tags/%d/merge" % patients, {"into": 999999}, headers=h).status == 404
        found = admin.get("/api/contacts?location_id=3&tag=Patients").json()["data"]
        assert sorted(c["email"] for c in found) == ["t1@tags.test", "t2@tags.test"]
        assert admin.request("DELETE", "/api/tags/%d" % vip, headers=h).status == 204
        names = {t["name"] for t in admin.get("/api/tags?location_id=3").json()["data"]}
        assert "patient" not in names and "VIP client" not in names and "Patients" in names
        t2 = admin.get("/api/contacts?location_id=3&q=t2@tags.test").json()["data"][0]
        assert t2["tags"] == ["Patients"]
        # Another sub-account's tag is not found.
        assert admin.request("DELETE", "/api/tags/%d" % patients, headers=headers(admin, 1)).status \
            == 404
        # A tag on more than 5,000 contacts is not rewritten in one request
        # (it would hold every other write): 409, and nothing changed.
        s.sql("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5001)"
              " INSERT INTO contacts (location_id, first_name) SELECT 3, 'Many' || i FROM n")
        s.sql("INSERT INTO tags (location_id, name) VALUES (3, 'many')")
        s.sql("INSERT INTO contact_tags (tag_id, contact_id, location_id) SELECT t.id, c.id, 3"
              " FROM tags t, contacts c WHERE t.location_id = 3 AND t.name = 'many'"
              " AND c.location_id = 3 AND c.first_name LIKE 'Many%'")
        many = s.sql("SELECT id FROM tags WHERE location_id = 3 AND name = 'many'")[0][0]
        error(admin.post("/api/tags/%d/merge" % many, {"into": patients}, headers=h),
              409, "more than 5000 contacts, too many to merge at once")
        error(admin.request("DELETE", "/api/tags/%d" % many, headers=h),
              409, "too many to delete at once: remove it from some of them first")
        assert s.sql("SELECT count(*) FROM contact_tags WHERE tag_id = ?", many) == [(5001,)]
        # At the bound it goes.
        one = s.sql("SELECT min(contact_id) FROM contact_tags WHERE tag_id = ?", many)[0][0]
        assert admin.request("DELETE", "/api/contacts/%d/tags/many" % one, headers=h).status \
            in (200, 204)
        assert admin.request("DELETE", "/api/tags/%d" % many, headers=h).status == 204
        assert s.sql("SELECT count(*) FROM contact_tags WHERE tag_id = ?", many) == [(0,)]


def test_bad_uploads_are_refused_whole():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        # Live contacts: the purge job may remove long-deleted ones meanwhile.
        live = "SELECT count(*) FROM contacts WHERE deleted_at IS NULL"
        before = s.sql(live)[0][0]
        for text, status, words in (("", 422, "empty"),
                                    ("colour,size\r\nred,9\r\n", 422, "none of a contact's fields"),
                                    ("email,E-Mail\r\na@b.test,c@d.test\r\n", 422, "columns 1 and 2 both go to"),
                                    ("first_name\r\n\xff\xfe\r\n".encode("latin-1"), 422,
                                     "line 2: the file is not UTF-8"),
                                    # As Excel's plain "CSV" saves it: refused whole, saying
                                    # how to save it, not imported without its accented rows.
                                    ("first_name,email\r\nAnn,ann@latin.test\r\n"
                                     "Jos\u00e9,jose@latin.test\r\n".encode("cp1252"), 422,
                                     "line 3: the file is not UTF-8: it looks like Latin-1"),
                                    ("first_name\nAnn\n".encode("utf-16"), 422, "UTF-16"),
                                    ("first_name\nAnn\n".encode("utf-16-le"), 422, "NUL bytes")):
            r = upload(admin, h, text)
            assert r.status == status, (text, r.body)
            assert words in r.json()["error"]["message"], r.body
            if "UTF" in words or "NUL" in words:
                assert 'save it as "CSV UTF-8"' in r.json()["error"]["message"], r.body
        r = admin.request("POST", "/api/contacts/import", body=b"--x\r\n",
                          headers=dict(h, **{"Content-Type": "multipart/form-data; boundary=x"}))
        assert r.status == 415
        assert s.sql(live)[0][0] == before
        assert s.sql("SELECT count(*) FROM contact_imports WHERE status <> 'done'") == [(0,)]


def test_a_large_import_runs_as_a_job_with_progress():
    s, admin = seeded_server()
    with s:
        h = headers(admin, 2)
        rows = ["first_name,last_name,email,company_name"]
        for i in range(6000):
            rows.append("Bulk%d,Importer,bulk%d@import.test,\"Firm %d, Ltd\"" % (i, i, i % 50))
        rows.insert(3000, "Broken,Row,broken-at-line-3001,")
        r = upload(admin, h, "\r\n".join(rows) + "\r\n")
        assert r.status == 202, r.body
        job = r.json()
        assert job["status"] in ("queued", "running", "done") and job["bytes"] > 64 * 1024
        seen = set()
        for _ in range(600):
            state = admin.get("/api/contacts/imports/%d?location_id=2" % job["id"]).json()
            seen.add(state["status"])
            if state["status"] == "done":
                break
            # All rows read, the job's last slice still to come: 1 and running.
            assert 0 <= state["progress"] <= 1
            time.sleep(0.05)
        assert state["status"] == "done", state
        assert (state["created"], state["updated"], state["skipped"]) == (6000, 0, 1)
        assert state["errors"] == [{"line": 3001, "reason": "email: not an e-mail address"}]
        assert s.sql("SELECT count(*) FROM contacts WHERE location_id = 2 AND email LIKE 'bulk%@import.test'") \
            == [(6000,)]
        assert s.sql("SELECT count(*) FROM contact_import_parts") == [(0,)]  # the upload is dropped
        found = admin.get("/api/contacts?location_id=2&q=bulk5999@").json()["data"]
        assert [c["company_name"] for c in found] == ["Firm 49, Ltd"]


def test_a_stalled_export_holds_up_no_one():
    s, admin = seeded_server()
    with s:
        h = headers(admin)
        more = ["first_name,email,company_name"] + \
            ["Stall%d,stall%d@example.test,%s" % (i, i, "x" * 150) for i in range(6000)]
        assert upload(admin, h, "\n".join(more)).status == 202
        for _ in range(400):
            if s.sql("SELECT count(*) FROM contact_imports WHERE status <> 'done'") == [(0,)]:
                break
            time.sleep(0.05)
        # A client that asks for the export (over 1 MB) and reads none of it.
        cookie = "; ".join("%s=%s" % kv for kv in admin.cookies.items())
        stalled = socket.create_connection(("127.0.0.1", s.port))
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.sendall(("GET /api/contacts/export.csv?location_id=1 HTTP/1.1\r\nHost: x\r\n"
                         "Cookie: %s\r\n\r\n" % cookie).encode())
        time.sleep(0.5)
        try:
            # Reads, writes and another export go on meanwhile.
            assert admin.get("/api/contacts?location_id=1&q=stall59").status == 200
            assert new_contact(admin, h, first_name="During", email="during@example.test")["id"]
            _, rows = export(admin, query="?q=during@")
            assert [r["email"] for r in rows] == ["during@example.test"]
        finally:
            stalled.close()


def wait_import(admin, location, id, until=("done", "failed", "cancelled"), tries=1200):
    for _ in range(tries):
        state = admin.get("/api/contacts/imports/%d?location_id=%d" % (id, location)).json()
        if state["status"] in until:
            return state
        time.sleep(0.05)
    raise AssertionError("import %d still %s" % (id, state))


def big_file(prefix, rows, pad=0):
    """A CSV of `rows` contacts whose company names hold a line break, so
    rows cross the upload's 1 MB parts mid-field."""
    lines = ["first_name,email,company_name"]
    lines += ['%s%d,%s%d@import.test,"Firm %d\nFloor %s"' % (prefix, i, prefix, i, i, "x" * pad)
              for i in range(rows)]
    return "\r\n".join(lines) + "\r\n"


def test_a_file_of_many_parts_imports_every_row_once():
    s, admin = seeded_server()
    with s:
        text = big_file("Parted", 20000, pad=150)  # over 3 MB: four parts
        assert len(text) > 3 << 20
        r = upload(admin, headers(admin, 2), text)
        assert r.status == 202, r.body
        state = wait_import(admin, 2, r.json()["id"])
        counts = (state["status"], state["created"], state["skipped"])
        assert counts == ("done", 20000, 0), (counts, state["errors"][:3])
        got = s.sql("SELECT first_name, company_name FROM contacts WHERE location_id = 2"
                    " AND email LIKE 'parted%@import.test' ORDER BY id")
        assert len(got) == 20000, len(got)
        assert all(c == "Firm %d\nFloor %s" % (i, "x" * 150) and n == "Parted%d" % i
                   for i, (n, c) in enumerate(got))
        assert s.sql("SELECT count(*) FROM contact_import_parts") == [(0,)]


def import_job(admin):
    jobs = admin.get("/api/admin/metrics").json()["jobs"]
    return next(j for j in jobs if j["name"] == "contacts.import")


def test_a_file_queued_while_the_job_sleeps_is_imported_at_once():
    # The import job's period is a minute: it runs when a file is queued,
    # not on a tick, so an idle server does no work for it.
    s, admin = seeded_server()
    with s:
        for _ in range(100):
            if import_job(admin)["runs"] >= 1:
                break
            time.sleep(0.05)
        job = import_job(admin)
        assert job["runs"] >= 1 and job["next_in_ms"] > 30000, job
        r = upload(admin, headers(admin, 2), big_file("Woken", 3000))
        assert r.status == 202, r.body
        state = wait_import(admin, 2, r.json()["id"], tries=400)  # 20 s, a third of the period
        assert (state["status"], state["created"]) == ("done", 3000), state
        assert import_job(admin)["runs"] > job["runs"]


def test_sub_accounts_take_turns_at_the_import_job():
    s, admin = seeded_server()
    with s:
        first = upload(admin, headers(admin, 1), big_file("Early", 20000)).json()["id"]
        second = upload(admin, headers(admin, 2), big_file("Late", 2000)).json()["id"]
        # The small file uploaded later is not kept waiting for the big one.
        late = wait_import(admin, 2, second)
        early = admin.get("/api/contacts/imports/%d?location_id=1" % first).json()
        assert late["status"] == "done" and late["created"] == 2000, late
        assert early["status"] != "done" and early["progress"] < 0.9, early
        assert wait_import(admin, 1, first)["created"] == 20000


def test_an_import_can_be_cancelled_and_keeps_what_it_did():
    s, admin = seeded_server()
    with s:
        r = upload(admin, headers(admin, 2), big_file("Stopped", 30000))
        id = r.json()["id"]
        wait_import(admin, 2, id, until=("running",))
        h = headers(admin, 2)
        r = admin.delete("/api/contacts/imports/%d" % id, headers=h)
        assert r.status == 200 and r.json()["status"] == "cancelled", r.body
        assert r.json()["cancelled_at"] and r.json()["finished_at"]
        done = s.sql("SELECT count(*) FROM contacts WHERE email LIKE 'stopped%@import.test'")
        time.sleep(1.5)  # the job would have gone on by now
        assert s.sql("SELECT count(*) FROM contacts WHERE email LIKE 'stopped%@import.test'") == done
        assert done[0][0] < 30000
        state = admin.get("/api/contacts/imports/%d?location_id=2" % id).json()
        assert state["status"] == "cancelled" and state["created"] <= done[0][0], state
        assert s.sql("SELECT count(*) FROM contact_import_parts") == [(0,)]
        assert admin.delete("/api/contacts/imports/%d" % id, headers=h).status == 409
        assert admin.delete("/api/contacts/imports/%d" % id, headers=headers(admin, 1)).status == 404
        assert admin.delete("/api/contacts/imports/99999", headers=h).status == 404


def test_a_row_longer_than_a_part_fails_the_import_clearly():
    s, admin = seeded_server()
    with s:
        huge = "first_name,email,company_name\r\n" + \
            'Before,before@import.test,x\r\n"%s","%s","%s"\r\nAfter,after@import.test,y\r\n' \
            % ("x" * 800000, "y" * 800000, "z" * 800000)  # each field under 1 MB, the row over 2
        r = upload(admin, headers(admin, 2), huge)
        state = wait_import(admin, 2, r.json()["id"])
        assert state["status"] == "failed", state["errors"]
        assert any("1 MB" in e["reason"] for e in state["errors"]), state["errors"]
# What a spreadsheet would run as a formula (OWASP's CSV injection), and
# values that already begin with the guard's quote.
FORMULAS = ["=cmd|' /C calc'!A0", "+SUM(1,2)", "-2+3", '@HYPERLINK("x")', "\tTabbed",
            "\rReturn", "'=already", "''+twice"]


def test_formulas_are_neutralised_in_the_export_and_import_back_exactly():
    s, admin = seeded_server()
    with s:
        h1, h3 = headers(admin, 1), headers(admin, 3)
        for h in (h1, h3):
            admin.post("/api/custom-fields", {"key": "formula_field", "name": "F", "type": "text"},
                       headers=h)
        made = []
        for i, value in enumerate(FORMULAS):
            made.append(new_contact(admin, h1, first_name=value, last_name=value, company_name=value,
                             email="formula%d@example.test" % i, tags=["=t%d" % i],
                             custom_fields={"formula_field": value}))
        made.append(new_contact(admin, h1, first_name="Phone", email="formula-phone@example.test",
                         phone="+1 555 0100", tags=["+tag", "plain"]))
        raw = admin.get("/api/contacts/export.csv?q=formula",
                        headers={"X-Location-Id": "1"}).body.decode()
        rows = list(csv.DictReader(io.StringIO(raw, newline="")))
        assert len(rows) == len(made)
        by_email = {r["email"]: r for r in rows}
        for i, value in enumerate(FORMULAS):
            row = by_email["formula%d@example.test" % i]
            for column in ("first_name", "last_name", "company_name", "formula_field"):
                # One quote more in front, and the field in double quotes.
                assert row[column] == "'" + value, (column, row[column], value)
            assert row["tags"] == "'=t%d" % i, row["tags"]
            assert '"\'' + value[:3].replace('"', '""') in raw, value
        # A phone is a number, not a formula: written as it is (it was
        # '+15550100), while a tag that starts with + is guarded.
        assert by_email["formula-phone@example.test"]["phone"] == "+15550100"
        assert ",+15550100," in raw
        assert by_email["formula-phone@example.test"]["tags"] == "'+tag, plain"
        # No cell of the file starts with what a spreadsheet would run:
        # a first + or - only before a number.
        for row in rows:
            for cell in row.values():
                assert not cell or cell[0] not in "=+-@\t\r" or \
                    re.fullmatch(r"[+-][0-9]+(\.[0-9]+)?", cell), (cell, row)

        # An export of an older build, which guarded phones too, imports.
        r = upload(admin, h3, "first_name,email,phone\nOld,old-export@example.test,'+15550101\n")
        assert r.status == 200 and r.json()["created"] == 1, r.body
        assert s.sql("SELECT phone FROM contacts WHERE email = 'old-export@example.test'") == \
            [("+15550101",)]

        # The export imports back exactly as it was stored.
        r = upload(admin, h3, raw)
        assert r.status == 200, r.body
        assert (r.json()["created"], r.json()["skipped"]) == (len(made), 0), r.body
        for original in made:
            got = s.sql("SELECT id, first_name, last_name, company_name, phone FROM contacts"
                        " WHERE location_id = 3 AND email = ?", original["email"])
            assert len(got) == 1, original["email"]
            back = admin.get("/api/contacts/%d?location_id=3" % got[0][0]).json()
            for key in ("first_name", "last_name", "company_name", "phone"):
                assert back[key] == original[key], (key, back[key], original[key])
            assert sorted(t["name"] for t in back["tags"]) == \
                sorted(t["name"] for t in original["tags"])
            assert back["custom_fields"].get("formula_field") == \
                original["custom_fields"].get("formula_field")
