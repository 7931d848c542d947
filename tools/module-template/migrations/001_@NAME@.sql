-- @NAME@'s notes, one sub-account's each (location_id: the core's
-- locations). Times are UTC text with milliseconds, as every table keeps
-- them, so they compare and sort as text.
CREATE TABLE @NAME@_notes (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id) ON DELETE CASCADE,
	body TEXT NOT NULL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX @NAME@_notes_location ON @NAME@_notes (location_id, id);
CREATE INDEX @NAME@_notes_created ON @NAME@_notes (created_at);
