// SPDX-License-Identifier: MIT
/*
 * The shell's modules as pages use them, in the browser against a real
 * server: html.js keeps every value text, api.js merges identical GETs,
 * pages a list over next_cursor and reads the server's errors, and
 * ui.js puts a 422's message next to the field it names (in the
 * contacts module's real "New contact" form).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO, apiAs, launch, newPage, provoked, shellUrl, shoot, signIn, startServer }
	from './lib.mjs';

describe('parts', () => {
	let server, browser;

	before(async () => {
		server = await startServer();
		browser = await launch();
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	test('html.js: values are text or attribute values, never markup', async () => {
		const { page, context, problems } = await newPage(browser, server);
		await page.goto('/');
		const out = await page.evaluate(async (src) => {
			const { html } = await import(src);
			const name = '<b onclick=alert(1)>x</b>';
			const frag = html`<p title="${name}" class="a ${'b'}">${name}</p><a href="${'javascript:alert(1)'}">x</a><a href=${'/app/x?a=1&b=2'}>y</a><input disabled=${false}><input disabled=${true}><span>${[1, html`<i>${2}</i>`, null, undefined, false]}</span>`;
			const box = document.createElement('div');
			box.append(frag);
			const p = box.querySelector('p');
			const links = box.querySelectorAll('a');
			const inputs = box.querySelectorAll('input');
			const refused = [
				() => html`<p onclick="${'x'}"></p>`,
				() => html`<p style="${'color: red'}"></p>`,
				() => html`<${'p'}>`,
				() => html`<p ${'hidden'}></p>`,
				() => html`<textarea>${'x'}</textarea>`,
			].map((f) => { try { f(); return 'made'; } catch (e) { return 'refused'; } });
			return {
				title: p.title, text: p.textContent, children: box.querySelectorAll('b').length,
				cls: p.className, js: links[0].getAttribute('href'), rel: links[1].getAttribute('href'),
				disabled: [inputs[0].disabled, inputs[1].disabled],
				span: box.querySelector('span').innerHTML, refused,
			};
		}, shellUrl('html.js'));
		assert.deepEqual(out, {
			title: '<b onclick=alert(1)>x</b>', text: '<b onclick=alert(1)>x</b>', children: 0,
			cls: 'a b', js: 'about:blank', rel: '/app/x?a=1&b=2', disabled: [false, true],
			span: '1<i>2</i>', refused: ['refused', 'refused', 'refused', 'refused', 'refused'],
		});
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('html.js: rendered Markdown keeps Markdown\'s elements and safe links, and nothing else', async () => {
		const { page, context, problems } = await newPage(browser, server);
		await page.goto('/');
		const out = await page.evaluate(async (src) => {
			const { rendered } = await import(src);
			const box = document.createElement('div');
			box.append(rendered('<p>a <strong>b</strong> <a href="javascript:alert(1)" title="t">c</a>'
				+ '<img src="x" onerror="alert(1)"><script>alert(1)</script><span style="color:red">d</span>'
				+ '<a href="https://example.com/x">e</a></p><ul><li>f</li></ul>'));
			return box.innerHTML;
		}, shellUrl('html.js'));
		assert.equal(out, '<p>a <strong>b</strong> <a>c</a>d<a href="https://example.com/x"'
			+ ' rel="noopener noreferrer" target="_blank">e</a></p><ul><li>f</li></ul>');
		/* cmark never writes a handler or a style; given one, the browser's
		 * CSP refuses it as the markup is parsed, and says so */
		assert.deepEqual(problems.filter((p) => !/Content Security Policy.*blocked/.test(p)), []);
		await context.close();
	});

	test('html.js: a link is kept only when the browser reads it as http, https, mailto or tel', async () => {
		const { page, context, problems } = await newPage(browser, server);
		await page.goto('/');
		const out = await page.evaluate(async (src) => {
			const { html } = await import(src);
			const hrefOf = (v) => {
				const box = document.createElement('div');
				box.append(html`<a href="${v}">x</a>`);
				return box.querySelector('a').getAttribute('href');
			};
			/* The browser's own URL parser is the judge. */
			const schemeRead = (href) => {
				try { return new URL(href, 'https://app.example/app/').protocol; } catch (e) { return 'none'; }
			};
			const named = ['java\tscript:alert(1)', 'java\nscript:alert(1)', '\x01javascript:alert(1)',
				' javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'java\rscript:x', '\x00\x1fjavascript:x',
				'javascript\t:x', 'vbscript:x', 'data:text/html,<script>x</script>', 'j\na\tv\ra\nscript:x']
				.map((v) => [v, hrefOf(v)]);
			/* A differential fuzz from a fixed seed: a scheme, whole or not,
			 * with characters a URL parser treats specially put in at random
			 * places, before or after, then a colon or not, then the rest. */
			let seed = 20261205;
			const rand = (n) => {
				seed = (seed + 0x6D2B79F5) | 0;
				let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
				t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
				return ((t ^ (t >>> 14)) >>> 0) % n;
			};
			const schemes = ['javascript', 'JavaScript', 'vbscript', 'data', 'http', 'https', 'mailto',
				'tel', 'file', 'java', 'script', 'blob', 'x-y.z+w', '1abc', ''];
			const noise = ['\t', '\n', '\r', '\x00', '\x01', '\x1f', ' ', '\u00a0', '&#9;', '%09', '/',
				'.', '+', '-', '\\', '\u2028'];
			const after = [':', ':', ':', '://', '', '%3a', '&colon;', '\t:', ':\t'];
			let kept = 0, blanked = 0;
			const wrong = [];
			for (let i = 0; i < 20000; i++) {
				const chars = schemes[rand(schemes.length)].split('');
				for (let n = rand(4); n > 0; n--)
					chars.splice(rand(chars.length + 1), 0, noise[rand(noise.length)]);
				const v = chars.join('') + after[rand(after.length)] + 'alert(1)';
				const href = hrefOf(v);
				if (href === 'about:blank') {
					blanked++;
					continue;
				}
				kept++;
				const scheme = schemeRead(href);
				if (!['http:', 'https:', 'mailto:', 'tel:', 'none'].includes(scheme))
					wrong.push([v, scheme]);
			}
			return { named, kept, blanked, wrong: wrong.slice(0, 10) };
		}, shellUrl('html.js'));
		for (const [v, href] of out.named)
			assert.equal(href, 'about:blank', JSON.stringify(v));
		assert.deepEqual(out.wrong, []);
		assert.ok(out.blanked > 1000 && out.kept > 1000, JSON.stringify(out));
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('api.js: one request for identical GETs, a pager over next_cursor, errors as ApiError', async () => {
		const { page, context, problems } = await newPage(browser, server);
		await page.goto('/');
		await signIn(page, DEMO.email, DEMO.password);
		const admin = await apiAs(server, DEMO.email, DEMO.password);
		const out = await page.evaluate(async (src) => {
			const { createApi, ApiError } = await import(src);
			const seen = [];
			const real = window.fetch;
			window.fetch = (url, init) => {
				seen.push([String(url), init.headers['X-Location-Id']]);
				return real(url, init);
			};
			let expired = 0;
			const api = createApi({ location: () => 2, onUnauthorized: () => expired++ });
			const [a, b] = await Promise.all([api.get('/api/auth/me'), api.get('auth/me')]);
			a.user.name = 'changed by one caller';
			const merged = seen.length;
			/* a GET asked for after a write is not the one sent before it */
			const asked = '/api/contacts?q=Zebediah';
			const before = api.get(asked);
			const wrote = api.post('/api/contacts', { first_name: 'Zebediah', last_name: 'Asked-Between' });
			const after = api.get(asked);
			await Promise.all([before, wrote, after]);
			const afterWrite = seen.filter((s) => s[0] === asked).length;
			const named = ((await api.get(asked)).data || []).some((c) => c.last_name === 'Asked-Between');
			seen.length = merged;
			let pages = 0;
			let rows = 0;
			const pager = api.list('/api/contacts', { limit: 7, count: 1, q: '' });
			for await (const got of pager) {
				pages++;
				rows += got.length;
			}
			const errors = [];
			for (const call of [() => api.post('/api/contacts', { email: 'not-an-email' }),
				() => api.get('/api/contacts/999999'),
				() => createApi({ location: () => 9999 }).get('/api/contacts')]) {
				try {
					await call();
					errors.push(null);
				} catch (e) {
					errors.push({ isApiError: e instanceof ApiError, status: e.status, code: e.code,
						fields: e.fields });
				}
			}
			await real('/api/auth/logout', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
			try {
				await api.get('/api/contacts');
			} catch (e) {
				errors.push({ status: e.status, expired });
			}
			window.fetch = real;
			return { merged, afterWrite, named, other: b.user.name, where: seen[0][1], pages, rows, total: pager.total,
				firstPage: seen[1][0], errors };
		}, shellUrl('api.js'));
		const total = (await admin.get('/api/contacts?limit=1&count=1', 2)).total;
		assert.equal(out.merged, 1, 'identical GETs in flight are sent once');
		assert.equal(out.afterWrite, 2, 'a GET after a write is sent again');
		assert.equal(out.named, true, 'and answers with what was written');
		assert.equal(out.other, 'Perf Admin', 'each caller has its own copy');
		assert.equal(out.where, '2', 'X-Location-Id from the current location');
		assert.equal(out.firstPage, '/api/contacts?limit=7&count=1', 'empty query members left out');
		assert.equal(out.rows, total);
		assert.equal(out.total, total);
		assert.ok(out.pages >= Math.ceil(total / 7) && out.pages <= Math.ceil(total / 7) + 1, 'pages');
		assert.deepEqual(out.errors, [
			{ isApiError: true, status: 422, code: 'validation', fields: { email: 'not an e-mail address' } },
			{ isApiError: true, status: 404, code: 'not_found', fields: {} },
			{ isApiError: true, status: 404, code: 'not_found', fields: {} },
			{ status: 401, expired: 1 },
		]);
		assert.deepEqual(provoked(problems, /^401 GET \/api\/contacts$/, /^404 GET \/api\/contacts$/, /^404 GET \/api\/contacts\/[0-9]+$/, /^422 POST \/api\/contacts$/), []);
		await context.close();
	});

	test('a form shows the server\'s 422 next to the field it names', async () => {
		const { page, context, problems } = await newPage(browser, server);
		await page.goto('/app/contacts/new');
		await signIn(page, DEMO.email, DEMO.password);
		await page.getByRole('heading', { level: 1, name: 'New contact' }).waitFor();
		await page.getByLabel('First name', { exact: true }).fill('Ada');
		const email = page.getByLabel('E-mail', { exact: true });
		await email.fill('not-an-email');
		await page.getByRole('button', { name: 'Create contact' }).click();
		await page.getByText('Not an e-mail address').waitFor();
		assert.equal(await email.getAttribute('aria-invalid'), 'true');
		assert.equal(await email.evaluate((el) =>
			document.getElementById(el.getAttribute('aria-describedby')).textContent), 'Not an e-mail address');
		assert.equal(await email.evaluate((el) => el === document.activeElement), true, 'focus on the field');
		assert.equal(await page.getByLabel('First name', { exact: true }).getAttribute('aria-invalid'), null);
		await shoot(page, 'form-error');

		await email.fill('ada@example.test');
		await page.getByRole('button', { name: 'Create contact' }).click();
		await page.getByRole('heading', { level: 1, name: 'Ada' }).waitFor();
		await page.getByRole('status').filter({ hasText: 'Ada was added.' }).waitFor();
		assert.match(new URL(page.url()).pathname, /^\/app\/contacts\/\d+$/);
		assert.deepEqual(provoked(problems, /^422 POST \/api\/contacts$/), []);
		await context.close();
	});
});
