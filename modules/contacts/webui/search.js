// SPDX-License-Identifier: MIT
/*
 * search.js: the contacts' part of the header's search (hl_page.search):
 * the best matches of the contact list's own search (names first, any
 * accents and case, phones by their digits), as the shell shows them.
 */
export default async function search(q, { api, signal, limit }) {
	const answer = await api.get('/api/contacts', { q, limit, sort: 'best' }, { signal });
	return (answer.data || []).map((c) => ({
		title: [c.first_name, c.last_name].filter(Boolean).join(' ') || c.email || c.phone || 'Contact ' + c.id,
		detail: [c.email, c.company_name].filter(Boolean).join(' · '),
		path: '/contacts/' + c.id,
	}));
}
