-- A phone as the person typed it ("(512) 555-0199"), shown; phone keeps
-- it in E.164 for matching, search and texts. NULL: it was typed as
-- phone holds it, or before this (migration 023 kept only E.164).
ALTER TABLE contacts ADD COLUMN phone_typed TEXT;
