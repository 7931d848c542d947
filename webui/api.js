// The one data layer (a placeholder until the real one): JSON in and out,
// errors as ApiError.
export class ApiError extends Error {
	constructor(status, body) {
		super((body.error && body.error.message) || `HTTP ${status}`);
		this.status = status;
		this.code = body.error && body.error.code;
	}
}

async function call(method, path, body) {
	const r = await fetch('/api' + path, {
		method,
		headers: body ? { 'Content-Type': 'application/json' } : {},
		body: body ? JSON.stringify(body) : undefined,
	});
	const answer = r.status === 204 ? {} : await r.json();
	if (!r.ok)
		throw new ApiError(r.status, answer);
	return answer;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body);
