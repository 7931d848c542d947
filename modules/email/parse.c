/* SPDX-License-Identifier: MIT */
/*
 * parse.c: received_parse of parse.h. GMime reads the message, lenient
 * as mail programs are with what real mail gets wrong; the text is the
 * first text/plain part that is not an attachment, else the first
 * text/html read as plain text (tags dropped, paragraphs kept: HTML from
 * outside is never shown as HTML), decoded from its transfer encoding
 * and charset (ISO-8859-1, Windows-1252 ...) to UTF-8. A multipart/report
 * of delivery-status is a bounce: the original's Message-ID comes from
 * its returned message or headers.
 */
#include "parse.h"

#include <gmime/gmime.h>
#include <string.h>

void received_init(void)
{
	g_mime_init();
}

/* `s` as valid UTF-8, newly allocated (NULL stays NULL). */
static char *utf8(const char *s)
{
	return s ? g_utf8_make_valid(s, -1) : NULL;
}

/* "<id>" of a Message-ID as GMime gives it (without the brackets). */
static char *bracketed(const char *id)
{
	return id && *id ? g_strdup_printf("<%s>", id) : NULL;
}

/* The first `needle` (lower case) in `s`, in any case. */
static const char *find_any_case(const char *s, const char *needle)
{
	size_t n = strlen(needle);
	for (; *s; s++)
		if (!g_ascii_strncasecmp(s, needle, n))
			return s;
	return NULL;
}

/* Whether the tag at `p` is one of those that end a line. */
static int breaks_line(const char *p)
{
	static const char *const tags[] = { "<br", "</p", "</div", "</li", "</tr", "</h1", "</h2",
					    "</h3", "</h4", "</blockquote" };
	for (size_t i = 0; i < G_N_ELEMENTS(tags); i++)
		if (!g_ascii_strncasecmp(p, tags[i], strlen(tags[i])))
			return 1;
	return 0;
}

/* HTML as plain text: tags dropped, a line break for <br> and the ends
 * of blocks, script and style left out, the common entities read. */
static char *html_text(const char *html)
{
	static const struct { const char *name, *text; } entities[] = {
		{ "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" },
		{ "&#39;", "'" }, { "&apos;", "'" }, { "&nbsp;", " " },
	};
	GString *out = g_string_new(NULL);
	const char *p = html;
	while (*p) {
		if (*p == '<') {
			const char *hidden = !g_ascii_strncasecmp(p, "<script", 7) ? "</script"
				: !g_ascii_strncasecmp(p, "<style", 6) ? "</style" : NULL;
			const char *from = hidden ? find_any_case(p, hidden) : p;
			const char *end = from ? strchr(from, '>') : NULL;
			if (!end)
				break;
			if (breaks_line(p))
				g_string_append_c(out, '\n');
			p = end + 1;
		} else if (*p == '&') {
			size_t i = 0;
			while (i < G_N_ELEMENTS(entities) &&
			       strncmp(p, entities[i].name, strlen(entities[i].name)))
				i++;
			g_string_append(out, i < G_N_ELEMENTS(entities) ? entities[i].text : "&");
			p += i < G_N_ELEMENTS(entities) ? strlen(entities[i].name) : 1;
		} else if (*p == '\r') {
			p++;
		} else {
			g_string_append_c(out, *p++);
		}
	}
	/* no more than one empty line in a row, none at the ends */
	GString *tidy = g_string_new(NULL);
	int newlines = 0;
	for (const char *q = out->str; *q; q++) {
		if (*q == '\n') {
			newlines++;
			continue;
		}
		if (tidy->len && newlines)
			g_string_append(tidy, newlines > 1 ? "\n\n" : "\n");
		newlines = 0;
		g_string_append_c(tidy, *q);
	}
	g_string_free(out, TRUE);
	return g_strstrip(g_string_free(tidy, FALSE));
}

/* The decoded bytes of `part`. */
static GByteArray *content_of(GMimePart *part)
{
	GMimeDataWrapper *content = g_mime_part_get_content(part);
	GMimeStream *mem = g_mime_stream_mem_new();
	if (content)
		g_mime_data_wrapper_write_to_stream(content, mem);
	GByteArray *bytes = g_byte_array_new();
	GByteArray *kept = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(mem));
	g_byte_array_append(bytes, kept->data, kept->len);
	g_object_unref(mem);
	return bytes;
}

struct walk {
	struct received *r;
	size_t attachment_max;
	char *plain, *html;   /* the first of each */
	char *status;         /* a delivery-status part's text */
	GArray *attachments;
};

static void take_attachment(struct walk *w, GMimePart *part)
{
	struct attachment a = { 0 };
	if (w->attachments->len >= ATTACHMENTS_MAX) {
		w->r->more_attachments++;
		return;
	}
	const char *name = g_mime_part_get_filename(part);
	a.name = utf8(name ? name : "attachment");
	a.type = g_mime_content_type_get_mime_type(g_mime_object_get_content_type(GMIME_OBJECT(part)));
	GByteArray *bytes = content_of(part);
	a.len = bytes->len;
	if (bytes->len > w->attachment_max) {
		a.too_big = 1;
		g_byte_array_free(bytes, TRUE);
	} else {
		a.data = g_byte_array_free(bytes, FALSE);
	}
	g_array_append_val(w->attachments, a);
}

static void walk_part(struct walk *w, GMimeObject *o, int depth)
{
	GMimeContentType *type = g_mime_object_get_content_type(o);
	if (depth > 32)
		return;
	if (GMIME_IS_MULTIPART(o)) {
		GMimeMultipart *m = GMIME_MULTIPART(o);
		for (int i = 0; i < g_mime_multipart_get_count(m); i++)
			walk_part(w, g_mime_multipart_get_part(m, i), depth + 1);
	} else if (GMIME_IS_MESSAGE_PART(o)) {
		GMimeMessage *inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(o));
		if (inner && w->r->bounce && !w->r->bounced_id)
			w->r->bounced_id = bracketed(g_mime_message_get_message_id(inner));
	} else if (GMIME_IS_PART(o)) {
		GMimePart *part = GMIME_PART(o);
		int text = g_mime_content_type_is_type(type, "text", "plain");
		int html = g_mime_content_type_is_type(type, "text", "html");
		if (g_mime_content_type_is_type(type, "message", "delivery-status") ||
		    g_mime_content_type_is_type(type, "message", "global-delivery-status")) {
			GByteArray *b = content_of(part);
			g_byte_array_append(b, (const guint8 *)"", 1);
			g_free(w->status);
			w->status = utf8((const char *)b->data);
			g_byte_array_free(b, TRUE);
		} else if (g_mime_content_type_is_type(type, "text", "rfc822-headers") && w->r->bounce) {
			GByteArray *b = content_of(part);
			g_byte_array_append(b, (const guint8 *)"", 1);
			const char *headers = (const char *)b->data;
			const char *id = !g_ascii_strncasecmp(headers, "message-id:", 11) ? headers
				: find_any_case(headers, "\nmessage-id:");
			if (id && !w->r->bounced_id) {
				const char *lt = strchr(id, '<'), *gt = lt ? strchr(lt, '>') : NULL;
				if (gt)
					w->r->bounced_id = g_strndup(lt, (gsize)(gt - lt + 1));
			}
			g_byte_array_free(b, TRUE);
		} else if ((text || html) && !g_mime_part_is_attachment(part) && GMIME_IS_TEXT_PART(o)) {
			char **slot = text ? &w->plain : &w->html;
			if (!*slot) {
				char *t = g_mime_text_part_get_text(GMIME_TEXT_PART(o));
				*slot = utf8(t ? t : "");
				g_free(t);
			}
		} else {
			take_attachment(w, part);
		}
	}
}

/* A delivery-status part's fields: the recipient it failed for and the
 * reporting server's words, from the first recipient whose Action is
 * failed. */
static void read_status(struct received *r, const char *status)
{
	gchar **lines = g_strsplit_set(status, "\r\n", -1);
	char *recipient = NULL, *diagnostic = NULL, *code = NULL;
	int failed = 0;
	for (gchar **l = lines; *l; l++) {
		const char *colon = strchr(*l, ':');
		if (!colon)
			continue;
		const char *value = colon + 1;
		while (*value == ' ' || *value == '\t')
			value++;
		const char *semi = strchr(value, ';');
		const char *after = semi ? semi + 1 : value;
		while (*after == ' ')
			after++;
		if (!g_ascii_strncasecmp(*l, "Final-Recipient:", 16) && !recipient)
			recipient = g_strdup(after);
		else if (!g_ascii_strncasecmp(*l, "Action:", 7))
			failed |= !g_ascii_strncasecmp(value, "failed", 6);
		else if (!g_ascii_strncasecmp(*l, "Diagnostic-Code:", 16) && !diagnostic)
			diagnostic = g_strdup(after);
		else if (!g_ascii_strncasecmp(*l, "Status:", 7) && !code)
			code = g_strdup(value);
	}
	r->bounce = failed;
	if (failed) {
		r->bounced_to = utf8(recipient);
		r->bounce_reason = diagnostic ? utf8(diagnostic)
			: g_strdup_printf("delivery failed%s%s", code ? ", status " : "", code ? code : "");
	}
	g_free(recipient);
	g_free(diagnostic);
	g_free(code);
	g_strfreev(lines);
}

/* `text` with LF line ends and no empty lines at its end, in place. */
static char *plain_lines(char *text)
{
	char *to = text;
	for (const char *p = text; *p; p++)
		if (*p != '\r' || p[1] != '\n')
			*to++ = *p;
	*to = '\0';
	while (to > text && (to[-1] == '\n' || to[-1] == ' ' || to[-1] == '\t'))
		*--to = '\0';
	return text;
}

/* A report's Content-Type says so before its parts are read. */
static int is_report(GMimeObject *body)
{
	GMimeContentType *type = g_mime_object_get_content_type(body);
	const char *kind = g_mime_object_get_content_type_parameter(body, "report-type");
	return g_mime_content_type_is_type(type, "multipart", "report") && kind &&
	       (!g_ascii_strcasecmp(kind, "delivery-status") ||
		!g_ascii_strcasecmp(kind, "global-delivery-status"));
}

/* One more message this one replies to, unless it is named already, is
 * not a plain ASCII id, or ANSWERS_MAX are. */
static void add_answer(struct received *r, const char *id)
{
	if (!id || !*id || r->nanswers == ANSWERS_MAX)
		return;
	for (const char *c = id; *c; c++)
		if (*c <= ' ' || *c > '~')
			return;
	char *b = bracketed(id);
	for (size_t i = 0; i < r->nanswers; i++)
		if (!strcmp(r->answers[i], b)) {
			g_free(b);
			return;
		}
	r->answers[r->nanswers++] = b;
}

/* The messages this one replies to, nearest first: In-Reply-To's, then
 * References' from the last (its parent) back to the first. */
static void read_answers(struct received *r, GMimeMessage *msg)
{
	static const char *const headers[] = { "In-Reply-To", "References" };
	r->answers = g_new0(char *, ANSWERS_MAX);
	for (size_t h = 0; h < G_N_ELEMENTS(headers); h++) {
		const char *text = g_mime_object_get_header(GMIME_OBJECT(msg), headers[h]);
		GMimeReferences *ids = text ? g_mime_references_parse(NULL, text) : NULL;
		int n = ids ? g_mime_references_length(ids) : 0;
		for (int i = 0; i < n; i++)
			add_answer(r, g_mime_references_get_message_id(ids, h ? n - 1 - i : i));
		if (ids)
			g_mime_references_free(ids);
	}
}

static void read_headers(struct received *r, GMimeMessage *msg)
{
	InternetAddressList *from = g_mime_message_get_from(msg);
	InternetAddress *a = from && internet_address_list_length(from)
		? internet_address_list_get_address(from, 0) : NULL;
	if (a && INTERNET_ADDRESS_IS_MAILBOX(a)) {
		r->from = utf8(internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(a)));
		const char *name = internet_address_get_name(a);
		r->from_name = name && *name ? utf8(name) : NULL;
	}
	const char *delivered = g_mime_object_get_header(GMIME_OBJECT(msg), "Delivered-To");
	InternetAddressList *to = g_mime_message_get_to(msg);
	InternetAddress *first = to && internet_address_list_length(to)
		? internet_address_list_get_address(to, 0) : NULL;
	if (delivered)
		r->to = g_strstrip(utf8(delivered));
	else if (first && INTERNET_ADDRESS_IS_MAILBOX(first))
		r->to = utf8(internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(first)));
	r->subject = utf8(g_mime_message_get_subject(msg));
	r->message_id = bracketed(g_mime_message_get_message_id(msg));
	read_answers(r, msg);
}

/* The struct's strings, for what is done to each. */
#define EACH_STRING(r) { &(r)->from, &(r)->from_name, &(r)->to, &(r)->subject, &(r)->message_id, \
	&(r)->text, &(r)->warning, &(r)->bounced_id, &(r)->bounced_to, \
	&(r)->bounce_reason }

/* Every string valid UTF-8, whatever the message held: the headers' raw
 * bytes (a Message-ID, a Status) are taken as they came. */
static void make_valid(struct received *r)
{
	char **strings[] = EACH_STRING(r);
	for (size_t i = 0; i < G_N_ELEMENTS(strings); i++)
		if (*strings[i] && !g_utf8_validate(*strings[i], -1, NULL)) {
			char *valid = g_utf8_make_valid(*strings[i], -1);
			g_free(*strings[i]);
			*strings[i] = valid;
		}
	for (size_t i = 0; i < r->nattachments; i++) {
		char **names[] = { &r->attachments[i].name, &r->attachments[i].type };
		for (size_t k = 0; k < G_N_ELEMENTS(names); k++)
			if (*names[k] && !g_utf8_validate(*names[k], -1, NULL)) {
				char *valid = g_utf8_make_valid(*names[k], -1);
				g_free(*names[k]);
				*names[k] = valid;
			}
	}
}

int received_parse(const char *raw, size_t len, size_t attachment_max, struct received *out)
{
	memset(out, 0, sizeof(*out));
	GMimeStream *stream = g_mime_stream_mem_new_with_buffer(raw, len);
	GMimeParser *parser = g_mime_parser_new_with_stream(stream);
	GMimeMessage *msg = g_mime_parser_construct_message(parser, NULL);
	g_object_unref(parser);
	g_object_unref(stream);
	GMimeObject *body = msg ? g_mime_message_get_mime_part(msg) : NULL;
	if (!msg || !body) {
		char *text = g_strndup(raw, len);
		out->text = utf8(text);
		g_free(text);
		out->warning = g_strdup("the message could not be read as MIME: it is kept as text");
		if (msg)
			g_object_unref(msg);
		return 0;
	}
	read_headers(out, msg);
	struct walk w = { .r = out, .attachment_max = attachment_max,
			  .attachments = g_array_new(FALSE, TRUE, sizeof(struct attachment)) };
	out->report = out->bounce = is_report(body);
	walk_part(&w, body, 0);
	if (out->bounce && w.status)
		read_status(out, w.status);
	else
		out->bounce = 0;
	if (w.plain) {
		out->text = plain_lines(w.plain);
		g_free(w.html);
	} else if (w.html) {
		out->text = html_text(w.html);
		g_free(w.html);
	}
	g_free(w.status);
	out->nattachments = w.attachments->len;
	out->attachments = (struct attachment *)(void *)g_array_free(w.attachments, FALSE);
	g_object_unref(msg);
	make_valid(out);
	return 0;
}

void received_free(struct received *r)
{
	char **strings[] = EACH_STRING(r);
	for (size_t i = 0; i < G_N_ELEMENTS(strings); i++) {
		g_free(*strings[i]);
		*strings[i] = NULL;
	}
	for (size_t i = 0; i < r->nattachments; i++) {
		g_free(r->attachments[i].name);
		g_free(r->attachments[i].type);
		g_free(r->attachments[i].data);
	}
	g_free(r->attachments);
	r->attachments = NULL;
	r->nattachments = 0;
	for (size_t i = 0; i < r->nanswers; i++)
		g_free(r->answers[i]);
	g_free(r->answers);
	r->answers = NULL;
	r->nanswers = 0;
}
