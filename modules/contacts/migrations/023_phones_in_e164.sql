-- Phone numbers are kept in E.164 ("+15550102000"), read with the
-- sub-account's country, so that a number matches however it was typed
-- and a text's sender finds its contact. One that is not a phone number
-- stays as it was typed.
UPDATE contacts SET phone = read.number
FROM (SELECT c.id, e164(c.phone, l.country) AS number FROM contacts c
	JOIN locations l ON l.id = c.location_id WHERE c.phone IS NOT NULL) AS read
WHERE read.id = contacts.id AND read.number IS NOT NULL AND read.number <> contacts.phone;
