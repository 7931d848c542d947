/* SPDX-License-Identifier: MIT */
/*
 * phone.c: the countries of phone.h, each with its calling code (ITU-T
 * E.164's list), and the reading of a typed number. Most countries'
 * trunk prefix is 0: only the exceptions are listed, apart. The check is
 * the shape E.164 gives every number, not each country's own plan: the
 * provider the text goes through tells a number that cannot be reached.
 */
#include "lib/phone.h"

#include <stdlib.h>
#include <string.h>

struct country {
	char code[3];
	char calling[4];
};

/* Sorted by code, for bsearch. */
static const struct country countries[] = {
	{ "AD", "376" }, { "AE", "971" }, { "AF", "93" }, { "AG", "1" }, { "AI", "1" },
	{ "AL", "355" }, { "AM", "374" }, { "AO", "244" }, { "AR", "54" }, { "AS", "1" },
	{ "AT", "43" }, { "AU", "61" }, { "AW", "297" }, { "AX", "358" }, { "AZ", "994" },
	{ "BA", "387" }, { "BB", "1" }, { "BD", "880" }, { "BE", "32" }, { "BF", "226" },
	{ "BG", "359" }, { "BH", "973" }, { "BI", "257" }, { "BJ", "229" }, { "BL", "590" },
	{ "BM", "1" }, { "BN", "673" }, { "BO", "591" }, { "BQ", "599" }, { "BR", "55" },
	{ "BS", "1" }, { "BT", "975" }, { "BW", "267" }, { "BY", "375" }, { "BZ", "501" },
	{ "CA", "1" }, { "CC", "61" }, { "CD", "243" }, { "CF", "236" }, { "CG", "242" },
	{ "CH", "41" }, { "CI", "225" }, { "CK", "682" }, { "CL", "56" }, { "CM", "237" },
	{ "CN", "86" }, { "CO", "57" }, { "CR", "506" }, { "CU", "53" }, { "CV", "238" },
	{ "CW", "599" }, { "CX", "61" }, { "CY", "357" }, { "CZ", "420" }, { "DE", "49" },
	{ "DJ", "253" }, { "DK", "45" }, { "DM", "1" }, { "DO", "1" }, { "DZ", "213" },
	{ "EC", "593" }, { "EE", "372" }, { "EG", "20" }, { "EH", "212" }, { "ER", "291" },
	{ "ES", "34" }, { "ET", "251" }, { "FI", "358" }, { "FJ", "679" }, { "FK", "500" },
	{ "FM", "691" }, { "FO", "298" }, { "FR", "33" }, { "GA", "241" }, { "GB", "44" },
	{ "GD", "1" }, { "GE", "995" }, { "GF", "594" }, { "GG", "44" }, { "GH", "233" },
	{ "GI", "350" }, { "GL", "299" }, { "GM", "220" }, { "GN", "224" }, { "GP", "590" },
	{ "GQ", "240" }, { "GR", "30" }, { "GT", "502" }, { "GU", "1" }, { "GW", "245" },
	{ "GY", "592" }, { "HK", "852" }, { "HN", "504" }, { "HR", "385" }, { "HT", "509" },
	{ "HU", "36" }, { "ID", "62" }, { "IE", "353" }, { "IL", "972" }, { "IM", "44" },
	{ "IN", "91" }, { "IO", "246" }, { "IQ", "964" }, { "IR", "98" }, { "IS", "354" },
	{ "IT", "39" }, { "JE", "44" }, { "JM", "1" }, { "JO", "962" }, { "JP", "81" },
	{ "KE", "254" }, { "KG", "996" }, { "KH", "855" }, { "KI", "686" }, { "KM", "269" },
	{ "KN", "1" }, { "KP", "850" }, { "KR", "82" }, { "KW", "965" }, { "KY", "1" },
	{ "KZ", "7" }, { "LA", "856" }, { "LB", "961" }, { "LC", "1" }, { "LI", "423" },
	{ "LK", "94" }, { "LR", "231" }, { "LS", "266" }, { "LT", "370" }, { "LU", "352" },
	{ "LV", "371" }, { "LY", "218" }, { "MA", "212" }, { "MC", "377" }, { "MD", "373" },
	{ "ME", "382" }, { "MF", "590" }, { "MG", "261" }, { "MH", "692" }, { "MK", "389" },
	{ "ML", "223" }, { "MM", "95" }, { "MN", "976" }, { "MO", "853" }, { "MP", "1" },
	{ "MQ", "596" }, { "MR", "222" }, { "MS", "1" }, { "MT", "356" }, { "MU", "230" },
	{ "MV", "960" }, { "MW", "265" }, { "MX", "52" }, { "MY", "60" }, { "MZ", "258" },
	{ "NA", "264" }, { "NC", "687" }, { "NE", "227" }, { "NF", "672" }, { "NG", "234" },
	{ "NI", "505" }, { "NL", "31" }, { "NO", "47" }, { "NP", "977" }, { "NR", "674" },
	{ "NU", "683" }, { "NZ", "64" }, { "OM", "968" }, { "PA", "507" }, { "PE", "51" },
	{ "PF", "689" }, { "PG", "675" }, { "PH", "63" }, { "PK", "92" }, { "PL", "48" },
	{ "PM", "508" }, { "PR", "1" }, { "PS", "970" }, { "PT", "351" }, { "PW", "680" },
	{ "PY", "595" }, { "QA", "974" }, { "RE", "262" }, { "RO", "40" }, { "RS", "381" },
	{ "RU", "7" }, { "RW", "250" }, { "SA", "966" }, { "SB", "677" }, { "SC", "248" },
	{ "SD", "249" }, { "SE", "46" }, { "SG", "65" }, { "SH", "290" }, { "SI", "386" },
	{ "SJ", "47" }, { "SK", "421" }, { "SL", "232" }, { "SM", "378" }, { "SN", "221" },
	{ "SO", "252" }, { "SR", "597" }, { "SS", "211" }, { "ST", "239" }, { "SV", "503" },
	{ "SX", "1" }, { "SY", "963" }, { "SZ", "268" }, { "TC", "1" }, { "TD", "235" },
	{ "TG", "228" }, { "TH", "66" }, { "TJ", "992" }, { "TK", "690" }, { "TL", "670" },
	{ "TM", "993" }, { "TN", "216" }, { "TO", "676" }, { "TR", "90" }, { "TT", "1" },
	{ "TV", "688" }, { "TW", "886" }, { "TZ", "255" }, { "UA", "380" }, { "UG", "256" },
	{ "US", "1" }, { "UY", "598" }, { "UZ", "998" }, { "VA", "39" }, { "VC", "1" },
	{ "VE", "58" }, { "VG", "1" }, { "VI", "1" }, { "VN", "84" }, { "VU", "678" },
	{ "WF", "681" }, { "WS", "685" }, { "XK", "383" }, { "YE", "967" }, { "YT", "262" },
	{ "ZA", "27" }, { "ZM", "260" }, { "ZW", "263" },
};

/* Trunk prefixes other than 0. North America's (calling code 1) is 1; in
 * the countries with none a leading 0 is part of the number (Italy's
 * 06 for Rome), so it is kept. */
static const struct { char code[3]; char trunk[3]; } trunks[] = {
	{ "AD", "" }, { "BY", "8" }, { "BZ", "" }, { "CL", "" }, { "CR", "" },
	{ "CY", "" }, { "CZ", "" }, { "DK", "" }, { "EE", "" }, { "ES", "" },
	{ "FJ", "" }, { "FO", "" }, { "GL", "" }, { "GR", "" }, { "GT", "" },
	{ "HK", "" }, { "HN", "" }, { "HU", "06" }, { "IS", "" }, { "IT", "" },
	{ "KW", "" }, { "KZ", "8" }, { "LU", "" }, { "LV", "" }, { "MC", "" },
	{ "MO", "" }, { "MT", "" }, { "MU", "" }, { "MV", "" }, { "MX", "" },
	{ "NI", "" }, { "NO", "" }, { "OM", "" }, { "PA", "" }, { "PL", "" },
	{ "PT", "" }, { "QA", "" }, { "RU", "8" }, { "SC", "" }, { "SG", "" },
	{ "SJ", "" }, { "SM", "" }, { "SV", "" }, { "TJ", "8" }, { "TM", "8" },
	{ "VA", "" },
};

static int compare(const void *key, const void *member)
{
	return strcmp(key, ((const struct country *)member)->code);
}

static const struct country *country_of(const char *code)
{
	if (!code || strlen(code) != 2)
		return NULL;
	return bsearch(code, countries, sizeof(countries) / sizeof(countries[0]),
		       sizeof(countries[0]), compare);
}

int phone_country_known(const char *country)
{
	return country_of(country) != NULL;
}

static const char *trunk_of(const struct country *c)
{
	if (!strcmp(c->calling, "1"))
		return "1";
	for (size_t i = 0; i < sizeof(trunks) / sizeof(trunks[0]); i++)
		if (!strcmp(trunks[i].code, c->code))
			return trunks[i].trunk;
	return "0";
}

/* The digits of `typed` into `digits` (at most `cap` - 1), *plus for a
 * leading +; -1 for a character no number is written with. */
static int digits_of(const char *typed, char *digits, size_t cap, int *plus)
{
	size_t n = 0;
	*plus = 0;
	for (const char *p = typed; *p; p++) {
		if (strchr(" \t-./()", *p))
			continue;
		if (*p == '+' && n == 0 && !*plus) {
			*plus = 1;
			continue;
		}
		if (*p < '0' || *p > '9' || n + 1 >= cap)
			return -1;
		digits[n++] = *p;
	}
	digits[n] = '\0';
	return 0;
}

int phone_e164(const char *typed, const char *country, char out[PHONE_MAX])
{
	char d[32];
	int plus;
	if (!typed || digits_of(typed, d, sizeof(d), &plus))
		return -1;
	const struct country *c = country_of(country);
	const char *national = d, *calling = "";
	if (plus)
		;
	else if (!strncmp(d, "00", 2))
		national = d + 2;
	else if (c && !strcmp(c->calling, "1") && !strncmp(d, "011", 3))
		national = d + 3;
	else if (!c)
		return -1;
	else {
		const char *trunk = trunk_of(c);
		size_t t = strlen(trunk);
		if (t && !strncmp(d, trunk, t) && (strcmp(trunk, "1") || strlen(d) == 11))
			national = d + t;
		if (!strcmp(c->calling, "1") && strlen(national) != 10)
			return -1;
		calling = c->calling;
	}
	size_t total = strlen(calling) + strlen(national);
	/* E.164: at most 15 digits, the country code's first not 0; no
	 * country's numbers are shorter than 7 with their code. */
	if (total < 7 || total > 15 || (calling[0] ? calling[0] : national[0]) == '0')
		return -1;
	out[0] = '+';
	strcpy(out + 1, calling);
	strcat(out, national);
	return 0;
}
