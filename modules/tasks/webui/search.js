// SPDX-License-Identifier: MIT
/*
 * search.js: the tasks' part of the header's search (hl_page.search): the
 * tasks whose title holds what was typed (the task list's own ?q), open
 * ones first.
 */
export default async function search(q, { api, signal, limit }) {
	const answer = await api.get('/api/tasks', { q, limit }, { signal });
	return (answer.data || []).map((t) => ({
		title: t.title,
		detail: [t.status === 'completed' ? 'Done' : 'Open', t.contact_name].filter(Boolean).join(' · '),
		path: '/tasks/' + t.id,
	}));
}
