-- The ranges the figures read, each an index that covers its count, so a
-- dashboard reads only index pages and only the rows it counts: live
-- contacts by creation, open tasks by due date, unread conversations,
-- open deals by stage with their value, deals closed (won or lost) and
-- messages by direction over time, and payments (which had no location
-- index at all). The partial indexes of the owning modules do not cover
-- (SQLite 3.40 looks up the row to test the column of their WHERE).
CREATE INDEX contacts_location_live_created ON contacts (location_id, deleted_at, created_at);
CREATE INDEX tasks_location_completed_due ON tasks (location_id, completed_at, due_at);
CREATE INDEX conversations_location_unread_count ON conversations (location_id, unread_count)
	WHERE unread_count > 0;
CREATE INDEX opportunities_location_stage_value ON opportunities (location_id, status, stage_id,
	value_cents);
CREATE INDEX opportunities_location_closed ON opportunities (location_id, status, closed_at,
	value_cents);
CREATE INDEX messages_location_direction_time ON messages (location_id, direction, created_at);
CREATE INDEX payments_location_paid ON payments (location_id, paid_at, amount_cents);
