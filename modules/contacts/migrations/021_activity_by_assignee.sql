-- A contact's activity counted per user the event's record is assigned to
-- (its assigned_to: a user, -1 for everyone's, 0 for nobody's), so that a
-- user who sees only what is assigned to them counts only their own
-- records' activity, and everyone's, around their contacts: a deal of
-- someone else's on their contact is not theirs to hear of. The counts
-- kept before are nobody's (0): whose records they came from is not known.
CREATE TABLE contact_activity_by (
	contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	kind TEXT NOT NULL,
	assigned_to INTEGER NOT NULL DEFAULT 0,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	count INTEGER NOT NULL,
	last_at TEXT NOT NULL,
	PRIMARY KEY (contact_id, kind, assigned_to)
) WITHOUT ROWID;
INSERT INTO contact_activity_by (contact_id, kind, assigned_to, location_id, count, last_at)
	SELECT contact_id, kind, 0, location_id, count, last_at FROM contact_activity;
DROP TABLE contact_activity;
ALTER TABLE contact_activity_by RENAME TO contact_activity;
