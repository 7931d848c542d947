// SPDX-License-Identifier: MIT
/*
 * The browser app's source, read as the oldest browsers we serve read it:
 * every .js under webui/, modules/*\/webui/ and examples/*\/webui/ must
 * parse as ES2021 (Chrome 92, Firefox 90, Safari 15), and none may put a
 * string into the page as markup or run a string as code: those belong to
 * html.js alone, whose values are always text. No function is longer than
 * LONGEST lines, the functions inside it counted (house style: a page
 * grows into a folder of small parts, not one closure holding all).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import * as acorn from 'acorn';
import { ROOT } from './lib.mjs';

const LONGEST = 150;

function scripts(dir, out) {
	for (const name of readdirSync(dir).sort()) {
		const path = join(dir, name);
		if (statSync(path).isDirectory())
			scripts(path, out);
		else if (name.endsWith('.js') || name.endsWith('.mjs'))
			out.push(path);
	}
	return out;
}

function sources() {
	const dirs = [join(ROOT, 'webui')];
	for (const parent of ['modules', 'examples']) {
		const top = join(ROOT, parent);
		for (const name of existsSync(top) ? readdirSync(top).sort() : []) {
			if (existsSync(join(top, name, 'webui')))
				dirs.push(join(top, name, 'webui'));
		}
	}
	return dirs.flatMap((d) => scripts(d, []));
}

/* "file:line:column: what" for source that is not ES2021, else null. */
function newerThan2021(file, text) {
	try {
		acorn.parse(text, { ecmaVersion: 2021, sourceType: 'module', locations: true });
		return null;
	} catch (e) {
		if (!(e instanceof SyntaxError) || !e.loc)
			throw e;
		return relative(ROOT, file) + ':' + e.loc.line + ':' + (e.loc.column + 1) + ': ' +
			e.message.replace(/ \(\d+:\d+\)$/, '');
	}
}

test('every browser script parses as ES2021', () => {
	const files = sources();
	assert.ok(files.some((f) => f.endsWith(join('webui', 'first.js'))), 'webui/first.js is read');
	const bad = files.map((f) => newerThan2021(f, readFileSync(f, 'utf8'))).filter(Boolean);
	assert.deepEqual(bad, [], 'newer than ES2021:\n' + bad.join('\n'));
});

test('the check finds syntax newer than ES2021, with its line', () => {
	const cases = {
		'class A { x = 1; }': 1,                 // class fields: ES2022
		'const a = 1;\nawait a;': 2,             // top-level await: ES2022
		'class B { #p() {} }': 1,                // private methods: ES2022
		'\n\nlet r = /a/d;': 3,                  // regexp match indices: ES2022
	};
	for (const [code, line] of Object.entries(cases)) {
		const found = newerThan2021(join(ROOT, 'webui', 'x.js'), code);
		assert.match(found || '', new RegExp('^webui/x\\.js:' + line + ':'), code);
	}
	assert.equal(newerThan2021('x.js', 'a ??= b; const n = 1_000; x?.y;'), null, 'ES2021 passes');
});

/* Every place a script could turn a string into markup or code. */
function sinks(ast) {
	const found = [];
	const MARKUP = ['innerHTML', 'outerHTML'];
	const CALLS = ['insertAdjacentHTML', 'write', 'writeln', 'createContextualFragment', 'parseFromString'];
	const visit = (node) => {
		if (!node || typeof node.type !== 'string')
			return;
		const prop = (m) => m && m.type === 'MemberExpression' &&
			(m.computed ? m.property.value : m.property.name);
		if (node.type === 'AssignmentExpression' && MARKUP.includes(prop(node.left)))
			found.push([node.loc.start.line, prop(node.left)]);
		if (node.type === 'CallExpression' && CALLS.includes(prop(node.callee)))
			found.push([node.loc.start.line, prop(node.callee)]);
		if ((node.type === 'CallExpression' || node.type === 'NewExpression') &&
		    node.callee.type === 'Identifier' && ['eval', 'Function'].includes(node.callee.name))
			found.push([node.loc.start.line, node.callee.name]);
		if (node.type === 'CallExpression' && node.callee.type === 'Identifier' &&
		    ['setTimeout', 'setInterval'].includes(node.callee.name) &&
		    node.arguments[0] && node.arguments[0].type === 'Literal')
			found.push([node.loc.start.line, node.callee.name + ' with a string']);
		for (const key of Object.keys(node)) {
			const v = node[key];
			if (Array.isArray(v))
				v.forEach(visit);
			else if (v && typeof v === 'object' && key !== 'loc')
				visit(v);
		}
	};
	visit(ast);
	return found;
}

test('no script but html.js turns strings into markup or code', () => {
	const bad = [];
	for (const file of sources()) {
		const text = readFileSync(file, 'utf8');
		let ast;
		try {
			ast = acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
		} catch (e) {
			continue; /* the ES2021 test names it */
		}
		const own = relative(ROOT, file) === join('webui', 'html.js');
		for (const [line, what] of sinks(ast)) {
			/* html.js parses its own template strings, which are code, never data */
			if (!(own && what === 'innerHTML'))
				bad.push(relative(ROOT, file) + ':' + line + ': ' + what);
		}
	}
	assert.deepEqual(bad, [], 'use html`` or textContent instead:\n' + bad.join('\n'));
	const probe = acorn.parse('el.innerHTML = x; document.write(y); eval(z);',
		{ ecmaVersion: 2021, sourceType: 'module', locations: true });
	assert.equal(sinks(probe).length, 3, 'the check finds what it looks for');
});

/* "file:line: name is N lines" for each function of `text` (a declaration,
 * an expression, an arrow or a method) longer than LONGEST lines. */
function longFunctions(file, text) {
	const ast = acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
	const found = [];
	const visit = (node, name) => {
		if (!node || typeof node.type !== 'string')
			return;
		if (/Function/.test(node.type)) {
			const lines = node.loc.end.line - node.loc.start.line + 1;
			if (lines > LONGEST)
				found.push(relative(ROOT, file) + ':' + node.loc.start.line + ': ' +
					((node.id && node.id.name) || name || 'a function') + ' is ' + lines + ' lines');
		}
		for (const key of Object.keys(node)) {
			const v = node[key];
			const named = node.type === 'VariableDeclarator' && key === 'init' ? node.id.name
				: (node.type === 'Property' || node.type === 'MethodDefinition') && key === 'value'
					? node.key.name : undefined;
			if (Array.isArray(v))
				v.forEach((c) => visit(c));
			else if (v && typeof v === 'object' && key !== 'loc')
				visit(v, named);
		}
	};
	visit(ast);
	return found;
}

test('no browser function is longer than ' + LONGEST + ' lines', () => {
	const long = sources().flatMap((f) => longFunctions(f, readFileSync(f, 'utf8')));
	assert.deepEqual(long, [], 'split these into named parts:\n' + long.join('\n'));
});

test('the length check finds a long function, an arrow and a method, by name', () => {
	const body = '\tx();\n'.repeat(LONGEST - 2);
	const code = 'function page() {\n' + body + '}\n' +
		'const list = () => {\n' + body + '\tx();\n};\n' +
		'const o = { draw() {\n' + body + '} };\n';
	assert.deepEqual(longFunctions(join(ROOT, 'webui', 'x.js'), code), [
		'webui/x.js:' + (LONGEST + 1) + ': list is ' + (LONGEST + 1) + ' lines',
	], 'a function of ' + LONGEST + ' lines passes, one more does not');
	const inner = 'function outer() {\n\tfunction inner() {\n' + body + '\t}\n}\n';
	assert.match(longFunctions('x.js', inner)[0] || '', /outer is 152 lines/,
		'a function counts the functions inside it');
});
