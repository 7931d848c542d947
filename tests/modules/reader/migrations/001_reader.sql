-- Two tables for the read cache's tests: one scoped by location, one not.
CREATE TABLE reader_items (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL,
	name TEXT NOT NULL
);
CREATE INDEX reader_items_location ON reader_items (location_id, id);
CREATE TABLE reader_notes (
	id INTEGER PRIMARY KEY,
	text TEXT NOT NULL
);
