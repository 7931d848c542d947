-- Marketing texts wait for the morning: a message written as marketing
-- (a campaign's, not a reply in a conversation) is held through the
-- sub-account's quiet hours, in its own time zone. The hours are minutes
-- after local midnight; a sub-account without a row keeps the default,
-- 21:00 to 08:00, and one whose start equals its end has none.
ALTER TABLE messages ADD COLUMN marketing INTEGER NOT NULL DEFAULT 0;
CREATE TABLE message_quiet_hours (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	starts_min INTEGER NOT NULL CHECK (starts_min BETWEEN 0 AND 1439),
	ends_min INTEGER NOT NULL CHECK (ends_min BETWEEN 0 AND 1439)
);
