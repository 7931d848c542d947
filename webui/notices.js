// SPDX-License-Identifier: MIT
/*
 * notices.js: the bell in the header: the person's notifications (GET
 * /api/notifications: someone gave them a record, mentioned them in a
 * note, a contact replied in their conversation), the unread ones counted
 * on it. Opened, it lists them newest first, each a link to its record in
 * its own sub-account (marked read as it is followed, or with its "Mark
 * read"), with "Mark all read". The count follows the live channel: the server sends the
 * person's own notice.created whatever sub-account they look at, and the
 * bell asks again (also after a "reload"); asking is cheap, one indexed
 * count and a page of LIMIT.
 *
 * createBell({api, live, signal, locations, current, when}) returns {el,
 * refresh}: current() is the open sub-account's id;
 * locations maps a sub-account's id to its name (said when it is not the
 * one open), when(iso) formats a time.
 */
import { appHref } from './format.js';
import { html } from './html.js';

const LIMIT = 20;

const bellIcon = () => html`<svg class="icon" viewBox="0 0 16 16" aria-hidden="true"><path d="M4 11V7a4 4 0 0 1 8 0v4l1.5 1.5h-11z"/><path d="M6.5 14a1.5 1.5 0 0 0 3 0"/></svg>`;

export function createBell(options) {
	const el = html`<div class="bell">
	<button type="button" class="btn bell-button" aria-expanded="false" aria-controls="bell-panel"
		aria-label="Notifications">${bellIcon()}<span class="bell-count" aria-hidden="true" hidden></span></button>
	<section class="bell-panel" id="bell-panel" hidden aria-labelledby="bell-title">
		<div class="bell-head"><h2 id="bell-title">Notifications</h2>
			<button type="button" class="btn btn-quiet btn-small" data-all disabled>Mark all read</button></div>
		<ul class="bell-list"></ul>
		<p class="bell-note muted" role="status"></p>
	</section>
</div>`.firstElementChild;
	const b = {
		options, el,
		button: el.querySelector('.bell-button'),
		count: el.querySelector('.bell-count'),
		panel: el.querySelector('.bell-panel'),
		list: el.querySelector('.bell-list'),
		note: el.querySelector('.bell-note'),
		all: el.querySelector('[data-all]'),
		asked: 0,
	};
	b.button.addEventListener('click', () => open(b, b.panel.hidden));
	b.all.addEventListener('click', () => readAll(b));
	b.list.addEventListener('click', (e) => {
		const mark = e.target.closest('button[data-read]');
		if (mark) {
			mark.disabled = true;
			options.api.post('/api/notifications/' + mark.dataset.read + '/read').then(() => refresh(b),
				() => { mark.disabled = false; });
			return;
		}
		const a = e.target.closest('a[data-id]');
		if (!a)
			return;
		if (a.classList.contains('is-unread'))
			options.api.post('/api/notifications/' + a.dataset.id + '/read').then(() => refresh(b), () => {});
		open(b, false); /* the shell follows the link */
	});
	el.addEventListener('keydown', (e) => {
		if (e.key === 'Escape' && !b.panel.hidden) {
			e.stopPropagation();
			open(b, false);
			b.button.focus();
		}
	});
	el.addEventListener('focusout', (e) => {
		if (e.relatedTarget && !el.contains(e.relatedTarget))
			open(b, false);
	});
	document.addEventListener('pointerdown', (e) => {
		if (!el.contains(e.target))
			open(b, false);
	}, { signal: options.signal });
	options.live.on(['notice.*'], () => refresh(b), options.signal);
	refresh(b);
	return { el, refresh: () => refresh(b) };
}

function open(b, yes) {
	b.panel.hidden = !yes;
	b.button.setAttribute('aria-expanded', yes ? 'true' : 'false');
	if (yes)
		refresh(b);
}

/* Asks again; an older answer that comes last is dropped. */
async function refresh(b) {
	const mine = ++b.asked;
	let answer;
	try {
		answer = await b.options.api.get('/api/notifications', { limit: LIMIT });
	} catch (e) {
		if (mine === b.asked && !b.panel.hidden)
			b.note.textContent = 'The notifications could not be loaded (' + e.message + ').';
		return;
	}
	if (mine !== b.asked || b.options.signal.aborted)
		return;
	show(b, answer);
}

function show(b, answer) {
	const n = answer.unread || 0;
	b.count.hidden = !n;
	b.count.textContent = n > 99 ? '99+' : String(n);
	b.button.setAttribute('aria-label', n ? 'Notifications, ' + n + ' unread' : 'Notifications');
	b.all.disabled = !n;
	const rows = answer.data || [];
	const { when, locations, current } = b.options;
	const here = current();
	b.list.textContent = '';
	b.list.append(html`${rows.map((r) => html`<li class="bell-row"><a href="${appHref(r.path, r.location_id)}" data-id="${r.id}"
		class="${r.read_at ? 'bell-item' : 'bell-item is-unread'}">
		<span class="bell-text">${r.actor_name ? html`<strong>${r.actor_name}</strong> ` : ''}${r.text}</span>
		<span class="bell-meta">${when(r.created_at)}${r.location_id !== here && locations.get(r.location_id)
			? ' · ' + locations.get(r.location_id) : ''}${r.read_at ? '' : html`<span class="visually-hidden">, unread</span>`}</span>
	</a>${r.read_at ? '' : html`<button type="button" class="btn btn-quiet btn-small bell-read" data-read="${r.id}"
		aria-label="${'Mark read: ' + (r.actor_name ? r.actor_name + ' ' : '') + r.text}">Mark read</button>`}</li>`)}`);
	b.note.textContent = rows.length ? '' : 'Nothing yet: you are told here when someone gives you a record, mentions you, or a contact replies to you.';
}

async function readAll(b) {
	try {
		await b.options.api.post('/api/notifications/read');
	} catch (e) {
		b.note.textContent = 'Could not mark them read (' + e.message + ').';
		return;
	}
	refresh(b);
}
