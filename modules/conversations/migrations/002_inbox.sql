-- The inbox list: a star per conversation, and its orders as indexes it can
-- walk backwards without sorting, newest first. A conversation opened but
-- not written to yet sorts by when it was opened. One index per filter the
-- list takes alone (unread, starred, channel, assignee); a contact's few
-- conversations are found through conversations_contact and sorted.
ALTER TABLE conversations ADD COLUMN starred INTEGER NOT NULL DEFAULT 0;
CREATE INDEX conversations_inbox ON conversations
	(location_id, coalesce(last_message_at, created_at), id);
CREATE INDEX conversations_inbox_unread ON conversations
	(location_id, coalesce(last_message_at, created_at), id) WHERE unread_count > 0;
CREATE INDEX conversations_inbox_starred ON conversations
	(location_id, coalesce(last_message_at, created_at), id) WHERE starred = 1;
CREATE INDEX conversations_inbox_channel ON conversations
	(location_id, channel, coalesce(last_message_at, created_at), id);
CREATE INDEX conversations_inbox_assigned ON conversations
	(location_id, assigned_to, coalesce(last_message_at, created_at), id);
-- A contact's conversation on a channel (the inbound hook, opening one).
CREATE INDEX conversations_contact_channel ON conversations (contact_id, channel);
