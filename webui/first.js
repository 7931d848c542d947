// The login page's script, inlined into index.html: it signs in, then
// loads the shell. A session already open skips the form.
const form = document.getElementById('login');
const error = document.getElementById('login-error');

function openShell(me) {
	return import('./shell.js').then((shell) => shell.start(me));
}

fetch('/api/auth/me', { credentials: 'same-origin' })
	.then((r) => (r.ok ? r.json().then(openShell) : null))
	.catch(() => null);

form.addEventListener('submit', async (event) => {
	event.preventDefault();
	error.textContent = '';
	const body = JSON.stringify({ email: form.email.value, password: form.password.value });
	try {
		const r = await fetch('/api/auth/login', {
			method: 'POST', headers: { 'Content-Type': 'application/json' }, body,
		});
		const answer = await r.json();
		if (r.ok)
			await openShell(answer);
		else
			error.textContent = answer.error ? answer.error.message : 'Sign-in failed.';
	} catch (e) {
		error.textContent = 'The server does not answer.';
	}
});
