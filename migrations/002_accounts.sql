-- Accounts and tenancy: an agency, its sub-accounts (locations), the people
-- who sign in, which locations each may open, their sessions and API
-- tokens, and the audit log. Times a person reads are ISO 8601 UTC text;
-- expiry times the server compares on every request are Unix seconds.
CREATE TABLE agencies (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE locations (
	id INTEGER PRIMARY KEY,
	agency_id INTEGER NOT NULL REFERENCES agencies (id),
	name TEXT NOT NULL,
	timezone TEXT NOT NULL DEFAULT 'UTC',
	disabled_at TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX locations_agency ON locations (agency_id, id);

CREATE TABLE users (
	id INTEGER PRIMARY KEY,
	agency_id INTEGER NOT NULL REFERENCES agencies (id),
	email TEXT NOT NULL COLLATE NOCASE UNIQUE,
	name TEXT NOT NULL,
	role TEXT NOT NULL CHECK (role IN ('agency_admin', 'agency_user', 'location_admin', 'location_user')),
	-- Record-level visibility: only records assigned to this user.
	assigned_only INTEGER NOT NULL DEFAULT 0 CHECK (assigned_only IN (0, 1)),
	password_hash TEXT,
	disabled_at TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX users_agency ON users (agency_id, id);

CREATE TABLE user_locations (
	user_id INTEGER NOT NULL REFERENCES users (id),
	location_id INTEGER NOT NULL REFERENCES locations (id),
	PRIMARY KEY (user_id, location_id)
) WITHOUT ROWID;
CREATE INDEX user_locations_location ON user_locations (location_id, user_id);

-- Only a hash of each session token is kept: a copy of the database does
-- not let anyone sign in.
CREATE TABLE sessions (
	token_hash BLOB PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users (id),
	expires_at INTEGER NOT NULL,
	renewed_at INTEGER NOT NULL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
) WITHOUT ROWID;
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE api_tokens (
	id INTEGER PRIMARY KEY,
	token_hash BLOB NOT NULL UNIQUE,
	user_id INTEGER NOT NULL REFERENCES users (id),
	name TEXT NOT NULL,
	-- NULL: the user's own scope; otherwise the one location it may open.
	location_id INTEGER REFERENCES locations (id),
	expires_at INTEGER,
	revoked_at TEXT,
	last_used_at TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX api_tokens_user ON api_tokens (user_id, id);

CREATE TABLE audit_log (
	id INTEGER PRIMARY KEY,
	at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	agency_id INTEGER,
	user_id INTEGER,
	location_id INTEGER,
	action TEXT NOT NULL,
	entity TEXT,
	entity_id INTEGER,
	client TEXT
);
CREATE INDEX audit_log_agency ON audit_log (agency_id, id);
CREATE INDEX audit_log_location ON audit_log (location_id, id);
