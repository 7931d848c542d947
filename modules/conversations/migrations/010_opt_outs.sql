-- Consent: a contact who asked for no more messages on a channel (a reply
-- of STOP to a text, an unsubscribe, a person's note of it). Every send
-- path checks it: a message to them is refused with the reason. `source`
-- says how it came: 'reply' (their own words), 'person' (a user set it).
CREATE TABLE message_opt_outs (
	contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	channel TEXT NOT NULL,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	source TEXT NOT NULL CHECK (source IN ('reply', 'person')),
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	PRIMARY KEY (contact_id, channel)
) WITHOUT ROWID;
