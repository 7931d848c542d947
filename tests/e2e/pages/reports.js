// SPDX-License-Identifier: MIT
// A test page that keeps a timer while it is open and stops it when left.
export default function page(view, ctx) {
	ctx.title('Reports');
	view.append(ctx.html`<h1>Reports</h1><p class="ticks">0</p>`);
	const ticks = view.querySelector('.ticks');
	const timer = setInterval(() => { ticks.textContent = String(+ticks.textContent + 1); }, 100);
	window.reportsOpen = (window.reportsOpen || 0) + 1;
	return () => {
		clearInterval(timer);
		window.reportsOpen--;
	};
}
