-- An opt-out may come from an unsubscribe link the contact followed (a
-- marketing e-mail's), besides their reply and a person's note: 'link'.
CREATE TABLE message_opt_outs_rebuilt (
	contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	channel TEXT NOT NULL,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	source TEXT NOT NULL CHECK (source IN ('reply', 'person', 'link')),
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	PRIMARY KEY (contact_id, channel)
) WITHOUT ROWID;
INSERT INTO message_opt_outs_rebuilt SELECT contact_id, channel, location_id, source, created_at
	FROM message_opt_outs;
DROP TABLE message_opt_outs;
ALTER TABLE message_opt_outs_rebuilt RENAME TO message_opt_outs;
