// The app shell: for now it shows whether the server answers.
const status = document.getElementById('status');
fetch('/api/health')
	.then((r) => r.json())
	.then((h) => { status.textContent = `Server ${h.status}, version ${h.version}.`; })
	.catch(() => { status.textContent = 'The server does not answer.'; });
