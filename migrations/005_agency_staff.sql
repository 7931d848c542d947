-- An agency's active admins and users, who may open every location of it:
-- the first arm of location_users (004) reads them by agency. Through
-- users_agency it stepped every user of the agency, location users
-- included (500 at perf-seed --scale 10), to keep the few of its roles.
-- The condition is the view's own, word for word, so that SQLite can
-- tell the index serves it.
CREATE INDEX users_agency_staff ON users (agency_id)
	WHERE role IN ('agency_admin', 'agency_user') AND disabled_at IS NULL;
