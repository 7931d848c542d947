// SPDX-License-Identifier: MIT
/*
 * chart.js: a series drawn as inline SVG, with a table of the same
 * figures behind it. Pages get it through ctx.ui.chart() (ui.js), which
 * loads this file and chart.css the first time a page asks.
 *
 *   const chart = await ctx.ui.chart();
 *   const el = chart.bar({title: 'New contacts', data: [{x: '2024-05-01', y: 3}, ...]});
 *   view.append(el);
 *   chart.update(el, newData);   // the same chart, other figures
 *
 * options: title (the caption), data [{x, y}] (x a label, "YYYY-MM-DD"
 * for a day; y a number), xName ("Day") and yName (the title) for the
 * table's headers, formatX(x) and formatY(y) for what people read (by
 * default a day as "May 1" and a number with separators), tickY(y) for
 * the value axis (1.2k), step (the smallest step between its ticks: 100
 * for cents), zero (false: the axis starts at the lowest value, not 0),
 * total (true: the header says the sum, for counts by day), height (160
 * px).
 *
 * What it draws: a few labelled ticks on each axis (the value axis from
 * 0, or from the lowest value when `zero` is false), the extent in the
 * header (lowest and highest, and the total), and one focusable plot:
 * hovering it or moving along it with the arrow keys shows a point's
 * value. The table is in the document at all times for screen readers
 * (visually hidden), and the header's button shows it in place of the
 * plot. Colours are chart.css's, from the app's CSS variables, so dark
 * mode follows; nothing moves when reduced motion is asked for.
 *
 * Everything is built with DOM calls; figures and labels are text. The
 * plot is drawn at the size it is shown and again when that changes.
 */

const SVG = 'http://www.w3.org/2000/svg';
const PAD = { top: 8, right: 8, bottom: 22, left: 44 };
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
let seq = 0;

export function line(options) {
	return make('line', options);
}

export function bar(options) {
	return make('bar', options);
}

/* Replaces the figures of a chart line() or bar() made. */
export function update(el, data) {
	const c = el && el._chart;
	if (!c)
		return;
	c.data = clean(data);
	fill(c);
}

/* ---- formats ------------------------------------------------------------- */

const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

export function formatDay(x) {
	const m = DAY.exec(String(x));
	return m ? MONTHS[+m[2] - 1] + ' ' + +m[3] : String(x);
}

export function formatNumber(y) {
	return number.format(y);
}

/* 1234567 as "1.2M": for ticks, where room is short. */
export function compact(y) {
	const a = Math.abs(y);
	const units = [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
	for (const [size, unit] of units) {
		if (a >= size)
			return +(y / size).toFixed(a >= size * 10 ? 0 : 1) + unit;
	}
	return String(+y.toFixed(2));
}

/* About `count` round steps from lo to hi (1, 2, 2.5 or 5 times a power
 * of ten, and at least `least`), the last at hi or above. */
function ticks(lo, hi, count, least) {
	if (hi <= lo)
		hi = lo + Math.max(least, 1);
	const raw = Math.max((hi - lo) / count, least);
	const power = Math.pow(10, Math.floor(Math.log10(raw)));
	const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw - 1e-9 && s >= least);
	const out = [];
	for (let v = Math.floor(lo / step) * step; ; v += step) {
		out.push(+v.toPrecision(12));
		if (v >= hi - step * 1e-9 || out.length > 20)
			break;
	}
	return out;
}

/* ---- building ------------------------------------------------------------- */

function el(name, attrs, text) {
	const node = document.createElement(name);
	for (const key of Object.keys(attrs || {}))
		node.setAttribute(key, attrs[key]);
	if (text != null)
		node.textContent = text;
	return node;
}

function svg(name, attrs, text) {
	const node = document.createElementNS(SVG, name);
	for (const key of Object.keys(attrs || {}))
		node.setAttribute(key, attrs[key]);
	if (text != null)
		node.textContent = text;
	return node;
}

function clean(data) {
	return (data || []).map((d) => ({ x: d.x, y: Number(d.y) || 0 }));
}

function make(kind, o) {
	const id = 'chart-' + (++seq);
	const c = {
		kind,
		title: o.title || '',
		data: clean(o.data),
		xName: o.xName || 'Day',
		yName: o.yName || o.title || 'Value',
		formatX: o.formatX || formatDay,
		formatY: o.formatY || formatNumber,
		tickY: o.tickY || compact,
		total: !!o.total,
		step: o.step || 0,
		zero: o.zero !== false,
		height: o.height || 160,
		active: -1,
		width: 0,
	};
	const figure = el('figure', { class: 'chart chart-' + kind });
	const head = el('figcaption', { class: 'chart-head' });
	const title = el('span', { class: 'chart-title', id: id + '-title' }, c.title);
	c.extent = el('span', { class: 'chart-extent' });
	c.toggle = el('button', { type: 'button', class: 'chart-toggle', 'aria-pressed': 'false',
		'aria-controls': id + '-table' }, 'Table');
	c.toggle.append(el('span', { class: 'visually-hidden' }, ' of ' + c.title));
	head.append(title, c.extent, c.toggle);

	c.plot = el('div', { class: 'chart-plot' });
	/* its height from the start: nothing moves when it is drawn */
	c.svg = svg('svg', { class: 'chart-svg', role: 'img', tabindex: '0', focusable: 'true',
		height: String(c.height), 'aria-labelledby': id + '-title', 'aria-describedby': id + '-extent' });
	c.extent.id = id + '-extent';
	c.tip = el('div', { class: 'chart-tip', 'aria-hidden': 'true' });
	c.tip.hidden = true;
	c.plot.append(c.svg, c.tip);

	c.box = el('div', { class: 'chart-data visually-hidden', id: id + '-table' });
	c.table = el('table', { class: 'table chart-table' });
	c.box.append(c.table);
	c.table.append(el('caption', null, c.title));
	const headRow = el('tr');
	headRow.append(el('th', { scope: 'col' }, c.xName), el('th', { scope: 'col' }, c.yName));
	const thead = el('thead');
	thead.append(headRow);
	c.tbody = el('tbody');
	c.table.append(thead, c.tbody);
	figure.append(head, c.plot, c.box);
	figure._chart = c;

	c.toggle.addEventListener('click', () => showTable(c, c.toggle.getAttribute('aria-pressed') !== 'true'));
	c.svg.addEventListener('pointermove', (e) => point(c, nearest(c, e.clientX)));
	c.svg.addEventListener('pointerleave', () => {
		if (document.activeElement !== c.svg)
			point(c, -1);
	});
	c.svg.addEventListener('focus', () => point(c, c.active >= 0 ? c.active : c.data.length - 1));
	c.svg.addEventListener('blur', () => point(c, -1));
	c.svg.addEventListener('keydown', (e) => keys(c, e));
	if (typeof ResizeObserver === 'function') {
		/* Drawn here, after layout and before paint, at the width
		 * layout gave: the chart shows in the same frame as the page
		 * around it, and nothing is laid out again to measure it. The
		 * drawing keeps the plot's size, so this does not loop. */
		new ResizeObserver((entries) => {
			const w = Math.round(entries[entries.length - 1].contentRect.width);
			if (w !== c.width)
				draw(c, w);
		}).observe(c.plot);
	}
	fill(c);
	return figure;
}

function showTable(c, on) {
	c.toggle.setAttribute('aria-pressed', on ? 'true' : 'false');
	c.box.classList.toggle('visually-hidden', !on);
	c.plot.hidden = on;
	if (!on)
		draw(c);
}

/* The header's extent, the table's rows and the plot, from c.data. */
function fill(c) {
	const ys = c.data.map((d) => d.y);
	const parts = [];
	if (ys.length) {
		const lo = Math.min.apply(null, ys);
		const hi = Math.max.apply(null, ys);
		if (c.total)
			parts.push('Total ' + c.formatY(ys.reduce((a, b) => a + b, 0)));
		parts.push(lo === hi ? 'All ' + c.formatY(hi) : 'Low ' + c.formatY(lo) + ', high ' + c.formatY(hi));
	} else {
		parts.push('No figures');
	}
	c.extent.textContent = parts.join(' · ');
	c.tbody.textContent = '';
	for (const d of c.data) {
		const tr = el('tr');
		tr.append(el('th', { scope: 'row' }, c.formatX(d.x)), el('td', null, c.formatY(d.y)));
		c.tbody.append(tr);
	}
	if (c.active >= c.data.length)
		c.active = c.data.length - 1;
	if (c.width) /* drawn before: again at that width (first: when laid out) */
		draw(c, c.width);
}

/* ---- drawing --------------------------------------------------------------- */

function scale(c) {
	const w = c.width;
	const h = c.height;
	const ys = c.data.map((d) => d.y);
	let lo = c.zero ? Math.min(0, Math.min.apply(null, ys.concat(0))) : Math.min.apply(null, ys.length ? ys : [0]);
	let hi = Math.max.apply(null, ys.concat(c.zero ? 0 : lo));
	const whole = ys.every((y) => Math.floor(y) === y);
	const yt = ticks(lo, hi, h < 140 ? 2 : 3, Math.max(c.step, whole ? 1 : 0));
	lo = yt[0];
	hi = yt[yt.length - 1];
	const labels = yt.map(c.tickY);
	/* room for the longest value label: 11 px figures are 7 px wide at most */
	const left = Math.max(PAD.left, 12 + 7 * Math.max.apply(null, labels.map((l) => String(l).length)));
	const n = Math.max(c.data.length, 1);
	const inner = w - left - PAD.right;
	const step = c.kind === 'bar' ? inner / n : inner / Math.max(n - 1, 1);
	return {
		yt,
		labels,
		left,
		step,
		x: (i) => left + (c.kind === 'bar' ? step * (i + 0.5) : (n === 1 ? inner / 2 : step * i)),
		y: (v) => PAD.top + (h - PAD.top - PAD.bottom) * (1 - (v - lo) / (hi - lo || 1)),
	};
}

function draw(c, width) {
	const w = width || Math.round(c.plot.clientWidth);
	if (!w || c.plot.hidden)
		return; /* not shown: drawn when it is */
	c.width = w;
	const h = c.height;
	const s = scale(c);
	c.scale = s;
	c.svg.textContent = '';
	c.svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
	c.svg.setAttribute('height', String(h));

	const grid = svg('g', { class: 'chart-grid' });
	s.yt.forEach((v, i) => {
		const y = Math.round(s.y(v)) + 0.5;
		grid.append(svg('line', { x1: s.left, x2: w - PAD.right, y1: y, y2: y }));
		grid.append(svg('text', { x: s.left - 6, y: y, dy: '0.32em', 'text-anchor': 'end' }, s.labels[i]));
	});
	const n = c.data.length;
	const every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor((w - s.left) / 72))));
	for (let i = 0; i < n; i += every) {
		/* a line's ends are at the plot's edges: its labels stay inside */
		const anchor = c.kind !== 'line' ? 'middle' : i === 0 ? 'start' : i + every >= n && i === n - 1 ? 'end' : 'middle';
		grid.append(svg('text', { x: s.x(i), y: h - 6, 'text-anchor': anchor }, c.formatX(c.data[i].x)));
	}
	c.svg.append(grid);

	const marks = svg('g', { class: 'chart-marks' });
	const base = s.y(Math.max(0, s.yt[0]));
	if (c.kind === 'bar') {
		const bw = Math.max(1, Math.min(s.step * 0.72, 32));
		c.data.forEach((d, i) => {
			const y = s.y(d.y);
			marks.append(svg('rect', { class: 'chart-bar', x: (s.x(i) - bw / 2).toFixed(1),
				y: Math.min(y, base).toFixed(1), width: bw.toFixed(1),
				height: Math.max(d.y ? 1 : 0, Math.abs(base - y)).toFixed(1) }));
		});
	} else if (n) {
		const pts = c.data.map((d, i) => s.x(i).toFixed(1) + ',' + s.y(d.y).toFixed(1));
		marks.append(svg('path', { class: 'chart-fill',
			d: 'M' + s.x(0).toFixed(1) + ',' + base + 'L' + pts.join('L') + 'L' + s.x(n - 1).toFixed(1) + ',' + base + 'Z' }));
		marks.append(svg('path', { class: 'chart-stroke', d: 'M' + pts.join('L') }));
		if (n === 1) /* one point is no line: a dot */
			marks.append(svg('circle', { class: 'chart-dot', cx: s.x(0), cy: s.y(c.data[0].y), r: 3 }));
	}
	c.svg.append(marks);
	c.guide = svg('g', { class: 'chart-guide' });
	c.svg.append(c.guide);
	point(c, c.active);
}

/* The index of the point nearest to the pointer's clientX. */
function nearest(c, clientX) {
	if (!c.scale || !c.data.length)
		return -1;
	const x = clientX - c.svg.getBoundingClientRect().left;
	let best = 0;
	for (let i = 1; i < c.data.length; i++) {
		if (Math.abs(c.scale.x(i) - x) < Math.abs(c.scale.x(best) - x))
			best = i;
	}
	return best;
}

function keys(c, e) {
	const n = c.data.length;
	if (!n)
		return;
	const at = c.active < 0 ? n - 1 : c.active;
	const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: n - 1 }[e.key];
	if (to === undefined)
		return;
	e.preventDefault();
	point(c, Math.max(0, Math.min(n - 1, to)));
}

/* Marks point i (-1: none) and shows its value beside it. */
function point(c, i) {
	c.active = i;
	if (!c.guide)
		return;
	c.guide.textContent = '';
	c.svg.querySelectorAll('.chart-on').forEach((b) => b.classList.remove('chart-on'));
	if (i < 0 || i >= c.data.length || !c.scale) {
		c.tip.hidden = true;
		return;
	}
	const s = c.scale;
	const d = c.data[i];
	const x = s.x(i);
	const y = s.y(d.y);
	c.guide.append(svg('line', { x1: x, x2: x, y1: PAD.top, y2: c.height - PAD.bottom }));
	if (c.kind === 'line')
		c.guide.append(svg('circle', { cx: x, cy: y, r: 4 }));
	else
		c.svg.querySelectorAll('.chart-bar')[i].classList.add('chart-on');
	c.tip.textContent = '';
	c.tip.append(el('span', { class: 'chart-tip-x' }, c.formatX(d.x)), el('strong', null, c.formatY(d.y)));
	c.tip.hidden = false;
	const left = Math.max(0, Math.min(c.width - c.tip.offsetWidth, x - c.tip.offsetWidth / 2));
	c.tip.style.left = left + 'px';
	c.tip.style.top = Math.max(0, y - c.tip.offsetHeight - 8) + 'px';
}
