-- What an invoice prints beside its lines: the client's address, as the
-- invoice was made out to it, its notes and its terms. Per sub-account,
-- the business its invoices come from when it is not the agency (a
-- business name given: its details replace the agency's whole, so a
-- client never reads one firm's name over another's address), and the
-- notes and terms a new invoice starts with.
ALTER TABLE invoices ADD COLUMN client_address TEXT NOT NULL DEFAULT '';
ALTER TABLE invoices ADD COLUMN notes TEXT NOT NULL DEFAULT '';
ALTER TABLE invoices ADD COLUMN terms TEXT NOT NULL DEFAULT '';
CREATE TABLE invoice_settings (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	business_name TEXT NOT NULL DEFAULT '',
	address TEXT NOT NULL DEFAULT '',
	email TEXT NOT NULL DEFAULT '',
	phone TEXT NOT NULL DEFAULT '',
	tax_id TEXT NOT NULL DEFAULT '',
	notes TEXT NOT NULL DEFAULT '',
	terms TEXT NOT NULL DEFAULT ''
);
