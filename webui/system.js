// SPDX-License-Identifier: MIT
/*
 * system.js: the System page (/app/system, agency administrators; the
 * core registers it in core/http/pages.c). What GET /api/admin/metrics and
 * GET /api/admin/doctor say of the server: the doctor's checks (backups
 * among them), requests and latency per route (a table sorted by any
 * column), workers, the read cache, jobs, events, memory, SQLite's
 * settings and the row counts of the tables that grow.
 *
 * While the page is open the metrics are read again every few seconds
 * (not while the tab is hidden) and the doctor every minute; the page's
 * leave function stops both. Two charts follow requests per second and
 * memory over the time the page has been open: the samples live in the
 * page, and go when it is left. The page's state `y` is passed to each of
 * its functions.
 */

const EVERY_MS = 5000;
const DOCTOR_EVERY_MS = 60000;
const SAMPLES = 120;

const count = new Intl.NumberFormat(undefined);
const dec = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const ms = (v) => (v >= 100 ? count.format(Math.round(v)) : dec.format(v || 0)) + ' ms';
const pct = (v) => (v == null ? '–' : dec.format(v * 100) + ' %');

const MB = 1024 * 1024;

function bytes(v) {
	const units = ['B', 'KB', 'MB', 'GB', 'TB'];
	let i = 0;
	let n = v || 0;
	while (n >= 1024 && i < units.length - 1) {
		n /= 1024;
		i++;
	}
	return (i ? dec.format(n) : count.format(n)) + ' ' + units[i];
}

function duration(s) {
	s = Math.floor(s || 0);
	const d = Math.floor(s / 86400);
	const h = Math.floor(s % 86400 / 3600);
	const m = Math.floor(s % 3600 / 60);
	return d ? d + ' d ' + h + ' h' : h ? h + ' h ' + m + ' min' : m ? m + ' min ' + (s % 60) + ' s' : s + ' s';
}

const clock = (t) => new Date(t).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/* The route table's columns: a header, the figure, how it reads. */
const COLUMNS = [
	{ key: 'route', name: 'Route', of: (r) => r.method + ' ' + r.pattern, text: true },
	{ key: 'count', name: 'Requests', of: (r) => r.count, fmt: (v) => count.format(v) },
	{ key: 'errors', name: 'Errors', of: (r) => (r.status ? r.status['5xx'] : 0), fmt: (v) => count.format(v),
	  title: 'Answers with a 5xx status' },
	{ key: 'refused', name: '4xx', of: (r) => (r.status ? r.status['4xx'] : 0), fmt: (v) => count.format(v) },
	{ key: 'p50', name: 'p50', of: (r) => r.p50_ms, fmt: ms },
	{ key: 'p95', name: 'p95', of: (r) => r.p95_ms, fmt: ms },
	{ key: 'p99', name: 'p99', of: (r) => r.p99_ms, fmt: ms },
	{ key: 'hit', name: 'Cache hits', of: hitRate, fmt: pct },
	{ key: 'out', name: 'Sent', of: (r) => r.bytes_sent, fmt: bytes },
];

function hitRate(r) {
	const n = (r.cache_hits || 0) + (r.cache_misses || 0);
	return n ? r.cache_hits / n : null;
}

export default async function page(view, ctx) {
	ctx.title('System');
	const [metrics, doctor, chart] = await Promise.all([
		ctx.api.get('/api/admin/metrics'),
		ctx.api.get('/api/admin/doctor'),
		ctx.ui.chart(),
		ctx.ui.stylesheet(new URL('./system.css', import.meta.url)),
	]);
	view.classList.add('sys');
	frame(view, ctx.html);
	/* y: the page's state, which each of its functions is given */
	const y = {
		ctx, view, chart,
		sort: { key: 'count', desc: true },
		showIdle: false,
		last: metrics,
		timer: 0,
		doctorAt: Date.now(),
		left: false,
		samples: [],
		status: view.querySelector('.sys-status'),
		routesBody: view.querySelector('.sys-routes tbody'),
	};
	charts(y);
	view.querySelector('.sys-routes thead').addEventListener('click', (e) => {
		const th = e.target.closest('th[data-key]');
		if (!th)
			return;
		const key = th.dataset.key;
		y.sort = { key, desc: y.sort.key === key ? !y.sort.desc : key !== 'route' };
		routes(y, y.last);
	});
	view.querySelector('input[name="idle"]').addEventListener('change', (e) => {
		y.showIdle = e.target.checked;
		routes(y, y.last);
	});
	checks(y, doctor);
	render(y, metrics);
	y.timer = setTimeout(() => tick(y), EVERY_MS);
	return () => {
		y.left = true;
		clearTimeout(y.timer);
	};
}

function frame(view, html) {
	view.append(html`
<div class="page-head">
	<h1>System</h1>
	<p class="sys-status muted" role="status"></p>
</div>
<h2>Health</h2>
<ul class="sys-checks"></ul>
<div class="figures sys-figures"></div>
<div class="sys-charts"></div>
<div class="sys-head">
	<h2 id="sys-routes">Routes</h2>
	<label class="sys-check"><input type="checkbox" name="idle"> Show routes without requests</label>
</div>
<div class="sys-scroll" tabindex="0" role="region" aria-labelledby="sys-routes">
	<table class="table sys-routes" aria-labelledby="sys-routes">
		<thead><tr>${COLUMNS.map((c) => html`<th scope="col" class="${c.text ? '' : 'num'}"
			data-key="${c.key}"><button type="button" class="sort" title="${c.title || null}">${c.name}</button></th>`)}</tr></thead>
		<tbody></tbody>
	</table>
</div>
<h2 id="sys-jobs">Jobs</h2>
<div class="sys-scroll" tabindex="0" role="region" aria-labelledby="sys-jobs">
	<table class="table" aria-labelledby="sys-jobs">
		<thead><tr><th scope="col">Job</th><th scope="col" class="num">Runs</th><th scope="col" class="num">Failures</th>
			<th scope="col" class="num">Overruns</th><th scope="col" class="num">Last run took</th>
			<th scope="col" class="num">Longest</th><th scope="col" class="num">Next in</th></tr></thead>
		<tbody class="sys-jobs"></tbody>
	</table>
</div>
<div class="sys-grid">
	<section aria-labelledby="sys-memory"><h2 id="sys-memory">Memory</h2><dl class="sys-dl" data-part="memory"></dl></section>
	<section aria-labelledby="sys-cache"><h2 id="sys-cache">Read cache and events</h2><dl class="sys-dl" data-part="cache"></dl></section>
	<section aria-labelledby="sys-sqlite"><h2 id="sys-sqlite">SQLite</h2><dl class="sys-dl" data-part="sqlite"></dl></section>
	<section aria-labelledby="sys-rows"><h2 id="sys-rows">Rows</h2><dl class="sys-dl" data-part="rows"></dl></section>
</div>`);
}

/* Requests per second and memory, over the time the page is open. */
function charts(y) {
	const { chart, view } = y;
	y.rateChart = chart.line({ title: 'Requests per second', xName: 'Time', yName: 'Requests per second',
		formatX: clock, data: [] });
	y.memChart = chart.line({ title: 'Memory in use (RSS)', xName: 'Time', yName: 'Resident memory',
		/* drawn in MB, so that its ticks are round ones, at least 0.1 apart */
		formatX: clock, formatY: (v) => bytes(v * MB), tickY: (v) => dec.format(v) + ' MB', step: 0.1,
		zero: false, data: [] });
	view.querySelector('.sys-charts').append(...[y.rateChart, y.memChart].map((c) => {
		const box = document.createElement('div');
		box.className = 'card';
		box.append(c);
		return box;
	}));
}

function sample(y, m) {
	const { chart, samples } = y;
	const total = (m.routes || []).reduce((a, r) => a + (r.count || 0), 0);
	const now = Date.now();
	const prev = samples[samples.length - 1];
	samples.push({ t: now, total, rss: m.memory ? m.memory.rss_bytes : 0,
		rate: prev ? Math.max(0, total - prev.total) / ((now - prev.t) / 1000 || 1) : null });
	if (samples.length > SAMPLES)
		samples.shift();
	chart.update(y.rateChart, samples.filter((x) => x.rate !== null).map((x) => ({ x: x.t, y: +x.rate.toFixed(2) })));
	chart.update(y.memChart, samples.map((x) => ({ x: x.t, y: x.rss / MB })));
	return total;
}

function render(y, m) {
	y.last = m;
	const total = sample(y, m);
	y.status.textContent = 'Up ' + duration(m.uptime_s) + ' · updated ' + clock(Date.now()) +
		' · every ' + EVERY_MS / 1000 + ' s';
	summary(y, m, total);
	routes(y, m);
	jobs(y, m.jobs || []);
	lists(y, m);
}

function summary(y, m, total) {
	const { ctx, view } = y;
	const { html } = ctx;
	const w = m.workers || {};
	const mem = m.memory || {};
	const hits = (m.routes || []).reduce((a, r) => a + (r.cache_hits || 0), 0);
	const misses = (m.routes || []).reduce((a, r) => a + (r.cache_misses || 0), 0);
	const failures = (m.jobs || []).reduce((a, j) => a + (j.failures || 0), 0);
	const el = view.querySelector('.sys-figures');
	el.textContent = '';
	el.append(html`
		${ctx.ui.figure('Requests', count.format(total), 'since the start')}
		${ctx.ui.figure('Workers busy', count.format(w.busy || 0) + ' of ' + count.format(w.threads || 0),
			'peak ' + count.format(w.busy_peak || 0) + '; ' + pct(w.utilisation) + ' used')}
		${ctx.ui.figure('Cache hit rate', pct(hits + misses ? hits / (hits + misses) : null),
			count.format(hits) + ' hits, ' + count.format(misses) + ' misses')}
		${ctx.ui.figure('Memory', bytes(mem.rss_bytes), 'peak ' + bytes(mem.rss_peak_bytes))}
		${ctx.ui.figure('Job failures', count.format(failures), (m.jobs || []).length + ' jobs', failures ? 'is-bad' : '')}`);
}

function routes(y, m) {
	const { ctx, view, sort } = y;
	const { html } = ctx;
	const col = COLUMNS.find((c) => c.key === sort.key) || COLUMNS[1];
	const rows = (m.routes || []).filter((r) => y.showIdle || r.count > 0).slice().sort((a, b) => {
		const x = col.of(a);
		const y = col.of(b);
		const d = col.text ? String(x).localeCompare(String(y)) : (x == null ? -1 : x) - (y == null ? -1 : y);
		return sort.desc ? -d : d;
	});
	for (const th of Array.from(view.querySelectorAll('.sys-routes th[data-key]'))) {
		if (th.dataset.key === sort.key)
			th.setAttribute('aria-sort', sort.desc ? 'descending' : 'ascending');
		else
			th.removeAttribute('aria-sort');
	}
	y.routesBody.textContent = '';
	y.routesBody.append(html`${rows.map((r) => html`<tr>${COLUMNS.map((c, i) => i === 0
		? html`<th scope="row"><span class="method">${r.method}</span> <code>${r.pattern}</code></th>`
		: html`<td class="num">${c.fmt(c.of(r))}</td>`)}</tr>`)}`);
	if (!rows.length)
		y.routesBody.append(html`<tr><td colspan="${COLUMNS.length}" class="muted">No requests yet.</td></tr>`);
}

function jobs(y, list) {
	const { ctx, view } = y;
	const { html } = ctx;
	const el = view.querySelector('.sys-jobs');
	el.textContent = '';
	el.append(html`${list.map((j) => html`<tr>
		<th scope="row"><code>${j.name}</code></th>
		<td class="num">${count.format(j.runs || 0)}</td>
		<td class="${j.failures ? 'num is-bad' : 'num'}">${count.format(j.failures || 0)}</td>
		<td class="${j.overruns ? 'num is-bad' : 'num'}">${count.format(j.overruns || 0)}</td>
		<td class="num">${ms(j.last_ms)}</td><td class="num">${ms(j.max_ms)}</td>
		<td class="num">${duration((j.next_in_ms || 0) / 1000)}</td></tr>`)}`);
}

function dl(y, part, pairs) {
	const { ctx, view } = y;
	const { html } = ctx;
	const el = view.querySelector('dl[data-part="' + part + '"]');
	el.textContent = '';
	el.append(html`${pairs.map((p) => html`<div><dt>${p[0]}</dt><dd>${p[1]}</dd></div>`)}`);
}

function lists(y, m) {

	const mem = m.memory || {};
	const c = m.cache || {};
	const ev = m.events || {};
	const q = m.sqlite || {};
	const w = m.workers || {};
	dl(y, 'memory', [
		['Resident (RSS)', bytes(mem.rss_bytes)], ['Peak resident', bytes(mem.rss_peak_bytes)],
		['Anonymous', bytes(mem.anon_bytes)], ['SQLite page caches', bytes(mem.sqlite_page_cache_bytes)],
		['Prepared statements', count.format(mem.sqlite_statements || 0)],
		['Heap in use', bytes(mem.heap_used_bytes)], ['Heap free', bytes(mem.heap_free_bytes)],
	]);
	dl(y, 'cache', [
		['Read cache', c.enabled ? 'on' : 'off'], ['Answers kept', count.format(c.entries || 0)],
		['Size', bytes(c.bytes) + ' of ' + bytes(c.limit_bytes)],
		['Connections', count.format(w.connections || 0) + ' (peak ' + count.format(w.connections_peak || 0) + ')'],
		['Slow clients closed', count.format((w.slow_heads_closed || 0) + (w.slow_bodies_cut || 0))],
		['Events published', count.format(ev.published || 0)],
		['Events delivered', count.format(ev.delivered || 0)],
		['Events failed or dropped', count.format((ev.failed || 0) + (ev.dropped || 0))],
	]);
	dl(y, 'sqlite', Object.keys(q).map((k) => [k.replace(/_/g, ' '), String(q[k])])
		.concat(q.page_size && q.page_count ? [['database size', bytes(q.page_size * q.page_count)]] : []));
	const t = m.tables || {};
	dl(y, 'rows', Object.keys(t).sort().map((k) => [k, count.format(t[k])]));
}

function checks(y, d) {
	const { ctx, view } = y;
	const { html } = ctx;
	const el = view.querySelector('.sys-checks');
	el.textContent = '';
	el.append(html`${(d.checks || []).map((c) => html`<li class="${c.ok ? 'ok' : 'bad'}">
		<span class="sys-badge">${c.ok ? 'OK' : 'Problem'}</span>
		<span><strong>${c.name}</strong> <span class="muted">${c.detail}</span></span></li>`)}`);
}

async function tick(y) {
	const { ctx } = y;
	y.timer = 0;
	if (y.left)
		return;
	if (!document.hidden) {
		try {
			const wantDoctor = Date.now() - y.doctorAt >= DOCTOR_EVERY_MS;
			const [m, d] = await Promise.all([ctx.api.get('/api/admin/metrics'),
				wantDoctor ? ctx.api.get('/api/admin/doctor') : null]);
			if (y.left)
				return;
			render(y, m);
			if (d) {
				y.doctorAt = Date.now();
				checks(y, d);
			}
		} catch (e) {
			if (y.left)
				return;
			y.status.textContent = 'Not updated since ' + clock(y.samples.length ? y.samples[y.samples.length - 1].t : Date.now()) +
				': ' + e.message;
		}
	}
	if (!y.left)
		y.timer = setTimeout(() => tick(y), EVERY_MS);
}
