-- An e-mail written in the app as its reader sees it: the Markdown body
-- rendered by cmark when it was written (raw HTML and unsafe links left
-- out), for the thread to show as sent; NULL for every other message.
ALTER TABLE messages ADD COLUMN html TEXT;
