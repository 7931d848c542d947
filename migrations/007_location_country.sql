-- Each sub-account's country, an ISO 3166-1 code: a phone number typed
-- without its country code is read as a number of that country.
ALTER TABLE locations ADD COLUMN country TEXT NOT NULL DEFAULT 'US';
