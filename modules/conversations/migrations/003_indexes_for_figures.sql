-- Unread conversations, and messages by direction over time, per
-- sub-account: the unread counts and the messages-per-day series, read
-- from the index alone. Made by the reports module's migration 002
-- before; a database that has them keeps them.
CREATE INDEX IF NOT EXISTS conversations_location_unread_count ON conversations (location_id,
	unread_count) WHERE unread_count > 0;
CREATE INDEX IF NOT EXISTS messages_location_direction_time ON messages (location_id, direction,
	created_at);
