-- Forms a sub-account puts on its website, and what strangers sent through them.
-- fields: a JSON array of {key, label, type, required, options, maps_to,
-- consent}, checked by the API (fields.c); tags: a JSON array of names.
CREATE TABLE forms (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	name TEXT NOT NULL,
	slug TEXT NOT NULL UNIQUE,
	fields TEXT NOT NULL DEFAULT '[]',
	tags TEXT NOT NULL DEFAULT '[]',
	thank_you TEXT,
	redirect_url TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX forms_location ON forms (location_id, id);

-- One per accepted submission: the values as sent, where the visitor came
-- from (source, referrer, utm_*), and the consent wording they were shown.
CREATE TABLE form_submissions (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	form_id INTEGER NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
	contact_id INTEGER REFERENCES contacts (id) ON DELETE SET NULL,
	answers TEXT NOT NULL,
	origin TEXT NOT NULL DEFAULT '{}',
	consent TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- A form's submissions, newest first; the same answers within a minute.
CREATE INDEX form_submissions_form ON form_submissions (form_id, created_at DESC);
CREATE INDEX form_submissions_location ON form_submissions (location_id, id);
CREATE INDEX form_submissions_contact ON form_submissions (contact_id) WHERE contact_id IS NOT NULL;

-- The key that signs the public page's time token (submit.c), made with
-- the first form (a page needs a form), unless the setting token_key says it.
CREATE TABLE form_secret (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	secret BLOB NOT NULL
);
