-- The agency's own settings beside its name: the time zone, currency and
-- country a new sub-account starts with unless it is given its own
-- (an agency works mostly in one place and one currency).
ALTER TABLE agencies ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE agencies ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
ALTER TABLE agencies ADD COLUMN country TEXT NOT NULL DEFAULT 'US';
