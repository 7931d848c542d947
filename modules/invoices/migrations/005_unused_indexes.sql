-- invoices_location_status (migration 001) is read by no statement: the
-- list reads invoices_location_status_created and the unpaid figures
-- invoices_location_unpaid (migration 003), which begin with the same
-- columns.
DROP INDEX IF EXISTS invoices_location_status;
