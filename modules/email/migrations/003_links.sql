-- The key the server signs its unsubscribe links with (HMAC-SHA-256),
-- made by the first marketing message that needs one.
CREATE TABLE email_link_key (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	key BLOB NOT NULL
);
