-- The key an MTA's pipe proves itself with when it hands the server mail
-- (POST /api/email/inbound): one for the server, kept as its SHA-256, so
-- it is shown once, when it is made.
CREATE TABLE email_inbound_keys (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	key_hash BLOB NOT NULL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Addresses that bounced (a delivery status notification said the
-- mailbox takes no mail): mail to them fails at once, naming why.
CREATE TABLE email_undeliverable (
	location_id INTEGER NOT NULL REFERENCES locations (id),
	address TEXT NOT NULL COLLATE NOCASE,
	reason TEXT,
	at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	PRIMARY KEY (location_id, address)
) WITHOUT ROWID;

-- Files that came with mail received, each within attachment_max_mb:
-- downloaded with GET /api/email/attachments/:id. `message` is the mail's
-- Message-ID, the conversation's reference of it.
CREATE TABLE email_attachments (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	message TEXT,
	name TEXT NOT NULL,
	content_type TEXT NOT NULL,
	bytes INTEGER NOT NULL,
	content BLOB NOT NULL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX email_attachments_location ON email_attachments (location_id, id);
CREATE INDEX email_senders_address ON email_senders (from_address COLLATE NOCASE);
CREATE INDEX email_senders_reply_to ON email_senders (reply_to COLLATE NOCASE);
