-- Contacts: the people a sub-account works with. Every row carries its
-- location (sub-account), so scoping never needs a join.
CREATE TABLE contacts (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL,
	first_name TEXT NOT NULL DEFAULT '',
	last_name TEXT NOT NULL DEFAULT '',
	email TEXT,
	phone TEXT,
	company_name TEXT,
	source TEXT,
	owner_id INTEGER,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	deleted_at TEXT
);

-- The list: a location's live contacts, newest first.
CREATE INDEX contacts_location_id ON contacts (location_id, id) WHERE deleted_at IS NULL;

-- The purge job: soft-deleted contacts in id order.
CREATE INDEX contacts_deleted ON contacts (id, deleted_at) WHERE deleted_at IS NOT NULL;
