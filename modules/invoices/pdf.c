/* SPDX-License-Identifier: MIT */
/*
 * pdf.c: an invoice as a PDF, laid out as its printout is (view.c): the
 * business and its logo, the invoice's number and state, the client,
 * the lines, the totals, the notes and terms; on US Letter for a
 * sub-account in the US or Canada, else A4. Drawn with cairo's PDF
 * surface and pango's text layout (any script, lines wrapped, fonts from
 * fontconfig), into the request's memory, within the request: a page
 * takes a few milliseconds. A PNG or JPEG logo is drawn; a WebP one is
 * left out (cairo reads none). GET /api/invoices/:id/pdf for the app, GET
 * /i/:key/pdf for the client; both are downloads named by the number.
 *
 * Pango's font map is made once and shared: PDFs are drawn one at a time
 * (pdf_lock), so no civetweb thread keeps a font map of its own. A
 * request waits for its turn at most LOCK_WAIT_MS, holding no database
 * reader (the invoice is in its memory by then), then is told to come
 * back (503 with Retry-After): a crowd asking for PDFs keeps its own
 * threads waiting, never the rest of the server's readers.
 */
#include "invoices.h"

#include <cairo-pdf.h>
#include <pango/pangocairo.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#define MARGIN 48.0
#define FONT "DejaVu Sans, sans-serif"
#define LOCK_WAIT_MS 1000 /* a page takes a few ms: a second is a long queue */

static pthread_mutex_t pdf_lock = PTHREAD_MUTEX_INITIALIZER;
static PangoFontMap *fonts; /* under pdf_lock; made on first use, kept */

struct out {
	struct hl_req *req;
	unsigned char *data;
	size_t len, cap;
};

static cairo_status_t collect(void *closure, const unsigned char *data, unsigned int n)
{
	struct out *o = closure;
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 16384;
		while (cap < o->len + n)
			cap *= 2;
		unsigned char *grown = hl_alloc(o->req, cap);
		if (o->len)
			memcpy(grown, o->data, o->len);
		o->data = grown, o->cap = cap;
	}
	memcpy(o->data + o->len, data, n);
	o->len += n;
	return CAIRO_STATUS_SUCCESS;
}

/* The pen: where the next block goes on the page being drawn. */
struct pen {
	struct hl_req *req;
	cairo_t *cr;
	PangoLayout *layout;
	double width, height, y;
};

/* `text` at x, the pen's y, `w` wide (wrapped), aligned; its height. */
static double put(struct pen *p, double x, double w, const char *text, const char *font,
		  PangoAlignment align)
{
	PangoFontDescription *f = pango_font_description_from_string(font);
	pango_layout_set_font_description(p->layout, f);
	pango_font_description_free(f);
	pango_layout_set_width(p->layout, (int)(w * PANGO_SCALE));
	pango_layout_set_alignment(p->layout, align);
	pango_layout_set_text(p->layout, text ? text : "", -1);
	int pw, ph;
	pango_layout_get_size(p->layout, &pw, &ph);
	cairo_move_to(p->cr, x, p->y);
	pango_cairo_show_layout(p->cr, p->layout);
	return (double)ph / PANGO_SCALE;
}

/* A new page when less than `need` points are left. */
static void room(struct pen *p, double need)
{
	if (p->y + need > p->height - MARGIN) {
		cairo_show_page(p->cr);
		p->y = MARGIN;
	}
}

static void rule(struct pen *p)
{
	cairo_set_line_width(p->cr, 0.5);
	cairo_move_to(p->cr, MARGIN, p->y);
	cairo_line_to(p->cr, p->width - MARGIN, p->y);
	cairo_stroke(p->cr);
}

static const char *money(struct pen *p, int64_t minor, const char *currency)
{
	char m[64];
	invoice_money(m, sizeof(m), minor, currency);
	return hl_sprintf(p->req, "%s", m);
}

static cairo_status_t read_logo(void *closure, unsigned char *data, unsigned int n)
{
	struct out *in = closure; /* data, len: what is left to read */
	if (n > in->len)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, in->data, n);
	in->data += n, in->len -= n;
	return CAIRO_STATUS_SUCCESS;
}

/* A JPEG's width and height, from its frame header (SOFn): 1, or 0. */
static int jpeg_size(const unsigned char *b, size_t len, int *w, int *h)
{
	for (size_t i = 2; i + 9 < len && b[i] == 0xff;) {
		unsigned m = b[i + 1];
		if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
			*h = b[i + 5] << 8 | b[i + 6];
			*w = b[i + 7] << 8 | b[i + 8];
			return *w > 0 && *h > 0;
		}
		i += 2 + ((size_t)b[i + 2] << 8 | b[i + 3]);
	}
	return 0;
}

/* The logo as cairo reads it: a PNG decoded, a JPEG as its own bytes
 * (the PDF embeds them as they are; the pixels are never drawn), NULL for
 * a WebP (cairo reads none: left out of the PDF) or what fails. */
static cairo_surface_t *logo_surface(const struct invoice_doc *d)
{
	int w, h;
	if (!strcmp(d->logo_type, "image/png")) {
		struct out in = { .data = (unsigned char *)d->logo, .len = d->logo_len };
		return cairo_image_surface_create_from_png_stream(read_logo, &in);
	}
	if (strcmp(d->logo_type, "image/jpeg") || !jpeg_size(d->logo, d->logo_len, &w, &h) ||
	    w > 4096 || h > 4096)
		return NULL;
	cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	/* the bytes live in the request's memory, past the PDF's end */
	cairo_surface_set_mime_data(img, CAIRO_MIME_TYPE_JPEG, d->logo, d->logo_len, NULL, NULL);
	return img;
}

/* The logo at the top right, at most 140 x 70 points. */
static void logo(struct pen *p, const struct invoice_doc *d)
{
	cairo_surface_t *img = d->logo_len ? logo_surface(d) : NULL;
	if (!img)
		return;
	int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
	if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS && w > 0 && h > 0) {
		double scale = 140.0 / w < 70.0 / h ? 140.0 / w : 70.0 / h;
		cairo_save(p->cr);
		cairo_translate(p->cr, p->width - MARGIN - w * scale, MARGIN);
		cairo_scale(p->cr, scale, scale);
		cairo_set_source_surface(p->cr, img, 0, 0);
		cairo_paint(p->cr);
		cairo_restore(p->cr);
	}
	cairo_surface_destroy(img);
}

/* The business, the number, the state and the client. */
static void head(struct pen *p, const struct invoice_doc *d)
{
	const char *const *t = d->texts;
	double w = p->width - 2 * MARGIN - 160;
	char issued[32], due[32];
	logo(p, d);
	p->y += put(p, MARGIN, w, t[DOC_FROM_NAME], FONT " Bold 13", PANGO_ALIGN_LEFT);
	for (int i = DOC_FROM_ADDRESS; i <= DOC_FROM_TAX_ID; i++)
		if (*t[i])
			p->y += put(p, MARGIN, w, i == DOC_FROM_TAX_ID
				    ? hl_sprintf(p->req, "Tax ID: %s", t[i]) : t[i], FONT " 9", PANGO_ALIGN_LEFT);
	p->y = (p->y < MARGIN + 78 ? MARGIN + 78 : p->y) + 16;
	p->y += put(p, MARGIN, 400, hl_sprintf(p->req, "Invoice %s", d->number), FONT " Bold 18",
		    PANGO_ALIGN_LEFT) + 2;
	p->y += put(p, MARGIN, 400, invoice_status_words(d->status), FONT " Bold 10", PANGO_ALIGN_LEFT) + 12;
	invoice_day(issued, sizeof(issued), t[DOC_ISSUED]);
	invoice_day(due, sizeof(due), t[DOC_DUE]);
	const char *client = hl_sprintf(p->req, "%s%s%s%s%s", *t[DOC_CLIENT] ? t[DOC_CLIENT] : "—",
		*t[DOC_CLIENT_ADDRESS] ? "\n" : "", t[DOC_CLIENT_ADDRESS],
		*t[DOC_CLIENT_EMAIL] ? "\n" : "", t[DOC_CLIENT_EMAIL]);
	put(p, MARGIN, 60, "Bill to", FONT " 9", PANGO_ALIGN_LEFT);
	double h = put(p, MARGIN + 64, 220, client, FONT " 10", PANGO_ALIGN_LEFT);
	put(p, p->width / 2 + 40, 60, *issued ? "Issued" : "", FONT " 9", PANGO_ALIGN_LEFT);
	put(p, p->width / 2 + 104, 140, issued, FONT " 10", PANGO_ALIGN_LEFT);
	p->y += 16;
	put(p, p->width / 2 + 40, 60, *due ? "Due" : "", FONT " 9", PANGO_ALIGN_LEFT);
	put(p, p->width / 2 + 104, 140, due, FONT " 10", PANGO_ALIGN_LEFT);
	p->y += (h > 16 ? h - 16 : 0) + 20;
}

/* Columns of the lines: description, then five numbers set right. */
static const struct { const char *name; double width; } cols[] = {
	{ "Description", 0 }, { "Qty", 40 }, { "Unit price", 82 }, { "Discount", 70 },
	{ "Tax", 48 }, { "Amount", 84 },
};

static double row(struct pen *p, const char *const cell[6], const char *font)
{
	double right = p->width - MARGIN, h = 0;
	for (int i = 5; i >= 1; i--) {
		right -= cols[i].width;
		/* the last column ends at the margin, the others 8 points short */
		double ch = put(p, right, cols[i].width - (i < 5 ? 8 : 0), cell[i], font,
				PANGO_ALIGN_RIGHT);
		h = ch > h ? ch : h;
	}
	double ch = put(p, MARGIN, right - MARGIN - 8, cell[0], font, PANGO_ALIGN_LEFT);
	return ch > h ? ch : h;
}

static void table(struct pen *p, const struct invoice_doc *d)
{
	const char *heads[6];
	for (int i = 0; i < 6; i++)
		heads[i] = cols[i].name;
	p->y += row(p, heads, FONT " Bold 9") + 4;
	rule(p);
	p->y += 6;
	for (int i = 0; i < d->nlines; i++) {
		const struct invoice_doc_line *l = &d->lines[i];
		const char *cell[6] = { l->description, l->quantity,
			money(p, l->unit_price_cents, d->currency),
			l->discount_cents ? money(p, l->discount_cents, d->currency) : "",
			l->tax_rate_bp ? hl_sprintf(p->req, "%g %%", (double)l->tax_rate_bp / 100) : "",
			money(p, l->amount_cents, d->currency) };
		room(p, 30);
		p->y += row(p, cell, FONT " 10") + 6;
	}
	rule(p);
	p->y += 10;
}

static void totals(struct pen *p, const struct invoice_doc *d)
{
	static const char *const names[] = { "Subtotal", "Tax", "Total", "Paid" };
	double x = p->width - MARGIN - 220;
	room(p, 100);
	for (int i = DOC_SUBTOTAL; i <= DOC_BALANCE; i++) {
		const char *font = i == DOC_TOTAL || i == DOC_BALANCE ? FONT " Bold 10" : FONT " 10";
		put(p, x, 120, i == DOC_BALANCE ? "Balance due" : names[i], font, PANGO_ALIGN_LEFT);
		p->y += put(p, x + 100, 120, i == DOC_BALANCE && !strcmp(d->status, "void")
			    ? "Nothing: it is void" : money(p, d->cents[i], d->currency), font,
			    PANGO_ALIGN_RIGHT) + 4;
	}
	p->y += 12;
}

/* A heading and its text, when there is text. */
static void said(struct pen *p, const char *title, const char *text)
{
	if (!*text)
		return;
	room(p, 40);
	p->y += put(p, MARGIN, 300, title, FONT " Bold 10", PANGO_ALIGN_LEFT) + 2;
	p->y += put(p, MARGIN, p->width - 2 * MARGIN, text, FONT " 10", PANGO_ALIGN_LEFT) + 12;
}

static void draw(struct pen *p, const struct invoice_doc *d)
{
	cairo_set_source_rgb(p->cr, 0, 0, 0);
	head(p, d);
	table(p, d);
	totals(p, d);
	said(p, "Notes", d->texts[DOC_NOTES]);
	said(p, "Terms", d->texts[DOC_TERMS]);
}

/* pdf_lock, waiting at most LOCK_WAIT_MS: 0, or HL_ESTATE (busy; not taken). */
static int take_turn(void)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)LOCK_WAIT_MS % 1000 * 1000000;
	until.tv_sec += LOCK_WAIT_MS / 1000 + until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	return pthread_mutex_timedlock(&pdf_lock, &until) ? HL_ESTATE : 0;
}

int invoice_pdf(struct hl_req *req, const struct invoice_doc *d, const void **pdf, size_t *len)
{
	struct out o = { .req = req };
	struct pen p = { .req = req, .width = d->letter ? 612 : 595.28,
			 .height = d->letter ? 792 : 841.89, .y = MARGIN };
	if (take_turn())
		return HL_ESTATE;
	if (!fonts)
		fonts = pango_cairo_font_map_new();
	cairo_surface_t *surface = cairo_pdf_surface_create_for_stream(collect, &o, p.width, p.height);
	cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE,
				       hl_sprintf(req, "Invoice %s", d->number));
	/* no creation time: the same invoice gives the same bytes, so a copy
	 * kept or compared tells a change of the invoice, not of the clock */
	cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, "");
	p.cr = cairo_create(surface);
	PangoContext *context = pango_font_map_create_context(fonts);
	pango_cairo_update_context(p.cr, context);
	p.layout = pango_layout_new(context);
	draw(&p, d);
	g_object_unref(p.layout);
	g_object_unref(context);
	cairo_destroy(p.cr);
	cairo_surface_finish(surface);
	cairo_status_t status = cairo_surface_status(surface);
	cairo_surface_destroy(surface);
	pthread_mutex_unlock(&pdf_lock);
	if (status != CAIRO_STATUS_SUCCESS) {
		hl_log("invoices", "a PDF could not be made: %s", cairo_status_to_string(status));
		return HL_EIO;
	}
	*pdf = o.data;
	*len = o.len;
	return 0;
}

/* The download's name: the number as a file name may be ("INV/2026 7"
 * is "INV_2026_7.pdf"), each other character (a UTF-8 one whole) "_". */
static const char *file_name(struct hl_req *req, const char *number)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
	char name[101];
	size_t n = 0;
	for (const char *c = *number ? number : "invoice"; *c && n < sizeof(name) - 5; c++)
		if ((*c & 0xc0) != 0x80) { /* a UTF-8 character's first byte */
			name[n] = strchr(plain, *c) && (n || *c != '.') ? *c : '_';
			n++;
		}
	memcpy(name + n, ".pdf", 5);
	return hl_sprintf(req, "%s", name);
}

static int answer(struct hl_req *req, int rc, const struct invoice_doc *d)
{
	const void *pdf;
	size_t len;
	if (rc == HL_ENOENT)
		return hl_reply_error(req, 404, "not_found", "no such invoice");
	if (rc)
		return rc;
	hl_read_end(req); /* `d` is in the request's memory: nobody waits on us for a reader */
	if ((rc = invoice_pdf(req, d, &pdf, &len)) == HL_ESTATE)
		return hl_reply_error(req, 503, "busy", "other PDFs are being made; try again in a moment");
	if (rc || (rc = hl_reply_raw(req, 200, "application/pdf", pdf, len)))
		return rc;
	return hl_reply_download(req, file_name(req, d->number));
}

/* GET /api/invoices/:id/pdf */
int invoices_pdf(struct hl_req *req)
{
	struct invoice_doc d;
	int64_t id;
	int rc = hl_param_id(req, "id", &id);
	return rc ? rc : answer(req, invoice_doc_load_id(req, id, &d), &d);
}

/* GET /i/:key/pdf: the client's, by the page's key. */
int invoices_view_pdf(struct hl_req *req)
{
	struct invoice_doc d;
	return answer(req, invoice_doc_load(req, hl_param(req, "key"), &d), &d);
}
