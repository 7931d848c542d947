-- Invoices e-mailed to their clients. Each mail goes from "queued" (asked
-- for) to "sending" (handed to the e-mail provider, committed before it
-- leaves) to "sent" or "failed" (in the provider's words); a temporary
-- failure queues it again for later. The invoice becomes sent when its
-- mail has left. view_key names the invoice's public page (/i/KEY): 32
-- random hex digits, made with the invoice (or when an older one is first
-- sent), which nobody can guess or count through.
ALTER TABLE invoices ADD COLUMN view_key TEXT;
CREATE UNIQUE INDEX invoices_view_key ON invoices (view_key) WHERE view_key IS NOT NULL;
CREATE TABLE invoice_mails (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	invoice_id INTEGER NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
	to_address TEXT NOT NULL,
	subject TEXT NOT NULL,
	body TEXT NOT NULL,
	state TEXT NOT NULL DEFAULT 'queued'
		CHECK (state IN ('queued', 'sending', 'sent', 'failed')),
	reason TEXT,
	tries INTEGER NOT NULL DEFAULT 0,
	due_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	sent_at TEXT
);
-- The job's queue: the few waiting, in the order they come due.
CREATE INDEX invoice_mails_queued ON invoice_mails (due_at, id) WHERE state = 'queued';
CREATE INDEX invoice_mails_invoice ON invoice_mails (invoice_id, id);
