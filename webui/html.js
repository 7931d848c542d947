// SPDX-License-Identifier: MIT
/*
 * html.js: the one way the app turns markup with data in it into DOM.
 *
 *   html`<li><a href="/app/contacts/${id}">${name}</a></li>`
 *
 * returns a DocumentFragment. The template's own strings are markup (they
 * are code, written by us); every interpolated value is data and never
 * becomes markup: in text it becomes a Text node, in an attribute's value
 * it is set with setAttribute. A value may also be a Node or fragment
 * (another html`` result), an array of values, or null/undefined/false
 * (nothing). In an attribute that holds only the value, false, null and
 * undefined leave the attribute out and true sets it empty (disabled,
 * hidden).
 *
 * Refused, with an exception, so a mistake fails loudly rather than
 * opening a hole: a value anywhere else than text or an attribute's value
 * (a tag or attribute name), any event handler (on...) or style attribute
 * (the CSP forbids them: use addEventListener and element.style), and a
 * value the markup swallowed (inside <textarea> or <title>: set .value or
 * .textContent instead). A URL attribute (href, src, action, formaction)
 * whose value has a scheme other than http, https, mailto or tel, as a
 * browser reads the scheme, gets "about:blank" instead.
 *
 * Each template's parsed markup is kept (by its strings array, which the
 * language gives once per call site) and cloned on each use.
 */

const MARK = '\u0001';
const TEXT = 0;
const TAG = 1;
const DQUOTE = 2;
const SQUOTE = 3;
const COMMENT = 4;

const parsed = new WeakMap();
const URL_ATTRS = ['href', 'src', 'action', 'formaction', 'xlink:href'];
const SAFE_SCHEMES = ['http', 'https', 'mailto', 'tel'];

/* The scheme a browser reads in a URL, lower case, or '' for a relative
 * one. The URL standard drops leading and trailing C0 controls and
 * spaces, and every tab and newline, before it looks for the scheme, so
 * "java\tscript:" and "\x01javascript:" are javascript: URLs. */
function schemeOf(url) {
	const s = url.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\n\r]/g, '');
	const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s);
	return m ? m[1].toLowerCase() : '';
}

/* An event handler or style attribute: the CSP refuses them, and the
 * browser reports it as soon as such markup is parsed, so they are
 * looked for in the tag's text, before parsing. */
const REFUSED_ATTR = /[\s/](on[a-z]*|style)(?=[\s=/>]|$)/i;

/* The markup of the template's strings, with a marker where each value
 * goes: a comment <!--\u0001N--> in text, \u0001N\u0001 in an attribute. */
function markup(strings) {
	let state = TEXT;
	let out = '';
	let tag = ''; /* the tag being read, without its quoted values */
	for (let i = 0; i < strings.length; i++) {
		const s = strings[i];
		for (let j = 0; j < s.length; j++) {
			const c = s[j];
			if (state === TEXT) {
				if (c === '<' && s.startsWith('!--', j + 1)) {
					state = COMMENT;
					j += 3;
				} else if (c === '<' && /[a-zA-Z/!]/.test(s.charAt(j + 1))) {
					state = TAG;
					tag = '';
				}
			} else if (state === TAG) {
				if (c === '"') {
					state = DQUOTE;
				} else if (c === "'") {
					state = SQUOTE;
				} else if (c === '>') {
					state = TEXT;
					const refused = REFUSED_ATTR.exec(tag);
					if (refused)
						throw new Error('html: no ' + refused[1] + ' attribute (the CSP refuses' +
								' it; use addEventListener or element.style)');
				} else {
					tag += c;
				}
			} else if (state === DQUOTE) {
				if (c === '"') state = TAG;
			} else if (state === SQUOTE) {
				if (c === "'") state = TAG;
			} else if (s.startsWith('-->', j)) {
				state = TEXT;
				j += 2;
			}
		}
		out += s;
		if (i === strings.length - 1)
			break;
		if (state === TEXT && !/<\/?$/.test(s))
			out += '<!--' + MARK + i + '-->';
		else if (state === DQUOTE || state === SQUOTE)
			out += MARK + i + MARK;
		else if (state === TAG && /=\s*$/.test(s))
			out += '"' + MARK + i + MARK + '"';
		else
			throw new Error('html: a value may stand in text or in an attribute\'s value only');
	}
	return out;
}

function template(strings) {
	let t = parsed.get(strings);
	if (!t) {
		t = document.createElement('template');
		t.innerHTML = markup(strings);
		parsed.set(strings, t);
	}
	return t;
}

/* The nodes a value in text becomes. */
function nodes(value, out) {
	if (value == null || value === false || value === true)
		return out;
	if (Array.isArray(value)) {
		for (const v of value)
			nodes(v, out);
	} else if (value instanceof Node) {
		out.push(value);
	} else {
		out.push(document.createTextNode(String(value)));
	}
	return out;
}

function text(value) {
	return value == null || value === false ? '' : String(value);
}

/* Sets each attribute of `el` that holds markers; returns how many values
 * it placed. */
function fill(el, values) {
	let placed = 0;
	for (const a of Array.from(el.attributes)) {
		if (a.value.indexOf(MARK) < 0)
			continue;
		const name = a.name.toLowerCase();
		const whole = /^\u0001(\d+)\u0001$/.exec(a.value);
		if (whole) {
			const v = values[+whole[1]];
			placed++;
			if (v == null || v === false) {
				el.removeAttribute(a.name);
				continue;
			}
			if (v === true) {
				el.setAttribute(a.name, '');
				continue;
			}
		}
		let value = a.value.replace(/\u0001(\d+)\u0001/g, (m, i) => {
			if (!whole)
				placed++;
			return text(values[+i]);
		});
		const scheme = URL_ATTRS.indexOf(name) >= 0 ? schemeOf(value) : '';
		if (scheme && SAFE_SCHEMES.indexOf(scheme) < 0)
			value = 'about:blank';
		el.setAttribute(a.name, value);
	}
	return placed;
}

export function html(strings, ...values) {
	const frag = document.importNode(template(strings).content, true);
	const walker = document.createTreeWalker(frag, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_COMMENT);
	const holes = [];
	let placed = 0;
	for (let n = walker.nextNode(); n; n = walker.nextNode()) {
		if (n.nodeType === Node.COMMENT_NODE) {
			if (n.data.charAt(0) === MARK)
				holes.push(n);
		} else if (n.hasAttributes()) {
			placed += fill(n, values);
		}
	}
	for (const hole of holes) {
		hole.replaceWith(...nodes(values[+hole.data.slice(1)], []));
		placed++;
	}
	if (placed !== values.length)
		throw new Error('html: a value was put where markup cannot hold it (textarea, title?)');
	return frag;
}

/* HTML the server rendered from Markdown (cmark, which leaves raw HTML
 * out), as DOM: parsed inert, then copied element by element, keeping
 * only the elements Markdown makes and a link's href when its scheme is
 * a safe one; any other element gives its text (a script or style,
 * nothing), any other attribute is dropped. Markup that is not
 * Markdown's can never run or style here. */
const MARKDOWN_TAGS = new Set(['P', 'BR', 'STRONG', 'EM', 'A', 'UL', 'OL', 'LI', 'CODE', 'PRE',
	'BLOCKQUOTE', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'DEL']);
const UNREAD_TAGS = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'TITLE']);

function copyMarkdown(from, into) {
	for (const n of from.childNodes) {
		if (n.nodeType === Node.TEXT_NODE) {
			into.append(n.data);
		} else if (n.nodeType === Node.ELEMENT_NODE && !MARKDOWN_TAGS.has(n.tagName)) {
			if (!UNREAD_TAGS.has(n.tagName))
				copyMarkdown(n, into);
		} else if (n.nodeType === Node.ELEMENT_NODE) {
			const el = document.createElement(n.tagName.toLowerCase());
			const href = n.tagName === 'A' ? n.getAttribute('href') || '' : '';
			if (href && SAFE_SCHEMES.includes(schemeOf(href))) {
				el.setAttribute('href', href);
				el.setAttribute('rel', 'noopener noreferrer');
				el.setAttribute('target', '_blank');
			}
			copyMarkdown(n, el);
			into.append(el);
		}
	}
	return into;
}

export function rendered(markup) {
	const t = document.createElement('template'); /* its content is inert: nothing loads or runs */
	t.innerHTML = String(markup);
	return copyMarkdown(t.content, document.createDocumentFragment());
}
