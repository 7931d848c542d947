// SPDX-License-Identifier: MIT
/*
 * search.js: the deals' part of the header's search (hl_page.search): the
 * open deals of the first pipeline whose name or contact's name holds what
 * was typed (the board's own ?q), the first of each stage.
 */
export default async function search(q, { api, signal, limit }) {
	const answer = await api.get('/api/opportunities', { q, per_stage: limit }, { signal });
	const stages = new Map(((answer && answer.stages) || []).map((s) => [s.id, s.name]));
	return ((answer && answer.data) || []).slice(0, limit).map((d) => ({
		title: d.name,
		detail: [d.contact_name, d.stage_name || stages.get(d.stage_id)].filter(Boolean).join(' · '),
		path: '/opportunities/' + d.id,
	}));
}
