-- Where each session was signed in from, so that its owner can tell
-- their devices apart in the list of their sessions and sign one out:
-- the address and the browser's User-Agent (its first 200 characters),
-- as the sign-in gave them; NULL for sessions older than this.
ALTER TABLE sessions ADD COLUMN client TEXT;
ALTER TABLE sessions ADD COLUMN user_agent TEXT;
