-- The agency's business details, printed on its sub-accounts' invoices
-- (a sub-account may give its own instead), and the logos of the agency
-- and of each sub-account that has its own. A logo is kept in the
-- database with the rest (a backup holds it), under a random key made
-- again at each upload: its address names one image for good, so
-- browsers and mail programs may keep it a year.
ALTER TABLE agencies ADD COLUMN address TEXT NOT NULL DEFAULT '';
ALTER TABLE agencies ADD COLUMN email TEXT NOT NULL DEFAULT '';
ALTER TABLE agencies ADD COLUMN phone TEXT NOT NULL DEFAULT '';
ALTER TABLE agencies ADD COLUMN tax_id TEXT NOT NULL DEFAULT '';
CREATE TABLE agency_logos (
	agency_id INTEGER PRIMARY KEY REFERENCES agencies (id),
	key TEXT NOT NULL UNIQUE,
	content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
	content BLOB NOT NULL,
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE TABLE location_logos (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	key TEXT NOT NULL UNIQUE,
	content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
	content BLOB NOT NULL,
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
