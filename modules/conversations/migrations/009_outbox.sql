-- Messages really leave: an outbound message goes queued -> sending ->
-- sent -> delivered, or failed, bounced, or unknown (it was on its way
-- when the server stopped, and may or may not have left). The status
-- CHECK of migration 001 knew none of the new words, and SQLite cannot
-- change a CHECK, so the table is made again (SQLite's way: a new table,
-- the rows copied, the old one dropped, the new one renamed); its index
-- and the triggers of migration 008 with it. New columns: the subject (an
-- e-mail's), why a message is in its state ("no SMS provider is set up",
-- the relay's refusal), and the provider's id of it, by which its later
-- reports (delivered, bounced) name it.
CREATE TABLE messages_new (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	direction TEXT NOT NULL CHECK (direction IN ('inbound', 'outbound')),
	channel TEXT NOT NULL,
	body TEXT NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'delivered', 'read',
					       'failed', 'bounced', 'unknown', 'received')),
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	subject TEXT,
	status_reason TEXT,
	reference TEXT
);
INSERT INTO messages_new (id, location_id, conversation_id, direction, channel, body, status,
			  created_at)
	SELECT id, location_id, conversation_id, direction, channel, body, status, created_at
	FROM messages;
DROP TABLE messages;
ALTER TABLE messages_new RENAME TO messages;

-- A thread, in order.
CREATE INDEX messages_conversation ON messages (conversation_id, id);
-- A provider's report names the message by its own id.
CREATE INDEX messages_reference ON messages (channel, reference) WHERE reference IS NOT NULL;

CREATE TRIGGER received_days_insert AFTER INSERT ON messages WHEN new.direction = 'inbound'
BEGIN
	INSERT INTO received_day_moves VALUES (new.location_id, new.created_at, 1);
END;
CREATE TRIGGER received_days_delete AFTER DELETE ON messages WHEN old.direction = 'inbound'
BEGIN
	INSERT INTO received_day_moves VALUES (old.location_id, old.created_at, -1);
END;
CREATE TRIGGER received_days_update AFTER UPDATE OF location_id, direction, created_at
	ON messages WHEN (old.location_id, old.direction, old.created_at)
		IS NOT (new.location_id, new.direction, new.created_at)
BEGIN
	INSERT INTO received_day_moves SELECT old.location_id, old.created_at, -1
		WHERE old.direction = 'inbound';
	INSERT INTO received_day_moves SELECT new.location_id, new.created_at, 1
		WHERE new.direction = 'inbound';
END;

-- The outbox: each outbound message not yet settled. due_at (Unix ms) is
-- when it may go next, NULL while it is on its way; attempts counts the
-- times it was handed to its provider, first_tried_at (Unix ms) when the
-- first was, for the day after which temporary failures give up. A row
-- leaves when its message is sent or has failed.
CREATE TABLE outbox (
	message_id INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	due_at INTEGER,
	attempts INTEGER NOT NULL DEFAULT 0,
	first_tried_at INTEGER
);
CREATE INDEX outbox_due ON outbox (due_at) WHERE due_at IS NOT NULL;
-- Those on their way, found again after a crash.
CREATE INDEX outbox_on_the_way ON outbox (message_id) WHERE due_at IS NULL;

-- What was queued before messages could leave may be weeks old: it is
-- not sent by surprise, but shown as not sent, for a person to retry.
UPDATE messages SET status = 'failed',
	status_reason = 'written before this server could send messages; retry to send it now'
	WHERE status = 'queued' AND direction = 'outbound';
