-- A contact's timeline: a line per thing that happened around the contact
-- (a note written, a deal moved, an invoice paid), as the module whose
-- event it was describes it (hl_event_line) when the event is handled, and
-- the page it links to. assigned_to is the event's: a user who sees only
-- what is assigned to them reads their records' lines and everyone's.
-- data keeps the event's ids, so that a note's line goes with the note.
CREATE TABLE contact_timeline (
	id INTEGER PRIMARY KEY,
	contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	kind TEXT NOT NULL,
	assigned_to INTEGER NOT NULL DEFAULT 0,
	line TEXT NOT NULL,
	link TEXT,
	data TEXT NOT NULL DEFAULT '{}',
	at TEXT NOT NULL
);
CREATE INDEX contact_timeline_contact ON contact_timeline (contact_id, id);
