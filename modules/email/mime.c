/* SPDX-License-Identifier: MIT */
/*
 * mime.c: a message as the mail programs that read it expect (RFC 5322
 * and MIME, RFCs 2045 to 2047): the headers, then a multipart/alternative
 * of the text as written (Markdown reads well as plain text) and its
 * HTML, rendered by cmark with raw HTML left out. Both parts are UTF-8,
 * quoted-printable, so every line is short and ASCII whatever the text.
 * A header value that is not printable ASCII (a name in another script,
 * a subject with an emoji, or a CR or LF that would start a header of its
 * own) is written as RFC 2047 encoded words, which decode to the same
 * text and can hold no line break.
 */
#include "email.h"

#include <cmark.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_HEADER 78   /* RFC 5322's "SHOULD" for a line */
#define QP_LINE 76           /* RFC 2045's limit for an encoded line */

static int printable_ascii(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return 0;
	return 1;
}

int mail_name_ok(const char *name)
{
	if (strlen(name) > 200)
		return 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/* `s` as encoded words of at most 75 characters, each holding whole
 * UTF-8 characters, folded onto lines of their own. A control character
 * becomes a space: a header holds one line of text. */
static void encoded_words(FILE *f, const char *s)
{
	size_t n = strlen(s), at = 0;
	while (at < n) {
		size_t take = n - at > 45 ? 45 : n - at;
		while (at + take < n && take > 1 && ((unsigned char)s[at + take] & 0xc0) == 0x80)
			take--;
		unsigned char chunk[45];
		for (size_t i = 0; i < take; i++) {
			unsigned char c = (unsigned char)s[at + i];
			chunk[i] = c < 0x20 || c == 0x7f ? ' ' : c;
		}
		char b64[sodium_base64_ENCODED_LEN(45, sodium_base64_VARIANT_ORIGINAL)];
		sodium_bin2base64(b64, sizeof(b64), chunk, take, sodium_base64_VARIANT_ORIGINAL);
		fprintf(f, "%s=?UTF-8?B?%s?=", at ? "\r\n " : "", b64);
		at += take;
	}
}

/* An unstructured header (Subject): as written when it is printable
 * ASCII, folded at spaces; else as encoded words. */
static void text_header(FILE *f, const char *name, const char *value)
{
	fprintf(f, "%s: ", name);
	if (!printable_ascii(value)) {
		encoded_words(f, value);
	} else {
		/* no trailing space: a fold before it would leave a line of
		 * nothing but white space, which ends the headers for some */
		const char *end = value + strlen(value);
		while (end > value && end[-1] == ' ')
			end--;
		size_t col = strlen(name) + 2;
		const char *p = value;
		while (p < end) {
			const char *space = memchr(p + 1, ' ', (size_t)(end - p - 1));
			size_t word = space ? (size_t)(space - p) : (size_t)(end - p);
			if (col + word > LINE_MAX_HEADER && p != value && *p == ' ') {
				fputs("\r\n", f);
				col = 0;
			}
			fwrite(p, 1, word, f);
			col += word;
			p += word;
		}
	}
	fputs("\r\n", f);
}

/* An address header: `name` <address>, the name a quoted string when it
 * is printable ASCII, else encoded words; the address alone without one.
 * Addresses were checked (hl_is_email: no spaces, quotes, brackets or
 * line breaks). */
static void address_header(FILE *f, const char *header, const char *name, const char *address)
{
	fprintf(f, "%s: ", header);
	if (name && *name && printable_ascii(name)) {
		fputc('"', f);
		for (const char *p = name; *p; p++) {
			if (*p == '"' || *p == '\\')
				fputc('\\', f);
			fputc(*p, f);
		}
		fputs("\" ", f);
	} else if (name && *name) {
		encoded_words(f, name);
		fputs("\r\n ", f);
	}
	fprintf(f, "<%s>\r\n", address);
}

/* `text` quoted-printable: lines of at most 76 characters, CRLF ends,
 * "=" and bytes outside printable ASCII as =XX, a space or tab before a
 * line end too (a relay may strip it). A lone CR is dropped. */
static void quoted_printable(FILE *f, const char *text)
{
	size_t col = 0;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '\r')
			continue;
		if (*p == '\n') {
			fputs("\r\n", f);
			col = 0;
			continue;
		}
		int at_end = p[1] == '\0' || p[1] == '\n' || (p[1] == '\r' && p[2] == '\n');
		int plain = (*p >= 33 && *p <= 126 && *p != '=') || ((*p == ' ' || *p == '\t') && !at_end);
		size_t width = plain ? 1 : 3;
		if (col + width > QP_LINE - 1) { /* room for the soft break's "=" */
			fputs("=\r\n", f);
			col = 0;
		}
		if (plain)
			fputc(*p, f);
		else
			fprintf(f, "=%02X", *p);
		col += width;
	}
	if (col)
		fputs("\r\n", f);
}

static void date_header(FILE *f, time_t t)
{
	static const char days[][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char months[][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug",
					  "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;
	gmtime_r(&t, &tm);
	fprintf(f, "Date: %s, %02d %s %04d %02d:%02d:%02d +0000\r\n", days[tm.tm_wday], tm.tm_mday,
		months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void new_boundary(char out[32])
{
	unsigned char r[12];
	randombytes_buf(r, sizeof(r));
	out[0] = '=';
	out[1] = '_';
	sodium_bin2hex(out + 2, 30, r, sizeof(r));
}

/* A file: its type and name (RFC 2231's UTF-8 form for a name that is
 * not plain ASCII), base64 in lines of 76. */
static void file_part(FILE *f, const char *boundary, const struct mail_file *file)
{
	fprintf(f, "--%s\r\nContent-Type: %s\r\nContent-Transfer-Encoding: base64\r\n"
		"Content-Disposition: attachment", boundary, file->type);
	int plain = printable_ascii(file->name) && !strpbrk(file->name, "\"\\");
	if (plain) {
		fprintf(f, "; filename=\"%s\"", file->name);
	} else {
		fputs(";\r\n filename*=UTF-8''", f);
		for (const unsigned char *p = (const unsigned char *)file->name; *p; p++)
			if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			    strchr("!#$&+-.^_`|~", *p))
				fputc(*p, f);
			else
				fprintf(f, "%%%02X", *p);
	}
	fputs("\r\n\r\n", f);
	for (size_t at = 0; at < file->len; at += 57) {
		size_t n = file->len - at < 57 ? file->len - at : 57;
		char line[sodium_base64_ENCODED_LEN(57, sodium_base64_VARIANT_ORIGINAL)];
		sodium_bin2base64(line, sizeof(line), file->data + at, n, sodium_base64_VARIANT_ORIGINAL);
		fprintf(f, "%s\r\n", line);
	}
}

static void part(FILE *f, const char *boundary, const char *type, const char *text)
{
	fprintf(f, "--%s\r\nContent-Type: %s; charset=utf-8\r\n"
		"Content-Transfer-Encoding: quoted-printable\r\n\r\n", boundary, type);
	quoted_printable(f, text);
}

int mail_write(const struct mail *m, char **out, size_t *len)
{
	/* A marketing message says how to stop them, under its text. */
	char *plain = NULL, *source = NULL;
	if (m->unsubscribe) {
		if (asprintf(&plain, "%s\n\n--\nUnsubscribe: %s\n", m->markdown, m->unsubscribe) < 0)
			return HL_ENOMEM;
		if (asprintf(&source, "%s\n\n---\n\n[Unsubscribe](%s)\n", m->markdown,
			     m->unsubscribe) < 0) {
			free(plain);
			return HL_ENOMEM;
		}
	}
	const char *text = plain ? plain : m->markdown, *md = source ? source : m->markdown;
	char *html = cmark_markdown_to_html(md, strlen(md), CMARK_OPT_HARDBREAKS);
	free(source);
	FILE *f = html ? open_memstream(out, len) : NULL;
	if (!f) {
		free(html);
		free(plain);
		return HL_ENOMEM;
	}
	char boundary[32], mixed[32];
	new_boundary(boundary);
	new_boundary(mixed);

	date_header(f, m->date);
	address_header(f, "From", m->from_name, m->from);
	address_header(f, "To", m->to_name, m->to);
	if (m->reply_to && *m->reply_to)
		fprintf(f, "Reply-To: <%s>\r\n", m->reply_to);
	text_header(f, "Subject", m->subject ? m->subject : "");
	fprintf(f, "Message-ID: %s\r\n", m->message_id);
	if (m->in_reply_to)
		fprintf(f, "In-Reply-To: %s\r\n", m->in_reply_to);
	if (m->references)
		fprintf(f, "References: %s\r\n", m->references);
	if (m->unsubscribe) /* RFC 8058: one click, by POST, without a page */
		fprintf(f, "List-Unsubscribe: <%s>\r\n"
			"List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n", m->unsubscribe);
	fputs("MIME-Version: 1.0\r\n", f);
	if (m->nfiles) /* the text and its HTML, then the files */
		fprintf(f, "Content-Type: multipart/mixed; boundary=\"%s\"\r\n\r\n--%s\r\n", mixed, mixed);
	fprintf(f, "Content-Type: multipart/alternative; boundary=\"%s\"\r\n\r\n", boundary);
	part(f, boundary, "text/plain", text);
	free(plain);
	fputs("\r\n", f);
	char *page = NULL;
	if (asprintf(&page, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n"
		     "%s</body></html>\n", html) < 0)
		page = NULL;
	free(html);
	int made = page != NULL;
	if (made)
		part(f, boundary, "text/html", page);
	free(page);
	fprintf(f, "--%s--\r\n", boundary);
	for (size_t i = 0; i < m->nfiles; i++)
		file_part(f, mixed, &m->files[i]);
	if (m->nfiles)
		fprintf(f, "--%s--\r\n", mixed);
	int bad = ferror(f) || !made;
	if (fclose(f) || bad) {
		free(*out);
		*out = NULL;
		return HL_ENOMEM;
	}
	return 0;
}
