/* SPDX-License-Identifier: MIT */
/*
 * phone.h: phone numbers in E.164 ("+15550102000"), the form providers
 * send to and report from. A number typed as a sub-account's people write
 * it ("(555) 010-2000", "030 1234567", "+44 20 7946 0958") is read with
 * the sub-account's country: its calling code and its trunk prefix, the
 * digit dialled before a national number at home (0 in most countries,
 * 1 in North America, none in Italy). phone.c holds the countries.
 */
#ifndef HL_PHONE_H
#define HL_PHONE_H

/* "+", at most 15 digits and the NUL. */
#define PHONE_MAX 17

/* Whether `country` is an ISO 3166-1 alpha-2 code ("US") numbers can be
 * read with. */
int phone_country_known(const char *country);

/* `typed` in E.164 into `out`: 0, or -1 when it is not a number. Spaces,
 * dashes, dots, slashes and brackets are skipped; a number that starts
 * with + or an international prefix (00, or 011 in North America) is
 * read as written; another is national, in `country`. */
int phone_e164(const char *typed, const char *country, char out[PHONE_MAX]);

#endif
