-- messages_location_direction_time (migration 003) is read by no statement
-- since the figures count messages received from received_days (004):
-- no query plan of the benchmark on the full data set names it. The
-- largest index of the largest table: 8.3 MB of perf-seed's full data
-- set, and a b-tree less to write per message.
DROP INDEX IF EXISTS messages_location_direction_time;
