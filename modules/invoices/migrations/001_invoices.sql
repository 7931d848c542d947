-- Invoices, their lines and the payments against them. Money is integer
-- cents in the invoice's currency.
CREATE TABLE invoices (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	number TEXT NOT NULL,
	contact_id INTEGER REFERENCES contacts (id) ON DELETE SET NULL,
	status TEXT NOT NULL DEFAULT 'draft'
		CHECK (status IN ('draft', 'sent', 'paid', 'partially_paid', 'void')),
	currency TEXT NOT NULL DEFAULT 'USD',
	subtotal_cents INTEGER NOT NULL DEFAULT 0,
	tax_cents INTEGER NOT NULL DEFAULT 0,
	total_cents INTEGER NOT NULL DEFAULT 0,
	paid_cents INTEGER NOT NULL DEFAULT 0,
	issued_at TEXT,
	due_at TEXT,
	paid_at TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	UNIQUE (location_id, number)
);
CREATE INDEX invoices_location ON invoices (location_id, id);
-- By status and due date (overdue ones, totals per status).
CREATE INDEX invoices_location_status ON invoices (location_id, status, due_at);
CREATE INDEX invoices_contact ON invoices (contact_id) WHERE contact_id IS NOT NULL;

CREATE TABLE invoice_items (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	invoice_id INTEGER NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
	position INTEGER NOT NULL,
	description TEXT NOT NULL,
	quantity INTEGER NOT NULL DEFAULT 1,
	unit_price_cents INTEGER NOT NULL,
	amount_cents INTEGER NOT NULL
);
CREATE INDEX invoice_items_invoice ON invoice_items (invoice_id, position);

CREATE TABLE payments (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	invoice_id INTEGER NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
	amount_cents INTEGER NOT NULL,
	method TEXT NOT NULL CHECK (method IN ('card', 'bank_transfer', 'cash', 'check', 'other')),
	paid_at TEXT NOT NULL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX payments_invoice ON payments (invoice_id, paid_at);
