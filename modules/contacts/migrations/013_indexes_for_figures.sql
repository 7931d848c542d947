-- Live contacts by creation and by health score, each a range per
-- sub-account that covers its count: what the dashboard's and the
-- agency's figures walk. Made by the reports module's migrations 002 and
-- 003 before; a database that has them keeps them.
CREATE INDEX IF NOT EXISTS contacts_location_live_created ON contacts (location_id, deleted_at,
	created_at);
CREATE INDEX IF NOT EXISTS contacts_location_live_health ON contacts (location_id, deleted_at,
	health_score);
