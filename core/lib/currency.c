/* SPDX-License-Identifier: MIT */
/*
 * currency.c: ISO 4217's active currencies (list one, 2025) with their
 * minor units. Most have two: only the exceptions carry a digit count,
 * in a list of their own; funds and precious metals, which no invoice is
 * written in, are left out.
 */
#include "lib/currency.h"

#include <stdlib.h>
#include <string.h>

/* Sorted, for bsearch. */
static const char codes[][4] = {
	"AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN",
	"BAM", "BBD", "BDT", "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BRL",
	"BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHF", "CLP", "CNY",
	"COP", "CRC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP",
	"ERN", "ETB", "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD",
	"GNF", "GTQ", "GYD", "HKD", "HNL", "HTG", "HUF", "IDR", "ILS", "INR",
	"IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF",
	"KPW", "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL",
	"LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR",
	"MVR", "MWK", "MXN", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR",
	"NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR",
	"RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD",
	"SHP", "SLE", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB",
	"TJS", "TMT", "TND", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX",
	"USD", "UYU", "UZS", "VES", "VND", "VUV", "WST", "XAF", "XCD", "XOF",
	"XPF", "YER", "ZAR", "ZMW", "ZWG",
};

static const struct { char code[4]; int digits; } exceptions[] = {
	{ "BHD", 3 }, { "BIF", 0 }, { "CLP", 0 }, { "DJF", 0 }, { "GNF", 0 },
	{ "IQD", 3 }, { "ISK", 0 }, { "JOD", 3 }, { "JPY", 0 }, { "KMF", 0 },
	{ "KRW", 0 }, { "KWD", 3 }, { "LYD", 3 }, { "OMR", 3 }, { "PYG", 0 },
	{ "RWF", 0 }, { "TND", 3 }, { "UGX", 0 }, { "VND", 0 }, { "VUV", 0 },
	{ "XAF", 0 }, { "XOF", 0 }, { "XPF", 0 },
};

static int compare(const void *a, const void *b)
{
	return strcmp(a, b);
}

int currency_digits(const char *code)
{
	if (!code || strlen(code) != 3 ||
	    !bsearch(code, codes, sizeof(codes) / sizeof(codes[0]), sizeof(codes[0]), compare))
		return -1;
	for (size_t i = 0; i < sizeof(exceptions) / sizeof(exceptions[0]); i++)
		if (!strcmp(exceptions[i].code, code))
			return exceptions[i].digits;
	return 2;
}
