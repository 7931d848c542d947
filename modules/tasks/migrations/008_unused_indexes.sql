-- The first list orders (migration 001), replaced by those of migration
-- 002 and the figures' indexes (005): no query plan of the test suite or
-- of the benchmark on the full data set names them, yet every task
-- written kept them. tasks_assignee_open was also the one index that
-- begins with assignee_id, which a user's deletion would look tasks up
-- by for its foreign key; users are disabled, never deleted.
DROP INDEX IF EXISTS tasks_location_open;
DROP INDEX IF EXISTS tasks_location_done;
DROP INDEX IF EXISTS tasks_assignee_open;
