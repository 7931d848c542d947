-- What the events test module's handlers saw, one row per handler call
-- that committed, and the rows its routes write next to their events.
CREATE TABLE events_probe_seen (
	id INTEGER PRIMARY KEY,
	handler TEXT NOT NULL,
	name TEXT NOT NULL,
	location_id INTEGER NOT NULL,
	subject_id INTEGER NOT NULL,
	data TEXT NOT NULL
);
CREATE TABLE events_probe_writes (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL,
	name TEXT NOT NULL
);
