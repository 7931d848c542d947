-- Dashboards a location arranges for itself: widgets in order, each a
-- kind of figure the reports module computes from the other modules'
-- tables, with its settings as JSON.
CREATE TABLE dashboards (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	name TEXT NOT NULL,
	created_by INTEGER REFERENCES users (id),
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX dashboards_location ON dashboards (location_id, id);

CREATE TABLE widgets (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	dashboard_id INTEGER NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
	kind TEXT NOT NULL CHECK (kind IN ('contacts_new', 'pipeline_value', 'deals_won',
					   'messages', 'tasks_open', 'tasks_overdue',
					   'invoices_due', 'revenue')),
	title TEXT NOT NULL,
	config TEXT NOT NULL DEFAULT '{}', -- JSON: period, pipeline, ...
	position INTEGER NOT NULL
);
CREATE INDEX widgets_dashboard ON widgets (dashboard_id, position);
