// SPDX-License-Identifier: MIT
/*
 * search.js: the invoices' part of the header's search (hl_page.search):
 * the newest invoices whose number or contact's name holds what was typed
 * (the invoice list's own ?q).
 */
export default async function search(q, { api, signal, limit }) {
	const answer = await api.get('/api/invoices', { q, limit }, { signal });
	return (answer.data || []).map((i) => ({
		title: 'Invoice ' + i.number,
		detail: [i.contact_name, i.status && i.status.replace('_', ' ')].filter(Boolean).join(' · '),
		path: '/invoices/' + i.id,
	}));
}
