-- Matching a contact by phone (upserts and imports without an e-mail).
CREATE INDEX contacts_location_phone ON contacts (location_id, phone)
	WHERE phone IS NOT NULL AND deleted_at IS NULL;

-- CSV imports: small ones run inside their request, large ones in the
-- import job, which keeps its place in `offset` and `line` so each slice
-- goes on where the last stopped.
CREATE TABLE contact_imports (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	user_id INTEGER REFERENCES users (id),
	status TEXT NOT NULL DEFAULT 'queued'
		CHECK (status IN ('queued', 'running', 'done', 'failed')),
	bytes INTEGER NOT NULL,
	offset INTEGER NOT NULL DEFAULT 0,
	line INTEGER NOT NULL DEFAULT 1,
	created INTEGER NOT NULL DEFAULT 0,
	updated INTEGER NOT NULL DEFAULT 0,
	skipped INTEGER NOT NULL DEFAULT 0,
	-- The first 1000 rejected rows, [{"line": 7, "reason": "..."}].
	errors TEXT NOT NULL DEFAULT '[]',
	ignored_columns TEXT NOT NULL DEFAULT '[]',
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	finished_at TEXT
);
CREATE INDEX contact_imports_location ON contact_imports (location_id, id);
CREATE INDEX contact_imports_pending ON contact_imports (id) WHERE status IN ('queued', 'running');

-- The upload of a queued or running import, apart from its progress: a
-- slice that records how far it got then rewrites a small row, not the
-- whole file. Dropped once the import is done.
CREATE TABLE contact_import_files (
	import_id INTEGER PRIMARY KEY REFERENCES contact_imports (id) ON DELETE CASCADE,
	csv BLOB NOT NULL
);
