// SPDX-License-Identifier: MIT
/*
 * today.js: the Today page (/app/today), the day at a glance and the
 * app's home on a phone (HL_PAGE_PHONE_HOME): the current sub-account's
 * unread conversations, tasks due and open deals; the newest
 * conversations of every sub-account the person may open; their own open
 * deals here by stage; and, for someone with several sub-accounts, each
 * one's counts, a tap away. Everything comes from the phone API
 * (/api/mobile/summary, /inbox, /deals, /projects), asked for at once.
 *
 * Every name and message is put in as text (ctx.html, textContent).
 */

const INBOX_ROWS = 5;
/* the conversations module's channels, as people say them */
const CHANNELS = { sms: 'SMS', email: 'E-mail', whatsapp: 'WhatsApp', facebook: 'Facebook',
	instagram: 'Instagram', webchat: 'Web chat', phone: 'Phone' };
const DEALS_PER_STAGE = 3;

export default async function page(view, ctx) {
	const { html, api, ui } = ctx;
	const here = ctx.location ? ctx.location.id : '';
	const f = ctx.format;
	/* the summary as the app may have asked for it; the rest beside it */
	const [summary, inbox, deals, projects] = await Promise.all([
		api.get('/api/mobile/summary'),
		api.get('/api/mobile/inbox', { limit: INBOX_ROWS }).catch((e) => e),
		api.get('/api/mobile/deals').catch((e) => e),
		api.get('/api/mobile/projects').catch((e) => e),
		ui.stylesheet(new URL('./today.css', import.meta.url)),
	]);

	ctx.title('Today');
	view.classList.add('today');
	const tasks = summary.tasks || {};
	const open = summary.deals || {};
	view.append(html`
<div class="page-head">
	<h1>Today</h1>
	<p class="td-date muted">${summary.name} · ${f.longDay()}</p>
</div>
<h2 class="visually-hidden">At a glance</h2>
<div class="figures td-figures">
	${ui.figure('Unread conversations', f.number(summary.unread || 0), summary.unread ? 'waiting for a reply' : 'all read')}
	${ui.figure('Tasks due today', f.number(tasks.due_today || 0), f.plural(tasks.overdue || 0, 'overdue', 'overdue'),
		tasks.overdue ? 'is-bad' : '')}
	${ui.figure('Open deals', f.number(open.open || 0), 'worth ' + f.money(open.value_cents))}
</div>
<nav class="td-go" aria-label="Go to">
	<a class="btn" href="${ctx.href('/conversations')}">Inbox</a>
	<a class="btn" href="${ctx.href('/tasks?due=today')}">Today’s tasks</a>
	<a class="btn" href="${ctx.href('/opportunities')}">Board</a>
</nav>
<section class="td-section" aria-labelledby="td-inbox-h">
	<h2 id="td-inbox-h">Latest conversations</h2>
	${conversations(ctx, inbox)}
</section>
<section class="td-section" aria-labelledby="td-deals-h">
	<h2 id="td-deals-h">My open deals</h2>
	${myDeals(ctx, deals)}
</section>
${places(ctx, projects, here)}`);
}

function failed(html, what, e) {
	return html`<p class="form-error" role="alert">${what} could not be loaded: ${e.message}</p>`;
}

function conversations(ctx, answer) {
	const { html } = ctx;
	const f = ctx.format;
	if (answer instanceof Error)
		return failed(html, 'The conversations', answer);
	const list = answer.data || [];
	if (!list.length)
		return html`<p class="muted">No conversations yet.</p>`;
	return html`<ul class="td-list">${list.map((c) => html`<li class="${c.unread_count ? 'is-unread' : null}">
		<a href="${ctx.href('/conversations/' + c.id, c.location_id)}">
			<span class="td-line"><span class="td-who">${c.contact_name || 'Unknown contact'}</span>
				<span class="td-when muted">${f.when(c.last_message_at)}</span></span>
			<span class="td-preview">${c.unread_count ? html`<span class="td-unread">${f.plural(c.unread_count, 'unread', 'unread')}</span> ` : null}${c.preview}</span>
			<span class="td-place muted">${c.location_name} · ${CHANNELS[c.channel] || c.channel}</span>
		</a></li>`)}</ul>`;
}

function myDeals(ctx, answer) {
	const { html } = ctx;
	const f = ctx.format;
	if (answer instanceof Error)
		return failed(html, 'The deals', answer);
	const stages = (answer.stages || []).filter((s) => s.count);
	if (!stages.length)
		return html`<p class="muted">No open deals of yours here.</p>`;
	/* a stage's name alone, unless two pipelines have deals of the person's */
	const several = new Set(stages.map((s) => s.pipeline_id)).size > 1;
	const board = (s) => ctx.href('/opportunities?pipeline=' + s.pipeline_id + '&owner=me');
	return html`${stages.map((s) => html`<div class="td-stage">
		<h3>${several ? s.pipeline_name + ': ' + s.name : s.name}
			<span class="muted">${f.plural(s.count, 'deal', 'deals') + ' · ' + f.money(s.value_cents)}</span></h3>
		<ul class="td-list">${(s.deals || []).slice(0, DEALS_PER_STAGE).map((d) => html`<li>
			<a href="${ctx.href('/opportunities/' + d.id)}"><span class="td-line"><span class="td-who">${d.name}</span>
				<span class="td-when">${f.money(d.value_cents)}</span></span>
				<span class="td-place muted">${d.contact_name || 'No contact'}</span></a></li>`)}</ul>
		${s.count > DEALS_PER_STAGE ? html`<p class="td-more"><a href="${board(s)}">${'All ' + f.number(s.count) + ' in ' + s.name}</a></p>` : null}
	</div>`)}`;
}

/* The sub-accounts, for someone who may open more than this one. */
function places(ctx, answer, here) {
	const { html } = ctx;
	const f = ctx.format;
	if (answer instanceof Error)
		return html`<section class="td-section">${failed(html, 'The sub-accounts', answer)}</section>`;
	const list = answer.data || [];
	if (list.length < 2)
		return null;
	return html`<section class="td-section" aria-labelledby="td-places-h">
	<h2 id="td-places-h">Sub-accounts</h2>
	<ul class="td-list">${list.map((p) => html`<li class="${String(p.id) === String(here) ? 'is-here' : null}">
		<a href="${ctx.href('/', p.id)}"
			aria-current="${String(p.id) === String(here) ? 'true' : null}"><span class="td-line"><span class="td-who">${p.name}</span>
			<span class="td-when">${f.plural(p.unread || 0, 'unread', 'unread')}</span></span>
			<span class="td-place muted">${f.plural((p.tasks || {}).due_today || 0, 'task', 'tasks')} due today ·
				${f.plural((p.tasks || {}).overdue || 0, 'overdue', 'overdue')} · ${f.plural((p.deals || {}).open || 0, 'open deal', 'open deals')}</span>
		</a></li>`)}</ul>
</section>`;
}
