-- Test texts an admin sent from the SMS page, and how each went: queued,
-- sending, sent or failed (with the provider's words). The tests job
-- sends the queued ones.
CREATE TABLE sms_tests (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	to_number TEXT NOT NULL,
	status TEXT NOT NULL DEFAULT 'queued'
		CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
	reason TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX sms_tests_queued ON sms_tests (status) WHERE status = 'queued';
