-- The outbox's due messages found per sub-account (its first few by
-- due_at), so that a slice reads what it hands over, not every due row.
CREATE INDEX outbox_location_due ON outbox (location_id, due_at) WHERE due_at IS NOT NULL;
