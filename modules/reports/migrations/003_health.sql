-- A location's live contacts with their health scores, so one walk of an
-- index range gives both the count every overview shows and the mean
-- score of a sub-account (GET /api/project).
CREATE INDEX contacts_location_live_health ON contacts (location_id, deleted_at, health_score);
