-- Who may open a location: every active agency admin and agency user of
-- its agency, and each active location admin or location user given it.
-- The rule as one statement, for the check of a record's owner, the
-- caller's list of locations and modules that list a location's people.
-- (Admitting each request applies it as one index lookup per role, in
-- auth.c, and also skips disabled locations.) Each arm keeps its own
-- index path, so a lookup by user or by location reads only its rows
-- (SQLite pushes the WHERE of a query into both arms of a UNION ALL view).
CREATE VIEW location_users (location_id, user_id) AS
	SELECT l.id, u.id FROM users u JOIN locations l ON l.agency_id = u.agency_id
	WHERE u.role IN ('agency_admin', 'agency_user') AND u.disabled_at IS NULL
	UNION ALL
	SELECT ul.location_id, u.id FROM user_locations ul JOIN users u ON u.id = ul.user_id
	JOIN locations l ON l.id = ul.location_id AND l.agency_id = u.agency_id
	WHERE u.role IN ('location_admin', 'location_user') AND u.disabled_at IS NULL;
