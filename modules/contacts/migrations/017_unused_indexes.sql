-- Indexes no statement reads: no query plan of the test suite or of the
-- benchmark on the full data set (with its statistics) names them, yet
-- every write of a contact kept them. The short search of migration 004
-- walks the sub-account's live contacts instead (a first-name prefix is
-- one of three names it tries, so no index range serves it alone), and the
-- import job finds its work by contact_imports_pending_location.
DROP INDEX IF EXISTS contacts_location_first_name;
DROP INDEX IF EXISTS contact_imports_pending;
