-- The files sent with an e-mail: a JSON array of the ids its provider
-- module gave them when they were uploaded ([3, 4]), handed to it with the
-- message; NULL for none.
ALTER TABLE messages ADD COLUMN attachments TEXT;
