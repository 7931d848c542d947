// SPDX-License-Identifier: MIT
/*
 * format.js: how every page writes figures, dates and links, once, for
 * the sub-account it shows (a page gets them as ctx.format, and in-app
 * links as ctx.href). createFormat(location) binds them to the
 * sub-account's currency and time zone ({id, timezone, currency}; "USD"
 * and "UTC" when it names none):
 *
 *   money(minor)          an amount of the sub-account's currency, given in
 *                         its minor units (the API's *_cents: cents for USD,
 *                         yen for JPY): "$3,250.50", and "$292,239" when the
 *                         amount has no minor part. One rounding: none, the
 *                         minor units are shown as they are. money(minor,
 *                         "GBP") is the same in another currency, for the
 *                         agency's screens, where each sub-account has its own.
 *   moneyCompact(minor)   "$1.2K": for chart axes only, where room is short
 *                         (a currency too, as money's)
 *   amount(minor)         the same amount as a form's field holds it ("3250.50")
 *   minor(text)           an amount typed ("1,250.50") in minor units, or NaN
 *   number(n)             1,234
 *   plural(n, one, many)  "1 deal", "1,234 deals"
 *   day(iso)              "May 1, 2026" ('' when there is none); a bare
 *                         "YYYY-MM-DD" is that calendar day
 *   dayShort(iso)         "May 1"
 *   time(iso)             "3:05 PM"
 *   moment(iso)           "May 1, 2026, 3:05 PM"
 *   longDay(iso)          "Friday, May 1" (now when none is given)
 *   when(iso)             the time when it is today, else dayShort
 *   age(iso)              how long ago, short: "today", "3 d", "5 wk", "4 mo"
 *   dayKey(t)             "YYYY-MM-DD", the day instant t (ms or ISO) falls on
 *   days(from, count)     [start, end) of `count` days from day `from` (0:
 *                         today, 1: tomorrow), as ISO instants
 *   field(iso)            a datetime-local field's value ("2026-05-01T15:05")
 *   fromField(value)      that value read back as an ISO instant
 *
 * Every date is shown, and every day begins, in the sub-account's time
 * zone, never the browser's. appHref(path, locationId) is the shell's URL
 * of an app page; ctx.href(path) the same in the current sub-account
 * (ctx.href(path, id) in another: the agency's pages).
 */

const APP = '/app';
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/* The URL of the app's page at `path` ("/contacts/12", or with a query:
 * "/opportunities?pipeline=3") in sub-account `locationId` (none: null). */
export function appHref(path, locationId) {
	const url = APP + (path === '/' ? '' : path);
	if (locationId == null)
		return url;
	return url + (url.indexOf('?') < 0 ? '?' : '&') + 'location=' + encodeURIComponent(locationId);
}

/* A formatter of Intl, or the plain one when the runtime refuses the
 * options (an unknown currency or zone from the server). */
function safely(make, plain) {
	try {
		return make();
	} catch (e) {
		return plain();
	}
}

/* The formats of `currency`: with its minor units, whole, and compact;
 * `digits` its minor digits (2 for USD, 0 for JPY), as Intl knows them. */
const currencies = new Map();

function currencyFormats(currency) {
	let c = currencies.get(currency);
	if (c)
		return c;
	const money = safely(() => new Intl.NumberFormat(undefined, { style: 'currency', currency }),
		() => new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' }));
	const code = money.resolvedOptions().currency;
	const whole = new Intl.NumberFormat(undefined, { style: 'currency', currency: code,
		minimumFractionDigits: 0, maximumFractionDigits: 0 });
	const compact = safely(() => new Intl.NumberFormat(undefined, {
		style: 'currency', currency: code, notation: 'compact', maximumFractionDigits: 1,
	}), () => whole);
	const digits = money.resolvedOptions().maximumFractionDigits;
	c = { code, money, whole, compact, digits, scale: Math.pow(10, digits) };
	currencies.set(currency, c);
	return c;
}

/* `minor` minor units of currency c: the minor part shown when there is one. */
function moneyOf(c, minor) {
	const n = Number(minor) || 0;
	return (n % c.scale ? c.money : c.whole).format(n / c.scale);
}

/* iso (or ms) as a Date (a bare day: its midnight in UTC), or null. */
function dateOf(t) {
	if (t == null || t === '')
		return null;
	const d = new Date(typeof t === 'string' && DATE_ONLY.test(t) ? t + 'T00:00:00Z' : t);
	return isNaN(d) ? null : d;
}

const pad = (n) => String(n).padStart(2, '0');

/* A time zone's clock: its formats of days and times, wall(ms) the clock
 * at an instant, instant(...) the instant the clock reads a time. */
function clockOf(timeZone) {
	const dates = (options) => safely(() => new Intl.DateTimeFormat(undefined, Object.assign({ timeZone }, options)),
		() => new Intl.DateTimeFormat(undefined, Object.assign({}, options, { timeZone: 'UTC' })));
	const calendar = (options) => new Intl.DateTimeFormat(undefined, Object.assign({}, options, { timeZone: 'UTC' }));
	const day = { year: 'numeric', month: 'short', day: 'numeric' };
	const parts = dates({ year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit',
		minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
	const clock = {
		zone: dates({}).resolvedOptions().timeZone,
		/* each: [in the zone, for a bare day] */
		formats: {
			day: [dates(day), calendar(day)],
			dayShort: [dates({ month: 'short', day: 'numeric' }), calendar({ month: 'short', day: 'numeric' })],
			time: [dates({ hour: 'numeric', minute: '2-digit' })],
			moment: [dates({ dateStyle: 'medium', timeStyle: 'short' })],
			longDay: [dates({ weekday: 'long', month: 'long', day: 'numeric' })],
		},
		/* The wall clock at instant `ms`: {y, m, d, h, mi, s}. */
		wall(ms) {
			const w = {};
			for (const x of parts.formatToParts(new Date(ms)))
				w[x.type] = Number(x.value);
			return { y: w.year, m: w.month, d: w.day, h: w.hour % 24, mi: w.minute, s: w.second };
		},
		/* The instant the clock reads y-m-d h:mi (days and months may
		 * overflow, as Date.UTC takes them). */
		instant(y, m, d, h, mi) {
			const guess = Date.UTC(y, m - 1, d, h, mi);
			const offset = (ms) => {
				const w = clock.wall(ms);
				return Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s) - Math.floor(ms / 1000) * 1000;
			};
			const at = guess - offset(guess);
			const again = guess - offset(at);
			return again !== at ? again : at; /* the offset changed in between: a clock change */
		},
		/* "YYYY-MM-DD", the day instant t (ms or ISO; now when none) falls on. */
		dayKey(t) {
			const d = dateOf(t === undefined ? Date.now() : t);
			if (!d)
				return '';
			const w = clock.wall(d.getTime());
			return w.y + '-' + pad(w.m) + '-' + pad(w.d);
		},
		show(name, t) {
			const d = dateOf(t);
			if (!d)
				return '';
			const [zoned, bare] = clock.formats[name];
			return (bare && typeof t === 'string' && DATE_ONLY.test(t) ? bare : zoned).format(d);
		},
	};
	return clock;
}

/* How long ago instant t was, short, counted in the zone's days. */
function ageOf(clock, t) {
	const d = dateOf(t);
	const days = d ? Math.round((Date.parse(clock.dayKey(Date.now())) - Date.parse(clock.dayKey(d.getTime()))) / 86400000) : 0;
	if (!(days >= 1))
		return 'today';
	if (days < 14)
		return days + ' d';
	if (days < 60)
		return Math.floor(days / 7) + ' wk';
	if (days < 730)
		return Math.floor(days / 30) + ' mo';
	return Math.floor(days / 365) + ' yr';
}

/* An amount typed ("1,250.50") in minor units of currency c, or NaN. */
function minorOf(c, text) {
	const t = String(text).replace(/[\s,]/g, '');
	const m = c.digits ? new RegExp('^\\d+(\\.\\d{0,' + c.digits + '})?$') : /^\d+$/;
	if (!m.test(t))
		return NaN;
	const [units, fraction] = t.split('.');
	return Number(units) * c.scale + Number(((fraction || '') + '0'.repeat(c.digits)).slice(0, c.digits) || 0);
}

export function createFormat(location) {
	const where = location || {};
	const own = currencyFormats(where.currency || 'USD');
	const clock = clockOf(where.timezone || 'UTC');
	const count = new Intl.NumberFormat(undefined);
	const { wall, instant, dayKey, show } = clock;
	return {
		currency: own.code,
		timeZone: clock.zone,
		digits: own.digits,
		money: (minor, currency) => moneyOf(currency ? currencyFormats(currency) : own, minor),
		moneyCompact(minor, currency) {
			const c = currency ? currencyFormats(currency) : own;
			return c.compact.format((Number(minor) || 0) / c.scale);
		},
		amount(minor) {
			const n = Number(minor) || 0;
			return (n / own.scale).toFixed(n % own.scale ? own.digits : 0);
		},
		minor: (text) => minorOf(own, text),
		number: (n) => count.format(n || 0),
		plural: (n, one, many) => count.format(n || 0) + ' ' + (n === 1 ? one : many),
		day: (t) => show('day', t),
		dayShort: (t) => show('dayShort', t),
		time: (t) => show('time', t),
		moment: (t) => show('moment', t),
		longDay: (t) => show('longDay', t === undefined ? Date.now() : t),
		when(t) {
			const d = dateOf(t);
			if (!d)
				return '';
			return dayKey(d.getTime()) === dayKey(Date.now()) ? show('time', t) : show('dayShort', t);
		},
		age: (t) => ageOf(clock, t),
		dayKey,
		days(from, n) {
			const w = wall(Date.now());
			return [new Date(instant(w.y, w.m, w.d + from, 0, 0)).toISOString(),
				new Date(instant(w.y, w.m, w.d + from + n, 0, 0)).toISOString()];
		},
		field(t) {
			const d = dateOf(t);
			if (!d)
				return '';
			const w = wall(d.getTime());
			return w.y + '-' + pad(w.m) + '-' + pad(w.d) + 'T' + pad(w.h) + ':' + pad(w.mi);
		},
		fromField(value) {
			const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(value || '');
			return m ? new Date(instant(+m[1], +m[2], +m[3], +(m[4] || 0), +(m[5] || 0))).toISOString() : null;
		},
	};
}
