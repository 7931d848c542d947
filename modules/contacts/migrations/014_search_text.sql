-- What the contacts' search matches, published for other modules (the
-- agency's search across sub-accounts): one line per contact, its name,
-- e-mail, phone and company, as the contact_search trigram index holds
-- them (rowid = the contact's id). A module that searches contacts asks
-- the index for candidates with MATCH and keeps those whose text here
-- holds the words, so it never needs to know how the line is made.
CREATE VIEW contact_search_text (id, location_id, text) AS
	SELECT id, location_id, first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' ||
		coalesce(phone, '') || ' ' || coalesce(company_name, '')
	FROM contacts;
