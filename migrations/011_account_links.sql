-- One-time links that let a person choose their password without telling
-- it to anyone: an invitation (a person an admin added, with no password
-- yet) or a reset (forgot password, or one an admin made to hand over).
-- Only a hash of a link's secret is kept; the link's text waits in
-- mail_link only while its e-mail waits for the mail job, which clears it
-- in the transaction that records the mail as sending. A link is used
-- once (used_at), and a new one ends the person's earlier ones.
CREATE TABLE account_links (
	id INTEGER PRIMARY KEY,
	token_hash BLOB NOT NULL UNIQUE,
	user_id INTEGER NOT NULL REFERENCES users (id),
	kind TEXT NOT NULL CHECK (kind IN ('invite', 'reset')),
	expires_at INTEGER NOT NULL,
	used_at TEXT,
	-- The admin who made it; NULL when the person asked (forgot password).
	made_by INTEGER REFERENCES users (id),
	-- The e-mail carrying it: NULL when none went (handed over), else
	-- waiting, sending, sent or failed (mail_error says why).
	mail_state TEXT CHECK (mail_state IN ('waiting', 'sending', 'sent', 'failed')),
	mail_error TEXT,
	mail_link TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX account_links_user ON account_links (user_id, id);
CREATE INDEX account_links_waiting ON account_links (id) WHERE mail_state = 'waiting';
