// SPDX-License-Identifier: MIT
/*
 * segments.js: how many SMS segments a text takes, as a carrier counts
 * them (3GPP TS 23.038). A text of the GSM 7-bit alphabet takes 160
 * characters in one segment, 153 in each of several (the rest of each
 * goes to the header that joins them); a character of the alphabet's
 * extension table (^ { } \ [ ~ ] | €) counts twice. Any other character
 * turns the whole text into UCS-2: 70 in one segment, 67 in each of
 * several, counted in UTF-16 units (an emoji is two).
 */

const GSM = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
	'¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENDED = '^{}\\[~]|€\f';

/* {encoding: 'GSM-7' | 'UCS-2', units, segments, first} for `text`;
 * `first` is the first character outside the GSM alphabet (or ''). */
export function segmentsOf(text) {
	let septets = 0;
	for (const ch of text) {
		if (GSM.includes(ch))
			septets += 1;
		else if (GSM_EXTENDED.includes(ch))
			septets += 2;
		else
			return ucs2(text, ch);
	}
	return { encoding: 'GSM-7', units: septets, segments: count(septets, 160, 153), first: '' };
}

function ucs2(text, first) {
	const units = text.length; /* UTF-16 code units */
	return { encoding: 'UCS-2', units, segments: count(units, 70, 67), first };
}

function count(units, single, each) {
	if (!units)
		return 0;
	return units <= single ? 1 : Math.ceil(units / each);
}

/* What the composer says of `text`: "2 segments (GSM-7, 170 characters)". */
export function segmentsNote(text) {
	const s = segmentsOf(text);
	if (!s.segments)
		return '';
	const what = s.segments + (s.segments === 1 ? ' segment' : ' segments');
	return s.encoding === 'GSM-7'
		? what + ' (GSM-7, ' + s.units + ' characters)'
		: what + ' (Unicode because of “' + s.first + '”, ' + s.units + ' units)';
}
