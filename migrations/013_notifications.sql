-- What a person is told in the header's bell: someone assigned them a
-- record, mentioned them in a note, a contact replied in their
-- conversation. One row per person told, made by a module through
-- hl_notify in the transaction of what it tells of; `path` is the page it
-- opens (under /app, in sub-account location_id). Kept 90 days: hl_notify
-- deletes the person's older ones as it adds one.
CREATE TABLE notifications (
	id INTEGER PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	location_id INTEGER NOT NULL REFERENCES locations (id) ON DELETE CASCADE,
	actor_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
	kind TEXT NOT NULL,
	text TEXT NOT NULL,
	path TEXT NOT NULL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	read_at TEXT
);
-- the bell's list, newest first
CREATE INDEX notifications_user ON notifications (user_id, id);
-- the prune of a person's oldest, which reads only those
CREATE INDEX notifications_age ON notifications (user_id, created_at);
-- the bell's count
CREATE INDEX notifications_unread ON notifications (user_id) WHERE read_at IS NULL;
