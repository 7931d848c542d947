-- The contact record in full: companies, tags, custom fields, notes and a
-- substring search index. contacts is rebuilt to gain its references
-- (SQLite cannot add a foreign key to an existing table).
CREATE TABLE companies (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	name TEXT NOT NULL,
	domain TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX companies_location_name ON companies (location_id, name);
-- Linking contacts to companies by e-mail domain.
CREATE INDEX companies_location_domain ON companies (location_id, domain) WHERE domain IS NOT NULL;

CREATE TABLE contacts_rebuilt (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	first_name TEXT NOT NULL DEFAULT '',
	last_name TEXT NOT NULL DEFAULT '',
	email TEXT,
	phone TEXT,
	company_id INTEGER REFERENCES companies (id) ON DELETE SET NULL,
	company_name TEXT,
	source TEXT,
	owner_id INTEGER REFERENCES users (id),
	-- 0-100 from recent activity, kept by a job; NULL until scored.
	health_score INTEGER,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	deleted_at TEXT
);
INSERT INTO contacts_rebuilt (id, location_id, first_name, last_name, email, phone, company_name,
			      source, owner_id, created_at, updated_at, deleted_at)
	SELECT id, location_id, first_name, last_name, email, phone, company_name, source,
	       owner_id, created_at, updated_at, deleted_at FROM contacts;
DROP TABLE contacts;
ALTER TABLE contacts_rebuilt RENAME TO contacts;

-- The list: a location's live contacts, newest first.
CREATE INDEX contacts_location_id ON contacts (location_id, id) WHERE deleted_at IS NULL;
-- "Assigned only" users: their own contacts, newest first.
CREATE INDEX contacts_location_owner ON contacts (location_id, owner_id, id) WHERE deleted_at IS NULL;
-- Finding a contact by e-mail (imports match on it).
CREATE INDEX contacts_location_email ON contacts (location_id, email COLLATE NOCASE)
	WHERE email IS NOT NULL;
CREATE INDEX contacts_company ON contacts (company_id) WHERE company_id IS NOT NULL;
-- The purge job: deleted contacts by deletion time.
CREATE INDEX contacts_deleted_at ON contacts (deleted_at, id) WHERE deleted_at IS NOT NULL;

-- Substring search: one trigram-indexed column holding every searchable
-- field, queried as `id IN (SELECT rowid FROM contact_search WHERE text
-- LIKE ?)` (a single column is indexed for LIKE; see DESIGN.md).
CREATE VIRTUAL TABLE contact_search USING fts5(text, tokenize = 'trigram');
CREATE TRIGGER contacts_search_insert AFTER INSERT ON contacts BEGIN
	INSERT INTO contact_search (rowid, text) VALUES (new.id, new.first_name || ' ' || new.last_name || ' ' || coalesce(new.email, '') || ' ' ||
		coalesce(new.phone, '') || ' ' || coalesce(new.company_name, ''));
END;
CREATE TRIGGER contacts_search_update AFTER UPDATE OF first_name, last_name, email, phone,
	company_name ON contacts BEGIN
	UPDATE contact_search SET text = new.first_name || ' ' || new.last_name || ' ' || coalesce(new.email, '') || ' ' ||
		coalesce(new.phone, '') || ' ' || coalesce(new.company_name, '')
		WHERE rowid = new.id;
END;
CREATE TRIGGER contacts_search_delete AFTER DELETE ON contacts BEGIN
	DELETE FROM contact_search WHERE rowid = old.id;
END;
INSERT INTO contact_search (rowid, text)
	SELECT id, first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' ||
		coalesce(phone, '') || ' ' || coalesce(company_name, '') FROM contacts;

CREATE TABLE tags (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	name TEXT NOT NULL,
	color TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	UNIQUE (location_id, name COLLATE NOCASE)
);

-- Which contacts carry which tag. Keyed by tag first: "contacts tagged X,
-- newest first" reads one range of the primary key.
CREATE TABLE contact_tags (
	tag_id INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
	contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	PRIMARY KEY (tag_id, contact_id)
) WITHOUT ROWID;
CREATE INDEX contact_tags_contact ON contact_tags (contact_id, tag_id);

CREATE TABLE custom_fields (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	key TEXT NOT NULL,
	name TEXT NOT NULL,
	type TEXT NOT NULL CHECK (type IN ('text', 'number', 'date', 'select', 'checkbox')),
	options TEXT, -- JSON array of choices, for select
	position INTEGER NOT NULL DEFAULT 0,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	UNIQUE (location_id, key)
);

CREATE TABLE custom_values (
	contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	field_id INTEGER NOT NULL REFERENCES custom_fields (id) ON DELETE CASCADE,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	value TEXT NOT NULL,
	PRIMARY KEY (contact_id, field_id)
) WITHOUT ROWID;
-- Filtering contacts by a field's value.
CREATE INDEX custom_values_field ON custom_values (field_id, value);

CREATE TABLE notes (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	author_id INTEGER REFERENCES users (id),
	body TEXT NOT NULL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX notes_contact ON notes (contact_id, id);
