-- Saved replies: words a sub-account's team sends again and again ("Your
-- appointment is confirmed, {{contact.first_name|there}}"), picked in the
-- composer and sent with their merge fields filled. Shared by the
-- sub-account, kept by its admins; a name is one per sub-account, whatever
-- its case. The subject is for e-mail, NULL when it has none.
CREATE TABLE saved_replies (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	name TEXT NOT NULL,
	subject TEXT,
	body TEXT NOT NULL,
	created_by INTEGER REFERENCES users (id),
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX saved_replies_name ON saved_replies (location_id, name COLLATE NOCASE);
