// SPDX-License-Identifier: MIT
/*
 * search.js: the conversations' part of the header's search
 * (hl_page.search): the newest conversations whose contact's name holds
 * what was typed (the inbox's own ?q).
 */
export default async function search(q, { api, signal, limit }) {
	const answer = await api.get('/api/conversations', { q, limit }, { signal });
	return (answer.data || []).map((c) => ({
		title: c.contact_name || 'Contact ' + c.contact_id,
		detail: [c.channel === 'sms' ? 'SMS' : c.channel === 'email' ? 'E-mail' : c.channel,
			c.last_message_preview].filter(Boolean).join(' · '),
		path: '/conversations/' + c.id,
	}));
}
