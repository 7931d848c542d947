-- Each sub-account's currency, an ISO 4217 code: its amounts (the
-- modules' *_cents columns) are kept in that currency's minor units and
-- shown in it. Sub-accounts made before it keep dollars.
ALTER TABLE locations ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
