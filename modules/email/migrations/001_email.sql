-- Each sub-account's sender: the name and address its mail is from and
-- the address replies go to (none: the sender's). Its messages wait
-- until it has one.
CREATE TABLE email_senders (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	from_name TEXT,
	from_address TEXT NOT NULL,
	reply_to TEXT,
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Test messages an admin sent from Settings, and how each went: queued,
-- sending, sent or failed (with the relay's words). The tests job sends
-- the queued ones.
CREATE TABLE email_tests (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	to_address TEXT NOT NULL,
	status TEXT NOT NULL DEFAULT 'queued'
		CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
	reason TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX email_tests_queued ON email_tests (status) WHERE status = 'queued';
