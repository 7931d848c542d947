// SPDX-License-Identifier: MIT
/*
 * search.js: the deals' part of the header's search (hl_page.search): the
 * open deals whose name or contact's name holds what was typed, asked of
 * each pipeline's board with its own ?q (a sub-account has a few
 * pipelines; their list is asked once and shared), first pipeline first.
 */
export default async function search(q, { api, signal, limit }) {
	const pipelines = ((await api.get('/api/pipelines')).data || []);
	const boards = await Promise.all(pipelines.map((p) =>
		api.get('/api/opportunities', { pipeline: p.id, q, per_stage: limit }, { signal })));
	const found = [];
	boards.forEach((board, i) => {
		const stages = new Map((board.stages || []).map((s) => [s.id, s.name]));
		for (const d of board.data || []) {
			found.push({
				title: d.name,
				detail: [d.contact_name, pipelines.length > 1 ? pipelines[i].name : null, stages.get(d.stage_id)]
					.filter(Boolean).join(' · '),
				path: '/opportunities/' + d.id,
			});
		}
	});
	return found.slice(0, limit);
}
