// SPDX-License-Identifier: MIT
/*
 * record-timeline.js: on a contact's page (record.js, whose state `r` is
 * passed in), what happened around the contact, newest first: each line
 * as the module it came from wrote it (a deal moved, a task done, an
 * invoice paid, a note), its time, and a link to the record; older lines
 * a page at a time. A line added while the page is open (contact_timeline.added
 * on the live channel) shows at once. And the quick actions of the head:
 * a message, a note, a task, a deal or an invoice for this contact, each
 * opening its form with the contact filled in, shown only when the
 * server has the module that does it.
 */

const PAGE = 20;

function line(ctx, t) {
	const { html } = ctx;
	const text = t.link ? html`<a href="${ctx.href(t.link)}">${t.line}</a>` : html`<span>${t.line}</span>`;
	return html`<li class="r-line" data-kind="${t.kind.split('.')[0]}">
		<span class="r-line-dot" aria-hidden="true"></span>
		<div class="r-line-text">${text}
		<time class="r-line-at muted" datetime="${t.at}">${ctx.format.moment(t.at)}</time></div>
	</li>`.firstElementChild;
}

function draw(r, rows, fresh) {
	const { ctx, el } = r;
	if (fresh)
		el.timeline.textContent = '';
	el.timeline.append(ctx.html`${rows.map((t) => line(ctx, t))}`);
	if (!el.timeline.children.length)
		el.timeline.append(ctx.html`<li class="muted r-line-none">Nothing yet. Messages, notes, deals, tasks and invoices of this contact show here as they happen.</li>`);
}

/* The timeline, its first page asked for by the caller (`first`, null
 * when it failed). */
export function timeline(r, first) {
	const { ctx, el, path } = r;
	const open = () => ctx.api.list(path + '/timeline', { limit: PAGE });
	const pages = ctx.ui.paged({
		more: el.timelineMore, what: 'The older lines of the timeline', signal: ctx.signal, scroll: false,
		open,
		draw: (rows, pager, fresh) => draw(r, rows, fresh),
	});
	if (first)
		pages.begin(first.pager, first.rows);
	else
		el.timeline.append(ctx.html`<li class="muted">The timeline could not be loaded.</li>`);
	ctx.onLive(['contact_timeline.added'], (events) => {
		if (events.some((e) => e.type === 'reload' || String(e.id) === String(r.c.id)))
			pages.restart();
	});
}

/* The first page of the timeline: {pager, rows}, or null. */
export async function firstLines(ctx, path) {
	const pager = ctx.api.list(path + '/timeline', { limit: PAGE });
	try {
		return { pager, rows: await pager.next() };
	} catch {
		return null;
	}
}

/* The quick actions: links to the forms that take the contact, and a note. */
export function quickActions(r) {
	const { ctx, el, c } = r;
	const { html } = ctx;
	const id = encodeURIComponent(c.id);
	const links = [
		['/conversations', '/conversations?contact=' + id, 'Send message'],
		['/tasks', '/tasks?contact=' + id + '&new=1', 'New task'],
		['/opportunities/new', '/opportunities/new?contact=' + id, 'New deal'],
		['/invoices/new', '/invoices/new?contact=' + id, 'New invoice'],
	].filter((a) => ctx.offers(a[0]));
	el.quick.replaceChildren(html`${links.map((a) => html`<a class="btn btn-small" href="${ctx.href(a[1])}">${a[2]}</a>`)}
		<button type="button" class="btn btn-small" data-quick-note>Write a note</button>`);
	el.quick.querySelector('[data-quick-note]').addEventListener('click', () => {
		const area = el.noteForm.elements.namedItem('body');
		area.scrollIntoView({ block: 'center' });
		area.focus();
	});
}
