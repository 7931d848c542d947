/* SPDX-License-Identifier: MIT */
/*
 * view.c: an invoice's public page, GET /i/:key, the link its mail
 * carries: the printout a client reads without signing in (the business
 * and its logo, the client and their address, the lines, the totals, the
 * notes and terms), with the PDF to download. The key is 32 random hex
 * digits (invoice_view_key), so pages cannot be guessed or counted; an
 * unknown key is the same 404 whatever is asked. The page is one small
 * answer with no script, its style inline and allowed by its hash alone
 * (hl_reply_csp). Text is escaped as it is written (struct page).
 */
#include "invoices.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

/* The page's style; its hash is in the page's policy (view_init). */
static const char style[] =
	":root{color-scheme:light dark;font:15px/1.45 system-ui,sans-serif}"
	"body{margin:0;background:Canvas;color:CanvasText}"
	"main{max-width:52rem;margin:0 auto;padding:1.5rem}"
	".v-from{display:flex;gap:1rem;align-items:flex-start;justify-content:space-between}"
	".v-from img{max-width:10rem;max-height:5rem}.v-from p{margin:0}"
	".v-lines-text,.v-address{white-space:pre-line}"
	"h1{font-size:1.6rem;margin:1rem 0 .25rem}h2{font-size:1rem;margin:1.25rem 0 .25rem}"
	"dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}"
	"dt{font-weight:600}dd{margin:0}"
	"table{width:100%;border-collapse:collapse;margin:1rem 0}"
	"th,td{padding:.4rem .5rem;border-bottom:1px solid #8884;text-align:left;vertical-align:top}"
	".n{text-align:right;white-space:nowrap}"
	".v-totals{max-width:20rem;margin-left:auto}.v-total{font-weight:700}"
	".v-actions{margin:1.5rem 0}.v-actions a{display:inline-block;padding:.5rem 1rem;"
	"border:1px solid currentColor;border-radius:.4rem;color:inherit}"
	".v-wrap{overflow-x:auto}"
	"@media print{.v-actions{display:none}main{padding:0}}";

static char policy[256];

int invoices_view_init(void)
{
	unsigned char hash[crypto_hash_sha256_BYTES];
	char b64[sodium_base64_ENCODED_LEN(crypto_hash_sha256_BYTES, sodium_base64_VARIANT_ORIGINAL)];
	crypto_hash_sha256(hash, (const unsigned char *)style, sizeof(style) - 1);
	sodium_bin2base64(b64, sizeof(b64), hash, sizeof(hash), sodium_base64_VARIANT_ORIGINAL);
	int n = snprintf(policy, sizeof(policy), "default-src 'none'; style-src 'sha256-%s';"
			 " img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
			 b64);
	return n > 0 && (size_t)n < sizeof(policy) ? 0 : HL_ETOOBIG;
}

const char *invoice_view_key(struct hl_req *req, int64_t id)
{
	unsigned char raw[16];
	char key[33];
	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(key, sizeof(key), raw, sizeof(raw));
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE invoices SET view_key = coalesce(view_key, :key)"
		" WHERE id = :id AND location_id = :location RETURNING view_key");
	hl_bind_text(st, ":key", key);
	hl_bind_int(st, ":id", id);
	if (!st || sqlite3_step(st) != SQLITE_ROW)
		return st ? (sqlite3_reset(st), NULL) : NULL;
	const char *v = hl_sprintf(req, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return v;
}

/* ---- writing the page --------------------------------------------------------- */

struct page {
	struct hl_req *req;
	char *data;
	size_t len, cap;
};

static void put(struct page *p, const char *s, size_t n)
{
	if (p->len + n + 1 > p->cap) {
		size_t cap = (p->cap ? p->cap : 8192);
		while (cap < p->len + n + 1)
			cap *= 2;
		char *grown = hl_alloc(p->req, cap);
		if (p->len)
			memcpy(grown, p->data, p->len);
		p->data = grown, p->cap = cap;
	}
	memcpy(p->data + p->len, s, n);
	p->len += n;
}

static void raw(struct page *p, const char *s)
{
	put(p, s, strlen(s));
}

/* Text, escaped for HTML. */
static void text(struct page *p, const char *s)
{
	raw(p, hl_html_text(p->req, s));
}

/* <tag>label</tag> around escaped text, when the text is not empty. */
static void line(struct page *p, const char *open, const char *s, const char *close)
{
	if (s && *s) {
		raw(p, open);
		text(p, s);
		raw(p, close);
	}
}

/* Currencies whose amounts have no minor unit (amounts are kept in it). */
static int whole_units(const char *currency)
{
	return currency && strlen(currency) == 3 && strstr(INVOICE_WHOLE_UNITS, currency) != NULL;
}

/* The sign of a currency as English prints it ("$", "€"), or NULL: the
 * code is printed instead, as browsers in English show amounts. */
static const char *sign(const char *currency)
{
	static const char *const signs[][2] = {
		{ "USD", "$" }, { "EUR", "€" }, { "GBP", "£" }, { "JPY", "¥" }, { "CAD", "CA$" },
		{ "AUD", "A$" }, { "NZD", "NZ$" }, { "MXN", "MX$" }, { "BRL", "R$" }, { "INR", "₹" },
		{ "CNY", "CN¥" }, { "KRW", "₩" }, { "ILS", "₪" }, { "VND", "₫" }, { "HKD", "HK$" },
	};
	for (size_t i = 0; currency && i < sizeof(signs) / sizeof(signs[0]); i++)
		if (!strcmp(currency, signs[i][0]))
			return signs[i][1];
	return NULL;
}

void invoice_money(char *out, size_t size, int64_t minor, const char *currency)
{
	int whole = whole_units(currency);
	unsigned long long v = (unsigned long long)(minor < 0 ? -minor : minor);
	unsigned long long units = whole ? v : v / 100;
	char digits[32], grouped[48], cents[8] = "";
	int n = snprintf(digits, sizeof(digits), "%llu", units), g = 0;
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			grouped[g++] = ',';
		grouped[g++] = digits[i];
	}
	grouped[g] = 0;
	if (!whole)
		snprintf(cents, sizeof(cents), ".%02llu", v % 100);
	const char *s = sign(currency);
	snprintf(out, size, "%s%s%s%s%s", minor < 0 ? "-" : "", s ? s : currency ? currency : "",
		 s ? "" : "\u00a0", grouped, cents);
}

static void money(struct page *p, int64_t minor, const char *currency)
{
	char m[64];
	invoice_money(m, sizeof(m), minor, currency);
	text(p, m);
}

/* "2026-12-07" as "Dec 7, 2026"; "" stays "". */
void invoice_day(char *out, size_t size, const char *ymd)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int y, m, d;
	if (!ymd || sscanf(ymd, "%4d-%2d-%2d", &y, &m, &d) != 3 || m < 1 || m > 12)
		snprintf(out, size, "%s", "");
	else
		snprintf(out, size, "%.3s %d, %d", months + (m - 1) * 3, d, y);
}

/* The business it comes from, and its logo. */
static void from(struct page *p, const struct invoice_doc *d)
{
	const char *const *t = d->texts;
	raw(p, "<header class=\"v-from\"><div>");
	line(p, "<p><strong>", t[DOC_FROM_NAME], "</strong></p>");
	line(p, "<p class=\"v-address\">", t[DOC_FROM_ADDRESS], "</p>");
	line(p, "<p>", t[DOC_FROM_EMAIL], "</p>");
	line(p, "<p>", t[DOC_FROM_PHONE], "</p>");
	line(p, "<p>Tax ID: ", t[DOC_FROM_TAX_ID], "</p>");
	raw(p, "</div>");
	if (*t[DOC_LOGO_KEY]) {
		raw(p, "<img alt=\"");
		text(p, t[DOC_FROM_NAME]);
		raw(p, "\" src=\"/api/logos/");
		text(p, t[DOC_LOGO_KEY]);
		raw(p, "\">");
	}
	raw(p, "</header>");
}

/* Who it is for, and when. */
static void facts(struct page *p, const struct invoice_doc *d)
{
	const char *const *t = d->texts;
	char issued[32], due[32];
	invoice_day(issued, sizeof(issued), t[DOC_ISSUED]);
	invoice_day(due, sizeof(due), t[DOC_DUE]);
	raw(p, "<dl><dt>Bill to</dt><dd>");
	text(p, *t[DOC_CLIENT] ? t[DOC_CLIENT] : "—");
	line(p, "<br><span class=\"v-address\">", t[DOC_CLIENT_ADDRESS], "</span>");
	line(p, "<br>", t[DOC_CLIENT_EMAIL], "");
	raw(p, "</dd>");
	line(p, "<dt>Issued</dt><dd>", issued, "</dd>");
	line(p, "<dt>Due</dt><dd>", due, "</dd>");
	raw(p, "</dl>");
}

static void lines(struct page *p, const struct invoice_doc *d)
{
	char tax[32];
	raw(p, "<div class=\"v-wrap\" tabindex=\"0\" role=\"region\" aria-label=\"Lines\">"
	    "<table><thead><tr><th scope=\"col\">Description</th>"
	    "<th scope=\"col\" class=\"n\">Qty</th><th scope=\"col\" class=\"n\">Unit price</th>"
	    "<th scope=\"col\" class=\"n\">Discount</th><th scope=\"col\" class=\"n\">Tax</th>"
	    "<th scope=\"col\" class=\"n\">Amount</th></tr></thead><tbody>");
	for (int i = 0; i < d->nlines; i++) {
		const struct invoice_doc_line *l = &d->lines[i];
		line(p, "<tr><td class=\"v-lines-text\">", l->description, "</td>");
		line(p, "<td class=\"n\">", l->quantity, "</td><td class=\"n\">");
		money(p, l->unit_price_cents, d->currency);
		raw(p, "</td><td class=\"n\">");
		if (l->discount_cents)
			money(p, l->discount_cents, d->currency);
		raw(p, "</td><td class=\"n\">");
		snprintf(tax, sizeof(tax), "%g %%", (double)l->tax_rate_bp / 100);
		if (l->tax_rate_bp)
			text(p, tax);
		raw(p, "</td><td class=\"n\">");
		money(p, l->amount_cents, d->currency);
		raw(p, "</td></tr>");
	}
	raw(p, "</tbody></table></div>");
}

static void totals(struct page *p, const struct invoice_doc *d)
{
	static const char *const names[] = { "Subtotal", "Tax", "Total", "Paid" };
	raw(p, "<dl class=\"v-totals\">");
	for (int i = DOC_SUBTOTAL; i <= DOC_PAID; i++) {
		raw(p, i == DOC_TOTAL ? "<dt class=\"v-total\">" : "<dt>");
		raw(p, names[i]);
		raw(p, i == DOC_TOTAL ? "</dt><dd class=\"n v-total\">" : "</dt><dd class=\"n\">");
		money(p, d->cents[i], d->currency);
		raw(p, "</dd>");
	}
	raw(p, "<dt class=\"v-total\">Balance due</dt><dd class=\"n v-total\">");
	if (!strcmp(d->status, "void"))
		raw(p, "Nothing: it is void");
	else
		money(p, d->cents[DOC_BALANCE], d->currency);
	raw(p, "</dd></dl>");
}

/* GET /i/:key: the page; 404 (a page too) for a key that is none. */
int invoices_view(struct hl_req *req)
{
	struct invoice_doc d;
	const char *key = hl_param(req, "key");
	int rc = invoice_doc_load(req, key, &d);
	if (rc == HL_ENOENT) {
		static const char gone[] = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			"<title>Invoice not found</title></head><body><main><h1>Invoice not found</h1>"
			"<p>This link is not one of an invoice. Ask the sender for a new one.</p>"
			"</main></body></html>\n";
		rc = hl_reply_raw(req, 404, "text/html; charset=utf-8", gone, sizeof(gone) - 1);
		return rc ? rc : hl_reply_csp(req, policy);
	}
	if (rc)
		return rc;
	struct page p = { .req = req };
	raw(&p, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	    "<meta name=\"robots\" content=\"noindex\"><link rel=\"icon\" href=\"data:,\">"
	    "<title>Invoice ");
	text(&p, d.number);
	line(&p, " from ", d.texts[DOC_FROM_NAME], "");
	raw(&p, "</title><style>");
	raw(&p, style);
	raw(&p, "</style></head><body><main>");
	from(&p, &d);
	raw(&p, "<h1>Invoice ");
	text(&p, d.number);
	raw(&p, "</h1><p><strong>");
	raw(&p, invoice_status_words(d.status));
	raw(&p, "</strong></p>");
	facts(&p, &d);
	lines(&p, &d);
	totals(&p, &d);
	line(&p, "<h2>Notes</h2><p class=\"v-address\">", d.texts[DOC_NOTES], "</p>");
	line(&p, "<h2>Terms</h2><p class=\"v-address\">", d.texts[DOC_TERMS], "</p>");
	raw(&p, "<p class=\"v-actions\"><a href=\"/i/");
	text(&p, key);
	raw(&p, "/pdf\" download>Download PDF</a></p></main></body></html>\n");
	rc = hl_reply_raw(req, 200, "text/html; charset=utf-8", p.data, p.len);
	return rc ? rc : hl_reply_csp(req, policy);
}
