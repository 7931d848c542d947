-- Each sub-account's own Twilio (or Twilio-compatible) account: the
-- account SID and auth token its texts are sent with, and the number or
-- messaging service they are sent from. The token is never answered back.
CREATE TABLE sms_accounts (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	account_sid TEXT NOT NULL,
	auth_token TEXT NOT NULL,
	from_number TEXT,
	messaging_service_sid TEXT,
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	CHECK ((from_number IS NULL) <> (messaging_service_sid IS NULL))
);
