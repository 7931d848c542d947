-- What has happened around a contact elsewhere, counted by event name
-- ("message.received": 12, "task.completed": 3) from the events other
-- modules publish with a "contact_id", so the record can show it without
-- the contacts module knowing their tables.
CREATE TABLE contact_activity (
	contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	kind TEXT NOT NULL,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	count INTEGER NOT NULL,
	last_at TEXT NOT NULL,
	PRIMARY KEY (contact_id, kind)
) WITHOUT ROWID;
