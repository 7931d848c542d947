// SPDX-License-Identifier: MIT
/*
 * live.js: the app's one live connection (GET /api/live), which tells the
 * open page what changed in the current sub-account, so that it can bring
 * itself up to date without being reloaded.
 *
 * A WebSocket, or an event stream where WebSockets do not get through (a
 * proxy that drops them): two tries that never opened and the app falls
 * back. Every message carries a sequence number; a connection that drops
 * comes back with the last one and is sent what it missed, or told to
 * reload when that is gone. A page asks with on(patterns, fn, signal):
 * fn gets the events of a short while together (a burst of changes makes
 * one refresh), or [{type: "reload"}] when it must fetch everything again.
 *
 * A browser does not say why a WebSocket was refused, so after tries that
 * never opened the app asks GET /api/live itself: a 401 is a session that
 * ended, "live_off" a server without live updates (then it stops trying).
 */

const RETRY_MS = [500, 1000, 2000, 5000, 10000, 30000];
const GATHER_MS = 120;  /* events this close together make one call */
const QUIET_MS = 3000;  /* down this long: the header says so */
const SIGNED_OUT = 4401;

function matches(patterns, name) {
	return patterns.some((p) => p.endsWith('.*') ? name.startsWith(p.slice(0, -1)) : p === name);
}

/* The connection's state, which each function below is given:
 * c = {options, subs, where (the sub-account listened to), seq (the last
 * sequence number heard), socket (the WebSocket or EventSource), tries
 * (failed tries since the last open), everOpen, useStream, retry, quiet,
 * up}. */

/* options: {onSignedOut(), onStatus(up: boolean)} */
export function createLive(options) {
	const c = {
		options, subs: new Set(), where: null, seq: null, socket: null, tries: 0, everOpen: false,
		useStream: typeof WebSocket === 'undefined', retry: 0, quiet: 0, up: null,
	};
	return {
		/* Listen to sub-account `id` (null: none) from now on. */
		follow(id) {
			if (id === c.where)
				return;
			c.where = id;
			c.seq = null;
			c.tries = 0;
			open(c);
		},
		/* Call fn(events) for the events whose names match `patterns`
		 * ("task.*", "message.received"), until `signal` aborts. */
		on(patterns, fn, signal) {
			if (signal.aborted)
				return; /* the page was left before it asked */
			const sub = { patterns, fn, pending: [], timer: 0 };
			c.subs.add(sub);
			signal.addEventListener('abort', () => {
				c.subs.delete(sub);
				clearTimeout(sub.timer);
			});
		},
		close() {
			c.where = null;
			drop(c);
			clearTimeout(c.quiet);
			c.quiet = 0;
			for (const sub of c.subs)
				clearTimeout(sub.timer);
			c.subs.clear();
		},
	};
}

/* Down is said once the connection has been down QUIET_MS, counted from
 * the first failure: a try that fails again does not restart it. */
function status(c, now) {
	if (now) {
		clearTimeout(c.quiet);
		c.quiet = 0;
		if (c.up !== true)
			c.options.onStatus(c.up = true);
	} else if (c.up !== false && !c.quiet) {
		c.quiet = setTimeout(() => { c.quiet = 0; c.options.onStatus(c.up = false); }, QUIET_MS);
	}
}

function url(c, scheme) {
	const q = new URLSearchParams({ location_id: String(c.where) });
	if (c.seq !== null)
		q.set('since', String(c.seq));
	return scheme + '//' + location.host + '/api/live?' + q.toString();
}

function deliver(c, events) {
	for (const sub of c.subs) {
		const mine = events.filter((e) => e.type !== 'event' || matches(sub.patterns, e.event));
		if (!mine.length)
			continue;
		sub.pending.push(...mine);
		if (!sub.timer) {
			sub.timer = setTimeout(() => {
				const batch = sub.pending;
				sub.pending = [];
				sub.timer = 0;
				try {
					sub.fn(batch);
				} catch (e) {
					console.error(e);
				}
			}, GATHER_MS);
		}
	}
}

function heard(c, text) {
	let m;
	try {
		m = JSON.parse(text);
	} catch (e) {
		return;
	}
	if (typeof m.seq === 'number')
		c.seq = m.seq;
	if (m.type === 'hello') {
		c.tries = 0;
		c.everOpen = true;
		status(c, true);
	} else if (m.type === 'event' || m.type === 'reload') {
		deliver(c, [m]);
	} else if (m.type === 'bye') {
		ended(c, m.reason === 'signed_out');
	}
}

function ended(c, signedOut) {
	drop(c);
	if (signedOut) {
		c.options.onSignedOut();
		return;
	}
	status(c, false);
	if (c.where === null)
		return;
	if (++c.tries >= 2 && !c.everOpen)
		c.useStream = true; /* WebSockets do not get through here */
	const again = () => {
		c.retry = setTimeout(() => open(c),
			RETRY_MS[Math.min(c.tries, RETRY_MS.length) - 1] * (0.75 + Math.random() / 2));
	};
	if (c.tries % 3 === 0 && !c.up)
		why(c).then((stop) => { if (!stop && c.where !== null && !c.socket) again(); });
	else
		again();
}

/* Why the tries fail, when the server says: true to stop trying. */
async function why(c) {
	let r;
	try {
		r = await fetch('/api/live', { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
	} catch (e) {
		return false; /* the network: keep trying */
	}
	if (r.status === 401) {
		c.options.onSignedOut();
		return true;
	}
	const answer = await r.json().catch(() => null);
	if (answer && answer.error && answer.error.code === 'live_off') {
		clearTimeout(c.quiet);
		c.quiet = 0;
		c.options.onStatus(c.up = true); /* nothing to wait for: say nothing */
		return true;
	}
	return false;
}

function drop(c) {
	clearTimeout(c.retry);
	if (!c.socket)
		return;
	const old = c.socket;
	c.socket = null;
	old.onmessage = old.onclose = old.onerror = null;
	old.close();
}

function open(c) {
	drop(c);
	if (c.where === null)
		return;
	if (c.useStream && typeof EventSource !== 'undefined') {
		const es = new EventSource(url(c, location.protocol));
		es.onmessage = (e) => heard(c, e.data);
		/* It reconnects by itself, with the last id; it gives up
		 * (CLOSED) on an answer that is not a stream, a 401 too. */
		es.onerror = () => {
			status(c, false);
			if (es.readyState === EventSource.CLOSED && c.socket === es)
				ended(c, false);
		};
		c.socket = es;
		return;
	}
	const ws = new WebSocket(url(c, location.protocol === 'https:' ? 'wss:' : 'ws:'));
	ws.onmessage = (e) => heard(c, e.data);
	ws.onclose = (e) => {
		if (c.socket === ws)
			ended(c, e.code === SIGNED_OUT);
	};
	c.socket = ws;
}
