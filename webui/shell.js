// The app shell (a placeholder until the real one): greets the user and
// offers to sign out.
import { get, post } from './api.js';

function stylesheet(href) {
	const link = document.createElement('link');
	link.rel = 'stylesheet';
	link.href = href;
	document.head.append(link);
}

export async function start(me) {
	stylesheet(new URL('./shell.css', import.meta.url));
	const main = document.getElementById('app');
	const health = await get('/health').catch(() => ({ status: 'unknown' }));
	const heading = document.createElement('h1');
	heading.textContent = `Hello, ${me.user.name || me.user.email}`;
	const status = document.createElement('p');
	status.textContent = `Server ${health.status}.`;
	const out = document.createElement('button');
	out.textContent = 'Sign out';
	out.addEventListener('click', () => post('/auth/logout').then(() => location.reload()));
	main.replaceChildren(heading, status, out);
}
