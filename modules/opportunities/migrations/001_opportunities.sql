-- Deals and the boards they move along: a location's pipelines, each with
-- ordered stages; a deal sits in one stage and has a value in cents.
CREATE TABLE pipelines (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	name TEXT NOT NULL,
	position INTEGER NOT NULL DEFAULT 0,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX pipelines_location ON pipelines (location_id, position);

CREATE TABLE stages (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	pipeline_id INTEGER NOT NULL REFERENCES pipelines (id) ON DELETE CASCADE,
	name TEXT NOT NULL,
	position INTEGER NOT NULL,
	-- Chance of winning a deal in this stage, in percent (forecasts).
	probability INTEGER NOT NULL DEFAULT 0 CHECK (probability BETWEEN 0 AND 100)
);
CREATE INDEX stages_pipeline ON stages (pipeline_id, position);

CREATE TABLE opportunities (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	pipeline_id INTEGER NOT NULL REFERENCES pipelines (id),
	stage_id INTEGER NOT NULL REFERENCES stages (id),
	contact_id INTEGER REFERENCES contacts (id) ON DELETE SET NULL,
	name TEXT NOT NULL,
	value_cents INTEGER NOT NULL DEFAULT 0,
	currency TEXT NOT NULL DEFAULT 'USD',
	status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'won', 'lost', 'abandoned')),
	owner_id INTEGER REFERENCES users (id),
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	closed_at TEXT
);
-- The board: a pipeline's deals of one status, stage by stage.
CREATE INDEX opportunities_board ON opportunities (pipeline_id, status, stage_id, id);
-- Totals per location and status (dashboards, the agency's overview).
CREATE INDEX opportunities_location_status ON opportunities (location_id, status, value_cents);
CREATE INDEX opportunities_location_owner ON opportunities (location_id, owner_id, id);
CREATE INDEX opportunities_contact ON opportunities (contact_id) WHERE contact_id IS NOT NULL;
CREATE INDEX opportunities_stage ON opportunities (stage_id);
