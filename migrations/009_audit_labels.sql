-- What an audit entry names, as people know it, read when the entry is
-- made (an invoice's number, a person's name), so that it still reads the
-- same once the record is renamed or gone. NULL in entries made before:
-- those are read as "<kind> #<id>".
ALTER TABLE audit_log ADD COLUMN label TEXT;
