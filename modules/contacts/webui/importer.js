// SPDX-License-Identifier: MIT
/*
 * importer.js: the "Import CSV" panel of the contacts list, in three
 * steps. The file goes to POST /api/contacts/imports as the body; its
 * answer (the header, the first rows, a mapping) opens the mapping step
 * (import-map.js), which previews what rows become; Import runs it
 * (POST .../:id/run): a small file's answer is the finished report, a
 * large one's (202) a job whose progress is asked of
 * /api/contacts/imports/:id every second until it is done, failed or
 * cancelled (Cancel asks the server to stop it: what it imported stays).
 * The report: created, updated and skipped rows, each line skipped or
 * merged with its reason, and the columns that were ignored.
 *
 * Loaded by contacts.js when the panel is first opened. default(panel,
 * ctx, lib, hooks) returns {focus, close, leave}; hooks.close() hides the
 * panel, hooks.imported() refreshes the list.
 */

const POLL_MS = 1000;
const ERRORS_SHOWN = 50;

/* The panel's form and the place its report goes. */
function frame(panel, html) {
	panel.append(html`
<div class="i-head">
	<h2 id="i-title">Import contacts from a CSV file</h2>
	<button type="button" class="btn btn-quiet" data-close>Close</button>
</div>
<form class="i-form" aria-labelledby="i-title">
	<p class="muted">The first row names the columns; you match them to contact fields next,
	and see what the first rows become before anything is imported. Exports of GoHighLevel,
	HubSpot, Pipedrive and spreadsheets work as they are; save from a spreadsheet as “CSV UTF-8”.</p>
	<div class="field">
		<label for="i-file">CSV file</label>
		<input id="i-file" name="file" type="file" accept=".csv,text/csv" required>
	</div>
	<button type="submit" class="btn btn-primary">Upload</button>
</form>
<div class="i-map" hidden></div>
<div class="i-status" hidden>
	<p class="i-state" role="status" aria-live="polite"></p>
	<progress class="i-progress" max="1" value="0" aria-label="Import progress"></progress>
	<dl class="i-counts"></dl>
	<div class="i-errors"></div>
	<p class="i-actions"><button type="button" class="btn" data-cancel hidden>Cancel import</button>
		<button type="button" class="btn" data-again hidden>Import another file</button></p>
</div>`);
	return {
		form: panel.querySelector('.i-form'),
		map: panel.querySelector('.i-map'),
		file: panel.querySelector('#i-file'),
		status: panel.querySelector('.i-status'),
		state: panel.querySelector('.i-state'),
		progress: panel.querySelector('.i-progress'),
		counts: panel.querySelector('.i-counts'),
		errors: panel.querySelector('.i-errors'),
		cancel: panel.querySelector('[data-cancel]'),
		again: panel.querySelector('[data-again]'),
	};
}

/* What import `im` did: its counts, the rows it skipped and why, the
 * columns it ignored. */
function report(ctx, el, im) {
	const { html } = ctx;
	const n = (v) => ctx.format.number(Number(v || 0));
	el.counts.textContent = '';
	el.counts.append(html`<div><dt>Added</dt><dd>${n(im.created)}</dd></div>
		<div><dt>Updated</dt><dd>${n(im.updated)}</dd></div>
		<div><dt>Skipped</dt><dd>${n(im.skipped)}</dd></div>`);
	el.errors.textContent = '';
	const lines = (title, list) => {
		if (list.length) {
			el.errors.append(html`<h3>${title}</h3><ul>${list.slice(0, ERRORS_SHOWN).map((e) =>
				html`<li>${'Line ' + e.line + ': ' + e.reason}</li>`)}</ul>
				${list.length > ERRORS_SHOWN ? html`<p class="muted">${'And ' + (list.length - ERRORS_SHOWN) + ' more.'}</p>` : null}`);
		}
	};
	lines('Skipped rows', im.errors || []);
	lines('Merged rows', im.merged || []);
	if ((im.ignored_columns || []).length)
		el.errors.append(html`<p class="muted">${'Ignored columns: ' + im.ignored_columns.join(', ')}</p>`);
}

const STATES = {
	queued: 'Waiting to start…',
	running: 'Importing…',
	done: 'Import finished.',
	failed: 'The import failed.',
	cancelled: 'The import was cancelled; the rows before it stopped are in.',
};

/* The chosen file sent to POST /api/contacts/imports: the upload's
 * answer, or null once what went wrong is shown by the file field. */
async function sendFile(ctx, el) {
	const { api, ui } = ctx;
	ui.clearErrors(el.form);
	const file = el.file.files && el.file.files[0];
	if (!file) {
		ui.formErrors(el.form, { fields: { file: 'choose a CSV file to import' } });
		return null;
	}
	const button = el.form.querySelector('button[type="submit"]');
	button.disabled = true;
	button.textContent = 'Uploading…';
	try {
		return await api.post('/api/contacts/imports', new Blob([file], { type: 'text/csv' }));
	} catch (err) {
		ui.formErrors(el.form, err.status === 422 || err.status === 413 || err.status === 415
			? { fields: { file: err.message } } : err);
		return null;
	} finally {
		button.disabled = false;
		button.textContent = 'Upload';
	}
}

export default function importer(panel, ctx, lib, hooks) {
	const { html, api, ui } = ctx;
	let job = null;    /* the import under way: its id */
	let timer = 0;
	let left = false;

	const el = frame(panel, html);

	function finished(status) {
		return status === 'done' || status === 'failed' || status === 'cancelled';
	}

	function show(im) {
		const done = finished(im.status);
		el.status.hidden = false;
		el.state.textContent = STATES[im.status] || im.status;
		el.progress.value = typeof im.progress === 'number' ? im.progress : 0;
		el.progress.hidden = done;
		report(ctx, el, im);
		el.cancel.hidden = done;
		el.again.hidden = !done;
		el.form.hidden = true;
		if (done) {
			job = null;
			hooks.imported();
		}
	}

	async function poll() {
		if (!job || left)
			return;
		try {
			const im = await api.get('/api/contacts/imports/' + encodeURIComponent(job));
			if (left || !job || String(im.id) !== String(job))
				return;
			show(im);
		} catch (e) {
			if (left)
				return;
			el.state.textContent = 'The progress could not be read (' + e.message + '); trying again.';
		}
		if (job)
			timer = setTimeout(poll, POLL_MS);
	}

	/* Step 1: the file, uploaded; its answer opens the mapping step. */
	el.form.addEventListener('submit', async (e) => {
		e.preventDefault();
		const upload = await sendFile(ctx, el);
		if (left || !upload)
			return;
		const { mapStep } = await import('./import-map.js');
		el.form.hidden = true;
		el.map.hidden = false;
		mapStep(el.map, ctx, upload, { run: (choice, form) => run(upload, choice, form), back: () => drop(upload) }).focus();
	});

	/* Another file instead: the server forgets this one. */
	function drop(upload) {
		api.del('/api/contacts/imports/' + encodeURIComponent(upload.id)).catch(() => {});
		again();
	}

	/* Step 2 done: run it with the mapping chosen. */
	async function run(upload, choice, form) {
		const button = form.querySelector('button[type="submit"]');
		button.disabled = true;
		let im;
		try {
			im = await api.post('/api/contacts/imports/' + encodeURIComponent(upload.id) + '/run', choice);
		} catch (err) {
			if (!left)
				ui.toast('The import could not start: ' + err.message, { kind: 'error' });
			return;
		} finally {
			button.disabled = false;
		}
		if (left)
			return;
		el.map.hidden = true;
		el.map.textContent = '';
		job = im.id;
		show(im);
		if (job)
			timer = setTimeout(poll, POLL_MS);
		el.state.focus();
	}

	el.cancel.addEventListener('click', async () => {
		if (!job)
			return;
		el.cancel.disabled = true;
		try {
			const im = await api.del('/api/contacts/imports/' + encodeURIComponent(job));
			/* The answer is the import as it now is; a final one ends the
			 * polling (show() forgets the job), else polling goes on. */
			if (im) {
				clearTimeout(timer);
				show(im);
				if (job)
					timer = setTimeout(poll, POLL_MS);
			}
		} catch (err) {
			if (err.status !== 409) /* finished already: the next poll says so */
				ui.toast('The import could not be cancelled: ' + err.message, { kind: 'error' });
		}
		el.cancel.disabled = false;
	});

	function again() {
		el.status.hidden = true;
		el.map.hidden = true;
		el.map.textContent = '';
		el.form.hidden = false;
		el.form.reset();
		el.file.focus();
	}
	el.again.addEventListener('click', again);

	const close = () => hooks.close();
	panel.querySelector('[data-close]').addEventListener('click', close);
	panel.addEventListener('keydown', (e) => {
		if (e.key === 'Escape')
			close();
	});
	el.state.tabIndex = -1;

	return {
		focus() {
			(el.form.hidden ? (el.map.hidden ? el.state : el.map.querySelector('select') || el.state) : el.file).focus();
		},
		close,
		leave() {
			left = true;
			clearTimeout(timer);
		},
	};
}
