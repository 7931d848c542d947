-- An import as a person walks it: the file is uploaded first and waits
-- (waiting = 1) while its columns are mapped and previewed; then it runs
-- with that mapping (a JSON array, a field's key or null per column) and
-- the choice of what a row matching a contact does (duplicates). The
-- report names each line merged into a contact, as errors names each line
-- skipped: [{"line": 3, "contact_id": 12, "reason": "..."}], the first 1000.
ALTER TABLE contact_imports ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
ALTER TABLE contact_imports ADD COLUMN mapping TEXT;
ALTER TABLE contact_imports ADD COLUMN duplicates TEXT NOT NULL DEFAULT 'update'
	CHECK (duplicates IN ('skip', 'update', 'create'));
ALTER TABLE contact_imports ADD COLUMN merged TEXT NOT NULL DEFAULT '[]';
-- The uploads still waiting, by age: the purge finds those left a day.
CREATE INDEX contact_imports_waiting ON contact_imports (created_at) WHERE waiting;

-- The mapping last used for a file of the same shape (the same set of
-- column names, as read: lower case, sorted, joined by a unit separator)
-- in the sub-account: the next export of the same tool maps itself. The
-- targets are in the order of the sorted names.
CREATE TABLE contact_import_mappings (
	location_id INTEGER NOT NULL REFERENCES locations (id),
	shape TEXT NOT NULL,
	mapping TEXT NOT NULL,
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	PRIMARY KEY (location_id, shape)
);
