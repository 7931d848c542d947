// SPDX-License-Identifier: MIT
/*
 * api.js: the one data layer. Every page reads and writes the server
 * through the object createApi() returns (a page gets it as ctx.api):
 *
 *   get(path, query, {signal})  GET, the answer's JSON (with a signal:
 *                             sent on its own, aborted with it)
 *   list(path, query, after)  a pager over a list's next_cursor (below)
 *   post/put/patch(path, body), del(path)
 *   adopt(path, where, response)  a GET already sent (below)
 *
 * `path` is the API's path ("/api/contacts/12"; "contacts/12" means the
 * same); `query` an object whose null, undefined and "" members are left
 * out and whose arrays repeat the key (tag=a&tag=b). Bodies go as JSON,
 * except a Blob or File (an upload), which goes as itself with its type.
 * Every request names the current location in X-Location-Id, and a write
 * carries the session's CSRF token.
 *
 * Identical GETs (same URL, same location) in flight at once are sent
 * once; each caller gets its own copy of the answer, parsed from the same
 * text, so one caller's changes never show in another's. A write ends the
 * sharing: a GET asked for after it is sent again.
 *
 * A failure is an ApiError {status, code, message, fields, retryAfter}:
 * the server's {"error": {"code", "message"}}; for a 422 (and a 409
 * "duplicate", which names its field too), `fields` maps the member the
 * message names to what is wrong with it ("first_name: text of 1 to 100
 * characters" gives {first_name: "text of 1 to 100 characters"});
 * retryAfter is Retry-After in seconds (429, 503). No
 * answer at all is status 0, code "network". A 401 (the session ended)
 * also calls onUnauthorized, which shows the login page.
 */

export class ApiError extends Error {
	constructor(status, code, message, fields, retryAfter) {
		super(message);
		this.name = 'ApiError';
		this.status = status;
		this.code = code;
		this.fields = fields || {};
		this.retryAfter = retryAfter;
	}
}

/* The member a 422 message names, and what it says of it. */
export function fieldsOf(message) {
	const fields = {};
	let m = /^([A-Za-z_][\w.[\]]*): (.+)$/s.exec(message || '');
	if (m)
		fields[m[1]] = m[2];
	else if ((m = /^([a-z_][\w.[\]]*) (?:is|are|must) /.exec(message || '')))
		fields[m[1]] = message;
	return fields;
}

function errorOf(response, text) {
	let code = 'http_' + response.status;
	let message = response.statusText || 'the server answered ' + response.status;
	let fields;
	try {
		const e = JSON.parse(text).error;
		if (e && typeof e.code === 'string')
			code = e.code;
		if (e && typeof e.message === 'string')
			message = e.message;
		if (e && e.fields && typeof e.fields === 'object')
			fields = e.fields;
	} catch (ignored) {
		/* not JSON: a proxy's page; the status says enough */
	}
	if (!fields && (response.status === 422 || code === 'duplicate'))
		fields = fieldsOf(message);
	const retry = parseInt(response.headers.get('Retry-After') || '', 10);
	return new ApiError(response.status, code, message, fields, retry >= 0 ? retry : undefined);
}

function parse(text) {
	return text ? JSON.parse(text) : null;
}

/* The URL of `path` with `query`'s members (null, undefined and "" left
 * out, arrays repeating the key). */
function url(path, query) {
	let u = path.charAt(0) === '/' ? path : '/api/' + path;
	const q = new URLSearchParams();
	for (const key of Object.keys(query || {})) {
		const v = query[key];
		if (v == null || v === '')
			continue;
		for (const one of Array.isArray(v) ? v : [v])
			q.append(key, String(one));
	}
	const s = q.toString();
	if (s)
		u += (u.indexOf('?') < 0 ? '?' : '&') + s;
	return u;
}


/* A pager: next() resolves to the next page's rows ([] once done);
 * done, total (with count: 1 in the query) and loaded tell where it
 * stands; `for await (const rows of pager)` walks every page. A
 * next() while one is under way gives that one. next(extra) adds
 * extra's members to that page's query only (a first page as long as
 * the list shown: {limit: 120}); a cursor in `query` is where the
 * first page starts. `after`, a page already had ({data,
 * next_cursor}: a GET's answer), is where it goes on from. cursor
 * is the next page's (null once done), for a page kept to go on from;
 * answer the last page's whole answer (a list that says more than its
 * rows). */
function pager(get, path, query, after) {
	let cursor = after ? after.next_cursor || null : null;
	let pending = null;
	const p = {
		done: !!after && !cursor,
		total: after && typeof after.total === 'number' ? after.total : undefined,
		loaded: after && after.data ? after.data.length : 0,
		cursor, /* the next page's; null when none */
		answer: after || null, /* the last page's whole answer */
		next(extra) {
			if (pending)
				return pending;
			if (p.done)
				return Promise.resolve([]);
			const q = Object.assign({}, query, extra);
			if (cursor)
				q.cursor = cursor;
			pending = get(path, q).then((answer) => {
				pending = null;
				const rows = (answer && answer.data) || [];
				cursor = (answer && answer.next_cursor) || null;
				p.cursor = cursor;
				p.answer = answer;
				p.done = !cursor;
				if (answer && typeof answer.total === 'number')
					p.total = answer.total;
				p.loaded += rows.length;
				return rows;
			}, (e) => {
				pending = null;
				throw e;
			});
			return pending;
		},
		[Symbol.asyncIterator]() {
			return {
				next: () => p.done ? Promise.resolve({ done: true, value: undefined })
					: p.next().then((rows) => ({ done: false, value: rows })),
			};
		},
	};
	return p;
}

/* options: location() the current location's id (or null), csrf() the
 * session's token, onUnauthorized(error) for a 401. */
export function createApi(options) {
	const inflight = new Map();

	/* The answer's text, or an ApiError. */
	async function send(method, u, body, where, signal) {
		const headers = { Accept: 'application/json' };
		const init = { method, headers, credentials: 'same-origin', signal };
		if (where)
			headers['X-Location-Id'] = String(where);
		if (method !== 'GET') {
			const token = options.csrf && options.csrf();
			if (token)
				headers['X-CSRF-Token'] = token;
		}
		if (typeof Blob !== 'undefined' && body instanceof Blob) {
			headers['Content-Type'] = body.type || 'application/octet-stream';
			init.body = body;
		} else if (body !== undefined) {
			headers['Content-Type'] = 'application/json';
			init.body = JSON.stringify(body);
		}
		return answer(fetch(u, init));
	}

	/* The text of the answer `response` (a promise of fetch's Response),
	 * or an ApiError. */
	async function answer(response) {
		let r, text;
		try {
			r = await response;
			text = await r.text();
		} catch (e) {
			throw new ApiError(0, 'network', 'The server cannot be reached. Check the connection and try again.');
		}
		if (r.ok)
			return text;
		const error = errorOf(r, text);
		if (error.status === 401 && options.onUnauthorized)
			options.onUnauthorized(error);
		throw error;
	}

	const currentLocation = () => (options.location ? options.location() : null);

	/* GETs asked for before this client existed, by their key. */
	const adopted = new Map();

	/* `response` (a promise of fetch's Response to a GET of `path` with
	 * X-Location-Id `where`, sent with the headers send() would send)
	 * answers the next get() of that path and location, which then does
	 * not ask again: first.js asks for the first page's data while the
	 * shell is still on its way. */
	function adopt(path, where, response) {
		adopted.set((where || '') + ' ' + url(path), response);
	}

	function get(path, query, options) {
		const where = currentLocation();
		const u = url(path, query);
		if (options && options.signal) /* not shared: its caller may abort it */
			return send('GET', u, undefined, where, options.signal).then(parse);
		const key = (where || '') + ' ' + u;
		let shared = inflight.get(key);
		if (!shared && adopted.has(key)) {
			shared = answer(adopted.get(key));
			adopted.delete(key);
		} else if (!shared) {
			const sent = send('GET', u, undefined, where);
			shared = sent;
			inflight.set(key, sent);
			const forget = () => {
				if (inflight.get(key) === sent)
					inflight.delete(key);
			};
			sent.then(forget, forget);
		}
		return shared.then(parse);
	}

	/* A GET asked for after a write is sent anew: one already on its way
	 * (asked before the write, or while it was) may answer from before it. */
	function write(method) {
		const forgetAll = () => {
			inflight.clear();
			adopted.clear();
		};
		return (path, body) => {
			forgetAll();
			const sent = send(method, url(path), body, currentLocation());
			sent.then(forgetAll, forgetAll);
			return sent.then(parse);
		};
	}

	const list = (path, query, after) => pager(get, path, query, after);

	return {
		get,
		list,
		post: write('POST'),
		put: write('PUT'),
		patch: write('PATCH'),
		del: write('DELETE'),
		url,
		adopt,
	};
}
