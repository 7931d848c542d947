# SPDX-License-Identifier: MIT
"""A sub-account's time zone, currency and country: each is checked when
it is set and answered with the sub-account; phone numbers are kept in
E.164, read with the sub-account's country; "today" and the counts kept by day are
the sub-account's own, across the days clocks change and in zones half an
hour off the hour; a new zone makes those counts again; and the agency
adds amounts up per currency, never across them. The expected instants
come from Python's reading of the tz database, not from the server."""

import datetime
import zoneinfo

from harness import MODULES, Server, error, headers, iso, one

ADMIN = ("admin@example.test", "admin-pass-1")
UTC = datetime.timezone.utc


def agency_server():
    s = Server(modules=MODULES)
    s.create_admin(*ADMIN)
    s.start()
    return s, s.login(*ADMIN)


def sub_account(admin, name, timezone, currency="USD"):
    r = admin.post("/api/admin/locations", {"name": name, "timezone": timezone, "currency": currency})
    assert r.status == 201, r.body
    return r.json()["id"]


def local(zone, *when):
    """A local time in `zone` as the API writes times (UTC)."""
    return iso(datetime.datetime(*when, tzinfo=zoneinfo.ZoneInfo(zone)).astimezone(UTC))


def day_number(t, zone):
    """The sub-account's day of a time (days since 1970-01-01)."""
    moment = datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).astimezone(zoneinfo.ZoneInfo(zone))
    return (moment.date() - datetime.date(1970, 1, 1)).days


def add_task(admin, location, title, due):
    r = admin.post("/api/tasks", {"title": title, "due_at": due}, headers=headers(admin, location))
    assert r.status == 201, r.body
    return r.json()["id"]


def kept_days(s, location):
    return s.sql("SELECT day, open FROM due_days WHERE location_id = ? AND day < 2147483647"
                 " ORDER BY day", location)


def counted_days(s, location, zone):
    days = {}
    for (due,) in s.sql("SELECT due_at FROM tasks WHERE location_id = ? AND completed_at IS NULL"
                        " AND due_at IS NOT NULL", location):
        days[day_number(due, zone)] = days.get(day_number(due, zone), 0) + 1
    return sorted(days.items())


def test_zone_and_currency_are_checked_and_answered():
    s, admin = agency_server()
    with s:
        error(admin.post("/api/admin/locations", {"name": "X", "timezone": "Mars/Olympus_Mons"}),
              422, "not a time zone")
        error(admin.post("/api/admin/locations", {"name": "X", "currency": "usd"}), 422, "ISO 4217")
        error(admin.post("/api/admin/locations", {"name": "X", "currency": "XYZ"}), 422, "ISO 4217")
        assert one(s, "SELECT count(*) FROM locations WHERE name = 'X'") == 0
        L = sub_account(admin, "Dentist", "America/Chicago")
        london = sub_account(admin, "Salon", "Europe/London", "GBP")
        me = admin.get("/api/auth/me").json()
        assert {(x["id"], x["timezone"], x["currency"]) for x in me["locations"]} == \
            {(L, "America/Chicago", "USD"), (london, "Europe/London", "GBP")}
        # Dollars may become euros (both in cents), not yen (no minor unit).
        assert admin.patch("/api/admin/locations/%d" % L, {"currency": "EUR"}).json()["currency"] == "EUR"
        error(admin.patch("/api/admin/locations/%d" % L, {"currency": "JPY"}), 422, "minor units")
        error(admin.patch("/api/admin/locations/%d" % L, {"timezone": "Nowhere"}), 422, "time zone")
        got = admin.get("/api/admin/locations").json()["data"]
        assert [(x["timezone"], x["currency"]) for x in got if x["id"] == L] == [("America/Chicago", "EUR")]
        # A new sub-account may keep yen from the start.
        assert admin.post("/api/admin/locations", {"name": "Tokyo", "currency": "JPY",
                                                   "timezone": "Asia/Tokyo"}).status == 201


def test_phone_numbers_are_kept_in_e164_read_with_the_sub_accounts_country():
    s, admin = agency_server()
    with s:
        error(admin.post("/api/admin/locations", {"name": "X", "country": "UK"}), 422, "ISO 3166-1")
        chicago = sub_account(admin, "Dentist", "America/Chicago")
        london = admin.post("/api/admin/locations", {"name": "Salon", "timezone": "Europe/London",
                                                     "country": "GB", "currency": "GBP"}).json()
        assert london["country"] == "GB"
        got = {x["id"]: x["country"] for x in admin.get("/api/admin/locations").json()["data"]}
        assert got == {chicago: "US", london["id"]: "GB"}
        typed = {chicago: ["(555) 010-2000", "+44 20 7946 0958"],
                 london["id"]: ["020 7946 0958", "+1 555 010 2000"]}
        kept = {chicago: ["+15550102000", "+442079460958"],
                london["id"]: ["+442079460958", "+15550102000"]}
        for L, numbers in typed.items():
            h = headers(admin, L)
            for n in numbers:
                r = admin.post("/api/contacts", {"first_name": "P", "phone": n}, headers=h)
                assert r.status == 201, r.body
                assert r.json()["phone"] == kept[L][numbers.index(n)]
            # The same number typed another way is the same contact.
            r = admin.post("/api/contacts", {"first_name": "Q", "phone": kept[L][0]}, headers=h)
            error(r, 409, "phone")
            error(admin.post("/api/contacts", {"first_name": "R", "phone": "call me"}, headers=h),
                  422, "not a phone number")
        # A message from a number as the other country writes it finds its contact.
        r = admin.post("/api/conversations/inbound", {"phone": "020 7946 0958", "channel": "sms",
                                                      "body": "Hello"}, headers=headers(admin, london["id"]))
        assert r.status == 201, r.body
        error(admin.patch("/api/admin/locations/%d" % chicago, {"country": "ZZ"}), 422, "ISO 3166-1")
        assert admin.patch("/api/admin/locations/%d" % chicago, {"country": "CA"}).json()["country"] == "CA"
        assert one(s, "SELECT count(*) FROM contacts WHERE phone NOT LIKE '+%'") == 0


def test_today_is_the_sub_accounts_day():
    s, admin = agency_server()
    with s:
        for zone in ("America/Chicago", "Asia/Kolkata"):
            L = sub_account(admin, zone, zone)
            today = datetime.datetime.now(zoneinfo.ZoneInfo(zone)).date()
            midnight = lambda d: iso(datetime.datetime.combine(d, datetime.time(0), zoneinfo.ZoneInfo(zone))
                                     .astimezone(UTC))
            tomorrow = today + datetime.timedelta(days=1)
            second = datetime.timedelta(seconds=1)
            at = lambda t, d: iso(datetime.datetime.fromisoformat(t.replace("Z", "+00:00")) + d)
            inside = [add_task(admin, L, "first second", midnight(today)),
                      add_task(admin, L, "last second", at(midnight(tomorrow), -second))]
            add_task(admin, L, "yesterday", at(midnight(today), -second))
            add_task(admin, L, "tomorrow", midnight(tomorrow))
            got = admin.get("/api/tasks?due=today", headers=headers(admin, L)).json()["data"]
            assert sorted(t["id"] for t in got) == sorted(inside), zone
            week = admin.get("/api/tasks?due=week", headers=headers(admin, L)).json()["data"]
            assert len(week) == 3, zone
            summary = admin.get("/api/project?location_id=%d" % L).json()
            assert summary["counts"]["tasks"]["overdue"] == 1 + (midnight(today) < iso(datetime.datetime.now(UTC)))


def test_counts_by_day_follow_the_clock_changes_and_the_zone():
    s, admin = agency_server()
    with s:
        L = sub_account(admin, "Chicago", "America/Chicago")
        # Around both clock changes of 2026, and around midnight in Kolkata.
        times = ["2026-03-08T05:59:59.000Z", "2026-03-08T06:00:00.000Z", "2026-03-09T04:59:59.000Z",
                 "2026-03-09T05:00:00.000Z", "2026-11-01T04:59:59.000Z", "2026-11-01T05:00:00.000Z",
                 "2026-11-02T05:59:59.000Z", "2026-11-02T06:00:00.000Z",
                 "2026-12-05T18:29:59.000Z", "2026-12-05T18:30:00.000Z", local("America/Chicago", 2026, 12, 5, 20)]
        for t in times:
            add_task(admin, L, "At " + t, t)
        assert kept_days(s, L) == counted_days(s, L, "America/Chicago")
        # 20520 is 2026-03-08: its 23 hours hold two of the tasks, as do
        # 2026-11-01's 25.
        assert dict(kept_days(s, L))[20520] == 2 and dict(kept_days(s, L))[20758] == 2
        assert admin.patch("/api/admin/locations/%d" % L, {"timezone": "Asia/Kolkata"}).status == 200
        assert kept_days(s, L) == counted_days(s, L, "Asia/Kolkata")
        # 23:59:59 on the 5th in Kolkata, then its midnight, with Chicago's
        # 8 pm of the 5th (7:30 am of the 6th there).
        assert dict(kept_days(s, L))[20792] == 1 and dict(kept_days(s, L))[20793] == 2
        # The overdue counts are made again too, and still count every late task.
        project = admin.get("/api/project?location_id=%d" % L).json()
        now = iso(datetime.datetime.now(UTC))
        assert project["counts"]["tasks"]["overdue"] == sum(t < now for t in times)
        # A name change alone keeps what is kept.
        before = kept_days(s, L)
        assert admin.patch("/api/admin/locations/%d" % L, {"name": "Kolkata"}).status == 200
        assert kept_days(s, L) == before


def test_the_agency_adds_amounts_per_currency():
    s, admin = agency_server()
    with s:
        places = {sub_account(admin, "Dollars", "America/Chicago"): 300050,
                  sub_account(admin, "Pounds", "Europe/London", "GBP"): 12500}
        for L, cents in places.items():
            h = headers(admin, L)
            pipeline = admin.post("/api/pipelines", {"name": "Sales"}, headers=h).json()
            stage = admin.post("/api/pipelines/%d/stages" % pipeline["id"], {"name": "New"}, headers=h).json()
            r = admin.post("/api/opportunities", {"name": "Deal", "pipeline_id": pipeline["id"],
                                                  "stage_id": stage["id"], "value_cents": cents}, headers=h)
            assert r.status == 201, r.body
        got = admin.get("/api/agency/overview").json()
        assert got["counts"]["deals"] == {"open": 2, "open_value_cents": None}
        assert [(c["currency"], c["open_value_cents"], c["sub_accounts"]) for c in got["by_currency"]] == \
            [("GBP", 12500, 1), ("USD", 300050, 1)]
        assert all(d["deals_won_cents"] is None for d in got["series"])
        rows = admin.get("/api/agency/projects").json()["data"]
        assert {(p["currency"], p["counts"]["deals"]["open_value_cents"]) for p in rows} == \
            {("USD", 300050), ("GBP", 12500)}
        deals = admin.get("/api/agency/opportunities").json()
        assert {(p["currency"], p["value_cents"]) for p in deals["sub_accounts"]} == \
            {("USD", 300050), ("GBP", 12500)}
        assert deals["totals"]["open"] == {"count": 2, "value_cents": None}
        # One currency again: the sums come back.
        pounds = [L for L, c in places.items() if c == 12500][0]
        assert admin.patch("/api/admin/locations/%d" % pounds, {"currency": "USD"}).status == 200
        got = admin.get("/api/agency/overview").json()
        assert got["counts"]["deals"]["open_value_cents"] == 312550
        assert [c["currency"] for c in got["by_currency"]] == ["USD"]
        assert admin.get("/api/agency/opportunities").json()["totals"]["open"] == \
            {"count": 2, "value_cents": 312550}
