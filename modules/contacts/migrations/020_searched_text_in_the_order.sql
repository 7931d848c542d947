-- The newest-first order holds each contact's searched text (SEARCH_TEXT
-- of search.h: names, e-mail, phone, company), so that a search walking
-- it (list.c, for a common term) reads a contact's row only when it
-- matches: SQLite evaluates the LIKE on the index's columns before it
-- seeks the row. Walking a sub-account of 77,445 contacts for a term none
-- holds took 244 ms through the rows and 51 ms through this index (the
-- statement alone, sqlite3, perf-seed --scale 10).
-- It takes the place of contacts_location_created, whose order it keeps,
-- and of contacts_location_live_created (migration 013), which walked the
-- same order with the deleted contacts in it. contacts_location_live_health
-- (013) is read by no statement since the health figures come from
-- contact_counts (010): no query plan of the benchmark names it, and the
-- health job rewrote it with every score it changed.
DROP INDEX contacts_location_created;
DROP INDEX IF EXISTS contacts_location_live_created;
DROP INDEX IF EXISTS contacts_location_live_health;
CREATE INDEX contacts_location_created ON contacts (location_id, created_at, id, first_name,
	last_name, email, phone, company_name) WHERE deleted_at IS NULL;
