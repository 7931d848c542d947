-- A deal's notes, and its history: a line per thing that happened to it
-- (made, moved, won, reopened), as its events read (hl_event_line), kept
-- when each event is handled. Both go with the deal.
CREATE TABLE deal_notes (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	opportunity_id INTEGER NOT NULL REFERENCES opportunities (id) ON DELETE CASCADE,
	author_id INTEGER REFERENCES users (id),
	body TEXT NOT NULL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX deal_notes_deal ON deal_notes (opportunity_id, id);

CREATE TABLE deal_history (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	opportunity_id INTEGER NOT NULL REFERENCES opportunities (id) ON DELETE CASCADE,
	kind TEXT NOT NULL,
	line TEXT NOT NULL,
	at TEXT NOT NULL
);
CREATE INDEX deal_history_deal ON deal_history (opportunity_id, id);
