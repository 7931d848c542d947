-- An import's upload in parts of at most 1 MB, found by the byte of the
-- file they start at: a slice of the import job reads the part it resumes
-- in and the next one (for a row that crosses into it), never the whole
-- file, which cost up to 200 ms a slice on a 60 MB upload.
CREATE TABLE contact_import_parts (
	id INTEGER PRIMARY KEY,
	import_id INTEGER NOT NULL REFERENCES contact_imports (id) ON DELETE CASCADE,
	start INTEGER NOT NULL,
	data BLOB NOT NULL
);
CREATE UNIQUE INDEX contact_import_parts_start ON contact_import_parts (import_id, start);

-- Uploads stored whole by the previous version, cut into parts.
WITH RECURSIVE cut (import_id, start) AS (
	SELECT import_id, 0 FROM contact_import_files
	UNION ALL
	SELECT c.import_id, c.start + 1048576 FROM cut c
	JOIN contact_import_files f ON f.import_id = c.import_id
	WHERE c.start + 1048576 < length(f.csv)
)
INSERT INTO contact_import_parts (import_id, start, data)
	SELECT c.import_id, c.start, substr(f.csv, c.start + 1, 1048576)
	FROM cut c JOIN contact_import_files f ON f.import_id = c.import_id;
DROP TABLE contact_import_files;

-- A cancelled import is 'failed' with the time it was cancelled: the
-- status's CHECK cannot change without copying the table.
ALTER TABLE contact_imports ADD COLUMN cancelled_at TEXT;

-- The job takes the sub-accounts with unfinished imports in turn.
CREATE INDEX contact_imports_pending_location ON contact_imports (location_id, id)
	WHERE status IN ('queued', 'running');
