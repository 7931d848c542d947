-- opportunities_location_status (migration 001) is read by no statement:
-- the figures read open deals by stage and closed ones by time (migration
-- 006), and the board its own indexes (002, 003).
DROP INDEX IF EXISTS opportunities_location_status;
