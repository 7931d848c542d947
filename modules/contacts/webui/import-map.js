// SPDX-License-Identifier: MIT
/*
 * import-map.js: the middle step of an import (importer.js): where each
 * column of the uploaded file goes, what a row matching a contact does,
 * and a preview of what the first rows become. The upload's answer
 * brings the file's header, its first rows and a mapping to start from
 * (the one last used for a file with these columns, or one guessed from
 * their names); each change asks POST /api/contacts/imports/:id/preview
 * again (an answer for an older choice is dropped).
 *
 * mapStep(slot, ctx, upload, hooks) fills `slot` and returns
 * {choice(), focus()}: choice() is {mapping, duplicates} as chosen;
 * hooks.run() starts the import, hooks.back() picks another file.
 */

const DUPLICATES = [
	['update', 'Update the contact'],
	['skip', 'Skip the row'],
	['create', 'Add a new contact'],
];

const ACTIONS = { create: 'Added', update: 'Updated', skip: 'Skipped' };

/* One column's row of the mapping table: its name, its first value, and
 * where it goes. */
function columnRow(ctx, upload, i) {
	const { html } = ctx;
	const first = upload.rows.length ? upload.rows[0].cells[i] || '' : '';
	const id = 'im-col-' + i;
	const row = html`<tr>
		<th scope="row"><label for="${id}">${upload.headers[i] || 'Column ' + (i + 1)}</label></th>
		<td class="im-sample">${first}</td>
		<td><select id="${id}" data-col="${String(i)}">
			<option value="">Don't import</option>
			${upload.fields.map((f) => html`<option value="${f.key}">${f.name}</option>`)}
		</select></td>
	</tr>`.firstElementChild;
	row.querySelector('select').value = upload.mapping[i] || '';
	return row;
}

/* What a previewed row's values are, as one line of text. */
function valuesText(upload, values) {
	const name = (key) => (upload.fields.find((f) => f.key === key) || { name: key }).name;
	return Object.entries(values || {}).map(([k, v]) =>
		name(k) + ': ' + (Array.isArray(v) ? v.join(', ') : v)).join(' · ');
}

function previewTable(ctx, upload, rows) {
	const { html } = ctx;
	return html`<table class="table im-preview">
		<caption>What the first rows become</caption>
		<thead><tr><th scope="col">Line</th><th scope="col">Becomes</th><th scope="col">Details</th></tr></thead>
		<tbody>${rows.map((r) => html`<tr class="${'is-' + r.action}">
			<td>${String(r.line)}</td>
			<td>${ACTIONS[r.action] || r.action}</td>
			<td>${[r.reason, valuesText(upload, r.values)].filter(Boolean).join(' — ')}</td>
		</tr>`)}</tbody>
	</table>`;
}

export function mapStep(slot, ctx, upload, hooks) {
	const { html, api } = ctx;
	slot.textContent = '';
	slot.append(html`<form class="im-form" aria-labelledby="im-title" novalidate>
	<h3 id="im-title">Match the columns to contact fields</h3>
	<p class="muted">${upload.saved ? 'These columns are matched as you matched them last time.'
		: 'Guessed from the column names; change any of them.'}</p>
	<div class="im-scroll"><table class="table im-columns">
		<thead><tr><th scope="col">Column in the file</th><th scope="col">First row</th><th scope="col">Goes to</th></tr></thead>
		<tbody></tbody>
	</table></div>
	<fieldset class="segmented im-dups">
		<legend>When a row has the e-mail or phone of a contact</legend>
		${DUPLICATES.map(([value, label]) => html`<label><input type="radio" name="duplicates" value="${value}"><span>${label}</span></label>`)}
	</fieldset>
	<div class="im-preview-slot" aria-live="polite"></div>
	<p class="i-actions">
		<button type="submit" class="btn btn-primary">Import</button>
		<button type="button" class="btn" data-back>Choose another file</button>
	</p>
</form>`);
	const form = slot.querySelector('.im-form');
	const body = form.querySelector('tbody');
	const preview = form.querySelector('.im-preview-slot');
	upload.headers.forEach((_, i) => body.append(columnRow(ctx, upload, i)));
	form.querySelector('input[value="' + (upload.duplicates || 'update') + '"]').checked = true;

	function choice() {
		return {
			mapping: [...form.querySelectorAll('select[data-col]')].map((s) => s.value || null),
			duplicates: form.querySelector('input[name="duplicates"]:checked').value,
		};
	}

	let asked = 0;
	async function refresh() {
		const mine = ++asked;
		ctx.ui.clearErrors(form);
		try {
			const got = await api.post('/api/contacts/imports/' + encodeURIComponent(upload.id) + '/preview', choice());
			if (mine !== asked)
				return;
			preview.textContent = '';
			preview.append(previewTable(ctx, upload, got.rows));
		} catch (e) {
			if (mine !== asked)
				return;
			preview.textContent = '';
			preview.append(html`<p class="field-error" role="alert">${e.message}</p>`);
		}
	}

	form.addEventListener('change', refresh);
	form.addEventListener('submit', (e) => {
		e.preventDefault();
		hooks.run(choice(), form);
	});
	form.querySelector('[data-back]').addEventListener('click', () => hooks.back());
	refresh();

	return {
		choice,
		focus() {
			form.querySelector('select').focus();
		},
	};
}
