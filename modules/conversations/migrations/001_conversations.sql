-- The inbox: a conversation per contact and channel, and its messages.
CREATE TABLE conversations (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	channel TEXT NOT NULL CHECK (channel IN ('sms', 'email', 'whatsapp', 'facebook',
						 'instagram', 'webchat', 'phone')),
	assigned_to INTEGER REFERENCES users (id),
	last_message_at TEXT,
	last_message_preview TEXT,
	unread_count INTEGER NOT NULL DEFAULT 0,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- The inbox, most recent first; and the unread ones.
CREATE INDEX conversations_location_recent ON conversations (location_id, last_message_at DESC, id);
CREATE INDEX conversations_location_unread ON conversations (location_id, last_message_at DESC)
	WHERE unread_count > 0;
CREATE INDEX conversations_assigned ON conversations (assigned_to, last_message_at DESC)
	WHERE assigned_to IS NOT NULL;
CREATE INDEX conversations_contact ON conversations (contact_id);

CREATE TABLE messages (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	direction TEXT NOT NULL CHECK (direction IN ('inbound', 'outbound')),
	channel TEXT NOT NULL,
	body TEXT NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('queued', 'sent', 'delivered', 'read', 'failed',
					       'received')),
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- A thread, in order.
CREATE INDEX messages_conversation ON messages (conversation_id, id);
-- Activity over time (reports, health scores).
CREATE INDEX messages_location_time ON messages (location_id, created_at);
