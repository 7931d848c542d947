-- A provider's report on a message (delivered) can come before the
-- message's outcome is recorded with the provider's id of it: the report
-- waits here, and the outcome applies it. Reports no message claims
-- (another server's, a message deleted) are dropped after an hour.
CREATE TABLE message_early_reports (
	reference TEXT NOT NULL,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	status TEXT NOT NULL,
	reason TEXT,
	at INTEGER NOT NULL,
	PRIMARY KEY (reference, location_id)
) WITHOUT ROWID;
CREATE INDEX message_early_reports_at ON message_early_reports (at);
