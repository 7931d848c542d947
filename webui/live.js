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

/* options: {onSignedOut(), onStatus(up: boolean)} */
export function createLive(options) {
	const subs = new Set();
	let where = null;   /* the sub-account listened to */
	let seq = null;     /* the last sequence number heard */
	let socket = null;  /* the WebSocket or EventSource */
	let tries = 0;      /* failed tries since the last open */
	let everOpen = false;
	let useStream = typeof WebSocket === 'undefined';
	let retry = 0;
	let quiet = 0;
	let up = null;

	/* Down is said once the connection has been down QUIET_MS, counted
	 * from the first failure: a try that fails again does not restart it. */
	function status(now) {
		if (now) {
			clearTimeout(quiet);
			quiet = 0;
			if (up !== true)
				options.onStatus(up = true);
		} else if (up !== false && !quiet) {
			quiet = setTimeout(() => { quiet = 0; options.onStatus(up = false); }, QUIET_MS);
		}
	}

	function url(scheme) {
		const q = new URLSearchParams({ location_id: String(where) });
		if (seq !== null)
			q.set('since', String(seq));
		return scheme + '//' + location.host + '/api/live?' + q.toString();
	}

	function deliver(events) {
		for (const sub of subs) {
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

	function heard(text) {
		let m;
		try {
			m = JSON.parse(text);
		} catch (e) {
			return;
		}
		if (typeof m.seq === 'number')
			seq = m.seq;
		if (m.type === 'hello') {
			tries = 0;
			everOpen = true;
			status(true);
		} else if (m.type === 'event' || m.type === 'reload') {
			deliver([m]);
		} else if (m.type === 'bye') {
			ended(m.reason === 'signed_out');
		}
	}

	function ended(signedOut) {
		drop();
		if (signedOut) {
			options.onSignedOut();
			return;
		}
		status(false);
		if (where === null)
			return;
		if (++tries >= 2 && !everOpen)
			useStream = true; /* WebSockets do not get through here */
		const again = () => {
			retry = setTimeout(open, RETRY_MS[Math.min(tries, RETRY_MS.length) - 1] * (0.75 + Math.random() / 2));
		};
		if (tries % 3 === 0 && !up)
			why().then((stop) => { if (!stop && where !== null && !socket) again(); });
		else
			again();
	}

	/* Why the tries fail, when the server says: true to stop trying. */
	async function why() {
		let r;
		try {
			r = await fetch('/api/live', { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
		} catch (e) {
			return false; /* the network: keep trying */
		}
		if (r.status === 401) {
			options.onSignedOut();
			return true;
		}
		const answer = await r.json().catch(() => null);
		if (answer && answer.error && answer.error.code === 'live_off') {
			clearTimeout(quiet);
			quiet = 0;
			options.onStatus(up = true); /* nothing to wait for: say nothing */
			return true;
		}
		return false;
	}

	function drop() {
		clearTimeout(retry);
		if (!socket)
			return;
		const old = socket;
		socket = null;
		old.onmessage = old.onclose = old.onerror = null;
		old.close();
	}

	function open() {
		drop();
		if (where === null)
			return;
		if (useStream && typeof EventSource !== 'undefined') {
			const es = new EventSource(url(location.protocol));
			es.onmessage = (e) => heard(e.data);
			/* It reconnects by itself, with the last id; it gives up
			 * (CLOSED) on an answer that is not a stream, a 401 too. */
			es.onerror = () => {
				status(false);
				if (es.readyState === EventSource.CLOSED && socket === es)
					ended(false);
			};
			socket = es;
			return;
		}
		const ws = new WebSocket(url(location.protocol === 'https:' ? 'wss:' : 'ws:'));
		ws.onmessage = (e) => heard(e.data);
		ws.onclose = (e) => {
			if (socket === ws)
				ended(e.code === SIGNED_OUT);
		};
		socket = ws;
	}

	return {
		/* Listen to sub-account `id` (null: none) from now on. */
		follow(id) {
			if (id === where)
				return;
			where = id;
			seq = null;
			tries = 0;
			open();
		},
		/* Call fn(events) for the events whose names match `patterns`
		 * ("task.*", "message.received"), until `signal` aborts. */
		on(patterns, fn, signal) {
			if (signal.aborted)
				return; /* the page was left before it asked */
			const sub = { patterns, fn, pending: [], timer: 0 };
			subs.add(sub);
			signal.addEventListener('abort', () => {
				subs.delete(sub);
				clearTimeout(sub.timer);
			});
		},
		close() {
			where = null;
			drop();
			clearTimeout(quiet);
			quiet = 0;
			for (const sub of subs)
				clearTimeout(sub.timer);
			subs.clear();
		},
	};
}
